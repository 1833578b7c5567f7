"""Small contracts the larger tests pass through without pinning: exact messages, dictionary keys, the
fields a copy keeps. Each was a surviving mutant of `make mutation` (docs/mutation.md)."""

from __future__ import annotations

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.multibody import read_urdf
from mime_gui.multibody.errors import Diagnostic, UrdfError
from mime_gui.multibody.report import IGNORED, ReadReport
from mime_gui.multibody.spatial import quaternion_to_matrix
from mime_gui.rig import Apparatus, Arm, Box, Cylinder, Finding, Part, RigError, kg, kg_m2
from mime_gui.rig.actuators import register_actuator
from mime_gui.rig.visuals import part_rgba
from mime_gui.session import Event, FakeRenderer, ItemRef, Session

DEMO = RESOURCES / "demo" / "arm.urdf"


def test_a_diagnostic_without_a_file_is_placed_by_its_line_alone():
    assert Diagnostic("c", "m", "", 5).where() == "line 5"
    assert Diagnostic("c", "m", "", 0).where() == ""
    assert str(Diagnostic("c", "m", "", 5)) == "c line 5: m"


def test_a_urdf_error_without_a_file_is_placed_by_its_line_alone():
    assert UrdfError("urdf.xml", "m").one_line() == "error[urdf.xml] m"
    assert str(UrdfError("urdf.xml", "m", line=4)) == "urdf.xml line 4: m"
    assert UrdfError("urdf.xml", "m").file == ""


def test_a_report_entry_keeps_the_note_of_its_first_occurrence():
    report = ReadReport("f.urdf")
    report.add("robot/gazebo", IGNORED, 3, "simulator settings")
    report.add("robot/gazebo", IGNORED, 9)
    e = report.entries["robot/gazebo"]
    assert (e.note, e.count, e.lines) == ("simulator settings", 2, [3, 9])


def test_the_articulation_keeps_every_joints_effort_limit():
    art = read_urdf(DEMO).compile()
    assert art.effort_limit.tolist() == [150.0, 150.0, 80.0, 30.0, 30.0, 12.0]


def test_a_zero_quaternion_is_refused_with_what_is_expected():
    with pytest.raises(ValueError, match=r"expected \(w, x, y, z\) with a non-zero norm$"):
        quaternion_to_matrix((0.0, 0.0, 0.0, 0.0))


def test_findings_and_rig_errors_print_and_serialise_exactly():
    f = Finding("part.mount", "parts.a.mount", "no such frame")
    assert f.to_dict() == {"code": "part.mount", "where": "parts.a.mount", "message": "no such frame"}
    one = RigError([f])
    assert str(one) == ("the rig is not valid (1 finding):\n"
                        "error[part.mount] parts.a.mount: no such frame")
    two = RigError([f, Finding("unit", "parts.a.mass", "bare")])
    assert str(two) == ("the rig is not valid (2 findings):\n"
                        "error[part.mount] parts.a.mount: no such frame\n"
                        "error[unit] parts.a.mass: bare")


def test_a_part_mass_serialises_with_its_documented_keys():
    from mime_gui.rig.mass import part_mass

    mass, problems = part_mass(Part(Box((0.1, 0.2, 0.3)), mass=kg(0.6, reason="scale")))
    assert problems == []
    d = mass.to_dict()
    assert set(d) == {"volume", "mass", "density", "source", "detail", "inertia_about_centroid"}
    assert d["volume"] == pytest.approx(0.006) and d["mass"] == 0.6 and d["source"] == "declared mass"


def test_a_collection_that_is_not_a_mapping_is_refused_by_name():
    for what in ("chain", "parts", "magnets"):
        with pytest.raises(TypeError) as info:
            Apparatus("r", **{what: []})
        assert str(info.value) == f"{what} maps names to {what}, got list"


def test_an_actuator_needs_a_name():
    with pytest.raises(ValueError) as info:
        register_actuator("  ", kg_m2(1e-5, reason="r"), source="s")
    assert str(info.value) == "an actuator needs a non-empty name"


def test_a_quantitys_value_is_a_float_and_never_a_bool_or_text():
    assert type(kg(1).value) is float
    for bad in (True, "1"):
        with pytest.raises(TypeError):
            kg(bad)


def test_a_part_colour_follows_its_material_whatever_its_case():
    assert part_rgba(Part(Cylinder(radius=0.01, length=0.01), material="Aluminium")) == \
        part_rgba(Part(Cylinder(radius=0.01, length=0.01), material="aluminium"))
    assert part_rgba(Part(Cylinder(radius=0.01, length=0.01), material="PLA")) == (0.30, 0.62, 0.86, 1.0)


def test_a_motor_tree_names_where_it_comes_from():
    rig = Apparatus("r", chain={"arm": Arm.Kinematic(description=str(DEMO))})
    from mime_gui.rig import Motor

    rig.chain["m"] = Motor.Kinematic(mount="tool0")
    assert rig.build().segments["m"].tree.source == "<motor>"


def test_an_event_has_its_name_and_a_disconnected_listener_is_not_called():
    e = Event("poses_changed")
    assert e.name == "poses_changed" and Event().name == ""
    seen = []
    e.connect(seen.append)
    e.emit(1)
    e.disconnect(seen.append)
    e.emit(2)
    assert seen == [1]


def test_the_fake_renderer_records_each_call_by_its_name(tmp_path):
    s = Session()
    r = FakeRenderer()
    s.attach_renderer(r)
    r.calls.clear()
    s.open(DEMO)
    name = next(iter(s.segments))
    s.set_layer_visible("frames", True)
    s.set_item_visible(ItemRef(name, "link", "link_1"), False)
    assert r.calls == ["show_segments", "set_frame_poses", "show_items", "highlight", "set_layer_visible",
                       "set_item_visible"]
    with pytest.raises(ValueError) as info:
        r.set_layer_visible("ghosts", True)
    assert str(info.value).startswith("unknown layer 'ghosts'; layers: visual, collision, frames")
    np.testing.assert_array_equal(r.poses[name], s.segment(name).world_X_frame)


def test_a_command_file_with_text_times_is_refused_with_what_it_needs(tmp_path):
    from mime_gui.nodes import CommandFileError, read_commands

    path = tmp_path / "cmd.npz"
    np.savez(path, time=np.array(["0", "1"]), joint_positions=np.zeros((2, 1)), joint_names=np.array(["j"]))
    with pytest.raises(CommandFileError) as info:
        read_commands(path)
    assert (info.value.code, info.value.message) == ("commands.format",
                                                     "time and joint_positions must be numeric arrays")


def test_a_listing_of_movable_joints_ends_with_the_last_one():
    rig = Apparatus("r", chain={"arm": Arm.Dynamic(description=str(DEMO),
                                                   armature={"joint_9": kg_m2(1e-4, reason="r")})})
    (f,) = rig.validate()
    assert f.message.endswith("movable joints: joint_1, joint_2, joint_3, joint_4, joint_5, joint_6")


def test_a_coded_error_given_no_place_has_none():
    from mime_gui.errors import CodedError

    err = CodedError("rigfile.value", "m")
    assert (err.file, err.line, err.where()) == ("", 0, "")
    assert err.one_line() == "error[rigfile.value] m" and str(err) == "rigfile.value: m"
