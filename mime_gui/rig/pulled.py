"""The rig's magnets pulling on a torque-driven segment, inside its forward dynamics.

The pull (:mod:`mime_gui.rig.magnet_pull`) depends on where the bodies are, so a torque-driven segment feels
it where its integrator evaluates its forces (each sub-step's start for semi-implicit Euler, each RK4 stage,
:mod:`mime_gui.nodes.dynamic`): the magnets it moves are put where its positions ``q`` take them, the pull on
them from the magnets on other bodies is computed at that instant (``"auto"`` picks each pair's route by the
distance then), and their wrenches enter as the joint forces ``Jᵀ w`` they push with (those of
:func:`~mime_gui.multibody.joint_space.external_joint_forces`), added to the torques.

The magnets a segment moves are those on its own bodies, and those on the segments riding on it when it
carries them (its payload, :mod:`mime_gui.rig.payload`): a rider is rigid in its carrier's dynamics, so the
wrench on a rider's magnet is applied, at the magnet, to the carrier's body through which it rides, and the
magnet keeps its place on that body through the step (the rider's own joints move at its own turn). Every
other magnet stays where the step found it: the segments advanced before this one in mount order at the
step's end, the others at its start (:meth:`~mime_gui.rig.chain_node.ChainNode.advance`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

import numpy as np

from mime_gui.multibody._model import dynamic_model
from mime_gui.multibody._world import motion_subspaces
from mime_gui.multibody.kinematics import axis_frames
from mime_gui.rig.magnet_pull import PullModel


class SegmentPull:
    """The pull on the magnets one dynamic segment moves (see the module); ``pairs`` the indices of
    :attr:`PullModel.pairs` with one of them."""

    def __init__(self, built, segment: str, model: PullModel):
        s = built.segments[segment]
        self.segment = segment
        self.model = model
        self.art = art = s.dynamics_articulation
        carried = {r.segment: r.frame for r in s.riders}
        self._where: list[tuple[str, int] | None] = []  # each magnet's (segment, frame index) or the world
        own, ridden = [], []  # (magnet, frame index of this segment's articulation)
        for i, magnet in enumerate(model.magnets):
            if magnet.frame is None:
                self._where.append(None)
                continue
            seg, frame = built.frame_names[magnet.frame].split(".", 1)
            self._where.append((seg, built.segments[seg].articulation.frame_index(frame)))
            if seg == segment:
                own.append((i, art.frame_index(frame)))
            elif seg in carried:
                ridden.append((i, art.frame_index(carried[seg])))
        self._own, self._ridden = own, ridden
        moved = {i for i, _ in own + ridden}
        self.pairs = [k for k, (a, b) in enumerate(model.pairs) if a in moved or b in moved]
        self._bodies = [(i, int(art.frame_body[f])) for i, f in own + ridden]

    @property
    def segments(self) -> set[str]:
        """The segments magnets ride on: whose states :meth:`poses` reads."""
        return {w[0] for w in self._where if w is not None} | {self.segment}

    @property
    def any(self) -> bool:
        """Whether a magnet it moves has one on another body to pull on it."""
        return bool(self.pairs)

    def poses(self, states: Mapping) -> np.ndarray:
        """``world_X_magnet (M, 4, 4)`` of every magnet in ``states`` (segment → NodeState)."""
        X = np.empty((len(self._where), 4, 4))
        for i, (magnet, where) in enumerate(zip(self.model.magnets, self._where, strict=True)):
            X[i] = magnet.world_X_magnet if where is None else states[where[0]].frame_poses[where[1]]
        return X

    def external(self, states: Mapping, world_X_base) -> Callable[[int, np.ndarray], np.ndarray]:
        """``external(n, q)`` for one step of the segment from ``states`` (segment → NodeState: its own
        before the step, the others as the step finds them) on its base at ``world_X_base`` during the step:
        the joint forces ``(nq,)`` the pull pushes with when its positions are ``q``."""
        X = self.poses(states)
        before = states[self.segment].frame_poses
        # a rider's magnet on the carrier's frame it rides through: rigid through the step
        on_frame = [np.linalg.inv(before[f]) @ X[i] for i, f in self._ridden]
        B = np.asarray(world_X_base, dtype=float)
        R, p = B[:3, :3], B[:3, 3]
        m = dynamic_model(self.art)

        def joint_forces(_n: int, q) -> np.ndarray:
            # one pass of the chain serves the magnets' poses and the joints' axes
            A = axis_frames(m, np.asarray(q, dtype=float))
            Y = X.copy()
            for i, f in self._own:
                Y[i] = B @ A[m.frame_body[f]] @ m.axis_X_frame[f]
            for (i, f), X_f in zip(self._ridden, on_frame, strict=True):
                Y[i] = B @ A[m.frame_body[f]] @ m.axis_X_frame[f] @ X_f
            force, torque = self.model.at(Y, self.pairs)
            # about the base's origin, in its axes: the articulation's own frame
            about = torque + np.cross(Y[:, :3, 3] - p, force)
            fext = np.zeros((m.nb, 6))
            for i, b in self._bodies:
                fext[b, :3] += R.T @ about[i]
                fext[b, 3:] += R.T @ force[i]
            # Jᵀ w: each joint's unit twist against the wrenches on the bodies it moves
            # (mime_gui.multibody.joint_space.external_joint_forces)
            return np.einsum("jk,jk->j", motion_subspaces(m, A), (m.subtree @ fext)[1:])

        return joint_forces


def segment_pulls(built, segments: Iterable[str]) -> dict[str, SegmentPull]:
    """The pull on each of ``segments`` (dynamic segments of ``built``) that feels one: a magnet it moves
    with a magnet on another body; empty when none does (fewer than two magnets, or every pair elsewhere)."""
    segments = [n for n in segments if built.segments[n].segment.dynamic]
    if len(built.apparatus.magnets) < 2 or not segments:
        return {}
    model = PullModel(built)
    if not model.pairs:
        return {}
    pulls = {n: SegmentPull(built, n, model) for n in segments}
    return {n: p for n, p in pulls.items() if p.any}


__all__ = ["SegmentPull", "segment_pulls"]
