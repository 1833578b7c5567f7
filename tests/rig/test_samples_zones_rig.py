"""Samples and keep-out zones in the rig: valid ones pass every rule, they round-trip through the rig file
(as the schema says), the Python export and the bundle, have rig paths, and follow a renamed segment."""

from __future__ import annotations

import json
import runpy

import jsonschema
import pytest
from rig_helpers import snippet_rig

from mime_gui import RESOURCES
from mime_gui.rig import Box, Sample, Sphere, Zone, a_m2, load, save, tesla
from mime_gui.rig import paths as rig_paths
from mime_gui.rig.export import to_python
from mime_gui.rig.rigfile import RigFileError

SCHEMA = json.loads((RESOURCES / "rig.schema.json").read_text(encoding="utf-8"))


def _rig():
    return snippet_rig(
        samples={"bead": Sample((0, 0, 0.05), mount="motor.stator", moment=a_m2(2e-3, reason="VSM"),
                                magnetisation=(1, 0, 0)),
                 "ball": Sample((0.01, 0, 0.05), mount="motor.stator", geometry=Sphere(5e-4),
                                material="NdFeB-N42", orientation="follows"),
                 "chip": Sample((0.3, 0, 0.1), geometry=Box((0.001, 0.002, 0.0005)),
                                remanence=tesla(1.2, reason="datasheet"))},
        zones={"operator": Zone((0.8, 0, 0.9), box=(0.4, 0.6, 1.8), reason="where the operator stands"),
               "encoder": Zone((0, 0, -0.02), sphere=0.01, mount="motor.stator", limit=5e-3,
                               reason="the encoder's datasheet")})


def test_valid_samples_and_zones_pass_every_rule_and_build():
    rig = _rig()
    assert rig.validate() == []
    rig.build()


def test_they_round_trip_through_the_rig_file_as_the_schema_says(tmp_path):
    rig = _rig()
    rig.base = tmp_path
    path = save(rig, tmp_path / "r.rig.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.validate(data, SCHEMA)
    assert data["samples"]["bead"]["moment"] == {"value": 2e-3, "unit": "A m2", "reason": "VSM"}
    assert data["zones"]["operator"]["limit"] == {"value": 5e-4, "unit": "T"}  # the default, written
    assert load(path) == rig


@pytest.mark.parametrize("edit, code, pointer", [
    (lambda d: d["samples"]["bead"].update(colour="red"), "rigfile.key", "/samples/bead/colour"),
    (lambda d: d["zones"]["operator"]["box"].update(unit="mm"), "rigfile.unit", "/zones/operator/box/unit"),
    (lambda d: d["zones"]["operator"].pop("at"), "rigfile.missing", "/zones/operator: missing key 'at'"),
    (lambda d: d["samples"]["bead"].update(orientation=3), "rigfile.type", "/samples/bead/orientation"),
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


def test_the_python_export_rebuilds_them(tmp_path):
    rig = _rig()
    rig.base = tmp_path
    source = to_python(rig, tmp_path)
    assert "Sample(" in source and "Zone(" in source
    (tmp_path / "x.py").write_text(source, encoding="utf-8")
    assert runpy.run_path(str(tmp_path / "x.py"))["rig"] == rig


def test_they_have_rig_paths_and_follow_a_renamed_segment():
    from mime_gui.session.edits import RenameItem

    rig = _rig()
    assert rig_paths.get(rig, "samples.bead.at") == (0.0, 0.0, 0.05)
    moved = rig_paths.replace(rig, "zones.encoder.limit", 1e-2)
    assert moved.zones["encoder"].limit == 1e-2 and rig.zones["encoder"].limit == 5e-3
    renamed = RenameItem("chain", "motor", "spinner").apply(rig)
    assert renamed.samples["bead"].mount == "spinner.stator"
    assert renamed.zones["encoder"].mount == "spinner.stator"
    assert renamed.validate() == []


def test_an_orientation_that_is_not_text_is_refused_with_the_two_it_may_be():
    with pytest.raises(TypeError) as refused:
        Sample((0, 0, 0.05), moment=a_m2(2e-3, reason="VSM"), orientation=1)
    said = str(refused.value)
    assert said.startswith("orientation") and "fixed" in said and "follows" in said and "got 1" in said


@pytest.mark.parametrize("remanence, code, words", [
    (tesla(1.2, reason=""), "declaration.reason", "without a reason"),
    (a_m2(1.2, reason="datasheet"), "unit", "expected T"),
], ids=["no reason", "wrong unit"])
def test_a_sample_s_badly_declared_remanence_keeps_the_declaration_s_code(remanence, code, words):
    rig = snippet_rig(samples={"chip": Sample((0.3, 0, 0.1), geometry=Sphere(5e-4), remanence=remanence)})
    (finding,) = rig.validate()
    assert (finding.code, finding.where) == (code, "samples.chip.remanence") and words in finding.message


def test_a_zone_whose_centre_is_not_three_numbers_is_refused_naming_at():
    with pytest.raises(TypeError) as refused:
        Zone((0.8, 0.0), box=(0.4, 0.6, 1.8))
    assert str(refused.value).startswith("at must be 3 numbers") and "(0.8, 0.0)" in str(refused.value)


def test_a_sample_whose_place_is_not_three_numbers_is_refused_naming_at():
    with pytest.raises(TypeError) as refused:
        Sample((0.3, 0.0), moment=a_m2(2e-3, reason="VSM"))
    assert str(refused.value).startswith("at must be 3 numbers") and "(0.3, 0.0)" in str(refused.value)


def test_a_zone_whose_reason_is_not_text_is_refused_saying_so():
    with pytest.raises(TypeError) as refused:
        Zone((0.8, 0, 0.9), box=(0.4, 0.6, 1.8), reason=5)
    assert "reason is text" in str(refused.value) and str(refused.value).endswith("got 5")
