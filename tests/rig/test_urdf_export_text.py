"""The URDF export's own words: the comment that says how a magnet's numbers are written, in their order, a
shape's elements, and a mimic joint's multiplier and offset."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import pytest
from rig_helpers import DEMO_RIG

from mime_gui.multibody.urdf import read_urdf
from mime_gui.rig import Apparatus, Arm, load, material
from mime_gui.rig.urdf_export import export_urdf


def test_each_magnet_s_attributes_are_what_the_head_comment_says_in_its_order(tmp_path):
    path = export_urdf(load(DEMO_RIG), tmp_path / "rig.urdf")
    said = re.search(r"<!-- each magnet's moment: <mime_magnet (.*?)/> (.*?) -->", path.read_text())
    assert said.group(2) == "in its link, which other readers ignore"
    assert re.findall(r"(\w+) \(", said.group(1)) == ["moment", "direction", "remanence"]
    (magnet,) = ET.parse(path).getroot().iter("mime_magnet")
    assert list(magnet.attrib) == ["moment", "direction", "remanence"]
    remanence = material("NdFeB-N42").remanence  # the demo's m1: N42, a cylinder 5 mm in radius, 10 mm long
    volume = math.pi * 0.005**2 * 0.01
    assert float(magnet.get("moment")) == pytest.approx(remanence * volume / 1.25663706212e-6, rel=1e-9)
    assert float(magnet.get("remanence")) == pytest.approx(remanence, rel=1e-12)


def test_a_shape_element_holds_its_origin_geometry_and_colour_and_no_stray_text(tmp_path):
    root = ET.parse(export_urdf(load(DEMO_RIG), tmp_path / "rig.urdf")).getroot()
    collisions, visuals = list(root.iter("collision")), list(root.iter("visual"))
    assert collisions and visuals  # the demo arm declares both
    for element in collisions + visuals:
        assert (element.text or "").strip() == "" and all((c.tail or "").strip() == "" for c in element)
    assert {tuple(c.tag for c in e) for e in collisions} == {("origin", "geometry")}  # a collision: no colour
    assert {tuple(c.tag for c in e) for e in visuals} == {("origin", "geometry", "material")}


GRIPPER = """<robot name="gripper">
  <link name="palm"/><link name="left"/><link name="right"/>
  <joint name="open" type="prismatic"><parent link="palm"/><child link="left"/><axis xyz="0 1 0"/>
    <limit lower="0" upper="0.04" effort="20" velocity="0.2"/></joint>
  <joint name="follow" type="prismatic"><parent link="palm"/><child link="right"/><axis xyz="0 1 0"/>
    <limit lower="-0.1" upper="0.1" effort="20" velocity="0.2"/>
    <mimic joint="open" multiplier="-1.5" offset="0.25"/></joint>
</robot>
"""


def test_a_mimic_joint_is_written_with_its_multiplier_and_offset_and_reads_back_the_same(tmp_path):
    (tmp_path / "gripper.urdf").write_text(GRIPPER)
    rig = Apparatus("grip", chain={"hand": Arm.Kinematic(description=str(tmp_path / "gripper.urdf"))})
    path = export_urdf(rig, tmp_path / "rig.urdf")
    (mimic,) = ET.parse(path).getroot().iter("mimic")
    assert mimic.attrib == {"joint": "hand/open", "multiplier": "-1.5", "offset": "0.25"}
    follower = read_urdf(path).joints["hand/follow"].mimic
    assert (follower.joint, follower.multiplier, follower.offset) == ("hand/open", -1.5, 0.25)


HINGES = """<robot name="hinges">
  <link name="base"/><link name="a"/><link name="b"/>
  <joint name="damped" type="continuous"><parent link="base"/><child link="a"/><axis xyz="0 0 1"/>
    <dynamics damping="0.4"/></joint>
  <joint name="rubbing" type="continuous"><parent link="base"/><child link="b"/><axis xyz="1 0 0"/>
    <dynamics friction="0.15"/></joint>
</robot>
"""


def test_a_joint_with_only_damping_or_only_friction_keeps_it_in_the_urdf(tmp_path):
    (tmp_path / "hinges.urdf").write_text(HINGES)
    rig = Apparatus("h", chain={"h": Arm.Kinematic(description=str(tmp_path / "hinges.urdf"))})
    path = export_urdf(rig, tmp_path / "rig.urdf")
    written = {j.get("name"): j.find("dynamics").attrib for j in ET.parse(path).getroot().iter("joint")
               if j.get("type") != "fixed"}  # not the segment's own mount
    assert written == {"h/damped": {"damping": "0.4", "friction": "0.0"},
                       "h/rubbing": {"damping": "0.0", "friction": "0.15"}}
    joints = read_urdf(path).joints
    assert (joints["h/damped"].damping, joints["h/damped"].friction) == (0.4, 0.0)
    assert (joints["h/rubbing"].damping, joints["h/rubbing"].friction) == (0.0, 0.15)
