"""A node of one joint takes its commands as a vector, not a bare number; the markers a message lists,
for one marker as for several."""

from __future__ import annotations

import numpy as np
import pytest

from mime_gui.multibody import read_urdf
from mime_gui.nodes import KinematicArmNode
from mime_gui.nodes.columns import marker_list

ONE_JOINT = """<robot name="hinge">
  <link name="base"/><link name="flap"/>
  <joint name="h" type="revolute"><parent link="base"/><child link="flap"/><axis xyz="0 0 1"/>
    <limit lower="-0.5" upper="0.5" effort="1" velocity="1"/></joint>
</robot>
"""


@pytest.fixture
def node(tmp_path):
    path = tmp_path / "hinge.urdf"
    path.write_text(ONE_JOINT)
    return KinematicArmNode(read_urdf(path).compile(), servo_time_constant=0.0)


def test_a_one_joint_node_holds_vectors_of_one_and_refuses_a_bare_number(node):
    np.testing.assert_array_equal(node.held([0.2]), [0.2])
    np.testing.assert_array_equal(node.held([[0.9], [-0.9], [0.1]]), [[0.5], [-0.5], [0.1]])
    with pytest.raises(ValueError, match=r"joint positions must have 1 entry \(h\), got shape \(\)"):
        node.held(0.2)


def test_the_markers_of_a_message_read_as_a_list_for_any_count():
    assert marker_list(["rad"]) == "[rad]"
    assert marker_list(["rad", "deg"]) == "[rad] or [deg]"
    assert marker_list(["rad", "deg", "m"]) == "[rad], [deg] or [m]"
    assert marker_list([]) == ""
