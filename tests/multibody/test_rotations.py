"""``quaternion_of`` and ``rpy_of``: exact at half-turns, exact at gimbal lock, and in agreement with SciPy.

Half-turns and the 24 rotations of a cube are built from integers (exact); rotations near gimbal lock are
built from elementary rotations and checked by rebuilding the matrix, since roll and yaw are not unique there.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from mime_gui.multibody.spatial import GIMBAL_LOCK, quaternion_of, quaternion_to_matrix, rpy_of

RNG = np.random.default_rng(20240611)


def rx(a):
    return np.array([[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]])


def ry(a):
    return np.array([[math.cos(a), 0, math.sin(a)], [0, 1, 0], [-math.sin(a), 0, math.cos(a)]])


def rz(a):
    return np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])


def urdf_rpy(roll, pitch, yaw):
    return rz(yaw) @ ry(pitch) @ rx(roll)


def same_rotation(q, p, tol=1e-15):
    return min(np.abs(q - p).max(), np.abs(q + p).max()) <= tol


# Every half-turn axis of a cube (faces, edges, corners) with both signs, and random ones.
CUBE_AXES = [np.array(a, float) for a in itertools.product((-1, 0, 1), repeat=3) if any(a)]
RANDOM_AXES = [v / np.linalg.norm(v) for v in RNG.normal(size=(40, 3))]


def half_turn(axis):
    n = axis / np.linalg.norm(axis)
    return 2 * np.outer(n, n) - np.eye(3)  # a turn of π about n


def cube_rotations():
    for perm in itertools.permutations(range(3)):
        for signs in itertools.product((-1, 1), repeat=3):
            R = np.zeros((3, 3))
            R[range(3), perm] = signs
            if np.linalg.det(R) > 0:
                yield R


@pytest.mark.parametrize("axis", CUBE_AXES, ids=lambda a: "".join("-0+"[int(c) + 1] for c in a))
def test_quaternion_of_a_half_turn_is_its_axis(axis):
    n = axis / np.linalg.norm(axis)
    q = quaternion_of(half_turn(axis))
    assert q[0] == 0.0
    assert same_rotation(q[1:], n, 4e-16)
    assert q[1:][np.flatnonzero(q[1:])[0]] > 0  # the sign is fixed at a half-turn too


def test_a_half_turn_about_a_mixed_sign_axis_keeps_its_signs():
    """The copysign formula answers (1, 1, 0)/√2 for this turn about (1, -1, 0)/√2: the signs are lost."""
    R = np.array([[0.0, -1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, -1.0]])
    assert np.abs(quaternion_of(R) - np.array([0.0, 1.0, -1.0, 0.0]) / math.sqrt(2)).max() < 2e-16


@pytest.mark.parametrize("axis", CUBE_AXES + RANDOM_AXES)
def test_half_turns_agree_with_scipy_and_round_trip(axis):
    R = half_turn(axis)
    q = quaternion_of(R)
    x, y, z, w = Rotation.from_matrix(R).as_quat()
    assert same_rotation(q, np.array([w, x, y, z]), 1e-15)
    assert np.abs(quaternion_to_matrix(q) - R).max() < 1e-15


def test_the_cube_group_round_trips_exactly_enough():
    rotations = list(cube_rotations())
    assert len(rotations) == 24
    for R in rotations:
        q = quaternion_of(R)
        assert q[0] >= 0 and abs(np.linalg.norm(q) - 1) < 1e-15
        assert np.abs(quaternion_to_matrix(q) - R).max() < 1e-15


def test_random_rotations_agree_with_scipy():
    for R in Rotation.random(500, random_state=7).as_matrix():
        q = quaternion_of(R)
        x, y, z, w = Rotation.from_matrix(R).as_quat()
        assert q[0] >= 0
        assert same_rotation(q, np.array([w, x, y, z]), 1e-14)
        assert np.abs(quaternion_to_matrix(q) - R).max() < 1e-14


@pytest.mark.parametrize("angle", [1e-300, 1e-12, 1e-6, 0.5, math.pi / 2, 3.0, math.pi - 1e-9])
@pytest.mark.parametrize("axis", range(3))
def test_quaternions_of_turns_about_each_axis(axis, angle):
    R = (rx, ry, rz)[axis](angle)
    expected = np.zeros(4)
    expected[0], expected[1 + axis] = math.cos(angle / 2), math.sin(angle / 2)
    assert np.abs(quaternion_of(R) - expected).max() < 4e-16


def test_the_identity_is_the_unit_quaternion():
    assert np.array_equal(quaternion_of(np.eye(3)), [1.0, 0.0, 0.0, 0.0])


@pytest.mark.parametrize("bad", [np.eye(4), np.zeros(3), [[1, 0], [0, 1]]])
def test_a_matrix_of_the_wrong_shape_is_refused(bad):
    for f in (quaternion_of, rpy_of):
        with pytest.raises(ValueError, match=r"\(3, 3\) rotation matrix"):
            f(bad)


# -- roll, pitch, yaw ------------------------------------------------------------------------------------

def test_rpy_returns_the_angles_it_was_built_from_away_from_gimbal_lock():
    for _ in range(500):
        roll, yaw = RNG.uniform(-math.pi, math.pi, 2)
        pitch = RNG.uniform(-1.5, 1.5)
        assert np.abs(rpy_of(urdf_rpy(roll, pitch, yaw)) - [roll, pitch, yaw]).max() < 1e-13


def test_rpy_agrees_with_scipy():
    for R in Rotation.random(500, random_state=11).as_matrix():
        rpy = rpy_of(R)
        assert np.abs(rpy - Rotation.from_matrix(R).as_euler("xyz")).max() < 1e-12
        assert -math.pi / 2 <= rpy[1] <= math.pi / 2
        assert np.all(np.abs(rpy) <= math.pi)


@pytest.mark.parametrize("sign", [1, -1])
@pytest.mark.parametrize("k", range(1, 17))
def test_rpy_rebuilds_the_matrix_close_to_gimbal_lock(sign, k):
    """cos(pitch) = 10^-k: roll and yaw are ill-determined, but the three angles rebuild the matrix."""
    for _ in range(50):
        roll, yaw = RNG.uniform(-math.pi, math.pi, 2)
        pitch = sign * (math.pi / 2 - 10.0**-k)
        R = urdf_rpy(roll, pitch, yaw)
        rpy = rpy_of(R)
        assert np.abs(urdf_rpy(*rpy) - R).max() < 1e-15 + math.pi * GIMBAL_LOCK
        assert abs(rpy[1] - pitch) < 1e-15


@pytest.mark.parametrize("sign", [1, -1])
def test_rpy_at_exact_gimbal_lock_puts_the_turn_in_yaw(sign):
    """At pitch ±π/2 only yaw ∓ roll is defined: roll is 0 and yaw carries it."""
    for _ in range(50):
        roll, yaw = RNG.uniform(-math.pi / 2, math.pi / 2, 2)
        R = rz(yaw) @ np.array([[0.0, 0, sign], [0, 1, 0], [-sign, 0, 0]]) @ rx(roll)
        r, p, y = rpy_of(R)
        assert r == 0.0 and p == sign * math.pi / 2
        assert abs(y - (yaw - sign * roll)) < 1e-15 * 8
        assert np.abs(urdf_rpy(r, p, y) - R).max() < 1e-15 * 4


@pytest.mark.parametrize("R, expected", [
    (np.diag([1.0, -1.0, -1.0]), (math.pi, 0.0, 0.0)),
    (np.diag([-1.0, -1.0, 1.0]), (0.0, 0.0, math.pi)),
    (np.diag([-1.0, 1.0, -1.0]), (math.pi, 0.0, math.pi)),
])
def test_rpy_of_half_turns_about_the_axes(R, expected):
    rpy = rpy_of(R)
    assert np.allclose(rpy, expected, atol=1e-15, rtol=0)
    assert np.abs(urdf_rpy(*rpy) - R).max() < 1e-15
