"""Reaching a target with a frame of any segment of the chain node: the joints of every segment from the world
down to the frame's, across mounts; Pinocchio's model of the whole demo rig (tests/oracle.py) is the
oracle, and the chain node's own placing of the answer must show the frame at the target."""

from __future__ import annotations

import numpy as np
import pytest
from oracle import demo_poses

from mime_gui import RESOURCES
from mime_gui.multibody.inverse_kinematics import IKError, _rotation_log
from mime_gui.rig import rigfile
from mime_gui.rig.build import build
from mime_gui.rig.reach import path_to

TOL = 1e-9


@pytest.fixture(scope="module")
def demo():
    built = build(rigfile.load(RESOURCES / "demo" / "demo.rig.json"))
    chain = built.chain_node()
    return built, chain


def _angle(A, B) -> float:
    return float(np.linalg.norm(_rotation_log(A[:3, :3] @ B[:3, :3].T)))


def _inside(art, rng, margin=0.05):
    lo = np.where(np.isfinite(art.lower), art.lower, -np.pi)
    hi = np.where(np.isfinite(art.upper), art.upper, np.pi)
    return rng.uniform(lo + margin * (hi - lo), hi - margin * (hi - lo))


def test_the_path_runs_from_the_world_to_the_frames_segment(demo):
    _, chain = demo
    assert path_to(chain, "motor") == ["arm", "motor"]
    assert path_to(chain, "arm") == ["arm"]
    assert chain.mount_of("motor") == ("arm", chain.segments["arm"].articulation.frame_index("tool0"))
    assert chain.mount_of("arm") is None


def test_a_riders_frame_is_reached_over_its_carriers_joints_and_its_own(demo):
    built, chain = demo
    arm_art = built.segments["arm"].articulation
    rng = np.random.default_rng(4)
    for _ in range(6):
        arm, shaft = _inside(arm_art, rng), rng.uniform(-np.pi, np.pi)
        target = demo_poses(arm, shaft)["rotor"]  # Pinocchio's, not ours
        start = chain.initial_state({"arm": np.clip(arm + rng.uniform(-0.15, 0.15, 6), arm_art.lower,
                                                    arm_art.upper),
                                     "motor": [shaft + rng.uniform(-0.15, 0.15)]})
        found = chain.reach(start, "motor", "rotor", target)
        assert found.result.converged, (found.result.position_error, found.result.angle_error)
        assert set(found.positions) == {"arm", "motor"}
        assert found.result.joints == (*(f"arm.{j}" for j in arm_art.joint_names), "motor.shaft")
        # Pinocchio's forward kinematics of the answer, and the chain node placing it, both at the target
        pin = demo_poses(found.positions["arm"], found.positions["motor"][0])["rotor"]
        assert np.linalg.norm(pin[:3, 3] - target[:3, 3]) <= TOL and _angle(pin, target) <= TOL
        placed = chain.initial_state(found.positions)
        rotor = placed["motor"].frame_poses[chain.segments["motor"].articulation.frame_index("rotor")]
        assert np.linalg.norm(rotor[:3, 3] - target[:3, 3]) <= TOL and _angle(rotor, target) <= TOL
        arm_q = found.positions["arm"]
        assert np.all(arm_q >= arm_art.lower) and np.all(arm_q <= arm_art.upper)


def test_a_frame_of_the_first_segment_moves_that_segment_alone(demo):
    built, chain = demo
    arm_art = built.segments["arm"].articulation
    rng = np.random.default_rng(5)
    arm = _inside(arm_art, rng)
    target = demo_poses(arm)["stator"]  # the arm's tool0, by Pinocchio
    state = chain.initial_state({"arm": np.clip(arm + 0.1, arm_art.lower, arm_art.upper), "motor": [0.7]})
    found = chain.reach(state, "arm", "tool0", target)
    assert found.result.converged and list(found.positions) == ["arm"]
    pin = demo_poses(found.positions["arm"])["stator"]
    assert np.linalg.norm(pin[:3, 3] - target[:3, 3]) <= TOL and _angle(pin, target) <= TOL


def test_a_point_out_of_reach_ends_at_the_nearest_pose_with_its_distance(demo):
    _, chain = demo
    rotor_index = chain.segments["motor"].articulation.frame_index("rotor")
    far = np.array([3.0, 0.0, 0.4])  # the arm is about a metre long

    def distance(positions):
        rotor = chain.initial_state(positions)["motor"].frame_poses[rotor_index]
        return float(np.linalg.norm(far - rotor[:3, 3]))

    found = chain.reach(chain.initial_state(), "motor", "rotor", far, orientation=False, max_iterations=3000)
    assert not found.result.converged
    assert found.result.position_error == pytest.approx(distance(found.positions), rel=1e-9)
    # a local minimum: no joint of either segment moved a little (within its limits) comes closer
    best = distance(found.positions)
    for name, q in found.positions.items():
        art = chain.segments[name].articulation
        for j in range(len(q)):
            for h in (-1e-5, 1e-5):
                moved = dict(found.positions)
                moved[name] = q.copy()
                moved[name][j] = np.clip(q[j] + h, art.lower[j], art.upper[j])
                assert distance(moved) >= best - 1e-12, (name, j, h)


@pytest.mark.parametrize("side", ["lower", "upper"])
def test_a_target_past_a_joint_s_limit_leaves_that_joint_on_it_and_named(demo, side):
    built, chain = demo
    lower = side == "lower"
    limit = getattr(built.segments["arm"].articulation, side)[1]
    assert limit == (-1.8 if lower else 1.8)  # joint_2's, in the demo's arm.urdf
    arm = np.array([0.3, limit, 2.5 if lower else -1.0, 0.2, 0.5, 0.1])
    beyond = arm.copy()
    beyond[1] = limit + (-0.4 if lower else 0.4)
    target = demo_poses(beyond, 0.4)["rotor"]  # Pinocchio's pose with joint_2 0.4 rad past its limit
    found = chain.reach(chain.initial_state({"arm": arm, "motor": [0.4]}), "motor", "rotor", target)
    assert not found.result.converged
    assert found.positions["arm"][1] == limit
    # the caller (the app's posing) reads which joints stopped it, named segment.joint
    stopped = (("arm.joint_2",), ()) if lower else ((), ("arm.joint_2",))
    assert (found.result.at_lower, found.result.at_upper) == stopped


def test_refusals(demo):
    _, chain = demo
    state = chain.initial_state()
    with pytest.raises(KeyError):
        chain.reach(state, "table", "rotor", np.eye(4))
    with pytest.raises(IKError) as err:
        chain.reach(state, "motor", "flange", np.eye(4))
    assert err.value.code == "ik.frame"
    with pytest.raises(IKError) as err:
        chain.reach(state, "motor", "rotor", np.full((4, 4), np.nan))
    assert err.value.code == "ik.target"
