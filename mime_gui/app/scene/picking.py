"""Picking and hovering: a click (a press and release within a few pixels) picks the item under the mouse;
with the frames layer shown, the name of the frame origin nearest the mouse floats beside it.

Clicks are read from the widget's Qt events, not from VTK's: the camera's interactor style takes VTK's
focus at a press, and from then until the release VTK gives the mouse's events to the style alone."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import vtk
from PySide6.QtCore import QEvent, QObject, Qt, QTimer

from mime_gui.app.scene.actors import ActorRegistry
from mime_gui.session.renderer import ItemRef

CLICK_PIXELS = 4  # a press and release closer than this (Manhattan) is a click, not a drag
HOVER_MS = 30  # mouse moves within this are looked up once


class Picking:
    """``picked(ref or None)`` after every pick; ``request_render()`` when the hover text changes."""

    def __init__(self, plotter, registry: ActorRegistry, layers: dict, parent,
                 picked: Callable[[ItemRef | None], None], request_render: Callable[[], None]):
        self.plotter = plotter
        self.registry = registry
        self.layers = layers  # the view's layer toggles (read only)
        self.picked = picked
        self.request_render = request_render
        self.closed = False
        self._press_pos = None
        self._hover_pos = None
        self._hover_name = None
        self._hover_text = text = vtk.vtkTextActor()
        prop = text.GetTextProperty()
        prop.SetFontSize(15)
        prop.SetColor(1.0, 1.0, 1.0)
        prop.SetBackgroundColor(0.08, 0.09, 0.11)
        prop.SetBackgroundOpacity(0.75)
        prop.SetFrame(False)
        text.SetVisibility(False)
        text.SetPickable(False)
        plotter.renderer.AddViewProp(text)
        self._wants_point = None  # a callback waiting for the next click's surface point
        self._cell_picker = vtk.vtkCellPicker()
        self._cell_picker.SetTolerance(0.0005)
        self._timer = QTimer(parent)
        self._timer.setSingleShot(True)
        self._timer.setInterval(HOVER_MS)
        self._timer.timeout.connect(self._update_hover)
        self.busy: Callable[[], bool] = lambda: False  # a handle is being dragged: a release is no click
        self._clicks = _Clicks(self, parent)
        plotter.installEventFilter(self._clicks)
        iren = plotter.iren.interactor if plotter.iren is not None else None
        if iren is not None:
            iren.AddObserver("MouseMoveEvent", self._on_move, 10.0)

    def stop(self) -> None:
        self.closed = True
        self._timer.stop()

    def forget_hover(self) -> None:
        """A new document: no frame is hovered."""
        self._hover_name = None
        self._hover_text.SetVisibility(False)

    def pick(self, x: float, y: float) -> ItemRef | None:
        """Pick at display coordinates (VTK's, origin bottom-left) and report it through ``picked``."""
        picker = vtk.vtkPropPicker()
        prop = None
        for ren in (self.registry.overlay, self.plotter.renderer):
            if picker.PickProp(x, y, ren):
                prop = picker.GetViewProp()
                break
        ref = self.registry.by_actor.get(id(prop)) if prop is not None else None
        self.picked(ref)
        return ref

    def want_point(self, callback) -> None:
        """The next click in the view calls ``callback`` with :meth:`surface_at` there (None off every
        surface) instead of selecting; None forgets a callback still waiting."""
        self._wants_point = callback

    def surface_at(self, x: float, y: float):
        """The surface under display point ``(x, y)`` (VTK's, origin bottom-left) in the scene's own renderer:
        ``(ref, world point, world unit normal)`` of the nearest geometry hit (its item: a link, a part fixed
        in the world), or None over the background. The normal faces the camera."""
        picker = self._cell_picker
        if not picker.Pick(x, y, 0.0, self.plotter.renderer):
            return None
        ref = self.registry.by_actor.get(id(picker.GetActor()))
        if ref is None:
            return None
        point = np.array(picker.GetPickPosition(), dtype=float)
        normal = np.array(picker.GetPickNormal(), dtype=float)
        length = np.linalg.norm(normal)
        if not np.all(np.isfinite(point)) or not np.isfinite(length) or length < 1e-12:
            return None
        normal /= length
        camera = np.array(self.plotter.renderer.GetActiveCamera().GetPosition())
        if np.dot(camera - point, normal) < 0:  # a face seen from its back (an open mesh, flipped winding)
            normal = -normal
        return ref, point, normal

    # -- mouse -------------------------------------------------------------------------------------
    def display_position(self, pos) -> tuple[float, float]:
        """VTK's display coordinates (origin bottom-left, device pixels) of a widget point."""
        ratio = self.plotter.devicePixelRatioF()
        return pos.x() * ratio, (self.plotter.height() - pos.y() - 1) * ratio

    def press(self, x: float, y: float) -> None:
        self._press_pos = (x, y)

    def release(self, x: float, y: float) -> None:
        if self._press_pos is None:
            return
        px, py = self._press_pos
        self._press_pos = None
        if self.busy():
            return
        if abs(x - px) + abs(y - py) <= CLICK_PIXELS:
            wants, self._wants_point = self._wants_point, None
            if wants is not None:  # this click gives a point, not a selection
                wants(self.surface_at(x, y))
                return
            self.pick(x, y)
            self.request_render()

    def _on_move(self, iren, _event) -> None:
        self._hover_pos = iren.GetEventPosition()
        if not self._timer.isActive():
            self._timer.start()

    def _update_hover(self) -> None:
        if self.closed or not self.layers["frames"]:
            if self._hover_text.GetVisibility():
                self._hover_text.SetVisibility(False)
                self._hover_name = None
                self.request_render()
            return
        pos = self._hover_pos
        if pos is None:
            return
        name, where = self.frame_near(pos[0], pos[1])
        if name == self._hover_name:
            return
        self._hover_name = name
        if name is None:
            self._hover_text.SetVisibility(False)
        else:
            self._hover_text.SetInput(name)
            self._hover_text.SetPosition(where[0] + 10, where[1] + 8)
            self._hover_text.SetVisibility(True)
        self.request_render()

    def frame_near(self, x: float, y: float, radius: float = 14.0):
        """Name (``segment/frame`` with several segments) and display position of the shown frame origin
        nearest to display point ``(x, y)`` within ``radius`` pixels, or ``(None, None)``."""
        ren = self.plotter.renderer
        w, h = ren.GetSize()
        if w <= 0 or h <= 0:
            return None, None
        cam = ren.GetActiveCamera()
        mat = cam.GetCompositeProjectionTransformMatrix(ren.GetTiledAspectRatio(), -1, 1)
        P = np.array([[mat.GetElement(i, j) for j in range(4)] for i in range(4)])
        best, best_d, best_xy = None, radius, None
        segments = self.registry.segments
        many = len(segments) > 1
        for seg in segments.values():
            group = seg.layers["frames"]  # one triad per frame, in frame order
            vis = np.array([a.GetVisibility() for a in group.actors], dtype=bool)
            if not vis.any():
                continue
            pts = seg.poses[:, :, 3] @ P.T
            ok = (pts[:, 3] > 0) & vis
            ndc = pts[:, :2] / np.where(pts[:, 3:4] == 0, 1, pts[:, 3:4])
            sx = (ndc[:, 0] + 1) * 0.5 * w
            sy = (ndc[:, 1] + 1) * 0.5 * h
            d = np.hypot(sx - x, sy - y)
            d[~ok] = np.inf
            i = int(np.argmin(d))
            if d[i] < best_d:
                best_d = d[i]
                best = f"{seg.name}/{seg.art.frame_names[i]}" if many else seg.art.frame_names[i]
                best_xy = (sx[i], sy[i])
        return best, best_xy


class _Clicks(QObject):
    """The widget's left presses and releases, passed on untouched (the camera still sees them)."""

    def __init__(self, picking: Picking, parent):
        super().__init__(parent)
        self.picking = picking

    def eventFilter(self, _watched, event) -> bool:
        kind = event.type()
        if kind in (QEvent.MouseButtonPress, QEvent.MouseButtonRelease) and event.button() == Qt.LeftButton \
                and not self.picking.closed:
            x, y = self.picking.display_position(event.position())
            if kind == QEvent.MouseButtonPress:
                self.picking.press(x, y)
            else:
                self.picking.release(x, y)
        return False
