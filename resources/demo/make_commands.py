"""Regenerate the demo's example command files (wave.csv, pick.npz, reach_deg.csv for the arm; chain.csv for
the whole demo rig).

    python resources/demo/make_commands.py

Joint limits of resources/demo/arm.urdf: joint_1 ±2.9, joint_2 ±1.8, joint_3 ±2.5, joint_4 ±3.0,
joint_5 ±2.0 rad; joint_6 is continuous.
"""

from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def wave() -> None:
    """5 s at 100 Hz, all six joints; joint_2 and joint_5 swing beyond their limits (the node clamps them),
    joint_6 (continuous) turns past 2π."""
    t = np.round(np.arange(501) * 0.01, 6)
    s = np.sin(2 * np.pi * t / 5.0)
    q = np.stack([
        1.2 * s,
        2.1 * np.sin(2 * np.pi * t / 2.5),           # limit ±1.8
        0.8 + 0.9 * np.sin(2 * np.pi * t / 2.0 + 0.5),
        1.5 * np.cos(2 * np.pi * t / 5.0) - 1.5,
        2.3 * np.sin(2 * np.pi * t / 1.25),          # limit ±2.0
        1.6 * t,                                      # continuous: 0 → 8 rad
    ], axis=1)
    lines = ["# demo arm: a smooth wave of every joint, 100 Hz; joint_2 and joint_5 exceed their limits",
             "time,joint_1,joint_2,joint_3,joint_4,joint_5,joint_6"]
    lines += [",".join([f"{ti:.2f}", *(f"{v:.6f}" for v in row)]) for ti, row in zip(t, q, strict=True)]
    (HERE / "wave.csv").write_text("\n".join(lines) + "\n")


def _min_jerk(waypoints: np.ndarray, durations, rate: float):
    times, rows, t0 = [], [], 0.0
    for a, b, d in zip(waypoints[:-1], waypoints[1:], durations, strict=True):
        s = np.arange(int(round(d * rate))) / (d * rate)
        blend = 10 * s**3 - 15 * s**4 + 6 * s**5
        rows.append(a + (b - a) * blend[:, None])
        times.append(t0 + s * d)
        t0 += d
    rows.append(waypoints[-1:])
    times.append(np.array([t0]))
    return np.concatenate(times), np.concatenate(rows)


def pick() -> None:
    """A pick-and-place at 50 Hz of joints 1–5 (joint_6 stays put), minimum-jerk between waypoints."""
    home = [0.0, -0.5, 1.2, 0.0, 0.8]
    above = [0.9, 0.2, 1.0, 0.0, 0.4]
    grasp = [0.9, 0.6, 1.3, 0.0, -0.3]
    place = [-1.1, 0.4, 1.1, 0.5, 0.0]
    waypoints = np.array([home, above, grasp, grasp, above, place, home])
    t, q = _min_jerk(waypoints, [1.5, 0.8, 0.5, 0.8, 1.6, 1.5], 50.0)
    np.savez(HERE / "pick.npz", time=np.round(t, 6), joint_positions=q,
             joint_names=np.array(["joint_1", "joint_2", "joint_3", "joint_4", "joint_5"]))


def reach_deg() -> None:
    """Degrees ([deg] on each column), 10 Hz: a coarse reach that the zero-order hold turns into steps."""
    t = np.arange(41) * 0.1
    s = np.clip(t / 2.0, 0, 1)
    q = np.stack([60 * s, 45 * s - 20 * np.sin(np.pi * s), 90 * s, 110 * np.sin(np.pi * t / 4.0)], axis=1)
    lines = ["# demo arm: a reach given in degrees, 10 Hz; joint_5 peaks above its 2.0 rad (114.6 deg) limit",
             "time,joint_1[deg],joint_2[deg],joint_3[deg],joint_5[deg]"]
    q[:, 3] *= 1.1
    lines += [",".join([f"{ti:.1f}", *(f"{v:.3f}" for v in row)]) for ti, row in zip(t, q, strict=True)]
    (HERE / "reach_deg.csv").write_text("\n".join(lines) + "\n")


def chain() -> None:
    """The whole demo rig (demo.rig.json), 4 s at 50 Hz with ``<segment>.<joint>`` columns: the arm reaches
    out and back while the motor on its flange spins up to 2 turns a second and down again."""
    t = np.round(np.arange(201) * 0.02, 6)
    s = 0.5 - 0.5 * np.cos(2 * np.pi * t / 4.0)
    spin = 4 * np.pi * (t - 4.0 / (2 * np.pi) * np.sin(2 * np.pi * t / 4.0)) / 2  # ∫ 2π·2·s dt
    q = np.stack([0.1 + 0.8 * s, -0.4 + 0.9 * s, 0.9 - 0.5 * s, 0.6 * np.sin(np.pi * t / 2.0), 0.6 + 0.4 * s,
                  spin], axis=1)
    names = ["arm.joint_1", "arm.joint_2", "arm.joint_3", "arm.joint_4", "arm.joint_5", "motor.shaft"]
    lines = ["# the demo rig: the arm reaches out and back, the motor spins up and down; 50 Hz",
             "time," + ",".join(names)]
    lines += [",".join([f"{ti:.2f}", *(f"{v:.6f}" for v in row)]) for ti, row in zip(t, q, strict=True)]
    (HERE / "chain.csv").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    wave()
    pick()
    reach_deg()
    chain()
