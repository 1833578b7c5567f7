"""Clearance: distances against closed forms, contacts at the right steps along a trajectory, the pairs left
out, the margin's boundaries, the buried magnet in validate, and the check against the plain per-step loop."""

from __future__ import annotations

import math

import numpy as np
import pytest
import trimesh
from rig_helpers import DEMO_RIG, DEMO_URDF, snippet_rig
from robot_data import robot_urdf

from mime_gui.cli import main
from mime_gui.multibody import tree as description
from mime_gui.rig import (
    Allowed,
    Apparatus,
    Arm,
    Box,
    Clearance,
    Cylinder,
    Motor,
    Part,
    PermanentMagnet,
    Ring,
    Sample,
    Sphere,
    load,
    save,
)
from mime_gui.rig.clearance_check import (
    check,
    clearance_along,
    initial_clearance,
    initial_frame_poses,
    per_step_minimum,
)
from mime_gui.rig.collision import TOLERANCE, Body, _hull, clearance_model, pair_distances, shape_pieces

PANDA = "panda_description/urdf/panda.urdf"


def _body(geometry, label: str) -> Body:
    pieces, why = shape_pieces(description.Shape(geometry, np.eye(4)), np.eye(4), label)
    assert why is None
    return Body(label, "part", f"parts.{label}", 0, np.eye(4), tuple(pieces), 0)


def _poses(positions, rotation=None) -> np.ndarray:
    """``(T, 2, 4, 4)``: the first body at the origin, the second at each position, turned by ``rotation``."""
    T = len(positions)
    X = np.broadcast_to(np.eye(4), (T, 2, 4, 4)).copy()
    X[:, 1, :3, :3] = np.eye(3) if rotation is None else rotation
    X[:, 1, :3, 3] = positions
    return X


def _distances(a, b, positions, rotation=None) -> np.ndarray:
    return pair_distances([_body(a, "a"), _body(b, "b")], _poses(positions, rotation), np.array([[0, 1]]),
                          cutoff=np.inf)[:, 0]


# -- distances against closed forms --------------------------------------------------------------------------
def test_two_spheres_are_their_centre_distance_less_both_radii_and_a_penetration_is_negative():
    x = np.array([0.5, 0.3, 0.2, 0.1, 0.0])
    d = _distances(description.Sphere(0.1), description.Sphere(0.05), np.column_stack([x, 0 * x, 0 * x]))
    np.testing.assert_allclose(d[:4], x[:4] - 0.15, atol=1e-9)
    assert d[4] < -0.1 + 1e-9  # one inside the other: as deep as the smaller can go


def test_a_box_and_a_sphere_face_edge_and_corner():
    box = description.Box((0.2, 0.4, 0.6))
    sphere = description.Sphere(0.05)
    p = np.array([[0.3, 0.0, 0.0], [0.3, 0.5, 0.0], [0.3, 0.5, 0.6], [0.0, 0.0, 0.5]])
    half = np.array([0.1, 0.2, 0.3])
    expected = np.linalg.norm(np.maximum(np.abs(p) - half, 0), axis=1) - 0.05
    np.testing.assert_allclose(_distances(box, sphere, p), expected, atol=1e-7)


def test_a_cylinder_along_z_beside_and_above_a_sphere():
    cylinder = description.Cylinder(0.1, 0.4)  # radius, length along z
    p = np.array([[0.3, 0.0, 0.0], [0.0, 0.0, 0.5], [0.3, 0.0, 0.4]])
    radial = np.maximum(np.hypot(p[:, 0], p[:, 1]) - 0.1, 0)
    axial = np.maximum(np.abs(p[:, 2]) - 0.2, 0)
    np.testing.assert_allclose(_distances(cylinder, description.Sphere(0.02), p),
                               np.hypot(radial, axial) - 0.02, atol=1e-7)


def test_a_box_turned_45_degrees_reaches_its_half_diagonal():
    c, s = math.cos(math.pi / 4), math.sin(math.pi / 4)
    R = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    x = np.array([0.5, 0.4, 0.3])
    d = _distances(description.Box((0.2, 0.2, 0.2)), description.Box((0.2, 0.2, 0.2)),
                   np.column_stack([x, 0 * x, 0 * x]), R)
    np.testing.assert_allclose(d, x - 0.1 - 0.1 * math.sqrt(2), atol=1e-7)


def test_two_parallel_cylinders_side_by_side_and_end_to_end():
    cylinder = description.Cylinder(0.05, 0.2)
    d = _distances(cylinder, cylinder, np.array([[0.3, 0, 0], [0, 0, 0.35]]))
    np.testing.assert_allclose(d, [0.2, 0.15], atol=1e-7)


def test_a_pair_beyond_the_cutoff_gets_its_bounding_spheres_gap_and_one_within_it_its_distance():
    box = description.Box((0.2, 0.2, 0.2))
    bodies, pairs = [_body(box, "a"), _body(box, "b")], np.array([[0, 1]])
    poses = _poses(np.array([[1.0, 0.0, 0.0]]))
    # faces 0.8 m apart; each box's bounding sphere has its half diagonal, 0.1·√3, as radius
    bound = 1.0 - 2 * 0.1 * math.sqrt(3)
    assert pair_distances(bodies, poses, pairs, cutoff=0.5)[0, 0] == pytest.approx(bound, abs=1e-12)
    assert pair_distances(bodies, poses, pairs, cutoff=0.7)[0, 0] == pytest.approx(0.8, abs=1e-7)


# -- along a trajectory ----------------------------------------------------------------------------------
def _swept_rig(offset_y: float = 0.0) -> tuple[Apparatus, float]:
    """The demo arm, kinematic, with a 1 cm ball fixed in the world 0.3 m along link_2's axis when joint_2
    is at 0.8 rad (``offset_y`` beside that plane)."""
    theta = 0.8
    ball = Part(Sphere(radius=0.01), material="aluminium",
                at=(0.3 * math.sin(theta), offset_y, 0.26 + 0.3 * math.cos(theta)))
    rig = Apparatus("swept", chain={"arm": Arm.Kinematic(description=str(DEMO_URDF))}, parts={"ball": ball})
    return rig, theta


def _swing(built, T: int = 400):
    q2 = np.linspace(0.0, 1.6, T)
    return built.play({"arm.joint_2": q2}, 0.01), q2


def test_a_link_swung_through_a_ball_is_a_contact_at_exactly_the_steps_it_overlaps():
    rig, theta = _swept_rig()
    built = rig.build()
    trajectory, q2 = _swing(built)
    found = clearance_along(built, trajectory)
    # link_2's collision box is 7 cm square: the ball's centre is 0.3 |sin δ| from its axis, in the plane
    # the box turns in, so the signed distance is 0.3 |sin δ| − 0.035 − 0.01 (inside: −(0.035 + 0.01))
    gap = 0.3 * np.abs(np.sin(q2 - theta)) - 0.045
    expected = np.flatnonzero(gap < -TOLERANCE)
    assert np.all(np.abs(gap) > 1e-5)  # no step on the boundary
    (contact,) = [f for f in found.findings if f.code == "clearance.contact"]
    assert contact.where == "parts.ball" and "arm.link_2 and parts.ball overlap" in contact.message
    times = trajectory.times()
    assert f"at {len(expected)} of {len(q2)} steps, from t = {times[expected[0]]:g} s to " \
           f"{times[expected[-1]]:g} s" in contact.message
    k = int(np.argmin(gap))
    assert found.pairs[found.closest[k]] == ("arm.link_2", "parts.ball")
    np.testing.assert_allclose(found.minimum[expected], np.maximum(gap[expected], -0.045), atol=1e-6)
    assert f"deepest {(-gap[k]) * 1e3:.3g} mm" in contact.message
    # the margin: the steps within 5 mm but not overlapping
    (near,) = [f for f in found.findings if f.code == "clearance.margin"]
    within = np.flatnonzero((gap >= -TOLERANCE) & (gap < 0.005 - TOLERANCE))
    assert f"at {len(within)} of {len(q2)} steps" in near.message


def test_a_ball_beside_the_swing_gives_no_finding():
    rig, _ = _swept_rig(offset_y=0.1)
    built = rig.build()
    trajectory, _ = _swing(built)
    found = clearance_along(built, trajectory)
    assert found.findings == []
    assert found.minimum.min() == pytest.approx(0.1 - 0.035 - 0.01, abs=1e-6)


def test_adjacent_links_are_left_out_and_listed_never_reported():
    rig, _ = _swept_rig()
    built = rig.build()
    model = clearance_model(built)
    left = {(a, b): why for a, b, why in model.left_out}
    for k in range(1, 7):
        first = "arm.base_link" if k == 1 else f"arm.link_{k - 1}"
        assert left[(first, f"arm.link_{k}")] == "joined by a joint"
    moving = {(model.bodies[i].label, model.bodies[j].label) for i, j in model.moving}
    assert not moving & set(left)
    # at joint_3 = 2.5 rad link_3 folds onto link_2: adjacent, so no finding names the pair
    trajectory = built.play({"arm.joint_3": np.linspace(0, 2.5, 50)}, 0.01)
    assert not [f for f in clearance_along(built, trajectory).findings
                if "arm.link_2 and arm.link_3" in f.message]


def test_the_check_equals_the_plain_loop_of_the_library_on_the_played_poses(tmp_path):
    out = tmp_path / "o.npz"
    assert main(["play", str(DEMO_RIG), "--commands", str(DEMO_RIG.parent / "chain.csv"), "--out", str(out),
                 "--clearance", "--quiet"]) == 0
    with np.load(out) as data:
        minimum, closest = data["clearance_minimum"], data["clearance_closest"]
        pairs, poses = data["clearance_pairs"], data["frame_poses"]
        assert float(data["clearance_margin"]) == 0.005
        assert {"parts.holder", "arm.link_6"} in [set(r[:2]) for r in data["clearance_allowed"]]
    model = clearance_model(load(DEMO_RIG).build())
    expected, expected_pair = per_step_minimum(model, poses)
    np.testing.assert_allclose(minimum, expected, atol=1e-9)
    assert len(pairs) == len(model.moving) and closest.min() >= 0
    # ties aside, the closest pair is the loop's: its distance is the loop's minimum at every step
    labels = [tuple(p) for p in pairs]
    assert all(labels[c] == labels[e] or abs(minimum[t] - expected[t]) < 1e-12
               for t, (c, e) in enumerate(zip(closest, expected_pair, strict=True)))


def test_on_panda_the_broad_phase_keeps_the_loops_minimum_at_every_step():
    path = robot_urdf(PANDA)
    magnet = PermanentMagnet(Cylinder(radius=0.01, length=0.02), material="NdFeB-N42",
                             magnetisation=(0, 0, 1), at=(0.0, 0.0, 0.12), mount="arm.panda_hand")
    rig = Apparatus("p", chain={"arm": Arm.Kinematic(description=str(path))}, magnets={"m1": magnet})
    built = rig.build()
    rng = np.random.default_rng(3)
    art = built.segments["arm"].articulation
    lo, hi = np.maximum(art.lower, -2.5), np.minimum(art.upper, 2.5)
    q = lo + (hi - lo) * rng.random((60, art.nq))
    trajectory = built.play(q[:, :len(built.command_names)], 0.01)
    found = clearance_along(built, trajectory)
    expected, _ = per_step_minimum(clearance_model(built), trajectory.frame_poses)
    np.testing.assert_allclose(found.minimum, expected, atol=1e-9)


# -- at assembly -----------------------------------------------------------------------------------------
def test_a_magnet_at_a_panda_links_origin_inside_its_mesh_is_a_contact_in_validate(tmp_path, capsys):
    path = robot_urdf(PANDA)
    buried = PermanentMagnet(Cylinder(radius=0.005, length=0.01), material="NdFeB-N42",
                             magnetisation=(0, 0, 1), at=(0.0, 0.0, 0.0), mount="arm.panda_link4")
    rig = Apparatus("p", chain={"arm": Arm.Kinematic(description=str(path))}, magnets={"m1": buried})
    assert rig.validate() == []  # the rules hold: a buried magnet warns, it does not refuse
    found = initial_clearance(rig)
    # inside its own link (fixed to it: at every step) and, at rest, inside the link before it too
    (own,) = [f for f in found if "arm.panda_link4 and magnets.m1 overlap by" in f.message]
    assert (own.code, own.where) == ("clearance.contact", "magnets.m1")
    assert "fixed to one another" in own.message
    assert [f.code for f in found if "arm.panda_link3 and magnets.m1" in f.message] == ["clearance.contact"]
    file = tmp_path / "p.rig.json"
    save(rig, file)
    assert main(["validate", str(file)]) == 0
    out = capsys.readouterr().out
    assert "warning[clearance.contact] magnets.m1: arm.panda_link4 and magnets.m1 overlap by" in out
    assert "is valid" in out


def test_the_same_magnet_allowed_or_out_of_the_mesh_gives_nothing():
    path = robot_urdf(PANDA)
    magnet = PermanentMagnet(Cylinder(radius=0.005, length=0.01), material="NdFeB-N42",
                             magnetisation=(0, 0, 1), at=(0.0, 0.0, 0.0), mount="arm.panda_link4")
    rig = Apparatus("p", chain={"arm": Arm.Kinematic(description=str(path))}, magnets={"m1": magnet},
                    clearance=Clearance(allow=(Allowed("magnets.m1", "arm.panda_link4",
                                                       reason="a test: inside on purpose"),)))
    assert not [f for f in initial_clearance(rig) if "panda_link4 " in f.message]
    model = clearance_model(rig.build())
    assert model.allowed == (("arm.panda_link4", "magnets.m1", "a test: inside on purpose"),)
    rig.magnets["m1"] = PermanentMagnet(Cylinder(radius=0.005, length=0.01), material="NdFeB-N42",
                                        magnetisation=(0, 0, 1), at=(0.3, 0.0, 0.0), mount="arm.panda_link4")
    rig.clearance = None
    assert not [f for f in initial_clearance(rig) if "magnets.m1" in f.message]


def test_the_demo_rig_and_the_snippet_in_their_initial_pose():
    assert initial_clearance(load(DEMO_RIG)) == []  # its holder, seated on the flange, is allowed
    codes = {(f.code, f.where) for f in initial_clearance(snippet_rig())}
    # the snippet seats the spindle at link_6's origin, inside the wrist's solids
    assert codes == {("clearance.contact", "parts.holder"), ("clearance.contact", "magnets.m1")}


def test_a_magnet_in_a_rings_bore_is_clear_and_one_wider_than_the_bore_is_not():
    def rig(radius):
        holder = Part(Ring(inner_radius=0.01, outer_radius=0.02, length=0.02), material="aluminium",
                      at=(0, 0, 0.01), mount="motor.rotor")
        magnet = PermanentMagnet(Cylinder(radius=radius, length=0.01), material="NdFeB-N42",
                                 magnetisation=(0, 0, 1), at=(0, 0, 0.01), mount="motor.rotor")
        return Apparatus("r", chain={"motor": Motor.Kinematic()}, parts={"holder": holder},
                         magnets={"m1": magnet})

    assert initial_clearance(rig(0.009)) == []  # fixed to one another: checked for contact only
    (found,) = initial_clearance(rig(0.0105))
    assert found.code == "clearance.contact" and "fixed to one another" in found.message


# -- the margin's boundaries -------------------------------------------------------------------------------
def _pair_at(gap: float, clearance=None) -> list:
    """A 1 cm ball on a motor's rotor and one in the world, ``gap`` (m) apart in the initial pose."""
    turning = Part(Sphere(radius=0.01), material="aluminium", at=(0.1, 0.0, 0.0), mount="motor.rotor")
    still = Part(Sphere(radius=0.01), material="aluminium", at=(0.1, 0.0, 0.02 + gap))
    rig = Apparatus("m", chain={"motor": Motor.Kinematic()}, parts={"turning": turning, "still": still},
                    clearance=clearance)
    return sorted(f.code for f in initial_clearance(rig))


@pytest.mark.parametrize("gap, codes", [
    (0.005, []), (0.005 - 2e-6, ["clearance.margin"]), (0.0, ["clearance.margin"]),
    (-2e-6, ["clearance.contact"]), (0.1, []),
])
def test_the_default_margin_is_5_mm_exactly_and_touching_is_not_a_contact(gap, codes):
    assert _pair_at(gap) == codes


@pytest.mark.parametrize("gap, codes", [(0.002, []), (0.002 - 2e-6, ["clearance.margin"]), (0.004, [])])
def test_a_declared_margin_replaces_the_default(gap, codes):
    assert _pair_at(gap, Clearance(0.002, reason="the arm's repeatability")) == codes


def test_a_margin_of_zero_reports_contacts_only():
    assert _pair_at(0.0, Clearance(0.0, reason="contacts only")) == []
    assert _pair_at(-2e-6, Clearance(0.0, reason="contacts only")) == ["clearance.contact"]


def test_the_initial_pose_is_the_rigs_initial_positions():
    rig, theta = _swept_rig()
    rig.chain["arm"].initial_positions = {"joint_2": theta}
    built = rig.build()
    poses = initial_frame_poses(built)
    found = check(clearance_model(built), poses)
    assert [f.code for f in found.findings] == ["clearance.contact"]
    assert found.minimum[0] == pytest.approx(-0.045, abs=1e-6)


def test_the_closest_pair_is_named_by_its_labels_and_a_step_with_no_pair_by_empty_text():
    def ball(at, mount=None):
        return Part(Sphere(radius=0.01), material="aluminium", at=at, mount=mount)

    # a ball on the rotor, one 3 cm above it (gap 1 cm) and one 10 cm above it: the nearer is the closest
    rig = Apparatus("m", chain={"motor": Motor.Kinematic()},
                    parts={"turning": ball((0.1, 0.0, 0.0), "motor.rotor"), "far": ball((0.1, 0.0, 0.1)),
                           "near": ball((0.1, 0.0, 0.03))})
    built = rig.build()
    found = check(clearance_model(built), initial_frame_poses(built))
    assert len(found.pairs) == 2 and found.minimum[0] == pytest.approx(0.01, abs=1e-6)
    assert {*found.closest_labels()[0]} == {"parts.turning", "parts.near"}
    # two parts in the world do not move relative to each other: no pair at any step
    still = Apparatus("w", parts={"a": ball((0, 0, 0)), "b": ball((0, 0, 0.05))}).build()
    assert check(clearance_model(still), initial_frame_poses(still)).closest_labels().tolist() == [["", ""]]


def test_a_world_box_under_the_robot_is_a_fixed_pair():
    rig = Apparatus("t", chain={"arm": Arm.Kinematic(description=str(DEMO_URDF))},
                    parts={"table": Part(Box((1.0, 1.0, 0.1)), material="aluminium", at=(0, 0, -0.05))})
    model = clearance_model(rig.build())
    fixed = {(model.bodies[i].label, model.bodies[j].label) for i, j in model.fixed}
    assert ("arm.base_link", "parts.table") in fixed
    assert initial_clearance(rig) == []  # the base stands on it: touching, not a contact


def test_an_allowed_pair_naming_no_item_is_a_warning_of_the_check_not_a_rule():
    rig = load(DEMO_RIG)
    del rig.parts["holder"]  # its allowed pair stays behind
    assert rig.validate() == []
    (found,) = initial_clearance(rig)
    assert (found.code, found.where) == ("clearance.allow", "clearance.allow.0")
    assert "'parts.holder' is not an item of the rig" in found.message


def test_a_rig_without_segments_has_its_world_parts_checked():
    rig = Apparatus("w", parts={"a": Part(Sphere(radius=0.01), material="aluminium", at=(0, 0, 0)),
                                "b": Part(Sphere(radius=0.01), material="aluminium", at=(0, 0, 0.015))})
    (found,) = initial_clearance(rig)
    assert found.code == "clearance.contact" and "parts.a and parts.b overlap by 5 mm" in found.message


@pytest.mark.parametrize("orientation", ["fixed", "follows"])
def test_a_sample_is_checked_held_as_its_shape_or_turning_as_its_ball(orientation):
    bead = Sample((0.1, 0.0, 0.0), mount="motor.rotor", geometry=Box((0.02, 0.002, 0.002)),
                  material="NdFeB-N42", orientation=orientation)
    # 2.5 mm from the bead's centre: clear of the held needle's 1 mm half-width, inside its 10 mm ball
    wall = Part(Box((0.1, 0.1, 0.01)), material="aluminium", at=(0.1, 0.0, 0.0075))
    rig = Apparatus("s", chain={"motor": Motor.Kinematic()}, parts={"wall": wall}, samples={"bead": bead})
    (found,) = initial_clearance(rig)
    assert "parts.wall and samples.bead" in found.message
    if orientation == "fixed":
        assert found.code == "clearance.margin" and "are 1.5 mm apart" in found.message
    else:  # its ball: the needle's half-diagonal, 10.1 mm, reaches 7.6 mm into the wall
        assert found.code == "clearance.contact" and "overlap by 7.6 mm" in found.message


# -- the convex hull of a mesh ------------------------------------------------------------------------------
def test_every_triangle_of_a_hull_faces_away_from_its_centroid_and_it_encloses_the_box():
    rng = np.random.default_rng(7)
    half = np.array([0.1, 0.2, 0.3])
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) * half
    inside = rng.uniform(-0.9, 0.9, (40, 3)) * half
    vertices, tris = _hull(np.concatenate([inside, corners]))
    assert sorted(map(tuple, vertices)) == sorted(map(tuple, corners))  # the interior points are dropped
    a, b, d = (vertices[tris[:, k]] for k in range(3))
    outward = np.einsum("ij,ij->i", np.cross(b - a, d - a), a - vertices.mean(axis=0))
    assert len(tris) == 12 and (outward > 0).all()
    mesh = trimesh.Trimesh(vertices, tris, process=False)
    assert mesh.is_watertight and mesh.is_winding_consistent
    assert mesh.volume == pytest.approx(8 * half.prod(), rel=1e-12)  # positive: the normals point out
