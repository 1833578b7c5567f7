"""Marks the 3D view draws for assembling, over the robot: each magnet's magnetisation as an arrow through it
(sized to the magnet, its north half red and its south half blue), an outline around the selected part or
magnet, and the whole apparatus's centre of mass (with the centres-of-mass layer).

Like the drop target it uses the view's public side only (``plotter``, ``layer_visible``, ``request_render``)
and the Session's poses: its actors are its own, built when the rig changes and moved (their user matrix
assigned) when poses change. A graft link ``part:<name>`` sits at the part's centroid with the mount frame's
axes, so a mark placed in that frame follows the part.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pyvista as pv
import vtk

from mime_gui.rig.parts import PermanentMagnet
from mime_gui.rig.segments import direction

NORTH_RGB = (0.86, 0.16, 0.18)
SOUTH_RGB = (0.16, 0.36, 0.86)
OUTLINE_RGB = (1.0, 0.74, 0.16)
COM_RGB = (0.1, 0.1, 0.1)


def _half_extents(geometry) -> np.ndarray:
    """A primitive's half extents along its axes; a mesh counts as 10 mm from its centre each way."""
    half = getattr(geometry, "half_extents", None)
    return np.full(3, 0.01) if half is None else half()


def _half_size(geometry) -> float:
    return float(np.max(_half_extents(geometry)))


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
    def __init__(self, scene, session, bridge):
        self.scene = scene
        self.session = session
        self.renderer = scene.plotter.renderer
        self.arrows: dict[str, list] = {}  # magnet -> [(actor, segment, frame, local)]
        self.outline = None
        self._outlined: tuple | None = None
        self.com = None
        self._built: tuple | None = None
        bridge.rig_changed.connect(lambda _c: self.rebuild())
        bridge.document_changed.connect(lambda _d: self.rebuild())
        bridge.poses_changed.connect(lambda _s: self.place())
        bridge.selection_changed.connect(lambda _r: self.place())
        bridge.layers_changed.connect(lambda _l, _v: self.place())
        self.rebuild()

    # -- building ------------------------------------------------------------------------------------
    def _clear(self) -> None:
        for entries in self.arrows.values():
            for actor, *_ in entries:
                self.renderer.RemoveActor(actor)
        self.arrows = {}
        for actor in (self.outline, self.com):
            if actor is not None:
                self.renderer.RemoveActor(actor)
        self.outline = self.com = None
        self._outlined = None

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

    def _key(self) -> tuple:
        """What the arrows are drawn from: each drawn magnet's name, frame, size and direction."""
        rig = self.session.rig
        if rig is None:
            return ()
        out = []
        for name, magnet in rig.magnets.items():
            found = self._place_of(name)
            d = direction(magnet.magnetisation) if isinstance(magnet, PermanentMagnet) else None
            if found is not None and d is not None:
                out.append((name, found, _half_size(magnet.geometry), tuple(d)))
        return tuple(out)

    def rebuild(self) -> None:
        """Arrows for every drawn magnet (its frame and size read from the rig as it is now); an edit that
        changes none of them only moves them."""
        key = self._key()
        if key == self._built and self.com is not None:
            self.place()
            return
        self._clear()
        self._built = key
        for name, found, half, d in key:
            local = np.eye(4)
            local[:3, :3] = _rotation_to(d)
            south, north = _arrow(half)
            self.arrows[name] = [(self._actor(south, SOUTH_RGB), *found, local),
                                 (self._actor(north, NORTH_RGB), *found, local)]
        self.com = self._actor(_sphere(), COM_RGB)
        self.place()

    def _graft(self, name: str) -> tuple[str, str] | None:
        for seg_name, seg in self.session.segments.items():
            link = seg.graft_of(name)
            if link is not None:
                return seg_name, link
        return None

    def _place_of(self, name: str) -> tuple | None:
        """Where a part or magnet is drawn: ``(segment, graft link)``, or ``(None, at)`` when it is fixed in
        the world (:mod:`.world_parts` draws it there); None when it is not drawn."""
        found = self._graft(name)
        if found is not None:
            return found
        rig = self.session.rig
        part = (rig.parts.get(name) or rig.magnets.get(name)) if rig is not None else None
        if part is None or part.mount is not None or part.geometry.problems(getattr(rig, "base", None)):
            return None  # on a mount being fixed, or of a shape being fixed: not drawn, as on a segment
        return None, tuple(part.at)

    def _pose(self, segment, where) -> np.ndarray:
        if segment is None:
            X = np.eye(4)
            X[:3, 3] = where
            return X
        return self.session.frame_world_pose(segment, where)

    # -- placing -------------------------------------------------------------------------------------
    def place(self) -> None:
        parts_on = self.scene.layer_visible("parts")
        for entries in self.arrows.values():
            for actor, seg, frame, local in entries:
                actor.SetVisibility(parts_on)
                if parts_on:
                    actor.user_matrix = self._pose(seg, frame) @ local
        self._place_outline()
        self._place_com()
        self.scene.request_render()

    def _selected_part(self):
        ref = self.session.selection
        rig = self.session.rig
        if ref is None or rig is None:
            return None
        seg = self.session.segments.get(ref.segment) if ref.kind == "link" else None
        grafted = seg.item_of(ref.name) if seg is not None else None
        name = grafted[1] if grafted is not None else ref.name if ref.kind in ("part", "magnet") else None
        part = rig.parts.get(name) or rig.magnets.get(name) if name else None
        found = self._place_of(name) if part is not None else None
        return (name, part, found) if found is not None else None

    def _place_outline(self) -> None:
        selected = self._selected_part()
        if selected is None:
            if self.outline is not None:
                self.outline.SetVisibility(False)
            return
        name, part, (seg, frame) = selected
        key = (name, part.geometry)
        if key != self._outlined:
            if self.outline is not None:
                self.renderer.RemoveActor(self.outline)
            half = _half_extents(part.geometry)
            pad = 1.0 + 0.15
            box = pv.Box(bounds=(-half[0] * pad, half[0] * pad, -half[1] * pad, half[1] * pad,
                                 -half[2] * pad, half[2] * pad))
            self.outline = self._actor(box.extract_all_edges(), OUTLINE_RGB)
            self.outline.GetProperty().SetLineWidth(2.0)
            self._outlined = key
        self.outline.SetVisibility(True)
        self.outline.user_matrix = self._pose(seg, frame)

    def _place_com(self) -> None:
        if self.com is None:
            return
        on = self.scene.layer_visible("com")
        self.com.SetVisibility(False)
        if not on:
            return
        from mime_gui.session.mass_properties import mass_table

        com = mass_table(self.session).total.com
        if com is None:
            return
        size = 0.012 * max(self.scene.model_size(), 1e-3)
        X = np.diag([size, size, size, 1.0])
        X[:3, 3] = com
        self.com.user_matrix = X
        self.com.SetVisibility(True)

    def arrow_actors(self, magnet: str) -> list:
        """The south and north halves of a magnet's arrow (tests)."""
        return [actor for actor, *_ in self.arrows.get(magnet, [])]


def install_part_marks(scene, session, bridge) -> PartMarks | None:
    if getattr(scene, "plotter", None) is None or not hasattr(scene, "layer_visible"):
        return None
    return PartMarks(scene, session, bridge)


__all__ = ["PartMarks", "install_part_marks"]
