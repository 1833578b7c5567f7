"""Where a part's mass comes from, and a magnet's remanence and moment.

A part's mass is, in this order: a declared ``mass`` (spread uniformly over its volume), a declared
``density``, its material's density; with none it is massless and changes nothing. Declaring both a mass and
a density is refused. A magnet's remanence is declared (``tesla``) or its material's; its moment is
``Br·V/μ0`` along its magnetisation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mime_gui.multibody.magnitudes import MAX_MASS
from mime_gui.rig.materials import material, material_names
from mime_gui.rig.parts import PermanentMagnet
from mime_gui.rig.segments import direction
from mime_gui.rig.units import KG, KG_PER_M3, TESLA, Quantity, check_declaration

MU0 = 4e-7 * math.pi * 1.00000000055  # vacuum permeability, T·m/A (CODATA 2018)
#: the largest remanence a magnet may declare, T (the strongest permanent magnets hold about 1.5 T)
MAX_REMANENCE = 100.0

DECLARED_MASS = "declared mass"
DECLARED_DENSITY = "declared density"
MATERIAL = "material"
NONE = "none"
_DECLARED_WHERE = {DECLARED_MASS: "mass", DECLARED_DENSITY: "density"}


@dataclass(frozen=True)
class PartMass:
    volume: float  # m3
    mass: float  # kg
    density: float | None  # kg/m3 (None when massless)
    source: str  # DECLARED_MASS, DECLARED_DENSITY, MATERIAL or NONE
    detail: str
    centroid: np.ndarray  # of the geometry, in its own frame (m)
    inertia: np.ndarray  # about the centroid, part axes (kg m2)

    def to_dict(self) -> dict:
        return {"volume": self.volume, "mass": self.mass, "density": self.density, "source": self.source,
                "detail": self.detail, "inertia_about_centroid": self.inertia.tolist()}


@dataclass(frozen=True)
class MagnetMoment:
    remanence: float  # T
    source: str
    moment: float  # A m2
    direction: tuple[float, float, float]  # unit, part frame

    def to_dict(self) -> dict:
        return {"remanence": self.remanence, "remanence_source": self.source, "moment": self.moment,
                "unit": "A m2", "direction": list(self.direction)}


def part_mass(part, base=None) -> tuple[PartMass | None, list[tuple[str, str, str]]]:
    """Mass properties of a part and its problems ``(code, where-suffix, message)``."""
    problems: list[tuple[str, str, str]] = []
    geometry_problems = part.geometry.problems(base)
    problems += [("part.geometry", "geometry", m) for m in geometry_problems]
    if part.mass is not None and part.density is not None:
        problems.append(("part.mass", "mass", "both a mass and a density are declared; declare one"))
    for attr, unit, hint in (("mass", KG, "kg(value, reason=...)"),
                             ("density", KG_PER_M3, "kg_per_m3(value, reason=...)")):
        q = getattr(part, attr)
        if q is not None:
            found = check_declaration(q, unit, f"the declared {attr}", hint, "part.mass")
            problems += [(c, attr, m) for c, m in found]
    mat = None
    if part.material is not None:
        mat = material(part.material)
        if mat is None:
            problems.append(("part.material", "material", f"unknown material {part.material!r}; materials: "
                                                          f"{', '.join(material_names())}"))
    if problems:
        return None, problems
    props = part.geometry.mass_properties(base)
    v = props.volume
    if not (math.isfinite(v) and v > 0.0):  # sizes so large or so small that the volume over/underflows
        return None, [("part.geometry", "geometry", f"the volume of this geometry is {v:g} m³, not a finite "
                                                    "positive number; give sizes in metres")]
    if part.mass is not None:
        mass, density = part.mass.value, part.mass.value / v
        source, detail = DECLARED_MASS, f"declared {part.mass}: {part.mass.reason}"
    elif part.density is not None:
        density, mass = part.density.value, part.density.value * v
        source, detail = DECLARED_DENSITY, f"declared {part.density}: {part.density.reason}"
    elif mat is not None:
        density, mass = mat.density, mat.density * v
        source, detail = MATERIAL, f"{mat.name} ({mat.grade}) {mat.density:g} kg/m³: {mat.density_source}"
    else:
        density, mass = None, 0.0
        source, detail = NONE, "no material density and no declared mass or density, so massless"
    with np.errstate(over="ignore", invalid="ignore"):
        inertia = props.inertia * density if density is not None else np.zeros((3, 3))
    if not (math.isfinite(mass) and math.isfinite(density or 0.0) and np.all(np.isfinite(inertia))):
        return None, [("part.mass", _DECLARED_WHERE.get(source, "material"),
                       f"the mass {mass:g} kg and density {density:g} kg/m³ of a {v:g} m³ part give a mass "
                       "or an inertia beyond the largest number; check the declared value and the sizes")]
    if mass > MAX_MASS:  # a sum of parts, or of a part and its arm, could overflow further on
        return None, [("part.mass", _DECLARED_WHERE.get(source, "material"),
                       f"the part's mass is {mass:g} kg ({detail.split(':')[0]} over {v:g} m³); a part's "
                       f"mass is at most {MAX_MASS:g} kg: check the declared value and the sizes")]
    return PartMass(v, mass, density, source, detail, props.centroid, inertia), problems


def magnet_moment(magnet: PermanentMagnet, volume: float | None) -> tuple[MagnetMoment | None,
                                                                          list[tuple[str, str, str]]]:
    """Remanence and moment ``Br·V/μ0`` of a magnet, and its problems."""
    problems: list[tuple[str, str, str]] = []
    d = direction(magnet.magnetisation)
    if d is None:
        problems.append(("magnet.magnetisation", "magnetisation",
                         f"the magnetisation direction {magnet.magnetisation} has no direction; give a "
                         f"non-zero vector in the magnet's frame, e.g. (0, 0, 1)"))
    mat = material(magnet.material) if magnet.material is not None else None
    if magnet.remanence is not None:
        found = check_declaration(magnet.remanence, TESLA, "the declared remanence",
                                  "tesla(value, reason=...)", "magnet.remanence")
        problems += [(c, "remanence", m) for c, m in found]
        br = magnet.remanence.value if isinstance(magnet.remanence, Quantity) else None
        source = f"declared {magnet.remanence}: {getattr(magnet.remanence, 'reason', '')}"
        if br is not None and math.isfinite(br) and br > MAX_REMANENCE:
            problems.append(("magnet.remanence", "remanence", f"the declared remanence {br:g} T is "
                             f"beyond {MAX_REMANENCE:g} T (the strongest magnets hold 1.5 T); check it"))
    elif mat is not None and mat.magnetic:
        br, source = mat.remanence, f"{mat.name} {mat.remanence:g} T: {mat.remanence_source}"
    else:
        br, source = None, ""
        what = "it names no magnetic material" if mat is None else f"material {mat.name!r} is not magnetic"
        magnetic = ", ".join(m.name for m in _magnetic())
        problems.append(("magnet.remanence", "remanence", f"the magnet has no remanence: {what}; use a "
                                                          f"magnet material ({magnetic}) or declare "
                                                           "remanence=tesla(value, reason=...)"))
    if problems or volume is None:
        return None, problems
    moment = br * volume / MU0
    if not math.isfinite(moment):
        message = f"the moment Br·V/μ0 of {br:g} T over {volume:g} m³ is beyond the largest number; check " \
            "the remanence"
        return None, [("magnet.remanence", "remanence", message)]
    return MagnetMoment(br, source, moment, tuple(float(x) for x in d)), problems


def _magnetic():
    from mime_gui.rig.materials import materials

    return [m for m in materials() if m.magnetic]
