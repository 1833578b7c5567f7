"""A recorder of the commands driven live, written as a command file which plays back to the trajectory the
arm took.

While recording, the transport (:mod:`mime_gui.session.transport`) advances time in fixed steps of
:data:`RECORD_STEP` (the remainder carried to the next tick) and each step's command becomes a row of the
file, so playing the file with the zero-order hold at that step (its sample spacing, the default step of
``mime-gui play``) takes the same steps from the same state. Row 0 is the arm's position when recording
started: played back, the arm starts there.
"""

from __future__ import annotations

import numpy as np

from mime_gui.nodes.commands import RecordedCommands, write_commands
from mime_gui.session.player import PlayerError, bare_names

RECORD_STEP = 0.01  # s: 100 samples a second


class Recorder:
    """The commands of every segment at each fixed step, from the moment it was made."""

    def __init__(self, session, step: float = RECORD_STEP):
        doc = session.document
        if doc is None:
            raise PlayerError("player.no-document", "nothing is open; open a robot or a rig first")
        self.session = session
        self.step = float(step)
        self.segments = tuple(session.segments)
        bare = doc.built is not None and not doc.findings and bare_names(doc)
        self.names = tuple(j if bare else f"{s}.{j}" for s in self.segments for j in session.command_names(s))
        if not self.names:  # a command file of no joints is one no player reads (commands.columns)
            raise PlayerError("player.record-nothing", "the rig has no joint to command, so there is nothing "
                              "to record; add a segment with a movable joint (a robot or a motor) first")
        first = []
        for s in self.segments:  # the state of the commanded joints: where playback starts
            seg = session.segment(s)
            art = seg.articulation
            first.append(seg.q[[art.joint_index(j) for j in session.command_names(s)]])
        self._rows = [np.concatenate(first)]

    def record(self) -> None:
        """Add the commands held through the step just taken."""
        self._rows.append(np.concatenate([self.session.command(s) for s in self.segments]))

    @property
    def samples(self) -> int:
        return len(self._rows)

    @property
    def duration(self) -> float:
        return (self.samples - 1) * self.step

    def recorded(self) -> RecordedCommands:
        """The samples as a command file holds them (radians and metres)."""
        values = np.array(self._rows, dtype=float)
        values.setflags(write=False)
        time = self.step * np.arange(len(values))
        time.setflags(write=False)
        lines = np.zeros(len(values), dtype=int)
        return RecordedCommands("recording", time, self.names, values, ("",) * len(self.names), lines)

    def save(self, path) -> str:
        """Write the recording as CSV (17 significant digits, so every value reads back as it was) or NPZ,
        atomically, through the command files' one writer."""
        path = str(path)
        rec = self.recorded()
        if not path.lower().endswith((".npz", ".csv")):
            raise PlayerError("player.out", "a recording is written as .csv or .npz; choose one of those "
                              "endings", path)
        comment = (f"recorded in MIME Rig Builder: {self.samples} samples every {self.step:g} s "
                   "(radians, metres)")
        try:
            write_commands(path, rec, comment)
        except (OSError, ValueError) as exc:
            raise PlayerError("player.io", f"cannot write the recording "
                              f"({getattr(exc, 'strerror', None) or getattr(exc, 'message', None) or exc})",
                              path) from None
        return path
