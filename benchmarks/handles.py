"""A frame's handle dragged in the app's window, as a ratio against a bare PyVista re-render in the same run.

Run under a virtual X server::

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python benchmarks/handles.py [--runs 40] [--write F]

Row (issue 25): handle drag → solved → rendered frame. The MainWindow at 1400×900 with its default docks, a
robot opened and standing at a bent pose, its flange frame selected; the mouse pressed on the flange's arrow
and moved along it by a few pixels, back and forth (real Qt mouse events on the 3D view). Timed from the
move event until the render that shows the arm there has finished (``glFinish``): the drag measured through
the camera, the inverse kinematics over the arm's joints (``Session.reach``), the poses pushed, the render.
With Teleport the arm is there at once; through the servo the next clock tick (up to 16 ms later) takes the
lagged step. The baseline is ``benchmarks/driving.py``'s: a bare ``QtInteractor`` of the 3D view's size with
the same meshes at the same poses and camera, timed alike.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from driving import FILES, Bench  # noqa: E402  (benchmarks/ is on the path of a script run from it)
from window import finish  # noqa: E402

BENT = {"Panda": ("panda_link8", [0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785]),
        "UR5": ("tool0", [0.3, -1.2, 1.5, -1.9, -1.57, 0.2])}


class HandleBench(Bench):
    def drag_rows(self, name: str, runs: int) -> None:
        from PySide6.QtCore import QPoint, Qt
        from PySide6.QtTest import QTest

        from mime_gui.app.scene.handles import world_to_display
        from mime_gui.session import ItemRef

        w = self.open_window(FILES[name], detail=None)
        session, scene = w.session, w.scene
        seg = next(iter(session.segments))
        frame, q = BENT[name]
        names = session.command_names(seg)
        session.set_joint_positions(seg, dict(zip(names, q, strict=False)))
        session.select(ItemRef(seg, "frame", frame))
        self.pump(0.5)
        handles = scene.handles
        X = handles.world_X_handles
        # the arrow lying most nearly across the screen, grabbed 70 % of the way along
        ren = scene.plotter.renderer
        best = None
        for k in range(3):
            ends, _front = world_to_display(ren, np.array([X[:3, 3], X[:3, 3] + handles.scale * X[:3, k]]))
            length = float(np.linalg.norm(ends[1] - ends[0]))
            if best is None or length > best[0]:
                best = (length, k, ends)
        _length, k, ends = best
        h = scene.plotter.height()
        grab = ends[0] + 0.7 * (ends[1] - ends[0])
        along = (ends[1] - ends[0]) / np.linalg.norm(ends[1] - ends[0])
        start = QPoint(int(round(grab[0])), int(round(h - 1 - grab[1])))
        bare = self.bare_like(scene)
        for mode in ("teleport", "servo"):
            w.posing.act_teleport.setChecked(mode == "teleport")
            QTest.mousePress(scene.plotter, Qt.LeftButton, Qt.NoModifier, start)
            assert handles.dragging, "the press missed the handle"
            self.pump(0.2)
            ours, base = [], []
            for i in range(runs):
                step = 6 + 6 * (i % 2)  # back and forth along the arrow, never where it already is
                offset = along * step
                to = start + QPoint(int(round(offset[0])), -int(round(offset[1])))
                n0 = scene.render_count
                t0 = time.perf_counter()
                QTest.mouseMove(scene.plotter, to)
                while scene.render_count == n0:
                    self.app.processEvents()
                self.app.processEvents()  # the widget's paint
                finish(scene.plotter.ren_win)
                ours.append(time.perf_counter() - t0)
                self.pump(0.03)
                base += self.bare_render(bare, 1)
            QTest.mouseRelease(scene.plotter, Qt.LeftButton, Qt.NoModifier, start)
            reach = w.posing.last_reach
            assert reach is not None and reach.result.converged, "the drag did not reach"
            self.pump(0.3)
            o, b = statistics.median(ours) * 1e3, statistics.median(base) * 1e3
            label = "Teleport (pose at once)" if mode == "teleport" else "through the servo"
            self.row(f"| handle drag → solved → rendered frame, {name} ({frame}), {label} | median "
                     f"{o:.1f} ms, best {min(ours) * 1e3:.1f} | bare re-render median {b:.1f} ms, best "
                     f"{min(base) * 1e3:.1f} | {o / b:.2f}× median |")
        bare.close()
        w.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=40, help="mouse moves timed per row (default 40)")
    ap.add_argument("--robots", default="Panda,UR5", help="comma-separated: Panda, UR5")
    ap.add_argument("--write", type=Path, help="also write the rows to this Markdown file")
    args = ap.parse_args(argv)
    bench = HandleBench()
    bench.header()
    for name in args.robots.split(","):
        bench.drag_rows(name.strip(), args.runs)
    bench.row(f"(load average {os.getloadavg()[0]:.1f} at the end)")
    if args.write:
        args.write.write_text("\n".join(bench.rows) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
