"""The box: edge lengths ``size`` (m) along its x, y, z, centred on its centroid."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mime_gui.multibody import tree as description
from mime_gui.multibody.magnitudes import MAX_LENGTH
from mime_gui.rig.geometries.registry import (
    SURFACE_TOLERANCE,
    Field,
    GeometryKind,
    KindTemplate,
    MassProperties,
    quads_to_triangles,
    register,
    size_ok,
)
from mime_gui.rig.segments import _vector


@dataclass(frozen=True)
class Box:
    """A box of edge lengths ``size`` (m) along x, y, z, centred on its centroid."""

    size: tuple[float, float, float]
    kind = "box"

    def __post_init__(self):
        object.__setattr__(self, "size", _vector(self.size, 3, "box size"))

    def problems(self, base=None) -> list[str]:
        return [] if all(map(size_ok, self.size)) else \
            [f"a box needs three finite, positive edge lengths of at most {MAX_LENGTH:g} m, got {self.size}"]

    def half_extents(self) -> np.ndarray:
        """Half its extent along its own x, y, z (m): the box about its centroid that holds it."""
        return 0.5 * np.asarray(self.size, dtype=float)

    def mass_properties(self, base=None) -> MassProperties:
        x, y, z = self.size
        v = x * y * z
        inertia = v / 12.0 * np.diag([y * y + z * z, x * x + z * z, x * x + y * y])
        return MassProperties(v, np.zeros(3), inertia)


def _mesh(g: Box, base=None):
    corners = np.array([[x, y, z] for z in (-1, 1) for y in (-1, 1) for x in (-1, 1)], dtype=float)
    quads = np.array([[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]])
    return corners * g.half_extents(), quads_to_triangles(quads)


def _inside(g: Box, p: np.ndarray) -> np.ndarray:
    half = np.asarray(g.size) / 2.0
    return np.all(np.abs(p) < half * (1.0 - SURFACE_TOLERANCE), axis=-1)


def _source(g: Box, J, base=None):
    import magpylib as magpy

    return magpy.magnet.Cuboid(dimension=tuple(g.size), polarization=J)


KIND = register(GeometryKind(
    "box", Box, (Field("size", "Size", size=3, tip="Edge lengths along the part's x, y, z"),),
    text="box {size} m", summary="a box of edge lengths along the part frame's x, y, z",
    mesh=_mesh, inside=_inside, source=_source,
    drawn=lambda g, base=None: description.Box(tuple(g.size)),
    templates=(
        KindTemplate("part", "Box", "A 20 × 20 × 10 mm aluminium box", Box((0.02, 0.02, 0.01))),
        KindTemplate("magnet", "Block magnet", "An NdFeB N42 block, 10 × 10 × 5 mm, magnetised along +z",
                     Box((0.01, 0.01, 0.005)), name="block"))))
