"""Named poses are edited as the items are: added, renamed, replaced and removed whole, each one undo step,
a value that is no pose refused with the rig unchanged."""

from __future__ import annotations

import pytest

from mime_gui import RESOURCES
from mime_gui.rig.poses import Pose
from mime_gui.session import AddItem, RemoveItem, RenameItem, ReplaceItem, Session, SessionError

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"


def test_add_rename_replace_remove_a_pose_each_one_undo_step():
    session = Session()
    session.open(DEMO_RIG)
    start = session.rig
    up = Pose({"arm": {"joint_2": 10}}, "deg|m")
    session.apply(AddItem("poses", "up", up))
    assert list(session.rig.poses) == [*start.poses, "up"] and session.history.undo_name == "Add pose up"
    session.apply(RenameItem("poses", "up", "raised"))
    assert list(session.rig.poses)[-1] == "raised" and session.rig.poses["raised"] == up
    session.apply(ReplaceItem("poses", "raised", Pose({"arm": {"joint_2": 20}}, "deg|m")))
    session.apply(RemoveItem("poses", "home"))
    assert "home" not in session.rig.poses
    for _ in range(4):
        session.undo()
    assert session.rig == start
    session.redo()
    assert session.rig.poses["up"] == up
    # the chain is not touched: nothing is drawn again
    assert session.apply(RenameItem("poses", "up", "u2")).changed == frozenset()


def test_a_pose_name_taken_or_a_value_that_is_no_pose_is_refused():
    session = Session()
    session.open(DEMO_RIG)
    before = session.rig
    with pytest.raises(SessionError) as taken:
        session.apply(AddItem("poses", "home", Pose({"arm": {"joint_1": 0}})))
    assert taken.value.code == "edit.name-taken"
    with pytest.raises(SessionError) as wrong:
        session.apply(AddItem("poses", "x", {"arm": {"joint_1": 0}}))
    assert wrong.value.code == "edit.value"
    assert session.rig is before and not session.can_undo


def test_renaming_a_segment_renames_it_in_the_poses():
    session = Session()
    session.open(DEMO_RIG)
    session.apply(RenameItem("chain", "motor", "spindle"))
    assert "spindle" in session.rig.poses["home"].values and session.findings == ()
    session.undo()
    assert "motor" in session.rig.poses["home"].values
