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

from mime_gui.rig.geometries import SURFACE_TOLERANCE, kind_of
from mime_gui.rig.segments import _vector


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
    strictly inside it; None for a geometry whose kind cannot tell (a mesh)."""
    kind = kind_of(geometry)
    return None if kind is None else kind.inside(geometry, np.asarray(points, dtype=float))


__all__ = ["SURFACE_TOLERANCE", "Probe", "inside"]
