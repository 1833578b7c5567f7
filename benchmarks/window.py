"""Qt set-up shared by the benchmarks that time windows (assembly.py, driving.py, edit.py, gui.py).

PySide6 is imported when a bench is made, not with this module, so a script's ``--help`` does not start Qt.
"""

from __future__ import annotations

import sys
import time


def finish(ren_win) -> None:
    """Wait until the render window's frame is finished (``glFinish``), so a software rasteriser's work is
    in the time."""
    ren_win.WaitForCompletion()


def render_view(view) -> None:
    """Render the app's 3D view (a ``SceneView``) at once and wait until its frame is finished."""
    view.render_now()
    finish(view.plotter.ren_win)


def render_time(plotter) -> float:
    """Seconds of one ``plotter.render()`` until its frame is finished."""
    t0 = time.perf_counter()
    plotter.render()
    finish(plotter.ren_win)
    return time.perf_counter() - t0


class QtBench:
    """The application, an event-loop pump, and the rows: each printed as it comes and kept in ``rows``."""

    pump_sleep = 0.002  # seconds between the event-loop turns of ``pump``

    def __init__(self, argv: list[str] | None = None) -> None:
        from PySide6.QtWidgets import QApplication

        self.app = QApplication.instance() or QApplication(sys.argv if argv is None else argv)
        self.rows: list[str] = []

    def pump(self, seconds: float = 0.0) -> None:
        """Run the event loop for ``seconds`` (one turn at least)."""
        end = time.perf_counter() + seconds
        while True:
            self.app.processEvents()
            if time.perf_counter() >= end:
                break
            time.sleep(self.pump_sleep)

    def row(self, text: str) -> None:
        print(text, flush=True)
        self.rows.append(text)
