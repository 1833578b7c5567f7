"""Driving with the live clearance on, in the app's own window, as a ratio against a bare PyVista re-render in
the same run.

Run under a virtual X server::

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python benchmarks/clearance_drive.py [--runs 40] \
        [--write F]

Rows: slider change → rendered frame, PR2 with a holder (a 4 × 6 cm aluminium cylinder) on its right
gripper, Teleport: the right elbow's slider moved (``QSlider.setValue``, as a drag does) until the render that
shows the arm there has finished (``glFinish``), with View → Clearance on (the closest pair found at the new
pose, its line moved and the status bar's text set just before the render) and off, in two turns each; the
baseline is ``benchmarks/driving.py``'s bare ``QtInteractor`` of the 3D view's size with the same meshes at
the same poses and camera, timed alike. With the clearance on, the before-render hook's own time (the closest
pair at the pose and its nearest points, the line and the text) is given too. Goal: ≤ 1.2× the bare
re-render.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from driving import FILES, Bench  # noqa: E402  (benchmarks/ is on the path of a script run from it)
from window import finish  # noqa: E402

JOINT = "r_elbow_flex_joint"


class ClearanceDriveBench(Bench):
    def open_rig(self):
        """The window with PR2 and a holder on its right gripper, every dock, as a user opens it."""
        from mime_gui.app.main_window import MainWindow
        from mime_gui.rig import Apparatus, Arm, Cylinder, Part
        from mime_gui.session import Session

        holder = Part(Cylinder(radius=0.02, length=0.06), material="aluminium", at=(0.22, 0.0, 0.0),
                      mount="arm.r_gripper_palm_link")
        rig = Apparatus("pr2-holder", chain={"arm": Arm.Kinematic(description=str(FILES["PR2"]))},
                        parts={"holder": holder})
        w = MainWindow(Session(), restore=False)
        w.resize(1400, 900)
        w.show()
        w.activateWindow()
        self.pump(0.3)
        w.scene.set_display_detail(None)
        w.session.open_apparatus(rig)
        while w.loading:
            self.pump(0.02)
        while w.clearance.assembled < 1:  # the first check of PR2 hulls its meshes (on the worker)
            self.pump(0.05)
        self.pump(0.5)
        return w

    def rows_for(self, runs: int) -> None:
        w = self.open_rig()
        sliders, scene, views = w.driving.sliders, w.scene, w.clearance
        row = next(r for r in sliders.rows if r.joint == JOINT)
        if not sliders.teleport.isChecked():
            sliders.teleport.click()
        hook_times: list[float] = []
        hooks = scene._loop.before_render
        k = hooks.index(views._before_render)

        def timed():
            t0 = time.perf_counter()
            views._before_render()
            hook_times.append(time.perf_counter() - t0)

        hooks[k] = timed
        bare = self.bare_like(scene)
        self.pump(0.5)
        measured = {True: ([], [], [], 0), False: ([], [], [], 0)}
        last = "none"  # the status text after the last frame with the clearance on
        for block in range(4):  # on and off in turns: a change of the machine's load falls on both
            on = block % 2 == 0
            views.action.setChecked(on)
            self.pump(0.3)
            ours, base, hooks_on, computed = measured[on]
            hook_times.clear()
            before = views.live.computed
            for i in range(runs // 2):
                position = row.slider.minimum() + (row.slider.maximum() - row.slider.minimum()) * \
                    (0.35 + 0.3 * (i % 2))
                n0 = scene.render_count
                t0 = time.perf_counter()
                row.slider.setValue(int(position))
                while scene.render_count == n0:
                    self.app.processEvents()
                self.app.processEvents()  # the widget's paint
                finish(scene.plotter.ren_win)
                ours.append(time.perf_counter() - t0)
                self.pump(0.03)
                base += self.bare_render(bare, 1)
            hooks_on += hook_times if on else []
            last = views.shown.text() if on and views.shown is not None else last
            measured[on] = (ours, base, hooks_on, computed + views.live.computed - before)
        for on in (True, False):
            ours, base, hooks_on, computed = measured[on]
            o, b = statistics.median(ours) * 1e3, statistics.median(base) * 1e3
            if on:
                hook = statistics.median(hooks_on) * 1e3
                label = (f"View → Clearance on ({computed} closest pairs for {len(ours)} frames; the hook "
                         f"median {hook:.2f} ms; last: {last})")
            else:
                label = "View → Clearance off"
            self.row(f"| slider change → rendered frame, PR2 with a holder on its gripper, Teleport, {label} "
                     f"| median {o:.1f} ms, best {min(ours) * 1e3:.1f} | bare re-render median {b:.1f} ms, "
                     f"best {min(base) * 1e3:.1f} | {o / b:.2f}× median |")
        bare.close()
        w.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=40, help="slider changes timed per row (default 40)")
    ap.add_argument("--write", type=Path, help="also write the rows to this Markdown file")
    args = ap.parse_args(argv)
    bench = ClearanceDriveBench()
    bench.header()
    bench.rows_for(args.runs)
    bench.row(f"(load average {os.getloadavg()[0]:.1f} at the end)")
    if args.write:
        args.write.write_text("\n".join(bench.rows) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
