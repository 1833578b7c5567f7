"""Live driving and recording: the Session advanced by the real elapsed time, and a recorder of its commands
that writes a command file which plays back to the trajectory the arm took.

Live, :meth:`LiveDrive.tick` takes one step of the elapsed time (the servo lag is exact for any step with the
command held). While recording, time advances in fixed steps of :data:`RECORD_STEP` (the remainder carried to
the next tick) and each step's command becomes a row of the file, so playing the file with the zero-order
hold at that step (its sample spacing, the default step of ``mime-gui play``) takes the same steps from the
same state. Row 0 is the arm's position when recording started: played back, the arm starts there.
"""

from __future__ import annotations

import io

import numpy as np

from mime_gui.files import write_atomic
from mime_gui.nodes import columns as grammar
from mime_gui.nodes.commands import RecordedCommands
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
        atomically."""
        path = str(path)
        rec = self.recorded()
        lower = path.lower()
        if lower.endswith(".npz"):
            def write(fh):
                np.savez(fh, **{grammar.NPZ_TIME: rec.time, grammar.NPZ_VALUES: rec.joint_positions,
                                grammar.NPZ_NAMES: np.array(rec.joint_names, dtype=str)})
        elif lower.endswith(".csv"):
            text = io.StringIO()
            text.write(f"# recorded in MIME Rig Builder: {self.samples} samples every {self.step:g} s "
                       "(radians, metres)\n")
            text.write(",".join((grammar.TIME, *rec.joint_names)) + "\n")
            for t, row in zip(rec.time, rec.joint_positions, strict=True):
                text.write(",".join(repr(float(v)) for v in (t, *row)) + "\n")
            write = text.getvalue()
        else:
            raise PlayerError("player.out", "a recording is written as .csv or .npz; choose one of those "
                              "endings", path)
        try:
            write_atomic(path, write)
        except (OSError, ValueError) as exc:
            raise PlayerError("player.io", f"cannot write the recording "
                              f"({getattr(exc, 'strerror', None) or exc})", path) from None
        return path


class LiveDrive:
    """What the app's clock advances while no trajectory plays: the Session, and the recorder if any."""

    def __init__(self, session):
        self.session = session
        self.recorder: Recorder | None = None
        self._carry = 0.0

    @property
    def document(self):
        return self.session.document

    def tick(self, dt: float) -> int:
        """Advance by ``dt`` seconds of real time; returns the steps taken."""
        rec = self.recorder
        if rec is None:
            self.session.tick(dt)
            return 1
        self._carry += dt
        n = int(self._carry / rec.step + 1e-9)
        self._carry = max(self._carry - n * rec.step, 0.0)
        for _ in range(n):
            self.session.tick(rec.step)
            rec.record()
        return n

    def start_recording(self, step: float = RECORD_STEP) -> Recorder:
        """Record the commands from now on; refused (``player.record-torques``) while a segment is driven by
        torques: a recording holds position commands."""
        driven = [s for s in self.session.segments if self.session.drive(s) == "torques"]
        if driven:
            raise PlayerError("player.record-torques", f"{', '.join(driven)} "
                              f"{'is' if len(driven) == 1 else 'are'} driven by torques, which a recording "
                              "does not hold; switch back to positions (Joint sliders ▸ Drive) to record")
        self.recorder = Recorder(self.session, step)
        self.session.recording = True
        self._carry = 0.0
        return self.recorder

    def stop_recording(self) -> Recorder | None:
        rec, self.recorder = self.recorder, None
        self.session.recording = False
        return rec
