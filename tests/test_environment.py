"""The test set-up has every peer the suite compares against, so no cross-check is silently skipped.

Other modules skip when example-robot-data, Pinocchio or yourdfpy are missing (a developer may run a subset
without them); this test makes such a set-up fail loudly instead of passing on fewer checks.
"""

import importlib

import pytest
from robot_data import ROBOTS

PEERS = ["pinocchio", "mujoco", "yourdfpy", "hypothesis", "PySide6", "pyvistaqt", "ruff", "scipy"]


@pytest.mark.parametrize("module", PEERS)
def test_peer_library_is_installed(module):
    importlib.import_module(module)


def test_example_robot_data_is_installed():
    assert ROBOTS is not None, "example-robot-data is missing: pip install --no-deps example-robot-data"
    for relative in ("pr2_description/urdf/pr2.urdf", "panda_description/urdf/panda.urdf",
                     "ur_description/urdf/ur5_robot.urdf", "talos_data/robots/talos_reduced.urdf",
                     "double_pendulum_description/urdf/double_pendulum_continuous.urdf"):
        assert (ROBOTS / relative).is_file(), f"{relative} missing: pip install --no-deps example-robot-data"
