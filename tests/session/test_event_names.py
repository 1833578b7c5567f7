"""Every event the session and its parts expose is named by the attribute it is reached by.

An event's name is what the log says when one of its listeners fails ("a listener of player_changed failed"),
and the only way to tell which one from a report; a name that drifted from its attribute sends whoever reads
the log to the wrong place. So every ``Event`` reachable from a Session, its components, its transport and
its live torques is checked as a class: named as its attribute (the live torques' ``updated`` says whose it
is), all names different, every event they make reached so, and the name written in the log when a listener
fails.
"""

from __future__ import annotations

import logging

import pytest

from mime_gui.session import Session
from mime_gui.session.events import Event
from mime_gui.session.transport import Transport

# the one event whose attribute alone would not say whose it is
QUALIFIED = {("LiveTorques", "updated"): "live_torques_updated"}


def _events(owner) -> list[tuple[str, str, Event]]:
    return [(type(owner).__name__, attr, value) for attr, value in vars(owner).items()
            if isinstance(value, Event) and not attr.startswith("_")]  # a private one is another's, held


def _everything():
    """A session with its transport (which holds the live torques): every event they made, and every event
    reached through an owner's public attribute."""
    made = []
    init = Event.__init__

    def recorded(self, *args, **kwargs):
        init(self, *args, **kwargs)
        made.append(self)

    Event.__init__ = recorded
    try:
        session = Session()
        transport = Transport(session)
        owners = [session, session.documents, session.view, session.motion, session.editing,
                  session.view.measures, transport, transport.live_torques]
    finally:
        Event.__init__ = init
    return made, [e for owner in owners for e in _events(owner)]


MADE, _ = _everything()
NAMES = [event.name for event in MADE]


def test_every_event_is_named_by_its_attribute():
    made, events = _everything()
    # every event made is reached here by the attribute it is offered under: none is left unchecked
    assert {id(e) for _, _, e in events} == {id(e) for e in made} and len(made) == 17
    wrong = [(owner, attr, event.name) for owner, attr, event in events
             if event.name != QUALIFIED.get((owner, attr), attr)]
    assert wrong == []


def test_no_two_events_share_a_name():
    _, events = _everything()
    by_name: dict[str, set[int]] = {}
    for _, _, event in events:
        by_name.setdefault(event.name, set()).add(id(event))
    # the session hands its parts' events on as its own: one event under two owners is one name
    assert {name: len(ids) for name, ids in by_name.items() if len(ids) > 1} == {}


@pytest.mark.parametrize("name", NAMES)
def test_a_failing_listener_is_logged_under_its_event_s_name(name, caplog):
    made, _ = _everything()
    [event] = [e for e in made if e.name == name]

    def broken(*_args):
        raise RuntimeError("broken listener")

    event.connect(broken)
    caplog.clear()
    with caplog.at_level(logging.ERROR, logger="mime_gui.session"), pytest.raises(RuntimeError):
        event.emit(None)
    assert [r.getMessage() for r in caplog.records] == [f"a listener of {event.name} failed"]
