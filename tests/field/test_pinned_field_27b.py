"""Edges of three field checks:

- ``turning``: the field at a sample turns only where its direction changes by *more than* ``TURNING``
  between neighbouring steps; a turn of exactly ``TURNING`` stands still at both steps it joins.
- ``rotating_summary``: an empty record gives NaN everywhere, its mean a NaN 3-vector like any other mean;
  and the summary is scale-free: a rotation of a few femtotesla is a rotation (``STEADY`` is a fraction of
  the field's own size, not of a tesla).
- ``zone_findings``: a magnet whose bounding sphere just touches a zone cannot be cleared by the far-field
  bound (it is infinite at ``r = a``), so the step is sampled and the field there, over the limit, is named.
"""

from __future__ import annotations

import math

import magpylib as magpy
import numpy as np
from field_helpers import BR, magnet, motor_rig, spin

from mime_gui.field import rotating_summary
from mime_gui.field.forces import bounding_radius
from mime_gui.field.sources import magnet_sources
from mime_gui.field.step_out import TURNING, turning
from mime_gui.field.zones import surface_points, zone_findings
from mime_gui.rig import Box, Zone

# -- turning -------------------------------------------------------------------------------------------------


def test_a_turn_of_exactly_turning_stands_still_at_both_steps_it_joins():
    # (1, TURNING, 0) has norm 1 in floating point, and the angle from (1, 0, 0) by atan2 is TURNING exactly
    B = np.array([[[1.0, 0.0, 0.0]], [[1.0, TURNING, 0.0]]])
    d = B[1, 0] / np.linalg.norm(B[1, 0])
    assert math.atan2(np.linalg.norm(np.cross(d, B[0, 0])), d @ B[0, 0]) == TURNING
    assert turning(B).tolist() == [[False], [False]]
    # a turn of twice as much is more than TURNING: both steps it joins turn
    B[1, 0, 1] = 2 * TURNING
    assert turning(B).tolist() == [[True], [True]]


def test_a_turn_of_exactly_turning_in_the_middle_of_a_record_turns_no_step():
    B = np.array([[[0.0, 1.0, 0.0]], [[0.0, 1.0, 0.0]], [[0.0, 1.0, TURNING]], [[0.0, 1.0, TURNING]]])
    assert not turning(B).any()


# -- rotating_summary ----------------------------------------------------------------------------------------


def test_an_empty_record_gives_nan_everywhere_and_a_nan_mean_of_three_components():
    (summary,) = rotating_summary(np.zeros(0), np.zeros((0, 1, 3)))
    assert math.isnan(summary.frequency) and math.isnan(summary.ellipticity)
    assert math.isnan(summary.B_min) and math.isnan(summary.B_max)
    for vector in (summary.axis, summary.mean):
        assert isinstance(vector, np.ndarray) and vector.shape == (3,) and np.isnan(vector).all()
    assert summary.describe() == "nan Hz about none, |B| nan to nan T, ellipticity none"


def test_the_summary_of_a_rotation_of_a_few_femtotesla_is_the_summary_of_a_large_one():
    """STEADY is a fraction of the field's own largest |B|: scaling the field by a power of two (exact in
    floating point) scales |B| and leaves frequency, axis and ellipticity as they were."""
    dt, steps, f = 1e-3, 500, 7.0
    t = dt * np.arange(1, steps + 1)
    angle = 2 * math.pi * f * t + 0.3
    B = np.stack([np.cos(angle), np.sin(angle), np.zeros(steps)], axis=1)[:, None, :]
    large = rotating_summary(t, 1e-2 * B)[0]
    small_scale = 2.0**-40  # about 1e-12: a field of 9 fT against 10 mT
    small = rotating_summary(t, 1e-2 * small_scale * B)[0]
    assert abs(large.frequency - f) <= 1e-6 * f
    assert small.frequency == large.frequency
    np.testing.assert_allclose(small.axis, [0.0, 0.0, 1.0], atol=1e-12)
    assert abs(small.ellipticity - 1.0) <= 1e-9
    assert small.B_max == large.B_max * small_scale and small.B_min == large.B_min * small_scale


# -- zone_findings -------------------------------------------------------------------------------------------


SIZE = (2.0**-6, 2.0**-5, 2.0**-5)  # the magnet's box: its bounding radius 3/128 m, exact in binary
RADIUS = 3 / 128
HALF = 0.25  # the zone's half size: a 50 cm cube at the origin


def test_a_magnet_whose_bounding_sphere_just_touches_a_zone_is_sampled_and_its_field_named():
    """The magnet's centre is RADIUS from the zone's face (every figure exact in binary): the bound
    ``μ0/4π · 2|m|/(r − a)³`` is infinite there, so the step is sampled and the worst |B| is the field on
    the zone's surface points, computed here by Magpylib: over the 1 mT limit, a breach."""
    x = HALF + RADIUS
    rig = motor_rig({"m": magnet(Box(SIZE), (1.0, 0.0, 0.0), at=(x, 0.0, 0.0))}, {})
    rig.zones = {"coil": Zone((0.0, 0.0, 0.0), box=(2 * HALF,) * 3, limit=1e-3, reason="a coil")}
    assert rig.validate() == []
    built = rig.build()
    (source,) = magnet_sources(built)
    assert bounding_radius(source) == RADIUS and x - HALF == RADIUS  # the bounding sphere touches the zone
    check = zone_findings(built, spin(built, 1.0, 3, 0.01))
    assert check.sampled[:, 0].all()
    # the test's own field: the magnet standing at x, by Magpylib, on the zone's surface grid
    cuboid = magpy.magnet.Cuboid(dimension=SIZE, polarization=(BR, 0.0, 0.0), position=(x, 0.0, 0.0))
    worst = np.linalg.norm(cuboid.getB(surface_points(rig.zones["coil"])), axis=1).max()
    assert 1e-3 < worst < 1e-1
    np.testing.assert_allclose(check.worst[:, 0], worst, rtol=1e-9)
    assert check.breach[:, 0].all()
    assert [f.where for f in check.findings] == ["zones.coil"]
    assert f"worst {worst * 1e3:.4g} mT" in check.findings[0].message
