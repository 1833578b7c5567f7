"""Torque-driven playback feeling the magnets' pull: the trajectory against a Python loop of Pinocchio's
``aba(model, data, q, v, tau, fext)`` with the same integrator and the test's own dipole–dipole wrenches
between balls (exact for balls), on a one-joint arm and on the demo rig; a free-swinging link's first
acceleration is the pull's torque over its inertia, toward the magnet; energy is kept (RK4); a rig without
the pull plays as before, bit for bit; ``mime-gui play`` says the pull is felt."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from magnet_rigs import BALL_RADIUS, ball, compass_rig
from rig_helpers import DEMO_RIG, DEMO_URDF, spinner_urdf

from mime_gui import RESOURCES
from mime_gui.cli import main
from mime_gui.nodes.dynamic import DynamicArmNode
from mime_gui.rig import Apparatus, Arm, load, save
from mime_gui.rig.driven import play_driven
from mime_gui.rig.pulled import segment_pulls

pin = pytest.importorskip("pinocchio")

mu_0 = 1.25663706212e-6  # T·m/A, CODATA 2018 (SciPy's newer figure differs by 7e-10)
N42 = {m["name"]: m for m in json.loads((RESOURCES / "materials.json").read_text())["materials"]}["NdFeB-N42"]
R_BALL = BALL_RADIUS
MASS_BALL = N42["density"] * 4 / 3 * math.pi * R_BALL**3
MOMENT = N42["remanence"] * 4 / 3 * math.pi * R_BALL**3 / mu_0  # A·m², Br·V/μ0
FRICTION_VELOCITY = 1e-3  # the node's default (docs/dynamics.md)

SPINNER = spinner_urdf(1)  # the ball's link
ARM_AT = np.array([0.05, 0.0, 0.0])  # the arm's ball on its link
ANGLE = math.radians(40.0)
FIXED_AT = np.array([0.05 * math.cos(ANGLE), 0.05 * math.sin(ANGLE), 0.02])  # ahead, 2 cm above its circle
UP_THE_CIRCLE = np.array([0.0, 1.0, 0.0])  # both balls magnetised along y: head to tail, they attract


def _closed_form(m1, m2, r):
    """Force on dipole m2 at r from dipole m1, and the torque on it about its centre (the test's own)."""
    d = np.linalg.norm(r)
    u = r / d
    k = mu_0 / (4 * math.pi)
    force = 3 * k / d**4 * ((m1 @ u) * m2 + (m2 @ u) * m1 + (m1 @ m2) * u - 5 * (m1 @ u) * (m2 @ u) * u)
    B1 = k * (3 * u * (m1 @ u) - m1) / d**3
    return force, np.cross(m2, B1)


def _spinner(tmp_path, fixed=True) -> Apparatus:
    """A one-joint arm turning about the vertical (gravity loads no joint) with a ball 5 cm out on its link,
    and a ball fixed in the world ahead of it."""
    path = tmp_path / "spinner.urdf"
    path.write_text(SPINNER)
    magnets = {"on_arm": ball(ARM_AT, "arm.arm", UP_THE_CIRCLE)}
    if fixed:
        magnets["fixed"] = ball(FIXED_AT, None, UP_THE_CIRCLE)
    return Apparatus("spinner", chain={"arm": Arm.Dynamic(description=str(path))}, magnets=magnets)


def _pin_spinner(tmp_path):
    model = pin.buildModelFromUrdf(str(tmp_path / "spinner.urdf"))
    joint = model.getJointId("turn")
    body = pin.Inertia(MASS_BALL, np.zeros(3), np.eye(3) * 0.4 * MASS_BALL * R_BALL**2)
    model.appendBodyToJoint(joint, body, pin.SE3(np.eye(3), ARM_AT))
    return model, joint


def _fext(model, data, joint, centre, moment, sources):
    """Pinocchio's external forces: the pull of ``sources`` ((centre, moment) in the world) on the ball at
    ``centre`` with ``moment`` riding on ``joint``, in the joint's frame about its origin."""
    F, tau = np.zeros(3), np.zeros(3)
    for c, m in sources:
        f, t = _closed_form(m, moment, centre - c)
        F, tau = F + f, tau + t
    oMi = data.oMi[joint]
    fext = pin.StdVec_Force()
    for _ in range(model.njoints):
        fext.append(pin.Force.Zero())
    about = tau + np.cross(centre - oMi.translation, F)
    fext[joint] = pin.Force(oMi.rotation.T @ F, oMi.rotation.T @ about)
    return fext, F, tau


def test_a_swinging_link_follows_pinocchios_aba_with_the_same_pull(tmp_path):
    """400 steps of semi-implicit Euler: the link swings toward the fixed ball and back; each step's position
    and velocity equal Pinocchio's ``aba`` with the test's own closed-form wrench on the ball, stepped the
    same way, to 1e-10 (1e-9 the velocity)."""
    built = _spinner(tmp_path).build()
    T, dt = 400, 1e-3
    u = 1e-4 * np.sin(np.arange(T) * dt * 20.0)  # a little drive of its own beside the pull
    traj = play_driven(built, np.zeros((T, 1)), {"arm.joint_torques": u[:, None]}, dt).segments["arm"]
    model, joint = _pin_spinner(tmp_path)
    data = model.createData()
    fixed = (FIXED_AT, MOMENT * UP_THE_CIRCLE)
    q, v = np.zeros(1), np.zeros(1)
    for n in range(T):
        pin.forwardKinematics(model, data, q)
        oMi = data.oMi[joint]
        centre = oMi.rotation @ ARM_AT + oMi.translation
        fext, _, _ = _fext(model, data, joint, centre, MOMENT * oMi.rotation @ UP_THE_CIRCLE, [fixed])
        a = pin.aba(model, data, q, v, np.array([u[n]]), fext)
        v = v + dt * a
        q = q + dt * v
        np.testing.assert_allclose(traj.joint_positions[n], q, rtol=0, atol=1e-10, err_msg=f"step {n}")
        np.testing.assert_allclose(traj.joint_velocities[n], v, rtol=0, atol=1e-9, err_msg=f"step {n}")
    # it swings toward the magnet, far beyond where its own drive takes it
    bare = play_driven(built, np.zeros((T, 1)), {"arm.joint_torques": u[:, None]}, dt, magnets=False)
    assert traj.joint_positions.max() - bare.segments["arm"].joint_positions.max() > 0.2  # rad


def test_the_torques_of_the_run_give_back_the_torques_applied(tmp_path):
    """What ``play --torques`` and the Torques dock show for the run, its inverse dynamics with the pull's
    share, is the torque applied to within the rates' differences (3 % of the share at 1 ms steps); a run
    played without the pull is a third of the share off."""
    built = _spinner(tmp_path).build()
    T, dt = 400, 1e-3
    u = 1e-4 * np.sin(np.arange(T) * dt * 20.0)
    gaps = []
    for magnets in (True, False):
        traj = play_driven(built, np.zeros((T, 1)), {"arm.joint_torques": u[:, None]}, dt, magnets=magnets)
        torques = built.torques(traj)
        share = np.abs(torques.magnet_torques[:, 0]).max()
        gaps.append(np.abs(torques.joint_torques[:, 0] - u).max() / share)
    assert gaps[0] < 0.03 and gaps[1] > 0.3, gaps


def test_from_rest_the_first_acceleration_is_the_pulls_torque_over_the_inertia_toward_the_magnet(tmp_path):
    """No joint torque: the first step's velocity is ``dt·τ_ext/I``, with ``τ_ext`` the axis's share of the
    closed-form force and torque on the ball and ``I`` the link's, the ball's and its offset's inertia about
    the axis; positive, toward the fixed ball, and the distance shrinks."""
    built = _spinner(tmp_path).build()
    dt = 1e-4
    traj = play_driven(built, np.zeros((200, 1)), {"arm.joint_torques": np.zeros((200, 1))}, dt)
    arm = traj.segments["arm"]
    F, tau = _closed_form(MOMENT * UP_THE_CIRCLE, MOMENT * UP_THE_CIRCLE, ARM_AT - FIXED_AT)
    axial = (np.cross(ARM_AT, F) + tau)[2]
    inertia = 1e-5 + MASS_BALL * ARM_AT @ ARM_AT + 0.4 * MASS_BALL * R_BALL**2
    assert axial > 0
    np.testing.assert_allclose(arm.joint_velocities[0, 0] / dt, axial / inertia, rtol=1e-9)
    ball = arm.frame_poses[:, built.articulation("arm").frame_index("part:on_arm"), :3, 3]
    distance = np.linalg.norm(ball - FIXED_AT, axis=1)
    assert np.all(np.diff(distance) < 0) and distance[-1] < np.linalg.norm(ARM_AT - FIXED_AT)


def test_the_swing_keeps_its_energy(tmp_path):
    """RK4 with sub-steps, no damping: ``½Iω² − m·B`` (the ball's dipole energy in the fixed ball's field, the
    test's own) stays within 1e-7 of the largest kinetic energy over a swing and back."""
    built = _spinner(tmp_path).build()
    T, dt = 600, 1e-3
    arm = play_driven(built, np.zeros((T, 1)), {"arm.joint_torques": np.zeros((T, 1))}, dt, integrator="rk4",
                      substeps=4).segments["arm"]
    inertia = 1e-5 + MASS_BALL * ARM_AT @ ARM_AT + 0.4 * MASS_BALL * R_BALL**2
    theta, omega = arm.joint_positions[:, 0], arm.joint_velocities[:, 0]
    c, s = np.cos(theta), np.sin(theta)
    centre = np.stack([0.05 * c, 0.05 * s, np.zeros(T)], axis=1)
    moment = MOMENT * np.stack([-s, c, np.zeros(T)], axis=1)  # the link's y turned by θ
    r = centre - FIXED_AT
    d = np.linalg.norm(r, axis=1, keepdims=True)
    m1 = MOMENT * UP_THE_CIRCLE
    B = mu_0 / (4 * math.pi) * (3 * r / d * (r / d @ m1)[:, None] - m1) / d**3
    kinetic = 0.5 * inertia * omega**2
    energy = kinetic - np.sum(moment * B, axis=1)
    U0 = -MOMENT * UP_THE_CIRCLE @ (mu_0 / (4 * math.pi) * (3 * (ARM_AT - FIXED_AT) / np.linalg.norm(
        ARM_AT - FIXED_AT) * ((ARM_AT - FIXED_AT) / np.linalg.norm(ARM_AT - FIXED_AT) @ m1) - m1)
        / np.linalg.norm(ARM_AT - FIXED_AT) ** 3)
    assert kinetic.max() > 5e-5  # J: it swings
    assert np.abs(energy - U0).max() < 1e-7 * kinetic.max()
    assert np.any(np.diff(np.sign(omega)) != 0)  # and comes back


def test_the_demo_arm_under_torques_feels_the_pull_as_pinocchios_aba(tmp_path):
    """The demo arm driven by its gravity torques at the start (Pinocchio's), carrying the motor (held) whose
    ball a ball in the world pulls on: 200 steps equal a loop of Pinocchio's ``aba`` with the rider welded on
    link_6 at tool0, the same damping, Coulomb friction (the node's tanh) and armature, and the test's own
    wrench on the rider's ball, to 1e-10; and the pull moves the arm."""
    rig = compass_rig()
    built = rig.build()
    assert set(segment_pulls(built, ["arm"])) == {"arm"}
    arm = built.dynamics_articulation("arm")
    model = pin.buildModelFromUrdf(str(DEMO_URDF))
    tool0 = model.frames[model.getFrameId("tool0")]
    j6 = tool0.parentJoint
    motor = next(c for c in json.loads(DEMO_RIG.read_text())["chain"] if c["name"] == "motor")
    holder = json.loads(DEMO_RIG.read_text())["parts"]["holder"]
    density = {m["name"]: m for m in json.loads((RESOURCES / "materials.json").read_text())["materials"]}
    r, length = holder["geometry"]["radius"], holder["geometry"]["length"]
    mh = density[holder["material"]]["density"] * math.pi * r * r * length
    ih = np.diag([mh * (3 * r * r + length**2) / 12] * 2 + [mh * r * r / 2])
    for mass, inertia, at in ((0.0, np.diag([0.0, 0.0, motor["inertia"]["value"]]), (0, 0, 0)),
                              (mh, ih, holder["at"]["value"]),
                              (MASS_BALL, np.eye(3) * 0.4 * MASS_BALL * R_BALL**2, (0, 0, 0.025))):
        model.appendBodyToJoint(j6, pin.Inertia(mass, np.zeros(3), inertia),
                                tool0.placement * pin.SE3(np.eye(3), np.array(at, float)))
    names = list(arm.joint_names)
    index = [model.joints[model.getJointId(j)] for j in names]
    model.armature = np.zeros(model.nv)
    for j, a in zip(index, arm.armature, strict=True):
        model.armature[j.idx_v] = a
    data = model.createData()

    def pin_q(theta):
        q = pin.neutral(model)
        for j, x in zip(index, theta, strict=True):
            if j.nq == 2:
                q[j.idx_q:j.idx_q + 2] = math.cos(x), math.sin(x)
            else:
                q[j.idx_q] = x
        return q

    def pin_v(x):
        out = np.zeros(model.nv)
        for j, value in zip(index, x, strict=True):
            out[j.idx_v] = value
        return out

    def ours(x):
        return np.array([x[j.idx_v] for j in index])

    T, dt = 200, 2e-3
    start = built.play(np.tile(built.initial_commands(), (1, 1)), 0.01).initial["arm"].joint_positions
    hold = ours(pin.rnea(model, data, pin_q(start), np.zeros(model.nv), np.zeros(model.nv)))
    commands = np.tile(built.initial_commands(), (T, 1))
    traj = play_driven(built, commands, {"arm.joint_torques": np.tile(hold, (T, 1))}, dt).segments["arm"]
    world = rig.magnets["world"]
    fixed = (np.array(world.at), MOMENT * np.array(world.magnetisation) / np.linalg.norm(world.magnetisation))
    damping, friction = ours(model.damping), ours(model.friction)
    theta, v = np.array(start), np.zeros(len(names))
    for n in range(T):
        q = pin_q(theta)
        pin.forwardKinematics(model, data, q)
        X = data.oMi[j6] * tool0.placement
        centre = X.rotation @ [0.0, 0.0, 0.025] + X.translation
        fext, _, _ = _fext(model, data, j6, centre, MOMENT * X.rotation @ [1.0, 0.0, 0.0], [fixed])
        tau = hold - damping * v - friction * np.tanh(v / FRICTION_VELOCITY)
        a = ours(pin.aba(model, data, q, pin_v(v), pin_v(tau), fext))
        v = v + dt * a
        theta = theta + dt * v
        np.testing.assert_allclose(traj.joint_positions[n], theta, rtol=0, atol=1e-10, err_msg=f"step {n}")
    bare = play_driven(built, commands, {"arm.joint_torques": np.tile(hold, (T, 1))}, dt, magnets=False)
    assert np.abs(bare.segments["arm"].joint_positions[-1] - traj.joint_positions[-1]).max() > 1e-4


def test_a_rider_driven_by_torques_turns_toward_the_magnet_as_pinocchios_aba(tmp_path):
    """The motor alone driven (no torque), the arm holding still: its rotor's ball, magnetised across the
    shaft, turns toward the world ball's field like a compass needle: a one-joint Pinocchio model at the
    rotor's place, stepped the same way with the test's own wrench, to 1e-10."""
    rig = compass_rig()
    built = rig.build()
    T, dt = 300, 1e-3
    commands = np.tile(built.initial_commands(), (T, 1))
    traj = play_driven(built, commands, {"motor.torque": np.zeros(T)}, dt)
    shaft = traj.segments["motor"]
    np.testing.assert_allclose(traj.segments["arm"].joint_positions, np.tile(
        traj.initial["arm"].joint_positions, (T, 1)), atol=1e-12)
    stator = traj.initial["motor"].frame_poses[built.articulation("motor").frame_index("rotor")]
    model = pin.Model()
    joint = model.addJoint(0, pin.JointModelRZ(), pin.SE3(stator[:3, :3], stator[:3, 3]), "shaft")
    holder = json.loads(DEMO_RIG.read_text())["parts"]["holder"]
    density = {m["name"]: m for m in json.loads((RESOURCES / "materials.json").read_text())["materials"]}
    r, length = holder["geometry"]["radius"], holder["geometry"]["length"]
    mh = density[holder["material"]]["density"] * math.pi * r * r * length
    ih = np.diag([mh * (3 * r * r + length**2) / 12] * 2 + [mh * r * r / 2])
    rotor = next(c for c in json.loads(DEMO_RIG.read_text())["chain"] if c["name"] == "motor")["inertia"]
    for mass, inertia, at in ((0.0, np.diag([0.0, 0.0, rotor["value"]]), (0, 0, 0)),
                              (mh, ih, holder["at"]["value"]),
                              (MASS_BALL, np.eye(3) * 0.4 * MASS_BALL * R_BALL**2, (0, 0, 0.025))):
        model.appendBodyToJoint(joint, pin.Inertia(mass, np.zeros(3), inertia),
                                pin.SE3(np.eye(3), np.array(at, float)))
    model.gravity = pin.Motion(np.array([0.0, 0.0, -9.81]), np.zeros(3))
    data = model.createData()
    world = rig.magnets["world"]
    fixed = (np.array(world.at), MOMENT * np.array(world.magnetisation) / np.linalg.norm(world.magnetisation))
    q, v = np.zeros(1), np.zeros(1)
    for n in range(T):
        pin.forwardKinematics(model, data, q)
        oMi = data.oMi[joint]
        centre = oMi.rotation @ [0.0, 0.0, 0.025] + oMi.translation
        fext, _, _ = _fext(model, data, joint, centre, MOMENT * oMi.rotation @ [1.0, 0.0, 0.0], [fixed])
        v = v + dt * pin.aba(model, data, q, v, np.zeros(1), fext)
        q = q + dt * v
        np.testing.assert_allclose(shaft.joint_positions[n], q, rtol=0, atol=1e-10, err_msg=f"step {n}")
    assert abs(shaft.joint_positions[:, 0]).max() > 0.1  # rad: the needle turns


def test_a_rig_without_the_pull_plays_as_before_bit_for_bit(tmp_path):
    """The demo rig (one magnet: no pair) and the spinner without its fixed ball take the compiled path:
    equal to the node's own ``play`` bit for bit, and to the run with the pull switched off."""
    built = load(DEMO_RIG).build()
    assert segment_pulls(built, ["arm", "motor"]) == {}
    T, dt = 300, 1e-3
    commands = np.tile(built.initial_commands(), (T, 1))
    torques = {"arm.joint_torques.joint_2": np.full(T, 3.0), "motor.torque": np.full(T, 1e-5)}
    traj = play_driven(built, commands, torques, dt)
    off = play_driven(built, commands, torques, dt, magnets=False)
    for name in ("arm", "motor"):
        for field in ("joint_positions", "joint_velocities", "frame_poses", "frame_angular_velocities"):
            np.testing.assert_array_equal(getattr(traj.segments[name], field),
                                          getattr(off.segments[name], field))
    s = built.segments["arm"]
    node = DynamicArmNode(s.dynamics_articulation, placement=s.placement)
    u = np.zeros((T, 6))
    u[:, 1] = 3.0
    direct = node.play(u, dt, traj.initial["arm"].joint_positions)
    np.testing.assert_array_equal(traj.segments["arm"].joint_positions, direct.joint_positions)
    np.testing.assert_array_equal(traj.segments["arm"].frame_poses, direct.frame_poses)
    spinner = _spinner(tmp_path, fixed=False).build()
    assert segment_pulls(spinner, ["arm"]) == {}


def test_mime_gui_play_says_the_torque_driven_segments_feel_the_pull(tmp_path, capsys):
    """``mime-gui play`` of the compass: the motor turns as in :func:`play_driven`, and the summary's line of
    the magnets' pull says the motor's forward dynamics feel it (with ``--torques`` and without)."""
    rig = compass_rig()
    path = tmp_path / "compass.rig.json"
    save(rig, path)
    commands = tmp_path / "cmd.csv"
    commands.write_text("time,motor.torque\n0,0\n0.1,0\n")
    out = tmp_path / "out.npz"
    assert main(["play", str(path), "--commands", str(commands), "--dt", "0.001", "--out", str(out),
                 "--torques"]) == 0
    text = capsys.readouterr().out
    line = next(x for x in text.splitlines() if "magnets' pull on each other" in x)
    assert "(magnet_torques); the forward dynamics of motor (torque-driven) feel it" in line, text
    data = np.load(out)
    built = rig.build()
    T = len(data["time"])
    expected = play_driven(built, np.tile(built.initial_commands(), (T, 1)), {"motor.torque": np.zeros(T)},
                           0.001)
    shaft = list(data["joint_names"]).index("motor.shaft")
    np.testing.assert_allclose(data["joint_positions"][:, shaft],
                               expected.segments["motor"].joint_positions[:, 0], rtol=0, atol=1e-12)
    assert abs(data["joint_positions"][-1, shaft]) > 0.01
    assert main(["play", str(path), "--commands", str(commands), "--dt", "0.001", "--out", str(out)]) == 0
    assert "  magnets' pull on each other: the forward dynamics of motor (torque-driven) feel it" in \
        capsys.readouterr().out.splitlines()
    assert main(["play", str(DEMO_RIG), "--commands", str(commands), "--dt", "0.001", "--out", str(out)]) == 0
    assert "magnets' pull" not in capsys.readouterr().out
