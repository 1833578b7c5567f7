"""The description's effort and velocity limits checked along a trajectory.

Each run of consecutive steps where a joint's ``|τ|`` exceeds its effort limit (``torque.effort``) or its
``|v|`` its velocity limit (``torque.velocity``) is one :class:`Excess`: the joint, the time the run starts,
the time of its worst step and the margin there (``limit − |value|``, negative). A limit that is not a
positive finite number (missing, or ``0`` as many descriptions write for "not given") checks nothing.

:func:`demands` sums a trajectory up joint by joint, to size the motors by: the peak ``|τ|`` and when, the RMS
torque, the peak ``|v|``, each beside its limit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mime_gui.multibody.errors import printable

EFFORT = "torque.effort"
VELOCITY = "torque.velocity"
MAGNETS = "torque.magnets"
_WHAT = {EFFORT: ("|τ|", "effort limit"), VELOCITY: ("|v|", "velocity limit"),
         MAGNETS: ("|τ|", "effort limit")}
#: what a kind of excess adds after the limit
_WHY = {MAGNETS: " with the magnets' pull on each other (within it without)"}


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
                         f"{self.limit:.6g} {self.unit}{_WHY.get(self.code, '')}; worst at "
                         f"t={self.peak_time:.6g} s: {sym} = {self.value:.6g} {self.unit}, margin "
                         f"{self.margin:.6g} {self.unit}")

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


def magnet_excesses(joint_names, time, torques, magnet_torques, effort_limits, units=None) -> list[Excess]:
    """Each run of steps where the magnets' pull on each other (``magnet_torques``, included in
    ``torques``) takes a joint's ``|τ|`` past its effort limit while ``|τ − magnet share|`` is within it
    (``torque.magnets``): the pull, not the motion, asks more than the motor gives."""
    out: list[Excess] = []
    torques, magnet_torques = np.asarray(torques, dtype=float), np.asarray(magnet_torques, dtype=float)
    for j, name in enumerate(joint_names):
        limit = float(effort_limits[j])
        if not (np.isfinite(limit) and limit > 0):
            continue
        size = np.abs(torques[:, j])
        for start, stop in _runs((size > limit) & (np.abs(torques[:, j] - magnet_torques[:, j]) <= limit)):
            peak = start + int(np.argmax(size[start:stop]))
            out.append(Excess(MAGNETS, name, start, float(time[start]), peak, float(time[peak]),
                              float(size[peak]), limit, limit - float(size[peak]), stop - start,
                              "N·m" if units is None else units[j][0]))
    return out


@dataclass(frozen=True)
class Demand:
    """What a trajectory asks of one joint, to size its motor by: the largest ``|τ|`` and when, the RMS
    torque over the trajectory (time-weighted; what a motor's continuous rating is held against), the
    largest ``|v|``, and each as a share of the description's limit (NaN where it gives none)."""

    joint: str  # <segment>.<joint>
    peak: float  # largest |τ|
    peak_time: float
    rms: float
    effort_limit: float
    speed: float  # largest |v|
    velocity_limit: float
    unit: str  # N·m, or N on a sliding joint
    velocity_unit: str

    @property
    def effort_share(self) -> float:
        """``peak / effort limit`` (1.0: at the limit); NaN without a limit."""
        return _share(self.peak, self.effort_limit)

    @property
    def velocity_share(self) -> float:
        return _share(self.speed, self.velocity_limit)

    def __str__(self) -> str:
        def of(share, limit, unit):
            return f" ({_percent(share)} % of {limit:.6g} {unit})" if math.isfinite(share) else ""

        return printable(f"{self.joint}: peak |τ| {self.peak:.6g} {self.unit} at t={self.peak_time:.6g} s"
                         f"{of(self.effort_share, self.effort_limit, self.unit)}, RMS {self.rms:.6g} "
                         f"{self.unit}; peak |v| {self.speed:.6g} {self.velocity_unit}"
                         f"{of(self.velocity_share, self.velocity_limit, self.velocity_unit)}")


def unit_pairs(effort_units) -> list[tuple[str, str]]:
    """``(torque unit, velocity unit)`` per joint from each joint's effort unit (``N`` on a sliding joint,
    whose velocity is in m/s)."""
    return [(u, "m/s" if u == "N" else "rad/s") for u in effort_units]


def _percent(share: float) -> str:
    """``share`` in whole percent, or in three figures from a million percent up (not a number of 300 digits
    for a trajectory far beyond its limits, nor ``inf`` where only the percent overflows)."""
    if 100 * share < 1e6:
        return f"{100 * share:.0f}"
    exponent = math.floor(math.log10(share))
    mantissa = round(share / 10.0**exponent, 2)
    if mantissa >= 10.0:  # 9.995… rounds up to the next power of ten
        mantissa, exponent = mantissa / 10.0, exponent + 1
    return f"{mantissa:g}e+{exponent + 2:02d}"


def _share(value: float, limit: float) -> float:
    return value / limit if math.isfinite(limit) and limit > 0 else math.nan


def demands(joint_names, time, torques, velocities, effort_limits, velocity_limits,
            units=None) -> list[Demand]:
    """Each joint's :class:`Demand` along ``time (T,)`` (empty when there are no steps). A step's weight in
    the RMS is its length (the time since the step before; the first step weighs as the second)."""
    time = np.asarray(time, dtype=float)
    if not len(time):
        return []
    tau = np.abs(np.asarray(torques, dtype=float))
    speed = np.abs(np.asarray(velocities, dtype=float))
    weight = np.diff(time, prepend=time[0] - (time[1] - time[0] if len(time) > 1 else 1.0))
    weight = weight / weight.sum() if weight.sum() > 0 else np.full(len(time), 1.0 / len(time))
    # scaled by each joint's peak, so torques beyond 1e154 still have an RMS (their squares would overflow)
    peak = tau.max(axis=0)
    scale = np.where(np.isfinite(peak) & (peak > 0), peak, 1.0)
    rms = scale * np.sqrt(weight @ (tau / scale) ** 2)
    rows = np.argmax(tau, axis=0)
    out = []
    for j, name in enumerate(joint_names):
        tu, vu = ("N·m", "rad/s") if units is None else units[j]
        out.append(Demand(name, float(tau[rows[j], j]), float(time[rows[j]]), float(rms[j]),
                          float(effort_limits[j]), float(speed[:, j].max()), float(velocity_limits[j]),
                          tu, vu))
    return out
