"""Motion's refusals and no-ops through the session: a command naming a mimic follower or an unknown joint,
a step that is no positive number of seconds, a tick with nothing open, a drive asked for again, torques
naming an unknown joint."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mime_gui.rig import Apparatus, Arm
from mime_gui.session import Session, SessionError

#: two 10 cm links folding about z, the second following the first (mimic)
FOLD_URDF = """<robot name="fold">
  <link name="base"/><link name="a"/><link name="b"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="a"/>
    <axis xyz="0 0 1"/><limit lower="-1.0" upper="1.0" effort="1" velocity="1"/></joint>
  <joint name="j2" type="revolute"><parent link="a"/><child link="b"/><origin xyz="0.1 0 0"/>
    <axis xyz="0 0 1"/><limit lower="-0.5" upper="0.5" effort="1" velocity="1"/>
    <mimic joint="j1" multiplier="1" offset="0"/></joint>
</robot>
"""
DT = 0.01


@pytest.fixture
def fold(tmp_path):
    urdf = tmp_path / "fold.urdf"
    urdf.write_text(FOLD_URDF)
    session = Session()
    session.open_apparatus(Apparatus("fold", chain={"arm": Arm.Kinematic(description=str(urdf))}))
    errors = []
    session.error.connect(errors.append)
    return session, errors


def test_a_command_naming_a_mimic_follower_is_refused_pointing_to_its_master(fold):
    session, errors = fold
    assert session.command_names("arm") == ("j1",)
    with pytest.raises(SessionError) as err:
        session.set_command("arm", {"j2": 0.1})
    assert err.value.code == "session.joint"
    assert err.value.message == "joint 'j2' of 'arm' follows another (mimic); command its master"
    assert errors == [err.value]
    np.testing.assert_array_equal(session.command("arm"), [0.0])


def test_a_command_naming_an_unknown_joint_is_refused_listing_the_commanded_ones(fold):
    session, errors = fold
    with pytest.raises(SessionError) as err:
        session.set_command("arm", {"j1": 0.2, "elbow": 0.1})
    assert err.value.code == "session.joint"
    assert err.value.message == "no joint 'elbow' in 'arm'; joints: j1"
    np.testing.assert_array_equal(session.command("arm"), [0.0])  # nothing of the mapping was kept
    session.set_command("arm", {"j1": 0.2})
    np.testing.assert_array_equal(session.command("arm"), [0.2])


@pytest.mark.parametrize("dt", [0.0, -0.01, math.nan, math.inf], ids=["zero", "negative", "nan", "inf"])
def test_a_step_that_is_no_positive_number_of_seconds_is_refused(fold, dt):
    session, errors = fold
    steps = []
    session.stepped.connect(lambda *args: steps.append(args))
    session.set_command("arm", [0.5])
    with pytest.raises(SessionError) as err:
        session.tick(dt)
    assert err.value.code == "session.dt"
    assert err.value.message == f"a step is a positive number of seconds, got {float(dt)}"
    assert errors == [err.value] and steps == []
    np.testing.assert_array_equal(session.joint_positions("arm"), [0.0, 0.0])


def test_a_tick_with_nothing_open_takes_no_step_and_refuses_nothing():
    session = Session()
    steps, errors = [], []
    session.stepped.connect(lambda *args: steps.append(args))
    session.error.connect(errors.append)
    session.tick(-1.0)  # nothing to step: not even the step is looked at
    session.tick(DT)
    assert steps == [] and errors == []


def test_a_drive_asked_for_again_keeps_the_segment_moving_as_it_was(demo):
    session, transport = demo
    changes = []
    session.drive_changed.connect(lambda s, d: changes.append((s, d)))
    session.set_drive("motor", "torques")
    session.set_torques("motor", {"shaft": 0.01})
    for _ in range(5):
        transport.tick(DT)
    v = session.joint_velocities("motor").copy()
    assert v[0] > 0
    session.set_drive("motor", "torques")
    session.set_drive("arm", "positions")
    assert changes == [("motor", "torques")]
    np.testing.assert_array_equal(session.joint_velocities("motor"), v)  # not put at rest again
    np.testing.assert_array_equal(session.applied_torques("motor"), [0.01])


def test_torques_naming_an_unknown_joint_are_refused_listing_the_segment_s_joints(demo):
    session, _ = demo
    session.set_drive("motor", "torques")
    assert session.torque_names("motor") == ("shaft",)
    with pytest.raises(SessionError) as err:
        session.set_torques("motor", {"shaft": 0.02, "joint_1": 1.0})
    assert err.value.code == "session.joint"
    assert err.value.message == "no joint 'joint_1' in 'motor'; joints: shaft"
    np.testing.assert_array_equal(session.applied_torques("motor"), [0.0])
