"""The 3D view as a drop target for palette templates: dragged over a link, the link's frame lights up and
its name shows beside the mouse; dropped, the template is mounted on that frame
(``on_drop(key, segment, frame)``). With Shift held it is placed on the face under the mouse instead
(``on_face(key, segment, frame, world_point, world_normal)``: a frame of its own turned to the face).

It uses the view's public side only: its ``plotter`` (the VTK widget that receives the drag), ``item_of``
(which item an actor draws), ``highlight`` and ``request_render``; picking is VTK's prop picker on the scene's
own renderer, at most once per mouse position. A drag that is not a template (a file from outside) is left
to the window, which opens files dropped on it.
"""

from __future__ import annotations

from collections.abc import Callable

import vtk
from PySide6.QtCore import QEvent, QObject, QPoint, Qt
from PySide6.QtWidgets import QLabel

from mime_gui.app.drag import template_key
from mime_gui.rig.build import frame_under_grafts
from mime_gui.session import ItemRef

LABEL_STYLE = ("QLabel { background: rgba(20, 22, 26, 210); color: white; padding: 3px 7px; "
               "border-radius: 4px; font-weight: 600; }")


class DropTarget(QObject):
    def __init__(self, scene, session, on_drop: Callable[[str, str, str], object], on_face=None):
        super().__init__(scene)
        self.scene = scene
        self.session = session
        self.on_drop = on_drop
        self.on_face = on_face
        self.widget = scene.plotter
        self.widget.setAcceptDrops(True)
        self.widget.installEventFilter(self)
        self.label = QLabel(self.widget)
        self.label.setStyleSheet(LABEL_STYLE)  # one floating label, styled once
        self.label.setAttribute(Qt.WA_TransparentForMouseEvents)
        self.label.hide()
        self._picker = vtk.vtkPropPicker()
        self._last: tuple[QPoint, tuple[str, str] | None] | None = None
        self.lit: tuple[str, str] | None = None  # the frame lit now (tests)

    # -- where a drop lands --------------------------------------------------------------------------
    def frame_at(self, pos: QPoint) -> tuple[str, str] | None:
        """``(segment, frame)`` under widget point ``pos``: the link drawn there, or, for a grafted part, the
        frame the part is mounted on."""
        if self._last is not None and self._last[0] == pos:
            return self._last[1]
        ratio = self.widget.devicePixelRatioF()
        x = pos.x() * ratio
        y = (self.widget.height() - pos.y() - 1) * ratio  # VTK's display origin is bottom-left
        renderer = self.widget.renderer
        ref = None
        if self._picker.PickProp(x, y, renderer):
            ref = self.scene.item_of(self._picker.GetViewProp())
        target = self._frame_of(ref)
        self._last = (QPoint(pos), target)
        return target

    def _frame_of(self, ref: ItemRef | None) -> tuple[str, str] | None:
        if ref is None or ref.kind != "link":
            return None
        seg = self.session.segments.get(ref.segment)
        if seg is None:
            return None
        name = frame_under_grafts(seg.tree, ref.name)
        return None if name is None else (ref.segment, name)

    # -- the drag ------------------------------------------------------------------------------------
    def eventFilter(self, watched, event) -> bool:
        kind = event.type()
        if watched is not self.widget or kind not in (QEvent.DragEnter, QEvent.DragMove, QEvent.Drop,
                                                      QEvent.DragLeave):
            return False
        if kind == QEvent.DragLeave:
            self._light(None)
            return False
        key = template_key(event.mimeData())
        if key is None:
            return False  # a file from outside: the window opens it
        pos = event.position().toPoint()
        target = self.frame_at(pos)
        face = None
        if target is not None and self.on_face is not None and event.modifiers() & Qt.ShiftModifier:
            face = self.face_at(pos)
        if target is None:
            self._light(None)
            event.ignore()
            return True
        event.setDropAction(Qt.CopyAction)
        event.accept()
        if kind == QEvent.Drop:
            self._light(None)
            if face is not None:
                self.on_face(key, *face)
            else:
                self.on_drop(key, *target)
        else:
            self._light(target, pos, on_face=face is not None)
        return True

    def face_at(self, pos: QPoint):
        """``(segment, frame, world point, world normal)`` of the face under widget point ``pos``: the frame
        its link hangs from (a grafted part's mount frame), or None off the robot."""
        hit = getattr(self.scene, "surface_at", None)
        if hit is None:
            return None
        ratio = self.widget.devicePixelRatioF()
        found = hit(pos.x() * ratio, (self.widget.height() - pos.y() - 1) * ratio)
        if found is None:
            return None
        ref, point, normal = found
        target = self._frame_of(ref)
        return None if target is None else (*target, point, normal)

    def _light(self, target: tuple[str, str] | None, pos: QPoint | None = None,
               on_face: bool = False) -> None:
        """Light ``target``'s frame (its link) and name it beside the mouse; None gives the highlight back
        to the selection."""
        if target is None:
            self.label.hide()
            self._last = None
        else:
            verb = "Place on a face of" if on_face else "Mount on"
            self.label.setText(f"{verb} {target[0]}.{target[1]}")
            self.label.adjustSize()
            x = min(pos.x() + 16, max(0, self.widget.width() - self.label.width() - 4))
            y = max(0, pos.y() - self.label.height() - 8)
            self.label.move(x, y)
            self.label.show()
            self.label.raise_()
        if target == self.lit:
            return
        self.lit = target
        self.scene.light(ItemRef(target[0], "link", target[1]) if target else self.session.selection)
        self.scene.request_render()


def install_drop_target(scene, session, on_drop, on_face=None) -> DropTarget | None:
    """A drop target on a 3D view that has a VTK widget (None for the stand-in without OpenGL)."""
    if getattr(scene, "plotter", None) is None or not hasattr(scene, "item_of"):
        return None
    return DropTarget(scene, session, on_drop, on_face)
