"""A rig file as something ``mime-gui play`` drives: every segment in chain order, each on its mount.

Commands name joints ``<segment>.<joint>`` (``arm.joint_1``, ``motor.shaft``) or elements of a segment's
channel ``<segment>.joint_positions.<i>`` (see :mod:`mime_gui.rig.channels`); a bare joint name is accepted
when exactly one segment has a commandable joint of that name, so an arm's own command files play on a rig.
Joints the file does not name hold the rig's initial positions. The output names joints and frames
``<segment>.<name>`` in chain order.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import numpy as np

from mime_gui.multibody import PRISMATIC
from mime_gui.multibody.errors import CodedError, printable
from mime_gui.nodes import columns as grammar


class Playable(Protocol):
    """What a player drives (``mime-gui play``, the app's player): names for the output, then two steps,
    schedule the recorded commands, then play them."""

    name: str
    joint_names: tuple[str, ...]  # columns of the output's joint_positions
    frame_names: tuple[str, ...]  # rows of the output's frame_poses / frame_angular_velocities
    command_names: tuple[str, ...]  # what a command file may name

    def schedule(self, recorded, dt: float | None): ...

    def play(self, schedule, progress: Callable[[int, int], None] | None = None): ...


def _check_torque(built, column: str) -> None:
    """The torque channel tried on one step of zeros: a segment that is kinematic or no motor, a joint it
    lacks, is refused with a :class:`~mime_gui.rig.driven.TorqueCommandError`."""
    from mime_gui.rig.driven import torque_arrays

    torque_arrays(built, {column: np.zeros(1)}, 1)


#: how a rig takes the columns of each kind but positions (which its chain node plays), by the kind's name in
#: :data:`mime_gui.nodes.columns.KINDS`: the check of one column against the built rig, raising a CodedError
KIND_CHECKS: dict[str, Callable[[object, str], None]] = {grammar.TORQUES.name: _check_torque}


class RigPlayable:
    """The :class:`Playable` of a built rig: every segment through the rig's chain node."""

    def __init__(self, built, servo_time_constant: float | None = None, integrator: str = "euler",
                 substeps: int = 1):
        self.built = built
        self.servo_time_constant = servo_time_constant
        self.integrator = integrator  # of torque-driven segments (mime_gui.rig.driven)
        self.substeps = substeps
        self.kind_schedules: dict = {}  # the schedule of each kind of column but positions, by its name
        self.torque_schedule = None
        self.pulled: tuple[str, ...] = ()  # torque-driven segments of the last play feeling the magnets' pull
        self.name = built.apparatus.name
        self.joint_names = built.joint_names
        self.frame_names = built.frame_names
        self.command_names = built.command_names

    @property
    def servo_summary(self) -> str:
        """The servo time constant of each segment (the rig's own unless overridden)."""
        if self.servo_time_constant is not None:
            return f"{self.servo_time_constant:g} s (every segment)"
        return ", ".join(f"{n} {s.segment.servo_time_constant:g} s" for n, s in self.built.segments.items())

    def _qualified(self, recorded):
        """The recorded commands with bare joint names turned into ``<segment>.<joint>`` where unique."""
        owners: dict[str, list[str]] = {}
        for name in self.command_names:
            owners.setdefault(name.split(".", 1)[1], []).append(name)
        commandable = set(self.command_names)
        names = tuple(n if n in commandable or len(owners.get(n, ())) != 1 else owners[n][0]
                      for n in recorded.joint_names)
        return dataclasses.replace(recorded, joint_names=self._channels(recorded, names))

    def _channels(self, recorded, names: tuple[str, ...]) -> tuple[str, ...]:
        """``<segment>.joint_positions.<i>`` columns as the joints they name (see :mod:`.channels`)."""
        from mime_gui.rig.channels import ChannelError, resolve

        joints: dict[str, list[str]] = {}
        for name in self.command_names:
            segment, joint = name.split(".", 1)
            joints.setdefault(segment, []).append(joint)
        out, seen = [], set()  # a set: a header of many columns is checked in linear time
        commandable = set(self.command_names)
        for c, name in enumerate(names):
            try:
                joint = None if name in commandable else resolve(name, joints)
            except ChannelError as exc:
                where = f"column {c + 2}" if recorded.header_line else f"joint_names[{c}]"
                raise recorded.fail(exc.code, f"{where}: {exc}", recorded.header_line) from None
            final = joint or name
            if final in seen:  # arm.joint_1 and arm.joint_positions.0 (or joint_1): one joint twice
                where = f"column {c + 2}" if recorded.header_line else f"joint_names[{c}]"
                raise recorded.fail("commands.columns", f"{where}: {name!r} is {final!r}, which another "
                                    "column names too; keep one", recorded.header_line)
            out.append(final)
            seen.add(final)
        return tuple(out)

    def schedule(self, recorded, dt: float | None):
        recorded, self.kind_schedules = self._kind_columns(recorded, dt)
        self.torque_schedule = self.kind_schedules.get(grammar.TORQUES.name)
        linear, followers = set(), {}
        for seg, s in self.built.segments.items():
            art = s.articulation
            for i, joint in enumerate(art.joint_names):
                if art.joint_type[i] == PRISMATIC:
                    linear.add(f"{seg}.{joint}")
                if art.mimic_master[i] >= 0:
                    master = art.joint_names[art.mimic_master[i]]
                    followers[f"{seg}.{joint}"] = f"it follows {seg}.{master} (mimic); command that"
        return self._qualified(recorded).schedule(self.command_names, dt, self.built.initial_commands(),
                                                  not_commandable=followers, linear=linear)

    def _kind_columns(self, recorded, dt):
        """The file's position columns, and the columns of every other kind (torques) scheduled on the same
        steps, by the kind's name (none when the file has none)."""
        kinds = [grammar.kind_of(n) for n in recorded.joint_names]
        other = [i for i, k in enumerate(kinds) if k is not grammar.POSITIONS]
        if not other:
            return recorded, {}
        for i in other:
            # refused here with the column and the header's line, not later with neither
            try:
                KIND_CHECKS[kinds[i].name](self.built, recorded.joint_names[i])
            except CodedError as exc:
                where = f"column {i + 2}" if recorded.header_line else f"joint_names[{i}]"
                raise recorded.fail(exc.code, f"{where}: {exc.message}", recorded.header_line) from None
        for i in other:
            kind, unit = kinds[i], recorded.units[i]
            if unit and unit not in dict(kind.units):
                takes = grammar.marker_list(dict(kind.units)) if kind.units else "no unit marker"
                raise recorded.fail("commands.units", f"column {i + 2}: the {kind.what} "
                                    f"{recorded.joint_names[i]!r} takes {takes} ({kind.unit}); remove "
                                    f"[{unit}]", recorded.header_line)
        keep = [i for i, k in enumerate(kinds) if k is grammar.POSITIONS]

        def part(cols):
            return dataclasses.replace(recorded, joint_names=tuple(recorded.joint_names[i] for i in cols),
                                       joint_positions=recorded.joint_positions[:, cols],
                                       units=tuple(recorded.units[i] for i in cols))

        schedules = {}
        for kind in grammar.KINDS:
            cols = [i for i in other if kinds[i] is kind]
            if cols:
                columns = part(cols)
                schedules[kind.name] = columns.schedule(columns.joint_names, dt)
        return part(keep), schedules

    def play(self, schedule, progress=None):
        initial = dict(zip(self.command_names, np.asarray(schedule.initial_positions, float), strict=True))
        if self.torque_schedule is not None:
            from mime_gui.rig.driven import play_driven, torque_arrays
            from mime_gui.rig.pulled import segment_pulls

            ts = self.torque_schedule
            torques = dict(zip(ts.command_names, ts.commands.T, strict=True))
            self.pulled = tuple(segment_pulls(self.built, torque_arrays(self.built, torques)))
            trajectory = play_driven(self.built, schedule.commands, torques, schedule.dt, initial,
                                     self.servo_time_constant, self.integrator, self.substeps,
                                     progress=progress)
            self.played = trajectory
            return trajectory.as_trajectory()
        trajectory = self.built.play(schedule.commands, schedule.dt, initial_positions=initial,
                                     servo_time_constant=self.servo_time_constant, progress=progress)
        self.pulled = ()
        self.played = trajectory
        return trajectory.as_trajectory()

    def torques(self, schedule, trajectory=None):
        """The joint torques of the last :meth:`play` (see :mod:`mime_gui.rig.torques`)."""
        return self.built.torques(self.played, schedule.start)


def load_rig_playable(path, options=None) -> RigPlayable:
    """Load and build a rig file for ``mime-gui play``; a refusal raises an error with ``one_line()``."""
    from mime_gui.rig import RigError, load

    rig = load(Path(path))
    try:
        built = rig.build()
    except RigError as exc:
        raise _RigRefused(exc, str(path)) from None
    integrator = getattr(options, "integrator", None) or "euler"
    return RigPlayable(built, getattr(options, "servo_tau", None), integrator,
                       getattr(options, "substeps", None) or 1)


def _finding_line(file: str, where: str) -> int:
    """The line of the rig file where what the rig path ``where`` names is written; 0 when it is not."""
    import json

    from mime_gui import inputs
    from mime_gui.rig.pointers import line_of, pointer_of

    try:
        text = inputs.read_bytes(file, "rig").decode("utf-8-sig")
        pointer = pointer_of(json.loads(text), where)
    except (OSError, ValueError):  # the file loaded a moment ago: only a race gets here
        return 0
    return line_of(text, pointer) if pointer else 0


class _RigRefused(ValueError):
    def __init__(self, error, file: str):
        self.findings = error.findings
        self.code = self.findings[0].code
        super().__init__(str(error))
        self.file = file
        self.line = _finding_line(file, self.findings[0].where)

    def one_line(self) -> str:
        first = self.findings[0]
        n = len(self.findings) - 1
        more = f" (and {n} more; run mime-gui validate)" if n else ""
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"error[{first.code}] {where}: {printable(first.where)}: {first.message}{more}"
