"""Torque-driven forward dynamics: against Pinocchio's ABA with the same integrator, energy, rest, stops."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from robot_data import robot_urdf

from mime_gui.multibody import center_of_mass, kinetic_energy, mass, read_urdf
from mime_gui.nodes.dynamic import DynamicArmNode

pin = pytest.importorskip("pinocchio")

ROBOTS = {"ur5": "ur_description/urdf/ur5_robot.urdf", "panda": "panda_description/urdf/panda.urdf"}
PENDULUM = "double_pendulum_description/urdf/double_pendulum_continuous.urdf"


def _frictionless(art):
    zero = np.zeros(art.nq)
    zero.setflags(write=False)
    return dataclasses.replace(art, damping=zero, friction=zero)


class _Aba:
    """Pinocchio's ABA on the same URDF, in our joint order (every joint here has nq == 1)."""

    def __init__(self, path, art):
        self.model = pin.buildModelFromUrdf(str(path))
        jid = [self.model.getJointId(j) for j in art.joint_names]
        assert all(self.model.joints[j].nq == 1 for j in jid)
        self.iq = np.array([self.model.joints[j].idx_q for j in jid])
        self.iv = np.array([self.model.joints[j].idx_v for j in jid])
        self.model.armature = np.zeros(self.model.nv)
        self.model.armature[self.iv] = art.armature
        self.data = self.model.createData()
        self.pq, self.pv, self.pt = np.zeros(self.model.nq), np.zeros(self.model.nv), np.zeros(self.model.nv)

    def __call__(self, q, v, tau):
        self.pq[self.iq], self.pv[self.iv], self.pt[self.iv] = q, v, tau
        return pin.aba(self.model, self.data, self.pq, self.pv, self.pt)[self.iv]


def _integrate(f, q, v, u, h, integrator):
    if integrator == "euler":
        v = v + h * f(q, v, u)
        return q + h * v, v
    k1v = f(q, v, u)
    k2q = v + 0.5 * h * k1v
    k2v = f(q + 0.5 * h * v, k2q, u)
    k3q = v + 0.5 * h * k2v
    k3v = f(q + 0.5 * h * k2q, k3q, u)
    k4q = v + h * k3v
    k4v = f(q + h * k3q, k4q, u)
    return q + h / 6 * (v + 2 * k2q + 2 * k3q + k4q), v + h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)


@pytest.mark.parametrize("integrator", ["euler", "rk4"])
@pytest.mark.parametrize("robot", sorted(ROBOTS))
def test_forward_dynamics_equal_pinocchio_aba_with_the_same_integrator(robot, integrator):
    path = robot_urdf(ROBOTS[robot])
    art = _frictionless(read_urdf(path).compile())
    art = art.with_armature(np.linspace(0.02, 0.2, art.nq))
    aba = _Aba(path, art)
    rng = np.random.default_rng(5)
    T, dt, substeps = 500, 2e-3, 2
    u = np.cumsum(rng.normal(0.0, 0.5, (T, art.nq)), axis=0)
    q0 = np.clip(rng.uniform(-0.5, 0.5, art.nq), art.lower, art.upper)
    node = DynamicArmNode(art, integrator=integrator, substeps=substeps, stops=False)
    ours = node.play(u, dt, q0)
    q, v = q0.copy(), np.zeros(art.nq)
    for n in range(T):
        for _ in range(substeps):
            q, v = _integrate(aba, q, v, u[n], dt / substeps, integrator)
        np.testing.assert_allclose(ours.joint_positions[n], q, rtol=1e-9, atol=1e-9, err_msg=f"step {n}")
        np.testing.assert_allclose(ours.joint_velocities[n], v, rtol=1e-9, atol=1e-9, err_msg=f"step {n}")
    assert np.abs(ours.joint_positions[-1] - q0).max() > 0.1  # it did move


@pytest.mark.parametrize("integrator", ["euler", "rk4"])
def test_external_joint_forces_enter_where_the_integrator_evaluates_the_forces(integrator):
    """``external(n, q)`` (here a spring on every joint toward a pose, and a push that changes each step) is
    added to the torques at each sub-step's start (Euler) and at each RK4 stage: Pinocchio's ABA stepped
    the same way with ``u + external(n, q)`` at those states, to 1e-9 over 300 steps of 2 sub-steps; a
    constant one under Euler is the same run as adding it to the torques, bit for bit."""
    path = robot_urdf(ROBOTS["ur5"])
    art = _frictionless(read_urdf(path).compile()).with_armature(np.full(6, 0.05))
    aba = _Aba(path, art)
    rng = np.random.default_rng(7)
    T, dt, substeps = 300, 2e-3, 2
    u = rng.normal(0.0, 1.0, (T, art.nq))
    q0 = np.clip(rng.uniform(-0.5, 0.5, art.nq), art.lower, art.upper)
    target, push = q0 + 0.4, np.linspace(-2.0, 2.0, T)

    def external(n, q):
        return 30.0 * (target - q) + push[n]

    node = DynamicArmNode(art, integrator=integrator, substeps=substeps, stops=False)
    ours = node.play(u, dt, q0, external=external)
    q, v = q0.copy(), np.zeros(art.nq)
    for n in range(T):
        def pushed(qa, va, un, n=n):
            return aba(qa, va, un + external(n, qa))

        for _ in range(substeps):
            q, v = _integrate(pushed, q, v, u[n], dt / substeps, integrator)
        np.testing.assert_allclose(ours.joint_positions[n], q, rtol=1e-9, atol=1e-9, err_msg=f"step {n}")
        np.testing.assert_allclose(ours.joint_velocities[n], v, rtol=1e-9, atol=1e-9, err_msg=f"step {n}")
    plain = node.play(u, dt, q0)
    assert np.abs(ours.joint_positions[-1] - plain.joint_positions[-1]).max() > 0.1  # the spring pulls
    if integrator == "euler":
        constant = np.linspace(-1.0, 1.0, art.nq)
        np.testing.assert_array_equal(node.play(u, dt, q0, external=lambda n, q: constant).joint_positions,
                                      node.play(u + constant, dt, q0).joint_positions)


#: RK4 at 1 ms keeps an undamped double pendulum's energy within this fraction of its swing over 5 s
ENERGY_BOUND = 1e-6


def test_undamped_double_pendulum_under_rk4_keeps_its_energy():
    art = _frictionless(read_urdf(robot_urdf(PENDULUM)).compile())
    g = np.array([0.0, 0.0, -9.81])
    node = DynamicArmNode(art, integrator="rk4", gravity=g)
    T, dt = 5000, 1e-3
    q0 = np.array([1.2, -0.7])
    traj = node.play(np.zeros((T, art.nq)), dt, q0)

    def energy(q, v):
        return kinetic_energy(art, q, v) - mass(art) * center_of_mass(art, q) @ g

    e = energy(traj.joint_positions, traj.joint_velocities)
    e0 = energy(q0, np.zeros(2))
    swing = kinetic_energy(art, traj.joint_positions, traj.joint_velocities).max()
    assert swing > 1.0  # it swings hard
    assert np.abs(e - e0).max() <= ENERGY_BOUND * swing
    # the same run with semi-implicit Euler drifts far more: the bound above is RK4's own
    euler = DynamicArmNode(art, gravity=g).play(np.zeros((T, art.nq)), dt, q0)
    drift = np.abs(energy(euler.joint_positions, euler.joint_velocities) - e0).max()
    assert drift > 100 * ENERGY_BOUND * swing


def test_zero_torque_without_gravity_keeps_a_resting_arm_at_rest():
    art = read_urdf(robot_urdf(ROBOTS["panda"])).compile()
    q0 = np.clip(np.linspace(-0.5, 0.5, art.nq), art.lower, art.upper)
    for integrator in ("euler", "rk4"):
        traj = DynamicArmNode(art, integrator=integrator, gravity=(0.0, 0.0, 0.0)).play(
            np.zeros((50, art.nq)), 0.01, q0)
        np.testing.assert_array_equal(traj.joint_positions, np.tile(q0, (50, 1)))
        np.testing.assert_array_equal(traj.joint_velocities, 0.0)


def test_a_joint_limit_is_an_inelastic_stop():
    path = robot_urdf(ROBOTS["ur5"])
    free_art = _frictionless(read_urdf(path).compile())
    j = free_art.joint_index("shoulder_lift_joint")
    q0, u = np.zeros(free_art.nq), np.zeros((400, free_art.nq))
    free = DynamicArmNode(free_art, stops=False).play(u, 0.005, q0)
    side = np.sign(free.joint_positions[-1, j])  # the way gravity pulls it
    assert abs(free.joint_positions[:, j]).max() > 0.3
    lower, upper = np.array(free_art.lower), np.array(free_art.upper)
    (upper if side > 0 else lower)[j] = side * 0.3  # a stop it falls onto
    art = dataclasses.replace(free_art, lower=lower, upper=upper)
    traj = DynamicArmNode(art).play(u, 0.005, q0)
    qj, vj = traj.joint_positions[:, j], traj.joint_velocities[:, j]
    assert np.all(side * qj <= 0.3)
    on = qj == side * 0.3
    first = int(np.argmax(on))
    assert on.any() and on[first:].all()  # it reaches the stop and rests on it
    assert np.all(side * vj[on] <= 0.0)  # no velocity into the stop
    assert not np.array_equal(traj.joint_positions[:, :j], free.joint_positions[:, :j]) or j == 0


def test_damping_and_regularised_friction_are_applied():
    art = read_urdf(robot_urdf(PENDULUM)).compile()
    art = dataclasses.replace(art, damping=np.array([0.5, 0.0]), friction=np.array([0.0, 2.0]))
    node = DynamicArmNode(art, friction_velocity=1e-2)
    v = np.array([2.0, 1e-2])
    tau = node.joint_forces(np.array([1.0, 1.0]), v)
    np.testing.assert_allclose(tau, [1.0 - 0.5 * 2.0, 1.0 - 2.0 * np.tanh(1.0)])
    # far above the width the friction is μ·sign(v); at rest it is zero
    np.testing.assert_allclose(node.joint_forces(np.zeros(2), np.array([0.0, -5.0])), [0.0, 2.0])


def test_bad_settings_and_inputs_are_refused():
    art = read_urdf(robot_urdf(PENDULUM)).compile()
    for kwargs, match in (({"integrator": "rk45"}, "integrator"), ({"substeps": 0}, "substeps"),
                          ({"substeps": 1.5}, "substeps"), ({"friction_velocity": 0.0}, "friction_velocity"),
                          ({"gravity": (0, 0)}, "gravity")):
        with pytest.raises(ValueError, match=match):
            DynamicArmNode(art, **kwargs)
    node = DynamicArmNode(art)
    with pytest.raises(ValueError, match="torques must be a"):
        node.play(np.zeros((3, 3)), 0.01)
    with pytest.raises(ValueError, match="non-finite"):
        node.play(np.full((3, 2), np.nan), 0.01)
    with pytest.raises(ValueError, match="dt"):
        node.play(np.zeros((3, 2)), 0.0)


def test_a_missing_torque_in_one_step_is_refused_by_the_joints():
    art = read_urdf(robot_urdf(PENDULUM)).compile()
    node = DynamicArmNode(art)
    # a torque left empty (None) is no number: refused with the joints named, as a NaN is
    with pytest.raises(ValueError, match="torques must be 2 finite numbers") as refused:
        node.advance(np.zeros(2), np.zeros(2), [None, 0.0], 0.01)
    assert all(name in str(refused.value) for name in art.joint_names)


def test_a_diverging_run_is_refused_with_its_step():
    from mime_gui.nodes.dynamic import DivergenceError

    art = _frictionless(read_urdf(robot_urdf(PENDULUM)).compile())
    u = np.zeros((20, art.nq))
    u[5:] = 1e200
    with pytest.raises(DivergenceError, match="diverged at step [5-9]") as e:
        DynamicArmNode(art).play(u, 0.01)
    assert e.value.code == "dynamics.diverged"


def test_an_arm_on_a_still_tilted_mount_given_no_mount_rates_swings_under_the_gravity_of_its_base_frame():
    """A mount pose held still (UR5 turned a quarter turn about the world's x and lifted) and no mount rates:
    the mount is at rest, so the arm moves as Pinocchio's ABA moves it with gravity turned into its base
    frame (Rᵀ g), stepped the same way; and not as it would hang upright."""
    path = robot_urdf(ROBOTS["ur5"])
    art = _frictionless(read_urdf(path).compile())
    aba = _Aba(path, art)
    g = np.array([0.0, 0.0, -9.81])
    mount = np.eye(4)
    mount[:3, :3] = [[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]]  # a quarter turn about x
    mount[:3, 3] = [0.2, -0.1, 0.5]
    aba.model.gravity.linear = mount[:3, :3].T @ g  # by hand: (0, -9.81, 0) in the base frame
    T, dt = 200, 2e-3
    u = np.zeros((T, art.nq))
    q0 = np.clip(np.linspace(-0.4, 0.4, art.nq), art.lower, art.upper)
    ours = DynamicArmNode(art, gravity=g, stops=False).play(u, dt, q0, mount_poses=mount)
    q, v = q0.copy(), np.zeros(art.nq)
    for n in range(T):
        q, v = _integrate(aba, q, v, u[n], dt, "euler")
        np.testing.assert_allclose(ours.joint_positions[n], q, rtol=1e-9, atol=1e-9, err_msg=f"step {n}")
        np.testing.assert_allclose(ours.joint_velocities[n], v, rtol=1e-9, atol=1e-9, err_msg=f"step {n}")
    upright = DynamicArmNode(art, gravity=g, stops=False).play(u, dt, q0)
    assert np.abs(ours.joint_positions[-1] - upright.joint_positions[-1]).max() > 0.05  # the tilt tells
