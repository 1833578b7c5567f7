"""Session details pinned against closed forms: a piece pair whose relative pose is kept is not handed to the
collision library again, a part fixed in the world is drawn with its centroid on its ``at``, the keep-out
box of poses given in single or extended precision, and a finding on one value inside a part's shape or place
making it a stand-in."""

from __future__ import annotations

import math

import coal
import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.rig import Apparatus, Arm, Box, Cylinder, Finding, Motor, Part, PermanentMagnet, load, tesla
from mime_gui.rig.build import graft_link
from mime_gui.rig.collision import clearance_model
from mime_gui.rig.geometries import Arc
from mime_gui.rig.rules import analyse
from mime_gui.session import ItemRef, Session
from mime_gui.session.clearance import PairMemory, closest_now, frame_poses_now
from mime_gui.session.items import drawn_items
from mime_gui.session.keepout import MARGIN, grid_box
from mime_gui.session.stand_ins import StandIns

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"

#: a carriage sliding along x from the world origin, without geometry of its own
SLIDER = """<robot name="slider"><link name="base"/><link name="carriage"/>
<joint name="slide" type="prismatic"><parent link="base"/><child link="carriage"/><axis xyz="1 0 0"/>
<limit lower="-1" upper="1" effort="10" velocity="1"/></joint></robot>"""


def _turn_z(angle: float, at) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    X = np.array([[c, -s, 0.0, 0.0], [s, c, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]])
    X[:3, 3] = at
    return X


def test_a_pair_whose_relative_pose_is_kept_is_not_handed_to_the_collision_library_again(tmp_path,
                                                                                         monkeypatch):
    """Two 20 cm cubes, one on the carriage and one on the base 0.5 m along x: faces 0.3 m apart. The same
    poses again, or every frame turned and moved alike, keep the pair's relative pose: the remembered
    distance answers without a library call; the carriage slid computes it anew."""
    urdf = tmp_path / "slider.urdf"
    urdf.write_text(SLIDER)
    rig = Apparatus("boxes", chain={"arm": Arm.Kinematic(description=str(urdf))},
                    parts={"moving": Part(Box(size=(0.2, 0.2, 0.2)), material="aluminium",
                                          mount="arm.carriage"),
                           "base": Part(Box(size=(0.2, 0.2, 0.2)), material="aluminium", at=(0.5, 0.0, 0.0),
                                        mount="arm.base")})
    session = Session()
    session.open_apparatus(rig)
    model = clearance_model(session.document.built)
    poses = frame_poses_now(session.document)
    calls = []
    library = coal.distance

    def counted(*args):
        calls.append(1)
        return library(*args)

    monkeypatch.setattr(coal, "distance", counted)
    memory = PairMemory(len(model.pieces["moving"][0]))
    assert closest_now(model, poses, memory).distance == pytest.approx(0.3, abs=1e-9)
    assert len(calls) == 1
    assert closest_now(model, poses.copy(), memory).distance == pytest.approx(0.3, abs=1e-9)
    assert len(calls) == 1  # the same poses: remembered
    moved = _turn_z(0.7, (-1.25, 2.0, 0.4)) @ poses
    assert closest_now(model, moved, memory).distance == pytest.approx(0.3, abs=1e-9)
    assert len(calls) == 1  # every frame turned and moved alike: the pair's relative pose is kept
    session.set_joint_positions("arm", [0.05])
    slid = closest_now(model, frame_poses_now(session.document), memory)
    assert slid.distance == pytest.approx(0.25, abs=1e-9)  # the faces at x = 0.15 and 0.4
    assert len(calls) == 2


@pytest.mark.parametrize("at", [(0.0, 0.0, 0.0), (0.1, -0.2, 0.3)], ids=["at the origin", "away from it"])
def test_a_half_ring_fixed_in_the_world_is_drawn_with_its_centroid_on_its_at(at):
    """A half ring (0° to 180° about z) has its own frame on the ring's axis; its centroid lies on +y at
    4 (R³ − r³) / (3π (R² − r²)) (the annular sector's closed form). The drawn shape is shifted so that
    centroid, carried by the item's pose, lands on ``at``."""
    r, R = 0.01, 0.02
    half_ring = Part(Arc(r, R, 0.005, 0.0, 180.0), material="aluminium", at=at)
    session = Session()
    session.open_apparatus(Apparatus("ring", chain={"motor": Motor.Kinematic()}, parts={"ring": half_ring}))
    item = drawn_items(session.document)[ItemRef("", "part", "ring")]
    assert item.rides is None
    centroid = np.array([0.0, 4 * (R ** 3 - r ** 3) / (3 * math.pi * (R ** 2 - r ** 2)), 0.0])
    np.testing.assert_allclose(item.shape.link_X_shape[:3, 3], -centroid, rtol=0, atol=1e-15)
    world_X_shape = item.local @ item.shape.link_X_shape
    world_centroid = world_X_shape[:3, :3] @ centroid + world_X_shape[:3, 3]
    np.testing.assert_allclose(world_centroid, at, rtol=0, atol=1e-15)


def test_a_centred_box_fixed_in_the_world_is_drawn_unshifted_at_its_at():
    box = Part(Box(size=(0.02, 0.04, 0.01)), material="aluminium", at=(-0.3, 0.25, 0.125))
    session = Session()
    session.open_apparatus(Apparatus("box", chain={"motor": Motor.Kinematic()}, parts={"block": box}))
    item = drawn_items(session.document)[ItemRef("", "part", "block")]
    np.testing.assert_array_equal(item.shape.link_X_shape, np.eye(4))
    np.testing.assert_array_equal(item.local[:3, 3], (-0.3, 0.25, 0.125))


@pytest.mark.parametrize("precision", [np.float32, np.longdouble], ids=["single", "extended"])
def test_the_keep_out_box_of_poses_in_another_precision_is_the_closed_form_in_double_precision(precision):
    """A 10 x 20 x 4 mm magnet of declared remanence 1.2 T on a motor's rotor, every frame at one turned
    pose (its translation exact in single precision) given in single or extended precision. Its moment is
    Br V / μ0, so the field's reach at the limit is (μ0/4π · 2 Br V/μ0 / limit)^(1/3), that is
    (Br V / (2π limit))^(1/3); the box is centred on the magnet's centroid and reaches
    (half diagonal + reach)(1 + MARGIN) each way, in double precision whatever the precision of the poses."""
    size, Br, limit = (0.01, 0.02, 0.004), 1.2, 5e-4
    magnet = PermanentMagnet(Box(size=size), material="NdFeB-N42", mount="motor.rotor", at=(0.0, 0.0, 0.02),
                             magnetisation=(1.0, 0.0, 0.0), remanence=tesla(Br, reason="datasheet"))
    session = Session()
    session.open_apparatus(Apparatus("m", chain={"motor": Motor.Kinematic()}, magnets={"m1": magnet}))
    built = session.document.built
    assert session.findings == ()
    centre = np.array([0.375, -0.25, 0.5])
    pose = _turn_z(math.pi / 2, centre)
    poses = np.repeat(pose[None], len(built.frame_names), axis=0).astype(precision)
    volume = size[0] * size[1] * size[2]
    reach = (Br * volume / (2 * math.pi * limit)) ** (1 / 3)
    half = (0.5 * math.sqrt(sum(s * s for s in size)) + reach) * (1 + MARGIN)
    low, high = grid_box(built, poses, limit)
    assert low.dtype == np.float64 and high.dtype == np.float64
    np.testing.assert_allclose(low, centre - half, rtol=0, atol=1e-13)
    np.testing.assert_allclose(high, centre + half, rtol=0, atol=1e-13)


@pytest.mark.parametrize("collection, name, other, where", [
    ("parts", "holder", ("magnets", "m1"), "parts.holder.geometry.radius"),
    ("magnets", "m1", ("parts", "holder"), "magnets.m1.at.z"),
], ids=["a value of a part's geometry", "a coordinate of a magnet's place"])
def test_a_finding_on_one_value_inside_a_shape_or_place_makes_the_part_a_stand_in(collection, name, other,
                                                                                   where):
    """The demo's holder and magnet drawn once, then both given another valid size and place; a finding on
    one value inside one of them (its geometry's radius, its place's z): that one is drawn as it last was,
    as a stand-in, the other as it is now."""
    rig = load(DEMO_RIG)
    stand_ins = StandIns()
    stand_ins.display(rig, analyse(rig))
    edited = load(DEMO_RIG)
    for collection_, name_ in (("parts", "holder"), ("magnets", "m1")):
        solid = getattr(edited, collection_)[name_]
        solid.geometry = Cylinder(radius=0.006, length=0.012)
        solid.at = (0.0, 0.0, 0.03 if name_ == "m1" else 0.008)
    analysis = analyse(edited)
    assert analysis.findings == []
    analysis.findings.append(Finding("part.geometry", where, "being typed"))
    shown, _ = stand_ins.display(edited, analysis)
    before = getattr(rig, collection)[name]
    stood_in = getattr(shown, collection)[name]
    assert (stood_in.geometry, stood_in.at) == (before.geometry, before.at)
    assert stood_in.geometry == Cylinder(radius=0.01 if name == "holder" else 0.005,
                                         length=0.02 if name == "holder" else 0.01)
    kept = getattr(shown, other[0])[other[1]]
    assert kept.geometry == Cylinder(radius=0.006, length=0.012)
    assert stand_ins.refs == {ItemRef("motor", "link", graft_link(name))}


def test_a_finding_on_another_field_of_the_part_makes_no_stand_in():
    rig = load(DEMO_RIG)
    stand_ins = StandIns()
    stand_ins.display(rig, analyse(rig))
    analysis = analyse(rig)
    analysis.findings.append(Finding("part.mass", "parts.holder.geometryless", "a field of another name"))
    shown, _ = stand_ins.display(rig, analysis)
    assert shown is rig and stand_ins.refs == frozenset()
