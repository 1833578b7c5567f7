"""Options of the subcommands that go together or are required: ``plan --target`` given with the options of a
target spelled out, ``export --hold`` without ``--commands``, ``trajectory`` without ``--out``, and the
comment line ``trajectory`` writes above its command file's header."""

from __future__ import annotations

import pytest

from mime_gui import RESOURCES
from mime_gui.cli import main

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"


def test_plan_refuses_target_with_at_and_says_to_give_it_alone(tmp_path, capsys):
    out = tmp_path / "plan.csv"
    code = main(["plan", str(DEMO_RIG), "--target", "beside", "--at", "probes.dish", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    (line,) = err.splitlines()
    assert line.startswith("error[plan.option] --target: ")
    # why (the target has its own bounds) and the fix (give it alone, or --at with a field)
    assert "its own bounds" in line and "give it alone" in line and "--at with --direction or --axis" in line


def test_export_refuses_hold_without_commands_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "copy.rig.json"
    assert main(["export", str(DEMO_RIG), "--json", str(out), "--hold", "2"]) == 1
    assert capsys.readouterr().out.strip() == "error[export.pose] --hold: goes with --commands OUT.csv"
    assert not out.exists()


def test_trajectory_requires_out(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as done:
        main(["trajectory", str(DEMO_RIG), "spin 5 Hz"])
    assert done.value.code == 2  # argparse's usage error
    err = " ".join(capsys.readouterr().err.split())
    assert "the following arguments are required: --out" in err
    assert list(tmp_path.iterdir()) == []


def test_trajectory_comment_names_the_trajectory_the_rig_and_the_step(tmp_path):
    out = tmp_path / "t.csv"
    assert main(["trajectory", str(DEMO_RIG), "spin 5 Hz", "--dt", "0.02", "--out", str(out)]) == 0
    first = out.read_text().splitlines()[0]
    # the demo rig is named "demo"; without --fit the timeline is the authored one, and nothing says fitted
    assert first == "# trajectory 'spin 5 Hz' of rig 'demo': every 0.02 s (radians, metres)"


def test_plan_s_help_shows_starts_with_the_n_its_text_speaks_of(capsys):
    with pytest.raises(SystemExit) as done:
        main(["plan", "--help"])
    assert done.value.code == 0
    usage, *rest = capsys.readouterr().out.split("\n\n")
    assert "[--starts N]" in " ".join(usage.split())
    # the option's own line: the placeholder is the N of "the initial pose and N-1 drawn"
    text = " ".join(" ".join(rest).split())
    assert "--starts N starts of the search: the initial pose and N-1 drawn" in text


def test_export_commands_without_pose_says_to_name_one_and_lists_the_rig_s_poses(tmp_path, capsys):
    out = tmp_path / "pose.csv"
    assert main(["export", str(DEMO_RIG), "--commands", str(out)]) == 1
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith("error[export.pose] --commands: ") and "--pose NAME" in line
    # the demo rig's two poses, by name, as the user types them after --pose
    assert line.endswith("poses: home, over the sample")
    assert not out.exists()
