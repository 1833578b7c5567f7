"""Torque driving in the app feels the magnets' pull: live ticks equal ``play_driven`` of the same steps (the
headless path, itself checked against Pinocchio in tests/rig/test_pulled_playback.py), the holding torques
hold against the pull, and the player's torque-driven playback turns the same way."""

from __future__ import annotations

import numpy as np
import pytest
from magnet_rigs import compass_rig

from mime_gui.rig import save
from mime_gui.rig.driven import play_driven
from mime_gui.session import Session
from mime_gui.session.transport import Transport

DT = 1e-3  # one sub-step per tick, as play_driven takes one per step


@pytest.fixture
def compass(tmp_path):
    """The demo rig with its magnet a ball across the shaft and a ball in the world 4 cm from it, saved, and
    open in a Session with the Transport driving it."""
    rig = compass_rig()
    path = tmp_path / "compass.rig.json"
    save(rig, path)
    session = Session()
    session.open(path)
    return session, Transport(session), path


def _headless(session, torques, steps):
    built = session.document.built
    return play_driven(built, np.tile(built.initial_commands(), (steps, 1)), torques, DT)


def test_a_motor_driven_live_turns_toward_the_magnet_as_headless_playback(compass):
    session, transport, _ = compass
    session.set_drive("motor", "torques")
    positions = []
    for _ in range(150):
        transport.tick(DT)
        positions.append(session.joint_positions("motor")[0])
    expected = _headless(session, {"motor.torque": np.zeros(150)}, 150).segments["motor"].joint_positions
    np.testing.assert_allclose(positions, expected[:, 0], rtol=0, atol=1e-12)
    assert abs(positions[-1]) > 0.01  # rad: the pull turns it, with no torque of its own


def test_an_arm_driven_live_feels_the_pull_on_its_riders_magnet_as_headless_playback(compass):
    session, transport, _ = compass
    session.set_drive("arm", "torques")
    rows = []
    for _ in range(40):
        transport.tick(DT)
        rows.append(session.joint_positions("arm"))
    expected = _headless(session, {"arm.joint_torques": np.zeros((40, 6))}, 40)
    np.testing.assert_allclose(rows, expected.segments["arm"].joint_positions, rtol=0, atol=1e-12)


def test_the_holding_torques_hold_against_the_pull(compass):
    session, transport, _ = compass
    session.set_drive("motor", "torques")
    hold = session.holding_torques("motor")
    assert abs(hold[0]) > 1e-5  # N·m: the pull's torque about the shaft, which gravity's would not have
    session.set_torques("motor", hold)
    before = session.joint_positions("motor")
    for _ in range(30):
        transport.tick(DT)
    np.testing.assert_allclose(session.joint_positions("motor"), before, rtol=0, atol=1e-9)


def test_the_players_torque_driven_playback_feels_the_pull_and_its_torques_show_it(compass, tmp_path):
    from mime_gui.session.player import Player

    session, _, _ = compass
    commands = tmp_path / "cmd.csv"
    commands.write_text("time,motor.torque\n0,0\n0.1,0\n")
    player = Player.for_document(session.document, commands, dt=DT)
    shaft = list(player.joint_names).index("motor.shaft")
    T = player.rows
    expected = _headless(session, {"motor.torque": np.zeros(T)}, T).segments["motor"].joint_positions[:, 0]
    np.testing.assert_allclose(player.trajectory.joint_positions[:, shaft], expected, rtol=0, atol=1e-12)
    torques = player.torques()
    assert torques.magnet_torques is not None
    assert np.abs(torques.magnet_torques[:, torques.joint_names.index("motor.shaft")]).max() > 1e-5
