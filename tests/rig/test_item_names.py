"""Every item's name keeps the one rule of names (mime_gui.rig.names): non-empty text of at most 128
characters, without dots, control characters (a newline, a tab, a line separator) or surrounding spaces; a
name that breaks it is a finding of its own kind's code at its place, quoted on one line and cut short."""

from __future__ import annotations

import math

import pytest
from rig_helpers import snippet_rig

from mime_gui.rig import DeclaredFrame, FieldTarget, Keyframe, Pose, Probe, Sample, Trajectory, Zone
from mime_gui.rig.names import MAX_NAME_LENGTH, good_name
from mime_gui.rig.units import a_m2


def _with_name(collection: str, name: str):
    """The snippet rig with one item of ``collection`` under ``name`` (valid in every other way)."""
    rig = snippet_rig(probes={"p": Probe((0.0, 0.0, 0.03), mount="motor.rotor")})
    if collection in ("chain", "parts", "magnets", "probes"):
        items = getattr(rig, collection)
        old = {"chain": "motor", "parts": "holder", "magnets": "m1", "probes": "p"}[collection]
        # rebuilt in order: the chain's order is its meaning, and the parts mount on motor by name
        setattr(rig, collection, {(name if k == old else k): v for k, v in items.items()})
        if collection == "chain":
            for part in (*rig.parts.values(), *rig.magnets.values(), *rig.probes.values()):
                part.mount = part.mount.replace("motor.", f"{name}.", 1)
        return rig
    item = {
        "samples": lambda: Sample((0.3, 0.0, 0.1), moment=a_m2(1e-4, reason="a bead's datasheet")),
        "zones": lambda: Zone((0.3, 0.0, 0.1), sphere=0.02, reason="a chair"),
        "targets": lambda: FieldTarget("probes.p", direction=(0.0, 0.0, 1.0), tolerance=math.pi),
        "poses": lambda: Pose({"arm": {"joint_1": 0.2}}),
        "trajectories": lambda: Trajectory({"arm": [Keyframe(0.0, values={"joint_1": 0.0}),
                                                    Keyframe(1.0, values={"joint_1": 0.5})]}),
        "frames": lambda: DeclaredFrame("arm.link_6", at=(0.0, 0.0, 0.01)),
    }[collection]()
    getattr(rig, collection)[name] = item
    return rig


CODES = {"chain": "name.invalid", "parts": "name.invalid", "magnets": "name.invalid",
         "probes": "name.invalid", "samples": "sample.name", "zones": "zone.name", "targets": "target.name",
         "poses": "pose.name", "trajectories": "trajectory.name", "frames": "frame.name"}
LONGEST = "n" * MAX_NAME_LENGTH
BAD = {"newline": "a\nb", "tab": "a\tb", "carriage-return": "ab\r", "line-separator": "a\u2028b",
       "nul": "a\x00b", "delete": "a\x7fb", "c1-control": "a\x85b", "one-too-long": LONGEST + "n",
       "u-fffe": "a\ufffeb", "u-ffff": "a\uffffb"}


def _names(rig, collection):
    return [(f.code, f.where) for f in rig.validate() if f.code == CODES[collection]]


@pytest.mark.parametrize("collection", CODES)
def test_a_name_of_the_longest_length_is_taken(collection):
    rig = _with_name(collection, LONGEST)
    assert _names(rig, collection) == []
    assert [f for f in rig.validate() if f.where.startswith(f"{collection}.")] == []


@pytest.mark.parametrize("case", BAD)
@pytest.mark.parametrize("collection", CODES)
def test_a_name_with_a_control_character_or_too_long_is_refused_at_its_place(collection, case):
    name = BAD[case]
    assert _names(_with_name(collection, name), collection) == [(CODES[collection], f"{collection}.{name}")]


def test_the_message_quotes_a_refused_name_on_one_line_and_cut_short():
    name = "first line\nsecond line " + "x" * 5000
    (message,) = [f.message for f in _with_name("parts", name).validate() if f.code == "name.invalid"]
    assert message.startswith("'first line\\nsecond line xxxxxxxxxxxxxxxx…' is not a valid name: use "
                              "non-empty text of at most 128 characters, without dots, control characters "
                              "or surrounding spaces")
    assert "\n" not in message and len(message) < 200


@pytest.mark.parametrize("name, ok", [("rig", True), (" spaced title ", True), ("v1.2", True),
                                      ("a" * MAX_NAME_LENGTH, True), ("a" * (MAX_NAME_LENGTH + 1), False),
                                      ("rig\n", False), ("\trig", False), ("  ", False)],
                         ids=["plain", "spaces-around", "dots", "longest", "one-too-long", "newline", "tab",
                              "blank"])
def test_the_apparatus_name_is_a_title_without_control_characters_and_bounded(name, ok):
    rig = snippet_rig()
    rig.name = name
    assert [(f.code, f.where) for f in rig.validate() if f.where == "name"] == ([] if ok else
                                                                            [("name.invalid", "name")])


def test_a_frame_s_name_goes_without_colons_too():
    assert _names(_with_name("frames", "part:x"), "frames") == [("frame.name", "frames.part:x")]
    assert not good_name("part:x", forbidden=".:") and good_name("part:x")
