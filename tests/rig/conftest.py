"""Fixtures of the rig tests (helpers live in rig_helpers.py)."""

import pytest
from rig_helpers import snippet_rig

from mime_gui.rig import Apparatus


@pytest.fixture
def rig() -> Apparatus:
    return snippet_rig()
