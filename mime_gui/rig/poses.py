"""Named poses: joint positions per segment, stored in the rig file's ``poses`` and reached through the node.

``Pose({"arm": {"joint_1": 30, "slide": 12}}, unit="deg|mm")`` holds the values as the rig file writes them,
in the pose's ``unit`` (an angle unit for turning joints, a length unit for sliding ones: :data:`POSE_UNITS`,
as ``initial_positions`` writes ``rad|m``) or in a value's own unit (``units={"arm": {"slide": "m"}}``).
Which unit a bare value is in depends on its joint, so a pose's radians and metres come with the built rig
(:func:`positions_of`), and :func:`pose_of` makes a pose from them, each value the shortest number that
reads back exactly. The rules (:mod:`mime_gui.rig.pose_rules`) check a pose against the chain.

:func:`centre` and :func:`randomize` give positions of one articulation's commandable joints, as
joint_state_publisher_gui's buttons do: the middle of each joint's range, or a uniform draw within it
(continuous joints at 0, or within ±π). :func:`pose_commands` makes a pose a held command file that
``mime-gui play`` and :meth:`~mime_gui.rig.build.BuiltRig.play` read back.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from mime_gui.multibody import PRISMATIC

#: each angle and length unit a pose may be written in, with its factor to radians or metres
ANGLE_UNITS = {"rad": 1.0, "deg": math.pi / 180.0}
LENGTH_UNITS = {"m": 1.0, "mm": 1e-3}
UNIT_FACTORS = {**ANGLE_UNITS, **LENGTH_UNITS}
#: a pose's unit: its angles' unit, then its lengths', as ``initial_positions`` writes ``rad|m``
POSE_UNITS = tuple(f"{a}|{b}" for a in ANGLE_UNITS for b in LENGTH_UNITS)
DEFAULT_UNIT = "rad|m"


def _table(value, what: str, check) -> Mapping[str, Mapping[str, object]]:
    """``{segment: {joint: x}}`` copied and read-only, each ``x`` through ``check``."""
    if not isinstance(value, Mapping):
        raise TypeError(f"{what} maps segment names to {{joint: value}}, got {value!r}")
    out = {}
    for segment, joints in value.items():
        if not isinstance(segment, str) or not isinstance(joints, Mapping):
            raise TypeError(f"{what} maps segment names to {{joint: value}}, got {segment!r}: {joints!r}")
        inner = {}
        for joint, x in joints.items():
            if not isinstance(joint, str):
                raise TypeError(f"{what}: a joint's name is text, got {joint!r}")
            inner[joint] = check(x, f"{what}.{segment}.{joint}")
        out[segment] = MappingProxyType(inner)
    return MappingProxyType(out)


def _number(x, what: str) -> float:
    if isinstance(x, bool) or not isinstance(x, int | float):
        raise TypeError(f"{what} is a number, got {x!r}")
    return float(x)


def _unit(x, what: str) -> str:
    if x not in UNIT_FACTORS:
        raise ValueError(f"{what}: unknown unit {x!r}; units: {', '.join(UNIT_FACTORS)}")
    return x


@dataclass(frozen=True)
class Pose:
    """Joint positions by segment as the rig file writes them: ``values`` in ``unit`` (``"deg|m"``: degrees
    on turning joints, metres on sliding ones), or in a value's own unit in ``units``. Which of a pose's
    units a bare value is in depends on its joint, so the radians and metres come with the joints:
    :meth:`position`, :func:`positions_of`; :func:`pose_of` makes a pose from them."""

    values: Mapping[str, Mapping[str, float]]
    unit: str = DEFAULT_UNIT
    units: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def __post_init__(self):
        if self.unit not in POSE_UNITS:
            raise ValueError(f"a pose's unit is one of {', '.join(POSE_UNITS)}, got {self.unit!r}")
        object.__setattr__(self, "values", _table(self.values, "values", _number))
        object.__setattr__(self, "units", _table(self.units, "units", _unit))
        for segment, joints in self.units.items():
            for joint in joints:
                if joint not in self.values.get(segment, {}):
                    raise ValueError(f"units.{segment}.{joint}: a unit for a value the pose does not hold")

    def unit_of(self, segment: str, joint: str, sliding: bool) -> str:
        """The unit a value is written in: its own, or the pose's for its kind of joint."""
        own = self.units.get(segment, {}).get(joint)
        if own is not None:
            return own
        angle, length = self.unit.split("|")
        return length if sliding else angle

    def position(self, segment: str, joint: str, sliding: bool) -> float:
        """The value in radians (a turning joint) or metres (a sliding one)."""
        return self.values[segment][joint] * UNIT_FACTORS[self.unit_of(segment, joint, sliding)]

    def items(self):
        """``(segment, joint, value as written)`` in the order written."""
        for segment, joints in self.values.items():
            for joint, value in joints.items():
                yield segment, joint, value

    def __repr__(self) -> str:
        units = f", units={_plain(self.units)!r}" if self.units else ""
        return f"Pose({_plain(self.values)!r}, unit={self.unit!r}{units})"


def _plain(table) -> dict:
    return {k: dict(v) for k, v in table.items()}


def written(value: float, unit: str) -> float:
    """``value`` (radians or metres) in ``unit``: the shortest number that reads back to exactly ``value``
    (reading multiplies by the unit's factor), so a saved pose loads equal and saves to the same text."""
    factor = UNIT_FACTORS[unit]
    if factor == 1.0 or not math.isfinite(value):
        return value
    x = value / factor
    for digits in range(1, 18):
        candidate = float(f"{x:.{digits}g}")
        if candidate * factor == value:
            return candidate
    return x  # no number reads back exactly (a value not read from a file): the nearest


# -- positions of one articulation ---------------------------------------------------------------------
def _commandable(art) -> np.ndarray:
    return np.flatnonzero(~art.is_mimic)


def centre(art) -> dict[str, float]:
    """The middle of each commandable joint's range; 0 on a continuous joint (and on one with no finite
    range)."""
    out = {}
    for j in _commandable(art):
        lo, hi = float(art.lower[j]), float(art.upper[j])
        out[art.joint_names[j]] = 0.5 * (lo + hi) if math.isfinite(lo) and math.isfinite(hi) else 0.0
    return out


def randomize(art, rng: np.random.Generator) -> dict[str, float]:
    """A uniform draw within each commandable joint's limits; within ±π on a continuous joint (and on a
    turning one with no finite range), 0 on a sliding one with none."""
    out = {}
    for j in _commandable(art):
        lo, hi = float(art.lower[j]), float(art.upper[j])
        if not (math.isfinite(lo) and math.isfinite(hi)):
            if art.joint_type[j] == PRISMATIC:
                lo = hi = 0.0
            else:  # a whole turn, then within whichever bound the joint has
                lo, hi = max(lo, -math.pi), min(hi, math.pi)
        out[art.joint_names[j]] = float(rng.uniform(lo, hi)) if hi > lo else lo
    return out


# -- a pose of a built rig -----------------------------------------------------------------------------
def _sliding(built, segment: str, joint: str) -> bool:
    art = built.articulation(segment)
    return bool(art.joint_type[art.joint_index(joint)] == PRISMATIC)


def positions_of(built, pose: Pose) -> dict[str, dict[str, float]]:
    """The radians and metres of a pose of ``built``'s rig (a valid one), by segment and joint."""
    return {segment: {joint: pose.position(segment, joint, _sliding(built, segment, joint))
                      for joint in joints} for segment, joints in pose.values.items()}


def pose_of(built, positions: Mapping[str, Mapping[str, float]], unit: str = DEFAULT_UNIT) -> Pose:
    """A pose of ``positions`` (``{segment: {joint: radians or metres}}``) written in ``unit``."""
    angle, length = unit.split("|") if unit in POSE_UNITS else (None, None)
    if angle is None:
        raise ValueError(f"a pose's unit is one of {', '.join(POSE_UNITS)}, got {unit!r}")
    return Pose({segment: {joint: written(float(v), length if _sliding(built, segment, joint) else angle)
                           for joint, v in joints.items()} for segment, joints in positions.items()}, unit)


# -- a pose as a command file ------------------------------------------------------------------------
def pose_commands(rig, built, name: str, duration: float, dt: float):
    """The pose ``name`` of ``rig`` as a held command file (a
    :class:`~mime_gui.nodes.commands.RecordedCommands`, radians and metres): a column ``<segment>.<joint>``
    per value of the pose; row 0, at time 0, holds where the rig starts (its initial positions), and the
    rows every ``dt`` from ``dt`` to ``duration`` hold the pose. Played at ``dt``, the rig starts where it
    would, goes to the pose through each segment's servo and holds it for ``duration`` seconds."""
    from mime_gui.nodes.commands import RecordedCommands

    if name not in rig.poses:
        raise KeyError(f"no pose {name!r}; poses: {', '.join(rig.poses) or '(none)'}")
    if not (math.isfinite(dt) and dt > 0 and math.isfinite(duration) and duration >= dt):
        raise ValueError(f"the step must be positive and the hold at least one step, got dt={dt} s, "
                         f"hold={duration} s")
    positions = positions_of(built, rig.poses[name])
    names = tuple(f"{s}.{j}" for s, joints in positions.items() for j in joints)
    start = dict(zip(built.command_names, built.initial_commands(), strict=True))
    steps = int(round(duration / dt))
    values = np.empty((steps + 1, len(names)))
    values[0] = [start[n] for n in names]
    values[1:] = [v for joints in positions.values() for v in joints.values()]
    time = dt * np.arange(steps + 1)
    for a in (time, values):
        a.setflags(write=False)
    return RecordedCommands(f"pose {name}", time, names, values, ("",) * len(names),
                            np.zeros(len(time), dtype=int))


__all__ = ["ANGLE_UNITS", "DEFAULT_UNIT", "LENGTH_UNITS", "POSE_UNITS", "Pose", "centre", "pose_commands",
           "pose_of", "positions_of", "randomize", "written"]
