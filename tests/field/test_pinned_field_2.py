"""The words of a plan bound by the field's window, and the step-out check of a played trajectory of no
steps."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from mime_gui.field.planner import describe_binding
from mime_gui.field.step_out import step_out
from mime_gui.field.summary import rotating_summary


def test_a_plan_bound_by_the_window_names_both_ends_of_the_field_reached_in_millitesla():
    """The nearest candidate reaches 1.5 mT to 2.5 mT (0.0015 T and 0.0025 T, each times 1000) where 4 to 6
    mT were asked: both ends are written in mT, the upper one too."""
    target = SimpleNamespace(low=0.004, high=0.006, tolerance=math.radians(5.0), ellipticity=0.9,
                             max_gradient=None, max_force=None)
    nearest = SimpleNamespace(B_min=0.0015, B_max=0.0025, angle=0.0, margin=-1.0, ellipticity=1.0,
                              gradient=0.0, force=0.0)
    plan = SimpleNamespace(target=target, nearest=nearest, ends=[nearest], binding="window")
    assert describe_binding(plan) == "|B| reaches 1.5 to 2.5 mT where the window is 4 to 6 mT"


def test_the_step_out_of_a_trajectory_of_no_steps_has_nothing_behind():
    """No steps and no samples: empty tables of shape (0, 0) and no finding, not an error."""
    forces = SimpleNamespace(time=np.zeros(0), sample_names=(), moment=np.zeros((0, 0, 3)),
                             B=np.zeros((0, 0, 3)))
    built = SimpleNamespace(apparatus=SimpleNamespace(samples={}))
    out = step_out(built, SimpleNamespace(dt=0.01), forces=forces)
    assert out.findings == []
    assert np.shape(out.behind) == (0, 0) and np.shape(out.needed) == (0, 0)


def test_the_frequency_of_a_field_seen_six_times_is_found_between_the_spectrum_bins():
    """Six steps of 10 ms of a 1 mT field turning at 13.58 Hz in the xy plane: its spectrum's peak lies
    between the padded bins, and the parabola through the three largest must put the search around it; the
    circle fitted there turns at 13.58 Hz (the field was made so)."""
    f, dt = 13.58, 0.01
    time = dt * np.arange(6)
    w = 2 * math.pi * f * time
    B = 1e-3 * np.stack([np.cos(w), np.sin(w), np.zeros_like(w)], axis=-1)
    found = rotating_summary(time, B[:, None, :])[0]
    assert found.frequency == pytest.approx(f, abs=1e-6)
