"""A torque-driven segment's drive: its forward-dynamics node, the torques held and its base's track; its
joint velocities are part of its state (:attr:`~mime_gui.nodes.NodeState.joint_velocities`), beside its
positions."""

from __future__ import annotations

import dataclasses

import numpy as np

from mime_gui.errors import CodedError
from mime_gui.nodes import NodeState
from mime_gui.session.live_torques import BaseTrack


def velocities(state: NodeState) -> np.ndarray:
    """The joint velocities of ``state`` (zeros where a kinematic node computed it: at rest)."""
    v = state.joint_velocities
    return np.zeros(len(state.joint_positions)) if v is None else np.array(v, dtype=float)


class TorqueDrive:
    """A torque-driven segment's drive: its forward-dynamics node, the torques held and its base's track (a
    mounted segment's base motion is differenced step to step)."""

    def __init__(self, node, kinematic, mounted: bool, pose):
        self.node = node
        self.kinematic = kinematic  # the chain's node of the segment: its state at rest after a divergence
        nq = node.art.nq
        self.u = np.zeros(nq)
        self.u.setflags(write=False)
        self.mounted = mounted
        self.base = BaseTrack(pose) if mounted else None
        R = np.asarray(node.placement)[:3, :3]
        self.gravity_in_base = R.T @ node.gravity
        self.last_base = None  # (V0, A0, g) of the last step, in base axes; None at rest

    def rest(self, pose) -> None:
        """Put somewhere and at rest (the caller's state has no velocities): the base's track starts again."""
        self.last_base = None
        if self.mounted:
            self.base = BaseTrack(pose)

    def holding(self, state: NodeState) -> np.ndarray:
        """The torques ``u`` giving zero joint acceleration at ``(q, v)``: ``c(q, v)`` on the base's motion of
        the last step (at rest: gravity in the base's axes now), plus the damping and friction the node takes
        off (``joint_forces(u, v) = c``)."""
        from mime_gui.multibody.moving_base import bias_on_moving_base

        if self.last_base is not None:
            V0, A0, g = self.last_base
        elif self.base is not None:  # a mounted segment at rest: gravity in its base's axes where it is
            V0, A0, g = None, None, self.base.pose[:3, :3].T @ self.node.gravity
        else:
            V0, A0, g = None, None, self.gravity_in_base
        v = velocities(state)
        c = bias_on_moving_base(self.node.art, np.asarray(state.joint_positions, dtype=float), v, V0, A0, g)
        return c - self.node.joint_forces(np.zeros_like(c), v)  # what damping and friction take off

    def driver(self, name: str, dt: float, diverged: list):
        """The chain node's driver for one step of ``dt``; a divergence is appended to ``diverged`` and the
        segment stays where it was, at rest."""

        def drive(state, mount_pose, mount_rate):
            if self.base is None or mount_pose is None:
                base = (None, None, self.gravity_in_base)
            else:
                base = self.base.step(mount_pose @ self.node.placement, mount_rate, dt, self.node.gravity)
            self.last_base = base
            try:
                new, v = self.node.advance(state.joint_positions, velocities(state), self.u, dt, base,
                                           mount_pose, mount_rate)
            except CodedError as err:  # diverged, or a joint whose acceleration is undefined
                diverged.append((name, str(getattr(err, "message", err))))
                return self.kinematic.initial_state(state.joint_positions, mount_pose=mount_pose,
                                                    mount_rate=mount_rate)
            v = np.array(v, dtype=float)
            v.setflags(write=False)
            return dataclasses.replace(new, joint_velocities=v)

        return drive
