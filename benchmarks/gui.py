"""GUI figures for the 3D view, as ratios against a bare PyVista baseline measured in the same run.

Run under a virtual X server::

    xvfb-run -a .venv/bin/python benchmarks/gui.py [--write docs/performance-gui.md]

Rows:

- open → first rendered frame with meshes (PR2, Panda): ``read_urdf`` + ``SceneView.show_segments`` (meshes on
  the loader thread, as in the app) until the first frame with every mesh, against yourdfpy's load with meshes
  plus a bare PyVista ``QtInteractor`` adding the same meshes and rendering once;
- one pose update of every link: set q → ``frame_poses`` (engine) → user matrices → render, split in three,
  against a bare re-render of the same meshes in a bare ``QtInteractor``;
- display detail: the render time of Panda under a few face budgets, and frames per second.

Both views are 1000×700, no MSAA, in the same process; render times end with ``glFinish`` so the software
rasteriser's work is counted. Medians of repeated runs.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PYVER = f"python{sys.version_info.major}.{sys.version_info.minor}"
ROBOTS = (Path(sys.prefix) / "lib" / PYVER / "site-packages" / "cmeel.prefix" / "share" / "example-robot-data"
          / "robots")
FILES = {"PR2": ROBOTS / "pr2_description/urdf/pr2.urdf",
         "Panda": ROBOTS / "panda_description/urdf/panda.urdf"}
SIZE = (1000, 700)
BUDGETS = (None, 100_000, 50_000, 30_000)


def _finish(ren_win) -> None:
    ren_win.WaitForCompletion()


class Bench:
    def __init__(self):
        from PySide6.QtWidgets import QApplication

        self.app = QApplication.instance() or QApplication(sys.argv)
        self.rows: list[str] = []

    def pump(self, seconds: float = 0.0) -> None:
        end = time.perf_counter() + seconds
        while True:
            self.app.processEvents()
            if time.perf_counter() >= end:
                break
            time.sleep(0.002)

    def window(self, widget):
        from PySide6.QtWidgets import QMainWindow

        win = QMainWindow()
        win.setCentralWidget(widget)
        win.resize(*SIZE)
        win.show()
        self.pump(0.2)
        return win

    def row(self, text: str) -> None:
        print(text, flush=True)
        self.rows.append(text)

    # -- baseline: yourdfpy + bare PyVista --------------------------------------------------------
    def bare_open(self, path: Path):
        import pyvista as pv
        import yourdfpy
        from pyvistaqt import QtInteractor

        plotter = QtInteractor(auto_update=False, multi_samples=0)  # the widget exists before the clock
        win = self.window(plotter)
        t0 = time.perf_counter()
        urdf = yourdfpy.URDF.load(str(path), build_scene_graph=True, load_meshes=True)
        t1 = time.perf_counter()
        scene = urdf.scene
        for node in scene.graph.nodes_geometry:
            transform, name = scene.graph[node]
            actor = plotter.add_mesh(pv.wrap(scene.geometry[name]), color="lightgrey",
                                     reset_camera=False)
            actor.user_matrix = transform
        plotter.reset_camera()
        plotter.render()
        _finish(plotter.ren_win)
        t2 = time.perf_counter()
        return plotter, win, t2 - t0, t1 - t0

    # -- ours --------------------------------------------------------------------------------------
    def our_open(self, path: Path):
        from mime_gui.app.scene import meshes
        from mime_gui.app.scene.view import SceneView
        from mime_gui.multibody import read_urdf

        meshes.clear_cache()
        view = SceneView(async_meshes=True)
        win = self.window(view)
        done = []
        view.meshes_loaded.connect(lambda problems: done.append(problems))
        t0 = time.perf_counter()
        tree = read_urdf(path, package_dirs=[ROBOTS])
        view.show_segments({path.stem: tree})
        while not done:
            self.app.processEvents()
            time.sleep(0.0005)
        view.render_now()
        _finish(view.plotter.ren_win)
        t1 = time.perf_counter()
        return view, win, tree, t1 - t0

    def open_rows(self) -> None:
        for name, path in FILES.items():
            for f in path.parent.parent.rglob("*"):  # the same warm file cache for both
                if f.is_file():
                    f.read_bytes()
            ours, bare = [], []
            for _ in range(2):
                plotter, win, t_bare, _ = self.bare_open(path)
                plotter.close()
                win.close()
                bare.append(t_bare)
                view, win, _, t_ours = self.our_open(path)
                view.close()
                win.close()
                ours.append(t_ours)
                self.pump(0.05)
            o, b = min(ours), min(bare)
            self.row(f"| open → first frame with meshes, {name} | {o:.2f} s | {b:.2f} s "
                     f"(yourdfpy + bare PyVista) | {o / b:.2f}× |")

    def pose_rows(self) -> None:
        import pyvista as pv
        from pyvistaqt import QtInteractor

        from mime_gui.multibody import frame_poses

        for name, path in FILES.items():
            view, win, tree, _ = self.our_open(path)
            art = tree.compile()
            rng = np.random.default_rng(0)
            lo = np.where(np.isfinite(art.lower), art.lower, -np.pi)
            hi = np.where(np.isfinite(art.upper), art.upper, np.pi)
            seg = path.stem
            # bare: the same display meshes in a bare QtInteractor at the same pose and camera
            bare_plotter = QtInteractor(auto_update=False, multi_samples=0)
            bare_win = self.window(bare_plotter)
            for actor in view.actors(seg, "visual"):
                data = pv.wrap(actor.GetMapper().GetInput())
                a = bare_plotter.add_mesh(data, color="lightgrey", reset_camera=False)
                a.user_matrix = actor.user_matrix
            bare_plotter.camera_position = view.plotter.camera_position
            engine, matrices, render, bare = [], [], [], []
            for _ in range(40):  # interleaved, so other load on the machine hits both alike
                q = rng.uniform(lo, hi)
                t0 = time.perf_counter()
                poses = frame_poses(art, q)
                t1 = time.perf_counter()
                view.set_frame_poses(seg, poses)
                t2 = time.perf_counter()
                view.render_now()
                _finish(view.plotter.ren_win)
                t3 = time.perf_counter()
                engine.append(t1 - t0)
                matrices.append(t2 - t1)
                render.append(t3 - t2)
                self.app.processEvents()
                t0 = time.perf_counter()
                bare_plotter.render()
                _finish(bare_plotter.ren_win)
                bare.append(time.perf_counter() - t0)
                self.app.processEvents()
            e, m, r, b = (statistics.median(x) * 1e3 for x in (engine, matrices, render, bare))
            total = e + m + r
            best = min(np.add(np.add(engine, matrices), render)) * 1e3
            best_bare = min(bare) * 1e3
            n_actors = sum(view.actor_counts().values())
            self.row(f"| pose update of every link, {name} ({art.nframes} frames, {n_actors} actors) | "
                     f"median {total:.1f} ms = engine {e:.2f} + matrices {m:.2f} + render {r:.1f}; "
                     f"best {best:.1f} | "
                     f"bare re-render median {b:.1f} ms, best {best_bare:.1f} | {total / b:.2f}× median, "
                     f"{best / best_bare:.2f}× best (non-render {e + m:.2f} ms) |")
            if name == "Panda":
                self.detail_rows(view, seg, bare_plotter)
            bare_plotter.close()
            bare_win.close()
            view.close()
            win.close()

    def detail_rows(self, view, seg, bare_plotter) -> None:
        for budget in BUDGETS:
            t0 = time.perf_counter()
            view.set_display_detail(budget)
            t_set = time.perf_counter() - t0
            times, bare = [], []
            for _ in range(30):
                t0 = time.perf_counter()
                view.render_now()
                _finish(view.plotter.ren_win)
                times.append(time.perf_counter() - t0)
                self.app.processEvents()
                t0 = time.perf_counter()
                bare_plotter.render()
                _finish(bare_plotter.ren_win)
                bare.append(time.perf_counter() - t0)
                self.app.processEvents()
            r, b = statistics.median(times) * 1e3, statistics.median(bare) * 1e3
            full, shown = view.triangle_counts()
            label = "full" if budget is None else f"budget {budget:,}"
            self.row(f"| display detail, Panda, {label} | {shown:,} of {full:,} faces: "
                     f"render median {r:.1f} ms "
                     f"= {1e3 / r:.0f} fps, best {min(times) * 1e3:.1f} ms (setting took {t_set:.2f} s) | "
                     f"bare full detail {b:.1f} ms = {1e3 / b:.0f} fps | {r / b:.2f}× |")
        view.set_display_detail(None)

    def header(self) -> None:
        from mime_gui.app.scene.view import SceneView

        view = SceneView()
        win = self.window(view)
        view.render_now()
        gl = view.gl_renderer
        aa = view.antialiasing()
        view.close()
        win.close()
        self.row(f"GL renderer: {gl}; anti-aliasing by default: {'on' if aa else 'off'}; "
                 f"{os.cpu_count()} cores; {platform.python_version()}; window {SIZE[0]}×{SIZE[1]}, no MSAA")
        self.row("")
        self.row("| figure | ours | baseline (same run) | ratio |")
        self.row("|---|---|---|---|")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", type=Path, help="also write the rows to this Markdown file")
    args = parser.parse_args(argv)
    if not ROBOTS.is_dir():
        print("example-robot-data is not installed: pip install --no-deps example-robot-data",
              file=sys.stderr)
        return 2
    bench = Bench()
    bench.header()
    bench.open_rows()
    bench.pose_rows()
    if args.write:
        text = ("# GUI performance (3D view)\n\n"
                "Measured by `xvfb-run -a python benchmarks/gui.py` on this machine, each figure against a "
                "bare PyVista baseline in the same run.\n\n" + "\n".join(bench.rows) + "\n")
        args.write.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
