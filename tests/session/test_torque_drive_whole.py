"""A torque drive's step, whole: a torque-driven rider's frames turn with its mount (the mount's rate reaches
the state it publishes); a rider that diverges stays on its mount, where it was; a mounted drive steps under
its node's own gravity, as its holding torques at rest take it; and the magnets' pull is felt only when the
states of every segment a magnet rides on are given (none given, or one missing: no pull)."""

from __future__ import annotations

import numpy as np
from magnet_rigs import compass_rig

from mime_gui import RESOURCES
from mime_gui.nodes.dynamic import DynamicArmNode
from mime_gui.rig import Cylinder, Part, kg, load
from mime_gui.rig.pulled import segment_pulls
from mime_gui.session import Session
from mime_gui.session.torque_drive import TorqueDrive
from mime_gui.session.transport import Transport

DEMO = RESOURCES / "demo" / "demo.rig.json"
DT = 0.01


def _open(rig):
    session = Session()
    session.open_apparatus(rig)
    assert session.findings == ()
    return session, Transport(session)


def _weighted():
    """The demo rig with a 0.2 kg weight 3 cm off the motor's shaft: the shaft feels gravity."""
    rig = load(DEMO)
    rig.parts["weight"] = Part(Cylinder(radius=0.01, length=0.02), mass=kg(0.2, reason="weighed"),
                               at=(0.0, 0.03, 0.0), mount="motor.rotor")
    return rig


def _motor_drive(session, pull=None, gravity=(0.0, 0.0, -9.81)):
    """A torque drive of the motor (mounted on the arm's flange) built as the session builds one, with the
    node's ``gravity``; and the arm's flange pose, where the motor's mount is."""
    built = session.document.built
    seg = built.segments["motor"]
    node = DynamicArmNode(seg.dynamics_articulation, placement=seg.placement, gravity=gravity)
    flange = session.segment("arm").world_X_frame[session.segment("arm").articulation.frame_index("tool0")]
    flange = np.array(flange, dtype=float)
    pose = flange @ np.asarray(seg.placement, dtype=float)  # the motor's base, where the drive starts
    drive = TorqueDrive(node, built.node("motor"), True, pose, pull)
    return drive, flange


def test_a_torque_driven_rider_s_frames_turn_with_its_mount():
    session, transport = _open(load(DEMO))
    session.set_drive("motor", "torques")
    q = session.joint_positions("arm").copy()
    for _ in range(5):  # the arm turns under the motor
        q[0] += 0.01
        q[3] += 0.02
        session.set_command("arm", q)
        transport.tick(DT)
    flange = session.frame_angular_velocity("arm", "tool0")
    assert np.linalg.norm(flange) > 0.5  # rad/s
    # the stator is fixed to the motor's base, so it turns exactly as the flange it is mounted on
    np.testing.assert_array_equal(session.frame_angular_velocity("motor", "stator"), flange)
    # the rotor turns with the flange and about the shaft besides: relative to the flange, at the shaft's rate
    rotor = session.frame_angular_velocity("motor", "rotor")
    shaft = session.joint_velocities("motor")[0]
    assert abs(shaft) > 0.1
    np.testing.assert_allclose(np.linalg.norm(rotor - flange), abs(shaft), rtol=1e-12)


def test_a_diverging_rider_stops_on_its_mount_where_it_was():
    session, transport = _open(load(DEMO))
    motor = session.segment("motor")
    before = np.array(motor.world_X_frame)
    assert not np.allclose(before[0], np.eye(4))  # the flange is away from the world's origin
    session.set_drive("motor", "torques")
    session.set_torques("motor", [1e308])
    transport.tick(DT)
    assert session.drive("motor") == "positions"  # it diverged
    # the arm stays put (its command is where it is), so the motor's frames are where they were
    np.testing.assert_allclose(session.segment("motor").world_X_frame, before, rtol=0, atol=1e-12)


def test_a_mounted_drive_steps_under_its_node_s_gravity():
    # a node with no gravity: unpowered and at rest on a still mount, the weighted shaft stays exactly at rest
    # (under the earth's gravity, the weight 3 cm off the shaft would turn it)
    session, _ = _open(_weighted())
    drive, flange = _motor_drive(session, gravity=(0.0, 0.0, 0.0))
    start = drive.kinematic.initial_state(session.joint_positions("motor"), mount_pose=flange)
    np.testing.assert_array_equal(drive.holding(start), [0.0])
    diverged = []
    new = drive.driver("motor", DT, diverged)(start, flange, np.zeros(3))
    assert diverged == []
    np.testing.assert_array_equal(new.joint_velocities, [0.0])
    np.testing.assert_array_equal(new.joint_positions, start.joint_positions)
    # the same drive under the earth's gravity: the weight turns the shaft (the test can tell them apart)
    earth, _ = _motor_drive(session)
    moved = earth.driver("motor", DT, [])(start, flange, np.zeros(3))
    assert abs(moved.joint_velocities[0]) > 1e-3


def test_the_pull_is_felt_only_with_the_states_of_every_segment_its_magnets_ride_on():
    session, _ = _open(compass_rig())
    pull = segment_pulls(session.document.built, ["motor"])["motor"]
    assert pull.segments == {"motor"}  # the other magnet is in the world
    pulled, flange = _motor_drive(session, pull)
    free, _ = _motor_drive(session)
    state = session.state("motor")
    everyone = {n: session.state(n) for n in session.segments}
    # with every segment's state, the pull turns the shaft: the holding torques hold against it
    assert abs(pulled.holding(state, everyone)[0] - free.holding(state)[0]) > 1e-5
    # no states, or none of the motor (a magnet rides on it): no pull, as with no magnets at all
    for states in (None, {"arm": session.state("arm")}):
        np.testing.assert_array_equal(pulled.holding(state, states), free.holding(state))
    for states in (None, {"arm": session.state("arm")}):
        p, f = _motor_drive(session, pull)[0], _motor_drive(session)[0]
        a = p.driver("motor", DT, [], states)(state, flange, np.zeros(3))
        b = f.driver("motor", DT, [])(state, flange, np.zeros(3))
        np.testing.assert_array_equal(a.joint_positions, b.joint_positions)
        np.testing.assert_array_equal(a.joint_velocities, b.joint_velocities)
