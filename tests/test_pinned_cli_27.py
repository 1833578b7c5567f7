"""Contracts of the command line pinned here:

- ``mime-gui plan``: a candidate that fails its checks is printed on one line naming its first three findings
  (of however many it has), so the line stays readable;
- ``mime-gui sweep``: a CSV table's second comment line names the rig (its path and its name) and the
  command file (docs/sweeps.md, *The table*);
- ``mime_gui.cli.trajectory.run(args, out, err)``: a ``--dt`` refusal goes to the ``out`` it is given, as
  every other line of the command does, never straight to the process's stdout.
"""

from __future__ import annotations

import argparse
import io
import shutil

from mime_gui import RESOURCES
from mime_gui.cli import main
from mime_gui.cli import trajectory as trajectory_command
from mime_gui.rig import load, save, tesla

DEMO = RESOURCES / "demo"
DEMO_RIG = DEMO / "demo.rig.json"


# -- plan: a failing candidate names its first three findings ------------------------------------------------

def test_a_candidate_failing_on_every_arm_joint_names_only_the_first_three_findings(tmp_path, capsys):
    """The arm's joints declare a field tolerance no magnet can keep (1 nT): each of its six joints is a
    ``field.joint`` finding of the played approach, and the candidate's line names the first three."""
    folder = tmp_path / "rig"
    shutil.copytree(DEMO, folder)
    rig = load(DEMO_RIG)
    rig.chain["arm"].field_tolerance = tesla(1e-9, reason="a very touchy encoder")
    assert rig.validate() == []
    path = save(rig, folder / "touchy.rig.json")
    out = tmp_path / "plan.csv"
    code = main(["plan", str(path), "--at", "probes.sample", "--direction", "0,0,1", "--starts", "1",
                 "--out", str(out)])
    text, err = capsys.readouterr()
    assert code == 1 and err == "" and not out.exists()
    lines = text.splitlines()
    failed = [line for line in lines if "fails its checks" in line]
    assert len(failed) == 1 and lines[-1] == "  no candidate passes its checks; nothing written"
    head, _, reasons = failed[0].partition(": ")
    assert head == "  candidate 1 fails its checks"
    named = reasons.split("; error[")
    # three findings, each a joint of the arm over its tolerance, in the joints' order
    assert len(named) == 3
    assert named[0].startswith("error[field.joint] chain.arm: |B| at joint 'joint_1' exceeds the segment's "
                               "field tolerance 1e-06 mT")
    assert named[1].startswith("field.joint] chain.arm: |B| at joint 'joint_2' ")
    assert named[2].startswith("field.joint] chain.arm: |B| at joint 'joint_3' ")


# -- sweep: the table names the rig and the command file ----------------------------------------------------

def test_a_sweep_table_names_its_rig_and_its_command_file_below_its_key(tmp_path):
    out = tmp_path / "t.csv"
    commands = DEMO / "chain.csv"
    assert main(["sweep", str(DEMO_RIG), "--vary=parts.holder.geometry.radius=0.008:0.012:2", "--commands",
                 str(commands), "--dt", "0.04", "--out", str(out), "--workers", "1", "--quiet"]) == 0
    comments = [line for line in out.read_text().splitlines() if line.startswith("#")]
    assert comments[0].startswith("# mime-gui sweep: key ") and comments[0].endswith("; 2 variants")
    assert comments[1:] == [f"# rig {DEMO_RIG} (demo); commands {commands}",
                            "# --vary parts.holder.geometry.radius=0.008:0.012:2"]


# -- trajectory: a --dt refusal goes to the stream it is given ---------------------------------------------

def test_a_trajectory_step_refusal_goes_to_the_out_stream_the_caller_gives(tmp_path, capsys):
    parser = argparse.ArgumentParser()
    trajectory_command.add_arguments(parser)
    target = tmp_path / "t.csv"
    args = parser.parse_args([str(DEMO_RIG), "spin 5 Hz", "--dt", "0", "--out", str(target)])
    out, err = io.StringIO(), io.StringIO()
    assert trajectory_command.run(args, out, err) == 1
    assert out.getvalue() == ("error[trajectory.dt] --dt: the step must be a positive number of seconds up "
                              "to 1e9, got 0.0\n")
    assert err.getvalue() == "" and not target.exists()
    assert capsys.readouterr() == ("", "")  # nothing printed past the caller's streams

