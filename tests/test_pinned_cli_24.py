"""Command-line contracts pinned after the twenty-second mutation sample:

- ``mime-gui inspect`` writes a mimic joint's leader, multiplier and offset on its line of the tree;
- ``mime-gui plan --seed`` out of range names the largest seed, 2**32 - 1;
- ``mime-gui export --commands`` refuses a hold that makes more than POSE_MAX_SAMPLES samples at its step;
- ``mime-gui export`` prints the findings of a rig that breaks a rule between its validation and the write
  (a file it references gone meanwhile), exit 1, nothing written;
- ``mime-gui sweep`` reads the ``actuators.json`` beside the rig before it tries the command file on it;
- ``cli.sweep.sweep(args, out, err)`` writes what it tells on stderr to the ``err`` it is given.
"""

from __future__ import annotations

import argparse
import io
import json
import shutil

import pytest
from cli_helpers import run_cli
from robot_data import fold_urdf

from mime_gui import RESOURCES
from mime_gui.rig import actuators

DEMO = RESOURCES / "demo"
LAB_MOTOR = {"name": "lab-ec45", "rotor_inertia": 2.09e-5, "unit": "kg m2",
             "source": "EC 45 flat datasheet, rotor inertia 209 g cm2"}


@pytest.fixture
def demo(tmp_path):
    """A copy of the demo folder: its rig, arm, meshes and command files."""
    folder = tmp_path / "demo"
    shutil.copytree(DEMO, folder)
    return folder


def test_the_inspect_tree_line_of_a_mimic_joint_names_its_leader_multiplier_and_offset(tmp_path):
    urdf = tmp_path / "fold.urdf"
    urdf.write_text(fold_urdf(-0.5).replace('offset="0"', 'offset="0.25"'))
    status, out, err = run_cli("inspect", urdf)
    assert (status, err) == (0, "")
    lines = out.splitlines()
    # j2 follows j1 at -0.5 of its angle plus 0.25 rad: the multiplier with x, the offset with its sign
    assert "      j2 (revolute) [-0.5, 0.5] rad, effort 1, velocity 1, mimics j1 (x-0.5 +0.25) -> b" in lines
    assert "    j1 (revolute) [-1, 1] rad, effort 1, velocity 1 -> a" in lines  # a leader mimics nothing


def test_the_plan_seed_refusal_names_the_largest_seed_two_to_the_32_minus_one(tmp_path):
    # the options are checked before the rig is read: the rig need not exist
    status, out, err = run_cli("plan", tmp_path / "none.rig.json", "--target", "x", "--seed", 2**32,
                               "--out", tmp_path / "o.csv")
    assert (status, out) == (2, "")
    assert err == "error[plan.option] --seed: --seed is a whole number from 0 to 4294967295, got 4294967296\n"
    assert not (tmp_path / "o.csv").exists()


def test_a_pose_hold_of_more_than_five_million_steps_is_refused_before_the_pose_is_asked_for(demo):
    # 10 s every 1 µs is 10⁷ samples: refused on the count of samples (hold / dt), checked before --pose
    target = demo / "pose.csv"
    status, out, err = run_cli("export", demo / "demo.rig.json", "--commands", target, "--hold", "10",
                               "--dt", "1e-6")
    assert (status, err) == (1, "")
    assert out == ("error[export.hold] --hold: 10 s every 1e-06 s makes more than 5000000 samples; choose a "
                   "larger --dt or a shorter --hold\n")
    assert not target.exists()


def test_an_export_whose_rig_breaks_a_rule_before_the_write_prints_the_findings(demo, monkeypatch):
    import mime_gui.rig.export as export

    real = export.export_json

    def urdf_gone_meanwhile(rig, target):
        (demo / "arm.urdf").unlink()  # another process removes the arm after the rig was validated
        return real(rig, target)

    monkeypatch.setattr(export, "export_json", urdf_gone_meanwhile)
    target = demo / "out.rig.json"
    status, out, err = run_cli("export", demo / "demo.rig.json", "--json", target)
    assert (status, err) == (1, "")
    assert out.startswith("error[chain.description] chain.arm.description: cannot read 'arm.urdf': ")
    assert len(out.splitlines()) == 1 and not target.exists()


@pytest.fixture
def lab_rig(demo, tmp_path, monkeypatch):
    """The demo rig with motor_1 naming a motor that only the ``actuators.json`` beside it gives."""
    monkeypatch.setenv("MIME_GUI_CONFIG_DIR", str(tmp_path / "config"))  # no config's actuators
    data = json.loads((demo / "demo.rig.json").read_text())
    data["chain"][0]["actuators"]["motor_1"] = "lab-ec45"
    (demo / "demo.rig.json").write_text(json.dumps(data))
    (demo / "actuators.json").write_text(json.dumps({"actuators": [LAB_MOTOR]}))
    yield demo / "demo.rig.json"
    actuators.set_discovered({})  # the lab's motor stays with this test


def test_a_sweep_tries_its_commands_on_a_rig_whose_actuator_is_in_the_rig_folder(lab_rig, monkeypatch):
    # the rig builds only with the folder's actuators.json read: then its command file is tried on it once,
    # and a play larger than the limit (here 1 kB) is refused before any variant runs
    monkeypatch.setenv("MIME_GUI_MAX_PLAY_MB", "0.001")
    table = lab_rig.parent / "t.csv"
    status, out, err = run_cli("sweep", lab_rig, "--vary=parts.holder.geometry.radius=0.008,0.01",
                               "--commands", lab_rig.parent / "chain.csv", "--dt", "0.04", "--out", table,
                               "--workers", "1")
    assert (status, out) == (2, "")
    assert err.startswith(f"error[sweep.too-large] {lab_rig.parent / 'chain.csv'}: playing one variant takes "
                          "about ")
    assert len(err.splitlines()) == 1 and not table.exists()


def test_sweep_writes_its_interruption_note_to_the_err_stream_it_is_given(tmp_path, monkeypatch, capsys):
    import mime_gui.cli.sweep as command

    def interrupted(job, out, runner, about, on_row=None):
        raise KeyboardInterrupt  # Ctrl-C before the first row

    monkeypatch.setattr(command, "run_sweep", interrupted)
    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    table = tmp_path / "t.csv"
    args = parser.parse_args([str(DEMO / "demo.rig.json"), "--vary=parts.holder.geometry.radius=0.008,0.01",
                              "--out", str(table), "--workers", "1"])
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(KeyboardInterrupt):
        command.sweep(args, out=out, err=err)
    note = f"interrupted: the rows done are in {table}; run the same command again to resume\n"
    assert err.getvalue() == note
    assert out.getvalue() == "" and capsys.readouterr() == ("", "")
