"""``mime-gui play``: the written arrays, the summary, and one-line coded errors with exit status 2."""

from __future__ import annotations

import argparse
import io
import subprocess
import sys

import numpy as np
import pytest
from node_helpers import DEMO, DEMO_URDF

from mime_gui.cli import main
from mime_gui.multibody import read_urdf
from mime_gui.nodes import KinematicArmNode, read_commands

WAVE = DEMO / "wave.csv"


def test_play_writes_the_trajectory_and_a_summary(tmp_path, capsys):
    out = tmp_path / "out.npz"
    args = ["play", str(DEMO_URDF), "--commands", str(WAVE), "--servo-tau", "0.05", "--out", str(out)]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "501 x 0.01 s" in text and "clamped command values:" in text and "wall time:" in text
    data = np.load(out)
    assert {"time", "joint_names", "joint_positions", "frame_names", "frame_poses",
            "frame_angular_velocities"} <= set(data.files)
    art = read_urdf(DEMO_URDF).compile()
    assert tuple(data["joint_names"]) == art.joint_names and tuple(data["frame_names"]) == art.frame_names
    node = KinematicArmNode(art, servo_time_constant=0.05)
    sched = read_commands(WAVE).for_node(node)
    expected = node.play(sched.commands, sched.dt, sched.initial_positions)
    np.testing.assert_allclose(data["time"], 0.01 * np.arange(1, 502), atol=1e-12)
    np.testing.assert_allclose(data["joint_positions"], expected.joint_positions, atol=1e-12)
    np.testing.assert_allclose(data["frame_poses"], expected.frame_poses, atol=1e-12)
    np.testing.assert_allclose(data["frame_angular_velocities"], expected.frame_angular_velocities, atol=1e-9)
    total = int(expected.clamped.sum())
    assert total > 0 and f"clamped command values: {total} of {501 * 6}" in text


def test_play_with_dt_on_an_npz(tmp_path, capsys):
    out = tmp_path / "o.npz"
    cmd = DEMO / "pick.npz"
    assert main(["play", str(DEMO_URDF), "--commands", str(cmd), "--dt", "0.05", "--out", str(out)]) == 0
    data = np.load(out)
    assert data["joint_positions"].shape[1] == 6 and float(data["dt"]) == 0.05
    np.testing.assert_array_equal(data["joint_positions"][:, 5], 0.0)  # joint_6 is not in the file


@pytest.mark.parametrize("content, extra, code, where", [
    ("time,joint_1\n0,0\n0.1,oops\n", [], "commands.format", "cmd.csv:3: "),
    ("time,joint_1,wrist\n0,0,0\n", [], "commands.unknown-joint", "cmd.csv:1: "),
    ("time,joint_1\n0,0\n0.1,1\n", ["--dt", "-1"], "play.dt", ""),
    ("time,joint_1\n0,0\n0.1,1\n", ["--servo-tau", "nan"], "play.servo-tau", ""),
])
def test_errors_are_one_line_and_exit_2(tmp_path, capsys, content, extra, code, where):
    cmd = tmp_path / "cmd.csv"
    cmd.write_text(content)
    status = main(["play", str(DEMO_URDF), "--commands", str(cmd), "--out", str(tmp_path / "o.npz"), *extra])
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1 and err.startswith(f"error[{code}] ") and where in err
    assert not (tmp_path / "o.npz").exists()


def test_refused_inputs_and_outputs(tmp_path, capsys):
    cmd = tmp_path / "cmd.csv"
    cmd.write_text("time,joint_1\n0,0\n")
    args = ["--commands", str(cmd), "--dt", "0.1"]
    assert main(["play", str(tmp_path / "none.urdf"), *args, "--out", str(tmp_path / "o.npz")]) == 2
    assert capsys.readouterr().err.startswith("error[urdf.io] ")
    assert main(["play", str(cmd), *args, "--out", str(tmp_path / "o.npz")]) == 2
    assert capsys.readouterr().err.startswith("error[play.format] ")
    assert main(["play", str(DEMO_URDF), *args, "--out", str(tmp_path / "o.txt")]) == 2
    assert capsys.readouterr().err.startswith("error[play.out] ")
    assert main(["play", str(DEMO_URDF), *args, "--out", str(tmp_path / "no" / "dir" / "o.npz")]) == 2
    assert capsys.readouterr().err.startswith("error[play.io] ")


def test_the_command_line_in_a_subprocess_imports_no_gui(tmp_path):
    out = tmp_path / "o.npz"
    code = ("import sys; from mime_gui.cli import main; status = main(sys.argv[1:]); "
            "gui = sorted(m for m in sys.modules "
            "             if m.split('.')[0] in {'PySide6', 'pyvista', 'pyvistaqt', 'vtk'}); "
            "print('GUI', gui); sys.exit(status)")
    cmd = DEMO / "reach_deg.csv"
    done = subprocess.run([sys.executable, "-c", code, "play", str(DEMO_URDF), "--commands", str(cmd),
                           "--out", str(out)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "GUI []" in done.stdout and "joint_5: 9" in done.stdout
    bad = subprocess.run([sys.executable, "-m", "mime_gui", "play", str(DEMO_URDF), "--commands",
                          str(tmp_path / "missing.csv"), "--out", str(out)], capture_output=True, text=True,
                         timeout=60)
    assert bad.returncode == 2 and bad.stderr.startswith("error[commands.io] ")
    assert "Traceback" not in bad.stderr


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_long_runs_show_a_progress_bar_on_a_terminal(tmp_path, monkeypatch):
    from mime_gui.cli import play as play_command

    monkeypatch.setattr(play_command, "CHUNK_STEPS", 100)
    args = argparse.Namespace(file=str(DEMO_URDF), commands=str(WAVE), dt=None, servo_tau=None,
                              out=str(tmp_path / "o.npz"), quiet=True)
    out, err = io.StringIO(), _Terminal()
    monkeypatch.setattr(play_command, "PROGRESS_STEPS", 10**9)
    assert play_command.play(args, out, err) == 0
    assert err.getvalue() == ""  # a short run: no bar
    monkeypatch.setattr(play_command, "PROGRESS_STEPS", 100)
    assert play_command.play(args, out, err) == 0
    bar = err.getvalue()
    assert bar.count("\r") == 6 and bar.endswith("501/501 steps\n") and out.getvalue() == ""
    err = io.StringIO()  # not a terminal: no bar however long
    assert play_command.play(args, out, err) == 0 and err.getvalue() == ""
