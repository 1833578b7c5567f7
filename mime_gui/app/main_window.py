"""The main window: the 3D scene in the middle, chain tree, properties and read report in docks.

Menus and docks only call :class:`~mime_gui.session.Session` methods (open, reload, select, layers); they
refresh from its events through :class:`~mime_gui.app.bridge.SessionBridge`. View-only operations (camera,
standard views, projection) go straight to the scene.
"""

from __future__ import annotations

import html
import platform
from pathlib import Path

import numpy as np
from PySide6.QtCore import QByteArray, QSettings, QSignalBlocker, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QImage, QKeySequence, QPainter, QPixmap
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QVBoxLayout,
    QWidget,
)

from mime_gui import __version__
from mime_gui.app import gc_guard
from mime_gui.app.assembly import install_assembly
from mime_gui.app.bridge import SessionBridge
from mime_gui.app.clearance import install_clearance
from mime_gui.app.docks import registry
from mime_gui.app.driving import install_driving
from mime_gui.app.field_views import install_field_views
from mime_gui.app.file_watch import install_file_watch
from mime_gui.app.layout import STATE_VERSION, arrange_docks, build_panels_menu
from mime_gui.app.logs import current_log_file
from mime_gui.app.posing import install_posing
from mime_gui.app.services import make_services
from mime_gui.app.steady_label import SteadyLabel
from mime_gui.app.undo import UndoActions
from mime_gui.inputs import resolved
from mime_gui.session import LAYERS, Session, SessionError

APP_NAME = "MIME Rig Builder"
FILE_FILTER = ("Robots and rigs (*.urdf *.rig.json *.xml *.zip);;URDF (*.urdf *.xml);;"
               "Rig files (*.rig.json);;Rig bundles (*.zip);;All files (*)")
MAX_RECENT = 8
LAYER_LABELS = {
    "visual": ("Visual geometry", "V"),
    "collision": ("Collision geometry", "C"),
    "frames": ("Frame triads", "F"),
    "frame_labels": ("Frame labels", "Shift+F"),
    "joint_axes": ("Joint axes", "J"),
    "com": ("Centres of mass", "M"),
    "inertia": ("Inertia boxes", "I"),
    "grid": ("Floor grid", "G"),
    "parts": ("Rig parts and magnets", ""),
}
STANDARD_VIEWS = (("iso", "Isometric", "0"), ("front", "Front", "1"), ("back", "Back", "Ctrl+1"),
                  ("left", "Left", "3"), ("right", "Right", "Ctrl+3"), ("top", "Top", "7"),
                  ("bottom", "Bottom", "Ctrl+7"))


class _NoScene(QLabel):
    """Stands in for the 3D view when it cannot be created (no OpenGL): every call the Session and the
    window make of a scene is accepted and does nothing, so the rest of the app works without a view."""

    antialiasing_changed = Signal(bool)
    detail_changed = Signal(int, int)
    picked = Signal(object)

    def __init__(self, reason: str, parent=None):
        super().__init__(f"3D view unavailable: {reason}", parent)
        self.setAlignment(Qt.AlignCenter)
        self.plotter = None
        self.loading = False

    def show_segments(self, segments): ...
    def update_segments(self, changed, removed=()): ...
    def hold_camera(self, on=True): ...
    def set_frame_poses(self, segment, world_X_frame): ...
    def show_items(self, change): ...
    def update_items(self, change): ...
    def set_item_poses(self, poses, com=None): ...
    def set_layer_visible(self, layer, visible): ...
    def set_item_visible(self, item, visible): ...
    def highlight(self, item): ...
    def request_render(self): ...
    def focus(self, item): ...
    def reset_camera(self): ...
    def view_standard(self, name): ...
    def set_orthographic(self, on): ...
    def set_frame_filter(self, pattern): ...
    def set_antialiasing(self, on): ...
    def antialiasing(self): return False
    def set_display_detail(self, budget): ...
    def display_detail(self): return None
    def detail_summary(self): return ""
    def set_visual_opacity(self, opacity): ...
    def visual_opacity(self): return 1.0
    def actor_counts(self): return {}
    def close(self): return super().close()


def make_scene(parent) -> QWidget:
    try:
        from mime_gui.app.scene.view import SceneView
    except ImportError as err:
        return _NoScene(str(err), parent)
    return SceneView(parent)


def settings() -> QSettings:
    return QSettings("MIME", "RigBuilder")


class MainWindow(QMainWindow):
    def __init__(self, session: Session | None = None, *, restore: bool = True):
        super().__init__()
        gc_guard.install()  # cyclic garbage (closed windows' Qt objects) is collected on this thread only
        self.session = session or Session()
        self.bridge = SessionBridge(self.session, self)
        self.setWindowTitle(APP_NAME)
        self.setAcceptDrops(True)
        self.setDockOptions(QMainWindow.AnimatedDocks | QMainWindow.AllowNestedDocks
                            | QMainWindow.AllowTabbedDocks)
        self.error_dialog: QMessageBox | None = None
        self.packages_dialog = None  # File → Package folders…, while open
        self._opening = False
        self._restore = restore

        self.scene = make_scene(self)
        if hasattr(self.scene, "add_before_render"):  # the docks and marks follow the poses in the same frame
            self.scene.add_before_render(self.bridge.flush_poses)
        holder = QWidget(self)
        lay = QVBoxLayout(holder)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.scene)
        self.setCentralWidget(holder)
        self._central_layout = lay  # the bar offering to reload a file changed on disk goes above the view

        # what the parts share, made once; every dock from the registry (placed by app/layout.py once the
        # parts are installed); the parts get both, never reaching each other through the window
        self.services = services = make_services(self.session, self)
        if hasattr(self.scene, "add_after_render"):  # the plots changed in a frame's turn: one compose
            self.scene.add_after_render(services.plots.flush)
        self.docks = docks = registry.make_docks(self.session, self.bridge, services)
        for dock in docks.values():
            dock.setParent(self)
        self.tree_dock = docks["ChainTreeDock"]
        self.properties_dock = docks["PropertiesDock"]
        self.report_dock = docks["ReadReportDock"]
        self.torques_dock = docks["TorquesDock"]
        self.demand_dock = docks["MotorDemandDock"]

        self.progress = QProgressBar(self)
        self.progress.setMaximumWidth(220)
        self.progress.setTextVisible(True)
        self.progress.hide()
        self.status_counts = QLabel(self)
        self.statusBar().addPermanentWidget(self.status_counts)
        self.statusBar().addPermanentWidget(self.progress)

        self._build_menus()
        self.assembly = install_assembly(self, docks)  # Edit and Export entries, autosave (app/assembly.py)
        self.tree_dock.focus_requested.connect(self._focus)
        self.bridge.document_changed.connect(self._document_changed)
        self.bridge.history_changed.connect(self._history_changed)
        self.bridge.findings_changed.connect(self._findings_changed)
        self.bridge.rig_changed.connect(self._rig_changed)
        self.bridge.layers_changed.connect(self._layer_changed)
        self.bridge.error.connect(self._show_error)
        self.tree_dock.filter_changed.connect(self._frame_filter)
        picked = getattr(self.scene, "picked", None)
        if picked is not None:
            picked.connect(self._picked)
        progress = getattr(self.scene, "meshes_progress", None)
        if progress is not None:
            progress.connect(self._load_progress)
        loaded = getattr(self.scene, "meshes_loaded", None)
        if loaded is not None:
            loaded.connect(self._meshes_loaded)
        self.driving = install_driving(self, docks, services)  # the clock's start, the Playback menu
        self.file_watch = install_file_watch(self, self._central_layout)  # files changed on disk
        self.field_views = install_field_views(self, docks, services)  # B at the selected probe, |B| plane
        self.posing = install_posing(self)  # handle drags in the view: items moved, frames reached
        self.clearance = install_clearance(self, docks, services)  # findings, closest pair, plot
        finish_docks = arrange_docks(self)  # the default arrangement, once every dock exists (app/layout.py)
        build_panels_menu(self, self.menus["Panels"])  # View → Panels, from the same registry
        self.session.attach_renderer(self.scene)
        if not (restore and self._restore_state(finish_docks)):
            QTimer.singleShot(0, self, finish_docks)
        self._document_changed(self.session.document)

    # -- menus -------------------------------------------------------------------------------------
    def _action(self, menu, text: str, slot, shortcut=None, tip: str = "") -> QAction:
        action = QAction(text, self)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
        if tip:
            action.setStatusTip(tip)
        action.triggered.connect(slot)
        menu.addAction(action)
        return action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file = bar.addMenu("&File")
        self.act_open = self._action(file, "&Open…", self.open_dialog, QKeySequence.Open,
                                     "Open a URDF or a rig file")
        self.recent_menu = file.addMenu("Open &Recent")
        self.act_reload = self._action(file, "&Reload", self.reload, "F5", "Read the file again from disk")
        self._action(file, "&Package folders…", self.package_folders_dialog, None,
                     "Folders where package:// meshes are looked for, remembered between runs")
        file.addSeparator()
        self.act_save = self._action(file, "&Save", self.save, QKeySequence.Save)
        self.act_save_as = self._action(file, "Save &As…", self.save_as, QKeySequence.SaveAs)
        self.act_export = self._action(file, "&Export…", self.export, "Ctrl+E",
                                       "Export the read report (URDF) or the rig definition")
        self.act_screenshot = self._action(file, "Screens&hot…", self.screenshot_dialog, "Ctrl+Shift+P",
                                           "Save an image of the window")
        file.addSeparator()
        self._action(file, "&Quit", self.close, QKeySequence.Quit)

        edit = bar.addMenu("&Edit")
        self.undo_actions = UndoActions(self.session, self.bridge, self)
        edit.addAction(self.undo_actions.undo)
        edit.addAction(self.undo_actions.redo)

        view = bar.addMenu("&View")
        self.layer_actions: dict[str, QAction] = {}
        for layer in LAYERS:
            text, key = LAYER_LABELS.get(layer, (layer, ""))
            action = QAction(text, self, checkable=True)
            if key:
                action.setShortcut(QKeySequence(key))
            action.setChecked(self.session.layers.get(layer, False))
            action.toggled.connect(lambda on, _l=layer: self.session.set_layer_visible(_l, on))
            view.addAction(action)
            self.layer_actions[layer] = action
        view.addSeparator()
        cam = view.addMenu("&Camera")
        self._action(cam, "&Reset camera", self._reset_camera, "R")
        for name, text, key in STANDARD_VIEWS:
            self._action(cam, f"{text} view", lambda _=False, _n=name: self._view(_n), key)
        cam.addSeparator()
        self.act_ortho = QAction("&Orthographic projection", self, checkable=True)
        self.act_ortho.setShortcut(QKeySequence("5"))
        self.act_ortho.toggled.connect(self._orthographic)
        cam.addAction(self.act_ortho)
        self._build_display_menu(view)
        view.addSeparator()
        docks = view.addMenu("&Panels")  # filled from the dock registry once every dock exists

        helpm = bar.addMenu("&Help")
        self._action(helpm, "&About", self.about)
        self._refresh_recent()
        # the app's parts add their entries to these (kept here: a menu looked up again through the bar's
        # actions comes from the binding's address map, where a dead object's wrapper could stand for it)
        self.menus = {"File": file, "Edit": edit, "View": view, "Panels": docks, "Help": helpm}

    def _build_display_menu(self, view) -> None:
        scene = self.scene
        self.act_aa = QAction("&Anti-aliasing", self, checkable=True)
        self.act_aa.setChecked(bool(scene.antialiasing()))
        self.act_aa.toggled.connect(scene.set_antialiasing)
        view.addAction(self.act_aa)
        scene.antialiasing_changed.connect(self._antialiasing_changed)  # decided once the renderer is known
        detail = view.addMenu("Display &detail")
        group = QActionGroup(self)
        current = scene.display_detail()
        for label, budget in (("Auto (from the frame time)", "auto"), ("Full", None),
                              ("500k faces", 500_000), ("200k faces", 200_000),
                              ("100k faces", 100_000), ("50k faces", 50_000)):
            action = QAction(label, self, checkable=True)
            action.setChecked(budget == current)
            action.triggered.connect(lambda _=False, _b=budget: self.scene.set_display_detail(_b))
            group.addAction(action)
            detail.addAction(action)
        opacity = view.addMenu("Robot &opacity")
        group = QActionGroup(self)
        self.opacity_actions: dict[float, QAction] = {}
        for value in (1.0, 0.75, 0.5, 0.25):
            action = QAction(f"{value:.0%}" + (" (opaque)" if value == 1.0 else ""), self, checkable=True)
            action.setChecked(value == scene.visual_opacity())
            action.triggered.connect(lambda _=False, _v=value: self.scene.set_visual_opacity(_v))
            group.addAction(action)
            opacity.addAction(action)
            self.opacity_actions[value] = action
        # triangle counts (shown / full) in the status bar
        self.status_faces = SteadyLabel(self)  # Auto detail changes its count while driving: no relayout
        self.status_faces.setToolTip("Faces drawn / at full detail (View → Display detail)")
        self.statusBar().insertPermanentWidget(0, self.status_faces)
        scene.detail_changed.connect(lambda *_: self.status_faces.setText(self.scene.detail_summary()))

    def _antialiasing_changed(self, on: bool) -> None:
        with QSignalBlocker(self.act_aa):
            self.act_aa.setChecked(bool(on))

    # -- scene helpers -----------------------------------------------------------------------------
    def _focus(self, ref) -> None:
        self.scene.focus(ref)

    def _reset_camera(self) -> None:
        self.scene.reset_camera()

    def _view(self, name: str) -> None:
        self.scene.view_standard(name)

    def _orthographic(self, on: bool) -> None:
        self.scene.set_orthographic(on)

    def _frame_filter(self, text: str) -> None:
        self.scene.set_frame_filter(text)

    @property
    def loading(self) -> bool:
        """True while the scene loads meshes off the GUI thread (the screenshot waits for it)."""
        return self.scene.loading

    def _meshes_loaded(self, problems) -> None:
        self.progress.hide()
        opened, self._opening = self._opening, False
        if problems:
            self.report_dock.rebuild()  # the scene put each file's problem in the read report
            self.statusBar().showMessage(f"{len(problems)} mesh problem(s): {problems[0]}", 8000)
        elif opened and self.session.document is not None:  # not after an edit's meshes
            self.statusBar().showMessage(*self._opened_text(self.session.document))
        elif self.statusBar().currentMessage().startswith("Loading "):
            self.statusBar().clearMessage()  # the last file's name must not stay as if still loading

    def _picked(self, ref) -> None:
        if ref is None or self.session.has_item(ref):
            self.session.select(ref)

    def _load_progress(self, done: int, total: int, text: str = "") -> None:
        if total <= 0 or done >= total:
            self.progress.hide()
            return
        self.progress.setRange(0, total)
        self.progress.setValue(done)
        self.progress.setFormat("meshes %v/%m")
        self.progress.show()
        if text:
            self.statusBar().showMessage(f"Loading {text}")

    # -- documents ---------------------------------------------------------------------------------
    def open_file(self, path: str) -> bool:
        """Open a file through the Session; a refusal shows its coded message and keeps the document."""
        self._opening = True
        self.statusBar().showMessage(f"Opening {path}…")
        self.progress.setRange(0, 0)
        self.progress.setFormat("reading")
        self.progress.show()
        QApplication.processEvents()
        try:
            self.session.open(path)
        except SessionError:
            self.statusBar().showMessage(f"Could not open {Path(path).name}", 6000)
            return False
        finally:
            if not self.loading:  # else the scene's progress takes over the bar
                self.progress.hide()
        self.add_recent(path)
        return True

    def open_dialog(self) -> None:
        start = str(Path(self.session.path).parent) if self.session.path else ""
        path, _ = QFileDialog.getOpenFileName(self, "Open a robot or a rig", start, FILE_FILTER)
        if path:
            self.open_file(path)

    def package_folders_dialog(self):
        """File → Package folders…: the remembered folders; OK reads the open file again with them."""
        from mime_gui.app.package_folders import PackageFoldersDialog

        dialog = PackageFoldersDialog(settings(), self)
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        dialog.accepted.connect(self.reload)
        self.packages_dialog = dialog
        dialog.open()
        return dialog

    def reload(self) -> None:
        if self.session.document is None:
            return
        from mime_gui.app.scene import meshes

        meshes.clear_caches()  # a mesh edited on disk is read again
        self.scene.hold_camera()  # the same robot read again: the camera stays where the user put it
        selected = self.session.selection
        try:
            self.session.reload()
        except SessionError:
            self.scene.hold_camera(False)
            return
        if selected is not None and self.session.has_item(selected):  # the item still there stays selected
            self.session.select(selected)
        self.statusBar().showMessage(f"Reloaded {self.session.document.name}", 4000)

    def _document_changed(self, doc) -> None:
        has = doc is not None
        for action in (self.act_reload, self.act_save_as, self.act_export):
            action.setEnabled(has)
        self.act_save.setEnabled(has)
        self._history_changed()
        if not has:
            self.status_counts.setText("")
            return
        self._show_counts()
        self.statusBar().showMessage(*self._opened_text(doc))

    @staticmethod
    def _opened_text(doc) -> tuple[str, int]:
        if doc.bundle:
            return (f"Opened the bundle {doc.bundle} (extracted into the bundle cache); Save asks where to "
                    "keep it", 8000)
        return f"Opened {doc.path or doc.name}", 5000

    def _show_counts(self) -> None:
        doc = self.session.document
        links = sum(len(s.tree.links) for s in doc.segments.values())
        dof = sum(s.articulation.nq for s in doc.segments.values())
        warnings = sum(len(s.tree.report.warnings) for s in doc.segments.values())
        text = f"{links} links · {dof} dof · {warnings} warnings"
        findings = len(doc.findings)
        if findings:
            text += f" · {findings} finding{'s' if findings != 1 else ''}"
            self.status_counts.setToolTip("\n".join(str(f) for f in doc.findings[:20]))
        else:
            self.status_counts.setToolTip("The rig follows every rule")
        self.status_counts.setText(text)

    def _history_changed(self) -> None:
        doc = self.session.document
        if doc is None:
            self.setWindowTitle(APP_NAME)
            self.setWindowModified(False)
            return
        title = f"{doc.name}[*] — {APP_NAME}"
        if self.windowTitle() != title:  # each call reaches the window system: not at every keystroke
            self.setWindowTitle(title)
        if self.isWindowModified() != self.session.modified:
            self.setWindowModified(self.session.modified)

    def _findings_changed(self, findings) -> None:
        if self.session.document is not None:
            self._show_counts()

    def _rig_changed(self, change) -> None:
        self._show_counts()
        self.statusBar().showMessage(change.name, 3000)

    def _layer_changed(self, layer: str, visible: bool) -> None:
        action = self.layer_actions.get(layer)
        if action is not None and action.isChecked() != visible:
            with QSignalBlocker(action):
                action.setChecked(visible)

    #: refusals that happen on the clock's ticks, not in answer to the user: the status bar says them
    STATUS_ERRORS = ("session.diverged",)

    def _show_error(self, err) -> None:
        if getattr(err, "code", "") in self.STATUS_ERRORS:
            self.statusBar().showMessage(err.one_line(), 15000)
            return
        box = QMessageBox(QMessageBox.Critical, "Refused", err.one_line(), QMessageBox.Ok, self)
        if getattr(err, "code", "").startswith("edit."):
            box.setInformativeText("The rig is unchanged.")
        else:
            box.setInformativeText("The previous document stays open." if self.session.document else "")
        box.setTextInteractionFlags(Qt.TextSelectableByMouse)
        box.setAttribute(Qt.WA_DeleteOnClose)
        self.error_dialog = box
        box.open()

    # -- save / export -----------------------------------------------------------------------------
    def save(self) -> None:
        doc = self.session.document
        if doc is None:
            return
        if not self.session.writable:  # a bundle's extracted copy (or a rig built in Python): ask where
            self.save_as()
            return
        try:
            path = self.session.save()
        except SessionError:
            return
        self.statusBar().showMessage(f"Saved {path}", 4000)

    def save_as(self) -> None:
        doc = self.session.document
        if doc is None:
            return
        suffix = "Rig files (*.rig.json)" + (";;A copy of the URDF (*.urdf)" if doc.kind == "urdf" else "")
        path, _ = QFileDialog.getSaveFileName(self, "Save as", self.session.suggested_path(), suffix)
        if not path:
            return
        try:
            self.session.save(path)
        except SessionError:
            return
        self.statusBar().showMessage(f"Saved {path}", 4000)

    def export(self) -> None:
        doc = self.session.document
        if doc is None:
            return
        if doc.kind == "rig":
            path, chosen = QFileDialog.getSaveFileName(
                self, "Export", str(Path(doc.path or "rig").with_suffix("").with_suffix(".py")),
                "MIME-style Python (*.py);;Read report (*.json)")
            if path and chosen.startswith("MIME"):
                self._export(self.session.export_python, path)
                return
        else:
            path, _ = QFileDialog.getSaveFileName(
                self, "Export the read report", str(Path(doc.path).with_suffix(".report.json")),
                "JSON (*.json)")
        if path:
            self.export_read_report(path)

    def export_read_report(self, path: str) -> bool:
        """Write the read report through the Session; a failure shows its coded message."""
        return self._export(self.session.export_read_report, path)

    def _export(self, write, path: str) -> bool:
        try:
            write(path)
        except SessionError:  # the Session emitted it: the error dialog shows it
            return False
        self.statusBar().showMessage(f"Exported {path}", 4000)
        return True

    # -- screenshots -------------------------------------------------------------------------------
    def grab_window(self) -> QImage:
        """The whole window as an image, with the 3D view's own rendering painted in (an OpenGL view
        grabbed as a widget can come out black)."""
        QApplication.processEvents()
        pixmap: QPixmap = self.grab()
        plotter = getattr(self.scene, "plotter", None)
        if plotter is not None:
            try:
                plotter.render()
                shot = np.ascontiguousarray(plotter.screenshot(return_img=True, transparent_background=False))
            except (RuntimeError, AttributeError, ValueError):
                shot = None
            if shot is not None and shot.ndim == 3 and shot.size:
                h, w = shot.shape[:2]
                image = QImage(shot.data, w, h, shot.strides[0],
                               QImage.Format_RGB888 if shot.shape[2] == 3 else QImage.Format_RGBA8888).copy()
                top_left = self.scene.mapTo(self, self.scene.rect().topLeft())
                target = self.scene.rect().translated(top_left)
                painter = QPainter(pixmap)
                painter.drawImage(target, image)
                painter.end()
        return pixmap.toImage()

    def save_screenshot(self, path: str) -> bool:
        """Write the window as a PNG through the atomic writer (a FIFO or a folder there is refused, a link
        is written through); False when it cannot be, with the coded reason in ``screenshot_error``."""
        from mime_gui.app.video import encode_png
        from mime_gui.files import write_atomic
        from mime_gui.inputs import FileError

        self.screenshot_error = None
        try:
            write_atomic(path, encode_png(self.grab_window()))
        except FileError as err:
            self.screenshot_error = SessionError(err.code, err.message, path)
        except (OSError, ValueError) as err:
            self.screenshot_error = SessionError("screenshot.write", f"could not write the PNG "
                                                 f"({getattr(err, 'strerror', None) or err}); check the "
                                                 "folder", path)
        return self.screenshot_error is None

    def screenshot_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save a screenshot", "mime-gui.png", "PNG (*.png)")
        if not path:
            return
        if self.save_screenshot(path):
            self.statusBar().showMessage(f"Saved {path}", 4000)
        else:  # a view-only action: the window reports it in the Session's coded shape
            self._show_error(self.screenshot_error)

    # -- about -------------------------------------------------------------------------------------
    def about_text(self) -> str:
        import PySide6
        import pyvista
        import vtk

        try:
            import pyvistaqt
            pvqt = pyvistaqt.__version__
        except (ImportError, AttributeError):
            pvqt = "?"
        return (f"<b>{APP_NAME}</b> {__version__}<br>Load URDFs, assemble rigs, drive the arm.<br><br>"
                f"Python {platform.python_version()}<br>Qt {PySide6.QtCore.qVersion()} · "
                f"PySide6 {PySide6.__version__}<br>VTK {vtk.vtkVersion.GetVTKVersion()} · "
                f"PyVista {pyvista.__version__} · pyvistaqt {pvqt}<br>NumPy {np.__version__}"
                f"<br><br>Log file: {html.escape(str(current_log_file() or 'none'))}")

    def about(self) -> None:
        QMessageBox.about(self, f"About {APP_NAME}", self.about_text())

    # -- recent files ------------------------------------------------------------------------------
    def recent_files(self) -> list[str]:
        value = settings().value("recentFiles", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or [])]

    def add_recent(self, path: str) -> None:
        path = str(resolved(path))
        recent = [p for p in self.recent_files() if p != path]
        settings().setValue("recentFiles", [path, *recent][:MAX_RECENT])
        self._refresh_recent()

    def _refresh_recent(self) -> None:
        self.recent_menu.clear()
        recent = self.recent_files()
        for path in recent:
            action = self.recent_menu.addAction(Path(path).name)
            action.setToolTip(path)
            action.setStatusTip(path)
            action.triggered.connect(lambda _=False, _p=path: self.open_file(_p))
        self.recent_menu.setEnabled(bool(recent))

    # -- drag and drop -----------------------------------------------------------------------------
    @staticmethod
    def _dropped_path(mime) -> str | None:
        if not mime.hasUrls():
            return None
        for url in mime.urls():
            if url.isLocalFile():
                return url.toLocalFile()
        return None

    def dragEnterEvent(self, event) -> None:
        if self._dropped_path(event.mimeData()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event) -> None:
        path = self._dropped_path(event.mimeData())
        if path:
            event.acceptProposedAction()
            QTimer.singleShot(0, lambda: self.open_file(path))

    # -- window state ------------------------------------------------------------------------------
    def _restore_state(self, finish_docks) -> bool:
        """The saved geometry and dock state; True when a state was restored (over the finished default
        arrangement)."""
        s = settings()
        geometry = s.value("window/geometry")
        state = s.value("window/state")
        if isinstance(geometry, QByteArray | bytes):
            self.restoreGeometry(geometry)
        else:
            self.resize(1400, 900)
        if isinstance(state, QByteArray | bytes):
            finish_docks()
            return bool(self.restoreState(state, STATE_VERSION))
        return False

    def closeEvent(self, event) -> None:
        if self._restore:
            s = settings()
            s.setValue("window/geometry", self.saveGeometry())
            s.setValue("window/state", self.saveState(STATE_VERSION))
        self.bridge.detach()
        self.session.attach_renderer(None)
        self.field_views.close()
        self.clearance.close()
        close = getattr(self.scene, "close", None)
        if close is not None:
            close()
        super().closeEvent(event)
