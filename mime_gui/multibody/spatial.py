"""Small spatial-algebra helpers shared by the compiler, the algorithms and the rig.

Homogeneous transforms are ``(4, 4)`` arrays named by their frames: ``a_X_b`` maps coordinates in frame ``b``
to frame ``a``. Spatial vectors are ordered ``[angular; linear]``.
"""

from __future__ import annotations

import numpy as np


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


_SKEW_INDEX = np.array([[3, 2, 1], [2, 3, 0], [1, 0, 3]])
_SKEW_SIGN = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])


def skew(c: np.ndarray) -> np.ndarray:
    """``[c]x`` over the last axis: ``(..., 3)`` → ``(..., 3, 3)`` (``c`` an array)."""
    padded = np.concatenate([c, np.zeros((*c.shape[:-1], 1))], axis=-1)
    return padded[..., _SKEW_INDEX] * _SKEW_SIGN


def spatial_inertia(mass, com, inertia_com) -> np.ndarray:
    """Spatial inertias ``(..., 6, 6)`` ``[angular; linear]`` about the frame origin, from masses ``(...)``,
    centres of mass ``(..., 3)`` and rotational inertias about them ``(..., 3, 3)``, all in the frame's axes:
    ``[[I_c + m C C^T, m C], [m C^T, m 1]]`` with ``C = [c]x``."""
    m = np.asarray(mass, dtype=float)[..., None, None]
    C = skew(np.asarray(com, dtype=float))
    Ct = np.swapaxes(C, -1, -2)
    out = np.empty((*C.shape[:-2], 6, 6))
    out[..., :3, :3] = np.asarray(inertia_com, dtype=float) + m * (C @ Ct)
    out[..., :3, 3:] = m * C
    out[..., 3:, :3] = m * Ct
    out[..., 3:, 3:] = m * np.eye(3)
    return out


def _rotation(R) -> np.ndarray:
    R = np.asarray(R, dtype=float)
    if R.shape != (3, 3):
        raise ValueError(f"expected a (3, 3) rotation matrix, got shape {R.shape}")
    return R


def quaternion_of(R) -> np.ndarray:
    """The unit quaternion ``(w, x, y, z)`` of a rotation matrix, the inverse of :func:`quaternion_to_matrix`.

    Shepperd's method: the component of largest magnitude is taken from the diagonal and the others are
    divided by it, so the result keeps full precision at half-turns, where the usual ``sqrt(1 + trace)`` has
    nothing left to divide by. The sign is fixed so that ``w ≥ 0`` (at an exact half-turn, where ``w = 0``,
    so that the first non-zero of ``x, y, z`` is positive): one rotation, one quaternion.
    """
    R = _rotation(R)
    diag = (R[0, 0], R[1, 1], R[2, 2])
    trace = sum(diag)
    k = int(np.argmax(diag))
    if trace >= diag[k]:
        w = 0.5 * np.sqrt(1.0 + trace)
        f = 0.25 / w
        q = np.array([w, (R[2, 1] - R[1, 2]) * f, (R[0, 2] - R[2, 0]) * f, (R[1, 0] - R[0, 1]) * f])
    elif k == 0:
        x = 0.5 * np.sqrt(1.0 + R[0, 0] - R[1, 1] - R[2, 2])
        f = 0.25 / x
        q = np.array([(R[2, 1] - R[1, 2]) * f, x, (R[0, 1] + R[1, 0]) * f, (R[0, 2] + R[2, 0]) * f])
    elif k == 1:
        y = 0.5 * np.sqrt(1.0 - R[0, 0] + R[1, 1] - R[2, 2])
        f = 0.25 / y
        q = np.array([(R[0, 2] - R[2, 0]) * f, (R[0, 1] + R[1, 0]) * f, y, (R[1, 2] + R[2, 1]) * f])
    else:
        z = 0.5 * np.sqrt(1.0 - R[0, 0] - R[1, 1] + R[2, 2])
        f = 0.25 / z
        q = np.array([(R[1, 0] - R[0, 1]) * f, (R[0, 2] + R[2, 0]) * f, (R[1, 2] + R[2, 1]) * f, z])
    q /= np.linalg.norm(q)
    lead = q[np.flatnonzero(q)[0]]
    return (q if lead > 0 else -q) + 0.0  # + 0.0 turns -0.0 into 0.0


#: Below this ``cos(pitch)`` the frame is taken as gimbal-locked and roll is set to 0 (all of it in yaw).
GIMBAL_LOCK = 1e-12


def rpy_of(R) -> np.ndarray:
    """Roll, pitch, yaw of a rotation matrix in the URDF convention ``R = Rz(yaw) Ry(pitch) Rx(roll)``.

    Pitch is in ``[-π/2, π/2]``, roll and yaw in ``[-π, π]``. Pitch comes from ``atan2`` (not ``asin``,
    which loses half the digits near ±π/2). Yaw is computed last, from what ``Rx(roll)`` and ``Ry(pitch)``
    leave of ``R``, so that the three angles rebuild ``R`` to rounding even close to gimbal lock, where roll
    alone is ill-determined. At gimbal lock (``cos(pitch) < GIMBAL_LOCK``) roll is 0 and yaw carries the turn.
    """
    R = _rotation(R)
    c = np.hypot(R[0, 0], R[1, 0])
    pitch = np.arctan2(-R[2, 0], c)
    roll = np.arctan2(R[2, 1], R[2, 2]) if c >= GIMBAL_LOCK else 0.0
    cr, sr, cp, sp = np.cos(roll), np.sin(roll), np.cos(pitch), np.sin(pitch)
    # Rz(yaw) = R Rx(roll)^T Ry(pitch)^T: its first column is all yaw needs.
    m00 = R[0, 0] * cp + (R[0, 1] * sr + R[0, 2] * cr) * sp
    m10 = R[1, 0] * cp + (R[1, 1] * sr + R[1, 2] * cr) * sp
    yaw = np.arctan2(m10, m00)
    return np.array([roll, pitch, yaw]) + 0.0
