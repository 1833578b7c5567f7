"""The arc: a segment of a ring (Magpylib's ``CylinderSegment``, the piece Halbach rings are built of).

Radii ``inner_radius`` < ``outer_radius`` and ``length`` (m) as a ring's; it spans ``start_angle`` to
``end_angle`` (degrees, about the z axis from the x axis, at most a whole turn). Its own frame is the whole
ring's (origin on the axis, half way along it), so its centroid lies off the origin: a part's ``at`` places
that centroid, as for a mesh.
"""

from __future__ import annotations

import math
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
    shift_inertia,
    size_ok,
)

#: the largest angle a rig file holds for either end (degrees)
MAX_ANGLE = 720.0


@dataclass(frozen=True)
class Arc:
    """A segment of a ring about its z axis, from ``start_angle`` to ``end_angle`` (degrees)."""

    inner_radius: float
    outer_radius: float
    length: float
    start_angle: float
    end_angle: float
    kind = "arc"

    def __post_init__(self):
        for name in ("inner_radius", "outer_radius", "length", "start_angle", "end_angle"):
            object.__setattr__(self, name, number(getattr(self, name), name.replace("_", " ")))

    @property
    def span(self) -> float:
        return self.end_angle - self.start_angle

    def problems(self, base=None) -> list[str]:
        r, R, h, a, b = self.inner_radius, self.outer_radius, self.length, self.start_angle, self.end_angle
        if not (size_ok(r) and size_ok(R) and size_ok(h)):
            return [f"an arc needs a finite, positive inner radius, outer radius and length of at most "
                    f"{MAX_LENGTH:g} m, got inner_radius={r}, outer_radius={R}, length={h}"]
        if r >= R:
            return [f"an arc's inner radius must be smaller than its outer radius, got inner_radius={r}, "
                    f"outer_radius={R}"]
        if not all(-MAX_ANGLE <= v <= MAX_ANGLE for v in (a, b)) or not 0 < b - a <= 360:
            return [f"an arc's angles are finite, within ±{MAX_ANGLE:g}°, and its end angle lies above its "
                    f"start angle by at most 360°, got start_angle={a}, end_angle={b}"]
        return []

    def mass_properties(self, base=None) -> MassProperties:
        r, R, h = self.inner_radius, self.outer_radius, self.length
        a, b = math.radians(self.start_angle), math.radians(self.end_angle)
        half = (b - a) / 2.0
        v = half * (R * R - r * r) * h
        reach = 2.0 * math.sin(half) * (R ** 3 - r ** 3) / (3.0 * half * (R * R - r * r))
        middle = (a + b) / 2.0
        c = np.array([reach * math.cos(middle), reach * math.sin(middle), 0.0])
        q = (R ** 4 - r ** 4) / 4.0 * h  # ∫ρ³ dρ dz: each ∫ over the angle below times this
        xx = q * (half + (math.sin(2 * b) - math.sin(2 * a)) / 4.0)
        yy = q * (half - (math.sin(2 * b) - math.sin(2 * a)) / 4.0)
        xy = q * (math.sin(b) ** 2 - math.sin(a) ** 2) / 2.0
        zz = v * h * h / 12.0
        about_axis = np.array([[yy + zz, -xy, 0.0], [-xy, xx + zz, 0.0], [0.0, 0.0, xx + yy]])
        return MassProperties(v, c, shift_inertia(about_axis, v, c))

    def half_extents(self) -> np.ndarray:
        """Half the extent, about the centroid, of the box that holds it: its corners and the points where
        its arcs cross the axes."""
        a, b = self.start_angle, self.end_angle
        axes = np.arange(math.ceil(a / 90.0), math.floor(b / 90.0) + 1) * 90.0
        t = np.radians(np.concatenate([[a, b], axes]))
        xy = np.concatenate([rad * np.column_stack([np.cos(t), np.sin(t)])
                             for rad in (self.inner_radius, self.outer_radius)])
        c = self.mass_properties().centroid[:2]
        return np.array([*np.max(np.abs(xy - c), axis=0), 0.5 * self.length])


def _mesh(g: Arc, base=None, resolution: int = 40):
    """Outer and inner walls, two caps and two end faces, each wound outward."""
    n = max(2, math.ceil(resolution * g.span / 360.0))
    t = np.radians(np.linspace(g.start_angle, g.end_angle, n + 1))
    c, s = np.cos(t), np.sin(t)
    r, R, h = g.inner_radius, g.outer_radius, g.length / 2.0
    points = np.concatenate([np.column_stack([rad * c, rad * s, np.full(n + 1, z)])
                             for rad, z in ((R, -h), (R, h), (r, -h), (r, h))])
    k = np.arange(n)
    m = k + 1
    ob, ot, ib, it = 0, n + 1, 2 * (n + 1), 3 * (n + 1)
    quads = np.concatenate([np.column_stack(q) for q in (
        (ob + k, ob + m, ot + m, ot + k),  # outer wall
        (ib + k, it + k, it + m, ib + m),  # inner wall
        (ot + k, ot + m, it + m, it + k),  # top
        (ob + k, ib + k, ib + m, ob + m),  # bottom
    )] + [[[ob, ot, it, ib], [ob + n, ib + n, it + n, ot + n]]])  # the ends at the start and end angles
    return points, quads_to_triangles(quads)


def _inside(g: Arc, p: np.ndarray) -> np.ndarray:
    """In its material: within its radii, its length and its angles."""
    q = p + g.mass_properties().centroid
    r, R, h, span = g.inner_radius, g.outer_radius, g.length / 2.0, g.span
    radial = np.hypot(q[..., 0], q[..., 1])
    turned = np.mod(np.degrees(np.arctan2(q[..., 1], q[..., 0])) - g.start_angle, 360.0)
    return ((radial > r * (1.0 + SURFACE_TOLERANCE)) & (radial < R * (1.0 - SURFACE_TOLERANCE))
            & (np.abs(q[..., 2]) < h * (1.0 - SURFACE_TOLERANCE))
            & (turned > span * SURFACE_TOLERANCE) & (turned < span * (1.0 - SURFACE_TOLERANCE)))


def _source(g: Arc, J, base=None):
    import magpylib as magpy

    dimension = (g.inner_radius, g.outer_radius, g.length, g.start_angle, g.end_angle)
    return magpy.magnet.CylinderSegment(dimension=dimension, polarization=J)


_ANGLE_TIP = "About the part's z axis, from its x axis"
KIND = register(GeometryKind(
    "arc", Arc,
    (Field("inner_radius", "Bore radius", tip="The whole ring's hole radius"),
     Field("outer_radius", "Outer radius"), Field("length", "Length", tip="Along the part's z axis"),
     Field("start_angle", "Start angle", unit="deg", low=-MAX_ANGLE, high=MAX_ANGLE, tip=_ANGLE_TIP),
     Field("end_angle", "End angle", unit="deg", low=-MAX_ANGLE, high=MAX_ANGLE,
           tip=_ANGLE_TIP + "; above the start by at most 360°")),
    text="arc r={inner_radius}–{outer_radius} m, length {length} m, {start_angle}°–{end_angle}°",
    summary="a segment of a ring (Magpylib's CylinderSegment, of which Halbach rings are built), from its "
            "start to its end angle (degrees about the part frame's z from its x, at most 360° apart); its "
            "own frame is the whole ring's, so its centroid lies off the origin and `at` places the centroid",
    mesh=_mesh, inside=_inside, source=_source,
    conditions="an arc's inner radius is below its outer one and its end angle above its start by at most "
               "360°",
    # a quarter of a Halbach-style ring, centred on the part's x axis so that "radially" is +x (Magpylib's
    # CylinderSegment takes one uniform polarization: a radial segment is magnetised along its mid-line)
    templates=(
        KindTemplate("magnet", "Arc magnet", "An NdFeB N42 arc: a 90° segment (−45° to 45°) of a ring, "
                     "bore radius 5 mm, outer radius 10 mm, 5 mm long, magnetised radially through its "
                     "middle (+x)",
                     Arc(0.005, 0.01, 0.005, -45.0, 45.0), magnetisation=(1.0, 0.0, 0.0)),)))
