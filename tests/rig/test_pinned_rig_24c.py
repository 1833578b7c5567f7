"""Rig contracts pinned down: a sample's bare declared moment is refused with the hint naming it, a target's
direction of other than three numbers is refused, the whole tree's roles of a part and a magnet fixed in the
world (and their URDF comments), a URDF link keeps the shapes after one it cannot write, and a description's
transmission is written as a ``transmission_interface/SimpleTransmission``."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from mime_gui.rig import Apparatus, Arm, Box, Part, PermanentMagnet, Sample, Sphere
from mime_gui.rig.sample_rules import sample_moment
from mime_gui.rig.simulators import whole
from mime_gui.rig.targets import FieldTarget, TargetError
from mime_gui.rig.urdf_export import export_urdf

INERTIAL = (
    '<inertial><mass value="0.5"/><inertia ixx="1e-3" ixy="0" ixz="0" iyy="1e-3" iyz="0" izz="1e-3"/>'
    "</inertial>"
)
TURN = '<axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="1" velocity="1"/>'


def _arm(folder, body: str = "", extra: str = "") -> Apparatus:
    """One link turning about z on a base, ``body`` inside the link and ``extra`` after the joint."""
    (folder / "a.urdf").write_text(f"""<robot name="r">
  <link name="base"/>
  <link name="arm">{INERTIAL}{body}</link>
  <joint name="turn" type="revolute"><parent link="base"/><child link="arm"/>{TURN}</joint>
  {extra}
</robot>""")
    return Apparatus("r", base=folder, chain={"arm": Arm.Dynamic(description="a.urdf")})


# -- samples and targets -------------------------------------------------------------------------------
def test_a_sample_s_bare_declared_moment_is_refused_naming_the_declared_moment_and_its_spelling():
    d, m, problems = sample_moment(Sample(moment=2e-6, magnetisation=(1.0, 0.0, 0.0)))
    assert (d, m) == (None, None)
    # the unit finding's text names what is bare and how to write it (the rule's user-facing hint)
    assert problems == [
        (
            "unit",
            "moment",
            "the declared moment is a bare float 2e-06; a unit is required: write a_m2(value, reason=...)",
        )
    ]


@pytest.mark.parametrize(
    "given", [(0.0, 1.0), (0.0, 0.0, 1.0, 0.0), ((0.0, 0.0, 1.0),)], ids=["two", "four", "nested"]
)
def test_a_fixed_target_s_direction_of_other_than_three_numbers_is_refused(given):
    with pytest.raises(TargetError) as info:
        FieldTarget("probes.p", direction=given)
    e = info.value
    assert (e.code, e.file) == ("target.direction", "direction")
    assert e.message == f"direction is a finite non-zero vector of three numbers, got {given!r}"


def test_a_rotating_target_s_axis_of_two_numbers_is_refused():
    with pytest.raises(TargetError) as info:
        FieldTarget("samples.s", axis=(1.0, 0.0), frequency=5.0)
    assert (info.value.code, info.value.file) == ("target.direction", "axis")


# -- the whole tree and its URDF -----------------------------------------------------------------------
def test_a_part_and_a_magnet_fixed_in_the_world_take_their_roles_in_the_whole_tree_and_the_urdf(tmp_path):
    rig = Apparatus(
        "world items",
        parts={"plate": Part(Box(size=(0.02, 0.02, 0.002)), material="aluminium", at=(0.1, 0, 0))},
        magnets={"ball": PermanentMagnet(Sphere(radius=0.005), material="NdFeB-N42", at=(0.0, 0.1, 0.0))},
    )
    assert rig.validate() == []
    w = whole(rig, tmp_path)
    assert (w.roles["part:plate"], w.roles["part:ball"]) == ("part", "magnet")
    assert set(w.magnets) == {"part:ball"}  # only the magnet carries a moment
    text = export_urdf(rig, tmp_path / "w.urdf").read_text()
    said = dict(re.findall(r'<link name="([^"]+)">\n    <!-- (\w+) -->', text))
    assert said == {"part:plate": "part", "part:ball": "magnet"}


def test_a_shape_that_cannot_be_written_leaves_out_itself_only_the_link_s_next_shapes_are_written(tmp_path):
    rig = _arm(
        tmp_path,
        '<visual><geometry><mesh filename="missing.stl"/></geometry></visual>'
        '<visual><geometry><box size="0.01 0.02 0.03"/></geometry></visual>'
        '<collision><geometry><sphere radius="0.04"/></geometry></collision>',
    )
    assert rig.validate() == []
    keep = ET.XMLParser(target=ET.TreeBuilder(insert_comments=True))
    link = ET.parse(export_urdf(rig, tmp_path / "s.urdf"), keep).getroot().find("link[@name='arm/arm']")
    # the missing mesh is a comment; the box after it is still the link's visual
    notes = [c.text for c in link if c.tag is ET.Comment]
    assert any(n.startswith(" a visual not written: Mesh missing.stl was not found") for n in notes)
    [visual] = link.findall("visual")
    assert visual.find("geometry/box").get("size") == "0.01 0.02 0.03"
    [collision] = link.findall("collision")
    assert collision.find("geometry/sphere").get("radius") == "0.04"


def test_a_description_s_transmission_is_written_as_a_simple_transmission_with_its_reduction(tmp_path):
    transmission = (
        '<transmission name="turn_trans"><type>transmission_interface/SimpleTransmission</type>'
        '<joint name="turn"><hardwareInterface>EffortJointInterface</hardwareInterface></joint>'
        '<actuator name="turn_motor"><mechanicalReduction>50</mechanicalReduction></actuator>'
        "</transmission>"
    )
    rig = _arm(tmp_path, extra=transmission)
    assert rig.validate() == []
    root = ET.parse(export_urdf(rig, tmp_path / "t.urdf")).getroot()
    [t] = root.findall("transmission")
    assert t.get("name") == "arm/turn_trans"
    # the type a ROS control reader dispatches on, spelled exactly (element and value are case-sensitive)
    assert [(c.tag, c.text) for c in t if c.tag == "type"] == [
        ("type", "transmission_interface/SimpleTransmission")
    ]
    assert t.find("joint").get("name") == "arm/turn"
    assert t.find("actuator").get("name") == "arm/turn_motor"
    assert float(t.find("actuator/mechanicalReduction").text) == 50.0
