"""Parts and permanent magnets: solids fixed to a frame of a segment, or to the world.

``Part(geometry, material=..., at=..., mount="<segment>.<frame>")``: ``at`` (m) places the part's centroid in
the mount frame, and the part's own frame is not turned in it (its axes are the mount frame's). With no mount
the part is fixed in the world. A part's mass comes from a declared ``mass`` (``kg``), else a declared
``density`` (``kg_per_m3``), else its material's density; with none it is massless.

A :class:`PermanentMagnet` is a part with a magnetisation direction in its own frame and a remanence from its
material or declared (``tesla``).

Geometry sizes are in metres; each geometry kind (box, cylinder, ring, sphere, mesh, arc) is declared once in
:mod:`mime_gui.rig.geometries`. A cylinder's axis, and a ring's, is the z axis of the part frame (as in URDF).
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass

from mime_gui.rig.geometries import (  # noqa: F401  (the geometry classes, read from here too)
    CLASSES,
    KINDS,
    Box,
    Cylinder,
    MassProperties,
    Mesh,
    Ring,
    Sphere,
    kind_of,
    load_mesh,
)
from mime_gui.rig.segments import _vector
from mime_gui.rig.units import Quantity

#: every geometry class, from the registry (kept here for the rig model's readers)
Geometry = CLASSES
#: the geometry class of each rig-file ``type``
GEOMETRY_KINDS = {t: k.cls for t, k in KINDS.items()}
_load_mesh = load_mesh


@dataclass(eq=True)
class Part:
    """A solid fixed to ``mount`` (``"<segment>.<frame>"``) with its centroid at ``at`` (m) in that frame."""

    geometry: object  # a registered geometry kind's value
    _: KW_ONLY
    material: str | None = None
    at: tuple[float, float, float] = (0.0, 0.0, 0.0)
    mount: str | None = None
    mass: Quantity | None = None
    density: Quantity | None = None

    role = "part"

    def __post_init__(self):
        check_solid(self.geometry, self.material)
        self.at = _vector(self.at, 3, "at")
        if self.mount is not None and not isinstance(self.mount, str):
            raise TypeError(f"mount is '<segment>.<frame>', got {self.mount!r}")


def check_solid(geometry, material, optional: bool = False) -> None:
    """Refuse, when a part or a sample is made, a geometry of no registered kind (None too, unless
    ``optional``) and a material that is not a name."""
    if not (optional and geometry is None) and kind_of(geometry) is None:
        names = ", ".join(c.__name__ for c in CLASSES) + (" or None" if optional else "")
        raise TypeError(f"geometry must be one of {names}, got {geometry!r}")
    if material is not None and not isinstance(material, str):
        raise TypeError(f"material is a name, got {material!r}")


@dataclass(eq=True, kw_only=True)
class PermanentMagnet(Part):
    """A part magnetised along ``magnetisation`` (a direction in the part's frame), with remanence from its
    material or a declared ``remanence`` (``tesla``)."""

    magnetisation: tuple[float, float, float] = (0.0, 0.0, 1.0)
    remanence: Quantity | None = None

    role = "magnet"

    def __post_init__(self):
        super().__post_init__()
        self.magnetisation = _vector(self.magnetisation, 3, "magnetisation")
