"""Fixtures of the session tests."""

from __future__ import annotations

import pytest

from mime_gui import RESOURCES
from mime_gui.session import Session
from mime_gui.session.transport import Transport


@pytest.fixture
def demo():
    """The demo rig open in a Session, and the Transport whose clock drives it."""
    session = Session()
    session.open(RESOURCES / "demo" / "demo.rig.json")
    return session, Transport(session)
