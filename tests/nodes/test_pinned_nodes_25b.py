"""Contracts of the dynamic arm node pinned against mutation survivors: a play of too many sub-steps is told
the sub-steps per step it asked for written out in full (only beyond 10^18 as a power of ten); a continuous
joint turns freely in the forward dynamics even when the tree that made it carries finite limits for it (as
a rig factory's ``frames`` gives them), as the kinematic node holds it; and a play longer than one progress
block on a moving mount feels, in each step of every block, the mount's motion of that step."""

from __future__ import annotations

import numpy as np
import pytest

from mime_gui.errors import CodedError
from mime_gui.multibody import read_urdf
from mime_gui.nodes import KinematicArmNode
from mime_gui.nodes.dynamic import MAX_SUBSTEPS, PROGRESS_STEPS, DynamicArmNode, check_substeps
from mime_gui.rig.dynamics import frames

G = 9.81

# a slider along its base's z axis carrying 1 kg: no limit it can reach in these plays
SLIDER_URDF = """<robot name="slider"><link name="base"/>
<link name="carriage"><inertial><mass value="1"/><origin xyz="0 0 0"/>
<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
<joint name="slide" type="prismatic"><parent link="base"/><child link="carriage"/><axis xyz="0 0 1"/>
<limit lower="-1000" upper="1000" effort="10" velocity="100"/></joint></robot>"""


def _slider_node(substeps: int) -> DynamicArmNode:
    return DynamicArmNode(read_urdf(SLIDER_URDF).compile(), substeps=substeps)


@pytest.mark.parametrize(("substeps", "many"), [(1_000, "1,000"), (10**17, "100,000,000,000,000,000"),
                                                (10**18, "about 10^18")], ids=["thousand", "1e17", "1e18"])
def test_the_sub_steps_asked_for_are_written_out_in_full_below_ten_to_the_eighteen(substeps, many):
    """10,000 steps of 1,000 sub-steps (1e7, twice the limit): the refusal repeats the 1,000 asked for and
    says 500 per step fit; only a count of 19 digits or more is given as its power of ten."""
    with pytest.raises(CodedError) as info:
        check_substeps(10_000, substeps, 0.01, "--substeps")
    assert (info.value.code, info.value.file) == ("dynamics.substeps", "--substeps")
    assert info.value.message == (
        f"10,000 steps of {many} sub-steps each make more than the {MAX_SUBSTEPS:,} sub-steps one play may "
        "integrate; use at most 500 sub-step(s) per step, or fewer steps (a larger step than 0.01 s, or a "
        "shorter command file)")


def test_a_play_of_too_many_sub_steps_is_refused_before_integrating_naming_those_asked_for():
    """The node's own play says the same: 10,000 steps of 1,000 sub-steps each are refused."""
    with pytest.raises(CodedError) as info:
        _slider_node(1_000).play(np.zeros((10_000, 1)), 0.01)
    assert info.value.code == "dynamics.substeps"
    assert info.value.message.startswith("10,000 steps of 1,000 sub-steps each make more than the ")


def test_a_continuous_joint_turns_freely_whatever_limits_its_tree_carries():
    """A rig factory's ``frames`` gives a continuous joint the (lower, upper) it was handed; continuous means
    no position limit, so the dynamic node (as the kinematic one) bounds it by ±inf, and a steady torque
    turns it on past the stated limits: under semi-implicit Euler from rest, q_N = a·dt²·N(N+1)/2."""
    tree = frames("turntable", "base", [("spin", "continuous", "base", "table", (0, 0, 0), (0, 0, 1),
                                         (-1.0, 1.0))])
    art = tree.compile(armature={"spin": 0.01})  # the massless table turns its armature only
    assert art.continuous.tolist() == [True]
    node = DynamicArmNode(art)
    assert (node.lower.tolist(), node.upper.tolist()) == ([-np.inf], [np.inf])
    kinematic = KinematicArmNode(art)
    assert (kinematic.lower.tolist(), kinematic.upper.tolist()) == ([-np.inf], [np.inf])
    for sign in (-1.0, 1.0):
        # 0.1 N·m on 0.01 kg·m²: 10 rad/s² for 1 s, about 5 rad, well past ±1
        trajectory = node.play(np.full((1000, 1), 0.1 * sign), 1e-3)
        n = np.arange(1, 1001)
        np.testing.assert_allclose(trajectory.joint_positions[:, 0], sign * 10.0 * 1e-6 * n * (n + 1) / 2,
                                   rtol=1e-9)
        np.testing.assert_allclose(trajectory.joint_velocities[:, 0], sign * 10.0 * 1e-3 * n, rtol=1e-9)


def test_a_mount_turned_upside_down_after_one_progress_block_reverses_the_fall_in_the_next():
    """A slider along its mount's z: for N = PROGRESS_STEPS steps the mount is upright (q̈ = −g), then it is
    turned upside down about its origin (no twist, gravity now along +z of the base, q̈ = +g). Semi-implicit
    Euler from rest: v_k = −g·dt·k up to N, then −g·dt·(2N − k), at rest again after 2N steps at
    q = −g·(N·dt)²; every step of the second block feels the turned mount."""
    N, dt = PROGRESS_STEPS, 1e-3
    poses = np.broadcast_to(np.eye(4), (2 * N, 4, 4)).copy()
    poses[N:, :3, :3] = np.diag([1.0, -1.0, -1.0])  # half a turn about x
    node = DynamicArmNode(read_urdf(SLIDER_URDF).compile())
    trajectory = node.play(np.zeros((2 * N, 1)), dt, mount_poses=poses)
    k = np.arange(1, 2 * N + 1)
    v = -G * dt * np.where(k <= N, k, 2 * N - k)
    np.testing.assert_allclose(trajectory.joint_velocities[:, 0], v, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(trajectory.joint_positions[:, 0], dt * np.cumsum(v), rtol=1e-9, atol=1e-9)
    assert trajectory.joint_velocities[-1, 0] == pytest.approx(0.0, abs=1e-9)
    assert trajectory.joint_positions[-1, 0] == pytest.approx(-G * (N * dt) ** 2, rel=1e-9)
