"""The words of the session's refusals: each names what it refuses (the file, the segment, the measure, the
sidecar's field) and says what to do instead."""

from __future__ import annotations

import pytest

from mime_gui import RESOURCES
from mime_gui.rig import load
from mime_gui.rig.bundle import write_bundle
from mime_gui.session import Session, SessionError
from mime_gui.session.measures import CentreEnd, ProbeEnd
from mime_gui.session.player import Player, PlayerError
from mime_gui.session.recovery import RecoveryStore

DEMO = RESOURCES / "demo"
KEEP = "it is left as it is: remove it (and its .rig.json) once you no longer need it"


@pytest.fixture
def session():
    s = Session()
    s.open(DEMO / "demo.rig.json")
    return s


def test_a_folder_is_refused_asking_for_a_urdf_or_rig_file(tmp_path):
    with pytest.raises(SessionError) as info:
        Session().open(tmp_path)
    assert (info.value.code, info.value.file) == ("file.kind", str(tmp_path))
    assert info.value.message == "this is a folder; open a .urdf or .rig.json file"


def test_saving_a_bundle_over_other_files_names_the_file_and_asks_for_an_empty_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("MIME_GUI_BUNDLE_CACHE", str(tmp_path / "cache"))
    (tmp_path / "lab").mkdir()
    bundle = write_bundle(load(DEMO / "demo.rig.json"), tmp_path / "lab" / "demo.zip")
    s = Session()
    s.open(str(bundle))
    folder = tmp_path / "elsewhere"
    (folder / "files").mkdir(parents=True)
    (folder / "files" / "arm.urdf").write_text("<robot name='mine'/>")
    target = folder / "demo.rig.json"
    with pytest.raises(SessionError) as info:
        s.save(target)
    assert (info.value.code, info.value.file) == ("session.save-bundle", str(target))
    message = info.value.message
    assert f"{folder / 'files' / 'arm.urdf'} is already there with other content than the bundle's" in message
    assert "save into an empty folder (for example " in message


def test_the_same_measure_twice_is_refused_naming_it(session):
    session.add_measure(CentreEnd("magnets", "m1"), ProbeEnd("sample"))
    with pytest.raises(SessionError) as info:
        session.add_measure(CentreEnd("magnets", "m1"), ProbeEnd("sample"))
    assert (info.value.code, info.value.file) == ("measure.duplicate", "measure")
    assert info.value.message == "magnet m1 → probe sample is measured already"


def test_torques_of_the_wrong_length_are_refused_naming_the_segment_and_its_joint_count(session):
    session.set_drive("arm", "torques")
    with pytest.raises(SessionError) as info:
        session.set_torques("arm", [1.0, 2.0])
    assert info.value.code == "session.q-shape"
    assert info.value.message == "segment 'arm' has 6 joints, got torques of shape (2,)"


def test_a_state_of_the_wrong_shape_is_refused_naming_the_segment_and_the_shapes(session):
    player = Player.for_document(session.document, DEMO / "chain.csv")
    states = player.states(3)
    motor = states["motor"]
    states["arm"] = motor
    with pytest.raises(SessionError) as info:
        session.show_state(states)
    assert info.value.code == "session.state"
    message = info.value.message
    assert message.startswith("segment 'arm' has 6 joints and ")
    assert f"frames; got a state of shapes {motor.joint_positions.shape}, " in message


def test_a_speed_out_of_range_is_refused_with_the_range(session):
    player = Player.for_document(session.document, DEMO / "chain.csv")
    with pytest.raises(PlayerError) as info:
        player.set_rate(20.0)
    assert info.value.code == "player.rate"
    assert info.value.message == "the speed is 0.1× to 10×, got 20×"


@pytest.mark.parametrize("text, words", [
    ("{not json", "not a JSON sidecar ("),
    ("[1, 2]", 'expected an object {"original", "kind", "saved_at", "pid"}'),
    ('{"pid": 1, "saved_at": -1}', "saved_at must be seconds since 1970 before the year 3000, got -1"),
], ids=["not-json", "a-list", "saved-at-negative"])
def test_a_bad_recovery_sidecar_is_skipped_saying_what_is_wrong_and_that_it_is_kept(tmp_path, text, words):
    folder = tmp_path / "rec"
    folder.mkdir()
    meta = folder / "2-2.json"
    meta.write_text(text, encoding="utf-8")
    (folder / "2-2.rig.json").write_text("{}", encoding="utf-8")
    store = RecoveryStore(folder)
    assert store.pending() == []
    (err,) = store.skipped
    assert (err.code, err.file) == ("recovery.sidecar", str(meta))
    assert words in err.message
    assert err.message.endswith(KEEP)
