"""Small contracts of the command line, pinned: the desktop app is asked for a 1400x900 window unless
``--size`` says otherwise, ``sweep`` plays a variant whose output is exactly at the play limit and refuses
one a byte over it, ``trajectory --fit`` says so in the command file's comment line, and ``trajectory``
prints a rig file it cannot load on the stream it is given."""

from __future__ import annotations

import argparse
import contextlib
import io

import pytest

from mime_gui import RESOURCES
from mime_gui.cli import main
from mime_gui.rig import Apparatus, Keyframe, Motor, Trajectory, load, save

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"


def _cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(a) for a in argv])
    return status, out.getvalue(), err.getvalue()


# -- the desktop app: its window size ------------------------------------------------------------------------

@pytest.mark.parametrize("argv, size", [([], "1400x900"), (["--size", "640x480"], "640x480"),
                                        (["--screenshot", "shot.png"], "1400x900")],
                         ids=["no-options", "size-given", "screenshot-alone"])
def test_the_app_is_asked_for_a_1400x900_window_unless_a_size_is_given(monkeypatch, argv, size):
    import mime_gui.app.main as app_main

    calls = []
    monkeypatch.setattr(app_main, "run_app", lambda **kwargs: calls.append(kwargs) or 0)
    assert main(argv) == 0
    assert [call["size"] for call in calls] == [size]


# -- sweep: one variant's playback against the play limit ---------------------------------------------------

# a lone kinematic motor: one joint (motor.shaft) and two frames (motor.stator, motor.rotor), so a step of
# its playback holds 8 bytes for each of 1 time + 1 joint + 19 x 2 frame values (pose 16, rates 3) = 320
# bytes; the samples at 1.0, 1.25 and 1.5 s at a step of 0.25 s make the 3 steps t0 + n dt <= 1.5 s (n = 0,
# 1, 2), 960 bytes. A limit of 960 / 2**20 MB is exactly 960 bytes.
STEP_BYTES = 8 * (1 + 1 + 19 * 2)
OUTPUT_BYTES = 3 * STEP_BYTES


def _lone_motor_sweep(tmp_path, monkeypatch, limit_bytes: int) -> tuple[int, str, str]:
    rig = save(Apparatus("lone", chain={"motor": Motor.Kinematic(axis=(0.0, 0.0, 1.0))}),
               tmp_path / "lone.rig.json")
    commands = tmp_path / "cmd.csv"
    commands.write_text("time,motor.shaft\n1.0,0\n1.25,0.5\n1.5,1\n", encoding="utf-8")
    monkeypatch.setenv("MIME_GUI_MAX_PLAY_MB", repr(limit_bytes / 2**20))
    return _cli("sweep", rig, "--vary", "chain.motor.servo_time_constant=0,0.1", "--commands", commands,
                "--dt", "0.25", "--out", tmp_path / "table.csv", "--workers", "1", "--quiet")


def test_sweep_plays_variants_whose_output_is_exactly_at_the_play_limit(tmp_path, monkeypatch):
    assert OUTPUT_BYTES == 960
    status, stdout, stderr = _lone_motor_sweep(tmp_path, monkeypatch, OUTPUT_BYTES)
    assert (status, stdout, stderr) == (0, "", "")
    rows = [line for line in (tmp_path / "table.csv").read_text(encoding="utf-8").splitlines()
            if not line.startswith("#")]
    assert [row.split(",")[:3] for row in rows] == [
        ["variant", "chain.motor.servo_time_constant", "findings"], ["0", "0.0", "0"], ["1", "0.1", "0"]]


def test_sweep_refuses_variants_whose_output_is_one_byte_over_the_play_limit(tmp_path, monkeypatch):
    status, stdout, stderr = _lone_motor_sweep(tmp_path, monkeypatch, OUTPUT_BYTES - 1)
    assert (status, stdout) == (2, "")
    assert stderr.startswith(f"error[sweep.too-large] {tmp_path / 'cmd.csv'}: playing one variant takes "
                             "about 960 bytes (3 steps), more than the 959 bytes limit")
    assert stderr.count("\n") == 1
    assert not (tmp_path / "table.csv").exists()


# -- trajectory: the comment line of the written file -----------------------------------------------------

@pytest.mark.parametrize("fit, said", [(True, " fitted to its limits"), (False, "")],
                         ids=["fit", "as-authored"])
def test_trajectory_comment_says_whether_the_timeline_was_fitted_to_the_limits(tmp_path, fit, said):
    rig = load(DEMO_RIG)
    rig.name = "Bench 2"
    rig.trajectories["Slow Sweep"] = Trajectory({"arm": [Keyframe(3.0, pose="over the sample",
                                                                  interpolation="quintic")]})
    path = save(rig, tmp_path / "r.rig.json")
    out = tmp_path / "t.csv"
    status, stdout, stderr = _cli("trajectory", path, "Slow Sweep", "--dt", "0.02", "--out", out,
                                  *(["--fit"] if fit else []))
    assert (status, stderr) == (0, ""), stdout
    first = out.read_text(encoding="utf-8").splitlines()[0]
    assert first == f"# trajectory 'Slow Sweep' of rig 'Bench 2'{said}: every 0.02 s (radians, metres)"


# -- trajectory: a rig file it cannot load ---------------------------------------------------------------

def test_trajectory_prints_a_rig_file_it_cannot_read_on_the_stream_it_is_given(tmp_path, capsys):
    from mime_gui.cli import trajectory as command

    missing = tmp_path / "missing.rig.json"
    target = tmp_path / "t.csv"
    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    args = parser.parse_args([str(missing), "spin 5 Hz", "--out", str(target)])
    out, err = io.StringIO(), io.StringIO()
    assert command.run(args, out, err) == 1
    assert out.getvalue().startswith(f"error[rigfile.io] {missing}: cannot read the file (")
    assert out.getvalue().count("\n") == 1
    assert err.getvalue() == ""
    assert capsys.readouterr() == ("", "")
    assert not target.exists()
