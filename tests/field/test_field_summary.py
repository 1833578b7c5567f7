"""The rotating-field summary on fields of known motion: frequency, axis and its sense, |B| range,
ellipticity, and what a steady or too short record gives."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mime_gui.field import rotating_summary


def _frame(axis):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    u = np.cross(axis, [1.0, 0.0, 0.0] if abs(axis[0]) < 0.9 else [0.0, 1.0, 0.0])
    u /= np.linalg.norm(u)
    return u, np.cross(axis, u), axis


def rotating(freq, axis, major=1e-2, minor=1e-2, mean=(0.0, 0.0, 0.0), steps=1000, dt=1e-3, phase=0.3):
    """B sweeping an ellipse about ``axis`` (positive sense for freq > 0), plus a steady ``mean``."""
    t = dt * np.arange(1, steps + 1)
    u, v, _ = _frame(axis)
    angle = 2 * math.pi * freq * t + phase
    B = np.asarray(mean) + major * np.cos(angle)[:, None] * u + minor * np.sin(angle)[:, None] * v
    return t, B[:, None, :]


@pytest.mark.parametrize("freq", [3.0, 17.3, 120.0])
@pytest.mark.parametrize("axis", [(0, 0, 1), (1, 2, -0.5)])
def test_a_circular_field_gives_its_frequency_axis_and_an_ellipticity_of_one(freq, axis):
    t, B = rotating(freq, axis, mean=(1e-3, -2e-3, 5e-4))
    (s,) = rotating_summary(t, B)
    assert s.frequency == pytest.approx(freq, rel=1e-3)
    assert s.axis == pytest.approx(np.asarray(axis) / np.linalg.norm(axis), abs=1e-9)
    assert s.ellipticity == pytest.approx(1.0, abs=1e-3)
    assert s.mean == pytest.approx([1e-3, -2e-3, 5e-4], abs=1e-4)


def test_the_opposite_sense_turns_the_axis_round_and_keeps_the_frequency_positive():
    t, B = rotating(-8.0, (0, 0, 1))
    (s,) = rotating_summary(t, B)
    assert s.frequency == pytest.approx(8.0, rel=1e-3) and s.axis == pytest.approx([0, 0, -1], abs=1e-9)


def test_an_elliptical_field_gives_the_ratio_of_its_axes_and_its_range_of_magnitude():
    t, B = rotating(5.0, (0, 1, 0), major=2e-2, minor=5e-3)
    (s,) = rotating_summary(t, B)
    assert s.ellipticity == pytest.approx(0.25, abs=5e-3)
    # the smallest and largest sample: 1 ms steps of a 5 Hz turn come within 0.2 % of the ellipse's axes
    assert (s.B_min, s.B_max) == (pytest.approx(5e-3, rel=3e-3), pytest.approx(2e-2, rel=1e-4))
    assert s.frequency == pytest.approx(5.0, rel=1e-3)


def test_a_field_along_a_line_has_no_ellipticity():
    t, B = rotating(5.0, (0, 0, 1), minor=0.0)
    (s,) = rotating_summary(t, B)
    assert s.ellipticity == pytest.approx(0.0, abs=1e-9) and s.frequency == pytest.approx(5.0, rel=1e-3)


def test_a_steady_field_has_no_frequency_and_no_axis():
    t = np.arange(1, 101) * 0.01
    B = np.tile([[1e-3, 2e-3, -3e-3]], (100, 1))[:, None, :] * (1 + 1e-15 * np.sin(t))[:, None, None]
    (s,) = rotating_summary(t, B)
    assert s.frequency == 0.0 and np.all(np.isnan(s.axis)) and math.isnan(s.ellipticity)
    assert s.B_min == pytest.approx(s.B_max)


@pytest.mark.parametrize("steps", [0, 1, 2])
def test_too_short_a_record_gives_what_it_can(steps):
    t, B = rotating(5.0, (0, 0, 1), steps=max(steps, 1))
    t, B = t[:steps], B[:steps]
    (s,) = rotating_summary(t, B) if steps else rotating_summary(t, np.zeros((0, 1, 3)))
    assert math.isnan(s.frequency) and np.all(np.isnan(s.axis))
    if steps:
        assert s.B_min == pytest.approx(np.linalg.norm(B[:, 0], axis=1).min())
    else:
        assert math.isnan(s.B_min)


def test_one_summary_per_probe_in_order():
    t, a = rotating(3.0, (0, 0, 1))
    _, b = rotating(7.0, (1, 0, 0))
    summaries = rotating_summary(t, np.concatenate([a, b], axis=1))
    assert [round(s.frequency, 2) for s in summaries] == [3.0, 7.0]
