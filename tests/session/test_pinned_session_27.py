"""Pins two session contracts:

- each drawn segment carries its rig segment's kind (``Arm.Dynamic``, ``Motor.Kinematic`` …), the kind
  the app's tree, properties and armature docks name, and it follows an edit that switches the kind (and
  its undo);
- a part or magnet fixed in the world reaches the view as a drawn item that names itself (its ``ref``, which
  the view's part marks and field plane read), as one riding on a segment does.
"""

from __future__ import annotations

import numpy as np

from mime_gui import RESOURCES
from mime_gui.rig import Box, Cylinder, Part, PermanentMagnet
from mime_gui.session import AddItem, FakeRenderer, ItemRef, Session
from mime_gui.session.edits import SetKind

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"


def _kinds(session: Session) -> dict[str, str]:
    return {name: seg.kind for name, seg in session.document.segments.items()}


def test_the_drawn_segments_kind_is_the_rigs_and_follows_a_switch_of_kind():
    session = Session()
    session.open(DEMO_RIG)
    # the demo's arm and motor are both dynamic (neither the default Arm.Kinematic)
    assert _kinds(session) == {"arm": "Arm.Dynamic", "motor": "Motor.Dynamic"}
    assert _kinds(session) == {name: seg.kind for name, seg in session.rig.chain.items()}
    session.apply(SetKind("motor", "Motor.Kinematic"))
    assert _kinds(session) == {"arm": "Arm.Dynamic", "motor": "Motor.Kinematic"}
    session.undo()
    assert _kinds(session) == {"arm": "Arm.Dynamic", "motor": "Motor.Dynamic"}


def test_a_part_and_a_magnet_fixed_in_the_world_reach_the_view_naming_themselves():
    session = Session()
    session.attach_renderer(FakeRenderer())
    session.open(DEMO_RIG)
    block = Part(Box((0.1, 0.1, 0.1)), material="aluminium", at=(0.5, 0.25, 0.125))
    magnet = PermanentMagnet(Cylinder(radius=0.01, length=0.02), material="NdFeB-N42", at=(-0.5, 0.0, 0.25),
                             magnetisation=(0.0, 0.0, 1.0))
    session.apply(AddItem("parts", "block", block))
    session.apply(AddItem("magnets", "m2", magnet))
    assert session.findings == ()
    r = session.renderer
    BLOCK, M2 = ItemRef("", "part", "block"), ItemRef("", "magnet", "m2")
    # every drawn item names itself, the world-fixed ones as the ones riding on the motor
    assert {ref: item.ref for ref, item in r.items.items()} == {ref: ref for ref in r.items}
    assert {BLOCK, M2, ItemRef("", "part", "holder"), ItemRef("", "magnet", "m1")} <= set(r.items)
    # fixed in the world: on no frame, placed at its ``at``, drawn with its own shape
    for ref, at in ((BLOCK, (0.5, 0.25, 0.125)), (M2, (-0.5, 0.0, 0.25))):
        item = r.items[ref]
        assert item.rides is None and item.shape is not None
        expected = np.eye(4)
        expected[:3, 3] = at
        np.testing.assert_array_equal(item.local, expected)
        np.testing.assert_array_equal(r.item_poses[ref], expected)
    assert r.items[M2].moment == (0.0, 0.0, 1.0)
    # opened afresh (the whole set shown, not an update), the world-fixed items still name themselves
    fresh = Session()
    fresh.attach_renderer(FakeRenderer())
    fresh.open_apparatus(session.rig)
    assert fresh.renderer.items[BLOCK].ref == BLOCK and fresh.renderer.items[M2].ref == M2
