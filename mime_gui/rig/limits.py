"""The description's effort and velocity limits checked along a trajectory.

Each run of consecutive steps where a joint's ``|τ|`` exceeds its effort limit (``torque.effort``) or its
``|v|`` its velocity limit (``torque.velocity``) is one :class:`Excess`: the joint, the time the run starts,
the time of its worst step and the margin there (``limit − |value|``, negative). A limit that is not a
positive finite number (missing, or ``0`` as many descriptions write for "not given") checks nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mime_gui.multibody.errors import printable

EFFORT = "torque.effort"
VELOCITY = "torque.velocity"
_WHAT = {EFFORT: ("|τ|", "effort limit"), VELOCITY: ("|v|", "velocity limit")}


@dataclass(frozen=True)
class Excess:
    code: str
    joint: str  # <segment>.<joint>
    step: int  # first step of the run
    time: float  # its time (s)
    peak_step: int
    peak_time: float
    value: float  # |τ| or |v| at the peak
    limit: float
    margin: float  # limit − value at the peak (< 0)
    steps: int  # length of the run
    unit: str

    def __str__(self) -> str:
        sym, what = _WHAT[self.code]
        return printable(f"warning[{self.code}] {self.joint}: from t={self.time:.6g} s (step {self.step}, "
                         f"{self.steps} step{'s' if self.steps != 1 else ''}) {sym} exceeds the {what} "
                         f"{self.limit:.6g} {self.unit}; worst at t={self.peak_time:.6g} s: {sym} = "
                         f"{self.value:.6g} {self.unit}, margin {self.margin:.6g} {self.unit}")

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _runs(over: np.ndarray) -> list[tuple[int, int]]:
    """``[start, stop)`` of each run of True in a 1-D boolean array."""
    edges = np.diff(np.concatenate([[0], over.astype(np.int8), [0]]))
    return list(zip(np.flatnonzero(edges == 1).tolist(), np.flatnonzero(edges == -1).tolist(), strict=True))


def excesses(joint_names, time, torques, velocities, effort_limits, velocity_limits,
             units=None) -> list[Excess]:
    """Every excess of the effort and velocity limits, joint by joint, in time order within a joint.
    ``units``: per joint ``(torque unit, velocity unit)`` (default N·m and rad/s)."""
    out: list[Excess] = []
    for j, name in enumerate(joint_names):
        tu, vu = ("N·m", "rad/s") if units is None else units[j]
        for code, values, limit, unit in ((EFFORT, torques[:, j], effort_limits[j], tu),
                                          (VELOCITY, velocities[:, j], velocity_limits[j], vu)):
            limit = float(limit)
            if not (np.isfinite(limit) and limit > 0):
                continue
            size = np.abs(values)
            for start, stop in _runs(size > limit):
                peak = start + int(np.argmax(size[start:stop]))
                out.append(Excess(code, name, start, float(time[start]), peak, float(time[peak]),
                                  float(size[peak]), limit, limit - float(size[peak]), stop - start, unit))
    return out
