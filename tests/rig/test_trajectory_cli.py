"""``mime-gui trajectory``: its file is the rendering, ``mime-gui play`` of it is ``BuiltRig.play`` of the
rendered arrays, and every bad option, name or size is refused with a code before anything is written."""

from __future__ import annotations

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.cli.main import main
from mime_gui.nodes.commands import read_commands
from mime_gui.rig import Keyframe, Trajectory, load, save
from mime_gui.rig.trajectories import render

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"
NAME = "spin 5 Hz"  # the demo rig's


@pytest.mark.parametrize("suffix", ["csv", "npz"])
def test_the_file_is_the_rendering_and_plays_as_the_rendered_arrays(tmp_path, capsys, suffix):
    out = tmp_path / f"t.{suffix}"
    assert main(["trajectory", str(DEMO_RIG), NAME, "--dt", "0.01", "--out", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    rig = load(DEMO_RIG)
    built = rig.build()
    time, commands = render(built, NAME, 0.01)
    recorded = read_commands(out)
    assert recorded.joint_names == built.command_names
    np.testing.assert_array_equal(recorded.time, time)
    np.testing.assert_array_equal(recorded.joint_positions, commands)
    played = tmp_path / "played.npz"
    assert main(["play", str(DEMO_RIG), "--commands", str(out), "--dt", "0.01", "--out", str(played),
                 "--quiet"]) == 0
    expected = built.play(commands, 0.01, initial_positions=dict(zip(built.command_names, commands[0],
                                                                     strict=True)))
    with np.load(played) as data:
        np.testing.assert_array_equal(data["joint_positions"], expected.joint_positions)
        np.testing.assert_array_equal(data["frame_poses"], expected.frame_poses)


def test_fit_writes_the_fitted_trajectory(tmp_path):
    rig = load(DEMO_RIG)
    rig.trajectories["fast"] = Trajectory({"arm": [Keyframe(0.5, pose="over the sample",
                                                            interpolation="quintic")]})
    path = save(rig, tmp_path / "r.rig.json")
    out = tmp_path / "t.csv"
    assert main(["trajectory", str(path), "fast", "--out", str(out)]) == 1
    assert not out.exists()
    assert main(["trajectory", str(path), "fast", "--out", str(out), "--fit"]) == 0
    recorded = read_commands(out)
    assert recorded.time[-1] > 0.5  # stretched to the joints' velocity limits


def test_the_limits_are_checked_at_the_step_asked_for(tmp_path, capsys):
    # a slow move of 20 hours: at the default step (0.01 s) it would be too many samples, at --dt 10 it is not
    rig = load(DEMO_RIG)
    rig.trajectories["slow"] = Trajectory({"arm": [Keyframe(72_000.0, pose="over the sample",
                                                            interpolation="quintic")]})
    path = save(rig, tmp_path / "r.rig.json")
    out = tmp_path / "t.npz"
    assert main(["trajectory", str(path), "slow", "--dt", "10", "--out", str(out)]) == 0, capsys.readouterr()
    assert len(read_commands(out).time) == 7_201


@pytest.mark.parametrize("argv, code", [
    (["nope", "--out", "{out}"], "trajectory.unknown"),
    ([NAME, "--out", "{out}", "--dt", "0"], "trajectory.dt"),
    ([NAME, "--out", "{out}", "--dt", "1e-9"], "trajectory.too-large"),
    ([NAME, "--out", "{tmp}/t.txt"], "trajectory.out"),
])
def test_refusals_have_codes_and_write_nothing(tmp_path, capsys, argv, code):
    out = tmp_path / "t.csv"
    argv = [a.format(out=out, tmp=tmp_path) for a in argv]
    assert main(["trajectory", str(DEMO_RIG), *argv]) == 1
    printed = capsys.readouterr().out
    assert printed.startswith(f"error[{code}]") and printed.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_a_rig_that_breaks_a_rule_prints_its_findings(tmp_path, capsys):
    rig = load(DEMO_RIG)
    rig.trajectories["bad"] = Trajectory({"arm": [Keyframe(1.0, values={"joint_9": 0.0})]})
    path = save(rig, tmp_path / "r.rig.json")
    assert main(["trajectory", str(path), "bad", "--out", str(tmp_path / "t.csv")]) == 1
    assert "error[trajectory.joint] trajectories.bad.segments.arm.0.values.joint_9" in capsys.readouterr().out
    assert not (tmp_path / "t.csv").exists()


def test_a_rig_file_that_cannot_be_read_is_one_line_with_its_place(tmp_path, capsys):
    path = tmp_path / "r.rig.json"
    path.write_text('{"format": "mime-rig", "version": 1,\n "colour": "red"}')
    out = tmp_path / "t.csv"
    assert main(["trajectory", str(path), NAME, "--out", str(out)]) == 1
    printed = capsys.readouterr()
    (line,) = printed.out.splitlines()
    assert line.startswith(f"error[rigfile.key] {path}:2: #/colour: unknown key 'colour'; allowed here: ")
    assert printed.err == ""
    assert not out.exists()


def test_a_write_the_system_refuses_says_why_and_nothing_is_written(tmp_path, capsys):
    out = tmp_path / "missing" / "t.csv"
    assert main(["trajectory", str(DEMO_RIG), NAME, "--out", str(out)]) == 1
    printed = capsys.readouterr().out
    assert printed.splitlines() == [f"error[export.io] {out}: cannot write (No such file or directory)"]
    assert not (tmp_path / "missing").exists()


def test_a_refusal_is_printed_on_the_stream_the_command_is_given(tmp_path, capsys):
    """``run(args, out, err)`` as another program calls it: the unknown name's refusal, naming the
    trajectories there are, goes to ``out`` and nothing to the process's own stdout."""
    import argparse
    import io

    from mime_gui.cli import trajectory as command

    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    args = parser.parse_args([str(DEMO_RIG), "nope", "--out", str(tmp_path / "t.csv")])
    out, err = io.StringIO(), io.StringIO()
    assert command.run(args, out, err) == 1
    assert out.getvalue().startswith(f"error[trajectory.unknown] NAME: the rig has no trajectory 'nope'; "
                                     f"trajectories: {NAME}")
    assert capsys.readouterr().out == ""
    assert list(tmp_path.iterdir()) == []
