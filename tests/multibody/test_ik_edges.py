"""Edges of the inverse kinematics the robots never meet: starts and targets that are not numbers, a start of
solve_frame that is not finite, limits and Jacobians laid out otherwise than the compiled code takes them, the
rotation vector near a half turn (its direction against Rodrigues' formula, its length against Pinocchio's
log3: a known bug, marked), a singular step with no damping, and a start where the Jacobian vanishes, left by
probing one unknown at a time."""

from __future__ import annotations

import math

import numpy as np
import pytest
from robot_data import robot_urdf

import mime_gui.multibody as mb
from mime_gui.multibody import inverse_kinematics as ik

from .frame_functions import Slide

UR5 = "ur_description/urdf/ur5_robot.urdf"


@pytest.fixture(scope="module")
def ur5():
    return mb.read_urdf(robot_urdf(UR5)).compile()


# -- refusals ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("start", [["a"] * 6, [[0.0, 1.0]] * 5 + [0.0]], ids=["text", "ragged"])
def test_a_start_that_is_not_numbers_is_refused_with_what_it_was(ur5, start):
    with pytest.raises(ik.IKError) as info:
        ik.solve(ur5, start, "tool0", np.eye(4))
    assert info.value.code == "ik.start"
    assert info.value.message.startswith("the start must be 6 finite joint positions of 'ur5' "
                                         "(shoulder_pan_joint, ")
    assert info.value.message.endswith(f", got {start}")


@pytest.mark.parametrize("target", ["over there", [[1.0, 0.0], [0.0]]], ids=["text", "ragged"])
def test_a_target_that_is_not_numbers_is_refused_with_what_it_was(ur5, target):
    for orientation, want in ((True, "a finite (4, 4) transform world_X_target"),
                              (False, "a finite (4, 4) transform world_X_target or a 3-vector")):
        with pytest.raises(ik.IKError) as info:
            ik.solve(ur5, np.zeros(6), "tool0", target, orientation=orientation)
        assert info.value.code == "ik.target"
        assert info.value.message == f"the target must be {want}, got {target}"


def _not_a_pose(kind):
    X = np.eye(4)
    if kind == "reflection":
        X[2, 2] = -1.0  # orthonormal, determinant -1
    elif kind == "scaled":
        X[:3, :3] *= 2.0  # determinant +8, columns of length 2
    else:
        X[3] = [0.1, 0.0, 0.0, 1.0]  # a rotation, but not the last row of a rigid transform
    return X


@pytest.mark.parametrize("kind", ["reflection", "scaled", "last_row"])
def test_a_target_that_is_not_a_rigid_transform_is_refused_saying_what_a_pose_needs(ur5, kind):
    with pytest.raises(ik.IKError) as info:
        ik.solve(ur5, np.zeros(6), "tool0", _not_a_pose(kind))
    assert info.value.code == "ik.target"
    message = info.value.message
    for words in ("target's rotation", "orthonormal", "determinant +1", "last row (0, 0, 0, 1)"):
        assert words in message, words


@pytest.mark.parametrize("start, got", [([0.0, np.nan, 0.0], "non-finite values"),
                                        ([0.0, 0.0, np.inf], "non-finite values"),
                                        (np.zeros((3, 1)), "(3, 1)"), ([0.1], "(1,)")],
                         ids=["nan", "inf", "column", "one value"])
def test_a_start_of_solve_frame_that_is_not_finite_values_is_refused_naming_the_unknowns(start, got):
    with pytest.raises(ik.IKError) as info:
        ik.solve_frame(Slide(), start, [0.1, 0.2, 0.3], orientation=False)
    assert info.value.code == "ik.start"
    assert info.value.message == f"the start must be 3 finite values (x, y, z), got {got}"


# -- layouts the compiled code does not take as they are ---------------------------------------------------
class _Bounded:
    """A frame slid along x, y and z within [-1, 2] each; the Jacobian and the limits laid out otherwise
    (``odd``: limits as lists of ints, the Jacobian Fortran-ordered and of ints)."""

    names = ("x", "y", "z")

    def __init__(self, odd: bool):
        self.odd = odd
        self.lower = [-1, -1, -1] if odd else np.full(3, -1.0)
        self.upper = [2, 2, 2] if odd else np.full(3, 2.0)

    def evaluate(self, x):
        pose = np.eye(4)
        pose[:3, 3] = x
        J = np.zeros((6, 3), dtype=int if self.odd else float)
        J[3:, :] = np.eye(3, dtype=int)
        return pose, (np.asfortranarray(J) if self.odd else J)

    def positions(self, x):
        return np.array(x, dtype=float)


def test_limits_and_jacobians_of_any_layout_give_the_same_answer():
    target = [0.5, 3.0, -0.25]  # y beyond its upper limit of 2
    plain = ik.solve_frame(_Bounded(False), [0.0, 0.0, 0.0], target, orientation=False)
    odd = ik.solve_frame(_Bounded(True), [0.0, 0.0, 0.0], target, orientation=False)
    assert np.array_equal(odd.x, plain.x) and odd.iterations == plain.iterations
    np.testing.assert_allclose(odd.x, [0.5, 2.0, -0.25], atol=1e-12)
    assert odd.at_upper == ("y",) and odd.at_lower == () and not odd.converged
    assert odd.position_error == pytest.approx(1.0, abs=1e-12)


# -- the rotation vector near a half turn ------------------------------------------------------------------
def _rodrigues(axis, angle):
    k = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(angle) * K + (1 - math.cos(angle)) * K @ K


AXES = [(1, 0, 0), (0, -1, 0), (0, 0, 1), (1, 2, -2), (-3, 1, 0.5), (0.2, -0.1, -4)]


@pytest.mark.parametrize("angle", [3.0, 3.1, math.pi - 1e-6, math.pi])
def test_the_rotation_vector_near_a_half_turn_points_along_the_axis(angle):
    """From 3 rad on the axis is read from the symmetric part; its sign is the antisymmetric part's (either
    at an exact half turn), for axes whose largest component is negative too."""
    for axis in AXES:
        k = np.array(axis, dtype=float) / np.linalg.norm(axis)
        w = np.array(ik._rotation_log(_rodrigues(k, angle)))
        direction = w / np.linalg.norm(w)
        if angle < math.pi:
            np.testing.assert_allclose(direction, k, atol=1e-9)
        else:
            assert min(np.abs(direction - k).max(), np.abs(direction + k).max()) < 1e-9


@pytest.mark.parametrize("angle", [2.999, 3.0, 3.1, math.pi - 1e-6])
def test_the_rotation_vector_near_a_half_turn_is_the_axis_times_the_angle(angle):
    """Either side of 3 rad (where the symmetric part gives the axis) and up to a half turn: θ·k, as
    Pinocchio's log3, from the numpy route and from the compiled kernel."""
    pin = pytest.importorskip("pinocchio")
    k = np.array([1.0, 2.0, -2.0]) / 3.0
    R = _rodrigues(k, angle)
    np.testing.assert_allclose(pin.log3(R), k * angle, atol=1e-6)  # the oracle agrees with the closed form
    np.testing.assert_allclose(ik._rotation_log(R), k * angle, atol=1e-6)
    target = np.eye(4)
    target[:3, :3] = R
    e6 = np.empty(6)
    _, _, reported = ik._kernels().ik_error(np.eye(4), target, 0, e6)
    np.testing.assert_allclose(e6[:3], k * angle, atol=1e-6)
    assert reported == pytest.approx(angle, abs=1e-6)


def test_the_error_near_a_half_turn_is_the_compiled_kernel_s():
    rng = np.random.default_rng(3)
    for _ in range(20):
        pose, target = np.eye(4), np.eye(4)
        pose[:3, :3] = _rodrigues(rng.normal(size=3), rng.uniform(0, 3))
        pose[:3, 3] = rng.normal(size=3)
        target[:3, :3] = _rodrigues(rng.normal(size=3), rng.uniform(3.0, math.pi)) @ pose[:3, :3]
        target[:3, 3] = rng.normal(size=3)
        e6 = np.empty(6)
        E, dist, angle = ik._kernels().ik_error(pose, target, 0, e6)
        np.testing.assert_allclose(ik._error(pose, target), e6, atol=1e-9)
        np.testing.assert_allclose(e6[3:], target[:3, 3] - pose[:3, 3], atol=1e-15)


# -- a singular step and a vanishing Jacobian ---------------------------------------------------------------
class _OneWay:
    """One unknown sliding the frame along world x: its 3×3 task matrix J Jᵀ has rank 1."""

    names = ("x",)
    lower = np.array([-np.inf])
    upper = np.array([np.inf])

    def evaluate(self, x):
        pose = np.eye(4)
        pose[0, 3] = x[0]
        J = np.zeros((6, 1))
        J[3, 0] = 1.0
        return pose, J

    def positions(self, x):
        return np.array(x, dtype=float)


def test_a_singular_step_with_no_damping_raises_as_numpy_s_solve():
    # at the target with a tolerance nothing meets: no error, so no damping, and J Jᵀ is singular
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        ik.solve_frame(_OneWay(), [0.3], [0.3, 0.0, 0.0], orientation=False, damping=0.0,
                       position_tolerance=-1.0)
    damped = ik.solve_frame(_OneWay(), [0.3], [0.3, 0.0, 0.0], orientation=False, damping=1e-9,
                            position_tolerance=-1.0, max_iterations=3)
    assert not damped.converged and damped.x.tolist() == [0.3]


class _Square:
    """The frame at x = u² along world x: at u = 0 the Jacobian 2u vanishes, so no step moves it."""

    names = ("u",)
    lower = np.array([-np.inf])
    upper = np.array([np.inf])

    def evaluate(self, x):
        pose = np.eye(4)
        pose[0, 3] = x[0] ** 2
        J = np.zeros((6, 1))
        J[3, 0] = 2.0 * x[0]
        return pose, J

    def positions(self, x):
        return np.array(x, dtype=float)


def test_a_start_where_the_jacobian_vanishes_is_left_by_probing_and_the_target_reached():
    iterates = []
    r = ik.solve_frame(_Square(), [0.0], [0.25, 0.0, 0.0], orientation=False, callback=iterates.append)
    assert r.converged and r.x[0] == pytest.approx(0.5, abs=1e-9)  # 0.5² = 0.25
    # the start, then the probe's move: +1e-2 lowers the error first (−1e-2 as much, not less)
    assert iterates[0].tolist() == [0.0] and iterates[1].tolist() == [0.01]
    assert r.position_error <= ik.POSITION_TOLERANCE


def test_a_probe_takes_the_move_that_lowers_the_error_most():
    # at u = 0 aiming at x = 1e-4: +1e-2 and −1e-2 give x = 1e-4 exactly; the later, smaller ±1e-4 moves
    # lower it less, so the probe's +1e-2 stands
    iterates = []
    ik.solve_frame(_Square(), [0.0], [1e-4, 0.0, 0.0], orientation=False, callback=iterates.append,
                   max_iterations=1)
    assert iterates[1].tolist() == [0.01]
    # aiming at x = 1e-8, the ±1e-4 moves land on it: the later, better move is taken
    iterates = []
    ik.solve_frame(_Square(), [0.0], [1e-8, 0.0, 0.0], orientation=False, callback=iterates.append,
                   max_iterations=1)
    assert iterates[1].tolist() == [1e-4]


PAIR = """<robot name="pair">
  <link name="base"/><link name="upper"/><link name="lower"/><link name="tip"/>
  <joint name="lead" type="revolute"><parent link="base"/><child link="upper"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="follow" type="revolute"><parent link="upper"/><child link="lower"/><origin xyz="1 0 0"/>
    <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="1" velocity="1"/>
    <mimic joint="lead" multiplier="2" offset="0.1"/></joint>
  <joint name="end" type="fixed"><parent link="lower"/><child link="tip"/><origin xyz="1 0 0"/></joint>
</robot>"""


def test_a_follower_of_the_first_joint_follows_it_in_the_answer():
    """A planar arm of two unit links whose second joint mimics the first (joint index 0): q1 = 2 q0 + 0.1,
    so the tip is at (cos q0 + cos(3 q0 + 0.1), sin q0 + sin(3 q0 + 0.1)); the answer holds the follower."""
    art = mb.read_urdf(PAIR).compile()
    assert art.joint_names == ("lead", "follow")
    lead = 0.4
    target = [math.cos(lead) + math.cos(3 * lead + 0.1), math.sin(lead) + math.sin(3 * lead + 0.1), 0.0]
    r = ik.solve(art, np.zeros(2), "tip", target, orientation=False)
    assert r.converged
    np.testing.assert_allclose(r.q, [lead, 2 * lead + 0.1], atol=1e-9)
