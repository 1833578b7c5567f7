"""The motion component of the session: the rig's chain node, each segment's command and state, and time.

Each segment has a command (:meth:`Motion.set_command`) apart from its state; :meth:`Motion.tick` advances
every segment by ``dt`` in mount order through the chain node (the servo lag, the limits, the mounts);
:meth:`Motion.set_joint_positions` places a segment with no lag; :meth:`Motion.show_state` shows a row of a
trajectory played elsewhere. A dynamic segment may be driven by torques instead (:meth:`Motion.set_drive`):
each tick then advances it by forward dynamics, its joint velocities kept in its state, feeling the pull of
the magnets on other bodies on the magnets it moves (:mod:`mime_gui.rig.pulled`).

Events: ``poses_changed(segment)``, ``stepped(dt, previous)``, ``drive_changed(segment, drive)``.
"""

from __future__ import annotations

import dataclasses
from collections import ChainMap
from collections.abc import Callable

import numpy as np

from mime_gui.errors import CodedError
from mime_gui.nodes import NodeState
from mime_gui.rig.apparatus import Apparatus
from mime_gui.rig.chain_node import ChainNode, ChainSegment, riders_of
from mime_gui.rig.pulled import segment_pulls
from mime_gui.rig.reach import path_to
from mime_gui.session.document import Document, DrawnSegment
from mime_gui.session.documents import Documents
from mime_gui.session.errors import SessionError, refuse
from mime_gui.session.events import Event
from mime_gui.session.live_torques import base_pose
from mime_gui.session.renderer import Renderer
from mime_gui.session.torque_drive import TorqueDrive, velocities


class Motion:
    def __init__(self, documents: Documents, renderer: Callable[[], Renderer | None], error: Event,
                 items_moved: Callable[[list[str]], None] = lambda _segments: None) -> None:
        self._documents = documents
        self._renderer = renderer  # the attached view, or None
        self._items_moved = items_moved  # pushes the poses of the items riding on moved segments
        self._error = error
        self._node: ChainNode | None = None
        self._state: dict[str, NodeState] = {}
        self._drives: dict[str, TorqueDrive] = {}  # torque-driven segments
        self._dropped: list[str] = []  # segments no longer driven by torques, announced by emit_dropped
        self._recording = False  # a recording holds position commands: no torque driving meanwhile
        self.poses_changed = Event("poses_changed")
        self.stepped = Event("stepped")
        self.drive_changed = Event("drive_changed")

    @property
    def segments(self) -> dict[str, DrawnSegment]:
        return self._documents.segments

    def segment(self, name: str) -> DrawnSegment:
        return self._documents.segment(name)

    def set_recording(self, on: bool) -> None:
        """A recording starts (True) or stops: while one runs, no segment is switched to torques."""
        self._recording = bool(on)

    # -- the chain node ----------------------------------------------------------------------------------
    def start(self, doc: Document, previous: dict[str, DrawnSegment] | None = None) -> None:
        """The chain node of the drawn segments and their state: positions and commands carried over by
        joint name from ``previous``, else the rig's initial positions, at rest on their mounts. Every
        segment is driven by positions again."""
        self._dropped = list(self._drives)
        self._drives.clear()
        previous = previous or {}
        old_node, old_state = (self._node, self._state) if previous else (None, {})
        self._node = ChainNode({n: ChainSegment(s.articulation, s.placement, s.mount,
                                                _servo(doc.rig, n)) for n, s in doc.segments.items()},
                               reuse=old_node)
        positions, commands, keep = {}, {}, {}
        for name, seg in doc.segments.items():
            node = self._node.nodes[name]
            art = seg.articulation
            init = np.clip([seg.initial.get(j, 0.0) for j in art.joint_names], art.lower,
                           art.upper)
            old = previous.get(name)
            if old is not None:
                init = carry(old.articulation.joint_names, old.q, art.joint_names, init)
            positions[name] = node.held(init)
            command = positions[name][[art.joint_index(j) for j in node.command_names]]
            if old is not None and old.command is not None:
                command = carry(_command_names(old.articulation), old.command, node.command_names, command)
            commands[name] = command
            if (old is not None and old_node is not None and old_node.nodes.get(name) is node
                    and old.mount == seg.mount and np.array_equal(old.q, positions[name])):
                keep[name] = old_state[name]  # nothing of it changed: its poses stand
        self._state = self._node.initial_state(positions, keep)
        for name, seg in doc.segments.items():
            seg.command = _readonly(commands[name])
            self._sync(seg, self._state[name])

    @staticmethod
    def _sync(seg: DrawnSegment, state) -> None:
        seg.q = state.joint_positions
        seg.world_X_frame = state.frame_poses


    def stop(self) -> None:
        """Nothing open: no chain node, no state, no torque drives."""
        self._node, self._state = None, {}
        self._dropped = list(self._drives)
        self._drives.clear()

    def emit_dropped(self) -> None:
        """Announce the segments no longer driven by torques (since the last start or stop)."""
        dropped, self._dropped = self._dropped, []
        for name in dropped:
            self.drive_changed.emit(name, "positions")

    # -- commands, state and time ------------------------------------------------------------------------
    def joint_positions(self, segment: str) -> np.ndarray:
        """The segment's state: every joint's position (mimic followers included)."""
        return np.array(self.segment(segment).q)

    def command_names(self, segment: str) -> tuple[str, ...]:
        self.segment(segment)
        return self._node.nodes[segment].command_names

    def command(self, segment: str) -> np.ndarray:
        """The segment's command (its commanded joints, :meth:`command_names` order)."""
        return np.array(self.segment(segment).command)

    def _values(self, segment: str, values, names: tuple[str, ...], current: np.ndarray,
                full: int | None = None) -> np.ndarray:
        art = self.segment(segment).articulation
        if isinstance(values, dict):
            out = np.array(current, dtype=float)
            for name, value in values.items():
                if name not in names:
                    if name in art.joint_names:
                        raise self._fail("session.joint", f"joint {name!r} of {segment!r} follows another "
                                                          "(mimic); command its master")
                    raise self._fail("session.joint", f"no joint {name!r} in {segment!r}; joints: "
                                                      f"{', '.join(names)}")
                out[names.index(name)] = float(value)
        else:
            out = np.array(values, dtype=float)
            if out.shape != (len(names),) and (full is None or out.shape != (full,)):
                raise self._fail("session.q-shape", f"segment {segment!r} has {len(names)} joints, "
                                 f"got an array of shape {out.shape}")
        if not np.all(np.isfinite(out)):
            bad = [names[i] if out.shape == (len(names),) else str(i)
                   for i in np.flatnonzero(~np.isfinite(out))]
            raise self._fail("session.q-non-finite",
                             f"joint positions must be finite (not: {', '.join(bad)})")
        return out

    def set_command(self, segment: str, u) -> None:
        """Set the segment's command (its commanded joints, or a mapping joint → value); the state follows
        on the next :meth:`tick`, through the servo lag."""
        seg = self.segment(segment)
        names = self._node.nodes[segment].command_names
        seg.command = _readonly(self._values(segment, u, names, seg.command))

    def tick(self, dt: float) -> None:
        """Advance every segment by ``dt`` seconds with its command held, in mount order."""
        if self._node is None or not self._state:
            return
        dt = float(dt)
        if not (np.isfinite(dt) and dt > 0):
            raise self._fail("session.dt", f"a step is a positive number of seconds, got {dt}")
        commands = {n: s.command for n, s in self.segments.items()}
        old = self._state
        diverged: list[tuple[str, str]] = []
        new: dict[str, NodeState] = {}
        now = ChainMap(new, old)  # at a driver's turn: the segments advanced before it, the rest as they were
        drivers = {n: drive.driver(n, dt, diverged, now) for n, drive in self._drives.items()}
        self._state = self._node.advance(old, commands, dt, drivers, out=new)
        for name, message in diverged:  # back at its last finite state, driven by positions
            del self._drives[name]
            self._hold(name)
            self.drive_changed.emit(name, "positions")
            self._fail("session.diverged", f"{message}; {name!r} stopped at its last finite state and is "
                       "driven by positions again")
        self.stepped.emit(dt, old)
        moved = [n for n in self._node.order
                 if not np.array_equal(old[n].frame_poses, self._state[n].frame_poses)]
        self._publish(moved)

    def set_joint_positions(self, segment: str, q) -> None:
        """Place a segment here (every joint, or its commanded joints, or a mapping joint name → value):
        state = command, no lag; what rides on it follows."""
        seg = self.segment(segment)
        art = seg.articulation
        node = self._node.nodes[segment]
        if isinstance(q, dict):
            values = np.array(seg.q, dtype=float)
            for name, value in q.items():
                try:
                    values[art.joint_index(name)] = float(value)
                except KeyError as err:
                    raise self._fail("session.joint", str(err.args[0])) from None
            if not np.all(np.isfinite(values)):
                raise self._fail("session.q-non-finite", "joint positions must be finite")
        else:
            values = self._values(segment, q, art.joint_names, seg.q)
        self._state = self._node.place(self._state, segment, values)
        held = self._state[segment].joint_positions
        seg.command = _readonly(held[[art.joint_index(j) for j in node.command_names]])
        moved = riders_of(self._node.mounts, segment)
        self._rest(moved)
        self._publish(moved)

    def reach(self, segment: str, frame: str, world_X_target, *, orientation: bool = True,
              teleport: bool = False, **options):
        """Bring ``frame`` of ``segment`` to ``world_X_target`` (a 4×4 pose, or a point with ``orientation``
        False) over every joint from the world down to it (:meth:`ChainNode.reach
        <mime_gui.rig.chain_node.ChainNode.reach>`): the answer becomes those segments' commands, so they
        follow through the servo lag, or their state at once with ``teleport``. A target out of reach
        leaves them at the nearest pose found; the returned :class:`~mime_gui.rig.reach.Reach` says how far
        (``result.position_error``, ``result.angle_error``). Refused: a segment on the way driven by torques
        (``session.reach-torques``), an unknown frame or a target that is no pose (``ik.frame``,
        ``ik.target``)."""
        self._documents.require()
        self.segment(segment)
        path = path_to(self._node, segment)
        driven = [n for n in path if n in self._drives]
        if driven:
            verb = "is" if len(driven) == 1 else "are"
            raise self._fail("session.reach-torques", f"{', '.join(driven)} {verb} driven by torques; switch "
                             "back to positions to pose by a frame")
        try:
            found = self._node.reach(self._state, segment, frame, world_X_target, orientation=orientation,
                                     **options)
        except CodedError as err:
            raise self._fail(err.code, err.message) from None
        for name in path:
            q = found.positions[name]
            if teleport:
                self.set_joint_positions(name, q)
            else:
                art = self.segment(name).articulation
                self.set_command(name, q[[art.joint_index(j) for j in self._node.nodes[name].command_names]])
        return found

    def show_state(self, states, commands=None) -> None:
        """Show states computed elsewhere (a row of a played trajectory): each named segment's state (a
        :class:`~mime_gui.nodes.NodeState`) and, when given, its command replace the current ones with no step
        taken, bit for bit; the view and ``poses_changed`` follow. A wrong shape (``session.state``) changes
        nothing."""
        self._documents.require()
        new = dict(self._state)
        for name, state in states.items():
            art = self.segment(name).articulation
            q, poses, rates = (_readonly(getattr(state, k)) for k in
                               ("joint_positions", "frame_poses", "frame_angular_velocities"))
            if q.shape != (art.nq,) or poses.shape != (art.nframes, 4, 4) or rates.shape != (art.nframes, 3):
                raise self._fail("session.state", f"segment {name!r} has {art.nq} joints and {art.nframes} "
                                 f"frames; got a state of shapes {q.shape}, {poses.shape}, {rates.shape}")
            new[name] = NodeState(q, poses, rates)
        held = {name: _readonly(self._values(name, u, self.command_names(name), self.segment(name).command))
                for name, u in (commands or {}).items()}
        self._state = new
        for name, u in held.items():
            self.segments[name].command = u
        self._rest(list(states))
        self._publish([n for n in self._node.order if n in states])

    def state(self, segment: str) -> NodeState:
        """The segment's :class:`~mime_gui.nodes.NodeState` (positions, world frame poses and angular
        velocities after the last step)."""
        self.segment(segment)
        return self._state[segment]

    # -- torque driving ------------------------------------------------------------------------------------
    def drive(self, segment: str) -> str:
        """``"torques"`` when the segment is driven by joint torques, else ``"positions"``."""
        return "torques" if segment in self._drives else "positions"

    def can_drive_torques(self, segment: str) -> bool:
        """True for a dynamic segment of a rig that builds (only those have the mass torques move)."""
        doc = self._documents.document
        built = doc.built.segments.get(segment) if doc is not None and doc.built is not None else None
        return bool(built is not None and not doc.findings and built.segment.dynamic)

    def torque_names(self, segment: str) -> tuple[str, ...]:
        """The joints a torque-driven segment takes a torque on (every movable joint; a mimic joint is a
        degree of freedom of its own under forward dynamics)."""
        return tuple(self.segment(segment).articulation.joint_names)

    def set_drive(self, segment: str, drive: str) -> None:
        """Drive a dynamic segment by ``"torques"`` (from its current positions, at rest, with zero torques)
        or by ``"positions"`` again (its current positions become its command). A kinematic segment
        (``session.drive-kinematic``), an unknown drive (``session.drive``) or a recording in progress
        (``session.drive-recording``) is refused."""
        doc = self._documents.require()
        seg = self.segment(segment)
        if drive not in ("positions", "torques"):
            raise self._fail("session.drive", "a segment is driven by 'positions' or 'torques', not "
                             f"{drive!r}")
        if drive == self.drive(segment):
            return
        if drive == "positions":
            del self._drives[segment]
            self._at_rest(segment)
            self._hold(segment)
            self.drive_changed.emit(segment, drive)
            return
        if not self.can_drive_torques(segment):
            why = ("the rig breaks rules, so it has no build to take the mass from" if doc.findings else
                   f"{segment!r} is {seg.kind}: a kinematic segment's motion is prescribed; make it dynamic "
                   "to drive it by torques")
            raise self._fail("session.drive-kinematic", f"cannot drive {segment!r} by torques: {why}")
        if self._recording:
            raise self._fail("session.drive-recording", "a recording is running and records positions; stop "
                             "it before driving a segment by torques")
        from mime_gui.nodes.dynamic import DynamicArmNode

        built = doc.built.segments[segment]
        try:
            node = DynamicArmNode(built.dynamics_articulation, placement=built.placement)
            q = self._state[segment].joint_positions
            node.advance(q, np.zeros(len(q)), np.zeros(len(q)), 1e-3)  # a joint moving nothing: refused now
        except ValueError as err:  # mass properties that are not physical, or a joint moving no mass
            raise self._fail(getattr(err, "code", "session.drive-nonphysical"),
                             getattr(err, "message", str(err))) from None
        self._at_rest(segment)  # a state kept from an earlier torque drive keeps no velocities
        pull = segment_pulls(doc.built, [segment]).get(segment)  # the magnets' pull it feels, if any
        self._drives[segment] = TorqueDrive(node, self._node.nodes[segment], seg.mount is not None,
                                            base_pose(self, segment, self._state)[0], pull)
        self.drive_changed.emit(segment, drive)

    def _hold(self, segment: str) -> None:
        """The segment's command becomes its current positions (it stays where it is)."""
        art = self.segment(segment).articulation
        held = self._state[segment].joint_positions
        commanded = [art.joint_index(j) for j in self._node.nodes[segment].command_names]
        self.segments[segment].command = _readonly(held[commanded])

    def set_torques(self, segment: str, torques) -> None:
        """The torques held on a torque-driven segment from the next tick on: every joint
        (:meth:`torque_names` order) or a mapping joint → value (N·m, N on a sliding joint)."""
        drive = self._drives.get(self.segment(segment).name)
        if drive is None:
            raise self._fail("session.drive-positions", f"{segment!r} is driven by positions; switch it to "
                             "torques first (set_drive)")
        names = self.torque_names(segment)
        if isinstance(torques, dict):
            u = np.array(drive.u, dtype=float)
            for name, value in torques.items():
                if name not in names:
                    raise self._fail("session.joint", f"no joint {name!r} in {segment!r}; joints: "
                                     f"{', '.join(names)}")
                u[names.index(name)] = float(value)
        else:
            u = np.array(torques, dtype=float)
            if u.shape != (len(names),):
                raise self._fail("session.q-shape", f"segment {segment!r} has {len(names)} joints, got "
                                 f"torques of shape {u.shape}")
        if not np.all(np.isfinite(u)):
            raise self._fail("session.torque-non-finite", "torques must be finite numbers (N·m or N)")
        drive.u = _readonly(u)

    def holding_torques(self, segment: str) -> np.ndarray:
        """The torques that keep a torque-driven segment as it is now (:meth:`torque_names` order): with them
        its joint accelerations are zero at its current positions and velocities — gravity, the bias torques
        of its motion and of its mount's (as over the last step), damping and friction. At rest, its gravity
        torques: it stays where it is."""
        drive = self._drives.get(self.segment(segment).name)
        if drive is None:
            raise self._fail("session.drive-positions", f"{segment!r} is driven by positions; switch it to "
                             "torques first (set_drive)")
        return drive.holding(self._state[segment], self._state)

    def joint_inertias(self, segment: str) -> np.ndarray:
        """Each joint's own inertia at the segment's current positions: the diagonal of its mass matrix,
        armature included (kg·m², kg on a sliding joint; what a torque on that joint alone accelerates). A
        torque-driven segment's is that of the articulation its forward dynamics move; NaN where the rig has
        no build of the segment."""
        drive = self._drives.get(self.segment(segment).name)
        if drive is not None:
            art = drive.node.art
        else:
            doc = self._documents.document
            built = doc.built.segments.get(segment) if doc is not None and doc.built is not None else None
            if built is None or not built.segment.dynamic:
                return np.full(self.segment(segment).articulation.nq, np.nan)
            art = built.dynamics_articulation
        from mime_gui.multibody.joint_space import mass_matrix

        return np.diagonal(mass_matrix(art, self._state[segment].joint_positions)).copy()

    def applied_torques(self, segment: str) -> np.ndarray:
        """The torques held on a torque-driven segment (zeros for a segment driven by positions)."""
        drive = self._drives.get(segment)
        return np.array(drive.u) if drive is not None else np.zeros(self.segment(segment).articulation.nq)

    def joint_velocities(self, segment: str) -> np.ndarray:
        """A torque-driven segment's joint velocities (its state beside its positions); zeros otherwise."""
        drive = self._drives.get(segment)
        if drive is None:
            return np.zeros(self.segment(segment).articulation.nq)
        return velocities(self._state[segment])

    def _rest(self, names) -> None:
        """Torque-driven segments among ``names`` were put somewhere: at rest there."""
        for name in names:
            drive = self._drives.get(name)
            if drive is not None:
                self._at_rest(name)
                drive.rest(base_pose(self, name, self._state)[0])

    def frame_angular_velocity(self, segment: str, frame: str) -> np.ndarray:
        """The frame's angular velocity in world axes (rad/s) over the last step (zero at rest)."""
        art = self.segment(segment).articulation
        return np.array(self._state[segment].frame_angular_velocities[art.frame_index(frame)])

    def _publish(self, moved) -> None:
        for name in moved:
            self._sync(self.segments[name], self._state[name])
        renderer = self._renderer()
        if renderer is not None and moved:
            for name in moved:
                renderer.set_frame_poses(name, self.segments[name].world_X_frame)
            self._items_moved(moved)
            renderer.request_render()
        for name in moved:
            self.poses_changed.emit(name)

    def _at_rest(self, name: str) -> None:
        """The segment's state without joint velocities: at rest where it is."""
        self._state[name] = dataclasses.replace(self._state[name], joint_velocities=None)

    def _fail(self, code: str, message: str, file: str = "") -> SessionError:
        return refuse(self._error, code, message, file)


def carry(old_names, old_values, new_names, default) -> np.ndarray:
    """Values by joint name from an older articulation (joints that are gone are dropped, new ones take
    ``default``)."""
    before = dict(zip(old_names, old_values, strict=True))
    return np.array([before.get(j, d) for j, d in zip(new_names, default, strict=True)], dtype=float)


def _command_names(art) -> tuple[str, ...]:
    """The commanded joints of an articulation (every movable joint but mimic followers)."""
    return tuple(art.joint_names[i] for i in np.flatnonzero(~np.asarray(art.is_mimic)))


def _readonly(a) -> np.ndarray:
    a = np.array(a, dtype=float)
    a.setflags(write=False)
    return a


def _servo(rig: Apparatus, name: str) -> float:
    tau = getattr(rig.chain.get(name), "servo_time_constant", 0.0)
    return float(tau) if np.isfinite(tau) and tau >= 0 else 0.0

