"""Damped least-squares inverse kinematics: joint positions that put a frame at a target pose.

The unknowns are the joints between the world and the frame, mimic followers excepted: a follower is
``clamp(multiplier * master + offset)`` as the playback node makes it (its master is the unknown, and its
column of the Jacobian is added to its master's while the clamp is not active).

Conventions (those of :mod:`mime_gui.multibody`, plus one):

- The 6-D error and the Jacobian it is solved with are in **world axes at the frame's origin**, rows
  ``[angular; linear]``: ``e = [log(world_R_target @ world_R_frame^T); p_target - p_frame]``. This is
  :func:`~mime_gui.multibody.geometric_jacobian` with its linear rows moved from the world origin to the
  frame's origin (``v_frame = v_o + omega x p_frame``). Position-only uses the linear rows alone.
- Metres and radians are weighed alike in the cost ``E = |e|^2 / 2``.

Each iteration takes a Levenberg–Marquardt step ``dx = z + J^T (J J^T + lambda^2 I)^-1 (e - J z)`` with
``lambda^2 = mu * E + lambda_bar^2`` (Sugihara's damping: it grows with the error, so the step stays bounded
near singularities and far from the target, and vanishes at a reachable target, where convergence is
quadratic). A step that would not lower ``E`` is refused and ``mu`` grows tenfold; an accepted one halves it.
``z`` pulls the joints with finite limits toward the middle of their range in the (damped) null space of the
task; it is never larger than the error, so it fades as the frame reaches the target and cannot hold it off
(its second-order drift along the task shrinks with the error squared).

No iterate crosses a limit: a joint whose step would cross one is moved exactly onto it and dropped from
the step, which is solved again over the others (an active set rebuilt every iteration, so a joint leaves
its limit when the step pulls it inward). A step is also scaled so that no joint moves more than
``max_step`` in one iteration.

A target out of reach ends where the steps stall and no unknown moved by ±1e-2 or ±1e-4 (within its limits)
lowers ``E`` (the Gauss–Newton model ``J^T J`` cannot see a saddle's falling curvature; such a move leaves it
and the steps resume): a local minimum of ``E`` within the limits, reported with ``converged=False`` and the
remaining distance and angle.

:func:`solve` works on one articulation. :class:`ArticulationFrame` and :class:`Mounted` are the pose and
Jacobian of a frame as functions of the unknowns; :func:`solve_frame` takes any such function, so a frame on
a segment riding on another is solved over both segments' joints together.

An iteration is a few thousand flops, which numpy spends ~30x in call overhead, so the frame's pose and
Jacobian, the error and the damped step run compiled (:func:`~mime_gui.multibody._kernels.ik_frame`,
:func:`~mime_gui.multibody._kernels.ik_error`, :func:`~mime_gui.multibody._kernels.ik_step`); the loop
around them stays here, so any :class:`FrameFunction` is solved alike.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from mime_gui.errors import CodedError
from mime_gui.multibody._model import model
from mime_gui.multibody._world import cross
from mime_gui.multibody.articulation import Articulation

#: reached: the remaining distance (m) and angle (rad) at or below these
POSITION_TOLERANCE = 1e-10
ANGLE_TOLERANCE = 1e-10


_EYE3 = np.eye(3)
_EYE3.setflags(write=False)
_EYE4 = np.eye(4)  # writable: the compiled code takes one layout
_FLOAT = np.dtype(float)


_LOADED: list = []


def _kernels():
    """The compiled kernels, imported on first use (numba's import takes ~0.5 s; the import statement
    itself ~1 µs, so the module is kept)."""
    if not _LOADED:
        from mime_gui.multibody import _kernels

        _LOADED.append(_kernels)
    return _LOADED[0]


def _laid_out(a) -> np.ndarray:
    """``a`` as the compiled code takes it (float, C-contiguous, writable: another layout would compile
    another version), checked first as :func:`~mime_gui.multibody._kernels.writable` costs ~2 µs a call."""
    flags = getattr(a, "flags", None)
    if type(a) is np.ndarray and a.dtype is _FLOAT and flags.c_contiguous and flags.writeable:
        return a
    return _kernels().writable(a)


class IKError(CodedError):
    """A refused inverse-kinematics request (``ik.*``): ``ik.frame`` an unknown frame, ``ik.target`` a
    target that is not a finite rigid transform (or 3-vector, position only), ``ik.start`` a start that is
    not finite joint positions of the right size."""


@dataclass(frozen=True)
class IKResult:
    """What :func:`solve` found.

    ``q``: the full joint positions (for :func:`solve`; whatever the function's ``positions`` gives for
    :func:`solve_frame`); ``x``: the unknowns, named by ``joints``; ``position_error`` (m) and
    ``angle_error`` (rad): what remains between the frame and the target (the angle is reported in
    position-only mode too, but not sought); ``at_lower`` / ``at_upper``: the unknowns resting on a limit.
    """

    q: object
    x: np.ndarray
    joints: tuple[str, ...]
    converged: bool
    position_error: float
    angle_error: float
    iterations: int
    at_lower: tuple[str, ...]
    at_upper: tuple[str, ...]


class FrameFunction(Protocol):
    """A frame's world pose and Jacobian as functions of ``n`` unknowns within ``[lower, upper]``."""

    names: tuple[str, ...]
    lower: np.ndarray
    upper: np.ndarray

    def evaluate(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(world_X_frame (4, 4), J (6, n))``: J in world axes at the frame's origin, rows
        ``[angular; linear]``."""

    def positions(self, x: np.ndarray):
        """The joint positions the unknowns stand for (what :attr:`IKResult.q` holds)."""


def _frame_index(art: Articulation, frame) -> int:
    if isinstance(frame, (int, np.integer)) and not isinstance(frame, bool) and 0 <= frame < art.nframes:
        return int(frame)
    if isinstance(frame, str) and frame in art.frame_names:
        return art.frame_index(frame)
    shown = ", ".join(art.frame_names[:12]) + (" …" if art.nframes > 12 else "")
    raise IKError("ik.frame", f"{art.name!r} has no frame {frame!r}; its frames: {shown}")


def _start(art: Articulation, q0) -> np.ndarray:
    return _start_values(q0, art.joint_names, f"finite joint positions of {art.name!r}")


def _start_values(x0, names, what: str) -> np.ndarray:
    """``x0`` as one finite value per name, else ``ik.start`` naming them (before any clip: a start of one
    value would broadcast to every unknown)."""
    try:
        x = np.array(x0, dtype=float)
    except (TypeError, ValueError):
        x = None
    n = len(names)
    if x is None or x.shape != (n,) or not np.isfinite(x).all():
        got = "non-finite values" if x is not None and x.shape == (n,) else getattr(x, "shape", x0)
        shown = ", ".join(names[:8]) + (" …" if n > 8 else "")
        raise IKError("ik.start", f"the start must be {n} {what} ({shown}), got {got}")
    return x


def _target(target, orientation: bool) -> np.ndarray:
    """The target as ``world_X_target (4, 4)``; position only also takes a 3-vector."""
    try:
        X = np.array(target, dtype=float)
    except (TypeError, ValueError):
        X = None
    if X is not None and X.shape == (3,) and not orientation:
        p = X
        X = np.eye(4)
        X[:3, 3] = p
    if X is None or X.shape != (4, 4) or not np.isfinite(X).all():
        want = "a finite (4, 4) transform world_X_target" + ("" if orientation else " or a 3-vector")
        raise IKError("ik.target", f"the target must be {want}, got {getattr(X, 'shape', target)}")
    R = X[:3, :3]
    # orthonormal with determinant +1: R^T R = 1 and the third column is the cross of the first two
    # (written out: numpy's cross of two 3-vectors costs ~50 µs)
    (a, b, c), (d, e, f), (g, h, i) = R.tolist()
    off_third = max(abs(d * h - g * e - c), abs(g * b - a * h - f), abs(a * e - d * b - i))
    if (np.abs(R.T @ R - _EYE3).max() > 1e-6 or off_third > 1e-6
            or X[3].tolist() != [0.0, 0.0, 0.0, 1.0]):
        raise IKError("ik.target", "the target's rotation must be orthonormal with determinant +1 and its "
                                   "last row (0, 0, 0, 1)")
    return X


@dataclass(frozen=True, eq=False)
class _Chain:
    """The constants of one frame's chain of joints (root first), cached per articulation and frame."""

    chain: np.ndarray  # q indices of the joints between the root and the frame, root first
    unknowns: np.ndarray  # q indices of the independent joints standing for them, in q order
    names: tuple[str, ...]
    lower: np.ndarray  # of the unknowns (continuous: infinite)
    upper: np.ndarray
    # what _kernels.ik_frame takes, in the layout of its one compiled version:
    kernel: tuple  # (column, mult, offset, lo, hi, follower, P, revolute), per chain joint
    axis_X_frame: np.ndarray
    followers: tuple  # (follower, master, multiplier, offset) of every follower of the articulation


_CHAINS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _chain(art: Articulation, f: int) -> _Chain:
    per_art = _CHAINS.setdefault(art, {})
    found = per_art.get(f)
    if found is not None:
        return found
    m = model(art)
    body = int(m.frame_body[f])
    chain = []
    while body > 0:
        chain.append(body - 1)
        body = int(art.parent[body])
    chain.reverse()
    chain = np.array(chain, dtype=int)
    master = np.asarray(art.mimic_master)
    roots = np.where(master[chain] >= 0, master[chain], chain)
    unknowns = np.unique(roots).astype(int)
    lower = np.array(art.lower[unknowns], dtype=float)
    upper = np.array(art.upper[unknowns], dtype=float)
    lower[art.continuous[unknowns]] = -np.inf
    upper[art.continuous[unknowns]] = np.inf
    column = np.searchsorted(unknowns, roots)
    is_follower = master[chain] >= 0
    mult = np.where(is_follower, art.mimic_multiplier[chain], 1.0)
    off = np.where(is_follower, art.mimic_offset[chain], 0.0)
    plain = not is_follower.any() and np.array_equal(column, np.arange(len(chain)))
    # a chain of its unknowns takes them as they are; with a follower on it, every joint is clamped to its
    # own limits (as the playback node makes it)
    lo = np.full(len(chain), -np.inf) if plain else np.asarray(art.lower, dtype=float)[chain]
    hi = np.full(len(chain), np.inf) if plain else np.asarray(art.upper, dtype=float)[chain]
    P = m.parent_axis_X_axis0[chain].reshape(len(chain), 4, 4)
    w = _kernels().writable
    found = _Chain(
        chain=chain, unknowns=unknowns, names=tuple(art.joint_names[j] for j in unknowns), lower=lower,
        upper=upper, kernel=(w(column, np.int64), w(mult), w(off), w(lo), w(hi), w(is_follower, np.bool_),
                             w(P), w(m.revolute[chain], np.bool_)),
        axis_X_frame=w(m.axis_X_frame[f]),
        followers=tuple((int(k), int(master[k]), float(art.mimic_multiplier[k]), float(art.mimic_offset[k]))
                        for k in np.flatnonzero(master >= 0)))
    per_art[f] = found
    return found


class ArticulationFrame:
    """A frame of ``art`` as a function of the joints moving it (masters of mimic followers standing for
    them); every other joint stays at ``q_rest``. ``world_X_base`` places the articulation's root."""

    def __init__(self, art: Articulation, frame, q_rest=None, world_X_base=None):
        self.art = art
        self.frame = _frame_index(art, frame)
        self.q_rest = np.zeros(art.nq) if q_rest is None else _start(art, q_rest)
        self.world_X_base = None if world_X_base is None else np.array(world_X_base, dtype=float)
        self._base = _EYE4 if world_X_base is None else _laid_out(self.world_X_base)
        self._kernel = _kernels().ik_frame
        c = self._c = _chain(art, self.frame)
        self.unknowns, self.names, self.lower, self.upper = c.unknowns, c.names, c.lower, c.upper

    def positions(self, x) -> np.ndarray:
        """The full joint positions: ``q_rest`` with the unknowns set and every follower following (clamped
        to its limits, as the playback node makes it)."""
        q = self.q_rest.copy()
        q[self.unknowns] = x
        lo, hi = self.art.lower, self.art.upper
        for f, k, mult, off in self._c.followers:
            q[f] = min(max(mult * q[k] + off, lo[f]), hi[f])
        return q

    def evaluate(self, x) -> tuple[np.ndarray, np.ndarray]:
        x = _laid_out(x)
        c = self._c
        pose = np.empty((4, 4))
        J = np.empty((6, len(c.unknowns)))
        self._kernel(x, *c.kernel, self._base, c.axis_X_frame, pose, J)
        return pose, J


class Mounted:
    """A frame on a segment riding on another: ``carrier`` gives the pose and Jacobian of the frame the rider
    is mounted on, ``mount_X_base`` places the rider's root on it, and ``rider`` gives the rider's frame in
    the rider's own base (its ``world_X_base`` left unset). The unknowns are the carrier's, then the
    rider's; ``positions`` gives ``(carrier's, rider's)``. Carriers nest: a carrier may itself be mounted."""

    def __init__(self, carrier: FrameFunction, mount_X_base, rider: FrameFunction):
        self.carrier, self.rider = carrier, rider
        self.mount_X_base = np.array(mount_X_base, dtype=float)
        self.names = (*carrier.names, *rider.names)
        self.lower = np.concatenate([carrier.lower, rider.lower])
        self.upper = np.concatenate([carrier.upper, rider.upper])
        self._n = len(carrier.names)

    def positions(self, x):
        return self.carrier.positions(x[:self._n]), self.rider.positions(x[self._n:])

    def evaluate(self, x) -> tuple[np.ndarray, np.ndarray]:
        mount, Jc = self.carrier.evaluate(x[:self._n])
        local, Jr = self.rider.evaluate(x[self._n:])
        world_X_base = mount @ self.mount_X_base
        pose = world_X_base @ local
        R = world_X_base[:3, :3]
        r = pose[:3, 3] - mount[:3, 3]
        J = np.empty((6, len(self.names)))
        w = Jc[:3]
        # the carrier moves the frame's origin as a rigid body through its mount: v + omega x r
        J[:3, :self._n] = w
        J[3:, :self._n] = Jc[3:] + cross(w.T, r).T
        J[:3, self._n:] = R @ Jr[:3]
        J[3:, self._n:] = R @ Jr[3:]
        return pose, J


def _rotation_log(R: np.ndarray) -> list[float]:
    """The rotation vector ``theta * axis`` of a rotation matrix (stable near 0 and near pi)."""
    (a, b, c_), (d, e, f), (g, h, i) = R.tolist()
    w = [(h - f) * 0.5, (c_ - g) * 0.5, (d - b) * 0.5]
    s = math.sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2])
    c = (a + e + i - 1.0) * 0.5
    theta = math.atan2(s, c)
    if theta < 3.0:
        k = theta / s if s > 1e-300 else 1.0
        return [w[0] * k, w[1] * k, w[2] * k]
    # near pi the antisymmetric part vanishes: the axis is the symmetric part's dominant column
    w = np.array(w)
    B = (R + R.T) * 0.5 - c * np.eye(3)
    i = int(np.argmax(np.diag(B)))
    axis = B[:, i] / max(float(np.linalg.norm(B[:, i])), 1e-300)  # the column is (1 - c) k_i k
    if axis @ w < 0:
        axis = -axis
    return (axis * theta).tolist()


def _error(pose: np.ndarray, target: np.ndarray) -> np.ndarray:
    """``[angular; linear]`` error, world axes at the frame's origin (what the compiled
    :func:`~mime_gui.multibody._kernels.ik_error` computes, in numpy)."""
    t, p = target[:3, 3], pose[:3, 3]
    return np.array([*_rotation_log(target[:3, :3] @ pose[:3, :3].T),
                     t[0] - p[0], t[1] - p[1], t[2] - p[2]])


def solve_frame(function: FrameFunction, x0, world_X_target, *, orientation: bool = True,
                position_tolerance: float = POSITION_TOLERANCE, angle_tolerance: float = ANGLE_TOLERANCE,
                max_iterations: int = 200, damping: float = 1e-9, null_space_gain: float = 0.1,
                max_step: float = 0.5, callback: Callable[[np.ndarray], None] | None = None) -> IKResult:
    """Damped least squares on any :class:`FrameFunction` from the unknowns ``x0`` (held within the limits).

    ``damping``: the floor ``lambda_bar^2`` of the squared damping; ``null_space_gain``: the fraction of the
    way to the middle of each joint's range asked per iteration in the null space (0: none); ``callback``:
    called with every accepted iterate (a copy), the start included.
    """
    k = _kernels()
    target = _laid_out(_target(world_X_target, orientation))
    lower, upper = _laid_out(function.lower), _laid_out(function.upper)
    x = np.minimum(np.maximum(_start_values(x0, function.names, "finite values"), lower), upper)
    n = len(x)
    row0 = 0 if orientation else 3
    gain, damping, max_step = float(null_space_gain), float(damping), float(max_step)
    evaluate, error, step = function.evaluate, k.ik_error, k.ik_step

    def at(x):
        pose, J = evaluate(x)
        e6 = np.empty(6)
        return (pose, _laid_out(J), e6, *error(_laid_out(pose), target, row0, e6))

    pose, J, e6, E, dist, angle = at(x)
    if callback is not None:
        callback(x.copy())
    mu = 1.0
    iterations = 0
    converged = False
    pull = gain > 0 and bool((np.isfinite(lower) & np.isfinite(upper)).any())
    while True:
        if dist <= position_tolerance and (not orientation or angle <= angle_tolerance):
            converged = True
            break
        if iterations >= max_iterations or n == 0:
            break
        iterations += 1
        pulled = pull
        dx, trial = np.empty(n), np.empty(n)
        big, biggest_x = step(J, e6, row0, mu * E + damping, x, lower, upper, gain if pulled else 0.0,
                              max_step, math.sqrt(2.0 * E), dx, trial)
        if big < 0.0:
            raise np.linalg.LinAlgError("Singular matrix")  # as numpy's solve: no damping and a singular J
        stalled = big <= 1e-15 * (1.0 + biggest_x)  # no move left within the limits
        if not stalled:
            pose_t, J_t, e6_t, E_t, dist_t, angle_t = at(trial)
            if E_t < E:
                stalled = E - E_t <= 1e-15 * E and big < 1e-9
                x, pose, J, e6, E, dist, angle = trial, pose_t, J_t, e6_t, E_t, dist_t, angle_t
                mu = max(0.5 * mu, 1e-6)
                if callback is not None:
                    callback(x.copy())
            elif pulled:
                pull = False  # the pull cost a step (a target out of reach, or a tight corner): dropped
            else:
                mu *= 10.0
                stalled = mu > 1e12  # no damped step lowers the error
        if stalled:
            # a local minimum, or a saddle whose falling curvature J^T J cannot see: a joint moved a little
            # either way tells, and the steps resume from the lowest such move
            moved = _probe(at, x, lower, upper, E)
            if moved is None:
                break
            x, (pose, J, e6, E, dist, angle) = moved
            mu = 1.0
            if callback is not None:
                callback(x.copy())
    names = tuple(function.names)
    xs = x.tolist()
    return IKResult(
        q=function.positions(x), x=x, joints=names, converged=converged,
        position_error=dist, angle_error=angle, iterations=iterations,
        at_lower=tuple(nm for nm, v, lo in zip(names, xs, lower.tolist(), strict=True) if v <= lo),
        at_upper=tuple(nm for nm, v, hi in zip(names, xs, upper.tolist(), strict=True) if v >= hi))


def _probe(at, x, lower, upper, E):
    """The best of every unknown moved by ±1e-2 and ±1e-4 (within its limits) when it lowers ``E``:
    ``(x, at(x))`` there, else None."""
    best = None
    for i in range(len(x)):
        for h in (1e-2, -1e-2, 1e-4, -1e-4):
            trial = x.copy()
            trial[i] = min(max(trial[i] + h, lower[i]), upper[i])
            if trial[i] == x[i]:
                continue
            there = at(trial)
            if there[3] < E and (best is None or there[3] < best[1][3]):
                best = (trial, there)
    return best


def solve(art: Articulation, q0, frame, target, *, orientation: bool = True, world_X_base=None,
          **options) -> IKResult:
    """Joint positions of ``art`` that put ``frame`` at ``target`` (``world_X_target``, or a 3-vector when
    ``orientation`` is False), starting from the full positions ``q0``.

    The unknowns are the joints between the root and the frame (mimic followers through their masters);
    every other joint keeps its value of ``q0``. ``world_X_base`` places the root (the identity when None).
    ``options`` are :func:`solve_frame`'s. Raises :class:`IKError` (``ik.frame``, ``ik.target``,
    ``ik.start``).
    """
    q0 = _start(art, q0)
    function = ArticulationFrame(art, frame, q0, world_X_base)
    return solve_frame(function, q0[function.unknowns], target, orientation=orientation, **options)
