"""Pins three session contracts: a looping player goes on playing after it wraps round the end (the wall
clock is read from the wrap on); a recovery file that is not a regular file, or is past the rig file's
limit, is skipped with a message naming it as a recovery file; a rig never saved is written aside with an
empty ``original`` and is offered back as one never saved."""

from __future__ import annotations

import json
import logging

import pytest

from mime_gui import RESOURCES
from mime_gui.rig import load
from mime_gui.session import Session
from mime_gui.session.player import Player
from mime_gui.session.recovery import RecoveryStore

DEMO = RESOURCES / "demo"
pytestmark = pytest.mark.timeout(60)  # a FIFO or folder read by mistake would block or fail slowly


class _Clock:
    def __init__(self):
        self.t = 500.0

    def __call__(self):
        return self.t


def test_the_looping_player_keeps_playing_from_where_it_wrapped():
    session = Session()
    session.open(DEMO / "demo.rig.json")
    clock = _Clock()
    player = Player.for_document(session.document, DEMO / "chain.csv", now=clock)
    player.loop = True
    player.play()
    clock.t += player.duration + 0.1  # a whole turn and 0.1 s: row 5 of the next turn
    assert player.update() == 5 and player.playing
    # the next frames go on from the wrap: 0.11 s later is 0.21 s into the turn, row 10
    clock.t += 0.11
    assert player.update() == 10 and player.playing
    assert (player.shown, player.dropped) == (2, 205 + 4)
    clock.t += player.duration  # another whole turn: the same place in it
    assert player.update() == 10 and player.playing


def _one_sidecar(folder, name: str = "1-1"):
    folder.mkdir()
    meta = folder / f"{name}.json"
    # process 0 is never alive: the sidecar is offered as left behind
    meta.write_text(json.dumps({"original": "", "kind": "rig", "saved_at": 1.7e9, "pid": 0}),
                    encoding="utf-8")
    return meta, folder / f"{name}.rig.json"


def test_a_folder_in_place_of_the_recovery_file_is_skipped_naming_it_a_recovery_file(tmp_path, caplog):
    meta, rig_file = _one_sidecar(tmp_path / "rec")
    rig_file.mkdir()
    store = RecoveryStore(tmp_path / "rec")
    with caplog.at_level(logging.WARNING):
        assert store.pending() == []
    (err,) = store.skipped
    assert (err.code, err.file) == ("file.not-regular", str(meta))
    assert err.message == ("its recovery file 1-1.rig.json: this is a folder, not a regular file; give the "
                           "path of a recovery file")


def test_a_recovery_file_past_the_rig_limit_is_skipped_naming_it_a_recovery_file(tmp_path, caplog,
                                                                                monkeypatch):
    meta, rig_file = _one_sidecar(tmp_path / "rec")
    rig_file.write_bytes(b" " * (1024 * 1024 + 1))
    monkeypatch.setenv("MIME_GUI_MAX_RIG_MB", "1")
    store = RecoveryStore(tmp_path / "rec")
    with caplog.at_level(logging.WARNING):
        assert store.pending() == []
    (err,) = store.skipped
    assert (err.code, err.file) == ("file.too-large", str(meta))
    assert err.message == ("its recovery file 1-1.rig.json: the file holds 1.0 MB, more than the 1.0 MB a "
                           "recovery file may hold; set MIME_GUI_MAX_RIG_MB (megabytes) to raise the limit")


def test_a_rig_never_saved_is_written_aside_with_an_empty_original(tmp_path):
    folder = tmp_path / "rec"
    store = RecoveryStore(folder)
    rig = load(DEMO / "demo.rig.json")
    store.write(rig, "", "rig")
    meta = json.loads(store.meta_file.read_text(encoding="utf-8"))
    assert meta["original"] == ""  # '' is how a sidecar says the rig was never saved
    # offered back (as another process's) as a rig never saved
    store.meta_file.write_text(json.dumps({**meta, "pid": 0}), encoding="utf-8")
    (item,) = RecoveryStore(folder).pending()
    assert (item.original, item.kind) == ("", "rig")

