"""A segment's field tolerance and a sample's rotational drag in the rig: written only when declared, read
back equal (as the schema says), through the Python export too, and a bad entry refused at its pointer."""

from __future__ import annotations

import json
import runpy

import jsonschema
import pytest
from rig_helpers import snippet_rig

from mime_gui import RESOURCES
from mime_gui.rig import Sample, a_m2, load, n_m_s, save, tesla
from mime_gui.rig.export import to_python
from mime_gui.rig.rigfile import RigFileError

SCHEMA = json.loads((RESOURCES / "rig.schema.json").read_text(encoding="utf-8"))


def _rig():
    rig = snippet_rig(samples={
        "bead": Sample((0, 0, 0.05), mount="motor.stator", moment=a_m2(2e-3, reason="VSM"),
                       orientation="follows", drag=n_m_s(3.2e-9, reason="Stokes, 8πηr³ in glycerol"))})
    rig.chain["arm"].field_tolerance = tesla(0.005, reason="the joints' Hall encoders, 5 mT by the datasheet")
    return rig


def test_declared_ones_pass_the_rules_and_round_trip_through_the_rig_file(tmp_path):
    rig = _rig()
    assert rig.validate() == []
    rig.base = tmp_path
    path = save(rig, tmp_path / "r.rig.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.validate(data, SCHEMA)
    assert data["chain"][0]["field_tolerance"] == {
        "value": 0.005, "unit": "T", "reason": "the joints' Hall encoders, 5 mT by the datasheet"}
    assert "field_tolerance" not in data["chain"][1]  # not declared: not written
    assert data["samples"]["bead"]["drag"] == {"value": 3.2e-9, "unit": "N m s",
                                               "reason": "Stokes, 8πηr³ in glycerol"}
    back = load(path)
    assert back == rig
    assert back.chain["arm"].field_tolerance == tesla(0.005, reason=rig.chain["arm"].field_tolerance.reason)


def test_the_python_export_rebuilds_them(tmp_path):
    rig = _rig()
    rig.base = tmp_path
    source = to_python(rig, tmp_path)
    assert "field_tolerance=tesla(0.005" in source and "drag=Quantity(3.2e-09, 'N m s'" in source
    (tmp_path / "x.py").write_text(source, encoding="utf-8")
    assert runpy.run_path(str(tmp_path / "x.py"))["rig"] == rig


@pytest.mark.parametrize("edit, code, pointer", [
    (lambda d: d["chain"][0]["field_tolerance"].update(unit="mT"), "rigfile.unit",
     "/chain/0/field_tolerance/unit"),
    (lambda d: d["chain"][0]["field_tolerance"].update(value="5"), "rigfile.type",
     "/chain/0/field_tolerance/value"),
    (lambda d: d["samples"]["bead"]["drag"].update(value=True), "rigfile.type", "/samples/bead/drag/value"),
    (lambda d: d["samples"]["bead"].update(drag=[1]), "rigfile.type", "/samples/bead/drag"),
])
def test_a_bad_entry_is_refused_at_its_pointer(tmp_path, edit, code, pointer):
    rig = _rig()
    rig.base = tmp_path
    path = save(rig, tmp_path / "r.rig.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(RigFileError) as info:
        load(path)
    assert info.value.code == code and pointer in str(info.value)


def test_a_bare_number_loads_and_the_rules_ask_for_its_unit(tmp_path):
    rig = _rig()
    rig.base = tmp_path
    path = save(rig, tmp_path / "r.rig.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["chain"][0]["field_tolerance"] = 0.005
    path.write_text(json.dumps(data), encoding="utf-8")
    assert [(f.code, f.where) for f in load(path).validate()] == [("unit", "chain.arm.field_tolerance")]
