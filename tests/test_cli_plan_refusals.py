"""``mime-gui plan`` when the options or the rig cannot be planned, and when no candidate survives its checks:
the one-line refusals (code, place, the fix), the rig's findings, each candidate that fails and why, a write
the system refuses, and the starts run on a local worker process giving what this process gives.

The rig is the demo's: its probe ``sample`` rides on the motor's stator 25 mm above the magnet, so the field
it sees has one size at every pose (Magpylib's, tests/oracle.py) and turns with the motor's shaft."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from oracle import DEMO_MAGNETISATION, demo_poses, magnet_B

from mime_gui import RESOURCES
from mime_gui.cli import main
from mime_gui.rig import Probe, load, save

DEMO = RESOURCES / "demo"
DEMO_RIG = DEMO / "demo.rig.json"
FIXED = ["--at", "probes.sample", "--direction", "0,0,1", "--starts", "1"]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _sample_field_mT() -> float:
    """|B| at the probe ``sample``: the magnet 25 mm below it on the same axis, by Magpylib."""
    return float(np.linalg.norm(magnet_B(np.eye(4), [(0.0, 0.0, 0.05)], DEMO_MAGNETISATION)[0])) * 1e3


def test_plan_refuses_an_out_that_is_no_command_file_and_names_the_endings(tmp_path, capsys):
    out = tmp_path / "plan.txt"
    code, text, err = run(capsys, "plan", DEMO_RIG, *FIXED, "--out", out)
    assert code == 2 and text == "" and not out.exists()
    assert err.splitlines() == ["error[plan.out] --out: a command file is written as .csv or .npz, got "
                                "'plan.txt'"]


@pytest.mark.parametrize("option, value", [
    ("--direction", "1,0"), ("--direction", "1,0,0,0"), ("--direction", "1,up,0"), ("--axis", "0,1"),
], ids=["direction-two-numbers", "direction-four-numbers", "direction-a-word", "axis-two-numbers"])
def test_plan_refuses_a_vector_that_is_not_three_numbers(tmp_path, capsys, option, value):
    out = tmp_path / "plan.csv"
    extra = ["--frequency", "5"] if option == "--axis" else []
    code, _, err = run(capsys, "plan", DEMO_RIG, "--at", "probes.sample", f"{option}={value}", *extra,
                       "--out", out)
    assert code == 2 and not out.exists()
    assert err.splitlines() == [f"error[plan.option] {option}: {option} is three numbers X,Y,Z, got "
                                f"{value!r}"]


def test_plan_without_target_or_at_says_to_give_one_of_them(tmp_path, capsys):
    out = tmp_path / "plan.csv"
    code, _, err = run(capsys, "plan", DEMO_RIG, "--direction", "0,0,1", "--out", out)
    assert code == 2 and not out.exists()
    assert err.splitlines() == ["error[plan.option] --at: give --target NAME (a target of the rig) or --at "
                                "probes.NAME with the field asked for"]


@pytest.mark.parametrize("field", [[], ["--direction", "0,0,1", "--axis", "0,0,1", "--frequency", "5"],
                                   ["--axis", "0,0,1", "--frequency", "5", "--direction", "0,0,1"]],
                         ids=["neither", "direction-then-axis", "axis-then-direction"])
def test_plan_at_a_probe_takes_exactly_one_of_direction_and_axis(tmp_path, capsys, field):
    out = tmp_path / "plan.csv"
    code, _, err = run(capsys, "plan", DEMO_RIG, "--at", "probes.sample", *field, "--out", out)
    assert code == 2 and not out.exists()
    assert err.splitlines() == ["error[plan.option] --direction: give --direction (a fixed field) or --axis "
                                "with --frequency (a rotating one)"]


def test_plan_of_a_rig_that_breaks_its_rules_prints_its_findings_and_writes_nothing(tmp_path, capsys):
    data = json.loads(DEMO_RIG.read_text())
    data["chain"][0]["description"] = str(DEMO / "arm.urdf")
    data["magnets"]["m1"]["magnetisation"] = [0, 0, 0]  # a magnet magnetised along no direction
    rig = tmp_path / "bad.rig.json"
    rig.write_text(json.dumps(data))
    out = tmp_path / "plan.csv"
    code, text, err = run(capsys, "plan", rig, *FIXED, "--out", out)
    assert code == 1 and not out.exists()
    assert err.splitlines() == [f"{rig}: the rig is not valid; nothing planned"]
    findings = load(rig).validate()
    assert findings and text.splitlines() == [str(f) for f in findings]
    assert text.startswith("error[magnet.magnetisation] magnets.m1.magnetisation: ")


def test_plan_on_a_local_worker_process_finds_and_writes_what_this_process_does(tmp_path, capsys):
    here, there = tmp_path / "here.csv", tmp_path / "there.csv"
    field = ["--at", "probes.sample", "--direction", "0,0,1", "--starts", "2"]
    code, text_here, err = run(capsys, "plan", DEMO_RIG, *field, "--out", here)
    assert code == 0 and err == "", text_here
    code, text_there, err = run(capsys, "plan", DEMO_RIG, *field, "--workers", "1", "--out", there)
    assert code == 0 and err == "", text_there
    assert text_there.replace(str(there), str(here)) == text_here
    assert there.read_bytes().replace(b"there.csv", b"here.csv") == here.read_bytes()
    # what the table says the probe sees: the size Magpylib gives, 4 significant figures
    assert "from 2 start(s)" in text_here and f"|B| {_sample_field_mT():.4g} mT" in text_here


def test_plan_whose_write_is_refused_says_why_on_stderr_and_exits_2(tmp_path, capsys):
    out = tmp_path / "missing" / "plan.csv"
    code, text, err = run(capsys, "plan", DEMO_RIG, *FIXED, "--out", out)
    assert code == 2 and not out.exists()
    lines = text.splitlines()
    assert lines[-1].startswith("    1  margin")  # the candidate was found, then its write refused
    assert err.splitlines() == [f"error[export.io] {out}: cannot write (No such file or directory)"]
    assert not any("passes its checks" in line for line in lines)


def test_a_spin_sampled_once_a_turn_does_not_meet_the_target_and_nothing_is_written(tmp_path, capsys):
    """5 Hz every 0.2 s: one whole turn per step, so the field as played stands still; the candidate the
    search found (a turn sampled finely) fails its check, with no finding to name but the field itself."""
    out = tmp_path / "spin.csv"
    code, text, err = run(capsys, "plan", DEMO_RIG, "--at", "probes.sample", "--axis", "0,0,1",
                          "--frequency", "5", "--starts", "1", "--dt", "0.2", "--out", out)
    assert code == 1 and err == "" and not out.exists()
    lines = text.splitlines()
    assert lines[0].startswith("probes.sample: a field rotating about (0.0, 0.0, 1.0) at 5 Hz, within 10°")
    assert ": 1 candidate(s) from 1 start(s), " in lines[0]
    assert lines[1].startswith("    1  margin") and "motor forward" in lines[1]
    assert lines[2:] == ["  candidate 1 fails its checks: the field as played does not meet the target",
                         "  no candidate passes its checks; nothing written"]


def _magnet_centre(arm, motor) -> np.ndarray:
    rotor = demo_poses(arm, motor)["rotor"]
    return rotor[:3, :3] @ np.array([0.0, 0.0, 0.025]) + rotor[:3, 3]


def _gradient_norm_by_hand(arm, motor, point, h=1e-5) -> float:
    """The Frobenius norm of dB_i/dx_j at ``point``: Magpylib's field differenced in space."""
    rotor = demo_poses(arm, motor)["rotor"]
    steps = np.concatenate([np.eye(3), -np.eye(3)]) * h
    B = magnet_B(rotor, point + steps, DEMO_MAGNETISATION)
    return float(np.linalg.norm((B[:3] - B[3:]) / (2 * h)))


def test_candidates_whose_approach_starts_above_the_gradient_bound_each_fail_with_the_finding(tmp_path,
                                                                                            capsys):
    """A probe fixed 2 cm below the magnet at the rig's initial pose: far away the bound is kept, so the
    search offers candidates, but every approach starts where the gradient passes the bound (t = 0)."""
    rig = load(DEMO_RIG)
    initial = rig.build().initial_commands()
    point = _magnet_centre(initial[:6], initial[6]) + np.array([0.0, 0.0, -0.02])
    rig.probes = {**rig.probes, "near": Probe(tuple(float(v) for v in point))}
    folder = tmp_path / "rig"
    shutil.copytree(DEMO, folder)
    path = save(rig, folder / "near.rig.json")
    B0 = magnet_B(demo_poses(initial[:6], initial[6])["rotor"], [point], DEMO_MAGNETISATION)[0]
    start = _gradient_norm_by_hand(initial[:6], initial[6], point)
    assert start > 0.5  # the bound below is passed where the approach starts
    away = ",".join(repr(float(v)) for v in -B0 / np.linalg.norm(B0))
    out = tmp_path / "near.csv"
    code, text, err = run(capsys, "plan", path, "--at", "probes.near", f"--direction={away}",
                          "--max-gradient", "0.5", "--starts", "3", "--out", out)
    assert code == 1 and err == "" and not out.exists()
    lines = text.splitlines()
    assert "gradient at most 0.5 T/m" in lines[0]
    failed = [line for line in lines if "fails its checks" in line]
    assert failed and len(failed) == sum(1 for line in lines if " margin " in line)
    prefix = "error[plan.gradient] probes.near: the field's gradient reaches "
    for k, line in enumerate(failed, start=1):
        head, _, finding = line.partition(": ")
        assert head == f"  candidate {k} fails its checks"
        assert finding.startswith(prefix)
        assert finding.endswith(" T/m (first above the bound at t = 0 s) where the bound is 0.5 T/m")
        worst = float(finding[len(prefix):].split(" ")[0])
        assert worst >= start * (1 - 1e-3)  # at least what the first pose brings, by hand
    assert lines[-1] == "  no candidate passes its checks; nothing written"
