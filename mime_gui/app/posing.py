"""What a handle drag in the 3D view does to the rig (the view only measures how far the mouse went):

- a **part, magnet, probe, sample or keep-out zone** moves along an axis of the frame it is mounted in (its
  offset ``at`` edited); the whole drag is one undo step and the forms follow it live;
- a **declared frame** (the rig's own, :mod:`mime_gui.rig.frames`) moves along and turns about its own axes:
  its offset ``at`` or its ``orientation`` in the frame it is fixed to is edited (one undo step per drag),
  and what is mounted on it follows; with Alt held at the press it is reached instead, as below;
- any **other frame of a segment** (a link's frame, the flange, a part's or a rider's frame) is *reached*: the
  inverse kinematics over every joint between the world and that frame (:meth:`Session.reach
  <mime_gui.session.session.Session.reach>`) gives the segments their commands, so the arm follows through
  its servo lag, or at once with View → Handles → Teleport. With "Keep the frame's orientation" off, the
  arrows ask for the position only. A target out of reach leaves the arm at the nearest pose found; the
  status bar says how far it is. Commands are not the rig: nothing enters the undo history.

Escape (or the right button) puts things back as they were at the press. ``install_posing(window)`` adds
the View → Handles menu and returns the :class:`Posing`.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QObject, QSettings
from PySide6.QtGui import QAction, QActionGroup, QKeySequence

from mime_gui.app.scene.handles import HandleDrag, Snap, turned
from mime_gui.multibody.spatial import quaternion_of, quaternion_to_matrix
from mime_gui.session import SessionError
from mime_gui.session.edits import SetValue
from mime_gui.session.renderer import ITEM_COLLECTIONS

#: the rig collection an item of each kind lives in
COLLECTIONS = ITEM_COLLECTIONS  # the items a handle drags, by the kind of their ref
LENGTH_STEPS_MM = (1.0, 5.0, 10.0, 50.0)


class Posing(QObject):
    def __init__(self, window, settings: QSettings | None = None):
        super().__init__(window)
        self.window = window
        self.session = window.session
        self.scene = window.scene
        self.settings = settings
        self.teleport = False
        self.keep_orientation = True
        self._start = None  # what the drag started from: an item's offset, or the segments' commands
        self._path = None
        self.last_reach = None  # the last drag's Reach (how far the target was left)
        self._declared = None  # the declared frame a drag edits
        self.scene.handle_dragged.connect(self.on_drag)

    # -- the drag -----------------------------------------------------------------------------------
    def on_drag(self, drag: HandleDrag) -> None:
        if drag.ref.kind in COLLECTIONS:
            self._move_item(drag)
        elif drag.ref.kind == "frame":
            declared = self.session.rig.frames.get(drag.ref.name) if self.session.rig is not None else None
            if drag.phase == "start":
                self._declared = (declared if declared is not None and declared.segment == drag.ref.segment
                                  and "alt" not in drag.modifiers else None)
            if self._declared is not None:
                self._move_frame(drag)
            else:
                self._reach(drag)

    def _move_item(self, drag: HandleDrag) -> None:
        session = self.session
        collection = COLLECTIONS[drag.ref.kind]
        if drag.phase == "start":
            item = getattr(session.rig, collection).get(drag.ref.name)
            if item is None or drag.mode != "move":
                self._start = None
                return
            self._start = np.array(item.at, dtype=float)
            self._path = f"{collection}.{drag.ref.name}.at"
            session.begin_gesture()
            return
        if self._start is None:
            return
        if drag.phase in ("end", "cancel"):
            try:
                if drag.phase == "cancel":
                    self._set_at(self._start)
            finally:
                self._start = None
                session.end_gesture()
            return
        at = self._start.copy()
        at[drag.axis] += drag.amount  # the handles stand in the axes ``at`` is given in
        self._set_at(at)
        self.window.statusBar().showMessage(
            f"{drag.ref.name}: at ({', '.join(f'{v * 1e3:.4g}' for v in at)}) mm", 3000)

    def _move_frame(self, drag: HandleDrag) -> None:
        """A declared frame's offset edited: moved along, or turned about, one of its own axes."""
        session = self.session
        frame = self._declared
        if drag.phase == "start":
            # the handles stand in the frame's own axes: its axis k is column k of its turn in its parent
            self._start = {"at": np.array(frame.at, dtype=float),
                           "R": quaternion_to_matrix(frame.orientation)}
            key = "at" if drag.mode == "move" else "orientation"
            self._path = f"frames.{drag.ref.name}.{key}"
            session.begin_gesture()
            return
        start = self._start
        if start is None:
            return
        if drag.phase in ("end", "cancel"):
            try:
                if drag.phase == "cancel":
                    self._set_value(tuple(start["at"]) if drag.mode == "move"
                                    else tuple(quaternion_of(start["R"])))
            finally:
                self._start = self._declared = None
                session.end_gesture()
            return
        if drag.mode == "move":
            at = start["at"] + start["R"][:, drag.axis] * drag.amount  # its own axis, in its parent's axes
            self._set_value(tuple(at))
            self.window.statusBar().showMessage(
                f"{drag.ref.name}: at ({', '.join(f'{v * 1e3:.4g}' for v in at)}) mm", 3000)
        else:
            axis = np.eye(3)[drag.axis]
            R = start["R"] @ turned(np.eye(4), axis, drag.amount)[:3, :3]  # about its own axis
            self._set_value(tuple(quaternion_of(R)))
            self.window.statusBar().showMessage(
                f"{drag.ref.name}: turned {np.degrees(drag.amount):+.4g}° about its {'xyz'[drag.axis]} axis",
                3000)

    def _set_at(self, at) -> None:
        self._set_value(tuple(float(v) for v in at))

    def _set_value(self, value) -> None:
        try:
            self.session.apply(SetValue(self._path, tuple(float(v) for v in value)))
        except SessionError:  # shown by the window; the drag stops where the rig refused it
            self._start = self._declared = None
            self.session.end_gesture()
            if self.scene.handles.dragging:
                self.scene.handles.finish()

    def _reach(self, drag: HandleDrag) -> None:
        session = self.session
        ref = drag.ref
        if drag.phase == "start":
            self._start = {name: session.command(name).copy() for name in session.segments}
            self.last_reach = None
            return
        if self._start is None:
            return
        if drag.phase == "cancel":
            for name, u in self._start.items():
                if name in session.segments:
                    session.set_command(name, u)
            self._start = None
            return
        if drag.phase == "end":
            self._start = None
            return
        if drag.mode == "move":
            target = np.array(drag.world_X_start, dtype=float)
            target[:3, 3] += drag.amount * drag.direction
            orientation = self.keep_orientation
        else:
            target, orientation = turned(drag.world_X_start, drag.direction, drag.amount), True
        try:
            found = session.reach(ref.segment, ref.name, target if orientation else target[:3, 3],
                                  orientation=orientation, teleport=self.teleport)
        except SessionError:
            self._start = None
            if self.scene.handles.dragging:
                self.scene.handles.cancel()
            return
        self.last_reach = found
        self.window.statusBar().showMessage(reach_text(ref.name, found), 4000)

    # -- settings --------------------------------------------------------------------------------------
    def set_snap(self, on: bool | None = None, length: float | None = None) -> None:
        snap = self.scene.snap()
        snap = Snap(snap.on if on is None else bool(on), snap.length if length is None else float(length),
                    snap.angle)
        self.scene.set_snap(snap)
        if self.settings is not None:
            self.settings.setValue("handles/snap", snap.on)
            self.settings.setValue("handles/snap_mm", snap.length * 1e3)


def reach_text(frame: str, found) -> str:
    """The status line after a reach: reached, or how far the target is left."""
    result = found.result
    mm = result.position_error * 1e3
    deg = float(np.degrees(result.angle_error)) if np.isfinite(result.angle_error) else 0.0
    if mm < 0.01 and deg < 0.01:
        return f"{frame} reached"
    return f"{frame}: out of reach by {mm:.3g} mm" + (f", {deg:.3g}°" if deg >= 0.01 else "")


def install_posing(window) -> Posing | None:
    """Handle drags in the view reach the session; View → Handles: show them, snapping and its step,
    Teleport, keep the frame's orientation. None without a 3D view."""
    if not hasattr(window.scene, "handle_dragged"):
        return None
    settings = QSettings("MIME", "RigBuilder")
    posing = Posing(window, settings)
    menu = window.menus["View"].addMenu("&Handles")

    def check(text, on, slot, tip, shortcut=None):
        action = QAction(text, window, checkable=True)
        action.setChecked(on)
        action.setStatusTip(tip)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
        action.toggled.connect(slot)
        menu.addAction(action)
        return action

    posing.act_show = check("&Show handles", True, window.scene.set_handles_enabled,
                            "Arrows and rings on the selected item or frame, to drag", "H")
    snap_on = str(settings.value("handles/snap", "false")).lower() == "true"
    try:
        snap_mm = float(settings.value("handles/snap_mm", 5.0))
    except (TypeError, ValueError):
        snap_mm = 5.0
    if snap_mm not in LENGTH_STEPS_MM:
        snap_mm = 5.0
    window.scene.set_snap(Snap(snap_on, snap_mm * 1e-3))
    posing.act_snap = check("S&nap (Ctrl inverts)", snap_on, lambda on: posing.set_snap(on=on),
                            "Moves by whole steps, turns by 15°; hold Ctrl to invert while dragging")
    steps = menu.addMenu("Snap &step")
    group = QActionGroup(window)
    posing.step_actions = {}
    for mm in LENGTH_STEPS_MM:
        action = QAction(f"{mm:g} mm", window, checkable=True)
        action.setChecked(mm == snap_mm)
        action.triggered.connect(lambda _=False, _m=mm: posing.set_snap(length=_m * 1e-3))
        group.addAction(action)
        steps.addAction(action)
        posing.step_actions[mm] = action
    menu.addSeparator()
    posing.act_orientation = check("&Keep the frame's orientation", True,
                                   lambda on: setattr(posing, "keep_orientation", bool(on)),
                                   "A frame's arrows keep its orientation (off: its position only)")
    measures = window.docks.get("MeasuresDock")
    if measures is not None:  # a measure's end at a point clicked on a surface
        def want_point(picker):
            if picker is None:
                window.scene.pick_point(None)
                return
            window.statusBar().showMessage("Click a point on the robot or a part in the 3D view", 6000)
            window.scene.pick_point(lambda ref=None, point=None, _normal=None:
                                    measures.take_point(picker, ref, point))
        measures.point_wanted.connect(want_point)
    posing.act_teleport = check("&Teleport", False, lambda on: setattr(posing, "teleport", bool(on)),
                                "A dragged frame's arm jumps to the answer instead of following through "
                                "its servo lag")
    return posing


__all__ = ["COLLECTIONS", "Posing", "install_posing", "reach_text"]
