"""What the reader does with small defects the real robots do not carry, one hand-written file each: colours
outside [0, 1], a visual's colour that does not read (left to the visual to refuse), a geometry with no shape
or two, negative sizes, missing attributes, an inertial without <inertia>, a material declared twice, joints
that leave no root, mass left out with a joint whose parent link has none, and markup inside comments,
instructions and CDATA on the fast path."""

from __future__ import annotations

import numpy as np
import pytest

from mime_gui.multibody import UrdfError, read_urdf
from mime_gui.multibody.tree import UnknownGeometry
from mime_gui.multibody.urdf import _fast_parse


def _robot(body: str) -> str:
    """``body`` from line 2 of a robot's file."""
    return f'<robot name="r">\n{body}\n</robot>'


def _codes(items) -> list[tuple[str, int, str]]:
    return [(d.code, d.line, d.message) for d in items]


# -- colours -----------------------------------------------------------------------------------------------
def test_a_colour_outside_0_1_is_clipped_with_a_warning_at_its_line():
    tree = read_urdf(_robot('<material name="m">\n<color rgba="1.5 -0.2 0.5 1"/></material>\n'
                            '<link name="a"><visual><geometry><box size="1 1 1"/></geometry>'
                            '<material name="m"/></visual></link>'))
    assert tree.links["a"].visuals[0].rgba == (1.0, 0.0, 0.5, 1.0)
    assert _codes(tree.report.warnings) == [
        ("urdf.color", 3, "colour rgba='1.5 -0.2 0.5 1' of material 'm' is outside [0, 1]; it is clipped")]
    assert tree.report.errors == []


@pytest.mark.parametrize("rgba, code, words", [
    ("a b c d", "urdf.value", "rgba='a b c d' of <color> is not a list of 4 numbers"),
    ("1 0 0", "urdf.value", "rgba='1 0 0' of <color> has 3 numbers, expected 4"),
    ("1 0 nan 1", "urdf.non-finite", "rgba='1 0 nan 1' of <color> is not finite; give finite numbers"),
], ids=["words", "three", "nan"])
def test_a_visual_s_colour_that_does_not_read_is_refused_by_the_visual_at_its_line(rgba, code, words):
    # the pass gathering the named colours of visuals skips it; reading the visual refuses it
    text = _robot('<link name="a"><visual><geometry><box size="1 1 1"/></geometry>\n'
                  f'<material name="m"><color rgba="{rgba}"/></material></visual></link>\n'
                  '<link name="b"><visual><geometry><box size="1 1 1"/></geometry><material name="m"/>'
                  '</visual></link>\n'
                  '<joint name="j" type="fixed"><parent link="a"/><child link="b"/></joint>')
    with pytest.raises(UrdfError) as info:
        read_urdf(text)
    assert (info.value.code, info.value.line, info.value.message) == (code, 3, words)


def test_a_material_declared_twice_takes_the_last_colour_and_a_bare_redeclaration_keeps_it():
    tree = read_urdf(_robot('<material name="m"><color rgba="1 0 0 1"/></material>\n'
                            '<material name="m"><color rgba="0 1 0 1"/></material>\n'
                            '<material name="m"/>\n'
                            '<material name="m"><color rgba="0 1 0 1"/></material>\n'
                            '<link name="a"><visual><geometry><box size="1 1 1"/></geometry>'
                            '<material name="m"/></visual></link>'))
    assert tree.links["a"].visuals[0].rgba == (0.0, 1.0, 0.0, 1.0)
    # once, at the second declaration: the bare one and the same colour again say nothing
    assert _codes(tree.report.warnings) == [
        ("urdf.material", 3, "material 'm' is declared twice with different colours; the last one is used")]


# -- geometry ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("geometry, kind, message", [
    ("<geometry></geometry>", "none",
     "the <geometry> of a <visual> of link 'a' has no shape; add a box, cylinder, sphere, capsule or mesh"),
    ('<geometry><box size="1 -0.001 3"/></geometry>', "box",
     "<box> size (1.0, -0.001, 3.0) of link 'a' is negative; sizes are >= 0"),
    ('<geometry><sphere radius="-1e-6"/></geometry>', "sphere", "<sphere> of link 'a' has a negative radius"),
], ids=["no-shape", "negative-box", "negative-sphere"])
def test_a_shape_that_cannot_be_drawn_is_a_placeholder_with_an_error_and_refused_when_strict(geometry, kind,
                                                                                               message):
    text = _robot(f'<link name="a"><visual>\n{geometry}</visual></link>')
    tree = read_urdf(text)
    (shape,) = tree.links["a"].visuals
    assert shape.geometry == UnknownGeometry(kind, message)
    full = message + "; it is drawn as a marked placeholder"
    (error,) = tree.report.errors
    assert (error.code, error.line, error.message, error.blocks) == ("urdf.geometry", 3, full, "drawing")
    with pytest.raises(UrdfError) as info:
        read_urdf(text, strict=True)
    assert (info.value.code, info.value.line, info.value.message) == ("urdf.geometry", 3, full)



@pytest.mark.parametrize("shape", ["cylinder", "capsule"])
def test_a_negative_cylinder_or_capsule_names_its_link_and_the_rule_for_sizes(shape):
    tree = read_urdf(_robot(f'<link name="a"><visual>\n<geometry><{shape} radius="0.1" length="-2"/>'
                            "</geometry></visual></link>"))
    (error,) = tree.report.errors
    assert (error.code, error.line, error.blocks) == ("urdf.geometry", 3, "drawing")
    assert f"<{shape}> of link 'a'" in error.message and "negative radius or length" in error.message
    assert "sizes are >= 0" in error.message

def test_a_geometry_with_two_shapes_keeps_the_first_with_a_warning():
    tree = read_urdf(_robot('<link name="a"><visual>\n<geometry><box size="1 2 3"/><sphere radius="1"/>'
                            '</geometry></visual></link>'))
    (shape,) = tree.links["a"].visuals
    np.testing.assert_array_equal(shape.geometry.size, [1.0, 2.0, 3.0])
    assert _codes(tree.report.warnings) == [
        ("urdf.geometry-extra", 3, "the <geometry> of a <visual> of link 'a' holds 2 shapes; only the first, "
                                   "<box>, is kept")]


@pytest.mark.parametrize("element, words", [
    ('<box/>', '<box> needs the attribute size="0 0 0"'),
    ('<box size="1 1 1"/></geometry><material name="m"><color/></material><geometry>',
     '<color> needs the attribute rgba="0 0 0 0"'),
], ids=["box-size", "colour-rgba"])
def test_a_missing_attribute_is_refused_with_the_attribute_to_write(element, words):
    text = _robot(f'<link name="a"><visual><geometry>\n{element}</geometry></visual></link>')
    text = text.replace("<geometry></geometry>", "")
    with pytest.raises(UrdfError) as info:
        read_urdf(text)
    assert (info.value.code, info.value.line, info.value.message) == ("urdf.missing-attribute", 3, words)


# -- inertials -----------------------------------------------------------------------------------------------
def test_an_inertial_without_inertia_is_a_point_mass():
    tree = read_urdf(_robot('<link name="a"><inertial><origin xyz="0 0 0.1"/><mass value="2"/></inertial>'
                            '</link>'))
    inertial = tree.links["a"].inertial
    assert inertial.mass == 2.0 and inertial.error == ""
    np.testing.assert_array_equal(inertial.inertia, np.zeros((3, 3)))
    np.testing.assert_array_equal(inertial.link_X_com[:3, 3], [0.0, 0.0, 0.1])


# -- the tree -----------------------------------------------------------------------------------------------
def test_joints_that_give_every_link_a_parent_are_refused_as_a_loop_at_the_first_joint():
    text = _robot('<link name="a"/><link name="b"/>\n'
                  '<joint name="ab" type="fixed"><parent link="a"/><child link="b"/></joint>\n'
                  '<joint name="ba" type="fixed"><parent link="b"/><child link="a"/></joint>')
    with pytest.raises(UrdfError) as info:
        read_urdf(text)
    assert (info.value.code, info.value.line) == ("urdf.closed-chain", 3)
    assert info.value.message == ("every link has a parent joint, so the joints form a loop; remove one "
                                  "joint of the loop")


def test_mass_left_out_under_a_massless_parent_is_marked_on_a_stand_in_inertial():
    inertia = '<inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/>'
    text = _robot('<link name="base"/>\n'
                  f'<link name="arm"><inertial><mass value="1"/>{inertia}</inertial></link>\n'
                  f'<link name="imu"><inertial><mass value="0.3"/>{inertia}</inertial></link>\n'
                  '<joint name="j" type="revolute"><parent link="base"/><child link="arm"/>'
                  '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>\n'
                  '<joint name="imu_joint" type="fixed"><parent link="base"/><child link="imu"/>\n'
                  '<origin xyz="${imu_x} 0 0"/></joint>')
    tree = read_urdf(text)
    assert sorted(tree.links) == ["arm", "base"] and list(tree.joints) == ["j"]
    stand_in = tree.links["base"].inertial
    assert stand_in.mass == 0.0 and stand_in.line == 7
    np.testing.assert_array_equal(stand_in.inertia, np.zeros((3, 3)))
    message = ("the links left out with joint 'imu_joint' ('imu') carry 0.3 kg, so the mass properties of "
               "the articulation of link 'base' are incomplete; write the numbers of the joint's <origin> to "
               "bring them back")
    assert stand_in.error == f"{message} (<string>:7)"
    assert [(e.code, e.line, e.blocks) for e in tree.report.errors] == [("urdf.xacro", 7, "frames"),
                                                                        ("urdf.xacro", 7, "dynamics")]
    assert tree.report.errors[1].message == message


# -- the fast path's scan -------------------------------------------------------------------------------
def test_markup_inside_comments_and_cdata_is_not_counted_as_elements_on_the_fast_path():
    text = ('<robot name="r">\n'
            '<!-- a <?pi ${x}?> and <link name="fake"/> inside a comment -->\n'
            '<link name="a"><visual><geometry><box size="1 1 1"/></geometry></visual></link>\n'
            '<?note <link name="fake2"/> <!-- ?>\n'
            '<link name="b"><![CDATA[ <joint name="fake3"> $ <!-- ]]></link>\n'
            '<joint name="j" type="fixed"><parent link="a"/><child link="b"/></joint>\n'
            '</robot>\n')
    fast = _fast_parse(text.encode(), 0)
    assert fast is not None  # the scan paired every start tag with an element
    root, lines, may_hold_xacro = fast
    assert [(e.tag, lines[e]) for e in root.iter()] == [
        ("robot", 1), ("link", 3), ("visual", 3), ("geometry", 3), ("box", 3), ("link", 5), ("joint", 6),
        ("parent", 6), ("child", 6)]
    assert may_hold_xacro is False  # every '$' is inside a comment, an instruction or CDATA
    assert _fast_parse(text.replace('size="1 1 1"', 'size="$1 1 1"').encode(), 0)[2] is True
    tree = read_urdf(text)
    assert (tree.links["a"].line, tree.links["b"].line, tree.joints["j"].line) == (3, 5, 6)
