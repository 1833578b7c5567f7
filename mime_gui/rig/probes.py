"""Probes: named points where the magnets' field is wanted, fixed in the world or on a frame.

``Probe(at=(x, y, z), mount="<segment>.<frame>")``: ``at`` (m) places the point in the mount frame, or in the
world with no mount, as a part's ``at`` does. A probe has no shape and no mass; it changes nothing the chain
does. :func:`inside` says whether points lie strictly inside a magnet's solid, which the rules
(``probe.inside-magnet``) and the field (:mod:`mime_gui.field`) both ask: inside a magnet the field is not
what the sample sees.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass

import numpy as np

from mime_gui.rig.parts import Box, Cylinder, Ring, Sphere
from mime_gui.rig.segments import _vector

#: how far inside a solid a point must be, relative to the solid's size, to count as inside: a probe on the
#: surface (a sensor resting on the magnet) is outside
SURFACE_TOLERANCE = 1e-9


@dataclass(eq=True)
class Probe:
    """A point at ``at`` (m) in the frame ``mount`` (``"<segment>.<frame>"``), or in the world."""

    at: tuple[float, float, float] = (0.0, 0.0, 0.0)
    _: KW_ONLY
    mount: str | None = None

    role = "probe"

    def __post_init__(self):
        self.at = _vector(self.at, 3, "at")
        if self.mount is not None and not isinstance(self.mount, str):
            raise TypeError(f"mount is '<segment>.<frame>', got {self.mount!r}")


def inside(geometry, points) -> np.ndarray | None:
    """For points ``(..., 3)`` in a solid's own frame (its centroid at the origin), whether each lies
    strictly inside it; None for a geometry this does not know (a mesh)."""
    p = np.asarray(points, dtype=float)
    if isinstance(geometry, Box):
        half = np.asarray(geometry.size) / 2.0
        return np.all(np.abs(p) < half * (1.0 - SURFACE_TOLERANCE), axis=-1)
    if isinstance(geometry, Cylinder):
        r, h = geometry.radius, geometry.length / 2.0
        radial = np.hypot(p[..., 0], p[..., 1])
        return (radial < r * (1.0 - SURFACE_TOLERANCE)) & (np.abs(p[..., 2]) < h * (1.0 - SURFACE_TOLERANCE))
    if isinstance(geometry, Ring):  # in its material, not in its bore
        r, R, h = geometry.inner_radius, geometry.outer_radius, geometry.length / 2.0
        radial = np.hypot(p[..., 0], p[..., 1])
        return ((radial > r * (1.0 + SURFACE_TOLERANCE)) & (radial < R * (1.0 - SURFACE_TOLERANCE))
                & (np.abs(p[..., 2]) < h * (1.0 - SURFACE_TOLERANCE)))
    if isinstance(geometry, Sphere):
        return np.linalg.norm(p, axis=-1) < geometry.radius * (1.0 - SURFACE_TOLERANCE)
    return None


__all__ = ["SURFACE_TOLERANCE", "Probe", "inside"]
