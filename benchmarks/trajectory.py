"""A keyframe moved in the Trajectory dock, as a ratio against a bare PyVista re-render in the same run.

Run under a virtual X server::

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python benchmarks/trajectory.py [--runs 30]

Row (issue 26): re-rendering a 10 s, 100 Hz Panda trajectory after a keyframe moves. The MainWindow at
1400×900 with its default docks and the Trajectory dock in front, Panda opened, a trajectory of five quintic
keyframes over its seven arm joints (10 s); a keyframe's time moved (one ``ReplaceItem`` through
``Session.apply``, as the dock's table does) and timed until the dock has drawn the trajectory again (its
``render`` of 1,001 steps, its limit check and its curves) and the window's frame after the edit is done
(``glFinish``). The baseline is ``benchmarks/driving.py``'s bare ``QtInteractor`` of the 3D view's size
with the same meshes, poses and camera, timed alike.
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

READY = (0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785)


def panda_trajectory(names, shift: float = 0.0):
    from mime_gui.rig.trajectories import Keyframe, Trajectory

    keys = []
    for i, t in enumerate((0.0, 2.5 + shift, 5.0, 7.5, 10.0)):
        values = {n: float(np.degrees(q + 0.3 * np.sin(i + k)))
                  for k, (n, q) in enumerate(zip(names, READY, strict=True))}
        keys.append(Keyframe(t, values=values, interpolation="quintic"))
    return Trajectory({"panda": tuple(keys)}, "deg|m")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=30, help="keyframe moves timed (default 30)")
    args = ap.parse_args(argv)

    from mime_gui.rig import Apparatus, Arm
    from mime_gui.session import AddItem, ReplaceItem

    bench = Bench()
    w = bench.open_window(FILES["Panda"], detail=None)
    session = w.session
    # as a rig: trajectories live in the rig file
    rig = Apparatus("panda", chain={"panda": Arm.Dynamic(description=str(FILES["Panda"]))})
    session.open_apparatus(rig)
    while w.loading:
        bench.pump(0.02)
    names = session.command_names("panda")[:7]
    session.apply(AddItem("trajectories", "sweep", panda_trajectory(names)))
    dock = w.docks["TrajectoryDock"]
    dock.show()
    dock.raise_()
    dock.choose("sweep")
    bench.pump(0.5)
    bare = bench.bare_like(w.scene)
    ours, base = [], []
    for k in range(args.runs):
        shift = 0.5 if k % 2 == 0 else 0.0
        n0 = dock.renders
        t0 = time.perf_counter()
        session.apply(ReplaceItem("trajectories", "sweep", panda_trajectory(names, shift)))
        while dock.renders == n0:
            bench.app.processEvents()
        bench.app.processEvents()  # the window's frame of the edit
        finish(w.scene.plotter.ren_win)
        ours.append(time.perf_counter() - t0)
        bench.pump(0.05)
        base += bench.bare_render(bare, 1)
    o, b = statistics.median(ours) * 1e3, statistics.median(base) * 1e3
    bench.row(f"| a keyframe moved → the 10 s, 100 Hz Panda trajectory drawn again (and the edit's frame) | "
              f"median {o:.1f} ms, best {min(ours) * 1e3:.1f} | bare re-render median {b:.1f} ms, best "
              f"{min(base) * 1e3:.1f} | {o / b:.2f}× median |")
    bench.row(f"(load average {os.getloadavg()[0]:.1f} at the end)")
    bare.close()
    w.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
