"""The field along a loaded trajectory in the Validation panel: a keep-out zone the magnet's field enters is
listed with its code, one it never reaches is not; checked once per loaded file, on a worker, and gone when
the player is. The zones' field by an independent route (Pinocchio's poses, Magpylib: tests/oracle.py)."""

from __future__ import annotations

import numpy as np
from oracle import chain_B_by_hand
from test_driving import open_ready

from mime_gui.rig import Zone
from mime_gui.session import AddItem


def test_a_zone_the_field_enters_along_the_file_is_listed(window, qtbot, demo_copy):
    driving = open_ready(window, demo_copy / "demo.rig.json", qtbot)
    session = window.session
    session.apply(AddItem("zones", "coil", Zone((0.0, 0.0, 0.05), sphere=0.005, mount="motor.stator",
                                                limit=1e-3, reason="a pick-up coil above the magnet")))
    session.apply(AddItem("zones", "door", Zone((3.0, 0.0, 1.0), sphere=0.2, reason="the door")))
    dock = window.assembly.validation
    with qtbot.waitSignal(dock.field_checked, timeout=30000):
        driving.transport.open(demo_copy / "chain.csv")
    rows = [r for r in dock.rows() if r[0].startswith("field.")]
    assert [(code, where) for code, where, _ in rows] == [("field.zone", "zones.coil")], rows
    # by hand: the field at the coil's centre (on the stator, 5 cm above its origin) is above 1 mT at the
    # first step, and at the door's nearest point far below 0.5 mT at every fifth step
    steps = list(range(0, 200, 5))
    _, coil = chain_B_by_hand(demo_copy / "chain.csv", [0], [(0.0, 0.0, 0.05)])
    assert np.linalg.norm(coil[0, 0]) > 1e-3
    _, door = chain_B_by_hand(demo_copy / "chain.csv", steps, (), [(2.8, 0.0, 1.0)])
    assert np.linalg.norm(door, axis=2).max() < 5e-4
    assert dock.field_checks == 1
    driving.transport.unload()
    qtbot.waitUntil(lambda: not [r for r in dock.rows() if r[0].startswith("field.")], timeout=5000)
