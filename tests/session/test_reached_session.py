"""A segment of no known kind added in Python and replaced by another like it, two listeners of one event
that both fail, and the first segment of the chain (mounted on nothing) put elsewhere while driven by
torques."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.rig import Apparatus, Motor
from mime_gui.session import AddItem, Event, Session, SetValue
from mime_gui.session.transport import Transport

DT = 0.01


def _gadget(x: float) -> SimpleNamespace:
    """A segment-like object of no kind the rig knows (not a dataclass), its place held as an array."""
    return SimpleNamespace(at=np.array([x, 0.0, 0.0]), orientation=(1.0, 0.0, 0.0, 0.0), mount="motor.rotor",
                           servo_time_constant=0.0, field_tolerance=None, dynamic=False, kind="gadget")


@pytest.fixture
def with_gadget():
    session = Session()
    session.open_apparatus(Apparatus("t", chain={"motor": Motor.Kinematic()}))
    session.apply(AddItem("chain", "gadget", _gadget(0.0)))
    return session


def test_a_segment_of_no_known_kind_added_in_python_is_a_finding_and_the_rest_is_drawn(with_gadget):
    findings = [(f.code, f.where, f.message) for f in with_gadget.findings]
    assert [(code, where) for code, where, _ in findings] == [("chain.description", "chain.gadget")]
    message = findings[0][2]
    assert "an Arm, a Motor or a registered kind" in message and "register_dynamics" in message
    assert "SimpleNamespace" in message
    assert list(with_gadget.document.segments) == ["motor"]
    assert with_gadget.segment("motor").articulation.joint_names == ("shaft",)


def test_replacing_a_segment_whose_values_compare_element_by_element_is_a_change(with_gadget):
    change = with_gadget.apply(SetValue("chain.gadget", _gadget(0.5)))
    assert change.paths == {"chain.gadget"}
    np.testing.assert_array_equal(with_gadget.rig.chain["gadget"].at, [0.5, 0.0, 0.0])
    assert with_gadget.can_undo
    # undo and redo find what the step touched by the same comparison
    assert with_gadget.undo().paths == {"chain.gadget"}
    np.testing.assert_array_equal(with_gadget.rig.chain["gadget"].at, [0.0, 0.0, 0.0])
    assert with_gadget.redo().paths == {"chain.gadget"}
    np.testing.assert_array_equal(with_gadget.rig.chain["gadget"].at, [0.5, 0.0, 0.0])


def test_when_two_listeners_fail_every_listener_runs_and_the_first_failure_is_raised():
    event = Event("probe")
    calls = []

    def first(x):
        calls.append(("first", x))
        raise RuntimeError("first fault")

    def second(x):
        calls.append(("second", x))
        raise KeyError("second fault")

    event.connect(first)
    event.connect(second)
    event.connect(lambda x: calls.append(("last", x)))
    with pytest.raises(RuntimeError, match="first fault"):
        event.emit(7)
    assert calls == [("first", 7), ("second", 7), ("last", 7)]


def _demo():
    session = Session()
    session.open(RESOURCES / "demo" / "demo.rig.json")
    return session, Transport(session)


def test_the_first_segment_put_elsewhere_while_driven_by_torques_is_at_rest_there():
    session, transport = _demo()
    assert session.rig.chain["arm"].mount is None  # placed in the world, mounted on nothing
    session.set_drive("arm", "torques")
    for _ in range(5):
        transport.tick(DT)  # unpowered: gravity pulls it
    assert np.max(np.abs(session.joint_velocities("arm"))) > 1e-3
    session.set_joint_positions("arm", {"joint_2": -0.3, "joint_4": -1.8})
    np.testing.assert_array_equal(session.joint_velocities("arm"), 0.0)
    # the same place reached without moving: a fresh session placed there and driven by torques
    fresh, _ = _demo()
    fresh.set_joint_positions("arm", session.joint_positions("arm"))
    fresh.set_drive("arm", "torques")
    np.testing.assert_allclose(session.holding_torques("arm"), fresh.holding_torques("arm"), rtol=1e-12,
                               atol=1e-12)
