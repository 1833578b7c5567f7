"""The rules a rig's trajectories must satisfy (``trajectory.*``), checked by
:func:`mime_gui.rig.rules.analyse`.

A trajectory has a name a person can pick it by (``trajectory.name``); its keyframes are given for segments of
the chain (``trajectory.segment``) and name their commandable joints (``trajectory.joint``), at times that are
finite, from 0 s up to 1e9 s and increasing (``trajectory.time``), with values finite and within the joints'
limits (``trajectory.value``), a named pose that exists and gives the segment positions (``trajectory.pose``),
an interpolation of :data:`~mime_gui.rig.trajectories.INTERPOLATIONS` (``trajectory.interpolation``), a frame
of the segment on a line and on a line only (``trajectory.frame``), and a spin on a segment with one turning
joint, whose profile is finite and ends by its keyframe (``trajectory.spin``). Acceleration limits are
positive, finite, in a unit of their joints' kind (``trajectory.limits``) and say where they come from
(``declaration.reason``). Each message says what to write instead, so the fix is one value in the file.

What depends on the motion itself (a joint beyond its velocity or acceleration limit, a line leaving the
reachable space) is found by :func:`mime_gui.rig.trajectories.check` and
:func:`~mime_gui.rig.trajectories.fit_to_limits` (``trajectory.speed``, ``trajectory.reach``).
"""

from __future__ import annotations

import math

from mime_gui.rig.names import RULE, good_name, shown
from mime_gui.rig.poses import UNIT_FACTORS
from mime_gui.rig.trajectories import (
    ACCELERATION_UNITS,
    EVERY_JOINT,
    FREQUENCY_UNITS,
    INTERPOLATIONS,
    LENGTH_ACCELERATIONS,
)

_TURNING = ("revolute", "continuous")
_SLIDING = ("prismatic",)
MAX_TIME = 1e9  # as a command file's times
MAX_FREQUENCY = 1e6  # Hz: far beyond any motor, and a step that could sample it


def _listing(names) -> str:
    names = list(names)
    return ", ".join(names[:16]) + (f" … ({len(names) - 16} more)" if len(names) > 16 else "") if names \
        else "(none)"


def _fmt(x: float) -> str:
    return f"{x:.6g}"


def _check_names(rig, a) -> None:
    seen: dict[str, str] = {}
    for name in rig.trajectories:
        where = f"trajectories.{name}"
        if not good_name(name):
            a.add("trajectory.name", where, f"{shown(name)} is not a valid trajectory name: use {RULE}")
            continue
        other = seen.setdefault(name.casefold(), name)
        if other != name:
            a.add("trajectory.name", where, f"{name!r} differs from the trajectory {other!r} only in case; "
                                            "rename one")


def _commandable(tree) -> dict:
    return {n: j for n, j in tree.joints.items() if j.type in (*_TURNING, *_SLIDING) and j.mimic is None}


def _joint_problem(tree, segment: str, joint_name: str, what: str) -> str | None:
    joint = tree.joints.get(joint_name)
    if joint is not None and joint.mimic is not None:
        return f"{segment}.{joint_name} follows {segment}.{joint.mimic.joint} (mimic); give " \
               f"{joint.mimic.joint!r} instead and it follows"
    if joint is None or joint.type not in (*_TURNING, *_SLIDING):
        kind = f"a {joint.type} joint" if joint is not None else "no joint"
        return f"{joint_name!r} is {kind} of {segment!r}; {what} its commandable joints: " \
               f"{_listing(_commandable(tree))}"
    return None


def _check_value(where: str, unit: str, segment: str, joint, value: float, a) -> None:
    sliding = joint.type in _SLIDING
    angle, length = unit.split("|")
    u = length if sliding else angle
    si = value * UNIT_FACTORS[u]
    if not math.isfinite(si):
        a.add("trajectory.value", where, f"the position of {segment}.{joint.name} must be finite, got "
                                         f"{value} {u}")
        return
    limit = joint.limit
    if joint.type == "continuous" or limit is None:
        return
    factor = UNIT_FACTORS[u]
    lo, hi = limit.lower / factor, limit.upper / factor
    if si < limit.lower:
        by = f"{_fmt(lo - value)} {u} below its lower limit {_fmt(lo)} {u}"
    elif si > limit.upper:
        by = f"{_fmt(value - hi)} {u} above its upper limit {_fmt(hi)} {u}"
    else:
        return
    a.add("trajectory.value", where, f"{segment}.{joint.name} = {value:.6g} {u} is {by}; bring it within "
                                     f"[{_fmt(lo)}, {_fmt(hi)}] {u}")


def _check_spin(where: str, key, previous_time, turning: bool, a) -> None:
    spin = key.spin
    if spin is None:
        a.add("trajectory.spin", where, "a spin interval needs its profile: spin {frequency, ramp, hold or "
                                        "turns}")
        return
    if not turning:
        a.add("trajectory.spin", where, "a spin turns the one joint of a motor (or of a segment with one "
                                        "turning joint); interpolate this segment's joints instead")
    if key.values or key.pose is not None:
        a.add("trajectory.spin", where, "a spin's keyframe takes its angle from the spin; remove its values "
                                        "and pose")
    if spin.unit not in FREQUENCY_UNITS:
        units = " or ".join(FREQUENCY_UNITS)
        a.add("trajectory.spin", f"{where}.spin.frequency", f"a spin's frequency is in {units}, got "
                                                            f"{spin.unit!r}")
        return
    hz = abs(spin.hertz)
    if not (math.isfinite(hz) and 0 < hz <= MAX_FREQUENCY):
        a.add("trajectory.spin", f"{where}.spin.frequency", f"a spin's frequency must be finite, not zero "
                                                            f"and within ±{MAX_FREQUENCY:g} Hz, got "
                                                            f"{spin.frequency} {spin.unit}")
        return
    if not (math.isfinite(spin.ramp) and 0 <= spin.ramp <= MAX_TIME):
        a.add("trajectory.spin", f"{where}.spin.ramp", f"a spin's ramp must be finite, from 0 to "
                                                       f"{MAX_TIME:g} s, got {spin.ramp} s")
        return
    if (spin.hold is None) == (spin.turns is None):
        a.add("trajectory.spin", f"{where}.spin", "a spin holds its speed for a time (hold) or a number of "
                                                  "turns (turns): give one of them")
        return
    held, what = (spin.hold, "hold (s)") if spin.hold is not None else (spin.turns, "turns")
    if not (math.isfinite(held) and held >= 0 and spin.hold_time <= MAX_TIME):
        a.add("trajectory.spin", f"{where}.spin.{what.split()[0]}", f"a spin's {what} must be finite and not "
                                                                    f"negative, up to {MAX_TIME:g} s, got "
                                                                    f"{held}")
        return
    if previous_time is not None and math.isfinite(previous_time) and math.isfinite(key.time):
        end = previous_time + spin.duration
        if key.time < end * (1.0 - 1e-12):
            a.add("trajectory.spin", f"{where}.time",
                  f"the spin starts at {_fmt(previous_time)} s and takes {_fmt(spin.duration)} s, so its "
                  f"keyframe at {_fmt(key.time)} s comes before it ends; move it to {_fmt(end)} s or later")


def _check_keyframes(name: str, trajectory, segment: str, keys, tree, frames, rig, a) -> None:
    base = f"trajectories.{name}.segments.{segment}"
    commandable = _commandable(tree)
    turning = [j for j in commandable.values() if j.type in _TURNING]
    one_turning = len(commandable) == 1 and len(turning) == 1
    previous = 0.0  # each segment starts at 0 s
    for i, key in enumerate(keys):
        where = f"{base}.{i}"
        t = key.time
        if not (math.isfinite(t) and 0 <= t <= MAX_TIME):
            a.add("trajectory.time", f"{where}.time", f"a keyframe's time must be finite, from 0 to "
                                                      f"{MAX_TIME:g} s, got {t} s")
        elif i > 0 and math.isfinite(keys[i - 1].time) and t <= keys[i - 1].time:
            a.add("trajectory.time", f"{where}.time", f"the keyframe at {_fmt(t)} s is not after the one "
                                                      f"before it ({_fmt(keys[i - 1].time)} s); keyframes "
                                                      "are in increasing time")
        kind = key.interpolation
        if kind not in INTERPOLATIONS:
            a.add("trajectory.interpolation", f"{where}.interpolation",
                  f"unknown interpolation {kind!r}; interpolations: {', '.join(INTERPOLATIONS)}")
        if kind == "line":
            if key.frame is None:
                a.add("trajectory.frame", where, f"a line moves a frame of {segment!r} on a straight line: "
                                                 "name it (frame)")
            elif key.frame not in frames:
                a.add("trajectory.frame", f"{where}.frame", f"{key.frame!r} is not a frame of {segment!r}; "
                                                            f"frames: {_listing(frames)}")
        elif key.frame is not None:
            a.add("trajectory.frame", f"{where}.frame", f"a frame goes with the interpolation 'line', not "
                                                        f"{kind!r}; remove it or make the interval a line")
        if kind == "spin":
            _check_spin(where, key, previous if i > 0 or t > 0 else None, one_turning, a)
        elif key.spin is not None:
            a.add("trajectory.spin", f"{where}.spin", f"a spin profile goes with the interpolation 'spin', "
                                                      f"not {kind!r}; remove it or make the interval a spin")
        previous = t
        if key.pose is not None:
            pose = rig.poses.get(key.pose)
            if pose is None:
                a.add("trajectory.pose", f"{where}.pose", f"no pose {key.pose!r}; poses: "
                                                          f"{_listing(rig.poses)}")
            elif not pose.values.get(segment):
                a.add("trajectory.pose", f"{where}.pose", f"the pose {key.pose!r} gives no position of "
                                                          f"{segment!r}; it gives {_listing(pose.values)}")
        for joint_name, value in key.values.items():
            w = f"{where}.values.{joint_name}"
            problem = _joint_problem(tree, segment, joint_name, "a keyframe gives positions to")
            if problem:
                a.add("trajectory.joint", w, problem)
            else:
                _check_value(w, trajectory.unit, segment, tree.joints[joint_name], value, a)


def _check_limits(name: str, trajectory, rig, a) -> None:
    for segment, joints in trajectory.acceleration_limits.items():
        base = f"trajectories.{name}.acceleration_limits.{segment}"
        if segment not in rig.chain:
            a.add("trajectory.segment", base, f"{segment!r} is no segment of the chain; segments: "
                                              f"{_listing(rig.chain)}")
            continue
        tree = a.trees.get(segment)
        for joint_name, limit in joints.items():
            where = f"{base}.{joint_name}"
            if not limit.reason or not limit.reason.strip():
                a.add("declaration.reason", where, "an acceleration limit says where it comes from: give its "
                                                   "reason (a datasheet, a measurement, a safety margin)")
            if limit.unit not in ACCELERATION_UNITS:
                a.add("trajectory.limits", where, f"unknown unit {limit.unit!r}; acceleration units: "
                                                  f"{', '.join(ACCELERATION_UNITS)}")
                continue
            if not (math.isfinite(limit.value) and limit.value > 0):
                a.add("trajectory.limits", where, f"an acceleration limit is a finite positive number, got "
                                                  f"{limit.value} {limit.unit}")
            if tree is None or joint_name == EVERY_JOINT:
                continue
            problem = _joint_problem(tree, segment, joint_name, "acceleration limits are given to")
            if problem:
                a.add("trajectory.joint", where, problem)
                continue
            sliding = tree.joints[joint_name].type in _SLIDING
            if sliding != (limit.unit in LENGTH_ACCELERATIONS):
                a.add("trajectory.limits", where, f"{segment}.{joint_name} "
                                                  + ("slides; give it in m/s2 or mm/s2" if sliding else
                                                     "turns; give it in rad/s2 or deg/s2")
                                                  + f", not {limit.unit}")


def check_trajectories(rig, a) -> None:
    """Add a finding to the analysis ``a`` for every trajectory rule broken."""
    _check_names(rig, a)
    for name, trajectory in rig.trajectories.items():
        for segment, keys in trajectory.segments.items():
            where = f"trajectories.{name}.segments.{segment}"
            if segment not in rig.chain:
                a.add("trajectory.segment", where, f"the trajectory {name!r} names {segment!r}, which is no "
                                                   f"segment of the chain; segments: {_listing(rig.chain)}")
                continue
            tree = a.trees.get(segment)
            if tree is None:
                continue  # the segment's description failed; that finding says why
            _check_keyframes(name, trajectory, segment, keys, tree, a.frames.get(segment, []), rig, a)
        _check_limits(name, trajectory, rig, a)


__all__ = ["check_trajectories"]
