"""Measures: every kind of end reads the published frame poses (numpy on ``Session.frame_world_pose`` with the
rig file's own numbers, and Pinocchio's forward kinematics of the demo rig and of a real robot); along a
played trajectory each step equals the reading of that step's published poses; a measure is view state (not
in the rig file, not in the history); an end an edit renamed or removed reads stale until an undo; another
document drops what it lacks; refusals are coded."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from oracle import demo_model, demo_poses, demo_q
from robot_data import robot_urdf

from mime_gui import RESOURCES
from mime_gui.rig import Apparatus, Arm, Box, Cylinder, Part, PermanentMagnet, Probe
from mime_gui.rig.measures import (
    CentreEnd,
    FrameEnd,
    MeasureError,
    PointEnd,
    ProbeEnd,
    measure,
    measure_along,
)
from mime_gui.session import ItemRef, RemoveItem, RenameItem, Session, SessionError
from mime_gui.session.transport import Transport

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"
RIG = json.loads(DEMO_RIG.read_text())  # the rig file's own numbers, not the rig package's reading of them
ARM = np.array([0.3, -0.5, 0.9, 0.2, 0.6, -0.4])
SHAFT = 0.8


def at(collection: str, name: str) -> np.ndarray:
    return np.array(RIG[collection][name]["at"]["value"], float)


def point(X: np.ndarray, p) -> np.ndarray:
    return X[:3, :3] @ np.asarray(p, float) + X[:3, 3]


def angle(u, v) -> float:
    """The angle between two directions, by the arccosine (another formula than the code's)."""
    u, v = np.asarray(u, float), np.asarray(v, float)
    return math.acos(float(np.clip(u @ v / (np.linalg.norm(u) * np.linalg.norm(v)), -1.0, 1.0)))


@pytest.fixture
def demo():
    s = Session()
    s.open(DEMO_RIG)
    s.set_joint_positions("arm", ARM)
    s.set_joint_positions("motor", [SHAFT])
    return s


# -- each kind of end, from the published poses -----------------------------------------------------------
def _by_hand(s: Session, end) -> tuple[np.ndarray, np.ndarray]:
    """(point, axes) of an end from ``frame_world_pose`` and the rig file's numbers."""
    if isinstance(end, FrameEnd):
        X = s.frame_world_pose(end.segment, end.frame)
        return X[:3, 3], X[:3, :3]
    if isinstance(end, PointEnd):
        X = s.frame_world_pose(end.segment, end.frame)
        return point(X, end.at), X[:3, :3]
    collection = end.collection if isinstance(end, CentreEnd) else "probes"
    item = RIG[collection][end.name]
    segment, frame = item["mount"].split(".")
    X = s.frame_world_pose(segment, frame)
    return point(X, at(collection, end.name)), X[:3, :3]


ENDS = [FrameEnd("arm", "link_3"), FrameEnd("motor", "rotor"), CentreEnd("magnets", "m1"),
        CentreEnd("parts", "holder"), ProbeEnd("sample"), PointEnd("arm", "link_4", (0.01, -0.02, 0.03))]


@pytest.mark.parametrize("a", ENDS, ids=lambda e: e.label())
@pytest.mark.parametrize("b", ENDS, ids=lambda e: e.label())
def test_every_pair_of_ends_reads_the_published_poses(demo, a, b):
    if a == b:
        with pytest.raises(SessionError) as err:
            demo.add_measure(a, b)
        assert err.value.code == "measure.same-end"
        return
    m = demo.add_measure(a, b, ("x", "z"))
    (r,) = demo.measure_readings()
    (pa, Ra), (pb, Rb) = _by_hand(demo, a), _by_hand(demo, b)
    np.testing.assert_allclose(r.a, pa, rtol=0, atol=1e-15)
    np.testing.assert_allclose(r.b, pb, rtol=0, atol=1e-15)
    np.testing.assert_allclose(r.vector, pb - pa, rtol=0, atol=1e-15)
    assert r.distance == pytest.approx(math.sqrt(float(np.sum((pb - pa) ** 2))), rel=1e-14, abs=1e-16)
    assert r.angle == pytest.approx(angle(Ra[:, 0], Rb[:, 2]), abs=1e-7)  # an arccosine: half the digits
    assert r.angle_deg == pytest.approx(math.degrees(r.angle), rel=1e-15)
    assert demo.measures == (m,)


def test_the_demo_rig_against_pinocchio(demo):
    """Pinocchio's poses of the stator (tool0), the rotor and link_3 at the same joint positions."""
    pin, model = demo_model()
    data = model.createData()
    pin.framesForwardKinematics(model, data, demo_q(pin, model, ARM, SHAFT))
    poses = demo_poses(ARM, SHAFT)
    stator, rotor = poses["stator"], poses["rotor"]
    link3 = data.oMf[model.getFrameId("link_3")].homogeneous
    magnet = point(rotor, at("magnets", "m1"))
    sample = point(stator, at("probes", "sample"))
    holder = point(rotor, at("parts", "holder"))
    demo.add_measure(CentreEnd("magnets", "m1"), ProbeEnd("sample"))
    demo.add_measure(CentreEnd("parts", "holder"), FrameEnd("arm", "link_3"), ("z", "y"))
    demo.add_measure(FrameEnd("motor", "stator"), FrameEnd("motor", "rotor"), ("x", "x"))
    demo.add_measure(PointEnd("arm", "link_3", (0.05, 0.0, -0.02)), ProbeEnd("sample"))
    m1_sample, holder_link3, turn, on_link3 = demo.measure_readings()
    assert m1_sample.distance == pytest.approx(np.linalg.norm(sample - magnet), abs=1e-12)
    assert holder_link3.distance == pytest.approx(np.linalg.norm(link3[:3, 3] - holder), abs=1e-12)
    assert holder_link3.angle == pytest.approx(angle(rotor[:3, 2], link3[:3, 1]), abs=1e-7)
    assert turn.distance == pytest.approx(0.0, abs=1e-12)  # the rotor turns in place on the stator
    assert turn.angle == pytest.approx(SHAFT, abs=1e-12)  # by the shaft's angle
    assert on_link3.distance == pytest.approx(np.linalg.norm(sample - point(link3, (0.05, 0.0, -0.02))),
                                              abs=1e-12)


def _panda_rig() -> tuple[Apparatus, np.ndarray]:
    """A Panda on a turned placement, a magnet on its flange link, a probe and a box fixed in the world."""
    w, x, y, z = math.cos(0.35), 0.0, math.sin(0.35) * 0.6, math.sin(0.35) * 0.8
    placement = np.eye(4)
    placement[:3, :3] = [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                         [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                         [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]
    placement[:3, 3] = [0.1, -0.2, 0.05]
    rig = Apparatus("bench", chain={"panda": Arm.Kinematic(description=str(robot_urdf(PANDA)),
                                                           at=(0.1, -0.2, 0.05), orientation=(w, x, y, z))},
                    magnets={"tip": PermanentMagnet(Cylinder(0.005, 0.01), material="NdFeB-N42",
                                                    at=(0.01, -0.02, 0.05), mount="panda.panda_link7")},
                    parts={"dish": Part(Box((0.05, 0.05, 0.01)), material="aluminium", at=(0.4, 0.1, 0.02))},
                    probes={"well": Probe((0.45, 0.12, 0.03))})
    return rig, placement


PANDA = "panda_description/urdf/panda.urdf"


def test_a_real_robot_against_pinocchio():
    pin = pytest.importorskip("pinocchio")
    rig, placement = _panda_rig()
    s = Session()
    s.open_apparatus(rig)
    assert s.findings == ()
    art = s.segment("panda").articulation
    rng = np.random.default_rng(25)
    lo, hi = np.where(np.isfinite(art.lower), art.lower, -3), np.where(np.isfinite(art.upper), art.upper, 3)
    model = pin.buildModelFromUrdf(str(robot_urdf(PANDA)))
    data = model.createData()
    s.add_measure(CentreEnd("magnets", "tip"), ProbeEnd("well"), ("z", "z"))
    s.add_measure(CentreEnd("magnets", "tip"), CentreEnd("parts", "dish"))
    s.add_measure(FrameEnd("panda", "panda_link0"), FrameEnd("panda", "panda_hand"), ("x", "y"))
    for _ in range(5):
        s.set_joint_positions("panda", rng.uniform(lo, hi))
        q = s.joint_positions("panda")
        qp = pin.neutral(model)
        for j in range(1, model.njoints):
            qp[model.joints[j].idx_q] = q[art.joint_index(model.names[j])]
        pin.framesForwardKinematics(model, data, qp)

        def world(frame):
            return placement @ data.oMf[model.getFrameId(frame)].homogeneous

        link7, link0, hand = world("panda_link7"), world("panda_link0"), world("panda_hand")
        magnet = point(link7, (0.01, -0.02, 0.05))
        tip_well, tip_dish, base_hand = s.measure_readings()
        assert tip_well.distance == pytest.approx(np.linalg.norm([0.45, 0.12, 0.03] - magnet), abs=1e-12)
        assert tip_well.angle == pytest.approx(angle(link7[:3, 2], [0, 0, 1]), abs=1e-7)  # the world's z
        assert tip_dish.distance == pytest.approx(np.linalg.norm([0.4, 0.1, 0.02] - magnet), abs=1e-12)
        assert base_hand.distance == pytest.approx(np.linalg.norm(hand[:3, 3] - link0[:3, 3]), abs=1e-12)
        assert base_hand.angle == pytest.approx(angle(link0[:3, 0], hand[:3, 1]), abs=1e-7)


def test_a_magnet_on_a_turned_declared_frame_has_that_frames_axes(demo):
    """A magnet tilted the only way a part is: mounted on a turned frame of the rig's own. Its centre is the
    composition tool0 ← frame ← magnet by hand, its axes the frame's: the angle to tool0's z is the turn."""
    frames = pytest.importorskip("mime_gui.rig.frames")
    rig = demo.rig
    half = 0.35  # a turn of 0.7 rad about x
    rig.frames = {"tilt": frames.DeclaredFrame("arm.tool0", at=(0.0, 0.03, 0.01),
                                               orientation=(math.cos(half), math.sin(half), 0.0, 0.0))}
    rig.magnets["m1"].mount = "arm.tilt"
    demo.open_apparatus(rig)
    demo.set_joint_positions("arm", ARM)
    demo.add_measure(CentreEnd("magnets", "m1"), FrameEnd("arm", "tool0"), ("z", "z"))
    (r,) = demo.measure_readings()
    c, s = math.cos(0.7), math.sin(0.7)
    turn = np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])
    tool0 = demo.frame_world_pose("arm", "tool0")
    centre = point(tool0, np.array([0.0, 0.03, 0.01]) + turn @ at("magnets", "m1"))
    np.testing.assert_allclose(r.a, centre, rtol=0, atol=1e-15)
    assert r.angle == pytest.approx(0.7, abs=1e-12)


# -- along a trajectory -------------------------------------------------------------------------------------
def test_along_a_played_trajectory_each_step_is_that_steps_published_reading(demo):
    transport = Transport(demo)
    player = transport.open(RESOURCES / "demo" / "chain.csv")
    measures = [demo.add_measure(CentreEnd("magnets", "m1"), FrameEnd("arm", "base_link"), ("z", "z")),
                demo.add_measure(PointEnd("motor", "rotor", (0.02, 0.0, 0.0)),
                                 PointEnd("motor", "stator", (0.02, 0.0, 0.05))),
                demo.add_measure(CentreEnd("parts", "holder"), FrameEnd("arm", "link_2"))]
    built = demo.document.built
    along = [measure_along(m, built, player.trajectory, start=player.schedule.start) for m in measures]
    assert all(len(a.distance) == player.rows for a in along)
    np.testing.assert_array_equal(along[0].time, player.times)
    for row in (0, 17, player.rows // 2, player.rows - 1):
        transport.seek(row)  # the row's states published, as the player shows them
        for m, a, r in zip(measures, along, demo.measure_readings(), strict=True):
            np.testing.assert_allclose(a.a[row], r.a, rtol=0, atol=1e-15, err_msg=m.label())
            np.testing.assert_allclose(a.b[row], r.b, rtol=0, atol=1e-15, err_msg=m.label())
            assert a.distance[row] == pytest.approx(r.distance, rel=1e-14, abs=1e-16)
            if m.axes is not None:
                assert a.angle[row] == pytest.approx(r.angle, abs=1e-14)
    assert along[1].angle is None and np.ptp(along[1].distance) > 1e-3  # the rotor's point turns by the other


def test_along_a_trajectory_agrees_with_pinocchio_step_by_step(demo):
    built = demo.document.built
    steps, dt = 40, 0.01
    t = dt * np.arange(1, steps + 1)
    trajectory = built.play({"arm.joint_2": -0.4 + 0.5 * t, "motor.shaft": 3.0 * t}, dt)
    along = measure_along(measure(CentreEnd("magnets", "m1"), FrameEnd("arm", "link_3"), ("z", "x")), built,
                          trajectory)
    arm_q, motor_q = trajectory.segments["arm"].joint_positions, trajectory.segments["motor"].joint_positions
    pin, model = demo_model()
    data = model.createData()
    for n in (0, 9, steps - 1):
        pin.framesForwardKinematics(model, data, demo_q(pin, model, arm_q[n], motor_q[n, 0]))
        rotor = data.oMi[model.getJointId("motor")].homogeneous
        link3 = data.oMf[model.getFrameId("link_3")].homogeneous
        assert along.distance[n] == pytest.approx(
            np.linalg.norm(link3[:3, 3] - point(rotor, at("magnets", "m1"))), abs=1e-12)
        assert along.angle[n] == pytest.approx(angle(rotor[:3, 2], link3[:3, 0]), abs=1e-7)


# -- view state, not the rig --------------------------------------------------------------------------------
def test_measures_are_not_the_rig_nor_its_history(demo, tmp_path):
    changed = []
    demo.measures_changed.connect(changed.append)
    m = demo.add_measure(CentreEnd("magnets", "m1"), ProbeEnd("sample"))
    assert changed == [(m,)]
    assert not demo.can_undo and not demo.modified
    saved = demo.save(tmp_path / "copy.rig.json")
    assert "sample" in open(saved).read() and "measure" not in open(saved).read()
    demo.measure_readings()
    assert changed == [(m,)]  # reading emits nothing
    other = demo.add_measure(FrameEnd("arm", "tool0"), FrameEnd("motor", "rotor"), ("z", "z"))
    demo.remove_measure(m)
    assert demo.measures == (other,) and changed[-1] == (other,)
    demo.clear_measures()
    assert demo.measures == () and changed[-1] == ()
    demo.clear_measures()  # nothing to clear: no event
    assert len(changed) == 4


def test_an_end_renamed_or_removed_reads_stale_until_an_undo(demo):
    m1 = demo.add_measure(CentreEnd("magnets", "m1"), ProbeEnd("sample"))
    link = demo.add_measure(FrameEnd("motor", "rotor"), FrameEnd("arm", "link_3"))
    before = [r.distance for r in demo.measure_readings()]
    demo.apply(RenameItem("magnets", "m1", "north"))
    stale, live = demo.measure_readings()
    assert isinstance(stale, MeasureError) and stale.code == "measure.end" and stale.file == "measure.a"
    assert stale.message == "the rig has no magnet 'm1' (renamed or removed); remove this measure, or undo " \
                            "the edit"
    assert live.distance == pytest.approx(before[1], abs=1e-15)
    assert demo.measures == (m1, link)  # kept, stale
    with pytest.raises(MeasureError) as err:  # along the new build too
        measure_along(m1, demo.document.built, demo.document.built.play({"motor.shaft": [0.1]}, 0.01))
    assert err.value.code == "measure.end"
    demo.undo()
    assert [r.distance for r in demo.measure_readings()] == pytest.approx(before, abs=1e-15)
    demo.apply(RemoveItem("probes", "sample"))
    assert "no probe 'sample'" in demo.measure_readings()[0].message
    demo.apply(RenameItem("chain", "motor", "spindle"))  # the segment renamed: a frame end on it is stale
    assert "no segment 'motor'" in demo.measure_readings()[1].message


def test_another_document_drops_what_it_lacks_and_a_close_drops_all(demo, tmp_path):
    kept = demo.add_measure(FrameEnd("arm", "tool0"), FrameEnd("arm", "link_2"), ("z", "z"))
    demo.add_measure(CentreEnd("magnets", "m1"), ProbeEnd("sample"))
    changed = []
    demo.measures_changed.connect(changed.append)
    demo.reload()
    assert len(demo.measures) == 2 and changed == []  # the same file: both kept
    rig = demo.rig
    del rig.magnets["m1"]
    demo.open_apparatus(rig)  # another rig with the arm and without the magnet: the magnet's measure goes
    assert demo.measures == (kept,) and changed == [(kept,)]
    demo.open(RESOURCES / "demo" / "arm.urdf")  # a URDF opens as a segment named after the robot: no "arm"
    assert demo.measures == () and changed[-1] == ()
    demo.add_measure(FrameEnd("demo_arm", "tool0"), FrameEnd("demo_arm", "link_2"))
    demo.close()
    assert demo.measures == () and changed[-1] == ()


# -- ends from the selection --------------------------------------------------------------------------------
def test_an_item_as_selected_is_the_end_it_stands_for(demo):
    rotor = demo.segment("motor")
    graft = rotor.graft_of("m1")
    assert demo.measure_end(ItemRef("motor", "link", graft)) == CentreEnd("magnets", "m1")
    assert demo.measure_end(ItemRef("", "magnet", "m1")) == CentreEnd("magnets", "m1")
    assert demo.measure_end(ItemRef("", "part", "holder")) == CentreEnd("parts", "holder")
    assert demo.measure_end(ItemRef("", "probe", "sample")) == ProbeEnd("sample")
    assert demo.measure_end(ItemRef("arm", "frame", "tool0")) == FrameEnd("arm", "tool0")
    assert demo.measure_end(ItemRef("arm", "link", "link_3")) == FrameEnd("arm", "link_3")
    assert demo.measure_end(ItemRef("arm", "joint", "joint_3")) == FrameEnd("arm", "link_3")  # its child
    assert demo.measure_end(ItemRef("arm", "segment", "arm")) == FrameEnd("arm", "base_link")  # its root
    with pytest.raises(SessionError) as err:
        demo.measure_end(ItemRef("arm", "link", "no_such_link"))
    assert err.value.code == "measure.end"


def test_a_measure_between_two_selected_items_runs_between_the_ends_they_stand_for(demo):
    m = demo.add_measure(ItemRef("arm", "joint", "joint_3"), ItemRef("", "magnet", "m1"))
    assert (m.a, m.b) == (FrameEnd("arm", "link_3"), CentreEnd("magnets", "m1"))
    assert demo.measures == (m,)


def test_a_point_picked_on_a_link_stays_on_it_as_it_moves(demo):
    X = demo.frame_world_pose("arm", "link_4")
    picked = point(X, (0.02, 0.01, -0.03))
    end = demo.measure_end(ItemRef("arm", "link", "link_4"), picked)
    assert isinstance(end, PointEnd) and (end.segment, end.frame) == ("arm", "link_4")
    np.testing.assert_allclose(end.at, (0.02, 0.01, -0.03), atol=1e-14)
    m = demo.add_measure(end, FrameEnd("arm", "base_link"))
    assert demo.measure_readings()[0].a == pytest.approx(picked, abs=1e-14)
    demo.set_joint_positions("arm", ARM + 0.3)
    (r,) = demo.measure_readings()
    moved = point(demo.frame_world_pose("arm", "link_4"), (0.02, 0.01, -0.03))
    np.testing.assert_allclose(r.a, moved, atol=1e-14)
    assert np.linalg.norm(moved - picked) > 0.01
    assert demo.measures == (m,)
    with pytest.raises(SessionError) as err:
        demo.measure_end(ItemRef("arm", "link", "link_4"), [0.0, math.nan, 0.0])
    assert err.value.code == "measure.point"


# -- refusals ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("a, b, axes, code, words", [
    (FrameEnd("arm", "tool0"), FrameEnd("arm", "tool0"), None, "measure.same-end", "pick two different"),
    (FrameEnd("arm", "tool0"), FrameEnd("arm", "link_9"), None, "measure.end", "has no frame 'link_9'"),
    (FrameEnd("arm", "tool0"), CentreEnd("magnets", "m9"), None, "measure.end", "no magnet 'm9'"),
    (FrameEnd("arm", "tool0"), CentreEnd("probes", "sample"), None, "measure.end-kind", "part or a magnet"),
    (FrameEnd("arm", "tool0"), "arm.link_3", None, "measure.end-kind", "give a frame"),
    (FrameEnd("arm", "tool0"), FrameEnd("arm", "link_3"), ("z", "w"), "measure.axis", "one of x, y, z"),
    (FrameEnd("arm", "tool0"), FrameEnd("arm", "link_3"), "z", "measure.axis", "one of x, y, z"),
    (FrameEnd("arm", "tool0"), PointEnd("arm", "link_3", (0.0, math.inf, 0.0)), None, "measure.point",
     "three finite numbers"),
    (FrameEnd("arm", "tool0"), PointEnd("arm", "link_3", (0.0, 2e6, 0.0)), None, "measure.point", "within"),
])
def test_refusals_are_coded_announced_and_change_nothing(demo, a, b, axes, code, words):
    errors = []
    demo.error.connect(errors.append)
    with pytest.raises(SessionError) as err:
        demo.add_measure(a, b, axes)
    assert err.value.code == code and words in err.value.message
    assert errors == [err.value] and demo.measures == ()


def test_the_same_measure_twice_and_one_not_listed_are_refused(demo):
    m = demo.add_measure(CentreEnd("magnets", "m1"), ProbeEnd("sample"))
    with pytest.raises(SessionError) as err:
        demo.add_measure(CentreEnd("magnets", "m1"), ProbeEnd("sample"))
    assert err.value.code == "measure.duplicate"
    demo.remove_measure(m)
    with pytest.raises(SessionError) as err:
        demo.remove_measure(m)
    assert err.value.code == "measure.unknown"
    with pytest.raises(SessionError) as err:
        Session().add_measure(FrameEnd("arm", "tool0"), FrameEnd("arm", "link_3"))
    assert err.value.code == "measure.end" and "nothing is open" in err.value.message


@pytest.mark.parametrize("missing", ["a", "b"])
def test_a_missing_end_is_refused_naming_which_end_it_is(demo, missing):
    there, gone = FrameEnd("arm", "tool0"), FrameEnd("arm", "link_9")
    with pytest.raises(SessionError) as err:
        demo.add_measure(*((gone, there) if missing == "a" else (there, gone)))
    assert (err.value.code, err.value.file) == ("measure.end", f"measure.{missing}")
    assert str(err.value).startswith(f"error[measure.end] measure.{missing}: ")


def test_an_item_that_is_no_end_is_refused_on_the_measure_saying_what_to_pick(demo):
    with pytest.raises(SessionError) as err:
        demo.measure_end(ItemRef("arm", "link", "no_such_link"))
    assert (err.value.code, err.value.file) == ("measure.end", "measure")
    assert str(err.value).startswith("error[measure.end] measure: link ")
    assert "'arm.no_such_link'" in err.value.message and "pick one of those" in err.value.message


@pytest.mark.parametrize("item", [
    ItemRef("gripper", "link", "tool0"),  # a segment the rig lacks
    ItemRef("arm", "segment", "motor"),  # a segment's row names itself
    ItemRef("arm", "joint", "joint_9"),
    ItemRef("arm", "weird", "link_3"),  # a kind no end stands for
], ids=["unknown segment", "another segment's row", "unknown joint", "unknown kind"])
def test_an_item_standing_for_no_frame_is_refused_naming_it(demo, item):
    with pytest.raises(SessionError) as err:
        demo.measure_end(item)
    assert (err.value.code, err.value.file) == ("measure.end", "measure")
    assert err.value.message == (f"{item.kind} {item.path()!r} is not a frame, part, magnet or probe of the "
                                 "rig; pick one of those")


@pytest.mark.parametrize("picked", ["abc", object(), (0.0, 0.1)], ids=["text", "an object", "two numbers"])
def test_a_picked_point_that_is_no_point_is_refused_saying_what_to_give(demo, picked):
    with pytest.raises(SessionError) as err:
        demo.measure_end(ItemRef("arm", "link", "link_3"), picked)
    assert (err.value.code, err.value.file) == ("measure.point", "measure")
    assert err.value.message == (f"the point {picked!r} is not three finite numbers; give the picked point "
                                 "in metres, world axes")


def test_a_point_picked_on_a_missing_magnet_is_refused_with_the_ends_reason(demo):
    errors = []
    demo.error.connect(errors.append)
    with pytest.raises(SessionError) as err:
        demo.measure_end(ItemRef("", "magnet", "m9"), (0.0, 0.0, 0.0))
    assert (err.value.code, err.value.file) == ("measure.end", "measure")
    assert "no magnet 'm9'" in err.value.message and errors == [err.value]


def test_a_point_picked_on_a_part_fixed_in_the_world_is_refused_as_on_no_frame(demo):
    from mime_gui.session import AddItem

    demo.apply(AddItem("parts", "block", Part(Box((0.02, 0.04, 0.06)), material="aluminium",
                                              at=(0.3, 0.0, 0.1))))
    assert demo.measure_end(ItemRef("", "part", "block")) == CentreEnd("parts", "block")  # as it is: fine
    with pytest.raises(SessionError) as err:
        demo.measure_end(ItemRef("", "part", "block"), (0.3, 0.0, 0.1))
    assert (err.value.code, err.value.file) == ("measure.point", "measure")
    assert err.value.message == "part block is fixed in the world, on no frame; measure to it as it is"


def test_a_reading_with_nothing_open_is_refused_as_a_missing_end():
    with pytest.raises(MeasureError) as err:
        Session().view.measures.reading(measure(FrameEnd("arm", "tool0"), FrameEnd("arm", "link_3")))
    assert (err.value.code, err.value.file) == ("measure.end", "measure")
    assert err.value.message == "nothing is open"
