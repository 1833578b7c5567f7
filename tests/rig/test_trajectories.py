"""Authored trajectories: the interpolations against their closed forms, the fit to the limits, straight lines
of a frame against Pinocchio, a spin's frequency in the motor's angle and in the field at the probe, and the
trajectory's round trips through the rig file, the Python export and the bundle."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import jsonschema
import numpy as np
import pytest
import rig_strategies
from hypothesis import given, settings
from hypothesis import strategies as st
from rig_helpers import built_with_trajectories as _built
from robot_data import robot_urdf
from scipy.interpolate import CubicSpline

from mime_gui import RESOURCES
from mime_gui.rig import AccelerationLimit, Apparatus, Arm, Keyframe, Spin, Trajectory, load, save
from mime_gui.rig.bundle import open_bundle, write_bundle
from mime_gui.rig.export import to_python
from mime_gui.rig.trajectories import (
    TrajectoryError,
    check,
    cubic_slopes,
    fit_to_limits,
    render,
    render_checked,
)

DEMO = RESOURCES / "demo"
DEMO_RIG = DEMO / "demo.rig.json"
SCHEMA = json.loads((RESOURCES / "rig.schema.json").read_text())
PANDA = "panda_description/urdf/panda.urdf"
UR5 = "ur_description/urdf/ur5_robot.urdf"


@pytest.fixture(scope="module")
def demo():
    return load(DEMO_RIG)


def _column(built, name):
    return built.command_names.index(name)


# -- closed forms ------------------------------------------------------------------------------------
def test_a_quintic_interval_is_the_minimum_jerk_polynomial(demo):
    q0, q1, t0, t1 = 0.2, 1.1, 0.5, 2.0  # joint_1 from 0.2 rad at 0.5 s to 1.1 rad at 2 s
    keys = [Keyframe(t0, values={"joint_1": q0}),
            Keyframe(t1, values={"joint_1": q1}, interpolation="quintic")]
    built = _built(demo, t=Trajectory({"arm": keys}))
    dt = 1e-4
    time, commands = render(built, "t", dt)
    q = commands[:, _column(built, "arm.joint_1")]
    inside = (time >= t0) & (time <= t1)
    s = (time[inside] - t0) / (t1 - t0)
    np.testing.assert_allclose(q[inside], q0 + (q1 - q0) * (10 * s**3 - 15 * s**4 + 6 * s**5), rtol=0,
                               atol=1e-14)
    # rates by central differences against the derivatives of the polynomial, written out by hand
    v = (q[2:] - q[:-2]) / (2 * dt)
    a = (q[2:] - 2 * q[1:-1] + q[:-2]) / dt**2
    mid = time[1:-1]
    between = (mid > t0 + 2 * dt) & (mid < t1 - 2 * dt)
    s = (mid[between] - t0) / (t1 - t0)
    T, d = t1 - t0, q1 - q0
    np.testing.assert_allclose(v[between], d / T * 30 * s**2 * (1 - s) ** 2, atol=1e-6)
    np.testing.assert_allclose(a[between], d / T**2 * 60 * s * (1 - s) * (1 - 2 * s), atol=1e-4)
    for i, step in ((int(round(t0 / dt)), 1), (int(round(t1 / dt)), -1)):  # at rest at both keyframes,
        # from inside the interval: no velocity, no acceleration (to the differences' order)
        assert abs(q[i + step] - q[i]) / dt < 1e-6
        assert abs(q[i + 2 * step] - 2 * q[i + step] + q[i]) / dt**2 < 1e-2
    # the velocity peak (15/8 Δ/T at the middle) is what the check compares with the limit (2 rad/s)
    keys = [Keyframe(0.0, values={"joint_1": 0.0}),
            Keyframe(0.5, values={"joint_1": 1.0}, interpolation="quintic")]
    fast = _built(demo, t=Trajectory({"arm": keys}))
    (finding,) = check(fast, "t")
    peak = 15 / 8 * 1.0 / 0.5
    assert finding.code == "trajectory.speed" and finding.where == "trajectories.t.segments.arm.1"
    assert "arm.joint_1 exceeds its velocity limit at 0.25 s" in finding.message
    assert f"by {peak - 2.0:.4g} rad/s" in finding.message


def test_a_run_of_cubic_intervals_is_the_clamped_spline_with_continuous_acceleration(demo):
    times, values = [0.0, 1.0, 1.5, 3.0, 3.5], [0.0, 0.4, -0.2, 0.5, 0.1]
    keys = [Keyframe(times[0], values={"joint_2": values[0]})]
    keys += [Keyframe(t, values={"joint_2": v}, interpolation="cubic") for t, v in zip(times[1:], values[1:],
                                                                                         strict=True)]
    built = _built(demo, t=Trajectory({"arm": keys}))
    dt = 1e-3
    time, commands = render(built, "t", dt)
    q = commands[:, _column(built, "arm.joint_2")]
    spline = CubicSpline(times, values, bc_type="clamped")  # zero slope at both ends
    np.testing.assert_allclose(q, spline(time), rtol=0, atol=1e-12)
    np.testing.assert_allclose(cubic_slopes(times, np.array(values)[:, None])[:, 0], spline(times, 1),
                               atol=1e-12)
    for knot in times[1:-1]:  # the same acceleration from both sides: continuous through every knot
        left, right = spline(knot - 1e-9, 2), spline(knot + 1e-9, 2)
        assert abs(left - right) < 1e-6
        i = int(round(knot / dt))
        a = (q[i + 1] - 2 * q[i] + q[i - 1]) / dt**2
        # the jerk steps at a knot: the central difference is off by (jerk step)·dt/6 at most
        assert a == pytest.approx(float(spline(knot, 2)), abs=2e-2)
    # between knots the rendered rates are the spline's
    between = slice(200, 900)
    v = (q[2:] - q[:-2]) / (2 * dt)
    # a central difference of a cubic is off by its jerk·dt²/6
    np.testing.assert_allclose(v[between], spline(time[1:-1][between], 1), atol=1e-5)


def test_the_check_of_a_cubic_run_finds_the_peaks_of_the_clamped_spline_between_its_keyframes(demo):
    times, values = [0.0, 0.6, 0.9], [0.0, 1.2, 1.7]  # joint_2 (2 rad/s) through a run of three keyframes
    keys = [Keyframe(times[0], values={"joint_2": values[0]})]
    keys += [Keyframe(t, values={"joint_2": v}, interpolation="cubic") for t, v in zip(times[1:], values[1:],
                                                                                         strict=True)]
    built = _built(demo, t=Trajectory({"arm": keys}, acceleration_limits={"arm": {"*": LIMIT}}))
    spline = CubicSpline(times, values, bc_type="clamped")  # zero slope at both ends
    said = {}
    for finding in check(built, "t"):
        what, at, value = re.search(r"arm\.joint_2 exceeds its (\w+) limit at (\S+) s by \S+ rad/s²? "
                                    r"\((\S+) >", finding.message).groups()
        said[finding.where.rsplit(".", 1)[1], what] = float(value), float(at)
    for k in (1, 2):
        t0, t1 = times[k - 1], times[k]
        # |velocity| peaks at an end or where the acceleration (linear in each piece) is zero
        inside = [t for t in spline.derivative(2).roots() if t0 < t < t1]
        candidates = [t0 + 1e-12, *inside, t1 - 1e-12]
        at = max(candidates, key=lambda t: abs(spline(t, 1)))
        assert said[str(k), "velocity"] == pytest.approx((abs(float(spline(at, 1))), at), rel=5e-4, abs=1e-6)
        ends = [t0 + 1e-12, t1 - 1e-12]  # |acceleration|: at an end of the piece
        at = max(ends, key=lambda t: abs(spline(t, 2)))
        assert said[str(k), "acceleration"] == pytest.approx((abs(float(spline(at, 2))), at), rel=5e-4,
                                                             abs=1e-6)


def test_linear_and_hold_intervals(demo):
    keys = [Keyframe(0.0, values={"joint_1": 0.0}), Keyframe(1.0, values={"joint_1": 1.0}),
            Keyframe(2.0, values={"joint_1": -0.5}, interpolation="hold")]
    built = _built(demo, t=Trajectory({"arm": keys}))
    time, commands = render(built, "t", 0.25)
    np.testing.assert_allclose(commands[:, _column(built, "arm.joint_1")],
                               [0, 0.25, 0.5, 0.75, 1.0, 1.0, 1.0, 1.0, -0.5], atol=1e-15)
    assert list(time) == [0.25 * n for n in range(9)]
    # joints no keyframe names hold the rig's initial positions
    others = [i for i, n in enumerate(built.command_names) if n != "arm.joint_1"]
    np.testing.assert_array_equal(commands[:, others], np.tile(built.initial_commands()[others], (9, 1)))


@pytest.mark.parametrize("interpolation", ["linear", "quintic", "cubic", "hold"])
def test_the_last_keyframe_is_met_exactly_as_every_other(demo, interpolation):
    # 0.7 + (0.1 - 0.7) * 1.0 is 0.09999999999999998, one bit short of the keyframe
    keys = [Keyframe(0.0, values={"joint_1": 0.0}), Keyframe(0.5, values={"joint_1": 0.7}),
            Keyframe(1.0, values={"joint_1": 0.1}, interpolation=interpolation)]
    built = _built(demo, t=Trajectory({"arm": keys}))
    time, commands = render(built, "t", 0.25)
    column = commands[:, _column(built, "arm.joint_1")]
    assert list(time) == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert (column[0], column[2], column[-1]) == (0.0, 0.7, 0.1)


# -- fitting to the limits ---------------------------------------------------------------------------------
LIMIT = AccelerationLimit(3.0, "rad/s2", reason="the servo amplifier's setting")


def _rates(built, trajectory, dt):
    time, commands = render(built, trajectory, dt)
    v = np.abs(np.diff(commands, axis=0)) / dt
    a = np.abs(np.diff(commands, 2, axis=0)) / dt**2
    return v.max(axis=0), a.max(axis=0)


def test_fit_to_limits_stretches_just_enough(demo):
    fast = Trajectory({"arm": [Keyframe(0.0, values={"joint_1": 0.0, "joint_3": 0.0}),
                               Keyframe(0.4, values={"joint_1": 1.5, "joint_3": -1.0},
                                        interpolation="quintic"),
                               Keyframe(0.8, values={"joint_1": 0.5}, interpolation="cubic"),
                               Keyframe(1.0, values={"joint_1": 1.0, "joint_3": 0.5}, interpolation="cubic")],
                       "motor": [Keyframe(1.0)]},
                      acceleration_limits={"arm": {"*": LIMIT}})
    built = _built(demo, t=fast)
    assert check(built, "t")  # too fast as written
    fitted, findings = fit_to_limits(built, "t")
    assert findings == [] and check(built, fitted) == []
    velocity = np.array([2.0, 2.0, 2.5, 3.0, 3.0, 3.0, math.inf])  # the demo arm's <limit velocity>
    acceleration = np.array([3.0] * 6 + [math.inf])
    dt = 1e-3
    v, a = _rates(built, fitted, dt)
    assert np.all(v <= velocity * (1 + 1e-9)) and np.all(a <= acceleration * (1 + 1e-3))
    # not wasteful: a joint reaches one of its limits (differences of a fine rendering, by hand)
    closest = max(np.max(v / velocity), np.max(np.sqrt(a / acceleration)))
    assert closest == pytest.approx(1.0, abs=2e-3)
    # the segments stay in step: the motor's keyframe moved with the arm's last one
    assert fitted.segments["motor"][0].time == pytest.approx(fitted.segments["arm"][-1].time, abs=1e-12)
    assert fitted.segments["arm"][-1].time > 1.0


def test_a_fixed_interval_that_cannot_fit_gives_the_joint_the_time_and_the_excess(demo):
    # 1.5 rad in 0.5 s is 3 rad/s on a joint of 2 rad/s, and the interval keeps its 0.5 s
    trajectory = Trajectory({"arm": [Keyframe(0.0, values={"joint_2": 0.0}),
                                     Keyframe(0.5, values={"joint_2": 1.5}, fixed=True),
                                     Keyframe(1.0, values={"joint_2": 0.0}, interpolation="quintic")]},
                            acceleration_limits={"arm": {"*": LIMIT}})
    built = _built(demo, t=trajectory)
    fitted, findings = fit_to_limits(built, "t")
    assert [(f.code, f.where) for f in findings] == [("trajectory.speed", "trajectories.t.segments.arm.1")]
    assert "arm.joint_2 exceeds its velocity limit at 0 s by 1 rad/s (3 > 2 rad/s)" in findings[0].message
    assert "fixed" in findings[0].message
    assert fitted.segments["arm"][1].time == 0.5  # kept
    assert fitted.segments["arm"][2].time > 1.0  # the free interval after it was stretched


def test_the_findings_are_flagged_by_the_commands_too(demo):
    built = _built(demo, t=Trajectory({"arm": [Keyframe(0.2, values={"joint_4": 2.0}, fixed=True)]}))
    (finding,) = check(built, "t")
    assert "arm.joint_4 exceeds its velocity limit at 0 s by 7 rad/s (10 > 3 rad/s)" in finding.message


# -- straight lines ----------------------------------------------------------------------------------------
def _pin_positions(pin, model, art, q_full):
    out = pin.neutral(model)
    for j in range(1, model.njoints):
        name = model.names[j]
        value = q_full[art.joint_index(name)]
        idx, nq = model.joints[j].idx_q, model.joints[j].nq
        out[idx:idx + nq] = [value] if nq == 1 else [math.cos(value), math.sin(value)]
    return out


@pytest.mark.parametrize("robot, frame, start, end", [
    (PANDA, "panda_hand", [0.0, -0.3, 0.0, -2.0, 0.0, 1.8, 0.8], [0.3, -0.1, 0.1, -1.8, 0.1, 1.9, 0.6]),
    (UR5, "tool0", [0.0, -1.2, 1.5, -1.8, -1.57, 0.0], [0.4, -1.0, 1.3, -1.9, -1.4, 0.3]),
])
def test_a_line_keeps_the_frame_on_the_straight_line(robot, frame, start, end):
    pin = pytest.importorskip("pinocchio")
    path = robot_urdf(robot)
    rig = Apparatus("r", chain={"arm": Arm.Kinematic(description=str(path))})
    built0 = rig.build()
    joints = built0.node("arm").command_names[:len(start)]
    keys = [Keyframe(0.0, values=dict(zip(joints, start, strict=True))),
            Keyframe(1.0, values=dict(zip(joints, end, strict=True)), interpolation="line", frame=frame)]
    rig.trajectories["line"] = Trajectory({"arm": keys})
    assert rig.validate() == []
    built = rig.build()
    rendered = render_checked(built, "line", 0.01)
    assert rendered.findings == ()
    art = built.articulation("arm")
    node = built.node("arm")
    model = pin.buildModelFromUrdf(str(path))
    data = model.createData()
    fid = model.getFrameId(frame)
    positions = []
    for row in rendered.commands:
        pin.framesForwardKinematics(model, data, _pin_positions(pin, model, art, node._full(row)))
        positions.append(np.array(data.oMf[fid].translation))
    positions = np.array(positions)
    p0, p1 = positions[0], positions[-1]
    u = (p1 - p0) / np.linalg.norm(p1 - p0)
    off = (positions - p0) - np.outer((positions - p0) @ u, u)
    assert np.linalg.norm(off, axis=1).max() <= 1e-9
    along = (positions - p0) @ u
    assert along.min() >= -1e-12 and along.max() <= np.linalg.norm(p1 - p0) + 1e-12
    assert np.all(np.diff(along) >= -1e-12)  # forward along it, never back
    assert len(positions) == 101 and np.linalg.norm(p1 - p0) > 0.05


def test_a_line_that_leaves_the_reachable_space_is_a_finding(demo):
    rig = Apparatus("r", chain={"arm": Arm.Kinematic(description=str(DEMO / "arm.urdf"))})
    # from one side of the base to the other: the straight line runs through the base, out of reach
    rig.trajectories["through"] = Trajectory({"arm": [
        Keyframe(0.0, values={"joint_1": -1.5, "joint_2": 0.8, "joint_3": 0.5}),
        Keyframe(1.0, values={"joint_1": 1.5, "joint_2": 0.8, "joint_3": 0.5}, interpolation="line",
                 frame="tool0")]})
    assert rig.validate() == []
    findings = check(rig.build(), "through")
    reach = [f for f in findings if f.code == "trajectory.reach"]
    assert len(reach) == 1 and reach[0].where == "trajectories.through.segments.arm.1"
    assert "leaves the reachable space at" in reach[0].message and "m and" in reach[0].message


# -- spins --------------------------------------------------------------------------------------------------
def test_a_spin_at_5_hz_turns_the_motor_and_the_field_at_the_probe_at_5_hz(demo):
    import dataclasses

    from mime_gui.field.along import field_along
    from mime_gui.field.summary import rotating_summary

    spin = Spin(5.0, "Hz", ramp=0.5, hold=3.0)
    # the demo's magnet is magnetised along the shaft, so its field on the axis does not turn with it;
    # magnetised across the shaft, the field at the demo's probe turns once a turn
    across = dataclasses.replace(demo.magnets["m1"], magnetisation=(1.0, 0.0, 0.0))
    demo = Apparatus(demo.name, chain=demo.chain, parts=demo.parts, magnets={"m1": across}, base=demo.base,
                     probes=demo.probes, poses=demo.poses)
    built = _built(demo, t=Trajectory({"motor": [Keyframe(0.0), Keyframe(4.0, interpolation="spin",
                                                                             spin=spin)]}))
    dt = 0.005
    time, commands = render(built, "t", dt)
    angle = commands[:, _column(built, "motor.shaft")]
    hold = (time >= 0.5) & (time <= 3.5)
    rate = np.diff(angle[hold]) / dt
    np.testing.assert_allclose(rate, 2 * math.pi * 5.0, rtol=1e-9)
    # the whole spin: half a ramp's worth at each end and the hold, by hand
    assert angle[-1] == pytest.approx(2 * math.pi * 5.0 * (0.5 + 3.0), rel=1e-12)
    played = built.play(commands, dt, initial_positions=dict(zip(built.command_names, commands[0],
                                                                 strict=True)))
    shaft = played.joint_positions[:, built.joint_names.index("motor.shaft")]
    np.testing.assert_allclose(np.diff(shaft[(time >= 0.6) & (time <= 3.4)]) / dt, 10 * math.pi, rtol=1e-9)
    field = field_along(built, played)  # the demo's probe, on the motor's stator
    steady = (field.time > 0.6) & (field.time < 3.4)
    (summary,) = rotating_summary(field.time[steady], field.B[steady])
    assert summary.frequency == pytest.approx(5.0, rel=1e-3)


def test_a_spin_in_rpm_for_a_number_of_turns(demo):
    spin = Spin(600.0, "rpm", ramp=0.0, turns=20)  # 10 Hz for 2 s
    built = _built(demo, t=Trajectory({"motor": [Keyframe(2.0, interpolation="spin", spin=spin)]}))
    time, commands = render(built, "t", 0.01)
    assert commands[-1, _column(built, "motor.shaft")] == pytest.approx(20 * 2 * math.pi, rel=1e-12)


# -- bounds -----------------------------------------------------------------------------------------------
def test_a_rendering_too_large_is_refused_before_anything_is_allocated(demo):
    built = _built(demo, t=Trajectory({"arm": [Keyframe(1e6, values={"joint_1": 0.5})]}))
    with pytest.raises(TrajectoryError) as info:
        render(built, "t", 1e-3)
    assert info.value.code == "trajectory.too-large" and "larger step" in info.value.message
    for dt in (0.0, -1.0, math.nan, math.inf):
        with pytest.raises(TrajectoryError) as info:
            render(built, "t", dt)
        assert info.value.code == "trajectory.dt"
    with pytest.raises(TrajectoryError) as info:
        render(built, "nope", 0.01)
    assert info.value.code == "trajectory.unknown"


# -- round trips ------------------------------------------------------------------------------------------
EXAMPLE = Trajectory({
    "arm": [Keyframe(0.0, pose="home"),
            Keyframe(2.0, pose="over the sample", interpolation="quintic", fixed=True),
            Keyframe(2.5, values={"joint_3": 62.5}, interpolation="line", frame="tool0"),
            Keyframe(3.0, values={"joint_1": 10.0}, interpolation="cubic"),
            Keyframe(3.5, values={"joint_1": 0.0}, interpolation="hold")],
    "motor": [Keyframe(3.5), Keyframe(8.0, interpolation="spin", spin=Spin(300, "rpm", ramp=0.25, turns=20)),
              Keyframe(12.0, interpolation="spin", spin=Spin(-5, ramp=0.5, hold=1.5))]},
    unit="deg|m", acceleration_limits={"arm": {"*": AccelerationLimit(180, "deg/s2", reason="amplifier"),
                                               "joint_1": AccelerationLimit(1.5, "rad/s2", reason="load")}})


def test_round_trip_through_the_rig_file_the_python_export_and_the_bundle(demo, tmp_path):
    rig = Apparatus(demo.name, chain=demo.chain, parts=demo.parts, magnets=demo.magnets, base=demo.base,
                    probes=demo.probes, poses=demo.poses, trajectories={"example": EXAMPLE})
    assert rig.validate() == []
    saved = save(rig, tmp_path / "t.rig.json")
    back = load(saved)
    assert back == rig and back.trajectories == {"example": EXAMPLE}
    assert save(back, tmp_path / "again.rig.json").read_text() == saved.read_text()
    assert "trajectories={" in repr(rig)
    namespace = {"__file__": str(tmp_path / "rig.py")}
    exec(compile(to_python(rig, tmp_path), "rig.py", "exec"), namespace)
    assert namespace["rig"] == rig
    bundled = open_bundle(write_bundle(rig, tmp_path / "b.zip"), tmp_path / "cache")
    assert load(bundled).trajectories == rig.trajectories
    # a rig without trajectories writes no key
    plain = Apparatus(demo.name, chain=demo.chain, parts=demo.parts, magnets=demo.magnets, base=demo.base)
    assert "trajectories" not in save(plain, tmp_path / "plain.rig.json").read_text()


def test_renaming_a_segment_or_a_pose_renames_it_in_the_trajectories(demo):
    from mime_gui.session.edits import RenameItem

    rig = Apparatus(demo.name, chain=demo.chain, parts=demo.parts, magnets=demo.magnets, base=demo.base,
                    probes=demo.probes, poses=demo.poses, trajectories={"example": EXAMPLE})
    renamed = RenameItem("chain", "motor", "spinner").apply(rig)
    assert list(renamed.trajectories["example"].segments) == ["arm", "spinner"]
    renamed = RenameItem("poses", "home", "rest").apply(renamed)
    assert renamed.trajectories["example"].segments["arm"][0].pose == "rest"
    assert renamed.validate() == []


@settings(max_examples=60, deadline=None)
@given(trajectories=st.dictionaries(st.text(max_size=12), rig_strategies.trajectories, max_size=2))
def test_any_trajectory_round_trips_through_the_rig_file(trajectories):
    from mime_gui.rig.rigfile import dumps, parse

    rig = Apparatus("r", trajectories=trajectories)
    text = dumps(rig, Path.cwd())
    back = parse(text)
    assert back.trajectories == trajectories and dumps(back, Path.cwd()) == text
    jsonschema.validate(json.loads(text), SCHEMA)
