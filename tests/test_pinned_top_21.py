"""Contracts of the multibody reader and the dynamic node, pinned:

* a read report keeps the first five lines a kind occurs on, however its occurrences come (one by one or
  merged in batches; seven transmissions that are not simple: counted 7, lines of the first five);
* an unresolved package mesh of a URDF read from text, with no package folder anywhere, was looked for
  nowhere: its advice asks for the package folder and names no path tried;
* ``DynamicArmNode.play`` names ``mount_pose0`` when the pose before step 0 has the wrong shape.
"""

from __future__ import annotations

import numpy as np
import pytest
from robot_data import PLANAR_URDF

import mime_gui.multibody as mb
from mime_gui.multibody import resolve
from mime_gui.multibody.report import IGNORED, ReadReport
from mime_gui.nodes.dynamic import DynamicArmNode


def test_a_kind_added_seven_times_keeps_its_count_and_the_first_five_lines():
    transmissions = "\n".join(
        f'<transmission name="t{i}"><actuator name="a{i}"/></transmission>' for i in range(7)
    )
    tree = mb.read_urdf(f'<robot name="r">\n<link name="base"/>\n{transmissions}\n</robot>')
    entry = tree.report.entries["robot/transmission (not simple)"]
    assert (entry.group, entry.count) == (IGNORED, 7)
    assert entry.lines == [3, 4, 5, 6, 7]  # the report of a large robot stays short


def test_a_kind_merged_twice_keeps_no_more_than_five_lines():
    report = ReadReport("r.urdf")
    report.merge("robot/link", "used", 5, (1, 2, 3, 4, 5))
    report.merge("robot/link", "used", 5, (6, 7, 8, 9, 10))
    assert report.to_dict()["used"] == [
        {"kind": "robot/link", "count": 10, "lines": [1, 2, 3, 4, 5], "note": ""}
    ]


def test_a_package_mesh_looked_for_nowhere_is_advised_without_a_list_of_paths_tried(monkeypatch):
    # text has no folder, and no package folder is given by the process or the environment
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    monkeypatch.setattr(resolve, "_process_dirs", [])
    uri = "package://alpha/meshes/arm.stl"
    tree = mb.read_urdf(
        f'<robot name="r"><link name="a"><visual><geometry><mesh filename="{uri}"/>'
        "</geometry></visual></link></robot>"
    )
    mesh = tree.links["a"].visuals[0].geometry
    assert mesh.filename is None and mesh.tried == ()
    (warning,) = [w for w in tree.report.warnings if w.code == "urdf.mesh-unresolved"]
    assert warning.message == (
        f"mesh {uri!r} of link 'a' was not found; Pass the folder that holds package 'alpha' (or that "
        "folder's parent) with --package-dir, a rig file's package_dirs, or ROS_PACKAGE_PATH, or give the "
        "package's folder a package.xml naming it 'alpha' (the folder holding the URDF or one above it); the "
        "robot loads without it"
    )


def test_a_mount_pose_before_step_zero_of_the_wrong_shape_is_named():
    node = DynamicArmNode(mb.read_urdf(PLANAR_URDF).compile())
    torques = np.zeros((2, node.art.nq))
    with pytest.raises(ValueError) as err:
        node.play(torques, 0.01, mount_poses=np.eye(4), mount_pose0=np.eye(3))
    assert str(err.value) == "mount_pose0 must have shape (4, 4), got (3, 3)"
    with pytest.raises(ValueError) as err:
        node.play(torques, 0.01, mount_poses=np.eye(4), mount_pose0=np.full((4, 4), np.nan))
    assert str(err.value) == "mount_pose0 holds non-finite values"
