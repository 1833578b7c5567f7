"""A pose's own refusals (what the constructor takes: tables of numbers by segment and joint, a pose unit,
units of values it holds), its items in the order written, the nearest number when none reads back exactly,
the centre and random positions of joints without a finite range, and a pose's command file refused for an
unknown name or a step it cannot hold."""

from __future__ import annotations

import math

import numpy as np
import pytest
from rig_helpers import DEMO_RIG

from mime_gui.multibody.tree import Joint, Limit, Link, MultibodyTree
from mime_gui.rig import Pose, load
from mime_gui.rig.poses import UNIT_FACTORS, centre, pose_commands, pose_of, randomize, written


# -- the constructor -------------------------------------------------------------------------------------
@pytest.mark.parametrize("values, words", [
    ([("arm", {"j": 1.0})], "values maps segment names to {joint: value}, got [("),
    ({3: {"j": 1.0}}, "values maps segment names to {joint: value}, got 3: {'j': 1.0}"),
    ({"arm": [1.0]}, "values maps segment names to {joint: value}, got 'arm': [1.0]"),
    ({"arm": {7: 1.0}}, "values: a joint's name is text, got 7"),
    ({"arm": {"j": True}}, "values.arm.j is a number, got True"),
    ({"arm": {"j": "1.0"}}, "values.arm.j is a number, got '1.0'"),
], ids=["not-a-table", "segment-not-text", "joints-not-a-table", "joint-not-text", "bool", "text"])
def test_a_pose_refuses_values_that_are_not_numbers_by_segment_and_joint(values, words):
    with pytest.raises(TypeError) as info:
        Pose(values)
    assert str(info.value).startswith(words)


def test_a_pose_unit_outside_the_list_is_refused_naming_every_unit():
    with pytest.raises(ValueError) as info:
        Pose({"arm": {"j": 1.0}}, unit="deg|inch")
    assert str(info.value) == "a pose's unit is one of rad|m, rad|mm, deg|m, deg|mm, got 'deg|inch'"


def test_a_value_s_own_unit_must_be_known_and_of_a_value_the_pose_holds():
    with pytest.raises(ValueError) as info:
        Pose({"arm": {"j": 1.0}}, units={"arm": {"j": "inch"}})
    assert str(info.value) == "units.arm.j: unknown unit 'inch'; units: rad, deg, m, mm"
    with pytest.raises(ValueError) as info:
        Pose({"arm": {"j": 1.0}}, units={"arm": {"k": "deg"}})
    assert str(info.value) == "units.arm.k: a unit for a value the pose does not hold"
    with pytest.raises(ValueError) as info:  # the same joint name under another segment is another value
        Pose({"arm": {"j": 1.0}}, units={"motor": {"j": "deg"}})
    assert str(info.value) == "units.motor.j: a unit for a value the pose does not hold"


def test_a_pose_s_items_are_its_values_as_written_in_the_order_written():
    pose = Pose({"motor": {"shaft": 90}, "arm": {"joint_3": 45.0, "joint_2": -30.0}}, "deg|mm",
                units={"arm": {"joint_2": "rad"}})
    assert list(pose.items()) == [("motor", "shaft", 90.0), ("arm", "joint_3", 45.0),
                                  ("arm", "joint_2", -30.0)]
    assert list(Pose({}).items()) == []


# -- written -------------------------------------------------------------------------------------------
def test_a_value_no_short_number_reads_back_to_is_written_as_the_nearest():
    value = 0.8217701239287258  # rad: no decimal of up to 17 digits, times pi/180, gives it back exactly
    factor = math.pi / 180.0
    exact = value / factor
    assert not any(float(f"{exact:.{d}g}") * factor == value for d in range(1, 18))
    assert written(value, "deg") == exact
    assert written(value, "deg") == pytest.approx(math.degrees(value), rel=1e-15)
    assert written(0.5, "deg") * UNIT_FACTORS["deg"] == 0.5  # one that does read back, for contrast


# -- centre and random positions of joints without a finite range --------------------------------------------
def _free_joints() -> object:
    """A slide with no limits, a hinge bounded above only (at 1 rad) and one bounded below only (at -1)."""
    links = {n: Link(n) for n in ("a", "b", "c", "d")}
    joints = {
        "slide": Joint("slide", "prismatic", "a", "b", np.eye(4), axis=np.array([1.0, 0.0, 0.0]),
                       limit=Limit(-np.inf, np.inf)),
        "upper_only": Joint("upper_only", "revolute", "b", "c", np.eye(4), axis=np.array([0.0, 0.0, 1.0]),
                            limit=Limit(-np.inf, 1.0)),
        "lower_only": Joint("lower_only", "revolute", "c", "d", np.eye(4), axis=np.array([0.0, 1.0, 0.0]),
                            limit=Limit(-1.0, np.inf)),
    }
    return MultibodyTree(name="free", links=links, joints=joints, root="a", source="<test>").compile()


def test_a_slide_without_limits_draws_zero_and_a_half_bounded_hinge_draws_within_its_bound_and_a_turn():
    art = _free_joints()
    assert list(art.lower) == [-np.inf, -np.inf, -1.0] and list(art.upper) == [np.inf, 1.0, np.inf]
    rng = np.random.default_rng(4)
    draws = [randomize(art, rng) for _ in range(400)]
    assert {d["slide"] for d in draws} == {0.0}
    upper_only = np.array([d["upper_only"] for d in draws])
    assert upper_only.min() >= -math.pi and upper_only.max() <= 1.0
    assert upper_only.min() < -math.pi + 0.1 and upper_only.max() > 0.9  # spread over [-pi, 1]
    lower_only = np.array([d["lower_only"] for d in draws])
    assert lower_only.min() >= -1.0 and lower_only.max() <= math.pi
    assert lower_only.min() < -0.9 and lower_only.max() > math.pi - 0.1  # spread over [-1, pi]


def test_a_joint_without_a_finite_range_centres_at_zero_even_when_bounded_on_one_side():
    # the middle of (-inf, 1] or [-1, inf) is no number: such a joint centres at 0, as a slide with no limits
    assert centre(_free_joints()) == {"slide": 0.0, "upper_only": 0.0, "lower_only": 0.0}


# -- refusals of pose_of and pose_commands ------------------------------------------------------------------
def test_pose_of_refuses_a_unit_outside_the_list():
    built = load(DEMO_RIG).build()
    with pytest.raises(ValueError) as info:
        pose_of(built, {"arm": {"joint_1": 0.5}}, "deg")
    assert str(info.value) == "a pose's unit is one of rad|m, rad|mm, deg|m, deg|mm, got 'deg'"


def test_a_pose_command_file_of_an_unknown_pose_names_the_rig_s_poses():
    rig = load(DEMO_RIG)
    built = rig.build()
    rig.poses.clear()
    with pytest.raises(KeyError) as info:
        pose_commands(rig, built, "home", 1.0, 0.01)
    assert info.value.args[0] == "no pose 'home'; poses: (none)"
    rig.poses["up"] = Pose({"arm": {"joint_2": 0.1}})
    rig.poses["down"] = Pose({"arm": {"joint_2": -0.1}})
    with pytest.raises(KeyError) as info:
        pose_commands(rig, built, "Up", 1.0, 0.01)  # names are matched as written, case included
    assert info.value.args[0] == "no pose 'Up'; poses: up, down"


@pytest.mark.parametrize("duration, dt", [
    (1.0, 0.0), (1.0, -0.01), (1.0, math.nan), (1.0, math.inf), (0.005, 0.01), (math.nan, 0.01),
    (math.inf, 0.01),
], ids=["zero-step", "negative-step", "nan-step", "inf-step", "hold-under-a-step", "nan-hold", "inf-hold"])
def test_a_pose_command_file_refuses_a_step_or_a_hold_it_cannot_sample(duration, dt):
    rig = load(DEMO_RIG)
    rig.poses["p"] = Pose({"arm": {"joint_1": 0.2}})
    built = rig.build()
    with pytest.raises(ValueError) as info:
        pose_commands(rig, built, "p", duration, dt)
    assert str(info.value) == (f"the step must be positive and the hold at least one step, got dt={dt} s, "
                               f"hold={duration} s")


def test_a_hold_of_exactly_one_step_gives_the_start_and_one_sample_of_the_pose():
    rig = load(DEMO_RIG)
    rig.poses["p"] = Pose({"arm": {"joint_1": 0.2}})
    recorded = pose_commands(rig, rig.build(), "p", 0.01, 0.01)
    assert list(recorded.time) == [0.0, 0.01]
    assert recorded.joint_names == ("arm.joint_1",) and recorded.joint_positions[1, 0] == 0.2
