"""What the rig asks of its motors, on Panda, against the engine and Pinocchio measured in the same run.

Rows (issue 15's figures):
- torques along a played trajectory of 10,000 steps (``BuiltRig.torques``: rates, inverse dynamics with the
  armature, limit checks): ≤ 2 µs per step, beside the engine's batched ``inverse_dynamics`` on the same
  states and Pinocchio's ``rnea`` looped from Python;
- torque-driven playback of 10,000 steps (``DynamicArmNode.play``, semi-implicit Euler): within 4× a Python
  loop calling Pinocchio's ``aba`` with the same integrator;
- beside them (no target), torque-driven playback feeling the magnets' pull (``play_driven`` of Panda with a
  ball on its link 7 and a ball in the world near it, stepped one step at a time), beside the same playback
  without the pull and a Python loop of Pinocchio's ``aba`` with the same wrench (the dipole closed form).

    .venv/bin/python benchmarks/dynamics.py [--steps N] [--pulled-steps N] [--repeat R]

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
    parser.add_argument("--pulled-steps", type=int, default=2_000)
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

    pulled(args.pulled_steps, path, armature, pin, row)

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


def pulled(N: int, path, armature, pin, row) -> None:
    """Torque-driven playback feeling the magnets' pull, per step, beside the same playback without it and a
    Pinocchio loop of ``aba`` with the same wrench."""
    from mime_gui.rig import PermanentMagnet, Sphere
    from mime_gui.rig.driven import play_driven
    from mime_gui.rig.mass import MU0

    radius, at, direction = 0.01, np.array([0.0, 0.0, 0.12]), np.array([0.0, 1.0, 0.0])
    ball = {"geometry": Sphere(radius=radius), "material": "NdFeB-N42", "magnetisation": tuple(direction)}
    rig = Apparatus("bench", chain={"arm": Arm.Dynamic(description=str(path), armature=armature)},
                    magnets={"hand": PermanentMagnet(**ball, at=tuple(at), mount="arm.panda_link7")})
    built = rig.build()
    art = built.dynamics_articulation("arm")
    q0 = np.clip(np.linspace(-0.3, 0.3, art.nq), art.lower, art.upper)
    frames = mb.frame_poses(art, q0)[art.frame_index("panda_link7")]
    near = frames[:3, :3] @ at + frames[:3, 3] + frames[:3, :3] @ [0.02, 0.06, 0.0]
    rig.magnets["world"] = PermanentMagnet(**ball, at=tuple(near))
    built = rig.build()
    commands = np.tile(built.initial_commands(), (N, 1))
    commanded = set(built.command_names)
    initial = {f"arm.{j}": x for j, x in zip(art.joint_names, q0, strict=True) if f"arm.{j}" in commanded}
    q0 = play_driven(built, commands[:1], {"arm.joint_torques": np.zeros((1, art.nq))}, 1e-3,
                     initial).initial["arm"].joint_positions  # mimic joints follow their masters
    model = pin.buildModelFromUrdf(str(path))
    link7 = model.frames[model.getFrameId("panda_link7")]
    mass_props = built.report.part("hand")
    m = mass_props["mass"]
    model.appendBodyToJoint(link7.parentJoint, pin.Inertia(m, np.zeros(3), np.eye(3) * 0.4 * m * radius**2),
                            link7.placement * pin.SE3(np.eye(3), at))
    iv = np.array([model.joints[model.getJointId(j)].idx_v for j in art.joint_names])
    iq = np.array([model.joints[model.getJointId(j)].idx_q for j in art.joint_names])
    model.armature = np.zeros(model.nv)
    model.armature[iv] = art.armature
    data = model.createData()
    pq = np.zeros(model.nq)
    pq[iq] = q0
    hold = pin.rnea(model, data, pq, np.zeros(model.nv), np.zeros(model.nv))[iv]
    u = hold + 0.2 * np.sin(2.0 * 1e-3 * np.arange(N)[:, None] + np.arange(art.nq))
    dt = 1e-3
    holder = {}

    def ours(magnets=True):
        holder["ours" if magnets else "bare"] = play_driven(built, commands, {"arm.joint_torques": u}, dt,
                                                            initial, magnets=magnets)

    t_pulled = best(ours, 2) / N
    t_bare = best(lambda: ours(False), 2) / N
    moment = mass_props["magnet"]["moment"] * direction
    world_moment = moment.copy()
    damping = np.asarray(art.damping)
    fext = pin.StdVec_Force()
    for _ in range(model.njoints):
        fext.append(pin.Force.Zero())
    j7 = link7.parentJoint

    def aba_loop():
        qq, vv = q0.copy(), np.zeros(art.nq)
        pv, pt = np.zeros(model.nv), np.zeros(model.nv)
        qs = np.empty((N, art.nq))
        for n in range(N):
            pq[iq], pv[iv] = qq, vv
            pin.forwardKinematics(model, data, pq)
            oMi = data.oMi[j7]
            X = oMi * link7.placement
            centre = X.rotation @ at + X.translation
            m2 = X.rotation @ moment
            r = centre - near
            d = np.linalg.norm(r)
            e = r / d
            a, b, c = world_moment @ e, m2 @ e, world_moment @ m2
            k = MU0 / (4 * np.pi)
            F = 3 * k / d**4 * (a * m2 + b * world_moment + c * e - 5 * a * b * e)
            tau = np.cross(m2, k * (3 * e * a - world_moment) / d**3)
            fext[j7] = pin.Force(oMi.rotation.T @ F,
                                 oMi.rotation.T @ (tau + np.cross(centre - oMi.translation, F)))
            pt[iv] = u[n] - damping * vv
            vv = vv + dt * pin.aba(model, data, pq, pv, pt, fext)[iv]
            qq = qq + dt * vv
            # the node's stops (the fingers reach theirs)
            low, high = qq < art.lower, qq > art.upper
            if low.any() or high.any():
                qq = np.clip(qq, art.lower, art.upper)
                vv = np.where((low & (vv < 0)) | (high & (vv > 0)), 0.0, vv)
            qs[n] = qq
        holder["pin"] = qs

    t_aba = best(aba_loop, 2) / N
    got = holder["ours"].segments["arm"].joint_positions
    err = float(np.abs(got[:200] - holder["pin"][:200]).max())
    assert err < 1e-8, err  # equal work
    moved = float(np.abs(got[199] - holder["bare"].segments["arm"].joint_positions[199]).max())
    row(f"`play_driven` feeling the magnets' pull (Panda, a ball on link 7, one in the world), {N:,} steps, "
        "per step", f"{t_pulled * 1e6:.0f} µs",
        f"without the pull (compiled path) {t_bare * 1e6:.1f} µs ({t_pulled / t_bare:.0f}×); Pinocchio `aba` "
        f"+ the dipole closed form + the same integrator looped from Python {t_aba * 1e6:.0f} µs "
        f"(ours / pin = {t_pulled / t_aba:.1f}); after 0.2 s the pull has moved a joint {moved:.3g} rad")


if __name__ == "__main__":
    main()
