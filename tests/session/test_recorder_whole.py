"""The recorder's contracts at its edges: the refusal when nothing is open (the same words as playing with
nothing open), a recording's arrays are read-only as a command file's are, the CSV's first line says what it
holds, and a write that fails with a bare ValueError (no strerror, no message) is refused as ``player.io``
with the system's words."""

from __future__ import annotations

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.nodes import read_commands
from mime_gui.session import Session
from mime_gui.session.player import PlayerError, document_playable
from mime_gui.session.recorder import Recorder
from mime_gui.session.transport import Transport

DEMO = RESOURCES / "demo"


def recording(samples: int) -> Recorder:
    """A recording of the demo rig with ``samples`` rows (the first the arm's starting position)."""
    session = Session()
    session.open(DEMO / "demo.rig.json")
    live = Transport(session)
    rec = live.start_recording()
    session.set_command("arm", {"joint_1": 0.5})
    for _ in range(samples - 1):
        live.tick(rec.step)
    assert rec.samples == samples
    return rec


def test_the_refusal_to_record_with_nothing_open_says_what_to_open():
    with pytest.raises(PlayerError) as err:
        Recorder(Session())
    assert err.value.code == "player.no-document"
    assert err.value.message == "nothing is open; open a robot or a rig first"
    # the same words as playing with nothing open: one refusal, one text
    with pytest.raises(PlayerError) as played:
        document_playable(None)
    assert err.value.message == played.value.message


def test_the_arrays_of_a_recording_are_read_only_as_a_command_files_are(tmp_path):
    rec = recording(4)
    got = rec.recorded()
    assert got.time.shape == (4,) and got.joint_positions.shape == (4, len(rec.names))
    # a Player keeps these arrays: nothing may change them under it
    for a in (got.time, got.joint_positions):
        assert not a.flags.writeable
        with pytest.raises(ValueError):
            a[0] = 1.0
    read = read_commands(rec.save(tmp_path / "take.csv"))
    assert not read.time.flags.writeable and not read.joint_positions.flags.writeable


def test_the_first_line_of_a_csv_recording_says_how_it_was_sampled_and_its_units(tmp_path):
    rec = recording(3)
    path = rec.save(tmp_path / "take.csv")
    lines = (tmp_path / "take.csv").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "# recorded in MIME Rig Builder: 3 samples every 0.01 s (radians, metres)"
    assert lines[1].startswith("time,arm.joint_1,")
    assert len(read_commands(path).time) == 3


@pytest.mark.parametrize("suffix", [".csv", ".npz"])
def test_a_write_refused_with_a_bare_value_error_is_a_player_io_refusal_in_its_words(tmp_path, suffix):
    rec = recording(2)
    target = str(tmp_path / f"a\x00b{suffix}")  # the system refuses a NUL in a name with a plain ValueError
    with pytest.raises(PlayerError) as err:
        rec.save(target)
    assert err.value.code == "player.io" and err.value.file == target
    assert err.value.message == "cannot write the recording (embedded null byte)"
    assert not list(tmp_path.iterdir())  # nothing written
    assert np.array_equal(rec.recorded().time, [0.0, rec.step])
