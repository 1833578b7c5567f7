"""The ring (a hollow cylinder) about its z axis: ``inner_radius`` < ``outer_radius`` and ``length`` (m),
centred on its centroid. A ring magnet is magnetised along its axis or across it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mime_gui.multibody.magnitudes import MAX_LENGTH
from mime_gui.rig.geometries.registry import (
    SURFACE_TOLERANCE,
    Field,
    GeometryKind,
    KindTemplate,
    MassProperties,
    number,
    quads_to_triangles,
    register,
    size_ok,
)


@dataclass(frozen=True)
class Ring:
    """A ring (a hollow cylinder) about its z axis: ``inner_radius`` < ``outer_radius`` (m), ``length`` (m)
    long, centred on its centroid. A ring magnet's magnetisation is along its axis or across it."""

    inner_radius: float
    outer_radius: float
    length: float
    kind = "ring"

    def __post_init__(self):
        for name in ("inner_radius", "outer_radius", "length"):
            object.__setattr__(self, name, number(getattr(self, name), name.replace("_", " ")))

    def problems(self, base=None) -> list[str]:
        r, R, h = self.inner_radius, self.outer_radius, self.length
        if not (size_ok(r) and size_ok(R) and size_ok(h)):
            return [f"a ring needs a finite, positive inner radius, outer radius and length of at most "
                    f"{MAX_LENGTH:g} m, got inner_radius={r}, outer_radius={R}, length={h}"]
        if r >= R:
            return [f"a ring's inner radius must be smaller than its outer radius, got inner_radius={r}, "
                    f"outer_radius={R} (a solid one is a cylinder)"]
        return []

    def half_extents(self) -> np.ndarray:
        return np.array([self.outer_radius, self.outer_radius, 0.5 * self.length])

    def mass_properties(self, base=None) -> MassProperties:
        r, R, h = self.inner_radius, self.outer_radius, self.length
        v = np.pi * (R * R - r * r) * h
        squares = R * R + r * r
        side = v * (3 * squares + h * h) / 12.0
        return MassProperties(v, np.zeros(3), np.diag([side, side, v * squares / 2.0]))


def _mesh(g: Ring, base=None, resolution: int = 40):
    """Outer and inner walls and two annular caps, each face wound outward."""
    t = np.linspace(0.0, 2.0 * np.pi, resolution, endpoint=False)
    c, s = np.cos(t), np.sin(t)
    r, R, h = g.inner_radius, g.outer_radius, g.length / 2.0
    points = np.concatenate([np.column_stack([rad * c, rad * s, np.full(resolution, z)])
                             for rad, z in ((R, -h), (R, h), (r, -h), (r, h))])
    k = np.arange(resolution)
    n = (k + 1) % resolution
    ob, ot, ib, it = 0, resolution, 2 * resolution, 3 * resolution
    quads = np.concatenate([np.column_stack(q) for q in (
        (ob + k, ob + n, ot + n, ot + k),  # outer wall, facing out
        (ib + k, it + k, it + n, ib + n),  # inner wall, facing the axis
        (ot + k, ot + n, it + n, it + k),  # top, facing +z
        (ob + k, ib + k, ib + n, ob + n),  # bottom, facing -z
    )])
    return points, quads_to_triangles(quads)


def _inside(g: Ring, p: np.ndarray) -> np.ndarray:
    """In its material, not in its bore."""
    r, R, h = g.inner_radius, g.outer_radius, g.length / 2.0
    radial = np.hypot(p[..., 0], p[..., 1])
    return ((radial > r * (1.0 + SURFACE_TOLERANCE)) & (radial < R * (1.0 - SURFACE_TOLERANCE))
            & (np.abs(p[..., 2]) < h * (1.0 - SURFACE_TOLERANCE)))


def _source(g: Ring, J, base=None):
    """A whole turn of a cylinder segment, centred on the ring's centroid."""
    import magpylib as magpy

    turn = (g.inner_radius, g.outer_radius, g.length, 0.0, 360.0)
    return magpy.magnet.CylinderSegment(dimension=turn, polarization=J)


KIND = register(GeometryKind(
    "ring", Ring,
    (Field("inner_radius", "Bore radius", tip="The hole's radius"), Field("outer_radius", "Outer radius"),
     Field("length", "Length", tip="Along the part's z axis")),
    text="ring r={inner_radius}–{outer_radius} m, length {length} m",
    summary="a hollow cylinder (inner radius below the outer one); its axis is the part frame's z",
    mesh=_mesh, inside=_inside, source=_source,
    conditions="a ring's inner radius is below its outer one",
    templates=(
        KindTemplate("part", "Ring", "An aluminium ring, bore radius 5 mm, outer radius 10 mm, 5 mm "
                     "long along the frame's z axis", Ring(0.005, 0.01, 0.005)),
        KindTemplate("magnet", "Ring magnet", "An NdFeB N42 ring, bore radius 3 mm, outer radius 6 mm, 3 mm "
                     "long, magnetised along its axis (+z)", Ring(0.003, 0.006, 0.003)))))
