"""The clearance check over a long trajectory, and in the initial pose on real robots.

Figures, each against a peer measured in the same run:
- ``clearance_along`` of the demo rig over 10,000 steps at 1 ms (the arm's shoulder, elbow and wrist swinging,
  the motor turning its holder and magnet at 1 Hz), every pair of its items. Goal: ≤ 10 s and ≥ 5× the peer.
- The peer: the collision library on every moving pair at every step (no bound), the plain per-step,
  per-pair loop (``per_step_minimum``), timed on ``--peer-steps`` steps and scaled.
- ``initial_clearance`` (a build and the check in the initial pose: what ``mime-gui validate`` adds) of Panda
  and PR2 with a magnet on the hand, warm (geometry cached, as on every edit after the first), against
  ``validate()`` (the rules) of the same rig.

    .venv/bin/python benchmarks/clearance.py [--steps N] [--peer-steps N] [--repeat R]
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
from pathlib import Path

from timing import best, drop_blas_overrides  # benchmarks/ is on the path of a script run from it

drop_blas_overrides()  # before numpy loads

import numpy as np  # noqa: E402

from mime_gui import RESOURCES  # noqa: E402
from mime_gui.rig import Apparatus, Arm, Cylinder, PermanentMagnet, load  # noqa: E402
from mime_gui.rig.clearance_check import clearance_along, initial_clearance, per_step_minimum  # noqa: E402
from mime_gui.rig.collision import clearance_model  # noqa: E402

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"
ROBOTS = {"Panda": ("panda_description/urdf/panda.urdf", "panda_hand"),
          "PR2": ("pr2_description/urdf/pr2.urdf", "r_gripper_palm_link")}


def _robots_dir() -> Path | None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from robot_data import ROBOTS as found

    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--peer-steps", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    built = load(DEMO_RIG).build()
    dt = 1e-3
    t = dt * np.arange(1, args.steps + 1)
    trajectory = built.play({"arm.joint_2": 0.6 * np.sin(0.5 * t), "arm.joint_3": 0.9 + 0.8 * np.sin(0.3 * t),
                             "arm.joint_5": 1.2 * np.sin(0.7 * t), "motor.shaft": 2 * math.pi * t}, dt)
    check = clearance_along(built, trajectory)  # warms the imports and the geometry
    t_check = best(lambda: clearance_along(built, trajectory), args.repeat)
    model = clearance_model(built)
    poses = np.asarray(trajectory.frame_poses)[:args.peer_steps]
    t_peer = best(lambda: per_step_minimum(model, poses), max(1, args.repeat // 2)) * args.steps / len(poses)
    minimum, _ = per_step_minimum(model, poses)
    agree = float(np.abs(minimum - check.minimum[:len(poses)]).max())

    rows = []
    robots = _robots_dir()
    for name, (relative, hand) in ROBOTS.items():
        if robots is None or not (robots / relative).is_file():
            continue
        magnet = PermanentMagnet(Cylinder(radius=0.005, length=0.01), material="NdFeB-N42",
                                 magnetisation=(0, 0, 1), at=(0.0, 0.0, 0.12), mount=f"arm.{hand}")
        rig = Apparatus("r", chain={"arm": Arm.Kinematic(description=str(robots / relative))},
                        magnets={"m1": magnet})
        cold = best(lambda rig=rig: initial_clearance(rig), 1)
        warm = best(lambda rig=rig: initial_clearance(rig), max(5, args.repeat))
        rules = best(rig.validate, max(5, args.repeat))
        m = clearance_model(rig.build())
        rows.append((name, len(m.bodies), len(m.moving), len(m.left_out), cold, warm, rules))

    load1 = os.getloadavg()[0]
    print(f"### Clearance benchmark — CPython {platform.python_version()}, numpy {np.__version__}, "
          f"{platform.machine()}, best of {args.repeat}, load average {load1:.1f}")
    print()
    print("| figure | ours | peer (same run) | ratio |")
    print("|---|---|---|---|")
    print(f"| `clearance_along`, demo rig, {len(model.bodies)} items, {len(model.moving)} moving pairs, "
          f"{args.steps:,} steps ({len(check.findings)} finding(s); goal ≤ 10 s and ≥ 5×) | "
          f"{t_check * 1e3:,.0f} ms | the library on every pair at every step {t_peer * 1e3:,.0f} ms "
          f"({len(poses)} steps timed, scaled; minima agree to {agree:.1g} m) | "
          f"{t_peer / t_check:.1f}× faster |")
    for name, bodies, moving, left, cold, warm, rules in rows:
        print(f"| `initial_clearance` (build + check in the initial pose), {name} with a magnet on the hand, "
              f"{bodies} items, {moving} moving pairs, {left} left out | {warm * 1e3:.1f} ms warm "
              f"({cold * 1e3:,.0f} ms on first use) | `validate()` (the rules) {rules * 1e3:.1f} ms | "
              f"{warm / rules:.1f}× the rules |")


if __name__ == "__main__":
    sys.exit(main())
