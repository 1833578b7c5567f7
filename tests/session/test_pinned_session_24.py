"""Pins two session contracts: disconnecting one object's bound method from an event leaves the same method
of another object connected (and a second LiveTorques on one session goes on after the first is detached);
an undo history past its limit that drops the step leading to the saved state keeps the saved mark, so
undoing back to it is no modification."""

from __future__ import annotations

from mime_gui import RESOURCES
from mime_gui.session import Session
from mime_gui.session.events import Event
from mime_gui.session.history import History, Step
from mime_gui.session.live_torques import LiveTorques
from mime_gui.session.transport import Transport

DEMO = RESOURCES / "demo"


class _Listener:
    def __init__(self):
        self.seen = []

    def heard(self, value):
        self.seen.append(value)


def test_disconnecting_one_objects_method_leaves_another_objects_same_method_connected():
    event = Event("changed")
    first, second = _Listener(), _Listener()
    event.connect(first.heard)
    event.connect(second.heard)
    # the same function bound to two objects: two listeners, told apart by their object
    event.disconnect(second.heard)
    event.emit(7)
    assert first.seen == [7] and second.seen == []
    assert len(event) == 1
    event.disconnect(first.heard)
    event.emit(8)
    assert first.seen == [7] and len(event) == 0


def test_a_second_live_torques_goes_on_after_the_first_is_detached():
    session = Session()
    session.open(DEMO / "demo.rig.json")
    transport = Transport(session)
    first, second = LiveTorques(session), LiveTorques(session)
    first.detach()  # its listeners only: the second's bound methods of the same functions stay
    session.set_command("arm", {"joint_1": 0.2})
    transport.tick(0.01)
    transport.tick(0.01)
    assert first.steps == 0 and second.steps == 2
    assert len(second.series().time) == 2
    second.detach()


def test_undoing_back_to_the_saved_state_after_the_oldest_step_is_dropped_is_no_modification():
    history = History(limit=2, clock=lambda: 0.0)
    history.push(Step("a", 0, 1))
    history.mark_saved()  # saved after the first step
    history.push(Step("b", 1, 2))
    history.push(Step("c", 2, 3))  # past the limit: step "a" is dropped, the saved state is now the start
    assert len(history) == 2 and history.modified
    history.undo()
    assert history.modified
    history.undo()  # back at rig 1, the saved one
    assert not history.can_undo
    assert not history.modified
    history.redo()
    assert history.modified
