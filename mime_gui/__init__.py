"""MIME Rig Builder: describe, check, drive and export MIME apparatus rigs.

Headless core: ``multibody`` (URDF reading, Articulation, algorithms), ``nodes`` (KinematicArmNode and
recorded-command playback), ``rig`` (the rig model) and ``session`` (application state). Qt and VTK live in
``app`` only.
"""

import logging

from mime_gui._package import package_version, resources_folder

# The packages log warnings under "mime_gui"; the app sends them to its log file. Without that, they are
# dropped rather than printed (the command line reports its findings itself).
logging.getLogger(__name__).addHandler(logging.NullHandler())

__version__ = package_version()

#: Bundled data (demo rig, materials, actuator registry, schema), a folder inside the installed package.
RESOURCES = resources_folder()
