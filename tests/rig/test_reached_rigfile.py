"""The rig file's optional keys left out (each read as the Python default), a lab kind's parameter that is no
value, a duplicate key too deep to find its line, a path holding NUL, a clearance with a reason alone; and the
tables a rig file names: a material asked for by something that is not a name, a rotor inertia given as text,
a lab kind whose factory shows no signature."""

from __future__ import annotations

import json

import pytest
from rig_helpers import DEMO_URDF

from mime_gui.rig import (
    Apparatus,
    Arm,
    Clearance,
    Cylinder,
    Keyframe,
    LabSegment,
    Motor,
    Part,
    RigFileError,
    Sample,
    Spin,
    Zone,
    load,
    material,
    register_actuator,
    register_dynamics,
    save,
    unregister_dynamics,
)
from mime_gui.rig.dynamics import frames
from mime_gui.rig.templates import template


def _stage(travel=0.1):
    return frames("stage", "base", [("slide", "prismatic", "base", "carriage", (0, 0, 0), (1, 0, 0),
                                     (-travel, travel))])


@pytest.fixture
def stage_kind():
    register_dynamics("plain-stage", _stage)
    yield "plain-stage"
    unregister_dynamics("plain-stage")


def _rig_file(tmp_path, **collections):
    data = {"format": "mime-rig", "version": 1, "name": "r", **collections}
    path = tmp_path / "r.rig.json"
    path.write_text(json.dumps(data, indent=2))
    return path


def _m(value, unit):
    return {"value": value, "unit": unit}


def test_a_lab_segment_given_only_its_name_and_kind_loads_with_no_params_and_no_positions(tmp_path,
                                                                                         stage_kind):
    rig = load(_rig_file(tmp_path, chain=[{"name": "stage", "kind": stage_kind}]))
    assert rig.chain["stage"] == LabSegment(kind=stage_kind)
    assert rig.chain["stage"].params == {} and rig.chain["stage"].initial_positions == {}


def test_a_lab_segment_registered_in_python_is_saved_without_a_package_and_loads_back(tmp_path, stage_kind):
    rig = Apparatus("r", chain={"stage": LabSegment(kind=stage_kind, params={"travel": 0.05})})
    path = save(rig, tmp_path / "r.rig.json")
    [written] = json.loads(path.read_text())["chain"]
    assert "package" not in written and written["params"] == {"travel": 0.05}
    assert load(path).chain == rig.chain


def test_a_lab_parameter_that_is_an_object_is_refused_at_its_pointer_and_line(tmp_path, stage_kind):
    path = _rig_file(tmp_path, chain=[{"name": "stage", "kind": stage_kind, "params": {"travel": {"mm": 5}}}])
    with pytest.raises(RigFileError) as info:
        load(path)
    error = info.value
    assert (error.code, error.pointer) == ("rigfile.value", "/chain/0/params/travel")
    lines = path.read_text().splitlines()
    assert '"travel"' in lines[error.line - 1]
    assert "travel must be a number, text, a boolean or a list of them" in error.message


def test_a_dynamic_arm_without_armature_or_actuators_loads_with_none_of_either(tmp_path):
    arm = {"name": "arm", "kind": "Arm.Dynamic", "description": str(DEMO_URDF)}
    rig = load(_rig_file(tmp_path, chain=[arm]))
    assert rig.chain["arm"] == Arm.Dynamic(description=str(DEMO_URDF))
    assert rig.chain["arm"].armature == {} and rig.chain["arm"].actuators == {}


def test_a_motor_without_an_initial_position_starts_at_zero(tmp_path):
    rig = load(_rig_file(tmp_path, chain=[{"name": "motor", "kind": "Motor.Kinematic", "axis": [1, 0, 0]}]))
    assert rig.chain["motor"] == Motor.Kinematic(axis=(1, 0, 0))
    assert rig.chain["motor"].initial_position == 0.0


def test_a_part_without_a_mount_is_fixed_in_the_world(tmp_path):
    geometry = {"type": "cylinder", "unit": "m", "radius": 0.01, "length": 0.02}
    rig = load(_rig_file(tmp_path, parts={"p": {"geometry": geometry, "at": _m([0, 0, 0.1], "m")}}))
    assert rig.parts["p"] == Part(Cylinder(radius=0.01, length=0.02), at=(0, 0, 0.1))
    assert rig.parts["p"].mount is None


def test_a_sample_given_only_where_it_is_takes_the_defaults_of_a_sample(tmp_path):
    rig = load(_rig_file(tmp_path, samples={"s": {"at": _m([0, 0, 0.1], "m")}}))
    sample = rig.samples["s"]
    assert sample == Sample((0, 0, 0.1))
    assert (sample.mount, sample.magnetisation, sample.orientation) == (None, (0.0, 0.0, 1.0), "fixed")


def test_a_zone_without_mount_limit_or_reason_keeps_half_a_millitesla_in_the_world(tmp_path):
    rig = load(_rig_file(tmp_path, zones={"z": {"at": _m([0, 0, 0.2], "m"), "sphere": _m(0.01, "m")}}))
    zone = rig.zones["z"]
    assert zone == Zone((0, 0, 0.2), sphere=0.01)
    assert (zone.mount, zone.limit, zone.reason) == (None, 0.5e-3, None)


def test_a_keyframe_without_interpolation_is_linear_and_a_spin_without_ramp_starts_at_once(tmp_path):
    keys = [{"time": _m(0.0, "s")},
            {"time": _m(1.0, "s"), "interpolation": "spin",
             "spin": {"frequency": _m(5, "Hz"), "hold": _m(2.0, "s")}}]
    rig = load(_rig_file(tmp_path, chain=[{"name": "motor", "kind": "Motor.Kinematic"}],
                         trajectories={"t": {"unit": "rad|m", "segments": {"motor": keys}}}))
    first, second = rig.trajectories["t"].segments["motor"]
    assert first.interpolation == "linear"
    assert second.spin == Spin(5.0, "Hz", hold=2.0) and second.spin.ramp == 0.0
    assert second == Keyframe(1.0, interpolation="spin", spin=Spin(5.0, hold=2.0))


def test_a_key_given_twice_too_deep_for_its_line_is_still_refused_by_its_name(tmp_path):
    # deeper than the line finder's own parser can follow, not deeper than the reader's
    depth = 600
    path = tmp_path / "deep.rig.json"
    path.write_text("[" * depth + '{"a": 1, "a": 2}' + "]" * depth)
    with pytest.raises(RigFileError) as info:
        load(path)
    assert info.value.code == "rigfile.duplicate"
    assert "'a' appears twice in one object; keep one" in info.value.message
    assert not info.value.line


def test_a_path_holding_a_nul_is_refused_as_unreadable_naming_the_path(tmp_path):
    path = tmp_path / "a\x00b.rig.json"
    with pytest.raises(RigFileError) as info:
        load(path)
    assert info.value.code == "rigfile.io" and info.value.file == str(path)
    assert info.value.message.startswith("cannot read the file (") and "null" in info.value.message


def test_a_clearance_with_a_reason_and_no_margin_saves_the_reason_alone(tmp_path):
    rig = Apparatus("r", clearance=Clearance(reason="the plates touch by design"))
    path = save(rig, tmp_path / "r.rig.json")
    assert json.loads(path.read_text())["clearance"] == {"reason": "the plates touch by design", "allow": []}
    assert load(path).clearance == Clearance(reason="the plates touch by design")


@pytest.mark.parametrize("name", [7, None, ("aluminium",)], ids=["a number", "None", "a tuple"])
def test_a_material_asked_for_by_something_that_is_not_a_name_is_none(name):
    assert material(name) is None


def test_a_rotor_inertia_given_as_text_is_refused_naming_the_motor_and_the_two_ways_to_give_it():
    with pytest.raises(TypeError) as info:
        register_actuator("lab-motor-text", "2e-5", source="Lab datasheet")
    message = str(info.value)
    assert "'lab-motor-text'" in message and "kg_m2(...) or a number in kg m2" in message


def test_a_lab_kind_whose_factory_shows_no_signature_gets_a_template_with_no_parameters():
    # a builtin without a signature: nothing to offer and nothing required
    register_dynamics("builtin-stage", max)
    try:
        made = template("segment.lab.builtin-stage")
    finally:
        unregister_dynamics("builtin-stage")
    assert made is not None and made.unavailable == ""
    assert made.tip.endswith("with no parameters")
    assert made.make("motor.rotor", None) == LabSegment(kind="builtin-stage", mount="motor.rotor")
