"""Hypothesis strategies: any rig the model can hold, valid or not (names and reasons of any text)."""

from hypothesis import strategies as st

from mime_gui.rig import (
    Apparatus,
    Arm,
    Box,
    Cylinder,
    DeclaredFrame,
    Mesh,
    Motor,
    Part,
    PermanentMagnet,
    Probe,
    Quantity,
    Ring,
    Sphere,
)
from mime_gui.rig.poses import POSE_UNITS
from mime_gui.rig.samples import Sample
from mime_gui.rig.trajectories import (
    ACCELERATION_UNITS,
    INTERPOLATIONS,
    AccelerationLimit,
    Keyframe,
    Spin,
    Trajectory,
)
from mime_gui.rig.units import UNITS
from mime_gui.rig.zones import Zone

finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
text = st.text(max_size=12)
vec3 = st.tuples(finite, finite, finite)
quantity = st.builds(Quantity, finite, st.sampled_from(sorted(UNITS)), st.none() | text)
declaration = st.none() | finite | quantity
paths = st.sampled_from(["arm.urdf", "sub/arm.urdf", "../other/arm.urdf", "a b/ü.urdf"])
common = {"at": vec3, "orientation": st.tuples(finite, finite, finite, finite), "mount": st.none() | text,
          "servo_time_constant": finite, "field_tolerance": declaration}
positions = st.dictionaries(text, finite, max_size=3)
arms = st.builds(Arm.Kinematic, description=paths, initial_positions=positions, **common) | st.builds(
    Arm.Dynamic, description=paths, initial_positions=positions,
    armature=st.dictionaries(text, finite | quantity, max_size=3),
    actuators=st.dictionaries(text, text | finite | quantity, max_size=3), **common)
motors = st.builds(Motor.Kinematic, axis=vec3, initial_position=finite, **common) | st.builds(
    Motor.Dynamic, axis=vec3, initial_position=finite, inertia=declaration, **common)
geometry = (st.builds(Box, vec3) | st.builds(Cylinder, finite, finite)
            | st.builds(Ring, finite, finite, finite) | st.builds(Sphere, finite)
            | st.builds(Mesh, paths, vec3))
part_fields = {"material": st.none() | text, "at": vec3, "mount": st.none() | text, "mass": declaration,
               "density": declaration}
parts = st.builds(Part, geometry, **part_fields)
magnets = st.builds(PermanentMagnet, geometry, magnetisation=vec3, remanence=declaration, **part_fields)
package_dirs = st.lists(st.sampled_from(["packages", "../ros_ws/src", "a b/ü"]), max_size=2)
probes = st.builds(Probe, vec3, mount=st.none() | text)
frames = st.builds(DeclaredFrame, text, at=vec3, orientation=st.tuples(finite, finite, finite, finite))
samples = st.builds(Sample, vec3, mount=st.none() | text, geometry=st.none() | geometry,
                    material=st.none() | text, remanence=declaration, moment=declaration, magnetisation=vec3,
                    orientation=st.sampled_from(["fixed", "follows"]) | text, drag=declaration)
zones = st.builds(Zone, vec3, mount=st.none() | text, box=st.none() | vec3, sphere=st.none() | finite,
                  limit=finite, reason=st.none() | text)
rigs = st.builds(lambda name, chain, parts, magnets, dirs, probes, frames, samples, zones: Apparatus(
                     name, chain, parts, magnets, package_dirs=dirs, probes=probes, frames=frames,
                     samples=samples, zones=zones),
                 text, st.dictionaries(text, arms | motors, max_size=3),
                 st.dictionaries(text, parts, max_size=3), st.dictionaries(text, magnets, max_size=2),
                 package_dirs, st.dictionaries(text, probes, max_size=2),
                 st.dictionaries(text, frames, max_size=2), st.dictionaries(text, samples, max_size=2),
                 st.dictionaries(text, zones, max_size=2))


# trajectories: keyframes of any values (the rules, not the model, refuse what cannot play)
spins = st.builds(Spin, finite, st.sampled_from(["Hz", "rpm"]), ramp=finite, hold=st.none() | finite,
                  turns=st.none() | finite)
keyframes = st.builds(Keyframe, finite, values=st.dictionaries(text, finite, max_size=2),
                      pose=st.none() | text, interpolation=st.sampled_from(INTERPOLATIONS) | text,
                      fixed=st.booleans(), frame=st.none() | text, spin=st.none() | spins)
acceleration_limits = st.builds(AccelerationLimit, finite, st.sampled_from(sorted(ACCELERATION_UNITS)),
                                st.none() | text)
trajectories = st.builds(Trajectory, st.dictionaries(text, st.lists(keyframes, max_size=3), max_size=2),
                         st.sampled_from(POSE_UNITS),
                         acceleration_limits=st.dictionaries(
                             text, st.dictionaries(text, acceleration_limits, max_size=2), max_size=2))
