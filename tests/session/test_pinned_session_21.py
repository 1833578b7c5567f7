"""Pinned session contracts: a listener whose object died is forgotten (so a newcomer that CPython puts at its
address is disconnected, not the dead entry); a picked point of three things that are no numbers is the coded
``measure.point`` refusal, not a numpy TypeError; the ``session.reach-torques`` refusal says "is" for one
torque-driven segment and "are" for several; a failure of the dynamics without a code of its own, met on
starting a torque drive, is refused as ``session.drive-nonphysical`` with its words."""

from __future__ import annotations

import gc

import numpy as np
import pytest
from oracle import demo_poses

from mime_gui import RESOURCES
from mime_gui.nodes.dynamic import DynamicArmNode
from mime_gui.session import ItemRef, Session, SessionError
from mime_gui.session.events import Event

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"
ARM = np.array([0.3, -0.5, 0.9, 0.2, 0.6, -0.4])
REACH_ADVICE = "driven by torques; switch back to positions to pose by a frame"


@pytest.fixture
def session():
    s = Session()
    s.open(DEMO_RIG)
    return s


# -- events: dead listeners are dropped ------------------------------------------------------------------
class Dock:
    """A window listening by a bound method; many slots give it a size class of its own, so CPython hands
    the memory of a dead one to the next one made."""

    __slots__ = (*(f"slot{i}" for i in range(40)), "__weakref__", "calls")

    def __init__(self):
        self.calls = []

    def on_change(self, *args):
        self.calls.append(args)


def _dock_at(address: int) -> Dock:
    kept = []  # docks made elsewhere stay alive so the search moves on
    for _ in range(1000):
        dock = Dock()
        if id(dock) == address:
            return dock
        kept.append(dock)
    raise AssertionError("CPython gave no new dock the dead one's address")


@pytest.mark.parametrize("look", [lambda e: e.emit("before"), len], ids=["an emit", "len"])
def test_a_dead_listener_is_forgotten_so_a_newcomer_at_its_address_is_the_one_disconnected(look):
    event = Event("selection_changed")
    closed = Dock()
    event.connect(closed.on_change)
    address = id(closed)
    del closed  # a closed dock that forgot to disconnect
    gc.collect()
    look(event)  # any walk over the listeners drops the dead one
    newcomer = _dock_at(address)
    event.connect(newcomer.on_change)
    assert len(event) == 1
    event.disconnect(newcomer.on_change)
    # a dead entry kept would share the newcomer's key, be removed instead, and leave the newcomer connected
    event.emit("after")
    assert newcomer.calls == [] and len(event) == 0


# -- measures: a picked point that is no numbers -----------------------------------------------------------
@pytest.mark.parametrize("picked", [("x", "y", "z"), (0.0, None, 0.0)], ids=["three words", "a None"])
def test_a_picked_point_of_three_non_numbers_is_refused_as_measure_point(session, picked):
    errors = []
    session.error.connect(errors.append)
    with pytest.raises(SessionError) as err:
        session.measure_end(ItemRef("arm", "link", "link_3"), picked)
    assert (err.value.code, err.value.file) == ("measure.point", "measure")
    assert err.value.message == (f"the point {picked!r} is not three finite numbers; give the picked point "
                                 "in metres, world axes")
    assert errors == [err.value]  # announced on the error event too


# -- reach: the refusal's grammar ---------------------------------------------------------------------------
def test_reaching_past_one_torque_driven_segment_says_it_is_driven(session):
    session.set_drive("arm", "torques")
    with pytest.raises(SessionError) as err:
        session.reach("motor", "rotor", demo_poses(ARM)["rotor"])
    assert err.value.code == "session.reach-torques"
    assert err.value.message == f"arm is {REACH_ADVICE}"


def test_reaching_past_two_torque_driven_segments_says_they_are_driven(session):
    session.set_drive("arm", "torques")
    session.set_drive("motor", "torques")
    with pytest.raises(SessionError) as err:
        session.reach("motor", "rotor", demo_poses(ARM)["rotor"])
    assert err.value.code == "session.reach-torques"
    assert err.value.message == f"arm, motor are {REACH_ADVICE}"  # chain order, from the world down


# -- set_drive: a failure of the dynamics that carries no code -----------------------------------------------
def test_a_dynamics_failure_without_a_code_is_refused_as_drive_nonphysical(session, monkeypatch):
    def singular(self, *args, **kwargs):
        raise np.linalg.LinAlgError("Singular matrix")  # numpy's error: a ValueError with no code

    monkeypatch.setattr(DynamicArmNode, "advance", singular)
    errors = []
    session.error.connect(errors.append)
    with pytest.raises(SessionError) as err:
        session.set_drive("arm", "torques")
    assert (err.value.code, err.value.message) == ("session.drive-nonphysical", "Singular matrix")
    assert errors == [err.value]
    assert session.drive("arm") == "positions"  # refused: nothing changed
