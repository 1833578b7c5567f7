"""Clearance in the session: the closest pair at the pose shown and its nearest points against closed forms
and the plain per-step loop of the collision library, computed again only when the poses change; the
initial pose's findings once per build."""

from __future__ import annotations

import math

import numpy as np
import pytest
from robot_data import robot_urdf

from mime_gui.rig import Apparatus, Arm, Box, Cylinder, Part, PermanentMagnet
from mime_gui.rig.clearance_check import initial_clearance, per_step_minimum
from mime_gui.rig.collision import clearance_model
from mime_gui.session import Session
from mime_gui.session.clearance import (
    LiveClearance,
    assembly_findings,
    closest_now,
    frame_poses_now,
    prepared,
)

#: a carriage sliding along x from the world origin, without geometry of its own
SLIDER = """<robot name="slider"><link name="base"/><link name="carriage"/>
<joint name="slide" type="prismatic"><parent link="base"/><child link="carriage"/><axis xyz="1 0 0"/>
<limit lower="-1" upper="1" effort="10" velocity="1"/></joint></robot>"""


def _boxes(tmp_path, world_at) -> Session:
    """A 20 cm cube on the carriage (centred on its origin) and a 20 cm cube fixed in the world at
    ``world_at``, open in a session."""
    urdf = tmp_path / "slider.urdf"
    urdf.write_text(SLIDER)
    rig = Apparatus("boxes", chain={"arm": Arm.Kinematic(description=str(urdf))},
                    parts={"moving": Part(Box(size=(0.2, 0.2, 0.2)), material="aluminium",
                                          mount="arm.carriage"),
                           "still": Part(Box(size=(0.2, 0.2, 0.2)), material="aluminium", at=world_at)})
    session = Session()
    session.open_apparatus(rig)
    return session


def test_two_boxes_corner_to_corner_give_the_closed_form_distance_and_the_corners(tmp_path):
    session = _boxes(tmp_path, (0.5, 0.4, 0.3))
    live = LiveClearance(session)
    for x in (0.0, 0.1, -0.2):
        session.set_joint_positions("arm", [x])
        c = live.update()
        assert {c.first, c.second} == {"parts.moving", "parts.still"}
        # the moving cube's corner (x + 0.1, 0.1, 0.1) nearest the still cube's corner (0.4, 0.3, 0.2)
        gap = np.array([0.3 - x, 0.2, 0.1])
        assert c.distance == pytest.approx(np.linalg.norm(gap), abs=1e-9)
        points = {c.first: c.point_first, c.second: c.point_second}
        np.testing.assert_allclose(points["parts.moving"], [x + 0.1, 0.1, 0.1], atol=1e-7)
        np.testing.assert_allclose(points["parts.still"], [0.4, 0.3, 0.2], atol=1e-7)
        assert np.linalg.norm(c.point_first - c.point_second) == pytest.approx(c.distance, abs=1e-9)
        assert not c.within_margin
        assert c.text() == f"closest: {c.first} ↔ {c.second} {np.linalg.norm(gap) * 1e3:.1f} mm"


def test_face_to_face_within_the_margin_and_overlapping(tmp_path):
    session = _boxes(tmp_path, (0.35, 0.0, 0.0))
    live = LiveClearance(session)
    for x, state in ((0.0, "clear"), (0.147, "margin"), (0.2, "overlap")):
        session.set_joint_positions("arm", [x])
        c = live.update()
        expected = 0.35 - 0.2 - x  # the faces at x + 0.1 and 0.25
        assert c.distance == pytest.approx(expected, abs=1e-7)
        points = {c.first: c.point_first, c.second: c.point_second}
        assert points["parts.moving"][0] == pytest.approx(x + 0.1, abs=1e-7)
        assert points["parts.still"][0] == pytest.approx(0.25, abs=1e-7)
        np.testing.assert_allclose(points["parts.moving"][1:], points["parts.still"][1:], atol=1e-7)
        assert (c.within_margin, c.overlapping) == {"clear": (False, False), "margin": (True, False),
                                                     "overlap": (True, True)}[state]
    assert c.text().endswith(f"overlap {50.0:.1f} mm")


def test_computed_again_only_when_a_pose_or_the_build_is_replaced(tmp_path):
    session = _boxes(tmp_path, (0.5, 0.4, 0.3))
    live = LiveClearance(session)
    first = live.update()
    assert live.computed == 1 and live.update() is first and live.computed == 1
    session.set_joint_positions("arm", [0.05])
    assert live.update() is not first and live.computed == 2
    live.update()
    assert live.computed == 2


def test_a_model_not_ready_gives_nothing_until_it_is(tmp_path):
    session = _boxes(tmp_path, (0.5, 0.4, 0.3))
    ready = {}
    live = LiveClearance(session, model=lambda built: ready.get(built))
    assert live.update() is None and live.computed == 0
    built = session.document.built
    ready[built] = clearance_model(built)
    live.forget()
    assert live.update().distance == pytest.approx(math.sqrt(0.14), abs=1e-9)


def test_a_rig_breaking_a_rule_has_no_clearance(tmp_path):
    session = _boxes(tmp_path, (0.5, 0.4, 0.3))
    from mime_gui.session import SetValue

    session.apply(SetValue("parts.moving.geometry.size", (0.2, -0.2, 0.2)))
    assert session.findings
    assert assembly_findings(session.document) == ()
    assert frame_poses_now(session.document) is None
    assert LiveClearance(session).update() is None


def test_on_pr2_with_a_part_on_its_gripper_the_closest_pair_is_the_plain_loops_at_every_pose():
    path = robot_urdf("pr2_description/urdf/pr2.urdf")
    holder = Part(Cylinder(radius=0.02, length=0.06), material="aluminium", at=(0.2, 0.0, 0.0),
                  mount="arm.r_gripper_palm_link")
    session = Session()
    session.open_apparatus(Apparatus("pr2", chain={"arm": Arm.Kinematic(description=str(path))},
                                     parts={"holder": holder}))
    model = clearance_model(session.document.built)
    labels = [(model.bodies[i].label, model.bodies[j].label) for i, j in model.moving]
    art = session.segments["arm"].articulation
    rng = np.random.default_rng(7)
    lo, hi = np.maximum(art.lower, -2.0), np.minimum(art.upper, 2.0)
    live = LiveClearance(session)
    q = lo + (hi - lo) * rng.random(art.nq)
    elbow = art.joint_names.index("r_elbow_flex_joint")
    poses = [lo + (hi - lo) * rng.random(art.nq) for _ in range(4)]
    for v in np.linspace(lo[elbow], hi[elbow], 5):  # the hand's pairs keep their relative pose: remembered
        q = q.copy()
        q[elbow] = v
        poses.append(q)
    for q in poses:
        session.set_joint_positions("arm", q)
        c = live.update()
        poses = np.stack([session.segments["arm"].frame_pose(f) for f in art.frame_names])
        expected, pair = per_step_minimum(model, poses[None])
        assert c.distance == pytest.approx(expected[0], abs=1e-9)
        assert (c.first, c.second) == labels[pair[0]] or c.distance == pytest.approx(expected[0], abs=1e-12)
        assert np.linalg.norm(c.point_first - c.point_second) == pytest.approx(abs(c.distance), abs=1e-6)


def test_a_magnet_on_a_panda_links_origin_is_a_contact_in_the_initial_pose_once_per_build():
    path = robot_urdf("panda_description/urdf/panda.urdf")
    magnet = PermanentMagnet(Cylinder(radius=0.005, length=0.01), material="NdFeB-N42",
                             magnetisation=(0, 0, 1), mount="arm.panda_link4")
    rig = Apparatus("p", chain={"arm": Arm.Kinematic(description=str(path))}, magnets={"m1": magnet})
    session = Session()
    session.open_apparatus(rig)
    found = assembly_findings(session.document)
    assert [f.code for f in found if "arm.panda_link4 and magnets.m1 overlap" in f.message] == \
        ["clearance.contact"]
    assert [(f.code, f.where, f.message) for f in found] == \
        [(f.code, f.where, f.message) for f in initial_clearance(rig)]
    assert assembly_findings(session.document) is found  # kept with the build
    assert prepared(session.document.built)[1] is found
    closest = closest_now(prepared(session.document.built)[0], frame_poses_now(session.document))
    assert closest is not None


def test_a_remembered_pair_is_computed_again_when_its_pieces_move_apart_by_equal_and_opposite_steps(tmp_path):
    """The memory keys a pair by its pieces' relative pose: both frames moved together (their relative pose
    kept) reuse the distance; the two frames moved by equal and opposite steps (their midpoint kept, their
    gap not) compute it again, to the distance a call without memory gives."""
    from mime_gui.session.clearance import PairMemory

    urdf = tmp_path / "slider.urdf"
    urdf.write_text(SLIDER)
    rig = Apparatus("boxes", chain={"arm": Arm.Kinematic(description=str(urdf))},
                    parts={"moving": Part(Box(size=(0.2, 0.2, 0.2)), material="aluminium",
                                          mount="arm.carriage"),
                           "base": Part(Box(size=(0.2, 0.2, 0.2)), material="aluminium", at=(0.5, 0.0, 0.0),
                                        mount="arm.base")})
    session = Session()
    session.open_apparatus(rig)
    built = session.document.built
    model = clearance_model(built)
    names = list(built.frame_names)
    # the carriage and the cube grafted on it; the base and its cube
    moving = np.array(["carriage" in n or "moving" in n for n in names])
    poses = frame_poses_now(session.document)
    memory = PairMemory(len(model.pieces["moving"][0]))
    first = closest_now(model, poses, memory)
    assert first.distance == pytest.approx(0.3, abs=1e-9)  # the cubes' faces at x = 0.1 and 0.4
    apart = poses.copy()
    apart[moving, 0, 3] -= 0.05
    apart[~moving, 0, 3] += 0.05  # equal and opposite: the sum of the two cubes' origins is kept
    again = closest_now(model, apart, memory)
    assert again.distance == pytest.approx(closest_now(model, apart).distance, abs=1e-12)
    assert again.distance == pytest.approx(0.4, abs=1e-9)
    together = apart.copy()
    together[:, :3, 3] += (0.2, -0.1, 0.05)  # every frame moved alike: the same gap
    assert closest_now(model, together, memory).distance == pytest.approx(0.4, abs=1e-9)
    # every frame turned and moved alike, away from the origin: the remembered pair's nearest points are
    # carried with its frames, on the cubes' facing faces (x = 0.05 and 0.45 before the turn)
    c, s = np.cos(0.5), np.sin(0.5)
    world_X_before = np.array([[c, -s, 0, 0.3], [s, c, 0, -0.2], [0, 0, 1, 0.1], [0, 0, 0, 1.0]])
    turned = world_X_before @ apart
    kept = closest_now(model, turned, memory)
    assert kept.distance == pytest.approx(0.4, abs=1e-9)
    points = [np.linalg.solve(world_X_before, np.append(p, 1.0))[:3] for p in (kept.point_first,
                                                                              kept.point_second)]
    assert sorted(p[0] for p in points) == pytest.approx([0.05, 0.45], abs=1e-9)
    assert points[0][1:] == pytest.approx(points[1][1:], abs=1e-9)  # straight across the gap
    assert np.abs(np.array(points)[:, 1:]).max() <= 0.1 + 1e-9  # within the faces


def test_a_rig_with_no_moving_pair_has_no_closest_pair(tmp_path):
    """Only one body has a shape (the carriage has none): nothing can come close to anything."""
    urdf = tmp_path / "slider.urdf"
    urdf.write_text(SLIDER)
    still = Part(Box(size=(0.2, 0.2, 0.2)), material="aluminium", at=(0.5, 0.0, 0.0))
    rig = Apparatus("alone", chain={"arm": Arm.Kinematic(description=str(urdf))}, parts={"still": still})
    session = Session()
    session.open_apparatus(rig)
    model = clearance_model(session.document.built)
    assert [b.label for b in model.bodies] == ["parts.still"]
    assert closest_now(model, frame_poses_now(session.document)) is None
    live = LiveClearance(session)
    assert live.update() is None and live.computed == 1  # computed, and found nothing


def test_the_drawn_poses_are_none_while_the_drawing_is_not_the_builds(tmp_path):
    from types import SimpleNamespace

    session = _boxes(tmp_path, (0.5, 0.4, 0.3))
    session.set_joint_positions("arm", [0.2])
    doc = session.document
    np.testing.assert_array_equal(frame_poses_now(doc), doc.segments["arm"].world_X_frame)
    drawn = doc.segments["arm"]
    missing = SimpleNamespace(findings=(), built=doc.built, segments={})
    assert frame_poses_now(missing) is None  # the segment is not drawn yet
    fewer = SimpleNamespace(findings=(), built=doc.built,
                            segments={"arm": SimpleNamespace(world_X_frame=drawn.world_X_frame[:-1])})
    assert frame_poses_now(fewer) is None  # drawn from another articulation than the build's
