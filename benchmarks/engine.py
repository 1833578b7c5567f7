"""The numpy engine on Panda against Pinocchio and yourdfpy, measured in the same run (issue 3's figures).

Rows:
- batched ``frame_poses`` at N = 10,000: ≤ 0.6 µs per step; ratio ≥ 1 against Pinocchio's
  ``framesForwardKinematics`` looped from Python, ≥ 20 against that loop copying every frame pose into numpy;
- single-configuration ``frame_poses``: ≤ 30 µs and ≥ 5× faster than yourdfpy's ``update_cfg`` plus reading
  every link transform;
- single ``mass_matrix``, ``inverse_dynamics``, ``dynamics``: ≤ 150 µs each (Pinocchio's crba/rnea/aba
  beside);
- batched ``inverse_dynamics`` at N = 10,000: ≤ 2 µs per step.

    .venv/bin/python benchmarks/engine.py [--steps N] [--repeat R]

OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE, when set, are removed for this command only (the script re-executes
itself without them before numpy loads).
"""

from __future__ import annotations

import argparse
import os
import platform

from timing import best, drop_blas_overrides  # benchmarks/ is on the path of a script run from it

drop_blas_overrides()  # before numpy loads

import numpy as np  # noqa: E402
from robots import panda_urdf  # noqa: E402  (benchmarks/ is on the path of a script run from it)

import mime_gui.multibody as mb  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    N, R = args.steps, args.repeat

    import pinocchio as pin
    import yourdfpy

    path = panda_urdf()
    art = mb.read_urdf(path).compile()
    model = pin.buildModelFromUrdf(str(path))
    data = model.createData()
    iq = np.array([model.joints[model.getJointId(n)].idx_q for n in art.joint_names])
    assert model.nq == art.nq and not art.continuous.any()
    fids = [model.getFrameId(f, pin.FrameType.BODY) for f in art.frame_names]

    rng = np.random.default_rng(0)
    Q = rng.uniform(art.lower, art.upper, (N, art.nq))
    # the mimic finger follows its master, as yourdfpy makes it do
    f = art.is_mimic
    Q[:, f] = Q[:, art.mimic_master[f]] * art.mimic_multiplier[f] + art.mimic_offset[f]
    V = rng.standard_normal((N, art.nq))
    A = rng.standard_normal((N, art.nq))
    PQ = np.zeros((N, model.nq))  # (Panda has no continuous joint: Pinocchio's q is ours, reordered)
    PQ[:, iq] = Q
    PV = np.zeros((N, model.nv))
    PV[:, iq] = V
    PA = np.zeros((N, model.nv))
    PA[:, iq] = A
    q, v, a = Q[0], V[0], A[0]
    out = np.empty((N, art.nframes, 4, 4))

    # correctness guard: the rows compare equal work
    mb.frame_poses(art, Q, out=out)
    pin.framesForwardKinematics(model, data, PQ[-1])
    assert np.allclose(out[-1], [data.oMf[f].homogeneous for f in fids], atol=1e-12)

    rows = []

    def row(name, value, comparison):
        rows.append((name, value, comparison))

    # --- batched frame poses ------------------------------------------------------------------------
    t_ours = best(lambda: mb.frame_poses(art, Q, out=out), R) / N

    def pin_loop():
        for x in PQ:
            pin.framesForwardKinematics(model, data, x)

    copy = np.empty((N, art.nframes, 4, 4))

    def pin_loop_copy():
        oMf = data.oMf
        for i, x in enumerate(PQ):
            pin.framesForwardKinematics(model, data, x)
            dst = copy[i]
            for k, f in enumerate(fids):
                dst[k] = oMf[f].homogeneous

    t_pin = best(pin_loop, max(3, R // 2)) / N
    t_pin_copy = best(pin_loop_copy, 3) / N
    row(f"frame_poses, batch of {N:,} (out=), per step", f"{t_ours * 1e6:.3f} µs", "target ≤ 0.6 µs")
    row("Pinocchio framesForwardKinematics looped from Python, per step", f"{t_pin * 1e6:.3f} µs",
        f"pin / ours = {t_pin / t_ours:.2f} (target ≥ 1.0)")
    row("… the same loop copying every frame pose into numpy, per step", f"{t_pin_copy * 1e6:.2f} µs",
        f"pin+copy / ours = {t_pin_copy / t_ours:.0f}× (target ≥ 20×)")
    t_alloc = best(lambda: mb.frame_poses(art, Q), R) / N
    row(f"frame_poses, batch of {N:,}, fresh output array, per step", f"{t_alloc * 1e6:.3f} µs",
        f"pin / ours = {t_pin / t_alloc:.2f}")

    # --- single configuration ---------------------------------------------------------------------
    t_single = best(lambda: mb.frame_poses(art, q), R, 2000)
    robot = yourdfpy.URDF.load(str(path), build_scene_graph=True, load_meshes=False,
                               build_collision_scene_graph=False, load_collision_meshes=False)
    names = list(robot.actuated_joint_names)
    cfg = np.array([q[art.joint_index(n)] for n in names])
    links = list(art.frame_names)

    def urdfpy_single():
        robot.update_cfg(cfg)
        return [robot.get_transform(link) for link in links]

    got = np.array(urdfpy_single())
    assert np.allclose(got, mb.frame_poses(art, q), atol=1e-9)
    t_yourdf = best(urdfpy_single, R, 100)
    row("frame_poses, one configuration", f"{t_single * 1e6:.1f} µs", "target ≤ 30 µs")
    row("yourdfpy update_cfg + every link transform", f"{t_yourdf * 1e6:.0f} µs",
        f"yourdfpy / ours = {t_yourdf / t_single:.1f}× (target ≥ 5×)")

    # --- single-configuration dynamics ---------------------------------------------------------------
    tau = mb.inverse_dynamics(art, q, v, a)
    pq, pv, pa = PQ[0], PV[0], PA[0]
    for name, ours, peer in (
        ("mass_matrix", lambda: mb.mass_matrix(art, q), lambda: pin.crba(model, data, pq)),
        ("inverse_dynamics", lambda: mb.inverse_dynamics(art, q, v, a),
         lambda: pin.rnea(model, data, pq, pv, pa)),
        ("dynamics", lambda: mb.dynamics(art, q, v, tau), lambda: pin.aba(model, data, pq, pv, pa)),
    ):
        t = best(ours, R, 500)
        tp = best(peer, R, 2000)
        row(f"{name}, one configuration", f"{t * 1e6:.1f} µs",
            f"target ≤ 150 µs; Pinocchio {tp * 1e6:.1f} µs")

    # --- batched inverse dynamics ------------------------------------------------------------------
    n = 256  # a large batch (compiled code): loaded before it is timed
    mb.inverse_dynamics(art, Q[:n], V[:n], A[:n])
    t_id = best(lambda: mb.inverse_dynamics(art, Q, V, A), R) / N

    def pin_rnea_loop():
        for i in range(N):
            pin.rnea(model, data, PQ[i], PV[i], PA[i])

    t_pin_id = best(pin_rnea_loop, 3) / N
    row(f"inverse_dynamics, batch of {N:,}, per step", f"{t_id * 1e6:.3f} µs",
        f"target ≤ 2 µs; Pinocchio rnea looped from Python {t_pin_id * 1e6:.2f} µs "
        f"(pin / ours = {t_pin_id / t_id:.2f})")

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# Engine benchmark — CPython {platform.python_version()}, numpy {np.__version__}, "
          f"pin {pin.__version__}, {platform.machine()}, best of {R}, load average {load:.1f}")
    print()
    print(f"Panda (example-robot-data `panda.urdf`): {art.nq} joints, {art.nbodies} bodies, "
          f"{art.nframes} frames.")
    print()
    print("| measure | value | comparison |")
    print("| --- | --- | --- |")
    for r in rows:
        print("| " + " | ".join(r) + " |")


if __name__ == "__main__":
    main()
