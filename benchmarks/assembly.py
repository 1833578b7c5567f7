"""Assembling figures in the whole window, as ratios against a bare re-render of the same scene (same run).

Run under a virtual X server::

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python benchmarks/assembly.py

Rows (the demo rig, and PR2 carrying a box on its right gripper):

- **drop of a part → visible in 3D with findings updated**: from the tree's drop signal (the same call a drop
  on a row makes) through the edit, the rules, the build, the docks and the view's in-place update, until the
  frame that shows the part is rendered and finished (``glFinish``). Goal: at most 1.5× a bare re-render.
- **a field edit while typing**: one keystroke in a part's size field; the slice that handles the key (the
  edit, rules, build, view update and the docks that follow at once), and the time from its end until the
  frame it asked for is finished (Qt's repaint of the changed widgets, then the coalesced render). Goal: the
  key's own slice blocks the event loop for no more than one bare render.

The **bare re-render** is a frame of the window's own 3D view with nothing changed, asked and shown the way
every change's frame is (the view's coalesced render, Qt composing the window, ``glFinish``): the frame every
change ends with. VTK's render alone (``plotter.render()``, ``glFinish``, no window) is shown beside it: on a
software OpenGL, Qt composing the window around an OpenGL view costs about as much again. Medians of
interleaved repeats, and the worst keystroke.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from robots import robots_dir  # noqa: E402  (benchmarks/ is on the path of a script run from it)
from window import QtBench, render_time  # noqa: E402

SIZE = (1500, 950)


class Bench(QtBench):
    def __init__(self):
        from PySide6.QtCore import Qt
        from PySide6.QtWidgets import QApplication

        QApplication.setAttribute(Qt.AA_ShareOpenGLContexts)
        super().__init__(sys.argv[:1])

    def window(self, path: Path):
        from mime_gui.app.main import wait_until_ready
        from mime_gui.app.main_window import MainWindow
        from mime_gui.session import Session

        session = Session()
        session.open(path)
        win = MainWindow(session, restore=False)
        win.resize(*SIZE)
        win.show()
        wait_until_ready(win)
        self.pump(0.3)
        return win

    def bare(self, win) -> float:
        """A re-render of the unchanged scene, asked and shown the way every change is: the view's
        coalesced render, Qt composing the window, until the frame is finished."""
        self.pump(0.05)  # nothing pending from the step before
        before = win.scene.render_count
        t0 = time.perf_counter()
        win.scene.request_render()
        return self.until_rendered(win, before) - t0

    def vtk_only(self, win) -> float:
        """VTK's render of the same scene alone (``plotter.render()`` and ``glFinish``), no window."""
        return render_time(win.scene.plotter)

    def until_rendered(self, win, before: int) -> float:
        """Run the event loop until the view has rendered a frame after ``before`` renders; the time that
        frame was finished (``glFinish``) on screen."""
        scene = win.scene
        done: list[float] = []

        def finished():
            if not done and not scene.loading:
                scene.plotter.ren_win.WaitForCompletion()
                done.append(time.perf_counter())

        scene.rendered.connect(finished)
        try:
            while not done:
                self.app.processEvents()
        finally:
            scene.rendered.disconnect(finished)
        return done[0]

    # -- drop ----------------------------------------------------------------------------------------
    def drop(self, name: str, win, segment: str, frame: str, repeats: int = 15) -> None:
        tree = win.tree_dock
        session = win.session
        ours, bare, vtk = [], [], []
        for _ in range(repeats):
            bare.append(self.bare(win))
            vtk.append(self.vtk_only(win))
            self.pump(0.02)
            before = win.scene.render_count
            t0 = time.perf_counter()
            tree.template_dropped.emit("part.box", segment, frame)
            ours.append(self.until_rendered(win, before) - t0)
            self.pump(0.05)  # the new part's form comes after its frame
            assert "box" in session.rig.parts and win.assembly.validation.summary.text()
            session.undo()
            self.pump(0.05)
        o, b, v = statistics.median(ours), statistics.median(bare), statistics.median(vtk)
        self.row(f"| drop of a part → rendered with findings, {name} | {o * 1e3:.1f} ms (best "
                 f"{min(ours) * 1e3:.1f}) | {b * 1e3:.1f} ms (VTK alone {v * 1e3:.1f}) | {o / b:.2f}× "
                 f"(against VTK alone {o / v:.2f}×; goal ≤ 1.5×) |")

    # -- typing --------------------------------------------------------------------------------------
    def typing(self, name: str, win, part: str, keys: str = "12345678901234567890") -> None:
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest

        from mime_gui.app.docks.forms import item_ref

        win.session.select(item_ref(win.session, "parts", part))
        self.pump(0.1)
        field = win.properties_dock.forms.form.field_for(f"parts.{part}.geometry.size")
        edit = field.edits[0]
        edit.setFocus()
        edit.selectAll()
        QTest.keyClick(edit, Qt.Key_Backspace)
        self.pump(0.1)
        key_slices, turn_slices, bare, vtk = [], [], [], []
        for i, ch in enumerate(keys):
            bare.append(self.bare(win))
            vtk.append(self.vtk_only(win))
            self.pump(0.02)
            if i % 3 == 2:  # keep the number small: delete two digits now and then
                QTest.keyClick(edit, Qt.Key_Backspace)
                QTest.keyClick(edit, Qt.Key_Backspace)
                self.pump(0.02)
            before = win.scene.render_count
            t0 = time.perf_counter()
            QTest.keyClick(edit, ch)
            t1 = time.perf_counter()
            t2 = self.until_rendered(win, before)
            key_slices.append(t1 - t0)
            turn_slices.append(t2 - t1)
            self.pump(0.02)
        b, v = statistics.median(bare), statistics.median(vtk)
        k, t = statistics.median(key_slices), statistics.median(turn_slices)
        self.row(f"| a keystroke in a size field, {name}: its own slice | {k * 1e3:.1f} ms (worst "
                 f"{max(key_slices) * 1e3:.1f}) | {b * 1e3:.1f} ms (VTK alone {v * 1e3:.1f}) | {k / b:.2f}× "
                 f"(worst {max(key_slices) / b:.2f}×; against VTK alone {k / v:.2f}×, worst "
                 f"{max(key_slices) / v:.2f}×; goal ≤ 1×) |")
        self.row(f"| … then until its frame is shown, {name} | {t * 1e3:.1f} ms (worst "
                 f"{max(turn_slices) * 1e3:.1f}) | {b * 1e3:.1f} ms (VTK alone {v * 1e3:.1f}) | {t / b:.2f}× "
                 f"(worst {max(turn_slices) / b:.2f}×) |")

    def header(self, win) -> None:
        self.row(f"GL renderer: {win.scene.gl_renderer}; {os.cpu_count()} cores; "
                 f"{platform.python_version()}; window {SIZE[0]}×{SIZE[1]} with every dock; load average "
                 f"{os.getloadavg()[0]:.2f} at the start")
        self.row("")
        self.row("| figure | ours (median) | bare re-render, shown (median, same run) | ratio |")
        self.row("|---|---|---|---|")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args(argv)
    from mime_gui import RESOURCES
    from mime_gui.rig import Box, Part
    from mime_gui.session import AddItem

    bench = Bench()
    with tempfile.TemporaryDirectory() as tmp:
        demo = Path(tmp) / "demo"
        shutil.copytree(RESOURCES / "demo", demo)
        win = bench.window(demo / "demo.rig.json")
        bench.header(win)
        bench.drop("demo rig", win, "arm", "link_3", args.repeats)
        win.session.apply(AddItem("parts", "box", Part(Box((0.02, 0.02, 0.01)), material="aluminium",
                                                       mount="arm.link_3")))
        bench.pump(0.2)
        bench.typing("demo rig", win, "box")
        win.close()
        pr2 = robots_dir() / "pr2_description/urdf/pr2.urdf"
        win = bench.window(pr2)
        (seg,) = win.session.segments
        bench.drop("PR2", win, seg, "r_gripper_palm_link", args.repeats)
        win.session.apply(AddItem("parts", "box", Part(Box((0.02, 0.02, 0.01)), material="aluminium",
                                                       mount=f"{seg}.r_gripper_palm_link")))
        bench.pump(0.2)
        bench.typing("PR2", win, "box")
        win.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
