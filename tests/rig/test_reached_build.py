"""The rig's Python answers at their edges: constructor refusals, the built rig's play and its errors, the
chain stepped by hand, torque-driven playback's plain paths, payloads that weigh nothing, the magnets' pull
with nothing to pull, and measures whose ends are not placed."""

from __future__ import annotations

import numpy as np
import pytest
from rig_helpers import DEMO_RIG, DEMO_URDF, snippet_rig, spinner_urdf

import mime_gui.nodes.dynamic as dynamic
from mime_gui.cli import main
from mime_gui.multibody import mass_matrix
from mime_gui.rig import (
    Apparatus,
    Arm,
    Cylinder,
    Motor,
    Part,
    PermanentMagnet,
    Probe,
    Sphere,
)
from mime_gui.rig.build import display_segments, frame_under_grafts
from mime_gui.rig.driven import play_driven
from mime_gui.rig.magnet_pull import PullModel, magnet_pull
from mime_gui.rig.measures import CentreEnd, FrameEnd, MeasureError, PointEnd, ProbeEnd, anchor, measure
from mime_gui.rig.pulled import segment_pulls


@pytest.fixture(scope="module")
def built():
    return snippet_rig().build()


# -- constructors ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("field", "value", "words"), [
    ("samples", {"s1": 1.0}, "samples maps names to Sample values, got 's1': float"),
    ("zones", {"z1": "near"}, "zones maps names to Zone values, got 'z1': str"),
    ("clearance", 0.005, "clearance is a Clearance value, got float"),
    ("targets", {"t1": (0, 0, 1)}, "targets maps names to FieldTarget values, got 't1': tuple"),
    ("package_dirs", "meshes", "package_dirs is a list of folders, got 'meshes'"),
], ids=["samples", "zones", "clearance", "targets", "package_dirs as one text"])
def test_an_apparatus_field_of_the_wrong_type_is_refused_naming_it(field, value, words):
    with pytest.raises(TypeError, match=words):
        Apparatus("rig", **{field: value})


def test_an_apparatus_is_never_equal_to_something_else():
    rig = snippet_rig()
    assert rig.__eq__("rig") is NotImplemented
    assert rig != "rig" and rig == snippet_rig()


@pytest.mark.parametrize(("make", "words"), [
    (lambda: Arm.Kinematic(description="a.urdf", initial_positions=[("joint_1", 0.1)]),
     "initial_positions must map joint names to numbers"),
    (lambda: Arm.Kinematic(description="a.urdf", servo_time_constant="fast"),
     "servo_time_constant is a number of seconds, got 'fast'"),
    (lambda: Arm.Kinematic(description="a.urdf", mount=3), "mount is a frame name, got 3"),
    (lambda: Arm.Dynamic(description=3), "description is the path of a URDF file, got 3"),
    (lambda: Motor.Kinematic(initial_position="zero"), "initial_position is a number of radians, got 'zero'"),
], ids=["initial positions as a list", "servo time constant as text", "mount as a number",
        "description as a number", "motor initial position as text"])
def test_a_segment_field_of_the_wrong_type_is_refused_naming_it(make, words):
    with pytest.raises(TypeError, match=words):
        make()


# -- the built rig ------------------------------------------------------------------------------------
def test_a_grafted_part_hangs_from_its_mount_link_and_a_link_from_itself():
    rig = Apparatus("rig", chain={"arm": Arm.Dynamic(description=str(DEMO_URDF))},
                    parts={"cap": Part(Cylinder(radius=0.01, length=0.02), material="aluminium",
                                       at=(0, 0, 0.01), mount="arm.link_4")})
    seg = rig.build().segments["arm"]
    (graft,) = seg.grafts
    assert frame_under_grafts(seg.tree, graft) == "link_4"
    assert frame_under_grafts(seg.tree, "link_2") == "link_2"


def test_asking_for_no_segment_lists_the_segments(built):
    with pytest.raises(KeyError, match="no segment 'wrist'; segments: arm, motor"):
        built.articulation("wrist")


def test_a_segment_given_a_table_of_its_commands_takes_every_column(built):
    T = 3
    arm = np.tile(np.linspace(0.1, 0.6, 6), (T, 1))
    played = built.play({"arm": arm}, 0.01, servo_time_constant=0.0)
    np.testing.assert_allclose(played.segments["arm"].joint_positions, arm, atol=1e-12)
    # the motor was not given: it holds its initial position
    np.testing.assert_allclose(played.segments["motor"].joint_positions, 0.0, atol=1e-12)


@pytest.mark.parametrize(("commands", "initial", "error", "words"), [
    ({"arm.joint_1": np.zeros(3), "motor": np.zeros(4)}, None, ValueError,
     "every command must have the same number of steps"),
    ({"arm": np.zeros((3, 5))}, None, ValueError,
     r"commands of 'arm' must have shape \(3, 6\), got \(3, 5\)"),
    ({"arm.joint_1": np.zeros((3, 2))}, None, ValueError,
     r"command 'arm.joint_1' must have shape \(3,\), got \(3, 2\)"),
    ({"arm.joint_1": np.zeros(3)}, {"arm.joint_9": 0.2}, KeyError,
     "unknown command 'arm.joint_9'; commands: arm.joint_1, .*motor.shaft"),
], ids=["steps differ", "a segment's table too narrow", "a joint's column as a table", "unknown initial"])
def test_commands_of_the_wrong_shape_or_name_are_refused_saying_what_fits(built, commands, initial, error,
                                                                         words):
    with pytest.raises(error, match=words):
        built.play(commands, 0.01, initial_positions=initial)


def test_progress_counts_every_segments_steps_in_chain_order(built):
    calls = []
    built.play(np.zeros((5, len(built.command_names))), 0.01, progress=lambda done, total: calls.append(
        (done, total)))
    # two segments of five steps each: the arm's five, then the motor's
    assert calls == [(5, 10), (10, 10)]


def test_a_segment_without_a_command_in_a_step_holds_where_it_is(built):
    chain = built.chain_node(0.0)
    state = chain.initial_state({"arm": np.full(6, 0.2), "motor": np.array([0.7])})
    new = chain.advance(state, {"arm": np.full(6, 0.3)}, 0.01)
    np.testing.assert_allclose(new["motor"].joint_positions, [0.7], atol=1e-12)
    np.testing.assert_allclose(new["arm"].joint_positions, 0.3, atol=1e-12)


# -- payloads that weigh nothing ------------------------------------------------------------------------
def test_a_kinematic_motor_with_a_massless_part_adds_nothing_to_the_arm_it_rides():
    # no material: the part is massless, and a kinematic motor has no mass of its own
    rig = Apparatus("r", chain={"arm": Arm.Dynamic(description=str(DEMO_URDF)),
                                "motor": Motor.Kinematic(axis=(0, 0, 1), mount="arm.link_6")},
                    parts={"cap": Part(Cylinder(radius=0.01, length=0.02), at=(0, 0, 0.01),
                                       mount="motor.rotor")})
    seg = rig.build().segments["arm"]
    assert [r.segment for r in seg.riders] == ["motor"] and seg.riders[0].mass == 0.0
    q = np.array([0.3, -0.2, 0.5, 0.1, 0.4, -0.6])
    own = mass_matrix(seg.articulation, q)
    np.testing.assert_array_equal(mass_matrix(seg.dynamics_articulation, q), own)
    hung = seg.coupled
    assert hung is not None  # the riders hang on it, moving
    M = mass_matrix(hung.articulation, np.r_[q, 0.2])
    np.testing.assert_allclose(M[np.ix_(hung.columns["arm"], hung.columns["arm"])], own, atol=1e-15)
    np.testing.assert_array_equal(M[hung.columns["motor"]], 0.0)


# -- torque-driven playback -------------------------------------------------------------------------------
def test_without_torques_driven_playback_is_the_plain_play_and_integrates_nothing(built, monkeypatch):
    monkeypatch.setattr(dynamic, "MAX_SUBSTEPS", 10)  # 4 steps of 3 sub-steps would be too many
    commands = np.tile(np.linspace(0.1, 0.7, 7), (4, 1))
    played = play_driven(built, commands, {}, 0.01, substeps=3)
    plain = built.play(commands, 0.01)
    for name in built.segments:
        np.testing.assert_allclose(played.segments[name].joint_positions,
                                   plain.segments[name].joint_positions, atol=1e-12)


def test_driven_playback_refuses_an_unknown_initial_position(built):
    with pytest.raises(KeyError, match="unknown command 'motor.spindle'; commands: arm.joint_1"):
        play_driven(built, np.zeros((2, 7)), {"motor.torque": np.zeros(2)}, 0.01,
                    initial_positions={"motor.spindle": 0.1})


def test_driven_playback_takes_an_initial_position_for_a_driven_segment(built):
    held = np.tile(built.initial_commands(), (2, 1))  # the arm holds still: the rotor has no cause to turn
    played = play_driven(built, held, {"motor.torque": np.zeros(2)}, 0.01,
                         initial_positions={"motor.shaft": 0.4}, gravity=(0, 0, 0))
    np.testing.assert_allclose(played.segments["motor"].joint_positions, 0.4, atol=1e-12)


def test_driven_playback_without_a_pull_reports_progress_per_segment(built):
    calls = []
    play_driven(built, np.zeros((3, 7)), {"motor.torque": np.zeros(3)}, 0.01,
                progress=lambda done, total: calls.append((done, total)))
    assert calls == [(3, 6), (6, 6)]


def _pulled_spinner(tmp_path) -> Apparatus:
    (tmp_path / "spinner.urdf").write_text(spinner_urdf(1))
    ball = {"geometry": Sphere(radius=0.005), "material": "NdFeB-N42", "magnetisation": (0, 1, 0)}
    return Apparatus("spinner", chain={"arm": Arm.Dynamic(description=str(tmp_path / "spinner.urdf"))},
                     magnets={"on_arm": PermanentMagnet(at=(0.05, 0, 0), mount="arm.arm", **ball),
                              "fixed": PermanentMagnet(at=(0.04, 0.03, 0.02), **ball)})


def test_driven_playback_stepped_by_the_pull_reports_progress_every_256_steps_and_at_the_end(tmp_path):
    built = _pulled_spinner(tmp_path).build()
    assert segment_pulls(built, ["arm"])
    calls = []
    play_driven(built, np.zeros((257, 1)), {"arm.joint_torques": np.zeros((257, 1))}, 1e-3,
                progress=lambda done, total: calls.append((done, total)))
    assert calls == [(256, 257), (257, 257)]


def test_the_cli_play_names_one_servo_time_constant_for_every_segment_when_given(tmp_path, capsys):
    commands = tmp_path / "cmd.csv"
    commands.write_text("time,joint_1\n0,0\n0.01,0.1\n")
    code = main(["play", str(DEMO_RIG), "--commands", str(commands), "--servo-tau", "0.02",
                 "--out", str(tmp_path / "out.npz")])
    assert code == 0, capsys.readouterr()
    assert "0.02 s (every segment)" in capsys.readouterr().out


# -- the magnets' pull with nothing to pull -----------------------------------------------------------------
def _two_balls(mount_b: str | None, at_b=(0.0, 0.02, 0.0)) -> Apparatus:
    ball = {"geometry": Sphere(radius=0.005), "material": "NdFeB-N42", "magnetisation": (0, 0, 1)}
    return Apparatus("r", chain={"arm": Arm.Dynamic(description=str(DEMO_URDF))},
                     magnets={"a": PermanentMagnet(at=(0, 0, 0.02), mount="arm.link_6", **ball),
                              "b": PermanentMagnet(at=at_b, mount=mount_b, **ball)})


def test_two_magnets_on_one_link_pull_no_segment():
    built = _two_balls("arm.link_6").build()
    assert PullModel(built).pairs == ()
    assert segment_pulls(built, ["arm"]) == {}


def test_a_magnet_on_the_segment_a_driven_one_stands_on_is_read_from_that_segment(tmp_path):
    # the driven arm stands on the first arm's base: the magnet on the first arm does not ride on it
    (tmp_path / "spinner.urdf").write_text(spinner_urdf(1))
    ball = {"geometry": Sphere(radius=0.005), "material": "NdFeB-N42", "magnetisation": (0, 1, 0)}
    rig = Apparatus("two", chain={"first": Arm.Kinematic(description=str(tmp_path / "spinner.urdf")),
                                  "driven": Arm.Dynamic(description=str(tmp_path / "spinner.urdf"),
                                                        mount="first.base", at=(0.1, 0, 0))},
                    magnets={"on_first": PermanentMagnet(at=(0.05, 0, 0), mount="first.arm", **ball),
                             "on_driven": PermanentMagnet(at=(-0.02, 0, 0), mount="driven.arm", **ball)})
    pull = segment_pulls(rig.build(), ["driven"])["driven"]
    assert pull.segments == {"first", "driven"}
    assert pull.pairs == [0]


def test_a_rig_without_magnets_has_no_magnet_poses_and_no_pull(built):
    rig = Apparatus("bare", chain={"arm": Arm.Kinematic(description=str(DEMO_URDF))})
    bare = rig.build()
    poses = bare.play(np.zeros((4, 6)), 0.01).frame_poses
    pull = magnet_pull(bare, poses)
    assert PullModel(bare).poses(poses).shape == (4, 0, 4, 4)
    assert pull.force.shape == (4, 0, 3) and pull.pairs == ()


def test_an_unknown_pull_method_is_refused_listing_the_methods(built):
    with pytest.raises(ValueError, match="'exact' is not one of auto, dipole, magnet"):
        PullModel(built, "exact")


def test_one_magnet_alone_feels_no_pull_at_an_instant(built):
    model = PullModel(built)
    force, torque = model.at(np.eye(4)[None])
    np.testing.assert_array_equal(force, np.zeros((1, 3)))
    np.testing.assert_array_equal(torque, np.zeros((1, 3)))


def test_two_magnets_at_one_centre_feel_no_pull_at_an_instant_as_along_a_trajectory():
    built = _two_balls(None).build()
    model = PullModel(built, "dipole")
    X = np.broadcast_to(np.eye(4), (2, 4, 4)).copy()
    force, torque = model.at(X)
    np.testing.assert_array_equal(force, 0.0)
    np.testing.assert_array_equal(torque, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):  # the closed form divides by the zero distance
        along = model(X[None])
    np.testing.assert_array_equal(along.force[0], force)


# -- measures whose ends are not placed --------------------------------------------------------------------
def test_a_point_end_given_text_is_refused_as_not_three_numbers():
    with pytest.raises(MeasureError) as info:
        measure(PointEnd("arm", "link_6", ("a", "b", "c")), FrameEnd("arm", "link_1"))
    assert (info.value.code, info.value.file) == ("measure.point", "measure.a.at")
    assert "is not three finite numbers" in info.value.message and "give metres in the frame" in \
        info.value.message


def test_a_part_whose_mount_is_no_frame_is_not_placed_and_its_measure_says_so():
    rig = snippet_rig()
    rig.parts["holder"].mount = "motor.spindle"
    drawn = display_segments(rig)
    with pytest.raises(MeasureError) as info:
        anchor(CentreEnd("parts", "holder"), rig, drawn, where="measures.0")
    assert (info.value.code, info.value.file) == ("measure.end", "measures.0")
    assert "part 'holder' is not placed: its mount 'motor.spindle'" in info.value.message
    assert "fix it and the measure reads again" in info.value.message


def test_a_probe_whose_mount_is_no_frame_is_not_placed_and_its_measure_says_so():
    rig = snippet_rig(probes={"p": Probe(at=(0, 0, 0.05), mount="arm.link_9")})
    with pytest.raises(MeasureError) as info:
        anchor(ProbeEnd("p"), rig, display_segments(rig), where="measures.1")
    assert (info.value.code, info.value.file) == ("measure.end", "measures.1")
    assert "probe 'p' is not placed: its mount 'arm.link_9' is not a frame of the rig" in info.value.message


def test_a_rider_whose_link_has_a_negative_mass_is_not_hung_moving_and_the_arm_carries_it_as_nothing(
        tmp_path):
    (tmp_path / "bad.urdf").write_text(spinner_urdf(1).replace('<mass value="0.1"/>', '<mass value="-0.1"/>'))
    alone = Apparatus("r", chain={"arm": Arm.Dynamic(description=str(DEMO_URDF))}).build()
    rig = Apparatus("r", chain={"arm": Arm.Dynamic(description=str(DEMO_URDF)),
                                "rider": Arm.Kinematic(description=str(tmp_path / "bad.urdf"),
                                                       mount="arm.link_6")})
    built = rig.build()
    assert built.segments["arm"].coupled is None
    q = np.tile([0.3, 0.8, -0.4, 0.2, 0.5, 0.1], (4, 1))
    with_rider = built.torques(built.play(np.c_[q, np.zeros(4)], 0.01))
    own = alone.torques(alone.play(q, 0.01))
    np.testing.assert_allclose(with_rider.joint_torques[:, :6], own.joint_torques, atol=1e-12)


def test_a_duplicate_name_drawn_again_from_the_last_drawing_keeps_the_first_item():
    # a part and a magnet both named x: a finding, and the drawing shows the part
    ball = PermanentMagnet(Sphere(radius=0.005), material="NdFeB-N42", magnetisation=(0, 0, 1),
                           at=(0, 0, 0.05), mount="arm.link_6")
    rig = Apparatus("r", chain={"arm": Arm.Dynamic(description=str(DEMO_URDF))},
                    parts={"x": Part(Cylinder(radius=0.01, length=0.02), material="aluminium",
                                     at=(0, 0, 0.01), mount="arm.link_6")}, magnets={"x": ball})
    assert [f.code for f in rig.validate()] == ["name.duplicate"]
    first = display_segments(rig)["arm"]
    again = display_segments(rig, reuse={"arm": (first.tree, first.articulation)})["arm"]
    assert again.tree is first.tree
    assert dict(again.grafts) == {"part:x": ("parts", "x")}
