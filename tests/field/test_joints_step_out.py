"""What the arm's joints and a following sample feel along a played trajectory: |B| at a joint's frame against
the point dipole's closed form of a ball magnet (exact outside it) and Magpylib on the poses, named where it
exceeds the segment's tolerance, at exactly the steps the closed form says; a sample's step-out frequency
against ``|m||B|/(2π ζ)`` with |B| from Magpylib called by the test, a spin just below it followed and one
just above it named from the step the test's own ramp crosses it."""

from __future__ import annotations

import math

import magpylib as magpy
import numpy as np
import pytest
from field_helpers import BR, dipole, magnet, spin

from mime_gui.field import joint_field, step_out
from mime_gui.rig import Apparatus, Keyframe, Motor, Sample, Sphere, Spin, Trajectory, a_m2, n_m_s, tesla
from mime_gui.rig.mass import MU0
from mime_gui.rig.trajectories import render

R_BALL = 0.004
M_BALL = BR * 4 / 3 * math.pi * R_BALL**3 / MU0  # the ball's moment, A m2
ENCODER = np.array([0.06, 0.0, 0.0])  # where the second motor (its shaft joint) stands on the first's stator


def _joint_rig(tolerance: float, at=ENCODER):
    """A motor turning a ball magnet 3 cm off its axis (magnetised radially), and a second motor standing on
    its stator at ``at`` whose joints take at most ``tolerance`` T."""
    ball = magnet(Sphere(R_BALL), (1.0, 0.0, 0.0), at=(0.03, 0.0, 0.0), mount="motor.rotor")
    limit = tesla(tolerance, reason="its Hall encoder's datasheet")
    chain = {"motor": Motor.Kinematic(),
             "encoder": Motor.Kinematic(mount="stator", at=tuple(at), field_tolerance=limit)}
    rig = Apparatus("bench", chain=chain, magnets={"m": ball})
    assert rig.validate() == []
    return rig.build()


def _closed_form(angles, at=ENCODER) -> np.ndarray:
    """|B| (T) of the ball (a dipole outside it) at ``at`` with the rotor turned by each of ``angles``."""
    c, s = np.cos(angles), np.sin(angles)
    centre = np.stack([0.03 * c, 0.03 * s, np.zeros_like(c)], axis=-1)
    moments = M_BALL * np.stack([c, s, np.zeros_like(c)], axis=-1)
    return np.array([np.linalg.norm(dipole(m, at - p)) for m, p in zip(moments, centre, strict=True)])


STEPS, DT = 100, 0.01
ANGLES = 2 * math.pi * 1.0 * DT * np.arange(1, STEPS + 1)  # spin(built, 1.0, STEPS, DT)


def test_a_magnet_passing_a_joint_is_named_at_the_steps_the_dipole_exceeds_the_tolerance():
    expected = _closed_form(ANGLES)
    # a tolerance halfway between two steps' values on the way out, so no step sits near it
    tolerance = 0.5 * (expected[19] + expected[20])
    built = _joint_rig(tolerance)
    result = joint_field(built, spin(built, 1.0, STEPS, DT))
    assert result.joint_names == ("encoder.shaft",)
    assert np.allclose(result.B[:, 0], expected, rtol=1e-9, atol=0)
    over = expected > tolerance
    assert np.array_equal(result.over[:, 0], over)
    hit = np.flatnonzero(over)
    worst = hit[np.argmax(expected[hit])]
    [finding] = result.findings
    assert (finding.code, finding.where) == ("field.joint", "chain.encoder")
    for words in ("'shaft'", f"{tolerance * 1e3:g} mT", f"at {len(hit)} of {STEPS} steps",
                  f"from t = {DT * (hit[0] + 1):g} s to {DT * (hit[-1] + 1):g} s",
                  f"worst {expected[worst] * 1e3:.4g} mT at t = {DT * (worst + 1):g} s", "Hall encoder"):
        assert words in finding.message, (words, finding.message)


def test_a_joint_the_magnet_stays_away_from_is_not_named():
    far = np.array([0.5, 0.0, 0.0])
    expected = _closed_form(ANGLES, far)
    assert expected.max() < 1e-3  # the test's own bound: 47 cm from the ball at the nearest
    built = _joint_rig(1e-3, far)
    result = joint_field(built, spin(built, 1.0, STEPS, DT))
    assert np.allclose(result.B[:, 0], expected, rtol=1e-9, atol=0)
    assert result.findings == [] and not result.over.any()


def test_a_field_exactly_at_the_tolerance_is_within_it_and_one_just_below_names_that_step():
    """The boundary of the comparison: the largest |B| computed (checked against the closed form above) as
    the tolerance, then the float just below it."""
    probe_run = _joint_rig(1.0)
    trajectory = spin(probe_run, 1.0, STEPS, DT)
    largest = joint_field(probe_run, trajectory).B[:, 0]
    top = float(largest.max())
    at_top = joint_field(_joint_rig(top), trajectory)
    assert at_top.findings == [] and not at_top.over.any()
    below = joint_field(_joint_rig(math.nextafter(top, 0.0)), trajectory)
    assert np.array_equal(below.over[:, 0], largest == top)
    assert len(below.findings) == 1


def test_a_rig_without_magnets_leaves_its_joints_at_zero_field():
    chain = {"motor": Motor.Kinematic(),
             "encoder": Motor.Kinematic(mount="stator", at=tuple(ENCODER),
                                        field_tolerance=tesla(1e-9, reason="a very touchy encoder"))}
    rig = Apparatus("bench", chain=chain)
    assert rig.validate() == []
    built = rig.build()
    result = joint_field(built, spin(built, 1.0, 5, DT))
    assert result.joint_names == ("encoder.shaft",)
    assert result.B.shape == (5, 1) and (result.B == 0).all()
    assert result.findings == [] and not result.over.any()


def test_the_joint_field_carries_the_time_of_each_step_from_the_start_given():
    built = _joint_rig(1.0)
    result = joint_field(built, spin(built, 1.0, 4, DT), start=2.5)
    # step n (from 1) is played at start + n dt: 2.51, 2.52, 2.53, 2.54 s
    assert np.allclose(result.time, [2.51, 2.52, 2.53, 2.54], rtol=0, atol=1e-12)
    assert result.B.shape == (4, 1)


def test_every_movable_joint_of_the_demo_arm_reads_magpylib_at_its_frame():
    from field_helpers import demo

    rig = demo()
    rig.chain["arm"].field_tolerance = tesla(0.01, reason="the arm's encoders")
    built = rig.build()
    steps = 30
    columns = {name: 0.4 * np.sin(np.linspace(0.1, 3.0, steps) + k) for k, name in
               enumerate(built.command_names)}
    trajectory = built.play(columns, 0.01)
    result = joint_field(built, trajectory)
    arm = built.segments["arm"]
    assert result.joint_names == tuple(f"arm.{j}" for j in arm.articulation.joint_names)
    # Magpylib on the poses: the demo's cylinder magnet on the rotor, placed by the test from its frame
    m1 = rig.magnets["m1"]
    remanence = next(p for p in built.report.data["parts"] if p["name"] == "m1")["magnet"]["remanence"]
    names = list(built.frame_names)
    rotor = np.asarray(trajectory.frame_poses)[:, names.index("motor.rotor")]
    polarization = remanence * np.asarray(m1.magnetisation) / np.linalg.norm(m1.magnetisation)
    for t in (0, 11, 29):
        source = magpy.magnet.Cylinder(dimension=(2 * m1.geometry.radius, m1.geometry.length),
                                       polarization=tuple(polarization),
                                       position=rotor[t, :3, :3] @ np.array(m1.at) + rotor[t, :3, 3])
        from scipy.spatial.transform import Rotation

        source.orientation = Rotation.from_matrix(rotor[t, :3, :3])
        for j, joint in enumerate(arm.articulation.joint_names):
            child = arm.tree.joints[joint].child
            frame = np.asarray(trajectory.frame_poses)[t, names.index(f"arm.{child}")]
            expected = np.linalg.norm(magpy.getB(source, frame[:3, 3]))
            assert result.B[t, j] == pytest.approx(expected, rel=1e-9)


# -- step-out ------------------------------------------------------------------------------------------------
Z_SAMPLE, M_SAMPLE, DRAG = 0.03, 2e-4, 5e-9


def _field_on_axis() -> float:
    """|B| (T) of the rotor's ball (centred on the axis, magnetised across it) at the sample, by Magpylib: the
    same at every angle on the axis."""
    ball = magpy.magnet.Sphere(diameter=2 * R_BALL, polarization=(BR, 0.0, 0.0))
    return float(np.linalg.norm(ball.getB((0.0, 0.0, Z_SAMPLE))))


F_STEP_OUT = M_SAMPLE * _field_on_axis() / (2 * math.pi * DRAG)  # the test's own |m||B|/(2π ζ)


def _spin_rig(frequency: float, drag=DRAG, orientation="follows"):
    ball = magnet(Sphere(R_BALL), (1.0, 0.0, 0.0), mount="motor.rotor")
    sample = Sample((0.0, 0.0, Z_SAMPLE), mount="motor.stator", moment=a_m2(M_SAMPLE, reason="VSM"),
                    orientation=orientation,
                    drag=None if drag is None else n_m_s(drag, reason="Stokes, 8πηr³"))
    keys = [Keyframe(2.0, interpolation="spin", spin=Spin(frequency, "Hz", ramp=0.5, hold=1.0))]
    rig = Apparatus("bench", chain={"motor": Motor.Kinematic()}, magnets={"m": ball},
                    samples={"bead": sample}, trajectories={"spin": Trajectory({"motor": keys})})
    assert rig.validate() == []
    return rig.build()


def _played(built, dt=0.002):
    _, commands = render(built, "spin", dt)
    return built.play(commands, dt)


def test_the_step_out_frequency_is_m_B_over_2_pi_drag_at_every_step():
    assert 1.0 < F_STEP_OUT < 100.0  # a few hertz (6.5 Hz): a spin the steps resolve
    built = _spin_rig(0.5 * F_STEP_OUT)
    result = step_out(built, _played(built), spins="spin")
    assert np.allclose(result.available[:, 0], F_STEP_OUT, rtol=1e-9, atol=0)
    assert result.findings == [] and result.asked_by == ("spin",)


@pytest.mark.parametrize("share", [1 - 1e-3, 1 + 1e-3])
def test_a_spin_just_below_the_step_out_frequency_is_followed_and_one_just_above_is_named(share):
    f, ramp, hold, dt = share * F_STEP_OUT, 0.5, 1.0, 0.002
    built = _spin_rig(f)
    result = step_out(built, _played(built, dt), spins="spin")
    if share < 1:
        assert result.findings == [] and not result.behind.any()
        return
    # the test's own profile: step n holds the command of n·dt, above f_so from the ramp's crossing up to
    # the same point on the way down
    n = np.arange(len(result.time))
    tau = n * dt
    rate = np.where(tau < ramp, f * tau / ramp, np.where(tau < ramp + hold, f, f * (2 * ramp + hold - tau)
                                                          / ramp))
    behind = rate > F_STEP_OUT
    assert np.array_equal(result.behind[:, 0], behind)
    [finding] = result.findings
    first, last = np.flatnonzero(behind)[[0, -1]]
    assert (finding.code, finding.where) == ("field.step-out", "samples.bead")
    for words in (f"from t = {(first + 1) * dt:g} s to {(last + 1) * dt:g} s", f"{f:.4g} Hz needed",
                  f"{F_STEP_OUT:.4g} Hz available", "Stokes"):
        assert words in finding.message, (words, finding.message)


@pytest.mark.parametrize("share, named", [(0.9, False), (1.1, True)])
def test_without_a_trajectory_the_field_s_own_frequency_at_the_sample_is_asked(share, named):
    built = _spin_rig(1.0)
    trajectory = spin(built, share * F_STEP_OUT, 400, 0.001)
    result = step_out(built, trajectory)
    assert result.asked_by == ("field",)
    assert np.allclose(result.needed[:, 0], share * F_STEP_OUT, rtol=1e-6)
    assert bool(result.findings) is named


def test_a_sample_without_a_drag_has_no_step_out_frequency():
    built = _spin_rig(2 * F_STEP_OUT, drag=None)
    result = step_out(built, _played(built), spins="spin")
    assert np.isnan(result.available).all() and result.findings == [] and result.asked_by == ("",)


def test_the_field_still_at_a_sample_asks_nothing():
    """A ball magnetised along the motor's axis: turning it changes nothing at the sample."""
    ball = magnet(Sphere(R_BALL), (0.0, 0.0, 1.0), mount="motor.rotor")
    sample = Sample((0.0, 0.0, Z_SAMPLE), mount="motor.stator", moment=a_m2(M_SAMPLE, reason="VSM"),
                    orientation="follows", drag=n_m_s(1.0, reason="a thick paste"))
    keys = [Keyframe(2.0, interpolation="spin", spin=Spin(50.0, "Hz", ramp=0.5, hold=1.0))]
    rig = Apparatus("bench", chain={"motor": Motor.Kinematic()}, magnets={"m": ball},
                    samples={"bead": sample}, trajectories={"spin": Trajectory({"motor": keys})})
    built = rig.build()
    result = step_out(built, _played(built), spins="spin")
    assert (result.needed == 0).all() and result.findings == []


def test_a_spin_after_a_pose_keyframe_starts_at_that_keyframe_s_time():
    """The motor held at 0 until 1 s, spun up to 2 Hz (0.5 s ramps, 1 s held) into the keyframe at 3 s, then
    turned to 0 again by 5 s: the spin runs from 1 s. By hand at each time: before 1 s nothing, 0.25 s up
    the ramp a half of 2 Hz, held at 2 Hz, 0.25 s down the last ramp a half again, after 3 s nothing."""
    from mime_gui.field.step_out import spin_hertz

    built = _spin_rig(1.0)
    keys = [Keyframe(1.0, values={"shaft": 0.0}),
            Keyframe(3.0, interpolation="spin", spin=Spin(2.0, "Hz", ramp=0.5, hold=1.0)),
            Keyframe(5.0, values={"shaft": 0.0})]
    times = np.array([0.5, 1.25, 2.0, 2.75, 3.5])
    assert np.allclose(spin_hertz(built, Trajectory({"motor": keys}), times), [0.0, 1.0, 2.0, 1.0, 0.0],
                       rtol=1e-12, atol=1e-12)


# -- the checks the validation runs together ------------------------------------------------------------
def test_the_field_checks_name_the_joint_and_the_sample_together_each_with_its_reason():
    """``field_findings`` on a rig with both a joint tolerance and a sample with a drag: the joint's finding
    (its tolerance half the dipole's |B| with the ball turned toward it) and the sample's (spun at twice its
    step-out frequency), in that order, each message with the reason its value was given (a rig with a drag
    without one is not built: ``declaration.reason``)."""
    from mime_gui.field.checks import field_findings

    ball = magnet(Sphere(R_BALL), (1.0, 0.0, 0.0), mount="motor.rotor")
    sample = Sample((0.0, 0.0, Z_SAMPLE), mount="motor.stator", moment=a_m2(M_SAMPLE, reason="VSM"),
                    orientation="follows", drag=n_m_s(DRAG, reason="Stokes, 8πηr³"))
    tolerance = 0.5 * float(np.linalg.norm(dipole(np.array([M_BALL, 0.0, 0.0]), ENCODER)))
    chain = {"motor": Motor.Kinematic(),
             "encoder": Motor.Kinematic(mount="stator", at=tuple(ENCODER),
                                        field_tolerance=tesla(tolerance, reason="Hall encoder"))}
    keys = [Keyframe(2.0, interpolation="spin", spin=Spin(2 * F_STEP_OUT, "Hz", ramp=0.5, hold=1.0))]
    rig = Apparatus("bench", chain=chain, magnets={"m": ball}, samples={"bead": sample},
                    trajectories={"spin": Trajectory({"motor": keys})})
    assert rig.validate() == []
    built = rig.build()
    found = field_findings(built, _played(built), spins="spin")
    assert [(f.code, f.where) for f in found] == [("field.joint", "chain.encoder"),
                                                   ("field.step-out", "samples.bead")]
    assert "Hall encoder" in found[0].message, found[0].message
    assert "drag 5e-09 N·m·s: Stokes, 8πηr³)" in found[1].message, found[1].message
    assert "Hz needed (the spin)" in found[1].message


def test_the_field_checks_time_a_joint_s_finding_from_the_start_they_are_given():
    """A trajectory played from t = 2.5 s: the joint's steps are timed ``2.5 + (n + 1)·dt``, by hand."""
    from mime_gui.field.checks import field_findings

    expected = _closed_form(ANGLES)
    tolerance = 0.5 * (expected[19] + expected[20])
    built = _joint_rig(tolerance)
    [finding] = field_findings(built, spin(built, 1.0, STEPS, DT), start=2.5)
    hit = np.flatnonzero(expected > tolerance)
    worst = hit[np.argmax(expected[hit])]
    assert (finding.code, finding.where) == ("field.joint", "chain.encoder")
    for words in (f"from t = {2.5 + DT * (hit[0] + 1):g} s to {2.5 + DT * (hit[-1] + 1):g} s",
                  f"mT at t = {2.5 + DT * (worst + 1):g} s"):
        assert words in finding.message, (words, finding.message)


def test_the_field_checks_name_a_zone_the_magnet_passes_through_while_it_is_there():
    """A 1 cm ball zone on the ball's 3 cm circle at a quarter turn, with a limit (5 T) no field of the ball
    reaches: only the steps with the ball's centre in the zone breach it, from the trajectory played from
    t = 1.5 s. By hand: step n (timed 1.5 + (n + 1)·dt) turns the rotor by 2π·(n + 1)·dt, the centre within
    1 cm of the zone's."""
    from mime_gui.field.checks import field_findings
    from mime_gui.rig import Zone

    ball = magnet(Sphere(R_BALL), (1.0, 0.0, 0.0), at=(0.03, 0.0, 0.0), mount="motor.rotor")
    zone = Zone((0.0, 0.03, 0.0), sphere=0.01, limit=5.0, reason="a Hall sensor")
    rig = Apparatus("bench", chain={"motor": Motor.Kinematic()}, magnets={"m": ball}, zones={"sensor": zone})
    assert rig.validate() == []
    built = rig.build()
    [finding] = field_findings(built, spin(built, 1.0, STEPS, DT), start=1.5)
    centres = 0.03 * np.stack([np.cos(ANGLES), np.sin(ANGLES)], axis=-1)
    inside = np.flatnonzero(np.linalg.norm(centres - [0.0, 0.03], axis=1) <= 0.01)
    assert 0 < len(inside) < STEPS // 4
    first, last = 1.5 + DT * (inside[[0, -1]] + 1)
    assert (finding.code, finding.where) == ("field.zone", "zones.sensor")
    for words in (f"at {len(inside)} of {STEPS} steps", f"from t = {first:g} s to {last:g} s",
                  f"a magnet inside it from t = {first:g} s", "Hall sensor"):
        assert words in finding.message, (words, finding.message)


def test_joints_asked_of_a_segment_the_rig_lacks_are_refused_naming_the_segments_it_has():
    from mime_gui.field import FieldError

    built = _joint_rig(1e-3)
    with pytest.raises(FieldError) as err:
        joint_field(built, spin(built, 1.0, 3, DT), segments=["encoder", "wrist"])
    assert (err.value.code, err.value.file) == ("field.segment", "chain.wrist")
    assert err.value.message == "'wrist' is not a segment of the rig; segments: motor, encoder"


@pytest.mark.parametrize("order", [("base", "tail"), ("tail", "base")], ids=["base-first", "tail-first"])
def test_a_spin_counts_on_a_segment_a_magnet_rides_on_through_another_and_not_on_one_after_it(order):
    """base → head (on the base's rotor, the magnet on its own rotor) → tail (on the head's stator): the base
    turns the magnet through the head, so its 2 Hz spin counts; the tail's 5 Hz turns no magnet, whichever
    of the two the trajectory lists first."""
    from mime_gui.field.step_out import spin_hertz

    chain = {"base": Motor.Kinematic(), "head": Motor.Kinematic(mount="rotor", at=(0.05, 0.0, 0.0)),
             "tail": Motor.Kinematic(mount="stator", at=(0.0, 0.1, 0.0))}
    rig = Apparatus("bench", chain=chain,
                    magnets={"m": magnet(Sphere(R_BALL), (1.0, 0.0, 0.0), at=(0.01, 0.0, 0.0),
                                         mount="head.rotor")})
    assert rig.validate() == []
    built = rig.build()
    hertz = {"base": 2.0, "tail": 5.0}
    spun = {seg: [Keyframe(2.0, interpolation="spin", spin=Spin(hertz[seg], "Hz", ramp=0.5, hold=1.0))]
            for seg in order}
    assert tuple(Trajectory(spun).segments) == order
    times = np.array([0.25, 1.0, 1.75])  # half up the ramp, held, half down
    assert np.allclose(spin_hertz(built, Trajectory(spun), times), [1.0, 2.0, 1.0], rtol=1e-12, atol=1e-12)
    only_tail = Trajectory({"tail": spun["tail"]})
    assert not spin_hertz(built, only_tail, times).any()


def test_the_field_checks_time_a_sample_s_step_out_from_the_start_they_are_given():
    """A sample spun at 1.1 times its step-out frequency (no trajectory's spins: the field's own frequency
    is asked) by a trajectory played from t = 1.5 s: behind at every one of its 400 steps, timed
    ``1.5 + (n + 1)·dt`` by hand."""
    from mime_gui.field.checks import field_findings

    built = _spin_rig(1.0)
    steps, dt = 400, 0.001
    [finding] = field_findings(built, spin(built, 1.1 * F_STEP_OUT, steps, dt), start=1.5)
    assert (finding.code, finding.where) == ("field.step-out", "samples.bead")
    for words in (f"at {steps} of {steps} steps", f"from t = {1.5 + dt:g} s to {1.5 + steps * dt:g} s"):
        assert words in finding.message, (words, finding.message)


def test_the_joints_memory_estimate_covers_the_arrays_the_check_keeps_per_step():
    """A million steps of 4 joints and 2 magnets: ``joint_field`` keeps per step and joint the frame's
    origin (3 floats), |B| (1 float) and the over-tolerance flag (1 byte), per step and magnet its pose
    (16 floats): 388 MB by hand, which the estimate the CLI refuses a run by must not undercount."""
    from mime_gui.field import joints

    steps, magnets, count = 1_000_000, 2, 4
    kept = steps * (count * (3 * 8 + 8 + 1) + magnets * 16 * 8)
    assert kept == 388_000_000
    assert joints.joint_bytes(steps, magnets, count) >= kept
    assert joints.joint_bytes(steps, magnets, 0) == 0  # no joint declares a tolerance: nothing computed


def test_the_field_checks_time_a_joint_s_finding_from_zero_unless_given_a_start():
    """No start given (as the planner calls them): the joint's steps are timed ``(n + 1)·dt``, by hand."""
    from mime_gui.field.checks import field_findings

    expected = _closed_form(ANGLES)
    tolerance = 0.5 * (expected[19] + expected[20])
    built = _joint_rig(tolerance)
    [finding] = field_findings(built, spin(built, 1.0, STEPS, DT))
    hit = np.flatnonzero(expected > tolerance)
    assert (finding.code, finding.where) == ("field.joint", "chain.encoder")
    assert f"from t = {DT * (hit[0] + 1):g} s to {DT * (hit[-1] + 1):g} s" in finding.message, finding.message
