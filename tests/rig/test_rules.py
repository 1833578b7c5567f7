"""Every rule code: a valid rig broken in one place gives that code, at that rig path, with a message
naming what exists."""

from __future__ import annotations

import math

import numpy as np
import pytest
import trimesh
from rig_helpers import DEMO_URDF, SLIDER_URDF, demo_urdf_with, snippet_rig

from mime_gui.rig import (
    RULES,
    AccelerationLimit,
    Allowed,
    Apparatus,
    Arm,
    Box,
    Clearance,
    Cylinder,
    DeclaredFrame,
    Finding,
    Keyframe,
    Mesh,
    Motor,
    Part,
    PermanentMagnet,
    Pose,
    Probe,
    RigError,
    Sample,
    Sphere,
    Spin,
    Trajectory,
    Zone,
    a_m2,
    kg,
    kg_m2,
    kg_per_m3,
    n_m_s,
    tesla,
)
from mime_gui.rig.targets import FieldTarget


def _set(obj, **kw):
    for k, v in kw.items():
        setattr(obj, k, v)


def _bead(**kw):
    """A valid sample: a declared moment on the motor's stator."""
    return Sample(**{"at": (0, 0, 0.05), "mount": "motor.stator",
                     "moment": a_m2(1e-3, reason="a VSM measurement"), **kw})


def _zone(**kw):
    """A valid zone: a box beside the bench where the operator stands."""
    return Zone(**{"at": (0.5, 0, 0.5), "box": (0.4, 0.4, 1.0), "reason": "the operator's place", **kw})


def _arm(rig):
    return rig.chain["arm"]


def _two_transmissions(rig, tmp_path):
    path = demo_urdf_with(tmp_path, """<transmission name="transmission_6b"><joint name="joint_6"/>
        <actuator name="motor_6b"><mechanicalReduction>2</mechanicalReduction></actuator></transmission>""")
    _set(_arm(rig), description=str(path), armature={},
         actuators={"motor_6": kg_m2(1e-5, reason="a"), "motor_6b": kg_m2(1e-5, reason="b")})


def _missing_transmission_joint(rig, tmp_path):
    path = demo_urdf_with(tmp_path, """<transmission name="transmission_x"><joint name="joint_x"/>
        <actuator name="motor_x"><mechanicalReduction>2</mechanicalReduction></actuator></transmission>""")
    _set(_arm(rig), description=str(path), actuators={"motor_x": kg_m2(1e-5, reason="datasheet")})


ANTENNA = """<link name="antenna"><inertial><mass value="1e-9"/>
  <inertia ixx="1e-8" ixy="5e-8" ixz="0" iyy="1e-8" iyz="0" izz="1e-8"/></inertial></link>
<joint name="antenna_joint" type="fixed"><parent link="link_6"/><child link="antenna"/></joint>"""


def _nonphysical_inertia(rig, tmp_path):
    _set(_arm(rig), description=str(demo_urdf_with(tmp_path, ANTENNA)))


def _reduction_word(rig, tmp_path):
    path = demo_urdf_with(tmp_path, """<transmission name="transmission_w"><joint name="joint_5"/>
        <actuator name="motor_w"><mechanicalReduction>reduction</mechanicalReduction></actuator>
        </transmission>""")
    _set(_arm(rig), description=str(path), actuators={"motor_w": kg_m2(1e-5, reason="datasheet")})


def _open_mesh(rig, tmp_path):
    mesh = trimesh.creation.box((0.01, 0.01, 0.01))
    mesh.update_faces(np.arange(len(mesh.faces)) > 1)  # drop two triangles: a hole
    mesh.export(tmp_path / "open.stl")
    rig.parts["holder"].geometry = Mesh(str(tmp_path / "open.stl"))


def _third_segment(mount):
    def mutate(rig, tmp_path):
        rig.chain["tool"] = Arm.Kinematic(description=str(DEMO_URDF), mount=mount)
    return mutate


def _prismatic(armature):
    def mutate(rig, tmp_path):
        path = tmp_path / "slider.urdf"
        path.write_text(SLIDER_URDF)
        rig.chain.clear()
        rig.chain["slider"] = Arm.Dynamic(description=str(path), armature={"slide": armature})
        rig.parts.clear()
        rig.magnets.clear()
    return mutate


def _trajectory(segments=None, limits=None, name="t", poses=None):
    """A rig with one trajectory (and poses): the arm from its start to a keyframe at 1 s, unless given."""
    def mutate(rig, tmp_path):
        rig.poses.update(poses or {})
        rig.trajectories[name] = Trajectory(segments or {"arm": [Keyframe(1.0, values={"joint_1": 0.5})]},
                                            acceleration_limits=limits or {})
    return mutate


def _spin(spin, time=10.0, **kw):
    return _trajectory({"motor": [Keyframe(time, interpolation="spin", spin=spin, **kw)]})


# (id, code, where, mutate(rig, tmp_path), words the message must hold)
CASES = [
    ("first segment mounted", "chain.mount-first", "chain.arm.mount",
     lambda r, t: _set(_arm(r), mount="world"), ["first segment", "world"]),
    ("unknown mount frame", "chain.mount", "chain.motor.mount",
     lambda r, t: _set(r.chain["motor"], mount="link_9"), ["'link_9'", "link_6", "tool0", "base_link"]),
    ("no mount on a later segment", "chain.mount", "chain.motor.mount",
     lambda r, t: _set(r.chain["motor"], mount=None), ["link_6"]),
    ("mount on an unknown segment's frame", "chain.mount", "chain.tool.mount",
     _third_segment("nowhere.link_3"), ["rotor", "arm.<frame>"]),
    ("unreadable description", "chain.description", "chain.arm.description",
     lambda r, t: _set(_arm(r), description=str(t / "missing.urdf")), ["urdf.io"]),
    ("zero quaternion", "chain.placement", "chain.arm.orientation",
     lambda r, t: _set(_arm(r), orientation=(0, 0, 0, 0)), ["unit quaternion"]),
    ("non-unit quaternion", "chain.placement", "chain.motor.orientation",
     lambda r, t: _set(r.chain["motor"], orientation=(2, 0, 0, 0)), ["normalise"]),
    ("non-finite at", "chain.placement", "chain.arm.at",
     lambda r, t: _set(_arm(r), at=(math.nan, 0, 0)), ["finite"]),
    ("unknown initial joint", "chain.initial-positions", "chain.arm.initial_positions.joint_9",
     lambda r, t: _set(_arm(r), initial_positions={"joint_9": 0.0}), ["joint_1", "joint_6"]),
    ("initial position beyond a limit", "chain.initial-positions", "chain.arm.initial_positions.joint_2",
     lambda r, t: _set(_arm(r), initial_positions={"joint_2": 2.0}), ["[-1.8, 1.8]"]),
    ("negative servo time constant", "chain.servo", "chain.arm.servo_time_constant",
     lambda r, t: _set(_arm(r), servo_time_constant=-0.1), ["not negative"]),
    ("a field tolerance of zero", "chain.field-tolerance", "chain.motor.field_tolerance",
     lambda r, t: _set(r.chain["motor"], field_tolerance=tesla(0.0, reason="encoder")),
     ["positive", "0.005"]),
    ("a sample's drag of zero", "sample.drag", "samples.s.drag",
     lambda r, t: r.samples.update(s=_bead(orientation="follows", drag=n_m_s(0.0, reason="Stokes"))),
     ["positive", "N·m·s"]),
    ("motor without an axis", "chain.motor", "chain.motor.axis",
     lambda r, t: _set(r.chain["motor"], axis=(0, 0, 0)), ["axis"]),
    ("dynamic motor without a rotor inertia", "chain.motor", "chain.motor.inertia",
     lambda r, t: _set(r.chain["motor"], inertia=None), ["kg_m2"]),
    ("negative rotor inertia", "chain.motor", "chain.motor.inertia",
     lambda r, t: _set(r.chain["motor"], inertia=kg_m2(-1e-6, reason="typo")), ["not negative"]),
    ("armature on an unknown joint", "chain.armature", "chain.arm.armature.joint_9",
     lambda r, t: _set(_arm(r), armature={"joint_9": kg_m2(1e-4, reason="x")}), ["joint_1", "joint_6"]),
    ("armature on a fixed joint", "chain.armature", "chain.arm.armature.tool0_joint",
     lambda r, t: _set(_arm(r), armature={"tool0_joint": kg_m2(1e-4, reason="x")}), ["fixed joint"]),
    ("a joint given both ways", "chain.armature", "chain.arm.actuators.motor_6",
     lambda r, t: _set(_arm(r), actuators={"motor_6": kg_m2(1.25e-5, reason="datasheet")}),
     ["both", "joint_6"]),
    ("a joint given twice through two transmissions", "chain.armature", "chain.arm.actuators.motor_6b",
     _two_transmissions, ["twice", "joint_6"]),
    ("an actuator no transmission has", "chain.armature", "chain.arm.actuators.motor_9",
     lambda r, t: _set(_arm(r), actuators={"motor_9": kg_m2(1e-5, reason="x")}),
     ["transmission_1", "motor_6"]),
    ("an unregistered actuator", "chain.armature", "chain.arm.actuators.motor_1",
     lambda r, t: _set(_arm(r), actuators={"motor_1": "no-such-motor"}), ["register_actuator"]),
    ("a transmission to a joint that does not exist", "chain.armature", "chain.arm.actuators.motor_x",
     _missing_transmission_joint, ["joint_x", "transmission_x"]),
    ("a reduction that is not a number", "chain.armature", "chain.arm.actuators.motor_w",
     _reduction_word, ["transmission_w", "'reduction'", "declare the armature of 'joint_5'"]),
    ("a link with a non-physical inertia", "chain.inertia", "chain.arm.description",
     _nonphysical_inertia, ["link 'antenna'", "positive semi-definite", "Arm.Kinematic", "arm.urdf:"]),
    ("negative armature", "chain.armature", "chain.arm.armature.joint_6",
     lambda r, t: _set(_arm(r), armature={"joint_6": kg_m2(-1e-4, reason="x")}), ["not negative"]),
    ("part on an unknown frame", "part.mount", "parts.holder.mount",
     lambda r, t: _set(r.parts["holder"], mount="motor.shaft"), ["motor.rotor", "arm.link_6"]),
    ("part on a bare frame name", "part.mount", "magnets.m1.mount",
     lambda r, t: _set(r.magnets["m1"], mount="link_6"), ["<segment>.<frame>", "arm.link_6"]),
    ("non-finite part placement", "part.placement", "parts.holder.at",
     lambda r, t: _set(r.parts["holder"], at=(0, math.inf, 0)), ["finite"]),
    ("negative radius", "part.geometry", "parts.holder.geometry",
     lambda r, t: _set(r.parts["holder"], geometry=Cylinder(radius=-0.01, length=0.02)), ["positive"]),
    ("open mesh", "part.geometry", "parts.holder.geometry", _open_mesh, ["watertight"]),
    ("missing mesh", "part.geometry", "parts.holder.geometry",
     lambda r, t: _set(r.parts["holder"], geometry=Mesh(str(t / "none.stl"))), ["cannot read"]),
    ("unknown material", "part.material", "parts.holder.material",
     lambda r, t: _set(r.parts["holder"], material="unobtainium"), ["aluminium", "NdFeB-N42"]),
    ("mass and density both", "part.mass", "parts.holder.mass",
     lambda r, t: _set(r.parts["holder"], mass=kg(0.1, reason="scale"), density=kg_per_m3(2000, reason="x")),
     ["both"]),
    ("negative mass", "part.mass", "parts.holder.mass",
     lambda r, t: _set(r.parts["holder"], mass=kg(-0.1, reason="scale")), ["not negative"]),
    ("non-finite density", "part.mass", "magnets.m1.density",
     lambda r, t: _set(r.magnets["m1"], density=kg_per_m3(math.nan, reason="x")), ["finite"]),
    ("zero magnetisation", "magnet.magnetisation", "magnets.m1.magnetisation",
     lambda r, t: _set(r.magnets["m1"], magnetisation=(0, 0, 0)), ["non-zero"]),
    ("a plain part among the magnets", "magnet.magnetisation", "magnets.m2",
     lambda r, t: r.magnets.update(m2=Part(Box((0.01, 0.01, 0.01)), material="steel")),
     ["a PermanentMagnet (with a magnetisation), not a plain Part", "move it to parts or make it a magnet"]),
    ("a magnet of a material that is not magnetic", "magnet.remanence", "magnets.m1.remanence",
     lambda r, t: _set(r.magnets["m1"], material="aluminium"), ["not magnetic", "NdFeB-N52"]),
    ("armature without a reason", "declaration.reason", "chain.arm.armature.joint_6",
     lambda r, t: _set(_arm(r), armature={"joint_6": kg_m2(2e-4)}), ["reason"]),
    ("mass without a reason", "declaration.reason", "parts.holder.mass",
     lambda r, t: _set(r.parts["holder"], mass=kg(0.1)), ["reason"]),
    ("remanence without a reason", "declaration.reason", "magnets.m1.remanence",
     lambda r, t: _set(r.magnets["m1"], remanence=tesla(1.2, reason="  ")), ["reason"]),
    ("bare armature", "unit", "chain.arm.armature.joint_6",
     lambda r, t: _set(_arm(r), armature={"joint_6": 2e-4}), ["bare", "kg_m2(value, reason=...)"]),
    ("kg on a revolute joint", "unit", "chain.arm.armature.joint_6",
     lambda r, t: _set(_arm(r), armature={"joint_6": kg(2e-4, reason="x")}), ["expected kg·m²"]),
    ("kg m2 on a prismatic joint", "unit", "chain.slider.armature.slide",
     _prismatic(kg_m2(1.0, reason="x")), ["expected kg"]),
    ("bare rotor inertia", "unit", "chain.arm.actuators.motor_1",
     lambda r, t: _set(_arm(r), actuators={"motor_1": 1e-5}), ["bare"]),
    ("bare motor inertia", "unit", "chain.motor.inertia",
     lambda r, t: _set(r.chain["motor"], inertia=3e-6), ["bare"]),
    ("bare part mass", "unit", "parts.holder.mass",
     lambda r, t: _set(r.parts["holder"], mass=0.1), ["kg(value, reason=...)"]),
    ("density in the wrong unit", "unit", "parts.holder.density",
     lambda r, t: _set(r.parts["holder"], density=kg(2700, reason="x")), ["kg/m³"]),
    ("a part and a magnet of one name", "name.duplicate", "magnets.holder",
     lambda r, t: r.magnets.update(holder=r.magnets.pop("m1")), ["parts.holder"]),
    ("a part named like a segment", "name.duplicate", "parts.arm",
     lambda r, t: r.parts.update(arm=r.parts.pop("holder")), ["chain.arm"]),
    ("a dotted name", "name.invalid", "parts.a.b",
     lambda r, t: r.parts.update({"a.b": r.parts.pop("holder")}), ["without dots"]),
    ("an empty apparatus name", "name.invalid", "name",
     lambda r, t: _set(r, name=""), ["non-empty"]),
    ("a probe on a missing frame", "probe.mount", "probes.sample.mount",
     lambda r, t: r.probes.update(sample=Probe((0, 0, 0.05), mount="motor.shaft")), ["'motor.shaft'",
                                                                                     "motor.rotor"]),
    ("a probe at infinity", "probe.placement", "probes.sample.at",
     lambda r, t: r.probes.update(sample=Probe((math.inf, 0, 0))), ["finite"]),
    ("a probe inside a magnet", "probe.inside-magnet", "probes.sample.at",
     lambda r, t: r.probes.update(sample=Probe((0, 0, 0.025), mount="motor.rotor")), ["inside magnet 'm1'"]),
    ("a sample named like a magnet", "sample.name", "samples.m1",
     lambda r, t: r.samples.update(m1=_bead()), ["magnets.m1", "rename"]),
    ("a sample with a dot in its name", "sample.name", "samples.a.b",
     lambda r, t: r.samples.update({"a.b": _bead()}), ["without dots"]),
    ("a sample on a missing frame", "sample.mount", "samples.s.mount",
     lambda r, t: r.samples.update(s=_bead(mount="motor.shaft")), ["'motor.shaft'", "motor.rotor", "sample"]),
    ("a sample at infinity", "sample.placement", "samples.s.at",
     lambda r, t: r.samples.update(s=_bead(at=(0, math.nan, 0))), ["finite"]),
    ("a sample with neither a shape nor a moment", "sample.moment", "samples.s.moment",
     lambda r, t: r.samples.update(s=Sample((0, 0, 0.05))), ["neither", "a_m2"]),
    ("a sample with a moment of zero", "sample.moment", "samples.s.moment",
     lambda r, t: r.samples.update(s=_bead(moment=a_m2(0.0, reason="VSM"))), ["positive"]),
    ("a sample shaped as a mesh", "sample.geometry", "samples.s.geometry",
     lambda r, t: r.samples.update(s=Sample(geometry=Mesh("bead.stl"), material="NdFeB-N42")),
     ["mesh", "a_m2"]),
    ("a sample of an unknown material", "sample.material", "samples.s.material",
     lambda r, t: r.samples.update(s=Sample(geometry=Sphere(5e-4), material="unobtainium")),
     ["'unobtainium'"]),
    ("a sample of a material that is not magnetic", "sample.remanence", "samples.s.remanence",
     lambda r, t: r.samples.update(s=Sample(geometry=Sphere(5e-4), material="aluminium")),
     ["no remanence"]),
    ("a sample magnetised along nothing", "sample.magnetisation", "samples.s.magnetisation",
     lambda r, t: r.samples.update(s=_bead(magnetisation=(0, 0, 0))), ["non-zero"]),
    ("a sample that spins its own way", "sample.orientation", "samples.s.orientation",
     lambda r, t: r.samples.update(s=_bead(orientation="spins")), ["'spins'", "fixed", "follows"]),
    ("a zone named like a sample", "zone.name", "zones.s",
     lambda r, t: (r.samples.update(s=_bead()), r.zones.update(s=_zone())), ["samples.s"]),
    ("a zone on a missing frame", "zone.mount", "zones.z.mount",
     lambda r, t: r.zones.update(z=_zone(mount="arm.link_9")), ["'arm.link_9'", "tool0"]),
    ("a zone at infinity", "zone.placement", "zones.z.at",
     lambda r, t: r.zones.update(z=_zone(at=(math.inf, 0, 0))), ["finite"]),
    ("a zone both a box and a sphere", "zone.shape", "zones.z.box",
     lambda r, t: r.zones.update(z=_zone(sphere=0.1)), ["both", "one of them"]),
    ("a zone of negative size", "zone.shape", "zones.z.sphere",
     lambda r, t: r.zones.update(z=_zone(box=None, sphere=-0.1)), ["positive"]),
    ("a zone with no limit", "zone.limit", "zones.z.limit",
     lambda r, t: r.zones.update(z=_zone(limit=0.0)), ["positive", "0.0005"]),
    ("a zone without a reason", "zone.reason", "zones.z.reason",
     lambda r, t: r.zones.update(z=_zone(reason=" ")), ["why"]),
    ("a clearance margin below zero", "clearance.declaration", "clearance.margin",
     lambda r, t: setattr(r, "clearance", Clearance(-0.001, reason="tracking")), ["not negative", "0.005"]),
    ("an allowed pair naming one item twice", "clearance.allow", "clearance.allow.0",
     lambda r, t: setattr(r, "clearance", Clearance(allow=(Allowed("parts.holder", "parts.holder",
                                                                   reason="r"),))),
     ["'parts.holder'", "two different items"]),
    ("a target with a dot in its name", "target.name", "targets.a.b",
     lambda r, t: r.targets.update({"a.b": FieldTarget("probes.sample", direction=(0, 0, 1))}),
     ["'a.b'", "without dots"]),
    ("a target at a missing probe", "target.at", "targets.t.at",
     lambda r, t: r.targets.update(t=FieldTarget("probes.nowhere", direction=(0, 0, 1))),
     ["'nowhere'", "(none)"]),
    ("a pose with a dot in its name", "pose.name", "poses.a.b",
     lambda r, t: r.poses.update({"a.b": Pose({})}), ["'a.b'", "without dots"]),
    ("a pose of a missing segment", "pose.segment", "poses.p.stage",
     lambda r, t: r.poses.update(p=Pose({"stage": {"x": 0.0}})), ["'stage'", "arm, motor"]),
    ("a pose of a fixed joint", "pose.joint", "poses.p.arm.tool0_joint",
     lambda r, t: r.poses.update(p=Pose({"arm": {"tool0_joint": 0.0}})), ["fixed", "joint_1"]),
    ("a pose in millimetres on a turning joint", "pose.unit", "poses.p.motor.shaft",
     lambda r, t: r.poses.update(p=Pose({"motor": {"shaft": 1.0}}, units={"motor": {"shaft": "mm"}})),
     ["turns", "rad or deg"]),
    ("a pose beyond a limit", "pose.limits", "poses.p.arm.joint_2",
     lambda r, t: r.poses.update(p=Pose({"arm": {"joint_2": 2.0}})), ["0.2 rad above", "[-1.8, 1.8] rad"]),
    ("a frame with a dot in its name", "frame.name", "frames.a.b",
     lambda r, t: r.frames.update({"a.b": DeclaredFrame("arm.tool0")}), ["'a.b'", "without dots"]),
    ("a frame named like a link", "frame.name", "frames.link_3",
     lambda r, t: r.frames.update(link_3=DeclaredFrame("arm.tool0")), ["already a link of 'arm'", "rename"]),
    ("a frame on a missing frame", "frame.mount", "frames.f.mount",
     lambda r, t: r.frames.update(f=DeclaredFrame("arm.link_9")), ["'link_9'", "tool0"]),
    ("frames mounted on each other", "frame.mount", "frames.f.mount",
     lambda r, t: r.frames.update(f=DeclaredFrame("arm.g"), g=DeclaredFrame("arm.f")), ["f → g → f", "ring"]),
    ("a frame at infinity", "frame.at", "frames.f.at",
     lambda r, t: r.frames.update(f=DeclaredFrame("arm.tool0", at=(0, math.inf, 0))), ["finite"]),
    ("a frame turned by a quaternion that is not unit", "frame.orientation", "frames.f.orientation",
     lambda r, t: r.frames.update(f=DeclaredFrame("arm.tool0", orientation=(1, 1, 0, 0))),
     ["unit quaternion", "normalise"]),
    ("a trajectory with a dot in its name", "trajectory.name", "trajectories.a.b", _trajectory(name="a.b"),
     ["'a.b'", "without dots"]),
    ("a trajectory of a missing segment", "trajectory.segment", "trajectories.t.segments.stage",
     _trajectory({"stage": [Keyframe(1.0)]}), ["'stage'", "arm, motor"]),
    ("a keyframe naming a missing joint", "trajectory.joint", "trajectories.t.segments.arm.0.values.joint_9",
     _trajectory({"arm": [Keyframe(1.0, values={"joint_9": 0.1})]}), ["'joint_9'", "joint_1"]),
    ("keyframes not in increasing time", "trajectory.time", "trajectories.t.segments.arm.1.time",
     _trajectory({"arm": [Keyframe(2.0), Keyframe(1.0)]}), ["1 s", "(2 s)", "increasing"]),
    ("a keyframe before 0 s", "trajectory.time", "trajectories.t.segments.arm.0.time",
     _trajectory({"arm": [Keyframe(-1.0)]}), ["from 0"]),
    ("a keyframe beyond a limit", "trajectory.value", "trajectories.t.segments.arm.0.values.joint_2",
     _trajectory({"arm": [Keyframe(1.0, values={"joint_2": 2.0})]}), ["0.2 rad above", "[-1.8, 1.8] rad"]),
    ("a keyframe naming a missing pose", "trajectory.pose", "trajectories.t.segments.arm.0.pose",
     _trajectory({"arm": [Keyframe(1.0, pose="home")]}), ["'home'", "poses"]),
    ("an unknown interpolation", "trajectory.interpolation", "trajectories.t.segments.arm.0.interpolation",
     _trajectory({"arm": [Keyframe(1.0, interpolation="spline")]}), ["'spline'", "quintic"]),
    ("a line on a missing frame", "trajectory.frame", "trajectories.t.segments.arm.0.frame",
     _trajectory({"arm": [Keyframe(1.0, interpolation="line", frame="rotor")]}), ["'rotor'", "tool0"]),
    ("a spin of the arm", "trajectory.spin", "trajectories.t.segments.arm.0",
     _trajectory({"arm": [Keyframe(10.0, interpolation="spin", spin=Spin(5, ramp=1, hold=1))]}),
     ["one turning joint"]),
    ("a spin that ends after its keyframe", "trajectory.spin", "trajectories.t.segments.motor.0.time",
     _spin(Spin(5, ramp=1, hold=3), time=4.0), ["takes 5 s", "5 s or later"]),
    ("an acceleration limit that is not positive", "trajectory.limits",
     "trajectories.t.acceleration_limits.arm.joint_1",
     _trajectory(limits={"arm": {"joint_1": AccelerationLimit(0.0, "rad/s2", "datasheet")}}),
     ["finite positive"]),
    ("an acceleration limit without a reason", "declaration.reason",
     "trajectories.t.acceleration_limits.arm.*", _trajectory(limits={"arm": {"*": AccelerationLimit(1.0)}}),
     ["reason"]),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_rule(case, tmp_path):
    _, code, where, mutate, words = case
    rig = snippet_rig()
    assert rig.validate() == []
    mutate(rig, tmp_path)
    findings = rig.validate()
    hits = [f for f in findings if f.code == code and f.where == where]
    assert hits, f"expected {code} at {where}, got {[str(f) for f in findings]}"
    for word in words:
        assert word in hits[0].message, (word, hits[0].message)
    with pytest.raises(RigError) as info:
        rig.build()
    assert info.value.findings == findings
    assert str(hits[0]) in str(info.value)


def test_every_rule_code_has_a_case():
    assert {c[1] for c in CASES} == set(RULES)


def test_finding_prints_as_the_cli_does():
    f = Finding("part.mount", "parts.holder.mount", "no such frame")
    assert str(f) == "error[part.mount] parts.holder.mount: no such frame"


# -- what the rules accept --------------------------------------------------------------------------
def test_mount_on_an_earlier_segment_by_its_name(tmp_path):
    rig = snippet_rig()
    _third_segment("arm.link_3")(rig, tmp_path)
    assert rig.validate() == []
    assert rig.build().segments["tool"].mount == ("arm", "link_3")


def test_mount_on_the_segment_before_by_frame_name(tmp_path):
    rig = snippet_rig()
    _third_segment("rotor")(rig, tmp_path)
    assert rig.validate() == []
    assert rig.build().segments["tool"].mount == ("motor", "rotor")


def test_kg_on_a_prismatic_joint_is_accepted(tmp_path):
    rig = snippet_rig()
    _prismatic(kg(0.3, reason="linear motor rotor through the screw"))(rig, tmp_path)
    assert rig.validate() == []
    art = rig.build().articulation("slider")
    assert art.armature.tolist() == [0.3]


def test_a_kinematic_arm_takes_a_description_whose_dynamics_are_blocked(tmp_path):
    rig = snippet_rig()
    _nonphysical_inertia(rig, tmp_path)
    arm = _arm(rig)
    rig.chain["arm"] = Arm.Kinematic(description=arm.description, initial_positions=arm.initial_positions)
    assert rig.validate() == []
    assert "antenna" in rig.build().articulation("arm").frame_names


def test_only_the_armature_through_the_broken_transmission_is_blocked(tmp_path):
    rig = snippet_rig()
    _reduction_word(rig, tmp_path)
    _set(_arm(rig), actuators={"motor_1": kg_m2(1e-5, reason="datasheet")})  # through a sound transmission
    assert rig.validate() == []


def test_continuous_joint_has_no_limit_on_its_initial_position():
    rig = snippet_rig()
    rig.chain["arm"].initial_positions = {"joint_6": 12.0}
    assert rig.validate() == []


def test_magnet_with_a_declared_remanence_needs_no_magnetic_material():
    rig = snippet_rig()
    _set(rig.magnets["m1"], material="steel", remanence=tesla(1.1, reason="measured with a gaussmeter"))
    assert rig.validate() == []


def test_kinematic_motor_and_world_parts_are_valid():
    rig = Apparatus("r", chain={"arm": Arm.Kinematic(description=str(DEMO_URDF)),
                                "spin": Motor.Kinematic(axis=(1, 0, 0), mount="tool0")},
                    parts={"table": Part(Box((1, 1, 0.02)), material="steel", at=(0, 0, -0.01))},
                    magnets={"m": PermanentMagnet(Sphere(radius=0.004), material="NdFeB-N52",
                                                  mount="spin.rotor")})
    assert rig.validate() == []


def test_an_empty_rig_is_valid():
    assert Apparatus("empty").validate() == []


def test_every_problem_is_reported_at_once():
    rig = snippet_rig()
    _set(rig.parts["holder"], material="unobtainium", mount="nowhere.frame")
    _set(rig.magnets["m1"], magnetisation=(0, 0, 0))
    codes = sorted(f.code for f in rig.validate())
    assert codes == ["magnet.magnetisation", "part.material", "part.mount"]


def test_constructors_refuse_what_is_not_a_value():
    with pytest.raises(TypeError):
        Cylinder(radius="wide", length=0.1)
    with pytest.raises(TypeError):
        Part(Box((1, 1)))
    with pytest.raises(TypeError):
        Arm.Dynamic(description=str(DEMO_URDF), initial_positions={"joint_1": "up"})
    with pytest.raises(ValueError):
        kg_m2(1.0).__class__(1.0, "furlong")
