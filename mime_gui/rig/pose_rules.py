"""The rules a rig's named poses must satisfy (``pose.*``), checked by :func:`mime_gui.rig.rules.analyse`.

A pose has a name a person can pick it by (``pose.name``); it names segments of the chain
(``pose.segment``) and their commandable joints, not a fixed joint nor a mimic follower, which follows its
master (``pose.joint``); a value written in a unit of its own is of the joint's kind (``pose.unit``); and
each value is finite and within the joint's limits (``pose.limits``), the message saying by how much in the
unit the pose writes it in, so the fix is one number in the file.
"""

from __future__ import annotations

import math

from mime_gui.rig.names import RULE, good_name, shown
from mime_gui.rig.poses import ANGLE_UNITS, UNIT_FACTORS, Pose

_TURNING = ("revolute", "continuous")
_SLIDING = ("prismatic",)


def _listing(names) -> str:
    names = list(names)
    return ", ".join(names[:16]) + (f" … ({len(names) - 16} more)" if len(names) > 16 else "") if names \
        else "(none)"


def _check_names(rig, a) -> None:
    seen: dict[str, str] = {}
    for name in rig.poses:
        where = f"poses.{name}"
        if not good_name(name):
            a.add("pose.name", where, f"{shown(name)} is not a valid pose name: use {RULE}")
            continue
        other = seen.setdefault(name.casefold(), name)
        if other != name:  # a pose is picked by its name, typed or read from a list
            a.add("pose.name", where, f"{name!r} differs from the pose {other!r} only in case; rename one")


def _fmt(x: float) -> str:
    return f"{x:.6g}"


def _check_value(where: str, pose: Pose, segment: str, joint, value: float, a) -> None:
    sliding = joint.type in _SLIDING
    own = pose.units.get(segment, {}).get(joint.name)
    if own is not None and (own in ANGLE_UNITS) == sliding:
        kind = "slides; give it in m or mm" if sliding else "turns; give it in rad or deg"
        a.add("pose.unit", where, f"{segment}.{joint.name} {kind}, not {own}")
        return
    unit = pose.unit_of(segment, joint.name, sliding)
    shown, value = value, pose.position(segment, joint.name, sliding)  # as written, and in rad or m
    if not math.isfinite(value):
        a.add("pose.limits", where, f"the position of {segment}.{joint.name} must be finite, got {shown} "
                                    f"{unit}")
        return
    limit = joint.limit
    if joint.type == "continuous" or limit is None:
        return
    factor = UNIT_FACTORS[unit]
    lo, hi = limit.lower / factor, limit.upper / factor
    if value < limit.lower:
        by = f"{_fmt(lo - value / factor)} {unit} below its lower limit {_fmt(lo)} {unit}"
    elif value > limit.upper:
        by = f"{_fmt(value / factor - hi)} {unit} above its upper limit {_fmt(hi)} {unit}"
    else:
        return
    a.add("pose.limits", where, f"{segment}.{joint.name} = {shown:.6g} {unit} is {by}; bring it within "
                                f"[{_fmt(lo)}, {_fmt(hi)}] {unit}")


def check_poses(rig, a) -> None:
    """Add a finding to the analysis ``a`` for every pose rule broken."""
    _check_names(rig, a)
    for name, pose in rig.poses.items():
        for segment, joints in pose.values.items():
            where = f"poses.{name}.{segment}"
            if segment not in rig.chain:
                a.add("pose.segment", where, f"the pose {name!r} names {segment!r}, which is no segment of "
                                             f"the chain; segments: {_listing(rig.chain)}")
                continue
            tree = a.trees.get(segment)
            if tree is None:
                continue  # the segment's description failed; that finding says why
            commandable = [j.name for j in tree.joints.values()
                           if j.type in (*_TURNING, *_SLIDING) and j.mimic is None]
            for joint_name, value in joints.items():
                w = f"{where}.{joint_name}"
                joint = tree.joints.get(joint_name)
                if joint is not None and joint.mimic is not None:
                    a.add("pose.joint", w, f"{segment}.{joint_name} follows {segment}.{joint.mimic.joint} "
                                           f"(mimic); give {joint.mimic.joint!r} instead and it follows")
                elif joint is None or joint.type not in (*_TURNING, *_SLIDING):
                    what = f"a {joint.type} joint" if joint is not None else "no joint"
                    a.add("pose.joint", w, f"{joint_name!r} is {what} of {segment!r}; a pose gives positions "
                                           f"to its commandable joints: {_listing(commandable)}")
                else:
                    _check_value(w, pose, segment, joint, value, a)


__all__ = ["check_poses"]
