"""The rig model (headless): an apparatus's chain of segments, the parts and magnets mounted on it, where
every mass and armature comes from, the rules with their codes, the build, the rig file and the Python export.

In short (the rig file and its rules: docs/rig-file.md)::

    rig = Apparatus("rig", chain={"arm": Arm.Dynamic(description="arm.urdf", ...),
                                  "motor": Motor.Dynamic(axis=(0, 0, 1), inertia=kg_m2(...), mount="link_6")},
                    parts={"holder": Part(Cylinder(radius=0.01, length=0.02), material="aluminium",
                                          at=(0, 0, 0.01), mount="motor.rotor")})
    rig.validate()          # [] or [Finding(code, where, message), ...]
    built = rig.build()     # raises RigError carrying the findings
    built.report, built.articulation("arm"), built.play(commands, dt)

This package never imports Qt, pyvista or vtk.
"""

from mime_gui.rig.actuators import actuator, actuator_names, register_actuator, unregister_actuator
from mime_gui.rig.apparatus import Apparatus
from mime_gui.rig.build import BuiltRig, RigTrajectory
from mime_gui.rig.clearance import Allowed, Clearance
from mime_gui.rig.dynamics import LabSegment, register_dynamics, unregister_dynamics
from mime_gui.rig.findings import Finding, RigError
from mime_gui.rig.frames import DeclaredFrame
from mime_gui.rig.geometries import by_class_name
from mime_gui.rig.materials import Material, material, material_names, materials
from mime_gui.rig.parts import Box, Cylinder, Mesh, Part, PermanentMagnet, Ring, Sphere
from mime_gui.rig.poses import Pose
from mime_gui.rig.probes import Probe
from mime_gui.rig.report import RigReport
from mime_gui.rig.rigfile import RigFileError, load, save
from mime_gui.rig.rules import RULES
from mime_gui.rig.samples import Sample
from mime_gui.rig.segments import Arm, Motor
from mime_gui.rig.targets import FieldTarget, TargetError
from mime_gui.rig.trajectories import AccelerationLimit, Keyframe, Spin, Trajectory
from mime_gui.rig.units import Quantity, a_m2, kg, kg_m2, kg_per_m3, m, n_m_s, s, tesla
from mime_gui.rig.zones import Zone

__all__ = [
    "RULES",
    "AccelerationLimit",
    "Allowed",
    "Apparatus",
    "Arm",
    "Box",
    "BuiltRig",
    "Clearance",
    "Cylinder",
    "DeclaredFrame",
    "Finding",
    "Keyframe",
    "LabSegment",
    "Material",
    "Mesh",
    "Motor",
    "Part",
    "PermanentMagnet",
    "Pose",
    "Probe",
    "Quantity",
    "RigError",
    "RigFileError",
    "RigReport",
    "RigTrajectory",
    "Ring",
    "Sample",
    "Sphere",
    "Spin",
    "Trajectory",
    "Zone",
    "FieldTarget",
    "TargetError",
    "a_m2",
    "actuator",
    "actuator_names",
    "kg",
    "kg_m2",
    "kg_per_m3",
    "load",
    "m",
    "material",
    "material_names",
    "materials",
    "n_m_s",
    "register_actuator",
    "register_dynamics",
    "s",
    "save",
    "tesla",
    "unregister_actuator",
    "unregister_dynamics",
]


def __getattr__(name: str):
    """Every registered geometry kind's class is importable from here (an export imports them so)."""
    cls = by_class_name(name)
    if cls is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return cls
