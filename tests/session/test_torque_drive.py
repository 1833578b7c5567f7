"""Torque driving without Qt: a dynamic segment advanced by forward dynamics on the live clock, what rides on
it following, the coded refusals, divergence, and the live torques showing the torques applied."""

from __future__ import annotations

import numpy as np
import pytest
from robot_data import MASSLESS_TIP_URDF

from mime_gui import RESOURCES
from mime_gui.nodes.dynamic import DynamicArmNode
from mime_gui.session import Session, SessionError, SetValue
from mime_gui.session.player import PlayerError

DEMO = RESOURCES / "demo"
DT = 0.01


def test_an_unpowered_arm_falls_and_its_rider_follows(demo):
    session, transport = demo
    changes = []
    session.drive_changed.connect(lambda s, d: changes.append((s, d)))
    q0 = session.joint_positions("arm")
    motor0 = session.segment("motor").world_X_frame.copy()
    session.set_drive("arm", "torques")
    assert session.drive("arm") == "torques" and changes == [("arm", "torques")]
    np.testing.assert_array_equal(session.applied_torques("arm"), 0.0)
    for _ in range(5):
        transport.tick(DT)
    q = session.joint_positions("arm")
    j2 = session.segment("arm").articulation.joint_index("joint_2")
    assert not np.allclose(q, q0)
    assert abs(session.joint_velocities("arm")[j2]) > 1e-3  # gravity pulls the unpowered arm
    assert not np.allclose(session.segment("motor").world_X_frame, motor0)  # the rider follows
    # the same steps by the node itself (the session adds nothing of its own)
    built = session.document.built.segments["arm"]
    node = DynamicArmNode(built.dynamics_articulation, placement=built.placement)
    qn, vn = q0, np.zeros_like(q0)
    g = np.asarray(built.placement)[:3, :3].T @ node.gravity
    for _ in range(5):
        state, vn = node.advance(qn, vn, np.zeros_like(q0), DT, (None, None, g))
        qn = state.joint_positions
    np.testing.assert_allclose(q, qn, rtol=0, atol=1e-12)


def test_a_torque_turns_the_joint_its_way_and_positions_hold_it_again(demo):
    session, transport = demo
    session.set_drive("motor", "torques")  # a motor riding on the arm
    before = session.joint_positions("motor")[0]
    session.set_torques("motor", {"shaft": 0.01})
    for _ in range(10):
        transport.tick(DT)
    after = session.joint_positions("motor")[0]
    assert after > before and session.joint_velocities("motor")[0] > 0
    # the live torques show the torque applied, not inverse dynamics
    live = transport.live_torques
    np.testing.assert_allclose(live.last()[0][live.joint_names.index("motor.shaft")], 0.01)
    session.set_drive("motor", "positions")
    np.testing.assert_array_equal(session.command("motor"), session.joint_positions("motor"))
    held = session.joint_positions("motor")
    transport.tick(DT)
    np.testing.assert_allclose(session.joint_positions("motor"), held, atol=1e-12)


def test_refusals_are_coded(demo):
    session, transport = demo
    with pytest.raises(SessionError) as err:
        session.set_torques("arm", [1.0] * 6)
    assert err.value.code == "session.drive-positions"
    with pytest.raises(SessionError) as err:
        session.holding_torques("arm")
    assert err.value.code == "session.drive-positions"
    assert "'arm'" in err.value.message and "set_drive" in err.value.message  # the segment and the fix
    with pytest.raises(SessionError) as err:
        session.set_drive("arm", "velocity")
    assert err.value.code == "session.drive"
    session.set_drive("arm", "torques")
    with pytest.raises(SessionError) as err:
        session.set_torques("arm", {"joint_2": float("nan")})
    assert err.value.code == "session.torque-non-finite"
    with pytest.raises(SessionError) as err:
        session.set_torques("arm", [1.0, 2.0])
    assert err.value.code == "session.q-shape"
    with pytest.raises(PlayerError) as err:  # a recording holds positions
        transport.start_recording()
    assert err.value.code == "player.record-torques"
    session.set_drive("arm", "positions")
    transport.start_recording()
    with pytest.raises(SessionError) as err:
        session.set_drive("arm", "torques")
    assert err.value.code == "session.drive-recording"
    transport.stop_recording()
    session.open(DEMO / "arm.urdf")  # an Arm.Kinematic
    name = next(iter(session.segments))
    assert not session.can_drive_torques(name)
    with pytest.raises(SessionError) as err:
        session.set_drive(name, "torques")
    assert err.value.code == "session.drive-kinematic"


def test_driving_by_torques_while_recording_says_to_stop_the_recording_first(demo):
    session, transport = demo
    transport.start_recording()
    with pytest.raises(SessionError) as err:
        session.set_drive("arm", "torques")
    assert "a recording is running" in err.value.message
    assert "stop it before driving a segment by torques" in err.value.message  # the fix, as the user reads it
    assert session.drive("arm") == "positions"


def test_a_diverging_segment_stops_at_its_last_finite_state(demo):
    session, transport = demo
    errors = []
    session.error.connect(errors.append)
    session.set_drive("motor", "torques")
    session.set_torques("motor", [1e308])
    last = session.joint_positions("motor")
    transport.tick(DT)
    assert session.drive("motor") == "positions"
    assert errors and errors[-1].code == "session.diverged"
    # the node's own words (not its code again), then which segment stopped and how it is driven now
    said = errors[-1].message
    assert said.startswith("the forward dynamics of ") and "diverged" in said
    assert "'motor' stopped at its last finite state" in said and "driven by positions again" in said
    np.testing.assert_array_equal(session.joint_positions("motor"), last)
    assert np.isfinite(session.segment("motor").world_X_frame).all()
    transport.tick(DT)  # and the clock goes on


def test_an_edit_or_another_document_drives_by_positions_again(demo):
    session, transport = demo
    changes = []
    session.drive_changed.connect(lambda s, d: changes.append((s, d)))
    session.set_drive("arm", "torques")
    session.apply(SetValue("chain.arm.servo_time_constant", 0.1))
    assert session.drive("arm") == "positions" and changes[-1] == ("arm", "positions")
    session.undo()
    assert session.drive("arm") == "positions"
    session.set_drive("arm", "torques")
    session.open(DEMO / "demo.rig.json")
    assert session.drive("arm") == "positions" and changes[-1] == ("arm", "positions")


def test_a_segment_with_a_joint_that_moves_no_mass_is_refused_torque_driving(tmp_path):
    from mime_gui.rig import Apparatus, Arm

    urdf = tmp_path / "tip.urdf"
    urdf.write_text(MASSLESS_TIP_URDF)
    session = Session()
    session.open_apparatus(Apparatus("r", chain={"arm": Arm.Dynamic(description=str(urdf))}))
    assert session.can_drive_torques("arm")
    errors = []
    session.error.connect(errors.append)
    with pytest.raises(SessionError) as e:
        session.set_drive("arm", "torques")
    assert e.value.code == "dynamics.singular" and "'wrist'" in str(e.value)
    assert [err.code for err in errors] == ["dynamics.singular"]  # the window shows it
    assert session.drive("arm") == "positions"


def test_a_segment_driven_by_torques_again_starts_at_rest(demo):
    """The joint velocities live in the segment's state: a state kept across an edit that did not touch the
    segment still holds the velocities of an earlier torque drive, and a new drive starts at rest."""
    session, transport = demo
    session.set_drive("motor", "torques")
    session.set_torques("motor", {"shaft": 0.01})
    for _ in range(10):
        transport.tick(DT)
    assert session.joint_velocities("motor")[0] > 0
    assert session.state("motor").joint_velocities[0] > 0  # beside its positions
    kept = session.state("motor")
    session.apply(SetValue("name", "renamed"))  # no segment's node or pose changes
    assert session.drive("motor") == "positions" and session.state("motor") is kept
    np.testing.assert_array_equal(session.joint_velocities("motor"), 0.0)  # driven by positions
    session.set_drive("motor", "torques")
    np.testing.assert_array_equal(session.joint_velocities("motor"), 0.0)
    np.testing.assert_array_equal(session.applied_torques("motor"), 0.0)


def _weighted_demo():
    """The demo rig with a 0.2 kg weight on the motor's rotor 3 cm off its shaft: the shaft feels gravity and
    its mount's motion."""
    from mime_gui.rig import Cylinder, Part, kg, load
    from mime_gui.session.transport import Transport

    rig = load(DEMO / "demo.rig.json")
    rig.parts["weight"] = Part(Cylinder(radius=0.01, length=0.02), mass=kg(0.2, reason="weighed"),
                               at=(0.0, 0.03, 0.0), mount="motor.rotor")
    session = Session()
    session.open_apparatus(rig)
    assert session.findings == ()
    return session, Transport(session)


def test_a_torque_driven_rider_put_elsewhere_with_its_mount_is_at_rest_there():
    session, transport = _weighted_demo()
    session.set_drive("motor", "torques")
    session.set_torques("motor", {"shaft": 0.05})
    for _ in range(10):
        transport.tick(DT)
    assert abs(session.joint_velocities("motor")[0]) > 0.5
    session.set_joint_positions("arm", {"joint_1": 0.8, "joint_4": 0.6})  # the motor rides on the arm
    np.testing.assert_array_equal(session.joint_velocities("motor"), [0.0])
    held = session.holding_torques("motor")
    # the same place reached without moving: a fresh session placed there and driven by torques
    fresh, _ = _weighted_demo()
    fresh.set_joint_positions("arm", session.joint_positions("arm"))
    fresh.set_joint_positions("motor", session.joint_positions("motor"))
    fresh.set_drive("motor", "torques")
    np.testing.assert_allclose(held, fresh.holding_torques("motor"), rtol=1e-12, atol=1e-15)
    session.set_torques("motor", held)
    transport.tick(DT)  # held where it was put: no jump of its mount is felt
    assert abs(session.joint_velocities("motor")[0]) < 1e-9


def test_the_holding_torques_after_a_step_take_in_the_mount_s_motion_over_it():
    """The arm moves smoothly (its commands ramped, through its servo lag) while the motor riding on it is
    driven by torques: the torques holding the off-axis weight after a step include the arm's motion, so
    over the next 1 ms step the shaft's velocity barely changes, where without them it changes 40 times
    as much."""
    session, transport = _weighted_demo()
    session.set_drive("motor", "torques")
    step = 0.001
    q = session.joint_positions("arm").copy()

    def ramp():
        q[0] += 2.0 * step
        q[4] += 3.0 * step
        session.set_command("arm", q)
        transport.tick(step)

    for _ in range(40):
        ramp()
    session.set_torques("motor", session.holding_torques("motor"))
    v = session.joint_velocities("motor")[0]
    ramp()
    held = session.joint_velocities("motor")[0] - v
    session.set_torques("motor", [0.0])
    v = session.joint_velocities("motor")[0]
    ramp()
    unheld = session.joint_velocities("motor")[0] - v
    assert abs(unheld) > 0.1 and abs(held) < abs(unheld) / 40
