"""The player without Qt: the same arrays as ``mime-gui play`` bit for bit, seeking, speed, looping and the
wall clock, and the refusals."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from robot_data import robot_urdf

from mime_gui import RESOURCES
from mime_gui.cli.play import play as cli_play
from mime_gui.nodes import read_commands
from mime_gui.rig import Box, Part
from mime_gui.session import AddItem, Session, SetValue
from mime_gui.session import player as player_module
from mime_gui.session.player import Player, PlayerError

DEMO = RESOURCES / "demo"


class FakeClock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


def cli_arrays(tmp_path, file, commands, dt=None, tau=None) -> dict:
    out = tmp_path / "cli.npz"
    args = argparse.Namespace(file=str(file), commands=str(commands), dt=dt, servo_tau=tau, out=str(out),
                              quiet=True)
    assert cli_play(args) == 0
    with np.load(out) as data:
        return {k: data[k] for k in data.files}


def assert_same_arrays(ours: dict, theirs: dict) -> None:
    assert sorted(ours) == sorted(theirs)
    for key, value in theirs.items():
        mine = np.asarray(ours[key])
        assert mine.dtype == value.dtype, key
        assert mine.shape == value.shape, key
        assert np.array_equal(mine, value), key


@pytest.mark.parametrize("dt, tau", [(None, None), (0.005, 0.12), (0.03, 0.0)])
def test_the_demo_rig_plays_the_whole_chain_file_as_mime_gui_play(tmp_path, dt, tau):
    session = Session()
    session.open(DEMO / "demo.rig.json")
    player = Player.for_document(session.document, DEMO / "chain.csv", dt, servo_time_constant=tau)
    theirs = cli_arrays(tmp_path, DEMO / "demo.rig.json", DEMO / "chain.csv", dt, tau)
    assert_same_arrays(player.arrays(), theirs)
    assert player.command_names == tuple(theirs["command_names"])
    saved = player.save_npz(tmp_path / "gui.npz")
    with np.load(saved) as data:
        assert_same_arrays({k: data[k] for k in data.files}, theirs)


@pytest.mark.parametrize("commands, tau", [("wave.csv", None), ("pick.npz", 0.08), ("reach_deg.csv", 0.3)])
def test_a_urdf_plays_as_mime_gui_play_with_the_same_names(tmp_path, commands, tau):
    session = Session()
    session.open(DEMO / "arm.urdf")
    name = next(iter(session.segments))
    if tau is not None:  # the option of the command line is the segment's servo time constant here
        session.apply(SetValue(f"chain.{name}.servo_time_constant", tau))
    player = Player.for_document(session.document, DEMO / commands)
    theirs = cli_arrays(tmp_path, DEMO / "arm.urdf", DEMO / commands, None, tau)
    assert_same_arrays(player.arrays(), theirs)
    assert "joint_1" in player.joint_names  # bare names, as the command line writes for a URDF


def test_pr2_plays_as_mime_gui_play(tmp_path):
    path = robot_urdf("pr2_description/urdf/pr2.urdf")
    session = Session()
    session.open(path)
    seg = next(iter(session.segments))
    names = session.command_names(seg)[:12]
    t = np.arange(400) * 0.01
    q = 0.4 * np.sin(t[:, None] * (1 + np.arange(len(names))))
    commands = tmp_path / "pr2.npz"
    np.savez(commands, time=t, joint_positions=q, joint_names=np.array(names))
    player = Player.for_document(session.document, commands, servo_time_constant=0.05)
    assert_same_arrays(player.arrays(), cli_arrays(tmp_path, path, commands, None, 0.05))


def test_commands_of_no_joint_on_a_robot_without_joints_play_with_its_names_as_text(tmp_path):
    from mime_gui.nodes.commands import RecordedCommands

    urdf = tmp_path / "block.urdf"
    urdf.write_text('<robot name="block">\n<link name="base"/>\n</robot>\n')  # one link, no joint
    session = Session()
    session.open(urdf)
    # no command file or recording holds no joint (commands.columns, player.record-nothing): made in Python
    time = np.array([0.0, 0.05, 0.1])
    recorded = RecordedCommands("hand-made", time, (), np.zeros((3, 0)), (), np.zeros(3, dtype=int))
    arrays = Player.for_document(session.document, recorded).arrays()
    # no joint, but its names are still text, as the frame names and a reader of the .npz expect
    assert arrays["joint_names"].shape == (0,) and arrays["joint_names"].dtype.kind == "U"
    assert arrays["joint_positions"].shape == (len(arrays["time"]), 0)
    assert list(arrays["frame_names"]) == ["base"]


def test_segments_slice_the_stacked_arrays():
    session = Session()
    session.open(DEMO / "demo.rig.json")
    player = Player.for_document(session.document, DEMO / "chain.csv")
    n = 57
    states, commands = player.states(n), player.commands(n)
    assert list(states) == ["arm", "motor"]
    built = session.document.built
    for name, state in states.items():
        art = built.segments[name].articulation
        j0 = player.joint_names.index(f"{name}.{art.joint_names[0]}")
        f0 = player.frame_names.index(f"{name}.{art.frame_names[0]}")
        assert np.array_equal(state.joint_positions, player.trajectory.joint_positions[n, j0:j0 + art.nq])
        assert np.array_equal(state.frame_poses, player.trajectory.frame_poses[n, f0:f0 + art.nframes])
        assert np.array_equal(state.frame_angular_velocities,
                              player.trajectory.frame_angular_velocities[n, f0:f0 + art.nframes])
        c0 = player.command_names.index(f"{name}.{session.command_names(name)[0]}")
        k = len(session.command_names(name))
        assert np.array_equal(commands[name], player.schedule.commands[n, c0:c0 + k])


def test_a_segment_is_found_by_name_and_an_unknown_one_is_refused_listing_the_segments():
    session = Session()
    session.open(DEMO / "demo.rig.json")
    player = Player.for_document(session.document, DEMO / "chain.csv")
    arm = session.document.built.segments["arm"].articulation
    motor = player.segment("motor")
    assert motor.name == "motor"
    assert (motor.joints.start, motor.joints.stop) == (arm.nq, arm.nq + 1)  # after the arm's six
    first = session.segment("motor").articulation.frame_names[0]
    assert player.frame_names[motor.frames.start] == f"motor.{first}"
    assert player.segment("arm").joints == slice(0, arm.nq)
    with pytest.raises(KeyError) as err:
        player.segment("gripper")
    assert "no segment 'gripper' in this playback; segments: arm, motor" in str(err.value)


def test_play_while_playing_keeps_the_pace_and_toggle_plays_or_pauses():
    session = Session()
    session.open(DEMO / "demo.rig.json")
    clock = FakeClock()
    player = Player.for_document(session.document, DEMO / "chain.csv", now=clock)
    player.toggle()
    assert player.playing
    clock.t += 0.2
    player.play()  # already playing: the wall clock still counts from the first play
    clock.t += 0.2
    assert player.update() == 20  # 0.4 s / 0.02 s
    clock.t += 0.1
    player.toggle()  # pauses where the wall clock has got
    assert not player.playing and player.row == 25
    clock.t += 1.0
    assert player.update() == 25


def test_seek_holds_the_playhead_within_the_trajectory():
    session = Session()
    session.open(DEMO / "demo.rig.json")
    player = Player.for_document(session.document, DEMO / "chain.csv")
    assert player.rows == 201 and player.dt == pytest.approx(0.02)
    assert player.seek(150) == 150
    assert player.seek(-3) == 0
    assert player.seek(10_000) == 200
    assert player.row_at(0.0) == 0
    assert player.row_at(0.02 * 7) == 7  # the start of row 7's interval, in spite of rounding
    assert player.row_at(0.02 * 7 - 1e-6) == 6
    assert player.row_at(1e9) == 200


def _played_half_a_second() -> tuple[Player, FakeClock]:
    """The demo's commands (rows of 0.02 s) played for 0.5 s of a fake wall clock: at row 25."""
    session = Session()
    session.open(DEMO / "demo.rig.json")
    clock = FakeClock()
    player = Player.for_document(session.document, DEMO / "chain.csv", now=clock)
    player.play()
    clock.t += 0.5
    assert player.update() == 25  # 0.5 s / 0.02 s
    return player, clock


def test_a_seek_while_playing_plays_on_from_the_row_sought():
    player, clock = _played_half_a_second()
    assert player.seek(100) == 100 and player.playing
    clock.t += 0.2  # 10 rows of 0.02 s on from row 100, not from where the playhead was before
    assert player.update() == 110


def test_the_wall_clock_sets_the_row_at_any_speed_and_skipped_rows_are_counted():
    player, clock = _played_half_a_second()
    assert (player.shown, player.dropped) == (1, 24)
    player.set_rate(10.0)
    clock.t += 0.1  # 1 s of trajectory
    assert player.update() == 75
    assert (player.shown, player.dropped) == (2, 24 + 49)
    player.set_rate(0.1)
    clock.t += 0.02 * 10 - 1e-9  # just under one row at 0.1×
    assert player.update() == 75
    clock.t += 2e-9
    assert player.update() == 76
    player.pause()
    clock.t += 100.0
    assert player.update() == 76 and not player.playing


def test_the_end_stops_or_loops():
    session = Session()
    session.open(DEMO / "demo.rig.json")
    clock = FakeClock()
    player = Player.for_document(session.document, DEMO / "chain.csv", now=clock)
    player.seek(190)
    player.play()
    clock.t += 1.0
    assert player.update() == 200 and not player.playing
    player.play()  # from the last row: again from the start
    assert player.row == 0 and player.playing
    player.loop = True
    clock.t += player.duration + 0.1  # one whole turn and 0.1 s
    assert player.update() == 5 and player.playing
    assert player.shown == 2 and player.dropped == 9 + 205  # a whole turn and 5 rows on, one shown


@pytest.mark.parametrize("rate", [0.0999, 10.01, float("nan"), -1.0])
def test_a_speed_outside_a_tenth_to_ten_is_refused(rate):
    session = Session()
    session.open(DEMO / "demo.rig.json")
    player = Player.for_document(session.document, DEMO / "chain.csv")
    with pytest.raises(PlayerError) as err:
        player.set_rate(rate)
    assert err.value.code == "player.rate" and player.rate == 1.0
    player.set_rate(0.1)
    player.set_rate(10.0)
    assert player.rate == 10.0


def test_a_rig_that_breaks_rules_or_no_document_is_refused():
    session = Session()
    with pytest.raises(PlayerError) as err:
        Player.for_document(session.document, DEMO / "chain.csv")
    assert err.value.code == "player.no-document"
    session.open(DEMO / "demo.rig.json")
    session.apply(AddItem("parts", "lost", Part(Box((0.01, 0.01, 0.01)), material="aluminium",
                                                mount="arm.no_such_frame")))
    assert session.findings
    with pytest.raises(PlayerError) as err:
        Player.for_document(session.document, DEMO / "chain.csv")
    assert err.value.code == "player.rig-invalid" and session.findings[0].code in err.value.message


def test_a_trajectory_too_large_to_hold_is_refused_before_it_is_played(monkeypatch):
    session = Session()
    session.open(DEMO / "demo.rig.json")
    per_step = sum(s.articulation.nq + 19 * s.articulation.nframes
                   for s in session.document.built.segments.values()) * 8
    monkeypatch.setattr(player_module, "MAX_BYTES", per_step * 201)
    assert Player.for_document(session.document, DEMO / "chain.csv").rows == 201
    monkeypatch.setattr(player_module, "MAX_BYTES", per_step * 201 - 1)
    with pytest.raises(PlayerError) as err:
        Player.for_document(session.document, DEMO / "chain.csv")
    assert err.value.code == "player.too-large"


@pytest.mark.parametrize("column", ["motor.shaft", "arm.joint_6"], ids=["motor", "carrier"])
def test_commands_that_overflow_are_refused_with_the_step(tmp_path, column):
    # the arm carries the motor: its rates' overflow reached the motor as an uncoded error before
    session = Session()
    session.open(DEMO / "demo.rig.json")
    path = tmp_path / "huge.csv"
    path.write_text(f"time,{column}\n0,0\n0.01,1e308\n0.02,-1e308\n")
    with pytest.raises(PlayerError) as err:
        Player.for_document(session.document, path)
    assert err.value.code == "player.non-finite" and "step 1 " in err.value.message


def test_the_trajectory_is_written_only_as_npz(tmp_path):
    session = Session()
    session.open(DEMO / "demo.rig.json")
    player = Player.for_document(session.document, read_commands(DEMO / "chain.csv"))
    with pytest.raises(PlayerError) as err:
        player.save_npz(tmp_path / "out.csv")
    assert err.value.code == "player.out" and not (tmp_path / "out.csv").exists()
    with pytest.raises(PlayerError) as err:
        player.save_npz(tmp_path / "missing" / "out.npz")
    assert err.value.code == "player.io"


def test_the_player_recorder_and_transport_load_no_qt_or_vtk():
    probe = ("import sys, mime_gui.session.player, mime_gui.session.recorder, mime_gui.session.transport; "
             "print(sorted(n for n in sys.modules if n.split('.')[0] in "
             "('PySide6', 'shiboken6', 'pyvista', 'pyvistaqt', 'vtk', 'vtkmodules', 'pyqtgraph', 'qtpy')))")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
