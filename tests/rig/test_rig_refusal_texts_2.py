"""The words of refusals no other test reads (continued): values of the rig's Python classes of the wrong
type, rig paths, keyframe text, measure ends, palette templates and the rig file's JSON; each message is
checked for the place it names (the field, the path, the clause, the line) and the fix it gives."""

from __future__ import annotations

import json

import pytest
from rig_helpers import DEMO_RIG, DEMO_URDF

from mime_gui.cli import main
from mime_gui.rig import (
    Allowed,
    Apparatus,
    Arm,
    Box,
    Clearance,
    FieldTarget,
    Keyframe,
    Mesh,
    Motor,
    Part,
    RigFileError,
    TargetError,
    Zone,
    kg_m2,
    load,
)
from mime_gui.rig.geometries.registry import KINDS, KindTemplate, register
from mime_gui.rig.keyframe_text import KeyframeTextError, parse_keyframe_text
from mime_gui.rig.measures import MeasureError, anchor
from mime_gui.rig.paths import DELETE, RigPathError, get, replace
from mime_gui.rig.templates import TEMPLATES


# -- values of the wrong type in Python ------------------------------------------------------------------
@pytest.mark.parametrize(("make", "words"), [
    (lambda: Clearance(margin="5 mm"), "margin is a distance in metres, got '5 mm'"),
    (lambda: Clearance(margin=True), "margin is a distance in metres, got True"),
    (lambda: Clearance(allow=(("parts.holder", "arm.link_6"),)),
     "allow holds Allowed(first, second, reason=...) pairs"),
    (lambda: Clearance(allow=(Allowed("parts.holder", "arm.link_6"), "magnets.m1")),
     "allow holds Allowed(first, second, reason=...) pairs"),
    (lambda: Mesh(3), "a mesh path is text, got 3"),
    (lambda: Mesh(None), "a mesh path is text, got None"),
    (lambda: Part(Box((0.01, 0.01, 0.01)), material=3), "material is a name, got 3"),
    (lambda: Zone((0, 0, 0), sphere="1 cm"), "sphere is a radius in metres, got '1 cm'"),
    (lambda: Zone((0, 0, 0), sphere=False), "sphere is a radius in metres, got False"),
    (lambda: Motor.Kinematic(field_tolerance="1 mT"),
     "field_tolerance is a flux density, tesla(value, reason=...), got '1 mT'"),
    (lambda: Motor.Kinematic(field_tolerance=True),
     "field_tolerance is a flux density, tesla(value, reason=...), got True"),
    (lambda: Arm.Dynamic(description=str(DEMO_URDF), armature=[("joint_6", kg_m2(1e-4, reason="x"))]),
     "armature must map names to quantities, got [("),
    (lambda: Arm.Dynamic(description=str(DEMO_URDF), actuators={6: "example-bldc-60mm"}),
     "actuators must map names to quantities, got {6: 'example-bldc-60mm'}"),
    (lambda: Keyframe(1.0, pose=3), "pose is text, got 3"),
    (lambda: Keyframe(1.0, frame=["tool0"]), "frame is text, got ['tool0']"),
    (lambda: Keyframe(1.0, interpolation=1), "interpolation is text, got 1"),
], ids=["margin text", "margin bool", "allow tuple", "allow text", "mesh path number", "mesh path none",
        "material number", "zone sphere text", "zone sphere bool", "field tolerance text",
        "field tolerance bool", "armature list", "actuators number key", "keyframe pose", "keyframe frame",
        "keyframe interpolation"])
def test_a_value_of_the_wrong_type_names_its_field_and_what_it_takes(make, words):
    with pytest.raises(TypeError) as info:
        make()
    assert str(info.value).startswith(words)


def test_a_part_whose_geometry_is_no_geometry_names_the_geometries_it_takes():
    with pytest.raises(TypeError) as info:
        Part("box", material="aluminium")
    message = str(info.value)
    assert message.startswith("geometry must be one of ") and message.endswith(", got 'box'")
    for name in ("Box", "Cylinder", "Ring", "Sphere", "Mesh", "Arc"):
        assert name in message


def test_a_geometry_kind_registered_again_is_refused_naming_it():
    box = KINDS["box"]
    with pytest.raises(ValueError) as info:
        register(box)
    assert str(info.value) == "a geometry kind 'box' is already registered"
    assert KINDS["box"] is box


def test_a_kind_template_of_another_role_names_the_roles():
    with pytest.raises(ValueError) as info:
        KindTemplate("tool", "Box", "a box", Box((0.01, 0.01, 0.01)))
    assert str(info.value) == "a template's role is 'part' or 'magnet', got 'tool'"


# -- the motor's axis --------------------------------------------------------------------------------------
def test_a_motor_axis_of_no_direction_is_a_finding_at_the_axis_saying_what_to_give():
    [finding] = Apparatus("m", chain={"motor": Motor.Kinematic(axis=(0, 0, 0))}).validate()
    assert (finding.code, finding.where) == ("chain.motor", "chain.motor.axis")
    assert finding.message == ("the motor axis (0.0, 0.0, 0.0) has no direction; give a non-zero axis "
                               "such as (0, 0, 1)")


# -- field targets -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("at", ["parts.holder", "probes.", "probes", 3], ids=["a part", "no name", "bare",
                                                                            "a number"])
def test_a_target_at_no_probe_or_sample_names_the_at_field_and_what_it_takes(at):
    with pytest.raises(TargetError) as info:
        FieldTarget(at, direction=(0, 0, 1))
    assert (info.value.code, info.value.file) == ("target.at", "at")
    assert info.value.message == f"a target is at probes.<name> or samples.<name>, got {at!r}"


def test_a_target_at_a_part_in_the_rig_file_is_refused_at_its_at(tmp_path, capsys):
    data = json.loads(DEMO_RIG.read_text())
    data["targets"] = {"t": {"at": "parts.holder", "direction": [0, 0, 1]}}
    path = tmp_path / "t.rig.json"
    path.write_text(json.dumps(data))
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out.strip()
    assert out.startswith(f"error[target.at] {path}")
    assert "#/targets/t/at: a target is at probes.<name> or samples.<name>, got 'parts.holder'" in out


def test_a_target_window_upside_down_names_low_and_both_bounds():
    with pytest.raises(TargetError) as info:
        FieldTarget("probes.p", direction=(0, 0, 1), low=0.002, high=0.001)
    assert (info.value.code, info.value.file) == ("target.window", "low")
    assert info.value.message == "the |B| window's low 0.002 T is above its high 0.001 T"


# -- keyframe text -----------------------------------------------------------------------------------------
KEY = Keyframe(2.5, values={"old": 1.0})


def _deg(joint: str) -> str:
    return "deg"


@pytest.mark.parametrize(("text", "words"), [
    ("joint_1 5, joint_1 6", "joint_1 is given twice; give each joint once"),
    ("joint_2 1, pose home, joint_2 1", "joint_2 is given twice; give each joint once"),
    ("x" * 10_001, "type at most 10000 characters"),
    (None, "type at most 10000 characters"),
], ids=["a joint twice", "a joint twice around a pose", "too long", "no text"])
def test_keyframe_text_that_is_refused_says_what_to_type(text, words):
    with pytest.raises(KeyframeTextError) as info:
        parse_keyframe_text(text, KEY, _deg)
    assert (info.value.code, info.value.message) == ("trajectory.values", words)


def test_keyframe_text_at_the_length_bound_is_read():
    text = "joint_1 5" + " " * (10_000 - len("joint_1 5"))
    assert dict(parse_keyframe_text(text, KEY, _deg).values) == {"joint_1": 5.0}


# -- measures ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("end", ["arm.link_6", ("parts", "holder"), None], ids=["text", "a pair", "none"])
def test_an_end_of_no_kind_is_refused_where_the_measure_is(end):
    rig = load(DEMO_RIG)
    with pytest.raises(MeasureError) as info:
        anchor(end, rig, {}, where="measures.2")
    assert (info.value.code, info.value.file) == ("measure.end-kind", "measures.2")
    assert info.value.message == f"{end!r} is no end of a measure"


# -- rig paths ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("path", "words"), [
    ("", "a rig path is text such as 'parts.holder.at'"),
    (None, "a rig path is text such as 'parts.holder.at'"),
    ("wheels.front", "a rig path starts with name, chain.<segment>, parts.<part>, magnets.<magnet>, "
                     "probes.<probe>, frames.<frame>, samples.<sample> or zones.<zone>"),
    ("parts", "a rig path starts with name, chain.<segment>"),
    ("parts.holder.at.x", "tuple holds no named values"),
], ids=["empty", "none", "unknown collection", "no item", "inside a vector"])
def test_a_rig_path_that_names_nothing_says_what_a_path_is(path, words):
    rig = load(DEMO_RIG)
    with pytest.raises(RigPathError) as info:
        get(rig, path)
    assert info.value.code == "rig.path" and info.value.path == str(path)
    assert info.value.message.startswith(words)


@pytest.mark.parametrize(("collection", "one"), [
    ("chain", "segment"), ("parts", "part"), ("magnets", "magnet"), ("probes", "probe"), ("frames", "frame"),
    ("samples", "sample"), ("zones", "zone"),
])
def test_a_rig_path_to_a_missing_item_names_one_item_of_its_collection(collection, one):
    with pytest.raises(RigPathError) as info:
        get(load(DEMO_RIG), f"{collection}.nowhere.at")
    assert info.value.message.startswith(f"no {one} 'nowhere'; {collection}: ")


def test_removing_a_field_of_a_part_says_it_is_a_field_not_an_entry():
    rig = load(DEMO_RIG)
    with pytest.raises(RigPathError) as info:
        replace(rig, "parts.holder.material", DELETE)
    assert info.value.path == "parts.holder.material"
    assert info.value.message == "'material' is a field of Part, not an entry to remove"
    assert rig.parts["holder"].material is not None  # the rig is untouched


# -- palette templates ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(("key", "words"), [
    ("part.mesh", "template needs a mesh file"),
    ("segment.arm", "template needs a urdf file"),
])
def test_a_template_that_needs_a_file_says_which_when_dropped_without_one(key, words):
    template = TEMPLATES[key]
    for path in (None, ""):
        with pytest.raises(ValueError) as info:
            template.make(None, path)
        assert str(info.value) == f"the {template.label} {words}"


# -- the rig file's JSON -------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "code", "line", "words"), [
    ('{"format": "mime-rig",\n "version": 1,\n "name": "a",\n "name": "b"}', "rigfile.duplicate", 1,
     "the key 'name' appears twice in one object; keep one"),
    ('{"format": "mime-rig",\n "version": 1,\n "name": }', "rigfile.json", 3,
     "not valid JSON: Expecting value (column 10)"),
    ('{"format": "mime-rig",\n "version": 1,,\n "name": "a"}', "rigfile.json", 2,
     "not valid JSON: Expecting property name enclosed in double quotes (column 15)"),
], ids=["a key twice", "a value missing", "two commas"])
def test_a_rig_file_that_is_not_json_names_its_line_and_what_is_wrong(tmp_path, capsys, text, code, line,
                                                                      words):
    path = tmp_path / "bad.rig.json"
    path.write_text(text)
    with pytest.raises(RigFileError) as info:
        load(path)
    assert (info.value.code, info.value.file, info.value.line) == (code, str(path), line)
    assert info.value.message == words
    assert main(["validate", str(path)]) == 1
    assert capsys.readouterr().out.strip() == f"error[{code}] {path}:{line}: {words}"


def test_a_magnet_moment_past_the_largest_number_names_the_remanence_and_volume_and_what_to_check():
    from mime_gui.rig import PermanentMagnet, Sphere, tesla
    from mime_gui.rig.mass import magnet_moment

    magnet = PermanentMagnet(Sphere(0.005), remanence=tesla(100.0, reason="the rule's bound"))
    moment, problems = magnet_moment(magnet, 1e305)  # 100 T · 1e305 m³ / μ0 is some 8e312: past 1.8e308
    assert moment is None
    ((code, where, message),) = problems
    assert (code, where) == ("magnet.remanence", "remanence")
    assert "100 T over 1e+305 m³" in message and "beyond the largest number" in message
    assert message.endswith("check the remanence")
