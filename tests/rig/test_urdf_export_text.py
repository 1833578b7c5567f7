"""The URDF export's own words: the comment that says how a magnet's numbers are written, in their order."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import pytest
from rig_helpers import DEMO_RIG

from mime_gui.rig import load, material
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
