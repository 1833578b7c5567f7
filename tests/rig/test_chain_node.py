"""The chain node: every segment in mount order, each riding on its mount (mount composition written once)."""

from __future__ import annotations

import numpy as np
import pytest
from rig_helpers import DEMO_RIG

from mime_gui.multibody import frame_poses
from mime_gui.rig import load
from mime_gui.rig.chain_node import ChainNode, ChainSegment, mount_order, riders_of


@pytest.fixture(scope="module")
def built():
    return load(DEMO_RIG).build()


def _commands(built, T=200, dt=0.01):
    t = dt * np.arange(1, T + 1)
    out = {}
    for n in built.segments:
        k = len(built.node(n).command_names)
        out[n] = 0.4 * np.sin(np.outer(t, 1.0 + np.arange(k)) * 2.0)
    return out


def test_trajectory_equals_each_segment_composed_on_its_mount(built):
    """The motor's frames are the arm's mount frame ∘ placement ∘ FK(motor), step by step, from the engine."""
    dt = 0.01
    node = built.chain_node(servo_time_constant=0.0)  # no lag: the state is the held command
    u = _commands(built, dt=dt)
    played = node.play(u, dt)
    arm, motor = built.segments["arm"], built.segments["motor"]
    assert motor.mount[0] == "arm"
    q_arm = np.clip(u["arm"], arm.articulation.lower, arm.articulation.upper)
    arm_world = arm.placement @ frame_poses(arm.articulation, q_arm)
    np.testing.assert_allclose(played["arm"].frame_poses, arm_world, atol=1e-12)
    mount = arm_world[:, arm.articulation.frame_index(motor.mount[1])]
    motor_world = (mount @ motor.placement)[:, None] @ frame_poses(motor.articulation, u["motor"])
    np.testing.assert_allclose(played["motor"].frame_poses, motor_world, atol=1e-12)
    # the motor's frames turn with the arm's mount frame, plus the rotor's own rate
    w_mount = played["arm"].frame_angular_velocities[:, arm.articulation.frame_index(motor.mount[1])]
    stator = motor.articulation.frame_index("stator")
    np.testing.assert_allclose(played["motor"].frame_angular_velocities[:, stator], w_mount, atol=1e-12)


def test_advance_step_by_step_equals_play(built):
    dt = 0.004
    node = built.chain_node(servo_time_constant=0.05)
    u = _commands(built, T=60, dt=dt)
    played = node.play(u, dt)
    state = node.initial_state()
    for n in range(60):
        state = node.advance(state, {s: u[s][n] for s in u}, dt)
        for s in u:
            np.testing.assert_allclose(state[s].joint_positions, played[s].joint_positions[n], atol=1e-12)
            np.testing.assert_allclose(state[s].frame_poses, played[s].frame_poses[n], atol=1e-12)
            np.testing.assert_allclose(state[s].frame_angular_velocities,
                                       played[s].frame_angular_velocities[n], atol=1e-9)


def test_built_rig_play_goes_through_the_chain_node(built):
    dt = 0.01
    u = _commands(built, dt=dt)
    stacked = np.concatenate([u[n] for n in built.segments], axis=1)
    via_rig = built.play(stacked, dt)
    initial = {n: np.array([built.segments[n].segment.initial_positions.get(j, 0.0)
                            for j in built.node(n).command_names]) for n in built.segments}
    via_node = built.chain_node().play(u, dt, initial)
    for n in built.segments:
        np.testing.assert_array_equal(via_rig.segments[n].frame_poses, via_node[n].frame_poses)


def test_place_moves_the_segment_and_what_rides_on_it_only(built):
    node = built.chain_node()
    state = node.initial_state()
    arm = built.segments["arm"].articulation
    q = np.clip(np.full(arm.nq, 0.3), arm.lower, arm.upper)
    placed = node.place(state, "arm", q)
    np.testing.assert_allclose(placed["arm"].joint_positions, q)
    assert not np.allclose(placed["motor"].frame_poses, state["motor"].frame_poses)
    assert placed["motor"].joint_positions is state["motor"].joint_positions or \
        np.array_equal(placed["motor"].joint_positions, state["motor"].joint_positions)
    placed_motor = node.place(state, "motor", [1.0])
    assert placed_motor["arm"] is state["arm"]  # the mount does not move when a rider is posed


def test_mount_order_puts_mounts_first_and_riders_follow():
    mounts = {"c": ("b", "f"), "a": None, "b": ("a", "f"), "w": None, "x": ("nowhere", "f")}
    order = mount_order(mounts)
    assert order.index("a") < order.index("b") < order.index("c")
    assert set(order) == set(mounts)
    assert riders_of(mounts, "a") == ["a", "b", "c"]
    assert riders_of(mounts, "c") == ["c"]


def test_a_segment_on_a_missing_mount_stands_in_the_world(built):
    arm = built.segments["arm"]
    node = ChainNode({"solo": ChainSegment(arm.articulation, np.eye(4), ("gone", "link_6"))})
    state = node.initial_state()
    np.testing.assert_allclose(state["solo"].frame_poses, frame_poses(arm.articulation,
                                                                      state["solo"].joint_positions))


def test_a_rider_is_undefined_only_at_the_steps_its_mount_overflowed(built):
    """Commands that overflow the arm's rates leave the motor riding on it undefined (NaN) at those steps, no
    error here (the caller names where it began), and played as usual at every other step."""
    dt = 1.0
    node = built.chain_node(servo_time_constant=0.0)
    u = _commands(built, T=4, dt=dt)
    u["arm"][:, -1] = [0.0, 1e308, -1e308, -1e308]  # joint_6 is continuous: held as given
    with np.errstate(over="ignore", invalid="ignore"):
        played = node.play(u, dt)
    arm_rates = played["arm"].frame_angular_velocities
    assert np.isfinite(arm_rates[:2]).all() and not np.isfinite(arm_rates[2]).all()
    assert np.isfinite(arm_rates[3]).all()  # no rate at step 3: the command is held
    motor = played["motor"]
    for values in (motor.frame_poses, motor.frame_angular_velocities):
        assert np.isnan(values[2]).all()
        assert np.isfinite(values[[0, 1, 3]]).all()
    np.testing.assert_array_equal(motor.joint_positions, u["motor"])  # its own joints are its own
    whole = node.play({s: c[:2] for s, c in u.items()}, dt)["motor"]  # the first two steps, alone
    np.testing.assert_array_equal(motor.frame_poses[:2], whole.frame_poses)
    np.testing.assert_array_equal(motor.frame_angular_velocities[:2], whole.frame_angular_velocities)
