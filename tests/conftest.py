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


#: tests mutmut does not run (docs/mutation.md): their ids need not be given back on a command line
_NOT_MUTATION_TESTED = ("tests/app/", "tests/test_one_door.py")


def pytest_collection_modifyitems(config, items):
    """Every test mutmut runs has an id pytest can be given back (no backslash: see tests/plain_ids.py)."""
    bad = [item.nodeid for item in items
           if "\\" in item.nodeid and not item.nodeid.startswith(_NOT_MUTATION_TESTED)]
    if bad:
        raise pytest.UsageError("test ids pytest cannot be given back on its command line (mutmut passes "
                                "them there): give these parametrised tests ids=plain_id "
                                "(tests/plain_ids.py): " + ", ".join(bad[:5])
                                + (f" … ({len(bad)} in all)" if len(bad) > 5 else ""))
