"""MIME-NODE-104: a kinematic chain segment with held commands, an exact servo lag and poses on its mount.

One step ``n → n + 1`` with the command ``u`` held through it (every line is one equation of the spec):

- ``ū = min(max(u, l), h)`` — :meth:`KinematicArmNode.held` (continuous joints: ``l = -inf``, ``h = +inf``);
- ``θ_{n+1} = ū + (θ_n − ū)·exp(−dt/τ)``, and ``θ_{n+1} = ū`` when ``τ = 0`` (the first-order lag solved
  exactly over the step, so there is no discretisation error for a held command);
- mimic followers: ``θ_f = clamp(multiplier·θ_master + offset)`` from the new master positions, every step;
- ``P_k = M_j ∘ O ∘ FK_k(θ_{n+1})`` — :meth:`MountedNode.base` gives ``world_X_base = M_j ∘ O``;
- ``Ω_k = ω_j + R(M_j ∘ O)·W_k(θ_{n+1}, (θ_{n+1} − θ_n)/dt)`` with ``W_k`` frame k's angular velocity in the
  segment's base frame from the finite-difference joint rates of the step (not the analytic derivative).

``M_j`` and ``ω_j`` (the pose and angular velocity of the frame the segment is mounted on) may change every
step: that is how a segment rides on an earlier one. :meth:`KinematicArmNode.play` runs many steps at once:
the lag recurrence ``θ_{n+1} = a·θ_n + (1 − a)·ū_n`` (``a = exp(−dt/τ)``) is evaluated as a parallel prefix
scan (log₂ T whole-array passes, every weight ≤ 1, so it can neither overflow nor lose precision on long runs)
and poses and angular velocities come from the batched engine, chunk by chunk into preallocated outputs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from mime_gui import multibody
from mime_gui.multibody import PRISMATIC, Articulation

_EYE4 = np.eye(4)
_EYE4.setflags(write=False)
_ZERO3 = np.zeros(3)
_ZERO3.setflags(write=False)

#: steps per engine call in :meth:`KinematicArmNode.play` (bounds the engine's scratch memory)
DEFAULT_CHUNK = 2048
#: up to this many (frame, joint) pairs the joints moving each frame are one dense matrix (8 MB)
DENSE_LIMIT = 1_000_000


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def _pose(x, name: str, batch: int | None = None) -> np.ndarray:
    """A (4, 4) transform, or (T, 4, 4) when ``batch`` is given and the input has a leading axis."""
    X = np.asarray(x, dtype=float)
    ok = X.shape == (4, 4) or (batch is not None and X.shape == (batch, 4, 4))
    if not ok:
        want = "(4, 4)" if batch is None else f"(4, 4) or ({batch}, 4, 4)"
        raise ValueError(f"{name} must have shape {want}, got {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} holds non-finite values")
    return X


def _rate(w, name: str, batch: int | None = None) -> np.ndarray:
    w = np.asarray(w, dtype=float)
    ok = w.shape == (3,) or (batch is not None and w.shape == (batch, 3))
    if not ok:
        want = "(3,)" if batch is None else f"(3,) or ({batch}, 3)"
        raise ValueError(f"{name} must have shape {want}, got {w.shape}")
    if not np.all(np.isfinite(w)):
        raise ValueError(f"{name} holds non-finite values")
    return w


def _dt(dt) -> float:
    dt = float(dt)
    if not (math.isfinite(dt) and dt > 0.0):
        raise ValueError(f"dt must be a positive finite number of seconds, got {dt}")
    return dt


@dataclass(frozen=True, eq=False)
class NodeState:
    """The node's state after a step: ``joint_positions (nq,)`` in ``art.joint_names`` order, world
    ``frame_poses (nframes, 4, 4)`` and world-axis ``frame_angular_velocities (nframes, 3)`` in rad/s; a
    segment advanced by forward dynamics carries its ``joint_velocities (nq,)`` too (None: at rest, as a
    kinematic node's state is between steps)."""

    joint_positions: np.ndarray
    frame_poses: np.ndarray
    frame_angular_velocities: np.ndarray
    joint_velocities: np.ndarray | None = None


@dataclass(frozen=True, eq=False)
class Trajectory:
    """Many steps: row ``n`` is the state after step ``n`` (command row ``n`` held through step ``n``).

    ``joint_positions (T, nq)``, ``frame_poses (T, nframes, 4, 4)``,
    ``frame_angular_velocities (T, nframes, 3)``; ``dt`` the step; ``clamped (ncommands,)`` how many command
    values per commanded joint lay outside the limits and were held at them.
    """

    joint_positions: np.ndarray
    frame_poses: np.ndarray
    frame_angular_velocities: np.ndarray
    dt: float
    clamped: np.ndarray

    def __len__(self) -> int:
        return len(self.joint_positions)

    def times(self, start: float = 0.0) -> np.ndarray:
        """Time of each row when step 0 starts at ``start``: ``start + (n + 1)·dt``."""
        return start + self.dt * np.arange(1, len(self) + 1)

    def state(self, n: int = -1) -> NodeState:
        """Row ``n`` as a :class:`NodeState` (default: the last, to continue with ``advance`` or ``play``)."""
        return NodeState(self.joint_positions[n], self.frame_poses[n], self.frame_angular_velocities[n])


class MountedNode:
    """A node placed at ``O`` (``mount_X_base``) on a frame whose world pose ``M_j`` (``world_X_mount``) and
    angular velocity ``ω_j`` (world axes) are inputs of every step."""

    def __init__(self, placement=None):
        self.placement = _readonly(_pose(_EYE4 if placement is None else placement, "placement").copy())

    def base(self, mount_pose=None) -> np.ndarray:
        """``world_X_base = M_j ∘ O``; ``mount_pose`` may carry leading dimensions ``(..., 4, 4)``."""
        if mount_pose is None:
            return self.placement
        return np.asarray(mount_pose, dtype=float) @ self.placement

    def base_rate(self, mount_rate=None) -> np.ndarray:
        """``ω_j``: the base frame turns with its mount (the placement is rigid)."""
        return _ZERO3 if mount_rate is None else np.asarray(mount_rate, dtype=float)


class KinematicArmNode(MountedNode):
    """MIME-NODE-104 on an :class:`Articulation` (see the module docstring for the equations).

    ``lower``/``upper`` default to the articulation's limits; either may be an array of ``nq`` or a mapping
    joint name → value overriding some joints. Continuous joints are never clamped, whatever is given.
    """

    def __init__(self, art: Articulation, servo_time_constant: float = 0.0, placement=None,
                 lower=None, upper=None):
        super().__init__(placement)
        tau = float(servo_time_constant)
        if not (math.isfinite(tau) and tau >= 0.0):
            raise ValueError(f"servo_time_constant must be a finite number ≥ 0 s, got {servo_time_constant}")
        self.art = art
        self.servo_time_constant = tau
        lo = self._limits(art.lower, lower, "lower")
        hi = self._limits(art.upper, upper, "upper")
        lo[art.continuous] = -np.inf
        hi[art.continuous] = np.inf
        bad = np.flatnonzero(lo > hi)
        if bad.size:
            j = bad[0]
            raise ValueError(f"joint {art.joint_names[j]!r}: lower limit {lo[j]} is above upper {hi[j]}")
        self.lower = _readonly(lo)
        self.upper = _readonly(hi)
        self._commanded = _readonly(np.flatnonzero(~art.is_mimic))
        self.command_names = tuple(art.joint_names[i] for i in self._commanded)
        self._followers = self._follower_order(art)
        # for play: the frame on each joint's child body, the joint axis in that frame's coordinates, and
        # which joints move each frame (its body's chain back to the root)
        self._axis_frame = np.array([art.frame_index(art.body_names[j + 1]) for j in range(art.nq)],
                                    dtype=int)
        R = art.body_X_frame[self._axis_frame, :3, :3]
        self._axis_in_frame = np.einsum("jba,jb->ja", R, art.axis) if art.nq else np.zeros((0, 3))
        self._revolute = art.joint_type != PRISMATIC
        # small trees: one matrix product sums each frame's moving joints; a large tree (where an
        # nframes × nq matrix would take gigabytes) sums them in one pass over the bodies instead
        self._frame_moved_by = None
        if art.nframes * art.nq <= DENSE_LIMIT:
            moves = np.zeros((art.nbodies, art.nq))
            for b in range(1, art.nbodies):
                moves[b] = moves[art.parent[b]]
                moves[b, b - 1] = 1.0
            self._frame_moved_by = moves[art.frame_body]

    # -- construction helpers ----------------------------------------------------------------------
    def _limits(self, default: np.ndarray, given, what: str) -> np.ndarray:
        values = np.array(default, dtype=float)
        if given is None:
            return values
        if isinstance(given, Mapping):
            for name, value in given.items():
                values[self.art.joint_index(name)] = float(value)
            return values
        given = np.asarray(given, dtype=float)
        if given.shape != (self.art.nq,):
            raise ValueError(f"{what} must have shape ({self.art.nq},) or be a mapping, got {given.shape}")
        if np.any(np.isnan(given)):
            raise ValueError(f"{what} holds NaN")
        return given.copy()

    @staticmethod
    def _follower_order(art: Articulation) -> tuple[tuple[int, int, float, float], ...]:
        """Mimic followers as (follower, master, multiplier, offset), each master settled before use."""
        pending = [int(i) for i in np.flatnonzero(art.is_mimic)]
        settled = set(int(i) for i in np.flatnonzero(~art.is_mimic))
        order = []
        while pending:
            ready = [f for f in pending if int(art.mimic_master[f]) in settled]
            if not ready:
                names = ", ".join(art.joint_names[f] for f in pending)
                raise ValueError(f"mimic joints {names} follow each other in a loop; no joint drives them")
            for f in ready:
                order.append((f, int(art.mimic_master[f]), float(art.mimic_multiplier[f]),
                              float(art.mimic_offset[f])))
                settled.add(f)
                pending.remove(f)
        return tuple(order)

    # -- sizes and names ---------------------------------------------------------------------------
    @property
    def joint_names(self) -> tuple[str, ...]:
        """Names of the state's joint positions (every movable joint, mimic followers included)."""
        return self.art.joint_names

    @property
    def frame_names(self) -> tuple[str, ...]:
        return self.art.frame_names

    @property
    def ncommands(self) -> int:
        return len(self.command_names)

    # -- the equations -----------------------------------------------------------------------------
    def held(self, joint_positions) -> np.ndarray:
        """``ū = min(max(u, l), h)`` for commands ``(..., ncommands)`` or full positions ``(..., nq)``."""
        u = np.asarray(joint_positions, dtype=float)
        n = u.shape[-1] if u.ndim else -1
        if n == self.art.nq:
            return np.clip(u, self.lower, self.upper)
        if n == self.ncommands:
            return np.clip(u, self.lower[self._commanded], self.upper[self._commanded])
        raise ValueError(self._shape_message("joint positions", u))

    def _shape_message(self, name: str, u: np.ndarray) -> str:
        # with mimic joints the full positions (followers included) are a second accepted shape
        full = f" or {self.art.nq} (every joint, followers included)" if self.art.nq != self.ncommands else ""
        entries = "1 entry" if self.ncommands == 1 else f"{self.ncommands} entries"
        return (f"{name} must have {entries} ({', '.join(self.command_names)}){full}, "
                f"got shape {u.shape}")

    def _commands(self, joint_positions, name: str) -> np.ndarray:
        """Commands ``(..., ncommands)`` from commands or full positions (followers' entries are ignored)."""
        u = np.asarray(joint_positions, dtype=float)
        if u.ndim and u.shape[-1] == self.art.nq:
            u = u[..., self._commanded]
        elif not u.ndim or u.shape[-1] != self.ncommands:
            raise ValueError(self._shape_message(name, u))
        if not np.all(np.isfinite(u)):
            raise ValueError(f"{name} holds non-finite values")
        return u

    def _full(self, theta_commanded: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """Positions of every joint ``(..., nq)``: the commanded ones, then followers from their masters."""
        if out is None:
            out = np.empty((*theta_commanded.shape[:-1], self.art.nq))
        out[..., self._commanded] = theta_commanded
        for f, m, mult, off in self._followers:
            out[..., f] = np.clip(mult * out[..., m] + off, self.lower[f], self.upper[f])
        return out

    def lag_factor(self, dt: float) -> float:
        """``a = exp(−dt/τ)`` (0 when τ = 0): the fraction of the error left after one held step."""
        dt = _dt(dt)
        tau = self.servo_time_constant
        return 0.0 if tau == 0.0 else math.exp(-dt / tau)

    def frames(self, joint_positions, mount_pose=None) -> np.ndarray:
        """``P_k = M_j ∘ O ∘ FK_k(θ)`` for full positions ``θ (..., nq)``: ``(..., nframes, 4, 4)``."""
        poses = multibody.frame_poses(self.art, joint_positions)  # which refuses what is not numbers, clearly
        base = self.base(mount_pose)
        if base is self.placement and np.array_equal(base, _EYE4):
            return poses
        return base[..., None, :, :] @ poses

    def _angular(self, theta, rate, base, omega_mount) -> np.ndarray:
        """``Ω_k = ω_j + R(M_j ∘ O)·W_k(θ, rate)`` for one step: ``(nframes, 3)``."""
        W = multibody.frame_angular_velocities(self.art, theta, rate)
        R = base[:3, :3]
        if not np.array_equal(R, np.eye(3)):
            W = W @ R.T
        return W + omega_mount

    def _angular_from_poses(self, poses, rate, omega_mount, out) -> np.ndarray:
        """``Ω_k = ω_j + R(M_j ∘ O)·W_k`` from world poses already computed: ``W_k`` is the sum of
        ``axis_j·rate_j`` over the revolute joints moving frame k, and ``R(M_j ∘ O)`` times joint j's axis in
        the base frame is its axis in world, ``R(P_{child of j})·a_j``. The same quantity as rotating
        :func:`~mime_gui.multibody.frame_angular_velocities` (which :meth:`advance` calls), without running
        the chain a second time. ``poses (L, nframes, 4, 4)``, ``rate (L, nq)`` → ``out (L, nframes, 3)``."""
        L, nq = len(poses), self.art.nq
        world_axis = np.zeros((nq, L, 3))
        for j in np.flatnonzero(self._revolute):
            R = poses[:, self._axis_frame[j], :3, :3]
            a = self._axis_in_frame[j]
            w = world_axis[j]
            np.multiply(R[..., 0], a[0], out=w)
            w += R[..., 1] * a[1]
            w += R[..., 2] * a[2]
            w *= rate[:, j, None]
        if self._frame_moved_by is not None:
            W = (self._frame_moved_by @ world_axis.reshape(nq, 3 * L)).reshape(-1, L, 3)
        else:  # body b turns with its parent plus its own joint (joint b - 1): parent[b] < b, one pass
            body = np.zeros((self.art.nbodies, L, 3))
            parent = self.art.parent
            for b in range(1, self.art.nbodies):
                np.add(body[parent[b]], world_axis[b - 1], out=body[b])
            W = body[self.art.frame_body]
        np.add(W.transpose(1, 0, 2), omega_mount[..., None, :], out=out)
        return out

    # -- stepping ----------------------------------------------------------------------------------
    def initial_positions(self, positions=None) -> np.ndarray:
        """The full joint positions of :meth:`initial_state` (``positions``, commands or full, held within
        the limits, mimic followers following), without its frames."""
        u = np.zeros(self.ncommands) if positions is None else self._commands(positions, "positions")
        return _readonly(self._full(self.held(u)))

    def initial_state(self, positions=None, mount_pose=None, mount_rate=None) -> NodeState:
        """At rest at ``positions`` (commands or full, held within the limits; default zeros held): the
        frames turn only with the mount."""
        theta = self.initial_positions(positions)
        M = None if mount_pose is None else _pose(mount_pose, "mount_pose")
        omega = self.base_rate(None if mount_rate is None else _rate(mount_rate, "mount_rate"))
        poses = self.frames(theta, M)
        angular = np.broadcast_to(omega, (self.art.nframes, 3)).copy()
        return NodeState(theta, _readonly(np.ascontiguousarray(poses)), _readonly(angular))

    def advance(self, state: NodeState, joint_positions, dt: float, mount_pose=None,
                mount_rate=None) -> NodeState:
        """One step of ``dt`` seconds with the command ``joint_positions`` (commands or full ``nq``) held."""
        dt = _dt(dt)
        u = self._commands(joint_positions, "joint_positions")
        ubar = self.held(u)
        theta = np.asarray(state.joint_positions, dtype=float)
        a = self.lag_factor(dt)
        new_commanded = ubar if a == 0.0 else ubar + (theta[self._commanded] - ubar) * a
        new = self._full(new_commanded)
        rate = (new - theta) / dt
        M = None if mount_pose is None else _pose(mount_pose, "mount_pose")
        base = self.base(M)
        omega = self.base_rate(None if mount_rate is None else _rate(mount_rate, "mount_rate"))
        poses = self.frames(new, M)
        angular = self._angular(new, rate, base, omega)
        return NodeState(_readonly(new), _readonly(poses), _readonly(angular))

    def play(self, commands, dt: float, initial_positions=None, mount_poses=None, mount_rates=None, *,
             chunk: int = DEFAULT_CHUNK, progress: Callable[[int, int], None] | None = None) -> Trajectory:
        """``T`` steps at once: command row ``n`` ``(T, ncommands)`` (or ``(T, nq)``) held through step ``n``.

        ``initial_positions``: commands, full positions or a :class:`NodeState` (default: zeros held).
        ``mount_poses`` ``(4, 4)`` or ``(T, 4, 4)`` and ``mount_rates`` ``(3,)`` or ``(T, 3)``: the mount
        during each step. Equal to ``T`` calls of :meth:`advance` (to rounding). ``progress(done, total)`` is
        called after each chunk of ``chunk`` steps.
        """
        dt = _dt(dt)
        u = self._commands(commands, "commands")
        if u.ndim != 2:
            raise ValueError(f"commands must be a (T, {self.ncommands}) array, got shape {u.shape}")
        T = u.shape[0]
        if isinstance(initial_positions, NodeState):
            theta0 = np.asarray(initial_positions.joint_positions, dtype=float)
            if theta0.shape != (self.art.nq,):
                raise ValueError(f"the initial state has {theta0.shape} positions, expected {self.art.nq}")
        else:
            theta0 = self.initial_state(initial_positions).joint_positions
        M = None if mount_poses is None else _pose(mount_poses, "mount_poses", T)
        w = None if mount_rates is None else _rate(mount_rates, "mount_rates", T)
        chunk = max(1, int(chunk))

        ubar = self.held(u)
        clamped = np.count_nonzero(ubar != u, axis=0)
        nq, nf = self.art.nq, self.art.nframes
        theta = np.empty((T, nq))
        tau = self.servo_time_constant
        ratio = math.inf if tau == 0.0 else dt / tau
        self._full(_lag_scan(theta0[self._commanded], ubar, ratio), out=theta)
        poses = np.empty((T, nf, 4, 4))
        angular = np.empty((T, nf, 3))

        base_fixed = M is None or M.ndim == 2
        base_all = self.base(M)
        identity = base_fixed and np.array_equal(base_all, _EYE4)
        omega_all = self.base_rate(w)
        for start in range(0, T, chunk):
            stop = min(T, start + chunk)
            q = theta[start:stop]
            if start == 0:
                previous = np.concatenate([theta0[None], theta[:stop - 1]])
            else:
                previous = theta[start - 1:stop - 1]
            rate = (q - previous) / dt
            P = poses[start:stop]
            multibody.frame_poses(self.art, q, out=P)
            base = base_all if base_fixed else base_all[start:stop]
            if not identity:
                P[...] = (base if base_fixed else base[:, None]) @ P
            omega = omega_all if omega_all.ndim == 1 else omega_all[start:stop]
            self._angular_from_poses(P, rate, omega, angular[start:stop])
            if progress is not None:
                progress(stop, T)
        return Trajectory(_readonly(theta), _readonly(poses), _readonly(angular), dt, _readonly(clamped))


def _lag_scan(theta0: np.ndarray, ubar: np.ndarray, ratio: float) -> np.ndarray:
    """``θ_{n+1} = a·θ_n + (1 − a)·ū_n``, ``a = exp(−ratio)``, ``ratio = dt/τ``; rows ``θ_1 … θ_T`` (T, k).

    Parallel prefix (Hillis–Steele) on the linear recurrence: after the pass with shift ``s`` every row holds
    ``Σ_{m<2s} a^m c_{n−m}``. Every weight is a power of ``a ≤ 1`` (no overflow on long runs), each ``a^s``
    is computed as ``exp(−s·ratio)`` rather than by repeated products, so a weight carries the rounding of at
    most log₂ T factors instead of n; passes stop once ``a^s`` is below 1e-20.
    """
    if ratio == math.inf:
        return ubar.copy()
    y = -math.expm1(-ratio) * ubar
    if len(y) == 0:
        return y
    y[0] += math.exp(-ratio) * theta0
    T = len(y)
    shift = 1
    while shift < T:
        factor = math.exp(-shift * ratio)
        if factor < 1e-20:
            break
        y[shift:] += factor * y[:-shift]
        shift *= 2
    return y
