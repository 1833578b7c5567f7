"""The rig model and its commands never load Qt, pyvista or vtk."""

import subprocess
import sys

from rig_helpers import DEMO_RIG

CODE = f"""
import sys
from mime_gui.cli import main
from mime_gui.rig import load
import mime_gui.rig.export, mime_gui.rig.playback
assert main(["validate", {str(DEMO_RIG)!r}]) == 0
load({str(DEMO_RIG)!r}).build()
gui = ("PySide6", "shiboken6", "pyvista", "pyvistaqt", "vtk", "vtkmodules")
bad = sorted(m for m in sys.modules if m.split(".")[0] in gui)
assert not bad, bad
"""


def test_rig_is_headless():
    done = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
