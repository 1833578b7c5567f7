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
    try:
        q = np.array(q0, dtype=float)
    except (TypeError, ValueError):
        q = None
    if q is None or q.shape != (art.nq,) or not np.isfinite(q).all():
        got = "non-finite values" if q is not None and q.shape == (art.nq,) else getattr(q, "shape", q0)
        names = ", ".join(art.joint_names[:8]) + (" …" if art.nq > 8 else "")
        raise IKError("ik.start", f"the start must be {art.nq} finite joint positions of {art.name!r} "
                                  f"({names}), got {got}")
    return q


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
    if (np.abs(R.T @ R - _EYE3).max() > 1e-6 or np.abs(np.cross(R[:, 0], R[:, 1]) - R[:, 2]).max() > 1e-6
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
    plain: bool  # the chain's joints are the unknowns, in order (no follower on it)
    column: np.ndarray  # the unknown each chain joint follows
    mult: np.ndarray
    off: np.ndarray
    is_follower: np.ndarray
    lo: np.ndarray  # the chain joints' own limits (a follower is clamped to them)
    hi: np.ndarray
    C: np.ndarray  # (chain, unknowns): d q_chain / d x while no follower is clamped
    c01: np.ndarray  # complex columns 0 + i 1 of parent_axis_X_axis0 on the chain
    P: np.ndarray  # parent_axis_X_axis0 on the chain
    revolute: np.ndarray
    all_revolute: bool
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
    column = np.searchsorted(unknowns, roots).astype(int)
    is_follower = master[chain] >= 0
    mult = np.where(is_follower, art.mimic_multiplier[chain], 1.0)
    off = np.where(is_follower, art.mimic_offset[chain], 0.0)
    C = np.zeros((len(chain), len(unknowns)))
    C[np.arange(len(chain)), column] = mult
    P = np.ascontiguousarray(m.parent_axis_X_axis0[chain]).reshape(len(chain), 4, 4)
    revolute = np.asarray(m.revolute[chain], dtype=bool)
    found = _Chain(
        chain=chain, unknowns=unknowns, names=tuple(art.joint_names[j] for j in unknowns), lower=lower,
        upper=upper, plain=not is_follower.any() and np.array_equal(column, np.arange(len(chain))),
        column=column, mult=mult, off=off, is_follower=is_follower,
        lo=np.asarray(art.lower, dtype=float)[chain], hi=np.asarray(art.upper, dtype=float)[chain], C=C,
        c01=P[:, :, 0] + 1j * P[:, :, 1], P=P, revolute=revolute, all_revolute=bool(revolute.all()),
        axis_X_frame=m.axis_X_frame[f],
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
        c = self._c
        n = len(c.chain)
        if c.plain:
            q = x
        else:
            raw = x[c.column] * c.mult + c.off
            q = np.minimum(np.maximum(raw, c.lo), c.hi)
        # each joint's parent_axis_X_axis: a rotation about z turns columns 0 and 1, (col0 + i col1) e^-iq
        L = c.P.copy()
        if c.all_revolute:
            np.multiply(c.c01, np.exp(-1j * q)[:, None], out=L.view(complex)[:, :, 0])
        else:
            r = c.revolute
            np.multiply(c.c01, np.exp(-1j * np.where(r, q, 0.0))[:, None], out=L.view(complex)[:, :, 0])
            L[:, :, 3] += c.P[:, :, 2] * np.where(r, 0.0, q)[:, None]
        # world_X_axis of each joint on the chain: prefix products in log2(n) batched steps
        step = 1
        while step < n:
            L[step:] = L[:-step] @ L[step:]
            step *= 2
        base = self.world_X_base
        W = L if base is None else base @ L
        pose = (W[-1] if n else np.eye(4) if base is None else base) @ c.axis_X_frame
        J = np.empty((6, n))
        if n:
            z = W[:, :3, 2]
            lin = cross(z, pose[:3, 3] - W[:, :3, 3])  # z x (from the joint's axis to the frame's origin)
            if c.all_revolute:
                J[:3] = z.T
                J[3:] = lin.T
            else:
                r = c.revolute[:, None]
                J[:3] = np.where(r, z, 0.0).T
                J[3:] = np.where(r, lin, z).T
        if c.plain:
            return pose, J
        free = ~c.is_follower | ((raw >= c.lo) & (raw <= c.hi))  # a clamped follower stays put
        return pose, J @ (c.C * free[:, None])


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
        J[3:, :self._n] = Jc[3:] + np.cross(w.T, r).T
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
    axis = B[:, i] / math.sqrt(max(B[i, i], 1e-300))
    if axis @ w < 0:
        axis = -axis
    return (axis * theta).tolist()


def _error(pose: np.ndarray, target: np.ndarray) -> np.ndarray:
    """``[angular; linear]`` error, world axes at the frame's origin."""
    t, p = target[:3, 3], pose[:3, 3]
    return np.array([*_rotation_log(target[:3, :3] @ pose[:3, :3].T),
                     t[0] - p[0], t[1] - p[1], t[2] - p[2]])


def _norm(v) -> float:
    return math.sqrt(float(v @ v))


def solve_frame(function: FrameFunction, x0, world_X_target, *, orientation: bool = True,
                position_tolerance: float = POSITION_TOLERANCE, angle_tolerance: float = ANGLE_TOLERANCE,
                max_iterations: int = 200, damping: float = 1e-9, null_space_gain: float = 0.1,
                max_step: float = 0.5, callback: Callable[[np.ndarray], None] | None = None) -> IKResult:
    """Damped least squares on any :class:`FrameFunction` from the unknowns ``x0`` (held within the limits).

    ``damping``: the floor ``lambda_bar^2`` of the squared damping; ``null_space_gain``: the fraction of the
    way to the middle of each joint's range asked per iteration in the null space (0: none); ``callback``:
    called with every accepted iterate (a copy), the start included.
    """
    target = _target(world_X_target, orientation)
    lower, upper = np.asarray(function.lower, float), np.asarray(function.upper, float)
    x = np.clip(np.array(x0, dtype=float), lower, upper)
    if x.shape != lower.shape or not np.isfinite(x).all():
        raise IKError("ik.start", f"the start must be {len(lower)} finite values "
                                  f"({', '.join(function.names)}), got {np.shape(x0)}")
    n = len(x)
    bounded = np.isfinite(lower) & np.isfinite(upper)
    centre = np.where(bounded, 0.5 * (np.where(bounded, lower, 0.0) + np.where(bounded, upper, 0.0)), 0.0)
    rows = slice(0, 6) if orientation else slice(3, 6)

    pose, J = function.evaluate(x)
    e6 = _error(pose, target)
    e = e6[rows]
    E = 0.5 * float(e @ e)
    if callback is not None:
        callback(x.copy())
    mu = 1.0
    iterations = 0
    converged = False
    pull = null_space_gain > 0 and bounded.any()
    while True:
        dist, angle = _norm(e6[3:]), _norm(e6[:3])
        if dist <= position_tolerance and (not orientation or angle <= angle_tolerance):
            converged = True
            break
        if iterations >= max_iterations or n == 0:
            break
        iterations += 1
        Jt = J[rows]
        lam2 = mu * E + damping
        z = None
        if pull:
            z = null_space_gain * (centre - x)
            # no larger than the error: the pull's own second-order drift then shrinks with the error, and
            # convergence stays quadratic
            size, err = np.abs(z).max(), math.sqrt(2.0 * E)
            if size > err:
                z *= err / size
        dx = _clamped_step(Jt, e, lam2, x, lower, upper, z)
        big = float(np.abs(dx).max())
        if big > max_step:
            dx *= max_step / big
        stalled = big <= 1e-15 * (1.0 + float(np.abs(x).max()))  # no move left within the limits
        if not stalled:
            trial = np.minimum(np.maximum(x + dx, lower), upper)
            pose_t, J_t = function.evaluate(trial)
            e6_t = _error(pose_t, target)
            e_t = e6_t[rows]
            E_t = 0.5 * float(e_t @ e_t)
            if E_t < E:
                stalled = E - E_t <= 1e-15 * E and big < 1e-9
                x, pose, J, e6, e, E = trial, pose_t, J_t, e6_t, e_t, E_t
                mu = max(0.5 * mu, 1e-6)
                if callback is not None:
                    callback(x.copy())
            elif z is not None:
                pull = False  # the pull cost a step (a target out of reach, or a tight corner): dropped
            else:
                mu *= 10.0
                stalled = mu > 1e12  # no damped step lowers the error
        if stalled:
            # a local minimum, or a saddle whose falling curvature J^T J cannot see: a joint moved a little
            # either way tells, and the steps resume from the lowest such move
            moved = _probe(function, x, lower, upper, target, rows, E)
            if moved is None:
                break
            x, pose, J, e6, e, E = moved
            mu = 1.0
            if callback is not None:
                callback(x.copy())
    names = function.names
    return IKResult(
        q=function.positions(x), x=x, joints=tuple(names), converged=converged,
        position_error=_norm(e6[3:]), angle_error=_norm(e6[:3]), iterations=iterations,
        at_lower=tuple(names[i] for i in np.flatnonzero(x <= lower)),
        at_upper=tuple(names[i] for i in np.flatnonzero(x >= upper)))


def _probe(function, x, lower, upper, target, rows, E):
    """The best of every unknown moved by ±1e-2 and ±1e-4 (within its limits) when it lowers ``E``:
    ``(x, pose, J, e6, e, E)`` there, else None."""
    best = None
    for i in range(len(x)):
        for h in (1e-2, -1e-2, 1e-4, -1e-4):
            trial = x.copy()
            trial[i] = min(max(trial[i] + h, lower[i]), upper[i])
            if trial[i] == x[i]:
                continue
            pose, J = function.evaluate(trial)
            e6 = _error(pose, target)
            e = e6[rows]
            E_t = 0.5 * float(e @ e)
            if E_t < E and (best is None or E_t < best[-1]):
                best = (trial, pose, J, e6, e, E_t)
    return best


def _clamped_step(J, e, lam2, x, lower, upper, z) -> np.ndarray:
    """The damped step, with every joint whose step would cross a limit moved onto it and the step solved
    again over the rest (at most once per joint)."""
    n = len(x)
    m = len(e)
    dx = np.zeros(n)
    free = np.ones(n, dtype=bool)
    r = e
    Jf = J
    for _ in range(n):
        zf = None if z is None else z[free]
        rf = r if zf is None else r - Jf @ zf
        A = Jf @ Jf.T
        A.flat[::m + 1] += lam2
        step = np.linalg.solve(A, rf) @ Jf
        if zf is not None:
            step += zf
        dx[free] = step
        new = x + dx
        over = (new < lower) | (new > upper)
        if not over.any():
            break
        dx[over] = np.minimum(np.maximum(new[over], lower[over]), upper[over]) - x[over]
        free &= ~over
        if not free.any():
            break
        Jf = J[:, free]
        r = e - J[:, ~free] @ dx[~free]
    return dx


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
