"""Declared frames (the rig's ``frames``): where a part on a turned frame is, by hand and by Pinocchio's
``addFrame``, on the demo arm and on a real robot; a frame on a frame, a segment on a frame; the file, the
exports and the bundle carry them; every ``frame.*`` rule refuses and accepts."""

from __future__ import annotations

import json
import math
import shutil

import jsonschema
import numpy as np
import pytest
from rig_helpers import DEMO_RIG, DEMO_URDF, snippet_rig
from robot_data import robot_urdf

from mime_gui import RESOURCES
from mime_gui.cli import main
from mime_gui.multibody import frame_poses, mass_matrix
from mime_gui.rig import (
    RULES,
    Apparatus,
    Arm,
    Box,
    DeclaredFrame,
    Part,
    Probe,
    RigError,
    RigFileError,
    kg_m2,
    load,
    save,
)
from mime_gui.rig.build import display_segments
from mime_gui.rig.bundle import open_bundle, write_bundle
from mime_gui.rig.export import export_json, to_python
from mime_gui.rig.pointers import pointer_of
from mime_gui.rig.rules import analyse

SCHEMA = json.loads((RESOURCES / "rig.schema.json").read_text(encoding="utf-8"))
UR5 = "ur_description/urdf/ur5_robot.urdf"
FRAME_CODES = {"frame.name", "frame.mount", "frame.at", "frame.orientation"}


# -- by hand: rotations from axis and angle (Rodrigues), not from the code's quaternion ----------------------
def rotation(axis, angle: float) -> np.ndarray:
    k = np.asarray(axis, float) / np.linalg.norm(axis)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(angle) * K + (1 - math.cos(angle)) * K @ K


def quaternion(axis, angle: float) -> tuple[float, float, float, float]:
    k = np.asarray(axis, float) / np.linalg.norm(axis)
    return (math.cos(angle / 2), *(math.sin(angle / 2) * k))


def pose(R=None, p=(0.0, 0.0, 0.0)) -> np.ndarray:
    X = np.eye(4)
    X[:3, :3] = np.eye(3) if R is None else R
    X[:3, 3] = p
    return X


TILT_AXIS, TILT_ANGLE, TILT_AT = (1.0, 1.0, 0.0), math.radians(30), (0.01, -0.02, 0.03)
TIP_AXIS, TIP_ANGLE, TIP_AT = (0.0, 0.0, 1.0), math.radians(-75), (0.0, 0.005, 0.012)


def _frames() -> dict[str, DeclaredFrame]:
    """``tip`` on ``tilted`` on the arm's flange, ``tip`` given first (a frame is placed after its mount)."""
    return {"tip": DeclaredFrame("arm.tilted", at=TIP_AT, orientation=quaternion(TIP_AXIS, TIP_ANGLE)),
            "tilted": DeclaredFrame("arm.tool0", at=TILT_AT, orientation=quaternion(TILT_AXIS, TILT_ANGLE))}


def _tilted_rig() -> Apparatus:
    """The snippet rig with the holder on the turned frame and the magnet on the frame on it."""
    rig = snippet_rig(frames=_frames())
    rig.parts["holder"].mount = "arm.tilted"
    rig.magnets["m1"].mount = "arm.tip"
    return rig


# -- Pinocchio -----------------------------------------------------------------------------------------------
def _pin_q(pin, model, art, q) -> np.ndarray:
    out = pin.neutral(model)
    for name, value in zip(art.joint_names, q, strict=True):
        j = model.joints[model.getJointId(name)]
        if j.nq == 2:  # continuous: (cos, sin)
            out[j.idx_q:j.idx_q + 2] = math.cos(value), math.sin(value)
        else:
            out[j.idx_q] = value
    return out


def _pin_add(pin, model, name: str, on: str, X: np.ndarray) -> None:
    parent = model.frames[model.getFrameId(on)]
    placement = parent.placement * pin.SE3(X[:3, :3].copy(), X[:3, 3].copy())
    model.addFrame(pin.Frame(name, parent.parentJoint, model.getFrameId(on), placement,
                             pin.FrameType.OP_FRAME))


def _random_q(art, rng) -> np.ndarray:
    lo = np.where(np.isfinite(art.lower), art.lower, -math.pi)
    hi = np.where(np.isfinite(art.upper), art.upper, math.pi)
    return rng.uniform(lo, hi)


# -- where a part on a turned frame is -----------------------------------------------------------------------
def test_a_part_on_a_turned_frame_is_where_the_composition_by_hand_and_pinocchio_put_it():
    pin = pytest.importorskip("pinocchio")
    rig = _tilted_rig()
    assert rig.validate() == []
    built = rig.build()
    arm = built.segments["arm"]
    art = arm.articulation
    model = pin.buildModelFromUrdf(str(DEMO_URDF))
    _pin_add(pin, model, "tilted", "tool0", pose(rotation(TILT_AXIS, TILT_ANGLE), TILT_AT))
    _pin_add(pin, model, "tip", "tilted", pose(rotation(TIP_AXIS, TIP_ANGLE), TIP_AT))
    _pin_add(pin, model, "holder", "tilted", pose(p=rig.parts["holder"].at))  # a part is not turned
    _pin_add(pin, model, "m1", "tip", pose(p=rig.magnets["m1"].at))
    data = model.createData()
    rng = np.random.default_rng(7)
    for _ in range(5):
        q = _random_q(art, rng)
        ours = frame_poses(art, q)
        pin.framesForwardKinematics(model, data, _pin_q(pin, model, art, q))
        tool0 = data.oMf[model.getFrameId("tool0")].homogeneous
        by_hand = {"tilted": tool0 @ pose(rotation(TILT_AXIS, TILT_ANGLE), TILT_AT)}
        by_hand["tip"] = by_hand["tilted"] @ pose(rotation(TIP_AXIS, TIP_ANGLE), TIP_AT)
        by_hand["holder"] = by_hand["tilted"] @ pose(p=rig.parts["holder"].at)
        by_hand["m1"] = by_hand["tip"] @ pose(p=rig.magnets["m1"].at)
        links = {"tilted": "tilted", "tip": "tip", "holder": arm.link_of(("parts", "holder")),
                 "m1": arm.link_of(("magnets", "m1"))}
        for name, link in links.items():
            X = ours[art.frame_index(link)]
            np.testing.assert_allclose(X, by_hand[name], atol=1e-12, err_msg=name)
            np.testing.assert_allclose(X, data.oMf[model.getFrameId(name)].homogeneous, atol=1e-12,
                                       err_msg=name)
    # the holder's axis (its frame's z) is the flange's z turned 30° about (1, 1, 0)/√2
    z = ours[art.frame_index(links["holder"])][:3, 2]
    flange_z = ours[art.frame_index("tool0")][:3, 2]
    assert math.degrees(math.acos(np.clip(z @ flange_z, -1, 1))) == pytest.approx(30.0, abs=1e-9)


def test_frames_on_a_real_robot_are_where_pinocchio_s_add_frame_puts_them():
    pin = pytest.importorskip("pinocchio")
    path = robot_urdf(UR5)
    placed = pose(rotation((0, 0, 1), 0.4), (0.2, -0.1, 0.5))  # the arm is placed in the world too
    rig = Apparatus("ur5", chain={"ur5": Arm.Kinematic(description=str(path), at=tuple(placed[:3, 3]),
                                                       orientation=quaternion((0, 0, 1), 0.4))},
                    frames={"plate_frame": DeclaredFrame("ur5.tool0", at=(0.0, 0.04, 0.02),
                                                         orientation=quaternion((0, 1, 0), math.radians(40))),
                            "corner": DeclaredFrame("ur5.plate_frame", at=(0.03, 0.03, 0.0),
                                                    orientation=quaternion((1, -2, 3), 1.1)),
                            "elbow_mark": DeclaredFrame("ur5.forearm_link", at=(0.1, 0.0, 0.05))},
                    parts={"plate": Part(Box((0.08, 0.06, 0.004)), material="aluminium", at=(0.0, 0.0, 0.002),
                                         mount="ur5.plate_frame")},
                    probes={"p": Probe((0.0, 0.0, 0.01), mount="ur5.corner")})
    assert rig.validate() == []
    built = rig.build()
    seg = built.segments["ur5"]
    art = seg.articulation
    model = pin.buildModelFromUrdf(str(path))
    _pin_add(pin, model, "plate_frame", "tool0",
             pose(rotation((0, 1, 0), math.radians(40)), (0.0, 0.04, 0.02)))
    _pin_add(pin, model, "corner", "plate_frame", pose(rotation((1, -2, 3), 1.1), (0.03, 0.03, 0.0)))
    _pin_add(pin, model, "elbow_mark", "forearm_link", pose(p=(0.1, 0.0, 0.05)))
    _pin_add(pin, model, "plate", "plate_frame", pose(p=(0.0, 0.0, 0.002)))
    data = model.createData()
    chain = built.chain_node()
    rng = np.random.default_rng(3)
    for _ in range(4):
        q = _random_q(art, rng)
        state = chain.initial_state({"ur5": q})["ur5"]
        pin.framesForwardKinematics(model, data, _pin_q(pin, model, art, q))
        for name, link in (("plate_frame", "plate_frame"), ("corner", "corner"), ("elbow_mark", "elbow_mark"),
                           ("plate", seg.link_of(("parts", "plate")))):
            np.testing.assert_allclose(state.frame_poses[art.frame_index(link)],
                                       placed @ data.oMf[model.getFrameId(name)].homogeneous, atol=1e-12,
                                       err_msg=name)


def test_a_segment_mounts_on_a_declared_frame_by_its_name_or_by_segment_and_name():
    pin = pytest.importorskip("pinocchio")
    for mount in ("tilted", "arm.tilted"):
        rig = _tilted_rig()
        rig.chain["motor"].mount = mount
        rig.parts["holder"].mount = "motor.rotor"
        assert rig.validate() == []
        built = rig.build()
        assert built.segments["motor"].mount == ("arm", "tilted")
        art = built.articulation("arm")
        q = np.array([0.3, -0.5, 0.8, 0.2, 0.6, -1.1])
        state = built.chain_node().initial_state({"arm": q, "motor": [0.7]})
        model = pin.buildModelFromUrdf(str(DEMO_URDF))
        data = model.createData()
        pin.framesForwardKinematics(model, data, _pin_q(pin, model, art, q))
        tool0 = data.oMf[model.getFrameId("tool0")].homogeneous
        tilted = tool0 @ pose(rotation(TILT_AXIS, TILT_ANGLE), TILT_AT)
        motor = built.articulation("motor")
        poses = state["motor"].frame_poses
        np.testing.assert_allclose(poses[motor.frame_index("stator")], tilted, atol=1e-12)
        np.testing.assert_allclose(poses[motor.frame_index("rotor")], tilted @ pose(rotation((0, 0, 1), 0.7)),
                                   atol=1e-12)


def test_the_description_read_once_is_not_changed_by_a_rig_s_frames():
    rig = _tilted_rig()
    a = analyse(rig)
    assert "tilted" in a.trees["arm"].links and a.declared == {"tilted": ("arm", "tool0"),
                                                               "tip": ("arm", "tilted")}
    shared = rig.chain["arm"].tree(rig.base)  # the cached description every rig reads
    assert "tilted" not in shared.links and "tip" not in shared.links
    assert "tilted" not in analyse(snippet_rig()).frame_sets["arm"]


def test_a_declared_frame_is_massless_and_changes_no_dynamics():
    plain, declared = snippet_rig(), snippet_rig(frames=_frames())
    a, b = plain.build().articulation("arm"), declared.build().articulation("arm")
    q = np.array([0.3, -0.5, 0.8, 0.2, 0.6, -1.1])
    np.testing.assert_array_equal(mass_matrix(a, q), mass_matrix(b, q))
    assert b.nframes == a.nframes + 2 and a.nq == b.nq


# -- the file, the exports and the bundle --------------------------------------------------------------------
FRAMES_JSON = {
    "tip": {"mount": "arm.tilted", "at": {"value": [0.0, 0.005, 0.012], "unit": "m"},
            "orientation": {"wxyz": [0.7933533402912352, 0.0, 0.0, -0.6087614290087207]}},
    "tilted": {"mount": "arm.tool0", "at": {"value": [0.01, -0.02, 0.03], "unit": "m"},
               "orientation": {"wxyz": [0.9659258262890683, 0.18301270189221933, 0.18301270189221933, 0.0]}},
}


def _demo_with(tmp_path, frames, **mounts) -> object:
    """A copy of the demo rig with ``frames``, and the part, magnet or probe of each name in ``mounts`` on
    the mount given."""
    folder = tmp_path / "demo"
    if not folder.exists():
        shutil.copytree(DEMO_RIG.parent, folder)
    data = json.loads(DEMO_RIG.read_text(encoding="utf-8"))
    data["frames"] = frames
    for name, mount in mounts.items():
        collection = next(c for c in ("parts", "magnets", "probes") if name in data[c])
        data[collection][name]["mount"] = mount
    path = folder / "framed.rig.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def test_frames_round_trip_through_the_rig_file_byte_for_byte(tmp_path):
    path = _demo_with(tmp_path, FRAMES_JSON, holder="arm.tilted", m1="arm.tip")
    rig = load(path)
    assert list(rig.frames) == ["tip", "tilted"]
    assert rig.frames["tilted"] == DeclaredFrame("arm.tool0", at=(0.01, -0.02, 0.03),
                                                 orientation=(0.9659258262890683, 0.18301270189221933,
                                                              0.18301270189221933, 0.0))
    assert rig.validate() == []
    first = tmp_path / "first.rig.json"
    save(rig, first)
    text = first.read_text(encoding="utf-8")
    data = json.loads(text)
    assert data["frames"] == FRAMES_JSON and list(data["frames"]) == ["tip", "tilted"]
    jsonschema.validate(data, SCHEMA)
    again = load(first)
    assert again == rig and again.frames == rig.frames
    second = tmp_path / "second.rig.json"
    save(again, second)
    assert second.read_text(encoding="utf-8") == text


def test_a_frame_without_offset_or_turn_loads_at_its_mount_and_saves_both(tmp_path):
    rig = load(_demo_with(tmp_path, {"flange": {"mount": "arm.link_6"}}))
    assert rig.frames == {"flange": DeclaredFrame("arm.link_6")}
    save(rig, tmp_path / "s.rig.json")
    assert json.loads((tmp_path / "s.rig.json").read_text())["frames"] == {
        "flange": {"mount": "arm.link_6", "at": {"value": [0.0, 0.0, 0.0], "unit": "m"},
                   "orientation": {"wxyz": [1.0, 0.0, 0.0, 0.0]}}}
    built = rig.build()
    art = built.articulation("arm")
    X = frame_poses(art, np.full(art.nq, 0.4))
    np.testing.assert_array_equal(X[art.frame_index("flange")], X[art.frame_index("link_6")])


def test_a_rig_without_frames_is_written_as_before(tmp_path):
    save(load(DEMO_RIG), tmp_path / "r.rig.json")
    assert "frames" not in json.loads((tmp_path / "r.rig.json").read_text(encoding="utf-8"))
    assert "frames=" not in repr(load(DEMO_RIG))
    assert "DeclaredFrame" not in to_python(load(DEMO_RIG), tmp_path)


def test_the_json_export_the_python_export_and_the_bundle_keep_the_frames(tmp_path):
    path = _demo_with(tmp_path, FRAMES_JSON, holder="arm.tilted", sample="arm.tip")
    rig = load(path)
    assert rig.validate() == []
    (tmp_path / "out").mkdir()
    out = export_json(rig, tmp_path / "out" / "exported.rig.json")
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["frames"] == FRAMES_JSON and "provenance" in data
    jsonschema.validate(data, SCHEMA)
    assert load(out) == rig
    scope = {"__file__": str(tmp_path / "demo" / "x.py")}
    source = to_python(rig, tmp_path / "demo")
    assert "DeclaredFrame('arm.tool0', at=(0.01, -0.02, 0.03)" in source
    exec(source, scope)
    assert scope["rig"] == rig and scope["rig"].frames == rig.frames
    write_bundle(rig, tmp_path / "b.zip")
    opened = load(open_bundle(tmp_path / "b.zip", tmp_path / "cache"))
    assert opened.frames == rig.frames and opened.validate() == []
    assert opened.build().segments["arm"].link_of(("parts", "holder")) is not None


def test_frames_are_in_the_rig_s_equality_and_repr():
    a, b = _tilted_rig(), _tilted_rig()
    assert a == b
    b.frames["tilted"] = DeclaredFrame("arm.tool0", at=(0.01, -0.02, 0.031),
                                       orientation=quaternion(TILT_AXIS, TILT_ANGLE))
    assert a != b
    c = _tilted_rig()
    c.frames = dict(reversed(list(c.frames.items())))  # the order does not change where they are
    assert c == a
    assert "frames={'tip': DeclaredFrame(mount='arm.tilted'" in repr(a)
    with pytest.raises(TypeError, match="DeclaredFrame"):
        Apparatus("r", frames={"x": (0, 0, 0)})
    with pytest.raises(TypeError, match="<segment>.<frame>"):
        DeclaredFrame(None)
    with pytest.raises(TypeError, match="orientation must be 4 numbers"):
        DeclaredFrame("arm.tool0", orientation=(1, 0, 0))


@pytest.mark.parametrize("frame, code, pointer", [
    ({"at": {"value": [0, 0, 0], "unit": "m"}}, "rigfile.missing", "/frames/f"),
    ({"mount": None}, "rigfile.type", "/frames/f/mount"),
    ({"mount": "arm.tool0", "colour": "red"}, "rigfile.key", "/frames/f/colour"),
    ({"mount": "arm.tool0", "at": {"value": [0, 0, 1], "unit": "mm"}}, "rigfile.unit", "/frames/f/at/unit"),
    ({"mount": "arm.tool0", "orientation": {"wxyz": [1, 0, 0]}}, "rigfile.type",
     "/frames/f/orientation/wxyz"),
    ({"mount": "arm.tool0", "orientation": {"xyzw": [0, 0, 0, 1]}}, "rigfile.key",
     "/frames/f/orientation/xyzw"),
    ({"mount": "arm.tool0", "at": {"value": [0, "1", 0], "unit": "m"}}, "rigfile.type",
     "/frames/f/at/value/1"),
], ids=["no-mount", "null-mount", "unknown-key", "millimetres", "three-numbers", "xyzw", "text-number"])
def test_a_bad_frame_entry_is_refused_with_its_pointer_and_line(tmp_path, frame, code, pointer):
    path = _demo_with(tmp_path, {"f": frame})
    with pytest.raises(RigFileError) as info:
        load(path)
    assert (info.value.code, info.value.pointer) == (code, pointer)
    line = path.read_text().splitlines()[info.value.line - 1]  # the line of the value's key, or the value
    assert f'"{pointer.rsplit("/", 1)[1]}"' in line, line


def test_frames_must_be_an_object_of_names(tmp_path):
    path = _demo_with(tmp_path, [])
    with pytest.raises(RigFileError) as info:
        load(path)
    assert (info.value.code, info.value.pointer) == ("rigfile.type", "/frames")


# -- the rules -----------------------------------------------------------------------------------------------
def _found(rig) -> list[tuple[str, str]]:
    return [(f.code, f.where) for f in rig.validate()]


def _with(**frames) -> Apparatus:
    return snippet_rig(frames=frames)


FLANGE = DeclaredFrame("arm.tool0", at=(0, 0, 0.01))


@pytest.mark.parametrize("name, words", [
    ("a.b", "without dots"), ("", "non-empty"), (" f", "surrounding spaces"), ("f:g", "colons"),
    ("part:holder", "colons"), ("\ud800", "not a valid frame name"),
    ("link_3", "already a link of 'arm'"), ("base_link", "already a link"),
    ("joint_3", "already a joint of 'arm'"),
], ids=["dot", "empty", "space", "colon", "graft-link", "surrogate", "link", "flange", "joint"])
def test_frame_name(name, words):
    assert _found(_with(flange=FLANGE, Joint_3=FLANGE, link=FLANGE)) == []  # names not taken
    rig = _with(**{name: FLANGE})
    findings = rig.validate()
    assert [(f.code, f.where) for f in findings] == [("frame.name", f"frames.{name}")]
    assert words in findings[0].message


def test_a_frame_named_like_a_part_s_graft_is_refused_and_the_part_is_still_grafted():
    rig = _with(**{"part:holder": DeclaredFrame("motor.rotor")})
    assert _found(rig) == [("frame.name", "frames.part:holder")]
    motor = display_segments(rig)["motor"]
    link = motor.link_of(("parts", "holder"))
    assert link is not None and motor.tree.parent_joint(link).parent == "rotor"


@pytest.mark.parametrize("frames, where, words", [
    ({"f": DeclaredFrame("stage.tool0")}, "frames.f.mount",
     ["'stage' is no segment", "segments: arm, motor"]),
    ({"f": DeclaredFrame("tool0")}, "frames.f.mount", ["'<segment>.<frame>'"]),
    ({"f": DeclaredFrame("arm.")}, "frames.f.mount", ["'<segment>.<frame>'"]),
    ({"f": DeclaredFrame("arm.link_9")}, "frames.f.mount", ["'link_9' is not a frame of 'arm'", "tool0"]),
    ({"f": DeclaredFrame("arm.rotor")}, "frames.f.mount", ["not a frame of 'arm'", "link_6"]),
    ({"f": DeclaredFrame("arm.f")}, "frames.f.mount", ["mounts on itself"]),
    ({"g": DeclaredFrame("motor.rotor"), "f": DeclaredFrame("arm.g")}, "frames.f.mount",
     ["declared frame of 'motor'", "'motor.g'"]),
], ids=["segment", "bare", "empty-frame", "frame", "other-segment-s-frame", "itself",
        "other-segment-s-declared"])
def test_frame_mount(frames, where, words):
    rig = _with(**frames)
    findings = rig.validate()
    assert [(f.code, f.where) for f in findings] == [("frame.mount", where)]
    for word in words:
        assert word in findings[0].message, findings[0].message


def test_a_frame_mount_on_a_rig_without_segments_says_there_are_none():
    rig = Apparatus("bare", chain={}, frames={"f": DeclaredFrame("arm.tool0")})
    [finding] = [f for f in rig.validate() if f.code == "frame.mount"]
    assert finding.where == "frames.f.mount" and "'arm' is no segment of the chain" in finding.message
    assert finding.message.endswith("; segments: (none)")


def test_a_frame_s_offset_of_the_wrong_length_is_refused_naming_at():
    with pytest.raises(TypeError) as info:
        DeclaredFrame("arm.tool0", at=(0.0, 0.1))
    assert str(info.value).startswith("at must be 3 numbers")


def test_frames_in_a_ring_are_refused_and_so_is_one_waiting_on_the_ring():
    rig = _with(a=DeclaredFrame("arm.b"), b=DeclaredFrame("arm.c"), c=DeclaredFrame("arm.a"),
                d=DeclaredFrame("arm.a"), ok=DeclaredFrame("arm.tool0"))
    findings = {f.where: f.message for f in rig.validate() if f.code == "frame.mount"}
    assert set(findings) == {"frames.a.mount", "frames.b.mount", "frames.c.mount", "frames.d.mount"}
    assert "a → b → c → a mount on each other in a ring" in findings["frames.a.mount"]
    assert findings["frames.d.mount"].startswith("'arm.a' is not placed: the frames a → b → c → a")
    assert [f.code for f in rig.validate()] == ["frame.mount"] * 4


def test_a_frame_on_a_refused_frame_names_it():
    rig = _with(bad=DeclaredFrame("arm.link_9"), f=DeclaredFrame("arm.bad"))
    findings = rig.validate()
    assert [(f.code, f.where) for f in findings] == [("frame.mount", "frames.bad.mount"),
                                                      ("frame.mount", "frames.f.mount")]
    assert "declared frame that is not placed (see frames.bad)" in findings[1].message


@pytest.mark.parametrize("at, ok", [((0, 0, 1e6), True), ((-1e6, 0, 0), True), ((0, 0, 1.000001e6), False),
                                    ((0, math.inf, 0), False), ((math.nan, 0, 0), False)],
                         ids=["bound", "minus-bound", "beyond", "infinite", "nan"])
def test_frame_at(at, ok):
    rig = _with(f=DeclaredFrame("arm.tool0", at=at))
    assert _found(rig) == ([] if ok else [("frame.at", "frames.f.at")])
    if not ok:
        assert "finite (m)" in rig.validate()[0].message


@pytest.mark.parametrize("q, ok", [
    ((1.0, 0, 0, 0), True), ((-1.0, 0, 0, 0), True), ((1 + 5e-7, 0, 0, 0), True),
    ((1 + 2e-6, 0, 0, 0), False), ((0.5, 0.5, 0.5, 0.5), True), ((0.5, 0.5, 0.5, 0.6), False),
    ((0, 0, 0, 0), False), ((math.nan, 0, 0, 0), False), ((math.inf, 0, 0, 0), False),
    ((1e300, 1e300, 0, 0), False),
], ids=["identity", "minus-identity", "within", "beyond", "unit", "not-unit", "zero", "nan", "infinite",
        "huge"])
def test_frame_orientation(q, ok):
    rig = _with(f=DeclaredFrame("arm.tool0", orientation=q))
    rig.parts["holder"].mount = "arm.f"  # what rides on it resolves while the offset is being fixed
    assert _found(rig) == ([] if ok else [("frame.orientation", "frames.f.orientation")])
    if not ok:
        assert "unit quaternion" in rig.validate()[0].message and "normalise" in rig.validate()[0].message
        with pytest.raises(RigError):
            rig.build()
        drawn = display_segments(rig)["arm"]  # drawn, its frame at the identity or normalised
        X = frame_poses(drawn.articulation, np.zeros(drawn.articulation.nq))
        assert np.all(np.isfinite(X))


def test_a_frame_s_placement_is_its_offset_and_its_normalised_turn():
    # (2, 0, 0, 2) is (1, 0, 0, 1)/√2 times 2√2: a quarter turn about z, x going to y
    X = DeclaredFrame("arm.tool0", at=(0.1, -0.2, 0.3), orientation=(2.0, 0.0, 0.0, 2.0)).placement()
    expected = np.array([[0.0, -1.0, 0.0, 0.1], [1.0, 0.0, 0.0, -0.2], [0.0, 0.0, 1.0, 0.3], [0, 0, 0, 1]])
    np.testing.assert_allclose(X, expected, rtol=0, atol=1e-15)


@pytest.mark.parametrize("given", [[0, 0, 0, 1], np.array([0.0, 0.0, 0.0, 1.0])], ids=["list", "array"])
def test_a_frame_s_turn_given_as_a_list_or_an_array_is_kept_as_four_floats(given):
    frame = DeclaredFrame("arm.tool0", at=[0, 0, 1], orientation=given)  # a half turn about z
    assert type(frame.orientation) is tuple and frame.orientation == (0.0, 0.0, 0.0, 1.0)
    same = DeclaredFrame("arm.tool0", at=(0.0, 0.0, 1.0), orientation=(0.0, 0.0, 0.0, 1.0))
    assert frame == same and hash(frame) == hash(same)


def test_a_frame_belongs_to_its_mount_s_segment_and_is_fixed_to_its_mount_s_frame():
    # "armrest" starts with "arm": the segment is the text before the first dot, not a prefix
    for mount, segment, parent in (("arm.tool0", "arm", "tool0"), ("armrest.base", "armrest", "base"),
                                   ("motor.rotor", "motor", "rotor")):
        frame = DeclaredFrame(mount)
        assert (frame.segment, frame.parent) == (segment, parent)


def test_every_frame_code_is_a_rule_and_each_has_a_failing_case_here():
    assert FRAME_CODES <= set(RULES)
    assert {code for code in RULES if code.startswith("frame.")} == FRAME_CODES


def test_a_finding_points_into_the_file_and_the_cli_prints_its_line(tmp_path, capsys):
    frames = dict(FRAMES_JSON)
    frames["bad"] = {"mount": "arm.link_9"}
    path = _demo_with(tmp_path, frames)
    rig = load(path)
    findings = rig.validate()
    assert [(f.code, f.where) for f in findings] == [("frame.mount", "frames.bad.mount")]
    data = json.loads(path.read_text())
    assert pointer_of(data, findings[0].where) == "/frames/bad/mount"
    assert main(["validate", str(path)]) == 1
    assert "error[frame.mount] frames.bad.mount: 'link_9' is not a frame of 'arm'; frames of 'arm': " \
           "base_link, link_1" in capsys.readouterr().out
    assert main(["play", str(path), "--commands", str(path.parent / "chain.csv"), "--out",
                 str(tmp_path / "o.npz"), "--quiet"]) == 2
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if '"arm.link_9"' in t)
    assert f"error[frame.mount] {path}:{line}: frames.bad.mount: 'link_9' is not a frame of 'arm'" in \
        capsys.readouterr().err


def test_parts_probes_and_segments_name_a_declared_frame_as_they_name_any_frame():
    rig = _tilted_rig()
    rig.probes["sample"] = Probe((0, 0, 0.05), mount="arm.tip")
    assert _found(rig) == []
    rig.parts["holder"].mount = "arm.tilt"  # a typo: the message lists the declared frames with the others
    findings = rig.validate()
    assert [(f.code, f.where) for f in findings] == [("part.mount", "parts.holder.mount")]
    assert "arm.tilted" in findings[0].message and "arm.tip" in findings[0].message
    rig = _tilted_rig()
    rig.frames["tilted"] = DeclaredFrame("motor.rotor")  # now a frame of the motor: arm.tilted is gone
    assert ("part.mount", "parts.holder.mount") in _found(rig)
    assert ("frame.mount", "frames.tip.mount") in _found(rig)


def test_a_frame_of_a_segment_whose_description_fails_adds_no_finding_of_its_own(tmp_path):
    rig = _tilted_rig()
    rig.chain["arm"].description = str(tmp_path / "missing.urdf")
    assert {code for code, _ in _found(rig)} == {"chain.description"}


def test_a_magnet_on_a_turned_frame_turns_its_magnetisation_in_the_world():
    """The field's sources read the magnet's frame: magnetised along its z, a magnet on a frame turned 90°
    about the rotor's x points along the rotor's −y."""
    from mime_gui.field.sources import magnet_sources

    rig = snippet_rig(frames={"side": DeclaredFrame("motor.rotor", orientation=quaternion((1, 0, 0),
                                                                                          math.pi / 2))})
    rig.magnets["m1"].mount = "motor.side"
    built = rig.build()
    (source,) = magnet_sources(built)
    played = built.play(np.tile(built.initial_commands() + 0.3, (2, 1)), 0.01)
    world = source.poses(played.frame_poses)[-1]
    rotor = played.frame_poses[-1, built.frame_names.index("motor.rotor")]
    np.testing.assert_allclose(world[:3, :3] @ (0, 0, 1), rotor[:3, :3] @ (0, -1, 0), atol=1e-12)
    np.testing.assert_allclose(world, rotor @ pose(rotation((1, 0, 0), math.pi / 2)) @ pose(p=(0, 0, 0.025)),
                               atol=1e-12)


def test_a_dynamic_rig_with_a_turned_plate_builds_with_its_mass_on_the_flange():
    """A plate on a turned frame weighs on the link under it, at its centroid through the turn."""
    pin = pytest.importorskip("pinocchio")
    rig = Apparatus("r", chain={"arm": Arm.Dynamic(description=str(DEMO_URDF),
                                                  armature={"joint_6": kg_m2(2e-4, reason="datasheet")})},
                    frames={"tilted": DeclaredFrame("arm.tool0", at=TILT_AT,
                                                    orientation=quaternion(TILT_AXIS, TILT_ANGLE))},
                    parts={"plate": Part(Box((0.06, 0.04, 0.005)), material="aluminium", at=(0.01, 0.0, 0.0),
                                         mount="arm.tilted")})
    assert rig.validate() == []
    built = rig.build()
    art = built.articulation("arm")
    density = next(m["density"] for m in json.loads((RESOURCES / "materials.json").read_text())["materials"]
                   if m["name"] == "aluminium")
    mass = density * 0.06 * 0.04 * 0.005
    assert built.report["totals"]["parts_mass"] == pytest.approx(mass, rel=1e-12)
    model = pin.buildModelFromUrdf(str(DEMO_URDF))
    tool0 = model.frames[model.getFrameId("tool0")]
    X = pose(rotation(TILT_AXIS, TILT_ANGLE), TILT_AT) @ pose(p=(0.01, 0.0, 0.0))
    a, b, c = 0.06, 0.04, 0.005
    inertia = mass / 12 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])
    model.appendBodyToJoint(tool0.parentJoint, pin.Inertia(mass, np.zeros(3), inertia),
                            tool0.placement * pin.SE3(X[:3, :3].copy(), X[:3, 3].copy()))
    model.armature[model.joints[model.getJointId("joint_6")].idx_v] = 2e-4
    q = np.array([0.3, -0.5, 0.8, 0.2, 0.6, -1.1])
    M = pin.crba(model, model.createData(), _pin_q(pin, model, art, q))
    M = np.triu(M) + np.triu(M, 1).T
    order = [model.joints[model.getJointId(n)].idx_v for n in art.joint_names]
    np.testing.assert_allclose(mass_matrix(art, q), M[np.ix_(order, order)], rtol=1e-9, atol=1e-12)


def test_session_reach_puts_a_declared_frame_on_a_target_pinocchio_gives():
    """The frame on the frame on the flange is reached like any frame: the target is where Pinocchio and
    the offsets by hand put ``tip`` at other joint positions."""
    pin = pytest.importorskip("pinocchio")
    from mime_gui.session import Session

    session = Session()
    session.open_apparatus(_tilted_rig())
    art = session.segment("arm").articulation
    q = np.array([0.3, -0.5, 0.9, 0.2, 0.6, -0.4])
    model = pin.buildModelFromUrdf(str(DEMO_URDF))
    data = model.createData()
    pin.framesForwardKinematics(model, data, _pin_q(pin, model, art, q))
    target = (data.oMf[model.getFrameId("tool0")].homogeneous @ pose(rotation(TILT_AXIS, TILT_ANGLE), TILT_AT)
              @ pose(rotation(TIP_AXIS, TIP_ANGLE), TIP_AT))
    found = session.reach("arm", "tip", target, teleport=True)
    assert found.result.converged
    reached = session.frame_world_pose("arm", "tip")
    assert np.linalg.norm(reached[:3, 3] - target[:3, 3]) <= 1e-9
    np.testing.assert_allclose(reached[:3, :3], target[:3, :3], atol=1e-9)
