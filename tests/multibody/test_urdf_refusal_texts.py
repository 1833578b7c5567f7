"""The words of the URDF reader's refusals, defects and warnings that no other test reads: each is triggered
by a small description read with ``read_urdf`` and its message is checked for the place it names (the
element, attribute, link or joint, and the line) and the fix it gives."""

from __future__ import annotations

import logging

import pytest

from mime_gui.multibody import UrdfError, read_urdf

LINKS = '<link name="a"/><link name="b"/><link name="c"/>'
AB = '<joint name="ab" type="fixed"><parent link="a"/><child link="b"/></joint>'
BC = '<joint name="bc" type="fixed"><parent link="b"/><child link="c"/></joint>'
LIMIT = '<limit lower="-1" upper="1" effort="1" velocity="1"/>'


def _robot(*lines: str) -> str:
    """A robot whose first line is ``<robot name="r">`` and whose line 2, 3 … are ``lines``."""
    return '<robot name="r">\n' + "\n".join(lines) + "\n</robot>"


def _inertial(link: str, ixx: str, iyy: str, izz: str) -> str:
    return (f'<link name="{link}"><inertial><mass value="1"/><inertia ixx="{ixx}" ixy="0" ixz="0" '
            f'iyy="{iyy}" iyz="0" izz="{izz}"/></inertial></link>')


def _revolute(name: str, parent: str, child: str, extra: str = "") -> str:
    return (f'<joint name="{name}" type="revolute"><parent link="{parent}"/><child link="{child}"/>'
            f'<axis xyz="0 0 1"/>{LIMIT}{extra}</joint>')


# (id, description text, code, line of the element at fault, words that must be in the message)
REFUSALS = [
    ("the top element is not robot", '<sdf version="1.6">\n<model name="m"/>\n</sdf>', "urdf.xml", 1,
     ["the top element is <sdf>", "expected <robot>", "is this a URDF?"]),
    ("a joint joining a link to itself",
     _robot(LINKS, AB + BC, '<joint name="loop" type="fixed"><parent link="c"/><child link="c"/></joint>'),
     "urdf.closed-chain", 4, ["joint 'loop' joins link 'c' to itself", "a joint joins two different links"]),
    ("two links without a parent joint", _robot(LINKS, AB), "urdf.multiple-roots", 2,
     ["the links ['a', 'c'] have no parent joint", "a description has one root",
      "join the others to the tree with joints"]),
    ("a mimic chain whose multiplier grows too large",
     _robot(LINKS + '<link name="d"/>', _revolute("j1", "a", "b"),
            _revolute("j2", "b", "c", '<mimic joint="j1" multiplier="1000"/>'),
            _revolute("j3", "c", "d", '<mimic joint="j2" multiplier="10000"/>')),
     "urdf.magnitude", 5,
     ["joint 'j3' follows its independent joint with a multiplier of 1e+07 and an offset of 0",
      "its <mimic> chain multiplied out", "both must be within ±1e+06"]),
    ("digits grouped with an underscore",
     _robot(LINKS, '<joint name="ab" type="fixed"><origin xyz="1_000 0 0"/><parent link="a"/>'
                   '<child link="b"/></joint>', BC),
     "urdf.value", 3,
     ["xyz='1_000 0 0' of <origin> groups digits with '_'", "write each number plainly (1000, not 1_000)"]),
    ("a mesh scale beyond the bound",
     _robot('<link name="a"><visual><geometry>', '<mesh filename="m.stl" scale="1e7 1 1"/>',
            '</geometry></visual></link>'),
     "urdf.magnitude", 3, ["<mesh> scale '1e7 1 1' of link 'a' is beyond ±1e+06", "check the units"]),
    ("a box size beyond the bound",
     _robot('<link name="a"><collision><geometry>', '<box size="2e6 1 1"/>',
            '</geometry></collision></link>'),
     "urdf.magnitude", 3, ["<box> size='2e6 1 1' of link 'a' is beyond 1e+06 m", "check the units"]),
    ("an inertia component beyond the bound", _robot(_inertial("a", "1", "1", "2e22")), "urdf.magnitude", 2,
     ["the <inertia> of link 'a' has a component of 2e+22 kg m2", "components are at most 1e+21 kg m2",
      "check the units"]),
    ("a joint without a type",
     _robot(LINKS, BC, '<joint name="j"><parent link="a"/><child link="b"/></joint>'),
     "urdf.joint-type", 4, ["joint 'j' has no type=", "use revolute, continuous, prismatic or fixed"]),
    ("a joint of an unknown type",
     _robot(LINKS, BC, '<joint name="j" type="spherical"><parent link="a"/><child link="b"/></joint>'),
     "urdf.joint-type", 4,
     ["joint 'j' has an unknown type 'spherical'", "use revolute, continuous, prismatic or fixed"]),
    ("a negative damping",
     _robot(LINKS, BC, _revolute("j", "a", "b", '\n<dynamics damping="-0.5" friction="0"/>')),
     "urdf.value", 5,
     ["the <dynamics> damping -0.5 of joint 'j' is negative", "a damping coefficient is >= 0"]),
    ("a negative friction",
     _robot(LINKS, BC, _revolute("j", "a", "b", '\n<dynamics damping="0" friction="-2"/>')),
     "urdf.value", 5,
     ["the <dynamics> friction -2.0 of joint 'j' is negative", "a friction coefficient is >= 0"]),
]


@pytest.mark.parametrize(("text", "code", "line", "words"), [c[1:] for c in REFUSALS],
                         ids=[c[0] for c in REFUSALS])
def test_a_refused_description_names_the_element_at_fault_and_the_fix(text, code, line, words):
    with pytest.raises(UrdfError) as info:
        read_urdf(text)
    assert (info.value.code, info.value.line) == (code, line)
    for word in words:
        assert word in info.value.message, (word, info.value.message)


def test_a_reduction_that_is_not_a_number_says_to_declare_the_armature_or_write_the_reduction():
    text = _robot(LINKS, AB + BC, '<transmission name="t0"><joint name="ab"/><actuator name="m">',
                  "<mechanicalReduction>four</mechanicalReduction>", "</actuator></transmission>")
    (error,) = read_urdf(text).report.errors
    assert (error.code, error.line, error.blocks) == ("urdf.value", 5, "armature")
    assert "<mechanicalReduction> 'four' of transmission 't0' is not a number" in error.message
    assert "no armature can be reflected through it" in error.message
    assert "declare the joint's armature instead, or write the reduction" in error.message


def test_an_inertia_breaking_the_triangle_inequality_is_a_warning_naming_the_link_and_the_moments():
    tree = read_urdf(_robot(_inertial("a", "1", "1", "3")))
    (warning,) = tree.report.warnings
    assert (warning.code, warning.line) == ("urdf.inertial-triangle", 2)
    assert "the <inertia> of link 'a' breaks the triangle inequality" in warning.message
    assert "principal moments 1, 1, 3" in warning.message
    assert "the two smaller must add up to at least the largest" in warning.message
    assert "check the values" in warning.message
    assert tree.report.errors == []  # a warning, not an error


def test_a_defect_is_logged_as_an_error_with_its_file_line_and_code(tmp_path, caplog):
    path = tmp_path / "arm.urdf"
    path.write_text(_robot('<link name="a"><inertial><mass value="-1"/></inertial></link>'))
    with caplog.at_level(logging.WARNING, logger="mime_gui.multibody.report"):
        tree = read_urdf(path)
    (error,) = tree.report.errors
    logged = [r.getMessage() for r in caplog.records if r.name == "mime_gui.multibody.report"]
    assert logged == [f"{path}:2: error[urdf.inertial] {error.message}"]
    assert "link 'a' has a negative mass" in logged[0]
