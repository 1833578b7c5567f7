"""Whether a sample that follows the field keeps up with it: its step-out frequency along a trajectory.

**Model.** A sample of moment ``|m|`` turned by a field ``B`` against a rotational drag ``ζ`` (N·m·s, the
torque its fluid opposes per angular speed; inertia neglected, as at the low Reynolds numbers of
microrobots) lags the field by the angle ``φ`` where the magnetic torque ``|m||B| sin φ`` balances the drag
``ζ·2πf`` of turning at the field's frequency ``f``. A steady lag exists while ``2πfζ ≤ |m||B|``: the
largest torque a dipole feels, ``τ_max = |m|·|B|``, sets the **step-out frequency**
``f_so = |m||B| / (2π ζ)``. Above it the sample slips behind the field and its mean rotation falls.

**Along a trajectory** ``f_so`` is taken at every step from |B| at the sample (the field of every magnet of
the rig, :func:`~mime_gui.field.samples.forces_along`), for each sample that declares a drag. The frequency
asked of it is, at each step where the field at the sample turns (its direction changes between steps by
more than :data:`TURNING` rad), either

- the spin profiles of a trajectory of the rig (:class:`~mime_gui.rig.trajectories.Spin`): the largest
  turning frequency of a spin, at the time of the command the step holds, on a segment that carries a magnet
  (one on its frames, or on a segment riding on it); or
- without a trajectory's spins (a command file), the rotating-field summary's frequency at the sample
  (:func:`~mime_gui.field.summary.rotating_summary`), the same at every turning step.

Where the frequency asked exceeds ``f_so`` (strictly) a ``field.step-out`` finding names the sample, the
first and last time, and the worst step's frequency asked and available.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from mime_gui.field.summary import rotating_summary
from mime_gui.rig.findings import Finding
from mime_gui.rig.units import Quantity

#: the turn of B's direction between steps (rad) below which the field at a sample stands still
TURNING = 1e-9


@dataclass(frozen=True, eq=False)
class StepOut:
    """``time (T,)`` s; per step and sample of ``sample_names``: ``available (T, S)`` the step-out frequency
    ``|m||B|/(2π ζ)`` (Hz; NaN for a sample without a drag), ``needed (T, S)`` the frequency asked (Hz; 0
    where the field there stands still, NaN without a drag), ``behind (T, S)`` where needed exceeds
    available; ``asked_by`` says where each sample's needed frequency comes from (``spin``, ``field`` or
    ``""`` without a drag); ``findings``: one ``field.step-out`` per sample that falls behind."""

    time: np.ndarray
    sample_names: tuple[str, ...]
    available: np.ndarray
    needed: np.ndarray
    behind: np.ndarray
    asked_by: tuple[str, ...]
    findings: list[Finding] = field(default_factory=list)


def turning(B: np.ndarray) -> np.ndarray:
    """``(T, S)``: where the direction of ``B (T, S, 3)`` turns by more than :data:`TURNING` from the step
    before or to the step after."""
    norm = np.linalg.norm(B, axis=-1, keepdims=True)
    d = np.divide(B, norm, out=np.zeros_like(B), where=norm > 0)
    # the angle between neighbours, by atan2 of |cross| and dot: exact for small angles too
    cross = np.linalg.norm(np.cross(d[1:], d[:-1]), axis=-1)
    angle = np.arctan2(cross, np.sum(d[1:] * d[:-1], axis=-1))  # (T-1, S)
    out = np.zeros(B.shape[:2], dtype=bool)
    out[1:] |= angle > TURNING
    out[:-1] |= angle > TURNING
    return out


def _carriers(built) -> set[str]:
    """Segments that carry a magnet: one on their own frames, or on a segment riding on them."""
    carrying = {m.mount.split(".", 1)[0] for m in built.apparatus.magnets.values() if m.mount}
    for name in reversed(list(built.segments)):  # riders come after what they ride on
        mount = built.segments[name].mount
        if name in carrying and mount is not None:
            carrying.add(mount[0])
    return carrying


def spin_hertz(built, trajectory, times: np.ndarray) -> np.ndarray:
    """``(T,)``: the largest |turning frequency| (Hz) at ``times`` (s from the trajectory's start) of the
    spins of ``trajectory`` (a rig :class:`~mime_gui.rig.trajectories.Trajectory` or the name of one of the
    rig's) on segments that carry a magnet. A spin starts at the keyframe before its own (0 s for a first
    keyframe)."""
    from mime_gui.rig.trajectories import _resolve

    _, trajectory = _resolve(built, trajectory)
    carriers = _carriers(built)
    out = np.zeros(len(times))
    for seg, keys in trajectory.segments.items():
        if seg not in carriers:
            continue
        for i, key in enumerate(keys):
            if key.interpolation == "spin" and key.spin is not None:
                begin = keys[i - 1].time if i else 0.0
                out = np.maximum(out, np.abs(key.spin.hertz_at(np.asarray(times) - begin)))
    return out


def step_out(built, trajectory, forces=None, spins=None, start: float = 0.0) -> StepOut:
    """The step-out frequency of every sample with a drag at every step of ``trajectory`` (a played
    trajectory of ``built``), against the frequency asked of it: the spins of ``spins`` (a rig trajectory, or
    the name of one, that ``trajectory`` plays from 0 s), or the rotating-field summary at the sample when
    None. ``forces`` is :func:`~mime_gui.field.samples.forces_along` of the same trajectory (computed when
    not given)."""
    if forces is None:
        from mime_gui.field.samples import forces_along

        forces = forces_along(built, trajectory, start=start)
    samples = built.apparatus.samples
    names = tuple(forces.sample_names)
    T, S = len(forces.time), len(names)
    drag = np.array([samples[n].drag.value if isinstance(samples[n].drag, Quantity) else math.nan
                     for n in names], dtype=float)
    size = np.linalg.norm(forces.moment, axis=-1) * np.linalg.norm(forces.B, axis=-1)  # τ_max (T, S)
    with np.errstate(divide="ignore", invalid="ignore"):
        available = size / (2 * math.pi * drag)
    moving = turning(forces.B) if T else np.zeros((0, S), dtype=bool)
    has_drag = np.isfinite(drag)
    if spins is not None:
        # the command a step holds was sampled one step before the step's end (Schedule: step n holds
        # commands[n] from start + n·dt)
        asked = spin_hertz(built, spins, forces.time - start - trajectory.dt)[:, None] * np.ones(S)
        source = "spin"
    else:
        summary = rotating_summary(forces.time, forces.B) if S else []
        asked = np.array([0.0 if not math.isfinite(s.frequency) else s.frequency for s in summary]) \
            * np.ones((T, 1))
        source = "field"
    needed = np.where(moving, asked, 0.0)
    needed[:, ~has_drag] = math.nan
    available[:, ~has_drag] = math.nan
    behind = needed > available  # strictly: a field turning exactly at f_so is followed
    findings = []
    for s in np.flatnonzero(behind.any(axis=0)):
        hit = np.flatnonzero(behind[:, s])
        with np.errstate(divide="ignore"):  # no field at all there: infinitely behind
            worst = hit[np.argmax(needed[hit, s] / available[hit, s])]
        q = samples[names[s]].drag
        time = forces.time
        by = "the spin" if source == "spin" else "the field at the sample"
        findings.append(Finding(
            "field.step-out", f"samples.{names[s]}",
            f"the field turns faster than the sample can follow at {len(hit)} of {T} steps, from t = "
            f"{time[hit[0]]:g} s to {time[hit[-1]]:g} s; worst at t = {time[worst]:g} s: "
            f"{needed[worst, s]:.4g} Hz needed ({by}), {available[worst, s]:.4g} Hz available (|m| "
            f"{np.linalg.norm(forces.moment[worst, s]):.4g} "
            f"A·m², |B| {np.linalg.norm(forces.B[worst, s]) * 1e3:.4g} mT, drag {q.value:g} N·m·s: "
            f"{q.reason}); turn the field slower, or make it stronger at the sample"))
    asked_by = tuple(source if d else "" for d in has_drag)
    return StepOut(forces.time, names, available, needed, behind, asked_by, findings)


__all__ = ["TURNING", "StepOut", "spin_hertz", "step_out", "turning"]
