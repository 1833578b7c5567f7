"""What a trajectory asks of a rig's motors: the joint torques each dynamic segment needs, step by step.

For a played trajectory (every row the state after a step of ``dt``) each dynamic segment's joint torques are
its inverse dynamics along it, batched over time: gravity, the mount's motion (as the base's), armature,
grafted parts, and the segments riding on it moving as they do along the trajectory (their weight where
they are and their reaction to their own motion: :mod:`mime_gui.rig.coupled`). Rates are those the playback
publishes, for the riders' joints as for the segment's own:

- ``v_n = (θ_n − θ_{n−1}) / dt`` with ``θ_{−1}`` the state before step 0;
- ``v̇_n = (v_n − v_{n−1}) / dt`` with ``v_{−1} = 0`` (a trajectory starts at rest);
- the base: its origin's velocity by the same difference of positions, its angular velocity the mount
  frame's published one, and its spatial acceleration the same difference of its spatial twist (world axes,
  about the world origin), all turned into the base's axes at each step.

The armature's share ``armature · v̇`` is returned separately (it is included in the torques). Damping and
friction are the description's, not the motor's demand: they are not added.

The rig's magnets pull on each other (:mod:`mime_gui.rig.magnet_pull`): the force and torque on each magnet
from the magnets on other bodies is an external wrench on the body it rides on, and its share of the joint
torques, ``−Jᵀ w`` (:func:`~mime_gui.multibody.joint_space.external_joint_forces`), is added to them and
returned separately too (``magnet_torques``). Where that share takes a joint's ``|τ|`` past its effort limit
(within it without the share) the run is a ``torque.magnets`` excess (:func:`~mime_gui.rig.limits.
magnet_excesses`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mime_gui.multibody import PRISMATIC
from mime_gui.multibody._model import dynamic_model
from mime_gui.multibody.moving_base import base_motion

GRAVITY = (0.0, 0.0, -9.81)


def inverse_dynamics_rows(art, q, v, vdot, V0, A0, g) -> np.ndarray:
    """Joint forces ``(T, nq)`` producing ``vdot (T, nq)`` at ``(q, v)`` on a base moving with ``V0``,
    ``A0`` (``(T, 6)``) under gravity ``g (T, 3)``, all in the base's axes (one row of each: the same base
    for every row), armature included: the compiled recursive Newton-Euler pass, a few µs for one row. A row
    whose state is not finite gives NaN torques."""
    from mime_gui.multibody import _kernels

    q, v, vdot = (np.asarray(x, dtype=float) for x in (q, v, vdot))
    bad = ~(np.isfinite(q).all(axis=1) & np.isfinite(v).all(axis=1) & np.isfinite(vdot).all(axis=1))
    if bad.any():  # the kernel takes finite numbers only: such a row is run at rest, then is not a number
        q, v, vdot = (np.where(bad[:, None], 0.0, x) for x in (q, v, vdot))
    tau = np.empty(q.shape)
    w = _kernels.writable
    _kernels.rnea_rollout(*_kernels.rnea_arrays(dynamic_model(art)), w(art.armature), w(q), w(v), w(vdot),
                          w(V0), w(A0), w(g), tau)
    tau[bad] = np.nan  # as numpy's pass gives for a state that is not finite; callers name the step
    return tau


def rates(q: np.ndarray, q0: np.ndarray, dt: float) -> tuple[np.ndarray, np.ndarray]:
    """``v`` and ``v̇`` ``(T, nq)`` by backward differences (see the module docstring)."""
    previous = np.concatenate([np.asarray(q0, float)[None], q[:-1]])
    v = (q - previous) / dt
    vdot = np.diff(v, axis=0, prepend=np.zeros((1, q.shape[1]))) / dt
    return v, vdot


def segment_torques(art, q, q0, dt: float, world_X_base=None, world_X_base0=None, omega=None,
                    gravity=GRAVITY) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Joint torques ``(T, nq)`` (armature included), the armature's share, and the joint velocities of one
    segment along ``q (T, nq)`` from ``q0``. ``world_X_base`` ``(4, 4)`` (fixed) or ``(T, 4, 4)`` with
    ``world_X_base0`` and ``omega (T, 3)`` (moving); None: the world."""
    q = np.asarray(q, float)
    v, vdot = rates(q, q0, dt)
    armature = art.armature * vdot
    X = np.eye(4) if world_X_base is None else np.asarray(world_X_base, float)
    if X.ndim == 2:  # a base at rest: gravity in its axes
        zero = np.zeros((1, 6))
        V0, A0, g = zero, zero, (X[:3, :3].T @ np.asarray(gravity, float))[None]
    else:
        V0, A0, g = base_motion(X, world_X_base0, np.asarray(omega, float), dt, gravity)
    tau = inverse_dynamics_rows(art, q, v, vdot, V0, A0, g)
    return tau, armature, v


@dataclass(frozen=True, eq=False)
class RigTorques:
    """The torques a trajectory asks of every dynamic segment: columns ``joint_names`` (``<segment>.<joint>``,
    chain order); ``joint_torques``, ``armature_torques`` and ``joint_velocities`` ``(T, n)``; ``time (T,)``;
    ``excesses`` (:class:`~mime_gui.rig.limits.Excess`) of the description's effort and velocity limits."""

    joint_names: tuple[str, ...]
    time: np.ndarray
    joint_torques: np.ndarray
    armature_torques: np.ndarray
    joint_velocities: np.ndarray
    effort_limits: np.ndarray
    velocity_limits: np.ndarray
    excesses: tuple
    effort_units: tuple = ()  # "N·m" or "N" (a sliding joint) per column
    magnet_torques: np.ndarray | None = None  # (T, n): the magnets' pull's share, included; None: none
    magnet_pull: object = None  # the pull itself (mime_gui.rig.magnet_pull.MagnetPull); None: not computed

    def demands(self) -> list:
        """Each joint's peak and RMS torque and peak speed beside its limits
        (:class:`~mime_gui.rig.limits.Demand`), in column order."""
        from mime_gui.rig.limits import demands, unit_pairs

        units = unit_pairs(self.effort_units) or None
        return demands(self.joint_names, self.time, self.joint_torques, self.joint_velocities,
                       self.effort_limits, self.velocity_limits, units)

    def arrays(self) -> dict[str, np.ndarray]:
        """What ``mime-gui play --torques`` adds to its output."""
        found = self.demands()
        def column(field):
            return np.array([getattr(d, field) for d in found]) if found else np.zeros(len(self.joint_names))

        return {"torque_joint_names": np.array(self.joint_names, dtype=str),
                "joint_torques": self.joint_torques, "armature_torques": self.armature_torques,
                "effort_limits": self.effort_limits, "velocity_limits": self.velocity_limits,
                "torque_peak": column("peak"), "torque_rms": column("rms"), "velocity_peak": column("speed"),
                "limit_excesses": np.array([str(e) for e in self.excesses], dtype=str),
                **({} if self.magnet_torques is None else {"magnet_torques": self.magnet_torques})}


def _magnet_share(built, pull, name: str, art, coupled, q, world_X_base) -> np.ndarray | None:
    """The joint forces ``(T, nq)`` of ``art`` (segment ``name``'s, or its ``coupled`` articulation) from the
    magnets' pull on the bodies it holds, at ``q (T, nq)`` with its base at ``world_X_base`` (``(4, 4)`` or
    ``(T, 4, 4)``); None when no magnet that is pulled rides on it."""
    from mime_gui.multibody.joint_space import external_joint_forces

    members = coupled.segments if coupled is not None else (name,)
    X = np.asarray(world_X_base, float)
    R, p = X[..., :3, :3], X[..., :3, 3]
    wrenches = {}
    for i, magnet in enumerate(pull.magnet_names):
        if not np.any(pull.force[:, i]) and not np.any(pull.torque[:, i]):
            continue
        for seg in members:
            link = built.segments[seg].link_of(("magnets", magnet))
            if link is None:
                continue
            link = link if coupled is None else coupled.link_name(seg, link)
            # about the base's origin, in its axes: the articulation's own frame
            about = pull.torque[:, i] + np.cross(pull.centre[:, i] - p, pull.force[:, i])
            wrenches[link] = (np.einsum("...ji,...j->...i", R, about),
                              np.einsum("...ji,...j->...i", R, pull.force[:, i]))
    if not wrenches:
        return None
    return -external_joint_forces(art, q, wrenches)


def _pull(built, segments: dict, magnets: bool):
    """The magnets' pull along the played ``segments`` (None: not asked, or fewer than two magnets)."""
    if not magnets or len(built.apparatus.magnets) < 2 or not segments:
        return None
    from mime_gui.rig.magnet_pull import magnet_pull

    pull = magnet_pull(built, segments)
    return pull if pull.any else None


def rig_torques(built, segments: dict, initial: dict, dt: float, start: float = 0.0,
                gravity=GRAVITY, magnets: bool = True) -> RigTorques:
    """Torques of every dynamic segment of ``built`` along ``segments`` (name → Trajectory, as the chain
    node plays them) from ``initial`` (name → NodeState before step 0); ``magnets``: with the magnets'
    pull on each other (see the module)."""
    from mime_gui.rig.limits import excesses, magnet_excesses

    names, taus, arms, vels, effort, velocity, types, shares = [], [], [], [], [], [], [], []
    T = len(next(iter(segments.values()))) if segments else 0
    pull = _pull(built, segments, magnets)
    time = start + dt * np.arange(1, T + 1)
    for name, s in built.segments.items():
        if not s.segment.dynamic:
            continue
        art = s.dynamics_articulation
        if s.mount is None:
            X = X0 = s.placement
            omega = None
        else:
            seg, frame = s.mount
            f = built.segments[seg].articulation.frame_index(frame)
            X = segments[seg].frame_poses[:, f] @ s.placement
            X0 = initial[seg].frame_poses[f] @ s.placement
            omega = segments[seg].frame_angular_velocities[:, f]
        c = s.coupled
        if c is None:
            q = segments[name].joint_positions
            tau, arm, v = segment_torques(art, q, initial[name].joint_positions, dt, X, X0, omega, gravity)
            share = None if pull is None else _magnet_share(built, pull, name, art, None, q, X)
        else:  # the riders moving on it (mime_gui.rig.coupled): its own columns of the coupled torques
            q = c.gather({n: segments[n].joint_positions for n in c.segments})
            q0 = c.gather({n: initial[n].joint_positions for n in c.segments})
            tau, arm, v = (x[:, c.columns[name]] for x in
                           segment_torques(c.articulation, q, q0, dt, X, X0, omega, gravity))
            share = None if pull is None else _magnet_share(built, pull, name, c.articulation, c, q, X)
            share = None if share is None else share[:, c.columns[name]]
        share = np.zeros_like(tau) if share is None else share
        tau = tau + share
        shares.append(share)
        names += [f"{name}.{j}" for j in art.joint_names]
        taus.append(tau)
        arms.append(arm)
        vels.append(v)
        effort.append(art.effort_limit)
        velocity.append(art.velocity_limit)
        types += list(art.joint_type)
    def stack(xs):
        return np.concatenate(xs, axis=1) if xs else np.zeros((T, 0))

    tau, arm, v, share = stack(taus), stack(arms), stack(vels), stack(shares)
    effort = np.concatenate(effort) if effort else np.zeros(0)
    velocity = np.concatenate(velocity) if velocity else np.zeros(0)
    units = [("N", "m/s") if t == PRISMATIC else ("N·m", "rad/s") for t in types]
    found = excesses(tuple(names), time, tau, v, effort, velocity, units)
    if pull is not None:
        found += magnet_excesses(tuple(names), time, tau, share, effort, units)
    return RigTorques(tuple(names), time, tau, arm, v, effort, velocity, tuple(found),
                      tuple(u for u, _ in units), None if pull is None else share, pull)


def arm_torques(art, joint_positions, q0, dt: float, start: float = 0.0, gravity=GRAVITY) -> RigTorques:
    """:func:`rig_torques` of one arm fixed at the world origin (``mime-gui play ARM.urdf --torques``)."""
    from mime_gui.rig.limits import excesses

    q = np.asarray(joint_positions, float)
    tau, arm, v = segment_torques(art, q, q0, dt, gravity=gravity)
    time = start + dt * np.arange(1, len(q) + 1)
    units = [("N", "m/s") if t == PRISMATIC else ("N·m", "rad/s") for t in art.joint_type]
    found = excesses(art.joint_names, time, tau, v, art.effort_limit, art.velocity_limit, units)
    return RigTorques(tuple(art.joint_names), time, tau, arm, v, np.asarray(art.effort_limit),
                      np.asarray(art.velocity_limit), tuple(found), tuple(u for u, _ in units))
