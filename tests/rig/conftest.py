"""Fixtures of the rig tests (helpers live in rig_helpers.py)."""

import pytest
from rig_helpers import snippet_rig

from mime_gui.rig import Apparatus


@pytest.fixture
def rig() -> Apparatus:
    return snippet_rig()


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """The bundle cache: a folder of the test's own, not the user's."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("MIME_GUI_BUNDLE_CACHE", str(folder))
    return folder
