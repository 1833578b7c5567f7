"""The field plane square to a normal that is not along an axis, and the summary line of one probe."""

from __future__ import annotations

import math

import numpy as np
import pytest
from field_helpers import magnet, motor_rig

from mime_gui.field import field_plane, rest_poses
from mime_gui.field.summary import RotatingField
from mime_gui.rig import Cylinder


@pytest.mark.parametrize("normal", [(1.0, 1.0, 1.0), (0.2, -0.3, 0.9), (0.95, 0.1, 0.0), (1.0, 0.0, 1.0)],
                         ids=["diagonal", "tilted", "near-x", "half-way-from-x-to-z"])
def test_a_plane_on_a_slanted_normal_is_a_square_of_the_side_asked_for(normal):
    built = motor_rig({"m": magnet(Cylinder(0.005, 0.01))}, {}).build()
    size, n, centre = 0.04, 5, np.array([0.01, -0.02, 0.03])
    plane = field_plane(built, rest_poses(built), centre, normal=normal, size=size, n=n)
    unit = np.asarray(normal) / np.linalg.norm(normal)
    p = plane.points
    across, down = p[1, 0] - p[0, 0], p[0, 1] - p[0, 0]
    # a square grid of side `size` in the plane through `centre` square to `normal`, by hand
    assert np.linalg.norm(across) == pytest.approx(size / (n - 1), rel=1e-12)
    assert np.linalg.norm(down) == pytest.approx(size / (n - 1), rel=1e-12)
    assert abs(across @ down) < 1e-15
    np.testing.assert_allclose((p - centre) @ unit, 0.0, atol=1e-15)
    np.testing.assert_allclose(p[n // 2, n // 2], centre, atol=1e-15)
    assert np.linalg.norm(p[-1, -1] - p[0, 0]) == pytest.approx(size * math.sqrt(2), rel=1e-12)


def test_a_plane_on_a_single_precision_normal_is_square_to_it_to_double_precision():
    """A normal handed over in float32 (as VTK and PyVista keep their vectors): the plane is square to the
    very vector given, worked in double precision, not to a unit vector rounded to single precision."""
    built = motor_rig({"m": magnet(Cylinder(0.005, 0.01))}, {}).build()
    given = np.array([0.2, -0.3, 0.9], dtype=np.float32)
    centre = np.array([0.01, -0.02, 0.03])
    plane = field_plane(built, rest_poses(built), centre, normal=given, size=0.04, n=5)
    unit = given.astype(np.float64) / math.sqrt(sum(float(c) ** 2 for c in given))  # by hand, in doubles
    # a float32 unit normal tilts the plane by about 1e-8 rad: 2e-10 m off the plane at its corners
    np.testing.assert_allclose((plane.points - centre) @ unit, 0.0, atol=1e-15)


def test_a_probe_s_summary_line_names_its_axis_and_none_when_the_field_does_not_turn():
    turning = RotatingField(frequency=2.5, axis=np.array([0.0, -0.6, 0.8]), B_min=0.0125, B_max=0.05,
                            ellipticity=0.25, mean=np.zeros(3))
    assert turning.describe() == ("2.5 Hz about (+0.000, -0.600, +0.800), |B| 0.0125 to 0.05 T, "
                                  "ellipticity 0.250")
    still = RotatingField(frequency=0.0, axis=np.full(3, np.nan), B_min=0.01, B_max=0.01,
                          ellipticity=math.nan, mean=np.array([0.0, 0.0, 0.01]))
    assert still.describe() == "0 Hz about none, |B| 0.01 to 0.01 T, ellipticity none"
