"""Dynamics on a moving base against Pinocchio's free-flyer model of the same robot, and payload welding."""

from __future__ import annotations

import numpy as np
import pytest
from robot_data import robots_dir

from mime_gui.multibody import inverse_dynamics, mass_matrix
from mime_gui.multibody.moving_base import (
    bias_on_moving_base,
    dynamics_on_moving_base,
    inverse_dynamics_on_moving_base,
    rigid_mass_properties,
    with_payload,
)
from mime_gui.multibody.spatial import quaternion_to_matrix

from .engine_robots import ROBOT_FILES, PinTwin, load_articulation

pin = pytest.importorskip("pinocchio")


@pytest.fixture(scope="module", params=["ur5", "panda"])
def free(request):
    """Our articulation, and Pinocchio's model of the URDF on a free-flyer root."""
    bare = load_articulation(request.param)
    art = bare.with_armature(np.linspace(0.01, 0.2, bare.nq))
    twin = PinTwin(request.param, art)
    model = pin.buildModelFromUrdf(str(robots_dir() / ROBOT_FILES[request.param]), pin.JointModelFreeFlyer())
    model.armature = np.concatenate([np.zeros(6), twin.v(np.asarray(art.armature))])
    return art, twin, model


def _base(rng):
    w = rng.normal(size=4)
    w /= np.linalg.norm(w)
    return rng.normal(size=3), w, rng.normal(size=3), rng.normal(size=3), rng.normal(size=3), \
        rng.normal(size=3)


def test_inverse_and_forward_dynamics_on_a_moving_base_equal_pinocchio_free_flyer(free):
    art, twin, model = free
    data = model.createData()
    rng = np.random.default_rng(1)
    g = np.array([0.0, 0.0, -9.81])
    for _ in range(5):
        p, wxyz, omega, vel, domega, acc = _base(rng)
        q, v, vdot = rng.uniform(-1, 1, (3, art.nq))
        R = quaternion_to_matrix(wxyz)
        # pin: q = [p, quaternion x y z w, joints]; v and a are [linear; angular] in the base's axes
        pq = np.concatenate([p, [wxyz[1], wxyz[2], wxyz[3], wxyz[0]], twin.q(q)[:]])
        pv = np.concatenate([vel, omega, twin.v(v)])
        pa = np.concatenate([acc, domega, twin.v(vdot)])
        ref = pin.rnea(model, data, pq, pv, pa)
        ours = inverse_dynamics_on_moving_base(art, q, v, vdot, np.concatenate([omega, vel]),
                                               np.concatenate([domega, acc]), R.T @ g)
        np.testing.assert_allclose(ours, twin.from_v(ref[6:]), rtol=1e-9, atol=1e-9)
        # forward: with the base's acceleration prescribed, the joints' share of the mass matrix solves it
        tau = twin.from_v(ref[6:])
        back = dynamics_on_moving_base(art, q, v, tau, np.concatenate([omega, vel]),
                                       np.concatenate([domega, acc]), R.T @ g)
        np.testing.assert_allclose(back, vdot, rtol=1e-8, atol=1e-9)


def test_a_base_at_rest_is_the_fixed_base_inverse_dynamics():
    art = load_articulation("panda")
    rng = np.random.default_rng(2)
    q, v, vdot = rng.normal(size=(3, 7, art.nq))
    np.testing.assert_allclose(inverse_dynamics_on_moving_base(art, q, v, vdot),
                               inverse_dynamics(art, q, v, vdot), atol=1e-10)
    # a base accelerating upwards at a is gravity g - a
    a = np.array([0.0, 0.0, 0.0, 0.3, -0.2, 1.5])
    np.testing.assert_allclose(inverse_dynamics_on_moving_base(art, q, v, vdot, base_acceleration=a),
                               inverse_dynamics(art, q, v, vdot, gravity=(-0.3, 0.2, -11.31)), atol=1e-10)


def test_with_payload_equals_the_body_and_the_payload_summed():
    art = load_articulation("ur5")
    q = np.random.default_rng(3).uniform(-1, 1, art.nq)
    com = np.array([0.01, -0.02, 0.05])
    inertia = np.array([[2e-3, 1e-4, 0.0], [1e-4, 3e-3, 0.0], [0.0, 0.0, 1e-3]])
    heavy = with_payload(art, art.nbodies - 1, 1.5, com, inertia)
    assert heavy.mass_of_body[-1] == pytest.approx(art.mass_of_body[-1] + 1.5)
    twin = PinTwin("ur5", art)
    body = twin.model.frames[twin.fid[art.frame_index(art.body_names[-1])]]
    X = body.placement
    twin.model.appendBodyToJoint(body.parentJoint, pin.Inertia(1.5, com, inertia), X)
    M = pin.crba(twin.model, twin.model.createData(), twin.q(q))
    M = np.triu(M) + np.triu(M, 1).T
    np.testing.assert_allclose(mass_matrix(heavy, q), twin.matrix(M), rtol=1e-10, atol=1e-12)
    with pytest.raises(IndexError):
        with_payload(art, art.nbodies, 1.0, com, inertia)


def test_rigid_mass_properties_of_two_points_and_of_nothing():
    poses = np.stack([np.eye(4), np.eye(4)])
    poses[1, :3, 3] = (1.0, 0.0, 0.0)
    m, c, inertia = rigid_mass_properties([1.0, 3.0], np.zeros((2, 3)), np.zeros((2, 3, 3)), poses)
    assert m == 4.0
    np.testing.assert_allclose(c, (0.75, 0.0, 0.0))
    np.testing.assert_allclose(inertia, np.diag([0.0, 0.75, 0.75]))  # 1·0.75² + 3·0.25²
    assert rigid_mass_properties([], np.zeros((0, 3)), np.zeros((0, 3, 3)), np.zeros((0, 4, 4)))[0] == 0.0


def test_the_bias_on_a_moving_base_is_pinocchio_s_rnea_at_zero_joint_acceleration(free):
    art, twin, model = free
    data = model.createData()
    rng = np.random.default_rng(4)
    g = np.array([0.0, 0.0, -9.81])
    p, wxyz, omega, vel, domega, acc = _base(rng)
    q, v = rng.uniform(-1, 1, (2, art.nq))
    R = quaternion_to_matrix(wxyz)
    pq = np.concatenate([p, [wxyz[1], wxyz[2], wxyz[3], wxyz[0]], twin.q(q)[:]])
    pv = np.concatenate([vel, omega, twin.v(v)])
    pa = np.concatenate([acc, domega, np.zeros(model.nv - 6)])
    ref = twin.from_v(pin.rnea(model, data, pq, pv, pa)[6:])
    # the base's spin and velocity enter the bias (Coriolis and centrifugal terms of the base's twist)
    twist, acceleration = np.concatenate([omega, vel]), np.concatenate([domega, acc])
    ours = bias_on_moving_base(art, q, v, twist, acceleration, R.T @ g)
    np.testing.assert_allclose(ours, ref, rtol=1e-9, atol=1e-9)
