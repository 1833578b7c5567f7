"""Edits refused where the rig has no such item, collection or kind (code, rig path and the words that say
why), edits that leave the rig as it is, and several edits applied as one undo step (``Together``)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from mime_gui import RESOURCES
from mime_gui.rig import Box, Part, load
from mime_gui.rig.probes import Probe
from mime_gui.rig.targets import FieldTarget
from mime_gui.session import (
    AddItem,
    FakeRenderer,
    RemoveItem,
    RenameItem,
    ReplaceRig,
    Session,
    SessionError,
    SetKind,
    SetValue,
    Together,
)
from mime_gui.session.edits import EDITABLE, Edit, EditError, Remount

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"


@pytest.fixture(scope="module")
def rig():
    """The demo rig: segments arm and motor, part holder, magnet m1, probe sample."""
    return load(DEMO_RIG)


def refusal(edit, rig) -> tuple[str, str, str]:
    with pytest.raises(EditError) as err:
        edit.apply(rig)
    return err.value.code, err.value.where, err.value.message


# -- refusals ---------------------------------------------------------------------------------------------
def test_an_edit_of_a_collection_the_rig_does_not_have_names_those_it_has(rig):
    code, where, message = refusal(AddItem("widgets", "w", None), rig)
    assert (code, where) == ("edit.collection", "widgets")
    assert message == "items live in " + ", ".join(EDITABLE) and "parts" in message and "poses" in message
    with pytest.raises(EditError) as err:  # a remount names its path when it is made
        Remount("widgets", "w", "arm.tool0")
    assert (err.value.code, err.value.where) == ("edit.collection", "widgets")


@pytest.mark.parametrize("edit, where, message", [
    (RemoveItem("parts", "cup"), "parts.cup", "no part 'cup'"),
    (RemoveItem("magnets", "m2"), "magnets.m2", "no magnet 'm2'"),
    (RenameItem("probes", "tip", "point"), "probes.tip", "no probe 'tip'"),
    (SetKind("stage", "Arm.Dynamic"), "chain.stage", "no segment 'stage'"),
], ids=["remove a part", "remove a magnet", "rename a probe", "switch a segment"])
def test_an_edit_of_an_item_that_is_not_there_is_refused_at_its_path(rig, edit, where, message):
    assert refusal(edit, rig) == ("edit.path", where, message)


def test_renaming_onto_a_name_taken_is_refused_and_onto_its_own_name_is_not(rig):
    assert refusal(RenameItem("chain", "arm", "motor"), rig) == (
        "edit.name-taken", "chain.arm", "'motor' is already a segment; choose another name")
    same = RenameItem("chain", "arm", "arm").apply(rig)
    assert list(same.chain) == ["arm", "motor"] and same.chain["motor"].mount == rig.chain["motor"].mount


@pytest.mark.parametrize("edit, where, taken", [
    (RenameItem("parts", "holder", "m1"), "parts.holder", "'m1' is already a magnet"),
    (RenameItem("magnets", "m1", "holder"), "magnets.m1", "'holder' is already a part"),
    (RenameItem("probes", "sample", "motor"), "probes.sample", "'motor' is already a segment"),
    (RenameItem("chain", "motor", "sample"), "chain.motor", "'sample' is already a probe"),
    (AddItem("magnets", "holder", None), "magnets.holder", "'holder' is already a part"),
    (AddItem("chain", "m1", None), "chain.m1", "'m1' is already a magnet"),
], ids=["part onto a magnet", "magnet onto a part", "probe onto a segment", "segment onto a probe",
        "new magnet onto a part", "new segment onto a magnet"])
def test_items_share_one_set_of_names_so_a_clash_with_another_kind_is_refused(rig, edit, where, taken):
    # a clash would leave the rule name.duplicate on the other item, which the user did not touch
    assert refusal(edit, rig) == ("edit.name-taken", where, f"{taken}; choose another name")


def test_a_pose_and_a_trajectory_have_names_of_their_own(rig):
    from mime_gui.rig import Keyframe, Pose, Trajectory

    with_pose = AddItem("poses", "holder", Pose({"arm": {"joint_1": 0.1}})).apply(rig)
    renamed = RenameItem("poses", "holder", "motor").apply(with_pose)
    assert "motor" in renamed.poses and "holder" not in renamed.poses and renamed.validate() == []
    trajectory = Trajectory({"arm": [Keyframe(0.0, values={"joint_1": 0.0}), Keyframe(1.0, pose="motor")]})
    assert "m1" in AddItem("trajectories", "m1", trajectory).apply(renamed).trajectories


def test_switching_a_segment_to_the_kind_it_is_leaves_the_rig_itself(rig):
    assert SetKind("arm", "Arm.Dynamic").apply(rig) is rig


def test_a_rig_is_replaced_only_by_a_rig(rig):
    assert refusal(ReplaceRig({"name": "demo"}), rig) == ("edit.value", "", "a rig replaces a rig, got dict")
    other = load(DEMO_RIG)
    assert ReplaceRig(other).apply(rig) is other


def test_a_refused_edit_reaches_the_session_with_its_code_and_path():
    s = Session()
    s.open(DEMO_RIG)
    seen = []
    s.error.connect(seen.append)
    with pytest.raises(SessionError) as err:
        s.apply(RemoveItem("parts", "cup"))
    assert (err.value.code, err.value.file, err.value.message) == ("edit.path", "parts.cup", "no part 'cup'")
    assert seen == [err.value] and not s.can_undo


def test_an_edit_kind_that_does_not_say_its_name_apply_or_touched_fails_loudly(rig):
    @dataclass(frozen=True)
    class Bare(Edit):
        pass

    bare = Bare()
    assert bare.merge_key is None and bare.changes(rig)
    for use in (lambda: bare.name, lambda: bare.apply(rig), lambda: bare.touched(rig)):
        with pytest.raises(NotImplementedError):
            use()


def test_a_set_value_at_a_path_the_rig_does_not_have_touches_nothing(rig):
    assert SetValue("parts.cup.at", (0, 0, 0)).touched(rig) == frozenset()
    assert SetValue("parts.holder.at", (0, 0, 0)).touched(rig) == frozenset({"parts.holder"})


# -- renames that reach into targets ----------------------------------------------------------------------
def test_renaming_a_probe_renames_only_the_targets_aimed_at_it(rig):
    with_targets = AddItem("probes", "tip", Probe((0, 0, 0.1))).apply(rig)
    for name, at, direction in (("up", "probes.sample", (0, 0, 1)), ("side", "probes.tip", (1, 0, 0))):
        with_targets = AddItem("targets", name, FieldTarget(at, direction=direction)).apply(with_targets)
    renamed = RenameItem("probes", "tip", "point").apply(with_targets)
    assert {n: t.at for n, t in renamed.targets.items()} == {"up": "probes.sample", "side": "probes.point"}
    assert renamed.targets["side"].direction == (1.0, 0.0, 0.0)
    # a probe no target aims at: the targets are left as they were
    again = RenameItem("probes", "point", "tip").apply(
        RemoveItem("targets", "side").apply(renamed))
    assert again.targets == {"up": with_targets.targets["up"]} and list(again.probes) == ["sample", "tip"]


# -- several edits as one step ----------------------------------------------------------------------------
def test_edits_together_apply_in_order_as_one_undo_step_under_their_label():
    s = Session()
    s.attach_renderer(FakeRenderer())
    s.open(DEMO_RIG)
    before = s.rig
    place = Together("Place the box", (
        AddItem("parts", "box", Part(Box((0.01, 0.01, 0.01)), mount="motor.rotor")),
        SetValue("parts.box.at", (0.0, 0.0, 0.02)),  # needs the box added first
    ))
    assert place.name == "Place the box"
    s.apply(place)
    assert s.rig.parts["box"].at == (0.0, 0.0, 0.02) and len(s.history) == 1
    assert s.history.undo_name == "Place the box"
    s.undo()
    assert s.rig is before and "box" not in s.rig.parts and not s.can_undo


def test_edits_together_touch_what_each_touches_even_past_one_that_would_be_refused(rig):
    together = Together("Tidy", (
        RemoveItem("parts", "cup"),  # refused on this rig: counted, and the next edits still looked at
        RenameItem("parts", "holder", "cradle"),
        SetValue("magnets.m1.at", (0.0, 0.0, 0.01)),
    ))
    assert together.touched(rig) == frozenset({"parts.cup", "parts.holder", "parts.cradle", "magnets.m1"})
