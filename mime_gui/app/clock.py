"""The app's one clock: a Qt timer at about 60 Hz that advances the Session by the real elapsed time.

Each tick calls ``Session.tick(dt)`` with the time since the last tick (so a slow frame is one longer step,
never a queue of steps: frames are dropped, time is not), capped at :data:`MAX_STEP` so a window stalled by a
dialog does not jump. The chain node's servo lag is exact for any step, so the arm settles the same way
whatever the frame rate.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, QTimer, Signal

from mime_gui.session import Session, SessionError

INTERVAL_MS = 16  # about 60 Hz
MAX_STEP = 0.1  # s: the longest step one tick takes


class Clock(QObject):
    ticked = Signal(float)  # the step just taken, in seconds

    def __init__(self, session: Session, parent=None, interval_ms: int = INTERVAL_MS,
                 now=time.perf_counter):
        super().__init__(parent)
        self.session = session
        self._now = now
        self._last: float | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._tick)

    @property
    def running(self) -> bool:
        return self._timer.isActive()

    def start(self) -> None:
        self._last = self._now()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()
        self._last = None

    def tick_now(self) -> None:
        """A step at once (a slider moved): the arm starts towards the new command in this turn rather than
        on the next tick; the step is the time since the last one, so the servo stays exact."""
        if self.running:
            self._tick()

    def _tick(self) -> None:
        now = self._now()
        dt = min(now - (self._last if self._last is not None else now), MAX_STEP)
        self._last = now
        if dt <= 0 or self.session.document is None:
            return
        try:
            self.session.tick(dt)
        except SessionError:  # emitted by the Session; stop rather than repeat it 60 times a second
            self.stop()
            return
        self.ticked.emit(dt)
