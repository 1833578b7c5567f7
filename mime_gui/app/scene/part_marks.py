"""Marks the 3D view draws for assembling, over the robot: each magnet's magnetisation as an arrow through it
(sized to the magnet, its north half red and its south half blue), an outline around the selected part or
magnet, and the whole apparatus's centre of mass (with the centres-of-mass layer).

It draws what the session pushes (the view's :attr:`~.view.SceneView.items`: each magnet's magnetisation
direction and half extents, each item's world pose, the centre of mass while its layer is shown) and uses
the view's public side only (``plotter``, ``items``, ``layer_visible``, ``request_render``): its actors are
its own, made for the magnets an edit added or changed and moved (their user matrix assigned) when the pushed
poses change. A part on a segment rides on its graft link, at its centroid with the mount frame's axes, so a
mark placed in that frame follows the part.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pyvista as pv
import vtk

from mime_gui.session.renderer import ItemRef

NORTH_RGB = (0.86, 0.16, 0.18)
SOUTH_RGB = (0.16, 0.36, 0.86)
OUTLINE_RGB = (1.0, 0.74, 0.16)
COM_RGB = (0.1, 0.1, 0.1)


def _rotation_to(axis) -> np.ndarray:
    """A rotation taking +x to ``axis`` (unit)."""
    x = np.array([1.0, 0.0, 0.0])
    a = np.asarray(axis, dtype=float)
    v = np.cross(x, a)
    c = float(np.dot(x, a))
    if np.linalg.norm(v) < 1e-12:
        return np.eye(3) if c > 0 else np.diag([-1.0, -1.0, 1.0])
    K = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
    return np.eye(3) + K + K @ K / (1.0 + c)


def arrow_polydata(half: float) -> tuple[pv.PolyData, pv.PolyData]:
    """The south half (a shaft from -2.2·half to 0) and the north half (shaft and head to +2.2·half) of an
    arrow along +x, sticking well out of a magnet of half-size ``half``."""
    length = 2.2 * half
    radius = 0.16 * half
    south = pv.Cylinder(center=(-length / 2, 0, 0), direction=(1, 0, 0), radius=radius, height=length,
                        resolution=16)
    shaft = 0.62 * length
    north = pv.Cylinder(center=(shaft / 2, 0, 0), direction=(1, 0, 0), radius=radius, height=shaft,
                        resolution=16)
    head = pv.Cone(center=(shaft + (length - shaft) / 2, 0, 0), direction=(1, 0, 0), height=length - shaft,
                   radius=2.4 * radius, resolution=20)
    return south.triangulate(), north.merge(head.triangulate())


@lru_cache(maxsize=64)
def _arrow(half: float):
    return arrow_polydata(half)


@lru_cache(maxsize=1)
def _sphere():
    return pv.Sphere(radius=1.0, theta_resolution=16, phi_resolution=12)


class PartMarks:
    def __init__(self, scene):
        self.scene = scene
        self.items = scene.items
        self.renderer = scene.plotter.renderer
        self.arrows: dict[str, list] = {}  # magnet -> [(actor, segment, frame, local)]
        self.outline = None
        self._outlined: tuple | None = None
        self.com = None
        self.items.listen(self)
        self.items_changed(None, True)

    # -- what the view pushes ------------------------------------------------------------------------
    def items_changed(self, change, reset: bool) -> None:
        """Arrows for the magnets pushed: made again only for those added, changed or removed (all of them
        when a document is shown); the others are only moved."""
        if reset:
            redo = set(self.arrows) | {ref.name for ref in self.items.items if ref.kind == "magnet"}
        else:
            redo = {ref.name for ref in (*change.added, *change.changed, *change.removed)
                    if ref.kind == "magnet"}
        for name in redo:
            for actor, *_ in self.arrows.pop(name, []):
                self.renderer.RemoveActor(actor)
        for ref, item in self.items.items.items():
            if ref.kind != "magnet" or ref.name not in redo or item.moment is None:
                continue
            local = np.eye(4)  # in the magnet's own frame, which its pushed pose places
            local[:3, :3] = _rotation_to(item.moment)
            south, north = _arrow(max(item.half_extents))
            segment, frame = item.rides if item.rides is not None else (None, None)
            self.arrows[ref.name] = [(self._actor(south, SOUTH_RGB), segment, frame, local),
                                     (self._actor(north, NORTH_RGB), segment, frame, local)]
        if self.com is None:
            self.com = self._actor(_sphere(), COM_RGB)
        self.place()

    def items_moved(self, _refs) -> None:
        self.place()

    def selection_changed(self, _ref) -> None:
        self.place()

    def layer_changed(self, layer: str) -> None:
        if layer in ("parts", "com"):
            self.place()

    # -- building ------------------------------------------------------------------------------------
    def _actor(self, pd, rgb, opacity: float = 1.0):
        mapper = vtk.vtkPolyDataMapper()
        mapper.SetInputData(pd)
        actor = pv.Actor(mapper=mapper)
        prop = actor.GetProperty()
        prop.SetColor(*rgb)
        prop.SetOpacity(opacity)
        prop.SetAmbient(0.3)
        actor.SetPickable(False)
        self.renderer.AddActor(actor)
        return actor

    def _pose(self, name: str, kind: str = "magnet") -> np.ndarray | None:
        return self.items.poses.get(ItemRef("", kind, name))

    # -- placing -------------------------------------------------------------------------------------
    def place(self) -> None:
        parts_on = self.scene.layer_visible("parts")
        for name, entries in self.arrows.items():
            X = self._pose(name) if parts_on else None
            for actor, _seg, _frame, local in entries:
                actor.SetVisibility(X is not None)
                if X is not None:
                    actor.user_matrix = X @ local
        self._place_outline()
        self._place_com()
        self.scene.request_render()

    def _place_outline(self) -> None:
        item = self.items.item_of(self.items.selection)
        part = item is not None and item.ref.kind in ("part", "magnet")
        X = self.items.poses.get(item.ref) if part else None
        if X is None:
            if self.outline is not None:
                self.outline.SetVisibility(False)
            return
        key = (item.ref.name, item.half_extents)
        if key != self._outlined:
            if self.outline is not None:
                self.renderer.RemoveActor(self.outline)
            half = np.asarray(item.half_extents)
            pad = 1.0 + 0.15
            box = pv.Box(bounds=(-half[0] * pad, half[0] * pad, -half[1] * pad, half[1] * pad,
                                 -half[2] * pad, half[2] * pad))
            self.outline = self._actor(box.extract_all_edges(), OUTLINE_RGB)
            self.outline.GetProperty().SetLineWidth(2.0)
            self._outlined = key
        self.outline.SetVisibility(True)
        self.outline.user_matrix = X

    def _place_com(self) -> None:
        if self.com is None:
            return
        com = self.items.com if self.scene.layer_visible("com") else None
        self.com.SetVisibility(com is not None)
        if com is None:
            return
        size = 0.012 * max(self.scene.model_size(), 1e-3)
        X = np.diag([size, size, size, 1.0])
        X[:3, 3] = com
        self.com.user_matrix = X

    def arrow_actors(self, magnet: str) -> list:
        """The south and north halves of a magnet's arrow (tests)."""
        return [actor for actor, *_ in self.arrows.get(magnet, [])]


def install_part_marks(scene) -> PartMarks | None:
    if getattr(scene, "plotter", None) is None or not hasattr(scene, "items"):
        return None
    return PartMarks(scene)


__all__ = ["PartMarks", "install_part_marks"]
