"""The numpy engine against Pinocchio on real robots: every quantity at 50 random states per robot.

Joints and frames are matched by name; Pinocchio's continuous joints store (cos, sin) in q and its 6-vectors
are [linear; angular], ours [angular; linear]. Pinocchio ignores <mimic> here, like our algorithms.
"""

from __future__ import annotations

import numpy as np
import pytest

import mime_gui.multibody as mb
from mime_gui.multibody import joint_space

from .engine_robots import ROBOTS, pin_twin, random_state

pin = pytest.importorskip("pinocchio")

NSTATES = 50
RTOL = 1e-9


def assert_close(ours, ref, what, rtol=RTOL):
    ours, ref = np.asarray(ours), np.asarray(ref)
    assert ours.shape == ref.shape, f"{what}: shape {ours.shape} != {ref.shape}"
    scale = max(np.abs(ref).max(), 1e-300)
    err = np.abs(ours - ref).max()
    assert err <= rtol * scale, f"{what}: max error {err:.3e} vs scale {scale:.3e}"


def swap(x):
    """[linear; angular] rows ↔ [angular; linear] rows."""
    x = np.asarray(x)
    return np.concatenate([x[3:], x[:3]], axis=0)


@pytest.fixture(params=ROBOTS)
def twin(request):
    return pin_twin(request.param)


@pytest.fixture
def states(twin):
    rng = np.random.default_rng(abs(hash(twin.art.name)) % 2**32)
    return random_state(twin.art, rng, NSTATES)


def test_frame_poses_and_velocities(twin, states):
    art, model, data = twin.art, twin.model, twin.data
    Q, V, _ = states
    batched = mb.frame_poses(art, Q)
    omegas = mb.frame_angular_velocities(art, Q, V)
    for i in range(NSTATES):
        pin.forwardKinematics(model, data, twin.q(Q[i]), twin.v(V[i]))
        pin.updateFramePlacements(model, data)
        ref = np.array([data.oMf[f].homogeneous for f in twin.fid])
        single = mb.frame_poses(art, Q[i])
        assert_close(single, ref, f"frame_poses {art.name} state {i}")
        assert_close(batched[i], ref, f"batched frame_poses {art.name} state {i}")
        w_ref = np.array([pin.getFrameVelocity(model, data, f, pin.LOCAL_WORLD_ALIGNED).angular
                          for f in twin.fid])
        assert_close(omegas[i], w_ref, f"frame_angular_velocities {art.name} state {i}")


def test_jacobians(twin, states):
    art, model, data = twin.art, twin.model, twin.data
    Q, _, _ = states
    rng = np.random.default_rng(7)
    for i in range(NSTATES):
        pq = twin.q(Q[i])
        pin.computeJointJacobians(model, data, pq)
        pin.updateFramePlacements(model, data)
        for f in rng.choice(art.nframes, size=min(4, art.nframes), replace=False):
            name = art.frame_names[f]
            fid = twin.fid[f]
            J_ref = twin.from_v(swap(pin.getFrameJacobian(model, data, fid, pin.WORLD)))
            assert_close(mb.geometric_jacobian(art, Q[i], name), J_ref, f"geometric_jacobian {name}")
            J_lwa = twin.from_v(pin.getFrameJacobian(model, data, fid, pin.LOCAL_WORLD_ALIGNED)[:3])
            assert_close(mb.point_jacobian(art, Q[i], name), J_lwa, f"point_jacobian {name}")


def test_mass_matrix_with_armature(twin, states):
    art = twin.art.with_armature(np.random.default_rng(3).uniform(0.0, 0.5, twin.art.nq))
    twin.set_armature(art.armature)
    try:
        Q, _, _ = states
        for i in range(NSTATES):
            M_ref = pin.crba(twin.model, twin.data, twin.q(Q[i]))
            M_ref = np.triu(M_ref) + np.triu(M_ref, 1).T
            assert_close(mb.mass_matrix(art, Q[i]), twin.matrix(M_ref), f"mass_matrix {art.name} state {i}")
    finally:
        twin.set_armature(twin.art.armature)


def _pin_external_forces(twin, pq, wrenches):
    """Our world wrenches (about the world origin) as Pinocchio's per-joint local forces."""
    pin.forwardKinematics(twin.model, twin.data, pq)
    fext = pin.StdVec_Force()
    for _ in range(twin.model.njoints):
        fext.append(pin.Force.Zero())
    for name, (torque, force) in wrenches.items():
        jid = twin.parent_joint(name)
        world = pin.Force(np.asarray(force), np.asarray(torque))
        fext[jid] = fext[jid] + twin.data.oMi[jid].actInv(world)
    return fext


def test_inverse_dynamics_bias_and_forward_dynamics(twin, states):
    art = twin.art.with_armature(np.random.default_rng(4).uniform(0.0, 0.3, twin.art.nq))
    twin.set_armature(art.armature)
    model, data = twin.model, twin.data
    try:
        Q, V, A = states
        rng = np.random.default_rng(5)
        # twice the states: a batch large enough for the axis-frame path
        assert 2 * NSTATES >= joint_space.LARGE_BATCH
        tau_batched = mb.inverse_dynamics(art, np.stack([Q, Q]), np.stack([V, V]), np.stack([A, A]))
        bias_batched = mb.dynamics_bias(art, np.stack([Q, Q]), V)
        assert tau_batched.shape == bias_batched.shape == (2, NSTATES, art.nq)
        taus, vdot_refs = [], []
        for i in range(NSTATES):
            pq, pv, pa = twin.q(Q[i]), twin.v(V[i]), twin.v(A[i])
            tau_ref = twin.from_v(pin.rnea(model, data, pq, pv, pa))
            assert_close(mb.inverse_dynamics(art, Q[i], V[i], A[i]), tau_ref, f"inverse_dynamics {i}")
            assert_close(tau_batched[:, i], np.stack([tau_ref, tau_ref]), f"batched inverse_dynamics {i}")
            bias_ref = twin.from_v(pin.nonLinearEffects(model, data, pq, pv))
            assert_close(mb.dynamics_bias(art, Q[i], V[i]), bias_ref, f"dynamics_bias {i}")
            assert_close(bias_batched[:, i], np.stack([bias_ref, bias_ref]), f"batched dynamics_bias {i}")
            tau = rng.standard_normal(art.nq)
            vdot_ref = twin.from_v(pin.aba(model, data, pq, pv, twin.v(tau)))
            assert_close(mb.dynamics(art, Q[i], V[i], tau), vdot_ref, f"dynamics {i}", rtol=1e-8)
            taus.append(tau)
            vdot_refs.append(vdot_ref)
        # the batch at once: one Cholesky factor per state, each solved with its own transpose
        assert_close(mb.dynamics(art, Q, V, np.array(taus)), np.array(vdot_refs), "batched dynamics",
                     rtol=1e-8)
    finally:
        twin.set_armature(twin.art.armature)


def test_inverse_dynamics_with_external_wrenches(twin, states):
    art = twin.art
    Q, V, A = states
    rng = np.random.default_rng(6)
    names = [art.frame_names[k] for k in rng.choice(art.nframes, size=min(3, art.nframes), replace=False)]
    wrenches = {n: (rng.standard_normal(3), rng.standard_normal(3)) for n in names}
    gravity = np.array([0.3, -0.2, -9.7])
    for i in range(NSTATES):
        pq = twin.q(Q[i])
        fext = _pin_external_forces(twin, pq, wrenches)
        twin.model.gravity.linear = gravity
        try:
            ref = twin.from_v(pin.rnea(twin.model, twin.data, pq, twin.v(V[i]), twin.v(A[i]), fext))
        finally:
            twin.model.gravity.linear = np.array([0.0, 0.0, -9.81])
        ours = mb.inverse_dynamics(art, Q[i], V[i], A[i], external_wrenches=wrenches, gravity=gravity)
        assert_close(ours, ref, f"inverse_dynamics with wrenches {art.name} state {i}")
    # the large-batch path adds the wrenches through the Jacobian transpose
    Q2, V2, A2 = (np.concatenate([x, x[::-1]]) for x in (Q, V, A))
    assert len(Q2) >= joint_space.LARGE_BATCH
    batched = mb.inverse_dynamics(art, Q2, V2, A2, external_wrenches=wrenches, gravity=gravity)
    small = np.array([mb.inverse_dynamics(art, q, v, a, external_wrenches=wrenches, gravity=gravity)
                      for q, v, a in zip(Q2, V2, A2, strict=True)])
    assert_close(batched, small, "batched inverse_dynamics with wrenches")


def test_mass_com_and_momentum(twin, states):
    art, model, data = twin.art, twin.model, twin.data
    Q, V, _ = states
    for i in range(NSTATES):
        pq, pv = twin.q(Q[i]), twin.v(V[i])
        com_ref = pin.centerOfMass(model, data, pq).copy()
        assert_close(mb.center_of_mass(art, Q[i]), com_ref, f"center_of_mass {i}")
        Ag = pin.ccrba(model, data, pq, pv).copy()  # [linear; angular] about the COM
        A_ref = np.vstack([Ag[3:] + np.cross(com_ref, Ag[:3].T).T, Ag[:3]])
        assert_close(mb.momentum_matrix(art, Q[i]), twin.from_v(A_ref), f"momentum_matrix {i}")
        h = data.hg
        h_ref = np.concatenate([h.angular + np.cross(com_ref, h.linear), h.linear])
        assert_close(mb.momentum(art, Q[i], V[i]), h_ref, f"momentum {i}")
    pin.centerOfMass(model, data, twin.q(Q[0]))
    assert mb.mass(art) == pytest.approx(data.mass[0], rel=RTOL)
    for body in art.body_names[1:]:
        jid = twin.parent_joint(body)
        assert mb.subtree_mass(art, body) == pytest.approx(data.mass[jid], rel=RTOL, abs=1e-12)
    assert mb.subtree_mass(art, art.body_names[0]) == pytest.approx(mb.mass(art), rel=1e-12)
