"""Contracts of the torque-driven node pinned against mutation survivors: its initial joint positions are read
as float numbers (exact fractions are taken, a missing entry is refused as non-finite with the node's own
ValueError); the mount rate its frames turn with is a float vector whatever number type it was given in, in
``play`` as in ``published``; and ``published`` refuses a mount pose of the wrong shape naming
``mount_poses``."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from mime_gui.multibody import read_urdf
from mime_gui.nodes.dynamic import DynamicArmNode

# one massive link turning about z within ±1 rad
ONE_JOINT_URDF = """<robot name="r"><link name="base"/>
<link name="arm"><inertial><mass value="1"/><origin xyz="0.1 0 0"/>
<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
<joint name="shoulder" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
<limit lower="-1" upper="1" effort="10" velocity="1"/></joint></robot>"""


def _node() -> DynamicArmNode:
    # no gravity: with no torque and at rest the joint stays exactly where it started
    return DynamicArmNode(read_urdf(ONE_JOINT_URDF).compile(), gravity=(0.0, 0.0, 0.0))


def test_the_initial_positions_given_in_exact_fractions_are_played_from_as_floats():
    traj = _node().play(np.zeros((3, 1)), 0.01, initial_positions=[Fraction(1, 2)])
    assert traj.joint_positions.dtype == np.float64
    np.testing.assert_array_equal(traj.joint_positions, [[0.5], [0.5], [0.5]])


def test_an_initial_position_left_empty_is_refused_as_non_finite():
    """A missing entry (a null in a file, an empty form field) is read as NaN and refused by the node's own
    check, not left to fail deeper as a TypeError."""
    with pytest.raises(ValueError, match=r"^initial positions and velocities must be 1 finite numbers$"):
        _node().play(np.zeros((3, 1)), 0.01, initial_positions=[None])


def test_the_frames_of_a_published_trajectory_at_rest_turn_with_the_mount_rate_given_in_fractions():
    """Ω_k = ω_j + R·W_k with no joint velocity: every frame turns at the mount's rate itself, as floats."""
    traj = _node().published(np.zeros((2, 1)), np.zeros((2, 1)), 0.01,
                             mount_rates=[0, Fraction(1, 4), Fraction(1, 2)])
    w = traj.frame_angular_velocities
    assert w.dtype == np.float64
    np.testing.assert_array_equal(w, np.broadcast_to([0.0, 0.25, 0.5], w.shape))


def test_the_frames_of_a_played_trajectory_turn_with_the_mount_rate_given_in_fractions():
    """The same contract through ``play`` on a still mount: the played frames' angular velocities are those of
    the same rate given in floats."""
    node = _node()
    plain = node.play(np.zeros((2, 1)), 0.01, mount_poses=np.eye(4), mount_rates=[0.0, 0.0, 0.5])
    exact = node.play(np.zeros((2, 1)), 0.01, mount_poses=np.eye(4), mount_rates=[0, 0, Fraction(1, 2)])
    assert exact.frame_angular_velocities.dtype == np.float64
    np.testing.assert_array_equal(exact.frame_angular_velocities, plain.frame_angular_velocities)
    np.testing.assert_array_equal(exact.joint_positions, plain.joint_positions)


def test_a_published_mount_pose_of_the_wrong_shape_is_refused_naming_mount_poses():
    wanted = r"^mount_poses must have shape \(4, 4\) or \(2, 4, 4\), got \(3, 3\)$"
    with pytest.raises(ValueError, match=wanted):
        _node().published(np.zeros((2, 1)), np.zeros((2, 1)), 0.01, mount_poses=np.eye(3))
