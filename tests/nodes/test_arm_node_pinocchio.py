"""Poses and angular velocities of the node against Pinocchio on real robots (UR5, Panda)."""

from __future__ import annotations

import numpy as np
import pytest
from node_helpers import random_pose
from robot_data import robot_urdf

from mime_gui.multibody import read_urdf
from mime_gui.nodes import KinematicArmNode

pin = pytest.importorskip("pinocchio")

ROBOTS = ["ur_description/urdf/ur5_robot.urdf", "panda_description/urdf/panda.urdf"]


def pin_q(model, art, theta):
    """Our joint positions in Pinocchio's q layout (continuous joints as cos, sin)."""
    q = pin.neutral(model)
    for name, value in zip(art.joint_names, theta, strict=True):
        joint = model.joints[model.getJointId(name)]
        if joint.nq == 2:
            q[joint.idx_q:joint.idx_q + 2] = np.cos(value), np.sin(value)
        else:
            q[joint.idx_q] = value
    return q


def pin_v(model, art, rate):
    v = np.zeros(model.nv)
    for name, value in zip(art.joint_names, rate, strict=True):
        v[model.joints[model.getJointId(name)].idx_v] = value
    return v


@pytest.mark.parametrize("relative", ROBOTS)
def test_poses_and_angular_velocities_match_pinocchio(relative):
    path = robot_urdf(relative)
    art = read_urdf(path).compile()
    model = pin.buildModelFromUrdf(str(path))
    data = model.createData()
    rng = np.random.default_rng(5)
    O, M = random_pose(rng), random_pose(rng)
    omega = rng.normal(size=3)
    node = KinematicArmNode(art, servo_time_constant=0.03, placement=O)
    commanded = [art.joint_index(name) for name in node.command_names]
    lo = np.where(np.isfinite(node.lower), node.lower, -np.pi)[commanded]
    hi = np.where(np.isfinite(node.upper), node.upper, np.pi)[commanded]
    steps, dt = 8, 0.01
    u = rng.uniform(lo - 0.2, hi + 0.2, (steps, node.ncommands))  # some beyond the limits
    played = node.play(u, dt, rng.uniform(lo, hi), mount_poses=M, mount_rates=omega)
    checked = 0
    for n in range(1, steps):
        theta, previous = played.joint_positions[n], played.joint_positions[n - 1]
        q, v = pin_q(model, art, theta), pin_v(model, art, (theta - previous) / dt)
        pin.forwardKinematics(model, data, q, v)
        pin.updateFramePlacements(model, data)
        for k, name in enumerate(art.frame_names):
            fid = model.getFrameId(name, pin.BODY)
            assert fid < model.nframes, name
            expected = M @ O @ data.oMf[fid].homogeneous
            np.testing.assert_allclose(played.frame_poses[n, k], expected, atol=1e-12, err_msg=name)
            w = pin.getFrameVelocity(model, data, fid, pin.LOCAL_WORLD_ALIGNED).angular
            np.testing.assert_allclose(played.frame_angular_velocities[n, k], omega + (M @ O)[:3, :3] @ w,
                                       atol=1e-10, err_msg=name)
            checked += 1
    assert checked == (steps - 1) * art.nframes
    assert played.clamped.sum() > 0
    assert np.all(played.joint_positions >= node.lower) and np.all(played.joint_positions <= node.upper)
