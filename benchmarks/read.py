"""Read + compile PR2 (82 links) without loading meshes, against yourdfpy's load of the same file, same run.

    .venv/bin/python benchmarks/read.py [--repeat N]

Both are timed interleaved (ours, theirs, ours, theirs …) so a busy machine slows both alike; the rows give
the minimum and the median of each and their ratios. Ours resolves every mesh URI to a file (every candidate
path kept for the warning; a stat per candidate in a folder that exists) and sorts every element into the
report; yourdfpy is told not to load meshes nor build its scene graph.
Budget: read + compile ≤ 50 ms.
"""

from __future__ import annotations

import argparse
import statistics
import time

from robots import robots_dir  # benchmarks/ is on the path of a script run from it

from mime_gui.multibody import read_urdf

BUDGET_MS = 50.0




def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=40)
    args = parser.parse_args(argv)
    robots = robots_dir()
    pr2 = robots / "pr2_description" / "urdf" / "pr2.urdf"

    def ours():
        read_urdf(pr2, package_dirs=[robots]).compile()

    runs = {"mime_gui read_urdf + compile": ours}
    try:
        import yourdfpy

        def theirs():
            yourdfpy.URDF.load(str(pr2), load_meshes=False, build_scene_graph=False,
                               load_collision_meshes=False, build_collision_scene_graph=False)

        runs["yourdfpy URDF.load (no meshes)"] = theirs
    except ImportError:
        yourdfpy = None
    # where our time goes (the same work, in phases)
    from mime_gui.multibody import urdf as _urdf

    data = pr2.read_bytes()
    tree0 = read_urdf(pr2, package_dirs=[robots])

    def phase_parse():
        _urdf._parse_xml(data, str(pr2))

    def phase_compile():
        tree0.compile()

    runs["  phase: XML parse + element lines"] = phase_parse
    runs["  phase: compile"] = phase_compile
    for f in runs.values():  # warm up imports and caches
        f()
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(args.repeat):
        for name, f in runs.items():
            t0 = time.perf_counter()
            f()
            times[name].append((time.perf_counter() - t0) * 1e3)

    tree = read_urdf(pr2, package_dirs=[robots])
    print(f"PR2: {len(tree.links)} links, {len(tree.joints)} joints, {pr2.stat().st_size} bytes; "
          f"{args.repeat} interleaved runs")
    print(f"{'':36} {'min ms':>8} {'median ms':>10}")
    for name, ts in times.items():
        print(f"{name:36} {min(ts):8.2f} {statistics.median(ts):10.2f}")
    ours_min, ours_med = min(times["mime_gui read_urdf + compile"]), statistics.median(
        times["mime_gui read_urdf + compile"])
    verdict = "within" if ours_med <= BUDGET_MS else "OVER"
    print(f"budget {BUDGET_MS:.0f} ms: median {ours_med:.2f} ms, {verdict} budget")
    if yourdfpy is not None:
        peer = times["yourdfpy URDF.load (no meshes)"]
        print(f"ratio mime_gui / yourdfpy: {ours_min / min(peer):.2f} (min), "
              f"{ours_med / statistics.median(peer):.2f} (median); below 1 is faster")
    return 0 if ours_med <= BUDGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
