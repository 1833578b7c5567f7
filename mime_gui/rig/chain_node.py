"""The chain node: every segment of a rig advanced through time in mount order, each on its mount.

Each segment is a :class:`~mime_gui.nodes.KinematicArmNode` (an arm or a motor; a dynamic segment plays
kinematically here). A segment mounted on ``(segment, frame)`` rides on that frame's world pose ``M_j`` and
angular velocity ``ω_j`` from the same step of the segment it mounts on, which was advanced first: this is
the one place where mount composition is written. :meth:`ChainNode.advance` takes one step (the app's clock),
:meth:`ChainNode.play` many at once (``BuiltRig.play``, ``mime-gui play``, the app's player);
:meth:`ChainNode.place` puts one segment at given positions with no lag (posing), moving what rides on it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

import numpy as np

from mime_gui.nodes import KinematicArmNode, NodeState, Trajectory


@dataclass(frozen=True)
class ChainSegment:
    """What the chain node needs of one segment: its articulation, where it is placed (``mount_X_base``, or
    ``world_X_base`` with no mount), the ``(segment, frame)`` it rides on, and its servo time constant."""

    articulation: object
    placement: np.ndarray
    mount: tuple[str, str] | None = None
    servo_time_constant: float = 0.0


def mount_order(mounts: Mapping[str, tuple[str, str] | None]) -> list[str]:
    """Segment names with every mount before what rides on it (chain order otherwise kept). A segment whose
    mount is not in ``mounts`` is placed in the world."""
    riders: dict[str | None, list[str]] = {}
    for name, mount in mounts.items():
        parent = mount[0] if mount is not None and mount[0] in mounts and mount[0] != name else None
        riders.setdefault(parent, []).append(name)
    order: list[str] = []
    todo = list(riders.get(None, []))
    while todo:
        name = todo.pop(0)
        order.append(name)
        todo.extend(riders.get(name, []))
    return order


def riders_of(mounts: Mapping[str, tuple[str, str] | None], start: str) -> list[str]:
    """``start`` and every segment riding on it, directly or through others, in mount order."""
    ordered = mount_order(mounts)
    moved = {start}
    for name in ordered:
        mount = mounts[name]
        if mount is not None and mount[0] in moved:
            moved.add(name)
    return [n for n in ordered if n in moved]


class ChainNode:
    """Every segment of a rig in mount order. ``segments`` maps a name to a :class:`ChainSegment`; the state
    is a mapping name → :class:`~mime_gui.nodes.NodeState`."""

    def __init__(self, segments: Mapping[str, ChainSegment], servo_time_constant: float | None = None,
                 reuse: ChainNode | None = None):
        """``reuse``: an earlier chain node whose per-segment nodes are taken where the articulation has the
        same kinematics (:attr:`~mime_gui.multibody.Articulation.kinematics_key`: an edit of a part's mass
        moves nothing) and the placement and servo time constant are equal (an edit rebuilds only what
        changed)."""
        self.segments = dict(segments)
        self.mounts = {n: s.mount for n, s in self.segments.items()}
        self.order = mount_order(self.mounts)
        self.nodes = {}
        for n, s in self.segments.items():
            tau = s.servo_time_constant if servo_time_constant is None else servo_time_constant
            old = reuse.nodes.get(n) if reuse is not None else None
            if (old is not None and (old.art is s.articulation
                                     or old.art.kinematics_key == s.articulation.kinematics_key)
                    and old.servo_time_constant == float(tau)
                    and np.array_equal(old.placement, s.placement)):
                self.nodes[n] = old
            else:
                self.nodes[n] = KinematicArmNode(s.articulation, placement=s.placement,
                                                 servo_time_constant=tau)
        self._mount_frame = {n: (s.mount[0], s.articulation_frame)
                             for n, s in ((n, _Resolved(self.segments, n)) for n in self.segments)
                             if s.mount is not None}

    # -- names ---------------------------------------------------------------------------------------
    def command_names(self, segment: str) -> tuple[str, ...]:
        return self.nodes[segment].command_names

    def mount_of(self, segment: str) -> tuple[str, int] | None:
        """``(segment, frame index)`` the segment rides on; None for one standing in the world."""
        return self._mount_frame.get(segment)

    # -- posing ---------------------------------------------------------------------------------------
    def reach(self, state: Mapping[str, NodeState], segment: str, frame, world_X_target, **options):
        """Joint positions of every segment from the world down to ``segment`` that put its ``frame`` at
        ``world_X_target``: :func:`mime_gui.rig.reach.reach` (a :class:`~mime_gui.rig.reach.Reach`)."""
        from mime_gui.rig.reach import reach

        return reach(self, state, segment, frame, world_X_target, **options)

    def _mount_of(self, name: str, state: Mapping[str, NodeState]):
        """``(M_j, ω_j)`` of the segment's mount in ``state`` (None, None on the world)."""
        ref = self._mount_frame.get(name)
        if ref is None:
            return None, None
        seg, frame = ref
        mount_state = state[seg]
        return mount_state.frame_poses[frame], mount_state.frame_angular_velocities[frame]

    # -- stepping --------------------------------------------------------------------------------------
    def initial_state(self, positions: Mapping[str, object] | None = None,
                      keep: Mapping[str, NodeState] | None = None) -> dict[str, NodeState]:
        """Every segment at rest at ``positions[segment]`` (commands or full positions; default: zeros held),
        each on its mount. ``keep``: states taken as they are, for segments whose mount's state is kept too
        (or that stand in the world)."""
        positions, keep = positions or {}, keep or {}
        state: dict[str, NodeState] = {}
        for name in self.order:
            ref = self._mount_frame.get(name)
            if name in keep and (ref is None or state.get(ref[0]) is keep.get(ref[0])):
                state[name] = keep[name]
                continue
            M, w = self._mount_of(name, state)
            state[name] = self.nodes[name].initial_state(positions.get(name), mount_pose=M, mount_rate=w)
        return state

    def advance(self, state: Mapping[str, NodeState], commands: Mapping[str, object], dt: float,
                drivers: Mapping[str, Callable] | None = None,
                out: dict[str, NodeState] | None = None) -> dict[str, NodeState]:
        """One step of ``dt`` seconds: each segment's command (commands or full positions) held through it;
        a segment without a command holds its current positions. ``drivers``: segments advanced otherwise
        (torque-driven), name → ``driver(state, mount_pose, mount_rate) -> NodeState``, called in mount
        order like the others so what rides on them follows. ``out``: the dict the new states are put in as
        they are made (a driver reading it sees the segments advanced before it), and returned."""
        new: dict[str, NodeState] = {} if out is None else out
        drivers = drivers or {}
        for name in self.order:
            M, w = self._mount_of(name, new)
            if name in drivers:
                new[name] = drivers[name](state[name], M, w)
                continue
            u = commands.get(name)
            if u is None:
                u = state[name].joint_positions
            new[name] = self.nodes[name].advance(state[name], u, dt, mount_pose=M, mount_rate=w)
        return new

    def place(self, state: Mapping[str, NodeState], segment: str, positions) -> dict[str, NodeState]:
        """``segment`` at rest at ``positions`` (held within its limits, no lag); what rides on it follows,
        at rest at its own positions. The other segments keep their state."""
        new = dict(state)
        for name in riders_of(self.mounts, segment):
            M, _ = self._mount_of(name, new)
            q = positions if name == segment else state[name].joint_positions
            new[name] = self.nodes[name].initial_state(q, mount_pose=M)
        return new

    def play(self, commands: Mapping[str, np.ndarray], dt: float,
             initial: Mapping[str, object] | None = None,
             progress: Callable[[int, int], None] | None = None, chunk: int | None = None) \
            -> dict[str, Trajectory]:
        """``T`` steps at once: ``commands[segment]`` is ``(T, ncommands)``; ``initial[segment]`` commands,
        full positions or a NodeState. Equal to ``T`` calls of :meth:`advance` (to rounding)."""
        initial = initial or {}
        out: dict[str, Trajectory] = {}
        count = len(self.order)
        for i, name in enumerate(self.order):
            mount_poses = mount_rates = undefined = None
            ref = self._mount_frame.get(name)
            if ref is not None:
                seg, frame = ref
                mount_poses, mount_rates, undefined = _defined_mount(out[seg], frame)
            step = None
            if progress is not None:
                def step(done, total, _i=i):
                    progress(_i * total + done, count * total)
            extra = {} if chunk is None else {"chunk": chunk}
            out[name] = self.nodes[name].play(commands[name], dt, initial.get(name), mount_poses=mount_poses,
                                              mount_rates=mount_rates, progress=step, **extra)
            if undefined is not None:
                out[name] = _undefined_at(out[name], undefined)
        return out


def _defined_mount(mount: Trajectory, frame: int):
    """The mount's poses and rates at ``frame`` and the steps where they are not finite numbers (None when
    there are none). Commands extreme enough to overflow a segment leave what rides on it undefined at those
    steps, not an error here: the caller's finiteness check names the step and the segment where it began.
    The undefined steps are played on a placeholder mount (identity, at rest) and blanked after."""
    poses = mount.frame_poses[:, frame]
    rates = mount.frame_angular_velocities[:, frame]
    undefined = ~(np.isfinite(poses).all(axis=(1, 2)) & np.isfinite(rates).all(axis=1))
    if not undefined.any():
        return poses, rates, None
    poses = np.where(undefined[:, None, None], np.eye(4), poses)
    rates = np.where(undefined[:, None], 0.0, rates)
    return poses, rates, undefined


def _undefined_at(played: Trajectory, undefined: np.ndarray) -> Trajectory:
    """``played`` with its frame poses and rates NaN at the ``undefined`` steps (its joints are its own)."""
    poses = np.array(played.frame_poses)
    rates = np.array(played.frame_angular_velocities)
    poses[undefined] = np.nan
    rates[undefined] = np.nan
    return replace(played, frame_poses=poses, frame_angular_velocities=rates)


class _Resolved:
    """A segment's mount as (segment, frame index), looked up once."""

    def __init__(self, segments: Mapping[str, ChainSegment], name: str):
        mount = segments[name].mount
        self.mount = mount if mount is not None and mount[0] in segments and mount[0] != name else None
        self.articulation_frame = (segments[self.mount[0]].articulation.frame_index(self.mount[1])
                                   if self.mount is not None else None)


__all__ = ["ChainNode", "ChainSegment", "mount_order", "riders_of"]
