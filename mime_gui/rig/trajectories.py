"""Authored trajectories: keyframes per segment on a timeline, rendered to the command arrays a rig plays.

``Trajectory({"arm": [Keyframe(0, pose="home"), Keyframe(2, pose="over the sample", interpolation="quintic")],
"motor": [Keyframe(2), Keyframe(6, interpolation="spin", spin=Spin(5, "Hz", ramp=0.5, hold=2))]},
unit="deg|m")`` holds what the rig file's ``trajectories`` section writes. A keyframe gives joint positions at
a time: a named pose's values for its segment, then its own ``values`` (in the trajectory's ``unit``, as a
pose's), every joint it does not name keeping the value it had at the keyframe before (the rig's initial
positions before the first one). Each segment starts at 0 s from the rig's initial positions unless its
first keyframe is at 0 s. The ``interpolation`` of a keyframe is that of the interval into it:

- ``linear``: straight in joint space (the corners are steps of velocity the servo smooths);
- ``cubic``: a run of consecutive cubic intervals is one cubic spline through its keyframes, with continuous
  acceleration, clamped at rest at both ends of the run;
- ``quintic``: minimum jerk, rest to rest (zero velocity and acceleration at both keyframes);
- ``hold``: the values before are held through the interval, and the keyframe's taken at its time (a step);
- ``line``: the frame ``frame`` of the segment moves on the straight line between its poses at the two
  keyframes, turning on the shortest rotation (slerp), with minimum-jerk timing along it; the joints come
  from the inverse kinematics at each step (:func:`mime_gui.multibody.inverse_kinematics.solve`);
- ``spin``: a turning joint (a motor's shaft) ramps its speed up to ``spin.frequency`` at a constant
  acceleration over ``spin.ramp`` seconds, holds it for a time or a number of turns, then ramps down; the
  angle is the speed's integral. The spin starts at the keyframe before and the joint rests at the angle
  reached until the keyframe's time.

:func:`render` gives ``(time, commands)``: samples every ``dt`` from 0 s to the end, one column per command
of the built rig (:attr:`~mime_gui.rig.build.BuiltRig.command_names`), the array
:meth:`~mime_gui.rig.build.BuiltRig.play` takes and a command file holds (:func:`trajectory_commands`).
:func:`check` lists where a joint exceeds its velocity limit (the description's) or its acceleration limit
(declared in the trajectory, with a reason), and where a line leaves the reachable space;
:func:`fit_to_limits` stretches the intervals just enough for every joint to keep within both, except
into keyframes marked ``fixed``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass, field, replace
from types import MappingProxyType

import numpy as np

from mime_gui.errors import CodedError
from mime_gui.multibody import PRISMATIC
from mime_gui.rig.findings import Finding
from mime_gui.rig.poses import DEFAULT_UNIT, POSE_UNITS, UNIT_FACTORS

INTERPOLATIONS = ("linear", "cubic", "quintic", "hold", "line", "spin")
#: an acceleration limit's units, with their factor to rad/s² or m/s²
ACCELERATION_UNITS = {"rad/s2": 1.0, "deg/s2": math.pi / 180.0, "m/s2": 1.0, "mm/s2": 1e-3}
LENGTH_ACCELERATIONS = ("m/s2", "mm/s2")
#: a spin's frequency units, with their factor to hertz
FREQUENCY_UNITS = {"Hz": 1.0, "rpm": 1.0 / 60.0}
#: the key of a segment's acceleration limit that holds for every joint not named
EVERY_JOINT = "*"
#: bounds of a rendering: as many samples as ``mime-gui play`` steps, and the arrays' size
MAX_SAMPLES = 5_000_000
MAX_BYTES = 1024 * 2**20
#: how far above a limit a peak may be and still be within it (the rounding of the scaling)
LIMIT_TOLERANCE = 1e-9
#: the inverse kinematics of a line: what it may leave between the frame and the line
LINE_TOLERANCE = 1e-10


class TrajectoryError(CodedError):
    """A rendering refused: ``trajectory.dt``, ``trajectory.too-large``, ``trajectory.unknown``, or a
    trajectory the rig's rules refuse (``trajectory.*``)."""


def _number(x, what: str) -> float:
    if isinstance(x, bool) or not isinstance(x, int | float):
        raise TypeError(f"{what} is a number, got {x!r}")
    return float(x)


def _optional(x, what: str) -> float | None:
    return None if x is None else _number(x, what)


@dataclass(frozen=True)
class Spin:
    """A spin profile: up to ``frequency`` (in ``unit``, ``Hz`` or ``rpm``; negative turns the other way) in
    ``ramp`` seconds, held for ``hold`` seconds or ``turns`` turns (one of them), down in ``ramp`` seconds."""

    frequency: float
    unit: str = "Hz"
    _: KW_ONLY
    ramp: float = 0.0
    hold: float | None = None
    turns: float | None = None

    def __post_init__(self):
        object.__setattr__(self, "frequency", _number(self.frequency, "frequency"))
        object.__setattr__(self, "ramp", _number(self.ramp, "ramp"))
        object.__setattr__(self, "hold", _optional(self.hold, "hold"))
        object.__setattr__(self, "turns", _optional(self.turns, "turns"))
        if not isinstance(self.unit, str):
            raise TypeError(f"a spin's unit is text (Hz or rpm), got {self.unit!r}")

    @property
    def hertz(self) -> float:
        return self.frequency * FREQUENCY_UNITS.get(self.unit, math.nan)

    @property
    def speed(self) -> float:
        """The held angular speed, rad/s (signed)."""
        return 2.0 * math.pi * self.hertz

    @property
    def hold_time(self) -> float:
        """Seconds at full speed."""
        if self.hold is not None:
            return self.hold
        return abs(self.turns / self.hertz) if self.turns is not None and self.hertz else math.nan

    @property
    def duration(self) -> float:
        """Seconds from the start of the ramp up to the end of the ramp down."""
        return 2.0 * self.ramp + self.hold_time

    @property
    def acceleration(self) -> float:
        """The ramps' angular acceleration, rad/s² (infinite with no ramp)."""
        return abs(self.speed) / self.ramp if self.ramp > 0 else (math.inf if self.speed else 0.0)

    def hertz_at(self, tau) -> np.ndarray:
        """The turning frequency (Hz, signed) ``tau`` seconds after the start: up the ramp, held, down the
        ramp, 0 before and after (the derivative of :meth:`angle` over 2π)."""
        tau = np.asarray(tau, dtype=float)
        r, h, f = self.ramp, self.hold_time, self.hertz
        up = np.clip(tau / r, 0.0, 1.0) if r > 0 else (tau >= 0).astype(float)
        down = np.clip((tau - r - h) / r, 0.0, 1.0) if r > 0 else (tau > r + h).astype(float)
        return np.where((tau < 0) | (tau > self.duration), 0.0, f * (up - down))

    def angle(self, tau) -> np.ndarray:
        """The angle turned ``tau`` seconds after the start (after the end: the whole spin's)."""
        tau = np.clip(np.asarray(tau, dtype=float), 0.0, self.duration)
        w, r, h = self.speed, self.ramp, self.hold_time
        a = w / r if r > 0 else 0.0
        up = 0.5 * w * r
        out = np.where(tau < r, 0.5 * a * tau**2, up + w * (tau - r))
        down = tau - r - h
        return np.where(down > 0, up + w * h + w * down - 0.5 * a * down**2, out)


@dataclass(frozen=True)
class Keyframe:
    """Joint positions of a segment at ``time`` (s): the pose ``pose``'s values for the segment, then
    ``values`` (joint → value in the trajectory's unit). ``interpolation`` is that of the interval into it;
    ``fixed``: :func:`fit_to_limits` keeps that interval's duration; ``frame``: the segment's frame a
    ``line`` moves; ``spin``: the profile of a ``spin``."""

    time: float
    _: KW_ONLY
    values: Mapping[str, float] = field(default_factory=dict)
    pose: str | None = None
    interpolation: str = "linear"
    fixed: bool = False
    frame: str | None = None
    spin: Spin | None = None

    def __post_init__(self):
        object.__setattr__(self, "time", _number(self.time, "time"))
        if not isinstance(self.values, Mapping):
            raise TypeError(f"values maps joint names to numbers, got {self.values!r}")
        values = {}
        for joint, v in self.values.items():
            if not isinstance(joint, str):
                raise TypeError(f"values: a joint's name is text, got {joint!r}")
            values[joint] = _number(v, f"values.{joint}")
        object.__setattr__(self, "values", MappingProxyType(values))
        for what in ("pose", "frame", "interpolation"):
            v = getattr(self, what)
            if v is not None and not isinstance(v, str):
                raise TypeError(f"{what} is text, got {v!r}")
        if not isinstance(self.fixed, bool):
            raise TypeError(f"fixed is true or false, got {self.fixed!r}")
        if self.spin is not None and not isinstance(self.spin, Spin):
            raise TypeError(f"spin is a Spin, got {self.spin!r}")

    def __eq__(self, other) -> bool:
        if not isinstance(other, Keyframe):
            return NotImplemented
        return (self.time, dict(self.values), self.pose, self.interpolation, self.fixed, self.frame,
                self.spin) == (other.time, dict(other.values), other.pose, other.interpolation, other.fixed,
                               other.frame, other.spin)

    __hash__ = None

    def __repr__(self) -> str:
        extra = [f"values={dict(self.values)!r}"] if self.values else []
        extra += [f"{k}={getattr(self, k)!r}" for k in ("pose", "frame", "spin")
                  if getattr(self, k) is not None]
        extra += [f"interpolation={self.interpolation!r}"] + (["fixed=True"] if self.fixed else [])
        return f"Keyframe({self.time!r}, {', '.join(extra)})"


@dataclass(frozen=True)
class AccelerationLimit:
    """A joint's acceleration limit in ``unit`` (rad/s2, deg/s2, m/s2, mm/s2) and where it comes from."""

    value: float
    unit: str = "rad/s2"
    reason: str | None = None

    def __post_init__(self):
        object.__setattr__(self, "value", _number(self.value, "an acceleration limit"))
        if not isinstance(self.unit, str):
            raise TypeError(f"an acceleration limit's unit is text, got {self.unit!r}")
        if self.reason is not None and not isinstance(self.reason, str):
            raise TypeError(f"a reason is text, got {self.reason!r}")

    @property
    def si(self) -> float:
        """rad/s² or m/s²."""
        return self.value * ACCELERATION_UNITS.get(self.unit, math.nan)

    @property
    def sliding(self) -> bool:
        return self.unit in LENGTH_ACCELERATIONS


@dataclass(frozen=True)
class Trajectory:
    """Keyframes by segment (each list in time order), the unit their values are written in (a pose's:
    ``"deg|m"``), and acceleration limits by segment and joint (:data:`EVERY_JOINT` for the segment's
    other joints)."""

    segments: Mapping[str, tuple[Keyframe, ...]]
    unit: str = DEFAULT_UNIT
    _: KW_ONLY
    acceleration_limits: Mapping[str, Mapping[str, AccelerationLimit]] = field(default_factory=dict)

    def __post_init__(self):
        if self.unit not in POSE_UNITS:
            raise ValueError(f"a trajectory's unit is one of {', '.join(POSE_UNITS)}, got {self.unit!r}")
        if not isinstance(self.segments, Mapping):
            raise TypeError(f"segments maps segment names to keyframes, got {self.segments!r}")
        segments = {}
        for name, keys in self.segments.items():
            if not isinstance(name, str) or isinstance(keys, str | Mapping) or \
                    not all(isinstance(k, Keyframe) for k in keys):
                raise TypeError(f"segments maps segment names to lists of Keyframe, got {name!r}: {keys!r}")
            segments[name] = tuple(keys)
        object.__setattr__(self, "segments", MappingProxyType(segments))
        if not isinstance(self.acceleration_limits, Mapping):
            raise TypeError("acceleration_limits maps segment names to {joint: AccelerationLimit}")
        limits = {}
        for name, joints in self.acceleration_limits.items():
            if not isinstance(name, str) or not isinstance(joints, Mapping) or not all(
                    isinstance(j, str) and isinstance(v, AccelerationLimit) for j, v in joints.items()):
                raise TypeError(f"acceleration_limits maps segment names to {{joint: AccelerationLimit}}, "
                                f"got {name!r}: {joints!r}")
            limits[name] = MappingProxyType(dict(joints))
        object.__setattr__(self, "acceleration_limits", MappingProxyType(limits))

    def __eq__(self, other) -> bool:
        if not isinstance(other, Trajectory):
            return NotImplemented
        def what(t):
            return dict(t.segments), t.unit, {k: dict(v) for k, v in t.acceleration_limits.items()}

        return what(self) == what(other)

    __hash__ = None

    def __repr__(self) -> str:
        segments = {k: list(v) for k, v in self.segments.items()}
        limits = f", acceleration_limits={ {k: dict(v) for k, v in self.acceleration_limits.items()}!r}" \
            if self.acceleration_limits else ""
        return f"Trajectory({segments!r}, unit={self.unit!r}{limits})"

    @property
    def duration(self) -> float:
        """The last keyframe's time (0 with none)."""
        return max((k.time for keys in self.segments.values() for k in keys), default=0.0)

    def acceleration_limit(self, segment: str, joint: str, sliding: bool) -> float:
        """The joint's acceleration limit (rad/s² or m/s²), inf when none is declared; the segment's
        :data:`EVERY_JOINT` limit holds for joints of its unit's kind."""
        table = self.acceleration_limits.get(segment, {})
        own = table.get(joint)
        if own is not None:
            return own.si
        every = table.get(EVERY_JOINT)
        return every.si if every is not None and every.sliding == sliding else math.inf


# -- the knots of a segment --------------------------------------------------------------------------
@dataclass
class _Track:
    """One segment of a rendering: its commandable joints, their knots (time, full command vector) and the
    keyframe into each knot (None for the start)."""

    name: str
    joints: tuple[str, ...]
    sliding: np.ndarray
    velocity: np.ndarray  # the description's limits, inf where none
    acceleration: np.ndarray
    times: list[float]
    values: list[np.ndarray]
    keys: list[Keyframe | None]
    indices: list[int]  # the keyframe's index in the file, -1 for the start


def _tracks(built, trajectory: Trajectory) -> dict[str, _Track]:
    names = built.command_names
    start = dict(zip(names, built.initial_commands(), strict=True))
    poses = built.apparatus.poses
    out = {}
    for seg in built.segments:
        keys = trajectory.segments.get(seg)
        if not keys:
            continue
        art = built.articulation(seg)
        joints = built.node(seg).command_names
        index = {j: i for i, j in enumerate(joints)}
        sliding = np.array([art.joint_type[art.joint_index(j)] == PRISMATIC for j in joints], dtype=bool)
        velocity = np.array([art.velocity_limit[art.joint_index(j)] for j in joints], dtype=float)
        velocity[~(np.isfinite(velocity) & (velocity > 0))] = np.inf  # 0 or none: the URDF gives no limit
        acceleration = np.array([trajectory.acceleration_limit(seg, j, bool(s))
                                 for j, s in zip(joints, sliding, strict=True)])
        angle, length = trajectory.unit.split("|")
        q = np.array([start[f"{seg}.{j}"] for j in joints], dtype=float)
        track = _Track(seg, joints, sliding, velocity, acceleration, [], [], [], [])
        if keys[0].time > 0:
            track.times.append(0.0)
            track.values.append(q.copy())
            track.keys.append(None)
            track.indices.append(-1)
        for i, key in enumerate(keys):
            q = q.copy()
            if key.interpolation == "spin" and key.spin is None:  # the rules' trajectory.spin, met unchecked
                raise TrajectoryError("trajectory.spin", f"keyframe {i} of {seg} spins without a profile: a "
                                      "spin interval needs spin {frequency, ramp, hold or turns}")
            if key.interpolation == "spin" and key.spin is not None and len(joints) == 1:
                q[0] += float(key.spin.angle(key.spin.duration))
            given = {}
            if key.pose is not None:
                pose = poses.get(key.pose)
                if pose is None:
                    raise TrajectoryError("trajectory.pose", f"no pose {key.pose!r}; poses: "
                                          f"{', '.join(poses) or '(none)'}")
                given = {j: pose.position(seg, j, bool(sliding[index[j]]))
                         for j in pose.values.get(seg, {}) if j in index}
            for joint, v in key.values.items():
                if joint not in index:
                    raise TrajectoryError("trajectory.joint", f"{seg}.{joint} is no commandable joint; "
                                          f"joints: {', '.join(joints)}")
                given[joint] = v * UNIT_FACTORS[length if sliding[index[joint]] else angle]
            for joint, v in given.items():
                q[index[joint]] = v
            track.times.append(key.time)
            track.values.append(q)
            track.keys.append(key)
            track.indices.append(i)
        out[seg] = track
    return out


# -- closed forms ------------------------------------------------------------------------------------
def min_jerk(s):
    """The minimum-jerk blend from 0 to 1 on ``s`` in [0, 1]: ``10s³ − 15s⁴ + 6s⁵``."""
    s = np.asarray(s, dtype=float)
    return s**3 * (10.0 + s * (-15.0 + 6.0 * s))


#: peaks of the minimum-jerk blend's rates on [0, 1]: velocity at s = 1/2, acceleration at s = (3 − √3)/6
MIN_JERK_VELOCITY = 15.0 / 8.0
MIN_JERK_ACCELERATION = 10.0 / math.sqrt(3.0)


def cubic_slopes(times, values) -> np.ndarray:
    """The knots' slopes of the cubic spline through ``values (m+1, k)`` at ``times (m+1,)`` with continuous
    second derivative and zero slope at both ends (clamped at rest): ``(m+1, k)``."""
    x = np.asarray(times, dtype=float)
    y = np.asarray(values, dtype=float)
    m = len(x) - 1
    slopes = np.zeros_like(y)
    if m < 2:
        return slopes
    h = np.diff(x)
    delta = np.diff(y, axis=0) / h[:, None]
    # continuity of the second derivative at each inner knot i: h_i m_{i-1} + 2(h_{i-1} + h_i) m_i +
    # h_{i-1} m_{i+1} = 3 (h_i δ_{i-1} + h_{i-1} δ_i), with m_0 = m_m = 0
    A = np.zeros((m - 1, m - 1))
    for r in range(m - 1):
        i = r + 1
        A[r, r] = 2.0 * (h[i - 1] + h[i])
        if r > 0:
            A[r, r - 1] = h[i]
        if r < m - 2:
            A[r, r + 1] = h[i - 1]
    rhs = 3.0 * (h[1:, None] * delta[:-1] + h[:-1, None] * delta[1:])
    slopes[1:-1] = np.linalg.solve(A, rhs)
    return slopes


def _hermite(y0, y1, m0, m1, h):
    """Coefficients ``(c, d)`` of ``y0 + m0 t + c t² + d t³`` on [0, h]."""
    delta = (y1 - y0) / h
    return (3.0 * delta - 2.0 * m0 - m1) / h, (m0 + m1 - 2.0 * delta) / h**2


# -- intervals ---------------------------------------------------------------------------------------
@dataclass
class _Interval:
    """The interval of a segment into knot ``k``: ``kind``, its start and end, and (cubic runs) the run."""

    track: _Track
    k: int
    kind: str

    @property
    def t0(self) -> float:
        return self.track.times[self.k - 1]

    @property
    def t1(self) -> float:
        return self.track.times[self.k]

    @property
    def key(self) -> Keyframe:
        return self.track.keys[self.k]


def _intervals(track: _Track) -> list[_Interval]:
    return [_Interval(track, k, track.keys[k].interpolation) for k in range(1, len(track.times))]


def _cubic_runs(track: _Track) -> list[tuple[int, int]]:
    """``(first knot, last knot)`` of every run of consecutive cubic intervals."""
    runs, k, n = [], 1, len(track.times)
    while k < n:
        if track.keys[k].interpolation == "cubic":
            first = k - 1
            while k < n and track.keys[k].interpolation == "cubic":
                k += 1
            runs.append((first, k - 1))
        else:
            k += 1
    return runs


def _evaluate(track: _Track, t: np.ndarray) -> np.ndarray:
    """The track's commands at ``t`` for every kind of interval but ``line`` (whose samples the inverse
    kinematics gives; here it is linear in the joints): ``(len(t), k)``."""
    times = np.asarray(track.times)
    values = np.array(track.values)
    out = np.empty((len(t), len(track.joints)))
    out[:] = values[-1]
    out[t < times[0]] = values[0]
    for iv in _intervals(track):
        k = iv.k
        last = k == len(times) - 1
        inside = (t >= times[k - 1]) & (t < times[k]) if not last else (t >= times[k - 1]) & (t <= times[k])
        if not inside.any():
            continue
        tau = t[inside] - times[k - 1]
        h = times[k] - times[k - 1]
        q0, q1 = values[k - 1], values[k]
        if iv.kind == "hold":
            out[inside] = q0
            if last:
                out[inside & (t >= times[k])] = q1
        elif iv.kind == "quintic":
            out[inside] = q0 + (q1 - q0) * min_jerk(tau / h)[:, None]
        elif iv.kind == "spin":
            spin = iv.key.spin
            out[inside] = q0
            out[inside, 0] = q0[0] + spin.angle(tau)
        elif iv.kind != "cubic":  # linear, and a line's joint-space stand-in
            out[inside] = q0 + (q1 - q0) * (tau / h)[:, None]
    for first, last in _cubic_runs(track):
        x = times[first:last + 1]
        y = values[first:last + 1]
        slopes = cubic_slopes(x, y)
        for i in range(len(x) - 1):
            end = first + i + 1 == len(times) - 1
            inside = (t >= x[i]) & ((t < x[i + 1]) if not end else (t <= x[i + 1]))
            if not inside.any():
                continue
            tau = (t[inside] - x[i])[:, None]
            c, d = _hermite(y[i], y[i + 1], slopes[i], slopes[i + 1], x[i + 1] - x[i])
            out[inside] = y[i] + slopes[i] * tau + c * tau**2 + d * tau**3
    # the last keyframe is met exactly, as every other one is (each interval starts from its own values):
    # q0 + (q1 - q0) * 1 can miss q1 by its last bit
    out[t == times[-1]] = values[-1]
    return out


# -- peaks of the rates --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Peak:
    """The largest |velocity| and |acceleration| of a joint in an interval and when they are reached."""

    velocity: float
    velocity_time: float
    acceleration: float
    acceleration_time: float


def _peaks(iv: _Interval, lines: Mapping[tuple[str, int], np.ndarray], dt: float) -> list[Peak]:
    """One :class:`Peak` per joint of the interval (a cubic interval: its own piece of its run's spline;
    a line: from the rendered samples, by differences)."""
    tr, k = iv.track, iv.k
    t0, t1 = iv.t0, iv.t1
    h = t1 - t0
    delta = np.abs(tr.values[k] - tr.values[k - 1])
    n = len(tr.joints)
    if iv.kind == "hold" or h <= 0:
        return [Peak(0.0, t0, 0.0, t0)] * n
    if iv.kind == "linear":
        return [Peak(float(d / h), t0, 0.0, t0) for d in delta]
    if iv.kind == "quintic":
        s = (3.0 - math.sqrt(3.0)) / 6.0
        return [Peak(float(MIN_JERK_VELOCITY * d / h), t0 + 0.5 * h, float(MIN_JERK_ACCELERATION * d / h**2),
                     t0 + s * h) for d in delta]
    if iv.kind == "spin":
        spin = iv.key.spin
        return [Peak(abs(spin.speed), t0 + spin.ramp, spin.acceleration, t0)]
    if iv.kind == "cubic":
        for first, last in _cubic_runs(tr):
            if first < k <= last:
                break
        x = np.asarray(tr.times[first:last + 1])
        y = np.array(tr.values[first:last + 1])
        slopes = cubic_slopes(x, y)
        i = k - 1 - first
        c, d = _hermite(y[i], y[i + 1], slopes[i], slopes[i + 1], h)
        out = []
        for j in range(n):
            m0, cj, dj = slopes[i, j], c[j], d[j]
            cands = [0.0, h]
            if dj != 0.0 and 0.0 < -cj / (3.0 * dj) < h:
                cands.append(-cj / (3.0 * dj))
            v = [abs(m0 + 2.0 * cj * x_ + 3.0 * dj * x_**2) for x_ in cands]
            a = [abs(2.0 * cj), abs(2.0 * cj + 6.0 * dj * h)]
            out.append(Peak(float(max(v)), t0 + cands[int(np.argmax(v))], float(max(a)),
                            t0 + (0.0 if a[0] >= a[1] else h)))
        return out
    q = lines.get((tr.name, k))  # line: the samples the inverse kinematics gave, with its ends
    if q is None or len(q) < 3:
        return [Peak(float(d / h), t0, 0.0, t0) for d in delta]
    v = np.abs(np.diff(q, axis=0)) / dt
    a = np.abs(np.diff(q, 2, axis=0)) / dt**2
    return [Peak(float(v[:, j].max()), t0 + dt * float(np.argmax(v[:, j])), float(a[:, j].max()),
                 t0 + dt * float(np.argmax(a[:, j]) + 1)) for j in range(n)]


# -- rendering -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Rendered:
    """A rendering: ``time (T,)``, ``commands (T, len(command_names))``, and the findings of its lines
    (``trajectory.reach``)."""

    time: np.ndarray
    commands: np.ndarray
    command_names: tuple[str, ...]
    findings: tuple[Finding, ...]
    lines: Mapping[tuple[str, int], np.ndarray] = field(default_factory=dict)


def _resolve(built, trajectory) -> tuple[str, Trajectory]:
    if isinstance(trajectory, str):
        found = built.apparatus.trajectories.get(trajectory)
        if found is None:
            raise TrajectoryError("trajectory.unknown", f"the rig has no trajectory {trajectory!r}; "
                                  f"trajectories: {', '.join(built.apparatus.trajectories) or '(none)'}")
        return trajectory, found
    if not isinstance(trajectory, Trajectory):
        raise TypeError(f"a trajectory is a Trajectory or the name of one of the rig's, got {trajectory!r}")
    name = next((n for n, t in built.apparatus.trajectories.items() if t is trajectory), "(trajectory)")
    return name, trajectory


def sample_count(duration: float, dt: float, columns: int) -> int:
    """How many samples a rendering takes, or a :class:`TrajectoryError` (``trajectory.dt``,
    ``trajectory.too-large``) before anything is allocated."""
    if isinstance(dt, bool) or not isinstance(dt, int | float) or not (math.isfinite(dt) and 0 < dt <= 1e9):
        raise TrajectoryError("trajectory.dt", f"the step must be a positive number of seconds up to 1e9, "
                              f"got {dt!r}")
    steps = duration / dt
    if not math.isfinite(steps) or steps >= MAX_SAMPLES:
        raise TrajectoryError("trajectory.too-large", f"{duration:g} s every {dt:g} s makes more than "
                              f"{MAX_SAMPLES} samples; choose a larger step")
    count = int(math.ceil(steps - 1e-9)) + 1
    size = count * (columns + 1) * 8
    if size > MAX_BYTES:
        raise TrajectoryError("trajectory.too-large", f"{duration:g} s every {dt:g} s of {columns} commands "
                              f"takes about {size / 2**20:.0f} MB, more than {MAX_BYTES // 2**20} MB; choose "
                              "a larger step")
    return count


def render_checked(built, trajectory, dt: float) -> Rendered:
    """:func:`render` with the findings of its lines."""
    name, trajectory = _resolve(built, trajectory)
    names = built.command_names
    count = sample_count(trajectory.duration, dt, len(names))
    time = dt * np.arange(count)
    commands = np.tile(built.initial_commands(), (count, 1))
    tracks = _tracks(built, trajectory)
    findings: list[Finding] = []
    lines: dict[tuple[str, int], np.ndarray] = {}
    for seg, track in tracks.items():  # chain order: what a line rides on is rendered before it
        cols = [names.index(f"{seg}.{j}") for j in track.joints]
        commands[:, cols] = _evaluate(track, time)
        for iv in _intervals(track):
            if iv.kind == "line":
                q, problems = _line(built, name, iv, time, commands, cols)
                lines[(seg, iv.k)] = q
                findings += problems
    for a in (time, commands):
        a.setflags(write=False)
    return Rendered(time, commands, names, tuple(findings), MappingProxyType(lines))


def render(built, trajectory, dt: float) -> tuple[np.ndarray, np.ndarray]:
    """``(time (T,), commands (T, len(built.command_names)))``: ``trajectory`` (a
    :class:`Trajectory` or the name of one of the rig's) sampled every ``dt`` seconds from 0 s until its
    last keyframe (the last sample at or after it), radians and metres; joints no keyframe names hold the
    rig's initial positions. Raises :class:`TrajectoryError` for a step or a size it refuses."""
    r = render_checked(built, trajectory, dt)
    return r.time, r.commands


def trajectory_commands(built, trajectory, dt: float):
    """The rendering as a :class:`~mime_gui.nodes.commands.RecordedCommands` (``<segment>.<joint>`` columns
    of every command) for :func:`~mime_gui.nodes.commands.write_commands`."""
    from mime_gui.nodes.commands import RecordedCommands

    time, commands = render(built, trajectory, dt)
    names = built.command_names
    return RecordedCommands("trajectory", time, names, commands, ("",) * len(names), np.zeros(len(time), int))


# -- straight lines ------------------------------------------------------------------------------------
def _base(built, seg: str, row: np.ndarray) -> np.ndarray:
    """``world_X_base`` of ``seg`` with the chain at the command ``row``."""
    s = built.segments[seg]
    if s.mount is None:
        return s.placement
    names = built.command_names
    chain = built.chain_node()
    positions = {n: np.array([row[names.index(f"{n}.{j}")] for j in built.node(n).command_names])
                 for n in built.segments}
    state = chain.initial_state(positions)
    mseg, frame = chain.mount_of(seg)
    return state[mseg].frame_poses[frame] @ s.placement


def _shortest_turn(R0: np.ndarray, R1: np.ndarray):
    """``(axis, angle)`` of the shortest rotation taking ``R0`` to ``R1``, in ``R0``'s axes."""
    from mime_gui.multibody.spatial import quaternion_of

    q = np.asarray(quaternion_of(R0.T @ R1), dtype=float)
    if q[0] < 0:  # the same turn the short way round
        q = -q
    s = float(np.linalg.norm(q[1:]))
    angle = 2.0 * math.atan2(s, q[0])
    return (q[1:] / s if s > 0 else np.array([0.0, 0.0, 1.0])), angle


def _turned(axis: np.ndarray, angle: float) -> np.ndarray:
    from mime_gui.multibody.spatial import quaternion_to_matrix

    return quaternion_to_matrix((math.cos(0.5 * angle), *(math.sin(0.5 * angle) * axis)))


def line_target(world_X_start: np.ndarray, world_X_end: np.ndarray, s: float) -> np.ndarray:
    """The pose a fraction ``s`` along the line from ``world_X_start`` to ``world_X_end``: the position
    on the straight segment, the orientation turned by ``s`` of the shortest rotation (slerp)."""
    axis, angle = _shortest_turn(world_X_start[:3, :3], world_X_end[:3, :3])
    X = np.eye(4)
    X[:3, :3] = world_X_start[:3, :3] @ _turned(axis, s * angle)
    X[:3, 3] = world_X_start[:3, 3] + s * (world_X_end[:3, 3] - world_X_start[:3, 3])
    return X


def _line(built, name: str, iv: _Interval, time, commands, cols):
    """Fill the line's samples of ``commands`` from the inverse kinematics; its samples (the ends
    included) and the findings where it leaves the line."""
    from mime_gui.multibody import frame_poses
    from mime_gui.multibody.inverse_kinematics import solve

    tr, k = iv.track, iv.k
    seg = tr.name
    art = built.articulation(seg)
    node = built.node(seg)
    frame = art.frame_index(iv.key.frame)
    commanded = np.flatnonzero(~art.is_mimic)
    where = f"trajectories.{name}.segments.{seg}.{tr.indices[k]}"
    t0, t1 = iv.t0, iv.t1
    i0 = int(np.searchsorted(time, t0, side="left"))
    i1 = int(np.searchsorted(time, t1, side="left"))  # samples before the end keyframe's
    ends = []
    for t, values in ((t0, tr.values[k - 1]), (t1, tr.values[k])):
        row = commands[min(int(np.searchsorted(time, t)), len(time) - 1)].copy()
        row[cols] = values
        base = _base(built, seg, row)
        ends.append((base, base @ frame_poses(art, node._full(values))[frame]))
    start, end = ends[0][1], ends[1][1]
    q = node._full(np.asarray(tr.values[k - 1], float))
    samples, findings, reported = [np.asarray(tr.values[k - 1], float)], [], False
    for i in range(i0, i1):
        s = float(min_jerk((time[i] - t0) / (t1 - t0)))
        base = _base(built, seg, commands[i]) if built.segments[seg].mount is not None else ends[0][0]
        target = line_target(start, end, s)
        result = solve(art, q, frame, target, world_X_base=base, null_space_gain=0.0,
                       position_tolerance=LINE_TOLERANCE, angle_tolerance=LINE_TOLERANCE)
        q = np.asarray(result.q, dtype=float)
        commands[i, cols] = q[commanded]
        samples.append(q[commanded])
        if not result.converged and not reported:
            reported = True  # the first place it leaves the line says where to act; the rest follow from it
            limits = [f"{seg}.{j}" for j in (*result.at_lower, *result.at_upper)]
            why = (f"{', '.join(limits)} rest{'s' if len(limits) == 1 else ''} on a limit" if limits else
                   "the frame cannot reach it")
            findings.append(Finding("trajectory.reach", where,
                                    f"the line of {seg}.{iv.key.frame} leaves the reachable space at "
                                    f"{time[i]:.6g} s ({100 * s:.3g}% along it): {why}; the frame is "
                                    f"{result.position_error:.3g} m and "
                                    f"{math.degrees(result.angle_error):.3g}° off the line there; move the "
                                    "keyframes or interpolate in the joints"))
    samples.append(np.asarray(tr.values[k], float))
    return np.array(samples), findings


# -- limits --------------------------------------------------------------------------------------------
def _excess(name: str, iv: _Interval, peaks: list[Peak]) -> list[Finding]:
    tr = iv.track
    out = []
    where = f"trajectories.{name}.segments.{tr.name}.{tr.indices[iv.k]}"
    for j, p in enumerate(peaks):
        joint = f"{tr.name}.{tr.joints[j]}"
        unit = "m" if tr.sliding[j] else "rad"
        for what, value, limit, t, per in (("velocity", p.velocity, tr.velocity[j], p.velocity_time, "/s"),
                                           ("acceleration", p.acceleration, tr.acceleration[j],
                                            p.acceleration_time, "/s²")):
            if value > limit * (1.0 + LIMIT_TOLERANCE):
                out.append(Finding("trajectory.speed", where,
                                   f"{joint} exceeds its {what} limit at {t:.6g} s by {value - limit:.4g} "
                                   f"{unit}{per} ({value:.4g} > {limit:.4g} {unit}{per}); "
                                   + ("the interval into this keyframe is fixed: unfix it, move the keyframe "
                                      "later or ask less" if iv.key.fixed else
                                      "fit the trajectory to the limits or move the keyframe later")))
    return out


def check(built, trajectory, dt: float = 0.01) -> list[Finding]:
    """Where ``trajectory`` asks a joint more than its velocity or acceleration limit
    (``trajectory.speed``), and where a line leaves the reachable space (``trajectory.reach``). A line's
    rates are taken from its samples every ``dt`` seconds."""
    name, trajectory = _resolve(built, trajectory)
    rendered = render_checked(built, trajectory, dt)
    out = list(rendered.findings)
    for track in _tracks(built, trajectory).values():
        for iv in _intervals(track):
            out += _excess(name, iv, _peaks(iv, rendered.lines, dt))
    return out


def _demand(iv: _Interval, peaks: list[Peak]) -> float:
    """The factor the interval's duration needs for its joints to keep within their limits (≥ 1)."""
    tr = iv.track
    need = 1.0
    for j, p in enumerate(peaks):
        if p.velocity > 0 and math.isfinite(tr.velocity[j]):
            need = max(need, p.velocity / tr.velocity[j])
        if p.acceleration > 0 and math.isfinite(tr.acceleration[j]):
            need = max(need, math.sqrt(p.acceleration / tr.acceleration[j]))
    return need


def _retimed(trajectory: Trajectory, warp) -> Trajectory:
    segments = {seg: [replace(k, time=float(warp(k.time))) for k in keys]
                for seg, keys in trajectory.segments.items()}
    return replace(trajectory, segments=segments)


def fit_to_limits(built, trajectory, dt: float = 0.01, rounds: int = 20) -> tuple[Trajectory, list[Finding]]:
    """``trajectory`` stretched in time just enough for every joint to keep within its velocity and
    acceleration limits, and the findings of what cannot (``trajectory.speed``: an interval into a
    ``fixed`` keyframe, a spin whose speed is beyond the limit; ``trajectory.reach``: a line).

    Every time of every segment's keyframes is moved by one warp of the timeline (so the segments keep in
    step): each span between two consecutive keyframe times of the trajectory is stretched by the largest
    factor the intervals over it need, an interval into a fixed keyframe keeping its spans. A spin's
    ramps are lengthened for its acceleration, and its keyframe moved after it. Intervals already within
    their limits are not shortened."""
    name, trajectory = _resolve(built, trajectory)
    findings: list[Finding] = []
    for _ in range(max(1, rounds)):
        trajectory, spun = _fit_spins(built, trajectory)
        rendered = render_checked(built, trajectory, dt)
        tracks = _tracks(built, trajectory)
        knots = sorted({t for tr in tracks.values() for t in tr.times})
        spans = np.diff(knots)
        locked = np.zeros(len(spans), dtype=bool)
        demands = []
        for tr in tracks.values():
            for iv in _intervals(tr):
                a, b = knots.index(iv.t0), knots.index(iv.t1)
                if iv.key.fixed:
                    locked[a:b] = True
                peaks = _peaks(iv, rendered.lines, dt)
                if iv.kind == "spin":
                    need = 1.0  # its ramps are fitted in _fit_spins; the keyframe is moved after it
                    end = iv.t0 + iv.key.spin.duration
                    if end > iv.t1:
                        need = (end - iv.t0) / (iv.t1 - iv.t0)
                elif iv.kind == "cubic":
                    need = _run_demand(tr, iv, rendered.lines, dt)
                else:
                    need = _demand(iv, peaks)
                demands.append((iv, a, b, need))
        factors = np.ones(len(spans))
        for iv, a, b, need in demands:
            if need <= 1.0 + LIMIT_TOLERANCE or iv.key.fixed:
                continue
            total = float(spans[a:b].sum())
            free = ~locked[a:b]
            free_length = float(spans[a:b][free].sum())
            if free_length <= 0:
                continue
            k = (need * total - (total - free_length)) / free_length
            factors[a:b][free] = np.maximum(factors[a:b][free], k)
        if np.all(factors <= 1.0 + LIMIT_TOLERANCE) and not spun:
            break
        new_knots = np.concatenate([[knots[0]], knots[0] + np.cumsum(spans * factors)])

        old_knots = np.array(knots)
        trajectory = _retimed(trajectory, lambda t, old=old_knots, new=new_knots: np.interp(t, old, new))
    rendered = render_checked(built, trajectory, dt)
    findings = list(rendered.findings)
    for tr in _tracks(built, trajectory).values():
        for iv in _intervals(tr):
            findings += _excess(name, iv, _peaks(iv, rendered.lines, dt))
    return trajectory, findings


def _run_demand(tr: _Track, iv: _Interval, lines, dt) -> float:
    """A cubic interval's demand is its run's: the run is stretched evenly, which keeps its shape."""
    for first, last in _cubic_runs(tr):
        if first < iv.k <= last:
            break
    need = 1.0
    for k in range(first + 1, last + 1):
        other = _Interval(tr, k, "cubic")
        need = max(need, _demand(other, _peaks(other, lines, dt)))
    return need


def _fit_spins(built, trajectory: Trajectory) -> tuple[Trajectory, bool]:
    """Spins with ramps lengthened for the joint's acceleration limit (unless fixed), and their keyframes
    moved to the spin's end when it ends later; whether anything changed."""
    changed = False
    segments = {}
    for seg, keys in trajectory.segments.items():
        keys = list(keys)
        if seg in built.segments and len(built.node(seg).command_names) == 1:
            joint = built.node(seg).command_names[0]
            limit = trajectory.acceleration_limit(seg, joint, False)
            for i, key in enumerate(keys):
                spin = key.spin
                if key.interpolation != "spin" or spin is None or key.fixed or not math.isfinite(limit):
                    continue
                if spin.acceleration > limit * (1.0 + LIMIT_TOLERANCE):
                    keys[i] = key = replace(key, spin=replace(spin, ramp=abs(spin.speed) / limit))
                    changed = True
        segments[seg] = keys
    return (replace(trajectory, segments=segments) if changed else trajectory), changed


__all__ = ["ACCELERATION_UNITS", "EVERY_JOINT", "FREQUENCY_UNITS", "INTERPOLATIONS", "MAX_SAMPLES",
           "AccelerationLimit", "Keyframe", "Peak", "Rendered", "Spin", "Trajectory", "TrajectoryError",
           "check", "cubic_slopes", "fit_to_limits", "line_target", "min_jerk", "render", "render_checked",
           "sample_count", "trajectory_commands"]
