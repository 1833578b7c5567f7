"""Every event the session and its parts expose is named by the attribute it is reached by.

An event's name is what the log says when one of its listeners fails ("a listener of player_changed failed"),
and the only way to tell which one from a report; a name that drifted from its attribute sends whoever reads
the log to the wrong place. So every ``Event`` reachable from a Session, its components, its transport and
its live torques is checked as a class: named as its attribute (the live torques' ``updated`` says whose it
is), all names different, and the name written in the log when a listener fails.
"""

from __future__ import annotations

import ast
import logging
from pathlib import Path

import pytest

import mime_gui.session
from mime_gui.session import Session
from mime_gui.session.events import Event
from mime_gui.session.live_torques import LiveTorques
from mime_gui.session.transport import Transport

# the one event whose attribute alone would not say whose it is
QUALIFIED = {("LiveTorques", "updated"): "live_torques_updated"}


def _made_in_source() -> int:
    """How many ``Event(...)`` the session package constructs: every one must be reached below."""
    folder = Path(mime_gui.session.__file__).parent
    return sum(isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Event"
               for path in folder.glob("*.py") for node in ast.walk(ast.parse(path.read_text("utf-8"))))


MADE = _made_in_source()


def _events(owner) -> list[tuple[str, str, Event]]:
    return [(type(owner).__name__, attr, value) for attr, value in vars(owner).items()
            if isinstance(value, Event) and not attr.startswith("_")]  # a private one is another's, held


def _everything():
    session = Session()
    owners = [session, session.documents, session.view, session.motion, session.editing,
              session.view.measures, Transport(session), LiveTorques(session)]
    return session, [e for owner in owners for e in _events(owner)]


def test_every_event_is_named_by_its_attribute():
    _, events = _everything()
    assert len({id(e) for _, _, e in events}) == MADE == 17  # none made where this test does not look
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


@pytest.mark.parametrize("index", range(MADE))
def test_a_failing_listener_is_logged_under_its_event_s_name(index, caplog):
    _, events = _everything()
    unique = list({id(e): e for _, _, e in events}.values())
    assert len(unique) == MADE  # every distinct event, one case each
    event = unique[index]

    def broken(*_args):
        raise RuntimeError("broken listener")

    event.connect(broken)
    caplog.clear()
    with caplog.at_level(logging.ERROR, logger="mime_gui.session"), pytest.raises(RuntimeError):
        event.emit(None)
    assert [r.getMessage() for r in caplog.records] == [f"a listener of {event.name} failed"]
