"""The properties dock shows a frame's rotation through the engine's ``quaternion_of`` and ``rpy_of``."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.app.main import wait_until_ready
from mime_gui.session import ItemRef

pytestmark = pytest.mark.timeout(60)

# ``side`` sits 3e-5 rad short of gimbal lock: the rpy it was written with is the one to show back.
URDF = """<robot name="turns">
  <link name="base"/>
  <link name="side"/>
  <joint name="to_side" type="fixed"><parent link="base"/><child link="side"/>
    <origin xyz="0 0.1 0" rpy="0.3 1.57076632679 0.5"/></joint>
</robot>
"""


def numbers(text: str) -> np.ndarray:
    return np.array([float(v) for v in text.split()[:4] if v not in ("rad", "°")])


def test_an_arm_mounted_half_a_turn_about_a_mixed_sign_axis_shows_its_signs(window, tmp_path):
    """A mount quaternion (0, 1, -1, 0)/√2 gives an exact half-turn, whose quaternion the copysign formula
    got wrong (both signs positive)."""
    rig = json.loads((RESOURCES / "demo" / "demo.rig.json").read_text())
    arm = rig["chain"][0]
    arm["description"] = str(RESOURCES / "demo" / "arm.urdf")
    arm["orientation"]["wxyz"] = [0.0, math.sqrt(0.5), -math.sqrt(0.5), 0.0]
    path = tmp_path / "upside-down.rig.json"
    path.write_text(json.dumps(rig))
    assert window.open_file(str(path)), window.error_dialog and window.error_dialog.text()
    wait_until_ready(window)
    window.session.select(ItemRef(arm["name"], "frame", "base_link"))
    values = window.properties_dock.values()
    assert numbers(values["World pose/quat xyzw"]) == pytest.approx(
        [math.sqrt(0.5), -math.sqrt(0.5), 0.0, 0.0], abs=1e-4)


def test_close_to_gimbal_lock_the_written_angles_are_shown(window, tmp_path):
    path = tmp_path / "turns.urdf"
    path.write_text(URDF)
    assert window.open_file(str(path))
    wait_until_ready(window)
    (name, _), = window.session.segments.items()
    window.session.select(ItemRef(name, "frame", "side"))
    values = window.properties_dock.values()
    assert numbers(values["World pose/rpy"]) == pytest.approx([0.3, 1.5708, 0.5], abs=1e-4)
