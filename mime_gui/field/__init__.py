"""The field of the rig's magnets (headless): B at probes along a played trajectory, computed with Magpylib.

Conventions, written once: B is in tesla, in world axes, at points in metres. A magnet is a Magpylib source
whose centre is the magnet's centroid and whose axes are its mount frame's (a part's frame is not turned in
its mount frame); its polarisation is the remanence along the magnetisation direction (``J = Br·d``, in the
magnet's frame), so its moment is ``Br·V/μ0`` as the build report says. A cylinder's axis is its frame's z
axis in both. Arrays over a trajectory carry the step first: ``B (T, probes, 3)``, ``contributions
(T, magnets, probes, 3)``. There is no Python loop over steps: each magnet is one source with a path of
``T`` positions and orientations, each probe one sensor with a path.

    built = rig.build()
    trajectory = built.play(commands, dt)
    field = field_along(built, trajectory)            # every probe of the rig
    field.B, field.time, field.probe_names, rotating_summary(field.time, field.B)

The gradient, the force and torque on the rig's samples, the keep-out zones' check, |B| at the arm's own
joints and the samples' step-out frequency ride on the same batching (:mod:`~mime_gui.field.forces`,
:mod:`~mime_gui.field.samples`, :mod:`~mime_gui.field.zones`, :mod:`~mime_gui.field.joints`,
:mod:`~mime_gui.field.step_out`).

This package never imports Qt, pyvista or vtk.
"""

from mime_gui.field.along import FieldTrajectory, field_along, field_bytes, probe_points
from mime_gui.field.errors import FieldError
from mime_gui.field.forces import dipole_wrench, gradient_at
from mime_gui.field.joints import JointField, joint_field
from mime_gui.field.lines import field_lines
from mime_gui.field.live import field_now
from mime_gui.field.plane import FieldPlane, field_plane, rest_poses
from mime_gui.field.samples import SampleForces, forces_along, forces_now
from mime_gui.field.sources import MagnetSource, magnet_sources
from mime_gui.field.step_out import StepOut, step_out
from mime_gui.field.summary import RotatingField, rotating_summary
from mime_gui.field.zones import ZoneCheck, zone_findings

__all__ = ["FieldError", "FieldPlane", "FieldTrajectory", "JointField", "MagnetSource", "RotatingField",
           "SampleForces", "StepOut", "ZoneCheck", "dipole_wrench", "field_along", "field_bytes",
           "field_lines", "field_now", "field_plane", "forces_along", "forces_now", "gradient_at",
           "joint_field", "magnet_sources", "probe_points", "rest_poses", "rotating_summary", "step_out",
           "zone_findings"]
