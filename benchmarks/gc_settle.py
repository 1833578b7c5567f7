"""A full garbage collection in the app as a user opens it, before and after the window settles.

Run under a virtual X server::

    xvfb-run -a .venv/bin/python benchmarks/gc_settle.py

The window is opened on the demo rig as ``mime-gui window`` opens it (its default docks shown) and waited for
until ready; then ``gc.collect()`` is timed five times as the collector's own full pass would run mid-use, the
window settles (``GcGuard.settle``: one full collection, then what survived frozen), and the same collection
is timed again. The row gives the medians and how many objects the settle took out of later collections.
"""

from __future__ import annotations

import gc
import statistics
import sys
import time


def _full_ms() -> float:
    t0 = time.perf_counter()
    gc.collect()
    return (time.perf_counter() - t0) * 1e3


def main() -> int:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    QApplication.setAttribute(Qt.AA_ShareOpenGLContexts)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    from mime_gui.app import gc_guard
    from mime_gui.app.main import DEMO_RIG, wait_until_ready
    from mime_gui.app.main_window import MainWindow
    from mime_gui.session import Session

    session = Session()
    session.open(DEMO_RIG)
    window = MainWindow(session, restore=False)
    window.resize(1400, 900)
    window.show()
    wait_until_ready(window)
    objects = len(gc.get_objects())
    before = statistics.median(_full_ms() for _ in range(5))
    gc_guard.install(app).settle()
    frozen = gc.get_freeze_count()
    after = statistics.median(_full_ms() for _ in range(5))
    print("| figure | ours (settled) | peer (not settled) | ratio |")
    print("| --- | --- | --- | --- |")
    print(f"| a full garbage collection in the window on the demo rig ({objects:,} objects, "
          f"{frozen:,} frozen by the settle) | {after:.2f} ms | {before:.1f} ms | {after / before:.4f}× |")
    window.close()
    gc.unfreeze()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
