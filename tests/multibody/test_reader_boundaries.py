"""The URDF reader's refusals and warnings at their boundaries: zero accepted and the smallest negative
refused (damping, friction, effort, velocity), limits equal and crossed, mimic and transmission forms, and the
read report's exact counts and lines for each."""

from __future__ import annotations

import math

import pytest

from mime_gui.multibody import UrdfError, read_urdf
from mime_gui.multibody.tree import Cylinder, UnknownGeometry


def robot(*joint_lines: str, extra: str = "") -> str:
    """A robot whose joint ``j`` (a → b) holds ``joint_lines``, one per line from line 4; ``extra`` after."""
    body = "\n".join(joint_lines)
    return (f'<robot name="r">\n<link name="a"/><link name="b"/><link name="c"/>\n'
            f'<joint name="j" type="revolute"><parent link="a"/><child link="b"/>\n'
            f"{body}\n</joint>\n"
            f'<joint name="k" type="revolute"><parent link="b"/><child link="c"/>\n'
            f'<limit lower="-1" upper="1"/>\n</joint>\n{extra}\n</robot>')


LIMIT = '<limit lower="-1" upper="1" effort="1" velocity="1"/>'


def lines_of(text: str, needle: str) -> list[int]:
    """The 1-based lines of ``text`` holding ``needle``, counted here, apart from the reader."""
    return [i for i, line in enumerate(text.split("\n"), start=1) if needle in line]


def refused(text: str, strict: bool = False) -> UrdfError:
    with pytest.raises(UrdfError) as info:
        read_urdf(text, strict=strict)
    return info.value


def loads_with_one_error(text: str, code: str, line: int, blocks: str):
    """Read ``text``: it loads with exactly one error, ``code`` at ``line`` blocking ``blocks`` and nothing
    else; strict reading refuses it with the same code at the same line. The tree and the error."""
    tree = read_urdf(text)
    (error,) = tree.report.errors
    assert (error.code, error.line, error.blocks, error.severity) == (code, line, blocks, "error")
    assert [d for d in tree.report.warnings if d.code == code] == [error]  # reported once
    assert [u for u in ("dynamics", "armature", "drawing", "mimic") if tree.report.blocked(u)] == [blocks]
    err = refused(text, strict=True)
    assert (err.code, err.line, err.message) == (code, line, error.message)
    return tree, error


def independent(tree, joint: str) -> bool:
    """``joint`` moves on its own in the compiled articulation: no mimic, its own degree of freedom."""
    art = tree.compile()
    i = art.joint_names.index(joint)
    return tree.joints[joint].mimic is None and int(art.mimic_master[i]) == -1 and not art.is_mimic[i]


def entry(tree_or_report, kind):
    report = getattr(tree_or_report, "report", tree_or_report)
    return report.entries[kind]


# -- dynamics ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("attr", ["damping", "friction"])
@pytest.mark.parametrize("value, ok", [("0", True), ("0.0", True), ("5e-324", True), ("-5e-324", False),
                                       ("-0.1", False), ("-0", True)])
def test_dynamics_coefficients_are_not_negative(attr, value, ok):
    text = robot(LIMIT, f'<dynamics {attr}="{value}"/>')
    if ok:
        joint = read_urdf(text).joints["j"]
        assert getattr(joint, attr) == float(value)
        assert getattr(joint, "friction" if attr == "damping" else "damping") == 0.0
    else:
        err = refused(text)
        assert (err.code, err.line) == ("urdf.value", 5)
        assert f"{attr} {float(value)}" in err.message


def test_both_dynamics_coefficients_are_read():
    joint = read_urdf(robot(LIMIT, '<dynamics damping="0.5" friction="0.25"/>')).joints["j"]
    assert (joint.damping, joint.friction) == (0.5, 0.25)


# -- limits --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("attr", ["effort", "velocity"])
@pytest.mark.parametrize("value, ok", [("0", True), ("5e-324", True), ("-5e-324", False), ("-1", False)])
def test_effort_and_velocity_are_magnitudes(attr, value, ok):
    other = "velocity" if attr == "effort" else "effort"
    text = robot(f'<limit lower="-1" upper="1" {attr}="{value}" {other}="2"/>')
    if ok:
        limit = read_urdf(text).joints["j"].limit
        assert (getattr(limit, attr), getattr(limit, other)) == (float(value), 2.0)
    else:
        err = refused(text)
        assert (err.code, err.line) == ("urdf.limit", 4)


def test_a_continuous_joints_negative_effort_is_refused_too():
    text = robot('<limit effort="-1" velocity="1"/>').replace('type="revolute"><parent link="a"',
                                                              'type="continuous"><parent link="a"', 1)
    err = refused(text)
    assert (err.code, err.line) == ("urdf.limit", 4)


def test_absent_effort_and_velocity_are_unbounded():
    limit = read_urdf(robot('<limit lower="-1" upper="1"/>')).joints["j"].limit
    assert (limit.effort, limit.velocity) == (math.inf, math.inf)


@pytest.mark.parametrize("lower, upper, ok", [("0.5", "0.5", True), ("-1", "1", True),
                                              ("0.5000000000000001", "0.5", False), ("1", "-1", False)])
def test_lower_may_equal_upper_but_not_exceed_it(lower, upper, ok):
    text = robot(f'<limit lower="{lower}" upper="{upper}" effort="1" velocity="1"/>')
    if ok:
        limit = read_urdf(text).joints["j"].limit
        assert (limit.lower, limit.upper) == (float(lower), float(upper))
    else:
        err = refused(text)
        assert (err.code, err.line) == ("urdf.limit", 4)
        assert "swap them" in err.message


@pytest.mark.parametrize("joint_type, limit, hint", [
    ("revolute", '<limit effort="1" velocity="1"/>', True),
    ("revolute", '<limit lower="-1" effort="1" velocity="1"/>', True),
    ("revolute", '<limit upper="1"/>', True),
    ("prismatic", '<limit effort="1" velocity="1"/>', False),
])
def test_a_missing_bound_is_zero_with_one_warning_at_the_limit(joint_type, limit, hint):
    text = robot(limit).replace('type="revolute"><parent', f'type="{joint_type}"><parent', 1)
    tree = read_urdf(text)
    (w,) = [w for w in tree.report.warnings if w.code == "urdf.limit-default"]
    assert w.line == 4
    assert f"{joint_type} joint 'j'" in w.message
    assert ("declare it continuous" in w.message) == hint
    j = tree.joints["j"].limit
    assert (j.lower, j.upper) == (-1.0 if "lower=" in limit else 0.0, 1.0 if "upper=" in limit else 0.0)


def test_a_joint_without_a_limit_element_is_warned_at_the_joint():
    text = robot('<axis xyz="0 0 1"/>')
    tree = read_urdf(text)
    (w,) = [w for w in tree.report.warnings if w.code == "urdf.limit-default"]
    assert w.line == 3
    assert (tree.joints["j"].limit.lower, tree.joints["j"].limit.upper) == (0.0, 0.0)


def test_a_continuous_joint_needs_no_bounds_and_gets_no_warning():
    text = robot('<limit effort="1" velocity="1"/>').replace('type="revolute"><parent link="a"',
                                                             'type="continuous"><parent link="a"', 1)
    tree = read_urdf(text)
    assert [w.code for w in tree.report.warnings if w.code == "urdf.limit-default"] == []
    assert (tree.joints["j"].limit.lower, tree.joints["j"].limit.upper) == (-math.inf, math.inf)


def test_every_limit_attribute_is_a_used_kind():
    tree = read_urdf(robot('<limit lower="-1" upper="1" effort="1" velocity="1" soft="2"/>'))
    used = {e.kind for e in tree.report.used}
    assert {"robot/joint/limit@lower", "robot/joint/limit@upper", "robot/joint/limit@effort",
            "robot/joint/limit@velocity"} <= used
    assert entry(tree, "robot/joint/limit@effort").count == 1
    assert entry(tree, "robot/joint/limit@lower").count == 2  # both joints
    soft = entry(tree, "robot/joint/limit@soft")
    assert (soft.group, soft.count, soft.lines) == ("recognised-not-used", 1, [4])
    assert [w.line for w in tree.report.warnings if "limit@soft" in w.message] == [4]


# -- mimic ---------------------------------------------------------------------------------------------------
def test_a_mimic_names_its_master_and_reads_multiplier_and_offset():
    tree = read_urdf(robot(LIMIT, '<mimic joint="k" multiplier="-2" offset="0.5"/>'))
    m = tree.joints["j"].mimic
    assert (m.joint, m.multiplier, m.offset, m.line) == ("k", -2.0, 0.5, 5)
    m = read_urdf(robot(LIMIT, '<mimic joint="k"/>')).joints["j"].mimic
    assert (m.multiplier, m.offset) == (1.0, 0.0)


@pytest.mark.parametrize("mimic, words", [
    ('<mimic multiplier="2"/>', "names no joint="),
    ('<mimic joint=""/>', "names no joint="),
    ('<mimic joint="nobody"/>', "'nobody', which is not a joint"),
    ('<mimic joint="j"/>', "follow each other in a loop"),
])
def test_a_mimic_that_follows_nothing_usable_is_one_error_at_its_line_and_the_joint_moves_alone(mimic, words):
    text = robot(LIMIT, mimic)
    tree, error = loads_with_one_error(text, "urdf.mimic", 5, "mimic")
    assert words in error.message and "moves on its own" in error.message
    assert independent(tree, "j") and independent(tree, "k")


def test_a_mimic_of_a_fixed_joint_is_one_error_and_the_joint_moves_alone():
    text = robot(LIMIT, '<mimic joint="k"/>').replace('<joint name="k" type="revolute">',
                                                      '<joint name="k" type="fixed">')
    tree, error = loads_with_one_error(text, "urdf.mimic", 5, "mimic")
    assert "'k', which is a fixed joint" in error.message
    assert independent(tree, "j")
    assert tree.compile().joint_names == ("j",)


def test_a_mimic_of_a_movable_joint_is_no_error_and_follows_it():
    """The other side of the two tests above: the same file with ``k`` movable loads without an error."""
    tree = read_urdf(robot(LIMIT, '<mimic joint="k" multiplier="-2" offset="0.5"/>'))
    assert tree.report.errors == []
    art = tree.compile()
    j, k = art.joint_names.index("j"), art.joint_names.index("k")
    assert (int(art.mimic_master[j]), art.mimic_multiplier[j], art.mimic_offset[j]) == (k, -2.0, 0.5)
    assert not independent(tree, "j") and independent(tree, "k")


def test_two_joints_mimicking_each_other_are_a_loop_broken_at_the_first():
    k_limit = '<limit lower="-1" upper="1"/>\n</joint>'
    text = robot(LIMIT, '<mimic joint="k"/>').replace(k_limit, '<mimic joint="j"/>' + k_limit)
    (j_line,) = lines_of(text, '<mimic joint="k"/>')
    tree, error = loads_with_one_error(text, "urdf.mimic", j_line, "mimic")
    assert "['j', 'k'] follow each other in a loop" in error.message
    assert independent(tree, "j")  # the loop is broken once, at the joint the walk started from
    assert tree.joints["k"].mimic.joint == "j"
    art = tree.compile()
    assert int(art.mimic_master[art.joint_names.index("k")]) == art.joint_names.index("j")


def test_a_chain_of_mimics_ending_at_an_independent_joint_is_accepted():
    text = robot(LIMIT, '<mimic joint="k"/>', extra='<link name="d"/><joint name="l" type="revolute">'
                 '<parent link="c"/><child link="d"/><limit lower="-1" upper="1"/><mimic joint="j"/></joint>')
    tree = read_urdf(text)
    assert (tree.joints["l"].mimic.joint, tree.joints["j"].mimic.joint) == ("j", "k")


def test_a_mimic_on_a_fixed_joint_is_counted_ignored_and_warned_once():
    fixed = ('<joint name="f{i}" type="fixed"><parent link="c"/><child link="d{i}"/>\n'
             '<mimic joint="j"/></joint><link name="d{i}"/>')
    text = robot(LIMIT, extra="\n".join(fixed.format(i=i) for i in range(3)))
    tree = read_urdf(text)
    mimics = lines_of(text, '<mimic joint="j"/></joint>')
    assert len(mimics) == 3
    e = entry(tree, "robot/joint/mimic (on a fixed joint)")
    assert (e.group, e.count, e.lines) == ("recognised-not-used", 3, mimics)
    warned = [w for w in tree.report.warnings if "on a fixed joint" in w.message]
    assert [(w.code, w.line) for w in warned] == [("urdf.not-used", mimics[0])]
    assert all(tree.joints[f"f{i}"].mimic is None for i in range(3))


# -- transmissions -------------------------------------------------------------------------------------------
def transmissions(*bodies: str) -> str:
    return robot(LIMIT, extra="\n".join(f'<transmission name="t{i}">{b}</transmission>'
                                        for i, b in enumerate(bodies)))


ACT = '<actuator name="m{}"><mechanicalReduction>{}</mechanicalReduction></actuator>'


@pytest.mark.parametrize("body", [
    '<joint name="j"/><joint name="k"/>' + ACT.format(1, 2),              # two joints
    '<joint name="j"/>' + ACT.format(1, 2) + ACT.format(2, 3),            # two actuators
    ACT.format(1, 2),                                                     # no joint
    '<joint/>' + ACT.format(1, 2),                                        # a joint without a name
])
def test_a_transmission_that_is_not_simple_is_counted_and_warned_not_used(body):
    simple = '<joint name="k"/>' + ACT.format(9, 4)
    text = transmissions(body, simple, body)
    tree = read_urdf(text)
    assert set(tree.transmissions) == {"t1"}
    first, third = lines_of(text, '<transmission name="t0"') + lines_of(text, '<transmission name="t2"')
    assert third == first + 2
    e = entry(tree, "robot/transmission (not simple)")
    assert (e.group, e.count, e.lines) == ("recognised-not-used", 2, [first, third])
    # the report's note (the app's tip) says why, and only that: not one joint, or more than one actuator
    assert e.note.startswith("not one joint") and e.note.endswith("with at most one actuator")
    (w,) = [w for w in tree.report.warnings if w.code == "urdf.transmission"]
    assert w.line == first
    assert w.message.startswith("2 transmission(s) are not simple")
    assert "t0, t2" in w.message


@pytest.mark.parametrize("body, actuator, reduction", [
    ('<joint name="j"/>' + ACT.format(1, 2.5), "m1", 2.5),
    ('<joint name="j"/>' + ACT.format(1, -3), "m1", -3.0),
    ('<joint name="j"/><actuator name="m1"/><mechanicalReduction>7</mechanicalReduction>', "m1", 7.0),
    ('<joint name="j"/>' + ACT.format(1, 2) + '<mechanicalReduction>7</mechanicalReduction>', "m1", 2.0),
    ('<joint name="j"/><actuator name="m1"/>', "m1", 1.0),
    ('<joint name="j"/>', None, 1.0),
])
def test_a_simple_transmission_takes_the_actuators_reduction_first(body, actuator, reduction):
    text = transmissions(body)
    tree = read_urdf(text)
    t = tree.transmissions["t0"]
    assert (t.joint, t.actuator, t.reduction) == ("j", actuator, reduction)
    assert [t.line] == lines_of(text, "<transmission")
    assert [w for w in tree.report.warnings if w.code == "urdf.transmission"] == []


@pytest.mark.parametrize("value, code", [("0", "urdf.non-finite"), ("-0", "urdf.non-finite"),
                                         ("inf", "urdf.non-finite"), ("nan", "urdf.non-finite"),
                                         ("four", "urdf.value"), ("", "urdf.value"), ("1_000", "urdf.value")])
def test_a_reduction_that_is_not_a_finite_non_zero_number_blocks_only_its_armature(value, code):
    text = transmissions('<joint name="j"/>' + ACT.format(1, value), '<joint name="k"/>' + ACT.format(2, 4))
    (line, _) = lines_of(text, "<mechanicalReduction>")
    tree, error = loads_with_one_error(text, code, line, "armature")
    assert f"<mechanicalReduction> {value!r} of transmission 't0'" in error.message
    broken, sound = tree.transmissions["t0"], tree.transmissions["t1"]
    assert (broken.joint, broken.actuator, broken.reduction) == ("j", "m1", None)
    assert broken.error.endswith(f"(<string>:{line})")
    assert (sound.reduction, sound.error) == (4.0, "")  # the other transmission keeps its reduction
    assert tree.compile().dynamics_errors == ()  # the dynamics are not blocked


def test_an_unexpanded_reduction_is_still_refused_as_xacro():
    text = transmissions('<joint name="j"/>' + ACT.format(1, "${ratio}"))
    err = refused(text)
    assert [(err.code, err.line)] == [("urdf.xacro", n) for n in lines_of(text, "<mechanicalReduction>")]


def test_a_tiny_reduction_is_accepted():
    tree = read_urdf(transmissions('<joint name="j"/>' + ACT.format(1, "5e-324")))
    assert tree.transmissions["t0"].reduction == 5e-324


# -- the report's counts and lines ---------------------------------------------------------------------------
def test_counts_of_one_kind_are_summed_over_its_attribute_sets():
    """Joints with different attributes are counted under different signatures; their kind sums them."""
    text = ('<robot name="r">\n<link name="a"/>\n<link name="b"/>\n<link name="c" extra="1"/>\n'
            '<link name="d"/>\n'
            '<joint name="ab" type="fixed"><parent link="a"/><child link="b"/></joint>\n'
            '<joint name="bc" type="fixed" note="x"><parent link="b"/><child link="c"/></joint>\n'
            '<joint name="cd" type="fixed"><parent link="c"/><child link="d"/></joint>\n</robot>')
    tree = read_urdf(text)
    link = entry(tree, "robot/link")
    assert (link.group, link.count, link.lines) == ("used", 4, [2, 3, 4, 5])
    assert (entry(tree, "robot/link@name").count, entry(tree, "robot/link@name").lines) == (4, [2, 3, 4, 5])
    joint = entry(tree, "robot/joint")
    assert (joint.count, joint.lines) == (3, [6, 7, 8])
    assert (entry(tree, "robot/joint@note").count, entry(tree, "robot/joint@note").lines) == (1, [7])
    assert (entry(tree, "robot/link@extra").count, entry(tree, "robot/link@extra").lines) == (1, [4])


def test_a_kind_keeps_its_first_five_lines_in_order():
    links = "\n".join(f'<link name="l{i}"/>' if i % 2 else f'<link name="l{i}" x="{i}"/>' for i in range(8))
    joint = '<joint name="j{i}" type="fixed"><parent link="l{i}"/><child link="l{j}"/></joint>'
    joints = "\n".join(joint.format(i=i, j=i + 1) for i in range(7))
    tree = read_urdf(f'<robot name="r">\n{links}\n{joints}\n</robot>')
    link = entry(tree, "robot/link")
    assert (link.count, link.lines) == (8, [2, 3, 4, 5, 6])
    assert entry(tree, "robot/link@x").lines == [2, 4, 6, 8]


def test_an_unused_kind_is_warned_once_at_its_first_line_and_counted_every_time():
    extra = "\n".join(['<gazebo reference="a"/>', '<gazebo/>', '<gazebo reference="b"/>'])
    text = robot(LIMIT, extra=extra)
    tree = read_urdf(text)
    lines = lines_of(text, "<gazebo")
    g = entry(tree, "robot/gazebo")
    assert (g.group, g.count, g.lines) == ("recognised-not-used", 3, lines)
    warned = [w for w in tree.report.warnings if "<robot/gazebo>" in w.message]
    assert [(w.code, w.line) for w in warned] == [("urdf.not-used", lines[0])]


# -- geometry sizes ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("radius, length, ok", [("0", "0.1", True), ("0.1", "0", True), ("0", "0", True),
                                                ("-5e-324", "0.1", False), ("0.1", "-5e-324", False)])
def test_a_cylinder_may_be_flat_or_thin_but_not_negative(radius, length, ok):
    cylinder = f'<cylinder radius="{radius}" length="{length}"/>'
    text = robot(LIMIT, extra=f'<link name="d"><visual><geometry>{cylinder}</geometry></visual></link>'
                 '<joint name="cd" type="fixed"><parent link="c"/><child link="d"/></joint>')
    if ok:
        tree = read_urdf(text)
        assert tree.report.errors == []
        (shape,) = tree.links["d"].visuals
        assert isinstance(shape.geometry, Cylinder)
        assert (shape.geometry.radius, shape.geometry.length) == (float(radius), float(length))
    else:  # drawn as a placeholder, with an error that blocks only its drawing
        (line,) = lines_of(text, "<cylinder")
        tree, error = loads_with_one_error(text, "urdf.geometry", line, "drawing")
        assert "negative radius or length" in error.message
        (shape,) = tree.links["d"].visuals
        assert isinstance(shape.geometry, UnknownGeometry) and shape.geometry.kind == "cylinder"
        assert tree.compile().dynamics_errors == ()
