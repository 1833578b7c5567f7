"""Command-line contracts pinned after the twenty-sixth mutation sample:

- ``cli.plan.run(args, out, err)`` writes its summary of the search (the target, how many candidates from
  how many starts) to the ``out`` it is given, not to the process's stdout, also when no candidate meets
  the target;
- ``mime-gui play --torques`` refuses joint velocities that overflow, naming them, their step and their
  joint: a sliding joint whose first command (a sample within a billionth of a step of the first) is
  2e308 m from its initial position moves no frame's rotation, so only the velocities of the torques'
  backward differences, from the initial position, are out of reach.
"""

from __future__ import annotations

import argparse
import io
import re

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


def test_joint_velocities_that_overflow_are_refused_and_named_as_joint_velocities(tmp_path):
    urdf = tmp_path / "slider.urdf"
    urdf.write_text(SLIDER_URDF, encoding="utf-8")
    # the sample 1e-12 s after the first counts as the command at step 0 (a billionth of the 1 s step); the
    # first is the initial position: -1e308 to 1e308 in one step of 1 s is a velocity beyond a double, while
    # the positions, poses and rates the playback checks (none at step 0) stay finite
    cmd = tmp_path / "jump.csv"
    cmd.write_text("time,slide\n0,-1e308\n1e-12,1e308\n1,1e308\n", encoding="utf-8")
    out = tmp_path / "out.npz"
    status, stdout, stderr = run_cli("play", urdf, "--commands", cmd, "--dt", "1", "--torques", "--out", out)
    assert (status, stdout) == (2, "")
    assert stderr == (f"error[play.non-finite] {cmd}: the joint velocities overflow at step 0 (slide): the "
                      "joints' rates and accelerations at the step 1 s are too large to compute with; check "
                      "the file's units and values, or choose a larger step (--dt)\n")
    assert not out.exists()
    # without --torques the same file plays: only the torques' velocities are out of reach
    assert run_cli("play", urdf, "--commands", cmd, "--dt", "1", "--out", out)[0] == 0
