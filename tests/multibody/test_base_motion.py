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


def test_a_base_tracked_one_step_at_a_time_gives_base_motions_rows():
    """:class:`BaseTrack` (live driving, playback stepped beside other segments) from the pose before step 0,
    at rest: each step's twist, spatial acceleration and gravity are those rows of the batched
    :func:`base_motion`, for a base that turns at a changing rate about a tilted axis and wanders."""
    from scipy.spatial.transform import Rotation

    from mime_gui.multibody.moving_base import BaseTrack

    dt, steps = 0.004, 40
    t = dt * np.arange(1, steps + 1)
    rotvec = np.stack([0.3 * np.sin(3 * t), 0.5 * t**2, 0.2 * t], axis=1)
    poses = np.tile(np.eye(4), (steps, 1, 1))
    poses[:, :3, :3] = Rotation.from_rotvec(rotvec).as_matrix()
    poses[:, :3, 3] = np.stack([1.0 + 0.2 * np.cos(5 * t), -0.4 * t, 0.3 + 0.1 * t**3], axis=1)
    omega = np.stack([np.cos(2 * t), np.sin(t), 0.5 * t], axis=1)
    start = np.eye(4)
    start[:3, 3] = [1.2, 0.0, 0.3]
    gravity = (0.0, 0.0, -9.81)
    V, A, g = base_motion(poses, start, omega, dt, gravity)
    track = BaseTrack(start)
    for k in range(steps):
        V0, A0, g0 = track.step(poses[k], omega[k], dt, gravity)
        np.testing.assert_allclose(V0, V[k], rtol=0, atol=1e-12 * np.abs(V).max())
        np.testing.assert_allclose(A0, A[k], rtol=0, atol=1e-9 * np.abs(A).max())
        np.testing.assert_allclose(g0, g[k], rtol=0, atol=1e-14)
