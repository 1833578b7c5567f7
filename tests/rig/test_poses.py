"""Named poses: the rig file's ``poses`` read and written byte for byte, their rules, the centre and random
positions of joint_state_publisher_gui's buttons on real robots, and a pose's command file played through the
chain node to the pose, along the servo's exact first-order lag."""

from __future__ import annotations

import json
import math
import shutil

import jsonschema
import numpy as np
import pytest
from oracle import lagged
from rig_helpers import DEMO_RIG, DEMO_URDF, SLIDER_URDF, snippet_rig
from robot_data import robot_urdf

from mime_gui import RESOURCES
from mime_gui.cli import main
from mime_gui.multibody import read_urdf
from mime_gui.nodes.commands import CommandFileError, RecordedCommands, read_commands, write_commands
from mime_gui.rig import Apparatus, Arm, Motor, Pose, RigFileError, load, save
from mime_gui.rig.bundle import open_bundle, write_bundle
from mime_gui.rig.export import to_python
from mime_gui.rig.playback import RigPlayable
from mime_gui.rig.poses import (
    POSE_UNITS,
    UNIT_FACTORS,
    centre,
    pose_commands,
    pose_of,
    positions_of,
    randomize,
    written,
)

SCHEMA = json.loads((RESOURCES / "rig.schema.json").read_text(encoding="utf-8"))
PANDA = "panda_description/urdf/panda.urdf"
UR5 = "ur_description/urdf/ur5_robot.urdf"

#: segments out of chain order, joints out of the description's, names in mixed case, both angle units,
#: both length units and values in units of their own
POSES = {
    "Home": {"value": {"motor": {"shaft": 90.0}, "arm": {"joint_3": 45.0, "joint_2": -30.0}},
             "unit": "deg|m"},
    "home_rad": {"value": {"arm": {"joint_1": 0.5, "joint_2": {"value": 20.0, "unit": "deg"}}},
                 "unit": "rad|m"},
    "TILT": {"value": {"arm": {"joint_5": -1.0, "joint_6": {"value": 0.25, "unit": "rad"}}},
             "unit": "deg|mm"},
}


def _demo_with(tmp_path, poses) -> object:
    folder = tmp_path / "demo"
    if not folder.exists():
        shutil.copytree(DEMO_RIG.parent, folder)
    data = json.loads(DEMO_RIG.read_text(encoding="utf-8"))
    data["poses"] = poses
    path = folder / "posed.rig.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def _found(rig) -> list[tuple[str, str]]:
    return [(f.code, f.where) for f in rig.validate()]


def _posed(poses: dict[str, Pose], **extra) -> Apparatus:
    return snippet_rig(poses=poses, **extra)


# -- the file ---------------------------------------------------------------------------------------------
def test_poses_round_trip_byte_for_byte_in_their_units_and_order(tmp_path):
    path = _demo_with(tmp_path, POSES)
    rig = load(path)
    assert list(rig.poses) == ["Home", "home_rad", "TILT"]
    home = rig.poses["Home"]
    assert list(home.values) == ["motor", "arm"] and list(home.values["arm"]) == ["joint_3", "joint_2"]
    assert rig.validate() == []
    built = rig.build()
    deg = math.pi / 180  # the factor the reader multiplies by
    assert positions_of(built, home) == {"motor": {"shaft": 90 * deg},
                                         "arm": {"joint_3": 45 * deg, "joint_2": -30 * deg}}
    assert positions_of(built, rig.poses["home_rad"])["arm"] == {"joint_1": 0.5, "joint_2": 20 * deg}
    assert positions_of(built, rig.poses["TILT"])["arm"] == {"joint_5": -1.0 * math.pi / 180, "joint_6": 0.25}
    first = tmp_path / "first.rig.json"
    save(rig, first)
    text = first.read_text(encoding="utf-8")
    data = json.loads(text)
    assert data["poses"] == POSES  # every number and unit as written, in its order
    assert list(data["poses"]["Home"]["value"]) == ["motor", "arm"]
    jsonschema.validate(data, SCHEMA)
    again = load(first)
    assert again == rig
    second = tmp_path / "second.rig.json"
    save(again, second)
    assert second.read_text(encoding="utf-8") == text


def test_a_rig_without_poses_is_written_as_before(tmp_path):
    rig = load(DEMO_RIG)
    assert list(rig.poses) == ["home", "over the sample"]  # the demo's
    rig = Apparatus(rig.name, chain=rig.chain, parts=rig.parts, magnets=rig.magnets, probes=rig.probes,
                    base=rig.base, package_dirs=rig.package_dirs)
    save(rig, tmp_path / "r.rig.json")
    assert "poses" not in json.loads((tmp_path / "r.rig.json").read_text(encoding="utf-8"))


def test_names_differing_in_case_are_two_poses_and_equality_sees_units(tmp_path):
    a = Pose({"arm": {"joint_1": 90.0}}, "deg|m")
    assert a != Pose({"arm": {"joint_1": math.pi / 2}})  # what the file says differs
    assert a == Pose({"arm": {"joint_1": 90}}, "deg|m")
    path = _demo_with(tmp_path, {"up": {"value": {"arm": {"joint_1": 1}}, "unit": "rad|m"},
                                 "UP": {"value": {"arm": {"joint_1": 2}}, "unit": "rad|m"}})
    assert list(load(path).poses) == ["up", "UP"]


@pytest.mark.parametrize("pose, code, pointer", [
    ({"value": {"arm": {"joint_1": 1}}, "unit": "DEG|M"}, "rigfile.unit", "/poses/p/unit"),
    ({"value": {"arm": {"joint_1": 1}}, "unit": "deg"}, "rigfile.unit", "/poses/p/unit"),
    ({"value": {"arm": {"joint_1": {"value": 1, "unit": "degrees"}}}, "unit": "rad|m"}, "rigfile.unit",
     "/poses/p/value/arm/joint_1/unit"),
    ({"value": {"arm": {"joint_1": "1"}}, "unit": "rad|m"}, "rigfile.type", "/poses/p/value/arm/joint_1"),
    ({"value": {"arm": {"joint_1": {"value": True, "unit": "rad"}}}, "unit": "rad|m"}, "rigfile.type",
     "/poses/p/value/arm/joint_1/value"),
    ({"value": {"arm": [1, 2]}, "unit": "rad|m"}, "rigfile.type", "/poses/p/value/arm"),
    ({"value": {"arm": {"joint_1": 1}}}, "rigfile.missing", "/poses/p"),
    ({"value": {}, "unit": "rad|m", "reason": "x"}, "rigfile.key", "/poses/p/reason"),
    ({"value": {"arm": {"joint_1": {"value": 1, "unit": "rad", "why": 1}}}, "unit": "rad|m"}, "rigfile.key",
     "/poses/p/value/arm/joint_1/why"),
], ids=["unit-case", "unit-one", "value-unit", "text", "boolean", "list", "no-unit", "key", "value-key"])
def test_a_malformed_pose_is_refused_naming_its_pointer(tmp_path, pose, code, pointer):
    with pytest.raises(RigFileError) as info:
        load(_demo_with(tmp_path, {"p": pose}))
    assert (info.value.code, info.value.pointer) == (code, pointer)
    assert info.value.line > 0


def test_a_pose_named_twice_in_the_file_is_refused(tmp_path):
    path = _demo_with(tmp_path, {})
    text = path.read_text(encoding="utf-8").replace('"poses": {}', '"poses": {"a": {"value": {}, "unit": '
                                                    '"rad|m"}, "a": {"value": {}, "unit": "rad|m"}}')
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RigFileError) as info:
        load(path)
    assert info.value.code == "rigfile.duplicate"


def test_the_schema_s_units_are_the_program_s():
    pose = SCHEMA["$defs"]["pose"]["properties"]
    assert pose["unit"]["enum"] == list(POSE_UNITS)
    own = pose["value"]["additionalProperties"]["additionalProperties"]["oneOf"][1]
    assert own["properties"]["unit"]["enum"] == list(UNIT_FACTORS)


@pytest.mark.parametrize("value, unit", [(math.radians(45.0), "deg"), (45 * math.pi / 180, "deg"),
                                         (0.1 * math.pi / 180, "deg"), (0.012, "mm"), (5 * 1e-3, "mm"),
                                         (-1.2345678901234567, "deg"), (0.3, "rad")])
def test_written_is_the_shortest_number_reading_back_exactly(value, unit):
    x = written(value, unit)
    assert x * UNIT_FACTORS[unit] == value or unit == "rad" and x == value
    assert len(repr(x)) <= len(repr(value / UNIT_FACTORS[unit]))


def test_the_python_export_and_the_bundle_keep_the_poses(tmp_path):
    rig = load(_demo_with(tmp_path, POSES))
    scope = {"__file__": str(tmp_path / "demo" / "x.py")}
    exec(to_python(rig, tmp_path / "demo"), scope)
    assert scope["rig"] == rig and scope["rig"].poses == rig.poses
    write_bundle(rig, tmp_path / "b.zip")
    assert load(open_bundle(tmp_path / "b.zip")).poses == rig.poses


# -- the rules --------------------------------------------------------------------------------------------
def test_pose_segment():
    assert _found(_posed({"p": Pose({"motor": {"shaft": 1.0}})})) == []
    rig = _posed({"p": Pose({"stage": {"x": 1.0}})})
    assert _found(rig) == [("pose.segment", "poses.p.stage")]
    assert "segments: arm, motor" in rig.validate()[0].message


def test_pose_segment_of_a_rig_without_segments_says_there_are_none():
    rig = Apparatus("bare", chain={}, poses={"p": Pose({"arm": {"joint_1": 0.0}})})
    [finding] = [f for f in rig.validate() if f.code == "pose.segment"]
    assert finding.where == "poses.p.arm" and finding.message.endswith("; segments: (none)")


@pytest.mark.parametrize("joint, words", [("joint_7", "no joint"), ("tool0_joint", "a fixed joint")])
def test_pose_joint(joint, words):
    assert _found(_posed({"p": Pose({"arm": {"joint_6": 7.0}})})) == []
    rig = _posed({"p": Pose({"arm": {joint: 0.0}})})
    assert _found(rig) == [("pose.joint", f"poses.p.arm.{joint}")]
    assert words in rig.validate()[0].message and "joint_1, joint_2" in rig.validate()[0].message


def test_pose_joint_refuses_a_mimic_follower_and_names_its_master():
    path = robot_urdf(PANDA)
    rig = Apparatus("panda", chain={"panda": Arm.Kinematic(description=str(path))},
                    poses={"open": Pose({"panda": {"panda_finger_joint1": 0.04}})})
    assert rig.validate() == []
    rig.poses["open"] = Pose({"panda": {"panda_finger_joint2": 0.04}})
    findings = rig.validate()
    assert [(f.code, f.where) for f in findings] == [("pose.joint", "poses.open.panda.panda_finger_joint2")]
    assert "follows panda.panda_finger_joint1 (mimic)" in findings[0].message


def _slider_rig(tmp_path, pose: Pose) -> Apparatus:
    urdf = tmp_path / "slider.urdf"
    urdf.write_text(SLIDER_URDF)
    return Apparatus("s", chain={"s": Arm.Kinematic(description=str(urdf))}, poses={"p": pose})


def test_pose_unit(tmp_path):
    assert _found(_slider_rig(tmp_path, Pose({"s": {"slide": 50.0}}, "deg|mm"))) == []
    assert _found(_slider_rig(tmp_path, Pose({"s": {"slide": 5.0}}, "rad|m", {"s": {"slide": "mm"}}))) == []
    rig = _slider_rig(tmp_path, Pose({"s": {"slide": 5.0}}, "rad|m", {"s": {"slide": "deg"}}))
    assert _found(rig) == [("pose.unit", "poses.p.s.slide")]
    assert "slides; give it in m or mm, not deg" in rig.validate()[0].message
    turning = _posed({"p": Pose({"arm": {"joint_1": 5.0}}, units={"arm": {"joint_1": "mm"}})})
    assert _found(turning) == [("pose.unit", "poses.p.arm.joint_1")]


def test_pose_limits_says_by_how_much_in_the_pose_s_unit(tmp_path):
    at = 2.9 / (math.pi / 180)  # joint_1's upper limit, in degrees
    assert _found(_posed({"p": Pose({"arm": {"joint_1": written(2.9, "deg")}}, "deg|m")})) == []
    assert _found(_posed({"p": Pose({"arm": {"joint_6": 1e6}})})) == []  # continuous
    rig = _posed({"p": Pose({"arm": {"joint_1": 200.0}}, "deg|m")})
    assert _found(rig) == [("pose.limits", "poses.p.arm.joint_1")]
    assert rig.validate()[0].message == (f"arm.joint_1 = 200 deg is {200 - at:.6g} deg above its upper limit "
                                         f"{at:.6g} deg; bring it within [{-at:.6g}, {at:.6g}] deg")
    slid = _slider_rig(tmp_path, Pose({"s": {"slide": -150.0}}, "rad|mm"))
    assert slid.validate()[0].message.startswith("s.slide = -150 mm is 50 mm below its lower limit -100 mm")
    nan = _posed({"p": Pose({"arm": {"joint_6": math.nan}})})
    assert _found(nan) == [("pose.limits", "poses.p.arm.joint_6")]


@pytest.mark.parametrize("names, bad", [(["a.b"], "a.b"), ([" x"], " x"), ([""], ""),
                                        (["Home", "home"], "home")])
def test_pose_name(names, bad):
    assert _found(_posed({"Home": Pose({}), "Reach": Pose({})})) == []
    rig = _posed({n: Pose({}) for n in names})
    assert _found(rig) == [("pose.name", f"poses.{bad}")]


def test_a_pose_finding_is_printed_at_its_line(tmp_path, capsys):
    path = _demo_with(tmp_path, {"far": {"value": {"arm": {"joint_1": 400}}, "unit": "deg|m"}})
    assert main(["play", str(path), "--commands", str(DEMO_RIG.parent / "chain.csv"), "--out",
                 str(tmp_path / "o.npz"), "--quiet"]) == 2
    err = capsys.readouterr().err
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if '"joint_1": 400' in t)
    assert f"error[pose.limits] {path}:{line}: poses.far.arm.joint_1: arm.joint_1 = 400 deg is" in err


# -- centre and randomize ---------------------------------------------------------------------------------
@pytest.mark.parametrize("robot", [PANDA, UR5])
def test_centre_and_random_positions_lie_within_the_limits(robot):
    art = read_urdf(robot_urdf(robot)).compile()
    commandable = [n for n, m in zip(art.joint_names, art.is_mimic, strict=True) if not m]
    mid = centre(art)
    assert list(mid) == commandable
    for name, value in mid.items():
        j = art.joint_index(name)
        assert value == pytest.approx(0.5 * (art.lower[j] + art.upper[j]), abs=0)
    rng = np.random.default_rng(25)
    draws = [randomize(art, rng) for _ in range(400)]
    for name in commandable:
        j = art.joint_index(name)
        values = np.array([d[name] for d in draws])
        assert values.min() >= art.lower[j] and values.max() <= art.upper[j]
        span = art.upper[j] - art.lower[j]
        assert values.max() - values.min() > 0.9 * span  # spread over the range, not stuck at one end
    # the same seed, the same pose
    assert randomize(art, np.random.default_rng(3)) == randomize(art, np.random.default_rng(3))


def test_a_continuous_joint_centres_at_zero_and_draws_within_a_turn():
    art = read_urdf(DEMO_URDF).compile()
    assert centre(art)["joint_6"] == 0.0
    rng = np.random.default_rng(1)
    values = np.array([randomize(art, rng)["joint_6"] for _ in range(400)])
    assert values.min() >= -math.pi and values.max() <= math.pi and values.max() - values.min() > 5.5


def test_a_centred_and_a_random_panda_pose_validate_and_keep_the_follower_out():
    path = robot_urdf(PANDA)
    rig = Apparatus("panda", chain={"panda": Arm.Kinematic(description=str(path))})
    built = rig.build()
    art = built.articulation("panda")
    for positions, unit in ((centre(art), "deg|mm"), (randomize(art, np.random.default_rng(7)), "rad|m")):
        pose = pose_of(built, {"panda": positions}, unit)
        assert "panda_finger_joint2" not in pose.values["panda"]
        rig.poses["p"] = pose
        assert rig.validate() == []
        assert positions_of(built, pose) == {"panda": positions}  # exact, whatever the unit


# -- a pose played ----------------------------------------------------------------------------------------
def _play(rig, name: str, hold: float, dt: float, tau: float | None):
    built = rig.build()
    playable = RigPlayable(built, servo_time_constant=tau)
    recorded = pose_commands(rig, built, name, hold, dt)
    schedule = playable.schedule(recorded, None)  # the samples' spacing, as mime-gui play takes it
    assert schedule.dt == pytest.approx(dt, rel=1e-12)
    return built, recorded, schedule, playable.play(schedule)


def test_a_pose_s_command_file_ends_at_the_pose_exactly():
    rig = load(DEMO_RIG)
    rig.poses["home"] = Pose({"arm": {"joint_2": -30.0, "joint_6": 200.0}, "motor": {"shaft": 90.0}}, "deg|m")
    built, recorded, schedule, trajectory = _play(rig, "home", 0.5, 0.01, tau=0.0)
    assert recorded.joint_names == ("arm.joint_2", "arm.joint_6", "motor.shaft")
    assert len(recorded.time) == 51 and schedule.steps == 51
    want = positions_of(built, rig.poses["home"])
    names = list(built.joint_names)
    last = trajectory.joint_positions[-1]
    for segment, joints in want.items():
        for joint, value in joints.items():
            assert last[names.index(f"{segment}.{joint}")] == value
    # joints the pose does not name hold the rig's initial positions
    assert last[names.index("arm.joint_1")] == rig.chain["arm"].initial_positions["joint_1"]


def test_a_pose_is_reached_along_the_exact_first_order_lag():
    rig = load(DEMO_RIG)
    tau, dt = 0.05, 0.01
    rig.poses["p"] = Pose({"arm": {"joint_1": 1.0, "joint_3": -0.5}})
    built, recorded, schedule, trajectory = _play(rig, "p", 0.4, dt, tau=None)  # the arm's own 0.05 s
    names = list(built.joint_names)
    start = dict(zip(built.command_names, built.initial_commands(), strict=True))
    for joint, target in (("arm.joint_1", 1.0), ("arm.joint_3", -0.5)):
        theta = trajectory.joint_positions[:, names.index(joint)]
        n = np.arange(len(theta))  # after step n the pose has been held for n steps
        closed = target + (start[joint] - target) * np.exp(-n * dt / tau)
        np.testing.assert_allclose(theta, closed, rtol=0, atol=1e-14)
        np.testing.assert_allclose(theta, lagged(schedule.commands[:, built.command_names.index(joint)],
                                                 start[joint], dt, tau), rtol=0, atol=1e-15)
        # the share of the way covered is 1 - e^(-t/tau), t the time the pose has been commanded
        share = (theta - start[joint]) / (target - start[joint])
        np.testing.assert_allclose(share, 1 - np.exp(-n * dt / tau), rtol=0, atol=1e-13)


def test_a_panda_pose_moves_the_follower_with_its_master():
    path = robot_urdf(PANDA)
    rig = Apparatus("panda", chain={"panda": Arm.Kinematic(description=str(path))},
                    poses={"open": Pose({"panda": {"panda_finger_joint1": 40.0, "panda_joint4": -90.0}},
                                        "deg|mm")})
    assert rig.validate() == []
    built, _, _, trajectory = _play(rig, "open", 0.1, 0.01, tau=0.0)
    names = list(built.joint_names)
    last = trajectory.joint_positions[-1]
    assert last[names.index("panda.panda_finger_joint1")] == pytest.approx(0.04, abs=1e-17)
    assert last[names.index("panda.panda_finger_joint2")] == pytest.approx(0.04, abs=1e-17)
    assert last[names.index("panda.panda_joint4")] == -90 * math.pi / 180


# -- the command file and the command line ------------------------------------------------------------------
@pytest.mark.parametrize("suffix", [".csv", ".npz"])
def test_a_written_command_file_reads_back_to_the_same_values(tmp_path, suffix):
    time = np.array([0.0, 0.01, 0.02])
    values = np.array([[0.1, math.pi / 3], [1 / 3, -2e-7], [0.30000000000000004, 1e300]])
    rec = RecordedCommands("x", time, ("arm.joint_1", "motor.shaft"), values, ("", ""), np.zeros(3, int))
    path = write_commands(tmp_path / f"c{suffix}", rec, "two lines\nof comment")
    back = read_commands(path)
    assert back.joint_names == rec.joint_names
    assert np.array_equal(back.time, time) and np.array_equal(back.joint_positions, values)


def test_a_command_file_is_written_as_csv_or_npz_with_plain_column_names(tmp_path):
    rec = RecordedCommands("x", np.zeros(1), ("a,b",), np.zeros((1, 1)), ("",), np.zeros(1, int))
    with pytest.raises(CommandFileError) as info:
        write_commands(tmp_path / "c.csv", rec)
    assert info.value.code == "commands.columns" and not (tmp_path / "c.csv").exists()
    with pytest.raises(CommandFileError) as info:
        write_commands(tmp_path / "c.txt", rec)
    assert info.value.code == "commands.format"


def test_export_pose_then_play_reaches_the_pose(tmp_path, capsys):
    path = _demo_with(tmp_path, POSES)
    out = tmp_path / "home.csv"
    assert main(["validate", str(path)]) == 0
    assert "1 magnet(s), 3 pose(s))" in capsys.readouterr().out
    assert main(["export", str(path), "--pose", "Home", "--commands", str(out), "--hold", "0.3",
                 "--dt", "0.02"]) == 0
    assert f"wrote {out} (pose 'Home': 16 samples every 0.02 s)" in capsys.readouterr().out
    assert main(["play", str(path), "--commands", str(out), "--out", str(tmp_path / "o.npz"), "--quiet",
                 "--servo-tau", "0"]) == 0
    rig = load(path)
    want = positions_of(rig.build(), rig.poses["Home"])
    with np.load(tmp_path / "o.npz") as data:
        names = list(data["joint_names"])
        assert data["dt"] == pytest.approx(0.02)
        for segment, joints in want.items():
            for joint, value in joints.items():
                assert data["joint_positions"][-1, names.index(f"{segment}.{joint}")] == value


@pytest.mark.parametrize("args, line", [
    (["--pose", "nope", "--commands", "X.csv"], "error[export.pose] --pose: the rig has no pose 'nope'; "
                                               "poses: Home, home_rad, TILT"),
    (["--commands", "X.csv"], "error[export.pose] --commands: name the pose to write with --pose NAME"),
    (["--pose", "Home", "--json", "X.rig.json"], "error[export.pose] --pose: goes with --commands OUT.csv"),
    (["--pose", "Home", "--commands", "X.csv", "--hold", "0.001"], "error[export.hold] --hold: the pose is "
                                                                  "held from one step (0.01 s)"),
    (["--pose", "Home", "--commands", "X.csv", "--dt", "0"], "error[export.dt] --dt: the step must be"),
    (["--pose", "Home", "--commands", "X.csv", "--hold", "1e6", "--dt", "1e-3"], "makes more than 5000000 "
                                                                                 "samples"),
], ids=["unknown", "no-pose", "pose-alone", "short-hold", "zero-dt", "too-many"])
def test_export_pose_refusals(tmp_path, capsys, args, line):
    path = _demo_with(tmp_path, POSES)
    args = [str(tmp_path / a) if a.startswith("X.") else a for a in args]
    assert main(["export", str(path), *args]) == 1
    assert line in capsys.readouterr().out
    assert not list(tmp_path.glob("X.*"))


def test_export_pose_refuses_a_rig_whose_pose_breaks_a_rule(tmp_path, capsys):
    path = _demo_with(tmp_path, {"far": {"value": {"arm": {"joint_1": 400}}, "unit": "deg|m"}})
    assert main(["export", str(path), "--pose", "far", "--commands", str(tmp_path / "f.csv")]) == 1
    assert "error[pose.limits] poses.far.arm.joint_1" in capsys.readouterr().out
    assert not (tmp_path / "f.csv").exists()


def test_a_motor_only_rig_pose_plays():
    rig = Apparatus("m", chain={"m": Motor.Kinematic(axis=(0, 0, 1))},
                    poses={"q": Pose({"m": {"shaft": 3.0}})})
    built, _, _, trajectory = _play(rig, "q", 0.05, 0.01, tau=0.0)
    assert trajectory.joint_positions[-1, 0] == 3.0
