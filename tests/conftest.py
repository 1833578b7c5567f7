"""Every test folder imports the shared helpers of this folder (``robot_data``) by name."""

import sys
from pathlib import Path

import pytest

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)


@pytest.fixture(autouse=True)
def _private_state_folder(tmp_path_factory, monkeypatch):
    """An app started by a test (in a subprocess too) writes its log under the test run, not the user's."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.getbasetemp() / "state"))


@pytest.fixture(autouse=True)
def _collect_on_the_gui_thread():
    """Once a window has switched automatic garbage collection off (mime_gui.app.gc_guard), a test that runs
    no event loop gets its collection here, on the main thread, as the guard's timer would."""
    yield
    guard = sys.modules.get("mime_gui.app.gc_guard")
    if guard is not None and guard.installed() is not None:
        guard.installed().check()
