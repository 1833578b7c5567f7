"""Shared fixtures of the node tests: the demo arm and a small arm with a mimic joint."""

from __future__ import annotations

import pytest
from node_helpers import DEMO_URDF, MIMIC_URDF

from mime_gui.multibody import read_urdf


@pytest.fixture(scope="session")
def demo_art():
    return read_urdf(DEMO_URDF).compile()


@pytest.fixture(scope="session")
def mimic_art():
    return read_urdf(MIMIC_URDF).compile()
