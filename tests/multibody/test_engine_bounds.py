"""Where the engine's loops and inputs stop: the inverse kinematics' iteration cap and a point that is no
numbers."""

from __future__ import annotations

import numpy as np
import pytest

import mime_gui.multibody as mb
from mime_gui import RESOURCES
from mime_gui.multibody import inverse_kinematics as ik

DEMO_URDF = RESOURCES / "demo" / "arm.urdf"


@pytest.fixture(scope="module")
def art():
    return mb.read_urdf(DEMO_URDF).compile()


@pytest.mark.parametrize("cap", [1, 2, 5])
def test_the_solver_stops_after_max_iterations_and_says_how_many_it_made(art, cap):
    answer = np.array([0.9, -0.6, 1.1, 0.4, -0.8, 0.5])
    frame = art.frame_names[-1]
    target = mb.frame_poses(art, answer)[art.frame_index(frame)]
    start = np.zeros(art.nq)
    capped = ik.solve(art, start, frame, target, max_iterations=cap)
    assert not capped.converged and capped.iterations == cap
    free = ik.solve(art, start, frame, target)
    assert free.converged and cap < free.iterations <= 200


def test_a_point_that_is_no_numbers_is_refused_as_such(art):
    q = np.zeros(art.nq)
    for point in (("a", "b", "c"), ("0.1", "x", "0")):
        with pytest.raises(ValueError, match=r"^point must be a 3-vector of numbers"):
            mb.point_jacobian(art, q, art.frame_names[-1], point=point)
    # text that reads as numbers is the numbers it reads as
    np.testing.assert_array_equal(mb.point_jacobian(art, q, art.frame_names[-1], point=("0.1", "0", "0")),
                                  mb.point_jacobian(art, q, art.frame_names[-1], point=(0.1, 0.0, 0.0)))
