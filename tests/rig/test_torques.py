"""Torques along a trajectory: per step against Pinocchio's RNEA on real robots; limits; play --torques."""

from __future__ import annotations

import numpy as np
import pytest
from rig_helpers import DEMO_RIG, snippet_rig
from robot_data import robot_urdf

from mime_gui.cli import main
from mime_gui.multibody import REVOLUTE
from mime_gui.rig import Apparatus, Arm, kg_m2
from mime_gui.rig.limits import EFFORT, VELOCITY, excesses
from mime_gui.rig.torques import rates

pin = pytest.importorskip("pinocchio")

ROBOTS = {"ur5": "ur_description/urdf/ur5_robot.urdf", "panda": "panda_description/urdf/panda.urdf"}


def _twin(path, art):
    model = pin.buildModelFromUrdf(str(path))
    jid = [model.getJointId(j) for j in art.joint_names]
    iq = np.array([model.joints[j].idx_q for j in jid])
    iv = np.array([model.joints[j].idx_v for j in jid])
    assert all(model.joints[j].nq == 1 for j in jid)
    model.armature = np.zeros(model.nv)
    model.armature[iv] = art.armature
    return model, iq, iv


@pytest.mark.parametrize("robot", sorted(ROBOTS))
def test_torques_along_a_trajectory_equal_pinocchio_rnea_per_step(robot):
    path = robot_urdf(ROBOTS[robot])
    probe = Arm.Dynamic(description=str(path)).tree().compile()
    joints = probe.joint_names
    armature = {j: kg_m2(0.01 * (i + 1), reason="test") for i, j in enumerate(joints)
                if i % 2 == 0 and probe.joint_type[i] == REVOLUTE}
    rig = Apparatus("r", chain={"arm": Arm.Dynamic(description=str(path), servo_time_constant=0.02,
                                                   armature=armature, at=(0.1, -0.2, 0.3),
                                                   orientation=(np.cos(0.4), 0.0, np.sin(0.4), 0.0))})
    built = rig.build()
    art = built.dynamics_articulation("arm")
    assert art.armature[0] == pytest.approx(0.01)
    T, dt = 300, 0.004
    t = dt * np.arange(T)[:, None]
    commands = 0.4 * np.sin(2.0 * t + np.arange(len(built.command_names))) * (1 - np.exp(-t / 0.1))
    trajectory = built.play(commands, dt)
    torques = built.torques(trajectory)
    assert torques.joint_names == tuple(f"arm.{j}" for j in art.joint_names)
    # the reference: the same backward differences, by hand, and Pinocchio's RNEA one step at a time with
    # gravity turned into the base's axes (the arm is turned on its placement)
    model, iq, iv = _twin(path, art)
    data = model.createData()
    R = built.segments["arm"].placement[:3, :3]
    model.gravity.linear = R.T @ np.array([0.0, 0.0, -9.81])
    q = trajectory.segments["arm"].joint_positions
    q0 = trajectory.initial["arm"].joint_positions
    v = np.diff(np.vstack([q0, q]), axis=0) / dt
    a = np.diff(np.vstack([np.zeros(art.nq), v]), axis=0) / dt
    for n in range(T):
        pq, pv, pa = (np.zeros(model.nq), np.zeros(model.nv), np.zeros(model.nv))
        pq[iq], pv[iv], pa[iv] = q[n], v[n], a[n]
        ref = pin.rnea(model, data, pq, pv, pa)[iv]
        np.testing.assert_allclose(torques.joint_torques[n], ref, rtol=1e-9, atol=1e-9, err_msg=f"step {n}")
    np.testing.assert_allclose(torques.armature_torques, a * art.armature, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(torques.joint_velocities, v, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(torques.time, trajectory.times())


def test_rates_are_backward_differences_from_rest():
    q = np.array([[1.0], [3.0], [6.0]])
    v, vdot = rates(q, np.array([0.0]), 0.5)
    np.testing.assert_array_equal(v[:, 0], [2.0, 4.0, 6.0])
    np.testing.assert_array_equal(vdot[:, 0], [4.0, 4.0, 4.0])


def test_a_mounted_segment_feels_its_mount_motion():
    """The motor on the arm's flange: when the arm swings, the rotor's inertia needs torque about the shaft
    even with the shaft held still relative to the flange (the base's angular acceleration)."""
    rig = snippet_rig()
    built = rig.build()
    T, dt = 200, 0.005
    t = dt * np.arange(T)
    wrist = 0.5 * np.sin(8 * t)  # joint_6 turns the flange about the motor's axis
    trajectory = built.play({"arm.joint_6": wrist}, dt)
    torques = built.torques(trajectory)
    shaft = torques.joint_names.index("motor.shaft")
    rotor_z = 3e-6 + sum(p["inertia_about_centroid"][2][2] for p in built.report["parts"])
    omega = trajectory.segments["arm"].frame_angular_velocities[:, built.articulation("arm").frame_index(
        "link_6")]
    # about the shaft: I_zz · d(ω·z)/dt (the flange's z is the shaft; the parts are on the axis)
    z = trajectory.segments["arm"].frame_poses[:, built.articulation("arm").frame_index("link_6"), :3, 2]
    spin = np.einsum("ti,ti->t", omega, z)
    expected = rotor_z * np.diff(spin, prepend=0.0) / dt
    np.testing.assert_allclose(torques.joint_torques[:, shaft], expected, rtol=1e-6, atol=1e-12)
    assert np.abs(torques.joint_torques[:, shaft]).max() > 1e-5


def test_an_effort_excess_is_found_at_the_step_it_happens():
    rig = snippet_rig()
    built = rig.build()
    T, dt, k = 100, 0.01, 37
    commands = np.tile(built.initial_commands(), (T, 1))
    j2 = built.command_names.index("arm.joint_2")
    commands[k:, j2] += 0.05  # a step of 0.05 rad in one step: a large acceleration at step k
    torques = built.torques(built.play(commands, dt, servo_time_constant=0.0))
    col = torques.joint_names.index("arm.joint_2")
    tau = torques.joint_torques[:, col]
    found = [e for e in torques.excesses if e.joint == "arm.joint_2" and e.code == EFFORT]
    assert found, [str(e) for e in torques.excesses]
    first = found[0]
    assert first.step == k and first.time == pytest.approx((k + 1) * dt)
    assert first.value == pytest.approx(abs(tau[first.peak_step]))
    assert first.margin == pytest.approx(150.0 - abs(tau[first.peak_step])) and first.margin < 0
    assert "warning[torque.effort] arm.joint_2" in str(first)
    # the velocity of that step (5 rad/s) exceeds the 2 rad/s limit for exactly one step
    fast = [e for e in torques.excesses if e.joint == "arm.joint_2" and e.code == VELOCITY]
    assert [(e.step, e.steps) for e in fast] == [(k, 1)]


def test_excesses_are_runs_and_a_value_at_the_limit_is_not_one():
    t = np.arange(8) * 0.1
    tau = np.array([[0.0], [10.0], [11.0], [12.0], [10.0], [-13.0], [0.0], [10.0000001]])
    found = excesses(("a.j",), t, tau, np.zeros_like(tau), [10.0], [np.inf])
    assert [(e.step, e.steps, e.peak_step) for e in found] == [(2, 2, 3), (5, 1, 5), (7, 1, 7)]
    assert found[1].margin == pytest.approx(-3.0)
    # no limit declared (0, inf, nan) checks nothing
    for limit in (0.0, np.inf, np.nan):
        assert excesses(("a.j",), t, tau, tau, [limit], [limit]) == []


def _played_with_torques(tmp_path, capsys):
    """``mime-gui play DEMO --torques`` of a swing of joint_2: what it printed, the commands, the output."""
    commands = tmp_path / "cmd.csv"
    commands.write_text("time,arm.joint_2\n0,-0.4\n0.5,0.3\n1.0,-0.2\n")
    out = tmp_path / "out.npz"
    assert main(["play", str(DEMO_RIG), "--commands", str(commands), "--dt", "0.01", "--out", str(out),
                 "--torques"]) == 0
    return capsys.readouterr().out, commands, out


def test_play_torques_adds_the_torques_to_the_output(tmp_path, capsys):
    printed, commands, out = _played_with_torques(tmp_path, capsys)
    assert "torques: 7 joint(s) of dynamic segments" in printed
    data = np.load(out)
    assert list(data["torque_joint_names"])[-1] == "motor.shaft"
    assert data["joint_torques"].shape == (len(data["time"]), 7)
    assert data["armature_torques"].shape == data["joint_torques"].shape
    assert data["effort_limits"][0] == 150.0
    # without --torques the output is as before
    assert main(["play", str(DEMO_RIG), "--commands", str(commands), "--out", str(out), "--quiet"]) == 0
    assert "joint_torques" not in np.load(out)


def test_play_torques_of_a_bare_urdf(tmp_path, capsys):
    path = robot_urdf(ROBOTS["ur5"])
    commands = tmp_path / "cmd.csv"
    commands.write_text("time,shoulder_lift_joint\n0,0\n0.2,0.5\n")
    out = tmp_path / "out.npz"
    assert main(["play", str(path), "--commands", str(commands), "--dt", "0.01", "--out", str(out),
                 "--torques"]) == 0
    data = np.load(out)
    assert data["joint_torques"].shape == (len(data["time"]), 6)
    assert np.abs(data["joint_torques"]).max() > 1.0  # gravity alone holds the arm up


def test_each_column_says_its_unit_a_sliding_joint_newtons():
    from mime_gui.multibody import read_urdf
    from mime_gui.rig.torques import arm_torques

    art = read_urdf(robot_urdf("pr2_description/urdf/pr2.urdf")).compile()
    found = arm_torques(art, np.zeros((3, art.nq)), np.zeros(art.nq), 0.01)
    units = dict(zip(found.joint_names, found.effort_units, strict=True))
    assert units["torso_lift_joint"] == "N" and units["r_shoulder_pan_joint"] == "N·m"
    assert set(units.values()) == {"N", "N·m"}


def test_each_joint_demand_is_its_peak_its_time_weighted_rms_and_its_peak_speed_beside_the_limits():
    from mime_gui.rig.limits import demands

    t = np.array([0.1, 0.2, 0.4, 0.5])  # the third step is twice as long: twice the weight
    tau = np.array([[1.0, 0.0], [-3.0, 2.0], [2.0, 2.0], [0.0, 2.0]])
    v = np.array([[0.5, 0.0], [-1.5, 0.0], [0.0, 0.0], [1.0, 0.0]])
    a, b = demands(("s.a", "s.b"), t, tau, v, [4.0, 0.0], [3.0, np.inf], [("N·m", "rad/s"), ("N", "m/s")])
    assert (a.joint, a.peak, a.peak_time, a.speed) == ("s.a", 3.0, 0.2, 1.5)
    assert a.rms == pytest.approx(np.sqrt((1 * 1 + 9 * 1 + 4 * 2 + 0 * 1) / 5))
    assert a.effort_share == pytest.approx(0.75) and a.velocity_share == pytest.approx(0.5)
    assert str(a) == ("s.a: peak |τ| 3 N·m at t=0.2 s (75 % of 4 N·m), RMS 1.89737 N·m; peak |v| 1.5 rad/s "
                      "(50 % of 3 rad/s)")
    # the first peak when it repeats; no limit (0 or inf): no share
    assert (b.peak, b.peak_time, b.rms) == (2.0, 0.2, pytest.approx(np.sqrt(4 * 4 / 5)))
    assert np.isnan(b.effort_share) and np.isnan(b.velocity_share)
    assert str(b) == "s.b: peak |τ| 2 N at t=0.2 s, RMS 1.78885 N; peak |v| 0 m/s"
    assert demands(("s.a",), np.zeros(0), np.zeros((0, 1)), np.zeros((0, 1)), [1.0], [1.0]) == []


def test_a_demand_far_beyond_its_limits_keeps_a_finite_rms_and_a_short_share():
    """Torques beyond 1e154 N·m square to infinity: the RMS is taken relative to the joint's peak. A share
    from a million percent up is printed in three figures, and one whose percent alone overflows still is."""
    from mime_gui.rig.limits import demands

    t = np.array([1.0, 2.0])
    tau = np.array([[3e200, 1e300, 0.0], [-4e200, 1e300, 0.0]])
    v = np.array([[0.0, 0.0, 0.0, 0.0], [2e307, 999_999.4, 1e6, 9.996e6]])
    tau = np.hstack([tau, np.zeros((2, 1))])
    a, b, c, d = demands(("s.a", "s.b", "s.c", "s.d"), t, tau, v, [1.0, 1e-5, 1.0, 1.0],
                         [4.0, 100.0, 100.0, 100.0])
    assert a.rms == pytest.approx(np.sqrt((9 + 16) / 2) * 1e200, rel=1e-12)
    assert b.rms == pytest.approx(1e300, rel=1e-12) and c.rms == 0.0
    assert str(a) == ("s.a: peak |τ| 4e+200 N·m at t=2 s (4e+202 % of 1 N·m), RMS 3.53553e+200 N·m; "
                      "peak |v| 2e+307 rad/s (5e+308 % of 4 rad/s)")
    assert "(1e+307 % of 1e-05 N·m)" in str(b) and "(999999 % of 100 rad/s)" in str(b)
    assert "(1e+06 % of 100 rad/s)" in str(c)
    assert "(1e+07 % of 100 rad/s)" in str(d)  # 9.996e6 % rounds up to the next power of ten


def test_play_torques_writes_and_prints_each_joint_demand(tmp_path, capsys):
    printed, _, out = _played_with_torques(tmp_path, capsys)
    data = np.load(out)
    tau = data["joint_torques"]
    np.testing.assert_allclose(data["torque_peak"], np.abs(tau).max(axis=0), rtol=1e-15)
    np.testing.assert_allclose(data["torque_rms"], np.sqrt((tau ** 2).mean(axis=0)), rtol=1e-12)  # even steps
    assert data["velocity_peak"].shape == (7,) and data["velocity_peak"][1] > 0
    j2 = list(data["torque_joint_names"]).index("arm.joint_2")
    assert f"arm.joint_2: peak |τ| {data['torque_peak'][j2]:.6g} N·m at t=" in printed
    heading = "  demand per joint (peak, RMS, peak speed; torque_peak, torque_rms, velocity_peak):\n"
    assert heading in printed and printed.count(": peak |τ| ") == 7
    # the seven joints listed under the heading, each indented one step below it
    below = printed.split(heading, 1)[1].splitlines()[:7]
    assert all(line.startswith("    ") and line[4] != " " and ": peak |τ| " in line for line in below), below


@pytest.mark.parametrize("t0", [2.5, 1e4], ids=["late", "much-later"])
def test_torques_along_a_command_file_that_starts_late_are_those_of_the_same_file_from_zero(tmp_path, t0):
    """Rates and torques come from the steps, not from the file's clock: the demo's chain.csv shifted by t0
    plays to the same torques, at times shifted by t0 (a '- t0' dropped would change the first rates)."""
    demo = DEMO_RIG.parent
    lines = (demo / "chain.csv").read_text().splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("time"))
    shifted = [*lines[:head + 1]]
    for line in lines[head + 1:]:
        cells = line.split(",")
        shifted.append(",".join([repr(float(cells[0]) + t0), *cells[1:]]))
    (tmp_path / "late.csv").write_text("\n".join(shifted) + "\n")
    outs = {}
    for name, commands in (("zero", demo / "chain.csv"), ("late", tmp_path / "late.csv")):
        out = tmp_path / f"{name}.npz"
        assert main(["play", str(DEMO_RIG), "--commands", str(commands), "--out", str(out),
                    "--torques", "--quiet"]) == 0
        outs[name] = dict(np.load(out))
    torque_keys = [k for k in outs["zero"] if "torque" in k]
    assert torque_keys
    for key in torque_keys:
        late, zero = outs["late"][key], outs["zero"][key]
        if zero.dtype.kind in "USO":  # names
            assert list(late) == list(zero)
        else:
            assert np.abs(zero).max() > 0.1  # torques worth comparing
            np.testing.assert_allclose(late, zero, rtol=0, atol=1e-9)
    np.testing.assert_allclose(outs["late"]["time"], outs["zero"]["time"] + t0, rtol=0, atol=1e-9 * t0)


def test_an_excess_without_units_given_is_in_newton_metres_and_radians_per_second():
    t = np.array([0.1, 0.2, 0.3])
    values = np.array([[0.5], [2.0], [0.5]])
    found = excesses(("a.j",), t, values, values, [1.0], [1.0])
    assert [(e.code, e.unit) for e in found] == [(EFFORT, "N·m"), (VELOCITY, "rad/s")]
    given = excesses(("a.j",), t, values, values, [1.0], [1.0], [("N", "m/s")])
    assert [(e.code, e.unit) for e in given] == [(EFFORT, "N"), (VELOCITY, "m/s")]
