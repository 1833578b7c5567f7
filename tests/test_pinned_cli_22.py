"""Small contracts of the command line, pinned: ``play --torques`` refusing torques that are no numbers prints
its one coded line and nothing else (no numpy warning from the arithmetic that overflowed on the way, which
a shell would show on stderr above the line); and ``report --json`` prints the report as the command line's
other JSON document (``inspect --json``) is printed: indented two spaces, one key per line, so two reports
diff line by line."""

from __future__ import annotations

import json
import warnings

from cli_helpers import run_cli

from mime_gui import RESOURCES
from mime_gui.rig import load

DEMO = RESOURCES / "demo"


# -- play --torques: a refusal is one line, no warning -------------------------------------------------------

def _far_demo(tmp_path) -> str:
    """The demo rig with its arm standing 100 m from the world origin on every axis (its URDF named by its
    absolute path): the motor riding the wrist is far from the origin, so its base's twist about the origin
    (``ω × p``) is large."""
    doc = json.loads((DEMO / "demo.rig.json").read_text(encoding="utf-8"))
    arm = doc["chain"][0]
    arm["description"] = str(DEMO / "arm.urdf")
    arm["at"]["value"] = [100.0, 100.0, 100.0]
    rig = tmp_path / "far.rig.json"
    rig.write_text(json.dumps(doc), encoding="utf-8")
    return str(rig)


def test_the_refusal_of_torques_that_are_no_numbers_is_one_line_with_no_warning(tmp_path):
    # the wrist turning ±2e307 rad/s 100 m from the origin: the motor's base acceleration overflows, and its
    # products with the base's axes meet inf - inf (invalid, not only overflow); the refusal names the
    # joint and step, and numpy's RuntimeWarning must not reach the user beside it
    cmd = tmp_path / "fast.csv"
    cmd.write_text("time,arm.joint_6\n0,1e307\n1,-1e307\n2,1e307\n", encoding="utf-8")
    out = tmp_path / "out.npz"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        status, stdout, stderr = run_cli("play", _far_demo(tmp_path), "--commands", cmd, "--out", out,
                                         "--torques")
    assert (status, stdout) == (2, "")
    assert stderr == (f"error[play.non-finite] {cmd}: the joint torques overflow at step 0 (motor.shaft): "
                      "the joints' rates and accelerations at the step 1 s are too large to compute with; "
                      "check the file's units and values, or choose a larger step (--dt)\n")
    assert [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)] == []
    assert not out.exists()


# -- report --json: the layout of the command line's JSON ----------------------------------------------------

def test_the_json_report_is_indented_two_spaces_one_key_per_line_as_inspect_json_is():
    rig = DEMO / "demo.rig.json"
    status, stdout, stderr = run_cli("report", rig, "--json")
    assert (status, stderr) == (0, "")
    data = load(rig).build().report.to_dict()
    assert json.loads(stdout) == data
    # the exact text: the same layout as inspect --json, a document a reader scans and diffs line by line
    assert stdout == json.dumps(data, indent=2) + "\n"
    assert stdout.startswith('{\n  "rig": "demo",\n')
    status, inspected, _ = run_cli("inspect", DEMO / "arm.urdf", "--json")
    assert status == 0 and inspected == json.dumps(json.loads(inspected), indent=2) + "\n"
