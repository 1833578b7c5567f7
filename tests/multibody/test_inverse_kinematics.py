"""Damped least-squares inverse kinematics on real robots, checked against targets made by the forward
kinematics of random configurations, with Pinocchio's forward kinematics of every answer as the oracle; the
limits on every iterate; an unreachable target's end as a local minimum; a singular start; mimic joints; the
demo rig's rider frame solved over both segments against the Pinocchio model of the whole rig."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from robot_data import robot_urdf

import mime_gui.multibody as mb
from mime_gui.multibody import inverse_kinematics as ik

from .frame_functions import Slide

pin = pytest.importorskip("pinocchio")

TOL = 1e-9
ROBOTS = {  # (description, frame): Panda, UR5, TIAGo's arm (its torso lift and seven arm joints)
    "panda": ("panda_description/urdf/panda.urdf", "panda_hand"),
    "ur5": ("ur_description/urdf/ur5_robot.urdf", "tool0"),
    "tiago": ("tiago_description/robots/tiago.urdf", "arm_tool_link"),
}


@cache
def robot(name):
    path = robot_urdf(ROBOTS[name][0])
    art = mb.read_urdf(path).compile()
    model = pin.buildModelFromUrdf(str(path))
    return art, model


def pin_pose(name, q, frame):
    """world_X_frame by Pinocchio at our joint positions (joints matched by name; continuous: (cos, sin))."""
    art, model = robot(name)
    pq = pin.neutral(model)
    for j, jn in enumerate(art.joint_names):
        joint = model.joints[model.getJointId(jn)]
        if joint.nq == 2:
            pq[joint.idx_q:joint.idx_q + 2] = np.cos(q[j]), np.sin(q[j])
        else:
            pq[joint.idx_q] = q[j]
    data = model.createData()
    pin.framesForwardKinematics(model, data, pq)
    return data.oMf[model.getFrameId(frame, pin.FrameType.BODY)].homogeneous


def inside(art, rng, margin=0.05):
    """Joint positions inside the limits, ``margin`` of each range away from them (continuous: ±pi)."""
    lo = np.where(np.isfinite(art.lower), art.lower, -np.pi)
    hi = np.where(np.isfinite(art.upper), art.upper, np.pi)
    q = rng.uniform(lo + margin * (hi - lo), hi - margin * (hi - lo))
    f = art.is_mimic
    q[f] = np.clip(q[art.mimic_master[f]] * art.mimic_multiplier[f] + art.mimic_offset[f], lo[f], hi[f])
    return q


def within_limits(art, q):
    return bool(np.all(q >= art.lower) and np.all(q <= art.upper))


def angle_between(A, B):
    return float(np.linalg.norm(ik._rotation_log(A[:3, :3] @ B[:3, :3].T)))


@pytest.mark.parametrize("name", list(ROBOTS))
@pytest.mark.parametrize("orientation", [True, False])
def test_reaches_targets_made_by_forward_kinematics(name, orientation):
    art, _ = robot(name)
    frame = ROBOTS[name][1]
    rng = np.random.default_rng(25)
    for _ in range(12):
        answer = inside(art, rng)
        target = mb.frame_poses(art, answer)[art.frame_index(frame)]
        start = np.clip(answer + rng.uniform(-0.15, 0.15, art.nq), art.lower, art.upper)
        iterates = []
        r = ik.solve(art, start, frame, target if orientation else target[:3, 3], orientation=orientation,
                     callback=iterates.append)
        assert r.converged, (r.position_error, r.angle_error, r.iterations)
        assert r.position_error <= TOL and (not orientation or r.angle_error <= TOL)
        # the oracle: Pinocchio's forward kinematics of the answer
        reached = pin_pose(name, r.q, frame)
        assert np.linalg.norm(reached[:3, 3] - target[:3, 3]) <= TOL
        if orientation:
            assert angle_between(reached, target) <= TOL
        assert all(within_limits(art, ArticulationQ(art, frame, start, x)) for x in iterates)
        # joints off the frame's chain keep the start's values
        moved = set(r.joints)
        for j, jn in enumerate(art.joint_names):
            if jn not in moved and not art.is_mimic[j]:
                assert r.q[j] == start[j]


def ArticulationQ(art, frame, start, x):  # noqa: N802 (reads as the full q of an iterate)
    return ik.ArticulationFrame(art, frame, start).positions(x)


def test_the_error_is_in_world_axes_at_the_frame_origin():
    """The function's Jacobian is geometric_jacobian with its linear rows moved to the frame's origin, and
    equals finite differences of the pose."""
    art, _ = robot("panda")
    function = ik.ArticulationFrame(art, "panda_hand")
    rng = np.random.default_rng(1)
    x = inside(art, rng)[function.unknowns]
    pose, J = function.evaluate(x)
    q = function.positions(x)
    G = mb.geometric_jacobian(art, q, "panda_hand")[:, function.unknowns]
    p = pose[:3, 3]
    assert np.allclose(J[:3], G[:3], atol=1e-12)
    assert np.allclose(J[3:], G[3:] + np.cross(G[:3].T, p).T, atol=1e-12)
    assert np.allclose(pose, mb.frame_poses(art, q)[art.frame_index("panda_hand")], atol=1e-14)


def test_limits_are_never_crossed_by_a_target_beyond_them():
    """A target made with joints past their limits: every iterate stays inside, the joints pushed against a
    limit are reported there, and the distance left is what the limits cost."""
    art, _ = robot("panda")
    frame = "panda_hand"
    rng = np.random.default_rng(3)
    for _ in range(6):
        beyond = inside(art, rng)
        beyond[3] = art.upper[3] + 0.4  # the elbow past its upper limit
        beyond[5] = art.lower[5] - 0.3
        target = mb.frame_poses(art, beyond)[art.frame_index(frame)]
        start = inside(art, rng)
        iterates = []
        r = ik.solve(art, start, frame, target, callback=iterates.append)
        assert len(iterates) > 1
        for x in iterates:
            assert within_limits(art, ArticulationQ(art, frame, start, x))
        assert within_limits(art, r.q)
        if not r.converged:
            assert r.at_lower or r.at_upper
            assert r.position_error > TOL or r.angle_error > TOL


@pytest.mark.parametrize("name", ["panda", "ur5"])
def test_an_unreachable_target_ends_at_a_local_minimum(name):
    """Two metres from the base, out of reach: not converged, the distance reported is the distance left,
    and no joint moved a little either way (within its limits) brings the frame closer."""
    art, _ = robot(name)
    frame = ROBOTS[name][1]
    rng = np.random.default_rng(4)
    for _ in range(3):
        start = inside(art, rng)
        direction = rng.normal(size=3)
        target = 2.0 * direction / np.linalg.norm(direction)
        r = ik.solve(art, start, frame, target, orientation=False, max_iterations=3000)
        assert not r.converged and r.iterations < 3000
        here = mb.frame_poses(art, r.q)[art.frame_index(frame)][:3, 3]
        distance = np.linalg.norm(here - target)
        assert r.position_error == pytest.approx(distance, abs=1e-12)
        assert r.position_error > 0.5
        for j in np.flatnonzero(~art.is_mimic):
            for h in (-1e-5, 1e-5):
                q = r.q.copy()
                q[j] = np.clip(q[j] + h, art.lower[j], art.upper[j])
                moved = np.linalg.norm(mb.frame_poses(art, q)[art.frame_index(frame)][:3, 3] - target)
                assert moved >= distance - 1e-11, (art.joint_names[j], h, distance - moved)


def test_an_unreachable_pose_ends_where_no_single_joint_lowers_the_cost():
    art, _ = robot("ur5")
    frame = "tool0"
    rng = np.random.default_rng(5)
    target = mb.frame_poses(art, inside(art, rng))[art.frame_index(frame)].copy()
    target[:3, 3] *= 3.0  # the same orientation, three times as far
    r = ik.solve(art, inside(art, rng), frame, target, max_iterations=3000)
    assert not r.converged and r.iterations < 3000

    def cost(q):
        e = ik._error(mb.frame_poses(art, q)[art.frame_index(frame)], target)
        return 0.5 * float(e @ e)

    here = cost(r.q)
    assert 0.5 * (r.position_error ** 2 + r.angle_error ** 2) == pytest.approx(here, rel=1e-12)
    for j in range(art.nq):
        for h in (-1e-5, 1e-5):
            q = r.q.copy()
            q[j] = np.clip(q[j] + h, art.lower[j], art.upper[j])
            assert cost(q) >= here - 1e-11


def test_a_singular_start_does_not_blow_up():
    """From UR5 stretched out with its wrist axes aligned (every joint at zero), every step stays within
    max_step and is finite; most targets are reached, the others end at a local minimum."""
    art, _ = robot("ur5")
    start = np.zeros(art.nq)
    J = mb.geometric_jacobian(art, start, "tool0")
    assert np.linalg.svd(J, compute_uv=False)[5] < 1e-9  # singular indeed
    rng = np.random.default_rng(6)
    reached = 0
    for _ in range(6):
        target = mb.frame_poses(art, inside(art, rng, 0.2))[art.frame_index("tool0")]
        iterates = []
        r = ik.solve(art, start, "tool0", target, callback=iterates.append, max_iterations=400)
        steps = np.abs(np.diff(np.array(iterates), axis=0)).max(axis=1)
        assert np.all(np.isfinite(steps)) and steps.max() <= 0.5 + 1e-12
        reached += r.converged
    assert reached >= 5


def test_a_target_at_a_singular_pose_is_reached():
    """The stretched-out UR5 itself as the target, from a bent start: damping carries it there."""
    art, _ = robot("ur5")
    target = mb.frame_poses(art, np.zeros(art.nq))[art.frame_index("tool0")]
    for start in ([0.2, -0.3, 0.4, 0.2, -0.3, 0.1], np.full(6, 0.1)):
        r = ik.solve(art, start, "tool0", target)
        assert r.converged and r.position_error <= TOL and r.angle_error <= TOL


def test_mimic_joints_follow_their_master():
    """Panda's right finger hangs on the mimic joint panda_finger_joint2: its master is the unknown, the
    follower follows in every answer, and the fingers' gap is found."""
    art, _ = robot("panda")
    frame = "panda_rightfinger"
    function = ik.ArticulationFrame(art, frame)
    assert "panda_finger_joint1" in function.names and "panda_finger_joint2" not in function.names
    rng = np.random.default_rng(7)
    f = art.joint_index("panda_finger_joint2")
    m = art.joint_index("panda_finger_joint1")
    for _ in range(6):
        answer = inside(art, rng)
        target = mb.frame_poses(art, answer)[art.frame_index(frame)]
        start = np.clip(answer + rng.uniform(-0.1, 0.1, art.nq), art.lower, art.upper)
        r = ik.solve(art, start, frame, target)
        assert r.converged
        assert r.q[f] == r.q[m] * art.mimic_multiplier[f] + art.mimic_offset[f]
        reached = pin_pose("panda", r.q, frame)
        assert np.linalg.norm(reached[:3, 3] - target[:3, 3]) <= TOL and angle_between(reached, target) <= TOL


def test_the_null_space_pulls_toward_the_middle_of_the_ranges():
    """Seven joints for a six-dimensional task: with the pull, the answer sits nearer the middle of the
    ranges than without it, and reaches the target as well."""
    art, _ = robot("panda")
    frame = "panda_hand"
    function = ik.ArticulationFrame(art, frame)
    centre = 0.5 * (function.lower + function.upper)
    rng = np.random.default_rng(8)
    nearer = 0
    for _ in range(8):
        answer = inside(art, rng)
        target = mb.frame_poses(art, answer)[art.frame_index(frame)]
        start = answer.copy()  # the answer moved a fifth of the way toward a limit of each joint
        side = np.where(rng.random(len(centre)) < 0.5, function.lower, function.upper)
        start[function.unknowns] += 0.2 * (side - answer[function.unknowns])
        pulled = ik.solve(art, start, frame, target)
        plain = ik.solve(art, start, frame, target, null_space_gain=0.0)
        assert pulled.converged and plain.converged
        # the pull descends the squared distance to the middle, each joint alike
        nearer += np.sum((pulled.x - centre) ** 2) < np.sum((plain.x - centre) ** 2)
    assert nearer >= 6


def test_the_damping_floor_shortens_the_first_step():
    """On a slide (J = I, position only) the first step is J^T (J J^T + lambda^2 I)^-1 e = e / (1 + lambda^2)
    with lambda^2 = mu E + damping, mu = 1 and E = |e|^2 / 2: more damping, a shorter step."""
    e = np.array([0.1, -0.05, 0.02])
    for damping in (0.0, 0.5, 2.0):
        iterates = []
        ik.solve_frame(Slide(), np.zeros(3), e, orientation=False, damping=damping, max_iterations=1,
                       callback=iterates.append)
        lam2 = 0.5 * float(e @ e) + damping
        assert np.allclose(iterates[1], e / (1.0 + lam2), rtol=1e-12, atol=0.0), damping


def test_refusals_carry_codes():
    art, _ = robot("ur5")
    target = np.eye(4)
    with pytest.raises(ik.IKError) as e:
        ik.solve(art, np.zeros(6), "no_such_link", target)
    assert e.value.code == "ik.frame" and "tool0" in e.value.message
    bad = target.copy()
    bad[0, 3] = np.nan
    with pytest.raises(ik.IKError) as e:
        ik.solve(art, np.zeros(6), "tool0", bad)
    assert e.value.code == "ik.target"
    with pytest.raises(ik.IKError) as e:
        ik.solve(art, np.zeros(6), "tool0", np.diag([1.0, 1.0, -1.0, 1.0]))  # a reflection
    assert e.value.code == "ik.target"
    with pytest.raises(ik.IKError) as e:
        ik.solve(art, np.zeros(6), "tool0", [0.3, 0.1, 0.2])  # a point asks for position only
    assert e.value.code == "ik.target"
    with pytest.raises(ik.IKError) as e:
        ik.solve(art, np.zeros(5), "tool0", target)
    assert e.value.code == "ik.start"
    with pytest.raises(ik.IKError) as e:
        ik.solve(art, [0, 0, 0, 0, 0, np.inf], "tool0", target)
    assert e.value.code == "ik.start"
    assert isinstance(e.value, ValueError)


def test_already_there_takes_no_iteration():
    art, _ = robot("ur5")
    q = inside(art, np.random.default_rng(9))
    r = ik.solve(art, q, "tool0", mb.frame_poses(art, q)[art.frame_index("tool0")])
    assert r.converged and r.iterations == 0 and np.array_equal(r.q, q)


# -- a rider's frame over both segments: the demo rig ------------------------------------------------------

def test_the_demo_rigs_rotor_is_solved_over_the_arm_and_the_motor():
    """The motor rides on the arm's tool0: its rotor's pose is sought over the arm's six joints and the
    motor's shaft together; Pinocchio's model of the whole rig (tests/oracle.py) checks the answers."""
    from oracle import demo_poses

    from mime_gui import RESOURCES
    from mime_gui.rig import rigfile
    from mime_gui.rig.build import build

    rig = build(rigfile.load(RESOURCES / "demo" / "demo.rig.json"))
    arm, motor = rig.segments["arm"], rig.segments["motor"]
    assert motor.mount == ("arm", "tool0")
    arm_art, motor_art = arm.articulation, motor.articulation
    function = ik.Mounted(ik.ArticulationFrame(arm_art, "tool0", world_X_base=arm.placement),
                          motor.placement, ik.ArticulationFrame(motor_art, "rotor"))
    assert function.names == (*arm_art.joint_names, "shaft")
    rng = np.random.default_rng(10)
    for _ in range(8):
        answer = np.append(inside(arm_art, rng), rng.uniform(-np.pi, np.pi))
        target = demo_poses(answer[:6], answer[6])["rotor"]
        start = np.clip(answer + rng.uniform(-0.15, 0.15, 7), function.lower, function.upper)
        r = ik.solve_frame(function, start, target)
        assert r.converged, (r.position_error, r.angle_error)
        arm_q, motor_q = r.q
        reached = demo_poses(arm_q, motor_q[0])["rotor"]
        assert np.linalg.norm(reached[:3, 3] - target[:3, 3]) <= TOL and angle_between(reached, target) <= TOL
        assert within_limits(arm_art, arm_q)


@pytest.mark.parametrize("start", [[0.1], [0.1, 0.2], "abc"], ids=["one value", "two values", "text"])
def test_a_frame_function_s_start_of_the_wrong_size_is_refused_not_broadcast(start):
    """Three unknowns: a start of one value is not spread over them, nor one of two left to numpy."""
    with pytest.raises(ik.IKError) as e:
        ik.solve_frame(Slide(), start, [0.1, 0.0, 0.0], orientation=False)
    assert e.value.code == "ik.start"
    assert "the start must be 3 finite values (x, y, z)" in e.value.message
