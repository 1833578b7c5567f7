"""Joint-space dynamics of an Articulation: mass matrix (CRBA), inverse dynamics (RNEA), bias, forward
dynamics.

Equations of motion: ``M(q) vdot + c(q, v, w_ext) = tau`` with ``M`` including ``art.armature`` on its
diagonal.
Joint damping and friction are carried by the Articulation but *not applied* here: add ``damping * v`` (and a
friction model of your choice) to ``tau`` yourself.

Every function takes leading batch dimensions on ``q``, ``v``, ``vdot`` and ``tau`` (they broadcast). Small
batches run the world-frame algorithms vectorised over bodies; large batches of :func:`inverse_dynamics` and
:func:`dynamics_bias` run a recursive Newton-Euler pass in joint-axis frames, vectorised over the batch and
looping over bodies only.
"""

from __future__ import annotations

import math

import numpy as np

from mime_gui.multibody import _world
from mime_gui.multibody._model import Model, dynamic_model
from mime_gui.multibody.articulation import Articulation
from mime_gui.multibody.kinematics import _cos_sin, axis_frames, check_vector

#: batches at least this large take the axis-frame recursive path in inverse_dynamics
LARGE_BATCH = 64
#: configurations per chunk on that path
CHUNK = 2048


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
    rhs = tau - c
    if rhs.shape != (*batch, art.nv):
        rhs = np.broadcast_to(rhs, (*batch, art.nv))
    if M.shape != (*batch, art.nv, art.nv):
        M = np.broadcast_to(M, (*batch, art.nv, art.nv))
    rhs = rhs[..., None]
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
    """RNEA for a large batch ``(n, nq)`` in joint-axis frames, chunked; returns ``tau (n, nq)``."""
    n = q.shape[0]
    tau = np.empty((n, m.nq))
    for start in range(0, n, CHUNK):
        stop = min(start + CHUNK, n)
        _rnea_chunk(m, q[start:stop], v[start:stop], None if vdot is None else vdot[start:stop], g,
                    tau[start:stop])
    if vdot is not None:
        tau += armature * vdot
    return tau


def _rnea_chunk(m: Model, q, v, vdot, g, tau) -> None:
    """One chunk of the axis-frame RNEA. Spatial vectors are component-major ``(6, n)`` blocks
    ``[wx, wy, wz, vx, vy, vz]``; velocity and acceleration of a body travel together as ``(12, n)``."""
    k = m.batch_constants
    n = q.shape[0]
    nb = m.nb
    qt, vt = q.T, v.T
    c = np.empty((m.nq, n))
    s = np.empty((m.nq, n))
    _cos_sin(qt, c, s)  # the rows of prismatic joints are not used
    VA = np.empty((nb, 12, n))  # velocity (rows 0-5) and acceleration (rows 6-11) in the body's axis frame
    H = np.empty((nb, 6, n))  # net spatial force on the body, then accumulated over its subtree
    VA[0, :6] = 0.0
    VA[0, 6:9] = 0.0
    VA[0, 9:] = -g[:, None]
    prismatic = m.prismatic
    for b in range(1, nb):
        j = b - 1
        p = m.parent_list[b]
        u = VA[b]
        if p == 0:
            u[...] = k.X2[j] @ VA[0, :, :1]
        else:
            np.matmul(k.X2[j], VA[p], out=u)
        u4 = u.reshape(4, 3, n)  # [w, v, dw, dv] blocks
        if prismatic[j]:
            d = qt[j]
            # translate by d along z: linear parts gain d (w x e_z) = d (wy, -wx, 0)
            u4[1, 0] += d * u4[0, 1]
            u4[1, 1] -= d * u4[0, 0]
            u4[3, 0] += d * u4[2, 1]
            u4[3, 1] -= d * u4[2, 0]
            u[5] += vt[j]
            if vdot is not None:
                u[11] += vdot[:, j]
            # v x (e_z qd) for a linear e_z: (0, 0, 0, wy, -wx, 0) qd
            u[9] += u[1] * vt[j]
            u[10] -= u[0] * vt[j]
        else:
            cj, sj = c[j], s[j]
            x = u4[:, 0].copy()
            y = u4[:, 1]
            u4[:, 0] *= cj
            u4[:, 0] += sj * y
            y *= cj
            y -= sj * x
            u[2] += vt[j]
            if vdot is not None:
                u[8] += vdot[:, j]
            # v x (e_z qd) for an angular e_z: (wy, -wx, 0, vy, -vx, 0) qd
            qd = vt[j]
            u[6] += u[1] * qd
            u[7] -= u[0] * qd
            u[9] += u[4] * qd
            u[10] -= u[3] * qd
        # net force: I a + v x* (I v)
        Ih = k.I2[b] @ u  # (12, n): I v, I a
        w, lin = u[0:3], u[3:6]
        hw, hl = Ih[0:3], Ih[3:6]
        f = H[b]
        f[:] = Ih[6:12]
        f[0:3] += _cross_rows(w, hw) + _cross_rows(lin, hl)
        f[3:6] += _cross_rows(w, hl)
    for b in range(nb - 1, 0, -1):
        j = b - 1
        f = H[b]
        if prismatic[j]:
            tau[:, j] = f[5]
            d = qt[j]
            g6 = f.copy()
            # back through the translation: n += d e_z x f = d (-fy, fx, 0)
            g6[0] -= d * f[4]
            g6[1] += d * f[3]
        else:
            tau[:, j] = f[2]
            cj, sj = c[j], s[j]
            g6 = np.empty_like(f)
            f3 = f.reshape(2, 3, n)
            g3 = g6.reshape(2, 3, n)
            g3[:, 0] = cj * f3[:, 0] - sj * f3[:, 1]
            g3[:, 1] = sj * f3[:, 0] + cj * f3[:, 1]
            g3[:, 2] = f3[:, 2]
        p = m.parent_list[b]
        if p > 0:
            H[p] += k.XT[j] @ g6


def _cross_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cross product of component-major ``(3, n)`` blocks."""
    out = np.empty_like(a)
    np.multiply(a[1], b[2], out=out[0])
    out[0] -= a[2] * b[1]
    np.multiply(a[2], b[0], out=out[1])
    out[1] -= a[0] * b[2]
    np.multiply(a[0], b[1], out=out[2])
    out[2] -= a[1] * b[0]
    return out
