"""Ask for a field, get the motion: poses of the chain that give a probe or a sample the field a
:class:`~mime_gui.rig.targets.FieldTarget` asks for, checked, and the trajectory that goes there.

**The search.** The unknowns are the chain's commanded joints (for a rotating target, all but the spinning
motor's shaft, which turns through a whole turn at every evaluation). A pose's field at the target's point
comes from the engine's forward kinematics of many poses at once (``BuiltRig.play`` with no servo lag: one
row per pose) and one Magpylib call for them all. Each start is improved by damped Gauss–Newton
(Levenberg–Marquardt) steps on normalised residuals, every step held within the joints' limits; the
residuals' Jacobian is taken by forward differences over the joints, all of its poses evaluated in that one
batched call. Residuals, each 1 at the edge of what the target allows:

- fixed: the unit field's chord to ``direction`` over the chord of ``tolerance`` (3 rows), and |B| from the
  middle of its window over half the window;
- rotating: the rotation's axis (the normal of the plane the field's varying part turns in, oriented by its
  sense of turning, the motor turning forward) likewise against ``axis`` — a target turning the other way is
  met by the motor turning backward —, the turn's least and largest |B| outside the window, and an ellipse
  flatter than ``ellipticity``;
- both: the point keeps out of every magnet (its centroid's bounding sphere, 20 % over).

The starts are the current pose and ``starts - 1`` poses drawn evenly within the limits (continuous joints
over one turn) from a fixed seed, so a plan is the same on every run. A start that ends meeting the target
is a **candidate**; candidates closer than 0.05 rad in every joint to a better one are dropped. Each is
ranked by its **margin**: the smallest of its normalised margins (direction, window, ellipticity, distance
from the joints' limits, distance from the magnets), each 0 at the edge and 1 at the most comfortable.

:func:`trajectory_to` turns a candidate into a :class:`~mime_gui.rig.trajectories.Trajectory` (a quintic
approach from the current pose, stretched to the limits, then for a rotating target the motor's spin) and
:func:`check_candidate` checks it as played: the trajectory's limits, the keep-out zones and the field at the
target along it (the last pose's field, or the rotating-field summary of the spin's steady part).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from mime_gui.field.along import field_at
from mime_gui.field.errors import FieldError
from mime_gui.rig.findings import Finding
from mime_gui.rig.magnet_sources import bounding_radius, magnet_sources
from mime_gui.rig.probes import Probe
from mime_gui.rig.segments import MOTOR_JOINT
from mime_gui.rig.targets import FieldTarget

#: poses of one turn sampled for a rotating target (a turn's ellipse is its first harmonic: a few suffice)
TURN_SAMPLES = 16
#: Gauss–Newton iterations per start
ITERATIONS = 40
#: forward-difference step of the joints (rad or m)
STEP = 1e-5
#: the point keeps this factor of a magnet's bounding radius away from its centroid
KEEP_OUT = 1.2
#: candidates this close in every joint (rad or m) are one
SAME = 0.05
#: a continuous joint's starts are drawn over this range (rad)
TURN = math.pi
#: a joint this near a limit (a fraction of its range) is pulled away from it, with this weight
NEAR_LIMIT = 0.1
PULL = 0.3
#: the margins that say how well the target is met (the others rank the candidates)
TARGET_MARGINS = ("direction", "axis", "window", "ellipticity")


@dataclass(frozen=True, eq=False)
class Candidate:
    """A pose found for the target: ``positions`` of every command (``built.command_names``; for a rotating
    target the shaft's is where the turn starts), what the target sees there (``angle`` rad from the asked
    direction or axis, ``B_min``/``B_max`` T, ``ellipticity`` for a rotating target), ``sense`` (+1: the
    motor turns forward at the target's frequency, -1: backward), whether it ``meets`` the target, its
    normalised ``margins`` and their smallest, ``margin``."""

    positions: np.ndarray
    angle: float
    B_min: float
    B_max: float
    ellipticity: float
    sense: int
    meets: bool
    margins: dict[str, float]
    margin: float
    B: np.ndarray = field(repr=False)  # (3,) fixed; (TURN_SAMPLES, 3) over the turn


@dataclass(frozen=True, eq=False)
class Plan:
    """What :func:`plan` found: ``candidates`` meeting the target, best margin first; ``ends`` every start's
    end; ``binding`` the constraint the best end missed by most when none meets (None otherwise);
    ``spinner`` the ``(segment, joint)`` turned for a rotating target."""

    target: FieldTarget
    candidates: list[Candidate]
    ends: list[Candidate]
    binding: str | None
    spinner: tuple[str, str] | None
    names: tuple[str, ...]
    evaluations: int


class _Space:
    """The built rig seen as functions of its commands: the target's field for many poses at once."""

    def __init__(self, built, target: FieldTarget):
        self.built, self.target = built, target
        self.names = tuple(built.command_names)
        lower, upper = [], []
        for seg in built.segments:
            node = built.node(seg)
            lower += list(node.lower[node._commanded])
            upper += list(node.upper[node._commanded])
        self.lower, self.upper = np.array(lower, dtype=float), np.array(upper, dtype=float)
        rig = built.apparatus
        items = getattr(rig, target.collection, {})
        if target.item not in items:
            names = ", ".join(f"{target.collection}.{n}" for n in items) or "none"
            raise FieldError("plan.target", f"the rig has no {target.collection[:-1]} {target.item!r}; "
                             f"aim at one of {names}", target.at)
        self.item = items[target.item]
        frames = {n: i for i, n in enumerate(built.frame_names)}
        mount = getattr(self.item, "mount", None)
        self.frame = None if mount is None else frames.get(mount)
        if mount is not None and self.frame is None:
            raise FieldError("plan.target", f"{target.at} rides on {mount!r}, which the rig lacks", target.at)
        self.at = np.asarray(self.item.at, dtype=float)
        self.magnets = magnet_sources(built)
        if not self.magnets:
            raise FieldError("plan.magnets", "the rig has no magnet to make the field; add one", "magnets")
        self.radii = np.array([bounding_radius(m) for m in self.magnets])
        self.spin = None
        if target.rotating:
            self.spin = self._spinner()
        self.free = np.array([i for i, n in enumerate(self.names) if self.spin is None or i != self.spin[2]])
        self.evaluations = 0

    def _spinner(self) -> tuple[str, str, int]:
        """The motor whose shaft turns a magnet: the first motor segment a magnet rides on."""
        rig = self.built.apparatus
        for magnet in rig.magnets.values():
            seg = (magnet.mount or "").partition(".")[0]
            if seg in self.built.segments and MOTOR_JOINT in self.built.node(seg).command_names:
                column = self.names.index(f"{seg}.{MOTOR_JOINT}")
                return seg, MOTOR_JOINT, column
        raise FieldError("plan.spin", "a rotating target needs a motor turning a magnet (a magnet mounted on "
                         "a motor segment's rotor); add one, or ask for a fixed direction", "magnets")

    def field(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """B ``(K, 3)`` at the target's point for the poses ``X (K, n)``, and each magnet's distance from it
        over its bounding radius ``(K, M)``."""
        X = np.asarray(X, dtype=float)
        self.evaluations += len(X)
        poses = self.built.play(X, 1.0, servo_time_constant=0.0).frame_poses  # (K, F, 4, 4): rows are poses
        if self.frame is None:
            points = np.broadcast_to(self.at, (len(X), 3)).copy()
        else:
            F = poses[:, self.frame]
            points = F[:, :3, :3] @ self.at + F[:, :3, 3]
        X_magnets = np.stack([m.poses(poses) for m in self.magnets], axis=1)
        B = field_at(self.magnets, X_magnets, points[:, None, :]).sum(axis=1)[:, 0]
        distance = np.linalg.norm(points[:, None, :] - X_magnets[:, :, :3, 3], axis=2)
        return B, distance / np.maximum(self.radii, 1e-12)

    def turns(self, X: np.ndarray) -> np.ndarray:
        """Each pose of ``X (K, n)`` with the shaft through one turn from where it stands: ``(K, S, n)``."""
        theta = 2.0 * math.pi * np.arange(TURN_SAMPLES) / TURN_SAMPLES
        out = np.repeat(np.asarray(X, dtype=float)[:, None, :], TURN_SAMPLES, axis=1)
        out[:, :, self.spin[2]] += theta
        return out


def _chord(angle: float) -> float:
    return 2.0 * math.sin(min(angle, math.pi) / 2.0)


def rotation_of(B: np.ndarray) -> tuple[np.ndarray, float, float, float]:
    """``(axis, ellipticity, B_min, B_max)`` of a field sampled evenly over one turn of the motor turning
    forward ``(S, 3)``: the normal of the plane its varying part turns in, oriented by its sense of turning,
    the ellipse's minor over major axis (fitted as ``a·e^{iθ} + b·e^{-iθ}``, as the rotating-field summary
    does), and the least and largest |B|."""
    size = np.linalg.norm(B, axis=1)
    varying = B - B.mean(axis=0)
    _, s, Vt = np.linalg.svd(varying, full_matrices=False)
    if s[0] <= 1e-12 * max(float(size.max()), 1e-300):
        return np.full(3, np.nan), 0.0, float(size.min()), float(size.max())
    e1, normal = Vt[0], Vt[2]
    e2 = np.cross(normal, e1)
    theta = 2.0 * math.pi * np.arange(len(B)) / len(B)
    z = varying @ e1 + 1j * (varying @ e2)
    a, b = np.mean(z * np.exp(-1j * theta)), np.mean(z * np.exp(1j * theta))
    ellipticity = abs(abs(a) - abs(b)) / max(abs(a) + abs(b), 1e-300)
    axis = normal if abs(a) >= abs(b) else -normal
    return axis, float(ellipticity), float(size.min()), float(size.max())


class _Residuals:
    """The normalised residuals of a target and the candidate they describe."""

    def __init__(self, space: _Space):
        self.space, self.target = space, space.target
        t = self.target
        self.chord = max(_chord(t.tolerance), 1e-9)
        self.middle = 0.5 * (t.low + t.high)
        self.half = max(0.5 * (t.high - t.low), 1e-6 * max(self.middle, 1e-9), 1e-12)

    def of(self, X: np.ndarray) -> list[tuple[np.ndarray, Candidate]]:
        """Residuals and candidate of each pose of ``X (K, n)``."""
        space, t = self.space, self.target
        if not t.rotating:
            B, clear = space.field(X)
            return [self._fixed(x, b, c) for x, b, c in zip(X, B, clear, strict=True)]
        turns = space.turns(X)
        B, clear = space.field(turns.reshape(-1, turns.shape[-1]))
        B = B.reshape(len(X), TURN_SAMPLES, 3)
        clear = clear.reshape(len(X), TURN_SAMPLES, -1).min(axis=1)
        return [self._rotating(x, b, c) for x, b, c in zip(X, B, clear, strict=True)]

    def _limits(self, x: np.ndarray) -> float:
        lo, hi = self.space.lower, self.space.upper
        finite = np.isfinite(lo) & np.isfinite(hi) & (hi > lo)
        finite[~np.isin(np.arange(len(x)), self.space.free)] = False
        if not finite.any():
            return 1.0
        room = np.minimum(x[finite] - lo[finite], hi[finite] - x[finite]) / (0.5 * (hi[finite] - lo[finite]))
        return float(np.clip(room.min(), 0.0, 1.0))

    def _pull(self, x: np.ndarray) -> np.ndarray:
        """A joint within :data:`NEAR_LIMIT` of its range from a limit pulls away from it, gently: a pose
        with room to move ranks above one pressed against a stop, the target's residuals weighing more."""
        lo, hi = self.space.lower[self.space.free], self.space.upper[self.space.free]
        finite = np.isfinite(lo) & np.isfinite(hi) & (hi > lo)
        room = np.ones(len(lo))
        xf = x[self.space.free]
        span = hi[finite] - lo[finite]
        room[finite] = np.minimum(xf[finite] - lo[finite], hi[finite] - xf[finite]) / span
        return PULL * np.maximum(0.0, NEAR_LIMIT - room) / NEAR_LIMIT

    def _common(self, clear: np.ndarray) -> tuple[float, float]:
        guard = max(0.0, KEEP_OUT - float(clear.min())) * 10.0
        return guard, float(min(1.0, (float(clear.min()) - KEEP_OUT) / KEEP_OUT))

    def _fixed(self, x, B, clear) -> tuple[np.ndarray, Candidate]:
        t = self.target
        size = float(np.linalg.norm(B))
        d = np.asarray(t.direction)
        unit = B / size if size > 0 else np.zeros(3)
        angle = float(np.arccos(np.clip(unit @ d, -1.0, 1.0))) if size > 0 else math.pi
        guard, clearance = self._common(clear)
        r = np.concatenate([(unit - d) / self.chord, [(size - self.middle) / self.half, guard],
                            self._pull(x)])
        margins = {"direction": 1.0 - angle / t.tolerance if t.tolerance > 0 else float(angle == 0.0) - 1.0,
                   "window": min(size - t.low, t.high - size) / self.half,
                   "limits": self._limits(x), "magnets": clearance}
        meets = angle <= t.tolerance and t.low <= size <= t.high and clearance >= 0.0
        return r, Candidate(np.array(x), angle, size, size, math.nan, 1, meets, margins,
                            min(margins.values()), np.array(B))

    def _rotating(self, x, B, clear) -> tuple[np.ndarray, Candidate]:
        t = self.target
        axis, ellipticity, b_min, b_max = rotation_of(B)
        a = np.asarray(t.axis)
        if not np.all(np.isfinite(axis)):
            axis, sense, angle = np.zeros(3), 1, math.pi
        else:
            sense = 1 if axis @ a >= 0 else -1  # the motor turns backward for a field turning the other way
            axis = sense * axis
            angle = float(np.arccos(np.clip(axis @ a, -1.0, 1.0)))
        guard, clearance = self._common(clear)
        r = np.concatenate([(axis - a) / self.chord,
                            [max(0.0, t.low - b_min) / self.half, max(0.0, b_max - t.high) / self.half,
                             (0.5 * (b_min + b_max) - self.middle) / self.half * 0.5,
                             max(0.0, t.ellipticity - ellipticity) * 10.0, guard], self._pull(x)])
        margins = {"axis": 1.0 - angle / t.tolerance if t.tolerance > 0 else float(angle == 0.0) - 1.0,
                   "window": min(b_min - t.low, t.high - b_max) / self.half,
                   "ellipticity": (ellipticity - t.ellipticity) / max(1.0 - t.ellipticity, 1e-9)
                   if t.ellipticity < 1 else float(ellipticity >= 1.0) - 1.0,
                   "limits": self._limits(x), "magnets": clearance}
        meets = (angle <= t.tolerance and t.low <= b_min and b_max <= t.high and ellipticity >= t.ellipticity
                 and clearance >= 0.0)
        return r, Candidate(np.array(x), angle, b_min, b_max, ellipticity, sense, meets, margins,
                            min(margins.values()), np.array(B))


def _descend(res: _Residuals, x0: np.ndarray) -> Candidate:
    """Levenberg–Marquardt from ``x0`` over the free joints, within their limits."""
    space = res.space
    free = space.free
    lo, hi = space.lower[free], space.upper[free]
    x = np.array(x0, dtype=float)
    x[free] = np.clip(x[free], lo, hi)
    (r, best), = res.of(x[None])
    cost = float(r @ r)
    mu = 1e-2
    for _ in range(ITERATIONS):
        if best.meets and min(best.margins[k] for k in TARGET_MARGINS if k in best.margins) >= 0.5:
            break  # well inside what the target allows: the limits' and magnets' margins are ranked after
        X = np.repeat(x[None], len(free) + 1, axis=0)
        steps = np.where(x[free] + STEP <= hi, STEP, -STEP)
        X[np.arange(1, len(free) + 1), free] += steps
        found = res.of(X)
        r0 = found[0][0]
        J = np.stack([(found[k + 1][0] - r0) / steps[k] for k in range(len(free))], axis=1)
        g = J.T @ r0
        improved = False
        JJ = J.T @ J
        scale = max(float(np.max(np.diag(JJ))), 1e-12)
        for _ in range(12):
            # Levenberg's damping, even over the joints: joints that move the field alike (two parallel
            # axes) make J^T J singular, and a damping scaled per joint would let them run along it
            A = JJ + mu * scale * np.eye(len(free))
            try:
                dx = -np.linalg.solve(A, g)
            except np.linalg.LinAlgError:
                mu *= 10.0
                continue
            largest = float(np.max(np.abs(dx))) if len(dx) else 0.0
            if largest > 0.5:  # at most half a radian a step: the field is far from linear over more
                dx *= 0.5 / largest
            y = x.copy()
            y[free] = np.clip(x[free] + dx, lo, hi)
            (r1, c1), = res.of(y[None])
            c = float(r1 @ r1)
            if c < cost:
                improved = c < cost * (1.0 - 1e-6)  # a step that gains nothing ends the descent
                x, r, best, cost = y, r1, c1, c
                mu = max(mu / 3.0, 1e-6)
                break
            mu *= 10.0
        if not improved:
            break
    return best


def _starts(space: _Space, x0: np.ndarray, count: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    lo = np.where(np.isfinite(space.lower), space.lower, x0 - TURN)
    hi = np.where(np.isfinite(space.upper), space.upper, x0 + TURN)
    out = [np.array(x0, dtype=float)]
    for _ in range(max(count, 1) - 1):
        x = np.array(x0, dtype=float)
        x[space.free] = rng.uniform(lo[space.free], hi[space.free])
        out.append(x)
    return np.array(out)


@dataclass(frozen=True, eq=False)
class PlanJob:
    """What every start of a plan shares when the starts run on an executor (``mime-gui sweep``'s local
    worker processes or a Dask cluster): the rig file's text, its name and ``base`` folder, the package
    folders, and the target; ``key`` names it, so a worker builds the rig once."""

    rig_text: str
    rig_file: str
    base: str
    target: FieldTarget
    package_dirs: tuple[str, ...] = ()
    key: str = ""


def plan_job(rig_text: str, rig_file: str, base: str, target: FieldTarget, package_dirs=()) -> PlanJob:
    import hashlib

    key = hashlib.sha256(rig_text.encode("utf-8", "surrogatepass") + repr(target).encode()).hexdigest()
    return PlanJob(rig_text, rig_file, str(base), target, tuple(package_dirs), key)


_built: dict[str, object] = {}  # a worker's build of its job's rig, by the job's key


def _job_built(job: PlanJob):
    built = _built.get(job.key)
    if built is None:
        from mime_gui.multibody.resolve import set_package_dirs
        from mime_gui.rig.actuator_sources import discover
        from mime_gui.rig.rigfile import parse

        set_package_dirs(list(job.package_dirs))
        discover(job.base)
        built = parse(job.rig_text, job.rig_file, base=job.base).build()
        _built.clear()
        _built[job.key] = built
    return built


def descend_start(job: PlanJob, start) -> tuple[int, Candidate, int]:
    """One start's descent on a worker: ``start`` is ``(index, x0)``; returns its index, its end and the
    poses it evaluated."""
    index, x0 = start
    space = _Space(_job_built(job), job.target)
    return index, _descend(_Residuals(space), np.asarray(x0, dtype=float)), space.evaluations


def plan(built, target: FieldTarget, current=None, starts: int = 8, seed: int = 0, executor=None,
         job: PlanJob | None = None) -> Plan:
    """Poses meeting ``target`` from ``starts`` starts, the first ``current`` (command positions in
    ``built.command_names`` order; the rig's initial positions when None). With an ``executor`` (the
    sweep's: ``map_unordered(fn, job, items)``) and the rig's ``job``, the starts' descents run on it,
    each as it would here. Raises :class:`~mime_gui.field.errors.FieldError` (``plan.*``) when the target
    cannot be aimed at."""
    space = _Space(built, target)
    res = _Residuals(space)
    x0 = built.initial_commands() if current is None else np.asarray(current, dtype=float)
    if x0.shape != (len(space.names),) or not np.all(np.isfinite(x0)):
        raise FieldError("plan.start", f"the current pose is {len(space.names)} finite positions "
                         f"({', '.join(space.names)})", "current")
    xs = _starts(space, x0, starts, seed)
    if executor is None:
        ends = [_descend(res, x) for x in xs]
    else:
        done = sorted(executor.map_unordered(descend_start, job, list(enumerate(xs))), key=lambda r: r[0])
        ends = [c for _, c, _ in done]
        space.evaluations += sum(n for _, _, n in done)
    chosen: list[Candidate] = []
    for c in sorted((c for c in ends if c.meets), key=lambda c: -c.margin):
        if all(np.max(np.abs(c.positions - o.positions)) >= SAME for o in chosen):
            chosen.append(c)
    binding = None
    if not chosen:
        nearest = max(ends, key=lambda c: c.margin)
        binding = min(nearest.margins, key=nearest.margins.get)
    return Plan(target, chosen, ends, binding, space.spin[:2] if space.spin else None, space.names,
                space.evaluations)


def describe_binding(plan_: Plan) -> str:
    """What keeps the target from being met, in words."""
    t = plan_.target
    nearest = max(plan_.ends, key=lambda c: c.margin)
    what = {"direction": f"the field's direction comes no nearer than {math.degrees(nearest.angle):.3g}° "
                         f"to the one asked (tolerance {math.degrees(t.tolerance):.3g}°)",
            "axis": f"the rotation's axis comes no nearer than {math.degrees(nearest.angle):.3g}° to the one "
                    f"asked (tolerance {math.degrees(t.tolerance):.3g}°)",
            "window": f"|B| reaches {nearest.B_min * 1e3:.4g} to {nearest.B_max * 1e3:.4g} mT where the "
                      f"window is {t.low * 1e3:.4g} to {t.high * 1e3:.4g} mT",
            "ellipticity": f"the turn's ellipticity reaches {nearest.ellipticity:.3f}, below the "
                           f"{t.ellipticity:.3f} asked",
            "limits": "the joints would have to pass their limits",
            "magnets": "the point would have to be inside a magnet"}
    return what.get(plan_.binding, plan_.binding or "")


def trajectory_to(built, plan_: Plan, candidate: Candidate, current=None, spin_hold: float = 2.0,
                  ramp: float = 0.5):
    """The trajectory from ``current`` to ``candidate`` (a quintic approach stretched to the joints'
    limits), then held while the servos settle, or for a rotating target the motor's spin at the target's
    frequency (``ramp`` up, held ``spin_hold`` seconds, down), in the ``rad|m`` unit."""
    from mime_gui.rig.trajectories import Keyframe, Spin, Trajectory, fit_to_limits

    x0 = built.initial_commands() if current is None else np.asarray(current, dtype=float)
    names = plan_.names
    segments: dict[str, list] = {}
    spin = plan_.spinner
    for seg in built.segments:
        cols = [i for i, n in enumerate(names) if n.partition(".")[0] == seg]
        joints = [names[i].partition(".")[2] for i in cols]
        if spin is not None and seg == spin[0]:
            continue
        start = {j: float(x0[i]) for j, i in zip(joints, cols, strict=True)}
        end = {j: float(candidate.positions[i]) for j, i in zip(joints, cols, strict=True)}
        segments[seg] = [Keyframe(0.0, values=start), Keyframe(1.0, values=end, interpolation="quintic")]
    fitted, _ = fit_to_limits(built, Trajectory(segments, "rad|m"))
    if spin is None:  # held while the servos settle (ten time constants), so the last row is the pose
        approach = max(k.time for keys in fitted.segments.values() for k in keys)
        settle = max([10.0 * s.segment.servo_time_constant for s in built.segments.values()] + [0.1])
        return Trajectory({seg: (*keys, Keyframe(approach + settle, values=keys[-1].values))
                           for seg, keys in fitted.segments.items()}, "rad|m")
    approach = max(k.time for keys in fitted.segments.values() for k in keys)
    seg, joint = spin
    shaft = names.index(f"{seg}.{joint}")
    hertz = candidate.sense * plan_.target.frequency
    segments = dict(fitted.segments)
    segments[seg] = (Keyframe(0.0, values={joint: float(x0[shaft])}),
                     Keyframe(approach, values={joint: float(candidate.positions[shaft])},
                              interpolation="quintic"),
                     Keyframe(approach + 2 * ramp + spin_hold, interpolation="spin",
                              spin=Spin(hertz, "Hz", ramp=ramp, hold=spin_hold)))
    spun, _ = fit_to_limits(built, Trajectory(segments, "rad|m"))
    return spun


def _played_findings(built, played, spins=None) -> list[Finding]:
    """What the played trajectory breaks beyond its own limits: the field's checks (the keep-out zones, the
    arm's own joints against their tolerance, a sample falling behind the spin), clearance (a contact or a
    pair within the margin) and the dynamic segments' effort and velocity limits (the demand)."""
    from mime_gui.field.checks import field_findings
    from mime_gui.rig.clearance_check import clearance_along

    found = field_findings(built, played, spins=spins)
    found += [f for f in clearance_along(built, played).findings if f.code != "clearance.allow"]
    if any(s.segment.dynamic for s in built.segments.values()):
        found += [Finding(e.code, f"chain.{e.joint.partition('.')[0]}", str(e).split(": ", 1)[1])
                  for e in built.torques(played).excesses]
    return found


@dataclass(frozen=True, eq=False)
class Checked:
    """A candidate's trajectory as played: ``findings`` of every check (none: it passes), the field the
    target sees at the end or over the spin (``angle``, ``B_min``, ``B_max``, ``frequency``,
    ``ellipticity``) and whether that ``confirms`` the target."""

    findings: list[Finding]
    confirms: bool
    angle: float
    B_min: float
    B_max: float
    frequency: float
    ellipticity: float


def check_candidate(built, plan_: Plan, trajectory, dt: float = 0.01) -> Checked:
    """Play ``trajectory`` and check it: its limits (:func:`~mime_gui.rig.trajectories.check`), the keep-out
    zones, clearance, the demand on the dynamic segments and the field at the arm's own joints along it, and
    the field at the target (the last pose's, or the summary of the spin's held part)."""
    from mime_gui.field.along import field_along
    from mime_gui.field.summary import rotating_summary
    from mime_gui.rig.trajectories import check, render

    t = plan_.target
    findings = list(check(built, trajectory, dt))
    time, commands = render(built, trajectory, dt)
    played = built.play(commands, dt)
    findings += _played_findings(built, played, spins=trajectory)
    item = getattr(built.apparatus, t.collection)[t.item]
    point = {t.item: Probe(item.at, mount=item.mount)}
    B = field_along(built, played, point).B[:, 0]
    if not t.rotating:
        b = B[-1]
        size = float(np.linalg.norm(b))
        angle = float(np.arccos(np.clip(b @ np.asarray(t.direction) / max(size, 1e-300), -1, 1)))
        confirms = angle <= t.tolerance and t.low <= size <= t.high
        return Checked(findings, confirms and not findings, angle, size, size, 0.0, math.nan)
    spin = next(k for k in trajectory.segments[plan_.spinner[0]] if k.spin is not None)
    end = spin.time - spin.spin.ramp
    begin = end - (spin.spin.hold or 0.0)
    held = (time >= begin + 1e-9) & (time <= end - 1e-9)
    summary = rotating_summary(time[held], B[held][:, None, :])[0]
    axis = summary.axis
    angle = float(np.arccos(np.clip(axis @ np.asarray(t.axis), -1, 1))) if np.all(np.isfinite(axis)) \
        else math.pi
    if t.frequency < 0:
        angle = float(np.arccos(np.clip(-axis @ np.asarray(t.axis), -1, 1))) if np.all(np.isfinite(axis)) \
            else math.pi
    frequency_ok = abs(summary.frequency - abs(t.frequency)) <= 0.02 * abs(t.frequency)
    confirms = (angle <= t.tolerance and t.low <= summary.B_min and summary.B_max <= t.high
                and summary.ellipticity >= t.ellipticity - 1e-9 and frequency_ok)
    return Checked(findings, confirms and not findings, angle, summary.B_min, summary.B_max,
                   summary.frequency, summary.ellipticity)


__all__ = ["Candidate", "Checked", "Plan", "PlanJob", "check_candidate", "describe_binding", "descend_start",
           "plan", "plan_job", "rotation_of", "trajectory_to"]
