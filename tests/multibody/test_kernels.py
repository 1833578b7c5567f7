"""The compiled kernels against the numpy algorithms they replace in the time loops, on real robots with
sliding joints and branches (PR2, Talos), moving bases, damping, friction and stops; and numba stays out of
a plain import."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import numpy as np
import pytest
from robot_data import MASSLESS_TIP_URDF

import mime_gui.multibody as mb
from mime_gui.multibody.moving_base import base_motion, inverse_dynamics_on_moving_base
from mime_gui.nodes.dynamic import DivergenceError, DynamicArmNode
from mime_gui.rig.torques import inverse_dynamics_rows, segment_torques

from .engine_robots import load_articulation


def _with(art, **arrays):
    frozen = {}
    for k, a in arrays.items():
        a = np.asarray(a, dtype=float)
        a.setflags(write=False)
        frozen[k] = a
    return dataclasses.replace(art, **frozen)


def _mount_motion(T, dt, rng):
    """A smooth tumbling, travelling mount: poses (T, 4, 4), angular velocities (T, 3) and the pose before."""
    t = dt * np.arange(-1, T)
    angle = 0.8 * np.sin(3.0 * t)
    axis = np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8])
    K = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    poses = np.tile(np.eye(4), (T + 1, 1, 1))
    sin, cos = np.sin(angle)[:, None, None], np.cos(angle)[:, None, None]
    poses[:, :3, :3] = np.eye(3) + sin * K + (1 - cos) * (K @ K)  # Rodrigues
    poses[:, :3, 3] = np.stack([0.2 * np.sin(2 * t), 0.1 * t, 0.05 * np.cos(5 * t)], axis=1)
    omega = (2.4 * np.cos(3.0 * t))[:, None] * axis  # d(angle)/dt about the fixed axis
    return poses[1:], omega[1:], poses[0]


def _numpy_play(node, u, dt, q0, mount=None):
    """The same steps through the node's numpy equations (``DynamicArmNode.step``), one at a time."""
    T = len(u)
    if mount is None:
        bases = [(None, None, node.placement[:3, :3].T @ node.gravity)] * T
    else:
        poses, omega, pose0 = mount
        V0, A0, g = base_motion(poses @ node.placement, pose0 @ node.placement, omega, dt, node.gravity)
        bases = list(zip(V0, A0, g, strict=True))
    q, v = node.stop(np.array(q0, float), np.zeros(node.art.nq))
    qs = []
    for n in range(T):
        for _ in range(node.substeps):
            q, v = node.step(q, v, u[n], dt / node.substeps, bases[n])
        qs.append(q)
    return np.array(qs)


@pytest.mark.parametrize("robot", ["pr2", "talos"])
@pytest.mark.parametrize("integrator", ["euler", "rk4"])
def test_forward_rollout_equals_the_numpy_steps_on_trees_with_sliding_joints(robot, integrator):
    art = load_articulation(robot)
    rng = np.random.default_rng(3)
    art = _with(art, armature=rng.uniform(0.0, 0.1, art.nq), damping=rng.uniform(0.0, 0.5, art.nq),
                friction=rng.uniform(0.0, 0.3, art.nq))
    if robot == "pr2":
        assert np.any(art.joint_type == mb.PRISMATIC)  # the torso and the grippers slide
    node = DynamicArmNode(art, integrator=integrator, substeps=2, friction_velocity=0.05)
    T, dt = 40, 2e-3
    u = rng.normal(0.0, 3.0, (T, art.nq))
    with np.errstate(invalid="ignore"):  # ∞ − ∞ of a continuous joint, replaced
        q0 = np.where(np.isfinite(art.lower), 0.5 * (art.lower + art.upper), 0.1)
    ours = node.play(u, dt, q0).joint_positions
    np.testing.assert_allclose(ours, _numpy_play(node, u, dt, q0), rtol=0, atol=1e-10)


@pytest.mark.parametrize("integrator", ["euler", "rk4"])
def test_forward_rollout_on_a_moving_mount_equals_the_numpy_steps(integrator):
    art = load_articulation("pr2")
    rng = np.random.default_rng(4)
    placement = np.eye(4)
    placement[:3, 3] = [0.1, -0.2, 0.3]
    node = DynamicArmNode(art, placement=placement, integrator=integrator, substeps=3)
    T, dt = 60, 1e-3
    mount = _mount_motion(T, dt, rng)
    u = rng.normal(0.0, 2.0, (T, art.nq))
    with np.errstate(invalid="ignore"):
        q0 = np.where(np.isfinite(art.lower), 0.5 * (art.lower + art.upper), 0.0)
    traj = node.play(u, dt, q0, mount_poses=mount[0], mount_rates=mount[1], mount_pose0=mount[2])
    np.testing.assert_allclose(traj.joint_positions, _numpy_play(node, u, dt, q0, mount), rtol=0, atol=1e-10)


def test_stops_hold_a_joint_driven_into_its_limit_on_the_limit():
    art = load_articulation("pr2")
    art = _with(art, damping=np.zeros(art.nq), friction=np.zeros(art.nq))  # the torso's damping is 20,000
    node = DynamicArmNode(art, substeps=1)
    j = art.joint_index("torso_lift_joint")  # a sliding joint, 0 .. 0.31 m
    u = np.zeros((300, art.nq))
    u[:, j] = 5e3  # lifts it onto its upper limit about step 127
    q0 = np.clip(np.zeros(art.nq), art.lower, art.upper)
    traj = node.play(u, 1e-3, q0)
    q, v = traj.joint_positions[:, j], traj.joint_velocities[:, j]
    hit = int(np.argmax(q >= art.upper[j]))
    assert 100 < hit < 200
    assert np.all(q[hit:] == art.upper[j]) and np.all(v[hit:] == 0.0)
    np.testing.assert_allclose(traj.joint_positions, _numpy_play(node, u, 1e-3, q0), rtol=0, atol=1e-10)


@pytest.mark.parametrize("robot", ["pr2", "talos", "panda"])
def testinverse_dynamics_rows_equals_the_engine_on_a_fixed_and_a_moving_base(robot):
    art = load_articulation(robot)
    rng = np.random.default_rng(5)
    art = _with(art, armature=rng.uniform(0.0, 0.2, art.nq))
    T = 30
    q = rng.uniform(-1.0, 1.0, (T, art.nq))
    v, a = rng.normal(size=(T, art.nq)), rng.normal(size=(T, art.nq))
    g = np.array([[0.3, -0.2, -9.7]])
    fixed = inverse_dynamics_rows(art, q, v, a, np.zeros((1, 6)), np.zeros((1, 6)), g)
    np.testing.assert_allclose(fixed, mb.inverse_dynamics(art, q, v, a, gravity=g[0]), rtol=0, atol=1e-9)
    V0, A0, gs = rng.normal(size=(T, 6)), rng.normal(size=(T, 6)), rng.normal(size=(T, 3))
    moving = inverse_dynamics_rows(art, q, v, a, V0, A0, gs)
    np.testing.assert_allclose(moving, inverse_dynamics_on_moving_base(art, q, v, a, V0, A0, gs), rtol=0,
                               atol=1e-9)


def test_segment_torques_of_a_step_that_is_not_finite_are_not_numbers_and_the_others_unchanged():
    art = load_articulation("panda")
    q = np.zeros((5, art.nq))
    at_rest, _, _ = segment_torques(art, q, np.zeros(art.nq), 1e-3)
    q[3, 2] = np.nan  # the rates by backward differences: steps 3 and 4 are not numbers, 0-2 still at rest
    tau, _, v = segment_torques(art, q, np.zeros(art.nq), 1e-3)
    assert np.isnan(tau[3:]).all() and np.isnan(v[3:, 2]).all()
    np.testing.assert_array_equal(tau[:3], at_rest[:3])
    assert np.isfinite(at_rest).all() and np.abs(at_rest).max() > 1.0  # gravity holds the arm: not zeros


def test_a_run_diverging_in_the_first_block_names_its_step_and_leaves_no_state_behind():
    art = load_articulation("panda")
    node = DynamicArmNode(art, stops=False)
    u = np.zeros((3000, art.nq))
    u[5:, 0] = 1e300  # the velocity overflows a few steps after the torque arrives
    with pytest.raises(DivergenceError, match=r"diverged at step [5-9] "):
        node.play(u, 1e-3)
    seen = []
    u = np.zeros((5000, art.nq))
    u[3000:, 0] = 1e300  # in the second block: progress was reported once, before it
    with pytest.raises(DivergenceError, match=r"diverged at step 300[0-4] "):
        node.play(u, 1e-3, progress=lambda n, total: seen.append((n, total)))
    assert seen == [(2048, 5000)]


def test_numba_is_imported_only_where_a_kernel_runs():
    code = ("import sys\n"
            "import mime_gui.multibody, mime_gui.nodes, mime_gui.rig, mime_gui.nodes.dynamic, mime_gui.cli\n"
            "assert 'numba' not in sys.modules, 'numba imported by a plain import'\n"
            "from mime_gui.multibody import _kernels\n"
            "assert 'numba' in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_one_compiled_version_serves_every_caller():
    """Read-only or sliced inputs, a fixed or a moving base, either integrator: the same signature, so no
    call waits seconds for another compile."""
    from mime_gui.multibody import _kernels

    art = load_articulation("panda")
    u = np.zeros((4, art.nq))
    u.setflags(write=False)
    for integrator in ("euler", "rk4"):
        DynamicArmNode(art, integrator=integrator).play(u, 1e-3)
    poses = np.tile(np.eye(4), (4, 1, 1))
    DynamicArmNode(art).play(u[:, :], 1e-3, mount_poses=poses, mount_rates=np.zeros((4, 3)))
    q = np.zeros((4, art.nq))[:, ::1]
    q.setflags(write=False)
    segment_torques(art, q, np.zeros(art.nq), 1e-3)
    segment_torques(art, q, np.zeros(art.nq), 1e-3, poses, np.eye(4), np.zeros((4, 3)))
    assert len(_kernels.forward_rollout.signatures) == 1
    assert len(_kernels.rnea_rollout.signatures) == 1


def test_a_joint_moving_nothing_is_refused_by_name_and_armature_makes_it_defined():
    art = mb.read_urdf(MASSLESS_TIP_URDF).compile()
    with pytest.raises(mb.errors.CodedError, match="joint 'wrist' of 'r' moves no mass") as e:
        DynamicArmNode(art).play(np.ones((3, 2)), 1e-3)
    assert e.value.code == "dynamics.singular"
    armed = _with(art, armature=[0.0, 1e-3])
    traj = DynamicArmNode(armed, stops=False).play(np.ones((3, 2)), 1e-3)
    # the wrist alone: its armature is all it moves, so its acceleration is u / armature
    np.testing.assert_allclose(traj.joint_velocities[-1, 1], 3e-3 * 1.0 / 1e-3, rtol=1e-12)


def test_one_live_advance_equals_the_numpy_sub_steps_and_checks_its_torques():
    art = load_articulation("pr2")
    rng = np.random.default_rng(8)
    art = _with(art, damping=rng.uniform(0, 0.5, art.nq), friction=rng.uniform(0, 0.2, art.nq))
    node = DynamicArmNode(art, friction_velocity=0.05)
    with np.errstate(invalid="ignore"):
        q = np.where(np.isfinite(art.lower), 0.5 * (art.lower + art.upper), 0.2)
    v, u = rng.normal(size=art.nq), rng.normal(0, 2, art.nq)
    base = (rng.normal(size=6), rng.normal(size=6), np.array([0.5, 0.0, -9.7]))
    state, v1 = node.advance(q, v, u, 1 / 60, base)  # 17 sub-steps of at most 1 ms
    qn, vn = node.stop(q, v)
    for _ in range(17):
        qn, vn = node.step(qn, vn, u, (1 / 60) / 17, base)
    np.testing.assert_allclose(state.joint_positions, qn, rtol=0, atol=1e-12)
    np.testing.assert_allclose(v1, vn, rtol=0, atol=1e-10)
    with pytest.raises(ValueError, match=f"torques must be {art.nq} finite numbers"):
        node.advance(q, v, u[:-1], 1 / 60)
    with pytest.raises(ValueError, match="finite"):
        node.advance(q, v, np.full(art.nq, np.nan), 1 / 60)
