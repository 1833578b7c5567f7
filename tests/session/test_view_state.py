"""The view state with no view attached or the view taken away: nothing is pushed or computed for a view that
is not there; and which items a document has, with none open or of a kind no item is."""

from __future__ import annotations

from mime_gui import RESOURCES
from mime_gui.session import FakeRenderer, ItemRef, Session, SetValue
from mime_gui.session.view_state import has_item

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"


def test_a_view_taken_away_receives_nothing_more():
    session = Session()
    renderer = FakeRenderer()
    session.attach_renderer(renderer)
    session.open(DEMO_RIG)
    assert ItemRef("", "part", "holder") in session.view.items
    session.attach_renderer(None)
    assert session.renderer is None
    assert session.view.items == {}  # what was pushed went with the view
    calls, renders = list(renderer.calls), renderer.renders
    session.set_joint_positions("arm", {"joint_1": 0.4})
    session.apply(SetValue("magnets.m1.magnetisation", (0.0, 0.0, 1.0)))
    session.select(ItemRef("", "part", "holder"))
    session.set_layer_visible("com", True)
    assert renderer.calls == calls and renderer.renders == renders


def test_without_a_view_updating_or_moving_items_computes_nothing():
    session = Session()
    session.open(DEMO_RIG)
    session.set_layer_visible("com", True)  # even the centre of mass, which moves with every segment
    session.view.update_items()
    session.view.move_items(["arm", "motor"])
    session.set_joint_positions("arm", {"joint_1": 0.4})
    assert session.view.items == {}
    renderer = FakeRenderer()
    session.attach_renderer(renderer)  # a view attached later gets everything
    assert set(renderer.items) == {ItemRef("", "part", "holder"), ItemRef("", "magnet", "m1"),
                                   ItemRef("", "probe", "sample")}


def test_nothing_open_has_no_item_and_no_kind_but_the_known_ones_is_an_item():
    assert not has_item(None, ItemRef("arm", "link", "link_3"))
    session = Session()
    doc = session.open(DEMO_RIG)
    assert has_item(doc, ItemRef("arm", "link", "link_3"))
    assert not has_item(doc, ItemRef("arm", "weird", "link_3"))
    assert not has_item(doc, ItemRef("arm", "segment", "motor"))  # a segment's row names itself
    assert has_item(doc, ItemRef("arm", "segment", "arm"))
