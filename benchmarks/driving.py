"""Driving figures in the app's own window, as ratios against a bare PyVista re-render in the same run.

Run under a virtual X server::

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python benchmarks/driving.py [--minutes 5] [--write F]

Rows (the MainWindow at 1400×900 with every dock, as a user opens it; the bare baseline is a ``QtInteractor``
of the same size as our 3D view showing the same meshes at the same poses and camera, PyVista's defaults).
A frame is timed the same way for both: ``render()``, then the event-loop turn that paints the widget, then
``glFinish``. The bare ``QtInteractor`` draws the scene a second time in its ``paintGL``, as pyvistaqt does;
ours copies the frame it rendered (``mime_gui/app/scene/interactor.py``).

- slider change → rendered frame (PR2, Panda, and UR5, a light arm): a joint slider moved
  (``QSlider.setValue``, as a drag does) until the render that shows it has finished (``glFinish``), with
  Teleport (the pose at once) and through the servo (the next clock tick, up to 16 ms later, takes the
  lagged step); against a bare re-render;
- sustained playback at 1×: frames rendered per second over 8 s of looped playback (PR2 at full detail;
  Panda with the display-detail setting on Auto), against the bare re-render's frames per second;
- 10× playback: the largest distance between the row shown and the wall clock's row, rows shown and skipped;
- memory: RSS after 10 s and at the end of every minute of ``--minutes`` of looped playback (PR2) and of live
  slider driving with the plots open (PR2, three sliders moved 60 times a second through the servo), each in
  a fresh process.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from robots import robots_dir  # noqa: E402  (benchmarks/ is on the path of a script run from it)
from window import QtBench, finish  # noqa: E402

ROBOTS = robots_dir()
FILES = {"PR2": ROBOTS / "pr2_description/urdf/pr2.urdf",
         "Panda": ROBOTS / "panda_description/urdf/panda.urdf",
         # a light arm: its frame is cheap, so what the docks do per change is what the user waits for
         "UR5": ROBOTS / "ur_description/urdf/ur5_robot.urdf"}


def rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


class Bench(QtBench):
    pump_sleep = 0.001

    def __init__(self):
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="mime-driving-"))

    # -- windows -----------------------------------------------------------------------------------------
    def open_window(self, path: Path, detail="auto"):
        from mime_gui.app.main_window import MainWindow
        from mime_gui.session import Session

        w = MainWindow(Session(), restore=False)
        w.resize(1400, 900)
        w.show()
        w.activateWindow()
        self.pump(0.3)
        w.scene.set_display_detail(detail)
        assert w.open_file(str(path))
        while w.loading:
            self.pump(0.02)
        self.pump(0.5)
        return w

    def bare_like(self, view):
        """A bare QtInteractor of the view's size with the meshes the view draws, at the same poses."""
        import pyvista as pv
        from pyvistaqt import QtInteractor

        plotter = QtInteractor(auto_update=False, multi_samples=0)
        plotter.resize(view.size())
        plotter.show()
        for seg in view.segment_names():
            for actor in view.actors(seg, "visual"):
                if not actor.GetVisibility():
                    continue
                a = plotter.add_mesh(pv.wrap(actor.GetMapper().GetInput()), color="lightgrey",
                                     reset_camera=False)
                a.user_matrix = actor.user_matrix
        plotter.camera_position = view.plotter.camera_position
        self.pump(0.3)
        return plotter

    def bare_render(self, plotter, runs: int = 30) -> list[float]:
        """Frames of the bare scene: render, paint the widget, finish."""
        out = []
        for _ in range(runs):
            t0 = time.perf_counter()
            plotter.render()
            self.app.processEvents()
            finish(plotter.ren_win)
            out.append(time.perf_counter() - t0)
        return out

    def commands(self, window, seconds: float, name: str) -> Path:
        """A smooth command file for the first 16 commanded joints (100 Hz)."""
        session = window.session
        seg = next(iter(session.segments))
        names = session.command_names(seg)[:16]
        t = np.arange(int(seconds * 100) + 1) * 0.01
        q = 0.5 * np.sin(t[:, None] * (0.5 + 0.1 * np.arange(len(names))))
        path = self.tmp / f"{name}.npz"
        np.savez(path, time=t, joint_positions=q, joint_names=np.array(names))
        return path

    # -- rows ------------------------------------------------------------------------------------------------
    def slider_rows(self, name: str) -> None:
        w = self.open_window(FILES[name], detail=None)
        sliders, scene = w.driving.sliders, w.scene
        row = next(r for r in sliders.rows if not r.wraps and r.upper - r.lower > 0.5)
        bare = self.bare_like(scene)
        for mode in ("teleport", "servo"):
            seg = row.segment
            if mode == "servo":
                sliders.servo[seg].setValue(0.05)  # an edit of the rig: the arm lags its commands
            if sliders.teleport.isChecked() != (mode == "teleport"):
                sliders.teleport.click()
            self.pump(0.5)
            ours, base = [], []
            for k in range(40):
                position = 600 + (k % 2) * 800
                n0 = scene.render_count
                t0 = time.perf_counter()
                row.slider.setValue(position)
                while scene.render_count == n0:
                    self.app.processEvents()
                self.app.processEvents()  # the widget's paint
                finish(scene.plotter.ren_win)
                ours.append(time.perf_counter() - t0)
                self.pump(0.03)
                base += self.bare_render(bare, 1)
            o, b = statistics.median(ours) * 1e3, statistics.median(base) * 1e3
            label = "Teleport (pose at once)" if mode == "teleport" else "through the servo (τ 0.05 s)"
            self.row(f"| slider change → rendered frame, {name}, {label} | median {o:.1f} ms, best "
                     f"{min(ours) * 1e3:.1f} | bare re-render median {b:.1f} ms, best "
                     f"{min(base) * 1e3:.1f} | {o / b:.2f}× median |")
        bare.close()
        w.close()

    def playback_rows(self, name: str, detail) -> None:
        w = self.open_window(FILES[name], detail=None)
        bare = self.bare_like(w.scene)  # full detail
        self.bare_render(bare, 3)
        t0 = time.perf_counter()
        frames = 0
        while time.perf_counter() - t0 < 4.0:  # sustained, as ours below
            self.bare_render(bare, 1)
            frames += 1
        bare_fps = frames / (time.perf_counter() - t0)
        w.scene.set_display_detail(detail)
        self.pump(1.0)
        driving = w.driving
        assert driving.player.open_file(str(self.commands(w, 20.0, name)))
        player = driving.transport.player
        player.loop = True
        renders = w.scene.render_count
        driving.transport.play()
        t0 = time.perf_counter()
        self.pump(8.0)
        seconds = time.perf_counter() - t0
        driving.transport.pause()
        frames = w.scene.render_count - renders
        fps = frames / seconds
        label = "full detail" if detail is None else f"display detail {detail} " \
            f"({w.scene.detail_summary() or 'full'})"
        self.row(f"| sustained playback at 1×, {name}, {label} | {fps:.1f} rendered frames/s ({player.shown} "
                 f"rows shown, {player.dropped} skipped at 100 rows/s) | bare re-render at full detail "
                 f"{bare_fps:.1f} frames/s | {fps / bare_fps:.2f}× |")
        bare.close()
        w.close()

    def wallclock_row(self) -> None:
        w = self.open_window(FILES["PR2"], detail=None)
        driving = w.driving
        assert driving.player.open_file(str(self.commands(w, 60.0, "pr2-10x")))
        player = driving.transport.player
        player.set_rate(10.0)
        seen = []
        driving.transport.playhead_changed.connect(lambda r: seen.append((time.perf_counter(), r)))
        renders = w.scene.render_count
        driving.transport.play()
        wall0, p0 = player._anchor
        while player.playing:
            self.pump(0.05)
        seconds = time.perf_counter() - wall0
        frames = w.scene.render_count - renders
        moving = [(t, r) for t, r in seen if r < player.rows - 1]
        worst = max(abs(r * player.dt - (p0 + 10 * (t - wall0))) for t, r in moving)
        self.row(f"| 10× playback, PR2, 60 s of trajectory | ended after {seconds:.2f} s of wall time (6.00 "
                 f"expected); worst distance from the wall clock {worst * 1e3:.0f} ms of trajectory "
                 f"({worst / 10 * 1e3:.1f} ms of wall time) | {frames} frames rendered, {player.shown} rows "
                 f"shown, {player.dropped} skipped | on the wall clock |")
        w.close()

    def _watch(self, minutes: float) -> tuple[float, list[float]]:
        """RSS after 10 s of warm-up, then at the end of every minute."""
        self.pump(10.0)
        start, marks = rss_mb(), []
        for _ in range(int(round(minutes))):
            self.pump(60.0)
            marks.append(rss_mb())
        return start, marks

    @staticmethod
    def _rss(start: float, marks: list[float]) -> str:
        if not marks:  # a run shorter than a minute (the suite's smoke run)
            return f"RSS {start:.0f} MB after 10 s; no whole minute run"
        return (f"RSS {start:.0f} MB after 10 s; each minute {', '.join(f'{m:.0f}' for m in marks)} MB "
                f"({marks[-1] - start:+.1f} MB)")

    def memory_row(self, kind: str, minutes: float) -> None:
        """One memory run in this (fresh) process: ``playback`` or ``live``."""
        from PySide6.QtCore import QTimer

        w = self.open_window(FILES["PR2"], detail=None)
        driving = w.driving
        if kind == "playback":
            assert driving.player.open_file(str(self.commands(w, 30.0, "pr2-loop")))
            driving.transport.player.loop = True
            driving.transport.play()
            start, marks = self._watch(minutes)
            player = driving.transport.player
            self.row(f"| memory, {minutes:g} min of looped playback, PR2 (30 s file) | "
                     f"{self._rss(start, marks)} | {player.shown} rows shown, {player.dropped} skipped | |")
            return
        rows = [r for r in driving.sliders.rows if not r.wraps][:3]
        driving.sliders.servo[rows[0].segment].setValue(0.1)
        driving.plots.set_joints([(r.segment, r.joint) for r in rows])
        t0 = time.perf_counter()

        def move():
            t = time.perf_counter() - t0
            for k, r in enumerate(rows):
                r.slider.setValue(int(1000 + 800 * np.sin(t * (1 + k))))

        timer = QTimer()
        timer.timeout.connect(move)
        timer.start(16)
        redraws = driving.plots.redraws
        start, marks = self._watch(minutes)
        timer.stop()
        self.row(f"| memory, {minutes:g} min of live slider driving with the plots open, PR2 | "
                 f"{self._rss(start, marks)} | {driving.plots.redraws - redraws} plot redraws, ring of "
                 f"{len(driving.plots._samples.t)} samples | |")

    def header(self) -> None:
        w = self.open_window(FILES["PR2"], detail=None)
        gl, size = w.scene.gl_renderer, w.scene.size()
        w.close()
        self.row(f"GL renderer: {gl}; {os.cpu_count()} cores; Python {platform.python_version()}; window "
                 f"1400×900, 3D view {size.width()}×{size.height()}; load average "
                 f"{os.getloadavg()[0]:.1f} at the start")
        self.row("")
        self.row("| figure | ours | baseline (same run) | ratio |")
        self.row("|---|---|---|---|")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=5.0, help="length of each memory run (default 5)")
    parser.add_argument("--skip-memory", action="store_true", help="leave out the memory rows")
    parser.add_argument("--sliders-only", action="store_true", help="only the slider rows (PR2, Panda, UR5)")
    parser.add_argument("--write", type=Path, help="also write the rows to this Markdown file")
    parser.add_argument("--memory-run", choices=("playback", "live"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.memory_run:  # one memory run in a fresh process (no earlier window's memory in it)
        Bench().memory_row(args.memory_run, args.minutes)
        return 0
    bench = Bench()
    bench.header()
    for name in ("PR2", "Panda", "UR5"):
        bench.slider_rows(name)
    if args.sliders_only:
        bench.row(f"(load average {os.getloadavg()[0]:.1f} at the end)")
        return 0
    bench.playback_rows("PR2", None)
    bench.playback_rows("Panda", "auto")
    bench.wallclock_row()
    if not args.skip_memory:
        for kind in ("playback", "live"):
            command = [sys.executable, __file__, "--memory-run", kind, "--minutes", str(args.minutes)]
            proc = subprocess.run(command, capture_output=True, text=True)
            rows = [line for line in proc.stdout.splitlines() if line.startswith("| memory")]
            bench.row(rows[-1] if rows else f"| memory, {kind} | failed: {proc.stderr.strip()[-300:]} | | |")
    bench.row(f"(load average {os.getloadavg()[0]:.1f} at the end)")
    if args.write:
        args.write.write_text("\n".join(bench.rows) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
