"""MIME Rig Builder: describe, check, drive and export MIME apparatus rigs.

Headless core: ``multibody`` (URDF reading, Articulation, algorithms), ``nodes`` (KinematicArmNode and
recorded-command playback), ``rig`` (the rig model) and ``session`` (application state). Qt and VTK live in
``app`` only.
"""

from pathlib import Path

__version__ = "0.1.0"

#: Bundled data (demo rig, materials, actuator registry, schema). The project is installed editable.
RESOURCES = Path(__file__).resolve().parent.parent / "resources"
