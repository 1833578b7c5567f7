"""The keep-out zones' check over a long trajectory: ``zone_findings`` on 10,000 steps of the demo rig.

Figures, each against a peer measured in the same run:
- ``zone_findings`` of the demo rig (its motor turning its magnet at 1 Hz for 10 s at 1 ms steps) with four
  zones: a 2 cm ball 5 mm above the magnet on the stator (within reach of its field at every step, so every
  step is sampled), a box under the motor, a box where the operator stands and a ball on the arm's base.
  Goal: ≤ 2 s.
- The same check without the bound that clears steps without the field: every zone's surface points through
  Magpylib at every step (the per-step work the bound saves), timed on ``--peer-steps`` steps and scaled.

    .venv/bin/python benchmarks/zones.py [--steps N] [--peer-steps N] [--repeat R]
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys

from timing import best, drop_blas_overrides  # benchmarks/ is on the path of a script run from it

drop_blas_overrides()  # before numpy loads

import numpy as np  # noqa: E402

from mime_gui import RESOURCES  # noqa: E402
from mime_gui.field.along import field_at  # noqa: E402
from mime_gui.field.sources import magnet_sources  # noqa: E402
from mime_gui.field.zones import _zone_poses, surface_points, zone_findings  # noqa: E402
from mime_gui.rig import Zone, load  # noqa: E402

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"


def zoned_rig():
    rig = load(DEMO_RIG)
    rig.probes = {}
    rig.zones = {
        "coil": Zone((0.0, 0.0, 0.045), sphere=0.01, mount="motor.stator", limit=0.05,
                     reason="a pick-up coil 5 mm above the magnet"),
        "encoder": Zone((0.0, 0.0, -0.02), box=(0.04, 0.04, 0.01), mount="motor.stator", limit=0.005,
                        reason="the motor's magnetic encoder"),
        "operator": Zone((0.8, 0.0, 0.9), box=(0.4, 0.6, 1.8),
                         reason="where the operator stands; the 0.5 mT line"),
        "base": Zone((0.0, 0.0, 0.05), sphere=0.08, reason="the arm's base electronics"),
    }
    assert rig.validate() == [], rig.validate()
    return rig


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--peer-steps", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    built = zoned_rig().build()
    dt = 1e-3
    trajectory = built.play({"motor.shaft": 2 * math.pi * dt * np.arange(1, args.steps + 1)}, dt)
    check = zone_findings(built, trajectory)  # warms Magpylib's import and caches
    t_check = best(lambda: zone_findings(built, trajectory), args.repeat)

    magnets = magnet_sources(built)
    frame_poses = np.asarray(trajectory.frame_poses)[:args.peer_steps]
    X = np.stack([m.poses(frame_poses) for m in magnets], axis=1)
    W = _zone_poses(built, built.apparatus.zones, frame_poses)

    def every_point():
        for z, zone in enumerate(built.apparatus.zones.values()):
            local = surface_points(zone)
            points = np.einsum("tij,pj->tpi", W[:, z, :3, :3], local) + W[:, z, None, :3, 3]
            field_at(magnets, X, points)

    t_peer = best(every_point, max(1, args.repeat // 2)) * args.steps / len(frame_poses)
    load1 = os.getloadavg()[0]
    sampled = int(check.sampled.sum())
    print(f"### Keep-out zones benchmark — CPython {platform.python_version()}, numpy {np.__version__}, "
          f"{platform.machine()}, best of {args.repeat}, load average {load1:.1f}")
    print()
    print("| figure | ours | peer (same run) | ratio |")
    print("|---|---|---|---|")
    print(f"| `zone_findings`, demo rig, 4 zones, {args.steps:,} steps ({sampled:,} zone-steps sampled, "
          f"{len(check.findings)} zone(s) breached; goal ≤ 2 s) | {t_check * 1e3:,.0f} ms | every zone's "
          f"surface through Magpylib at every step {t_peer * 1e3:,.0f} ms ({len(frame_poses)} steps timed, "
          f"scaled) | {t_peer / t_check:.1f}× faster |")


if __name__ == "__main__":
    sys.exit(main())
