"""Samples and keep-out zones reach the view as items, like probes: drawn on their mount frame (or in the
world) at ``at``, moved with the segment they ride on, selectable; the keep-out check at one pose and the
|B| grid the keep-out surface is drawn from, against Magpylib called directly."""

from __future__ import annotations

import numpy as np
import pytest
from oracle import demo_poses, magnet_B

from mime_gui import RESOURCES
from mime_gui.rig.geometries import Sphere
from mime_gui.rig.samples import Sample
from mime_gui.rig.units import a_m2
from mime_gui.rig.zones import DEFAULT_LIMIT, Zone
from mime_gui.session import AddItem, FakeRenderer, ItemRef, Session, SetValue
from mime_gui.session.keepout import GRID_POINTS, grid_box, keepout_grid, keepout_limit, zones_now
from mime_gui.session.view_state import has_item

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"
BEAD, KEEP = ItemRef("", "sample", "bead"), ItemRef("", "zone", "keep")
REASON = "the bench where people stand"


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


def _direction(session):
    """The demo magnet's magnetisation, as the rig file says it."""
    return session.rig.magnets["m1"].magnetisation


def _frame_poses(session) -> np.ndarray:
    built = session.document.built
    return np.stack([session.frame_world_pose(*n.split(".", 1)) for n in built.frame_names])


def test_samples_and_zones_are_pushed_on_their_frames_and_move_with_them(session):
    r = session.renderer
    bead = Sample((0.0, 0.0, 0.04), mount="motor.stator", geometry=Sphere(5e-4), material="NdFeB-N42",
                  magnetisation=(1.0, 0.0, 0.0), orientation="follows")
    session.apply(AddItem("samples", "bead", bead))
    session.apply(AddItem("zones", "keep", Zone((0.1, 0.0, 0.0), mount="arm.link_2", box=(0.2, 0.1, 0.3),
                                                reason=REASON)))
    session.apply(AddItem("zones", "chair", Zone((1.0, 0.0, 0.5), sphere=0.3, limit=2e-4, reason=REASON)))
    assert not session.findings
    bead, keep, chair = r.items[BEAD], r.items[KEEP], r.items[ItemRef("", "zone", "chair")]
    assert bead.rides == ("motor", "stator") and bead.follows and bead.moment == pytest.approx((1, 0, 0))
    assert bead.half_extents == pytest.approx((5e-4,) * 3)
    assert keep.outline == "box" and keep.half_extents == pytest.approx((0.1, 0.05, 0.15))
    assert keep.limit == DEFAULT_LIMIT and keep.rides == ("arm", "link_2")
    assert chair.outline == "sphere" and chair.rides is None and chair.limit == 2e-4
    # the world poses: the frame's pose (by Pinocchio, independently of the session) times at
    stator = demo_poses(session.joint_positions("arm"), session.joint_positions("motor")[0])["stator"]
    np.testing.assert_allclose(r.item_poses[BEAD], stator @ _at((0, 0, 0.04)), atol=1e-12)
    link_2 = session.frame_world_pose("arm", "link_2")
    np.testing.assert_allclose(r.item_poses[KEEP], link_2 @ _at((0.1, 0, 0)))
    np.testing.assert_allclose(r.item_poses[ItemRef("", "zone", "chair")], _at((1.0, 0.0, 0.5)))
    # the arm moves: the bead and the zone on it move, the zone in the world does not
    r.calls.clear()
    session.set_joint_positions("arm", [0.5, -0.2, 0.7, 0.1, 0.3, 0.2])
    moved = r.item_poses[BEAD]
    stator = demo_poses([0.5, -0.2, 0.7, 0.1, 0.3, 0.2], session.joint_positions("motor")[0])["stator"]
    np.testing.assert_allclose(moved, stator @ _at((0, 0, 0.04)), atol=1e-12)
    assert "set_item_poses" in r.calls
    # selectable by themselves, as probes are
    session.select(BEAD)
    session.select(KEEP)
    assert session.selection == KEEP and has_item(session.document, BEAD)
    assert not has_item(session.document, ItemRef("", "zone", "bead"))


def test_an_edit_of_one_zone_pushes_that_zone_only_and_one_being_fixed_is_not_drawn(session):
    r = session.renderer
    session.apply(AddItem("zones", "keep", Zone(mount="arm.link_2", sphere=0.1, reason=REASON)))
    session.apply(AddItem("samples", "bead", Sample((0.0, 0.0, 0.04), mount="motor.stator",
                                                    moment=a_m2(1e-6, reason="VSM"))))
    assert r.items[BEAD].half_extents is None  # a declared moment has no shape
    r.item_changes.clear()
    session.apply(SetValue("zones.keep.sphere", 0.2))
    change = r.item_changes[-1]
    assert set(change.changed) == {KEEP} and not change.added and not change.removed
    assert r.items[KEEP].half_extents == pytest.approx((0.2,) * 3)
    session.apply(SetValue("zones.keep.sphere", -1.0))  # being fixed: a finding, and not drawn meanwhile
    assert any(f.code == "zone.shape" for f in session.findings)
    assert KEEP not in r.items and r.item_changes[-1].removed == {KEEP}
    session.apply(SetValue("zones.keep.mount", "arm.nowhere"))
    session.apply(SetValue("zones.keep.sphere", 0.2))
    assert KEEP not in r.items  # on a frame the rig lacks: drawn once it is one
    session.apply(SetValue("zones.keep.mount", "arm.link_2"))
    assert KEEP in r.items


def test_the_keep_out_limit_is_the_smallest_zone_limit_or_the_default(session):
    rig = session.rig
    assert keepout_limit(rig) == DEFAULT_LIMIT
    session.apply(AddItem("zones", "a", Zone(sphere=0.1, limit=2e-3, reason=REASON)))
    session.apply(AddItem("zones", "b", Zone(sphere=0.1, limit=3e-4, reason=REASON)))
    assert keepout_limit(session.rig) == 3e-4


def test_the_zone_check_now_agrees_with_magpylib_on_the_zone_and_a_magnet_inside_is_a_breach(session):
    poses = demo_poses(session.joint_positions("arm"), session.joint_positions("motor")[0])
    rotor = poses["rotor"]
    centre = (rotor @ _at((0, 0, 0.025)))[:3, 3]  # magnet m1's centroid in the world
    session.apply(AddItem("zones", "inside", Zone(tuple(centre), sphere=0.05, reason=REASON)))
    session.apply(AddItem("zones", "near", Zone(tuple(centre + [0.06, 0, 0]), sphere=0.03, reason=REASON)))
    session.apply(AddItem("zones", "far", Zone(tuple(centre + [0.4, 0, 0]), sphere=0.1, reason=REASON)))
    assert not session.findings
    check = zones_now(session.document.built, _frame_poses(session))
    breach = dict(zip(check.zone_names, check.breach[0], strict=True))
    assert breach == {"inside": True, "near": True, "far": False}
    # Magpylib directly on the zones' surfaces (a Fibonacci sphere of 64 points, as the check samples)
    from mime_gui.field.zones import surface_points

    for name in ("near", "far"):
        zone = session.rig.zones[name]
        points = np.asarray(zone.at) + surface_points(zone)
        largest = np.linalg.norm(magnet_B(rotor, points, _direction(session)), axis=1).max()
        assert (largest > zone.limit) == breach[name]
        z = check.zone_names.index(name)
        if breach[name]:  # sampled where the bound could not clear it: the same largest |B|
            assert check.worst[0, z] == pytest.approx(largest, rel=1e-9)


def test_the_keep_out_grid_is_magpylibs_field_around_the_magnet_and_holds_the_surface(session):
    built = session.document.built
    poses = _frame_poses(session)
    grid = keepout_grid(built, poses, DEFAULT_LIMIT)
    assert grid.dims == (GRID_POINTS,) * 3
    rotor = demo_poses(session.joint_positions("arm"), session.joint_positions("motor")[0])["rotor"]
    points = grid.points().reshape(-1, 3)
    pick = np.random.default_rng(3).choice(len(points), 50, replace=False)
    np.testing.assert_allclose(grid.magnitude.reshape(-1)[pick],
                               np.linalg.norm(magnet_B(rotor, points[pick], _direction(session)), axis=1),
                               rtol=1e-9)
    # the surface lies inside the grid: |B| on its faces is below the limit, at its centre far above
    m = grid.magnitude
    faces = np.concatenate([m[0].ravel(), m[-1].ravel(), m[:, 0].ravel(), m[:, -1].ravel(),
                            m[:, :, 0].ravel(), m[:, :, -1].ravel()])
    assert faces.max() < DEFAULT_LIMIT < m.max()
    # ... and the box is no larger than the dipole's reach asks: along the magnetisation the field falls as
    # 1/r³, so on the faces it is (reach / half)³ of the limit, with half = (radius + reach)(1 + MARGIN)
    assert faces.max() > 0.4 * DEFAULT_LIMIT
    low, high = grid_box(built, poses, DEFAULT_LIMIT)
    centre = (rotor @ _at((0, 0, 0.025)))[:3, 3]
    np.testing.assert_allclose((low + high) / 2, centre, atol=1e-12)
    assert 0.1 < (high - low)[0] < 0.3  # a 0.5 mT line some 7 cm out of a 1 cm magnet, not the arm's 1 m
