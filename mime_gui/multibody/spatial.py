"""Small spatial-algebra helpers shared by the reader and the algorithms.

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
