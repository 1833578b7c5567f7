"""Pins the contract of ``MultibodyTree.copy``: the copy's tables (links, joints, transmissions, part links)
can grow without touching the tree it was copied from, so a rig edit that grafts onto a copy leaves the
description's tree as it was read."""

from __future__ import annotations

import numpy as np

from mime_gui.multibody.tree import Transmission
from mime_gui.multibody.urdf import read_urdf

URDF = """<robot name="r">
  <link name="base"/>
  <link name="arm"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/>
  </inertial></link>
  <joint name="j" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <transmission name="t_j">
    <type>transmission_interface/SimpleTransmission</type>
    <joint name="j"><hardwareInterface>EffortJointInterface</hardwareInterface></joint>
    <actuator name="m_j"><mechanicalReduction>50</mechanicalReduction></actuator>
  </transmission>
</robot>"""


def test_the_copy_s_transmission_table_grows_without_touching_the_original():
    tree = read_urdf(URDF)
    assert list(tree.transmissions) == ["t_j"]
    copy = tree.copy()
    copy.transmissions["t_extra"] = Transmission("t_extra", "j", "m_extra", 10.0)
    # the original keeps exactly what its file declared
    assert list(tree.transmissions) == ["t_j"]
    assert tree.transmissions["t_j"].reduction == 50.0
    assert list(copy.transmissions) == ["t_j", "t_extra"]


def test_the_copy_s_other_tables_grow_without_touching_the_original():
    tree = read_urdf(URDF)
    copy = tree.copy()
    copy.add_fixed_link("tool", "arm", np.eye(4))
    copy.part_links.add("tool")
    assert set(tree.links) == {"base", "arm"}
    assert set(tree.joints) == {"j"}
    assert tree.part_links == set()
    assert "tool" in copy.links
