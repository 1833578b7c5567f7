"""The log file and the exception hook: where the log lives, what reaches it, and an unexpected exception
(in a Qt slot, a worker thread, the mesh loader's pool) shown in a dialog while the app keeps running."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QApplication, QPushButton

from mime_gui.app import logs
from mime_gui.multibody import read_urdf

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def log_file(tmp_path):
    path = logs.setup_logging(tmp_path / "state")
    yield path
    logs.stop_logging()


@pytest.fixture
def reporter(log_file):
    r = logs.install_exception_hook(log_file)
    yield r
    r.uninstall()
    if r.dialog is not None:
        r.dialog.close()


def text(path: Path) -> str:
    for h in logging.getLogger("mime_gui").handlers:
        h.flush()
    return path.read_text(encoding="utf-8")


# -- where ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("environ, platform, expected", [
    ({"XDG_STATE_HOME": "/xdg/state"}, "linux", "/xdg/state/mime-gui"),
    ({"XDG_STATE_HOME": "relative/state"}, "linux", "/home/u/.local/state/mime-gui"),  # XDG: ignored
    ({}, "linux", "/home/u/.local/state/mime-gui"),
    ({}, "darwin", "/home/u/Library/Logs/mime-gui"),
    ({"LOCALAPPDATA": "/c/Users/u/AppData/Local"}, "win32", "/c/Users/u/AppData/Local/mime-gui/Logs"),
])
def test_the_log_folder_follows_the_platform(environ, platform, expected):
    assert logs.log_folder(environ, platform, Path("/home/u")) == Path(expected)


def test_setup_logging_uses_the_state_folder_by_default(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(logs.sys, "platform", "linux")
    try:
        assert logs.setup_logging() == tmp_path / "xdg" / "mime-gui" / "mime-gui.log"
        assert logs.current_log_file() == tmp_path / "xdg" / "mime-gui" / "mime-gui.log"
    finally:
        logs.stop_logging()
    assert logs.current_log_file() is None


def test_an_unwritable_folder_falls_back_to_stderr(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    try:
        assert logs.setup_logging(blocker / "logs") is None
        logging.getLogger("mime_gui.test").warning("still said")
    finally:
        logs.stop_logging()
    err = capsys.readouterr().err
    assert "cannot write the log" in err and "still said" in err


def test_the_log_rotates(tmp_path, monkeypatch):
    monkeypatch.setattr(logs, "MAX_BYTES", 2_000)
    folder = tmp_path / "logs"
    path = logs.setup_logging(folder)
    try:
        for i in range(200):
            logging.getLogger("mime_gui.test").warning("line %d of a long session", i)
    finally:
        logs.stop_logging()
    backups = sorted(p.name for p in folder.iterdir())
    assert backups == ["mime-gui.log", "mime-gui.log.1", "mime-gui.log.2", "mime-gui.log.3"]
    assert all(p.stat().st_size <= 2_000 for p in folder.iterdir())
    assert "line 199 " in path.read_text()


# -- what --------------------------------------------------------------------------------------------

def test_reader_warnings_mesh_placeholders_and_session_errors_are_logged(log_file, tmp_path):
    from mime_gui.app.scene import meshes
    from mime_gui.session import Session, SessionError

    urdf = tmp_path / "free.urdf"
    urdf.write_text('<robot name="free"><link name="a"/><link name="b"/>'
                    '<joint name="j" type="revolute"><parent link="a"/><child link="b"/></joint></robot>')
    read_urdf(urdf)
    with pytest.warns(UserWarning):
        meshes.load_mesh(str(tmp_path / "gone.stl"))
    session = Session()
    session.error.connect(logs.log_session_error)
    with pytest.raises(SessionError):
        session.open(tmp_path / "missing.urdf")
    logs.log_session_error(SessionError("rig.demo", "a refusal shown to the user", "x.rig.json", 3))
    written = text(log_file)
    assert f"{urdf}:" in written and "warning[urdf.limit-default]" in written
    assert "placeholder shown for mesh" in written and "gone.stl" in written
    assert "ERROR mime_gui.app" in written and "error[rig.demo] x.rig.json:3" in written


# -- the exception hook ------------------------------------------------------------------------------

class Emitter(QObject):
    fired = Signal()


def boom():
    raise ZeroDivisionError("a defect in a slot")


def dialog_shown(reporter) -> bool:
    return reporter.dialog is not None and reporter.dialog.isVisible()


@pytest.mark.qt_no_exception_capture
def test_an_exception_in_a_slot_shows_the_dialog_writes_the_log_and_the_app_lives(reporter, log_file, qtbot):
    button = QPushButton("go")
    qtbot.addWidget(button)
    button.clicked.connect(boom)
    button.show()
    button.click()
    qtbot.waitUntil(lambda: dialog_shown(reporter), timeout=5000)
    shown = reporter.dialog.text()
    assert "ZeroDivisionError: a defect in a slot" in shown and str(log_file) in shown
    written = text(log_file)
    assert "CRITICAL mime_gui.app [MainThread]: unexpected exception" in written
    assert "Traceback" in written and 'raise ZeroDivisionError("a defect in a slot")' in written
    # the event loop goes on: a timer still fires and the button still works
    later = []
    QTimer.singleShot(0, lambda: later.append(True))
    qtbot.waitUntil(lambda: later == [True], timeout=2000)
    assert QApplication.instance() is not None and button.isVisible()


@pytest.mark.qt_no_exception_capture
def test_later_exceptions_are_counted_in_the_open_dialog(reporter, qtbot):
    emitter = Emitter()
    emitter.fired.connect(boom)
    QTimer.singleShot(0, emitter.fired.emit)
    qtbot.waitUntil(lambda: dialog_shown(reporter), timeout=5000)
    first = reporter.dialog
    for _ in range(3):
        QTimer.singleShot(0, emitter.fired.emit)
    qtbot.waitUntil(lambda: reporter.count == 4, timeout=5000)
    assert reporter.dialog is first
    assert "4 unexpected errors" in first.informativeText()


@pytest.mark.qt_no_exception_capture
def test_an_exception_on_a_worker_thread_reaches_the_gui_thread(reporter, log_file, qtbot):
    reporter.install()  # pytest (before 9) sets its own threading.excepthook around each test's call
    worker = threading.Thread(target=boom, name="worker-7")
    worker.start()
    worker.join()
    qtbot.waitUntil(lambda: dialog_shown(reporter), timeout=5000)
    assert "ZeroDivisionError" in reporter.dialog.text()
    assert "CRITICAL mime_gui.app [worker-7]: unexpected exception in worker-7" in text(log_file)


@pytest.mark.qt_no_exception_capture
def test_a_defect_in_the_mesh_loader_pool_is_not_swallowed(reporter, log_file, qtbot, monkeypatch):
    from mime_gui.app.scene import meshes

    def broken(self, batch, req):
        raise RuntimeError("the loader itself failed")

    monkeypatch.setattr(meshes.MeshLoader, "_work", broken)
    loader = meshes.MeshLoader()
    try:
        loader.load([meshes.MeshRequest("/nowhere/a.stl")])
        qtbot.waitUntil(lambda: dialog_shown(reporter), timeout=5000)
    finally:
        loader.shutdown()
    assert "RuntimeError: the loader itself failed" in reporter.dialog.text()
    assert "the loader itself failed" in text(log_file)


def test_keyboard_interrupt_goes_to_the_previous_hook(reporter, monkeypatch):
    seen = []
    reporter._previous = (lambda *a: seen.append(a[0]), reporter._previous[1])
    reporter.excepthook(KeyboardInterrupt, KeyboardInterrupt(), None)
    assert seen == [KeyboardInterrupt] and reporter.dialog is None


def test_about_names_the_log_file(window, log_file):
    assert str(log_file) in window.about_text()
