"""Posing by a frame in the session: Session.reach sets the commands of every segment from the world down to
the frame (the arm then follows through the exact servo lag) or places them at once; Pinocchio's model of
the whole demo rig (tests/oracle.py) gives the targets."""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracle import demo_poses

from mime_gui import RESOURCES
from mime_gui.multibody.inverse_kinematics import _rotation_log
from mime_gui.session import Session, SessionError, SetValue

TOL = 1e-9
ARM = np.array([0.3, -0.5, 0.9, 0.2, 0.6, -0.4])


@pytest.fixture
def session():
    s = Session()
    s.open(RESOURCES / "demo" / "demo.rig.json")
    return s


def _off(pose, target) -> tuple[float, float]:
    return (float(np.linalg.norm(pose[:3, 3] - target[:3, 3])),
            float(np.linalg.norm(_rotation_log(pose[:3, :3] @ target[:3, :3].T))))


def test_teleport_puts_the_frame_on_the_target_at_once(session):
    target = demo_poses(ARM, 0.8)["rotor"]
    session.set_joint_positions("arm", ARM + 0.1)
    moved = []
    session.poses_changed.connect(moved.append)
    found = session.reach("motor", "rotor", target, teleport=True)
    assert found.result.converged
    assert max(_off(session.segment("motor").frame_pose("rotor"), target)) <= TOL
    assert "arm" in moved and "motor" in moved
    np.testing.assert_array_equal(session.command("arm"), found.positions["arm"])


def test_the_answer_is_the_command_and_the_arm_follows_through_the_servo(session):
    tau = 0.05
    session.apply(SetValue("chain.arm.servo_time_constant", tau))
    start = session.joint_positions("arm")
    target = demo_poses(ARM, 0.8)["rotor"]
    found = session.reach("motor", "rotor", target)
    np.testing.assert_array_equal(session.command("arm"), found.positions["arm"])
    np.testing.assert_array_equal(session.joint_positions("arm"), start)  # not there yet
    dt = 0.01
    session.tick(dt)
    lagged = found.positions["arm"] + (start - found.positions["arm"]) * math.exp(-dt / tau)
    np.testing.assert_allclose(session.joint_positions("arm"), lagged, rtol=0, atol=1e-12)
    for _ in range(300):  # 3 s: e^-60 of the way left
        session.tick(dt)
    assert max(_off(session.segment("motor").frame_pose("rotor"), target)) <= TOL


def test_a_point_out_of_reach_says_how_far_it_stayed(session):
    found = session.reach("arm", "tool0", [5.0, 0.0, 0.5], orientation=False, teleport=True,
                          max_iterations=500)
    assert not found.result.converged
    tool0 = session.segment("arm").frame_pose("tool0")
    assert found.result.position_error == pytest.approx(np.linalg.norm(tool0[:3, 3] - [5.0, 0.0, 0.5]),
                                                        rel=1e-9)


def test_refusals_are_coded_and_change_nothing(session):
    errors = []
    session.error.connect(errors.append)
    before = session.command("arm")
    with pytest.raises(SessionError) as err:
        session.reach("motor", "flange", np.eye(4))
    assert err.value.code == "ik.frame" and errors[-1] is err.value
    with pytest.raises(SessionError) as err:
        session.reach("motor", "rotor", np.full((4, 4), np.nan))
    assert err.value.code == "ik.target"
    with pytest.raises(SessionError) as err:
        session.reach("table", "rotor", np.eye(4))
    assert err.value.code == "session.segment"
    session.set_drive("arm", "torques")
    with pytest.raises(SessionError) as err:
        session.reach("motor", "rotor", demo_poses(ARM)["rotor"])
    assert err.value.code == "session.reach-torques" and "arm" in err.value.message
    np.testing.assert_array_equal(session.command("arm"), before)
