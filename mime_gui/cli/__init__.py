"""The ``mime-gui`` command line: :func:`main` (in :mod:`mime_gui.cli.main`) and the headless subcommands.

Each subcommand module (``inspect``, ``play``, ``rig``) offers ``add_arguments(parser, name)`` and
``run(args) -> int``, and never imports Qt, pyvista or vtk.
"""

from mime_gui.cli.main import main

__all__ = ["main"]
