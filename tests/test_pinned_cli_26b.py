"""Command-line contracts pinned after a deep look at the cli:

- ``cli.plan.run(args, out, err)`` writes its summary of the search (the target, how many candidates from
  how many starts) to the ``out`` it is given, not to the process's stdout, also when no candidate meets
  the target;
- ``mime-gui play`` refuses a rate that overflows at step 0, from the positions the play starts at to its
  first command, naming the joint: a sample within a billionth of a step of the first counts as the
  command at step 0, so a file can jump there; the rate was taken as zero at step 0, so the jump was
  refused later as the torques' velocities, or as the frames' rates of a frame the joint does not turn.
"""

from __future__ import annotations

import argparse
import io
import re

import pytest
from cli_helpers import run_cli

from mime_gui import RESOURCES
from mime_gui.cli import plan

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"

# one cart sliding along x on limits wide enough that no command is clamped
SLIDER_URDF = """<robot name="slider"><link name="base"/>
<link name="cart"><inertial><mass value="1"/>
<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
<joint name="slide" type="prismatic"><parent link="base"/><child link="cart"/><axis xyz="1 0 0"/>
<limit lower="-1e308" upper="1e308" effort="10" velocity="1"/></joint></robot>"""


def _plan_args(*argv) -> argparse.Namespace:
    """The arguments ``mime-gui plan ARGV...`` parses, as main hands them to cli.plan.run."""
    parser = argparse.ArgumentParser(prog="mime-gui plan")
    plan.add_arguments(parser, "plan")
    args = parser.parse_args([str(a) for a in argv])
    args.command = "plan"
    return args


def test_the_plan_summary_is_written_to_the_out_stream_it_is_given(tmp_path, capsys):
    # the demo's probe sees 5.3 mT at every pose: a window from 1 T is met by none, and the caller that
    # embeds the command (a notebook, a script) must still read the summary of the search on its own stream
    target = tmp_path / "plan.csv"
    args = _plan_args(DEMO_RIG, "--at", "probes.sample", "--direction", "0,0,1", "--low", "1000",
                      "--starts", "1", "--out", target)
    capsys.readouterr()
    out, err = io.StringIO(), io.StringIO()
    assert plan.run(args, out, err) == plan.EXIT_NONE
    lines = out.getvalue().splitlines()
    assert len(lines) == 2, lines
    summary = (r"probes\.sample: a field along \(0\.0, 0\.0, 1\.0\), within 10°, \|B\| 1000 to 100000 mT: "
               r"0 candidate\(s\) from 1 start\(s\), \d+ poses evaluated")
    assert re.fullmatch(summary, lines[0]), lines[0]
    assert lines[1].startswith("  not met: window binds: ") and lines[1].endswith("; nothing written")
    assert err.getvalue() == "" and not target.exists()
    leaked = capsys.readouterr()
    assert (leaked.out, leaked.err) == ("", "")


@pytest.mark.parametrize("robot, column, torques", [
    ("slider", "slide", True), ("slider", "slide", False), ("demo arm", "joint_6", False),
    ("demo rig", "motor.shaft", False),
], ids=["slider-torques", "slider", "arm-turning", "rig-motor"])
def test_a_rate_that_overflows_at_step_0_is_refused_naming_its_joint(tmp_path, robot, column, torques):
    if robot == "slider":
        played = tmp_path / "slider.urdf"
        played.write_text(SLIDER_URDF, encoding="utf-8")
    else:
        played = DEMO_RIG if robot == "demo rig" else RESOURCES / "demo" / "arm.urdf"
    # the first sample is the initial position; the one 1e-12 s later, the command at step 0: -1e308 to 1e308
    # in one step of 1 s is a rate beyond a double, while every position stays finite
    cmd = tmp_path / "jump.csv"
    cmd.write_text(f"time,{column}\n0,-1e308\n1e-12,1e308\n1,1e308\n", encoding="utf-8")
    out = tmp_path / "out.npz"
    status, stdout, stderr = run_cli("play", played, "--commands", cmd, "--dt", "1", "--out", out,
                                     *(["--torques"] if torques else []))
    assert (status, stdout) == (2, "")
    assert stderr == (f"error[play.non-finite] {cmd}: the joint rates overflow at step 0 ({column}): the "
                      f"largest command is 1e+308 for {column} at step 0, the step 1 s; check the file's "
                      "units and values, or choose a larger step (--dt)\n")
    assert not out.exists()
