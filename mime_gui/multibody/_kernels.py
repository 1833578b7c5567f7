"""Compiled inner loops of the algorithms that are sequential in time, or too small per step for numpy.

Forward dynamics integrate one step after another, so numpy cannot batch them over time, and one step of a
7-joint arm is a few thousand flops: a per-step numpy path spends ~30x that in call overhead. These kernels
run the articulated-body algorithm (and a recursive Newton-Euler pass for torques along a trajectory)
compiled by numba, on the axis-frame model of :mod:`mime_gui.multibody._model`:

- body ``b >= 1`` is moved by joint ``j = b - 1`` about (revolute) or along (prismatic) the z axis of its
  axis frame; ``Xtree[j]`` is the constant motion transform child-axis(q=0) <- parent-axis, ``inertia[b]``
  the body's spatial inertia in its axis frame;
- spatial vectors are ``[angular; linear]``; the base (body 0) moves with twist ``V0`` and spatial
  acceleration ``A0`` in its own axes, gravity ``g`` in its axes (see :mod:`mime_gui.multibody.moving_base`).

This module imports numba; import it only where a kernel runs (numba takes ~0.5 s to import). Compiled code is
cached on disk beside this file (or in numba's user cache when that is not writable). ``NUMBA_DISABLE_JIT=1``
runs the same functions as plain Python (slow, for debugging and coverage).
"""

from __future__ import annotations

import math
import weakref

import numpy as np
from numba import njit

from mime_gui.multibody.spatial import skew

EULER, RK4 = 0, 1


@njit(cache=True)
def _joint_transform(Xtree, prismatic, q, X):
    """``X = XJ(q) @ Xtree``: a rotation by ``q`` about z turns rows 0-1 and 3-4; a slide by ``q`` along z
    adds ``q (w_y, -w_x, 0)`` to the linear rows."""
    if prismatic:
        for r in range(6):
            for k in range(6):
                X[r, k] = Xtree[r, k]
        for k in range(6):
            X[3, k] += q * Xtree[1, k]
            X[4, k] -= q * Xtree[0, k]
    else:
        c, s = math.cos(q), math.sin(q)
        for r0 in (0, 3):
            for k in range(6):
                x, y = Xtree[r0, k], Xtree[r0 + 1, k]
                X[r0, k] = c * x + s * y
                X[r0 + 1, k] = c * y - s * x
                X[r0 + 2, k] = Xtree[r0 + 2, k]


@njit(cache=True)
def _matvec(A, x, out):
    for r in range(6):
        acc = 0.0
        for k in range(6):
            acc += A[r, k] * x[k]
        out[r] = acc


@njit(cache=True)
def _matTvec_add(A, x, out):
    """``out += A^T x``."""
    for k in range(6):
        acc = 0.0
        for r in range(6):
            acc += A[r, k] * x[r]
        out[k] += acc


@njit(cache=True)
def _cross_motion(m, y, out):
    """``out = m x y`` (motion cross motion)."""
    w0, w1, w2, v0, v1, v2 = m[0], m[1], m[2], m[3], m[4], m[5]
    out[0] = w1 * y[2] - w2 * y[1]
    out[1] = w2 * y[0] - w0 * y[2]
    out[2] = w0 * y[1] - w1 * y[0]
    out[3] = w1 * y[5] - w2 * y[4] + v1 * y[2] - v2 * y[1]
    out[4] = w2 * y[3] - w0 * y[5] + v2 * y[0] - v0 * y[2]
    out[5] = w0 * y[4] - w1 * y[3] + v0 * y[1] - v1 * y[0]


@njit(cache=True)
def _cross_force_add(m, f, out):
    """``out += m x* f`` (motion cross force)."""
    w0, w1, w2, v0, v1, v2 = m[0], m[1], m[2], m[3], m[4], m[5]
    out[0] += w1 * f[2] - w2 * f[1] + v1 * f[5] - v2 * f[4]
    out[1] += w2 * f[0] - w0 * f[2] + v2 * f[3] - v0 * f[5]
    out[2] += w0 * f[1] - w1 * f[0] + v0 * f[4] - v1 * f[3]
    out[3] += w1 * f[5] - w2 * f[4]
    out[4] += w2 * f[3] - w0 * f[5]
    out[5] += w0 * f[4] - w1 * f[3]


@njit(cache=True)
def _aba(parent, prismatic, Xtree, inertia, armature, q, v, tau, V0, A0, g, X, vel, c, IA, pA, U, D, u, acc,
         tmp, tmp6, qdd):
    """Joint accelerations ``qdd`` of one state (articulated-body algorithm; armature on each joint's
    ``D``), scratch arrays given. Returns -1, or the first joint whose ``D`` is not positive: it moves no
    mass or inertia about its axis and has no armature, so its acceleration is undefined."""
    nb = parent.shape[0]
    for k in range(6):
        vel[0, k] = V0[k]
    for b in range(1, nb):
        j = b - 1
        p = parent[b]
        s = 5 if prismatic[j] else 2
        _joint_transform(Xtree[j], prismatic[j], q[j], X[b])
        _matvec(X[b], vel[p], vel[b])
        vel[b, s] += v[j]
        # c = v x (S qd): S qd is qd along axis s
        for k in range(6):
            tmp[k] = 0.0
        tmp[s] = v[j]
        _cross_motion(vel[b], tmp, c[b])
        for r in range(6):
            for k in range(6):
                IA[b, r, k] = inertia[b, r, k]
        _matvec(inertia[b], vel[b], tmp)
        for k in range(6):
            pA[b, k] = 0.0
        _cross_force_add(vel[b], tmp, pA[b])
    for b in range(nb - 1, 0, -1):
        j = b - 1
        p = parent[b]
        s = 5 if prismatic[j] else 2
        for k in range(6):
            U[b, k] = IA[b, k, s]
        D[b] = U[b, s] + armature[j]
        if D[b] <= 0.0:
            return j
        u[b] = tau[j] - pA[b, s]
        if p == 0:
            continue  # the base's motion is prescribed: nothing to pass on
        # Ia = IA - U U^T / D, pa = pA + Ia c + U u / D, carried to the parent through X
        inv = 1.0 / D[b]
        Ia = IA[b]
        for r in range(6):
            for k in range(6):
                Ia[r, k] -= U[b, r] * U[b, k] * inv
        for r in range(6):
            acc_r = pA[b, r] + U[b, r] * u[b] * inv
            for k in range(6):
                acc_r += Ia[r, k] * c[b, k]
            tmp[r] = acc_r
        _matTvec_add(X[b], tmp, pA[p])
        Xb = X[b]
        # IA[p] += X^T Ia X, through tmp6 = Ia X
        for r in range(6):
            for k in range(6):
                a = 0.0
                for m in range(6):
                    a += Ia[r, m] * Xb[m, k]
                tmp6[r, k] = a
        for r in range(6):
            for k in range(6):
                a = 0.0
                for m in range(6):
                    a += Xb[m, r] * tmp6[m, k]
                IA[p, r, k] += a
    for k in range(3):
        acc[0, k] = A0[k]
        acc[0, k + 3] = A0[k + 3] - g[k]
    for b in range(1, nb):
        j = b - 1
        p = parent[b]
        s = 5 if prismatic[j] else 2
        _matvec(X[b], acc[p], acc[b])
        dot = 0.0
        for k in range(6):
            acc[b, k] += c[b, k]
            dot += U[b, k] * acc[b, k]
        qdd[j] = (u[b] - dot) / D[b]
        acc[b, s] += qdd[j]
    return -1


@njit(cache=True)
def _forces(u, v, damping, friction, friction_velocity, dissipative, out):
    if dissipative:
        for j in range(u.shape[0]):
            out[j] = u[j] - damping[j] * v[j] - friction[j] * math.tanh(v[j] / friction_velocity)
    else:
        for j in range(u.shape[0]):
            out[j] = u[j]


@njit(cache=True)
def forward_rollout(parent, prismatic, Xtree, inertia, armature, damping, friction, friction_velocity,
                    lower, upper, stops, integrator, substeps, dt, torques, V0, A0, g, q, v, qs, vs):
    """Steps ``n = 0 .. T-1`` of ``dt`` (``substeps`` sub-steps each) from ``(q, v)`` (updated in place) with
    ``torques[n]`` held and the base's ``V0``, ``A0``, ``g`` of row ``n`` (or row 0 when they have one row);
    the states after each step go to ``qs``, ``vs``. Returns -1; or the first step whose state is not finite
    (the remaining rows are then NaN); or ``-2 - j`` when joint ``j``'s acceleration is undefined."""
    nb = parent.shape[0]
    nq = nb - 1
    X = np.empty((nb, 6, 6))
    IA = np.empty((nb, 6, 6))
    vel = np.empty((nb, 6))
    c = np.zeros((nb, 6))
    pA = np.zeros((nb, 6))
    U = np.empty((nb, 6))
    acc = np.empty((nb, 6))
    D = np.empty(nb)
    u = np.empty(nb)
    tmp = np.empty(6)
    tmp6 = np.empty((6, 6))
    f = np.empty(nq)
    K = np.empty((4, nq))  # the integrator's stages
    qa, va = np.empty(nq), np.empty(nq)
    dissipative = False
    for j in range(nq):
        if damping[j] != 0.0 or friction[j] != 0.0:
            dissipative = True
    h = dt / substeps
    T = torques.shape[0]
    moving = V0.shape[0] > 1
    stages = 1 if integrator == EULER else 4
    for n in range(T):
        r = n if moving else 0
        tau = torques[n]
        for _ in range(substeps):
            # one call site of _aba for both integrators: LLVM inlines it at each call site, and four copies
            # of it took seconds longer to compile
            for st in range(stages):
                for j in range(nq):
                    if st == 0:
                        qa[j], va[j] = q[j], v[j]
                    elif st == 1:
                        qa[j], va[j] = q[j] + 0.5 * h * v[j], v[j] + 0.5 * h * K[0, j]
                    elif st == 2:  # the q-slope of stage 3 is stage 2's v: v + h/2 k1
                        qa[j], va[j] = q[j] + 0.5 * h * (v[j] + 0.5 * h * K[0, j]), v[j] + 0.5 * h * K[1, j]
                    else:
                        qa[j], va[j] = q[j] + h * (v[j] + 0.5 * h * K[1, j]), v[j] + h * K[2, j]
                _forces(tau, va, damping, friction, friction_velocity, dissipative, f)
                singular = _aba(parent, prismatic, Xtree, inertia, armature, qa, va, f, V0[r], A0[r], g[r], X,
                                vel, c, IA, pA, U, D, u, acc, tmp, tmp6, K[st])
                if singular >= 0:
                    return -2 - singular
            if integrator == EULER:
                for j in range(nq):
                    v[j] += h * K[0, j]
                    q[j] += h * v[j]
            else:
                # classical RK4 on (q, v): the q-slopes are the v-stages
                for j in range(nq):
                    s2 = v[j] + 0.5 * h * K[0, j]
                    s3 = v[j] + 0.5 * h * K[1, j]
                    s4 = v[j] + h * K[2, j]
                    q[j] += (h / 6.0) * (v[j] + 2.0 * s2 + 2.0 * s3 + s4)
                    v[j] += (h / 6.0) * (K[0, j] + 2.0 * K[1, j] + 2.0 * K[2, j] + K[3, j])
            if stops:
                for j in range(nq):
                    if q[j] < lower[j]:
                        q[j] = lower[j]
                        if v[j] < 0.0:
                            v[j] = 0.0
                    elif q[j] > upper[j]:
                        q[j] = upper[j]
                        if v[j] > 0.0:
                            v[j] = 0.0
        finite = True
        for j in range(nq):
            qs[n, j] = q[j]
            vs[n, j] = v[j]
            if not (math.isfinite(q[j]) and math.isfinite(v[j])):
                finite = False
        if not finite:
            for m in range(n + 1, T):
                for j in range(nq):
                    qs[m, j] = np.nan
                    vs[m, j] = np.nan
            return n
    return -1


@njit(cache=True, inline="always")
def _rot(E, x0, x1, x2):
    return (E[0, 0] * x0 + E[0, 1] * x1 + E[0, 2] * x2,
            E[1, 0] * x0 + E[1, 1] * x1 + E[1, 2] * x2,
            E[2, 0] * x0 + E[2, 1] * x1 + E[2, 2] * x2)

@njit(cache=True, inline="always")
def _rotT(E, x0, x1, x2):
    return (E[0, 0] * x0 + E[1, 0] * x1 + E[2, 0] * x2,
            E[0, 1] * x0 + E[1, 1] * x1 + E[2, 1] * x2,
            E[0, 2] * x0 + E[1, 2] * x1 + E[2, 2] * x2)

@njit(cache=True, inline="always")
def _cross(a0, a1, a2, b0, b1, b2):
    return a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0

@njit(cache=True, inline="always")
def _to_child(E, r, prism, cq, sq, d, w0, w1, w2, v0, v1, v2):
    """motion vector from parent axes to child axes: w' = Rz^T E w, v' = Rz^T E (v - r x w) (+ slide)."""
    c0, c1, c2 = _cross(r[0], r[1], r[2], w0, w1, w2)
    a0, a1, a2 = _rot(E, w0, w1, w2)
    b0, b1, b2 = _rot(E, v0 - c0, v1 - c1, v2 - c2)
    if prism:
        return a0, a1, a2, b0 + d * a1, b1 - d * a0, b2
    return cq * a0 + sq * a1, cq * a1 - sq * a0, a2, cq * b0 + sq * b1, cq * b1 - sq * b0, b2

@njit(cache=True)
def rnea_rollout(parent, prismatic, E, r, mass, h, Ibar, armature, q, v, vdot, V0, A0, g, tau):
    """Joint forces ``tau (T, nq)`` producing ``vdot`` at ``(q, v)`` for every row (recursive Newton-Euler,
    armature included), the base's ``V0``, ``A0``, ``g`` of row ``n`` (or row 0 when they have one row).
    Transforms are applied as rotations ``E`` and offsets ``r`` (half the work of 6x6 products), inertias as
    ``mass``, first moment ``h = m c`` and rotational inertia ``Ibar`` about the axis frame's origin."""
    nb = parent.shape[0]
    T = q.shape[0]
    vel = np.empty((nb, 6))
    acc = np.empty((nb, 6))
    f = np.empty((nb, 6))
    cs = np.empty((nb, 2))
    moving = V0.shape[0] > 1
    for n in range(T):
        rr = n if moving else 0
        for k in range(6):
            vel[0, k] = V0[rr, k]
            acc[0, k] = A0[rr, k]
        for k in range(3):
            acc[0, k + 3] -= g[rr, k]
        for b in range(1, nb):
            j = b - 1
            p = parent[b]
            pr = prismatic[j]
            qj = q[n, j]
            cq, sq = (1.0, 0.0) if pr else (math.cos(qj), math.sin(qj))
            cs[b, 0] = cq
            cs[b, 1] = sq
            w0, w1, w2, v0, v1, v2 = _to_child(E[j], r[j], pr, cq, sq, qj, vel[p, 0], vel[p, 1],
                                                    vel[p, 2], vel[p, 3], vel[p, 4], vel[p, 5])
            x0, x1, x2, y0, y1, y2 = _to_child(E[j], r[j], pr, cq, sq, qj, acc[p, 0], acc[p, 1],
                                                    acc[p, 2], acc[p, 3], acc[p, 4], acc[p, 5])
            qd = v[n, j]
            qdd = vdot[n, j]
            # a += v x (S qd) + S qdd
            if pr:
                # S = e_z linear: v x [0; qd e_z] = [0; w x qd e_z] = [0; (w1 qd, -w0 qd, 0)]
                y0 += w1 * qd
                y1 -= w0 * qd
                y2 += qdd
                v2 += qd
            else:
                # S = e_z angular: [w x qd e_z; v x qd e_z]
                x0 += w1 * qd
                x1 -= w0 * qd
                y0 += v1 * qd
                y1 -= v0 * qd
                x2 += qdd
                w2 += qd
            vel[b, 0], vel[b, 1], vel[b, 2], vel[b, 3], vel[b, 4], vel[b, 5] = w0, w1, w2, v0, v1, v2
            acc[b, 0], acc[b, 1], acc[b, 2], acc[b, 3], acc[b, 4], acc[b, 5] = x0, x1, x2, y0, y1, y2
            m = mass[b]
            I = Ibar[b]
            h0, h1, h2 = h[b, 0], h[b, 1], h[b, 2]
            # I [w; v] = [Ibar w + h x v; m v - h x w]
            t0, t1, t2 = _rot(I, w0, w1, w2)
            c0, c1, c2 = _cross(h0, h1, h2, v0, v1, v2)
            nv0, nv1, nv2 = t0 + c0, t1 + c1, t2 + c2
            c0, c1, c2 = _cross(h0, h1, h2, w0, w1, w2)
            fv0, fv1, fv2 = m * v0 - c0, m * v1 - c1, m * v2 - c2
            t0, t1, t2 = _rot(I, x0, x1, x2)
            c0, c1, c2 = _cross(h0, h1, h2, y0, y1, y2)
            na0, na1, na2 = t0 + c0, t1 + c1, t2 + c2
            c0, c1, c2 = _cross(h0, h1, h2, x0, x1, x2)
            fa0, fa1, fa2 = m * y0 - c0, m * y1 - c1, m * y2 - c2
            # v x* [n; f] = [w x n + v x f; w x f]
            c0, c1, c2 = _cross(w0, w1, w2, nv0, nv1, nv2)
            d0, d1, d2 = _cross(v0, v1, v2, fv0, fv1, fv2)
            e0, e1, e2 = _cross(w0, w1, w2, fv0, fv1, fv2)
            f[b, 0], f[b, 1], f[b, 2] = na0 + c0 + d0, na1 + c1 + d1, na2 + c2 + d2
            f[b, 3], f[b, 4], f[b, 5] = fa0 + e0, fa1 + e1, fa2 + e2
        for b in range(nb - 1, 0, -1):
            j = b - 1
            p = parent[b]
            pr = prismatic[j]
            n0, n1, n2, f0, f1, f2 = f[b, 0], f[b, 1], f[b, 2], f[b, 3], f[b, 4], f[b, 5]
            if pr:
                tau[n, j] = f2 + armature[j] * vdot[n, j]
            else:
                tau[n, j] = n2 + armature[j] * vdot[n, j]
            if p == 0:
                continue
            # back through the joint: rotate by +q (or n += d e_z x f), then X_tree^T
            if pr:
                d = q[n, j]
                n0 -= d * f1
                n1 += d * f0
            else:
                cq, sq = cs[b, 0], cs[b, 1]
                n0, n1 = cq * n0 - sq * n1, sq * n0 + cq * n1
                f0, f1 = cq * f0 - sq * f1, sq * f0 + cq * f1
            a0, a1, a2 = _rotT(E[j], f0, f1, f2)
            b0, b1, b2 = _rotT(E[j], n0, n1, n2)
            c0, c1, c2 = _cross(r[j, 0], r[j, 1], r[j, 2], a0, a1, a2)
            f[p, 0] += b0 + c0
            f[p, 1] += b1 + c1
            f[p, 2] += b2 + c2
            f[p, 3] += a0
            f[p, 4] += a1
            f[p, 5] += a2


@njit(cache=True)
def ik_frame(x, column, mult, offset, lo, hi, follower, P, revolute, base, axis_X_frame, pose, J):
    """A frame's ``pose`` (4, 4) and Jacobian ``J`` (6, len(x)) over the unknowns ``x`` (world axes at the
    frame's origin, rows ``[angular; linear]``; see :mod:`mime_gui.multibody.inverse_kinematics`).

    Chain joint ``i`` (root first) is ``clamp(x[column[i]] * mult[i] + offset[i], lo[i], hi[i])``; its column
    of the Jacobian goes to unknown ``column[i]`` times ``mult[i]``, except for a ``follower`` clamped at a
    limit. ``P[i]`` is its ``parent_axis_X_axis0``, ``base`` the root's world pose."""
    n = P.shape[0]
    S = np.empty((n, 6))  # each joint's axis (z) and origin, world
    free = np.empty(n, dtype=np.bool_)
    W = np.empty((3, 4))  # world_X_axis of the joint reached so far (its last row is 0 0 0 1)
    M = np.empty((3, 4))
    for r in range(3):
        for k in range(4):
            W[r, k] = base[r, k]
    for i in range(n):
        raw = x[column[i]] * mult[i] + offset[i]
        qi = min(max(raw, lo[i]), hi[i])
        free[i] = not follower[i] or (lo[i] <= raw and raw <= hi[i])
        Pi = P[i]
        for r in range(3):
            w0, w1, w2 = W[r, 0], W[r, 1], W[r, 2]
            for k in range(4):
                M[r, k] = w0 * Pi[0, k] + w1 * Pi[1, k] + w2 * Pi[2, k]
            M[r, 3] += W[r, 3]
        if revolute[i]:
            # a rotation about z turns columns 0 and 1
            c, s = math.cos(qi), math.sin(qi)
            for r in range(3):
                a, b = M[r, 0], M[r, 1]
                W[r, 0] = c * a + s * b
                W[r, 1] = c * b - s * a
                W[r, 2] = M[r, 2]
                W[r, 3] = M[r, 3]
        else:
            for r in range(3):
                W[r, 0], W[r, 1], W[r, 2] = M[r, 0], M[r, 1], M[r, 2]
                W[r, 3] = M[r, 3] + qi * M[r, 2]
        for r in range(3):
            S[i, r] = W[r, 2]
            S[i, 3 + r] = W[r, 3]
    F = axis_X_frame
    for r in range(3):
        for k in range(4):
            pose[r, k] = W[r, 0] * F[0, k] + W[r, 1] * F[1, k] + W[r, 2] * F[2, k]
        pose[r, 3] += W[r, 3]
        pose[3, r] = 0.0
    pose[3, 3] = 1.0
    for r in range(6):
        for u in range(J.shape[1]):
            J[r, u] = 0.0
    p0, p1, p2 = pose[0, 3], pose[1, 3], pose[2, 3]
    for i in range(n):
        if not free[i]:
            continue  # a clamped follower stays put
        u, m = column[i], mult[i]
        z0, z1, z2 = S[i, 0], S[i, 1], S[i, 2]
        if revolute[i]:
            # z x (from the joint's axis to the frame's origin)
            l0, l1, l2 = _cross(z0, z1, z2, p0 - S[i, 3], p1 - S[i, 4], p2 - S[i, 5])
            J[0, u] += m * z0
            J[1, u] += m * z1
            J[2, u] += m * z2
            J[3, u] += m * l0
            J[4, u] += m * l1
            J[5, u] += m * l2
        else:
            J[3, u] += m * z0
            J[4, u] += m * z1
            J[5, u] += m * z2


@njit(cache=True)
def ik_error(pose, target, row0, e6):
    """``e6 = [log(target_R pose_R^T); p_target - p_pose]``; returns ``(E, distance, angle)`` with
    ``E = |e6[row0:]|^2 / 2``."""
    R = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            R[i, j] = target[i, 0] * pose[j, 0] + target[i, 1] * pose[j, 1] + target[i, 2] * pose[j, 2]
    w0, w1, w2 = (R[2, 1] - R[1, 2]) * 0.5, (R[0, 2] - R[2, 0]) * 0.5, (R[1, 0] - R[0, 1]) * 0.5
    s = math.sqrt(w0 * w0 + w1 * w1 + w2 * w2)
    c = (R[0, 0] + R[1, 1] + R[2, 2] - 1.0) * 0.5
    theta = math.atan2(s, c)
    if theta < 3.0:
        k = theta / s if s > 1e-300 else 1.0
        e6[0], e6[1], e6[2] = w0 * k, w1 * k, w2 * k
    else:
        # near pi the antisymmetric part vanishes: the axis is the symmetric part's dominant column
        best = 0
        for i in range(1, 3):
            if R[i, i] > R[best, best]:
                best = i
        # the column is (1 - c) k_best k: made a unit vector by its own length
        a0 = 0.5 * (R[0, best] + R[best, 0]) - (c if best == 0 else 0.0)
        a1 = 0.5 * (R[1, best] + R[best, 1]) - (c if best == 1 else 0.0)
        a2 = 0.5 * (R[2, best] + R[best, 2]) - (c if best == 2 else 0.0)
        d = max(math.sqrt(a0 * a0 + a1 * a1 + a2 * a2), 1e-300)
        a0, a1, a2 = a0 / d, a1 / d, a2 / d
        if a0 * w0 + a1 * w1 + a2 * w2 < 0.0:
            a0, a1, a2 = -a0, -a1, -a2
        e6[0], e6[1], e6[2] = a0 * theta, a1 * theta, a2 * theta
    for i in range(3):
        e6[3 + i] = target[i, 3] - pose[i, 3]
    E = 0.0
    for i in range(row0, 6):
        E += e6[i] * e6[i]
    angle = math.sqrt(e6[0] * e6[0] + e6[1] * e6[1] + e6[2] * e6[2])
    distance = math.sqrt(e6[3] * e6[3] + e6[4] * e6[4] + e6[5] * e6[5])
    return 0.5 * E, distance, angle


@njit(cache=True)
def ik_step(J, e6, row0, lam2, x, lower, upper, gain, max_step, err, dx, trial):
    """One damped least-squares step ``dx`` over the rows ``row0:`` of ``J`` and ``e6`` with squared damping
    ``lam2`` and, when ``gain > 0``, the pull ``z = gain (centre - x)`` (no larger than ``err``; ``centre``
    the middle of each joint's range, 0 where a limit is infinite) in the
    task's damped null space; a joint whose step would cross a limit is moved onto it and the step solved
    again over the rest. ``dx`` is then scaled to at most ``max_step``; ``trial = clip(x + dx)``. Returns
    ``(the largest |dx| before scaling, the largest |x|)``, or ``(-1, 0)`` when a damped matrix is
    singular."""
    n = x.shape[0]
    m = 6 - row0
    z = np.zeros(n)
    if gain > 0.0:
        size = 0.0
        for i in range(n):
            lo, hi = lower[i], upper[i]
            centre = 0.5 * (lo + hi) if math.isfinite(lo) and math.isfinite(hi) else 0.0
            z[i] = gain * (centre - x[i])
            size = max(size, abs(z[i]))
        if size > err:
            # no larger than the error, so it fades as the frame reaches the target
            scale = err / size
            for i in range(n):
                z[i] *= scale
    free = np.ones(n, dtype=np.bool_)
    r = np.empty(m)
    y = np.empty(m)
    A = np.empty((m, m))
    for a in range(m):
        r[a] = e6[row0 + a]
    for i in range(n):
        dx[i] = 0.0
    for _ in range(n):
        for a in range(m):
            acc = r[a]
            for i in range(n):
                if free[i]:
                    acc -= J[row0 + a, i] * z[i]
            y[a] = acc
            for b in range(a + 1):
                acc = 0.0
                for i in range(n):
                    if free[i]:
                        acc += J[row0 + a, i] * J[row0 + b, i]
                A[a, b] = acc
                A[b, a] = acc
            A[a, a] += lam2
        # A y = rhs: Gaussian elimination with partial pivoting, as LAPACK's solve
        for k in range(m):
            p = k
            for a in range(k + 1, m):
                if abs(A[a, k]) > abs(A[p, k]):
                    p = a
            if A[p, k] == 0.0:
                return -1.0, 0.0
            if p != k:
                for b in range(m):
                    A[k, b], A[p, b] = A[p, b], A[k, b]
                y[k], y[p] = y[p], y[k]
            for a in range(k + 1, m):
                f = A[a, k] / A[k, k]
                for b in range(k + 1, m):
                    A[a, b] -= f * A[k, b]
                y[a] -= f * y[k]
        for k in range(m - 1, -1, -1):
            acc = y[k]
            for b in range(k + 1, m):
                acc -= A[k, b] * y[b]
            y[k] = acc / A[k, k]
        for i in range(n):
            if free[i]:
                acc = z[i]
                for a in range(m):
                    acc += y[a] * J[row0 + a, i]
                dx[i] = acc
        over = False
        for i in range(n):
            new = x[i] + dx[i]
            if new < lower[i] or new > upper[i]:
                over = True
                dx[i] = min(max(new, lower[i]), upper[i]) - x[i]
                free[i] = False
        if not over:
            break
        anyfree = False
        for i in range(n):
            anyfree = anyfree or free[i]
        if not anyfree:
            break
        for a in range(m):
            acc = e6[row0 + a]
            for i in range(n):
                if not free[i]:
                    acc -= J[row0 + a, i] * dx[i]
            r[a] = acc
    big = 0.0
    xmax = 0.0
    for i in range(n):
        big = max(big, abs(dx[i]))
        xmax = max(xmax, abs(x[i]))
    if big > max_step:
        scale = max_step / big
        for i in range(n):
            dx[i] *= scale
    for i in range(n):
        trial[i] = min(max(x[i] + dx[i], lower[i]), upper[i])
    return big, xmax


def writable(x, dtype=float) -> np.ndarray:
    """``x`` as a C-contiguous, writable array (a copy only when needed): every argument of a kernel comes
    in one layout, so one compiled version serves every call (a read-only array is another signature and
    seconds of compiling)."""
    return np.require(x, dtype=dtype, requirements=["C", "W"])


def _contiguous(*arrays) -> tuple:
    return tuple(writable(a, a.dtype) for a in arrays)


_ARRAYS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _cached(kind: str, m, make) -> tuple:
    """A model's kernel arrays, made once (a live tick asks for them 60 times a second)."""
    per_model = _ARRAYS.setdefault(m, {})
    if kind not in per_model:
        per_model[kind] = make()
    return per_model[kind]


def model_arrays(m) -> tuple:
    """``(parent, prismatic, Xtree, inertia)`` of a :class:`~mime_gui.multibody._model.Model`, as
    :func:`forward_rollout` takes them (contiguous, one dtype each, so one compiled version serves every
    model)."""
    k = m.batch_constants
    return _cached("aba", m, lambda: _contiguous(m.parent.astype(np.int64), m.prismatic.astype(np.bool_),
                                                 k.X, k.I))


def rnea_arrays(m) -> tuple:
    """``(parent, prismatic, E, r, mass, h, Ibar)`` of a model, as :func:`rnea_rollout` takes them."""
    return _cached("rnea", m, lambda: _rnea_arrays(m))


def _rnea_arrays(m) -> tuple:
    pxa = m.parent_axis_X_axis0
    C = skew(m.com)
    return _contiguous(m.parent.astype(np.int64), m.prismatic.astype(np.bool_),
                       np.swapaxes(pxa[:, :3, :3], 1, 2), pxa[:, :3, 3], m.mass, m.mass[:, None] * m.com,
                       m.inertia_com - m.mass[:, None, None] * (C @ C))


_WARM_URDF = """<robot name="warm"><link name="base"/>
<link name="arm"><inertial><mass value="1"/><origin xyz="0.1 0 0"/>
<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
<joint name="hinge" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
<limit lower="-1" upper="1" effort="10" velocity="1"/></joint></robot>"""


def warm() -> None:
    """Compile every kernel in the one signature its callers use (``make`` does this after installing;
    otherwise the first torque-driven play or torques compute it once), so the compiled code is cached on
    disk. It builds the arguments itself, as :mod:`mime_gui.nodes.dynamic`, :mod:`mime_gui.rig.torques` and
    :mod:`mime_gui.multibody.inverse_kinematics` pass them (each array through :func:`writable`, scalars as
    Python's), so it imports none of them; ``tests/test_layers.py`` checks the callers then find that
    version and compile no other."""
    from mime_gui.multibody._model import dynamic_model
    from mime_gui.multibody.urdf import read_urdf

    art = read_urdf(_WARM_URDF).compile()
    model, nq, T = dynamic_model(art), art.nq, 2
    w = writable
    per_joint = (w(art.armature), w(np.zeros(nq)), w(np.zeros(nq)), 1e-3, w(art.lower), w(art.upper), True)
    base = (np.zeros((1, 6)), np.zeros((1, 6)), np.array([[0.0, 0.0, -9.81]]))
    for integrator in (EULER, RK4):
        forward_rollout(*model_arrays(model), *per_joint, integrator, 1, 1e-3, np.zeros((T, nq)), *base,
                        np.zeros(nq), np.zeros(nq), np.empty((T, nq)), np.empty((T, nq)))
    rnea_rollout(*rnea_arrays(model), w(art.armature), np.zeros((T, nq)), np.zeros((T, nq)),
                 np.zeros((T, nq)), *base, np.empty((T, nq)))
    # one revolute joint as the frame's chain, the identity as its base, its frame and the target
    one, eye = np.ones(1), np.eye(4)
    chain = (np.zeros(1, dtype=np.int64), one, 0.0 * one, -np.inf * one, np.inf * one, np.zeros(1, np.bool_),
             w(model.parent_axis_X_axis0), np.ones(1, np.bool_))
    pose, J, e6, x = np.empty((4, 4)), np.empty((6, 1)), np.empty(6), np.zeros(1)
    ik_frame(x, *chain, eye, eye.copy(), pose, J)
    ik_error(pose, eye, 0, e6)
    ik_step(J, e6, 0, 1e-9, x, -one, one, 0.1, 0.5, 1.0, np.empty(1), np.empty(1))


if __name__ == "__main__":
    warm()
