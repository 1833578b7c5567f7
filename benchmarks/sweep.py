"""A design sweep: 200 variants of the demo rig, each played over 1,000 steps, on one and two local worker
processes and on a two-worker Dask LocalCluster.

Figures, each against a peer measured in the same run:
- ``run_sweep`` of the demo rig varying the holder's offset on the rotor (``parts.holder.at.2``, 20 values)
  and the magnet's radius (``magnets.m1.geometry.radius``, 10 values), each variant validated, built, played
  along the demo's command file at 4 ms steps (1,000 steps) and given its field at the probe, its peak joint
  torques and its clearance: two local worker processes against one (goal ≥ 1.7×), wall time from the first
  variant handed out to the table written, the workers' start included. This process evaluates one variant
  first, so the workers of both runs fork from a process that has loaded the field's library and the
  compiled kernels (as the first variant of every local sweep does).
- The same sweep on a Dask ``LocalCluster`` of two single-threaded worker processes (started and warmed by
  one variant each before the timing, as a running cluster is), and the tables of the three runs compared
  byte for byte.

The machine's load average is printed, and beside it the ratio the machine gives two processes of equal
pure-Python work in the same run: its two cores are shared, and another process's load shows in both.

    .venv/bin/python benchmarks/sweep.py [--offsets N] [--radii N] [--dt S] [--repeat R] [--no-dask]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

from timing import drop_blas_overrides  # benchmarks/ is on the path of a script run from it

drop_blas_overrides()  # before numpy loads

import numpy as np  # noqa: E402

from mime_gui import RESOURCES  # noqa: E402
from mime_gui.nodes import read_commands  # noqa: E402
from mime_gui.rig import load  # noqa: E402
from mime_gui.rig.playback import RigPlayable  # noqa: E402
from mime_gui.sweep import LocalExecutor, make_job, parse_all, run_sweep, variants  # noqa: E402
from mime_gui.sweep.evaluation import evaluate  # noqa: E402

DEMO = RESOURCES / "demo"


def spin(n: int) -> int:
    """Pure Python work of a fixed size: what the machine's cores give two processes right now."""
    total = 0
    for i in range(n):
        total += i * i % 7
    return total


def cores_ratio(tasks: int = 8, size: int = 3_000_000) -> float:
    """The wall time of ``tasks`` equal pieces of work on one process over that on two."""
    from concurrent.futures import ProcessPoolExecutor

    times = []
    for workers in (1, 2):
        with ProcessPoolExecutor(workers) as pool:
            list(pool.map(spin, [10] * workers))  # the processes started
            started = time.perf_counter()
            list(pool.map(spin, [size] * tasks))
            times.append(time.perf_counter() - started)
    return times[0] / times[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--offsets", type=int, default=20)
    parser.add_argument("--radii", type=int, default=10)
    parser.add_argument("--dt", type=float, default=0.004)
    parser.add_argument("--repeat", type=int, default=2, help="runs of each, the best kept")
    parser.add_argument("--no-dask", action="store_true")
    args = parser.parse_args()

    path = DEMO / "demo.rig.json"
    rig = load(path)
    varies = parse_all([f"parts.holder.at.2=0.008:0.012:{args.offsets}",
                        f"magnets.m1.geometry.radius=0.004:0.006:{args.radii}"], rig)
    recorded = read_commands(DEMO / "chain.csv")
    steps = RigPlayable(rig.build()).schedule(recorded, args.dt).steps
    job = make_job(rig_text=path.read_text(encoding="utf-8"), rig_file=str(path), base=str(DEMO),
                   varies=varies, recorded=recorded, dt=args.dt)
    n = args.offsets * args.radii
    loads = [os.getloadavg()[0]]
    folder = Path(tempfile.mkdtemp(prefix="sweep-bench-"))

    def timed(executor, name):
        out = folder / f"{name}.csv"
        out.unlink(missing_ok=True)
        started = time.perf_counter()
        result = run_sweep(job, out, executor)
        elapsed = time.perf_counter() - started
        loads.append(os.getloadavg()[0])
        assert result.computed == n and result.with_findings == 0, result
        return elapsed, out.read_bytes()

    first = next(variants(job.varies))
    evaluate(job, first)  # this process warm (the field's library, the kernels): both local runs fork from it
    runs = [(timed(LocalExecutor(1), "one"), timed(LocalExecutor(2), "two")) for _ in range(args.repeat)]
    one, table_one = min(r[0] for r in runs)
    two, table_two = min(r[1] for r in runs)
    dask = None
    if not args.no_dask:
        from distributed import LocalCluster

        from mime_gui.sweep import DaskExecutor

        started = time.perf_counter()
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
        with cluster:
            up = time.perf_counter() - started
            runner = DaskExecutor(cluster.scheduler_address)
            runner.client.run(evaluate, job, first)  # every worker warm, as the local ones are
            dask, table_dask = min(timed(runner, "dask") for _ in range(args.repeat))
            runner.close()
    machine = cores_ratio()
    loads.append(os.getloadavg()[0])
    same = table_one == table_two and (dask is None or table_dask == table_two)
    print(f"### Sweep benchmark — CPython {platform.python_version()}, numpy {np.__version__}, "
          f"{platform.machine()}, {os.cpu_count()} cores, best of {args.repeat}, load average "
          f"{min(loads):.1f}–{max(loads):.1f}")
    print()
    print("| figure | ours | peer (same run) | ratio |")
    print("|---|---|---|---|")
    print(f"| `run_sweep`, demo rig, {n} variants ({args.offsets} holder offsets x {args.radii} magnet "
          f"radii) x {steps:,} steps, 2 local worker processes (goal ≥ 1.7× one) | {two:.1f} s "
          f"({two / n * 1e3:.0f} ms a variant) | 1 local worker process {one:.1f} s "
          f"({one / n * 1e3:.0f} ms a variant) | {one / two:.2f}× |")
    if dask is not None:
        print(f"| the same on a Dask `LocalCluster`, 2 worker processes of 1 thread (started in {up:.1f} s, "
              f"before the timing) | {dask:.1f} s | 2 local worker processes {two:.1f} s | "
              f"{two / dask:.2f}× |")
    print(f"| what the machine gives two processes now: equal pure-Python work on 2 processes against 1 "
          f"(the best ratio a sweep could reach in this run) | | | {machine:.2f}× |")
    print()
    print(f"The tables of the runs are {'the same, byte for byte' if same else 'NOT the same'}.")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
