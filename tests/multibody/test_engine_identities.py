"""Physical identities the engine must satisfy, on real robots, at states drawn by hypothesis."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mime_gui.multibody as mb
from mime_gui.multibody import kinematics

from .engine_robots import load_articulation, random_state

IDENTITY_ROBOTS = ["panda", "pr2", "double_pendulum", "ur5"]
seeds = st.integers(min_value=0, max_value=2**32 - 1)
few = settings(max_examples=15, deadline=None)


def close(a, b, rtol=1e-9):
    a, b = np.asarray(a), np.asarray(b)
    scale = max(np.abs(b).max(), np.abs(a).max(), 1e-300)
    assert np.abs(a - b).max() <= rtol * scale, (np.abs(a - b).max(), scale)


@pytest.fixture(params=IDENTITY_ROBOTS, scope="module")
def art(request):
    return load_articulation(request.param)


@few
@given(seed=seeds)
def test_mass_matrix_is_symmetric_positive_definite_and_gives_kinetic_energy(art, seed):
    q, v, _ = random_state(art, np.random.default_rng(seed))
    M = mb.mass_matrix(art, q)
    assert np.array_equal(M, M.T)
    assert np.linalg.eigvalsh(M).min() > 0
    close(0.5 * v @ M @ v, mb.kinetic_energy(art, q, v))


@few
@given(seed=seeds)
def test_forward_dynamics_undoes_inverse_dynamics(art, seed):
    rng = np.random.default_rng(seed)
    q, v, vdot = random_state(art, rng)
    body = art.frame_names[rng.integers(art.nframes)]
    wrenches = {body: (rng.standard_normal(3), rng.standard_normal(3))}
    gravity = rng.standard_normal(3) * 5
    armed = art.with_armature(rng.uniform(0, 0.2, art.nq))
    for a in (art, armed):
        tau = mb.inverse_dynamics(a, q, v, vdot, external_wrenches=wrenches, gravity=gravity)
        back = mb.dynamics(a, q, v, tau, external_wrenches=wrenches, gravity=gravity)
        close(back, vdot, rtol=1e-8)
        # and the equation of motion holds term by term
        M = mb.mass_matrix(a, q)
        c = mb.dynamics_bias(a, q, v, external_wrenches=wrenches, gravity=gravity)
        close(M @ vdot + c, tau)


@few
@given(seed=seeds)
def test_bias_is_inverse_dynamics_at_zero_acceleration(art, seed):
    rng = np.random.default_rng(seed)
    q, v, _ = random_state(art, rng)
    armed = art.with_armature(rng.uniform(0, 0.2, art.nq))
    close(mb.dynamics_bias(armed, q, v), mb.inverse_dynamics(armed, q, v, np.zeros(art.nq)))
    # gravity alone: bias at rest equals the gravity torques, and flips with gravity
    g = mb.dynamics_bias(art, q, np.zeros(art.nq))
    close(mb.dynamics_bias(art, q, np.zeros(art.nq), gravity=(0, 0, 9.81)), -g)


def _twist_from_poses(X0, X1, X2, h):
    """World twist [w; v_o] from central differences of a pose: v_o = dp/dt - w x p."""
    dR = (X2[:3, :3] - X0[:3, :3]) / (2 * h)
    W = dR @ X1[:3, :3].T
    w = np.array([W[2, 1] - W[1, 2], W[0, 2] - W[2, 0], W[1, 0] - W[0, 1]]) / 2
    dp = (X2[:3, 3] - X0[:3, 3]) / (2 * h)
    return np.concatenate([w, dp - np.cross(w, X1[:3, 3])])


@settings(max_examples=8, deadline=None)
@given(seed=seeds)
def test_jacobians_are_finite_differences_of_frame_poses(art, seed):
    rng = np.random.default_rng(seed)
    q, _, _ = random_state(art, rng)
    f = int(rng.integers(art.nframes))
    name = art.frame_names[f]
    point = rng.standard_normal(3) * 0.1
    h = 1e-6
    J = mb.geometric_jacobian(art, q, name)
    Jp = mb.point_jacobian(art, q, name, point)
    X = mb.frame_poses(art, q)[f]
    for k in range(art.nq):
        e = np.zeros(art.nq)
        e[k] = h
        X0, X2 = mb.frame_poses(art, np.stack([q - e, q + e]))[:, f]
        np.testing.assert_allclose(J[:, k], _twist_from_poses(X0, X, X2, h), atol=1e-7)
        p0 = X0[:3, :3] @ point + X0[:3, 3]
        p2 = X2[:3, :3] @ point + X2[:3, 3]
        np.testing.assert_allclose(Jp[:, k], (p2 - p0) / (2 * h), atol=1e-7)


@few
@given(seed=seeds)
def test_velocities_momentum_and_com_agree(art, seed):
    rng = np.random.default_rng(seed)
    q, v, _ = random_state(art, rng)
    A = mb.momentum_matrix(art, q)
    hm = mb.momentum(art, q, v)
    close(A @ v, hm)
    # linear momentum is the mass times the COM velocity
    h = 1e-6
    dcom = (mb.center_of_mass(art, q + h * v) - mb.center_of_mass(art, q - h * v)) / (2 * h)
    np.testing.assert_allclose(hm[3:], mb.mass(art) * dcom, atol=1e-6 * max(1.0, np.abs(hm).max()))
    # frame angular velocities are the angular rows of the frames' Jacobians
    omega = mb.frame_angular_velocities(art, q, v)
    for f in rng.choice(art.nframes, size=min(3, art.nframes), replace=False):
        close(omega[f], mb.geometric_jacobian(art, q, art.frame_names[f])[:3] @ v)


def test_armature_adds_exactly_to_the_diagonal(art):
    rng = np.random.default_rng(11)
    q, v, vdot = random_state(art, rng)
    armature = rng.uniform(0.01, 1.0, art.nq)
    armed = art.with_armature(armature)
    M0, M1 = mb.mass_matrix(art, q), mb.mass_matrix(armed, q)
    off = ~np.eye(art.nq, dtype=bool)
    assert np.array_equal(M0[off], M1[off])
    np.testing.assert_allclose(np.diag(M1) - np.diag(M0), armature, rtol=0, atol=1e-12 * np.abs(M1).max())
    tau0, tau1 = mb.inverse_dynamics(art, q, v, vdot), mb.inverse_dynamics(armed, q, v, vdot)
    np.testing.assert_allclose(tau1 - tau0, armature * vdot, rtol=0, atol=1e-12 * np.abs(tau1).max())


def test_root_mass_is_excluded(art):
    assert mb.mass(art) == pytest.approx(art.mass_of_body[1:].sum(), rel=1e-12)
    assert mb.subtree_mass(art, 0) == pytest.approx(mb.mass(art), rel=1e-12)
    leaf = art.nbodies - 1
    assert mb.subtree_mass(art, leaf) == pytest.approx(art.mass_of_body[leaf], rel=1e-12)


@pytest.mark.parametrize("n", [1, 5, 47, 48, 100, 257])
def test_batched_paths_equal_single_configurations(art, n, monkeypatch):
    monkeypatch.setattr(kinematics, "CHUNK", 64)  # several chunks with a ragged last one
    rng = np.random.default_rng(n)
    Q, V, A = random_state(art, rng, n)
    poses = mb.frame_poses(art, Q)
    out = np.full((n, art.nframes, 4, 4), np.nan)
    assert mb.frame_poses(art, Q, out=out) is out
    strided = np.full((art.nframes, n, 4, 4), np.nan).transpose(1, 0, 2, 3)
    mb.frame_poses(art, Q, out=strided)
    tau = mb.inverse_dynamics(art, Q, V, A)
    omega = mb.frame_angular_velocities(art, Q, V)
    for i in range(n):
        close(poses[i], mb.frame_poses(art, Q[i]))
        close(tau[i], mb.inverse_dynamics(art, Q[i], V[i], A[i]))
        close(omega[i], mb.frame_angular_velocities(art, Q[i], V[i]))
    assert np.array_equal(out, poses) and np.array_equal(strided, poses)
    # several leading dimensions
    close(mb.frame_poses(art, Q.reshape(1, n, 1, art.nq))[0, :, 0], poses)
    close(mb.mass_matrix(art, Q[:3]), np.array([mb.mass_matrix(art, q) for q in Q[:3]]))
