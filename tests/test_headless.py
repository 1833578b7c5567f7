"""The headless packages never load Qt, PyVista or VTK; neither does ``mime-gui inspect``."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "resources" / "demo" / "arm.urdf"
HEADLESS = ["mime_gui.multibody", "mime_gui.nodes", "mime_gui.rig", "mime_gui.session", "mime_gui.cli",
            "mime_gui.errors", "mime_gui.magnitudes", "mime_gui.inputs", "mime_gui.files",
            "mime_gui.mesh_files", "mime_gui.nodes.columns", "mime_gui.rig.typed_units",
            "mime_gui.session.watched", "mime_gui.session.stand_ins", "mime_gui.cli.play",
            "mime_gui.cli.rig", "mime_gui.cli.inspect", "mime_gui.field", "mime_gui.cli.field",
            "mime_gui.rig.measures", "mime_gui.session.measures", "mime_gui.sweep", "mime_gui.cli.sweep"]
FORBIDDEN = ("PySide6", "pyvista", "pyvistaqt", "vtk", "vtkmodules", "qtpy", "PyQt5", "PyQt6", "shiboken6")

PROBE = """
import json, sys
mods = json.loads(sys.argv[1])
for m in mods:
    __import__(m)
from mime_gui.cli import main
code = main(["inspect", sys.argv[2], "--json"])
forbidden = tuple(json.loads(sys.argv[3]))
loaded = sorted(n for n in sys.modules if n.split(".")[0] in forbidden)
sys.stderr.write(json.dumps({"code": code, "loaded": loaded, "imported": mods}) + "\\n")
"""


def _existing(modules):
    return [m for m in modules if importlib.util.find_spec(m) is not None]


def test_headless_packages_and_inspect_do_not_import_qt_or_vtk():
    modules = _existing(HEADLESS)
    assert "mime_gui.multibody" in modules and "mime_gui.cli" in modules
    argv = [sys.executable, "-c", PROBE, json.dumps(modules), str(DEMO), json.dumps(FORBIDDEN)]
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stderr.strip().splitlines()[-1])
    assert result["code"] == 0
    assert json.loads(proc.stdout)["name"] == "demo_arm"
    assert result["loaded"] == [], f"headless imports pulled in {result['loaded']}"


def test_the_probe_can_see_a_forbidden_import():
    """The check itself works: importing the app package is seen when Qt is installed."""
    if importlib.util.find_spec("PySide6") is None:
        return
    proc = subprocess.run([sys.executable, "-c", "import sys, PySide6.QtCore; "
                           "print(any(n.startswith('PySide6') for n in sys.modules))"],
                          capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip() == "True"
