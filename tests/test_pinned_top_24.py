"""Contracts pinned for the twenty-fourth sample's multibody and nodes survivors.

- ``compile_tree`` gives one friction coefficient per movable joint (``Articulation.friction`` is ``(nq,)``)
  also when a tree built in code holds each joint's coefficients as one-element arrays, as it does damping;
  a dynamic node then plays such a tree exactly like the tree with plain numbers.
- A kinematic node's ``play`` names its argument ``commands`` when it refuses commands of the wrong width
  or with non-finite values.
- A dynamic node's joint stops hold at a joint with one finite limit only (the other side open): a slider
  with a floor and no ceiling rests on its floor under gravity, in ``play`` and in ``step``.
"""

from __future__ import annotations

import numpy as np
import pytest

from mime_gui.multibody import read_urdf
from mime_gui.multibody.articulation import compile_tree
from mime_gui.multibody.tree import Limit
from mime_gui.nodes import KinematicArmNode
from mime_gui.nodes.dynamic import DynamicArmNode

#: a 2 kg block on a vertical slider (prismatic along z), limits [0, 1] m, damping 0.5 and friction 0.3
SLIDER = """<robot name="slider"><link name="base"/>
  <link name="block"><inertial><origin xyz="0 0 0"/><mass value="2"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>
  <joint name="lift" type="prismatic"><parent link="base"/><child link="block"/><axis xyz="0 0 1"/>
    <limit lower="0" upper="1" effort="100" velocity="1"/><dynamics damping="0.5" friction="0.3"/></joint>
</robot>"""


def _slider_tree(limit: Limit | None = None):
    tree = read_urdf(SLIDER)
    if limit is not None:
        tree.joints["lift"].limit = limit
    return tree


def test_the_friction_of_joints_given_as_one_element_arrays_is_one_coefficient_a_joint():
    # a tree built in code may carry numpy values (a slice of a table); damping is flattened to (nq,), and
    # friction must be too, or the node's joint forces would broadcast to (nq, nq)
    tree = _slider_tree()
    joint = tree.joints["lift"]
    joint.damping, joint.friction = np.array([0.5]), np.array([0.3])
    art = compile_tree(tree)
    assert art.friction.shape == (1,)
    assert art.friction.tolist() == [0.3]
    assert art.damping.shape == (1,)
    plain = compile_tree(_slider_tree())
    u = np.full((5, 1), 25.0)  # lifts the 2 kg block against gravity (19.62 N), friction and damping
    ours = DynamicArmNode(art).play(u, 0.01, initial_positions=[0.5])
    ref = DynamicArmNode(plain).play(u, 0.01, initial_positions=[0.5])
    np.testing.assert_array_equal(ours.joint_positions, ref.joint_positions)
    np.testing.assert_array_equal(ours.joint_velocities, ref.joint_velocities)


@pytest.mark.parametrize(
    "commands, message",
    [
        (np.zeros((3, 2)), "commands must have 1 entry (lift), got shape (3, 2)"),
        (np.array([[0.1], [np.nan]]), "commands holds non-finite values"),
    ],
    ids=["wrong width", "non-finite"],
)
def test_a_kinematic_play_refuses_bad_commands_naming_them_commands(commands, message):
    node = KinematicArmNode(compile_tree(_slider_tree()))
    with pytest.raises(ValueError) as caught:
        node.play(commands, 0.01)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    "limit", [Limit(0.0, np.inf), Limit(-np.inf, 0.0)], ids=["floor only", "ceiling only"]
)
def test_a_joint_with_one_finite_limit_is_stopped_at_it(limit):
    # gravity (or a push up, for the ceiling) drives the block into its one finite limit at 0 m: a
    # perfectly inelastic stop keeps it there at rest, whatever the open side
    art = compile_tree(_slider_tree(limit))
    node = DynamicArmNode(art)
    push = 0.0 if np.isfinite(limit.lower) else 40.0  # 40 N up beats the block's 19.62 N weight
    out = node.play(np.full((4, 1), push), 0.01)
    np.testing.assert_array_equal(out.joint_positions, np.zeros((4, 1)))
    np.testing.assert_array_equal(out.joint_velocities, np.zeros((4, 1)))
    # the numpy step (one state) stops it too
    q, v = node.step(np.zeros(1), np.zeros(1), np.array([push]), 0.01)
    assert q.tolist() == [0.0] and v.tolist() == [0.0]
