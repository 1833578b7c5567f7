"""Hostile recovery folders: a FIFO, a NaN or an out-of-range number in a sidecar, a sidecar nested past the
parser's depth, a FIFO in place of the recovery file. Each such sidecar is skipped with a coded message in
the log, the others are still offered, newest first, and nothing blocks."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys

import pytest
from plain_ids import plain_id

from mime_gui import RESOURCES
from mime_gui.rig import load
from mime_gui.rig.rigfile import RigFileError
from mime_gui.session import recovery as recovery_module
from mime_gui.session.recovery import INTERVAL, RecoveryStore, autosave_interval

pytestmark = pytest.mark.timeout(60)  # a FIFO read by mistake blocks: the timeout turns that into a failure
DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"


@pytest.fixture(scope="module")
def gone() -> int:
    """The id of a process that has ended."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    return int(done.stdout)


def sidecar(folder, name: str, text: str, rig: str | None = "{}"):
    """``<name>.json`` holding ``text`` and, unless ``rig`` is None, ``<name>.rig.json`` holding ``rig``."""
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.json").write_text(text, encoding="utf-8")
    if rig is not None:
        (folder / f"{name}.rig.json").write_text(rig, encoding="utf-8")
    return folder / f"{name}.json"


def good(folder, name: str, pid: int, saved_at: float = 1.7e9, original: str = ""):
    return sidecar(folder, name, json.dumps({"original": original, "kind": "rig", "saved_at": saved_at,
                                             "pid": pid}))


def skipped_codes(store, caplog) -> list[tuple[str, str]]:
    """(code, sidecar) of what ``store.pending()`` skipped, checked against the log."""
    logged = [r.getMessage() for r in caplog.records if r.name == recovery_module.__name__
              and r.levelno == logging.WARNING]
    out = [(e.code, e.file) for e in store.skipped]
    assert logged == [str(e) for e in store.skipped]  # each skipped sidecar is logged, coded and placed
    return out


def test_a_fifo_sidecar_is_skipped_at_once_and_the_others_are_still_offered(tmp_path, gone, caplog):
    folder = tmp_path / "rec"
    good(folder, "1-1", gone)
    os.mkfifo(folder / "2-2.json")  # no writer: a plain read would wait for ever
    store = RecoveryStore(folder)
    with caplog.at_level(logging.WARNING):
        assert [r.meta_file.name for r in store.pending()] == ["1-1.json"]
    assert skipped_codes(store, caplog) == [("file.not-regular", str(folder / "2-2.json"))]
    assert "named pipe (FIFO)" in store.skipped[0].message
    assert os.path.exists(folder / "2-2.json")  # left for the user


def test_a_fifo_in_place_of_the_recovery_file_is_skipped_and_loading_it_is_refused(tmp_path, gone, caplog):
    folder = tmp_path / "rec"
    good(folder, "1-1", gone)
    good(folder, "2-2", gone, saved_at=1.8e9)
    os.remove(folder / "2-2.rig.json")
    os.mkfifo(folder / "2-2.rig.json")
    store = RecoveryStore(folder)
    with caplog.at_level(logging.WARNING):
        (item,) = store.pending()
    assert item.meta_file.name == "1-1.json"
    assert skipped_codes(store, caplog) == [("file.not-regular", str(folder / "2-2.json"))]
    # swapped for a FIFO after it was listed: reading it is refused, not blocked
    os.remove(item.rig_file)
    os.mkfifo(item.rig_file)
    with pytest.raises(RigFileError) as info:
        item.load()
    assert info.value.code == "file.not-regular" and info.value.file == str(item.rig_file)


@pytest.mark.parametrize("meta, what", [
    ('{"pid": %(gone)d, "saved_at": NaN}', "saved_at"),
    ('{"pid": %(gone)d, "saved_at": Infinity}', "saved_at"),
    ('{"pid": %(gone)d, "saved_at": -1}', "saved_at"),
    ('{"pid": %(gone)d, "saved_at": 1e300}', "saved_at"),
    ('{"pid": %(gone)d, "saved_at": "yesterday"}', "saved_at"),
    ('{"pid": NaN}', "pid"),
    ('{"pid": 1e400}', "pid"),
    ('{"pid": 1000000000000000000000000000000}', "pid"),
    ('{"pid": -5}', "pid"),
    ('{"pid": true}', "pid"),
    ('{"pid": 12.5}', "pid"),
    ('{"pid": %(gone)d, "original": 7}', "original"),
    ('{"pid": %(gone)d, "original": "a\\u0000b"}', "original"),
    ('{"pid": %(gone)d, "kind": "mesh"}', "kind"),
    ('[1, 2]', "object"),
    ("{not json", "JSON"),
], ids=plain_id)
def test_a_sidecar_with_a_bad_value_is_skipped_with_its_code_and_the_others_offered(tmp_path, gone, caplog,
                                                                                     meta, what):
    folder = tmp_path / "rec"
    good(folder, "1-1", gone, saved_at=1.7e9)
    bad = sidecar(folder, "2-2", meta % {"gone": gone})
    good(folder, "3-3", gone, saved_at=1.6e9)
    store = RecoveryStore(folder)
    with caplog.at_level(logging.WARNING):
        pending = store.pending()
    assert [r.meta_file.name for r in pending] == ["1-1.json", "3-3.json"]
    assert skipped_codes(store, caplog) == [("recovery.sidecar", str(bad))]
    assert what in store.skipped[0].message
    assert bad.exists() and bad.with_name("2-2.rig.json").exists()  # nothing is deleted


@pytest.mark.parametrize("meta, shown", [
    ('{"pid": %(gone)d, "saved_at": "yesterday"}', "got 'yesterday'"),
    ('{"pid": %(gone)d, "saved_at": -1}', "got -1"),
    ('{"pid": %(gone)d, "saved_at": NaN}', "got nan"),
], ids=["text", "negative", "nan"])
def test_a_skipped_sidecars_message_shows_the_value_it_found(tmp_path, gone, meta, shown):
    folder = tmp_path / "rec"
    sidecar(folder, "2-2", meta % {"gone": gone})
    store = RecoveryStore(folder)
    assert store.pending() == []
    assert shown in store.skipped[0].message


def test_a_sidecar_nested_past_the_parsers_depth_is_skipped(tmp_path, gone, caplog):
    folder = tmp_path / "rec"
    depth = sys.getrecursionlimit() * 20
    bad = sidecar(folder, "2-2", "[" * depth + "]" * depth)
    good(folder, "1-1", gone)
    store = RecoveryStore(folder)
    with caplog.at_level(logging.WARNING):
        assert [r.meta_file.name for r in store.pending()] == ["1-1.json"]
    assert skipped_codes(store, caplog) == [("recovery.sidecar", str(bad))]
    assert "nested too deeply" in store.skipped[0].message


def test_a_sidecar_without_its_recovery_file_or_past_the_size_limit_is_skipped(tmp_path, gone, caplog,
                                                                               monkeypatch):
    folder = tmp_path / "rec"
    missing = sidecar(folder, "1-1", json.dumps({"pid": gone}), rig=None)
    huge = sidecar(folder, "2-2", json.dumps({"pid": gone, "original": "x" * 2_000_000}))
    monkeypatch.setenv("MIME_GUI_MAX_RIG_MB", "1")
    store = RecoveryStore(folder)
    with caplog.at_level(logging.WARNING):
        assert store.pending() == []
    assert skipped_codes(store, caplog) == [("recovery.missing", str(missing)), ("file.too-large", str(huge))]


@pytest.mark.parametrize("older, newer", [("1-1", "2-2"), ("2-2", "1-1")])
def test_recovery_files_are_offered_newest_first_whatever_their_names(tmp_path, gone, older, newer):
    folder = tmp_path / "rec"
    good(folder, older, gone, saved_at=1_700_000_000.0)
    good(folder, newer, gone, saved_at=1_700_000_000.5)
    good(folder, "0-0", gone, saved_at=1_600_000_000.0)
    assert [r.meta_file.stem for r in RecoveryStore(folder).pending()] == [newer, older, "0-0"]


def test_equal_times_are_offered_in_the_order_of_their_names(tmp_path, gone):
    folder = tmp_path / "rec"
    for name in ("2-2", "3-3", "1-1"):
        good(folder, name, gone, saved_at=1_700_000_000.0)
    assert [r.meta_file.stem for r in RecoveryStore(folder).pending()] == ["1-1", "2-2", "3-3"]


def test_a_written_recovery_reads_back_through_the_same_checks(tmp_path, gone):
    folder = tmp_path / "rec"
    store = RecoveryStore(folder)
    rig = load(DEMO_RIG)
    store.write(rig, str(DEMO_RIG), "rig")
    meta = json.loads(store.meta_file.read_text(encoding="utf-8"))
    store.meta_file.write_text(json.dumps({**meta, "pid": gone}), encoding="utf-8")
    (item,) = RecoveryStore(folder).pending()
    assert (item.original, item.kind, item.saved_at) == (str(DEMO_RIG.resolve()), "rig", meta["saved_at"])
    assert item.load() == rig


def test_a_written_recovery_of_a_urdf_reads_back_as_a_urdf(tmp_path, gone):
    from mime_gui.session import Session

    urdf = RESOURCES / "demo" / "arm.urdf"
    session = Session()
    session.open(urdf)
    doc = session.document
    store = RecoveryStore(tmp_path / "rec")
    store.write(doc.rig, doc.path, doc.kind)
    meta = json.loads(store.meta_file.read_text(encoding="utf-8"))
    store.meta_file.write_text(json.dumps({**meta, "pid": gone}), encoding="utf-8")
    (item,) = RecoveryStore(tmp_path / "rec").pending()
    assert (item.original, item.kind) == (str(urdf.resolve()), "urdf")  # offered back as the URDF it was


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0", "1_0", "ten", "1e9"])
def test_an_autosave_interval_that_is_not_a_number_of_seconds_is_logged_and_the_default_used(
        monkeypatch, caplog, value):
    monkeypatch.setenv("MIME_GUI_AUTOSAVE_SECONDS", value)
    with caplog.at_level(logging.WARNING):
        assert autosave_interval() == INTERVAL
    (message,) = [r.getMessage() for r in caplog.records if r.name == recovery_module.__name__]
    assert message.startswith("recovery.interval") and repr(value) in message


@pytest.mark.parametrize("value, seconds", [("0.2", 0.2), (" 60 ", 60.0), ("", INTERVAL)])
def test_an_autosave_interval_in_range_is_taken(monkeypatch, caplog, value, seconds):
    monkeypatch.setenv("MIME_GUI_AUTOSAVE_SECONDS", value)
    with caplog.at_level(logging.WARNING):
        assert autosave_interval() == seconds
    assert [r for r in caplog.records if r.name == recovery_module.__name__] == []


@pytest.mark.parametrize("value", [None, "", "   "])
def test_an_autosave_interval_unset_or_blank_is_the_default_and_logs_nothing(monkeypatch, caplog, value):
    if value is None:
        monkeypatch.delenv("MIME_GUI_AUTOSAVE_SECONDS", raising=False)
    else:
        monkeypatch.setenv("MIME_GUI_AUTOSAVE_SECONDS", value)
    with caplog.at_level(logging.WARNING):
        assert autosave_interval() == INTERVAL
    assert caplog.records == []


# -- where the recovery files live, and which processes count as gone -------------------------------------
def test_the_recovery_folder_is_the_override_else_under_the_state_home_else_under_home(monkeypatch, tmp_path):
    monkeypatch.setenv("MIME_GUI_RECOVERY_DIR", str(tmp_path / "mine"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert recovery_module.default_folder() == tmp_path / "mine"
    assert RecoveryStore().folder == tmp_path / "mine"
    monkeypatch.setenv("MIME_GUI_RECOVERY_DIR", "")  # set but empty: no override
    assert recovery_module.default_folder() == tmp_path / "state" / "mime-gui" / "recovery"
    monkeypatch.delenv("MIME_GUI_RECOVERY_DIR")
    monkeypatch.setenv("XDG_STATE_HOME", "")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    home = tmp_path / "home"
    assert recovery_module.default_folder() == home / ".local" / "state" / "mime-gui" / "recovery"


def test_a_sidecar_of_process_zero_is_offered_as_gone(tmp_path):
    folder = tmp_path / "rec"
    good(folder, "0-1", 0)  # signalling pid 0 would reach this very process group: never asked
    assert [r.pid for r in RecoveryStore(folder).pending()] == [0]


@pytest.mark.parametrize("raised, offered", [
    (PermissionError(1, "Operation not permitted"), False),  # another user's process: alive, not ours
    (ProcessLookupError(3, "No such process"), True),
    (OSError(22, "Invalid argument"), True),
], ids=["another users process", "no such process", "another error"])
def test_whether_a_sidecars_process_is_gone_follows_what_signalling_it_says(tmp_path, monkeypatch, gone,
                                                                             raised, offered):
    folder = tmp_path / "rec"
    good(folder, "1-1", gone)
    asked = []

    def kill(pid, sig):
        asked.append((pid, sig))
        raise raised

    monkeypatch.setattr(recovery_module.os, "kill", kill)
    assert [r.pid for r in RecoveryStore(folder).pending()] == ([gone] if offered else [])
    assert asked == [(gone, 0)]


# -- discarding, and folders that are not there --------------------------------------------------------------
def test_discarding_removes_what_is_there_of_the_pair(tmp_path, gone):
    folder = tmp_path / "rec"
    store = RecoveryStore(folder)
    store.write(load(DEMO_RIG), str(DEMO_RIG), "rig")
    store.rig_file.unlink()  # only the sidecar left: it still goes
    store.discard()
    assert list(folder.iterdir()) == []
    good(folder, "1-1", gone)
    (item,) = RecoveryStore(folder).pending()
    item.meta_file.unlink()  # only the recovery file left: it still goes
    item.discard()
    assert list(folder.iterdir()) == []


def test_a_recovery_folder_that_is_not_there_offers_nothing_and_forgets_what_was_skipped(tmp_path, gone):
    folder = tmp_path / "rec"
    sidecar(folder, "2-2", "{not json")
    store = RecoveryStore(folder)
    assert store.pending() == [] and len(store.skipped) == 1
    (folder / "2-2.json").unlink()
    (folder / "2-2.rig.json").unlink()
    folder.rmdir()
    assert store.pending() == [] and store.skipped == []


# -- files that cannot be examined ---------------------------------------------------------------------------
def test_a_sidecar_that_cannot_be_read_is_skipped_with_an_io_code(tmp_path, gone, caplog):
    folder = tmp_path / "rec"
    good(folder, "1-1", gone)
    dangling = folder / "2-2.json"
    dangling.symlink_to(folder / "nowhere.json")  # listed in the folder, but no file behind it
    store = RecoveryStore(folder)
    with caplog.at_level(logging.WARNING):
        assert [r.meta_file.name for r in store.pending()] == ["1-1.json"]
    assert skipped_codes(store, caplog) == [("recovery.io", str(dangling))]
    message = store.skipped[0].message
    assert message.startswith("cannot read the sidecar (No such file or directory)")
    assert message.endswith("remove it (and its .rig.json) once you no longer need it")


def test_a_recovery_file_that_cannot_be_examined_is_skipped_with_an_io_code(tmp_path, gone, caplog):
    folder = tmp_path / "rec"
    meta = good(folder, "1-1", gone)
    looped = folder / "1-1.rig.json"
    looped.unlink()
    looped.symlink_to(looped)  # a link to itself: examining it fails, and not as a missing file
    store = RecoveryStore(folder)
    with caplog.at_level(logging.WARNING):
        assert store.pending() == []
    assert skipped_codes(store, caplog) == [("recovery.io", str(meta))]
    assert store.skipped[0].message == ("cannot examine its recovery file 1-1.rig.json "
                                        "(Too many levels of symbolic links)")


def test_a_sidecar_of_another_running_process_is_not_offered(tmp_path, gone):
    folder = tmp_path / "rec"
    good(folder, "1-1", os.getppid())  # the process that started the tests: running, and not this one
    good(folder, "2-2", gone)
    assert [r.pid for r in RecoveryStore(folder).pending()] == [gone]
