"""Live driving and recording without Qt: the live state is the KinematicArmNode's, and a recording saved as
CSV or NPZ plays back to the trajectory the arm took while it was recorded."""

from __future__ import annotations

import errno
import os
import shutil

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.nodes import KinematicArmNode, read_commands
from mime_gui.session import Session, SetValue
from mime_gui.session.player import Player, PlayerError
from mime_gui.session.recorder import Recorder
from mime_gui.session.transport import Transport

DEMO = RESOURCES / "demo"
STEPS = [0.016, 0.031, 0.017, 0.05, 0.004, 0.1, 0.0166, 0.02, 0.033, 0.016]


@pytest.mark.parametrize("tau", [0.0, 0.05, 0.4])
def test_live_commands_follow_the_kinematic_arm_node(tau):
    session = Session()
    session.open(DEMO / "arm.urdf")
    name = next(iter(session.segments))
    session.apply(SetValue(f"chain.{name}.servo_time_constant", tau))
    art = session.segment(name).articulation
    node = KinematicArmNode(art, servo_time_constant=tau)
    state = node.initial_state(session.joint_positions(name))
    live = Transport(session)
    rng = np.random.default_rng(3)
    for i, dt in enumerate(STEPS):
        if i % 3 == 0:  # a slider moved
            u = rng.uniform(np.maximum(art.lower, -3), np.minimum(art.upper, 3))
            session.set_command(name, u)
        live.tick(dt)  # one step of the elapsed time
        state = node.advance(state, session.command(name), dt)
        assert np.allclose(session.joint_positions(name), state.joint_positions, rtol=0, atol=1e-12)
        assert np.allclose(session.segment(name).world_X_frame, state.frame_poses, rtol=0, atol=1e-12)
    lagging = not np.allclose(session.joint_positions(name)[:6], session.command(name)[:6], atol=1e-6)
    assert lagging == (tau > 0)


def drive_and_record(session, tmp_path, suffix):
    """Move the demo rig's commands while recording with uneven ticks; the states after each tick by the
    recording's sample index, and the saved file."""
    live = Transport(session)
    session.set_command("arm", {"joint_1": 0.8})  # the arm is still moving when recording starts
    live.tick(0.02)
    rec = live.start_recording()
    states = {0: {n: (session.joint_positions(n), session.segment(n).world_X_frame)
                  for n in session.segments}}
    rng = np.random.default_rng(7)
    for i, dt in enumerate(STEPS * 3):
        if i % 4 == 1:
            session.set_command("arm", {"joint_2": rng.uniform(-1.5, 1.5), "joint_6": rng.uniform(-9, 9)})
            session.set_command("motor", [rng.uniform(-20, 20)])
        live.tick(dt)
        states[rec.samples - 1] = {n: (session.joint_positions(n), session.segment(n).world_X_frame)
                                   for n in session.segments}
    assert live.stop_recording() is rec and live.recorder is None
    return rec, states, rec.save(tmp_path / f"take{suffix}")


@pytest.mark.parametrize("suffix", [".csv", ".npz"])
def test_a_saved_recording_plays_back_to_the_trajectory_the_arm_took(tmp_path, suffix):
    session = Session()
    session.open(DEMO / "demo.rig.json")
    rec, states, path = drive_and_record(session, tmp_path, suffix)
    assert rec.samples == 1 + int(sum(STEPS * 3) / rec.step + 1e-9)
    assert read_commands(path).joint_names == ("arm.joint_1", "arm.joint_2", "arm.joint_3", "arm.joint_4",
                                               "arm.joint_5", "arm.joint_6", "motor.shaft")
    player = Player.for_document(session.document, path)
    assert player.rows == rec.samples and player.dt == pytest.approx(rec.step, rel=1e-12)
    for row, by_segment in states.items():
        played = player.states(row)
        for name, (q, poses) in by_segment.items():
            assert np.allclose(played[name].joint_positions, q, rtol=0, atol=1e-12), (row, name)
            assert np.allclose(played[name].frame_poses, poses, rtol=0, atol=1e-12), (row, name)
    # the file holds every value as it was recorded
    in_memory = Player.for_document(session.document, rec.recorded())
    assert np.array_equal(in_memory.trajectory.frame_poses, player.trajectory.frame_poses)


def test_a_recording_of_a_urdf_names_joints_as_its_command_files_do(tmp_path):
    session = Session()
    session.open(DEMO / "arm.urdf")
    rec = Recorder(session)
    assert rec.names == ("joint_1", "joint_2", "joint_3", "joint_4", "joint_5", "joint_6")
    assert rec.samples == 1 and rec.duration == 0.0


def test_a_recording_is_written_only_as_csv_or_npz(tmp_path):
    session = Session()
    session.open(DEMO / "demo.rig.json")
    rec = Recorder(session)
    with pytest.raises(PlayerError) as err:
        rec.save(tmp_path / "take.txt")
    assert err.value.code == "player.out" and not (tmp_path / "take.txt").exists()
    # the refusal names the file and the endings to choose from
    assert err.value.file == str(tmp_path / "take.txt")
    assert ".csv" in err.value.message and ".npz" in err.value.message
    with pytest.raises(PlayerError) as err:
        rec.save(tmp_path / "no" / "take.csv")
    assert err.value.code == "player.io" and err.value.file == str(tmp_path / "no" / "take.csv")
    # the system's reason in words; the file is the refusal's place, not repeated inside it
    assert f"({os.strerror(errno.ENOENT)})" in err.value.message and str(tmp_path) not in err.value.message
    with pytest.raises(PlayerError) as err:
        Recorder(Session())
    assert err.value.code == "player.no-document"


def test_a_joint_name_a_csv_cannot_hold_is_refused_naming_the_joint_and_the_npz_ending(tmp_path):
    shutil.copytree(DEMO, tmp_path / "demo")  # the URDF with its meshes, one joint renamed with a comma
    urdf = tmp_path / "demo" / "arm.urdf"
    urdf.write_text(urdf.read_text(encoding="utf-8").replace('"joint_1"', '"joint,1"'), encoding="utf-8")
    session = Session()
    session.open(urdf)
    rec = Recorder(session)
    target = tmp_path / "take.csv"
    with pytest.raises(PlayerError) as err:
        rec.save(target)
    assert err.value.code == "player.io" and err.value.file == str(target) and not target.exists()
    message = err.value.message
    assert "'joint,1'" in message and "CSV" in message and ".npz" in message  # the joint and the fix
    # said once: the file is the refusal's place, not repeated inside it with the writer's own code
    assert str(target) not in message and "commands." not in message


FIXED_ONLY_URDF = """<robot name="post"><link name="base"/><link name="top"/>
  <joint name="weld" type="fixed"><parent link="base"/><child link="top"/><origin xyz="0 0 0.1"/></joint>
</robot>"""


@pytest.mark.parametrize("what", ["no segment", "a robot of fixed joints only"])
def test_a_rig_with_no_joint_to_command_has_nothing_to_record(tmp_path, what):
    # a command file of no joints is one no player reads: refused with its code, and nothing starts
    if what == "no segment":
        path = tmp_path / "empty.rig.json"
        path.write_text('{"format": "mime-rig", "version": 1, "name": "empty", "chain": []}')
    else:
        path = tmp_path / "post.urdf"
        path.write_text(FIXED_ONLY_URDF)
    session = Session()
    session.open(path)
    transport = Transport(session)
    with pytest.raises(PlayerError) as err:
        transport.start_recording()
    assert err.value.code == "player.record-nothing"
    assert err.value.message == ("the rig has no joint to command, so there is nothing to record; add a "
                                 "segment with a movable joint (a robot or a motor) first")
    assert transport.recording is None
    transport.tick(0.05)  # the clock goes on, recording nothing
    assert transport.recording is None and transport.stop_recording() is None
