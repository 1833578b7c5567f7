"""Asking for a field: the time to the first checked candidate of a rotating target on the demo rig.

Figure (issue 30), against peers measured in the same run:
- ``plan`` of a field rotating about the world's z axis at 5 Hz at the demo's probe (|B| from 1 to 50 mT,
  ellipticity at least 0.5, 8 starts), then the best candidate turned into its trajectory and checked as
  played (``trajectory_to``, ``check_candidate``: its limits, zones, clearance, demand and the field's
  rotating summary over the spin). Goal: ≤ 10 s. The search's Jacobian is composed (the field's derivative
  with respect to the magnets' poses times the engine's frame Jacobians).
- The same search with the Jacobian by forward differences over the joints, every differenced pose (times
  the turn's 16) evaluated in one batched call: what the composed Jacobian replaces.
- The same search with every pose evaluated alone (the engine's forward kinematics and Magpylib called once
  per pose instead of once per batch): what the batching saves.
- The same for a fixed target read at a pose of the demo arm, 3 cm beside the magnet, with a gradient bound
  (the composed Jacobian then carries the gradient's own change), against forward differences.

    .venv/bin/python benchmarks/planner.py [--repeat R]
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import time

from timing import drop_blas_overrides  # benchmarks/ is on the path of a script run from it

drop_blas_overrides()  # before numpy loads

import numpy as np  # noqa: E402

from mime_gui import RESOURCES  # noqa: E402
from mime_gui.field import planner  # noqa: E402
from mime_gui.rig import Probe, load  # noqa: E402
from mime_gui.rig.targets import FieldTarget  # noqa: E402

TARGET = FieldTarget("probes.sample", axis=(0.0, 0.0, 1.0), frequency=5.0, tolerance=math.radians(10.0),
                     low=1e-3, high=50e-3, ellipticity=0.5)
#: a pose of the demo arm (rad) and its shaft, the flange turned down over the bench
KNOWN = np.array([0.35, 0.55, 0.45, 0.25, -0.6, 0.3, 0.4])
#: the forward differences' step of the peer (rad or m), as the search took before it was composed
STEP = 1e-5


def first_checked(built, target) -> tuple[float, object, object]:
    t0 = time.perf_counter()
    found = planner.plan(built, target, starts=8)
    for candidate in found.candidates:
        checked = planner.check_candidate(built, found, planner.trajectory_to(built, found, candidate))
        if checked.confirms:
            return time.perf_counter() - t0, found, checked
    return time.perf_counter() - t0, found, None


composed_of = planner._Residuals.of
batched_seen = planner._Space.seen


def differenced_of(self, X, jacobian=False):
    """The residuals' Jacobian by forward differences over the free joints, each pose's differenced poses
    in one batched evaluation (the search before its Jacobian was composed)."""
    if not jacobian:
        return composed_of(self, X)
    space = self.space
    free = space.free
    out = []
    for x in np.asarray(X, dtype=float):
        poses = np.repeat(x[None], len(free) + 1, axis=0)
        steps = np.where(x[free] + STEP <= space.upper[free], STEP, -STEP)
        poses[np.arange(1, len(free) + 1), free] += steps
        found = composed_of(self, poses)
        r0, c0, _ = found[0]
        J = np.stack([(found[k + 1][0] - r0) / steps[k] for k in range(len(free))], axis=1)
        out.append((r0, c0, J))
    return out


def one_by_one(self, X, jacobian=False):
    """Every pose evaluated alone: the engine and Magpylib called once per pose."""
    parts = [batched_seen(self, x[None], jacobian) for x in np.asarray(X, dtype=float)]
    fields = {}
    for name in planner.Seen.__dataclass_fields__:
        values = [getattr(p, name) for p in parts]
        fields[name] = None if values[0] is None else np.concatenate(values)
    return planner.Seen(**fields)


def timed(built, target, repeat, patch=None):
    saved = planner._Residuals.of, planner._Space.seen
    if patch is not None:
        setattr(*patch)
    try:
        runs = [first_checked(built, target) for _ in range(repeat)]
    finally:
        planner._Residuals.of, planner._Space.seen = saved
    return min(runs, key=lambda r: r[0])


def confirmed(checked, rotating: bool) -> str:
    if checked is None:
        return "none confirmed"
    if rotating:
        return f"confirmed as played: {checked.frequency:.4g} Hz, axis {math.degrees(checked.angle):.2f}° off"
    return (f"confirmed as played: {math.degrees(checked.angle):.2f}° off, gradient at most "
            f"{checked.gradient:.3g} T/m along it")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    rig = load(RESOURCES / "demo" / "demo.rig.json")
    demo = rig.build()
    # the fixed target: the field and the gradient read 3 cm beside the magnet at the known pose
    poses = demo.play(KNOWN[None], 1.0, servo_time_constant=0.0).frame_poses[0]
    point = poses[demo.frame_names.index("motor.part:m1"), :3, 3] + np.array([0.02, -0.01, -0.02])
    rig.probes = {**rig.probes, "dish": Probe(tuple(point))}
    bench = rig.build()
    seen = planner.target_field(bench, FieldTarget("probes.dish", direction=(0, 0, 1), max_gradient=1e6),
                                KNOWN[None], False)
    B, gradient = seen.B[0], float(np.linalg.norm(seen.G[0]))
    size = float(np.linalg.norm(B))
    fixed = FieldTarget("probes.dish", direction=tuple(B), tolerance=math.radians(3.0), low=0.95 * size,
                        high=1.05 * size, max_gradient=1.05 * gradient)

    first_checked(demo, TARGET)  # warms the compiled kernels, Magpylib and the clearance model
    rows = []
    ours = timed(demo, TARGET, args.repeat)
    differenced = timed(demo, TARGET, args.repeat, (planner._Residuals, "of", differenced_of))
    alone = timed(demo, TARGET, 1, (planner._Space, "seen", one_by_one))
    rows.append(("a rotating target (5 Hz about z, 1–50 mT, ellipticity ≥ 0.5)", ours, differenced, alone,
                 True))
    ours_fixed = timed(bench, fixed, args.repeat)
    differenced_fixed = timed(bench, fixed, args.repeat, (planner._Residuals, "of", differenced_of))
    rows.append((f"a fixed field read 3 cm beside the magnet (3°, |B| ± 5 %, gradient ≤ "
                 f"{1.05 * gradient:.3g} T/m)", ours_fixed, differenced_fixed, None, False))

    load1 = os.getloadavg()[0]
    print(f"### Planner benchmark — CPython {platform.python_version()}, numpy {np.__version__}, "
          f"{platform.machine()}, best of {args.repeat}, load average {load1:.1f}")
    print()
    print("| figure | ours (composed Jacobian) | peer (same run) | ratio |")
    print("|---|---|---|---|")
    for what, (t, found, checked), peer, slow, rotating in rows:
        head = (f"{what} on the demo rig: `plan` from 8 starts ({found.evaluations:,} poses, "
                f"{len(found.candidates)} candidates) to the first checked candidate "
                f"({confirmed(checked, rotating)}{'; goal ≤ 10 s' if rotating else ''})")
        pt, pfound, pchecked = peer
        print(f"| {head} | {t:.2f} s | Jacobian by forward differences, batched: {pt:.2f} s "
              f"({pfound.evaluations:,} poses, {len(pfound.candidates)} candidates, "
              f"{confirmed(pchecked, rotating)}) | {pt / t:.2f}× |")
        if slow is not None:
            st, sfound, _ = slow
            print(f"| the same | {t:.2f} s | every pose evaluated alone: {st:.2f} s ({sfound.evaluations:,} "
                  f"poses, {len(sfound.candidates)} candidates) | {st / t:.1f}× |")


if __name__ == "__main__":
    sys.exit(main())
