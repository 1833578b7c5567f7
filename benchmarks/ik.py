"""Inverse kinematics on Panda against a Pinocchio damped least-squares loop, in the same run (issue 25).

Row: one solve of panda_hand's pose (7 joints) to 1e-10 m and 1e-10 rad from a start near the answer (each
joint 0.05 rad off a random configuration inside its limits): ≤ 0.5 ms median, and within 2× the median of
Pinocchio's documented damped least-squares loop written in Python (``forwardKinematics``, ``log6``,
``computeFrameJacobian`` in the frame's axes, ``Jlog6``, a 6 × 6 solve, the full step, clipped to the limits)
on the same targets and starts.

    .venv/bin/python benchmarks/ik.py [--targets N] [--repeat R]

OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE, when set, are removed for this command only (the script re-executes
itself without them before numpy loads).
"""

from __future__ import annotations

import argparse
import os
import platform
import time

from timing import drop_blas_overrides  # benchmarks/ is on the path of a script run from it

drop_blas_overrides()  # before numpy loads

import numpy as np  # noqa: E402
from robots import panda_urdf  # noqa: E402  (benchmarks/ is on the path of a script run from it)

import mime_gui.multibody as mb  # noqa: E402
from mime_gui.multibody import inverse_kinematics as ik  # noqa: E402

FRAME = "panda_hand"
TOLERANCE = 1e-10


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    import pinocchio as pin

    path = panda_urdf()
    art = mb.read_urdf(path).compile()
    model = pin.buildModelFromUrdf(str(path))
    data = model.createData()
    fid = model.getFrameId(FRAME, pin.FrameType.BODY)
    iq = np.array([model.joints[model.getJointId(n)].idx_q for n in art.joint_names])
    assert model.nq == art.nq and not art.continuous.any()
    lower, upper = model.lowerPositionLimit.copy(), model.upperPositionLimit.copy()

    rng = np.random.default_rng(0)
    n = args.targets
    margin = 0.05 * (art.upper - art.lower)
    answers = rng.uniform(art.lower + margin, art.upper - margin, (n, art.nq))
    starts = np.clip(answers + rng.uniform(-0.05, 0.05, answers.shape), art.lower, art.upper)
    targets = mb.frame_poses(art, answers)[:, art.frame_index(FRAME)]
    pin_starts = np.zeros((n, model.nq))
    pin_starts[:, iq] = starts
    pin_targets = [pin.SE3(T[:3, :3].copy(), T[:3, 3].copy()) for T in targets]

    def ours(i):
        return ik.solve(art, starts[i], FRAME, targets[i], position_tolerance=TOLERANCE,
                        angle_tolerance=TOLERANCE)

    eye6 = np.eye(6)

    def peer(i):
        """Pinocchio's inverse-kinematics example (damping 1e-12), with a full step and the limits."""
        q = pin_starts[i].copy()
        want = pin_targets[i]
        for it in range(200):
            pin.forwardKinematics(model, data, q)
            pin.updateFramePlacement(model, data, fid)
            frame_M_want = data.oMf[fid].actInv(want)
            err = pin.log(frame_M_want).vector
            if np.linalg.norm(err[:3]) < TOLERANCE and np.linalg.norm(err[3:]) < TOLERANCE:
                return q, it, True
            J = pin.computeFrameJacobian(model, data, q, fid, pin.LOCAL)
            J = -pin.Jlog6(frame_M_want.inverse()) @ J
            v = -J.T @ np.linalg.solve(J @ J.T + 1e-12 * eye6, err)
            q = np.clip(pin.integrate(model, q, v), lower, upper)
        return q, 200, False

    # correctness guard: both reach every target (or say how many they do not)
    ours_done = [ours(i) for i in range(n)]
    peer_done = [peer(i) for i in range(n)]
    ours_ok = sum(r.converged for r in ours_done)
    peer_ok = sum(ok for _, _, ok in peer_done)
    for r, T in zip(ours_done, targets, strict=True):
        if r.converged:
            pin.framesForwardKinematics(model, data, _pin_q(r.q, iq, model))
            assert np.abs(data.oMf[fid].homogeneous - T).max() < 1e-9

    def timed(fn):
        per = np.empty((args.repeat, n))
        for k in range(args.repeat):
            for i in range(n):
                t0 = time.perf_counter()
                fn(i)
                per[k, i] = time.perf_counter() - t0
        return np.median(per.min(axis=0))  # best of the repeats per target, median over the targets

    t_ours, t_peer = timed(ours), timed(peer)
    it_ours = np.median([r.iterations for r in ours_done])
    it_peer = np.median([it for _, it, _ in peer_done])

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# Inverse kinematics benchmark — CPython {platform.python_version()}, numpy {np.__version__}, "
          f"pin {pin.__version__}, {platform.machine()}, {n} targets, best of {args.repeat}, "
          f"load average {load:.1f}")
    print()
    print("| measure | value | comparison |")
    print("| --- | --- | --- |")
    print(f"| `inverse_kinematics.solve`, Panda {FRAME} pose (7 joints), nearby start, median | "
          f"{t_ours * 1e3:.3f} ms ({it_ours:.0f} iterations; {ours_ok}/{n} reached) | target ≤ 0.5 ms; "
          f"{t_ours / t_peer:.2f}× the Pinocchio loop (target ≤ 2×) |")
    print(f"| Pinocchio damped least-squares loop in Python, same targets, median | {t_peer * 1e3:.3f} ms "
          f"({it_peer:.0f} iterations; {peer_ok}/{n} reached) | |")


def _pin_q(q, iq, model):
    out = np.zeros(model.nq)
    out[iq] = q
    return out


if __name__ == "__main__":
    main()
