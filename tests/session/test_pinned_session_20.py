"""Session contracts pinned against mutation survivors:

* a frame declared on a segment is part of its drawing: adding one draws the segment again, with the frame;
* an added item goes where its ``index`` puts it (clamped to the collection), not only at the end;
* a value typed and put back is no undo step, and the edit after it starts a step of its own;
* live torques with nothing open: no dynamic segment, nothing kept;
* playing commands that overflow is refused with its code, not with numpy's overflow warnings;
* the fake renderer keeps a copy of the poses it is given (the caller may rewrite its array);
* an edit announces ``poses_changed`` once per drawn segment, by name;
* stand-ins cleared: no stand-in left, an empty set of refs;
* a torque drive's joint velocities are the caller's own float array, whatever the state held;
* the transport's ``player_changed`` event is named so (its listeners' failures are logged by that name);
* a recording started with a step records at that step.
"""

from __future__ import annotations

import logging
import warnings

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.nodes import NodeState
from mime_gui.rig import Box, Part
from mime_gui.rig.frames import DeclaredFrame
from mime_gui.rig.rules import analyse
from mime_gui.session import AddItem, FakeRenderer, Session, SetValue
from mime_gui.session.history import History, Step
from mime_gui.session.live_torques import LiveTorques
from mime_gui.session.player import Player, PlayerError
from mime_gui.session.stand_ins import StandIns
from mime_gui.session.torque_drive import velocities
from mime_gui.session.transport import Transport

DEMO = RESOURCES / "demo" / "demo.rig.json"


def demo() -> Session:
    session = Session()
    session.open(DEMO)
    return session


def test_the_frame_declared_on_a_segment_is_drawn_with_it():
    session = demo()
    tool0 = session.frame_world_pose("arm", "tool0")
    change = session.apply(AddItem("frames", "tip", DeclaredFrame("arm.tool0", at=(0.0, 0.0, 0.04))))
    # the arm's tree gains the frame: drawn again, not kept from the last drawing
    assert "arm" in change.changed
    assert "tip" in session.segment("arm").articulation.frame_names
    expected = tool0.copy()
    expected[:3, 3] += tool0[:3, :3] @ np.array([0.0, 0.0, 0.04])
    np.testing.assert_allclose(session.frame_world_pose("arm", "tip"), expected, atol=1e-12)


def test_the_index_of_an_added_item_is_its_place_in_the_collection():
    session = demo()
    part = Part(Box((0.01, 0.01, 0.01)), material="aluminium", mount="arm.link_3")
    session.apply(AddItem("parts", "first", part, index=0))
    assert list(session.rig.parts) == ["first", "holder"]
    session.apply(AddItem("parts", "beyond", part, index=99))  # past the end: at the end
    session.apply(AddItem("parts", "before", part, index=-5))  # before the start: first
    assert list(session.rig.parts) == ["before", "first", "holder", "beyond"]
    session.apply(AddItem("parts", "second", part, index=1))
    assert list(session.rig.parts) == ["before", "second", "first", "holder", "beyond"]


def test_the_edit_after_a_value_typed_and_put_back_is_a_step_of_its_own():
    history = History(clock=lambda: 0.0)  # every edit within the merge window
    history.push(Step("Set x", "r0", "r1", merge_key="x"))
    history.seal()  # another entry into the field: a step of its own
    assert history.push(Step("Set x", "r1", "r2", merge_key="x")) is False
    assert history.push(Step("Set x", "r2", "r1", merge_key="x")) is True  # put back: no step
    assert len(history) == 1
    # the step before the put-back one was sealed off: the next edit does not reach back into it
    assert history.push(Step("Set x", "r1", "r3", merge_key="x")) is False
    assert len(history) == 2
    undone = [history.undo() for _ in range(2)]
    assert [(s.before, s.after) for s in undone] == [("r1", "r3"), ("r0", "r1")]


def test_the_live_torques_of_no_document_are_none():
    session = Session()
    live = LiveTorques(session)
    assert live.dynamic is False
    live.clear()
    assert live.joint_names == () and live.effort_units == ()


def test_the_overflow_of_played_commands_is_refused_without_numpy_warnings(tmp_path):
    session = demo()
    path = tmp_path / "huge.csv"
    path.write_text("time,motor.shaft\n0,0\n0.01,1e308\n0.02,0\n")
    # the overflow is the player's to report, with its place: numpy's own warnings are kept quiet
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(PlayerError) as err:
            Player.for_document(session.document, path)
    assert err.value.code == "player.non-finite"


def test_the_fake_renderer_keeps_a_copy_of_the_frame_poses():
    renderer = FakeRenderer()
    poses = np.tile(np.eye(4), (2, 1, 1))
    renderer.set_frame_poses("arm", poses)
    poses[:, :3, 3] = 5.0  # the caller rewrites its array afterwards (Renderer.set_frame_poses)
    np.testing.assert_array_equal(renderer.poses["arm"], np.tile(np.eye(4), (2, 1, 1)))


def test_an_edit_announces_the_poses_of_every_segment_by_name():
    session = demo()
    moved = []
    session.poses_changed.connect(moved.append)
    session.apply(SetValue("chain.arm.at", (0.1, 0.0, 0.0)))
    assert moved == ["arm", "motor"]


def test_the_stand_ins_cleared_are_an_empty_set():
    session = demo()
    rig = session.rig
    broken = SetValue("parts.holder.geometry", Box((0.0, 0.01, 0.01))).apply(rig)
    stand_ins = StandIns()
    stand_ins.display(rig, analyse(rig))
    stand_ins.display(broken, analyse(broken))
    assert len(stand_ins.refs) == 1  # the holder, drawn as it last was
    stand_ins.clear()
    assert stand_ins.refs == frozenset()
    assert stand_ins.display(broken, analyse(broken))[0] is broken  # nothing remembered to stand in


def test_a_torque_drive_s_velocities_are_the_caller_s_own_floats():
    state = NodeState(np.zeros(2), np.tile(np.eye(4), (1, 1, 1)), np.zeros((1, 3)),
                      joint_velocities=np.array([1, 2]))
    v = velocities(state)
    v *= 0.5  # a float array of its own: scaled in place, the state untouched
    np.testing.assert_array_equal(v, [0.5, 1.0])
    np.testing.assert_array_equal(state.joint_velocities, [1, 2])


def test_a_failing_listener_of_player_changed_is_logged_by_the_event_s_name(caplog):
    session = demo()
    transport = Transport(session)

    def broken(_player):
        raise RuntimeError("broken listener")

    player = Player.for_document(session.document, RESOURCES / "demo" / "chain.csv")
    transport.player_changed.connect(broken)
    caplog.clear()  # the description's own warnings, logged when it was read
    with caplog.at_level(logging.ERROR, logger="mime_gui.session"), pytest.raises(RuntimeError):
        transport.load(player)
    assert [r.getMessage() for r in caplog.records] == ["a listener of player_changed failed"]


def test_a_recording_started_with_a_step_records_at_that_step():
    session = demo()
    transport = Transport(session)
    rec = transport.start_recording(0.02)
    assert rec.step == 0.02
    transport.tick(0.1)  # five steps of 0.02 s after the first row
    assert rec.samples == 6
    np.testing.assert_allclose(rec.recorded().time, 0.02 * np.arange(6))
