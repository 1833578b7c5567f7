"""The MJCF file's bodies: what stands in the world, one after another, with nothing written between them;
a moving body MuJoCo would refuse (a thin rod, no moment about its own length) refused before it is written,
and one a hair thicker written and loaded by MuJoCo."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from rig_helpers import DEMO_RIG

from mime_gui import RESOURCES
from mime_gui.rig import Apparatus, Arm, Box, Part, a_m2, load
from mime_gui.rig.mjcf_export import export_mjcf
from mime_gui.rig.samples import Sample
from mime_gui.rig.simulators import ExportError, whole


def test_the_world_holds_the_arm_and_a_world_sample_side_by_side_with_no_text_between_them(tmp_path):
    rig = load(DEMO_RIG)
    rig.samples = {"dish": Sample((0.3, 0.1, 0.0), moment=a_m2(1e-4, reason="a bead's datasheet moment"))}
    root = ET.parse(export_mjcf(rig, tmp_path / "rig.xml")).getroot()
    world = root.find("worldbody")
    assert [(e.tag, e.get("name")) for e in world] == [("body", "arm/base_link"), ("site", "sample:dish")]
    # an MJCF file is elements and comments only: any text between them is something written by mistake
    assert [e.tag for e in root.iter() if (e.text or "").strip() or (e.tail or "").strip()] == []


ROD = """<robot name="rod">
  <link name="base"/>
  <link name="rod">
    <inertial><mass value="0.2"/>
      <inertia ixx="1e-4" iyy="1e-4" izz="{izz}" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <joint name="spin" type="continuous"><parent link="base"/><child link="rod"/><axis xyz="1 0 0"/></joint>
</robot>
"""


def _rod_rig(tmp_path, izz: str) -> Apparatus:
    (tmp_path / "rod.urdf").write_text(ROD.format(izz=izz))
    rig = Apparatus("rod", chain={"arm": Arm.Dynamic(description=str(tmp_path / "rod.urdf"))})
    assert rig.validate() == []
    return rig


@pytest.mark.parametrize(("izz", "code", "file", "words"), [
    # its moments sum to 2e-4 kg m2, but one of them is 0: MuJoCo wants each one at least 1e-15
    ("0", "export.mjcf-massless", "chain.arm",
     "moves no body with both a mass and an inertia about every axis"),
    # moments 1e-4, 1e-4, 3e-4 about x, y, z: the largest is above the sum of the others. As a disc about x,
    # y and z gain half the 1e-4 about x: 1.5e-4 and 3.5e-4, and 3.5e-4 is still above 1e-4 + 1.5e-4
    ("3e-4", "export.mjcf-inertia", "arm/rod", "is not a rotor about arm/spin's axis; fix its inertia"),
], ids=["a thin rod", "no disc mends it"])
def test_a_body_mujoco_would_refuse_is_refused_with_its_code_and_nothing_written(tmp_path, izz, code, file,
                                                                                  words):
    with pytest.raises(ExportError) as refused:
        export_mjcf(_rod_rig(tmp_path, izz), tmp_path / "rod.xml")
    assert (refused.value.code, refused.value.file) == (code, file)
    assert words in refused.value.message
    assert not (tmp_path / "rod.xml").exists()


def test_a_rod_with_a_moment_about_its_length_is_written_and_mujoco_moves_it(tmp_path):
    mujoco = pytest.importorskip("mujoco")
    out = export_mjcf(_rod_rig(tmp_path, "1e-9"), tmp_path / "rod.xml")
    model = mujoco.MjModel.from_xml_path(str(out))
    assert model.nv == 1 and sorted(model.body_inertia[-1]) == pytest.approx([1e-9, 1e-4, 1e-4], rel=1e-9)


def test_a_part_on_a_kinematic_arm_gives_the_exported_tree_its_mass_at_its_place(tmp_path):
    (tmp_path / "rod.urdf").write_text(ROD.format(izz="1e-4"))
    rig = Apparatus("rod", chain={"arm": Arm.Kinematic(description=str(tmp_path / "rod.urdf"))},
                    parts={"block": Part(Box((0.02, 0.04, 0.05)), material="aluminium", at=(0.1, 0.0, 0.0),
                                         mount="arm.rod")})
    density = {m["name"]: m for m in json.loads((RESOURCES / "materials.json").read_text())["materials"]}[
        "aluminium"]["density"]
    block = density * 0.02 * 0.04 * 0.05  # kg
    art = whole(rig, tmp_path).tree.compile()  # the tree the URDF and MJCF writers write
    # the rod's body: its own 0.2 kg at its origin and the block welded to it, 0.1 m along x
    assert art.mass_of_body[-1] == pytest.approx(0.2 + block, rel=1e-12)
    np.testing.assert_allclose(art.com[-1], [block * 0.1 / (0.2 + block), 0.0, 0.0], rtol=1e-12, atol=1e-15)
