"""Driving in the window: the joint sliders, the poses, the player and the plots docks, the one clock, the
Playback menu and its keys, and the video export. :func:`install_driving` adds all of it to a MainWindow; the
docks come from the registry and the clock and the transport from the window's services (app/services.py).

The clock (``app/clock.py``, about 60 Hz on the real elapsed time) ticks the
:class:`~mime_gui.session.transport.Transport`: live, it advances the Session's chain node (the arm lags its
commands through the servo); with a trajectory playing, it moves the playhead with the wall clock. Renders
stay coalesced in the view (one per event-loop turn), so a playback faster than the renderer skips rows.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication, QFileDialog, QMenu, QProgressDialog

from mime_gui.app.services import Services
from mime_gui.app.video import FPS, VideoError, frame_rows, kinds, render_video
from mime_gui.multibody import compiled


class Driving(QObject):
    def __init__(self, window, docks, services: Services):
        super().__init__(window)
        self.window = window
        session = window.session
        self.transport = services.transport
        self.clock = services.clock
        self.sliders = docks["JointSlidersDock"]
        self.player = docks["PlayerDock"]
        self.plots = docks["PlotsDock"]
        self.video_dialog: QProgressDialog | None = None
        self.sliders.commanded.connect(self.transport.take_over)
        self.sliders.commanded.connect(self.clock.tick_now)
        self.plots.set_degrees(self.sliders.degrees)  # the plots' angles in the sliders' unit
        self.sliders.units_changed.connect(self.plots.set_degrees)
        self.poses = docks["PosesDock"]  # a stored pose in the sliders' unit; going to one is the sliders'
        self.poses.set_degrees(self.sliders.degrees)
        self.sliders.units_changed.connect(self.poses.set_degrees)
        self.poses.go_to_requested.connect(self.sliders.go_to)
        # a found pose previewed: placed at once, as Teleport does (a jump through the servo is no preview)
        docks["PlannerDock"].go_to_requested.connect(lambda at: self.sliders.go_to(at, place=True))
        self.poses.centre_requested.connect(self.sliders.centre_positions)
        self.poses.randomize_requested.connect(self.sliders.randomize_positions)
        self.player.video_requested.connect(self.export_video_dialog)
        self.clock.ticked.connect(lambda _dt: self.player.tick())
        self._build_menu()
        window.installEventFilter(self)
        session.document_changed.connect(lambda _doc: self._load_compiled_when_dynamic())
        session.rig_changed.connect(lambda _change: self._load_compiled_when_dynamic())
        self.clock.start()

    #: seconds after a rig with a dynamic segment opens before its compiled dynamics load on a thread (the
    #: first frames are drawn first; until then the live torques use numpy)
    COMPILED_DELAY = 1.0

    def _load_compiled_when_dynamic(self) -> None:
        built = getattr(self.window.session.document, "built", None)
        if built is None or compiled.ready():
            return
        if any(s.segment.dynamic for s in built.segments.values()):
            # bound to self: a window closed before it fires starts nothing
            QTimer.singleShot(int(self.COMPILED_DELAY * 1000), self, compiled.load_in_background)

    def _action(self, menu, text: str, slot, shortcut=None, tip: str = "", context=None) -> QAction:
        action = QAction(text, self.window)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
        if context is not None:
            action.setShortcutContext(context)
        if tip:
            action.setStatusTip(tip)
        action.triggered.connect(slot)
        menu.addAction(action)
        return action

    def _build_menu(self) -> None:
        bar = self.window.menuBar()
        menu = QMenu("&Playback", bar)
        bar.insertMenu(self.window.menus["Help"].menuAction(), menu)
        t = self.transport
        self.act_open = self._action(menu, "&Open commands…", self.player.open_dialog, "Ctrl+Shift+O",
                                     "Play a command file (CSV or NPZ) on the rig")
        self.act_play = self._action(menu, "&Play / Pause", t.toggle, "Space")
        # the arrow keys step only from the view and the player (a focused joint slider keeps them)
        local = Qt.WidgetWithChildrenShortcut
        self.act_forward = self._action(menu, "Step &forward", lambda: t.step(1), "Right", context=local)
        self.act_back = self._action(menu, "Step &back", lambda: t.step(-1), "Left", context=local)
        for action in (self.act_forward, self.act_back):
            self.player.addAction(action)
            self.window.scene.addAction(action)
        menu.addSeparator()
        self.act_record = self._action(menu, "&Record", lambda: self.player.record_button.toggle(), "Ctrl+R",
                                       "Record the slider commands with their times")
        self.act_play_recording = self._action(menu, "Play the last re&cording", self.player.play_recording)
        self.act_save_recording = self._action(menu, "&Save the last recording…",
                                               self.player.save_recording_dialog)
        menu.addSeparator()
        self._action(menu, "Export the &trajectory (NPZ)…", self.player.export_npz_dialog)
        self._action(menu, "Export a &video of the view…", self.export_video_dialog)

    # -- video ------------------------------------------------------------------------------------------
    def export_video_dialog(self) -> None:
        player = self.transport.player
        if player is None:
            return
        available = kinds()
        stem = Path(player.source).stem if player.source != "recording" else "recording"
        first = next(iter(available))
        path, chosen = QFileDialog.getSaveFileName(self.window, "Export a video of the view",
                                                   str(Path(self.player.last_dir or ".") / f"{stem}{first}"),
                                                   ";;".join(available.values()))
        if not path:
            return
        if Path(path).suffix.lower() not in available:
            path += next((k for k, v in available.items() if v == chosen), first)
        self.export_video(path)

    def export_video(self, path: str, fps: float = FPS) -> list[Path]:
        """Render the view at every frame of the trajectory into ``path`` with a progress dialog (Cancel
        leaves nothing behind); the playhead comes back where it was."""
        t, player = self.transport, self.transport.player
        plotter = getattr(self.window.scene, "plotter", None)
        if player is None:
            return []
        if plotter is None:
            self.player.show_error(VideoError("video.no-view", "the 3D view is not available (no OpenGL), so "
                                              "there is nothing to film; export the trajectory as NPZ"))
            return []
        row, mode = player.row, t.mode
        player.pause()
        rows = frame_rows(player, fps)
        dialog = QProgressDialog(f"Writing {Path(path).name}…", "Cancel", 0, len(rows), self.window)
        dialog.setWindowTitle("Export a video")
        dialog.setWindowModality(Qt.WindowModal)
        dialog.setMinimumDuration(0)
        dialog.setAutoClose(False)
        self.video_dialog = dialog
        scene = self.window.scene

        def grab():
            render = getattr(scene, "render_now", None)
            render() if render is not None else plotter.render()
            return plotter.screenshot(return_img=True, transparent_background=False)

        def progress(done: int, total: int) -> bool:
            dialog.setValue(done)
            QApplication.processEvents()
            return not dialog.wasCanceled()

        files: list[Path] = []
        try:
            files = render_video(grab, t.seek, rows, path, fps, progress)
        except VideoError as err:
            self.player.show_error(err)
        finally:
            dialog.close()
            self.video_dialog = None
            t.seek(row)
            if mode == "live":
                t.take_over()
        if files:
            self.window.statusBar().showMessage(f"Wrote {files[0]}" + (f" and {len(files) - 1} more"
                                                                        if len(files) > 1 else ""), 6000)
        return files

    # -- closing ------------------------------------------------------------------------------------------
    def eventFilter(self, obj, event) -> bool:
        if obj is self.window and event.type() == QEvent.Close:
            self.clock.stop()
            self.transport.stop_recording()
        return False


def install_driving(window, docks, services: Services) -> Driving:
    """Drive through the sliders, player and plots docks (made from the registry) on the services' clock and
    transport, and add the Playback menu to ``window``."""
    return Driving(window, docks, services)
