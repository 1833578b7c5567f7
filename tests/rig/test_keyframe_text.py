"""A keyframe's values as the Trajectory dock shows and takes them: each clause read back to the value it
shows, typed units converted by hand, and every clause it cannot read refused with ``trajectory.values``."""

from __future__ import annotations

import math

import pytest
from plain_ids import plain_id

from mime_gui.rig.keyframe_text import NOTHING, KeyframeTextError, keyframe_text, parse_keyframe_text
from mime_gui.rig.trajectories import Keyframe, Spin

KEY = Keyframe(2.5, values={"old": 1.0}, interpolation="quintic", fixed=True)


def unit_of(joint: str) -> str:
    return "mm" if joint.startswith("slide") else "deg"


def typed(text: str) -> Keyframe:
    return parse_keyframe_text(text, KEY, unit_of)


def test_values_in_the_trajectorys_unit_or_their_own():
    key = typed("joint_1 35°, joint_2 -0.5 rad, slide_1 1.2 cm, joint_3 12")
    assert dict(key.values) == {"joint_1": 35.0, "joint_2": pytest.approx(-0.5 * 180.0 / math.pi, rel=1e-15),
                                "slide_1": pytest.approx(12.0, rel=1e-15), "joint_3": 12.0}
    # time, interpolation and fixed are the keyframe's; what the text does not give is gone
    assert (key.time, key.interpolation, key.fixed, key.pose, key.frame, key.spin) == \
        (2.5, "quintic", True, None, None, None)


def test_pose_frame_and_spin_profiles():
    key = typed("pose 'over the sample', frame tool0, joint_1 5")
    assert key.pose == "over the sample" and key.frame == "tool0" and dict(key.values) == {"joint_1": 5.0}
    assert typed('pose "home"').pose == "home" and typed("pose home").pose == "home"
    assert typed("spin 5 Hz, ramp 0.5 s, hold 4 s").spin == Spin(5.0, "Hz", ramp=0.5, hold=4.0)
    assert typed("spin -300 rpm, ramp 1500 ms, 20 turns").spin == Spin(-300.0, "rpm", ramp=1.5, turns=20.0)
    assert typed("20 turns, spin 1 Hz").spin == Spin(1.0, "Hz", turns=20.0)  # in any order


@pytest.mark.parametrize("key", [
    Keyframe(1.0, values={"joint_1": 35.0, "slide_1": -2.5}),
    Keyframe(1.0, pose="over the sample", values={"joint_2": 0.125}, frame="tool0"),
    Keyframe(1.0, spin=Spin(5.0, "Hz", ramp=0.5, hold=4.0)),
    Keyframe(1.0, spin=Spin(120.0, "rpm", ramp=0.0, turns=7.5)),
    Keyframe(1.0),
])
def test_what_is_shown_reads_back_to_the_same_keyframe(key):
    text = keyframe_text(key, unit_of)
    assert parse_keyframe_text(text, key, unit_of) == key


def test_shown_text():
    assert keyframe_text(Keyframe(0.0, values={"joint_1": 35.0, "slide_1": 4.0}), unit_of) == \
        "joint_1 35°, slide_1 4 mm"
    assert keyframe_text(Keyframe(0.0), unit_of) == NOTHING
    assert typed(NOTHING) == typed("") == typed("   ")
    assert dict(typed("").values) == {}


@pytest.mark.parametrize("text", [
    "joint_1", "joint_1 35 apples", "joint_1 ٣٥", "joint_1 1_000", "joint_1 1e400", "joint_1 35 m",
    "joint_1 5, joint_1 6", "spin 5", "spin 5 kHz", "spin fast Hz", "ramp 1 s", "hold 2 s, 3 turns",
    "slide_1 3 deg", "pose", "x" * 20_000, "joint_1 5,, joint_2 6",
], ids=plain_id)
def test_what_cannot_be_read_is_refused_with_its_code(text):
    with pytest.raises(KeyframeTextError) as err:
        typed(text)
    assert err.value.code == "trajectory.values"


@pytest.mark.parametrize(("text", "clause"), [
    ("spin 5 Hz, ramp fast", "ramp: 'fast'"), ("spin 5 Hz, hold long", "hold: 'long'"),
], ids=["ramp", "hold"])
def test_a_spin_time_that_is_no_number_names_its_clause_and_the_unit_to_type(text, clause):
    with pytest.raises(KeyframeTextError) as err:
        typed(text)
    assert err.value.message.startswith(clause)
    assert "not a number in s" in err.value.message and "1.5 s" in err.value.message
