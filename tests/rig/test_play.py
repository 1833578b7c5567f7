"""Whole-chain playback: every segment in chain order, each riding on its mount frame."""

from __future__ import annotations

import numpy as np
import pytest
from rig_helpers import DEMO_RIG, snippet_rig

from mime_gui.cli import main
from mime_gui.nodes import KinematicArmNode
from mime_gui.rig import Arm, load


@pytest.fixture(scope="module")
def built():
    rig = snippet_rig()
    rig.chain["motor"].at = (0.0, 0.01, 0.03)
    rig.chain["motor"].orientation = (np.cos(0.3), np.sin(0.3), 0.0, 0.0)  # turned 0.6 rad about x
    return rig.build()


def _commands(T=40, seed=3):
    rng = np.random.default_rng(seed)
    return np.cumsum(rng.normal(0, 0.05, (T, 7)), axis=0)


def test_later_segments_ride_on_their_mount(built):
    dt = 0.01
    traj = built.play(_commands(), dt)
    arm, motor = traj.segments["arm"], traj.segments["motor"]
    arm_art, motor_art = built.articulation("arm"), built.articulation("motor")
    link_6 = arm.frame_poses[:, arm_art.frame_index("link_6")]
    stator = motor.frame_poses[:, motor_art.frame_index("stator")]
    placement = built.segments["motor"].placement
    np.testing.assert_allclose(stator, link_6 @ placement, atol=1e-12)
    # the rotor turns with the flange, plus its shaft rate about the axis in world axes
    omega_mount = arm.frame_angular_velocities[:, arm_art.frame_index("link_6")]
    shaft = np.concatenate([[0.0], motor.joint_positions[:, 0]])
    rate = np.diff(shaft) / dt
    axis_world = stator[:, :3, :3] @ np.array([0.0, 0.0, 1.0])
    rotor = motor.frame_angular_velocities[:, motor_art.frame_index("rotor")]
    np.testing.assert_allclose(rotor, omega_mount + axis_world * rate[:, None], atol=1e-9)
    # a mounted part's frame sits at its centroid, axes of the rotor
    holder = motor.frame_poses[:, motor_art.frame_index("part:holder")]
    rotor_pose = motor.frame_poses[:, motor_art.frame_index("rotor")]
    np.testing.assert_allclose(holder[:, :3, :3], rotor_pose[:, :3, :3], atol=1e-12)
    at = rotor_pose[:, :3, 3] + rotor_pose[:, :3, 2] * 0.01
    np.testing.assert_allclose(holder[:, :3, 3], at, atol=1e-12)


def test_play_equals_the_nodes_chained_by_hand(built):
    u, dt = _commands(), 0.02
    traj = built.play(u, dt, servo_time_constant=0.05)
    arm_node = KinematicArmNode(built.articulation("arm"), 0.05)
    arm = arm_node.play(u[:, :6], dt, np.array([0.1, 0, 0, 0, 0, 0]))
    f = built.articulation("arm").frame_index("link_6")
    placement = built.segments["motor"].placement
    motor_node = KinematicArmNode(built.articulation("motor"), 0.05, placement=placement)
    motor = motor_node.play(u[:, 6:], dt, np.zeros(1), mount_poses=arm.frame_poses[:, f],
                            mount_rates=arm.frame_angular_velocities[:, f])
    np.testing.assert_allclose(traj.frame_poses, np.concatenate([arm.frame_poses, motor.frame_poses], 1))
    omega = np.concatenate([arm.frame_angular_velocities, motor.frame_angular_velocities], 1)
    np.testing.assert_allclose(traj.frame_angular_velocities, omega)
    assert traj.joint_names == built.joint_names and traj.joint_positions.shape == (len(u), 7)
    assert traj.frame_names[-1] == "motor.part:m1"


def test_commands_by_segment_or_joint_hold_the_rest_at_the_initial_positions(built):
    T = 10
    traj = built.play({"motor": np.linspace(0, 1, T), "arm.joint_2": np.full(T, 0.5)}, 0.01)
    q = traj.joint_positions
    np.testing.assert_allclose(q[:, 0], 0.1)  # joint_1 holds the rig's initial position
    np.testing.assert_allclose(q[:, 1], 0.5)
    np.testing.assert_allclose(q[:, 6], np.linspace(0, 1, T))
    with pytest.raises(KeyError, match="arm.joint_1"):
        built.play({"arm.joint_9": np.zeros(T)}, 0.01)
    with pytest.raises(ValueError):
        built.play(np.zeros((T, 3)), 0.01)


def test_a_segment_on_an_earlier_segment_frame():
    rig = snippet_rig()
    rig.chain["second"] = Arm.Kinematic(description=rig.chain["arm"].description, mount="arm.link_3")
    built = rig.build()
    traj = built.play(np.zeros((3, len(built.command_names))) + 0.2, 0.1)
    arm, second = traj.segments["arm"], traj.segments["second"]
    link_3 = arm.frame_poses[:, built.articulation("arm").frame_index("link_3")]
    np.testing.assert_allclose(second.frame_poses[:, 0], link_3, atol=1e-12)


def test_mime_gui_play_accepts_a_rig_file(tmp_path, capsys):
    commands = tmp_path / "cmd.csv"
    t = np.arange(0, 0.5, 0.01)
    rows = "\n".join(f"{x:.2f},{np.sin(x):.6f},{2 * x:.6f}" for x in t)
    commands.write_text("time,joint_1,motor.shaft\n" + rows + "\n")
    out = tmp_path / "out.npz"
    code = main(["play", str(DEMO_RIG), "--commands", str(commands), "--out", str(out)])
    assert code == 0, capsys.readouterr()
    assert "arm 0.05 s, motor 0 s" in capsys.readouterr().out
    data = np.load(out)
    built = load(DEMO_RIG).build()
    assert list(data["joint_names"]) == list(built.joint_names)
    assert list(data["frame_names"]) == list(built.frame_names)
    assert data["frame_poses"].shape == (len(t), len(built.frame_names), 4, 4)
    shaft = list(data["joint_names"]).index("motor.shaft")
    np.testing.assert_allclose(data["joint_positions"][:, shaft], 2 * t, atol=1e-6)
    joint_3 = list(data["joint_names"]).index("arm.joint_3")
    # not in the file: held at the rig's initial value
    np.testing.assert_allclose(data["joint_positions"][:, joint_3], 0.9, atol=1e-12)


def test_mime_gui_play_refuses_an_unknown_column(tmp_path, capsys):
    commands = tmp_path / "cmd.csv"
    commands.write_text("time,arm.joint_9\n0,0\n0.1,0\n")
    code = main(["play", str(DEMO_RIG), "--commands", str(commands), "--out", str(tmp_path / "o.npz")])
    assert code == 2
    err = capsys.readouterr().err
    assert "commands.unknown-joint" in err and "arm.joint_1" in err
