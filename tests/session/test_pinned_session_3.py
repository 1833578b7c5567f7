"""Session behaviour pinned by small checks: the pull of magnets with nothing open, the source a link's own
mass is listed with, a player with steps longer than a second stopping on its last row, the recovery file
named by the process and the millisecond it started, and a reload that moves nothing announcing no pose."""

from __future__ import annotations

import os
import re
import time

import pytest

from mime_gui import RESOURCES
from mime_gui.session import Session
from mime_gui.session.live_torques import LiveTorques
from mime_gui.session.mass_properties import document_mass_table
from mime_gui.session.player import Player
from mime_gui.session.recovery import RecoveryStore

DEMO = RESOURCES / "demo"


class FakeClock:
    def __init__(self, t: float = 500.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


def test_the_magnets_pull_nothing_while_no_document_is_open():
    live = LiveTorques(Session())
    assert live._pull_now({}) is None


def test_a_link_of_a_urdf_is_weighed_with_the_descriptions_inertial_as_its_source():
    session = Session()
    session.open(DEMO / "arm.urdf")
    links = [row for row in document_mass_table(session.document).rows if row.kind == "link"]
    assert links
    assert {row.source for row in links} == {"the description's inertial"}


@pytest.mark.parametrize("dt", [2.0, 1.5])
def test_a_player_with_steps_longer_than_a_second_stops_on_its_last_row(dt):
    session = Session()
    session.open(DEMO / "demo.rig.json")
    clock = FakeClock()
    player = Player.for_document(session.document, DEMO / "chain.csv", dt, now=clock)
    assert player.rows == 3  # the file's 4 s in steps of dt, the first at dt
    player.play()
    clock.t += 3 * dt + 0.25  # past the end of the trajectory
    assert player.update() == 2
    assert player.row == 2 and not player.playing


def test_the_recovery_file_is_named_by_the_process_and_the_millisecond_the_store_was_made(tmp_path):
    before = int(time.time() * 1000)
    store = RecoveryStore(tmp_path)
    after = int(time.time() * 1000)
    match = re.fullmatch(r"(\d+)-(\d+)\.rig\.json", store.rig_file.name)
    assert match is not None
    assert int(match.group(1)) == os.getpid()
    assert before <= int(match.group(2)) <= after
    assert store.meta_file.name == f"{match.group(1)}-{match.group(2)}.json"


def test_reloading_a_rig_whose_joints_stay_where_the_file_puts_them_announces_no_moved_pose():
    session = Session()
    session.open(DEMO / "demo.rig.json")
    moved = []
    session.poses_changed.connect(moved.append)
    session.reload()
    assert moved == []
