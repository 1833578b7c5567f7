"""A command file stepped past the step count asked as the most, unit markers that two kinds declare with
two factors, and the dynamic node's play under external forces on a moving mount, and the step it keeps."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mime_gui.errors import CodedError
from mime_gui.multibody import read_urdf
from mime_gui.nodes import columns
from mime_gui.nodes.chain import MountedNode
from mime_gui.nodes.commands import RecordedCommands
from mime_gui.nodes.dynamic import DynamicArmNode

# one joint about x turning a 1 kg arm whose centre of mass is 0.1 m along y: gravity turns it
PENDULUM_URDF = """<robot name="pendulum"><link name="base"/>
<link name="arm"><inertial><mass value="1"/><origin xyz="0 0.1 0"/>
<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
<joint name="j" type="continuous"><parent link="base"/><child link="arm"/><axis xyz="1 0 0"/></joint>
</robot>"""


def _by_hand(time) -> RecordedCommands:
    time = np.asarray(time, dtype=float)
    return RecordedCommands("by hand", time, ("joint_1",), np.zeros((len(time), 1)), ("",),
                            np.zeros(len(time), int))


def test_a_schedule_of_more_steps_than_the_most_asked_is_refused():
    """0 to 1 s at 0.1 s is 11 steps: a schedule allowed 5 is refused, telling to choose a larger step."""
    recorded = _by_hand([0.0, 0.5, 1.0])
    with pytest.raises(CodedError) as err:
        recorded.schedule(("joint_1",), 0.1, max_steps=5)
    assert err.value.code == "commands.dt"
    assert "more than 5 steps" in str(err.value) and "larger step" in str(err.value)
    assert len(recorded.schedule(("joint_1",), 0.1, max_steps=12).commands) == 11


def test_a_unit_marker_two_kinds_declare_with_two_factors_is_refused_naming_it(monkeypatch):
    degrees = columns.Kind("a", "a", (("a", False),), "rad", (("deg", math.pi / 180),))
    turns = columns.Kind("b", "b", (("b", False),), "rad", (("deg", 2 * math.pi),))
    monkeypatch.setattr(columns, "KINDS", (degrees, turns))
    with pytest.raises(ValueError) as err:
        columns.markers()
    assert "[deg]" in str(err.value) and "two factors" in str(err.value)


def _tilting(T: int, dt: float) -> np.ndarray:
    """Mount poses turning about y at 2 rad/s: gravity's part along the base's z changes every step."""
    poses = np.repeat(np.eye(4)[None], T, axis=0)
    a = 2.0 * dt * np.arange(T)
    poses[:, 0, 0], poses[:, 0, 2] = np.cos(a), np.sin(a)
    poses[:, 2, 0], poses[:, 2, 2] = -np.sin(a), np.cos(a)
    return poses


def test_no_external_force_on_a_tilting_mount_plays_as_the_play_without_one():
    """External joint forces of zero take the sub-step loop, which must still take each step's motion of
    the mount (here the gravity it sees): the same run as the compiled play without them."""
    node = DynamicArmNode(read_urdf(PENDULUM_URDF).compile(), integrator="euler")
    T, dt = 200, 5e-3
    u, mount = np.zeros((T, 1)), _tilting(T, dt)
    plain = node.play(u, dt, mount_poses=mount)
    pushed = node.play(u, dt, mount_poses=mount, external=lambda n, q: np.zeros(1))
    np.testing.assert_allclose(pushed.joint_positions, plain.joint_positions, rtol=1e-12, atol=1e-12)
    level = node.play(u, dt, mount_poses=np.repeat(np.eye(4)[None], T, axis=0))
    assert np.abs(plain.joint_positions[-1] - level.joint_positions[-1]).max() > 1e-3  # the tilt counts


def test_a_played_and_a_published_trajectory_keep_their_step():
    node = DynamicArmNode(read_urdf(PENDULUM_URDF).compile())
    assert node.play(np.zeros((3, 1)), 0.02).dt == 0.02
    assert node.published(np.zeros((3, 1)), np.zeros((3, 1)), 0.05).dt == 0.05


def test_a_mount_pose_written_in_exact_fractions_gives_a_float_base_pose():
    """A mount pose of Python fractions (a translation of 1/2 m along x) on a placement 1/4 m up z: the base
    pose is the float array of the product, translation (0.5, 0, 0.25), not an array of Python objects."""
    from fractions import Fraction

    placement = np.eye(4)
    placement[2, 3] = 0.25
    node = MountedNode(placement)
    mount = [[Fraction(int(i == j)) for j in range(4)] for i in range(4)]
    mount[0][3] = Fraction(1, 2)
    base = node.base(mount)
    assert base.dtype == np.float64
    np.testing.assert_array_equal(base[:3, 3], [0.5, 0.0, 0.25])
