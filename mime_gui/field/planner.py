"""Ask for a field, get the motion: poses of the chain that give a probe or a sample the field a
:class:`~mime_gui.rig.targets.FieldTarget` asks for, checked, and the trajectory that goes there.

**The search.** The unknowns are the chain's commanded joints (for a rotating target, all but the spinning
motor's shaft, which turns through a whole turn at every evaluation). A pose's field at the target's point
comes from the engine's forward kinematics of many poses at once (``BuiltRig.play`` with no servo lag: one
row per pose) and one Magpylib call for them all. Each start is improved by damped Gauss–Newton
(Levenberg–Marquardt) steps on normalised residuals, every step held within the joints' limits.

**The Jacobian** is composed (:mod:`mime_gui.field.jacobian`): the field's derivative with respect to each
magnet's pose (its field and gradient at the point, and the gradient's own derivative when a bound asks for
it, by central differences in space in one Magpylib call) times the engine's frame Jacobians of the magnets'
frames and of the point's own frame (``geometric_jacobian`` of each segment, composed across mounts: the
demo's magnet rides on the motor on the arm's flange). What is composed: the field, its gradient and the
force on the sample at every pose, and every residual of a fixed target; the point's distance from the
magnets. What is not: a rotating target's axis, ellipticity and |B| range are read from the turn's 16
samples by a fit (an SVD and a Fourier coefficient, a least and a largest), and these are differentiated
by central differences along each joint's composed change of the 16 samples — no field is evaluated for
them, but a closed form through the SVD would be no clearer.

Residuals, each 1 at the edge of what the target allows:

- fixed: the unit field's chord to ``direction`` over the chord of ``tolerance`` (3 rows), and |B| from the
  middle of its window over half the window;
- rotating: the rotation's axis (the normal of the plane the field's varying part turns in, oriented by its
  sense of turning, the motor turning forward) likewise against ``axis`` — a target turning the other way is
  met by the motor turning backward —, the turn's least and largest |B| outside the window, and an ellipse
  flatter than ``ellipticity``;
- a bound on the gradient (the Frobenius norm of ``∂B_i/∂x_j``) or on the force on the sample (the dipole
  force ``Gᵀm`` of its moment at its centre), the largest over the turn for a rotating target: the excess
  over :data:`CUSHION` of the bound, so a candidate keeps a little inside it;
- both: the point keeps out of every magnet (its centroid's bounding sphere, 20 % over).

The starts are the current pose and ``starts - 1`` poses drawn evenly within the limits (continuous joints
over one turn) from a fixed seed, so a plan is the same on every run. A start that ends meeting the target
is a **candidate**; candidates closer than 0.05 rad in every joint to a better one are dropped. Each is
ranked by its **margin**: the smallest of its normalised margins (direction, window, ellipticity, the
gradient's and the force's bounds, distance from the joints' limits, distance from the magnets), each 0 at the
edge and 1 at the most comfortable. When no start meets a target with a bound, the search runs again without
its bounds to tell which binds (:func:`_without_bounds`).

:func:`trajectory_to` turns a candidate into a :class:`~mime_gui.rig.trajectories.Trajectory` (a quintic
approach from the current pose, stretched to the limits, then for a rotating target the motor's spin) and
:func:`check_candidate` checks it as played: the trajectory's limits, the keep-out zones and the field at the
target along it (the last pose's field, or the rotating-field summary of the spin's steady part), and a
target's gradient or force bound at every step of it, the approach included (the force by
:func:`~mime_gui.field.samples.forces_along`: getFT on a shaped sample near a magnet, where the search's
dipole force is an approximation).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from mime_gui.field.along import field_at
from mime_gui.field.errors import FieldError
from mime_gui.field.jacobian import ChainJacobian, compose, field_terms, point_velocities
from mime_gui.rig.findings import Finding
from mime_gui.rig.magnet_sources import bounding_radius, magnet_sources
from mime_gui.rig.probes import Probe
from mime_gui.rig.segments import MOTOR_JOINT
from mime_gui.rig.targets import FieldTarget

#: poses of one turn sampled for a rotating target (a turn's ellipse is its first harmonic: a few suffice)
TURN_SAMPLES = 16
#: Gauss–Newton iterations per start
ITERATIONS = 40
#: the step of the central differences through a turn's fit, over |B| (a change of 1e-6 of the field)
FIT_STEP = 1e-6
#: the point keeps this factor of a magnet's bounding radius away from its centroid
KEEP_OUT = 1.2
#: candidates this close in every joint (rad or m) are one
SAME = 0.05
#: a continuous joint's starts are drawn over this range (rad)
TURN = math.pi
#: a joint this near a limit (a fraction of its range) is pulled away from it, with this weight
NEAR_LIMIT = 0.1
PULL = 0.3
#: a gradient or force bound's residual grows from this share of the bound (a candidate keeps inside it),
#: with this weight
CUSHION = 0.9
BOUND_WEIGHT = 10.0
#: the margins that say how well the target is met (the others rank the candidates)
TARGET_MARGINS = ("direction", "axis", "window", "ellipticity")


@dataclass(frozen=True, eq=False)
class Candidate:
    """A pose found for the target: ``positions`` of every command (``built.command_names``; for a rotating
    target the shaft's is where the turn starts), what the target sees there (``angle`` rad from the asked
    direction or axis, ``B_min``/``B_max`` T, ``ellipticity`` for a rotating target), ``sense`` (+1: the
    motor turns forward at the target's frequency, -1: backward), whether it ``meets`` the target, its
    normalised ``margins`` and their smallest, ``margin``; ``gradient`` (T/m, the gradient's Frobenius norm)
    and ``force`` (N, the dipole force on the sample), the largest over the turn, where the target bounds
    them (NaN otherwise)."""

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
    gradient: float = math.nan
    force: float = math.nan


@dataclass(frozen=True, eq=False)
class Plan:
    """What :func:`plan` found: ``candidates`` meeting the target, best margin first; ``ends`` every start's
    end; ``binding`` the constraint the best end missed by most when none meets (None otherwise), and
    ``nearest`` that end (for a bounded target, the pose of the search without its bounds it is read from);
    ``spinner`` the ``(segment, joint)`` turned for a rotating target."""

    target: FieldTarget
    candidates: list[Candidate]
    ends: list[Candidate]
    binding: str | None
    spinner: tuple[str, str] | None
    names: tuple[str, ...]
    evaluations: int
    nearest: Candidate | None = None


@dataclass(frozen=True, eq=False)
class Seen:
    """What the target sees at ``K`` poses: ``B (K, 3)`` T, each magnet's ``clear``ance (its distance over
    its bounding radius, ``(K, M)``), and where a bound asks, ``G (K, 3, 3)`` T/m and the dipole force on
    the sample ``F (K, 3)`` N; with the Jacobian, each one's change per command (``dB (K, 3, n)``,
    ``dclear (K, M, n)``, ``dG (K, 3, 3, n)``, ``dF (K, 3, n)``)."""

    B: np.ndarray
    clear: np.ndarray
    G: np.ndarray | None = None
    F: np.ndarray | None = None
    dB: np.ndarray | None = None
    dclear: np.ndarray | None = None
    dG: np.ndarray | None = None
    dF: np.ndarray | None = None


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
        if not self.names:
            raise FieldError("plan.joints", "the rig has no joint to command, so no motion changes the "
                             "field; add a segment with a movable joint (a robot or a motor)", "chain")
        self.radii = np.array([bounding_radius(m) for m in self.magnets])
        self.moment = None
        if target.max_force is not None:
            from mime_gui.field.samples import _moments

            direction, size = _moments(built)[target.item]
            follows = self.item.orientation == "follows"
            self.moment = (np.asarray(direction, dtype=float), float(size), follows)
        self.chain = ChainJacobian(built)
        self.spin = None
        if target.rotating:
            self.spin = self._spinner()
        self.free = np.array([i for i, n in enumerate(self.names) if self.spin is None or i != self.spin[2]],
                             dtype=int)  # indices, also when the spinning shaft is the only joint
        self.evaluations = 0

    def _spinner(self) -> tuple[str, str, int]:
        """The motor whose shaft turns a magnet: the first motor segment with a magnet on a frame its shaft
        moves (the rotor, or a frame on it; a magnet on the stator stays still)."""
        rig = self.built.apparatus
        for magnet in rig.magnets.values():
            seg, _, frame = (magnet.mount or "").partition(".")
            if seg in self.built.segments and MOTOR_JOINT in self.built.node(seg).command_names \
                    and _moved_by(self.built.segments[seg].articulation, MOTOR_JOINT, frame):
                column = self.names.index(f"{seg}.{MOTOR_JOINT}")
                return seg, MOTOR_JOINT, column
        raise FieldError("plan.spin", "a rotating target needs a motor turning a magnet (a magnet mounted on "
                         "a motor segment's rotor); add one, or ask for a fixed direction", "magnets")

    @property
    def bounded(self) -> bool:
        return self.target.max_gradient is not None or self.target.max_force is not None

    def seen(self, X: np.ndarray, jacobian: bool = False) -> Seen:
        """What the target sees at the poses ``X (K, n)`` (:class:`Seen`), with its change per command
        when ``jacobian`` (composed: :mod:`mime_gui.field.jacobian`)."""
        X = np.asarray(X, dtype=float)
        self.evaluations += len(X)
        played = self.built.play(X, 1.0, servo_time_constant=0.0)  # rows are poses
        poses = np.asarray(played.frame_poses, dtype=float)  # (K, F, 4, 4)
        K = len(X)
        if self.frame is None:
            points = np.broadcast_to(self.at, (K, 3)).copy()
            axes = np.broadcast_to(np.eye(3), (K, 3, 3))
        else:
            F = poses[:, self.frame]
            points = F[:, :3, :3] @ self.at + F[:, :3, 3]
            axes = F[:, :3, :3]
        X_magnets = np.stack([m.poses(poses) for m in self.magnets], axis=1)
        centres = X_magnets[:, :, :3, 3]
        offset = points[:, None, :] - centres
        distance = np.linalg.norm(offset, axis=2)
        clear = distance / np.maximum(self.radii, 1e-12)
        if not (jacobian or self.bounded):
            B = field_at(self.magnets, X_magnets, points[:, None, :]).sum(axis=1)[:, 0]
            return Seen(B, clear)
        second = jacobian and self.bounded  # the gradient's own change: only for a bound on it
        Bm, Gm, Hm = field_terms(self.magnets, X_magnets, points, self.radii, second=second)
        B, G = Bm.sum(axis=1), Gm.sum(axis=1)
        moment = self._moment(B, axes)
        force = None if moment is None else np.einsum("kij,ki->kj", G, moment)
        if not jacobian:
            return Seen(B, clear, G if self.bounded else None, force)
        n = len(self.names)
        twists = np.zeros((K, len(self.magnets), 6, n))
        riding = [i for i, m in enumerate(self.magnets) if m.frame is not None]  # the others stand still
        if riding:
            twists[:, riding] = self.chain.twists(played, [self.magnets[i].frame for i in riding], poses)
        if self.frame is None:
            frame_twist = np.zeros((K, 6, n))
            velocity = np.zeros((K, 3, n))
        else:
            frame_twist = self.chain.twists(played, [self.frame], poses)[:, 0]
            velocity = point_velocities(frame_twist, poses[:, self.frame, :3, 3], points)
        dB, dG = compose(Bm, Gm, Hm, twists, centres, points, velocity)
        # the distance changes with the point's velocity relative to the magnet's centre
        along = offset / np.maximum(distance, 1e-300)[..., None]
        dclear = np.einsum("kmi,kmin->kmn", along, velocity[:, None] - twists[:, :, 3:]) \
            / np.maximum(self.radii, 1e-12)[:, None]
        dF = None
        if moment is not None:
            dF = np.einsum("kijn,ki->kjn", dG, moment) + np.einsum("kij,kin->kjn", G,
                                                                 self._moment_change(B, dB, moment,
                                                                                     frame_twist))
        return Seen(B, clear, G if self.bounded else None, force, dB, dclear, dG, dF)

    def _moment(self, B: np.ndarray, axes: np.ndarray) -> np.ndarray | None:
        """The sample's moment ``(K, 3)`` A·m²: held in its mount frame, or along the field where it
        follows it (its mount frame's direction where the field is zero), as the sample's forces take it."""
        if self.moment is None:
            return None
        direction, size, follows = self.moment
        fixed = axes @ direction
        if not follows:
            return size * fixed
        norm = np.linalg.norm(B, axis=1, keepdims=True)
        return size * np.divide(B, norm, out=fixed.copy(), where=norm > 0)

    def _moment_change(self, B, dB, moment, frame_twist) -> np.ndarray:
        """The moment's change per command ``(K, 3, n)``: it turns with its mount frame, or with the field's
        direction where it follows it."""
        direction, size, follows = self.moment
        if not follows:
            return np.cross(frame_twist[:, :3], moment[:, :, None], axis=1)
        norm = np.maximum(np.linalg.norm(B, axis=1), 1e-300)
        unit = B / norm[:, None]
        across = dB - unit[:, :, None] * np.einsum("ki,kin->kn", unit, dB)[:, None, :]
        return size * across / norm[:, None, None]

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
    axis, ellipticity, b_min, b_max = _rotations(np.asarray(B, dtype=float)[None])
    return axis[0], float(ellipticity[0]), float(b_min[0]), float(b_max[0])


def _rotations(B: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`rotation_of` of many turns ``(N, S, 3)`` at once (a turn that does not turn: a NaN axis)."""
    size = np.linalg.norm(B, axis=-1)
    varying = B - B.mean(axis=1, keepdims=True)
    _, s, Vt = np.linalg.svd(varying, full_matrices=False)
    still = s[:, 0] <= 1e-12 * np.maximum(size.max(axis=1), 1e-300)
    e1, normal = Vt[:, 0], Vt[:, 2]
    e2 = np.cross(normal, e1)
    theta = 2.0 * math.pi * np.arange(B.shape[1]) / B.shape[1]
    z = np.einsum("nsi,ni->ns", varying, e1) + 1j * np.einsum("nsi,ni->ns", varying, e2)
    a, b = np.abs(np.mean(z * np.exp(-1j * theta), axis=1)), np.abs(np.mean(z * np.exp(1j * theta), axis=1))
    ellipticity = np.where(still, 0.0, np.abs(a - b) / np.maximum(a + b, 1e-300))
    axis = np.where((a >= b)[:, None], normal, -normal)
    axis[still] = np.nan
    return axis, ellipticity, size.min(axis=1), size.max(axis=1)


def _norm_change(value: np.ndarray, change: np.ndarray) -> tuple[float, np.ndarray]:
    """``|value|`` (a vector or a matrix's Frobenius norm) and its change per command, from ``change``
    (``value``'s shape then the commands)."""
    size = float(np.linalg.norm(value))
    flat = value.reshape(-1)
    return size, (flat @ change.reshape(len(flat), -1)) / max(size, 1e-300)


def _moved_by(art, joint: str, frame: str) -> bool:
    """True when ``joint`` moves ``frame`` of ``art`` (the frame's body is the joint's or below it)."""
    if frame not in art.frame_names:
        return False
    moved, body = art.joint_index(joint) + 1, int(art.frame_body[art.frame_index(frame)])
    while body > moved:  # parent[i] < i: up the tree until at or above the joint's body
        body = int(art.parent[body])
    return body == moved


class _Residuals:
    """The normalised residuals of a target, their Jacobian over the free joints, and the candidate they
    describe."""

    def __init__(self, space: _Space):
        self.space, self.target = space, space.target
        t = self.target
        self.chord = max(_chord(t.tolerance), 1e-9)
        self.middle = 0.5 * (t.low + t.high)
        self.half = max(0.5 * (t.high - t.low), 1e-6 * max(self.middle, 1e-9), 1e-12)

    def of(self, X: np.ndarray, jacobian: bool = False) \
            -> list[tuple[np.ndarray, Candidate, np.ndarray | None]]:
        """Residuals, candidate and (with ``jacobian``) the residuals' Jacobian over the free joints of
        each pose of ``X (K, n)``."""
        space, t = self.space, self.target
        X = np.asarray(X, dtype=float)
        if not t.rotating:
            seen = space.seen(X, jacobian)
            return [self._fixed(x, _pick(seen, k, space.free)) for k, x in enumerate(X)]
        turns = space.turns(X)
        seen = space.seen(turns.reshape(-1, turns.shape[-1]), jacobian)
        return [self._rotating(x, _pick(seen, slice(k * TURN_SAMPLES, (k + 1) * TURN_SAMPLES), space.free))
                for k, x in enumerate(X)]

    def _limits(self, x: np.ndarray) -> float:
        lo, hi = self.space.lower, self.space.upper
        finite = np.isfinite(lo) & np.isfinite(hi) & (hi > lo)
        finite[~np.isin(np.arange(len(x)), self.space.free)] = False
        if not finite.any():
            return 1.0
        room = np.minimum(x[finite] - lo[finite], hi[finite] - x[finite]) / (0.5 * (hi[finite] - lo[finite]))
        return float(np.clip(room.min(), 0.0, 1.0))

    def _pull(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """A joint within :data:`NEAR_LIMIT` of its range from a limit pulls away from it, gently: a pose
        with room to move ranks above one pressed against a stop, the target's residuals weighing more.
        The rows and their Jacobian (diagonal: each joint's row moves with it alone)."""
        lo, hi = self.space.lower[self.space.free], self.space.upper[self.space.free]
        finite = np.isfinite(lo) & np.isfinite(hi) & (hi > lo)
        room = np.ones(len(lo))
        slope = np.zeros(len(lo))
        xf = x[self.space.free]
        span = hi[finite] - lo[finite]
        below = xf[finite] - lo[finite]
        above = hi[finite] - xf[finite]
        room[finite] = np.minimum(below, above) / span
        slope[finite] = np.where(below <= above, 1.0, -1.0) / span
        near = room < NEAR_LIMIT
        rows = PULL * np.maximum(0.0, NEAR_LIMIT - room) / NEAR_LIMIT
        return rows, np.diag(np.where(near, -PULL / NEAR_LIMIT * slope, 0.0))

    def _common(self, seen: Seen) -> tuple[float, float, np.ndarray | None]:
        """The keep-out guard (its row, the magnets' margin and the row's Jacobian): the least clearance
        over the magnets (and the turn)."""
        k, m = np.unravel_index(int(np.argmin(seen.clear)), seen.clear.shape)
        least = float(seen.clear[k, m])
        guard = max(0.0, KEEP_OUT - least) * 10.0
        row = None
        if seen.dclear is not None:
            row = -10.0 * seen.dclear[k, m] if guard > 0 else np.zeros(seen.dclear.shape[-1])
        return guard, float(min(1.0, (least - KEEP_OUT) / KEEP_OUT)), row

    def _bounds(self, seen: Seen) -> tuple[list[float], list[np.ndarray], dict[str, float], float, float]:
        """The gradient's and the force's rows (the largest over the turn against :data:`CUSHION` of the
        bound), their Jacobian rows, their margins and the largest values."""
        t = self.target
        rows, jac, margins = [], [], {}
        gradient = force = math.nan
        for key, bound, values, changes in (("gradient", t.max_gradient, seen.G, seen.dG),
                                            ("force", t.max_force, seen.F, seen.dF)):
            if bound is None:
                continue
            sizes = np.linalg.norm(values.reshape(len(values), -1), axis=1)
            k = int(np.argmax(sizes))
            largest = float(sizes[k])
            excess = largest / bound - CUSHION
            rows.append(BOUND_WEIGHT * max(0.0, excess))
            if changes is not None:
                _, d = _norm_change(values[k], changes[k])
                jac.append(BOUND_WEIGHT / bound * d if excess > 0 else np.zeros_like(d))
            margins[key] = float(min(1.0, 1.0 - largest / bound))
            if key == "gradient":
                gradient = largest
            else:
                force = largest
        return rows, jac, margins, gradient, force

    def _fixed(self, x, seen: Seen) -> tuple[np.ndarray, Candidate, np.ndarray | None]:
        t = self.target
        B = seen.B[0]
        size = float(np.linalg.norm(B))
        d = np.asarray(t.direction)
        unit = B / size if size > 0 else np.zeros(3)
        angle = float(np.arccos(np.clip(unit @ d, -1.0, 1.0))) if size > 0 else math.pi
        guard, clearance, guard_row = self._common(seen)
        bound_rows, bound_jac, bound_margins, gradient, force = self._bounds(seen)
        pull, pull_jac = self._pull(x)
        r = np.concatenate([(unit - d) / self.chord, [(size - self.middle) / self.half, guard], bound_rows,
                            pull])
        J = None
        if seen.dB is not None:
            dB = seen.dB[0]
            dunit = (dB - np.outer(unit, unit @ dB)) / max(size, 1e-300)
            J = np.vstack([dunit / self.chord, (unit @ dB) / self.half, guard_row, *bound_jac, pull_jac])
        margins = {"direction": 1.0 - angle / t.tolerance if t.tolerance > 0 else float(angle == 0.0) - 1.0,
                   "window": min(size - t.low, t.high - size) / self.half, **bound_margins,
                   "limits": self._limits(x), "magnets": clearance}
        meets = angle <= t.tolerance and t.low <= size <= t.high and clearance >= 0.0 and \
            all(bound_margins[k] >= 0.0 for k in bound_margins)
        return r, Candidate(np.array(x), angle, size, size, math.nan, 1, meets, margins,
                            min(margins.values()), np.array(B), gradient, force), J

    def _turn_rows(self, B: np.ndarray) -> tuple[np.ndarray, tuple]:
        """The rows read from the fit of turns ``(N, S, 3)`` (the axis, the window, the ellipticity:
        ``(N, 7)``) and what the first turn's fit gave."""
        t = self.target
        axis, ellipticity, b_min, b_max = _rotations(B)
        a = np.asarray(t.axis)
        turning = np.all(np.isfinite(axis), axis=1)
        # the motor turns backward for a field turning the other way
        sense = np.where(np.nan_to_num(axis) @ a >= 0, 1, -1)
        axis = np.where(turning[:, None], sense[:, None] * np.nan_to_num(axis), 0.0)
        angle = np.where(turning, np.arccos(np.clip(axis @ a, -1.0, 1.0)), math.pi)
        rows = np.concatenate([(axis - a) / self.chord,
                               np.stack([np.maximum(0.0, t.low - b_min) / self.half,
                                         np.maximum(0.0, b_max - t.high) / self.half,
                                         (0.5 * (b_min + b_max) - self.middle) / self.half * 0.5,
                                         np.maximum(0.0, t.ellipticity - ellipticity) * 10.0], axis=1)],
                              axis=1)
        return rows, (float(angle[0]), int(sense[0]) if turning[0] else 1, float(ellipticity[0]),
                      float(b_min[0]), float(b_max[0]))

    def _rotating(self, x, seen: Seen) -> tuple[np.ndarray, Candidate, np.ndarray | None]:
        t = self.target
        B = seen.B
        J = None
        if seen.dB is None:
            fitted, (angle, sense, ellipticity, b_min, b_max) = self._turn_rows(B[None])
            fitted = fitted[0]
        else:
            # the fit is differenced, not composed: central differences along each joint's composed change
            # of the turn's samples, every one fitted in one batch
            change = np.moveaxis(seen.dB, -1, 0)  # (n, S, 3)
            largest = np.linalg.norm(change, axis=2).max(axis=1)
            h = FIT_STEP * max(float(np.linalg.norm(B, axis=1).max()), 1e-300) / np.maximum(largest, 1e-300)
            step = h[:, None, None] * change
            rows, (angle, sense, ellipticity, b_min, b_max) = self._turn_rows(
                np.concatenate([B[None], B + step, B - step]))
            n = len(change)
            fitted = rows[0]
            fit_jac = ((rows[1:n + 1] - rows[n + 1:]) / (2.0 * h[:, None])).T
            fit_jac[:, largest == 0.0] = 0.0
        guard, clearance, guard_row = self._common(seen)
        bound_rows, bound_jac, bound_margins, gradient, force = self._bounds(seen)
        pull, pull_jac = self._pull(x)
        r = np.concatenate([fitted, [guard], bound_rows, pull])
        if seen.dB is not None:
            J = np.vstack([fit_jac, guard_row, *bound_jac, pull_jac])
        margins = {"axis": 1.0 - angle / t.tolerance if t.tolerance > 0 else float(angle == 0.0) - 1.0,
                   "window": min(b_min - t.low, t.high - b_max) / self.half,
                   "ellipticity": (ellipticity - t.ellipticity) / max(1.0 - t.ellipticity, 1e-9)
                   if t.ellipticity < 1 else float(ellipticity >= 1.0) - 1.0, **bound_margins,
                   "limits": self._limits(x), "magnets": clearance}
        meets = (angle <= t.tolerance and t.low <= b_min and b_max <= t.high and ellipticity >= t.ellipticity
                 and clearance >= 0.0 and all(bound_margins[k] >= 0.0 for k in bound_margins))
        return r, Candidate(np.array(x), angle, b_min, b_max, ellipticity, sense, meets, margins,
                            min(margins.values()), np.array(B), gradient, force), J


def _pick(seen: Seen, rows, free: np.ndarray) -> Seen:
    """The poses ``rows`` of ``seen`` (an index or a slice; kept two-dimensional), the changes over the free
    joints alone."""
    rows = slice(rows, rows + 1) if isinstance(rows, int) else rows

    def part(a, change=False):
        if a is None:
            return None
        a = a[rows]
        return a[..., free] if change else a

    return Seen(part(seen.B), part(seen.clear), part(seen.G), part(seen.F), part(seen.dB, True),
                part(seen.dclear, True), part(seen.dG, True), part(seen.dF, True))


def _descend(res: _Residuals, x0: np.ndarray) -> Candidate:
    """Levenberg–Marquardt from ``x0`` over the free joints, within their limits."""
    space = res.space
    free = space.free
    lo, hi = space.lower[free], space.upper[free]
    x = np.array(x0, dtype=float)
    x[free] = np.clip(x[free], lo, hi)
    (r, best, J), = res.of(x[None], jacobian=True)
    if not len(free):  # nothing to move: the pose is what it gives
        return best
    cost = float(r @ r)
    mu = 1e-2
    for _ in range(ITERATIONS):
        if best.meets and min(best.margins[k] for k in TARGET_MARGINS if k in best.margins) >= 0.5:
            break  # well inside what the target allows: the limits' and magnets' margins are ranked after
        g = J.T @ r
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
            # with its Jacobian: most steps are taken, and one evaluation with the field's derivatives costs
            # less than a second one for them
            (r1, c1, J1), = res.of(y[None], jacobian=True)
            c = float(r1 @ r1)
            if c < cost:
                improved = c < cost * (1.0 - 1e-6)  # a step that gains nothing ends the descent
                x, r, best, J, cost = y, r1, c1, J1, c
                mu = max(mu / 3.0, 1e-6)
                break
            mu *= 10.0
        if not improved:
            break
    return best


def target_field(built, target: FieldTarget, positions, jacobian: bool = True) -> Seen:
    """What ``target``'s point sees at the command positions ``(K, n)`` (``built.command_names`` order): B,
    each magnet's clearance and, where the target bounds them, the gradient and the force on the sample; with
    ``jacobian`` each one's change per command, composed as the search takes it."""
    return _Space(built, target).seen(positions, jacobian)


def _starts(space: _Space, x0: np.ndarray, count: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    lo = np.where(np.isfinite(space.lower), space.lower, x0 - TURN)
    hi = np.where(np.isfinite(space.upper), space.upper, x0 + TURN)
    out = [np.array(x0, dtype=float)]
    # no joint to search (a lone motor spinning): every start would be the current pose
    for _ in range(max(count, 1) - 1 if len(space.free) else 0):
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
    chosen = _distinct(ends)
    binding = nearest = None
    if not chosen:
        nearest = max(ends, key=lambda c: c.margin)
        binding = min(nearest.margins, key=nearest.margins.get)
        if space.bounded:
            chosen, binding, nearest = _without_bounds(built, res, x0, starts, seed, executor, job)
    return Plan(target, chosen, ends, binding, space.spin[:2] if space.spin else None, space.names,
                space.evaluations, nearest)


def _distinct(found: list[Candidate]) -> list[Candidate]:
    """Those that meet the target, best margin first, each at least :data:`SAME` from a better one."""
    chosen: list[Candidate] = []
    for c in sorted((c for c in found if c.meets), key=lambda c: -c.margin):
        if all(np.max(np.abs(c.positions - o.positions)) >= SAME for o in chosen):
            chosen.append(c)
    return chosen


def _without_bounds(built, res: _Residuals, x0, starts, seed, executor, job):
    """No start met a target with a gradient or force bound: the descent weighs a bound passed many times
    over against the field, and ends between them, where neither says which binds. So the search is run
    again without the bounds, and its candidates read with them: those within the bounds are candidates;
    otherwise the field is met and the bound they pass by most binds; where even the field cannot be met,
    what binds it does. ``(candidates, binding, the end the binding is read from)``."""
    from dataclasses import replace

    loose = replace(res.target, max_gradient=None, max_force=None)
    loose_job = None if job is None else \
        plan_job(job.rig_text, job.rig_file, job.base, loose, job.package_dirs)
    found = plan(built, loose, x0, starts, seed, executor, loose_job)
    res.space.evaluations += found.evaluations
    if not found.candidates:
        return [], found.binding, found.nearest or max(found.ends, key=lambda c: c.margin)
    reread = [c for _, c, _ in res.of(np.array([c.positions for c in found.candidates]))]
    chosen = _distinct(reread)
    if chosen:
        return chosen, None, None
    bounds = [k for k in ("gradient", "force") if k in reread[0].margins]
    nearest = max(reread, key=lambda c: min(c.margins[k] for k in bounds))
    return [], min(bounds, key=nearest.margins.get), nearest


def describe_binding(plan_: Plan) -> str:
    """What keeps the target from being met, in words."""
    t = plan_.target
    nearest = plan_.nearest or max(plan_.ends, key=lambda c: c.margin)
    what = {"direction": f"the field's direction comes no nearer than {math.degrees(nearest.angle):.3g}° "
                         f"to the one asked (tolerance {math.degrees(t.tolerance):.3g}°)",
            "axis": f"the rotation's axis comes no nearer than {math.degrees(nearest.angle):.3g}° to the one "
                    f"asked (tolerance {math.degrees(t.tolerance):.3g}°)",
            "window": f"|B| reaches {nearest.B_min * 1e3:.4g} to {nearest.B_max * 1e3:.4g} mT where the "
                      f"window is {t.low * 1e3:.4g} to {t.high * 1e3:.4g} mT",
            "ellipticity": f"the turn's ellipticity reaches {nearest.ellipticity:.3f}, below the "
                           f"{t.ellipticity:.3f} asked",
            "gradient": f"where the field asked for is met, its gradient is no less than "
                        f"{nearest.gradient:.4g} T/m; the bound is {t.max_gradient or 0:.4g} T/m",
            "force": f"where the field asked for is met, the force on the sample is no less than "
                     f"{nearest.force:.4g} N; the bound is {t.max_force or 0:.4g} N",
            "limits": "the joints would have to pass their limits",
            "magnets": "the point would have to be inside a magnet"}
    return what.get(plan_.binding, plan_.binding or "")


def trajectory_to(built, plan_: Plan, candidate: Candidate, current=None, spin_hold: float = 2.0,
                  ramp: float = 0.5):
    """The trajectory from ``current`` to ``candidate`` (a quintic approach stretched to the joints'
    limits), then held while the servos settle, or for a rotating target the motor's spin at the target's
    frequency (``ramp`` up, held ``spin_hold`` seconds, down), in the ``rad|m`` unit."""
    from mime_gui.rig.trajectories import Keyframe, Spin, Trajectory, fit_to_limits

    names = plan_.names
    if current is None:
        x0 = built.initial_commands()
    else:
        x0 = np.asarray(current, dtype=float)
        if x0.shape != (len(names),) or not np.isfinite(x0).all():
            raise ValueError(f"current must be {len(names)} finite positions ({', '.join(names)}), got "
                             f"{x0.tolist() if x0.size <= 12 else x0.shape}")
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
    # the approach's end as fitted; 1 s, as authored, when the spinning motor is the only segment
    approach = max((k.time for keys in fitted.segments.values() for k in keys), default=1.0)
    if spin is None:  # held while the servos settle (ten time constants), so the last row is the pose
        settle = max([10.0 * s.segment.servo_time_constant for s in built.segments.values()] + [0.1])
        return Trajectory({seg: (*keys, Keyframe(approach + settle, values=keys[-1].values))
                           for seg, keys in fitted.segments.items()}, "rad|m")
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
    ``ellipticity``), the largest ``gradient`` (T/m) and ``force`` (N) along the whole trajectory where the
    target bounds them (NaN otherwise), and whether that ``confirms`` the target."""

    findings: list[Finding]
    confirms: bool
    angle: float
    B_min: float
    B_max: float
    frequency: float
    ellipticity: float
    gradient: float = math.nan
    force: float = math.nan


def _bounds_along(built, target: FieldTarget, played, time) -> tuple[float, float, list[Finding]]:
    """The largest gradient's Frobenius norm and force on the sample at the target along ``played``, and a
    finding for each bound passed (where it is passed first)."""
    from mime_gui.field.along import _probe_poses
    from mime_gui.field.forces import gradient_at

    found: list[Finding] = []
    gradient = force = math.nan
    if target.max_gradient is not None:
        item = getattr(built.apparatus, target.collection)[target.item]
        magnets = magnet_sources(built)
        frame_poses = np.asarray(played.frame_poses, dtype=float)
        points, _ = _probe_poses(built, {target.item: Probe(item.at, mount=item.mount)}, frame_poses)
        X = np.stack([m.poses(frame_poses) for m in magnets], axis=1)
        _, G, _ = gradient_at(magnets, X, points, np.array([bounding_radius(m) for m in magnets]))
        sizes = np.linalg.norm(G[:, 0].reshape(len(G), -1), axis=1)
        gradient = _over("plan.gradient", target.at, "the field's gradient", sizes, target.max_gradient,
                         "T/m", time, found)
    if target.max_force is not None:
        from mime_gui.field.samples import forces_along

        forces = forces_along(built, played)
        force = _over("plan.force", target.at, "the force on the sample",
                      np.linalg.norm(forces.force[:, list(forces.sample_names).index(target.item)], axis=1),
                      target.max_force, "N", time, found)
    return gradient, force, found


def _over(code: str, at: str, what: str, sizes: np.ndarray, bound: float, unit: str, time,
          found: list) -> float:
    """The largest of ``sizes`` (one per step); a finding in ``found`` when it passes ``bound``."""
    worst = float(sizes.max())
    if worst > bound:
        first = np.flatnonzero(sizes > bound)[0]
        found.append(Finding(code, at, f"{what} reaches {worst:.4g} {unit} (first above the bound at "
                                       f"t = {time[first]:g} s) where the bound is {bound:.4g} {unit}"))
    return worst


def check_candidate(built, plan_: Plan, trajectory, dt: float = 0.01) -> Checked:
    """Play ``trajectory`` and check it: its limits (:func:`~mime_gui.rig.trajectories.check`), the keep-out
    zones, clearance, the demand on the dynamic segments and the field at the arm's own joints along it, the
    field at the target (the last pose's, or the summary of the spin's held part), and the target's gradient
    and force bounds at every step (``plan.gradient``, ``plan.force``)."""
    from mime_gui.field.along import field_along
    from mime_gui.field.summary import rotating_summary
    from mime_gui.rig.trajectories import check, render

    t = plan_.target
    findings = list(check(built, trajectory, dt))
    time, commands = render(built, trajectory, dt)
    played = built.play(commands, dt)
    findings += _played_findings(built, played, spins=trajectory)
    gradient, force, bounded = _bounds_along(built, t, played, time)
    findings += bounded
    item = getattr(built.apparatus, t.collection)[t.item]
    point = {t.item: Probe(item.at, mount=item.mount)}
    B = field_along(built, played, point).B[:, 0]
    if not t.rotating:
        b = B[-1]
        size = float(np.linalg.norm(b))
        angle = float(np.arccos(np.clip(b @ np.asarray(t.direction) / max(size, 1e-300), -1, 1)))
        confirms = angle <= t.tolerance and t.low <= size <= t.high
        return Checked(findings, confirms and not findings, angle, size, size, 0.0, math.nan, gradient, force)
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
                   summary.frequency, summary.ellipticity, gradient, force)


__all__ = ["Candidate", "Checked", "Plan", "PlanJob", "Seen", "check_candidate", "describe_binding",
           "descend_start", "plan", "plan_job", "rotation_of", "target_field", "trajectory_to"]
