"""``mime-gui play``: the written arrays, the summary, and one-line coded errors with exit status 2."""

from __future__ import annotations

import argparse
import io
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from node_helpers import DEMO, DEMO_URDF
from oracle import demo_poses, demo_tool0_angular_velocity, held, lagged
from plain_ids import plain_id

from mime_gui.cli import main
from mime_gui.multibody import read_urdf

WAVE = DEMO / "wave.csv"


def urdf_limits(path, names) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) of each named joint read from the URDF itself (±inf for a continuous joint)."""
    joints = {j.get("name"): j for j in ET.parse(path).getroot().findall("joint")}
    lower, upper = [], []
    for name in names:
        limit = joints[name].find("limit")
        bounded = joints[name].get("type") != "continuous"
        lower.append(float(limit.get("lower")) if bounded else -np.inf)
        upper.append(float(limit.get("upper")) if bounded else np.inf)
    return np.array(lower), np.array(upper)


def assert_tool0_follows_pinocchio(data, positions, dt, steps=(0, 7, 300, -1)) -> None:
    """tool0's written poses and angular velocities are Pinocchio's, at the expected joint positions
    ``positions (T + 1, 6)`` (the initial ones first) and their finite-difference rates."""
    tool0 = list(data["frame_names"]).index("tool0")
    for n in steps:
        n = n % (len(positions) - 1)
        q, rates = positions[n + 1], (positions[n + 1] - positions[n]) / dt
        np.testing.assert_allclose(data["frame_poses"][n, tool0], demo_poses(q)["stator"], atol=1e-9,
                                   err_msg=f"step {n}")
        np.testing.assert_allclose(data["frame_angular_velocities"][n, tool0],
                                   demo_tool0_angular_velocity(q, rates), atol=1e-9, err_msg=f"step {n}")


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
    # by hand: the file's samples (100 Hz: the step is their spacing) clamped to the URDF's limits, lagged
    samples = np.loadtxt(WAVE, delimiter=",", skiprows=2)
    lower, upper = urdf_limits(DEMO_URDF, art.joint_names)
    commands = np.clip(samples[:, 1:], lower, upper)
    expected = lagged(commands, samples[0, 1:], 0.01, 0.05)
    np.testing.assert_allclose(data["time"], 0.01 * np.arange(1, 502), atol=1e-12)
    np.testing.assert_allclose(data["joint_positions"], expected, atol=1e-9)
    assert_tool0_follows_pinocchio(data, np.vstack([samples[0, 1:], expected]), 0.01)
    total = int((commands != samples[:, 1:]).sum())
    assert total > 0 and f"clamped command values: {total} of {501 * 6}" in text


def test_a_file_starting_late_named_in_capitals_plays_from_its_first_time_with_the_lag_by_hand(tmp_path,
                                                                                              capsys):
    """Times from 2.5 s, uneven, resampled at --dt; ARM.URDF and CMD.CSV: the names' case does not matter."""
    shutil.copy(DEMO_URDF, tmp_path / "ARM.URDF")
    times = 2.5 + np.array([0.0, 0.03, 0.05, 0.1, 0.13, 0.2])
    values = np.zeros((len(times), 6))
    values[:, 0] = [0.1, 0.4, -0.2, 0.3, 0.0, 0.5]
    values[:, 2] = np.linspace(0.9, 0.4, len(times))
    rows = "\n".join(",".join(f"{v:.6f}" for v in (t, *row)) for t, row in zip(times, values, strict=True))
    (tmp_path / "CMD.CSV").write_text("time," + ",".join(f"joint_{k}" for k in range(1, 7)) + "\n" + rows)
    out = tmp_path / "out.npz"
    assert main(["play", str(tmp_path / "ARM.URDF"), "--commands", str(tmp_path / "CMD.CSV"), "--dt", "0.01",
                 "--servo-tau", "0.02", "--out", str(out)]) == 0, capsys.readouterr().err
    data = np.load(out)
    steps = 21  # 2.5 s … 2.7 s
    np.testing.assert_allclose(data["time"], 2.5 + 0.01 * np.arange(1, steps + 1), atol=1e-12)
    expected = lagged(held(times, values, 0.01, steps), values[0], 0.01, 0.02)
    np.testing.assert_allclose(data["joint_positions"], expected, atol=1e-12)
    assert_tool0_follows_pinocchio(data, np.vstack([values[0], expected]), 0.01, steps=(0, 4, 11, -1))


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
], ids=plain_id)
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


def test_a_bar_of_many_small_chunks_is_drawn_once_per_width_it_takes(tmp_path, monkeypatch):
    from mime_gui.cli import play as play_command

    monkeypatch.setattr(play_command, "CHUNK_STEPS", 7)  # 72 chunks of the 501 steps, on a 40-wide bar
    monkeypatch.setattr(play_command, "PROGRESS_STEPS", 100)
    args = argparse.Namespace(file=str(DEMO_URDF), commands=str(WAVE), dt=None, servo_tau=None,
                              out=str(tmp_path / "o.npz"), quiet=True)
    err = _Terminal()
    assert play_command.play(args, io.StringIO(), err) == 0
    frames = err.getvalue().split("\r")[1:]
    # each width 0 to 40 once: the chunks that leave the bar as wide as it was draw nothing
    assert [frame.count("#") for frame in frames] == list(range(41))
    assert frames[0] == f"  [{'.' * 40}] 7/501 steps"
    assert frames[-1] == f"  [{'#' * 40}] 501/501 steps\n"


def test_torques_print_the_first_twenty_excesses_and_count_the_rest(tmp_path, capsys):
    out = tmp_path / "o.npz"
    assert main(["play", str(DEMO_URDF), "--commands", str(WAVE), "--torques", "--out", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    with np.load(out) as data:
        excesses = data["limit_excesses"]
    assert len(excesses) > 20  # the wave asks joint_2 and joint_3 for more than their limits, often
    first = next(k for k, line in enumerate(lines) if line.startswith("  torques: "))
    assert lines[first].endswith(f"; {len(excesses)} limit excess(es)")
    shown = lines[first + 1:first + 21]
    assert all(line.startswith("    warning[torque.") for line in shown)
    assert lines[first + 21] == f"    … and {len(excesses) - 20} more (limit_excesses in the output)"
    assert lines[first + 22].startswith("  demand per joint")


def _kinematic_demo(tmp_path, margin=None):
    """The demo rig with both segments kinematic (no masses asked for), and a clearance margin if given."""
    import json

    data = json.loads((DEMO / "demo.rig.json").read_text())
    data["chain"][0].update(kind="Arm.Kinematic", description=str(DEMO_URDF))
    for key in ("armature", "actuators"):
        data["chain"][0].pop(key)
    data["chain"][1].update(kind="Motor.Kinematic")
    data["chain"][1].pop("inertia")
    if margin is not None:
        data["clearance"].update(margin={"value": margin, "unit": "m"}, reason="a test's wide margin")
    path = tmp_path / "kinematic.rig.json"
    path.write_text(json.dumps(data))
    return path


def test_torques_of_a_rig_without_a_dynamic_segment_say_so(tmp_path, capsys):
    rig, out = _kinematic_demo(tmp_path), tmp_path / "o.npz"
    assert main(["play", str(rig), "--commands", str(DEMO / "chain.csv"), "--dt", "0.04", "--torques",
                 "--out", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-2:] == ["  torques: no dynamic segment", f"  wrote {out}"]
    assert not any("demand per joint" in line for line in lines)


def test_clearance_prints_the_first_twenty_findings_and_counts_the_rest(tmp_path, capsys):
    """A margin of 2 m: every moving pair of the demo comes within it, more pairs than are printed."""
    rig, out = _kinematic_demo(tmp_path, margin=2.0), tmp_path / "o.npz"
    assert main(["play", str(rig), "--commands", str(DEMO / "chain.csv"), "--dt", "0.04", "--clearance",
                 "--out", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    with np.load(out) as data:
        found, pairs = data["clearance_findings"], data["clearance_pairs"]
    assert len(found) == len(pairs) > 20
    first = next(k for k, line in enumerate(lines) if line.startswith("  clearance: "))
    assert lines[first].endswith(f"; margin 2000 mm; {len(found)} finding(s)")
    assert lines[first + 1].startswith("    smallest distance ")
    shown = lines[first + 2:first + 22]
    assert [line.split("] ", 1)[0] for line in shown] == ["    error[clearance.margin"] * 20
    assert [line.split(": ", 1)[1] for line in shown] == [str(m) for m in found[:20, 2]]
    assert lines[first + 22] == f"    … and {len(found) - 20} more (clearance_findings in the output)"
