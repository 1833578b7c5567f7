"""Joint-space dynamics of an Articulation: mass matrix (CRBA), inverse dynamics (RNEA), bias, forward
dynamics.

Equations of motion: ``M(q) vdot + c(q, v, w_ext) = tau`` with ``M`` including ``art.armature`` on its
diagonal.
Joint damping and friction are carried by the Articulation but *not applied* here: add ``damping * v`` (and a
friction model of your choice) to ``tau`` yourself.

Every function takes leading batch dimensions on ``q``, ``v``, ``vdot`` and ``tau`` (they broadcast). Small
batches run the world-frame algorithms vectorised over bodies; large batches of :func:`inverse_dynamics` and
:func:`dynamics_bias` run a compiled recursive Newton-Euler pass in joint-axis frames, one state after
another (:mod:`mime_gui.multibody._kernels`).
"""

from __future__ import annotations

import math

import numpy as np

from mime_gui.multibody import _world
from mime_gui.multibody._model import Model, dynamic_model
from mime_gui.multibody.articulation import Articulation
from mime_gui.multibody.kinematics import axis_frames, check_vector

#: batches at least this large take the compiled axis-frame recursive path in inverse_dynamics
LARGE_BATCH = 64


def mass_matrix(art: Articulation, q) -> np.ndarray:
    """Joint-space mass matrix ``(..., nv, nv)`` by the composite rigid body algorithm, plus ``art.armature``
    on the diagonal. Symmetric positive definite for a physical articulation."""
    m = dynamic_model(art)
    q = check_vector(art, q)
    return _mass_matrix(m, _world.WorldState(m, q), art.armature)


def _mass_matrix(m: Model, ws: _world.WorldState, armature) -> np.ndarray:
    U = ws.composite_columns()  # (..., nq, 6)
    # G[j, k] = U_j . S_k, valid when k's body is j's body or an ancestor of it
    G = U @ np.swapaxes(ws.S, -1, -2)
    lower = np.where(m.joint_joint, G, 0.0)
    M = lower + np.swapaxes(lower, -1, -2)
    idx = np.arange(m.nq)
    M[..., idx, idx] = G[..., idx, idx] + armature
    return M


def _check_state(art, q, v, vdot=None):
    q = check_vector(art, q)
    v = check_vector(art, v, "v")
    out = [q, v]
    if vdot is not None:
        out.append(check_vector(art, vdot, "vdot"))
    shapes = [x.shape[:-1] for x in out]
    try:
        batch = np.broadcast_shapes(*shapes)
    except ValueError:
        names = ", ".join(f"{n} {x.shape}" for n, x in zip(("q", "v", "vdot"), out, strict=False))
        raise ValueError(f"the leading (batch) dimensions of {names} do not broadcast") from None
    return out, batch


def inverse_dynamics(art: Articulation, q, v, vdot, external_wrenches=None, gravity=(0.0, 0.0, -9.81)):
    """Joint forces ``tau (..., nv)`` that produce ``vdot`` at ``(q, v)``: recursive Newton-Euler, plus
    ``art.armature * vdot``.

    ``external_wrenches``: mapping body or link name → ``(torque, force)`` acting on that body, world axes,
    torque about the world origin (each may carry the batch dimensions). ``gravity`` in world axes. Damping
    and friction are not applied.
    """
    m = dynamic_model(art)
    (q, v, vdot), batch = _check_state(art, q, v, vdot)
    g = _world.check_gravity(gravity)
    fext = _world.external_wrench_array(art, external_wrenches, batch)
    return _rnea(art, m, q, v, vdot, g, fext, batch)


def external_joint_forces(art: Articulation, q, external_wrenches) -> np.ndarray:
    """The joint forces ``(..., nv)`` that the external wrenches push with at ``q``: ``Sᵀ`` of the wrenches
    summed over each joint's subtree (``Jᵀ w`` body by body), so that ``inverse_dynamics(art, q, v, vdot,
    w) == inverse_dynamics(art, q, v, vdot) − external_joint_forces(art, q, w)``. ``external_wrenches`` as
    :func:`inverse_dynamics` takes them."""
    m = dynamic_model(art)
    q = check_vector(art, q)
    fext = _world.external_wrench_array(art, external_wrenches, q.shape[:-1])
    if fext is None:
        return np.zeros(q.shape)
    S = _world.motion_subspaces(m, axis_frames(m, q))
    sub = _world.tree_sum(m.subtree, fext)[..., 1:, :]
    return np.einsum("...jk,...jk->...j", S, sub)


def dynamics_bias(art: Articulation, q, v, external_wrenches=None, gravity=(0.0, 0.0, -9.81)):
    """The bias ``c(q, v, w_ext)`` ``(..., nv)``: Coriolis, centrifugal, gravity and external-wrench joint
    forces, i.e. the inverse dynamics at zero acceleration. Damping and friction are not applied."""
    m = dynamic_model(art)
    (q, v), batch = _check_state(art, q, v)
    g = _world.check_gravity(gravity)
    fext = _world.external_wrench_array(art, external_wrenches, batch)
    return _rnea(art, m, q, v, None, g, fext, batch)


def dynamics(art: Articulation, q, v, tau, external_wrenches=None, gravity=(0.0, 0.0, -9.81)):
    """Joint accelerations ``vdot (..., nv)`` from joint forces ``tau``: solves ``M vdot = tau - c`` with a
    Cholesky factorisation of the mass matrix (armature included). Damping and friction are not applied."""
    m = dynamic_model(art)
    (q, v), batch = _check_state(art, q, v)
    tau = check_vector(art, tau, "tau")
    try:
        batch = np.broadcast_shapes(batch, tau.shape[:-1])
    except ValueError:
        raise ValueError(f"tau {tau.shape} does not broadcast with q {q.shape} and v {v.shape}") from None
    g = _world.check_gravity(gravity)
    fext = _world.external_wrench_array(art, external_wrenches, batch)
    ws = _world.WorldState(m, q)
    M = _mass_matrix(m, ws, art.armature)
    c = _rnea_world(m, ws, q, v, None, g, fext, art.armature)
    return _solve_mass(art, M, tau - c, batch)


def _solve_mass(art: Articulation, M, rhs, batch) -> np.ndarray:
    """``M⁻¹ rhs`` over the batch by a Cholesky factorisation; a mass matrix that is not positive definite
    is refused with the articulation's name."""
    rhs = np.broadcast_to(rhs, (*batch, art.nv))[..., None]
    M = np.broadcast_to(M, (*batch, art.nv, art.nv))
    try:
        L = np.linalg.cholesky(M)
    except np.linalg.LinAlgError:
        raise ValueError(f"the mass matrix of {art.name!r} is not positive definite at this q "
                         "(a moving body without mass or inertia?)") from None
    y = np.linalg.solve(L, rhs)
    return np.linalg.solve(np.swapaxes(L, -1, -2), y)[..., 0]


def _rnea(art, m, q, v, vdot, g, fext, batch):
    n = math.prod(batch)
    if n >= LARGE_BATCH:
        shape = (*batch, art.nq)
        qf = np.broadcast_to(q, shape).reshape(n, art.nq)
        vf = np.broadcast_to(v, shape).reshape(n, art.nq)
        af = None if vdot is None else np.broadcast_to(vdot, shape).reshape(n, art.nq)
        tau = _rnea_axis_frames(m, qf, vf, af, g, art.armature).reshape(shape)
        if fext is not None:
            # external wrenches enter linearly: tau -= S^T (sum of the wrenches on each joint's subtree)
            S = _world.motion_subspaces(m, axis_frames(m, q))
            sub = _world.tree_sum(m.subtree, fext)[..., 1:, :]
            tau = tau - np.einsum("...jk,...jk->...j", S, sub)
        return tau
    ws = _world.WorldState(m, q)
    return _rnea_world(m, ws, q, v, vdot, g, fext, art.armature)


def _rnea_world(m: Model, ws: _world.WorldState, q, v, vdot, g, fext, armature) -> np.ndarray:
    """World-frame RNEA vectorised over bodies: every twist and acceleration is a sum over ancestors."""
    S = ws.S
    Sv = S * v[..., None]
    V = _world.tree_sum(m.joint_ancestor, Sv)  # (..., nb, 6)
    # derivative of a world-frame joint twist: the body's twist crossed with it
    Sdot_v = _world.motion_cross(V[..., 1:, :], Sv)
    acc = Sdot_v if vdot is None else Sdot_v + S * vdot[..., None]
    A = _world.tree_sum(m.joint_ancestor, acc)
    A[..., 3:] -= g  # the root accelerates upwards: gravity without a separate force term
    Inert = ws.inertias
    h = (Inert @ V[..., None])[..., 0]
    f = (Inert @ A[..., None])[..., 0] + _world.force_cross(V, h)
    if fext is not None:
        f = f - fext
    Fsub = _world.tree_sum(m.subtree, f)[..., 1:, :]
    tau = np.einsum("...jk,...jk->...j", S, Fsub)
    if vdot is not None:
        tau = tau + armature * vdot
    return tau


def _rnea_axis_frames(m: Model, q, v, vdot, g, armature) -> np.ndarray:
    """RNEA for a large batch ``(n, nq)`` in joint-axis frames, compiled (:mod:`mime_gui.multibody._kernels`:
    one state after another, each joint's transform applied as a rotation and an offset); ``tau (n, nq)``."""
    from mime_gui.multibody import _kernels

    w = _kernels.writable
    tau = np.empty(q.shape)
    zero = np.zeros((1, 6))
    vdot = np.zeros(q.shape) if vdot is None else vdot
    _kernels.rnea_rollout(*_kernels.rnea_arrays(m), w(armature), w(q), w(v), w(vdot), zero, zero,
                          w(np.reshape(g, (1, 3))), tau)
    return tau
