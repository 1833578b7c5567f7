"""The player: recorded commands played once through the rig's chain node, then a playhead on the result.

:meth:`Player.for_document` plays a command file (or a recording) on the open document's last valid build
through :class:`~mime_gui.rig.playback.RigPlayable`, the path ``mime-gui play`` takes, so
:meth:`Player.arrays` are the arrays ``mime-gui play FILE --commands CMD --out OUT.npz`` writes for the same
file and options, bit for bit. A document opened from a URDF names joints and frames as ``mime-gui play
FILE.urdf`` does (without the segment's name); any other names them ``<segment>.<name>``.

Row ``n`` of the trajectory is the state after step ``n`` (time ``start + (n + 1)·dt``); seeking is indexing.
Playing maps the wall clock to a row: ``p = p₀ + (now − t₀)·rate`` seconds into the trajectory shows row
``⌊p / dt⌋``, so a slow frame skips rows (counted in :attr:`Player.dropped`) and never falls behind.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mime_gui.files import write_atomic
from mime_gui.multibody.errors import CodedError
from mime_gui.nodes import NodeState, read_commands
from mime_gui.rig.playback import RigPlayable

RATE_MIN, RATE_MAX = 0.1, 10.0
#: the largest trajectory the player keeps in memory (bytes); a longer file needs a larger step
MAX_BYTES = 2_000_000_000


class PlayerError(CodedError):
    """A refused playback (``player.*``): nothing open, a rig that breaks rules, a bad rate or output."""


def bare_names(document) -> bool:
    """True when ``mime-gui play`` would name this document's joints without a segment: a URDF on its own."""
    return document.kind == "urdf" and len(document.built.segments) == 1


def document_playable(document, servo_time_constant: float | None = None) -> RigPlayable:
    """The :class:`RigPlayable` of the document's last valid build; refuses a document without one."""
    if document is None:
        raise PlayerError("player.no-document", "nothing is open; open a robot or a rig first")
    if document.built is None or document.findings:
        first = document.findings[0] if document.findings else None
        why = f" (first: {first.code} at {first.where}: {first.message})" if first else ""
        raise PlayerError("player.rig-invalid", f"the rig breaks {len(document.findings)} rule(s){why}; fix "
                          "them to play it", document.path)
    return RigPlayable(document.built, servo_time_constant)


@dataclass(frozen=True)
class SegmentColumns:
    """Where one segment's values sit in the stacked arrays (chain order)."""

    name: str
    joints: slice
    frames: slice
    commands: slice


def _columns(built) -> list[SegmentColumns]:
    out, j, f, c = [], 0, 0, 0
    for name, seg in built.segments.items():
        art = seg.articulation
        k = int(np.count_nonzero(~np.asarray(art.is_mimic)))
        out.append(SegmentColumns(name, slice(j, j + art.nq), slice(f, f + art.nframes), slice(c, c + k)))
        j, f, c = j + art.nq, f + art.nframes, c + k
    return out


class Player:
    """A played trajectory and a playhead: :meth:`seek`, :meth:`play`/:meth:`pause`, :attr:`rate`
    (0.1–10×), :attr:`loop`, and :meth:`update` for the row the wall clock has reached."""

    def __init__(self, playable: RigPlayable, recorded, dt: float | None = None, *, bare: bool = False,
                 source: str = "", now: Callable[[], float] = time.perf_counter):
        self.playable = playable
        self.recorded = recorded
        self.source = source or str(getattr(recorded, "path", ""))
        self.bare = bare
        self.schedule = playable.schedule(recorded, dt)
        self._check_size()
        with np.errstate(over="ignore", invalid="ignore"):  # overflow is refused below, with its place
            self.trajectory = playable.play(self.schedule)
        self._played = getattr(playable, "played", None)  # the rig's trajectory, for torques()
        self._torques = None
        self._check_finite()
        self.columns = _columns(playable.built)
        self.times = self.trajectory.times(self.schedule.start)
        self._now = now
        self.row = 0
        self.rate = 1.0
        self.loop = False
        self.playing = False
        self.shown = 0  # rows shown while playing
        self.dropped = 0  # rows the wall clock skipped while playing
        self._position = 0.0  # seconds into the trajectory
        self._anchor = (0.0, 0.0)  # (wall time, position) when playing started or last changed pace

    @classmethod
    def for_document(cls, document, commands, dt: float | None = None,
                     servo_time_constant: float | None = None, **kwargs) -> Player:
        """Play ``commands`` (a command file's path, or :class:`~mime_gui.nodes.commands.RecordedCommands`)
        on the document's last valid build."""
        playable = document_playable(document, servo_time_constant)
        recorded = read_commands(commands) if not hasattr(commands, "joint_positions") else commands
        return cls(playable, recorded, dt, bare=bare_names(document), **kwargs)

    def torques(self):
        """The joint torques the trajectory asks of every dynamic segment and the limits it exceeds
        (:class:`~mime_gui.rig.torques.RigTorques`), computed on first use."""
        if self._torques is None:
            self._torques = self.playable.built.torques(self._played, self.schedule.start)
        return self._torques

    # -- checks ----------------------------------------------------------------------------------------
    def _check_size(self) -> None:
        built = self.playable.built
        per_step = sum(s.articulation.nq + 19 * s.articulation.nframes for s in built.segments.values()) * 8
        total = per_step * self.schedule.steps
        if total > MAX_BYTES:
            raise PlayerError("player.too-large", f"{self.schedule.steps} steps of {self.schedule.dt:g} s "
                              f"would hold {total / 1e9:.1f} GB of poses (at most {MAX_BYTES / 1e9:g} GB); "
                              "choose a larger step", self.source)

    def _check_finite(self) -> None:
        t = self.trajectory
        for what, values in (("joint positions", t.joint_positions), ("frame poses", t.frame_poses),
                             ("frame angular velocities", t.frame_angular_velocities)):
            bad = np.flatnonzero(~np.all(np.isfinite(values.reshape(len(values), -1)), axis=1))
            if bad.size:
                raise PlayerError("player.non-finite", f"the {what} overflow at step {int(bad[0])} (step "
                                  f"{self.schedule.dt:g} s); check the file's units and values, or choose a "
                                  "larger step", self.source)

    # -- names and arrays ------------------------------------------------------------------------------
    def _names(self, names) -> tuple[str, ...]:
        return tuple(n.split(".", 1)[1] for n in names) if self.bare else tuple(names)

    @property
    def joint_names(self) -> tuple[str, ...]:
        return self._names(self.playable.joint_names)

    @property
    def frame_names(self) -> tuple[str, ...]:
        return self._names(self.playable.frame_names)

    @property
    def command_names(self) -> tuple[str, ...]:
        return self._names(self.schedule.command_names)

    def arrays(self) -> dict[str, np.ndarray]:
        """The arrays ``mime-gui play --out`` writes, with the same names (docs/command-files.md)."""
        t = self.trajectory
        return {
            "time": self.times,
            "joint_names": np.array(self.joint_names, dtype=str),
            "joint_positions": t.joint_positions,
            "frame_names": np.array(self.frame_names, dtype=str),
            "frame_poses": t.frame_poses,
            "frame_angular_velocities": t.frame_angular_velocities,
            "command_names": np.array(self.command_names, dtype=str),
            "dt": np.float64(self.schedule.dt),
            "clamped": t.clamped,
        }

    def save_npz(self, path) -> str:
        """Write :meth:`arrays` to ``path`` (``.npz``), atomically."""
        path = str(path)
        if not path.lower().endswith(".npz"):
            raise PlayerError("player.out", "the trajectory is written as .npz; choose a name ending in .npz",
                              path)
        arrays = self.arrays()
        try:
            write_atomic(path, lambda fh: np.savez(fh, **arrays))
        except (OSError, ValueError) as exc:
            why = getattr(exc, "strerror", None) or exc
            raise PlayerError("player.io", f"cannot write the trajectory ({why})", path) from None
        return path

    # -- rows ------------------------------------------------------------------------------------------
    @property
    def rows(self) -> int:
        return len(self.trajectory)

    @property
    def dt(self) -> float:
        return self.schedule.dt

    @property
    def duration(self) -> float:
        """Seconds of trajectory: ``rows·dt``."""
        return self.rows * self.dt

    def states(self, n: int | None = None) -> dict[str, NodeState]:
        """Row ``n`` (default: the playhead's) of every segment as a NodeState (views of the arrays)."""
        n = self.row if n is None else n
        t = self.trajectory
        return {c.name: NodeState(t.joint_positions[n, c.joints], t.frame_poses[n, c.frames],
                                  t.frame_angular_velocities[n, c.frames]) for c in self.columns}

    def commands(self, n: int | None = None) -> dict[str, np.ndarray]:
        """The commands held through step ``n`` (default: the playhead's), per segment."""
        n = self.row if n is None else n
        return {c.name: self.schedule.commands[n, c.commands] for c in self.columns}

    def segment(self, name: str) -> SegmentColumns:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(f"no segment {name!r} in this playback; segments: "
                       f"{', '.join(c.name for c in self.columns)}")

    def row_at(self, seconds: float) -> int:
        """The row shown ``seconds`` into the trajectory: row ``n`` from ``n·dt`` to ``(n + 1)·dt``."""
        n = int(math.floor(seconds / self.dt + 1e-9))
        return min(max(n, 0), self.rows - 1)

    # -- the playhead ----------------------------------------------------------------------------------
    def seek(self, n: int) -> int:
        """Put the playhead on row ``n`` (held within the trajectory); playing goes on from there."""
        self.row = min(max(int(n), 0), self.rows - 1)
        self._position = self.row * self.dt
        self._anchor = (self._now(), self._position)
        return self.row

    def play(self) -> None:
        """Play from the playhead on the wall clock (from the start when it stands on the last row)."""
        if self.playing:
            return
        if self.row >= self.rows - 1:
            self.seek(0)
        self.playing = True
        self._anchor = (self._now(), self._position)

    def pause(self) -> None:
        if self.playing:
            self.update()
            self.playing = False

    def toggle(self) -> None:
        self.pause() if self.playing else self.play()

    def set_rate(self, rate: float) -> None:
        """Playback speed, 0.1× to 10× of real time (the playhead keeps its place)."""
        rate = float(rate)
        if not (math.isfinite(rate) and RATE_MIN - 1e-12 <= rate <= RATE_MAX + 1e-12):
            raise PlayerError("player.rate", f"the speed is {RATE_MIN:g}× to {RATE_MAX:g}×, got {rate:g}×")
        if self.playing:
            self.update()
            self._anchor = (self._now(), self._position)
        self.rate = rate

    def update(self) -> int:
        """While playing: move the playhead to the row the wall clock has reached (looping or stopping at
        the end) and count the rows skipped on the way. Returns the row."""
        if not self.playing:
            return self.row
        now = self._now()
        wall0, p0 = self._anchor
        p = p0 + (now - wall0) * self.rate
        ahead = int(math.floor(p / self.dt + 1e-9)) - self.row  # rows on, whole turns of a loop included
        if p >= self.duration:
            if self.loop:
                p = math.fmod(p, self.duration)
                self._anchor = (now, p)
            else:
                p = (self.rows - 1) * self.dt
                ahead = self.rows - 1 - self.row
                self.playing = False
        if ahead > 0:
            self.shown += 1
            self.dropped += ahead - 1
        self.row, self._position = self.row_at(p), p
        return self.row
