"""Forward kinematics on an Articulation, batched over leading dimensions of q."""

from __future__ import annotations

import numpy as np

from mime_gui.multibody.articulation import PRISMATIC, Articulation


def _check_q(art: Articulation, q, name: str = "q") -> np.ndarray:
    q = np.asarray(q, dtype=float)
    if q.shape[-1:] != (art.nq,):
        raise ValueError(f"{name} must have shape (..., {art.nq}) for {art.name!r}, got {q.shape}")
    if not np.all(np.isfinite(q)):
        raise ValueError(f"{name} holds non-finite values")
    return q


def joint_transforms(art: Articulation, q: np.ndarray) -> np.ndarray:
    """``joint_X_child`` motion of every joint: ``(..., nq, 4, 4)``."""
    batch = q.shape[:-1]
    out = np.zeros((*batch, art.nq, 4, 4))
    out[..., 3, 3] = 1.0
    a = art.axis
    rev = art.joint_type != PRISMATIC
    c, s = np.cos(q), np.sin(q)
    C = 1.0 - c
    ax, ay, az = a[:, 0], a[:, 1], a[:, 2]
    # Rodrigues for revolute joints; identity rotation for prismatic ones
    R = np.empty((*batch, art.nq, 3, 3))
    R[..., 0, 0] = c + ax * ax * C
    R[..., 0, 1] = ax * ay * C - az * s
    R[..., 0, 2] = ax * az * C + ay * s
    R[..., 1, 0] = ay * ax * C + az * s
    R[..., 1, 1] = c + ay * ay * C
    R[..., 1, 2] = ay * az * C - ax * s
    R[..., 2, 0] = az * ax * C - ay * s
    R[..., 2, 1] = az * ay * C + ax * s
    R[..., 2, 2] = c + az * az * C
    out[..., :3, :3] = np.where(rev[:, None, None], R, np.eye(3))
    out[..., :3, 3] = np.where(rev[:, None], 0.0, a * q[..., None])
    return out


def body_poses(art: Articulation, q) -> np.ndarray:
    """``world_X_body`` for every body: ``(..., nbodies, 4, 4)``."""
    q = _check_q(art, q)
    batch = q.shape[:-1]
    local = art.parent_X_joint @ joint_transforms(art, q)  # parent_X_body
    out = np.empty((*batch, art.nbodies, 4, 4))
    out[..., 0, :, :] = np.eye(4)
    for i in range(1, art.nbodies):
        out[..., i, :, :] = out[..., art.parent[i], :, :] @ local[..., i - 1, :, :]
    return out


def frame_poses(art: Articulation, q, out: np.ndarray | None = None) -> np.ndarray:
    """World poses of every frame in ``art.frame_names`` order: ``(..., nframes, 4, 4)``."""
    bodies = body_poses(art, q)
    poses = bodies[..., art.frame_body, :, :] @ art.body_X_frame
    if out is not None:
        out[...] = poses
        return out
    return poses


def frame_angular_velocities(art: Articulation, q, v) -> np.ndarray:
    """World angular velocity of every frame (that of its body), world axes: ``(..., nframes, 3)``."""
    q = _check_q(art, q)
    v = _check_q(art, v, "v")
    bodies = body_poses(art, q)
    rev = art.joint_type != PRISMATIC
    # world axis of each joint: rotation of its child body times the axis in that frame
    world_axis = np.einsum("...jab,jb->...ja", bodies[..., 1:, :3, :3], art.axis)
    omega_joint = world_axis * (v * rev)[..., None]
    omega = np.zeros((*q.shape[:-1], art.nbodies, 3))
    for i in range(1, art.nbodies):
        omega[..., i, :] = omega[..., art.parent[i], :] + omega_joint[..., i - 1, :]
    return omega[..., art.frame_body, :]
