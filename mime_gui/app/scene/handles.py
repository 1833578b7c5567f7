"""Handles on the selected item: three arrows (move along an axis) and, for frames, three rings (turn about
one), drawn over the scene at a constant size on screen, as RViz's interactive markers and Phobos's gizmos.

A press on a handle starts a drag and the camera does not see it; every mouse move reports how far along
the arrow (metres) or about the ring (radians) the mouse has gone since the press, measured through the
camera: the point of the arrow's line nearest the mouse's ray, or the angle of the ray's meeting with the
ring's plane. What that means for the rig (an offset edited, the arm posed) is for whoever listens
(:mod:`mime_gui.app.posing`): the view only measures. With snapping on (Ctrl inverts it for one drag) the
amount is a whole number of steps. Escape or the right button cancels a drag; its listener puts things back.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pyvista as pv
import vtk
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from mime_gui.session.renderer import ItemRef

#: the handles' length on screen (pixels), whatever the zoom
SCREEN_PIXELS = 110.0
#: how near (pixels) the mouse must come to an arrow or a ring to take it
GRAB_PIXELS = 9.0
RING_RADIUS = 0.8  # of the arrows' length
COLOURS = ((0.91, 0.26, 0.24), (0.30, 0.78, 0.31), (0.26, 0.52, 0.96))
HOT = (1.0, 0.85, 0.2)  # the handle under the mouse, or dragged
PRIORITY = 30.0  # above picking's observers (10) and the camera's style (0)


@dataclass(frozen=True)
class Snap:
    """Snapping of handle drags: on or off, a length step (m) and an angle step (rad)."""

    on: bool = False
    length: float = 0.005
    angle: float = math.radians(15.0)

    def apply(self, mode: str, amount: float, invert: bool = False) -> float:
        if self.on == invert:  # off, or on but inverted for this drag
            return amount
        step = self.length if mode == "move" else self.angle
        return round(amount / step) * step if step > 0 else amount


@dataclass(frozen=True)
class HandleDrag:
    """One report of a drag: ``phase`` is ``start``, ``move``, ``end`` or ``cancel``; ``amount`` how far
    along ``direction`` (a world unit vector, axis ``axis`` of the handles' frame) in metres for ``move``, or
    how far about it in radians for ``turn``, since the press; ``world_X_start`` the handles' pose at the
    press; ``modifiers`` the keys held at the press (``alt``, ``shift``)."""

    ref: ItemRef
    mode: str
    axis: int
    direction: np.ndarray
    amount: float
    phase: str
    world_X_start: np.ndarray
    modifiers: frozenset = field(default_factory=frozenset)


def _arrow(k: int) -> pv.PolyData:
    direction = np.eye(3)[k]
    return pv.Arrow(start=direction * 0.12, direction=direction, tip_length=0.22, tip_radius=0.075,
                    shaft_radius=0.022, scale=0.88)


def _ring(k: int) -> pv.PolyData:
    ring = pv.ParametricTorus(ringradius=RING_RADIUS, crosssectionradius=0.016, u_res=72, v_res=8, w_res=8)
    if k == 0:
        ring = ring.rotate_y(90.0, inplace=False)
    elif k == 1:
        ring = ring.rotate_x(90.0, inplace=False)
    return ring


def world_to_display(renderer, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Display coordinates (VTK's, origin bottom-left) of world ``points`` ``(n, 3)``, and which lie in
    front of the camera."""
    w, h = renderer.GetSize()
    cam = renderer.GetActiveCamera()
    m = cam.GetCompositeProjectionTransformMatrix(renderer.GetTiledAspectRatio(), -1, 1)
    P = np.array([[m.GetElement(i, j) for j in range(4)] for i in range(4)])
    hom = np.c_[points, np.ones(len(points))] @ P.T
    front = hom[:, 3] > 1e-12
    ndc = hom[:, :2] / np.where(front, hom[:, 3], 1.0)[:, None]
    return np.c_[(ndc[:, 0] + 1) * 0.5 * w, (ndc[:, 1] + 1) * 0.5 * h], front


def display_ray(renderer, x: float, y: float) -> tuple[np.ndarray, np.ndarray]:
    """The mouse's ray at display point ``(x, y)``: its origin on the near plane and its unit direction."""
    ends = []
    for z in (0.0, 1.0):
        renderer.SetDisplayPoint(float(x), float(y), z)
        renderer.DisplayToWorld()
        p = np.array(renderer.GetWorldPoint(), dtype=float)
        ends.append(p[:3] / (p[3] if p[3] != 0 else 1.0))
    direction = ends[1] - ends[0]
    return ends[0], direction / (np.linalg.norm(direction) or 1.0)


def along_line(origin, direction, ray_origin, ray_direction) -> float | None:
    """How far along the line ``origin + t·direction`` (unit direction) its point nearest the ray lies; None
    when the line runs (nearly) along the ray, where no depth can be read from the mouse."""
    b = float(np.dot(direction, ray_direction))
    denom = 1.0 - b * b
    if denom < 1e-6:
        return None
    w0 = np.asarray(origin, float) - ray_origin
    return (b * float(np.dot(ray_direction, w0)) - float(np.dot(direction, w0))) / denom


def on_plane(origin, normal, ray_origin, ray_direction) -> np.ndarray | None:
    """Where the ray meets the plane through ``origin`` normal to ``normal``; None when it runs (nearly)
    within it."""
    d = float(np.dot(normal, ray_direction))
    if abs(d) < 1e-6:
        return None
    return ray_origin + ray_direction * (float(np.dot(normal, np.asarray(origin, float) - ray_origin)) / d)


def _segment_distance(p, a, b) -> float:
    ab = b - a
    t = float(np.clip(np.dot(p - a, ab) / (np.dot(ab, ab) or 1.0), 0.0, 1.0))
    return float(np.linalg.norm(p - (a + t * ab)))


class Handles:
    """The handles of one item at a time. ``dragged(HandleDrag)`` reports every drag;
    ``request_render()`` asks for a frame."""

    def __init__(self, plotter, overlay, dragged: Callable[[HandleDrag], None],
                 request_render: Callable[[], None]):
        self.plotter = plotter
        self.renderer = plotter.renderer
        self.overlay = overlay
        self.dragged = dragged
        self.request_render = request_render
        self.enabled = True
        self.snap = Snap()
        self.ref: ItemRef | None = None
        self.turns = False  # rings shown (frames turn; parts only move)
        self.world_X_handles = np.eye(4)
        self.scale = 1.0
        self._drag: dict | None = None
        self._hot: tuple[str, int] | None = None
        self._arrows = [self._actor(_arrow(k), COLOURS[k]) for k in range(3)]
        self._rings = [self._actor(_ring(k), COLOURS[k]) for k in range(3)]
        self._tags: dict[str, tuple[object, int]] = {}
        iren = plotter.iren.interactor if plotter.iren is not None else None
        if iren is not None:
            for event, fn in (("LeftButtonPressEvent", self._on_press), ("MouseMoveEvent", self._on_move),
                              ("LeftButtonReleaseEvent", self._on_release),
                              ("RightButtonPressEvent", self._on_cancel), ("KeyPressEvent", self._on_key)):
                self._tags[event] = (iren, iren.AddObserver(event, fn, PRIORITY))
        # the handles keep their size on screen through every render, the camera's own drags included
        self.renderer.AddObserver("StartEvent", lambda *_: self._fit_scale())

    def _actor(self, mesh, colour):
        actor = vtk.vtkActor()
        mapper = vtk.vtkPolyDataMapper()
        mapper.SetInputData(mesh)
        actor.SetMapper(mapper)
        prop = actor.GetProperty()
        prop.SetColor(*colour)
        prop.SetAmbient(0.45)
        prop.SetDiffuse(0.7)
        actor.SetPickable(False)
        actor.SetVisibility(False)
        self.overlay.AddActor(actor)
        return actor

    # -- what is shown ---------------------------------------------------------------------------------------
    @property
    def dragging(self) -> bool:
        return self._drag is not None

    def show(self, ref: ItemRef | None, world_X_handles: np.ndarray | None = None,
             turns: bool = False) -> None:
        """Put the handles on ``ref`` at ``world_X_handles`` (None: no handles). A drag in progress is
        cancelled when the item changes."""
        if self._drag is not None and ref != self._drag["ref"]:
            self.cancel()
        self.ref = ref if world_X_handles is not None else None
        self.turns = bool(turns)
        if self.ref is not None:
            self.world_X_handles = _orthonormal(world_X_handles)
        self._apply()

    def move_to(self, world_X_handles: np.ndarray) -> None:
        """The item moved: the handles follow (the drag's own measure stays with its press)."""
        if self.ref is None:
            return
        self.world_X_handles = _orthonormal(world_X_handles)
        self._place()

    def set_enabled(self, on: bool) -> None:
        self.enabled = bool(on)
        if not on and self._drag is not None:
            self.cancel()
        self._apply()

    def visible(self) -> bool:
        return self.enabled and self.ref is not None

    def _apply(self) -> None:
        shown = self.visible()
        for actor in self._arrows:
            actor.SetVisibility(shown)
        for actor in self._rings:
            actor.SetVisibility(shown and self.turns)
        if shown:
            self._fit_scale()
            self._place()
        self._light(self._hot if shown else None)
        self.request_render()

    def _place(self) -> None:
        if not self.visible():
            return
        m = self.world_X_handles.copy()
        m[:3, :3] *= self.scale
        vm = pv.vtkmatrix_from_array(m)
        for actor in (*self._arrows, *self._rings):
            actor.SetUserMatrix(vm)

    def _fit_scale(self) -> None:
        """Arrows :data:`SCREEN_PIXELS` long on screen at the handles' origin."""
        if not self.visible():
            return
        ren = self.renderer
        h = ren.GetSize()[1]
        if h <= 0:
            return
        cam = ren.GetActiveCamera()
        origin = self.world_X_handles[:3, 3]
        if cam.GetParallelProjection():
            per_pixel = 2.0 * cam.GetParallelScale() / h
        else:
            depth = float(np.dot(origin - np.array(cam.GetPosition()), cam.GetDirectionOfProjection()))
            per_pixel = 2.0 * max(depth, 1e-6) * math.tan(math.radians(cam.GetViewAngle()) / 2.0) / h
        scale = SCREEN_PIXELS * per_pixel
        if not math.isfinite(scale) or scale <= 0:
            return
        if abs(scale - self.scale) > 1e-9 * max(scale, 1.0):
            self.scale = scale
            self._place()

    def _light(self, hot: tuple[str, int] | None) -> None:
        self._hot = hot
        for kind, actors in (("move", self._arrows), ("turn", self._rings)):
            for k, actor in enumerate(actors):
                actor.GetProperty().SetColor(*(HOT if hot == (kind, k) else COLOURS[k]))

    # -- hit testing -----------------------------------------------------------------------------------------
    def handle_at(self, x: float, y: float) -> tuple[str, int] | None:
        """The handle under display point ``(x, y)``: ``("move", axis)`` or ``("turn", axis)``, or None."""
        if not self.visible():
            return None
        self._fit_scale()
        c = self.world_X_handles[:3, 3]
        R = self.world_X_handles[:3, :3]
        mouse = np.array([x, y], dtype=float)
        best, best_d = None, GRAB_PIXELS
        for k in range(3):
            ends, front = world_to_display(self.renderer, np.array([c + 0.12 * self.scale * R[:, k],
                                                                    c + self.scale * R[:, k]]))
            if front.all():
                d = _segment_distance(mouse, ends[0], ends[1])
                if d < best_d:
                    best, best_d = ("move", k), d
        if self.turns:
            t = np.linspace(0.0, 2.0 * np.pi, 97)
            for k in range(3):
                u, v = R[:, (k + 1) % 3], R[:, (k + 2) % 3]
                pts = c + RING_RADIUS * self.scale * (np.outer(np.cos(t), u) + np.outer(np.sin(t), v))
                xy, front = world_to_display(self.renderer, pts)
                for i in range(len(pts) - 1):
                    if front[i] and front[i + 1]:
                        d = _segment_distance(mouse, xy[i], xy[i + 1])
                        if d < best_d - 1.0:  # an arrow crossing a ring keeps the mouse
                            best, best_d = ("turn", k), d
        return best

    def measure(self, x: float, y: float) -> float | None:
        """How far the drag has gone at display point ``(x, y)`` (before snapping); None where the mouse
        gives no reading (an arrow pointing at the camera, a ring seen edge on)."""
        drag = self._drag
        o, r = display_ray(self.renderer, x, y)
        if drag["mode"] == "move":
            t = along_line(drag["origin"], drag["direction"], o, r)
            return None if t is None else t - drag["t0"]
        p = on_plane(drag["origin"], drag["direction"], o, r)
        if p is None:
            return None
        v = p - drag["origin"]
        v0 = drag["v0"]
        n = drag["direction"]
        return math.atan2(float(np.dot(n, np.cross(v0, v))), float(np.dot(v0, v)))

    # -- the mouse -----------------------------------------------------------------------------------------
    def _abort(self, event: str) -> None:
        """Keep the event from the observers below ours (picking, the camera's style)."""
        obj, tag = self._tags[event]
        cmd = obj.GetCommand(tag)
        if cmd is not None:
            cmd.SetAbortFlag(1)

    def start(self, x: float, y: float, modifiers=frozenset()) -> bool:
        """Start a drag at display point ``(x, y)`` when a handle is there; True when one started."""
        hit = self.handle_at(x, y)
        if hit is None:
            return False
        mode, k = hit
        c = self.world_X_handles[:3, 3].copy()
        a = self.world_X_handles[:3, k].copy()
        o, r = display_ray(self.renderer, x, y)
        drag = {"ref": self.ref, "mode": mode, "axis": k, "origin": c, "direction": a,
                "start": self.world_X_handles.copy(), "modifiers": frozenset(modifiers),
                "invert": "ctrl" in modifiers, "last": 0.0}
        if mode == "move":
            t0 = along_line(c, a, o, r)
            if t0 is None:
                return False
            drag["t0"] = t0
        else:
            p = on_plane(c, a, o, r)
            if p is None or np.linalg.norm(p - c) < 1e-12:
                return False
            drag["v0"] = p - c
        self._drag = drag
        self._light(hit)
        self._report("start", 0.0)
        return True

    def move(self, x: float, y: float) -> None:
        drag = self._drag
        if drag is None:
            return
        amount = self.measure(x, y)
        if amount is None:
            return
        amount = self.snap.apply(drag["mode"], amount, invert=drag["invert"])
        if amount == drag["last"]:
            return
        drag["last"] = amount
        self._report("move", amount)

    def finish(self) -> None:
        drag = self._drag
        if drag is None:
            return
        self._report("end", drag["last"])
        self._drag = None
        self._light(None)
        self.request_render()

    def cancel(self) -> None:
        drag = self._drag
        if drag is None:
            return
        self._report("cancel", 0.0)
        self._drag = None
        self._light(None)
        self.request_render()

    def _report(self, phase: str, amount: float) -> None:
        drag = self._drag
        self.dragged(HandleDrag(drag["ref"], drag["mode"], drag["axis"], drag["direction"].copy(),
                                float(amount), phase, drag["start"].copy(), drag["modifiers"]))

    def _on_press(self, iren, _event) -> None:
        x, y = iren.GetEventPosition()
        # from Qt: the VTK widget passes Ctrl and Shift on to VTK but not Alt
        held = QGuiApplication.keyboardModifiers()
        keys = (("ctrl", Qt.ControlModifier), ("shift", Qt.ShiftModifier), ("alt", Qt.AltModifier))
        modifiers = frozenset(name for name, key in keys if held & key)
        if self.start(x, y, modifiers):
            self._abort("LeftButtonPressEvent")

    def _on_move(self, iren, _event) -> None:
        x, y = iren.GetEventPosition()
        if self._drag is not None:
            self.move(x, y)
            self._abort("MouseMoveEvent")
            return
        hot = self.handle_at(x, y)
        if hot != self._hot:
            self._light(hot)
            self.request_render()

    def _on_release(self, iren, _event) -> None:
        if self._drag is not None:
            self.finish()
            self._abort("LeftButtonReleaseEvent")

    def _on_cancel(self, iren, _event) -> None:
        if self._drag is not None:
            self.cancel()
            self._abort("RightButtonPressEvent")

    def _on_key(self, iren, _event) -> None:
        if self._drag is not None and iren.GetKeySym() == "Escape":
            self.cancel()
            self._abort("KeyPressEvent")

    def stop(self) -> None:
        for obj, tag in self._tags.values():
            obj.RemoveObserver(tag)
        self._tags.clear()


def _orthonormal(X) -> np.ndarray:
    """A pose with its rotation made exactly orthonormal (a frame pose carries rounding)."""
    X = np.array(X, dtype=float)
    u, _, vt = np.linalg.svd(X[:3, :3])
    X[:3, :3] = u @ vt
    return X


def turned(world_X_start: np.ndarray, direction, angle: float) -> np.ndarray:
    """``world_X_start`` turned by ``angle`` (rad) about ``direction`` (a world unit vector) through its own
    origin (Rodrigues)."""
    n = np.asarray(direction, float)
    K = np.array([[0.0, -n[2], n[1]], [n[2], 0.0, -n[0]], [-n[1], n[0], 0.0]])
    R = np.eye(3) + math.sin(angle) * K + (1.0 - math.cos(angle)) * K @ K
    out = np.array(world_X_start, dtype=float)
    out[:3, :3] = R @ out[:3, :3]
    return out


__all__ = ["HandleDrag", "Handles", "Snap", "along_line", "display_ray", "on_plane", "turned",
           "world_to_display"]
