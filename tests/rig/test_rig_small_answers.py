"""Small answers of the rig package a larger test does not look at: the module's error for a name it does not
have, the geometry class looked up by name, where an actuator record came from, the payload's detail, the
cylinder's triangles, a torque-driven segment riding on a moving arm, the end of a measure the rig lacks,
and the advice of a finding word for word."""

from __future__ import annotations

import math

import numpy as np
import pytest
from rig_helpers import demo_urdf_with, snippet_rig

import mime_gui.rig as rig_module
from mime_gui.rig import Apparatus, Cylinder, Motor, Sample, kg_m2, register_actuator, unregister_actuator
from mime_gui.rig.actuators import ActuatorRecord, actuator
from mime_gui.rig.driven import play_driven
from mime_gui.rig.geometries import by_class_name, kind_of
from mime_gui.rig.measures import CentreEnd, FrameEnd, Measure, MeasureError, PointEnd, measure, measure_along


def test_a_name_the_rig_module_does_not_have_is_an_attribute_error_that_names_it():
    with pytest.raises(AttributeError) as err:
        rig_module.Dodecahedron  # noqa: B018
    assert str(err.value) == "module 'mime_gui.rig' has no attribute 'Dodecahedron'"
    assert not hasattr(rig_module, "Dodecahedron") and hasattr(rig_module, "Cylinder")


def test_a_geometry_class_is_found_by_its_name_and_an_unknown_name_finds_none():
    assert by_class_name("Cylinder") is Cylinder
    assert by_class_name("Dodecahedron") is None
    assert by_class_name("cylinder") is None  # the class's name, not the kind's


def test_an_actuator_record_names_where_it_was_found_only_when_it_was_found_somewhere():
    assert ActuatorRecord("m", 1e-5, "Lab datasheet").described() == "Lab datasheet"
    assert ActuatorRecord("m", 1e-5, "Lab datasheet", origin="/lab/actuators.json").described() == \
        "Lab datasheet [/lab/actuators.json]"
    register_actuator("lab-motor-in-python", rotor_inertia=kg_m2(2e-5, reason="x"), source="Lab Z datasheet")
    try:
        rig = snippet_rig()
        rig.chain["arm"].actuators = {"motor_3": "lab-motor-in-python"}
        entry = rig.build().report.armature("arm", "joint_3")
        assert entry["reason"] == "registered actuator 'lab-motor-in-python': Lab Z datasheet"
    finally:
        unregister_actuator("lab-motor-in-python")


def test_a_registered_actuator_s_record_is_found_under_its_name_and_names_itself():
    record = register_actuator("lab-motor-named", rotor_inertia=1e-5, source="Lab W datasheet")
    try:
        assert (record.name, record.rotor_inertia, record.source) == ("lab-motor-named", 1e-5,
                                                                      "Lab W datasheet")
        assert actuator("lab-motor-named").name == "lab-motor-named"
    finally:
        unregister_actuator("lab-motor-named")


def test_the_payload_detail_says_what_rides_and_that_nothing_does():
    built = snippet_rig().build()
    assert built.report.segment("arm")["payload"]["detail"] == \
        "riders welded to their frames at their initial positions"
    bare = snippet_rig()
    del bare.chain["motor"]
    bare.parts, bare.magnets = {}, {}
    payload = bare.build().report.segment("arm")["payload"]
    assert payload == {"carried": True, "riders": [], "mass": 0.0, "detail": "nothing rides on it"}


@pytest.mark.parametrize("radius, length", [(0.01, 0.02), (0.3, 0.05)])
def test_a_cylinder_s_triangles_close_the_prism_on_its_polygon(radius, length):
    g = Cylinder(radius=radius, length=length)
    vertices, faces = kind_of(g).mesh(g, None)
    vertices, faces = np.asarray(vertices, dtype=float), np.asarray(faces)
    n = (len(vertices) - 2) // 2
    # the solid's volume by the divergence theorem, against the prism on a regular n-gon (by hand)
    a, b, c = (vertices[faces[:, i]] for i in range(3))
    volume = np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6.0
    assert volume == pytest.approx(0.5 * n * radius ** 2 * math.sin(2 * math.pi / n) * length, rel=1e-12)
    # every vertex on a cap: the rim at the radius, each cap's centre on the axis
    np.testing.assert_allclose(np.abs(vertices[:, 2]), length / 2, rtol=1e-12)
    on_axis = np.hypot(vertices[:, 0], vertices[:, 1]) < 1e-15
    assert sorted(vertices[on_axis, 2]) == pytest.approx([-length / 2, length / 2])


def test_a_torque_driven_motor_rides_on_the_arm_moving_under_it():
    built = snippet_rig().build()
    T, dt = 40, 0.01
    commands = np.tile(built.initial_commands(), (T, 1))
    j1 = built.command_names.index("arm.joint_1")
    commands[:, j1] += np.linspace(0.0, 0.8, T)  # the arm turns about its base while the motor is driven
    traj = play_driven(built, commands, {"motor.torque": np.zeros(T)}, dt)
    arm, motor = traj.segments["arm"], traj.segments["motor"]
    flange = arm.frame_poses[:, built.articulation("arm").frame_index("link_6")]
    stator = motor.frame_poses[:, built.articulation("motor").frame_index("stator")]
    # the motor is mounted on link_6 with no offset: its stator is the flange at every step
    np.testing.assert_allclose(stator, flange, atol=1e-12)
    assert not np.allclose(flange[0], flange[-1])


def test_a_link_without_physical_mass_properties_is_a_finding_that_ends_with_both_ways_out(tmp_path):
    antenna = ('<link name="antenna"><inertial><mass value="-1"/>'
               '<inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>\n'
               '<joint name="antenna_joint" type="fixed">'
               '<parent link="link_6"/><child link="antenna"/></joint>')
    path = demo_urdf_with(tmp_path, antenna)
    (finding,) = [f for f in snippet_rig(description=str(path)).validate() if f.code == "chain.inertia"]
    assert finding.message.startswith("link 'antenna' of 'demo_arm': ")
    assert finding.message.endswith(". A dynamic arm needs its mass properties: fix them in the description, "
                                    "or make the segment Arm.Kinematic")


class Turntable:
    """A segment of one's own that is no Arm, Motor or registered kind (the fields of a kinematic motor)."""

    kind, dynamic = "Turntable", False

    def __init__(self):
        self.__dict__.update(vars(Motor.Kinematic(axis=(0.0, 0.0, 1.0))))


def test_a_segment_that_is_no_kind_the_rig_knows_is_one_finding_naming_its_type():
    findings = Apparatus("odd", chain={"stage": Turntable()}).validate()
    assert [(f.code, f.where, f.message) for f in findings] == [
        ("chain.description", "chain.stage", "a segment is an Arm, a Motor or a registered kind "
                                             "(register_dynamics), got Turntable")]


def test_a_point_end_is_labelled_by_its_frame_and_its_offset_in_millimetres():
    end = PointEnd("arm", "link_2", (0.012, -0.0005, 0.1))
    assert end.label() == "arm.link_2 + (12, -0.5, 100) mm"
    assert Measure(FrameEnd("arm", "tool0"), end).label() == "arm.tool0 → arm.link_2 + (12, -0.5, 100) mm"


def test_a_measure_along_a_trajectory_with_an_end_the_rig_lacks_names_that_end():
    built = snippet_rig().build()
    played = built.play(np.tile(built.initial_commands(), (2, 1)), 0.01)
    gone, link = CentreEnd("magnets", "gone"), FrameEnd("arm", "link_3")
    for m, where in ((measure(gone, link), "measure.a"), (measure(link, gone), "measure.b")):
        with pytest.raises(MeasureError) as err:
            measure_along(m, built, played)
        assert (err.value.code, err.value.file) == ("measure.end", where)
        assert "no magnet 'gone'" in err.value.message


def test_the_rig_s_repr_shows_its_samples_only_when_it_has_some():
    with_bead = snippet_rig(samples={"bead": Sample((0, 0, 0.05), mount="motor.stator")})
    assert "samples={'bead': Sample(at=(0.0, 0.0, 0.05), mount='motor.stator'" in repr(with_bead)
    assert "samples=" not in repr(snippet_rig())
