"""A torque-driven segment's drive: its forward-dynamics node, the torques held, its base's track and the
magnets' pull it feels (:mod:`mime_gui.rig.pulled`: at each sub-step, from where the other segments are as
the tick finds them); its joint velocities are part of its state
(:attr:`~mime_gui.nodes.NodeState.joint_velocities`), beside its positions."""

from __future__ import annotations

import dataclasses

import numpy as np

from mime_gui.errors import CodedError
from mime_gui.multibody.moving_base import BaseTrack
from mime_gui.nodes import NodeState


def velocities(state: NodeState) -> np.ndarray:
    """The joint velocities of ``state`` (zeros where a kinematic node computed it: at rest)."""
    v = state.joint_velocities
    return np.zeros(len(state.joint_positions)) if v is None else np.array(v, dtype=float)


class TorqueDrive:
    """A torque-driven segment's drive: its forward-dynamics node, the torques held and its base's track (a
    mounted segment's base motion is differenced step to step); ``pull``: the magnets' pull on it
    (:class:`~mime_gui.rig.pulled.SegmentPull`), None when it feels none."""

    def __init__(self, node, kinematic, mounted: bool, pose, pull=None):
        self.node = node
        self.pull = pull
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

    def holding(self, state: NodeState, states=None) -> np.ndarray:
        """The torques ``u`` giving zero joint acceleration at ``(q, v)``: ``c(q, v)`` on the base's motion of
        the last step (at rest: gravity in the base's axes now), plus the damping and friction the node takes
        off (``joint_forces(u, v) = c``), less what the magnets' pull pushes with where every segment of
        ``states`` (segment → NodeState) is now."""
        from mime_gui.multibody.moving_base import bias_on_moving_base

        if self.last_base is not None:
            V0, A0, g = self.last_base
        elif self.base is not None:  # a mounted segment at rest: gravity in its base's axes where it is
            V0, A0, g = None, None, self.base.pose[:3, :3].T @ self.node.gravity
        else:
            V0, A0, g = None, None, self.gravity_in_base
        v = velocities(state)
        q = np.asarray(state.joint_positions, dtype=float)
        c = bias_on_moving_base(self.node.art, q, v, V0, A0, g)
        external = self._external(states, self.node.placement if self.base is None else self.base.pose)
        if external is not None:
            c = c - external(0, q)
        return c - self.node.joint_forces(np.zeros_like(c), v)  # what damping and friction take off

    def _external(self, states, world_X_base):
        """The pull's joint forces ``external(n, q)`` from ``states`` (None: no pull, or a segment a magnet
        rides on has no state)."""
        if self.pull is None or states is None or any(n not in states for n in self.pull.segments):
            return None
        return self.pull.external(states, world_X_base)

    def driver(self, name: str, dt: float, diverged: list, states=None):
        """The chain node's driver for one step of ``dt``; a divergence is appended to ``diverged`` and the
        segment stays where it was, at rest. ``states``: every segment's state as the step finds it when this
        segment's turn comes (segment → NodeState), where the magnets pulling on it are."""

        def drive(state, mount_pose, mount_rate):
            if self.base is None or mount_pose is None:
                base = (None, None, self.gravity_in_base)
            else:
                base = self.base.step(mount_pose @ self.node.placement, mount_rate, dt, self.node.gravity)
            self.last_base = base
            external = self._external(states, self.node.base(mount_pose))
            try:
                new, v = self.node.advance(state.joint_positions, velocities(state), self.u, dt, base,
                                           mount_pose, mount_rate, external=external)
            except CodedError as err:  # diverged, or a joint whose acceleration is undefined
                diverged.append((name, str(getattr(err, "message", err))))
                return self.kinematic.initial_state(state.joint_positions, mount_pose=mount_pose,
                                                    mount_rate=mount_rate)
            v = np.array(v, dtype=float)
            v.setflags(write=False)
            return dataclasses.replace(new, joint_velocities=v)

        return drive
