"""What the rig asks of its motors, on Panda, against the engine and Pinocchio measured in the same run.

Rows (issue 15's figures):
- torques along a played trajectory of 10,000 steps (``BuiltRig.torques``: rates, inverse dynamics with the
  armature, limit checks): ≤ 2 µs per step, beside the engine's batched ``inverse_dynamics`` on the same
  states and Pinocchio's ``rnea`` looped from Python;
- torque-driven playback of 10,000 steps (``DynamicArmNode.play``, semi-implicit Euler): within 4× a Python
  loop calling Pinocchio's ``aba`` with the same integrator.

    .venv/bin/python benchmarks/dynamics.py [--steps N] [--repeat R]

OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE, when set, are removed for this command only (the script re-executes
itself without them before numpy loads).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import sys

from timing import best, drop_blas_overrides  # benchmarks/ is on the path of a script run from it

drop_blas_overrides()  # before numpy loads

import numpy as np  # noqa: E402
from robots import panda_urdf  # noqa: E402  (benchmarks/ is on the path of a script run from it)

import mime_gui.multibody as mb  # noqa: E402
from mime_gui.nodes.dynamic import DynamicArmNode  # noqa: E402
from mime_gui.rig import Apparatus, Arm, kg_m2  # noqa: E402
from mime_gui.rig.torques import rates  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    N, R = args.steps, args.repeat

    import pinocchio as pin

    path = panda_urdf()
    revolute = [j for j, t in zip(mb.read_urdf(path).compile().joint_names,
                                  mb.read_urdf(path).compile().joint_type, strict=True) if t == mb.REVOLUTE]
    armature = {j: kg_m2(0.05, reason="benchmark") for j in revolute}
    rig = Apparatus("bench", chain={"arm": Arm.Dynamic(description=str(path), armature=armature,
                                                       servo_time_constant=0.02)})
    built = rig.build()
    art = built.dynamics_articulation("arm")
    model = pin.buildModelFromUrdf(str(path))
    iv = np.array([model.joints[model.getJointId(j)].idx_v for j in art.joint_names])
    iq = np.array([model.joints[model.getJointId(j)].idx_q for j in art.joint_names])
    model.armature = np.zeros(model.nv)
    model.armature[iv] = art.armature
    data = model.createData()
    rows = []

    def row(name, value, comparison):
        rows.append((name, value, comparison))

    # -- torques along a trajectory -------------------------------------------------------------------
    dt = 1e-3
    t = dt * np.arange(N)[:, None]
    commands = 0.5 * np.sin(1.5 * t + np.arange(len(built.command_names)))
    trajectory = built.play(commands, dt)
    t_torques = best(lambda: built.torques(trajectory), R) / N
    q = trajectory.segments["arm"].joint_positions
    v, a = rates(q, trajectory.initial["arm"].joint_positions, dt)
    t_rnea = best(lambda: mb.inverse_dynamics(art, q, v, a), R) / N
    PQ, PV, PA = (np.zeros((N, model.nq)) for _ in range(3))
    PQ[:, iq], PV[:, iv], PA[:, iv] = q, v, a

    def pin_loop():
        out = np.empty((N, model.nv))
        for i in range(N):
            out[i] = pin.rnea(model, data, PQ[i], PV[i], PA[i])
        return out

    t_pin = best(pin_loop, 3) / N
    ours = built.torques(trajectory).joint_torques
    err = float(np.abs(ours - pin_loop()[:, iv]).max())
    assert err < 1e-8, err  # the rows compare equal work
    row(f"`BuiltRig.torques`, {N:,} steps, per step", f"{t_torques * 1e6:.3f} µs",
        f"target ≤ 2 µs; batched `inverse_dynamics` {t_rnea * 1e6:.3f} µs ({t_torques / t_rnea:.2f}×); "
        f"Pinocchio `rnea` loop {t_pin * 1e6:.2f} µs (pin / ours = {t_pin / t_torques:.2f})")

    # -- torque-driven playback -----------------------------------------------------------------------
    zero = np.zeros(art.nq)
    zero.setflags(write=False)
    free = dataclasses.replace(art, damping=zero, friction=zero)
    rng = np.random.default_rng(0)
    u = 0.3 * np.sin(2.0 * dt * np.arange(N)[:, None] + rng.uniform(0, 6, art.nq))
    q0 = np.clip(np.linspace(-0.3, 0.3, art.nq), art.lower, art.upper)
    node = DynamicArmNode(free, stops=False)
    holder = {}
    t_node = best(lambda: holder.__setitem__("traj", node.play(u, dt, q0)), max(1, R // 2)) / N
    pq, pv, pt = np.zeros(model.nq), np.zeros(model.nv), np.zeros(model.nv)

    def aba_loop():
        qq, vv = q0.copy(), np.zeros(art.nq)
        qs = np.empty((N, art.nq))
        for n in range(N):
            pq[iq], pv[iv], pt[iv] = qq, vv, u[n]
            vv = vv + dt * pin.aba(model, data, pq, pv, pt)[iv]
            qq = qq + dt * vv
            qs[n] = qq
        holder["pin"] = qs

    t_aba = best(aba_loop, 3) / N
    # equal work: the same states while the motion is not yet chaotic (rounding grows after)
    err = float(np.abs(holder["traj"].joint_positions[:500] - holder["pin"][:500]).max())
    assert err < 1e-8, err
    row(f"`DynamicArmNode.play`, semi-implicit Euler, {N:,} steps, per step", f"{t_node * 1e6:.1f} µs",
        f"target within 4× Pinocchio `aba` + the same integrator looped from Python, {t_aba * 1e6:.1f} µs: "
        f"**{t_node / t_aba:.1f}×**{' (met)' if t_node <= 4 * t_aba else ' (not met)'}")

    # -- the compiled kernels' one-off cost in a new process -------------------------------------------
    import subprocess
    import tempfile

    warm = ("import time, numpy as np; t = time.perf_counter(); "
            "from mime_gui.multibody import _kernels; "
            "from mime_gui.nodes.dynamic import DynamicArmNode; "
            "from mime_gui.rig.torques import segment_torques; "
            "import mime_gui.multibody as mb; import sys; "
            "art = mb.read_urdf(sys.argv[1]).compile(); "
            "DynamicArmNode(art).play(np.zeros((2, art.nq)), 1e-3); "
            "DynamicArmNode(art, integrator='rk4').play(np.zeros((2, art.nq)), 1e-3); "
            "segment_torques(art, np.zeros((2, art.nq)), np.zeros(art.nq), 1e-3); "
            "print(time.perf_counter() - t)")
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        cold, cached = (float(subprocess.run([sys.executable, "-c", warm, str(path)], env=env, check=True,
                                             capture_output=True, text=True).stdout) for _ in range(2))
    row("first torque-driven play and torques in a new process (numba import + compile, Panda read)",
        f"{cold:.1f} s with an empty cache", f"{cached:.2f} s once compiled code is cached on disk")

    print(f"# Dynamics benchmark — CPython {platform.python_version()}, numpy {np.__version__}, "
          f"pin {pin.__version__}, {platform.machine()}, best of {R}, load average "
          f"{os.getloadavg()[0]:.1f}")
    print()
    print(f"Panda (example-robot-data `panda.urdf`): {art.nq} joints, {art.nbodies} bodies, armature on "
          f"{len(armature)} joints")
    print()
    print("| measure | value | comparison |")
    print("| --- | --- | --- |")
    for r in rows:
        print("| " + " | ".join(r) + " |")


if __name__ == "__main__":
    main()
