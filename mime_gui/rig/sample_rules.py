"""The rules a rig's samples must satisfy (``sample.*``), checked by :func:`mime_gui.rig.rules.analyse`,
and a sample's moment as the field reads it (:func:`sample_moment`).

A sample has a name of its own among the rig's items (``sample.name``), mounts on ``<segment>.<frame>`` or
nowhere (``sample.mount``), sits at a finite point (``sample.placement``), is a shape with a remanence or a
declared moment, one of them (``sample.moment``, ``sample.geometry``, ``sample.material``,
``sample.remanence``), has a magnetisation with a direction (``sample.magnetisation``) and an orientation
that is ``fixed`` or ``follows`` (``sample.orientation``); a declared rotational drag is in N·m·s, finite,
positive and at most :data:`MAX_DRAG`, with its reason, on a sample that follows the field (``sample.drag``).
A shape's remanence and moment ``Br·V/μ0`` come as a rig magnet's do
(:func:`mime_gui.rig.mass.magnet_moment`), its findings renamed to the sample's codes.
"""

from __future__ import annotations

import math

import numpy as np

from mime_gui.multibody.magnitudes import MAX_LENGTH
from mime_gui.rig.geometries import KINDS, kind_of
from mime_gui.rig.mass import magnet_moment, part_mass
from mime_gui.rig.mount_rules import resolve_mount
from mime_gui.rig.names import RULE, good_name, shown
from mime_gui.rig.parts import PermanentMagnet
from mime_gui.rig.samples import ORIENTATIONS
from mime_gui.rig.segments import direction
from mime_gui.rig.units import A_M2, N_M_S, Quantity, check_declaration

#: the largest moment a sample may declare, A·m² (a 10 cm NdFeB cube holds about 1e3)
MAX_MOMENT = 1e6
#: the largest rotational drag a sample may declare, N·m·s (a 1 cm ball in honey opposes some 3e-4)
MAX_DRAG = 1e6
#: the item collections whose names a sample's must differ from
_NAMED = ("chain", "parts", "magnets", "probes")
_RENAMED = {"part.geometry": "sample.geometry", "part.material": "sample.material",
            "part.mass": "sample.geometry", "magnet.remanence": "sample.remanence",
            "magnet.magnetisation": "sample.magnetisation"}


def _names_a_file(kind) -> bool:
    return any(f.unit == "path" for f in kind.fields)


def _as_magnet(sample) -> PermanentMagnet:
    return PermanentMagnet(sample.geometry, material=sample.material, at=sample.at, mount=sample.mount,
                           magnetisation=sample.magnetisation, remanence=sample.remanence)


def sample_moment(sample, base=None) -> tuple[np.ndarray | None, float | None, list[tuple[str, str, str]]]:
    """``(direction (3,) in the mount frame, |m| A·m², problems)`` of a sample; ``problems`` are
    ``(code, where-suffix, message)`` and the moment is None when there are any."""
    problems: list[tuple[str, str, str]] = []
    has_shape, has_moment = sample.geometry is not None, sample.moment is not None
    if has_shape == has_moment:
        what = "both a geometry and a declared moment" if has_shape else "neither a geometry nor a moment"
        return None, None, [("sample.moment", "moment",
                             f"the sample has {what}; give a geometry (with a magnet material or a declared "
                             "remanence) or a moment a_m2(value, reason=...), one of them")]
    if has_moment:
        for attr in ("material", "remanence"):
            if getattr(sample, attr) is not None:
                problems.append((f"sample.{attr}", attr, f"a sample with a declared moment takes no {attr} "
                                                         "(it has no shape to hold it); leave it out"))
        problems += [(c, "moment", m) for c, m in check_declaration(
            sample.moment, A_M2, "the declared moment", "a_m2(value, reason=...)", "sample.moment")]
        value = sample.moment.value if isinstance(sample.moment, Quantity) else None
        if value is not None and math.isfinite(value) and value >= 0 and not 0 < value <= MAX_MOMENT:
            problems.append(("sample.moment", "moment",
                             f"the declared moment {value:g} A·m² must be positive and at most "
                             f"{MAX_MOMENT:g} A·m²"))
        d = direction(sample.magnetisation)
        if d is None:
            problems.append(("sample.magnetisation", "magnetisation",
                             f"the magnetisation direction {sample.magnetisation} has no direction; give a "
                             "non-zero vector in the mount frame, e.g. (0, 0, 1)"))
        if problems:
            return None, None, problems
        return np.asarray(d, dtype=float), float(value), []
    kind = kind_of(sample.geometry)
    if kind is not None and _names_a_file(kind):
        # a file of its own would need the bundle and the provenance to carry it: give its moment instead
        return None, None, [("sample.geometry", "geometry", "a sample's shape is one of the solid kinds "
                             f"({', '.join(k for k in KINDS if not _names_a_file(KINDS[k]))}); for a mesh, "
                             "declare its moment a_m2(value, reason=...)")]
    magnet = _as_magnet(sample)
    mass, found = part_mass(magnet, base)
    problems += [(_RENAMED.get(c, c), w, m) for c, w, m in found]
    moment, found = magnet_moment(magnet, mass.volume if mass is not None else None)
    problems += [(_RENAMED.get(c, c), w, m) for c, w, m in found]
    if problems or moment is None:
        return None, None, problems
    return np.asarray(moment.direction, dtype=float), float(moment.moment), []


def drag_problems(sample) -> list[tuple[str, str]]:
    """``(code, message)`` of a sample's declared rotational drag (None: none declared)."""
    q = sample.drag
    if q is None:
        return []
    problems = check_declaration(q, N_M_S, "the rotational drag", "Quantity(value, 'N m s', reason=...)",
                                 "sample.drag")
    value = q.value if isinstance(q, Quantity) else None
    ranged = any(code == "sample.drag" for code, _ in problems)
    if value is not None and not ranged and not (math.isfinite(value) and 0 < value <= MAX_DRAG):
        problems.append(("sample.drag", f"the rotational drag {value:g} N·m·s must be positive and at most "
                                        f"{MAX_DRAG:g} N·m·s"))
    if sample.orientation == "fixed":
        problems.append(("sample.drag", "a fixed sample is held by its mount and never has to keep up with "
                                        "the field: declare a drag only on a sample that follows it "
                                        "(orientation 'follows'), or leave it out"))
    return problems


def _check_name(name, taken: dict[str, str], a) -> bool:
    where = f"samples.{name}"
    if not good_name(name):
        a.add("sample.name", where, f"{shown(name)} is not a valid name: use {RULE}")
        return False
    if name in taken:
        a.add("sample.name", where, f"{name!r} is already the name of {taken[name]}; rename the sample")
        return False
    taken[name] = where
    return True


def check_samples(rig, a) -> None:
    """Add a finding to the analysis ``a`` for every sample rule broken."""
    taken = {name: f"{c}.{name}" for c in _NAMED for name in getattr(rig, c) if isinstance(name, str)}
    for name, sample in rig.samples.items():
        where = f"samples.{name}"
        _check_name(name, taken, a)
        resolve_mount(f"{where}.mount", sample.mount, rig, a, "sample")
        at = np.asarray(sample.at, dtype=float)
        if not (np.all(np.isfinite(at)) and np.all(np.abs(at) <= MAX_LENGTH)):
            a.add("sample.placement", f"{where}.at", f"at {sample.at} must be finite (m), each coordinate "
                                                     f"within ±{MAX_LENGTH:g} m")
        if sample.orientation not in ORIENTATIONS:
            a.add("sample.orientation", f"{where}.orientation",
                  f"orientation {sample.orientation!r} is not one of {', '.join(ORIENTATIONS)}: 'fixed' "
                  "holds the moment in its mount frame, 'follows' turns it along the field")
        _, _, problems = sample_moment(sample, rig.base)
        for code, w, message in problems:
            a.add(code, f"{where}.{w}", message)
        for code, message in drag_problems(sample):
            a.add(code, f"{where}.drag", message)


__all__ = ["MAX_DRAG", "MAX_MOMENT", "check_samples", "drag_problems", "sample_moment"]
