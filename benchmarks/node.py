"""KinematicArmNode.play on Panda: 10,000 steps, every frame's pose and angular velocity.

Targets (issue 4): ≤ 20 ms, peak memory ≤ 2× the output arrays. Peers measured in the same run:
- a per-step Python loop of ``advance`` (what playback would cost without the batched path);
- the batched engine alone (``frame_poses`` + ``frame_angular_velocities`` on the same joint positions),
  the floor the node's own work sits on.

    .venv/bin/python benchmarks/node.py [--steps N] [--repeat R]
"""

from __future__ import annotations

import argparse
import platform
import tracemalloc

import numpy as np
from robots import panda_urdf  # benchmarks/ is on the path of a script run from it
from timing import best

from mime_gui.multibody import frame_angular_velocities, frame_poses, read_urdf
from mime_gui.nodes import KinematicArmNode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--loop-steps", type=int, default=None,
                        help="steps of the per-step advance loop, its time scaled to --steps (default: all)")
    args = parser.parse_args()

    art = read_urdf(panda_urdf()).compile()
    node = KinematicArmNode(art, servo_time_constant=0.02)
    dt, T = 1e-3, args.steps
    t = dt * np.arange(T)
    rng = np.random.default_rng(0)
    phase = rng.uniform(0, 2 * np.pi, node.ncommands)
    mid = np.where(np.isfinite(node.lower + node.upper), (node.lower + node.upper) / 2, 0.0)
    half = np.where(np.isfinite(node.upper - node.lower), (node.upper - node.lower) / 2, 1.0)
    cmd_index = [art.joint_index(n) for n in node.command_names]
    commands = mid[cmd_index] + 1.1 * half[cmd_index] * np.sin(2 * np.pi * 0.5 * t[:, None] + phase)

    def play():
        return node.play(commands, dt)

    traj = play()
    output = traj.joint_positions.nbytes + traj.frame_poses.nbytes + traj.frame_angular_velocities.nbytes
    t_play = best(play, args.repeat)

    q = traj.joint_positions
    v = np.diff(np.concatenate([node.initial_state().joint_positions[None], q]), axis=0) / dt
    t_engine = best(lambda: (frame_poses(art, q), frame_angular_velocities(art, q, v)), args.repeat)

    n_loop = T if args.loop_steps is None else min(args.loop_steps, T)

    def loop():
        state = node.initial_state()
        for n in range(n_loop):
            state = node.advance(state, commands[n], dt)
        return state

    t_loop = best(loop, 1) * T / n_loop

    del traj
    tracemalloc.start()
    kept = play()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del kept

    rows = [
        ("node.play, 10k steps, Panda (13 frames)" if T == 10_000 else f"node.play, {T} steps, Panda",
         f"{t_play * 1e3:.1f} ms", "target ≤ 20 ms"),
        ("the engine's two public calls on the same batch (frame_poses + frame_angular_velocities)",
         f"{t_engine * 1e3:.1f} ms", f"play / engine = {t_play / t_engine:.2f}"),
        (f"per-step Python loop of advance ({n_loop} steps" + (f", scaled to {T})" if n_loop < T else ")"),
         f"{t_loop * 1e3:.0f} ms", f"loop / play = {t_loop / t_play:.0f}×"),
        ("peak traced memory of play / output arrays",
         f"{peak / 2**20:.1f} MiB / {output / 2**20:.1f} MiB", f"ratio {peak / output:.2f} (target ≤ 2)"),
    ]
    print(f"# KinematicArmNode benchmark — {platform.python_implementation()} {platform.python_version()}, "
          f"numpy {np.__version__}, {platform.machine()}, best of {args.repeat}")
    print()
    print("| measure | value | comparison |")
    print("| --- | --- | --- |")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
