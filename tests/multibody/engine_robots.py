"""Shared helpers of the engine tests: real robots from example-robot-data and their Pinocchio twins."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from robot_data import robots_dir

from mime_gui.multibody import read_urdf

ROBOT_FILES = {
    "ur5": "ur_description/urdf/ur5_robot.urdf",
    "panda": "panda_description/urdf/panda.urdf",
    "pr2": "pr2_description/urdf/pr2.urdf",
    "double_pendulum": "double_pendulum_description/urdf/double_pendulum_continuous.urdf",
    "talos": "talos_data/robots/talos_full_v2.urdf",
}


@cache
def load_articulation(name: str):
    d = robots_dir()
    if d is None:
        pytest.skip("example-robot-data is not installed")
    return read_urdf(d / ROBOT_FILES[name]).compile()


class PinTwin:
    """A Pinocchio model of the same URDF and the maps between its vectors and ours (by joint name)."""

    def __init__(self, name: str, art):
        import pinocchio as pin

        self.pin = pin
        self.art = art
        path = robots_dir() / ROBOT_FILES[name]
        self.model = pin.buildModelFromUrdf(str(path))  # ignores <mimic>: every joint is independent
        self.data = self.model.createData()
        self.jid = []
        self.iq = []
        self.iv = np.empty(art.nq, dtype=int)
        self.two = []
        for j, jn in enumerate(art.joint_names):
            jid = self.model.getJointId(jn)
            assert jid < self.model.njoints, jn
            joint = self.model.joints[jid]
            self.jid.append(jid)
            self.iq.append(joint.idx_q)
            self.iv[j] = joint.idx_v
            self.two.append(joint.nq == 2)
        assert self.model.nv == art.nv
        self.fid = []
        for f in art.frame_names:
            fid = self.model.getFrameId(f, pin.FrameType.BODY)
            assert fid < self.model.nframes, f
            self.fid.append(fid)
        self.model.armature = self.v(np.asarray(art.armature, dtype=float))

    def q(self, q):
        out = np.zeros(self.model.nq)
        for j, (iq, two) in enumerate(zip(self.iq, self.two, strict=True)):
            if two:
                out[iq], out[iq + 1] = np.cos(q[j]), np.sin(q[j])
            else:
                out[iq] = q[j]
        return out

    def v(self, v):
        out = np.zeros(self.model.nv)
        out[self.iv] = v
        return out

    def from_v(self, x):
        """A pin joint-velocity-space vector (or last axis of a matrix) in our joint order."""
        return np.asarray(x)[..., self.iv]

    def matrix(self, M):
        return np.asarray(M)[np.ix_(self.iv, self.iv)]

    def parent_joint(self, frame_name):
        return self.model.frames[self.fid[self.art.frame_index(frame_name)]].parentJoint

    def set_armature(self, armature):
        self.model.armature = self.v(armature)


@cache
def pin_twin(name: str):
    pytest.importorskip("pinocchio")
    return PinTwin(name, load_articulation(name))


def random_state(art, rng, n=None):
    """q within the limits (continuous joints anywhere on [-pi, pi]), v and vdot standard normal."""
    shape = (art.nq,) if n is None else (n, art.nq)
    lo = np.where(np.isfinite(art.lower), art.lower, -np.pi)
    hi = np.where(np.isfinite(art.upper), art.upper, np.pi)
    q = rng.uniform(lo, hi, shape)
    return q, rng.standard_normal(shape), rng.standard_normal(shape)


ROBOTS = list(ROBOT_FILES)
