"""The words of the engine's and the URDF reader's refusals: each names the argument, joint, link or line it
refuses and what is expected instead."""

from __future__ import annotations

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.multibody import ReadReport, UrdfError, dynamics, frame_poses, inverse_dynamics, read_urdf
from mime_gui.multibody.moving_base import dynamics_on_moving_base, inverse_dynamics_on_moving_base
from mime_gui.multibody.tree import Mimic

ARM = RESOURCES / "demo" / "arm.urdf"
JOINTS = "joint_1, joint_2, joint_3, joint_4, joint_5, joint_6"


@pytest.fixture(scope="module")
def art():
    return read_urdf(ARM).compile()


def test_a_non_finite_external_wrench_is_refused_naming_its_body(art):
    q = np.zeros(6)
    with pytest.raises(ValueError) as info:
        inverse_dynamics(art, q, q, q, external_wrenches={"tool0": ((0.0, 0.0, np.nan), (0.0, 0.0, 0.0))})
    assert str(info.value) == "external_wrenches['tool0'] holds non-finite values"


def test_non_finite_positions_are_refused_naming_q_and_asking_for_finite_numbers(art):
    with pytest.raises(ValueError) as info:
        frame_poses(art, np.full(6, np.inf))
    assert str(info.value).startswith("q holds non-finite values")
    assert "expected finite numbers" in str(info.value)


def test_torques_that_do_not_broadcast_with_the_state_are_refused_with_both_shapes(art):
    with pytest.raises(ValueError) as info:
        dynamics(art, np.zeros((2, 6)), np.zeros((2, 6)), np.zeros((3, 6)))
    assert "tau (3, 6) does not broadcast with q (2, 6) and v (2, 6)" in str(info.value)


def test_a_base_twist_that_does_not_broadcast_is_refused_naming_it_and_the_batch(art):
    q = np.zeros((2, 6))
    with pytest.raises(ValueError) as info:
        inverse_dynamics_on_moving_base(art, q, q, q, base_twist=np.zeros((3, 6)))
    assert "base_twist (3, 6) does not broadcast with the batch (2,)" in str(info.value)


@pytest.mark.parametrize("gravity, words", [((0.0, 0.0, np.nan), "(3,)"), ((0.0, -9.81), "(2,)")],
                         ids=["not-finite", "two-numbers"])
def test_a_bad_gravity_on_a_moving_base_is_refused_naming_gravity_and_the_shape_expected(art, gravity, words):
    q = np.zeros(6)
    with pytest.raises(ValueError) as info:
        dynamics_on_moving_base(art, q, q, q, gravity=gravity)
    assert str(info.value).startswith("gravity must be finite numbers of shape (..., 3)")
    assert f"got shape {words}" in str(info.value)


def test_an_unknown_joint_is_refused_listing_the_movable_joints(art):
    with pytest.raises(KeyError) as info:
        art.joint_index("elbow")
    assert "unknown joint 'elbow' in 'demo_arm'" in str(info.value)
    assert f"movable joints: {JOINTS}" in str(info.value)


def test_armature_on_an_unknown_joint_is_refused_listing_the_movable_joints():
    with pytest.raises(KeyError) as info:
        read_urdf(ARM).compile(armature={"elbow": 1e-3})
    assert "unknown joint 'elbow' for armature" in str(info.value)
    assert f"movable joints: {JOINTS}" in str(info.value)


def test_a_mimic_of_no_joint_set_on_a_tree_is_refused_naming_both_joints():
    tree = read_urdf(ARM)
    tree.joints["joint_2"].mimic = Mimic("elbow")
    with pytest.raises(ValueError) as info:
        tree.compile()
    assert "joint 'joint_2': the mimic chain through 'elbow'" in str(info.value)
    assert "does not end at an independent movable joint" in str(info.value)


@pytest.mark.parametrize("name", ["joint_1", "tool0"], ids=["a-joint", "a-link"])
def test_a_grafted_link_with_a_name_already_taken_is_refused_naming_it_and_the_tree(name):
    tree = read_urdf(ARM)
    with pytest.raises(ValueError) as info:
        tree.add_fixed_link(name, "base_link", np.eye(4))
    assert str(info.value) == f"name {name!r} already exists in 'demo_arm'"


def test_a_defect_of_an_unknown_use_is_refused_listing_the_uses():
    with pytest.raises(ValueError) as info:
        ReadReport("r.urdf").error("urdf.value", "a message", 3, blocks="flying")
    assert "unknown use 'flying'" in str(info.value)
    for use in ("dynamics", "armature", "drawing", "mimic", "frames"):
        assert use in str(info.value).split("; one of ")[1]


@pytest.mark.parametrize("text, code, line, words", [
    ('<?xml version="1.0"?>\n<!DOCTYPE robot [<!ENTITY a "b">]>\n<robot name="r">\n  <link name="base"/>\n'
     '</robot>\n', "urdf.xml", 2, ["forbidden XML construct (", "remove the DOCTYPE/ENTITY block"]),
    ('<?xml version="1.0"?>\n<robot name="r">\n  <link name="base"/>\n  <xacro:property name="p"/>\n'
     '</robot>\n', "urdf.xacro", 4, ["this is an unexpanded xacro file (xacro: elements)",
                                       "run `xacro FILE.urdf.xacro > FILE.urdf` first and open the result"]),
], ids=["an entity declaration", "an unexpanded xacro file"])
def test_xml_a_urdf_cannot_hold_is_refused_at_its_line_with_the_fix(text, code, line, words):
    with pytest.raises(UrdfError) as info:
        read_urdf(text)
    assert (info.value.code, info.value.line) == (code, line)
    for w in words:
        assert w in info.value.message, w
