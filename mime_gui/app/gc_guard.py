"""Python's cyclic garbage collection, run on the GUI thread only.

The collector runs in whichever thread happens to allocate when a generation fills up. When that is a worker
(the mesh loader, the field plane, the compiled dynamics' loader) and the garbage holds a closed window's Qt
objects, PySide destroys them there: the widget's destructor takes a lock of Qt's and then waits for the GIL,
while the GUI thread, holding the GIL, waits for that same lock in a destructor of its own. The app hangs for
good (seen with a mesh loader collecting a closed window while the next window painted). pyqtgraph documents
the same cure: switch automatic collection off and collect from a timer on the GUI thread, generation by
generation as the automatic collector would.

:func:`install` does it once per QApplication; the timer also switches automatic collection off again if
something turned it back on (the URDF reader pauses it while it reads and restores what it found).

A full collection walks every object the process holds: about 350,000 once the window is up, some 200–300 ms
on the GUI thread, a visible stall during playback every few minutes. :meth:`GcGuard.settle` collects once and
then freezes what survived (``gc.freeze``): later collections skip it. The app settles when it has shown its
window and after each file it opens (:func:`settle_after_opens`), where the user waits anyway; the next
settle unfreezes first, so what an earlier document left behind is collected then and nothing stays frozen
for good.
"""

from __future__ import annotations

import gc
import threading

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QApplication

#: how often the GUI thread looks at the collector's counts (ms)
INTERVAL_MS = 250


class GcGuard(QObject):
    def __init__(self, app: QApplication, interval_ms: int = INTERVAL_MS):
        super().__init__(app)
        self.setObjectName("GcGuard")
        self.thresholds = gc.get_threshold()
        self.collections = 0  # collections this guard ran (tests)
        self.settles = 0
        self.gui_thread = threading.get_ident()
        gc.disable()
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.check)
        self.timer.start()

    def check(self) -> None:
        """Collect the generations whose counts passed their thresholds, as the automatic collector does."""
        if gc.isenabled():
            gc.disable()
        t0, t1, t2 = self.thresholds
        c0, c1, c2 = gc.get_count()
        if c0 > t0:
            generation = 2 if (c1 > t1 and c2 > t2) else 1 if c1 > t1 else 0
            gc.collect(generation)
            self.collections += 1

    def settle(self) -> None:
        """A full collection on this thread; what survived is kept out of later ones until the next settle."""
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self.settles += 1


_guard: GcGuard | None = None


def install(app: QApplication | None = None) -> GcGuard:
    """The application's guard, made on first call."""
    global _guard
    app = app or QApplication.instance()
    guard = app.findChild(GcGuard, "GcGuard")
    if guard is None:
        guard = GcGuard(app)
    _guard = guard
    return guard


def settle_after_opens(session, guard: GcGuard | None = None) -> GcGuard:
    """Settle once the event loop runs (the window shown), and again after every document the session opens,
    reloads or closes; the app's own start does this, not a test's windows (their garbage must stay
    collectable)."""
    guard = guard or install()

    def later(*_):
        QTimer.singleShot(0, guard.settle)

    session.document_changed.connect(later)
    later()
    return guard


def installed() -> GcGuard | None:
    """The guard, when one was installed in this process."""
    return _guard
