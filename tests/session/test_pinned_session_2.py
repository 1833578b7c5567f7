"""More session behaviour pinned by small checks: the findings a refused rig lists after its first, the event
live torques announce on, the overflow a player names, the endings a recording is refused for, a recovery
sidecar without a process id, the recovery folder made with its parents, and the poses a renderer forgets
with a removed segment."""

from __future__ import annotations

import json
import logging

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.rig import Apparatus, Arm, load
from mime_gui.session import FakeRenderer, Session, SessionError
from mime_gui.session.player import Player, PlayerError
from mime_gui.session.recorder import Recorder
from mime_gui.session.recovery import RecoveryStore
from mime_gui.session.transport import Transport

DEMO = RESOURCES / "demo"


def test_a_rig_refused_for_three_findings_lists_each_of_the_others_apart():
    rig = Apparatus("lab", chain={name: Arm.Kinematic(description=f"nowhere/{name}.urdf")
                                  for name in ("near", "mid", "far")})
    with pytest.raises(SessionError) as err:
        Session().open_apparatus(rig)
    message = err.value.message
    assert message.startswith("chain.near.description: ") and "(and 2 more: " in message
    # the two others follow one another, each starting with its own coded place after "; "
    others = message.split("(and 2 more: ", 1)[1]
    assert "; error[chain.description] chain.far.description: " in others
    assert others.startswith("error[chain.description] chain.mid.description: ")


def test_a_listener_of_the_live_torques_that_fails_is_logged_naming_the_live_torques_event(caplog):
    updated = Transport(Session()).live_torques.updated

    def broken():
        raise RuntimeError("broken listener")

    updated.connect(broken)
    with caplog.at_level(logging.ERROR, logger="mime_gui.session"), pytest.raises(RuntimeError):
        updated.emit()
    assert [r.getMessage() for r in caplog.records] == ["a listener of live_torques_updated failed"]


def test_a_shaft_command_whose_rate_overflows_is_refused_naming_the_angular_velocities(tmp_path):
    # 1e308 rad is a finite angle with finite poses (cos and sin), but reached in 0.01 s its rate,
    # 1e310 rad/s, is past the largest float: only the frames' angular velocities overflow
    session = Session()
    session.open(DEMO / "demo.rig.json")
    path = tmp_path / "huge.csv"
    path.write_text("time,motor.shaft\n0,0\n0.01,1e308\n0.02,0\n")
    with pytest.raises(PlayerError) as err:
        Player.for_document(session.document, path)
    assert err.value.code == "player.non-finite"
    assert "the frame angular velocities overflow at step 1 " in err.value.message


def test_a_recording_refused_for_its_ending_tells_to_choose_one_of_the_endings(tmp_path):
    session = Session()
    session.open(DEMO / "demo.rig.json")
    with pytest.raises(PlayerError) as err:
        Recorder(session).save(tmp_path / "take.txt")
    assert "choose one of those endings" in err.value.message


def test_a_sidecar_without_a_process_id_is_offered_as_left_by_no_running_process(tmp_path):
    # pid 1 (init) always runs: a missing pid read as 1 would hide the recovery for ever
    folder = tmp_path / "rec"
    folder.mkdir()
    (folder / "1-1.json").write_text(json.dumps({"original": "", "kind": "rig", "saved_at": 1.7e9}))
    (folder / "1-1.rig.json").write_text("{}")
    (item,) = RecoveryStore(folder).pending()
    assert (item.meta_file.name, item.pid) == ("1-1.json", 0)


def test_a_recovery_is_written_into_a_folder_whose_parents_do_not_exist_yet(tmp_path):
    folder = tmp_path / "state" / "mime-gui" / "recovery"  # a fresh account: no state folder at all
    store = RecoveryStore(folder)
    store.write(load(DEMO / "demo.rig.json"), str(DEMO / "demo.rig.json"), "rig")
    assert store.rig_file.is_file() and store.meta_file.is_file()


def test_a_renderer_forgets_the_poses_of_a_removed_segment_and_keeps_the_others():
    renderer = FakeRenderer()
    renderer.show_segments({"arm": "arm built", "motor": "motor built"})
    renderer.set_frame_poses("arm", np.eye(4)[None])
    renderer.set_frame_poses("motor", 2 * np.eye(4)[None])
    renderer.update_segments({}, removed=("arm",))
    assert list(renderer.segments) == ["motor"] and list(renderer.poses) == ["motor"]
    np.testing.assert_array_equal(renderer.poses["motor"], 2 * np.eye(4)[None])
