"""Every rule at its boundaries: just inside and just outside each limit and tolerance, and each condition of
the rule on both sides (movable and fixed joints, prefixed and bare mounts, names with and without dots or
surrounding spaces). Each case states the exact findings, so a loosened or widened rule fails here."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from rig_helpers import DEMO_URDF, SLIDER_URDF, demo_urdf_with, snippet_rig

from mime_gui.multibody.magnitudes import MAX_INERTIA, MAX_LENGTH, MAX_MASS
from mime_gui.rig import (
    RULES,
    AccelerationLimit,
    Apparatus,
    Arm,
    Box,
    Cylinder,
    DeclaredFrame,
    Keyframe,
    Motor,
    Part,
    PermanentMagnet,
    Pose,
    Probe,
    Sphere,
    Spin,
    Trajectory,
    kg,
    kg_m2,
    kg_per_m3,
    tesla,
)
from mime_gui.rig.rules import analyse

up = math.inf


def found(rig) -> list[tuple[str, str]]:
    return [(f.code, f.where) for f in rig.validate()]


def message(rig, code: str) -> str:
    hits = [f.message for f in rig.validate() if f.code == code]
    assert len(hits) == 1, rig.validate()
    return hits[0]


def three_segments(mount: str | None) -> Apparatus:
    """The snippet rig with a third segment, ``tool``, mounted on ``mount``."""
    rig = snippet_rig()
    rig.chain["tool"] = Arm.Kinematic(description=str(DEMO_URDF), mount=mount)
    return rig


# -- chain.placement: a unit quaternion within 1e-6, finite numbers ------------------------------------------
@pytest.mark.parametrize("w, ok", [
    (1.0, True), (1 + 5e-7, True), (1 - 5e-7, True), (1 + 2e-6, False), (1 - 2e-6, False), (0.5, False),
    (-1.0, True),  # -q is the same rotation
])
def test_the_orientation_is_a_unit_quaternion_within_one_millionth(w, ok):
    rig = snippet_rig()
    rig.chain["arm"].orientation = (w, 0.0, 0.0, 0.0)
    assert found(rig) == ([] if ok else [("chain.placement", "chain.arm.orientation")])


@pytest.mark.parametrize("q", [(0.5, 0.5, 0.5, 0.5), (0.0, 0.6, 0.0, 0.8), (0.0, 0.0, 0.0, 1.0)])
def test_every_unit_quaternion_is_accepted_whichever_components_carry_it(q):
    rig = snippet_rig()
    rig.chain["motor"].orientation = q
    assert found(rig) == []


@pytest.mark.parametrize("index", range(4))
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_a_non_finite_orientation_component_is_refused_wherever_it_is(index, bad):
    rig = snippet_rig()
    q = [0.0, 0.0, 0.0, 0.0]
    q[index] = bad
    q[(index + 1) % 4] = 1.0
    rig.chain["motor"].orientation = tuple(q)
    assert found(rig) == [("chain.placement", "chain.motor.orientation")]


@pytest.mark.parametrize("index", range(3))
@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_a_non_finite_at_component_is_refused_wherever_it_is(index, bad):
    rig = snippet_rig()
    at = [0.0, 0.0, 0.0]
    at[index] = bad
    rig.chain["arm"].at = tuple(at)
    rig.parts["holder"].at = tuple(at)
    assert found(rig) == [("chain.placement", "chain.arm.at"), ("part.placement", "parts.holder.at")]


PAST_LENGTH = math.nextafter(MAX_LENGTH, up)


@pytest.mark.parametrize("index", range(3))
@pytest.mark.parametrize("value, ok", [(MAX_LENGTH, True), (-MAX_LENGTH, True), (PAST_LENGTH, False),
                                       (-PAST_LENGTH, False), (1e300, False)])
def test_a_placement_is_within_a_million_metres_on_each_axis(index, value, ok):
    rig = snippet_rig()
    at = [0.0, 0.0, 0.0]
    at[index] = value
    rig.chain["arm"].at = tuple(at)
    rig.parts["holder"].at = tuple(at)
    rig.magnets["m1"].at = tuple(at)
    assert found(rig) == ([] if ok else [("chain.placement", "chain.arm.at"),
                                         ("part.placement", "parts.holder.at"),
                                         ("part.placement", "magnets.m1.at")])


def test_a_far_placement_names_its_bound():
    rig = snippet_rig()
    rig.chain["arm"].at = (0.0, PAST_LENGTH, 0.0)
    assert "each coordinate within ±1e+06 m" in message(rig, "chain.placement")


# -- chain.servo: finite, not negative ---------------------------------------------------------------------
@pytest.mark.parametrize("tau, ok", [(0.0, True), (5e-324, True), (1e300, True), (-5e-324, False),
                                     (-0.1, False), (math.inf, False), (math.nan, False)])
def test_the_servo_time_constant_is_finite_and_not_negative(tau, ok):
    rig = snippet_rig()
    rig.chain["motor"].servo_time_constant = tau
    assert found(rig) == ([] if ok else [("chain.servo", "chain.motor.servo_time_constant")])


# -- chain.mount-first and chain.mount ----------------------------------------------------------------------
@pytest.mark.parametrize("mount, ok", [(None, True), ("", False), ("link_6", False), ("world", False)])
def test_the_first_segment_takes_no_mount_not_even_an_empty_one(mount, ok):
    rig = snippet_rig()
    rig.chain["arm"].mount = mount
    assert found(rig) == ([] if ok else [("chain.mount-first", "chain.arm.mount")])


@pytest.mark.parametrize("mount, resolved", [
    ("rotor", ("motor", "rotor")),      # a frame of the segment before, bare
    ("stator", ("motor", "stator")),
    ("motor.rotor", ("motor", "rotor")),  # the segment before, prefixed
    ("arm.link_3", ("arm", "link_3")),    # an earlier segment, prefixed
    ("arm.tool0", ("arm", "tool0")),
])
def test_a_later_segment_mounts_on_the_one_before_or_a_prefixed_earlier_frame(mount, resolved):
    rig = three_segments(mount)
    assert found(rig) == []
    assert rig.build().segments["tool"].mount == resolved


@pytest.mark.parametrize("mount", [
    "link_3",        # bare: a frame of an earlier segment, but not of the one before
    "arm_link_3",    # the segment's name without its dot
    "armlink_3",
    "arm.",
    ".link_3",
    "arm.link_3 ",   # a trailing space
    "Arm.link_3",    # names are case-sensitive
    "tool.link_3",   # its own frame
    "motor.link_3",  # a frame the named segment does not have
    "arm.rotor",
    "",
])
def test_a_mount_that_is_not_exactly_such_a_frame_is_refused(mount):
    rig = three_segments(mount)
    assert found(rig) == [("chain.mount", "chain.tool.mount")]


def test_a_missing_mount_of_a_later_segment_lists_the_frames_of_the_one_before():
    rig = three_segments(None)
    assert found(rig) == [("chain.mount", "chain.tool.mount")]
    assert message(rig, "chain.mount") == "segment 'tool' must mount on a frame of 'motor': stator, rotor"


def test_a_refused_mount_names_the_frames_of_the_one_before_and_the_prefixed_form_of_the_earlier_ones():
    text = message(three_segments("link_3"), "chain.mount")
    assert text == ("'link_3' is not a frame segment 'tool' can mount on; frames of 'motor': stator, rotor; "
                    "or arm.<frame> of an earlier segment")
    text = message(Apparatus("r", chain={
        "arm": Arm.Kinematic(description=str(DEMO_URDF)),
        "motor": Motor.Kinematic(mount="nowhere")}), "chain.mount")
    assert text.startswith("'nowhere' is not a frame segment 'motor' can mount on; frames of 'arm': ")
    assert "earlier segment" not in text  # only one segment before


def test_a_mount_on_a_segment_whose_description_failed_adds_no_finding_of_its_own(tmp_path):
    rig = three_segments("arm.link_3")
    rig.chain["arm"].description = str(tmp_path / "missing.urdf")
    rig.chain["motor"].mount = "link_6"
    rig.parts["holder"].mount = "arm.link_2"
    assert found(rig) == [("chain.description", "chain.arm.description")]


def test_while_an_earlier_description_fails_later_segment_mounts_wait_for_it(tmp_path):
    rig = three_segments("motor.no_such_frame")
    assert found(rig) == [("chain.mount", "chain.tool.mount")]
    rig.chain["arm"].description = str(tmp_path / "missing.urdf")
    assert found(rig) == [("chain.description", "chain.arm.description")]


# -- part.mount: '<segment>.<frame>' or nowhere --------------------------------------------------------------
@pytest.mark.parametrize("mount", [None, "motor.rotor", "motor.stator", "arm.link_6", "arm.base_link"])
def test_a_part_mounts_on_a_prefixed_frame_of_any_segment_or_in_the_world(mount):
    rig = snippet_rig()
    rig.parts["holder"].mount = mount
    assert found(rig) == []


@pytest.mark.parametrize("mount, hint", [
    ("rotor", True), ("link_6", True), ("motor_rotor", True), ("arm_link_6", True), ("armlink_6", True),
    ("motor.rotor ", False), ("motor.", False), (".rotor", False), ("Motor.rotor", False),
    ("motor.rotor.x", False), ("nowhere.rotor", False), ("motor.link_6", False),
])
def test_a_part_mount_that_is_not_exactly_a_prefixed_frame_is_refused(mount, hint):
    rig = snippet_rig()
    rig.parts["holder"].mount = mount
    assert found(rig) == [("part.mount", "parts.holder.mount")]
    text = message(rig, "part.mount")
    assert ("mount is '<segment>.<frame>'" in text) == hint
    assert "motor.rotor" in text and "arm.link_6" in text


def test_a_part_mount_with_an_empty_chain_says_to_leave_it_out():
    rig = Apparatus("r", parts={"p": Part(Box((0.1, 0.1, 0.1)), material="steel", mount="arm.link_6")})
    assert found(rig) == [("part.mount", "parts.p.mount")]
    assert "the chain is empty, so leave mount out" in message(rig, "part.mount")
    rig.parts["p"].mount = None
    assert found(rig) == []


# -- chain.initial-positions: movable joints, finite, inclusive limits ---------------------------------------
@pytest.mark.parametrize("value, ok", [
    (1.8, True), (-1.8, True), (0.0, True),
    (math.nextafter(1.8, up), False), (math.nextafter(-1.8, -up), False),
    (math.nextafter(1.8, -up), True),
])
def test_an_initial_position_may_sit_exactly_on_a_limit(value, ok):
    rig = snippet_rig()
    rig.chain["arm"].initial_positions = {"joint_2": value}
    assert found(rig) == ([] if ok else [("chain.initial-positions", "chain.arm.initial_positions.joint_2")])


@pytest.mark.parametrize("value, ok", [(0.1, True), (-0.1, True), (0.1000001, False), (-0.1000001, False)])
def test_a_sliding_joint_has_the_same_inclusive_limits(tmp_path, value, ok):
    path = tmp_path / "slider.urdf"
    path.write_text(SLIDER_URDF)
    arm = Arm.Kinematic(description=str(path), initial_positions={"slide": value})
    rig = Apparatus("r", chain={"s": arm})
    assert found(rig) == ([] if ok else [("chain.initial-positions", "chain.s.initial_positions.slide")])


@pytest.mark.parametrize("value", [1e6, -1e6, 7.0])
def test_a_continuous_joint_takes_any_finite_initial_position(value):
    rig = snippet_rig()
    rig.chain["arm"].initial_positions = {"joint_6": value}
    rig.chain["motor"].initial_position = value
    assert found(rig) == []


@pytest.mark.parametrize("joint, value, words", [
    ("tool0_joint", 0.0, "not a movable joint"),   # fixed: exists, and takes no position
    ("joint_9", 0.0, "not a movable joint"),
    ("joint_1", math.nan, "must be finite"),
    ("joint_6", math.inf, "must be finite"),       # continuous: no limit, but still finite
    ("joint_2", -math.inf, "must be finite"),
])
def test_an_initial_position_names_a_movable_joint_and_is_finite(joint, value, words):
    rig = snippet_rig()
    rig.chain["arm"].initial_positions = {joint: value}
    assert found(rig) == [("chain.initial-positions", f"chain.arm.initial_positions.{joint}")]
    assert words in message(rig, "chain.initial-positions")


def test_an_initial_position_of_the_motor_shaft_is_checked_like_an_arms():
    rig = snippet_rig()
    rig.chain["motor"].initial_position = math.nan
    assert found(rig) == [("chain.initial-positions", "chain.motor.initial_positions.shaft")]


# -- chain.motor ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("axis, ok", [
    ((0, 0, 1), True), ((0, 0, 1e-300), True), ((1e300, 1e300, 0), True), ((-2, 0, 0), True),
    ((0, 0, 0), False), ((0, 0, math.nan), False), ((math.inf, 0, 0), False),
])
def test_a_motor_axis_has_a_direction(axis, ok):
    rig = snippet_rig()
    rig.chain["motor"].axis = axis
    assert found(rig) == ([] if ok else [("chain.motor", "chain.motor.axis")])


@pytest.mark.parametrize("inertia, expected", [
    (kg_m2(0.0, reason="r"), []),
    (kg_m2(5e-324, reason="r"), []),
    (kg_m2(-5e-324, reason="r"), [("chain.motor", "chain.motor.inertia")]),
    (kg_m2(math.inf, reason="r"), [("chain.motor", "chain.motor.inertia")]),
    (None, [("chain.motor", "chain.motor.inertia")]),
    (kg(1e-6, reason="r"), [("unit", "chain.motor.inertia")]),
    (0, [("unit", "chain.motor.inertia")]),
])
def test_a_dynamic_motors_rotor_inertia(inertia, expected):
    rig = snippet_rig()
    rig.chain["motor"].inertia = inertia
    assert found(rig) == expected


def test_a_kinematic_motor_needs_no_rotor_inertia():
    rig = snippet_rig()
    rig.chain["motor"] = Motor.Kinematic(axis=(0, 0, 1), mount="link_6")
    assert found(rig) == []


# -- chain.armature ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("value, ok", [(0.0, True), (5e-324, True), (MAX_INERTIA, True),
                                       (math.nextafter(MAX_INERTIA, up), False), (1e300, False),
                                       (-5e-324, False), (math.inf, False), (math.nan, False)])
def test_a_declared_armature_is_finite_not_negative_and_at_most_1e21_kg_m2(value, ok):
    rig = snippet_rig()
    rig.chain["arm"].armature = {"joint_6": kg_m2(value, reason="r")}
    assert found(rig) == ([] if ok else [("chain.armature", "chain.arm.armature.joint_6")])


@pytest.mark.parametrize("value, ok", [(MAX_MASS, True), (math.nextafter(MAX_MASS, up), False),
                                       (MAX_INERTIA, False)])
def test_a_sliding_joints_armature_is_a_mass_of_at_most_1e9_kg(tmp_path, value, ok):
    path = tmp_path / "slider.urdf"
    path.write_text(SLIDER_URDF)
    arm = Arm.Dynamic(description=str(path), armature={"slide": kg(value, reason="r")})
    rig = Apparatus("r", chain={"s": arm})
    assert found(rig) == ([] if ok else [("chain.armature", "chain.s.armature.slide")])
    if not ok:
        assert f"the armature {value:g} kg (declared) is beyond 1e+09 kg" in message(rig, "chain.armature")


@pytest.mark.parametrize("joint, ok", [("joint_1", True), ("joint_6", True), ("tool0_joint", False),
                                       ("joint_9", False), ("link_1", False)])
def test_a_declared_armature_sits_on_a_movable_joint(joint, ok):
    rig = snippet_rig()
    rig.chain["arm"].armature = {joint: kg_m2(1e-4, reason="r")}
    assert found(rig) == ([] if ok else [("chain.armature", f"chain.arm.armature.{joint}")])


def test_a_transmission_to_a_fixed_joint_reflects_nothing_and_is_refused(tmp_path):
    path = demo_urdf_with(tmp_path, """<transmission name="t_tool"><joint name="tool0_joint"/>
        <actuator name="motor_t"><mechanicalReduction>3</mechanicalReduction></actuator></transmission>""")
    rig = snippet_rig(description=str(path))
    rig.chain["arm"].actuators = {"motor_t": kg_m2(1e-5, reason="r")}
    assert found(rig) == [("chain.armature", "chain.arm.actuators.motor_t")]
    text = message(rig, "chain.armature")
    assert "'t_tool'" in text and "'tool0_joint', which is not a movable joint" in text


def test_a_rotor_is_reflected_with_the_reduction_squared():
    rig = snippet_rig()
    rig.chain["arm"].actuators = {"motor_1": kg_m2(1e-5, reason="datasheet"),
                                  "motor_4": kg_m2(2e-5, reason="datasheet")}
    art = rig.build().articulation("arm")
    armature = dict(zip(art.joint_names, art.armature.tolist(), strict=True))
    assert armature["joint_1"] == pytest.approx(1e-5 * 100 * 100, rel=1e-15)
    assert armature["joint_4"] == pytest.approx(2e-5 * 50 * 50, rel=1e-15)  # the transmission's own reduction
    assert armature["joint_6"] == 2e-4  # declared
    assert armature["joint_2"] == 0.0  # neither


#: a rotor that reflects exactly MAX_INERTIA through a reduction of 2**34 (a power of two: exact products)
AT_BOUND = MAX_INERTIA / 2.0 ** 68


@pytest.mark.parametrize("reduction, rotor, expected", [
    (str(2 ** 34), AT_BOUND, []),
    (str(-2 ** 34), AT_BOUND, []),
    (str(2 ** 34), math.nextafter(AT_BOUND, up), "beyond 1e+21 kg m2"),
    (str(-2 ** 34), math.nextafter(AT_BOUND, up), "beyond 1e+21 kg m2"),
    ("1e100", 1.0, "beyond 1e+21 kg m2"),
    ("1e160", 1.0, "beyond the largest number"),  # the square itself overflows
    ("-1e160", 1.0, "beyond the largest number"),
])
def test_a_reflected_armature_is_at_most_1e21_kg_m2_and_refused_at_its_actuator(tmp_path, reduction, rotor,
                                                                                  expected):
    path = demo_urdf_with(tmp_path, f"""<transmission name="t_5"><joint name="joint_5"/>
        <actuator name="motor_5"><mechanicalReduction>{reduction}</mechanicalReduction></actuator>
        </transmission>""")
    rig = snippet_rig(description=str(path))
    rig.chain["arm"].actuators = {"motor_5": kg_m2(rotor, reason="r")}
    if not expected:
        assert found(rig) == []
        art = rig.build().articulation("arm")
        assert art.armature[art.joint_names.index("joint_5")] == MAX_INERTIA
    else:
        assert found(rig) == [("chain.armature", "chain.arm.actuators.motor_5")]
        assert expected in message(rig, "chain.armature")


@pytest.mark.parametrize("reduction", ["four", "0", "nan"])
def test_a_reduction_that_is_no_number_blocks_only_the_armature_reflected_through_it(tmp_path, reduction):
    path = demo_urdf_with(tmp_path, f"""<transmission name="t_5"><joint name="joint_5"/>
        <actuator name="motor_5"><mechanicalReduction>{reduction}</mechanicalReduction></actuator>
        </transmission>""")
    rig = snippet_rig(description=str(path))
    assert found(rig) == []  # nothing asks for an armature through it
    rig.chain["arm"].actuators = {"motor_1": kg_m2(1e-5, reason="r")}  # through another transmission
    assert found(rig) == []
    rig.chain["arm"].actuators["motor_5"] = kg_m2(1e-5, reason="r")
    assert found(rig) == [("chain.armature", "chain.arm.actuators.motor_5")]
    assert "'t_5' of actuator 'motor_5' has no reduction" in message(rig, "chain.armature")
    rig.chain["arm"] = Arm.Kinematic(description=str(path))  # a kinematic arm reflects no armature
    assert found(rig) == []


@pytest.mark.parametrize("value, expected", [
    (kg_m2(0.0, reason="r"), []),
    (kg_m2(-1e-9, reason="r"), [("chain.armature", "chain.arm.actuators.motor_1")]),
    (kg_m2(1e-5), [("declaration.reason", "chain.arm.actuators.motor_1")]),
    (kg(1e-5, reason="r"), [("unit", "chain.arm.actuators.motor_1")]),
    ("example-bldc-45mm-flat", []),
    ("Example-BLDC-45mm-flat", [("chain.armature", "chain.arm.actuators.motor_1")]),
])
def test_an_actuators_rotor_is_a_checked_declaration_or_a_registered_name(value, expected):
    rig = snippet_rig()
    rig.chain["arm"].actuators = {"motor_1": value}
    assert found(rig) == expected


def test_a_kinematic_arm_reflects_no_armature_and_checks_none():
    rig = Apparatus("r", chain={"arm": Arm.Kinematic(description=str(DEMO_URDF))})
    assert found(rig) == []
    assert rig.build().articulation("arm").armature.tolist() == [0.0] * 6


# -- chain.inertia: a dynamic arm's links have physical mass properties -------------------------------------
def link_with(inertial: str, name: str = "antenna", parent: str = "link_6") -> str:
    return (f'<link name="{name}"><inertial>{inertial}</inertial></link>\n<joint name="{name}_joint" '
            f'type="fixed"><parent link="{parent}"/><child link="{name}"/></joint>')


def inertia(izz: str = "1", mass: str = "1") -> str:
    return f'<mass value="{mass}"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="{izz}"/>'


# The reader's tolerance on a principal moment: 1e-6 of the largest (1 here) plus 1e-12.
@pytest.mark.parametrize("inertial, ok", [
    (inertia(mass="0"), True),
    (inertia(mass="-5e-324"), False),
    (inertia(izz="0"), True),
    (inertia(izz="-1.0000005e-6"), True),
    (inertia(izz="-1.0000015e-6"), False),
    ('<inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/>', False),  # no <mass>
])
def test_a_dynamic_arm_needs_physical_mass_properties_and_a_kinematic_one_none(tmp_path, inertial, ok):
    path = demo_urdf_with(tmp_path, link_with(inertial))
    rig = snippet_rig(description=str(path))
    assert found(rig) == ([] if ok else [("chain.inertia", "chain.arm.description")])
    if not ok:
        lines = path.read_text().split("\n")
        (line,) = [i for i, text in enumerate(lines, 1) if '<link name="antenna">' in text]
        text = message(rig, "chain.inertia")
        assert text.startswith("link 'antenna' of 'demo_arm': ")
        assert f"{path}:{line})" in text and "make the segment Arm.Kinematic" in text
    arm = rig.chain["arm"]
    rig.chain["arm"] = Arm.Kinematic(description=arm.description, initial_positions=arm.initial_positions)
    assert found(rig) == []


def test_each_link_without_physical_mass_properties_is_one_finding(tmp_path):
    path = demo_urdf_with(tmp_path, link_with(inertia(izz="-1")) + "\n"
                          + link_with(inertia(mass="-1"), name="probe", parent="link_3"))
    rig = snippet_rig(description=str(path))
    assert found(rig) == [("chain.inertia", "chain.arm.description")] * 2
    texts = [f.message for f in rig.validate()]
    assert texts[0].startswith("link 'antenna' ") and texts[1].startswith("link 'probe' ")


# -- part.geometry, part.mass, part.material ----------------------------------------------------------------
@pytest.mark.parametrize("geometry, ok", [
    (Box((1e-3, 1e-3, 1e-3)), True), (Box((1e-3, 1e-3, 0.0)), False), (Box((1e-3, -1e-3, 1e-3)), False),
    (Box((math.inf, 1, 1)), False), (Cylinder(radius=1e-3, length=0.0), False),
    (Cylinder(radius=0.0, length=1e-3), False), (Cylinder(radius=1e-3, length=1e-3), True),
    (Sphere(radius=1e-3), True), (Sphere(radius=0.0), False), (Sphere(radius=math.nan), False),
])
def test_geometry_sizes_are_finite_and_positive(geometry, ok):
    rig = snippet_rig()
    rig.parts["holder"].geometry = geometry
    assert found(rig) == ([] if ok else [("part.geometry", "parts.holder.geometry")])


def test_a_volume_that_underflows_is_refused():
    rig = snippet_rig()
    rig.parts["holder"].geometry = Box((1e-200, 1e-200, 1e-200))
    assert found(rig) == [("part.geometry", "parts.holder.geometry")]
    assert "not a finite positive number" in message(rig, "part.geometry")


@pytest.mark.parametrize("attr, q, expected", [
    ("mass", kg(0.0, reason="r"), []),
    ("mass", kg(-5e-324, reason="r"), [("part.mass", "parts.holder.mass")]),
    ("mass", kg(math.inf, reason="r"), [("part.mass", "parts.holder.mass")]),
    ("density", kg_per_m3(0.0, reason="r"), []),
    ("density", kg_per_m3(-1.0, reason="r"), [("part.mass", "parts.holder.density")]),
    ("density", kg_per_m3(1e308, reason="r"), [("part.mass", "parts.holder.density")]),
    ("mass", kg(1.0, reason=""), [("declaration.reason", "parts.holder.mass")]),
    ("mass", kg(1.0, reason=" \t"), [("declaration.reason", "parts.holder.mass")]),
    ("mass", kg(1.0, reason="x"), []),
    ("mass", 1, [("unit", "parts.holder.mass")]),
    ("density", kg(1.0, reason="x"), [("unit", "parts.holder.density")]),
])
def test_a_declared_mass_or_density(attr, q, expected):
    rig = snippet_rig()
    setattr(rig.parts["holder"], attr, q)
    assert found(rig) == expected


def test_mass_and_density_together_are_refused_even_when_each_is_valid():
    rig = snippet_rig()
    rig.parts["holder"].mass = kg(0.1, reason="scale")
    assert found(rig) == []
    rig.parts["holder"].density = kg_per_m3(2700, reason="table")
    assert found(rig) == [("part.mass", "parts.holder.mass")]


#: a box of 1 m3 exactly (powers of two), so a density is its mass
UNIT_BOX = Box((0.5, 2.0, 1.0))


@pytest.mark.parametrize("attr, q, ok", [
    ("mass", kg(MAX_MASS, reason="r"), True),
    ("mass", kg(math.nextafter(MAX_MASS, up), reason="r"), False),
    ("density", kg_per_m3(MAX_MASS, reason="r"), True),
    ("density", kg_per_m3(math.nextafter(MAX_MASS, up), reason="r"), False),
])
def test_a_parts_mass_is_at_most_1e9_kg_declared_or_from_its_density(attr, q, ok):
    rig = snippet_rig()
    rig.parts["holder"].geometry = UNIT_BOX
    setattr(rig.parts["holder"], attr, q)
    assert found(rig) == ([] if ok else [("part.mass", f"parts.holder.{attr}")])
    if not ok:
        assert "a part's mass is at most 1e+09 kg" in message(rig, "part.mass")


@pytest.mark.parametrize("size, ok", [(MAX_LENGTH, True), (PAST_LENGTH, False), (1e50, False)])
def test_a_part_size_is_at_most_a_million_metres(size, ok):
    rig = snippet_rig()
    rig.parts["holder"].geometry = Box((size, 1e-3, 1e-3))
    rig.parts["holder"].material = None  # massless: only the size is checked
    rig.magnets["m1"].geometry = Cylinder(radius=1e-3, length=size)
    assert found(rig) == ([] if ok else [("part.geometry", "parts.holder.geometry"),
                                         ("part.geometry", "magnets.m1.geometry")])


def test_a_density_times_a_volume_beyond_the_largest_number_is_refused():
    """Sizes within bounds, a density whose product with the volume overflows: refused, not inf."""
    rig = snippet_rig()
    rig.parts["holder"].geometry = Box((MAX_LENGTH, MAX_LENGTH, MAX_LENGTH))
    rig.parts["holder"].density = kg_per_m3(1e300, reason="r")
    assert found(rig) == [("part.mass", "parts.holder.density")]
    assert "beyond the largest number" in message(rig, "part.mass")


@pytest.mark.parametrize("material, ok", [("aluminium", True), ("Aluminium", True), ("ndfeb n42", True),
                                          ("NdFeB-N42", True), (None, True), ("alumin", False),
                                          ("aluminium2", False), ("", False)])
def test_a_material_is_a_name_of_the_table_whatever_its_case_spaces_and_dashes(material, ok):
    rig = snippet_rig()
    rig.parts["holder"].material = material
    assert found(rig) == ([] if ok else [("part.material", "parts.holder.material")])


# -- magnets -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("m, ok", [((0, 0, 1), True), ((0, 0, 1e-300), True), ((1e300, -1e300, 0), True),
                                   ((0, 0, 0), False), ((0, math.nan, 1), False), ((math.inf, 0, 0), False)])
def test_a_magnetisation_has_a_direction(m, ok):
    rig = snippet_rig()
    rig.magnets["m1"].magnetisation = m
    assert found(rig) == ([] if ok else [("magnet.magnetisation", "magnets.m1.magnetisation")])


@pytest.mark.parametrize("remanence, expected", [
    (tesla(0.0, reason="r"), []),
    (tesla(1.3, reason="r"), []),
    (tesla(-5e-324, reason="r"), [("magnet.remanence", "magnets.m1.remanence")]),
    (tesla(math.inf, reason="r"), [("magnet.remanence", "magnets.m1.remanence")]),
    (tesla(1.3), [("declaration.reason", "magnets.m1.remanence")]),
    (1.3, [("unit", "magnets.m1.remanence")]),
])
def test_a_declared_remanence(remanence, expected):
    rig = snippet_rig()
    rig.magnets["m1"].remanence = remanence
    assert found(rig) == expected


@pytest.mark.parametrize("br, ok", [(100.0, True), (math.nextafter(100.0, up), False), (1e300, False)])
def test_a_declared_remanence_is_at_most_100_tesla(br, ok):
    rig = snippet_rig()
    rig.magnets["m1"].remanence = tesla(br, reason="r")
    rig.magnets["m1"].material = None
    assert found(rig) == ([] if ok else [("magnet.remanence", "magnets.m1.remanence")])
    if not ok:
        assert "beyond 100 T" in message(rig, "magnet.remanence")


def test_a_moment_at_the_largest_sizes_and_remanence_is_finite():
    rig = snippet_rig()
    rig.magnets["m1"].geometry = Box((MAX_LENGTH, MAX_LENGTH, MAX_LENGTH))
    rig.magnets["m1"].remanence = tesla(100.0, reason="r")
    rig.magnets["m1"].material = None
    assert found(rig) == []
    moment = analyse(rig).moments["m1"].moment  # Br V / mu0, mu0 = 1.25663706212e-6 T m/A (CODATA 2018)
    assert moment == pytest.approx(100.0 * 1e18 / 1.25663706212e-6, rel=1e-10)


def test_a_magnet_with_no_material_and_no_remanence_is_refused():
    rig = snippet_rig()
    rig.magnets["m1"].material = None
    assert found(rig) == [("magnet.remanence", "magnets.m1.remanence")]
    assert "it names no magnetic material" in message(rig, "magnet.remanence")


def test_a_permanent_magnet_among_the_parts_is_checked_as_a_magnet():
    rig = snippet_rig()
    rig.parts["extra"] = PermanentMagnet(Sphere(radius=0.002), material="NdFeB-N42", magnetisation=(0, 0, 0))
    assert found(rig) == [("magnet.magnetisation", "parts.extra.magnetisation")]


# -- names ---------------------------------------------------------------------------------------------------
PART_NAMES = [
    ("holder", True), ("a b", True), ("ä", True), ("x-1_2", True),
    ("a.b", False), (".a", False), ("a.", False), (" a", False), ("a ", False), ("\ta", False),
    ("a\n", False), ("a\u00a0", False), ("", False), ("\ud800", False),
]


def plain_ids(cases) -> list[str]:
    """Ids pytest can select by on its command line: printable ASCII only."""
    return [f"{i}-{ascii(c[0]).replace(chr(92), '^')}" for i, c in enumerate(cases)]


@pytest.mark.parametrize("name, ok", PART_NAMES, ids=plain_ids(PART_NAMES))
def test_a_part_name_is_text_without_dots_or_surrounding_spaces(name, ok):
    rig = snippet_rig()
    rig.parts[name] = rig.parts.pop("holder")
    assert found(rig) == ([] if ok else [("name.invalid", f"parts.{name}")])


@pytest.mark.parametrize("collection", ["chain", "magnets"])
def test_segment_and_magnet_names_follow_the_same_rule(collection):
    rig = Apparatus("r", chain={"arm": Arm.Kinematic(description=str(DEMO_URDF))},
                    magnets={"m": PermanentMagnet(Sphere(radius=0.002), material="NdFeB-N42")})
    box = getattr(rig, collection)
    box["x.y"] = box.pop(next(iter(box)))
    assert found(rig) == [("name.invalid", f"{collection}.x.y")]


@pytest.mark.parametrize("name, ok", [("rig", True), ("my rig", True), ("v1.2", True), ("", False),
                                      ("   ", False), ("\ud800", False)],
                         ids=["rig", "my-rig", "v1.2", "empty", "blank", "lone-surrogate"])
def test_the_apparatus_name_is_non_empty_text(name, ok):
    rig = snippet_rig()
    rig.name = name
    assert found(rig) == ([] if ok else [("name.invalid", "name")])


def test_names_are_distinct_across_collections_and_case_sensitive():
    rig = snippet_rig()
    rig.parts["Arm"] = rig.parts.pop("holder")
    assert found(rig) == []
    rig.magnets["motor"] = rig.magnets.pop("m1")
    assert found(rig) == [("name.duplicate", "magnets.motor")]
    assert message(rig, "name.duplicate") == "'motor' is already the name of chain.motor; rename one"


@pytest.mark.parametrize("value, ok", [(1.8, True), (math.nextafter(1.8, up), False), (-1.8, True),
                                       (math.nextafter(-1.8, -up), False), (math.inf, False)],
                         ids=["upper", "above", "lower", "below", "infinite"])
def test_a_pose_value_at_and_beyond_its_joint_s_limits(value, ok):
    rig = snippet_rig(poses={"p": Pose({"arm": {"joint_2": value}, "motor": {"shaft": 1e9}})})
    assert found(rig) == ([] if ok else [("pose.limits", "poses.p.arm.joint_2")])


@pytest.mark.parametrize("names, bad", [(["Home", "home"], ["home"]), (["home", "home2"], []),
                                        (["p", "p "], ["p "]), (["p", " p"], [" p"]), (["p.q"], ["p.q"]),
                                        (["p_q"], []), (["\ud800"], ["\ud800"])],
                         ids=["case", "distinct", "trailing-space", "leading-space", "dot", "underscore",
                              "surrogate"])
def test_pose_names_at_the_boundaries(names, bad):
    rig = snippet_rig(poses={n: Pose({}) for n in names})
    assert found(rig) == [("pose.name", f"poses.{n}") for n in bad]


@pytest.mark.parametrize("unit, joint, ok", [("deg", "joint_1", True), ("rad", "joint_1", True),
                                             ("m", "joint_1", False), ("mm", "joint_1", False),
                                             ("deg", "joint_6", True), ("mm", "joint_6", False)])
def test_a_pose_value_s_own_unit_is_of_its_joint_s_kind(unit, joint, ok):
    rig = snippet_rig(poses={"p": Pose({"arm": {joint: 0.0}}, units={"arm": {joint: unit}})})
    assert found(rig) == ([] if ok else [("pose.unit", f"poses.p.arm.{joint}")])


# -- declared frames: valid names, mounts on the chain's frames, finite offsets, unit quaternions ------------
@pytest.mark.parametrize("index", range(3))
@pytest.mark.parametrize("value, ok", [(MAX_LENGTH, True), (-MAX_LENGTH, True), (PAST_LENGTH, False),
                                       (-PAST_LENGTH, False), (math.nan, False)])
def test_a_declared_frame_is_within_a_million_metres_on_each_axis(index, value, ok):
    at = [0.0, 0.0, 0.0]
    at[index] = value
    rig = snippet_rig(frames={"f": DeclaredFrame("arm.tool0", at=tuple(at))})
    assert found(rig) == ([] if ok else [("frame.at", "frames.f.at")])


@pytest.mark.parametrize("w, ok", [(1.0, True), (1 + 5e-7, True), (1 - 5e-7, True), (1 + 2e-6, False),
                                   (1 - 2e-6, False), (-1.0, True), (0.0, False)])
def test_a_declared_frame_s_orientation_is_a_unit_quaternion_within_one_millionth(w, ok):
    rig = snippet_rig(frames={"f": DeclaredFrame("arm.tool0", orientation=(w, 0.0, 0.0, 0.0))})
    assert found(rig) == ([] if ok else [("frame.orientation", "frames.f.orientation")])


@pytest.mark.parametrize("mount, ok", [("arm.tool0", True), ("motor.rotor", True), ("arm.g", True),
                                       ("tool0", False), ("arm.rotor", False), ("nowhere.tool0", False),
                                       ("motor.g", False), ("arm.f", False)])
def test_a_declared_frame_mounts_on_a_frame_of_its_segment(mount, ok):
    rig = snippet_rig(frames={"f": DeclaredFrame(mount), "g": DeclaredFrame("arm.link_2")})
    assert found(rig) == ([] if ok else [("frame.mount", "frames.f.mount")])


@pytest.mark.parametrize("name, ok", [("f", True), ("Tool0", True), ("f_1", True), ("tool0", False),
                                      ("tool0_joint", False), ("f.g", False), ("f ", False), ("f:g", False),
                                      ("", False)])
def test_declared_frame_names_at_the_boundaries(name, ok):
    rig = snippet_rig(frames={name: DeclaredFrame("arm.link_6")})
    assert found(rig) == ([] if ok else [("frame.name", f"frames.{name}")])


# -- trajectories: names, segments, joints, times, values, poses, interpolations, frames, spins, limits ----
def _with_trajectory(segments, name="t", limits=None, poses=None):
    return snippet_rig(trajectories={name: Trajectory(segments, acceleration_limits=limits or {})},
                       poses=poses or {})


@pytest.mark.parametrize("name, ok", [("t", True), ("Sweep 1", True), ("t.1", False), (" t", False),
                                      ("", False)])
def test_trajectory_names_at_the_boundaries(name, ok):
    rig = _with_trajectory({"arm": [Keyframe(1.0)]}, name=name)
    assert found(rig) == ([] if ok else [("trajectory.name", f"trajectories.{name}")])


def test_trajectory_names_differ_in_more_than_case():
    rig = snippet_rig(trajectories={"T": Trajectory({}), "t": Trajectory({})})
    assert found(rig) == [("trajectory.name", "trajectories.t")]


@pytest.mark.parametrize("segment, ok", [("arm", True), ("motor", True), ("Arm", False), ("tool", False)])
def test_a_trajectory_names_segments_of_the_chain(segment, ok):
    rig = _with_trajectory({segment: [Keyframe(1.0)]})
    assert found(rig) == ([] if ok else [("trajectory.segment", f"trajectories.t.segments.{segment}")])


@pytest.mark.parametrize("joint, ok", [("joint_1", True), ("joint_6", True), ("joint_7", False),
                                       ("tool0_joint", False), ("shaft", False)])
def test_a_keyframe_names_commandable_joints_of_its_segment(joint, ok):
    rig = _with_trajectory({"arm": [Keyframe(1.0, values={joint: 0.0})]})
    expected = [("trajectory.joint", f"trajectories.t.segments.arm.0.values.{joint}")]
    assert found(rig) == ([] if ok else expected)


@pytest.mark.parametrize("times, bad", [((0.0, 1.0), None), ((1.0, 1.0 + 1e-9), None), ((1.0, 1.0), 1),
                                        ((1.0, 0.5), 1), ((-1e-12, 1.0), 0), ((1.0, 1e9), None),
                                        ((1.0, 1.0000001e9), 1), ((math.nan, 1.0), 0)])
def test_keyframe_times_start_at_0_and_increase(times, bad):
    rig = _with_trajectory({"arm": [Keyframe(t) for t in times]})
    expected = [("trajectory.time", f"trajectories.t.segments.arm.{bad}.time")]
    assert found(rig) == ([] if bad is None else expected)


@pytest.mark.parametrize("value, unit, ok", [(1.8, "rad|m", True), (-1.8, "rad|m", True),
                                             (1.8000001, "rad|m", False), (103.1, "deg|m", True),
                                             (103.2, "deg|m", False), (math.inf, "rad|m", False)])
def test_a_keyframe_s_values_are_within_their_joints_limits(value, unit, ok):
    trajectory = Trajectory({"arm": [Keyframe(1.0, values={"joint_2": value})]}, unit)
    expected = [("trajectory.value", "trajectories.t.segments.arm.0.values.joint_2")]
    assert found(snippet_rig(trajectories={"t": trajectory})) == ([] if ok else expected)


@pytest.mark.parametrize("pose, ok", [("p", True), ("P", False), ("q", False), ("motor only", False)])
def test_a_keyframe_s_pose_exists_and_gives_its_segment_positions(pose, ok):
    poses = {"p": Pose({"arm": {"joint_1": 0.2}}), "motor only": Pose({"motor": {"shaft": 1.0}})}
    rig = _with_trajectory({"arm": [Keyframe(1.0, pose=pose)]}, poses=poses)
    assert found(rig) == ([] if ok else [("trajectory.pose", "trajectories.t.segments.arm.0.pose")])


@pytest.mark.parametrize("kind, ok", [("linear", True), ("cubic", True), ("quintic", True), ("hold", True),
                                      ("Linear", False), ("", False)])
def test_interpolations_are_the_known_ones(kind, ok):
    rig = _with_trajectory({"arm": [Keyframe(1.0, interpolation=kind)]})
    expected = [("trajectory.interpolation", "trajectories.t.segments.arm.0.interpolation")]
    assert found(rig) == ([] if ok else expected)


@pytest.mark.parametrize("kind, frame, where", [("line", "tool0", None), ("line", "f", None),
                                                ("line", "link_1", None), ("line", None, ""),
                                                ("line", "rotor", ".frame"), ("linear", "tool0", ".frame")])
def test_a_line_and_only_a_line_names_a_frame_of_its_segment(kind, frame, where):
    trajectory = Trajectory({"arm": [Keyframe(1.0, interpolation=kind, frame=frame)]})
    frames = {"f": DeclaredFrame("arm.tool0", at=(0, 0, 0.01))}
    rig = snippet_rig(trajectories={"t": trajectory}, frames=frames)
    expected = [("trajectory.frame", f"trajectories.t.segments.arm.0{where}")]
    assert found(rig) == ([] if where is None else expected)


@pytest.mark.parametrize("spin, time, where", [
    (Spin(5, ramp=1, hold=2), 4.0, None),
    (Spin(5, ramp=1, hold=2), 4.0 - 1e-9, ".time"),
    (Spin(300, "rpm", ramp=0.5, turns=10), 3.0, None),  # 5 Hz: 10 turns in 2 s
    (Spin(300, "rpm", ramp=0.5, turns=10), 2.99, ".time"),
    (Spin(-5, ramp=0, hold=1), 1.0, None),
    (Spin(0, ramp=0, hold=1), 1.0, ".spin.frequency"),
    (Spin(1e6, ramp=0, hold=1), 1.0, None),
    (Spin(1.0000001e6, ramp=0, hold=1), 1.0, ".spin.frequency"),
    (Spin(5, "rad/s", ramp=0, hold=1), 1.0, ".spin.frequency"),
    (Spin(5, ramp=-1e-9, hold=1), 1.0, ".spin.ramp"),
    (Spin(5, ramp=1), 2.0, ".spin"),
    (Spin(5, ramp=1, hold=1, turns=5), 5.0, ".spin"),
    (Spin(5, ramp=1, hold=-1), 5.0, ".spin.hold"),
    (Spin(5, ramp=1, turns=math.inf), 5.0, ".spin.turns"),
])
def test_a_spin_s_profile_is_finite_and_ends_by_its_keyframe(spin, time, where):
    rig = _with_trajectory({"motor": [Keyframe(time, interpolation="spin", spin=spin)]})
    expected = [("trajectory.spin", f"trajectories.t.segments.motor.0{where}")]
    assert found(rig) == ([] if where is None else expected)


@pytest.mark.parametrize("key, where", [
    (Keyframe(5.0, interpolation="spin", spin=Spin(5, hold=1), values={"shaft": 1.0}), ""),
    (Keyframe(5.0, interpolation="linear", spin=Spin(5, hold=1)), ".spin"),
    (Keyframe(5.0, interpolation="spin"), ""),
])
def test_a_spin_and_only_a_spin_has_a_profile_and_no_values(key, where):
    rig = _with_trajectory({"motor": [key]})
    assert ("trajectory.spin", f"trajectories.t.segments.motor.0{where}") in found(rig)


@pytest.mark.parametrize("joint, limit, code", [
    ("joint_1", AccelerationLimit(1e-300, "rad/s2", "r"), None),
    ("*", AccelerationLimit(90, "deg/s2", "r"), None),
    ("joint_1", AccelerationLimit(0.0, "rad/s2", "r"), "trajectory.limits"),
    ("joint_1", AccelerationLimit(math.inf, "rad/s2", "r"), "trajectory.limits"),
    ("joint_1", AccelerationLimit(1.0, "m/s2", "r"), "trajectory.limits"),
    ("joint_1", AccelerationLimit(1.0, "rad/s", "r"), "trajectory.limits"),
    ("joint_1", AccelerationLimit(1.0, "rad/s2", " "), "declaration.reason"),
    ("joint_7", AccelerationLimit(1.0, "rad/s2", "r"), "trajectory.joint"),
])
def test_acceleration_limits_are_positive_of_their_joint_s_kind_with_a_reason(joint, limit, code):
    rig = _with_trajectory({"arm": [Keyframe(1.0)]}, limits={"arm": {joint: limit}})
    expected = [(code, f"trajectories.t.acceleration_limits.arm.{joint}")]
    assert found(rig) == ([] if code is None else expected)


def test_every_rule_has_a_boundary_case_here():
    """The codes exercised above: a new rule needs its boundaries added to this file."""
    covered = {"chain.mount-first", "chain.mount", "chain.description", "chain.inertia", "chain.placement",
               "chain.initial-positions", "chain.servo", "chain.motor", "chain.armature", "part.mount",
               "part.placement", "part.geometry", "part.material", "part.mass", "magnet.magnetisation",
               "magnet.remanence", "declaration.reason", "unit", "name.duplicate", "name.invalid",
               "probe.mount", "probe.placement", "probe.inside-magnet", "pose.name", "pose.segment",
               "pose.joint", "pose.unit", "pose.limits", "frame.name", "frame.mount", "frame.at",
               "frame.orientation", "trajectory.name", "trajectory.segment", "trajectory.joint",
               "trajectory.time", "trajectory.value", "trajectory.pose", "trajectory.interpolation",
               "trajectory.frame", "trajectory.spin", "trajectory.limits",
               "sample.name", "sample.mount", "sample.placement", "sample.moment", "sample.geometry",
               "sample.material", "sample.remanence", "sample.magnetisation", "sample.orientation",
               "zone.name", "zone.mount", "zone.placement", "zone.shape", "zone.limit", "zone.reason",
               "clearance.declaration", "clearance.allow", "chain.field-tolerance", "sample.drag",
               "target.name", "target.at"}
    assert covered == set(RULES)


# -- a segment's field tolerance in (0, 100] T and a sample's drag in (0, 1e6] N m s, each with its reason ---
@pytest.mark.parametrize("value, ok", [(5e-324, True), (100.0, True), (0.0, False), (-5e-324, False),
                                       (math.nextafter(100.0, up), False), (math.inf, False),
                                       (math.nan, False)])
def test_a_field_tolerance_is_positive_and_at_most_100_tesla(value, ok):
    rig = snippet_rig()
    rig.chain["arm"].field_tolerance = tesla(value, reason="the encoders' datasheet")
    assert found(rig) == ([] if ok else [("chain.field-tolerance", "chain.arm.field_tolerance")])


@pytest.mark.parametrize("q, expected", [
    (None, []),
    (0.005, [("unit", "chain.motor.field_tolerance")]),
    (kg(0.005, reason="datasheet"), [("unit", "chain.motor.field_tolerance")]),
    (tesla(0.005), [("declaration.reason", "chain.motor.field_tolerance")]),
    (tesla(0.005, reason=" "), [("declaration.reason", "chain.motor.field_tolerance")]),
])
def test_a_field_tolerance_is_a_flux_density_with_its_reason(q, expected):
    rig = snippet_rig()
    rig.chain["motor"].field_tolerance = q
    assert found(rig) == expected


@pytest.mark.parametrize("value, ok", [(5e-324, True), (1e6, True), (0.0, False), (-5e-324, False),
                                       (math.nextafter(1e6, up), False), (math.inf, False),
                                       (math.nan, False)])
def test_a_samples_drag_is_positive_and_at_most_1e6_n_m_s(value, ok):
    from mime_gui.rig import Quantity, Sample, a_m2

    rig = snippet_rig()
    rig.samples["s"] = Sample((0.0, 0.0, 0.1), moment=a_m2(1e-3, reason="a VSM measurement"),
                              orientation="follows", drag=Quantity(value, "N m s", reason="Stokes, 8πηr³"))
    assert found(rig) == ([] if ok else [("sample.drag", "samples.s.drag")])


@pytest.mark.parametrize("orientation, drag, expected", [
    ("follows", None, []),
    ("fixed", None, []),
    ("fixed", 1e-9, [("sample.drag", "samples.s.drag")]),  # held by its mount: it never steps out
    ("follows", "bare", [("unit", "samples.s.drag")]),
    ("follows", "no reason", [("declaration.reason", "samples.s.drag")]),
])
def test_a_drag_is_declared_with_its_reason_on_a_sample_that_follows(orientation, drag, expected):
    from mime_gui.rig import Sample, a_m2, n_m_s

    q = {None: None, "bare": 1e-9, "no reason": n_m_s(1e-9)}.get(drag, drag)
    if isinstance(q, float) and drag != "bare":
        q = n_m_s(q, reason="Stokes")
    rig = snippet_rig()
    rig.samples["s"] = Sample((0.0, 0.0, 0.1), moment=a_m2(1e-3, reason="a VSM measurement"),
                              orientation=orientation, drag=q)
    assert found(rig) == expected


# -- clearance: a declared margin in [0, 1e6] m with a reason; allowed pairs name two items, once, with why
@pytest.mark.parametrize("margin, ok", [(0.0, True), (MAX_LENGTH, True), (-5e-324, False),
                                        (PAST_LENGTH, False), (math.inf, False), (math.nan, False)])
def test_a_declared_margin_is_at_least_zero_and_at_most_a_million_metres(margin, ok):
    from mime_gui.rig import Clearance

    rig = snippet_rig()
    rig.clearance = Clearance(margin, reason="the servo's tracking error")
    assert found(rig) == ([] if ok else [("clearance.declaration", "clearance.margin")])


def test_a_declared_margin_says_why_and_the_default_needs_no_reason():
    from mime_gui.rig import Clearance

    rig = snippet_rig()
    rig.clearance = Clearance(0.002, reason=" ")
    assert found(rig) == [("clearance.declaration", "clearance.reason")]
    rig.clearance = Clearance()
    assert found(rig) == []


@pytest.mark.parametrize("first, second, reason, expected", [
    ("parts.holder", "arm.link_6", "seated", []),
    ("magnets.m1", "motor.rotor", "seated", []),  # a frame of a later segment
    ("parts.holder", "parts.holder", "seated", [("clearance.allow", "clearance.allow.0")]),
    ("parts.holder", "arm.link_9", "seated", []),  # no such item: the check warns, the rules hold
    ("parts.holder", "arm.link_6", None, [("clearance.allow", "clearance.allow.0.reason")]),
])
def test_an_allowed_pair_names_two_different_items_with_a_reason(first, second, reason, expected):
    from mime_gui.rig import Allowed, Clearance

    rig = snippet_rig()
    rig.clearance = Clearance(allow=(Allowed(first, second, reason=reason),))
    assert found(rig) == expected


def test_a_pair_allowed_twice_in_either_order_is_a_finding():
    from mime_gui.rig import Allowed, Clearance

    rig = snippet_rig()
    rig.clearance = Clearance(allow=(Allowed("parts.holder", "arm.link_6", reason="seated"),
                                     Allowed("arm.link_6", "parts.holder", reason="seated")))
    assert found(rig) == [("clearance.allow", "clearance.allow.1")]


def test_two_different_pairs_allowed_that_share_an_item_are_no_finding():
    from mime_gui.rig import Allowed, Clearance

    rig = snippet_rig()
    rig.clearance = Clearance(allow=(Allowed("parts.holder", "arm.link_6", reason="seated"),
                                     Allowed("parts.holder", "magnets.m1", reason="glued in")))
    assert found(rig) == []


@pytest.mark.parametrize("description", ["", "   ", "arm\x00.urdf"], ids=["empty", "blank", "nul"])
def test_a_description_that_is_no_path_is_refused_before_reading(description):
    rig = snippet_rig()
    rig.chain["arm"].description = description
    assert found(rig)[0] == ("chain.description", "chain.arm.description")
    assert "is not the path of a URDF file" in message(rig, "chain.description")


# -- probes: on a frame of the chain or in the world, finite, never inside a magnet on the same frame ------
@pytest.mark.parametrize("mount, ok", [(None, True), ("motor.rotor", True), ("arm.link_3", True),
                                       ("motor.nothing", False), ("rotor", False), ("nowhere.rotor", False)])
def test_a_probe_mounts_on_a_frame_of_the_chain_or_in_the_world(mount, ok):
    rig = snippet_rig(probes={"sample": Probe((0.0, 0.0, 0.1), mount=mount)})
    assert found(rig) == ([] if ok else [("probe.mount", "probes.sample.mount")])


def test_a_probe_on_a_missing_frame_names_the_frames_that_exist():
    rig = snippet_rig(probes={"sample": Probe((0.0, 0.0, 0.1), mount="motor.shaft")})
    assert "motor.rotor" in message(rig, "probe.mount")


@pytest.mark.parametrize("x, ok", [(MAX_LENGTH, True), (-MAX_LENGTH, True), (MAX_LENGTH * 1.000001, False),
                                   (math.inf, False), (math.nan, False)])
def test_a_probe_is_placed_at_a_finite_point(x, ok):
    rig = snippet_rig(probes={"sample": Probe((x, 0.0, 0.0))})
    assert found(rig) == ([] if ok else [("probe.placement", "probes.sample.at")])


# m1 is a cylinder of radius 5 mm, 10 mm long, centred at z = 25 mm on motor.rotor
@pytest.mark.parametrize("at, ok", [
    ((0.0, 0.0, 0.025), False), ((0.0049, 0.0, 0.0201), False),  # inside, near an edge
    ((0.005, 0.0, 0.025), True), ((0.0, 0.0, 0.03), True), ((0.0, 0.0, 0.02), True),  # on its surface
    ((0.0051, 0.0, 0.025), True), ((0.0, 0.0, 0.0301), True),  # just outside
], ids=["centre", "near-edge", "side", "top", "bottom", "beside", "above"])
def test_a_probe_inside_a_magnet_on_the_same_frame_is_refused_and_its_surface_is_outside(at, ok):
    rig = snippet_rig(probes={"sample": Probe(at, mount="motor.rotor")})
    assert found(rig) == ([] if ok else [("probe.inside-magnet", "probes.sample.at")])


def test_a_probe_inside_a_magnet_fixed_in_the_world_is_refused_and_other_frames_are_left_to_the_field():
    rig = snippet_rig(probes={"sample": Probe((0.1, 0.0, 0.0))})
    rig.magnets["m2"] = PermanentMagnet(Box((0.01, 0.02, 0.03)), material="NdFeB-N42", at=(0.1, 0.0, 0.0))
    rig.magnets["m3"] = PermanentMagnet(Sphere(0.01), material="NdFeB-N42", at=(0.1, 0.0, 0.0),
                                        mount="arm.link_2")
    assert found(rig) == [("probe.inside-magnet", "probes.sample.at")]
    assert "'m2'" in message(rig, "probe.inside-magnet")


def test_a_probe_shares_the_one_namespace_of_names():
    rig = snippet_rig(probes={"m1": Probe((0.0, 0.0, 0.1))})
    assert found(rig) == [("name.duplicate", "probes.m1")]


# -- samples and zones: a declared moment in (0, 1e6] A m2, placements and sizes within ±1e6 m, a limit in
# (0, 100] T -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("value, ok", [(5e-324, True), (1e6, True), (0.0, False),
                                       (math.nextafter(1e6, up), False), (math.inf, False),
                                       (math.nan, False)])
def test_a_samples_declared_moment_is_positive_and_at_most_1e6_a_m2(value, ok):
    from mime_gui.rig import Sample, a_m2

    rig = snippet_rig()
    rig.samples["s"] = Sample((0.0, 0.0, 0.1), moment=a_m2(value, reason="a VSM measurement"))
    assert found(rig) == ([] if ok else [("sample.moment", "samples.s.moment")])


@pytest.mark.parametrize("x, ok", [(MAX_LENGTH, True), (-MAX_LENGTH, True), (PAST_LENGTH, False),
                                   (math.nan, False)])
def test_a_sample_and_a_zone_are_placed_within_a_million_metres(x, ok):
    from mime_gui.rig import Sample, Zone, a_m2

    rig = snippet_rig()
    rig.samples["s"] = Sample((x, 0.0, 0.0), moment=a_m2(1e-3, reason="a VSM measurement"))
    rig.zones["z"] = Zone((0.0, x, 0.0), sphere=0.1, reason="the operator")
    assert found(rig) == ([] if ok else [("sample.placement", "samples.s.at"),
                                         ("zone.placement", "zones.z.at")])


@pytest.mark.parametrize("at, ok", [
    ((1, -2, 0), True), ((Fraction(1, 3), 0, 0), True), ((-10**20, 0, 10**20), False),
], ids=["small whole numbers", "a fraction", "whole numbers past a million metres"])
def test_a_sample_moved_to_exact_numbers_is_placed_by_their_values(at, ok):
    from mime_gui.rig import Sample, a_m2

    rig = snippet_rig()
    rig.samples["s"] = Sample((0.0, 0.0, 0.1), moment=a_m2(1e-3, reason="a VSM measurement"))
    rig.samples["s"].at = at  # set after it was made, as a script moves it: not turned into floats
    assert found(rig) == ([] if ok else [("sample.placement", "samples.s.at")])


@pytest.mark.parametrize("size, ok", [(5e-324, True), (MAX_LENGTH, True), (0.0, False), (PAST_LENGTH, False),
                                      (-1.0, False), (math.inf, False)])
def test_a_zones_sizes_are_positive_and_at_most_a_million_metres(size, ok):
    from mime_gui.rig import Zone

    rig = snippet_rig()
    rig.zones["box"] = Zone(box=(1.0, size, 1.0), reason="the operator")
    rig.zones["ball"] = Zone(sphere=size, reason="a sensor")
    assert found(rig) == ([] if ok else [("zone.shape", "zones.box.box"),
                                         ("zone.shape", "zones.ball.sphere")])


@pytest.mark.parametrize("limit, ok", [(5e-324, True), (100.0, True), (0.0, False), (-5e-4, False),
                                       (math.nextafter(100.0, up), False), (math.nan, False)])
def test_a_zones_limit_is_positive_and_at_most_100_tesla(limit, ok):
    from mime_gui.rig import Zone

    rig = snippet_rig()
    rig.zones["z"] = Zone(sphere=0.1, limit=limit, reason="the operator")
    assert found(rig) == ([] if ok else [("zone.limit", "zones.z.limit")])


@pytest.mark.parametrize("mount, ok", [(None, True), ("motor.rotor", True), ("arm.tool0", True),
                                       ("motor.shaft", False), ("rotor", False), ("", False)])
def test_a_sample_and_a_zone_mount_on_a_frame_of_the_chain_or_in_the_world(mount, ok):
    from mime_gui.rig import Sample, Zone, a_m2

    rig = snippet_rig()
    rig.samples["s"] = Sample((0.0, 0.0, 0.1), mount=mount, moment=a_m2(1e-3, reason="a VSM measurement"))
    rig.zones["z"] = Zone(sphere=0.1, mount=mount, reason="the operator")
    assert found(rig) == ([] if ok else [("sample.mount", "samples.s.mount"),
                                         ("zone.mount", "zones.z.mount")])


@pytest.mark.parametrize("name, ok", [("bead", True), ("bead 2", True), ("m1", False), ("holder", False),
                                      ("arm", False), ("a.b", False), (" bead", False), ("", False)])
def test_a_samples_and_a_zones_name_is_their_own(name, ok):
    from mime_gui.rig import Sample, Zone, a_m2

    rig = snippet_rig()
    rig.samples[name] = Sample((0.0, 0.0, 0.1), moment=a_m2(1e-3, reason="a VSM measurement"))
    assert found(rig) == ([] if ok else [("sample.name", f"samples.{name}")])
    rig.samples.clear()
    rig.zones[name] = Zone(sphere=0.1, reason="the operator")
    assert found(rig) == ([] if ok else [("zone.name", f"zones.{name}")])


@pytest.mark.parametrize("kw, expected", [
    ({"geometry": Sphere(5e-4), "material": "NdFeB-N42"}, []),
    ({"geometry": Sphere(5e-4), "remanence": tesla(100.0, reason="r")}, []),
    ({"geometry": Sphere(5e-4), "remanence": tesla(math.nextafter(100.0, up), reason="r")},
     [("sample.remanence", "remanence")]),
    ({"geometry": Sphere(0.0), "material": "NdFeB-N42"}, [("sample.geometry", "geometry")]),
    ({"geometry": Sphere(5e-4), "material": "aluminium"}, [("sample.remanence", "remanence")]),
    ({"geometry": Sphere(5e-4), "material": "steel?"}, [("sample.material", "material"),
                                                        ("sample.remanence", "remanence")]),
    ({"geometry": Sphere(5e-4), "material": "NdFeB-N42", "magnetisation": (0.0, 0.0, 0.0)},
     [("sample.magnetisation", "magnetisation")]),
    ({"geometry": Sphere(5e-4), "material": "NdFeB-N42", "orientation": "Follows"},
     [("sample.orientation", "orientation")]),
    ({"geometry": Sphere(5e-4), "material": "NdFeB-N42", "orientation": "follows"}, []),
])
def test_a_shaped_samples_remanence_geometry_magnetisation_and_orientation(kw, expected):
    from mime_gui.rig import Sample

    rig = snippet_rig()
    rig.samples["s"] = Sample((0.0, 0.0, 0.1), **kw)
    assert sorted(found(rig)) == sorted((code, f"samples.s.{w}") for code, w in expected)


@pytest.mark.parametrize("reason, ok", [("the operator", True), ("x", True), ("", False), ("  ", False),
                                        (None, False)])
def test_a_zone_says_why_it_is_there(reason, ok):
    from mime_gui.rig import Zone

    rig = snippet_rig()
    rig.zones["z"] = Zone(sphere=0.1, reason=reason)
    assert found(rig) == ([] if ok else [("zone.reason", "zones.z.reason")])


@pytest.mark.parametrize("names, expected", [
    (("spin", "hold"), []),
    (("spin", "Spin"), [("target.name", "targets.Spin")]),  # only in case: the second is named
    (("spin", " spin"), [("target.name", "targets. spin")]),
    (("", "x"), [("target.name", "targets.")]),
])
def test_target_names_differ_in_more_than_case(names, expected):
    from mime_gui.rig.targets import FieldTarget

    rig = snippet_rig()
    rig.probes = {"dish": Probe((0.3, 0.0, 0.1))}
    for n in names:
        rig.targets[n] = FieldTarget("probes.dish", direction=(0, 0, 1))
    assert found(rig) == expected


@pytest.mark.parametrize("at, ok", [("probes.dish", True), ("probes.Dish", False), ("samples.dish", False),
                                    ("probes.dish2", False)])
def test_a_target_aims_at_a_probe_or_sample_the_rig_has(at, ok):
    from mime_gui.rig.targets import FieldTarget

    rig = snippet_rig()
    rig.probes = {"dish": Probe((0.3, 0.0, 0.1))}
    rig.targets["t"] = FieldTarget(at, axis=(0, 0, 1), frequency=5.0)
    assert found(rig) == ([] if ok else [("target.at", "targets.t.at")])
