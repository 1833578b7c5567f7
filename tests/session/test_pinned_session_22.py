"""Pinned session contracts: a reload announces the selection it kept (the item still selected, not None),
and the player refuses a trajectory over 2 GB of poses with the size it would hold and the advice to choose a
larger step (docs/app.md, ``player.too-large``)."""

from __future__ import annotations

import pytest

from mime_gui import RESOURCES
from mime_gui.session import Session
from mime_gui.session.player import Player, PlayerError
from mime_gui.session.renderer import ItemRef

DEMO = RESOURCES / "demo"


def test_the_selection_kept_through_a_reload_is_the_one_announced():
    session = Session()
    session.open(DEMO / "demo.rig.json")
    item = ItemRef("arm", "joint", "joint_2")
    session.select(item)
    announced = []
    session.selection_changed.connect(announced.append)
    session.reload()
    # the joint is still there: it stays selected, and listeners (the docks' forms) are told so, not told
    # that nothing is selected while the session still holds the item
    assert session.selection == item
    assert announced == [item]


def test_the_player_refuses_over_2_gb_of_poses_asking_for_a_larger_step():
    session = Session()
    session.open(DEMO / "demo.rig.json")
    # the demo rig: arm 6 joints, 8 frames; motor 1 joint, 4 frames -> (7 + 19·12)·8 = 1880 bytes a step;
    # chain.csv lasts 4 s, so 1 µs steps are 4 000 001 rows, 7.52 GB, refused before any step is played
    with pytest.raises(PlayerError) as err:
        Player.for_document(session.document, DEMO / "chain.csv", 1e-6)
    assert err.value.code == "player.too-large"
    assert err.value.message == ("4000001 steps of 1e-06 s would hold 7.5 GB of poses (at most 2 GB); "
                                 "choose a larger step")
