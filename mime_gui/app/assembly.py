"""Assembling a rig in the window: the palette, validation, build report, mass properties and armature docks;
Edit → Delete, Duplicate, Rename; File → Export rig (JSON, Python) while the rig follows every rule; a drop
of a template on a frame as one edit; going to a finding's field; autosave to a recovery file and the offer
to recover after a crash; asking before closing with unsaved changes.

``install_assembly(window, docks)`` wires it all into a :class:`~mime_gui.app.main_window.MainWindow` and
returns the :class:`Assembly` (the window keeps it as ``window.assembly``); the docks are the registry's,
made by the window. Autosave, the recovery offer and the question on close are on for the app's own window
(``restore=True``) and off for a window made without it (tests), unless :meth:`Assembly.enable_recovery` /
``ask_on_close`` turn them on.
"""

from __future__ import annotations

import os
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMessageBox

from mime_gui.app.docks.armature import ArmatureDock
from mime_gui.app.docks.build_report import BuildReportDock
from mime_gui.app.docks.forms import canonical, item_ref, part_target
from mime_gui.app.docks.mass import MassPropertiesDock
from mime_gui.app.docks.palette import PaletteDock
from mime_gui.app.docks.properties import PropertiesDock
from mime_gui.app.docks.tree import TreeDock
from mime_gui.app.docks.validation import ValidationDock
from mime_gui.multibody.spatial import quaternion_of
from mime_gui.rig import paths as rig_paths
from mime_gui.rig.frames import DeclaredFrame
from mime_gui.rig.templates import copy_name, segment_mount, taken_names, unique_name
from mime_gui.rig.templates import template as find_template
from mime_gui.session import AddItem, ItemRef, RemoveItem, ReplaceRig, SessionError, Together
from mime_gui.session.recovery import RecoveryStore, autosave_interval


class Assembly(QObject):
    def __init__(self, window, docks):
        super().__init__(window)
        self.window = window
        self.session = session = window.session
        bridge = window.bridge
        self.tree: TreeDock = docks["ChainTreeDock"]
        self.properties: PropertiesDock = docks["PropertiesDock"]
        self.palette: PaletteDock = docks["PaletteDock"]
        self.validation: ValidationDock = docks["ValidationDock"]
        self.build_report: BuildReportDock = docks["BuildReportDock"]
        self.mass: MassPropertiesDock = docks["MassPropertiesDock"]
        self.armature: ArmatureDock = docks["ArmatureDock"]
        self.recovery: RecoveryStore | None = None
        self.ask_on_close = False
        self._autosaved_rig = None
        self._place_docks()
        self._menus()
        self.tree.template_dropped.connect(self.drop_template)
        from mime_gui.app.scene.drop_target import install_drop_target  # the 3D view's side (needs VTK)
        from mime_gui.app.scene.part_marks import install_part_marks

        self.drop_target = install_drop_target(window.scene, session, self.drop_template, self.place_on_face)
        self.marks = install_part_marks(window.scene)
        from mime_gui.app.scene.probe_marks import install_probe_marks

        self.probe_marks = install_probe_marks(window.scene)
        from mime_gui.app.scene.sample_marks import install_sample_marks

        self.sample_marks, self.zone_marks = install_sample_marks(window.scene) or (None, None)
        from mime_gui.app.scene.world_parts import install_world_parts

        self.world_parts = install_world_parts(window.scene)
        self.palette.chosen.connect(self.add_to_selection)
        self.palette.describe_target = self._target_text
        self.tree.context_actions = self._context_actions
        self.validation.navigate.connect(self.navigate)
        bridge.findings_changed.connect(lambda _f: self._gate_export())
        bridge.document_changed.connect(lambda _d: self._gate_export())
        bridge.selection_changed.connect(self._selection_changed)
        bridge.document_changed.connect(lambda _d: self._gate_edit())
        bridge.history_changed.connect(self._history_changed)
        window.act_save.triggered.connect(self._saved_message)
        window.act_save_as.triggered.connect(self._saved_message)
        window.installEventFilter(self)
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.autosave)
        self._gate_export()
        self._gate_edit()
        if window._restore:  # the app's own window: a crash loses at most one interval of work
            self.enable_recovery()
            self.ask_on_close = True
            QTimer.singleShot(0, self.offer_recovery)

    # -- docks ---------------------------------------------------------------------------------------
    def _place_docks(self) -> None:
        w = self.window
        # where they go is decided with every other dock, once all exist (app/layout.py); sized once the
        # window has its size: the palette tall enough for its templates, the findings for a table of joints
        QTimer.singleShot(0, lambda: w.resizeDocks([self.tree, self.palette], [420, 270], Qt.Vertical))
        QTimer.singleShot(0, self.validation.raise_)  # the findings are the tab shown first
        # (a third of a short window at most: the view keeps the rest)
        QTimer.singleShot(0, lambda: w.resizeDocks([self.validation], [min(270, w.height() // 3)],
                                                   Qt.Vertical))

    # -- menus ---------------------------------------------------------------------------------------
    def _menus(self) -> None:
        w = self.window
        edit = w.menus["Edit"]
        edit.addSeparator()
        self.act_delete = self._action(edit, "&Delete", self.delete_selected, QKeySequence.Delete,
                                       "Remove the selected segment, part, magnet, probe, sample or zone")
        self.act_duplicate = self._action(edit, "D&uplicate", self.duplicate_selected, "Ctrl+D",
                                          "Copy the selected part, magnet, probe, sample or zone, on the "
                                          "same frame")
        self.act_rename = self._action(edit, "Re&name", self.rename_selected, "F2",
                                       "Edit the selected item's name")
        file = w.menus["File"]
        export = file.addMenu("Export &rig")
        file.insertMenu(w.act_screenshot, export)
        self.act_export_json = self._action(export, "As a rig file (&JSON)…", self.export_json)
        self.act_export_python = self._action(export, "As MIME-style &Python…", self.export_python)
        self.act_export_bundle = self._action(export, "As a &bundle (zip with its files)…",
                                              self.export_bundle)
        export.addSeparator()
        self.act_export_urdf = self._action(export, "As one &URDF (ROS, meshes beside it)…",
                                            lambda: self._export("urdf"))
        self.act_export_mjcf = self._action(export, "As MuJoCo &MJCF (armature included)…",
                                            lambda: self._export("mjcf"))
        self.export_menu = export

    def _action(self, menu, text: str, slot, shortcut=None, tip: str = "") -> QAction:
        action = QAction(text, self.window)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
            action.setShortcutContext(Qt.WindowShortcut)
        if tip:
            action.setStatusTip(tip)
            action.setToolTip(tip)
        action.triggered.connect(slot)
        menu.addAction(action)
        return action

    def _gate_export(self) -> None:
        doc = self.session.document
        findings = self.session.findings
        ok = doc is not None and not findings
        if doc is None:
            tip = "Open a rig first"
        elif findings:
            first = findings[0]
            more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
            tip = f"Fix the rig first: [{first.code}] {first.where}: {first.message}{more}"
        else:
            tip = "Write the rig, valid, for MIME"
        for action in (self.act_export_json, self.act_export_python, self.act_export_bundle,
                       self.act_export_urdf, self.act_export_mjcf):
            action.setEnabled(ok)
            action.setToolTip(tip)
            action.setStatusTip(tip)
        self.export_menu.setToolTipsVisible(True)
        self.export_menu.menuAction().setToolTip(tip)

    def selected_item(self) -> tuple[str, str] | None:
        """``(collection, name)`` of the selected segment, part or magnet."""
        ref = self.session.selection
        if ref is None or self.session.rig is None:
            return None
        if ref.kind == "segment":
            return ("chain", ref.name) if ref.name in self.session.rig.chain else None
        return part_target(self.session, ref)

    def _context_actions(self, ref) -> list:
        """Delete, Duplicate, Rename in a segment's, part's or magnet's context menu (on that item)."""
        own = canonical(self.session, ref)
        if own is None or (own.kind != "segment" and part_target(self.session, own) is None):
            return []
        if self.session.selection != own:
            self.session.select(own)
        return [self.act_delete, self.act_duplicate, self.act_rename]

    def _selection_changed(self, ref) -> None:
        """A part picked as its graft link (a tree row, a click in 3D) is selected by its own reference, so
        it stays selected while an edit makes it undrawable (a size or mount being fixed)."""
        own = canonical(self.session, ref)
        if own != ref and own is not None and self.session.selection == ref:
            self.session.select(own)
            return
        self._gate_edit()

    def _gate_edit(self) -> None:
        item = self.selected_item()
        self.act_delete.setEnabled(item is not None)
        self.act_duplicate.setEnabled(item is not None and item[0] != "chain")
        self.act_rename.setEnabled(item is not None or (self.session.document is not None
                                                        and self.session.selection is None))

    # -- adding --------------------------------------------------------------------------------------
    def drop_template(self, key: str, segment: str, frame: str) -> bool:
        """A template dropped on ``segment.frame``: one edit mounting it there, at the frame's origin; the
        new item is selected and its name field focused."""
        template = find_template(key)  # a built-in template or a registered lab kind's
        rig = self.session.rig
        if template is None or rig is None:
            return False
        path = None
        if template.needs_path:
            path = self._ask_path(template)
            if not path:
                return False
        mount = segment_mount(rig, segment, frame) if template.collection == "chain" else f"{segment}.{frame}"
        name = unique_name(rig, template.base_name)
        try:
            value = template.make(mount, path)
            self.session.apply(AddItem(template.collection, name, value))
        except SessionError:
            return False
        except (ValueError, TypeError) as err:
            self.window.statusBar().showMessage(f"Cannot add {template.label}: {err}", 6000)
            return False
        self.window.statusBar().showMessage(f"Added {name} on {segment}.{frame}", 4000)
        self._after_frame(lambda: self._show_new(template.collection, name))
        return True

    def place_on_face(self, key: str, segment: str, frame: str, world_point, world_normal) -> bool:
        """A template dropped (with Shift) on a face of ``segment.frame``'s geometry: one undo step adding a
        declared frame at the point with its z along the face's normal, and the item mounted on it, resting
        on the face (its centre half its height out along z). A segment template mounts as a plain drop."""
        template = find_template(key)
        rig = self.session.rig
        if template is None or rig is None:
            return False
        if template.collection not in ("parts", "magnets", "probes", "samples"):
            return self.drop_template(key, segment, frame)
        path = None
        if template.needs_path:
            path = self._ask_path(template)
            if not path:
                return False
        name = unique_name(rig, template.base_name)
        world_X_parent = self.session.frame_world_pose(segment, frame)
        at, orientation = face_frame(world_X_parent, world_point, world_normal)
        frames = set(self.session.segment(segment).articulation.frame_names) | set(rig.frames)
        face = unique_in(f"{name}_face", frames | taken_names(rig))
        try:
            value = template.make(f"{segment}.{face}", path)
            if template.collection != "probes" and getattr(value, "geometry", None) is not None:
                half = getattr(value.geometry, "half_extents", None)
                height = float(half()[2]) if half is not None else 0.0
                value = replace(value, at=(0.0, 0.0, height))
            self.session.apply(Together(f"Place {name} on a face of {segment}.{frame}", (
                AddItem("frames", face, DeclaredFrame(f"{segment}.{frame}", at=at, orientation=orientation)),
                AddItem(template.collection, name, value))))
        except SessionError:
            return False
        except (ValueError, TypeError) as err:
            self.window.statusBar().showMessage(f"Cannot add {template.label}: {err}", 6000)
            return False
        self.window.statusBar().showMessage(f"Placed {name} on a face of {segment}.{frame} (frame {face})",
                                            4000)
        self._after_frame(lambda: self._show_new(template.collection, name))
        return True

    def _after_frame(self, fn) -> None:
        """Run ``fn`` once the view has shown the next frame (a zero timer would run before the view's
        render timer): the new item appears in 3D first, its form (which costs more than the edit) after."""
        rendered = getattr(self.window.scene, "rendered", None)
        if rendered is None:
            QTimer.singleShot(0, fn)
            return
        done = []

        def once(*_args):
            if done:
                return
            done.append(True)
            try:
                rendered.disconnect(once)
            except (RuntimeError, TypeError):
                pass
            QTimer.singleShot(0, fn)

        rendered.connect(once)
        QTimer.singleShot(250, once)  # no frame (a hidden view): the form comes anyway

    def _show_new(self, collection: str, name: str) -> None:
        if name not in getattr(self.session.rig, collection, {}):
            return  # undone before its turn came
        self.select(collection, name)
        self.properties.raise_()
        self.properties.forms.focus_path(rig_paths.join(collection, name))

    def _ask_path(self, template) -> str:
        start = str(self.session.rig.base or "")
        if template.needs_path == "mesh":
            flt = "Meshes (*.stl *.obj *.ply *.off);;All files (*)"
        else:
            flt = "URDF (*.urdf *.xml)"
        path, _ = QFileDialog.getOpenFileName(self.window, f"{template.label.rstrip('…')}", start, flt)
        return path

    def target_frame(self) -> tuple[str, str] | None:
        """The frame the selection names (a link, a frame, a joint's child link, a part's mount frame)."""
        ref = self.session.selection
        if ref is None:
            return None
        if ref.kind in ("link", "frame", "joint"):
            tree = self.tree
            item = tree.item_for(ref)
            if item is not None:
                rect = tree.tree.visualItemRect(item)
                if rect.isValid():
                    return tree.frame_at(rect.center())
            seg = self.session.segments.get(ref.segment)
            if seg is not None and ref.kind == "joint":
                return ref.segment, seg.tree.joints[ref.name].child
            return ref.segment, ref.name
        found = part_target(self.session, ref)
        if found is not None:
            mount = getattr(self.session.rig, found[0])[found[1]].mount or ""
            for seg in self.session.segments:
                if mount.startswith(seg + "."):
                    return seg, mount[len(seg) + 1:]
        return None

    def _target_text(self) -> str:
        target = self.target_frame()
        return "" if target is None else f"{target[0]}.{target[1]}"

    def add_to_selection(self, key: str) -> bool:
        target = self.target_frame()
        if target is None:
            self.window.statusBar().showMessage("Select a frame first (a link or frame of the Chain tree), "
                                                "or drag the template onto one", 6000)
            return False
        return self.drop_template(key, *target)

    def select(self, collection: str, name: str) -> None:
        ref = item_ref(self.session, collection, name)
        if ref is not None:
            self.session.select(ref)

    # -- delete, duplicate, rename -------------------------------------------------------------------
    def delete_selected(self) -> None:
        item = self.selected_item()
        if item is None:
            return
        try:
            self.session.apply(RemoveItem(*item))
        except SessionError:
            return
        lost = [f for f in self.session.findings if f.code in ("part.mount", "chain.mount")]
        if lost:
            self.window.statusBar().showMessage(f"Removed {item[1]}: {len(lost)} item(s) lost their mount "
                                                "(see Validation; Ctrl+Z brings it back)", 8000)

    def duplicate_selected(self) -> None:
        item = self.selected_item()
        if item is None or item[0] == "chain":
            return
        collection, name = item
        items = getattr(self.session.rig, collection)
        new = copy_name(self.session.rig, name)
        index = list(items).index(name) + 1
        try:
            self.session.apply(AddItem(collection, new, items[name], index))
        except SessionError:
            return
        self.select(collection, new)

    def rename_selected(self) -> None:
        item = self.selected_item()
        forms = self.properties.forms
        self.properties.raise_()
        forms.focus_path("name" if item is None else rig_paths.join(*item))

    # -- findings ------------------------------------------------------------------------------------
    def navigate(self, where: str) -> None:
        """Go to a rig path: select its item and focus its field (armature cells in the Armature panel)."""
        rig = self.session.rig
        if rig is None:
            return
        if where == "name" or not where:
            self.session.select(None)
            self.properties.raise_()
            self.properties.forms.focus_path("name")
            return
        try:
            parts = rig_paths.split(rig, where)
        except rig_paths.RigPathError:
            return
        collection, name = parts[0], parts[1]
        self.select(collection, name)
        if collection == "chain" and len(parts) > 2 and parts[2] in ("armature", "actuators"):
            self.armature.focus(where)
            return
        self.properties.raise_()
        self.properties.forms.focus_path(where)

    # -- save and export -----------------------------------------------------------------------------
    def _saved_message(self) -> None:
        findings = self.session.findings
        if findings and not self.session.modified:
            n = len(findings)
            self.window.statusBar().showMessage(
                f"Saved {self.session.path}, which breaks {n} rule{'s' if n != 1 else ''}: it opens again as "
                "it is; export waits until the Validation panel is empty", 8000)

    def export_json(self) -> bool:
        return self._export("json")

    def export_python(self) -> bool:
        return self._export("python")

    def export_bundle(self) -> bool:
        return self._export("bundle")

    def _export(self, kind: str, path: str | None = None) -> bool:
        doc = self.session.document
        if doc is None or self.session.findings:
            return False
        if path is None:
            stem = Path(self.session.suggested_path() or "rig").name.split(".")[0]
            folder = Path(self.session.suggested_path() or ".").parent
            suffix, flt = {"json": (".export.rig.json", "Rig files (*.rig.json)"),
                           "python": (".py", "MIME-style Python (*.py)"),
                           "bundle": (".zip", "Rig bundles (*.zip)"),
                           "urdf": (".urdf", "URDF (*.urdf)"),
                           "mjcf": (".mjcf.xml", "MuJoCo MJCF (*.xml)")}[kind]
            start = str(folder / (stem + suffix))
            path, _ = QFileDialog.getSaveFileName(self.window, "Export the rig", start, flt)
            if not path:
                return False
        return self.export_to(kind, path)

    def export_to(self, kind: str, path: str) -> bool:
        """Write the valid rig as a rig file, as Python or as a bundle, without changing the document's own
        file."""
        try:
            if kind == "python":
                self.session.export_python(path)
            elif kind == "bundle":
                self.session.export_bundle(path)
            elif kind in ("urdf", "mjcf"):
                self.session.export_simulator(path, kind)
            else:
                self.session.export_json(path)
        except SessionError:
            return False
        self.window.statusBar().showMessage(f"Exported {path}", 5000)
        return True

    # -- autosave and recovery -----------------------------------------------------------------------
    def enable_recovery(self, folder=None, interval: float | None = None) -> None:
        """Autosave the modified rig to a recovery file every ``interval`` seconds (default 30, or
        ``$MIME_GUI_AUTOSAVE_SECONDS``)."""
        self.recovery = RecoveryStore(folder)
        if interval is None:
            interval = autosave_interval()
        self.timer.start(max(50, int(interval * 1000)))

    def autosave(self) -> bool:
        """Write the rig aside when it changed since the last save or autosave; True when written."""
        doc = self.session.document
        if self.recovery is None or doc is None or not self.session.modified:
            return False
        if doc.rig is self._autosaved_rig:
            return False
        try:
            self.recovery.write(doc.rig, doc.path, doc.kind)
        except (OSError, ValueError) as err:
            self.window.statusBar().showMessage(f"Autosave failed: {err}", 6000)
            return False
        self._autosaved_rig = doc.rig
        return True

    def _history_changed(self) -> None:
        if self.recovery is not None and self.session.document is not None and not self.session.modified:
            self.recovery.discard()  # saved (or undone back to the file): nothing to recover
            self._autosaved_rig = None

    def offer_recovery(self) -> bool:
        """Offer the newest recovery file a crashed process left; True when one was restored."""
        if self.recovery is None:
            return False
        pending = self.recovery.pending()
        if self.recovery.skipped:  # each is in the log with its code
            first = self.recovery.skipped[0]
            more = f" (and {len(self.recovery.skipped) - 1} more)" if len(self.recovery.skipped) > 1 else ""
            self.window.statusBar().showMessage(f"A recovery file was skipped: {first}{more}", 8000)
        if not pending:
            return False
        item = pending[0]
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(item.saved_at))
        what = Path(item.original).name if item.original else "an unsaved rig"
        box = QMessageBox(QMessageBox.Question, "Recover unsaved changes?",
                          f"MIME Rig Builder closed without saving changes to {what} (autosaved {when}).",
                          QMessageBox.NoButton, self.window)
        box.setInformativeText("Recover opens the file as it is on disk and lays the recovered rig over it "
                               "as one edit: nothing is written until you save, and Undo shows the file "
                               "as it was.")
        recover = box.addButton("Recover", QMessageBox.AcceptRole)
        discard = box.addButton("Discard", QMessageBox.DestructiveRole)
        box.addButton("Later", QMessageBox.RejectRole)
        box.setDefaultButton(recover)
        self.recovery_box = box
        box.exec()
        chosen = box.clickedButton()
        if chosen is discard:
            item.discard()
            return False
        if chosen is not recover:
            return False
        return self.recover(item)

    def recover(self, item) -> bool:
        try:
            rig = item.load()
        except (OSError, ValueError) as err:
            self.window.statusBar().showMessage(f"The recovery file cannot be read: {err}", 8000)
            return False
        if item.original and os.path.exists(item.original):
            if not self.window.open_file(item.original):
                return False
        else:
            try:
                self.session.open_apparatus(rig)
            except SessionError:
                return False
            item.discard()
            return True
        try:
            self.session.apply(ReplaceRig(rig, "Recover autosaved changes"))
        except SessionError:
            return False
        item.discard()
        self.window.statusBar().showMessage("Recovered the autosaved changes: save to keep them", 8000)
        return True

    # -- closing -------------------------------------------------------------------------------------
    def eventFilter(self, watched, event) -> bool:
        if watched is self.window and event.type() == QEvent.Close:
            if not self.confirm_close():
                event.ignore()
                return True
            if self.recovery is not None:
                self.timer.stop()
                self.recovery.discard()
        return False

    def confirm_close(self) -> bool:
        """Ask before losing unsaved changes (Save, Discard, Cancel); True to go on closing."""
        if not self.ask_on_close or not self.session.modified:
            return True
        box = QMessageBox(QMessageBox.Warning, "Unsaved changes",
                          f"Save the changes to {self.session.document.name}?",
                          QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel, self.window)
        box.setDefaultButton(QMessageBox.Save)
        self.close_box = box
        answer = box.exec()
        if answer == QMessageBox.Save:
            if not self.session.writable:  # from a bundle, or built in Python: ask where; cancelled stays
                self.window.save_as()
                return not self.session.modified
            try:
                self.session.save()
            except SessionError:
                return False
            return True
        return answer == QMessageBox.Discard


def face_frame(world_X_parent, world_point, world_normal) -> tuple[tuple, tuple]:
    """``(at, orientation)`` in the parent frame of a frame at ``world_point`` whose z is ``world_normal``;
    its x is the parent's x laid on the face (the parent's y where x stands along the normal)."""
    R = np.asarray(world_X_parent, float)[:3, :3]
    p = R.T @ (np.asarray(world_point, float) - np.asarray(world_X_parent, float)[:3, 3])
    z = R.T @ np.asarray(world_normal, float)
    z /= np.linalg.norm(z)
    x = np.array([1.0, 0.0, 0.0]) if abs(z[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x -= z * (x @ z)
    x /= np.linalg.norm(x)
    turn = np.column_stack([x, np.cross(z, x), z])
    return tuple(float(v) for v in p), tuple(float(v) for v in quaternion_of(turn))


def unique_in(base: str, taken) -> str:
    """``base``, or ``base_2``, ``base_3`` … the first not in ``taken``."""
    name, n = base, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    return name


def install_assembly(window, docks) -> Assembly:
    """Assemble through the docks made from the registry: the palette, the findings' docks, the tree and the
    forms; the Edit and Export entries, autosave and recovery in ``window``."""
    return Assembly(window, docks)


__all__ = ["Assembly", "ItemRef", "install_assembly"]
