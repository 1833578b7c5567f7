"""The twist and spatial acceleration of a moving base in its own axes, from its poses, against the closed
form of a base that turns at a constant rate while its origin moves at a constant velocity, away from the
world origin: its twist is ``[Rᵀω; Rᵀu]`` and its spatial acceleration ``[0; −Rᵀ(ω × u)]`` (the classical
acceleration of its origin is zero)."""

from __future__ import annotations

import numpy as np

from mime_gui.multibody.moving_base import base_motion


def _rz(angle: float) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def test_a_base_turning_and_moving_steadily_away_from_the_origin():
    dt, steps, rate = 0.01, 6, 0.8
    omega, u, p0 = np.array([0.0, 0.0, rate]), np.array([0.4, -0.3, 0.2]), np.array([2.0, -1.5, 0.7])
    poses = np.tile(np.eye(4), (steps, 1, 1))
    for k in range(steps):
        t = (k + 1) * dt
        poses[k, :3, :3] = _rz(rate * t)
        poses[k, :3, 3] = p0 + u * t
    start = np.eye(4)
    start[:3, 3] = p0
    gravity = np.array([0.0, 0.0, -9.81])
    V, A, g = base_motion(poses, start, np.tile(omega, (steps, 1)), dt, gravity)
    for k in range(steps):
        Rt = poses[k, :3, :3].T
        np.testing.assert_allclose(V[k], np.concatenate([Rt @ omega, Rt @ u]), atol=1e-12)
        np.testing.assert_allclose(g[k], Rt @ gravity, atol=1e-12)
        if k:  # step 0 starts from rest: its acceleration is the whole twist over one step
            expected = np.concatenate([np.zeros(3), -Rt @ np.cross(omega, u)])
            np.testing.assert_allclose(A[k], expected, atol=1e-9)
