"""Live driving's small contracts: a kinematic play names a misshapen ``mount_rates``, a dynamic step reads
positions given as numeric text, a rig with a broken servo time constant is driven without lag, the live
torques keep a row exactly one window old, a fresh row buffer without room grows, and an unmounted torque
drive handed a mount pose carries its frames on it without changing its motion."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.nodes.dynamic import DynamicArmNode
from mime_gui.session import Session
from mime_gui.session.live_torques import LiveTorques, _Buffer
from mime_gui.session.torque_drive import TorqueDrive
from mime_gui.session.transport import Transport

DEMO = RESOURCES / "demo" / "demo.rig.json"


def _demo():
    session = Session()
    session.open(DEMO)
    return session


def test_a_kinematic_play_names_mount_rates_of_the_wrong_shape():
    session = _demo()
    node = session.document.built.node("arm")
    commands = np.zeros((3, node.ncommands))
    with pytest.raises(ValueError) as err:
        node.play(commands, 0.01, mount_rates=np.zeros((3, 2)))
    assert str(err.value) == "mount_rates must have shape (3,) or (3, 3), got (3, 2)"


def test_a_dynamic_step_reads_positions_given_as_numeric_text():
    session = _demo()
    built = session.document.built.segments["arm"]
    node = DynamicArmNode(built.dynamics_articulation, placement=built.placement, gravity=(0.0, 0.0, 0.0))
    assert node.stops and np.isfinite(node.upper).any()  # the joint stops are checked on the way in
    nq = node.art.nq
    text = ["0.25", "-0.5", "0.125", "0", "0.5", "-0.25"][:nq]
    # no gravity, no torque, at rest: nothing moves
    state, v = node.advance(text, ["0"] * nq, np.zeros(nq), 0.01)
    np.testing.assert_array_equal(state.joint_positions, [0.25, -0.5, 0.125, 0.0, 0.5, -0.25][:nq])
    np.testing.assert_array_equal(v, np.zeros(nq))


@pytest.mark.parametrize("servo", [-0.05, math.inf], ids=["negative", "infinite"])
def test_a_segment_whose_servo_time_constant_is_broken_reaches_its_command_in_one_tick(servo):
    session = _demo()
    rig = session.document.rig
    rig.chain["arm"].servo_time_constant = servo
    doc = session.open_apparatus(rig)
    assert [f.code for f in doc.findings] == ["chain.servo"]
    transport = Transport(session)
    before = session.joint_positions("arm").copy()
    session.set_command("arm", {"joint_1": 0.6})
    transport.tick(0.01)
    j1 = session.segment("arm").articulation.joint_index("joint_1")
    assert before[j1] != 0.6
    assert session.joint_positions("arm")[j1] == 0.6


def test_the_live_torques_keep_a_row_exactly_one_window_old():
    session = _demo()
    transport = Transport(session)
    live = LiveTorques(session, window=0.5)
    session.set_command("arm", {"joint_1": 0.2})
    for _ in range(3):
        transport.tick(0.25)
    assert live.time == 0.75
    # 0.75 − 0.5 = 0.25 exactly: the row at 0.25 s is on the window's edge and stays
    np.testing.assert_array_equal(live.series().time, [0.25, 0.5, 0.75])
    transport.tick(0.25)
    np.testing.assert_array_equal(live.series().time, [0.5, 0.75, 1.0])
    live.detach()


def test_a_row_buffer_made_without_room_grows_on_its_first_row():
    buffer = _Buffer(2, capacity=0)
    buffer.append(0, 0.5, [1.0, 2.0], [3.0, 4.0], keep_from=0.0)
    assert (buffer.lo, buffer.hi) == (0, 1)
    assert buffer.step[0] == 0 and buffer.time[0] == 0.5
    np.testing.assert_array_equal(buffer.tau[0], [1.0, 2.0])
    np.testing.assert_array_equal(buffer.v[0], [3.0, 4.0])


def test_an_unmounted_torque_drive_given_a_mount_pose_moves_alike_and_carries_its_frames_on_it():
    session = _demo()
    built = session.document.built
    arm = built.segments["arm"]
    kinematic = built.node("arm")
    start = kinematic.initial_state([0.1, -0.4, 0.9, 0.0, 0.6, 0.0])
    # a quarter turn about z and a shift
    M = np.array([[0.0, -1.0, 0.0, 0.3],
                  [1.0, 0.0, 0.0, -0.2],
                  [0.0, 0.0, 1.0, 0.1],
                  [0.0, 0.0, 0.0, 1.0]])

    def step(mount_pose):
        node = DynamicArmNode(arm.dynamics_articulation, placement=arm.placement)
        drive = TorqueDrive(node, kinematic, False, np.asarray(arm.placement, dtype=float))
        diverged = []
        new = drive.driver("arm", 0.01, diverged)(start, mount_pose, None)
        assert diverged == []
        return new

    alone, carried = step(None), step(M)
    assert not np.array_equal(alone.joint_positions, start.joint_positions)  # gravity pulls it
    np.testing.assert_array_equal(carried.joint_positions, alone.joint_positions)
    np.testing.assert_array_equal(carried.joint_velocities, alone.joint_velocities)
    np.testing.assert_allclose(carried.frame_poses, M @ alone.frame_poses, rtol=0, atol=1e-12)
