"""Rigid multibody library: read descriptions, compile Articulations, run kinematics and dynamics.

Conventions (written once, here):

- Transforms are ``(4, 4)`` arrays named by their frames: ``world_X_frame`` maps frame coordinates to world.
- Spatial vectors (twists, wrenches, Jacobian rows) are ordered ``[angular; linear]``.
- The root link is fixed in the world. Its mass, with that of every link welded to it by fixed joints, is
  excluded from ``mass``, ``center_of_mass`` and momentum (as in RigidBodyDynamics.jl and Pinocchio).
- Links welded by fixed joints are merged into the body of their nearest movable ancestor at compile time;
  every link name stays a frame. ``nq == nv``: each movable joint (revolute, continuous, prismatic) has one
  degree of freedom, and a continuous joint's q is its angle.
- Mimic joints are independent degrees of freedom in the algorithms; the playback node makes followers follow.
"""

from mime_gui.multibody.articulation import PRISMATIC, REVOLUTE, Articulation
from mime_gui.multibody.errors import Diagnostic, UrdfError
from mime_gui.multibody.kinematics import body_poses, frame_angular_velocities, frame_poses
from mime_gui.multibody.report import ReadReport
from mime_gui.multibody.tree import MultibodyTree
from mime_gui.multibody.urdf import read_urdf

__all__ = [
    "PRISMATIC",
    "REVOLUTE",
    "Articulation",
    "Diagnostic",
    "MultibodyTree",
    "ReadReport",
    "UrdfError",
    "body_poses",
    "frame_angular_velocities",
    "frame_poses",
    "read_urdf",
]
