"""Torques of a carrier with its riders moving on it: Pinocchio's model of the arm with the motors appended as
joints is the oracle, and the rotor's reaction on a still arm is checked by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from rig_helpers import DEMO_URDF, snippet_rig
from robot_data import robot_urdf
from test_payload import _rig, _rot_x4, _translate

from mime_gui.multibody import inverse_dynamics
from mime_gui.rig import Arm, Motor, Part, Sphere, kg_m2

pin = pytest.importorskip("pinocchio")

ROBOTS = {"demo": (DEMO_URDF, "link_6"), "ur5": ("ur_description/urdf/ur5_robot.urdf", "tool0"),
          "panda": ("panda_description/urdf/panda.urdf", "panda_link8")}
#: the demo arm bent so that gravity loads its joints (upright, it holds its weight on its axes alone)
BENT = {"joint_1": 0.1, "joint_2": 0.7, "joint_4": 0.5, "joint_5": -0.4}


def _se3(X):
    return pin.SE3(X[:3, :3], X[:3, 3])


def _cylinder(density, r, length):
    m = density * math.pi * r * r * length
    ixx = m * (3 * r * r + length * length) / 12
    return m, np.diag([ixx, ixx, m * r * r / 2])


def _arm_with_motors(built, path=DEMO_URDF, flange="link_6"):
    """The arm as Pinocchio reads it, the motor appended on ``flange`` as a joint about its z, the spindle on
    the motor's rotor, each with its rotor inertia and the parts on it (the rig of :func:`_riders_rig`)."""
    model = pin.buildModelFromUrdf(str(path))
    frame = model.frames[model.getFrameId(flange)]
    stator = frame.placement.homogeneous @ _translate((0.0, 0.01, 0.03)) @ _rot_x4(0.6)
    motor = model.addJoint(frame.parentJoint, pin.JointModelRZ(), _se3(stator), "motor")
    report = built.report

    def body(joint, X, mass, inertia):
        model.appendBodyToJoint(joint, pin.Inertia(mass, np.zeros(3), inertia), _se3(X))

    body(motor, np.eye(4), 0.0, np.diag([0.0, 0.0, 3e-6]))
    for name, at in (("holder", (0.02, 0.0, 0.01)), ("m1", (0.0, 0.0, 0.025))):
        p = report.part(name)
        geometry = p["geometry"]
        body(motor, _translate(at), *_cylinder(p["density"], geometry["radius"], geometry["length"]))
    spindle = model.addJoint(motor, pin.JointModelRZ(), _se3(_translate((0.0, 0.0, 0.04))), "spindle")
    body(spindle, np.eye(4), 0.0, np.diag([0.0, 0.0, 1e-6]))
    body(spindle, _translate((0.01, 0.0, 0.0)), *_cylinder(report.part("cap")["density"], 0.004, 0.01))
    return model


def _riders_rig(path, flange):
    """A robot written by others carrying the rig of test_payload on its flange: the motor turned on it with
    an off-axis holder, and a spindle riding on the rotor."""
    rig = _rig()
    probe = Arm.Dynamic(description=str(path)).tree().compile()
    rig.chain["arm"] = Arm.Dynamic(description=str(path),
                                   armature={probe.joint_names[1]: kg_m2(0.02, reason="a test figure")},
                                   initial_positions={probe.joint_names[1]: 0.4, probe.joint_names[3]: -0.6})
    rig.chain["motor"].mount = f"arm.{flange}"
    return rig


def _pin_vector(model, per_joint: dict[str, float]) -> np.ndarray:
    """A q (or v) of Pinocchio's model from joint name → value; continuous joints take (cos, sin) in q."""
    out = np.zeros(model.nv)
    for name, value in per_joint.items():
        out[model.joints[model.getJointId(name)].idx_v] = value
    return out


def _played(built, T=250, dt=0.004):
    t = dt * np.arange(T)[:, None]
    ramp = 1 - np.exp(-t / 0.05)
    n = len(built.command_names)
    commands = 0.5 * np.sin(3.0 * t + np.arange(n)) * ramp
    spin = built.command_names.index("motor.shaft")
    commands[:, spin] = 40.0 * t[:, 0] ** 2  # the rotor spun up, 80 rad/s² (a continuous joint: unclamped)
    commands[:, built.command_names.index("spindle.shaft")] = -25.0 * t[:, 0]
    return built.play(commands, dt, servo_time_constant=0.01), dt


@pytest.mark.parametrize("robot", ["demo", "ur5", "panda"])
def test_a_carrier_torques_equal_pinocchio_rnea_of_the_arm_with_its_motors_as_joints(robot):
    """The arm carries the motor (turned on the flange, an off-axis holder) and a spindle riding on the
    rotor: each step's arm torques are the RNEA of the whole tree with every joint's rates; on the demo arm
    and on UR5 and Panda from example-robot-data."""
    path, flange = ROBOTS[robot]
    path = path if robot == "demo" else robot_urdf(path)
    built = (_rig() if robot == "demo" else _riders_rig(path, flange)).build()
    trajectory, dt = _played(built)
    torques = built.torques(trajectory)
    model = _arm_with_motors(built, path, flange)
    # the motors' revolute joints are Pinocchio's RZ (nq 1): the continuous arm joint_6 is its (cos, sin)
    arm = built.articulation("arm")
    names = {"arm": list(arm.joint_names), "motor": ["motor"], "spindle": ["spindle"]}
    model.armature = _pin_vector(model, {**dict(zip(arm.joint_names, arm.armature, strict=True)),
                                         "motor": built.articulation("motor").armature[0],
                                         "spindle": built.articulation("spindle").armature[0]})
    data = model.createData()
    q, v, a = {}, {}, {}
    for seg, joints in names.items():
        qs = trajectory.segments[seg].joint_positions
        q0 = trajectory.initial[seg].joint_positions
        vs = np.diff(np.vstack([q0, qs]), axis=0) / dt
        a_s = np.diff(np.vstack([np.zeros(len(joints)), vs]), axis=0) / dt
        for k, j in enumerate(joints):
            q[j], v[j], a[j] = qs[:, k], vs[:, k], a_s[:, k]
    arm_v = [model.joints[model.getJointId(j)].idx_v for j in arm.joint_names]
    cols = [torques.joint_names.index(f"arm.{j}") for j in arm.joint_names]
    assert np.abs(v["motor"]).max() > 10  # the rotor does spin
    for n in range(len(trajectory)):
        pq = np.zeros(model.nq)
        for name, values in q.items():
            j = model.joints[model.getJointId(name)]
            if j.nq == 2:
                pq[j.idx_q:j.idx_q + 2] = math.cos(values[n]), math.sin(values[n])
            else:
                pq[j.idx_q] = values[n]
        pv = _pin_vector(model, {j: x[n] for j, x in v.items()})
        pa = _pin_vector(model, {j: x[n] for j, x in a.items()})
        ref = pin.rnea(model, data, pq, pv, pa)[arm_v]
        np.testing.assert_allclose(torques.joint_torques[n, cols], ref, rtol=1e-9, atol=1e-9,
                                   err_msg=f"step {n}")


def test_the_rotor_spun_up_on_a_still_arm_turns_the_arm_the_other_way():
    """With the arm held still (bent), the rotor spun up about the flange's z: the parts sit on the axis, so
    the arm feels a pure couple, the rotor's inertia about the axis times its acceleration, and each joint
    holds its share of it (its axis · the shaft's) over the arm's torque at rest; the rigid payload would
    give none."""
    rig = snippet_rig()
    rig.chain["arm"].initial_positions = BENT
    built = rig.build()
    T, dt = 200, 0.002
    t = dt * np.arange(T)
    trajectory = built.play({"motor.shaft": 150.0 * t ** 2}, dt)  # 300 rad/s², the arm's commands held
    torques = built.torques(trajectory)
    still = built.torques(built.play({"motor.shaft": np.zeros(T)}, dt))
    shaft = torques.joint_names.index("motor.shaft")
    rotor_z = 3e-6 + sum(p["inertia_about_centroid"][2][2] for p in built.report["parts"])
    alpha = np.diff(torques.joint_velocities[:, shaft], prepend=0.0) / dt
    assert np.abs(alpha).max() > 100
    couple = rotor_z * alpha
    # the shaft's own torque is that couple and its armature's share
    np.testing.assert_allclose(torques.joint_torques[:, shaft] - torques.armature_torques[:, shaft], couple,
                               rtol=1e-9, atol=1e-12)
    art = built.articulation("arm")
    poses = trajectory.segments["arm"].frame_poses[0]
    z_shaft = poses[art.frame_index("link_6"), :3, 2]
    shares = []
    for k, joint in enumerate(art.joint_names):
        # the child link's frame is the joint's
        axis = poses[art.frame_index(f"link_{k + 1}"), :3, :3] @ art.axis[k]
        column = torques.joint_names.index(f"arm.{joint}")
        reaction = torques.joint_torques[:, column] - still.joint_torques[:, column]
        share = float(axis @ z_shaft)
        np.testing.assert_allclose(reaction, share * couple, rtol=1e-7, atol=1e-12, err_msg=joint)
        shares.append(share)
    assert min(np.abs(shares)) < 0.1 < 0.9 < max(np.abs(shares))  # some joints hold it, some hardly
    assert np.abs(still.joint_torques).max() > 0.1  # and the bent arm does hold its weight


def _held(built, values: dict[str, float], T: int) -> np.ndarray:
    """Commands holding every joint at its initial position but ``values`` (command name → position)."""
    row = np.array(built.initial_commands(), dtype=float)
    for name, value in values.items():
        row[built.command_names.index(name)] = value
    return np.tile(row, (T, 1))


def _gravity_torques(built, segment="arm"):
    """The arm's torques at its initial positions, at rest, with the rigid payload welded on."""
    art = built.dynamics_articulation(segment)
    q = built.play(_held(built, {}, 1), 0.01).segments[segment].joint_positions
    return inverse_dynamics(art, q, np.zeros_like(q), np.zeros_like(q))[0]


def test_riders_at_rest_weigh_as_the_rigid_payload():
    """Held still at the initial positions, the coupled torques are gravity's on the arm with its riders
    welded on (the payload that the mass matrix and forward dynamics use)."""
    rig = _rig()
    rig.chain["arm"].initial_positions = BENT
    built = rig.build()
    torques = built.torques(built.play(_held(built, {}, 5), 0.01))
    cols = [torques.joint_names.index(f"arm.{j}") for j in built.articulation("arm").joint_names]
    ref = _gravity_torques(built)
    np.testing.assert_allclose(torques.joint_torques[:, cols], np.tile(ref, (5, 1)), rtol=1e-10, atol=1e-12)
    assert np.abs(ref).max() > 0.1


def _ball_rig(shaft: float):
    """The arm carrying a kinematic motor across its flange that swings a steel ball round off its axis."""
    rig = snippet_rig()
    rig.chain["arm"].initial_positions = BENT
    rig.chain["motor"] = Motor.Kinematic(axis=(1, 0, 0), mount="link_6", at=(0.0, 0.0, 0.05),
                                         initial_position=shaft)
    rig.parts["holder"] = Part(Sphere(radius=0.02), material="steel", at=(0.0, 0.1, 0.0), mount="motor.rotor")
    rig.magnets.clear()
    return rig


@pytest.mark.parametrize("shaft", [0.0, 1.1, math.pi])
def test_a_kinematic_rider_loads_the_arm_with_its_part_where_it_has_swung_it(shaft):
    """A kinematic motor holds no mass of its own parts, yet the arm carries them: held where the motor has
    swung it, the ball weighs on the arm as the rigid payload of a rig whose motor starts there."""
    built = _ball_rig(0.0).build()
    assert built.segments["arm"].coupled is not None
    assert built.report.part("holder")["mass"] > 0.2
    T = 5
    torques = built.torques(built.play(_held(built, {"motor.shaft": shaft}, T), 0.01,
                                       servo_time_constant=1e-9))
    cols = [torques.joint_names.index(f"arm.{j}") for j in built.articulation("arm").joint_names]
    ref = _gravity_torques(_ball_rig(shaft).build())
    # from the third step on it is still (the first steps jump there, then stop)
    np.testing.assert_allclose(torques.joint_torques[2:, cols], np.tile(ref, (T - 2, 1)), rtol=1e-9,
                               atol=1e-9)
    if shaft:  # and not as the ball hung at the start
        assert not np.allclose(ref, _gravity_torques(built), atol=1e-3)
