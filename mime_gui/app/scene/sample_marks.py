"""Samples and keep-out zones in the 3D view, drawn from what the session pushed (the view's
:attr:`~.view.SceneView.items`), shown with the parts layer, moved (their user matrix assigned) when the
pushed poses change, rebuilt only when the set of samples or zones changes.

- **A sample** is a cyan ball (its own size, or :data:`SAMPLE_FLOOR` of the model's size when that is
  larger: a 1 mm bead would be a pixel beside an arm) with an arrow along its moment: held in its mount
  frame (``fixed``), or along the magnets' field where it is (``follows``, its mount frame's direction
  while there is no field to follow).
- **A zone** is a translucent outline (a box in its mount frame's axes, or a ball) with a small mark at its
  centre. The mark picks the zone; the outline does not, so what lies inside a zone stays pickable. A zone
  the field enters beyond its limit at the pose shown is drawn red: the one-step case of the trajectory's
  zone check (:func:`mime_gui.session.keepout.zones_now`), recomputed once per render at most.

Like the probe marks it uses the view's public side only (``plotter``, ``items``, ``layer_visible``,
``model_size``, ``set_pick_ref``, ``request_render``).
"""

from __future__ import annotations

import numpy as np
import pyvista as pv
import vtk

from mime_gui.app.scene.part_marks import _rotation_to
from mime_gui.app.scene.probe_marks import SELECTED_RGB
from mime_gui.session.renderer import ItemRef

SAMPLE_RGB = (0.1, 0.78, 0.9)
ZONE_RGB = (0.62, 0.78, 1.0)
BREACH_RGB = (0.95, 0.16, 0.12)
ZONE_OPACITY = 0.14
SAMPLE_FLOOR = 0.006  # a sample's drawn radius is at least this share of the model's size
MARK_SHARE = 0.006  # a zone's centre mark's radius, as a share of the model's size


def _actor(renderer, pd, rgb, pickable: bool = False):
    mapper = vtk.vtkPolyDataMapper()
    mapper.SetInputData(pd)
    actor = pv.Actor(mapper=mapper)
    prop = actor.GetProperty()
    prop.SetColor(*rgb)
    prop.SetAmbient(0.3)
    actor.SetPickable(pickable)
    renderer.AddActor(actor)
    return actor


class _Marks:
    """What the sample and zone marks share: listening to the view's items, picking as an item, the
    selected name of their kind."""

    kind = ""

    def __init__(self, scene):
        self.scene = scene
        self.items = scene.items
        self.renderer = scene.plotter.renderer
        self._built: tuple | None = None
        self.items.listen(self)
        self.items_changed(None, True)

    def items_changed(self, _change, reset: bool) -> None:
        self.rebuild(reset)

    def items_moved(self, _refs) -> None:
        self.place()

    def selection_changed(self, _ref) -> None:
        self.place()

    def layer_changed(self, layer: str) -> None:
        if layer == "parts":
            self.place()

    def drawn(self) -> dict:
        return {ref.name: item for ref, item in self.items.items.items() if ref.kind == self.kind}

    def chosen(self) -> str | None:
        selected = self.items.selection
        return selected.name if selected is not None and selected.kind == self.kind else None

    def _pick_as(self, actor, ref) -> None:
        pick = getattr(self.scene, "set_pick_ref", None)
        if pick is not None:
            pick(actor, ref)

    def _remove(self, actors) -> None:
        for actor in actors:
            self.renderer.RemoveActor(actor)
            self._pick_as(actor, None)

    def rebuild(self, reset: bool = False) -> None: ...

    def place(self) -> None: ...


class SampleMarks(_Marks):
    kind = "sample"

    def __init__(self, scene):
        self.balls: dict[str, object] = {}
        self.arrows: dict[str, object] = {}
        self.directions: dict[str, np.ndarray] = {}  # each sample's drawn moment direction (world), for tests
        super().__init__(scene)

    def rebuild(self, reset: bool = False) -> None:
        key = tuple(self.drawn())
        if key != self._built:
            self._remove([*self.balls.values(), *self.arrows.values()])
            self.balls = {name: _actor(self.renderer, pv.Sphere(radius=1.0, theta_resolution=16,
                                                                phi_resolution=12), SAMPLE_RGB, True)
                          for name in key}
            # a unit arrow along +x from the centre: scaled to the sample when placed
            arrow = pv.Arrow(start=(0, 0, 0), direction=(1, 0, 0), scale=1.0, tip_length=0.3, tip_radius=0.12,
                             shaft_radius=0.045)
            dark = tuple(0.6 * c for c in SAMPLE_RGB)
            self.arrows = {name: _actor(self.renderer, arrow, dark) for name in key}
            self._built = key
            reset = True
        if reset:  # again after a new document cleared the view's table
            for name, ball in self.balls.items():
                self._pick_as(ball, ItemRef("", "sample", name))
        self.place()

    def _field(self, drawn: dict, on: bool) -> dict:
        """B (T, world) at each sample that follows the field, where there is one to follow."""
        built = self.items.field.built
        points = {name: tuple(self.items.poses[ItemRef("", "sample", name)][:3, 3]) for name, item in
                  drawn.items() if item.follows and ItemRef("", "sample", name) in self.items.poses}
        if not on or built is None or not points:
            return {}
        from mime_gui.field import FieldError, field_now

        try:
            field = field_now(built, self.scene.frame_pose, points)
        except (FieldError, KeyError):  # a frame not drawn yet: the mount's direction meanwhile
            return {}
        return dict(zip(field.probe_names, field.B[0], strict=True))

    def place(self) -> None:
        if not self.balls:
            return
        on = self.scene.layer_visible("parts")
        size = max(self.scene.model_size(), 1e-3)
        drawn = self.drawn()
        chosen = self.chosen()
        B = self._field(drawn, on)
        for name, ball in self.balls.items():
            arrow = self.arrows[name]
            item = drawn.get(name)
            X = self.items.poses.get(ItemRef("", "sample", name)) if on and item is not None else None
            ball.SetVisibility(X is not None)
            arrow.SetVisibility(X is not None and item.moment is not None)
            if X is None:
                continue
            lit = name == chosen
            ball.GetProperty().SetColor(*(SELECTED_RGB if lit else SAMPLE_RGB))
            own = max(item.half_extents) if item.half_extents is not None else 0.0
            r = max(own, SAMPLE_FLOOR * size) * (1.5 if lit else 1.0)
            M = np.diag([r, r, r, 1.0])
            M[:3, 3] = X[:3, 3]
            ball.user_matrix = M
            if item.moment is None:
                continue
            d = X[:3, :3] @ np.asarray(item.moment, dtype=float)  # held in the mount frame
            b = B.get(name)
            if b is not None and np.linalg.norm(b) > 0:
                d = np.asarray(b, dtype=float)  # turned along the field
            d = d / np.linalg.norm(d)
            self.directions[name] = d
            A = np.eye(4)
            A[:3, :3] = _rotation_to(d) * (3.5 * r)
            A[:3, 3] = X[:3, 3]
            arrow.user_matrix = A
        self.scene.request_render()


class ZoneMarks(_Marks):
    kind = "zone"

    def __init__(self, scene):
        self.outlines: dict[str, object] = {}
        self.marks: dict[str, object] = {}
        self.breached: frozenset[str] = frozenset()  # the zones drawn red now
        self.check = None  # the last ZoneCheck (one step), None while there is no field
        self.checks = 0  # zone checks computed (tests count them: one per render at most)
        super().__init__(scene)

    def rebuild(self, reset: bool = False) -> None:
        drawn = self.drawn()
        key = tuple((name, item.outline) for name, item in drawn.items())
        if key != self._built:
            self._remove([*self.outlines.values(), *self.marks.values()])
            self.outlines, self.marks = {}, {}
            for name, outline in key:
                pd = pv.Sphere(radius=1.0, theta_resolution=24, phi_resolution=12) if outline == "sphere" \
                    else pv.Box(bounds=(-1, 1, -1, 1, -1, 1), level=2)
                actor = _actor(self.renderer, pd, ZONE_RGB)
                prop = actor.GetProperty()
                prop.SetOpacity(ZONE_OPACITY)
                prop.EdgeVisibilityOn()  # the outline reads through the surface from every side
                prop.SetEdgeColor(*ZONE_RGB)
                prop.SetLineWidth(1.0)
                self.outlines[name] = actor
                self.marks[name] = _actor(self.renderer, pv.Sphere(radius=1.0, theta_resolution=8,
                                                                   phi_resolution=6), ZONE_RGB, True)
            self._built = key
            reset = True
        if reset:
            for name, mark in self.marks.items():
                self._pick_as(mark, ItemRef("", "zone", name))
        self.place()

    def _breaches(self, on: bool) -> frozenset[str]:
        built = self.items.field.built
        if not on or built is None or not self.outlines or not built.apparatus.zones:
            self.check = None
            return frozenset()
        from mime_gui.field import FieldError
        from mime_gui.session.keepout import zones_now

        try:
            check = zones_now(built, self.items.frame_poses(built.frame_names))
        except (FieldError, KeyError, ValueError):  # a frame not drawn yet: the next push checks again
            self.check = None
            return frozenset()
        self.checks += 1
        self.check = check
        return frozenset(n for n, hit in zip(check.zone_names, check.breach[0], strict=True) if hit)

    def place(self) -> None:
        if not self.outlines:
            self.breached = frozenset()
            return
        on = self.scene.layer_visible("parts")
        size = max(self.scene.model_size(), 1e-3)
        drawn = self.drawn()
        chosen = self.chosen()
        self.breached = self._breaches(on)
        for name, outline in self.outlines.items():
            mark = self.marks[name]
            item = drawn.get(name)
            X = self.items.poses.get(ItemRef("", "zone", name)) if on and item is not None else None
            outline.SetVisibility(X is not None)
            mark.SetVisibility(X is not None)
            if X is None:
                continue
            rgb = BREACH_RGB if name in self.breached else ZONE_RGB
            lit = name == chosen
            prop = outline.GetProperty()
            prop.SetColor(*rgb)
            prop.SetEdgeColor(*(SELECTED_RGB if lit else rgb))
            prop.SetOpacity(2 * ZONE_OPACITY if lit else ZONE_OPACITY)
            prop.SetLineWidth(2.5 if lit else 1.0)
            mark.GetProperty().SetColor(*(SELECTED_RGB if lit else rgb))
            M = np.array(X, dtype=float)
            M[:3, :3] = M[:3, :3] @ np.diag(item.half_extents)  # the mount frame's axes, the zone's sizes
            outline.user_matrix = M
            r = MARK_SHARE * size * (1.6 if lit else 1.0)
            C = np.diag([r, r, r, 1.0])
            C[:3, 3] = X[:3, 3]
            mark.user_matrix = C
        self.scene.request_render()


def install_sample_marks(scene) -> tuple[SampleMarks, ZoneMarks] | None:
    if getattr(scene, "plotter", None) is None or not hasattr(scene, "items"):
        return None
    return SampleMarks(scene), ZoneMarks(scene)


__all__ = ["BREACH_RGB", "SAMPLE_RGB", "ZONE_RGB", "SampleMarks", "ZoneMarks", "install_sample_marks"]
