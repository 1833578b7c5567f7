"""The transport without Qt: a loaded trajectory shown bit for bit, playing on the wall clock, taking over
with a command, and what an edit or another document does to the player and a recording."""

from __future__ import annotations

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.rig import Box, Part
from mime_gui.session import AddItem, FakeRenderer, Session, SessionError, SetValue
from mime_gui.session.player import Player
from mime_gui.session.transport import Transport

DEMO = RESOURCES / "demo"


class FakeClock:
    def __init__(self):
        self.t = 50.0

    def __call__(self):
        return self.t


@pytest.fixture
def rig():
    session = Session()
    renderer = FakeRenderer()
    session.attach_renderer(renderer)
    session.open(DEMO / "demo.rig.json")
    clock = FakeClock()
    transport = Transport(session)
    player = Player.for_document(session.document, DEMO / "chain.csv", now=clock)
    return session, renderer, transport, player, clock


def assert_shows_row(session, renderer, player, n):
    t = player.trajectory
    for c in player.columns:
        assert np.array_equal(session.segment(c.name).world_X_frame, t.frame_poses[n, c.frames])
        assert np.array_equal(renderer.poses[c.name], t.frame_poses[n, c.frames])
        assert np.array_equal(session.joint_positions(c.name), t.joint_positions[n, c.joints])
        assert np.array_equal(session.command(c.name), player.schedule.commands[n, c.commands])
        frame = session.segment(c.name).articulation.frame_names[-1]
        assert np.array_equal(session.frame_angular_velocity(c.name, frame),
                              t.frame_angular_velocities[n, c.frames][-1])


def test_loading_and_seeking_show_the_rows_bit_for_bit(rig):
    session, renderer, transport, player, _ = rig
    rows, modes = [], []
    transport.playhead_changed.connect(rows.append)
    transport.mode_changed.connect(modes.append)
    transport.load(player)
    assert transport.mode == "player" and modes == ["player"]
    assert_shows_row(session, renderer, player, 0)
    for n in (120, 7, 200, 0, 133):
        transport.seek(n)
        assert_shows_row(session, renderer, player, n)
    transport.step(1)
    transport.step(-5)
    assert_shows_row(session, renderer, player, 129)
    assert rows == [0, 120, 7, 200, 0, 133, 134, 129]


def test_paused_ticks_keep_the_row_and_playing_ticks_follow_the_wall_clock(rig):
    session, renderer, transport, player, clock = rig
    transport.load(player)
    transport.seek(40)
    for _ in range(5):
        transport.tick(0.016)  # the arm lags its command, but a paused player holds the row
    assert_shows_row(session, renderer, player, 40)
    transport.play()
    clock.t += 0.3
    transport.tick(0.3)
    assert player.row == 55
    assert_shows_row(session, renderer, player, 55)
    transport.toggle()
    assert not player.playing
    clock.t += 1.0
    transport.tick(1.0)
    assert player.row == 55


def test_a_command_takes_over_from_the_row_shown(rig):
    session, renderer, transport, player, clock = rig
    transport.load(player)
    transport.seek(100)
    transport.play()
    q = session.joint_positions("arm")
    transport.take_over()
    assert transport.mode == "live" and not player.playing
    session.set_command("arm", {"joint_1": 1.5})
    transport.tick(0.02)
    tau = session.rig.chain["arm"].servo_time_constant
    j1 = session.segment("arm").articulation.joint_index("joint_1")
    expected = 1.5 + (q[j1] - 1.5) * np.exp(-0.02 / tau)
    assert session.joint_positions("arm")[j1] == pytest.approx(expected, abs=1e-12)
    # seeking comes back to the player
    transport.seek(10)
    assert transport.mode == "player"
    assert_shows_row(session, renderer, player, 10)


def test_an_edit_plays_the_commands_again_and_a_broken_rig_unloads_them(rig):
    session, renderer, transport, player, _ = rig
    transport.load(player)
    transport.seek(60)
    players = []
    transport.player_changed.connect(players.append)
    session.apply(SetValue("chain.arm.servo_time_constant", 0.3))
    again = transport.player
    assert again is not player and players == [again] and again.row == 60
    assert not np.array_equal(again.trajectory.joint_positions, player.trajectory.joint_positions)
    assert_shows_row(session, renderer, again, 60)
    session.apply(AddItem("parts", "lost", Part(Box((0.01, 0.01, 0.01)), material="aluminium",
                                                mount="arm.no_such_frame")))
    assert transport.player is None and transport.mode == "live" and players[-1] is None


def test_another_document_unloads_the_player_and_stops_the_recording(rig):
    session, _, transport, player, _ = rig
    transport.load(player)
    rec = transport.start_recording()
    assert transport.mode == "live" and transport.recording is rec
    transport.tick(0.05)
    session.open(DEMO / "arm.urdf")
    assert transport.player is None and transport.recording is None
    assert transport.last_recording is rec and rec.samples == 6


def test_a_state_of_the_wrong_shape_is_refused_and_changes_nothing(rig):
    session, _, _, player, _ = rig
    states = player.states(3)
    states["arm"] = states["motor"]
    before = session.joint_positions("arm")
    with pytest.raises(SessionError) as err:
        session.show_state(states)
    assert err.value.code == "session.state"
    assert np.array_equal(session.joint_positions("arm"), before)


def test_a_pause_shows_the_row_the_wall_clock_reached(rig):
    session, renderer, transport, player, clock = rig
    transport.load(player)
    transport.seek(40)
    transport.play()
    rows = []
    transport.playhead_changed.connect(rows.append)
    clock.t += 0.3  # no tick in between: the pause itself moves the playhead 15 rows of 0.02 s
    transport.pause()
    assert not player.playing and player.row == 55 and rows == [55]
    assert_shows_row(session, renderer, player, 55)


def test_an_edit_plays_the_commands_again_at_the_step_they_were_played_at(rig):
    session, _, transport, _, clock = rig
    player = Player.for_document(session.document, DEMO / "chain.csv", 0.01, now=clock)  # the file: 0.02 s
    transport.load(player)
    session.apply(SetValue("chain.arm.servo_time_constant", 0.3))
    again = transport.player
    assert again is not player and again.dt == 0.01
    np.testing.assert_array_equal(again.times, player.times)


def test_a_trajectory_played_by_name_follows_its_edits_and_keeps_playing(rig):
    from mime_gui.rig.trajectories import render
    from mime_gui.session import RemoveItem, ReplaceItem

    session, renderer, transport, _, clock = rig
    name = "spin 5 Hz"
    player = transport.open_trajectory(name, 0.01)
    player._now = clock  # the wall clock of the test
    rendered = render(session.document.built, name, 0.01)[1]
    np.testing.assert_array_equal(player.recorded.joint_positions, rendered)
    transport.seek(250)
    transport.play()
    t = session.rig.trajectories[name]
    keys = list(t.segments["arm"])
    keys[1] = type(keys[1])(4.0, values=keys[1].values, interpolation=keys[1].interpolation)
    moved = type(t)({**t.segments, "arm": tuple(keys)}, t.unit, acceleration_limits=t.acceleration_limits)
    session.apply(ReplaceItem("trajectories", name, moved))
    again = transport.player
    expected = render(session.document.built, name, 0.01)[1]
    assert not np.array_equal(expected, player.recorded.joint_positions)  # the edit changes the rendering
    np.testing.assert_array_equal(again.recorded.joint_positions, expected)
    assert again.row == 250 and again.playing and again._now is clock  # the same time, still playing
    assert_shows_row(session, renderer, again, 250)
    # undone: the file's rendering again
    session.undo()
    np.testing.assert_array_equal(transport.player.recorded.joint_positions, player.recorded.joint_positions)
    # removed: its last rendering plays on
    session.apply(RemoveItem("trajectories", name))
    np.testing.assert_array_equal(transport.player.recorded.joint_positions, player.recorded.joint_positions)
    # a command file loaded after it is not rendered again
    transport.load(Player.for_document(session.document, DEMO / "chain.csv", now=clock))
    assert transport.source is None


def test_a_command_file_keeps_playing_through_an_edit(rig):
    session, _, transport, player, _ = rig
    transport.load(player)
    transport.seek(30)
    transport.play()
    session.apply(SetValue("chain.arm.servo_time_constant", 0.3))
    assert transport.player is not player and transport.player.playing and transport.player.row == 30


def test_without_a_trajectory_seek_step_play_pause_and_toggle_stay_live_and_keep_the_recording(rig):
    session, _, transport, _, _ = rig
    rec = transport.start_recording()
    q = session.joint_positions("arm")
    rows, modes = [], []
    transport.playhead_changed.connect(rows.append)
    transport.mode_changed.connect(modes.append)
    transport.seek(5)
    transport.step(1)
    transport.play()
    transport.pause()
    transport.toggle()
    assert transport.mode == "live" and modes == [] and rows == []
    assert transport.recording is rec  # nothing to play: the recording goes on
    np.testing.assert_array_equal(session.joint_positions("arm"), q)
    assert transport.document is session.document


def test_a_playing_tick_within_the_row_shows_nothing_new_and_the_end_is_announced_once_stopped(rig):
    session, renderer, transport, player, clock = rig
    transport.load(player)
    transport.seek(190)
    transport.play()
    rows = []
    transport.playhead_changed.connect(rows.append)
    clock.t += 0.01  # half a row of 0.02 s
    transport.tick(0.01)
    assert player.row == 190 and rows == []
    clock.t += 1.0  # past the last row (200)
    transport.tick(1.0)
    assert not player.playing and player.row == 200
    assert rows == [200, 200]  # the row shown, then the stop at the end
    assert_shows_row(session, renderer, player, 200)


def test_a_pause_while_paused_announces_the_row_without_showing_it_again(rig):
    session, _, transport, player, _ = rig
    transport.load(player)
    transport.seek(40)
    moved = session.joint_positions("arm") + 0.1
    session.set_joint_positions("arm", moved)  # placed by hand after the row was shown
    rows = []
    transport.playhead_changed.connect(rows.append)
    transport.pause()
    assert rows == [40] and transport.mode == "player"
    np.testing.assert_array_equal(session.joint_positions("arm"), moved)


def test_an_edit_while_live_plays_the_commands_again_without_showing_a_row(rig):
    session, _, transport, player, _ = rig
    transport.load(player)
    transport.seek(60)
    transport.take_over()
    session.set_joint_positions("arm", np.zeros(6))
    session.apply(SetValue("chain.arm.servo_time_constant", 0.3))
    again = transport.player
    assert again is not player and again.row == 60 and transport.mode == "live"
    np.testing.assert_array_equal(session.joint_positions("arm"), np.zeros(6))  # the live state stays


def test_a_detached_transport_no_longer_follows_the_session(rig):
    session, _, transport, player, _ = rig
    transport.load(player)
    steps = transport.live_torques.steps
    transport.detach()
    session.apply(SetValue("chain.arm.servo_time_constant", 0.3))
    assert transport.player is player  # not played again
    session.tick(0.01)  # the demo's arm is dynamic: an attached live-torque view would take this step
    assert transport.live_torques.steps == steps
    session.open(DEMO / "arm.urdf")
    assert transport.player is player and transport.mode == "player"  # not unloaded


def test_toggle_plays_a_paused_player_and_brings_a_live_one_back_to_play(rig):
    session, renderer, transport, player, clock = rig
    transport.load(player)
    transport.seek(20)
    transport.toggle()
    assert player.playing and transport.mode == "player"
    transport.take_over()
    assert not player.playing and transport.mode == "live"
    transport.toggle()  # live: back to the player, playing from the row it holds
    assert player.playing and transport.mode == "player" and player.row == 20
    assert_shows_row(session, renderer, player, 20)
