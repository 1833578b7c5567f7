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
