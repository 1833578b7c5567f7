"""Forward kinematics on an Articulation, batched over leading dimensions of q.

Small batches compose ``(..., 4, 4)`` stacks body by body (tree level by tree level). Large batches are cut
into chunks and each body's pose is one matrix product ``(3 * chunk, 4) @ (4, 4)`` followed by a rotation of
two columns (see :mod:`mime_gui.multibody._model` for the axis frames this relies on); there is never a
Python loop over configurations.
"""

from __future__ import annotations

import math

import numpy as np

from mime_gui.multibody._model import Model, model
from mime_gui.multibody.articulation import Articulation

#: batches at least this large take the chunked matrix-product path
LARGE_BATCH = 48
#: configurations per chunk on the large-batch path
CHUNK = 2048
#: up to this many bodies, small batches sum angular velocities with one dense (nb, nq) product; above it,
#: level by level (the dense matrix grows as nb²: 800 MB at 10,000 bodies)
DENSE_BODIES = 512

_EYE4 = np.eye(4)
_EYE4.setflags(write=False)


def check_vector(art: Articulation, x, name: str = "q", size: int | None = None) -> np.ndarray:
    """``x`` as a float array of shape ``(..., n)``; a clear ValueError naming ``name`` otherwise."""
    n = art.nq if size is None else size
    try:
        if getattr(x, "dtype", None) is not None and np.dtype(x.dtype).kind == "c":
            raise TypeError  # numpy would keep the real parts with only a warning
        x = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an array of shape (..., {n}) of numbers for {art.name!r}") from None
    if x.shape[-1:] != (n,):
        raise ValueError(f"{name} must have shape (..., {n}) for {art.name!r}, got {x.shape}")
    if not np.isfinite(x).all():
        raise ValueError(f"{name} holds non-finite values; expected finite numbers")
    return x


def _cos_sin(q: np.ndarray, cos: np.ndarray, sin: np.ndarray, scale: float = 1.0) -> None:
    """``cos(q)`` and ``scale * sin(q)`` into the given arrays from one tangent of the half angle (numpy's
    tangent is vectorised, its sine and cosine are not; the result agrees with them to a few ulp)."""
    t = np.tan(0.5 * q)
    t2 = t * t
    d = 1.0 + t2
    np.reciprocal(d, out=d)
    np.subtract(1.0, t2, out=t2)
    np.multiply(t2, d, out=cos)
    t *= 2.0 * scale
    np.multiply(t, d, out=sin)


def _local_transforms(m: Model, q: np.ndarray) -> np.ndarray:
    """``parent_axis_X_axis`` of every joint body: ``(..., nq, 4, 4)``."""
    qr = q * m.revolute if m.any_prismatic else q
    if q.size <= 1024:
        e = np.exp(-1j * qr)
    else:
        e = np.empty(qr.shape, dtype=complex)
        _cos_sin(qr, e.real, e.imag, -1.0)
    L = np.empty((*q.shape, 4, 4))
    # (col0 + i col1) * exp(-i q): the two columns a rotation about z changes
    np.multiply(m.parent_axis_c01, e[..., None], out=L.view(complex)[..., 0])
    L[..., 2:] = m.parent_axis_X_axis0[:, :, 2:]
    if m.any_prismatic:
        L[..., 3] += m.parent_axis_X_axis0[:, :, 2] * (q * m.prismatic)[..., None]
    return L


def axis_frames(m: Model, q: np.ndarray) -> np.ndarray:
    """``world_X_axis`` of every body: ``(..., nb, 4, 4)`` (small-batch path; q already checked)."""
    L = _local_transforms(m, q)
    if q.ndim == 1:
        parent = m.parent_list
        frames = [_EYE4]
        dot = np.dot
        for b, Lb in enumerate(L, start=1):
            frames.append(dot(frames[parent[b]], Lb))
        return np.array(frames)
    F = np.empty((*q.shape[:-1], m.nb, 4, 4))
    F[..., 0, :, :] = _EYE4
    for bodies, parents in m.depth_order:
        if len(bodies) == 1:
            b = int(bodies[0])
            F[..., b, :, :] = F[..., int(parents[0]), :, :] @ L[..., b - 1, :, :]
        else:
            F[..., bodies, :, :] = F[..., parents, :, :] @ L[..., bodies - 1, :, :]
    return F


def body_poses(art: Articulation, q) -> np.ndarray:
    """``world_X_body`` for every body: ``(..., nbodies, 4, 4)``."""
    m = model(art)
    q = check_vector(art, q)
    return axis_frames(m, q) @ m.axis_X_body


def _axis_rows_chunk(m: Model, q: np.ndarray, F: np.ndarray, E: np.ndarray) -> np.ndarray:
    """Large-batch kernel: the top three rows of ``world_X_axis`` of every body for ``q (n, nq)``, as
    ``(nb, 3, n, 4)``.

    ``F`` and ``E`` are flat float and complex scratch of at least ``nb * 3 * n * 4`` and ``nrev * n``
    elements; the result is a view of F. A rotation about z by ``q`` acting on the first two columns is a
    complex product ``(col0 + i col1) * exp(-i q)``.
    """
    n = q.shape[0]
    F = F[: m.nb * 3 * n * 4].reshape(m.nb, 3, n, 4)
    e = E[: len(m.revolute_index) * n].reshape(-1, n)
    qt = q.T
    _cos_sin(qt[m.revolute_index], e.real, e.imag, -1.0)
    F[0] = np.eye(4)[:3, None, :]
    P = m.parent_axis_X_axis0
    parent = m.parent
    slot = m.joint_slot
    prismatic = m.prismatic
    for b in range(1, m.nb):
        j = b - 1
        Fb = F[b]
        p = parent[b]
        if p == 0:
            Fb[...] = P[j, :3, None, :]
        else:
            np.matmul(F[p].reshape(3 * n, 4), P[j], out=Fb.reshape(3 * n, 4))
        if prismatic[j]:
            Fb[:, :, 3] += Fb[:, :, 2] * qt[j]
        else:
            Fb.view(complex)[:, :, 0] *= e[slot[j]]
    return F


def _frame_poses_chunk(m: Model, q: np.ndarray, out: np.ndarray, F: np.ndarray, E: np.ndarray) -> None:
    """Large-batch kernel: ``q (n, nq)`` → ``out (n, nframes, 4, 4)`` (scratch as in _axis_rows_chunk)."""
    F = _axis_rows_chunk(m, q, F, E)
    out[:, :, 3, :3] = 0.0
    out[:, :, 3, 3] = 1.0
    N = m.axis_X_frame
    for f, b in enumerate(m.frame_body):
        Fb = F[b]
        Nf = N[f]
        for r in range(3):
            np.matmul(Fb[r], Nf, out=out[:, f, r, :])


def frame_poses(art: Articulation, q, out: np.ndarray | None = None) -> np.ndarray:
    """World poses ``world_X_frame`` of every frame in ``art.frame_names`` order: ``(..., nframes, 4, 4)``.

    ``q`` is ``(..., nq)``; every leading dimension is a batch dimension, computed without a Python loop over
    configurations (large batches in chunks of :data:`CHUNK`). ``out``, when given, must be a float64 array of
    the result's shape; it is filled and returned.
    """
    m = model(art)
    q = check_vector(art, q)
    shape = (*q.shape[:-1], art.nframes, 4, 4)
    if out is not None:
        if not isinstance(out, np.ndarray) or out.shape != shape or out.dtype != np.float64:
            got = getattr(out, "shape", type(out).__name__)
            raise ValueError(f"out must be a float64 array of shape {shape}, got {got}")
    n = math.prod(q.shape[:-1])
    if n < LARGE_BATCH:
        F = axis_frames(m, q)
        poses = F[..., m.frame_body, :, :] @ m.axis_X_frame
        if out is None:
            return poses
        out[...] = poses
        return out
    if out is None:
        out = np.empty(shape)
    direct = out.flags.c_contiguous
    flat = out.reshape(n, art.nframes, 4, 4) if direct else np.empty((n, art.nframes, 4, 4))
    qf = q.reshape(n, art.nq)
    size = min(CHUNK, n)
    F = np.empty(m.nb * 3 * size * 4)
    E = np.empty(len(m.revolute_index) * size, dtype=complex)
    for start in range(0, n, size):
        stop = min(start + size, n)
        _frame_poses_chunk(m, qf[start:stop], flat[start:stop], F, E)
    if not direct:
        out[...] = flat.reshape(shape)
    return out


def frame_angular_velocities(art: Articulation, q, v) -> np.ndarray:
    """World angular velocity of every frame (that of its body), world axes: ``(..., nframes, 3)``.

    ``q`` and ``v`` are ``(..., nq)`` with broadcastable leading dimensions.
    """
    m = model(art)
    q = check_vector(art, q)
    v = check_vector(art, v, "v")
    try:
        batch = np.broadcast_shapes(q.shape[:-1], v.shape[:-1])
    except ValueError:
        raise ValueError(f"the leading (batch) dimensions of q {q.shape} and v {v.shape} "
                         "do not broadcast") from None
    n = math.prod(batch)
    if n < LARGE_BATCH:
        F = axis_frames(m, q)
        # world axis of each joint: the z column of its body's axis frame
        omega_joint = F[..., 1:, :3, 2] * (v * m.revolute)[..., None]
        if m.nb <= DENSE_BODIES:
            omega = np.matmul(m.joint_ancestor, omega_joint)  # (..., nb, 3)
        else:  # a body turns as its parent does, plus its own joint: top down, one tree level at a time
            omega = np.zeros((*omega_joint.shape[:-2], m.nb, 3))
            omega[..., 1:, :] = omega_joint
            for bodies, parents in m.depth_order:
                omega[..., bodies, :] += omega[..., parents, :]
        return omega[..., m.frame_body, :]
    shape = (*batch, art.nq)
    qf = np.broadcast_to(q, shape).reshape(n, art.nq)
    vf = np.broadcast_to(v, shape).reshape(n, art.nq)
    out = np.empty((n, art.nframes, 3))
    size = min(CHUNK, n)
    F = np.empty(m.nb * 3 * size * 4)
    E = np.empty(len(m.revolute_index) * size, dtype=complex)
    W = np.empty((m.nb, 3, size))
    parent = m.parent_list
    for start in range(0, n, size):
        stop = min(start + size, n)
        k = stop - start
        rows = _axis_rows_chunk(m, qf[start:stop], F, E)
        w = W[:, :, :k]
        w[0] = 0.0
        vt = vf[start:stop].T
        for b in range(1, m.nb):
            j = b - 1
            if m.prismatic[j]:
                w[b] = w[parent[b]]
            else:
                np.multiply(rows[b, :, :, 2], vt[j], out=w[b])
                w[b] += w[parent[b]]
        out[start:stop] = w[m.frame_body].transpose(2, 0, 1)
    return out.reshape(*batch, art.nframes, 3)
