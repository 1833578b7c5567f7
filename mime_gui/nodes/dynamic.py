"""A torque-driven dynamic segment: joint torques in, forward dynamics integrated, frames published.

One step ``n → n + 1`` of ``dt`` with the command ``u`` (joint torques, N·m or N) held through it, in
``substeps`` equal sub-steps of ``h = dt / substeps``:

- joint force ``τ = u − d·v − μ·tanh(v / v_s)``: the description's viscous damping ``d`` and Coulomb friction
  ``μ``, regularised by a hyperbolic tangent of width ``v_s`` (``friction_velocity``, default 1e-3 rad/s or
  m/s) so it is smooth and the integrators can step through zero velocity (below ``v_s`` the friction is
  nearly viscous, ``μ·v/v_s``, and a joint creeps under a load below ``μ`` instead of sticking);
- ``v̇ = M(q)⁻¹ (τ − c(q, v))`` on the mount's motion as the base's
  (:func:`~mime_gui.multibody.moving_base.dynamics_on_moving_base`; ``M`` includes the armature), the base's
  twist and acceleration held through the step;
- semi-implicit Euler (default): ``v ← v + h·v̇(q, v)``, ``q ← q + h·v``; or classical RK4 on ``(q, v)``;
- joint limits are a stop: a joint that passes its lower or upper limit is put back on it and its velocity
  into the limit set to zero (a perfectly inelastic stop, no force computed);
- external wrenches that depend on where the bodies are (the rig's magnets pulling on each other,
  :mod:`mime_gui.rig.pulled`) enter as ``external(n, q)``, the joint forces ``Jᵀ w`` they push with at ``q``
  during step ``n``, added to ``u`` wherever the forces are evaluated: at each sub-step's start
  (semi-implicit Euler) or at each RK4 stage.

:meth:`DynamicArmNode.play` integrates in compiled code (:func:`mime_gui.multibody._kernels.forward_rollout`,
the articulated-body algorithm, about as fast per step as Pinocchio's ABA called from Python);
:meth:`~DynamicArmNode.step` and :meth:`~DynamicArmNode.acceleration` are the same equations in numpy, for
one state. With ``external`` the steps are taken one sub-step at a time from Python (the external forces are
computed between them): each Euler sub-step by the same kernel, each RK4 sub-step by :meth:`step`.

The state is published like a kinematic segment's (``P_k = M_j ∘ O ∘ FK_k(θ)``, frame angular velocities
from the joint velocities), so what rides on it follows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mime_gui.multibody import Articulation
from mime_gui.multibody._model import dynamic_model
from mime_gui.multibody._world import WorldState
from mime_gui.multibody.errors import CodedError
from mime_gui.multibody.joint_space import _mass_matrix
from mime_gui.multibody.moving_base import _rnea_moving, base_motion
from mime_gui.nodes.chain import KinematicArmNode, MountedNode, Trajectory, _dt, _pose, _rate, _readonly

INTEGRATORS = ("euler", "rk4")
#: steps integrated between two calls of ``play``'s progress callback
PROGRESS_STEPS = 2048
#: the most sub-steps (steps × sub-steps per step) one call integrates: as many as the steps a command file
#: may make (:data:`mime_gui.nodes.commands.MAX_STEPS`), each sub-step costing at least a kinematic step
MAX_SUBSTEPS = 5_000_000
_ZERO6 = np.zeros(6)
_ZERO6.setflags(write=False)


class DivergenceError(CodedError):
    """Forward dynamics that left the finite numbers (``dynamics.diverged``)."""

    def __init__(self, message: str):
        super().__init__("dynamics.diverged", message)


@dataclass(frozen=True, eq=False)
class DynamicTrajectory(Trajectory):
    """A :class:`~mime_gui.nodes.Trajectory` with the joint velocities ``(T, nq)`` of each step."""

    joint_velocities: np.ndarray = None


def check_substeps(steps: int, substeps: int, dt: float, where: str = "") -> None:
    """Refuse (``dynamics.substeps``) ``steps`` of ``substeps`` sub-steps each beyond :data:`MAX_SUBSTEPS`
    in all, saying how many sub-steps per step fit."""
    total = steps * substeps
    if total <= MAX_SUBSTEPS:
        return
    fit = MAX_SUBSTEPS // max(steps, 1)
    fewer = f"fewer steps (a larger step than {dt:g} s, or a shorter command file)"
    how = f"use at most {fit:,} sub-step(s) per step, or {fewer}" if fit >= 1 else f"play {fewer}"
    many = f"{substeps:,}" if substeps < 10**18 else f"about 10^{int(math.log10(substeps))}"
    raise CodedError("dynamics.substeps", f"{steps:,} steps of {many} sub-steps each make more than the "
                     f"{MAX_SUBSTEPS:,} sub-steps one play may integrate; {how}", where)


class DynamicArmNode(MountedNode):
    """Forward dynamics of an articulation driven by joint torques (see the module docstring)."""

    def __init__(self, art: Articulation, placement=None, integrator: str = "euler", substeps: int = 1,
                 gravity=(0.0, 0.0, -9.81), friction_velocity: float = 1e-3, stops: bool = True):
        super().__init__(placement)
        if integrator not in INTEGRATORS:
            raise ValueError(f"integrator must be one of {', '.join(INTEGRATORS)}, got {integrator!r}")
        if isinstance(substeps, bool) or not isinstance(substeps, int) or substeps < 1:
            raise ValueError(f"substeps must be a whole number ≥ 1, got {substeps!r}")
        fv = float(friction_velocity)
        if not (math.isfinite(fv) and fv > 0):
            raise ValueError(f"friction_velocity must be a positive finite number, got {friction_velocity!r}")
        g = np.asarray(gravity, dtype=float)
        if g.shape != (3,) or not np.isfinite(g).all():
            raise ValueError(f"gravity must be a finite 3-vector (m/s²), got {gravity!r}")
        self.art = art
        self._model = dynamic_model(art)  # refuses an articulation whose mass properties are not physical
        self.integrator = integrator
        self.substeps = substeps
        self.gravity = g
        self.friction_velocity = fv
        self.stops = stops
        self._kinematic = KinematicArmNode(art, placement=self.placement)
        self.lower = np.where(art.continuous, -np.inf, art.lower)
        self.upper = np.where(art.continuous, np.inf, art.upper)
        self._damping = np.asarray(art.damping, dtype=float)
        self._friction = np.asarray(art.friction, dtype=float)
        self._dissipative = bool(np.any(self._damping) or np.any(self._friction))
        self._bounded = bool(np.any(np.isfinite(self.lower) | np.isfinite(self.upper)))

    @property
    def joint_names(self) -> tuple[str, ...]:
        return self.art.joint_names

    @property
    def frame_names(self) -> tuple[str, ...]:
        return self.art.frame_names

    @property
    def command_names(self) -> tuple[str, ...]:
        """Every movable joint takes a torque (mimic joints are independent degrees of freedom here)."""
        return self.art.joint_names

    # -- the equations -----------------------------------------------------------------------------
    def joint_forces(self, u, v) -> np.ndarray:
        """``τ = u − d·v − μ·tanh(v / v_s)``."""
        if not self._dissipative:
            return u
        return u - self._damping * v - self._friction * np.tanh(v / self.friction_velocity)

    def acceleration(self, q, v, u, base_twist=None, base_acceleration=None, gravity=None) -> np.ndarray:
        """``v̇`` of one state: :func:`~mime_gui.multibody.moving_base.dynamics_on_moving_base` without its
        argument checks (the node checked its inputs once), solved by LU (``M`` is small and well
        conditioned)."""
        g = self.gravity if gravity is None else gravity
        V0 = _ZERO6 if base_twist is None else base_twist
        A0 = _ZERO6 if base_acceleration is None else base_acceleration
        ws = WorldState(self._model, q)
        M = _mass_matrix(self._model, ws, self.art.armature)
        c = _rnea_moving(self._model, ws, v, None, V0, A0, g, self.art.armature)
        return np.linalg.solve(M, self.joint_forces(u, v) - c)

    def stop(self, q, v) -> tuple[np.ndarray, np.ndarray]:
        """Joints past a limit put back on it, their velocity into it zeroed."""
        if not (self.stops and self._bounded):
            return q, v
        low, high = q < self.lower, q > self.upper
        if low.any() or high.any():
            q = np.clip(q, self.lower, self.upper)
            v = np.where((low & (v < 0)) | (high & (v > 0)), 0.0, v)
        return q, v

    def step(self, q, v, u, h, base=(None, None, None), external=None) -> tuple[np.ndarray, np.ndarray]:
        """One sub-step of ``h`` seconds from ``(q, v)`` with torques ``u`` and the base's motion held;
        ``external(q)``: joint forces of external wrenches at ``q``, added to ``u`` at each evaluation."""
        V0, A0, g = base

        def acc(qa, va):
            return self.acceleration(qa, va, u if external is None else u + external(qa), V0, A0, g)

        if self.integrator == "euler":
            v = v + h * acc(q, v)
            q = q + h * v
        else:
            k1v = acc(q, v)
            k2q = v + 0.5 * h * k1v
            k2v = acc(q + 0.5 * h * v, k2q)
            k3q = v + 0.5 * h * k2v
            k3v = acc(q + 0.5 * h * k2q, k3q)
            k4q = v + h * k3v
            k4v = acc(q + h * k3q, k4q)
            q = q + (h / 6.0) * (v + 2.0 * k2q + 2.0 * k3q + k4q)
            v = v + (h / 6.0) * (k1v + 2.0 * k2v + 2.0 * k3v + k4v)
        return self.stop(q, v)

    def _check_finite(self, qs, vs, dt) -> None:
        bad = ~(np.isfinite(qs).all(axis=1) & np.isfinite(vs).all(axis=1))
        if bad.any():
            n = int(np.argmax(bad))
            raise DivergenceError(f"the forward dynamics of {self.art.name!r} diverged at step {n} (t = "
                                  f"{(n + 1) * dt:g} s): positions or velocities are no longer finite; "
                                  f"check the torques' size and units, or take a smaller step, more "
                                  f"sub-steps or RK4")

    # -- many steps --------------------------------------------------------------------------------
    def _integrate(self, u, dt, q, v, bases, progress, substeps: int | None = None, external=None) \
            -> tuple[np.ndarray, np.ndarray]:
        """The states after each of the ``T`` steps, by the compiled kernel (the same equations as
        :meth:`step`), in blocks of :data:`PROGRESS_STEPS` so ``progress`` is called between them; with
        ``external``, one sub-step at a time (:meth:`_integrate_external`)."""
        from mime_gui.multibody import _kernels

        substeps = self.substeps if substeps is None else substeps
        check_substeps(len(u), substeps, dt)
        if external is not None:
            return self._integrate_external(u, dt, q, v, bases, progress, substeps, external)
        parent, prismatic, Xtree, inertia = _kernels.model_arrays(self._model)
        w = _kernels.writable
        V0, A0, g = (w(x) for x in bases)
        fixed = self._fixed(_kernels.RK4 if self.integrator == "rk4" else _kernels.EULER, substeps, dt)
        T, nq = u.shape
        qs, vs = np.empty((T, nq)), np.empty((T, nq))
        q, v = np.array(q, dtype=float), np.array(v, dtype=float)
        for start in range(0, T, PROGRESS_STEPS):
            stop = min(start + PROGRESS_STEPS, T)
            rows = slice(start, stop) if len(V0) > 1 else slice(0, 1)
            bad = _kernels.forward_rollout(parent, prismatic, Xtree, inertia, *fixed,
                                           w(u[start:stop]), V0[rows], A0[rows], g[rows],
                                           q, v, qs[start:stop], vs[start:stop])
            if bad <= -2:
                raise self._singular(-2 - bad)
            if bad >= 0:
                qs[stop:] = np.nan
                vs[stop:] = np.nan
                break
            if progress is not None and stop < T:
                progress(stop, T)
        return qs, vs

    def _fixed(self, integrator: int, substeps: int, dt: float) -> tuple:
        """The kernel's arguments that stay the same through a run."""
        from mime_gui.multibody._kernels import writable as w

        return (w(self.art.armature), w(self._damping), w(self._friction), self.friction_velocity,
                w(self.lower), w(self.upper), bool(self.stops and self._bounded), integrator, int(substeps),
                float(dt))

    def _singular(self, j: int) -> CodedError:
        joint = self.art.joint_names[j]
        return CodedError("dynamics.singular", f"joint {joint!r} of {self.art.name!r} moves no mass or "
                          "inertia about its axis, so a torque on it gives no defined acceleration; give the "
                          "links it moves mass and inertia in the description, or declare armature on the "
                          "joint")

    def _integrate_external(self, u, dt, q, v, bases, progress, substeps: int, external) \
            -> tuple[np.ndarray, np.ndarray]:
        """:meth:`_integrate` with the joint forces ``external(n, q)`` of position-dependent external wrenches
        during step ``n``, evaluated where the integrator evaluates the forces: a Python loop over sub-steps
        (the wrenches are computed between them), each semi-implicit Euler sub-step by the compiled kernel
        (one sub-step of ``h``: the same equations, stops and checks), each RK4 one by :meth:`step`."""
        from mime_gui.multibody import _kernels

        w = _kernels.writable
        V0, A0, g = (w(x) for x in bases)
        T, nq = u.shape
        h = dt / substeps
        euler = self.integrator == "euler"
        arrays = _kernels.model_arrays(self._model)
        fixed = self._fixed(_kernels.EULER, 1, h)
        qs, vs = np.full((T, nq), np.nan), np.full((T, nq), np.nan)
        q, v = np.array(q, dtype=float), np.array(v, dtype=float)
        q1, v1 = np.empty((1, nq)), np.empty((1, nq))
        for n in range(T):
            r = n if len(V0) > 1 else 0
            for _ in range(substeps):
                if euler:
                    tau = w((u[n] + external(n, q))[None])
                    bad = _kernels.forward_rollout(*arrays, *fixed, tau, V0[r:r + 1], A0[r:r + 1], g[r:r + 1],
                                                   q, v, q1, v1)
                    if bad <= -2:
                        raise self._singular(-2 - bad)
                else:
                    try:
                        q, v = self.step(q, v, u[n], h, (V0[r], A0[r], g[r]), lambda x, n=n: external(n, x))
                    except np.linalg.LinAlgError:  # the kernel names the joint that moves nothing
                        self._integrate(u[n:n + 1], h, q, v, (V0[r:r + 1], A0[r:r + 1], g[r:r + 1]), None, 1)
                        raise
            if not (np.isfinite(q).all() and np.isfinite(v).all()):
                break
            qs[n], vs[n] = q, v
            if progress is not None and (n + 1) % PROGRESS_STEPS == 0 and n + 1 < T:
                progress(n + 1, T)
        return qs, vs

    def play(self, torques, dt: float, initial_positions=None, initial_velocities=None, mount_poses=None,
             mount_rates=None, mount_pose0=None, progress=None, external=None) -> DynamicTrajectory:
        """``T`` steps: torque row ``n`` ``(T, nq)`` held through step ``n`` from ``initial_positions``
        (full ``nq``, default zeros held within the limits) and ``initial_velocities`` (default rest).
        ``mount_poses (T, 4, 4)`` and ``mount_rates (T, 3)``: the mount during each step, ``mount_pose0``
        before step 0 (default: the first pose), from which the base's motion is differenced.
        ``external(n, q)``: joint forces ``(nq,)`` of external wrenches at ``q`` during step ``n`` (see the
        module)."""
        dt = _dt(dt)
        u = np.asarray(torques, dtype=float)
        nq = self.art.nq
        if u.ndim != 2 or u.shape[1] != nq:
            raise ValueError(f"torques must be a (T, {nq}) array ({', '.join(self.joint_names)}), got shape "
                             f"{u.shape}")
        if not np.isfinite(u).all():
            raise ValueError("torques hold non-finite values")
        T = len(u)
        q = np.zeros(nq) if initial_positions is None else np.array(initial_positions, dtype=float)
        v = np.zeros(nq) if initial_velocities is None else np.array(initial_velocities, dtype=float)
        if q.shape != (nq,) or v.shape != (nq,) or not (np.isfinite(q).all() and np.isfinite(v).all()):
            raise ValueError(f"initial positions and velocities must be {nq} finite numbers")
        q, v = self.stop(q, v)
        if mount_poses is None:
            R = self.placement[:3, :3]
            bases = (np.zeros((1, 6)), np.zeros((1, 6)), (R.T @ self.gravity)[None])
            M = None
        else:
            M = _pose(mount_poses, "mount_poses", T)
            M = np.broadcast_to(M, (T, 4, 4))
            w = np.zeros((T, 3)) if mount_rates is None else np.broadcast_to(
                _rate(mount_rates, "mount_rates", T), (T, 3))
            M0 = M[0] if mount_pose0 is None else _pose(mount_pose0, "mount_pose0")
            X = M @ self.placement
            bases = base_motion(X, M0 @ self.placement, w, dt, self.gravity)
        qs, vs = self._integrate(u, dt, q, v, bases, progress, external=external)
        self._check_finite(qs, vs, dt)
        out = self._published(qs, vs, dt, M, mount_rates)
        if progress is not None:
            progress(T, T)
        return out

    def published(self, joint_positions, joint_velocities, dt: float, mount_poses=None, mount_rates=None) \
            -> DynamicTrajectory:
        """The trajectory of the states ``(T, nq)`` integrated elsewhere (step by step beside other segments,
        :mod:`mime_gui.rig.driven`) as :meth:`play` publishes its own: frames on ``mount_poses (T, 4, 4)``,
        frame angular velocities from the joint velocities and ``mount_rates (T, 3)``."""
        qs = np.asarray(joint_positions, dtype=float)
        vs = np.asarray(joint_velocities, dtype=float)
        self._check_finite(qs, vs, _dt(dt))
        M = None if mount_poses is None else np.broadcast_to(_pose(mount_poses, "mount_poses", len(qs)),
                                                            (len(qs), 4, 4))
        return self._published(qs, vs, _dt(dt), M, mount_rates)

    def _published(self, qs, vs, dt, M, mount_rates) -> DynamicTrajectory:
        poses = self._kinematic.frames(qs, M)
        angular = np.empty((len(qs), self.art.nframes, 3))
        omega = np.zeros(3) if mount_rates is None else _rate(mount_rates, "mount_rates", len(qs))
        self._kinematic._angular_from_poses(poses, vs, omega, angular)
        clamped = np.zeros(self.art.nq, dtype=int)
        return DynamicTrajectory(_readonly(qs), _readonly(np.ascontiguousarray(poses)), _readonly(angular),
                                 dt, _readonly(clamped), _readonly(vs))

    # -- one step at a time (the app's live clock) -------------------------------------------------
    def advance(self, q, v, u, dt: float, base=(None, None, None), mount_pose=None, mount_rate=None,
                max_substep: float = 1e-3, external=None):
        """One step of ``dt`` seconds from ``(q, v)`` with the torques ``u`` and the base's motion ``base``
        (``(V0, A0, g)`` in the base's axes, as :meth:`step` takes it) held through it, in equal sub-steps of
        at most ``max_substep`` seconds (and at least :attr:`substeps` of them; ``math.inf``: exactly those),
        with the external joint forces ``external(0, q)`` (see the module). Returns the new
        :class:`~mime_gui.nodes.NodeState` (frames on ``mount_pose``, frame angular velocities from the joint
        velocities and ``mount_rate``) and the joint velocities. Raises :class:`DivergenceError` when the
        state leaves the finite numbers."""
        from mime_gui.nodes.chain import NodeState

        dt = _dt(dt)
        n = max(self.substeps, math.ceil(dt / float(max_substep) - 1e-9))
        q, v = self.stop(np.array(q, dtype=float), np.array(v, dtype=float))
        u = np.asarray(u, dtype=float)
        if u.shape != (self.art.nq,) or not np.isfinite(u).all():
            raise ValueError(f"torques must be {self.art.nq} finite numbers ({', '.join(self.joint_names)}), "
                             f"got shape {u.shape}")
        V0, A0, g = base
        rows = (np.zeros((1, 6)) if V0 is None else np.reshape(V0, (1, 6)),
                np.zeros((1, 6)) if A0 is None else np.reshape(A0, (1, 6)),
                np.reshape(self.gravity if g is None else g, (1, 3)))
        qs, vs = self._integrate(u.reshape(1, -1), dt, q, v, rows, None, substeps=n, external=external)
        q, v = qs[0], vs[0]
        if not (np.isfinite(q).all() and np.isfinite(v).all()):
            raise DivergenceError(f"the forward dynamics of {self.art.name!r} diverged: positions or "
                                  "velocities are no longer finite; check the torques' size and units")
        kin = self._kinematic
        M = None if mount_pose is None else _pose(mount_pose, "mount_pose")
        omega = kin.base_rate(None if mount_rate is None else _rate(mount_rate, "mount_rate"))
        poses = kin.frames(q, M)
        angular = kin._angular(q, v, kin.base(M), omega)
        return NodeState(_readonly(q), _readonly(poses), _readonly(angular)), v
