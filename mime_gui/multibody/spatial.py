"""Small spatial-algebra helpers shared by the reader and the algorithms.

Homogeneous transforms are ``(4, 4)`` arrays named by their frames: ``a_X_b`` maps coordinates in frame ``b``
to frame ``a``. Spatial vectors are ordered ``[angular; linear]``.
"""

from __future__ import annotations

import numpy as np


def rpy_to_matrix(rpy) -> np.ndarray:
    """URDF roll-pitch-yaw (fixed axes x, y, z) to a rotation matrix: Rz(yaw) @ Ry(pitch) @ Rx(roll)."""
    r, p, y = (float(a) for a in rpy)
    cr, sr, cp, sp, cy, sy = np.cos(r), np.sin(r), np.cos(p), np.sin(p), np.cos(y), np.sin(y)
    return np.array([
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ])


def matrix_to_rpy(R) -> np.ndarray:
    """Inverse of :func:`rpy_to_matrix` (pitch in [-pi/2, pi/2])."""
    R = np.asarray(R, dtype=float)
    pitch = np.arctan2(-R[2, 0], np.hypot(R[0, 0], R[1, 0]))
    if abs(np.cos(pitch)) < 1e-12:  # gimbal lock: put everything in yaw
        return np.array([0.0, pitch, np.arctan2(-R[0, 1], R[1, 1])])
    return np.array([np.arctan2(R[2, 1], R[2, 2]), pitch, np.arctan2(R[1, 0], R[0, 0])])


def transform(xyz=(0.0, 0.0, 0.0), rpy=(0.0, 0.0, 0.0)) -> np.ndarray:
    X = np.eye(4)
    X[:3, :3] = rpy_to_matrix(rpy)
    X[:3, 3] = np.asarray(xyz, dtype=float)
    return X


def quaternion_to_matrix(wxyz) -> np.ndarray:
    """Unit quaternion (w, x, y, z) to a rotation matrix; the quaternion is normalised first."""
    q = np.asarray(wxyz, dtype=float)
    n = np.linalg.norm(q)
    if not np.isfinite(n) or n == 0.0:
        raise ValueError(f"quaternion {tuple(q)} has no direction; "
                         "expected (w, x, y, z) with a non-zero norm")
    w, x, y, z = q / n
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def inverse_transform(a_X_b: np.ndarray) -> np.ndarray:
    """``b_X_a`` from ``a_X_b`` (works on stacks ``(..., 4, 4)``)."""
    R = a_X_b[..., :3, :3]
    p = a_X_b[..., :3, 3]
    out = np.zeros_like(a_X_b)
    Rt = np.swapaxes(R, -1, -2)
    out[..., :3, :3] = Rt
    out[..., :3, 3] = -np.einsum("...ij,...j->...i", Rt, p)
    out[..., 3, 3] = 1.0
    return out


def skew(v) -> np.ndarray:
    x, y, z = v
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


def spatial_inertia(mass: float, com, inertia_com) -> np.ndarray:
    """6x6 spatial inertia ``[angular; linear]`` about the frame origin, from mass, COM and the
    rotational inertia about the COM (all in the same frame's axes)."""
    c = np.asarray(com, dtype=float)
    C = skew(c)
    out = np.zeros((6, 6))
    out[:3, :3] = np.asarray(inertia_com, dtype=float) + mass * (C @ C.T)
    out[:3, 3:] = mass * C
    out[3:, :3] = mass * C.T
    out[3:, 3:] = mass * np.eye(3)
    return out
