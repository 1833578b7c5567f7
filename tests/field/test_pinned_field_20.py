"""Field contracts, pinned: ``field_plane`` called without a size draws the 10 cm square of ``n = 100``
points a side that ``plane_side`` gives a rig without magnets, centred on the given point."""

from __future__ import annotations

import numpy as np
import pytest
from field_helpers import motor_rig

from mime_gui.field import field_plane, rest_poses
from mime_gui.field.plane import plane_side


def test_the_plane_without_a_size_is_the_ten_centimetre_square_of_a_magnetless_rig():
    built = motor_rig({}, {}).build()
    poses = rest_poses(built)
    centre = np.array([0.2, -0.1, 0.05])
    plane = field_plane(built, poses, centre)
    assert plane.points.shape == (100, 100, 3)
    # square to the default normal z: the grid spans 10 cm in x and in y, none in z, centred on the point
    span = np.ptp(plane.points.reshape(-1, 3), axis=0)
    np.testing.assert_allclose(span, [0.1, 0.1, 0.0], atol=1e-12)
    np.testing.assert_allclose(plane.points.reshape(-1, 3).mean(axis=0), centre, atol=1e-12)
    # the same side the app's sizing gives a rig without magnets
    assert plane_side(built, poses, centre) == pytest.approx(span.max(), abs=1e-12)
    # no magnet: no field anywhere on it
    assert not plane.magnitude.any()
