"""The transport's contracts with its callers, pinned against mutation survivors:

* loading a player announces that player on ``player_changed`` (the docks show and check what it carries);
* a command file opened with a step plays at that step, not at the file's own spacing;
* a trajectory opened by name plays at exactly the step it was rendered at (not the spacing read back
  from its rendered times, which is a few ulps off) and remembers ``(name, dt)`` as its source;
* an unloaded player leaves no source behind: ``source`` is ``None`` again, not a stand-in value;
* a recording refused for torque-driven segments names them all, with the verb agreeing in number;
* a recording started is announced with its recorder on ``recording_changed``, its stop with ``None``;
* ticks of the clock while the player is paused neither move nor announce the playhead.
"""

from __future__ import annotations

import pytest

from mime_gui import RESOURCES
from mime_gui.session import Session
from mime_gui.session.player import PlayerError
from mime_gui.session.transport import Transport

DEMO = RESOURCES / "demo"
SPIN = "spin 5 Hz"  # the demo rig's trajectory


@pytest.fixture
def demo():
    session = Session()
    session.open(DEMO / "demo.rig.json")
    return session, Transport(session)


def test_the_player_loaded_is_the_one_announced_on_player_changed(demo):
    _, transport = demo
    players = []
    transport.player_changed.connect(players.append)
    player = transport.open(DEMO / "chain.csv")
    assert players == [player] and transport.player is player
    transport.unload()
    assert players == [player, None]


def test_a_command_file_opened_with_a_step_plays_at_that_step(demo):
    _, transport = demo
    assert transport.open(DEMO / "chain.csv").dt == pytest.approx(0.02, abs=1e-15)  # the file's spacing
    player = transport.open(DEMO / "chain.csv", 0.01)
    assert player.dt == 0.01
    assert player.rows == 2 * 200 + 1  # the file's 4 s at half its step


@pytest.mark.parametrize("dt", [0.01, 0.05])
def test_a_trajectory_opened_by_name_plays_at_exactly_its_rendering_step(demo, dt):
    _, transport = demo
    player = transport.open_trajectory(SPIN, dt)
    # the step asked for, bit for bit: the times' median spacing differs from it by a few ulps
    assert player.dt == dt
    assert transport.source == (SPIN, dt) and transport.player is player


def test_an_unloaded_trajectory_leaves_no_source(demo):
    session, transport = demo
    transport.open_trajectory(SPIN, 0.05)
    transport.unload()
    assert transport.player is None and transport.source is None
    transport.open_trajectory(SPIN, 0.05)
    session.open(DEMO / "arm.urdf")  # another document unloads it too
    assert transport.player is None and transport.source is None


def test_a_recording_refused_for_torques_names_every_torque_driven_segment(demo):
    session, transport = demo
    tail = ("driven by torques, which a recording does not hold; switch back to positions "
            "(Joint sliders ▸ Drive) to record")
    session.set_drive("arm", "torques")
    with pytest.raises(PlayerError) as err:
        transport.start_recording()
    assert err.value.code == "player.record-torques" and err.value.message == f"arm is {tail}"
    session.set_drive("motor", "torques")
    with pytest.raises(PlayerError) as err:
        transport.start_recording()
    assert err.value.message == f"arm, motor are {tail}"  # listed in chain order, the verb plural
    assert transport.recording is None


def test_a_recording_is_announced_with_its_recorder_and_its_stop_with_none(demo):
    _, transport = demo
    announced = []
    transport.recording_changed.connect(announced.append)
    rec = transport.start_recording()
    assert announced == [rec]
    assert transport.stop_recording() is rec
    assert announced == [rec, None] and transport.last_recording is rec


def test_ticks_while_the_player_is_paused_announce_nothing(demo):
    session, transport = demo
    transport.open(DEMO / "chain.csv")
    transport.seek(40)
    rows, modes = [], []
    transport.playhead_changed.connect(rows.append)
    transport.mode_changed.connect(modes.append)
    for _ in range(3):
        transport.tick(0.02)
    # paused: the row stays and no playhead event goes out (a stop at the end is announced only once played)
    assert transport.player.row == 40 and rows == [] and modes == []
    assert transport.mode == "player"
