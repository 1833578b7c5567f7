"""Contracts of the field pinned by exact values: the words of the probe-inside-magnet warning, a field plane
square to the x axis itself, the planner's spin held 2 s between 0.5 s ramps (docs/field.md), a sample
whose step-out frequency is zero named as infinitely behind without a numpy warning, and the rotating
summary of a field given in single precision worked in double."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.field import field_along, field_plane, rest_poses, rotating_summary, step_out
from mime_gui.field.planner import Candidate, Plan, trajectory_to
from mime_gui.rig import (
    Apparatus,
    Box,
    Keyframe,
    Motor,
    PermanentMagnet,
    Probe,
    Sample,
    Sphere,
    Spin,
    Trajectory,
    a_m2,
    load,
    n_m_s,
    tesla,
)
from mime_gui.rig.targets import FieldTarget
from mime_gui.rig.trajectories import render


def _magnet(geometry, direction=(0.0, 0.0, 1.0), at=(0.0, 0.0, 0.0), mount=None) -> PermanentMagnet:
    return PermanentMagnet(geometry, magnetisation=direction, at=at, mount=mount,
                           remanence=tesla(1.3, reason="a round N42 figure for the tests"))


def _motor_rig(magnets, probes=None, samples=None, trajectories=None) -> Apparatus:
    rig = Apparatus("bench", chain={"motor": Motor.Kinematic()}, magnets=magnets, probes=probes or {},
                    samples=samples or {}, trajectories=trajectories or {})
    assert rig.validate() == []
    return rig


def test_the_probe_inside_magnet_warning_says_where_when_and_what_to_move():
    """A box on the rotor 3 cm off the axis passes a world probe 3 cm along y at the quarter turn, the
    fifth of nine steps of 0.1 s (t = 0.5 s): the whole message, word for word."""
    built = _motor_rig({"m": _magnet(Box((0.01, 0.01, 0.01)), at=(0.03, 0.0, 0.0), mount="motor.rotor")},
                       {"p": Probe((0.0, 0.03, 0.0))}).build()
    field = field_along(built, built.play({"motor.shaft": np.linspace(0.0, np.pi, 9)}, 0.1))
    (finding,) = field.findings
    assert (finding.code, finding.where) == ("field.probe-inside-magnet", "probes.p")
    assert finding.message == ("inside magnet 'm' at 1 of 9 steps (first at t = 0.5 s), where the field is "
                               "not what a sample sees; move the probe or the trajectory")


@pytest.mark.parametrize("normal", [(1.0, 0.0, 0.0), (-1.0, 0.0, 0.0), (0.0, 0.0, 1.0)],
                         ids=["plus-x", "minus-x", "plus-z"])
def test_a_plane_square_to_an_axis_is_a_finite_square_grid_of_the_side_asked_for(normal):
    """Square to x itself (the side view the scene offers) as to z: a grid of finite points in the plane
    through the centre, its neighbours ``size / (n - 1)`` apart at right angles, and a finite field."""
    built = _motor_rig({"m": _magnet(Sphere(0.005))}).build()
    size, n, centre = 0.04, 5, np.array([0.02, -0.01, 0.005])
    plane = field_plane(built, rest_poses(built), centre, normal=normal, size=size, n=n)
    p = plane.points
    assert np.all(np.isfinite(p)) and np.all(np.isfinite(plane.B))
    np.testing.assert_allclose((p - centre) @ np.asarray(normal), 0.0, atol=1e-15)
    across, down = p[1, 0] - p[0, 0], p[0, 1] - p[0, 0]
    assert np.linalg.norm(across) == pytest.approx(size / (n - 1), rel=1e-12)
    assert np.linalg.norm(down) == pytest.approx(size / (n - 1), rel=1e-12)
    assert abs(across @ down) < 1e-15
    np.testing.assert_allclose(p[n // 2, n // 2], centre, atol=1e-15)
    assert plane.magnitude.min() > 0.0  # a ball's field is nowhere zero this close


def test_the_planners_spin_ramps_up_in_half_a_second_holds_two_seconds_and_ramps_down():
    """docs/field.md: a rotating target's trajectory is the approach, then the motor's spin at the target's
    frequency "with 0.5 s ramps held 2 s", what ``mime-gui plan`` and the Planner dock ask for (neither
    passes a hold of its own)."""
    rig = load(RESOURCES / "demo" / "demo.rig.json")
    rig.probes = {"dish": Probe((0.4, 0.0, 0.2))}
    built = rig.build()
    target = FieldTarget("probes.dish", axis=(0.0, 0.0, 1.0), frequency=5.0)
    end = built.initial_commands() + 0.1
    here = Candidate(end, 0.0, 0.0, 0.0, math.nan, 1, True, {}, 1.0, np.zeros((16, 3)))
    found = Plan(target, [here], [here], None, ("motor", "shaft"), built.command_names, 0)
    trajectory = trajectory_to(built, found, here)
    *approach, spun = trajectory.segments["motor"]
    assert (spun.spin.hertz, spun.spin.ramp, spun.spin.hold) == (5.0, 0.5, 2.0)
    assert spun.time - approach[-1].time == pytest.approx(0.5 + 2.0 + 0.5, abs=1e-12)
    # as rendered: the shaft turns 5 Hz x 2 s = 10 turns over the held part
    time, commands = render(built, trajectory, 0.01)
    shaft = commands[:, built.command_names.index("motor.shaft")]
    start = approach[-1].time + 0.5
    held = np.interp([start, start + 2.0], time, shaft)
    assert held[1] - held[0] == pytest.approx(2 * math.pi * 10.0, rel=1e-9)
    assert time[-1] == pytest.approx(spun.time, abs=1e-9)


def test_a_sample_whose_step_out_frequency_is_zero_is_named_infinitely_behind_without_a_numpy_warning():
    """A declared moment of the smallest positive double: |m||B| underflows to zero, so the step-out
    frequency is 0 Hz while the spin turns the field; the sample is named, its worst step the first it is
    behind at (needed / 0 is infinite at every such step), and no division warning escapes."""
    ball = _magnet(Sphere(0.004), (1.0, 0.0, 0.0), mount="motor.rotor")
    bead = Sample((0.0, 0.0, 0.03), mount="motor.stator", moment=a_m2(5e-324, reason="a vanishing moment"),
                  orientation="follows", drag=n_m_s(5e-9, reason="Stokes, 8πηr³"))
    keys = [Keyframe(1.0, interpolation="spin", spin=Spin(2.0, "Hz", ramp=0.25, hold=0.5))]
    built = _motor_rig({"m": ball}, samples={"bead": bead},
                       trajectories={"spin": Trajectory({"motor": keys})}).build()
    _, commands = render(built, "spin", 0.01)
    played = built.play(commands, 0.01)
    for spins in ("spin", None):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a RuntimeWarning from numpy fails the test
            result = step_out(built, played, spins=spins)
        assert np.all(result.available[:, 0] == 0.0)
        hit = np.flatnonzero(result.behind[:, 0])
        assert len(hit) > 0 and np.all(result.needed[hit, 0] > 0.0)
        (finding,) = result.findings
        assert (finding.code, finding.where) == ("field.step-out", "samples.bead")
        assert f"worst at t = {result.time[hit[0]]:g} s: " in finding.message
        assert "0 Hz available" in finding.message


def test_the_rotating_summary_of_a_single_precision_field_is_that_of_the_same_numbers_in_double():
    """A field sampled in float32 (a logged measurement, a VTK array): the summary is worked in double
    precision on the very numbers given, so it equals the summary of those numbers converted to float64;
    and it finds the field's own 3 Hz turn."""
    dt, f = 0.01, 3.0
    t = dt * np.arange(1, 201)
    B = np.stack([0.02 * np.cos(2 * math.pi * f * t), 0.01 * np.sin(2 * math.pi * f * t),
                  np.full_like(t, 0.005)], axis=-1)[:, None, :]
    single = B.astype(np.float32)
    (given,) = rotating_summary(t.astype(np.float32), single)
    (double,) = rotating_summary(t.astype(np.float32).astype(np.float64), single.astype(np.float64))
    assert given.frequency == double.frequency and given.frequency == pytest.approx(f, rel=1e-6)
    assert (given.B_min, given.B_max, given.ellipticity) == (double.B_min, double.B_max, double.ellipticity)
    np.testing.assert_array_equal(given.axis, double.axis)
    np.testing.assert_array_equal(given.mean, double.mean)
    assert given.ellipticity == pytest.approx(0.5, rel=1e-6)
