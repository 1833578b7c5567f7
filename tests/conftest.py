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
