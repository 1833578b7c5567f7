"""Recorded command files: reading, units, zero-order hold, and every refusal with its code and line."""

from __future__ import annotations

import math

import numpy as np
import pytest
from node_helpers import DEMO
from plain_ids import plain_id

from mime_gui.nodes import CommandFileError, KinematicArmNode, read_commands


def write(tmp_path, text, name="cmd.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def refused(path) -> CommandFileError:
    with pytest.raises(CommandFileError) as info:
        read_commands(path)
    return info.value


def test_csv_with_comments_subset_and_degrees(tmp_path, demo_art):
    path = write(tmp_path, "# a comment\n\ntime, joint_2[deg] ,joint_4\n0.0,90,0.5\n0.5,-45,0.25\n1.0,0,0\n")
    rec = read_commands(path)
    assert rec.joint_names == ("joint_2", "joint_4") and rec.units == ("deg", "")
    np.testing.assert_allclose(rec.joint_positions[:, 0], [math.pi / 2, -math.pi / 4, 0.0])
    np.testing.assert_array_equal(rec.joint_positions[:, 1], [0.5, 0.25, 0.0])
    np.testing.assert_array_equal(rec.lines, [4, 5, 6])
    assert rec.header_line == 3
    node = KinematicArmNode(demo_art)
    sched = rec.for_node(node, dt=0.25)
    assert sched.steps == 5 and sched.dt == 0.25 and sched.start == 0.0
    # joints the file does not name stay at their initial value; the named ones start at their first sample
    np.testing.assert_array_equal(sched.commands[:, [0, 2, 4, 5]], 0.0)
    np.testing.assert_allclose(sched.initial_positions, [0, math.pi / 2, 0, 0.5, 0, 0])


def test_zero_order_hold_picks_the_latest_sample(tmp_path):
    rec = read_commands(write(tmp_path, "time,joint_1\n0.0,1\n0.03,2\n0.1,3\n0.3,4\n0.31,5\n"))
    grid, values, dt = rec.resample(0.1)
    np.testing.assert_allclose(grid, [0.0, 0.1, 0.2, 0.3])
    np.testing.assert_array_equal(values[:, 0], [1, 3, 3, 4])  # 0.1 exactly hits a sample, 0.03 is skipped
    # the default step is the median spacing
    assert rec.sample_spacing() == pytest.approx(np.median([0.03, 0.07, 0.2, 0.01]))
    g2, v2, dt2 = read_commands(write(tmp_path, "time,joint_1\n1.0,1\n1.01,2\n1.02,3\n", "b.csv")).resample()
    assert dt2 == pytest.approx(0.01) and len(g2) == 3 and v2[-1, 0] == 3  # 1.02 despite rounding


def test_npz_round_trip(tmp_path, demo_art):
    path = tmp_path / "c.npz"
    t = np.arange(5) * 0.1
    q = np.arange(10.0).reshape(5, 2)
    np.savez(path, time=t, joint_positions=q, joint_names=np.array(["joint_3", "joint_1[deg]"]))
    rec = read_commands(path)
    assert rec.joint_names == ("joint_3", "joint_1")
    np.testing.assert_allclose(rec.joint_positions, q * [1, math.pi / 180])
    sched = rec.for_node(KinematicArmNode(demo_art))
    assert sched.steps == 5
    np.testing.assert_allclose(sched.commands[:, 2], q[:, 0])


def test_demo_files_read_and_drive_the_demo_arm(demo_art):
    node = KinematicArmNode(demo_art)
    for name, joints in [("wave.csv", 6), ("pick.npz", 5), ("reach_deg.csv", 4)]:
        rec = read_commands(DEMO / name)
        assert len(rec.joint_names) == joints
        sched = rec.for_node(node)
        played = node.play(sched.commands, sched.dt, sched.initial_positions)
        assert len(played) == sched.steps > 20
    assert read_commands(DEMO / "reach_deg.csv").units == ("deg",) * 4


@pytest.mark.parametrize("text, code, line", [
    ("time,joint_1\n0,0\n0.1,1,2\n", "commands.columns", 3),
    ("time,joint_1,joint_1\n0,0,0\n", "commands.columns", 1),
    ("t,joint_1\n0,0\n", "commands.columns", 1),
    ("# only time\ntime\n0\n", "commands.columns", 2),
    ("time,joint_1\n0,0\n0.1,nan\n", "commands.non-finite", 3),
    ("time,joint_1\n0,inf\n", "commands.non-finite", 2),
    ("time,joint_1\n0,0\n0.2,1\n0.2,2\n", "commands.time-order", 4),
    ("time,joint_1\n0,0\n0.2,1\n\n# gap\n0.1,2\n", "commands.time-order", 6),
    ("time,joint_1\n0,zero\n", "commands.format", 2),
    ("time,joint_1[grad]\n0,0\n", "commands.units", 1),
    ("time,joint_1\n", "commands.empty", 1),
    ("# nothing\n\n", "commands.empty", 0),
    ("", "commands.empty", 0),
], ids=plain_id)
def test_csv_refusals_carry_code_and_line(tmp_path, text, code, line):
    path = write(tmp_path, text)
    err = refused(path)
    assert (err.code, err.line, err.file) == (code, line, str(path))
    where = f"{path}:{line}" if line else f"{path}"
    assert err.one_line().startswith(f"error[{code}] {where}: ")


def test_unknown_and_follower_joints_are_refused_at_the_header(tmp_path, demo_art, mimic_art):
    rec = read_commands(write(tmp_path, "# header on line 2\ntime,joint_1,elbow\n0,0,0\n"))
    with pytest.raises(CommandFileError) as info:
        rec.for_node(KinematicArmNode(demo_art))
    assert info.value.code == "commands.unknown-joint" and info.value.line == 2
    assert "'elbow'" in str(info.value) and "column 3" in str(info.value) and "joint_6" in str(info.value)
    rec = read_commands(write(tmp_path, "time,j3\n0,0\n", "m.csv"))
    with pytest.raises(CommandFileError, match="follows 'j1'") as info:
        rec.for_node(KinematicArmNode(mimic_art))
    assert info.value.code == "commands.unknown-joint"
    rec = read_commands(write(tmp_path, "time,j2[deg]\n0,0\n", "p.csv"))
    with pytest.raises(CommandFileError, match="prismatic") as info:
        rec.for_node(KinematicArmNode(mimic_art))
    assert info.value.code == "commands.units"


def test_step_refusals(tmp_path):
    rec = read_commands(write(tmp_path, "time,joint_1\n0,0\n"))
    with pytest.raises(CommandFileError) as info:
        rec.resample()
    assert info.value.code == "commands.dt"
    assert len(rec.resample(0.1)[0]) == 1
    rec = read_commands(write(tmp_path, "time,joint_1\n0,0\n100,1\n", "long.csv"))
    with pytest.raises(CommandFileError, match="steps") as info:
        rec.resample(1e-6)
    assert info.value.code == "commands.dt"
    with pytest.raises(CommandFileError) as info:
        rec.resample(-1.0)
    assert info.value.code == "commands.dt"


def test_io_and_format_refusals(tmp_path):
    assert refused(tmp_path / "missing.csv").code == "commands.io"
    (tmp_path / "dir.csv").mkdir()
    assert refused(tmp_path / "dir.csv").code == "file.not-regular"
    assert refused(write(tmp_path, "x", "cmd.txt")).code == "commands.format"
    bad = tmp_path / "bin.csv"
    bad.write_bytes(b"time,joint_1\n0,\xff\n")
    assert refused(bad).code == "commands.format"
    assert refused(write(tmp_path, "not a zip", "c.npz")).code == "commands.format"


def npz(tmp_path, **arrays):
    path = tmp_path / "c.npz"
    np.savez(path, **arrays)
    return path


J1 = ["joint_1"]


@pytest.mark.parametrize("arrays, code, text", [
    ({"time": [0.0, 0.1], "joint_positions": [[0.0], [1.0]]}, "commands.format", "joint_names"),
    ({"time": [0.0, 0.1], "joint_positions": [[0.0], [1.0]], "joint_names": [1]},
     "commands.format", "strings"),
    ({"time": [0.0, 0.1], "joint_positions": [[0.0, 1.0]], "joint_names": J1}, "commands.columns", "(2, 1)"),
    ({"time": [], "joint_positions": np.zeros((0, 1)), "joint_names": J1}, "commands.empty", "no samples"),
    ({"time": [0.0, 0.1, 0.2], "joint_positions": [[0.0], [np.nan], [0.0]], "joint_names": J1},
     "commands.non-finite", "row 1: joint_1"),
    ({"time": [0.0, 0.2, 0.1], "joint_positions": [[0.0], [1.0], [0.0]], "joint_names": J1},
     "commands.time-order", "row 2"),
    ({"time": [0.0], "joint_positions": [[0.0, 0.0]], "joint_names": ["joint_1", "joint_1"]},
     "commands.columns", "twice"),
])
def test_npz_refusals(tmp_path, arrays, code, text):
    err = refused(npz(tmp_path, **{k: np.asarray(v) for k, v in arrays.items()}))
    assert err.code == code and text in str(err), str(err)


def test_object_arrays_are_not_unpickled(tmp_path):
    path = npz(tmp_path, time=np.array([0.0]), joint_positions=np.zeros((1, 1)),
               joint_names=np.array(["joint_1"], dtype=object))
    assert refused(path).code == "commands.format"
