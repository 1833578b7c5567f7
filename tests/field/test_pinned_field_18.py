"""Field contracts, pinned: the field's memory estimate counts each step and probe's arrays at their own
size; a segment with no commands (a fixed stand) has no twist per command and still carries what rides on
it; a turn whose field stands still has no axis and no roundness (ellipticity 0); the spin asked of a
sample is timed from the trajectory's own start, whatever the start of the played record; the rotating
summary of one or two steps has no ellipticity (NaN, described as none) and holds memory linear in the
record's steps, not its square."""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest
from field_helpers import magnet, probe, spin

from mime_gui.field import field_along, field_bytes, step_out
from mime_gui.field.along import CALL_OVERHEAD
from mime_gui.field.jacobian import ChainJacobian
from mime_gui.field.planner import rotation_of
from mime_gui.field.summary import rotating_summary
from mime_gui.rig import Apparatus, Arm, Keyframe, Motor, Sample, Sphere, Spin, Trajectory, a_m2, n_m_s
from mime_gui.rig.trajectories import render

R_BALL = 0.004


def test_the_field_memory_estimate_counts_each_step_and_probe_s_arrays_at_their_own_size():
    """Without magnets (no Magpylib call's scratch beyond its overhead) the estimate is, per step, the time
    (one double) and per step and probe what ``field_along`` keeps — the position (3 doubles), the probe's
    axes (9), B (3) and the inside flag (1 byte), measured here on a real result — plus the inside test's
    scratch (8 doubles and 5 bytes)."""
    built = Apparatus("bench", chain={"motor": Motor.Kinematic()},
                      magnets={"m": magnet(Sphere(R_BALL), (1.0, 0.0, 0.0), at=(0.03, 0.0, 0.0),
                                           mount="motor.rotor")}).build()
    points = {"a": probe((0.0, 0.0, 0.05)), "b": probe((0.0, 0.05, 0.0), mount="motor.rotor")}
    result = field_along(built, spin(built, 1.0, 4, 0.01), points)
    T, P = result.B.shape[:2]
    kept = sum(a.nbytes for a in (result.probe_positions, result.world_R_probe, result.B, result.inside))
    assert kept == T * P * (8 * (3 + 9 + 3) + 1)  # B counted as its 3 doubles, like the position
    per_probe = kept // (T * P) + 8 * 8 + 5
    for steps, probes in [(1, 1), (1000, 7), (123_457, 3)]:
        assert field_bytes(steps, 0, probes) == CALL_OVERHEAD + steps * (8 + probes * per_probe)


def test_a_segment_without_commands_has_no_twist_and_carries_its_rider(tmp_path):
    """A stand of fixed joints (no commands) with a motor on its top: the stand's frames do not move with
    any command, the rotor turns at 1 rad/s about z per rad/s of the shaft, its origin on the axis."""
    (tmp_path / "stand.urdf").write_text(
        '<robot name="stand"><link name="base"/><link name="top"/><joint name="post" type="fixed">'
        '<parent link="base"/><child link="top"/><origin xyz="0 0 0.2"/></joint></robot>')
    rig = Apparatus("bench", chain={"stand": Arm.Kinematic(description=str(tmp_path / "stand.urdf")),
                                    "motor": Motor.Kinematic(mount="stand.top")})
    assert rig.validate() == []
    built = rig.build()
    assert built.command_names == ("motor.shaft",)
    chain = ChainJacobian(built)
    frames = [chain.frame_index(f) for f in ("stand.base", "stand.top", "motor.rotor")]
    J = chain.twists(built.play({"motor.shaft": [0.3, 1.2]}, 0.01), frames)
    expected = np.zeros((2, 3, 6, 1))
    expected[:, 2, 2, 0] = 1.0  # the rotor: ω = z, v = 0 at its origin on the axis
    np.testing.assert_allclose(J, expected, rtol=0, atol=1e-15)


def test_a_turn_whose_field_stands_still_has_no_axis_and_no_roundness():
    """``rotation_of`` of 16 equal samples: no axis (NaN), ellipticity 0 (it is no circle: a target asking
    for a round field is not met by a field that does not turn), |B| its own size; a circle gives 1."""
    still = np.tile([1e-3, 0.0, 2e-3], (16, 1))
    axis, ellipticity, b_min, b_max = rotation_of(still)
    assert np.isnan(axis).all() and ellipticity == 0.0
    assert b_min == b_max == pytest.approx(math.sqrt(5) * 1e-3, rel=1e-15)
    theta = 2 * math.pi * np.arange(16) / 16
    circle = 1e-3 * np.stack([np.cos(theta), np.sin(theta), np.zeros(16)], axis=1)
    axis, ellipticity, _, _ = rotation_of(circle)
    np.testing.assert_allclose(axis, [0.0, 0.0, 1.0], atol=1e-12)
    assert ellipticity == pytest.approx(1.0, abs=1e-12)


def test_the_spin_asked_of_a_sample_is_timed_from_the_trajectory_s_start_whatever_the_record_s_start():
    """A bead on the axis of a ball turned by a 2 Hz spin (0.5 s ramps, 1 s held): the trajectory plays from
    its own 0 s, so the record timed from 1.5 s asks the very same frequencies at each step as the record
    timed from 0 (up to the 2 Hz held), its times 1.5 s later."""
    ball = magnet(Sphere(R_BALL), (1.0, 0.0, 0.0), mount="motor.rotor")
    bead = Sample((0.0, 0.0, 0.03), mount="motor.stator", moment=a_m2(2e-4, reason="VSM"),
                  orientation="follows", drag=n_m_s(5e-9, reason="Stokes, 8πηr³"))
    keys = [Keyframe(2.0, interpolation="spin", spin=Spin(2.0, "Hz", ramp=0.5, hold=1.0))]
    rig = Apparatus("bench", chain={"motor": Motor.Kinematic()}, magnets={"m": ball},
                    samples={"bead": bead}, trajectories={"spin": Trajectory({"motor": keys})})
    assert rig.validate() == []
    built = rig.build()
    dt = 0.01
    played = built.play(render(built, "spin", dt)[1], dt)
    early = step_out(built, played, spins="spin")
    late = step_out(built, played, spins="spin", start=1.5)
    np.testing.assert_allclose(late.time, early.time + 1.5, rtol=0, atol=1e-12)
    # by hand: step n holds the command of n·dt; held at 2 Hz from 0.5 s to 1.5 s
    held = np.abs(np.arange(len(late.time)) * dt - 1.0) < 0.5 - 1e-9
    np.testing.assert_allclose(late.needed[held, 0], 2.0, rtol=1e-12)
    np.testing.assert_allclose(late.needed, early.needed, rtol=0, atol=1e-12)


def test_a_summary_of_one_or_two_steps_has_no_ellipticity_and_describes_it_as_none():
    """Fewer than 3 steps: frequency and ellipticity NaN (a float, as RotatingField says: 0 to 1 or not
    known), which ``describe`` writes as ``none``; |B| still its range."""
    time = np.array([0.0, 0.01])
    B = np.array([[[3e-3, 0.0, 4e-3]], [[0.0, 5e-3, 0.0]]])
    for steps in (1, 2):
        [summary] = rotating_summary(time[:steps], B[:steps])
        assert math.isnan(summary.frequency) and math.isnan(summary.ellipticity)
        assert summary.describe() == "nan Hz about none, |B| 0.005 to 0.005 T, ellipticity none"


def test_the_rotating_summary_holds_memory_linear_in_the_steps():
    """A 1.3 Hz turn recorded over 3000 steps (24 kB a component): the summary's peak memory is a few times
    the record's (the zero-padded FFT the largest part), far below a (steps x steps) matrix (72 MB) — a
    record of a million steps must not need terabytes."""
    T = 3000
    t = 0.01 * np.arange(T)
    B = 1e-3 * np.stack([np.cos(2.6 * math.pi * t), np.sin(2.6 * math.pi * t), np.zeros(T)], axis=-1)[:, None]
    rotating_summary(t, B)  # numpy's first calls fill caches of their own, kept after
    tracemalloc.start()
    try:
        [summary] = rotating_summary(t, B)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert summary.frequency == pytest.approx(1.3, rel=1e-9)
    assert peak < 50 * B.nbytes < T * T * 8 / 10, peak
