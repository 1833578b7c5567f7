"""Autosave and recovery: the app killed mid-edit (in a subprocess) leaves a recovery file that the next start
offers and restores, without touching the user's file; autosave writes only a changed, modified rig; a save
or a clean close removes it; closing with unsaved changes asks."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from mime_gui import RESOURCES
from mime_gui.app.main import wait_until_ready
from mime_gui.rig import load
from mime_gui.session import SetValue
from mime_gui.session.recovery import RecoveryStore

pytestmark = pytest.mark.timeout(120)
ROOT = Path(__file__).resolve().parents[2]

CRASHING_APP = textwrap.dedent("""
    import os, signal, sys, time
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication
    from mime_gui.app.main import wait_until_ready
    from mime_gui.app.main_window import MainWindow
    from mime_gui.session import ItemRef, Session

    QApplication.setAttribute(Qt.AA_ShareOpenGLContexts)
    app = QApplication(sys.argv[:1])
    session = Session()
    session.open(sys.argv[1])
    window = MainWindow(session, restore=True)   # the app's own window: autosave on
    window.show()
    wait_until_ready(window)
    session.select(ItemRef("motor", "link", "part:holder"))
    app.processEvents()
    radius = window.properties_dock.forms.form.field_for("parts.holder.geometry.radius")
    radius.edit.setFocus()
    radius.edit.selectAll()
    QTest.keyClicks(radius.edit, "7")               # typed: one edit, the rig modified
    deadline = time.monotonic() + 20
    store = window.assembly.recovery
    while not store.rig_file.exists() and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.02)
    print("autosaved" if store.rig_file.exists() else "no autosave", flush=True)
    os.kill(os.getpid(), signal.SIGKILL)            # mid-edit: no save, no clean close
""")


@pytest.fixture
def demo_copy(tmp_path) -> Path:
    folder = tmp_path / "demo"
    shutil.copytree(RESOURCES / "demo", folder)
    return folder


def click_when_shown(qtbot, get_box, button_text: str) -> list:
    """Click ``button_text`` of the message box ``get_box()`` as soon as it shows (it runs modal)."""
    clicked = []

    def poll():
        box = get_box()
        if box is not None and box.isVisible():
            button = next(b for b in box.buttons() if b.text().replace("&", "") == button_text)
            clicked.append(button_text)
            button.click()
        else:
            QTimer.singleShot(20, poll)

    QTimer.singleShot(20, poll)
    return clicked


def test_a_killed_app_leaves_a_recovery_file_that_the_next_start_offers_and_restores(
        make_window, qtbot, demo_copy, tmp_path, monkeypatch):
    path = demo_copy / "demo.rig.json"
    original = path.read_bytes()
    recovery = tmp_path / "recovery"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MIME_GUI_RECOVERY_DIR": str(recovery),
           "MIME_GUI_AUTOSAVE_SECONDS": "0.2", "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "XDG_STATE_HOME": str(tmp_path / "state")}
    run = subprocess.run([sys.executable, "-c", CRASHING_APP, str(path)], env=env, capture_output=True,
                         text=True, timeout=90)
    assert run.returncode == -9, run.stderr[-2000:]
    assert "autosaved" in run.stdout
    assert path.read_bytes() == original  # the user's file is untouched
    (left,) = RecoveryStore(recovery).pending()
    assert left.original == str(path.resolve())

    # the next start offers it; Recover lays it over the file as one edit
    monkeypatch.setenv("MIME_GUI_RECOVERY_DIR", str(recovery))
    clicked = click_when_shown(qtbot, QApplication.activeModalWidget, "Recover")
    window = make_window(restore=True)
    qtbot.waitUntil(lambda: clicked == ["Recover"], timeout=10000)
    qtbot.waitUntil(lambda: window.session.document is not None
                    and window.session.rig.parts["holder"].geometry.radius == 0.007, timeout=10000)
    wait_until_ready(window)
    assert window.session.path == str(path.resolve()) and window.isWindowModified()
    assert path.read_bytes() == original  # still: only Save writes it
    assert RecoveryStore(recovery).pending() == []  # recovered: offered once
    window.undo_actions.undo.trigger()  # back to the file as it is on disk
    assert window.session.rig == load(path) and not window.session.modified
    window.assembly.ask_on_close = False


def test_autosave_writes_a_changed_modified_rig_only_and_a_save_removes_it(window, demo_copy, tmp_path):
    assert window.assembly.recovery is None  # a window made without restore autosaves nothing by itself
    window.open_file(str(demo_copy / "demo.rig.json"))
    assembly = window.assembly
    assembly.enable_recovery(tmp_path / "rec", interval=3600)
    store = assembly.recovery
    assert not assembly.autosave() and not store.rig_file.exists()  # not modified
    window.session.apply(SetValue("parts.holder.at", (0.0, 0.0, 0.02)))
    assert assembly.autosave() and store.rig_file.exists()
    assert not assembly.autosave()  # nothing changed since
    assert store.writes == 1
    window.save()
    assert not store.rig_file.exists() and not store.meta_file.exists()
    window.session.apply(SetValue("parts.holder.at", (0.0, 0.0, 0.03)))
    assert assembly.autosave()
    window.session.undo()  # back to the saved rig: nothing to recover
    assert not store.rig_file.exists()


def test_closing_with_unsaved_changes_asks_and_cancel_keeps_the_window(make_window, qtbot, demo_copy):
    window = make_window()
    window.open_file(str(demo_copy / "demo.rig.json"))
    window.assembly.ask_on_close = True
    window.session.apply(SetValue("parts.holder.at", (0.0, 0.0, 0.02)))
    clicked = click_when_shown(qtbot, lambda: getattr(window.assembly, "close_box", None), "Cancel")
    assert not window.close()
    assert clicked == ["Cancel"] and window.isVisible()
    clicked = click_when_shown(qtbot, lambda: window.assembly.close_box, "Save")
    assert window.close()
    assert load(demo_copy / "demo.rig.json").parts["holder"].at == (0.0, 0.0, 0.02)


@pytest.mark.parametrize("newest", ["a", "b"])
def test_the_start_offers_the_newest_recovery_past_a_fifo_and_a_nan_sidecar(
        make_window, qtbot, demo_copy, tmp_path, monkeypatch, newest):
    import json
    import time

    recovery = tmp_path / "recovery"
    gone = int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True, check=True).stdout)
    for name in ("a", "b"):
        original = demo_copy / f"{name}.rig.json"
        shutil.copy(demo_copy / "demo.rig.json", original)
        store = RecoveryStore(recovery)
        store.id = name
        store.write(load(original), str(original), "rig")
        meta = json.loads(store.meta_file.read_text(encoding="utf-8"))
        saved_at = 1_700_000_000.0 + (3600.0 if name == newest else 0.0)
        store.meta_file.write_text(json.dumps({**meta, "pid": gone, "saved_at": saved_at}), encoding="utf-8")
    os.mkfifo(recovery / "c.json")  # no writer: reading it as a plain file would freeze the start
    (recovery / "d.json").write_text(json.dumps({"pid": gone, "saved_at": float("nan")}), encoding="utf-8")
    (recovery / "d.rig.json").write_text("{}", encoding="utf-8")
    monkeypatch.setenv("MIME_GUI_RECOVERY_DIR", str(recovery))
    monkeypatch.setenv("MIME_GUI_AUTOSAVE_SECONDS", "nan")  # refused: the default interval, not a crash
    clicked = click_when_shown(qtbot, QApplication.activeModalWidget, "Later")
    window = make_window(restore=True)
    qtbot.waitUntil(lambda: clicked == ["Later"], timeout=10000)
    assembly = window.assembly
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(1_700_000_000.0 + 3600.0))
    assert f"changes to {newest}.rig.json (autosaved {when})" in assembly.recovery_box.text()
    assert sorted((e.code, Path(e.file).name) for e in assembly.recovery.skipped) == [
        ("file.not-regular", "c.json"), ("recovery.sidecar", "d.json")]
    assert assembly.timer.interval() == 30_000
    assert len(RecoveryStore(recovery).pending()) == 2  # Later keeps both for the next start
    assembly.ask_on_close = False
