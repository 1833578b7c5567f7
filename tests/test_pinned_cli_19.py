"""Small contracts of the command line, pinned: ``field`` refuses a rig without magnets with its exact
one-line message (code, place and the fix, as docs/field.md lists ``field.no-magnet``), ``plan`` reports a
rotating target's checked candidate as played by its frequency, axis and |B| range over the turn, and
``play --clearance`` prints every finding when there are exactly as many as it shows (twenty), with no
"… and N more" line."""

from __future__ import annotations

import json
import re

from cli_helpers import run_cli

from mime_gui import RESOURCES
from mime_gui.rig import Apparatus, Motor, save

DEMO = RESOURCES / "demo"


# -- field: a rig without magnets ----------------------------------------------------------------------------

def test_the_field_of_a_rig_without_magnets_is_refused_with_its_exact_line(tmp_path):
    rig = save(Apparatus("bare", chain={"motor": Motor.Kinematic(axis=(0.0, 0.0, 1.0))}),
               tmp_path / "bare.rig.json")
    commands = tmp_path / "cmd.csv"
    commands.write_text("time,motor.shaft\n0.0,0\n1.0,1\n", encoding="utf-8")
    status, stdout, stderr = run_cli("field", rig, "--commands", commands, "--out", tmp_path / "f.npz")
    assert (status, stdout) == (2, "")
    # the message is read by people: its fix is in plain words, lower case like every other refusal
    assert stderr == (f"error[field.no-magnet] {rig}: the rig has no magnets, so there is no field to "
                      "compute; add a magnet to the rig\n")
    assert not (tmp_path / "f.npz").exists()


# -- plan: a rotating target's candidate as played -----------------------------------------------------------

def test_the_plan_of_a_rotating_target_reports_frequency_axis_and_the_turns_field_range(tmp_path):
    # the demo's diametric magnet on its motor, the demo's probe: a field turning about z at 5 Hz, 1-50 mT
    out = tmp_path / "plan.csv"
    status, stdout, stderr = run_cli("plan", DEMO / "demo.rig.json", "--at", "probes.sample",
                                     "--axis", "0,0,1", "--frequency", "5", "--low", "1", "--high", "50",
                                     "--ellipticity", "0.5", "--starts", "1", "--out", out)
    assert (status, stderr) == (0, ""), stdout
    lines = stdout.splitlines()
    row = re.fullmatch(r"\s+1  margin \S+  axis +(\S+)° off, \|B\| (\S+)–(\S+) mT, ellipticity (\S+), "
                       r"motor (forward|backward)  \[.*\]", lines[1])
    assert row, lines[1]
    passed = re.fullmatch(r"  candidate 1 passes its checks \(as played: (\S+) Hz, axis (\S+)° off, \|B\| "
                          r"(\S+)–(\S+) mT\); wrote (.+) \(\d+ samples every 0\.01 s, \S+ s\)", lines[-1])
    assert passed, lines[-1]
    frequency, angle, low, high, written = passed.groups()
    # the spin as played turns at the target's frequency (checked within 2 %), about the asked axis within
    # the 10° tolerance, and every |B| of the turn keeps in the window: the range the table row promised
    assert abs(float(frequency) - 5.0) <= 0.1 and 0.0 <= float(angle) <= 10.0
    assert 1.0 <= float(low) <= float(high) <= 50.0
    assert (low, high) == row.group(2, 3)
    assert written == str(out) and out.exists()


# -- play --clearance: exactly as many findings as are shown -------------------------------------------------

def _clearance_run(tmp_path, margin: float) -> tuple[list[str], list[str]]:
    """The demo rig, both segments kinematic, played with ``--clearance`` at ``margin`` metres: the printed
    lines and the findings' messages in the output."""
    import numpy as np

    data = json.loads((DEMO / "demo.rig.json").read_text(encoding="utf-8"))
    data["chain"][0].update(kind="Arm.Kinematic", description=str(DEMO / "arm.urdf"))
    for key in ("armature", "actuators"):
        data["chain"][0].pop(key)
    data["chain"][1].update(kind="Motor.Kinematic")
    data["chain"][1].pop("inertia")
    data["clearance"].update(margin={"value": margin, "unit": "m"}, reason="a test's wide margin")
    rig, out = tmp_path / "kinematic.rig.json", tmp_path / "o.npz"
    rig.write_text(json.dumps(data), encoding="utf-8")
    status, stdout, stderr = run_cli("play", rig, "--commands", DEMO / "chain.csv", "--dt", "0.04",
                                     "--clearance", "--out", out)
    assert (status, stderr) == (0, "")
    with np.load(out) as arrays:
        return stdout.splitlines(), [str(m) for m in arrays["clearance_findings"][:, 2]]


def test_clearance_with_exactly_twenty_findings_prints_them_all_and_counts_no_more(tmp_path):
    # a margin of 2 m: every moving pair of the demo comes within it, each finding naming how close
    _, wide = _clearance_run(tmp_path, 2.0)
    closest = sorted(float(re.search(r"closest (\S+) mm", m).group(1)) * 1e-3 for m in wide)
    assert len(closest) > 20 and closest[19] < closest[20]
    # a margin between the 20th and 21st closest approach: exactly twenty pairs come within it
    lines, found = _clearance_run(tmp_path, (closest[19] + closest[20]) / 2)
    assert len(found) == 20
    first = next(k for k, line in enumerate(lines) if line.startswith("  clearance: "))
    assert lines[first].endswith("; 20 finding(s)")
    assert lines[first + 1].startswith("    smallest distance ")
    assert [line.split(": ", 1)[1] for line in lines[first + 2:first + 22]] == found
    # all twenty shown: nothing is left to count, so the summary ends there
    assert lines[first + 22:] == [f"  wrote {tmp_path / 'o.npz'}"]
