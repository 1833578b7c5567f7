"""Edges of authored trajectories: what the constructors refuse, a keyframe naming a pose or a joint the rig
lacks, intervals no sample falls in, a lone cubic interval, a second cubic run, a line shorter than a step, a
line of a segment riding on a moving one, the size bound of a rendering, and the fit's corners (one round, a
spin longer than its interval, a span locked by another segment's fixed interval, ramps lengthened for an
acceleration limit). Expected values come from closed forms written here and from SciPy's clamped spline."""

from __future__ import annotations

import math

import numpy as np
import pytest
from rig_helpers import DEMO_RIG
from rig_helpers import built_with_trajectories as _built
from scipy.interpolate import CubicSpline

from mime_gui.rig import AccelerationLimit, Apparatus, Keyframe, Spin, Trajectory, load
from mime_gui.rig.trajectories import (
    MAX_BYTES,
    TrajectoryError,
    check,
    cubic_slopes,
    fit_to_limits,
    render,
    render_checked,
    sample_count,
)


@pytest.fixture(scope="module")
def demo():
    return load(DEMO_RIG)


def _column(built, name):
    return built.command_names.index(name)


def _min_jerk(s):
    return 10 * s**3 - 15 * s**4 + 6 * s**5


# -- the constructors ------------------------------------------------------------------------------------
@pytest.mark.parametrize("make, words", [
    (lambda: Spin("5"), "frequency is a number, got '5'"),
    (lambda: Spin(5, ramp=True), "ramp is a number, got True"),
    (lambda: Spin(5, hold="1"), "hold is a number, got '1'"),
    (lambda: Spin(5, 5), "a spin's unit is text (Hz or rpm), got 5"),
    (lambda: Keyframe("0"), "time is a number, got '0'"),
    (lambda: Keyframe(0, values=[("joint_1", 1.0)]), "values maps joint names to numbers, got [("),
    (lambda: Keyframe(0, values={1: 1.0}), "values: a joint's name is text, got 1"),
    (lambda: Keyframe(0, values={"joint_1": "1"}), "values.joint_1 is a number, got '1'"),
    (lambda: Keyframe(0, pose=3), "pose is text, got 3"),
    (lambda: Keyframe(0, frame=b"tool0"), "frame is text, got b'tool0'"),
    (lambda: Keyframe(0, fixed=1), "fixed is true or false, got 1"),
    (lambda: Keyframe(0, spin=5.0), "spin is a Spin, got 5.0"),
    (lambda: AccelerationLimit("3"), "an acceleration limit is a number, got '3'"),
    (lambda: AccelerationLimit(3, 1), "an acceleration limit's unit is text, got 1"),
    (lambda: AccelerationLimit(3, "rad/s2", 7), "a reason is text, got 7"),
    (lambda: Trajectory([]), "segments maps segment names to keyframes, got []"),
    (lambda: Trajectory({1: [Keyframe(0)]}), "segments maps segment names to lists of Keyframe, got 1: ["),
    (lambda: Trajectory({"arm": "k"}), "segments maps segment names to lists of Keyframe, got 'arm': 'k'"),
    (lambda: Trajectory({"arm": {"k": Keyframe(0)}}), "segments maps segment names to lists of Keyframe, "
                                                      "got 'arm': {"),
    (lambda: Trajectory({"arm": [Keyframe(0), 1.0]}), "segments maps segment names to lists of Keyframe, "
                                                       "got 'arm': ["),
    (lambda: Trajectory({}, acceleration_limits=[]), "acceleration_limits maps segment names to {joint: "
                                                     "AccelerationLimit}"),
    (lambda: Trajectory({}, acceleration_limits={"arm": {"*": 3.0}}),
     "acceleration_limits maps segment names to {joint: AccelerationLimit}, got 'arm': {'*': 3.0}"),
    (lambda: Trajectory({}, acceleration_limits={"arm": {1: AccelerationLimit(3)}}), "acceleration_limits "
                                                                                     "maps segment names to"),
    (lambda: Trajectory({}, acceleration_limits={2: {}}), "acceleration_limits maps segment names to {joint: "
                                                          "AccelerationLimit}, got 2: {}"),
], ids=["spin-frequency", "spin-ramp", "spin-hold", "spin-unit", "key-time", "key-values", "key-joint",
        "key-value", "key-pose", "key-frame", "key-fixed", "key-spin", "limit-value", "limit-unit",
        "limit-reason", "segments", "segment-name", "keys-text", "keys-table", "keys-not-keyframes",
        "limits", "limit-not-a-limit", "limit-joint", "limit-segment"])
def test_the_constructors_refuse_what_is_not_their_kind(make, words):
    with pytest.raises(TypeError) as info:
        make()
    assert str(info.value).startswith(words)


def test_a_trajectory_unit_outside_the_list_is_refused_naming_every_unit():
    with pytest.raises(ValueError) as info:
        Trajectory({}, unit="deg")
    assert str(info.value) == "a trajectory's unit is one of rad|m, rad|mm, deg|m, deg|mm, got 'deg'"


def test_a_keyframe_equals_only_a_keyframe():
    k = Keyframe(1.0, values={"joint_1": 0.5})
    assert k.__eq__((1.0, {"joint_1": 0.5})) is NotImplemented
    assert k != 1.0 and k == Keyframe(1, values={"joint_1": 0.5})
    assert Trajectory({"arm": [k]}).__eq__({"arm": [k]}) is NotImplemented


# -- keyframes naming what the rig lacks (a trajectory not of the rig, which its rules have not seen) -------
def test_a_keyframe_naming_a_pose_the_rig_lacks_is_refused_naming_the_rig_s_poses(demo):
    built = demo.build()
    with pytest.raises(TrajectoryError) as info:
        render(built, Trajectory({"arm": [Keyframe(1.0, pose="Home")]}), 0.1)
    assert info.value.code == "trajectory.pose"
    assert info.value.message == "no pose 'Home'; poses: home, over the sample"
    bare = Apparatus("bare", chain=demo.chain, base=demo.base).build()
    with pytest.raises(TrajectoryError) as info:
        render(bare, Trajectory({"arm": [Keyframe(1.0, pose="home")]}), 0.1)
    assert info.value.message == "no pose 'home'; poses: (none)"


def test_a_keyframe_naming_a_joint_the_segment_does_not_command_is_refused_naming_its_joints(demo):
    built = demo.build()
    with pytest.raises(TrajectoryError) as info:
        render(built, Trajectory({"motor": [Keyframe(1.0, values={"joint_1": 0.5})]}), 0.1)
    assert info.value.code == "trajectory.joint"
    assert info.value.message == "motor.joint_1 is no commandable joint; joints: shaft"


@pytest.mark.parametrize("call", ["render", "check", "fit_to_limits"])
def test_a_spin_keyframe_without_its_profile_is_refused_by_every_rendering(demo, call):
    # the rules say so of a rig file (trajectory.spin); a trajectory being authored is rendered unchecked
    built = demo.build()
    spin = Trajectory({"motor": [Keyframe(0.0, values={"shaft": 0.0}), Keyframe(1.0, interpolation="spin")]})
    fn = {"render": render, "check": check, "fit_to_limits": fit_to_limits}[call]
    with pytest.raises(TrajectoryError) as info:
        fn(built, spin, 0.1)
    assert info.value.code == "trajectory.spin"
    assert info.value.message == ("keyframe 1 of motor spins without a profile: a spin interval needs spin "
                                  "{frequency, ramp, hold or turns}")


def test_a_trajectory_is_a_trajectory_or_a_name(demo):
    with pytest.raises(TypeError) as info:
        render(demo.build(), 42, 0.1)
    assert str(info.value) == "a trajectory is a Trajectory or the name of one of the rig's, got 42"


# -- intervals between samples, lone cubic intervals, a second cubic run -------------------------------------
def test_an_interval_no_sample_falls_in_leaves_the_next_one_rendered(demo):
    # joint_1 from its initial 0.1 rad to 1 at 0.1 s, 2 at 0.2 s (between samples), back to 0 at 1 s
    keys = [Keyframe(0.1, values={"joint_1": 1.0}), Keyframe(0.2, values={"joint_1": 2.0}),
            Keyframe(1.0, values={"joint_1": 0.0})]
    built = _built(demo, t=Trajectory({"arm": keys}))
    time, commands = render(built, "t", 0.25)
    q = commands[:, _column(built, "arm.joint_1")]
    assert list(time) == [0.0, 0.25, 0.5, 0.75, 1.0]
    expected = [0.1] + [2.0 + (0.0 - 2.0) * (t - 0.2) / 0.8 for t in (0.25, 0.5, 0.75, 1.0)]
    np.testing.assert_allclose(q, expected, rtol=0, atol=1e-15)


def test_a_cubic_run_with_a_piece_between_samples_is_the_clamped_spline(demo):
    times, values = [0.0, 0.1, 0.2, 1.0], [0.1, 1.0, 2.0, 0.0]  # starting from joint_1's initial 0.1 rad
    keys = [Keyframe(t, values={"joint_1": v}, interpolation="cubic") for t, v in zip(times[1:], values[1:],
                                                                                       strict=True)]
    built = _built(demo, t=Trajectory({"arm": keys}))
    time, commands = render(built, "t", 0.25)
    spline = CubicSpline(times, values, bc_type="clamped")
    np.testing.assert_allclose(commands[:, _column(built, "arm.joint_1")], spline(time), rtol=0, atol=1e-12)


def test_a_lone_cubic_interval_is_the_smoothstep_at_rest_at_both_ends(demo):
    np.testing.assert_array_equal(cubic_slopes([0.0, 2.0], [[1.0, 3.0], [2.0, -1.0]]), np.zeros((2, 2)))
    keys = [Keyframe(0.0, values={"joint_1": 0.0}), Keyframe(2.0, values={"joint_1": 1.0},
                                                             interpolation="cubic")]
    built = _built(demo, t=Trajectory({"arm": keys}))
    time, commands = render(built, "t", 0.1)
    s = time / 2.0
    np.testing.assert_allclose(commands[:, _column(built, "arm.joint_1")], 3 * s**2 - 2 * s**3, rtol=0,
                               atol=1e-14)


def test_the_check_of_a_second_cubic_run_finds_the_peaks_of_its_own_spline(demo):
    # run 1: 0 → 0.5 s → 1 s (slow); a linear interval to 2 s; run 2: 2 s → 2.3 s → 2.5 s on joint_2
    first = [Keyframe(0.0, values={"joint_2": 0.0}),
             Keyframe(0.5, values={"joint_2": 0.1}, interpolation="cubic"),
             Keyframe(1.0, values={"joint_2": 0.2}, interpolation="cubic"),
             Keyframe(2.0, values={"joint_2": 0.3})]
    times, values = [2.0, 2.3, 2.5], [0.3, 0.9, 1.0]
    second = [Keyframe(t, values={"joint_2": v}, interpolation="cubic") for t, v in zip(times[1:], values[1:],
                                                                                          strict=True)]
    built = _built(demo, t=Trajectory({"arm": first + second}))
    findings = check(built, "t")
    assert [f.where for f in findings] == ["trajectories.t.segments.arm.4"]
    spline = CubicSpline(times, values, bc_type="clamped")  # the second run's own, at rest at 2 s and 2.5 s
    roots = [t for t in spline.derivative(2).roots() if 2.0 < t < 2.3]
    at = max([2.0, *roots, 2.3], key=lambda t: abs(spline(t, 1)))
    peak = abs(float(spline(at, 1)))
    assert peak > 2.0  # joint_2's limit
    assert f"arm.joint_2 exceeds its velocity limit at {at:.6g} s by {peak - 2.0:.4g} rad/s" in \
        findings[0].message
    # the fit stretches that run alone: the first run and the linear interval keep their times
    fitted, left = fit_to_limits(built, "t")
    assert left == []
    assert [k.time for k in fitted.segments["arm"][:4]] == [0.0, 0.5, 1.0, 2.0]
    stretch = (fitted.segments["arm"][4].time - 2.0) / 0.3
    assert stretch == pytest.approx(peak / 2.0, rel=1e-9)
    assert fitted.segments["arm"][5].time - 2.0 == pytest.approx(0.5 * stretch, rel=1e-9)


# -- lines ------------------------------------------------------------------------------------------------
def test_a_line_shorter_than_a_step_is_checked_as_its_straight_interval(demo):
    keys = [Keyframe(0.101, values={"joint_1": 0.1}),
            Keyframe(0.109, values={"joint_1": 0.2}, interpolation="line", frame="tool0")]
    built = _built(demo, t=Trajectory({"arm": keys}))
    rendered = render_checked(built, "t", 0.01)
    assert rendered.lines[("arm", 2)].shape[0] == 2  # its two ends, no sample between
    (finding,) = check(built, "t", 0.01)
    v = 0.1 / 0.008  # rad/s: the joint's change over the interval
    assert finding.where == "trajectories.t.segments.arm.1"
    assert f"arm.joint_1 exceeds its velocity limit at 0.101 s by {v - 2.0:.4g} rad/s ({v:.4g} > 2 rad/s)" \
        in finding.message


def test_a_line_of_a_segment_riding_on_a_moving_one_follows_the_line_in_the_world(demo):
    """The motor rides on the arm's tool0, its shaft coaxial with joint_6: while joint_6 turns 1 rad linearly,
    the rotor's line turns it 1.5 rad in the world (from 0 to joint_6 1 + shaft 0.5) with minimum-jerk timing,
    so the shaft is 1.5·mj(t) − t, the arm's turn taken off."""
    trajectory = Trajectory({
        "arm": [Keyframe(0.0, values={"joint_6": 0.0}), Keyframe(1.0, values={"joint_6": 1.0})],
        "motor": [Keyframe(0.0, values={"shaft": 0.0}),
                  Keyframe(1.0, values={"shaft": 0.5}, interpolation="line", frame="rotor")]})
    built = _built(demo, t=trajectory)
    rendered = render_checked(built, "t", 0.05)
    assert rendered.findings == ()
    t = rendered.time
    np.testing.assert_allclose(rendered.commands[:, _column(built, "arm.joint_6")], t, atol=1e-15)
    np.testing.assert_allclose(rendered.commands[:, _column(built, "motor.shaft")], 1.5 * _min_jerk(t) - t,
                               rtol=0, atol=1e-9)


# -- the size of a rendering ---------------------------------------------------------------------------------
def test_a_rendering_of_more_than_max_bytes_is_refused_with_its_size():
    # 2**20 samples of 127 commands and the time: exactly MAX_BYTES, taken; one command more is refused
    assert MAX_BYTES == 2**30
    assert sample_count(2.0**20 - 1, 1.0, 127) == 2**20
    with pytest.raises(TrajectoryError) as info:
        sample_count(2.0**20 - 1, 1.0, 128)
    assert info.value.code == "trajectory.too-large"
    assert info.value.message == ("1.04858e+06 s every 1 s of 128 commands takes about 1032 MB, more than "
                                  "1024 MB; choose a larger step")


# -- the fit's corners ------------------------------------------------------------------------------------
def test_one_round_of_the_fit_stretches_a_linear_interval_to_its_limit(demo):
    # joint_1 (2 rad/s) from 0 to 1 rad in 0.25 s: 4 rad/s, stretched to 0.5 s
    keys = [Keyframe(0.0, values={"joint_1": 0.0}), Keyframe(0.25, values={"joint_1": 1.0})]
    built = _built(demo, t=Trajectory({"arm": keys}))
    for rounds in (1, 0):  # at least one round
        fitted, findings = fit_to_limits(built, "t", rounds=rounds)
        assert findings == []
        assert fitted.segments["arm"][1].time == pytest.approx(0.5, rel=1e-12)


@pytest.mark.parametrize("spin, whole", [
    (Spin(5.0, "Hz", ramp=0.5, hold=3.0), 2 * math.pi * 5.0 * (0.5 + 3.0)),  # half of each ramp at full speed
    (Spin(-300.0, "rpm", ramp=0.0, turns=20.0), -2 * math.pi * 20.0),  # 20 turns the other way
], ids=["ramped", "rpm-turns"])
def test_a_spin_s_angle_after_its_end_stays_the_whole_spin_s(spin, whole):
    after = spin.duration + np.array([0.0, 0.5, 100.0])
    np.testing.assert_allclose(spin.angle(after), whole, rtol=1e-12, atol=0)


def test_a_spin_longer_than_its_interval_moves_its_keyframe_to_the_spin_s_end(demo):
    # the rules refuse such a keyframe (trajectory.spin, "move it to 2 s or later"); the fit moves it there
    spin = Spin(1.0, "Hz", ramp=0.5, hold=1.0)  # 2 s from the keyframe before
    trajectory = Trajectory({"motor": [Keyframe(0.0), Keyframe(1.0, interpolation="spin", spin=spin)]})
    fitted, findings = fit_to_limits(demo.build(), trajectory)
    assert findings == []
    assert fitted.segments["motor"][1].time == pytest.approx(2.0, rel=1e-12)
    assert fitted.segments["motor"][1].spin == spin


def test_a_span_locked_by_another_segment_s_fixed_interval_is_not_stretched(demo):
    # joint_2 (2 rad/s) 1.5 rad in 0.5 s asks 3 rad/s; the motor's interval over the same span is fixed
    trajectory = Trajectory({"arm": [Keyframe(0.0, values={"joint_2": 0.0}),
                                     Keyframe(0.5, values={"joint_2": 1.5})],
                             "motor": [Keyframe(0.0), Keyframe(0.5, values={"shaft": 1.0}, fixed=True)]})
    built = _built(demo, t=trajectory)
    fitted, findings = fit_to_limits(built, "t")
    assert fitted == trajectory
    assert [(f.code, f.where) for f in findings] == [("trajectory.speed", "trajectories.t.segments.arm.1")]
    assert findings[0].message.endswith("(3 > 2 rad/s); fit the trajectory to the limits or move the "
                                        "keyframe later")


def test_a_spin_s_ramps_are_lengthened_to_the_acceleration_limit(demo):
    # 1 Hz reached in 0.1 s asks 2π/0.1 ≈ 62.8 rad/s²; the shaft's limit of 10 rad/s² needs 2π/10 s ramps
    spin = Spin(1.0, "Hz", ramp=0.1, hold=1.0)
    trajectory = Trajectory({"motor": [Keyframe(0.0), Keyframe(3.0, interpolation="spin", spin=spin)]},
                            acceleration_limits={"motor": {"shaft": AccelerationLimit(10.0, "rad/s2",
                                                                                      reason="driver")}})
    built = _built(demo, t=trajectory)
    assert [f.code for f in check(built, "t")] == ["trajectory.speed"]
    fitted, findings = fit_to_limits(built, "t")
    assert findings == []
    key = fitted.segments["motor"][1]
    assert key.spin.ramp == pytest.approx(2 * math.pi / 10.0, rel=1e-12)
    assert key.spin.hold == 1.0 and key.time == 3.0  # 2·0.628 + 1 s still ends before 3 s
    assert check(built, fitted) == []
