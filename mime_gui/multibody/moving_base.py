"""Dynamics of an articulation whose root moves: the mount's motion as the base's, and a rigid payload.

A segment mounted on another rides on a frame that moves. Its equations of motion take that frame's motion
as the base's: written in the base's axes *at that instant* (an inertial frame momentarily coinciding with
the base), the recursive Newton-Euler pass starts from the base twist ``V0`` and spatial acceleration
``A0 - [0; g]`` instead of ``0`` and ``-[0; g]``. Joint torques are the same in any axes, so they are those of
the moving arm.

- ``base_twist (..., 6)``: ``[ω; v]``, the base's angular velocity and the velocity of its origin, base axes.
- ``base_acceleration (..., 6)``: the spatial acceleration ``[ω̇; a − ω × v]`` (``a`` the origin's classical
  acceleration), base axes.
- ``gravity (..., 3)`` in base axes (it changes with the base's orientation, so it may carry the batch).

:func:`base_motion` turns a played base trajectory (world poses and angular velocities per step) into those
three by backward differences from rest; :class:`BaseTrack` the same one step at a time (live driving, and
playback stepped beside other segments). :func:`with_payload` welds rigid mass properties onto a body (what
rides on an arm, at its current configuration): the body's spatial inertia gains the payload's.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from mime_gui.multibody import _world
from mime_gui.multibody._model import dynamic_model
from mime_gui.multibody.articulation import Articulation
from mime_gui.multibody.joint_space import _check_state, _mass_matrix, _solve_mass
from mime_gui.multibody.kinematics import check_vector
from mime_gui.multibody.spatial import spatial_inertia


def _batched(x, name: str, n: int, batch: tuple) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    if x.shape[-1:] != (n,) or not np.isfinite(x).all():
        raise ValueError(f"{name} must be finite numbers of shape (..., {n}), got shape {x.shape}")
    try:
        np.broadcast_shapes(x.shape[:-1], batch)
    except ValueError:
        raise ValueError(f"{name} {x.shape} does not broadcast with the batch {batch}") from None
    return x


def inverse_dynamics_on_moving_base(art: Articulation, q, v, vdot, base_twist=None, base_acceleration=None,
                                    gravity=(0.0, 0.0, -9.81)) -> np.ndarray:
    """Joint forces ``tau (..., nv)`` producing ``vdot`` at ``(q, v)`` on a base moving with ``base_twist``
    and ``base_acceleration`` (see the module docstring), ``art.armature * vdot`` included. With a base at
    rest this is :func:`~mime_gui.multibody.inverse_dynamics`."""
    m = dynamic_model(art)
    (q, v, vdot), batch = _check_state(art, q, v, vdot)
    V0 = _batched(np.zeros(6) if base_twist is None else base_twist, "base_twist", 6, batch)
    A0 = _batched(np.zeros(6) if base_acceleration is None else base_acceleration, "base_acceleration", 6,
                  batch)
    g = _batched(gravity, "gravity", 3, batch)
    return _rnea_moving(m, _world.WorldState(m, q), v, vdot, V0, A0, g, art.armature)


def bias_on_moving_base(art: Articulation, q, v, base_twist=None, base_acceleration=None,
                        gravity=(0.0, 0.0, -9.81)) -> np.ndarray:
    """``c(q, v)`` on a moving base: the inverse dynamics at zero joint acceleration."""
    return inverse_dynamics_on_moving_base(art, q, v, np.zeros(art.nv), base_twist, base_acceleration,
                                           gravity)


def dynamics_on_moving_base(art: Articulation, q, v, tau, base_twist=None, base_acceleration=None,
                            gravity=(0.0, 0.0, -9.81)) -> np.ndarray:
    """Joint accelerations ``vdot (..., nv)`` from ``tau`` on a moving base: ``M vdot = tau - c`` (armature in
    ``M``), solved by Cholesky. Damping and friction are not applied."""
    m = dynamic_model(art)
    (q, v), batch = _check_state(art, q, v)
    tau = check_vector(art, tau, "tau")
    batch = np.broadcast_shapes(batch, tau.shape[:-1])
    V0 = _batched(np.zeros(6) if base_twist is None else base_twist, "base_twist", 6, batch)
    A0 = _batched(np.zeros(6) if base_acceleration is None else base_acceleration, "base_acceleration", 6,
                  batch)
    g = _batched(gravity, "gravity", 3, batch)
    ws = _world.WorldState(m, q)
    M = _mass_matrix(m, ws, art.armature)
    c = _rnea_moving(m, ws, v, None, V0, A0, g, art.armature)
    return _solve_mass(art, M, tau - c, batch)


def _rnea_moving(m, ws, v, vdot, V0, A0, g, armature) -> np.ndarray:
    """World-frame RNEA (``joint_space._rnea_world``) with the root's twist ``V0`` and acceleration ``A0``."""
    S = ws.S
    Sv = S * v[..., None]
    V = _world.tree_sum(m.joint_ancestor, Sv) + V0[..., None, :]
    acc = _world.motion_cross(V[..., 1:, :], Sv)
    if vdot is not None:
        acc = acc + S * vdot[..., None]
    A = _world.tree_sum(m.joint_ancestor, acc) + A0[..., None, :]
    A[..., 3:] -= g[..., None, :]
    Inert = ws.inertias
    h = (Inert @ V[..., None])[..., 0]
    f = (Inert @ A[..., None])[..., 0] + _world.force_cross(V, h)
    Fsub = _world.tree_sum(m.subtree, f)[..., 1:, :]
    tau = np.einsum("...jk,...jk->...j", S, Fsub)
    if vdot is not None:
        tau = tau + armature * vdot
    return tau


def with_payload(art: Articulation, body: int, mass: float, com, inertia_com) -> Articulation:
    """A copy of ``art`` with a rigid payload welded to ``body``: ``mass`` (kg), its centre of mass ``com``
    and rotational inertia ``inertia_com`` about it (kg m²), both in the body's frame. The body's spatial
    inertia becomes the sum of its own and the payload's."""
    if not 0 <= body < art.nbodies:
        raise IndexError(f"body {body} is not a body of {art.name!r} (0..{art.nbodies - 1})")
    own = art.spatial_inertia[body]
    total = own + spatial_inertia(float(mass), np.asarray(com, float), np.asarray(inertia_com, float))
    m = float(total[3, 3])
    mass_of_body = np.array(art.mass_of_body, dtype=float)
    com_all = np.array(art.com, dtype=float)
    inertia_all = np.array(art.inertia_com, dtype=float)
    spatial_all = np.array(art.spatial_inertia, dtype=float)
    mass_of_body[body] = m
    if m > 0:
        # m [c]x is the upper-right block; [c]x c = 0, so c comes out of its skew part
        mC = total[:3, 3:]
        c = np.array([mC[2, 1], mC[0, 2], mC[1, 0]]) / m
        C = np.array([[0, -c[2], c[1]], [c[2], 0, -c[0]], [-c[1], c[0], 0]])
        com_all[body] = c
        inertia_all[body] = total[:3, :3] - m * (C @ C.T)
    spatial_all[body] = total
    frozen = []
    for a in (mass_of_body, com_all, inertia_all, spatial_all):
        a.setflags(write=False)
        frozen.append(a)
    return replace(art, mass_of_body=frozen[0], com=frozen[1], inertia_com=frozen[2],
                   spatial_inertia=frozen[3])


def rigid_mass_properties(masses, coms, inertias, poses) -> tuple[float, np.ndarray, np.ndarray]:
    """Mass, centre of mass and inertia about it (in the frame the ``poses`` map into) of rigid bodies
    ``masses (k,)``, ``coms (k, 3)`` and ``inertias (k, 3, 3)`` in their own frames, posed by
    ``poses (k, 4, 4)``."""
    masses = np.asarray(masses, float)
    total = float(masses.sum())
    if masses.size == 0 or total < 0:  # a negative mass is not physical: carried as nothing
        return 0.0, np.zeros(3), np.zeros((3, 3))
    R = poses[:, :3, :3]
    Ic = R @ np.asarray(inertias, float) @ np.swapaxes(R, -1, -2)
    if total == 0:  # no mass (a motor's bare rotor): its rotational inertia still counts, about any point
        return 0.0, np.zeros(3), Ic.sum(axis=0)
    c = np.einsum("kab,kb->ka", R, coms) + poses[:, :3, 3]
    com = (masses[:, None] * c).sum(axis=0) / total
    d = c - com
    # parallel axis: m (|d|² 1 - d dᵀ)
    shift = masses[:, None, None] * (np.einsum("ka,ka->k", d, d)[:, None, None] * np.eye(3)
                                     - d[:, :, None] * d[:, None, :])
    return total, com, (Ic + shift).sum(axis=0)


def base_motion(world_X_base: np.ndarray, world_X_base0: np.ndarray, omega: np.ndarray, dt: float,
                gravity=(0.0, 0.0, -9.81)) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The base's twist, spatial acceleration and gravity in its own axes at each step ``(T, 6)``,
    ``(T, 6)``, ``(T, 3)``, from its world poses ``(T, 4, 4)`` (``world_X_base0`` before step 0) and world
    angular velocities ``omega (T, 3)``."""
    p = world_X_base[:, :3, 3]
    p_prev = np.concatenate([world_X_base0[None, :3, 3], p[:-1]])
    v = (p - p_prev) / dt
    # spatial twist in world axes about the world origin: [ω; v_p − ω × p]
    Vw = np.concatenate([omega, v - np.cross(omega, p)], axis=1)
    Aw = np.diff(Vw, axis=0, prepend=np.zeros((1, 6))) / dt
    Rt = np.swapaxes(world_X_base[:, :3, :3], -1, -2)

    def to_base(X):
        w, lin = X[:, :3], X[:, 3:]
        return np.concatenate([(Rt @ w[..., None])[..., 0], (Rt @ (lin - np.cross(p, w))[..., None])[..., 0]],
                              axis=1)

    g = (Rt @ np.asarray(gravity, float))
    return to_base(Vw), to_base(Aw), g


class BaseTrack:
    """A mounted segment's base along steps taken one at a time: its pose, angular velocity and origin's
    velocity at the last step (world axes), from which the next step's twist and spatial acceleration are
    differenced. Started at the pose before step 0, at rest, its steps are :func:`base_motion`'s rows."""

    def __init__(self, pose, omega=None):
        self.pose = np.asarray(pose, dtype=float)
        self.omega = np.zeros(3) if omega is None else np.asarray(omega, dtype=float)
        self.velocity = np.zeros(3)

    def step(self, pose, omega, dt: float, gravity=(0.0, 0.0, -9.81)):
        """``(V0, A0, g)`` in the base's axes at the step of ``dt`` that reached ``pose`` turning at
        ``omega``: :func:`base_motion` over the previous step and this one
        (the previous origin given so that its velocity is the one kept, whatever the previous step's
        length)."""
        pose = np.asarray(pose, dtype=float)
        omega = np.zeros(3) if omega is None else np.asarray(omega, dtype=float)
        # base_motion's last row of the two steps, written out for one step (a step of forward dynamics
        # stepped beside other segments takes it, and numpy's batched calls cost more than the arithmetic)
        p, p_prev = pose[:3, 3], self.pose[:3, 3]
        before = p_prev - dt * self.velocity
        v = (p - p_prev) / dt
        twist = np.concatenate([omega, v - _cross3(omega, p)])
        previous = np.concatenate([self.omega, (p_prev - before) / dt - _cross3(self.omega, p_prev)])
        acceleration = (twist - previous) / dt
        Rt = pose[:3, :3].T

        def to_base(x):
            return np.concatenate([Rt @ x[:3], Rt @ (x[3:] - _cross3(p, x[:3]))])

        self.velocity = v
        self.pose, self.omega = pose, omega
        return to_base(twist), to_base(acceleration), Rt @ np.asarray(gravity, float)


def _cross3(a, b) -> np.ndarray:
    """``a × b`` of two 3-vectors (``np.cross`` costs some 20 µs a call on them)."""
    a0, a1, a2 = float(a[0]), float(a[1]), float(a[2])
    b0, b1, b2 = float(b[0]), float(b[1]), float(b[2])
    return np.array([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0])
