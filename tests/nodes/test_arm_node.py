"""MIME-NODE-104 equation by equation on the demo arm and a small arm with a mimic joint."""

from __future__ import annotations

import numpy as np
import pytest
from node_helpers import STATIC_URDF, pose, random_pose, rot, rotation_log

from mime_gui.multibody import frame_angular_velocities, frame_poses, read_urdf
from mime_gui.nodes import KinematicArmNode, NodeState, Trajectory


# -- the servo lag: θ_{n+1} = ū + (θ_n − ū) exp(−dt/τ) ------------------------------------------------
@pytest.mark.parametrize("dt", [1e-3, 0.013, 0.1, 0.7])
def test_step_response_is_exact_at_every_step(demo_art, dt):
    tau, theta0, u = 0.2, 0.3, -1.1
    node = KinematicArmNode(demo_art, servo_time_constant=tau)
    steps = 60
    commands = np.zeros((steps, 6))
    commands[:, 0] = u
    start = np.zeros(6)
    start[0] = theta0
    t = dt * np.arange(1, steps + 1)
    expected = u + (theta0 - u) * np.exp(-t / tau)

    played = node.play(commands, dt, start)
    np.testing.assert_allclose(played.joint_positions[:, 0], expected, rtol=0, atol=1e-14)
    np.testing.assert_array_equal(played.joint_positions[:, 1:], 0.0)

    state = node.initial_state(start)
    for n in range(steps):
        state = node.advance(state, commands[n], dt)
        assert abs(state.joint_positions[0] - expected[n]) < 1e-14


def test_step_response_over_a_long_run_does_not_drift(demo_art):
    """The prefix scan keeps every weight ≤ 1: no overflow or growth over 200,000 steps of small dt/τ."""
    node = KinematicArmNode(demo_art, servo_time_constant=50.0)
    dt, steps = 1e-3, 200_000
    u = np.zeros((steps, 6))
    u[:, 2] = 2.0
    theta = node.play(u, dt, np.zeros(6), chunk=steps).joint_positions[:, 2]
    t = dt * np.arange(1, steps + 1)
    np.testing.assert_allclose(theta, 2.0 - 2.0 * np.exp(-t / 50.0), rtol=0, atol=1e-12)


def test_tau_zero_follows_the_held_command_at_once(demo_art):
    node = KinematicArmNode(demo_art)
    rng = np.random.default_rng(1)
    u = rng.uniform(-1, 1, (20, 6))
    played = node.play(u, 0.05, rng.uniform(-1, 1, 6))
    np.testing.assert_array_equal(played.joint_positions, u)
    assert node.lag_factor(0.05) == 0.0
    state = node.advance(node.initial_state(), u[0], 0.05)
    np.testing.assert_array_equal(state.joint_positions, u[0])


def test_lag_uses_the_held_command_not_the_raw_one(demo_art):
    node = KinematicArmNode(demo_art, servo_time_constant=0.1)
    u = np.array([0.0, 5.0, 0.0, 0.0, 0.0, 0.0])  # joint_2 upper limit 1.8
    state = node.advance(node.initial_state(), u, 0.1)
    assert state.joint_positions[1] == pytest.approx(1.8 * (1 - np.exp(-1.0)), abs=1e-15)


# -- ū = min(max(u, l), h) ----------------------------------------------------------------------------
def test_clamping_at_both_limits_and_counting(demo_art):
    node = KinematicArmNode(demo_art)
    u = np.array([[-9.0, 9.0, -2.5, 3.0, 2.0, 0.0],
                  [9.0, -9.0, 2.6, -3.1, -2.0, 0.0],
                  [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]])
    held = node.held(u)
    np.testing.assert_array_equal(held[0], [-2.9, 1.8, -2.5, 3.0, 2.0, 0.0])
    np.testing.assert_array_equal(held[1], [2.9, -1.8, 2.5, -3.0, -2.0, 0.0])
    np.testing.assert_array_equal(held[2], 0.0)
    played = node.play(u, 0.01)
    np.testing.assert_array_equal(played.joint_positions, held)
    # values exactly at a limit are not counted
    np.testing.assert_array_equal(played.clamped, [2, 2, 1, 1, 0, 0])


def test_continuous_joints_are_never_clamped(demo_art):
    node = KinematicArmNode(demo_art, lower={"joint_6": -1.0}, upper=np.full(6, 0.5))
    assert node.lower[5] == -np.inf and node.upper[5] == np.inf
    u = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 40.0])
    played = node.play(np.tile(u, (3, 1)), 0.1)
    assert played.joint_positions[-1, 5] == 40.0  # not wrapped either
    assert played.clamped[5] == 0
    assert node.upper[0] == 0.5 and node.lower[0] == -2.9  # the overrides apply to the others


def test_limit_overrides_are_checked(demo_art):
    with pytest.raises(ValueError, match="lower limit"):
        KinematicArmNode(demo_art, lower={"joint_1": 1.0}, upper={"joint_1": 0.0})
    with pytest.raises(KeyError, match="joint_9"):
        KinematicArmNode(demo_art, lower={"joint_9": 1.0})
    with pytest.raises(ValueError, match="servo_time_constant"):
        KinematicArmNode(demo_art, servo_time_constant=-1.0)


def test_initial_positions_are_held(demo_art):
    node = KinematicArmNode(demo_art)
    state = node.initial_state([5.0, 0, 0, 0, 0, 0])
    assert state.joint_positions[0] == 2.9
    np.testing.assert_array_equal(state.frame_angular_velocities, 0.0)


def test_at_rest_on_a_turning_mount_every_frame_turns_with_the_mount(demo_art):
    """Ω = ω + R(M ∘ O)·W(θ, 0) = ω: at rest, every frame turns exactly as its mount does."""
    O = pose([1, 0, 0], 0.4, [0.0, 0.2, 0.0])
    M = pose([0, 1, 1], -0.7, [1.0, 0.0, 0.5])
    omega = np.array([0.3, -1.2, 2.0])
    node = KinematicArmNode(demo_art, placement=O)
    q = np.linspace(-0.4, 0.6, 6)
    state = node.initial_state(q, mount_pose=M, mount_rate=omega)
    np.testing.assert_array_equal(state.frame_angular_velocities, np.broadcast_to(omega, (8, 3)))
    np.testing.assert_allclose(state.frame_poses, M @ O @ frame_poses(demo_art, q), atol=1e-15)
    # and a step that holds the same command keeps it so
    held = node.advance(state, q, 0.01, mount_pose=M, mount_rate=omega)
    np.testing.assert_allclose(held.frame_angular_velocities, np.broadcast_to(omega, (8, 3)), atol=1e-15)


# -- mimic followers ----------------------------------------------------------------------------------
def test_mimic_followers_follow_then_are_clamped(mimic_art):
    node = KinematicArmNode(mimic_art, servo_time_constant=0.05)
    assert node.command_names == ("j1", "j2", "j4")
    assert node.joint_names == ("j1", "j2", "j3", "j4")
    u = np.repeat([[0.3, 0.2, 1.0], [-0.9, 0.5, 2.0], [1.2, 0.1, 0.0]], 10, axis=0)
    played = node.play(u, 0.02, [0.2, 0.0, 0.0])
    j1, j3 = played.joint_positions[:, 0], played.joint_positions[:, 2]
    np.testing.assert_allclose(j3, np.clip(-2 * j1 + 0.1, -1.5, 1.5), rtol=0, atol=1e-15)
    assert np.any(np.abs(-2 * j1 + 0.1) > 1.5)  # the follower's own limits were reached
    # a full-length command: the follower's entry is ignored
    full = np.insert(u, 2, 99.0, axis=1)
    np.testing.assert_array_equal(node.play(full, 0.02, [0.2, 0.0, 0.0]).joint_positions,
                                  played.joint_positions)
    state = node.initial_state([0.2, 0.0, 0.0])
    assert state.joint_positions[2] == pytest.approx(-0.3)


# -- P_k = M ∘ O ∘ FK_k and Ω_k = ω + R(M ∘ O) W_k ------------------------------------------------------
def test_angular_velocity_is_the_finite_difference_rate(demo_art):
    """Only joint_1 (world z) moves: Ω of every frame is ẑ (θ_{n+1} − θ_n)/dt, not the analytic rate."""
    node = KinematicArmNode(demo_art, servo_time_constant=0.3)
    u = np.zeros((10, 6))
    u[:, 0] = 1.0
    dt = 0.05
    played = node.play(u, dt)
    theta = np.concatenate([[0.0], played.joint_positions[:, 0]])
    rate = np.diff(theta) / dt
    np.testing.assert_allclose(played.frame_angular_velocities[:, 1:, 2], np.repeat(rate[:, None], 7, 1),
                               rtol=1e-13)
    np.testing.assert_array_equal(played.frame_angular_velocities[:, 0], 0.0)  # base_link does not turn
    np.testing.assert_array_equal(played.frame_angular_velocities[:, :, :2], 0.0)


def test_mount_rotating_at_omega(demo_art):
    """A segment placed at O on a mount turning about z at ω: every Ω gains ω, every pose is M ∘ O ∘ FK."""
    rng = np.random.default_rng(2)
    O = pose([1, 2, 0.5], 0.7, [0.3, -0.2, 0.1])
    node = KinematicArmNode(demo_art, servo_time_constant=0.04, placement=O)
    plain = KinematicArmNode(demo_art, servo_time_constant=0.04)
    steps, dt, w = 50, 0.01, 1.7
    omega = np.array([0.0, 0.0, w])
    M = np.stack([pose([0, 0, 1], w * dt * (n + 1), [0.5, 0.0, 1.0]) for n in range(steps)])
    u = rng.uniform(-1, 1, (steps, 6))
    played = node.play(u, dt, mount_poses=M, mount_rates=omega)
    alone = plain.play(u, dt)
    np.testing.assert_array_equal(played.joint_positions, alone.joint_positions)
    MO = M @ O
    np.testing.assert_allclose(played.frame_poses, MO[:, None] @ alone.frame_poses, atol=1e-14)
    rotated = np.einsum("nab,nfb->nfa", MO[:, :3, :3], alone.frame_angular_velocities)
    np.testing.assert_allclose(played.frame_angular_velocities - omega, rotated, atol=1e-13)

    # held still: every frame turns at exactly ω
    still = node.play(np.zeros((steps, 6)), dt, np.zeros(6), mount_poses=M, mount_rates=omega)
    np.testing.assert_allclose(still.frame_angular_velocities, np.broadcast_to(omega, (steps, 8, 3)),
                               rtol=0, atol=1e-15)


def test_angular_velocity_matches_the_change_of_world_orientation(demo_art):
    """Independent of the formula: Ω ≈ log(R_{n+1} R_nᵀ)/dt for a smooth motion on a turning mount."""
    O = pose([0, 1, 0], 0.4, [0.0, 0.1, 0.0])
    node = KinematicArmNode(demo_art, placement=O)
    dt, steps, w = 1e-4, 400, np.array([0.3, -0.8, 1.1])
    t = dt * np.arange(steps + 1)
    q = np.stack([0.5 * np.sin(2 * t + k) for k in range(6)], axis=1)
    M = np.stack([rot(w, np.linalg.norm(w) * ti) for ti in t])
    played = node.play(q[1:], dt, q[0], mount_poses=M[1:], mount_rates=w)
    R = played.frame_poses[:, :, :3, :3]
    for n in (50, 200, 398):
        for k in range(8):
            fd = rotation_log(R[n + 1, k] @ R[n, k].T) / dt
            np.testing.assert_allclose(played.frame_angular_velocities[n + 1, k], fd, atol=5e-3)


def test_time_varying_mount_pose_by_pose(demo_art):
    rng = np.random.default_rng(3)
    O = random_pose(rng)
    node = KinematicArmNode(demo_art, servo_time_constant=0.02, placement=O)
    steps, dt = 12, 0.03
    M = np.stack([random_pose(rng) for _ in range(steps)])
    w = rng.normal(size=(steps, 3))
    u = rng.uniform(-2, 2, (steps, 6))
    q0 = rng.uniform(-1, 1, 6)
    played = node.play(u, dt, q0, mount_poses=M, mount_rates=w)
    previous = node.initial_state(q0).joint_positions
    for n in range(steps):
        q = played.joint_positions[n]
        expected = M[n] @ O @ frame_poses(demo_art, q)
        np.testing.assert_allclose(played.frame_poses[n], expected, atol=1e-13)
        W = frame_angular_velocities(demo_art, q, (q - previous) / dt)
        np.testing.assert_allclose(played.frame_angular_velocities[n], w[n] + W @ (M[n] @ O)[:3, :3].T,
                                   atol=1e-12)
        previous = q
    assert isinstance(played, Trajectory) and len(played) == steps
    np.testing.assert_allclose(played.times(1.0), 1.0 + dt * np.arange(1, steps + 1))
    assert isinstance(played.state(), NodeState)


def test_frames_and_base(demo_art):
    O = pose([1, 0, 0], 0.3, [0.0, 0.0, 0.5])
    M = pose([0, 0, 1], -0.2, [1.0, 2.0, 0.0])
    node = KinematicArmNode(demo_art, placement=O)
    q = np.linspace(-0.5, 0.5, 6)
    np.testing.assert_allclose(node.base(M), M @ O)
    np.testing.assert_allclose(node.frames(q, M), M @ O @ frame_poses(demo_art, q), atol=1e-15)
    np.testing.assert_array_equal(node.base_rate([1.0, 2.0, 3.0]), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(node.base_rate(), 0.0)


def test_refusals(demo_art):
    node = KinematicArmNode(demo_art)
    state = node.initial_state()
    with pytest.raises(ValueError, match="dt"):
        node.advance(state, np.zeros(6), 0.0)
    with pytest.raises(ValueError, match="non-finite"):
        node.advance(state, [np.nan, 0, 0, 0, 0, 0], 0.1)
    with pytest.raises(ValueError, match="6 entries"):
        node.advance(state, np.zeros(4), 0.1)
    with pytest.raises(ValueError, match="mount_poses"):
        node.play(np.zeros((3, 6)), 0.1, mount_poses=np.tile(np.eye(4), (2, 1, 1)))
    with pytest.raises(ValueError, match="mount_rates"):
        node.play(np.zeros((3, 6)), 0.1, mount_rates=np.zeros((4, 3)))


def test_chunked_play_equals_one_chunk(demo_art):
    rng = np.random.default_rng(4)
    node = KinematicArmNode(demo_art, servo_time_constant=0.05)
    u = rng.uniform(-3, 3, (100, 6))
    M = np.stack([random_pose(rng) for _ in range(100)])
    calls = []
    a = node.play(u, 0.01, mount_poses=M, chunk=7, progress=lambda done, total: calls.append((done, total)))
    b = node.play(u, 0.01, mount_poses=M, chunk=1000)
    for x, y in [(a.joint_positions, b.joint_positions), (a.frame_poses, b.frame_poses),
                 (a.frame_angular_velocities, b.frame_angular_velocities)]:
        np.testing.assert_allclose(x, y, rtol=0, atol=1e-13)  # batched products may round differently
    assert calls[-1] == (100, 100) and len(calls) == 15
    # continue from a state
    c = node.play(u[50:], 0.01, a.state(49), mount_poses=M[50:])
    np.testing.assert_allclose(c.frame_angular_velocities, a.frame_angular_velocities[50:], atol=1e-10)


def test_a_segment_without_movable_joints_rides_its_mount():
    art = read_urdf(STATIC_URDF).compile()
    node = KinematicArmNode(art, placement=pose([0, 0, 1], 0.5, [1, 0, 0]))
    assert node.command_names == ()
    M = np.stack([pose([1, 0, 0], 0.1 * n, [0, 0, n]) for n in range(4)])
    played = node.play(np.zeros((4, 0)), 0.1, mount_poses=M, mount_rates=[0.0, 0.0, 2.0])
    expected = M[:, None] @ node.placement @ frame_poses(art, np.zeros(0))
    np.testing.assert_allclose(played.frame_poses, expected)
    np.testing.assert_array_equal(played.frame_angular_velocities, np.broadcast_to([0, 0, 2.0], (4, 2, 3)))


def test_a_large_tree_sums_its_frames_rates_in_one_pass_like_the_dense_product(monkeypatch):
    """Past DENSE_LIMIT the node does not build an nframes × nq matrix (gigabytes on 10,000 links); the
    pass over the bodies gives the same angular velocities."""
    from mime_gui import RESOURCES
    from mime_gui.nodes import chain

    art = read_urdf(RESOURCES / "demo" / "arm.urdf").compile()
    u = np.sin(np.outer(np.arange(1, 41) * 0.05, np.arange(1, art.nq + 1)))
    dense = chain.KinematicArmNode(art, servo_time_constant=0.02).play(u, 0.01)
    monkeypatch.setattr(chain, "DENSE_LIMIT", 0)
    node = chain.KinematicArmNode(art, servo_time_constant=0.02)
    assert node._frame_moved_by is None
    sparse = node.play(u, 0.01)
    np.testing.assert_allclose(sparse.frame_angular_velocities, dense.frame_angular_velocities, atol=1e-12)
    np.testing.assert_array_equal(sparse.frame_poses, dense.frame_poses)
