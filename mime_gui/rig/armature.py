"""Where each joint's armature comes from: declared, reflected through a transmission, or none.

1. Declared per joint: ``Arm.Dynamic(armature={"joint_6": kg_m2(2e-4, reason=...)})`` (``kg`` on a sliding
   joint).
2. Reflected through a transmission of the description from the rotor behind it:
   ``actuators={"motor_6": kg_m2(1.25e-5, reason=...)}`` or the name of a registered actuator; the
   transmission's reduction is applied squared.
3. Neither: none (zero), the description's own meaning.

:func:`armature_sources` returns one :class:`ArmatureSource` per movable joint and the problems found, as
``(code, where, message)`` with ``where`` relative to the segment (``armature.joint_6``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mime_gui.multibody import MultibodyTree
from mime_gui.multibody.magnitudes import MAX_INERTIA, MAX_MASS
from mime_gui.rig.actuators import actuator, actuator_names
from mime_gui.rig.units import KG, KG_M2, Quantity, check_declaration

DECLARED = "declared"
REFLECTED = "reflected"
NONE = "none"


@dataclass(frozen=True)
class ArmatureSource:
    joint: str
    joint_type: str
    value: float
    unit: str
    source: str  # DECLARED, REFLECTED or NONE
    detail: str
    reason: str | None = None

    def to_dict(self) -> dict:
        return {"joint": self.joint, "type": self.joint_type, "value": self.value, "unit": self.unit,
                "source": self.source, "detail": self.detail, "reason": self.reason}


def _beyond_bound(value: float, unit: str, where: str, what: str) -> list[tuple[str, str, str]]:
    """An armature adds to the diagonal of the mass matrix: keep the sums finite (at most MAX_INERTIA kg m2,
    MAX_MASS kg on a sliding joint). The problem is reported at ``where``, the entry that gives the value."""
    bound = MAX_MASS if unit == KG else MAX_INERTIA
    if math.isfinite(value) and value > bound:
        return [("chain.armature", where, f"the armature {value:g} {unit} ({what}) is beyond {bound:g} "
                                          f"{unit}; check the value")]
    return []


def _listing(names, limit: int = 12) -> str:
    names = list(names)
    return ", ".join(names[:limit]) + (" …" if len(names) > limit else "") if names else "(none)"


def armature_sources(segment, tree: MultibodyTree) -> tuple[list[ArmatureSource], list[tuple[str, str, str]]]:
    """The armature of every movable joint of a dynamic arm and the problems of its declarations."""
    problems: list[tuple[str, str, str]] = []
    movable = tree.movable_joint_names()
    declared = dict(getattr(segment, "armature", {}) or {})
    given = dict(getattr(segment, "actuators", {}) or {})
    by_joint: dict[str, list[tuple[str, ArmatureSource]]] = {}  # joint -> [(where, source)]

    def unit_of(joint: str) -> str:
        return KG if tree.joints[joint].type == "prismatic" else KG_M2

    for joint, q in declared.items():
        where = f"armature.{joint}"
        if joint not in tree.joints:
            problems.append(("chain.armature", where, f"{joint!r} is not a joint of {tree.name!r}; movable "
                                                      f"joints: {_listing(movable)}"))
            continue
        if not tree.joints[joint].movable:
            problems.append(("chain.armature", where, f"{joint!r} is a fixed joint; armature sits on a "
                                                      f"movable joint: {_listing(movable)}"))
            continue
        unit = unit_of(joint)
        hint = f"{'kg' if unit == KG else 'kg_m2'}(value, reason=...)"
        found = check_declaration(q, unit, f"the armature of {joint!r}", hint, "chain.armature")
        problems += [(c, where, m) for c, m in found]
        if not isinstance(q, Quantity) or not q.finite or q.value < 0:
            continue
        problems += _beyond_bound(q.value, unit, where, DECLARED)
        by_joint.setdefault(joint, []).append(
            (where, ArmatureSource(joint, tree.joints[joint].type, q.value, unit, DECLARED, q.reason or "",
                                   q.reason)))

    transmissions = list(tree.transmissions.values())
    for name, q in given.items():
        where = f"actuators.{name}"
        drives = [t for t in transmissions if t.actuator == name]
        if not drives:
            listing = _listing(f"{t.name} ({t.joint} <- {t.actuator})" for t in transmissions if t.actuator)
            problems.append(("chain.armature", where, f"no transmission of {tree.name!r} has actuator "
                                                      f"{name!r}; transmissions: {listing}"))
            continue
        if isinstance(q, str):
            record = actuator(q)
            if record is None:
                problems.append(("chain.armature", where, f"{q!r} is not a registered actuator; registered: "
                                                          f"{_listing(actuator_names())} (register_actuator "
                                                          "adds one)"))
                continue
            rotor, reason = record.rotor_inertia, f"registered actuator {q!r}: {record.described()}"
        else:
            found = check_declaration(q, KG_M2, f"the rotor inertia of {name!r}",
                                      "kg_m2(value, reason=...) or the name of a registered actuator",
                                      "chain.armature")
            problems += [(c, where, m) for c, m in found]
            if not isinstance(q, Quantity) or not q.finite or q.value < 0:
                continue
            rotor, reason = q.value, q.reason
        for t in drives:
            if t.reduction is None:
                problems.append(("chain.armature", where, f"transmission {t.name!r} of actuator {name!r} has "
                                                          f"no reduction to reflect through ({t.error}); "
                                                          f"declare the armature of {t.joint!r} instead: "
                                                          "armature={...: kg_m2(value, reason=...)}"))
                continue
            joint = tree.joints.get(t.joint)
            if joint is None or not joint.movable:
                problems.append(("chain.armature", where, f"transmission {t.name!r} of actuator "
                                                          f"{name!r} drives "
                                                          f"{t.joint!r}, which is not a movable joint of "
                                                          f"{tree.name!r}; movable joints: "
                                                          f"{_listing(movable)}"))
                continue
            value = rotor * t.reduction ** 2 if abs(t.reduction) < 1e150 else float("inf")
            if not math.isfinite(value):
                problems.append(("chain.armature", where, f"the rotor of {name!r} ({rotor:g} kg·m²) through "
                                                          f"the reduction {t.reduction:g} of transmission "
                                                          f"{t.name!r} reflects an armature beyond the "
                                                          "largest number; check both"))
                continue
            problems += _beyond_bound(value, unit_of(t.joint), where, f"{REFLECTED} through {t.name!r}")
            detail = (f"rotor of {name} {rotor:g} kg·m² × reduction² ({t.reduction:g}² through {t.name})"
                      + (f"; {reason}" if reason else ""))
            by_joint.setdefault(t.joint, []).append(
                (where, ArmatureSource(t.joint, joint.type, value, unit_of(t.joint), REFLECTED, detail,
                                       reason)))

    out = []
    for joint in movable:
        entries = by_joint.get(joint, [])
        if len(entries) > 1:
            kinds = {e.source for _, e in entries}
            how = "both a declared armature and a rotor through a transmission" if len(kinds) > 1 else \
                "twice: " + ", ".join(w for w, _ in entries)
            for where, _ in entries[1:]:
                problems.append(("chain.armature", where, f"joint {joint!r} is given {how}; keep one"))
        if entries:
            out.append(entries[0][1])
        else:
            out.append(ArmatureSource(joint, tree.joints[joint].type, 0.0, unit_of(joint), NONE,
                                      "neither declared nor reflected (the description's own meaning)"))
    return out, problems

