"""Nodes that drive an Articulation through time, headless (no Qt, pyvista or vtk).

- :class:`KinematicArmNode` (MIME-NODE-104): held commands, an exact first-order servo lag, every frame's
  world pose on its mount and its angular velocity; :meth:`~KinematicArmNode.advance` one step,
  :meth:`~KinematicArmNode.play` many steps at once.
- :class:`MountedNode`: the placement ``O`` on a mount frame of pose ``M_j`` and rate ``ω_j``.
- :func:`read_commands`: recorded joint commands from CSV or NPZ (see docs/command-files.md), resampled with a
  zero-order hold; :class:`CommandFileError` carries a stable code and the place.
"""

from mime_gui.nodes.chain import KinematicArmNode, MountedNode, NodeState, Trajectory
from mime_gui.nodes.commands import CommandFileError, RecordedCommands, read_commands

__all__ = [
    "CommandFileError",
    "KinematicArmNode",
    "MountedNode",
    "NodeState",
    "RecordedCommands",
    "Trajectory",
    "read_commands",
]
