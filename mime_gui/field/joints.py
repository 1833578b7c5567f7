"""The field the arm's own joints take: |B| at each movable joint's frame along a played trajectory, against
the tolerance its segment declares (``field_tolerance``: what its motors, brakes and magnetic encoders stand).

A joint's frame is its child link's frame (a URDF joint's origin is where its child link's frame sits; a
motor's ``shaft`` is at its ``rotor`` frame's origin). Every joint of every segment that declares a tolerance
is one point with a path of ``T`` positions; B comes from one Magpylib call per chunk of steps, as
:func:`~mime_gui.field.along.field_along` computes it at probes: no Python loop over steps. A joint whose
|B| exceeds its segment's tolerance (strictly) at some step gets one ``field.joint`` finding, naming the
first and last time, the number of steps and the worst |B| and when. A joint frame inside a magnet reads
the field inside it, of the order of its remanence (the magnet sits on the joint).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mime_gui.field.along import _chunks, field_at
from mime_gui.field.errors import FieldError
from mime_gui.field.sources import magnet_sources
from mime_gui.rig.findings import Finding
from mime_gui.rig.units import Quantity


@dataclass(frozen=True, eq=False)
class JointField:
    """``time (T,)`` s; ``joint_names`` as ``<segment>.<joint>``; ``B (T, J)`` |B| (T) at each joint's frame;
    ``tolerance (J,)`` its segment's (T); ``over (T, J)`` where |B| exceeds it; ``findings``: one
    ``field.joint`` per joint over its tolerance."""

    time: np.ndarray
    joint_names: tuple[str, ...]
    B: np.ndarray
    tolerance: np.ndarray
    over: np.ndarray
    findings: list[Finding] = field(default_factory=list)


def joint_frames(built, segments=None) -> tuple[tuple[str, ...], list[int], np.ndarray, list[str]]:
    """``(joint names, frame index of each in built.frame_names, tolerance (J,) T, reasons)`` of the movable
    joints of ``segments`` (None: every segment that declares a field tolerance)."""
    chosen = [n for n, s in built.apparatus.chain.items() if s.field_tolerance is not None] \
        if segments is None else list(segments)
    index = {name: i for i, name in enumerate(built.frame_names)}
    names, frames, tolerance, reasons = [], [], [], []
    for seg in chosen:
        if seg not in built.segments:
            raise FieldError("field.segment", f"{seg!r} is not a segment of the rig; segments: "
                             f"{', '.join(built.segments)}", f"chain.{seg}")
        built_seg = built.segments[seg]
        q = built_seg.segment.field_tolerance
        value = q.value if isinstance(q, Quantity) else np.inf  # none declared: computed, never over
        for joint in built_seg.articulation.joint_names:
            names.append(f"{seg}.{joint}")
            frames.append(index[f"{seg}.{built_seg.tree.joints[joint].child}"])
            tolerance.append(value)
            reasons.append(q.reason if isinstance(q, Quantity) and q.reason else "no reason given")
    return tuple(names), frames, np.array(tolerance, dtype=float), reasons


def joint_bytes(steps: int, magnets: int, joints: int) -> int:
    """About the most memory :func:`joint_field` holds beyond the played poses: per step and joint its
    position, B and |B|; the magnets' poses; one field call's scratch (as :func:`field_bytes` counts it)."""
    from mime_gui.field.along import CALL_OVERHEAD, SCRATCH_PER_TRIPLE

    if joints == 0:
        return 0  # no segment declares a tolerance: nothing is computed
    n, k = _chunks(steps, magnets, joints)
    call = min(steps, n) * magnets * min(joints, k)
    per_step = 8 * (joints * 8 + 16 * magnets) + joints
    return steps * per_step + SCRATCH_PER_TRIPLE * call + CALL_OVERHEAD


def joint_field(built, trajectory, segments=None, start: float = 0.0) -> JointField:
    """|B| at every movable joint's frame of ``segments`` (None: those that declare a field tolerance) at
    every step of ``trajectory`` (a played trajectory of ``built``), and a ``field.joint`` finding per joint
    whose |B| exceeds its segment's tolerance."""
    names, frames, tolerance, reasons = joint_frames(built, segments)
    frame_poses = np.asarray(trajectory.frame_poses, dtype=float)
    T, J = len(frame_poses), len(names)
    time = trajectory.times(start)
    # (T, J, 3): each joint's frame origin (the frames taken first: a list and an index in one subscript
    # would put the list's axis in front)
    points = frame_poses[:, frames][:, :, :3, 3]
    magnets = magnet_sources(built)
    M = len(magnets)
    X = np.stack([m.poses(frame_poses) for m in magnets], axis=1) if magnets else np.zeros((T, 0, 4, 4))
    size = np.zeros((T, J))
    n, k = _chunks(T, M, J)
    for s in range(0, T, n):
        for q in range(0, J, k):
            B = field_at(magnets, X[s:s + n], points[s:s + n, q:q + k]).sum(axis=1)
            size[s:s + n, q:q + k] = np.linalg.norm(B, axis=-1)
    over = size > tolerance  # strictly: a field exactly at the tolerance is within it
    findings = []
    for j in np.flatnonzero(over.any(axis=0)):
        hit = np.flatnonzero(over[:, j])
        worst = hit[np.argmax(size[hit, j])]
        seg, joint = names[j].split(".", 1)
        findings.append(Finding(
            "field.joint", f"chain.{seg}",
            f"|B| at joint {joint!r} exceeds the segment's field tolerance {tolerance[j] * 1e3:g} mT at "
            f"{len(hit)} of {T} steps, from t = {time[hit[0]]:g} s to {time[hit[-1]]:g} s; worst "
            f"{size[worst, j] * 1e3:.4g} mT at t = {time[worst]:g} s ({reasons[j]}); keep the magnets "
            "farther from the joint, or check the tolerance against its motor's and encoder's datasheets"))
    return JointField(time, names, size, tolerance, over, findings)


__all__ = ["JointField", "joint_bytes", "joint_field", "joint_frames"]
