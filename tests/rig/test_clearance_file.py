"""The clearance declaration in the rig file (round trip, schema, refusals at their pointer) and on the
command line (``play --clearance``, ``validate``)."""

from __future__ import annotations

import json

import jsonschema
import numpy as np
import pytest
from rig_helpers import DEMO_RIG, DEMO_URDF

from mime_gui import RESOURCES
from mime_gui.cli import main
from mime_gui.rig import Allowed, Clearance, RigFileError, load, save
from mime_gui.rig.export import to_python

SCHEMA = json.loads((RESOURCES / "rig.schema.json").read_text())


def _declared():
    rig = load(DEMO_RIG)
    rig.clearance = Clearance(0.003, reason="the arm's repeatability, with room",
                              allow=(Allowed("parts.holder", "arm.link_6", reason="seated on the flange"),
                                     Allowed("magnets.m1", "motor.rotor", reason=None)))
    return rig


def test_a_declared_clearance_saves_loads_and_exports_into_an_equal_rig(tmp_path):
    rig = _declared()
    path = tmp_path / "c.rig.json"
    save(rig, path)
    data = json.loads(path.read_text())
    jsonschema.validate(data, SCHEMA)
    assert data["clearance"] == {
        "margin": {"value": 0.003, "unit": "m"}, "reason": "the arm's repeatability, with room",
        "allow": [{"pair": ["parts.holder", "arm.link_6"], "reason": "seated on the flange"},
                  {"pair": ["magnets.m1", "motor.rotor"], "reason": None}]}
    assert load(path) == rig
    namespace = {"__file__": str(tmp_path / "c.py")}
    exec(compile(to_python(rig, tmp_path), "c.py", "exec"), namespace)
    assert namespace["rig"] == rig
    assert rig != load(DEMO_RIG)  # the declaration is part of what the rig is


def test_a_rig_without_a_declaration_is_written_without_the_key(tmp_path):
    rig = load(DEMO_RIG)
    rig.clearance = None
    save(rig, tmp_path / "n.rig.json")
    assert "clearance" not in json.loads((tmp_path / "n.rig.json").read_text())


@pytest.mark.parametrize("value, code, pointer", [
    ([], "rigfile.type", "/clearance"),
    ({"margins": 1}, "rigfile.key", "/clearance/margins"),
    ({"margin": 0.005}, "rigfile.type", "/clearance/margin"),
    ({"margin": {"value": 5, "unit": "mm"}}, "rigfile.unit", "/clearance/margin/unit"),
    ({"margin": {"value": "five", "unit": "m"}}, "rigfile.type", "/clearance/margin/value"),
    ({"margin": {"value": "1e999", "unit": "m"}}, "rigfile.value", "/clearance/margin/value"),  # written bare
    ({"reason": 3}, "rigfile.type", "/clearance/reason"),
    ({"allow": {"pair": ["a", "b"]}}, "rigfile.type", "/clearance/allow"),
    ({"allow": [["parts.holder", "arm.link_6"]]}, "rigfile.type", "/clearance/allow/0"),
    ({"allow": [{"reason": "r"}]}, "rigfile.missing", "/clearance/allow/0"),
    ({"allow": [{"pair": ["parts.holder"]}]}, "rigfile.type", "/clearance/allow/0/pair"),
    ({"allow": [{"pair": ["parts.holder", 6]}]}, "rigfile.type", "/clearance/allow/0/pair/1"),
    ({"allow": [{"pair": ["parts.holder", "arm.link_6"], "why": "r"}]}, "rigfile.key",
     "/clearance/allow/0/why"),
])
def test_a_broken_declaration_is_refused_at_its_pointer(tmp_path, value, code, pointer):
    data = json.loads(DEMO_RIG.read_text())
    data["clearance"] = value
    path = tmp_path / "x.rig.json"
    path.write_text(json.dumps(data).replace('"1e999"', "1e999"))  # beyond a float: JSON reads infinity
    with pytest.raises(RigFileError) as info:
        load(path)
    assert (info.value.code, info.value.pointer) == (code, pointer)
    if code != "rigfile.value":  # the schema has no bound on a number
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(data, SCHEMA)


def test_play_clearance_on_a_urdf_alone_is_refused_with_its_code_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "o.npz"
    status = main(["play", str(DEMO_URDF), "--commands", str(DEMO_URDF.parent / "wave.csv"),
                   "--out", str(out), "--clearance"])
    err = capsys.readouterr().err
    assert status == 2 and not out.exists()
    assert err.startswith("error[play.clearance] --clearance: ") and len(err.strip().splitlines()) == 1


def test_play_clearance_prints_its_summary_and_writes_its_arrays(tmp_path, capsys):
    out = tmp_path / "o.npz"
    assert main(["play", str(DEMO_RIG), "--commands", str(DEMO_RIG.parent / "chain.csv"), "--out", str(out),
                 "--clearance"]) == 0
    printed = capsys.readouterr().out
    assert "  clearance: 28 moving pair(s) and 1 fixed pair(s) of 9 items checked, 6 left out, 1 allowed; " \
           "margin 5 mm; 0 finding(s)" in printed
    assert "smallest distance 20 mm" in printed
    with np.load(out) as data:
        T = len(data["time"])
        assert data["clearance_minimum"].shape == (T,) and data["clearance_closest"].shape == (T,)
        assert data["clearance_pairs"].shape == (28, 2) and data["clearance_left_out"].shape == (6, 3)
        assert data["clearance_findings"].shape == (0, 3)
    plain = tmp_path / "p.npz"
    assert main(["play", str(DEMO_RIG), "--commands", str(DEMO_RIG.parent / "chain.csv"), "--out", str(plain),
                 "--quiet"]) == 0
    with np.load(plain) as data:
        assert not [k for k in data if k.startswith("clearance")]


def test_validate_refuses_a_broken_declaration_and_warns_of_a_contact(tmp_path, capsys):
    rig = load(DEMO_RIG)
    rig.clearance = Clearance(-1.0, reason="r")
    save(rig, tmp_path / "bad.rig.json")
    assert main(["validate", str(tmp_path / "bad.rig.json")]) == 1
    assert "error[clearance.declaration] clearance.margin: " in capsys.readouterr().out
    rig.clearance = None  # the holder turns against the flange face: within the margin, told, still valid
    save(rig, tmp_path / "warn.rig.json")
    assert main(["validate", str(tmp_path / "warn.rig.json")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("warning[clearance.margin] parts.holder: arm.link_6 and parts.holder are 0 mm "
                             "apart in the initial pose, within the margin 5 mm; ")
    assert out[-1].endswith("is valid (2 segment(s), 1 part(s), 1 magnet(s), 2 pose(s))")
