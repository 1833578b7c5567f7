"""Parts, magnets and probes reach the view through the Renderer push: the whole set when a document is
shown, exactly what an edit added, changed and removed, and the poses of the items that moved."""

from __future__ import annotations

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.app.docks.registry import DOCKS
from mime_gui.rig import Probe
from mime_gui.rig.geometries import Box
from mime_gui.rig.parts import Part
from mime_gui.rig.visuals import part_rgba
from mime_gui.session import AddItem, FakeRenderer, ItemRef, RemoveItem, Session, SetValue
from mime_gui.session.mass_properties import mass_table

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"
HOLDER, M1 = ItemRef("", "part", "holder"), ItemRef("", "magnet", "m1")
SAMPLE = ItemRef("", "probe", "sample")


@pytest.fixture
def session():
    s = Session()
    s.attach_renderer(FakeRenderer())
    s.open(DEMO_RIG)
    return s


def _at(at) -> np.ndarray:
    X = np.eye(4)
    X[:3, 3] = at
    return X


def _last_change(r: FakeRenderer):
    assert r.calls.count("update_items") == 1
    return r.item_changes[-1]


def test_opening_shows_every_part_magnet_and_probe_with_its_world_pose(session):
    r = session.renderer
    assert r.calls[-2:] == ["show_items", "highlight"] and "update_items" not in r.calls
    assert set(r.items) == {HOLDER, M1, SAMPLE}
    m1, sample = r.items[M1], r.items[SAMPLE]
    assert m1.rides == ("motor", "part:m1") and m1.shape is None  # drawn by its segment, as its graft link
    assert m1.moment == pytest.approx((1.0, 0.0, 0.0))  # diametric, across the shaft
    assert m1.half_extents == pytest.approx((0.005, 0.005, 0.005))
    assert r.items[HOLDER].moment is None
    np.testing.assert_allclose(r.item_poses[M1], session.frame_world_pose("motor", "part:m1"))
    stator = session.frame_world_pose("motor", "stator")
    assert sample.rides == ("motor", "stator")
    np.testing.assert_allclose(r.item_poses[SAMPLE], stator @ _at((0, 0, 0.05)), atol=1e-15)
    assert r.field_source.built is session.document.built and r.com is None


def test_adding_editing_and_removing_a_world_part_pushes_exactly_that_item(session):
    r = session.renderer
    r.calls.clear()
    session.apply(AddItem("parts", "block", Part(Box((0.02, 0.04, 0.06)), material="aluminium",
                                                 at=(0.3, 0.0, 0.1))))
    change = _last_change(r)
    block = ItemRef("", "part", "block")
    assert set(change.added) == {block} and not change.changed and not change.removed
    item = change.added[block]
    assert item.rides is None and item.shape is not None  # the view draws it from its kind's description
    assert item.shape.rgba == part_rgba(session.rig.parts["block"])  # in its material's colour
    np.testing.assert_allclose(change.poses[block], _at((0.3, 0.0, 0.1)))
    assert set(change.poses) == {HOLDER, M1, SAMPLE, block}  # every item's pose after the edit
    untouched = r.items[M1]

    r.calls.clear()
    session.apply(SetValue("parts.block.at", (0.3, 0.2, 0.1)))
    change = _last_change(r)
    assert set(change.changed) == {block} and not change.added and not change.removed
    np.testing.assert_allclose(r.item_poses[block], _at((0.3, 0.2, 0.1)))
    assert r.items[M1] is untouched  # an item the edit did not touch is the same object

    r.calls.clear()
    session.apply(RemoveItem("parts", "block"))
    change = _last_change(r)
    assert change.removed == {block} and not change.added and not change.changed
    assert block not in r.items and block not in r.item_poses


def test_a_world_part_whose_shape_breaks_a_rule_is_not_drawn_until_fixed(session):
    r = session.renderer
    session.apply(AddItem("parts", "block", Part(Box((0.02, 0.04, 0.06)), material="aluminium")))
    r.calls.clear()
    session.apply(SetValue("parts.block.geometry.size", (0.02, -0.04, 0.06)))
    assert _last_change(r).removed == {ItemRef("", "part", "block")}
    r.calls.clear()
    session.apply(SetValue("parts.block.geometry.size", (0.02, 0.04, 0.06)))
    assert set(_last_change(r).added) == {ItemRef("", "part", "block")}


def test_editing_a_magnet_pushes_only_that_magnet_with_its_new_moment(session):
    r = session.renderer
    r.calls.clear()
    session.apply(SetValue("magnets.m1.magnetisation", (0.0, 0.0, 1.0)))
    change = _last_change(r)
    assert set(change.changed) == {M1} and not change.added and not change.removed
    assert r.items[M1].moment == pytest.approx((0.0, 0.0, 1.0))


def test_adding_and_editing_a_probe_pushes_only_that_probe(session):
    r = session.renderer
    r.calls.clear()
    session.apply(AddItem("probes", "bench", Probe((0.1, 0.2, 0.3))))
    change = _last_change(r)
    bench = ItemRef("", "probe", "bench")
    assert set(change.added) == {bench} and not change.changed and not change.removed
    np.testing.assert_allclose(change.poses[bench], _at((0.1, 0.2, 0.3)))
    r.calls.clear()
    session.apply(SetValue("probes.sample.at", (0.0, 0.01, 0.05)))
    change = _last_change(r)
    assert set(change.changed) == {SAMPLE} and not change.added and not change.removed
    stator = session.frame_world_pose("motor", "stator")
    np.testing.assert_allclose(r.item_poses[SAMPLE], stator @ _at((0.0, 0.01, 0.05)), atol=1e-15)


def test_a_pose_change_pushes_the_poses_of_the_items_that_moved_only(session):
    r = session.renderer
    session.apply(AddItem("probes", "bench", Probe((0.1, 0.2, 0.3))))  # in the world: it never moves
    r.calls.clear()
    r.item_poses.clear()
    session.set_joint_positions("motor", [0.7])
    assert r.calls.count("set_item_poses") == 1 and "update_items" not in r.calls
    assert set(r.item_poses) == {HOLDER, M1, SAMPLE}
    np.testing.assert_allclose(r.item_poses[M1], session.frame_world_pose("motor", "part:m1"))
    np.testing.assert_allclose(r.item_poses[SAMPLE], session.frame_world_pose("motor", "stator")
                               @ _at((0, 0, 0.05)), atol=1e-15)
    r.calls.clear()
    r.item_poses.clear()
    session.set_joint_positions("arm", {"joint_1": 0.3})  # the motor rides on the arm: its items follow
    assert r.calls.count("set_item_poses") == 1 and set(r.item_poses) == {HOLDER, M1, SAMPLE}
    np.testing.assert_allclose(r.item_poses[HOLDER], session.frame_world_pose("motor", "part:holder"))


def test_the_fake_renderer_keeps_a_copy_of_the_moved_poses_as_the_view_does():
    r = FakeRenderer()
    X = _at((0.1, 0.2, 0.3))
    r.set_item_poses({HOLDER: X, SAMPLE: [[1.0, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.5], [0, 0, 0, 1]]})
    X[:3, 3] = 9.0  # the caller reuses its array: what was pushed stays where it was pushed
    np.testing.assert_array_equal(r.item_poses[HOLDER], _at((0.1, 0.2, 0.3)))
    np.testing.assert_array_equal(r.item_poses[SAMPLE], _at((0.0, 0.0, 0.5)))


def test_a_rig_that_breaks_rules_has_no_field_to_draw_and_the_centre_of_mass_is_pushed_while_shown(session):
    r = session.renderer
    session.apply(SetValue("magnets.m1.material", "aluminium"))  # no remanence: a finding
    assert r.field_source.built is None and "breaks rules" in r.field_source.why
    validation = next(d.title for d in DOCKS if d.name == "ValidationDock")
    assert f"(see {validation})" in r.field_source.why  # the panel that lists the findings, by its title
    session.undo()
    assert r.field_source.built is session.document.built
    assert r.com is None
    session.set_layer_visible("com", True)
    np.testing.assert_allclose(r.com, mass_table(session).total.com)
    session.set_joint_positions("arm", {"joint_2": 0.4})
    np.testing.assert_allclose(r.com, mass_table(session).total.com)
    session.set_layer_visible("com", False)
    assert r.com is None


def test_without_a_view_no_item_is_computed():
    s = Session()
    s.open(DEMO_RIG)
    s.apply(SetValue("magnets.m1.magnetisation", (0.0, 0.0, 1.0)))
    assert s.view.items == {}
    r = FakeRenderer()
    s.attach_renderer(r)
    assert set(r.items) == {HOLDER, M1, SAMPLE} and s.view.items.keys() == r.items.keys()


def test_a_probe_on_the_arm_is_not_pushed_when_only_the_motor_moves(session):
    r = session.renderer
    on_arm = ItemRef("", "probe", "elbow")
    session.apply(AddItem("probes", "elbow", Probe((0.0, 0.0, 0.02), mount="arm.link_3")))
    r.item_poses.clear()
    session.set_joint_positions("motor", [0.4])
    assert set(r.item_poses) == {HOLDER, M1, SAMPLE}  # the arm's probe did not move
    r.item_poses.clear()
    session.set_joint_positions("arm", {"joint_1": 0.2})
    assert set(r.item_poses) == {HOLDER, M1, SAMPLE, on_arm}
    np.testing.assert_allclose(r.item_poses[on_arm], session.frame_world_pose("arm", "link_3")
                               @ _at((0.0, 0.0, 0.02)), atol=1e-15)


def test_an_item_riding_on_a_segment_the_document_lacks_has_no_pose(session):
    from mime_gui.session.items import DrawnItem, item_poses

    gone = ItemRef("", "probe", "gone")
    items = {gone: DrawnItem(gone, ("gripper", "tip"), _at((0.0, 0.0, 0.1))),
             SAMPLE: DrawnItem(SAMPLE, ("motor", "stator"), _at((0.0, 0.0, 0.05)))}
    poses = item_poses(session.document, items)
    assert set(poses) == {SAMPLE}  # an item between an edit and its drawing: left out, not refused
    np.testing.assert_allclose(poses[SAMPLE], session.frame_world_pose("motor", "stator") @ _at((0, 0, 0.05)))
    assert item_poses(None, items) == {}


class _Shape:
    """A kind whose half extents are whatever ``half`` gives (or raises)."""

    def __init__(self, half):
        self._half = half

    def half_extents(self):
        return self._half()


def _broken():
    raise ValueError("a shape being fixed")


@pytest.mark.parametrize("half", [_broken, lambda: (0.1, 0.2), lambda: (0.1, np.nan, 0.2), lambda: None],
                         ids=["raises", "two values", "not finite", "none"])
def test_a_kind_without_usable_half_extents_is_outlined_as_a_10_mm_box(half):
    from mime_gui.session.items import _half_extents

    assert _half_extents(_Shape(half)) == (0.01, 0.01, 0.01)
    assert _half_extents(object()) == (0.01, 0.01, 0.01)  # a mesh: no half extents at all
    assert _half_extents(_Shape(lambda: (0.1, 0.2, 0.3))) == (0.1, 0.2, 0.3)


def test_keys_that_do_not_compare_are_taken_as_another_drawing():
    from mime_gui.session.items import _same

    assert _same((np.zeros(3), 1), (np.ones(3), 1)) is False  # arrays: no single truth value
    assert _same((np.zeros(3), 1), (np.zeros(3), 1)) is False
    assert _same(("a", 1), ("a", 1)) is True
    assert _same(("a", 1), ("a", 2)) is False


def test_a_sample_whose_shape_cannot_be_checked_is_drawn_without_a_size():
    from types import SimpleNamespace

    from mime_gui.session.items import _sample_item

    def cannot(base=None):
        raise TypeError("a value of the wrong type being fixed")

    bead = ItemRef("", "sample", "bead")
    sample = SimpleNamespace(geometry=SimpleNamespace(problems=cannot, half_extents=lambda: (1.0, 1.0, 1.0)),
                             magnetisation=(0.0, 2.0, 0.0), at=(0.0, 0.0, 0.04), orientation="follows")
    item = _sample_item(bead, sample, ("motor", "stator"), None)
    assert item.half_extents is None and item.rides == ("motor", "stator")
    assert item.moment == pytest.approx((0.0, 1.0, 0.0)) and item.follows  # drawn all the same
    np.testing.assert_array_equal(item.local, _at((0.0, 0.0, 0.04)))


def test_a_world_part_whose_shape_cannot_be_computed_is_not_drawn_until_it_can(session, monkeypatch):
    from mime_gui.session import items

    def cannot(*_args):
        raise ValueError("a shape being fixed")

    block = ItemRef("", "part", "block")
    with monkeypatch.context() as m:
        m.setattr(items, "part_shape", cannot)
        session.apply(AddItem("parts", "block", Part(Box((0.02, 0.04, 0.06)), material="aluminium")))
        assert block not in session.renderer.items and set(session.renderer.items) == {HOLDER, M1, SAMPLE}
    session.apply(SetValue("parts.block.at", (0.1, 0.0, 0.0)))
    assert block in session.renderer.items
