"""Small session contracts: a recording in memory is what its NPZ file reads back (no lines of a file, as
integers) and plays as the source ``recording``; a recovery sidecar's refusal shows a long value cut to 80
characters; the headless renderer ignores a removed segment it does not hold, as the scene view does; a
torque-driven segment that diverges is left at rest on its mount, its frames turning with the mount; a
failing listener of the transport's mode is logged under ``mode_changed``; and selecting says whether the
selection changed."""

from __future__ import annotations

import json
import logging

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.nodes import read_commands
from mime_gui.nodes.dynamic import DynamicArmNode
from mime_gui.session import FakeRenderer, ItemRef, Session
from mime_gui.session.recovery import RecoveryStore
from mime_gui.session.torque_drive import TorqueDrive
from mime_gui.session.transport import Transport

DEMO = RESOURCES / "demo" / "demo.rig.json"


def _recorded_transport():
    """The demo rig with a short recording made and stopped: (session, transport, recorder)."""
    session = Session()
    session.open(DEMO)
    transport = Transport(session)
    rec = transport.start_recording()
    session.set_command("arm", {"joint_1": 0.3})
    transport.tick(0.05)
    assert transport.stop_recording() is rec
    return session, transport, rec


def test_the_recording_in_memory_is_what_its_npz_file_reads_back_lines_included(tmp_path):
    _session, _transport, rec = _recorded_transport()
    recorded = rec.recorded()
    back = read_commands(rec.save(tmp_path / "take.npz"))
    assert recorded.joint_names == back.joint_names and recorded.units == back.units
    np.testing.assert_array_equal(recorded.time, back.time)
    np.testing.assert_array_equal(recorded.joint_positions, back.joint_positions)
    # no sample comes from a line of a file: 0 for each, as integers (line numbers), as an NPZ reads back
    assert isinstance(recorded.lines, np.ndarray) and recorded.lines.dtype == back.lines.dtype
    assert recorded.lines.dtype.kind == "i"
    np.testing.assert_array_equal(recorded.lines, np.zeros(rec.samples, dtype=int))


def test_a_recording_played_from_memory_has_the_source_recording():
    # the app names what it exports from a recording after this source ("recording"), not after a file
    _session, transport, rec = _recorded_transport()
    player = transport.open(rec.recorded())
    assert player.source == "recording" and player.recorded.path == "recording"
    assert player.rows == rec.samples


@pytest.mark.parametrize("length", [78, 200])
def test_a_long_value_in_a_sidecars_refusal_is_cut_to_80_characters(tmp_path, length):
    folder = tmp_path / "rec"
    folder.mkdir()
    (folder / "1-1.json").write_text(json.dumps({"pid": 0, "kind": "x" * length}), encoding="utf-8")
    (folder / "1-1.rig.json").write_text("{}", encoding="utf-8")
    store = RecoveryStore(folder)
    assert store.pending() == []
    message = store.skipped[0].message
    shown = message.split("got ", 1)[1].split("; it is left as it is", 1)[0]
    if length == 78:  # its repr is 80 characters: shown whole
        assert shown == "'" + "x" * 78 + "'"
    else:  # 77 characters of the repr and "...": 80 in all
        assert shown == "'" + "x" * 76 + "..." and len(shown) == 80


def test_the_headless_renderer_ignores_a_removed_segment_it_does_not_hold():
    # like the scene view (SceneView.update_segments), a name that is gone and was never drawn changes nothing
    renderer = FakeRenderer()
    renderer.show_segments({"arm": "tree of arm"})
    renderer.update_segments({"motor": "tree of motor"}, removed=("ghost", "arm"))
    assert renderer.segments == {"motor": "tree of motor"}
    assert renderer.calls == ["show_segments", "update_segments"]


def test_a_diverged_torque_drive_leaves_the_segment_at_rest_turning_with_its_mount():
    session = Session()
    session.open(DEMO)
    built = session.document.built
    seg = built.segments["motor"]  # mounted on the arm's flange
    kinematic = built.node("motor")
    node = DynamicArmNode(seg.dynamics_articulation, placement=seg.placement)
    drive = TorqueDrive(node, kinematic, True, np.asarray(seg.placement, dtype=float))
    drive.u = np.array([1e308])  # a torque the forward dynamics cannot follow
    start = kinematic.initial_state([0.25])
    mount_pose = np.eye(4)
    mount_rate = np.array([0.5, -1.0, 2.0])  # rad/s: the mount turning
    diverged = []
    state = drive.driver("motor", 0.01, diverged)(start, mount_pose, mount_rate)
    assert [name for name, _ in diverged] == ["motor"]
    np.testing.assert_array_equal(state.joint_positions, [0.25])
    assert state.joint_velocities is None  # at rest on its mount
    # the frames still turn with the mount: its rate on every frame
    turning = np.tile(mount_rate, (kinematic.art.nframes, 1))
    np.testing.assert_array_equal(state.frame_angular_velocities, turning)


def test_a_failing_listener_of_the_transports_mode_is_logged_naming_mode_changed(caplog):
    _session, transport, rec = _recorded_transport()
    transport.open(rec.recorded())
    assert transport.mode == "player"

    def broken(_mode):
        raise RuntimeError("broken listener")

    transport.mode_changed.connect(broken)
    with caplog.at_level(logging.ERROR, logger="mime_gui.session"), pytest.raises(RuntimeError):
        transport.take_over()  # back to live: the mode changes
    assert transport.mode == "live"
    logged = [r.getMessage() for r in caplog.records if r.name == "mime_gui.session"]
    assert logged == ["a listener of mode_changed failed"]


def test_selecting_says_whether_the_selection_changed():
    session = Session()
    session.open(DEMO)
    holder = ItemRef("", "part", "holder")
    assert session.view.select(holder) is True
    assert session.view.select(holder) is False  # already selected
    assert session.view.select(None) is True
    assert session.view.select(None) is False
    assert session.selection is None
