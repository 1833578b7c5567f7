"""Session behaviour pinned by small checks: the findings an opened rig announces, the joint positions a
player names when they are not finite, and the file names read as a URDF whatever their case."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.nodes import read_commands
from mime_gui.session import Session, file_kind
from mime_gui.session.edits import SetValue
from mime_gui.session.player import Player, PlayerError, document_playable

DEMO = RESOURCES / "demo"


@pytest.mark.parametrize("name", ["robot.xml", "ROBOT.XML", "arm.Xml", "arm.urdf", "ARM.URDF"])
def test_an_xml_or_urdf_file_of_any_case_is_read_as_a_urdf(name):
    assert file_kind(f"/data/{name}") == "urdf"


def test_opening_a_rig_announces_its_findings():
    maker = Session()
    maker.open(DEMO / "demo.rig.json")
    maker.apply(SetValue("parts.holder.material", "unobtainium"))
    rig = maker.rig
    session = Session()
    seen = []
    session.findings_changed.connect(seen.append)
    session.open_apparatus(rig)
    assert len(seen) == 1 and [f.code for f in seen[0]] == ["part.material"]


def test_opening_a_rig_without_findings_announces_an_empty_tuple():
    session = Session()
    seen = []
    session.findings_changed.connect(seen.append)
    session.open(DEMO / "demo.rig.json")
    assert seen == [()]


class _NonFinite:
    """The demo's playable whose played ``field`` (joint positions or frame poses) is NaN at ``index``."""

    def __init__(self, playable, field, index):
        self._playable, self._field, self._index = playable, field, index
        self.built = playable.built

    def schedule(self, recorded, dt):
        return self._playable.schedule(recorded, dt)

    def play(self, schedule):
        t = self._playable.play(schedule)
        played = {name: np.array(getattr(t, name), dtype=float)
                  for name in ("joint_positions", "frame_poses", "frame_angular_velocities")}
        played[self._field][self._index] = np.nan
        return SimpleNamespace(**played)


@pytest.mark.parametrize("field, index, start", [
    ("joint_positions", (3, 0), "the joint positions overflow at step 3 (step "),
    ("frame_poses", (4, 0, 0, 3), "the frame poses overflow at step 4 (step "),
], ids=["joint positions", "frame poses"])
def test_played_values_that_are_not_finite_are_refused_naming_what_and_the_step(field, index, start):
    session = Session()
    session.open(DEMO / "demo.rig.json")
    playable = _NonFinite(document_playable(session.document), field, index)
    with pytest.raises(PlayerError) as err:
        Player(playable, read_commands(DEMO / "chain.csv"), source="chain.csv")
    assert (err.value.code, err.value.file) == ("player.non-finite", "chain.csv")
    assert err.value.message.startswith(start), err.value.message
