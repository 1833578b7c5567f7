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
- Jacobians, momenta and the dynamics work in world axes. ``geometric_jacobian`` and ``momentum_matrix`` are
  ``(6, nv)`` with rows ``[angular; linear]``; as in RigidBodyDynamics.jl, the linear rows of a twist are the
  velocity of the body point at the world origin and angular momentum is taken about the world origin.
- External wrenches are a mapping body (or link/frame) name → ``(torque, force)`` in world axes, the torque
  about the world origin.
- Equations of motion ``M(q) vdot + c(q, v, w_ext) = tau``; ``M`` includes ``art.armature`` on its diagonal
  and inverse dynamics includes ``armature * vdot``. Joint damping and friction are carried by the
  Articulation but *not applied* by these algorithms (add them to ``tau`` yourself).
- Every algorithm accepts leading batch dimensions on q (and v, vdot, tau), vectorised over the batch.
- Bad input (wrong shape, non-finite values) raises ValueError naming the argument; an unknown frame, body or
  joint name raises KeyError.
- A description may load with a link whose mass properties are not physical (``Articulation.dynamics_errors``
  names each): mass, centre of mass, momentum and dynamics then raise :class:`DynamicsError` (a ValueError
  with a code); kinematics and Jacobians are computed as usual.
"""

from mime_gui.multibody.articulation import PRISMATIC, REVOLUTE, Articulation
from mime_gui.multibody.errors import Diagnostic, DynamicsError, UrdfError
from mime_gui.multibody.jacobians import geometric_jacobian, point_jacobian
from mime_gui.multibody.joint_space import dynamics, dynamics_bias, inverse_dynamics, mass_matrix
from mime_gui.multibody.kinematics import body_poses, frame_angular_velocities, frame_poses
from mime_gui.multibody.momentum import (
    center_of_mass,
    kinetic_energy,
    mass,
    momentum,
    momentum_matrix,
    subtree_mass,
)
from mime_gui.multibody.report import ReadReport
from mime_gui.multibody.tree import MultibodyTree
from mime_gui.multibody.urdf import read_urdf

__all__ = [
    "PRISMATIC",
    "REVOLUTE",
    "Articulation",
    "Diagnostic",
    "DynamicsError",
    "MultibodyTree",
    "ReadReport",
    "UrdfError",
    "body_poses",
    "center_of_mass",
    "dynamics",
    "dynamics_bias",
    "frame_angular_velocities",
    "frame_poses",
    "geometric_jacobian",
    "inverse_dynamics",
    "kinetic_energy",
    "mass",
    "mass_matrix",
    "momentum",
    "momentum_matrix",
    "point_jacobian",
    "subtree_mass",
    "read_urdf",
]
