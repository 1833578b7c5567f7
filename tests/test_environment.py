"""The test set-up has every peer the suite compares against, so no cross-check is silently skipped.

Other modules skip when example-robot-data, Pinocchio or yourdfpy are missing (a developer may run a subset
without them); this test makes such a set-up fail loudly instead of passing on fewer checks.
"""

import importlib
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize("module", ["pinocchio", "yourdfpy", "hypothesis", "PySide6", "pyvistaqt", "ruff"])
def test_peer_library_is_installed(module):
    importlib.import_module(module)


def test_example_robot_data_is_installed():
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    robots = Path(sys.prefix) / "lib" / version / "site-packages" / "cmeel.prefix" / "share" / \
        "example-robot-data" / "robots"
    for relative in ("pr2_description/urdf/pr2.urdf", "panda_description/urdf/panda.urdf",
                     "ur_description/urdf/ur5_robot.urdf", "talos_data/robots/talos_reduced.urdf",
                     "double_pendulum_description/urdf/double_pendulum_continuous.urdf"):
        assert (robots / relative).is_file(), f"{relative} missing: pip install --no-deps example-robot-data"
