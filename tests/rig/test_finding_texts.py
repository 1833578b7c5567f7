"""The words of rig findings and rig-file refusals no other test reads: each is triggered through the route
a user takes (``Apparatus.validate()`` on a rig built in Python, ``load`` of a rig file) and checked for the
place it names (the rig path or JSON pointer, the segment, joint, pose or pair) and the fix it gives."""

from __future__ import annotations

import json

import pytest
from rig_helpers import DEMO_RIG, DEMO_URDF, snippet_rig

from mime_gui.rig import (
    AccelerationLimit,
    Allowed,
    Apparatus,
    Arm,
    Clearance,
    Keyframe,
    Motor,
    Pose,
    Probe,
    Quantity,
    RigFileError,
    Sample,
    Spin,
    Trajectory,
    Zone,
    a_m2,
    kg_m2,
    load,
)

ARM_JOINTS = "joint_1, joint_2, joint_3, joint_4, joint_5, joint_6"


def _snippet_with(**extra) -> Apparatus:
    """The issue's snippet rig with ``extra`` (poses, trajectories, clearance …) added."""
    r = snippet_rig()
    return Apparatus("rig", chain=r.chain, parts=r.parts, magnets=r.magnets, **extra)


def _findings(rig: Apparatus, code: str) -> list:
    return [f for f in rig.validate() if f.code == code]


# -- findings of Apparatus.validate() ------------------------------------------------------------------------
def _arm_keyframe(**kw) -> Trajectory:
    return Trajectory({"arm": (Keyframe(1.0, **kw),)})


def _limited(segment: str, joint: str, limit: AccelerationLimit) -> Trajectory:
    return Trajectory({"arm": (Keyframe(1.0, values={"joint_1": 0.0}),)},
                      acceleration_limits={segment: {joint: limit}})


# (id, extra of the snippet rig, code, where, words the message must hold)
FINDINGS = [
    ("a clearance pair allowed twice",
     {"clearance": Clearance(allow=(Allowed("parts.holder", "arm.link_6", reason="seated"),
                                    Allowed("arm.link_6", "parts.holder", reason="again")))},
     "clearance.allow", "clearance.allow.1",
     ["the pair 'arm.link_6', 'parts.holder' is allowed twice", "keep one"]),
    ("a pose giving a position to a fixed joint", {"poses": {"p": Pose({"arm": {"tool0_joint": 0.0}})}},
     "pose.joint", "poses.p.arm.tool0_joint",
     ["'tool0_joint' is a fixed joint of 'arm'",
      f"a pose gives positions to its commandable joints: {ARM_JOINTS}"]),
    ("a pose giving a position to no joint", {"poses": {"p": Pose({"arm": {"elbow": 0.0}})}},
     "pose.joint", "poses.p.arm.elbow",
     ["'elbow' is no joint of 'arm'", f"a pose gives positions to its commandable joints: {ARM_JOINTS}"]),
    ("a spin interval without its profile",
     {"trajectories": {"t": Trajectory({"motor": (Keyframe(1.0, interpolation="spin"),)})}},
     "trajectory.spin", "trajectories.t.segments.motor.0",
     ["a spin interval needs its profile", "spin {frequency, ramp, hold or turns}"]),
    ("a spin keyframe with values",
     {"trajectories": {"t": Trajectory({"motor": (Keyframe(1.0, interpolation="spin", values={"shaft": 1.0},
                                                           spin=Spin(5.0, hold=1.0)),)})}},
     "trajectory.spin", "trajectories.t.segments.motor.0",
     ["a spin's keyframe takes its angle from the spin", "remove its values and pose"]),
    ("a keyframe taking a pose that gives no position of its segment",
     {"poses": {"p": Pose({"motor": {"shaft": 0.0}})}, "trajectories": {"t": _arm_keyframe(pose="p")}},
     "trajectory.pose", "trajectories.t.segments.arm.0.pose",
     ["the pose 'p' gives no position of 'arm'", "it gives motor"]),
    ("a keyframe giving a position to a fixed joint",
     {"trajectories": {"t": _arm_keyframe(values={"tool0_joint": 0.0})}},
     "trajectory.joint", "trajectories.t.segments.arm.0.values.tool0_joint",
     ["'tool0_joint' is a fixed joint of 'arm'",
      f"a keyframe gives positions to its commandable joints: {ARM_JOINTS}"]),
    ("an acceleration limit in an unknown unit",
     {"trajectories": {"t": _limited("arm", "joint_1", AccelerationLimit(1.0, "furlong/s2", reason="r"))}},
     "trajectory.limits", "trajectories.t.acceleration_limits.arm.joint_1",
     ["unknown unit 'furlong/s2'", "acceleration units: rad/s2, deg/s2, m/s2, mm/s2"]),
    ("an acceleration limit of no joint",
     {"trajectories": {"t": _limited("arm", "elbow", AccelerationLimit(1.0, "rad/s2", reason="r"))}},
     "trajectory.joint", "trajectories.t.acceleration_limits.arm.elbow",
     ["'elbow' is no joint of 'arm'",
      f"acceleration limits are given to its commandable joints: {ARM_JOINTS}"]),
    ("a margin out of its bounds", {"clearance": Clearance(margin=-0.001, reason="a rule")},
     "clearance.declaration", "clearance.margin",
     ["the margin -0.001 m must be finite, not negative and at most 1e+06 m", "(5 mm is 0.005)"]),
    ("a drag on a fixed sample",
     {"samples": {"s": Sample(at=(0.0, 0.0, 0.3), moment=a_m2(1e-6, reason="a bead"), orientation="fixed",
                              drag=Quantity(1e-9, "N m s", reason="Stokes"))}},
     "sample.drag", "samples.s.drag",
     ["a fixed sample is held by its mount and never has to keep up with the field",
      "declare a drag only on a sample that follows it (orientation 'follows'), or leave it out"]),
    ("a probe inside a magnet",  # at the centre of m1, which is on the rotor
     {"probes": {"p": Probe((0.0, 0.0, 0.025), mount="motor.rotor")}},
     "probe.inside-magnet", "probes.p.at",
     ["the probe at (0.0, 0.0, 0.025) m is inside magnet 'm1' (both on motor.rotor)",
      "move the probe outside the magnet (on its surface at the nearest)"]),
    ("a keep-out ball of a negative radius",
     {"zones": {"z": Zone((0.0, 0.0, 1.0), sphere=-0.3, reason="people stand here")}},
     "zone.shape", "zones.z.sphere", ["sphere -0.3 must be finite and positive, at most 1e+06 m"]),
]


@pytest.mark.parametrize(("extra", "code", "where", "words"), [c[1:] for c in FINDINGS],
                         ids=[c[0] for c in FINDINGS])
def test_a_finding_names_its_place_and_the_fix(extra, code, where, words):
    found = [f for f in _findings(_snippet_with(**extra), code) if f.where == where]
    assert len(found) == 1, _snippet_with(**extra).validate()
    for word in words:
        assert word in found[0].message, (word, found[0].message)


def test_a_rotor_inertia_beyond_the_bound_is_a_finding_asking_to_check_the_value():
    r = snippet_rig()
    motor = Motor.Dynamic(axis=(0, 0, 1), inertia=kg_m2(2e21, reason="catalogue value"), mount="link_6")
    (finding,) = _findings(Apparatus("rig", chain={"arm": r.chain["arm"], "motor": motor}), "chain.motor")
    assert finding.where == "chain.motor.inertia"
    assert "the rotor inertia 2e+21 kg m2 is beyond 1e+21 kg m2" in finding.message
    assert "check the value" in finding.message


MIMIC = """<link name="finger"/>
<joint name="finger_joint" type="revolute"><parent link="tool0"/><child link="finger"/><axis xyz="0 0 1"/>
<limit lower="-1" upper="1" effort="1" velocity="1"/><mimic joint="joint_6"/></joint>
</robot>"""


@pytest.mark.parametrize(("extra", "code", "where"), [
    ({"poses": {"p": Pose({"arm": {"finger_joint": 0.0}})}}, "pose.joint", "poses.p.arm.finger_joint"),
    ({"trajectories": {"t": _arm_keyframe(values={"finger_joint": 0.0})}}, "trajectory.joint",
     "trajectories.t.segments.arm.0.values.finger_joint"),
], ids=["in a pose", "in a keyframe"])
def test_a_position_given_to_a_following_joint_says_to_give_the_joint_it_follows(tmp_path, extra, code,
                                                                                  where):
    urdf = tmp_path / "arm.urdf"
    urdf.write_text(DEMO_URDF.read_text().replace("</robot>", MIMIC))
    rig = Apparatus("mimic", chain={"arm": Arm.Kinematic(description=str(urdf))}, **extra)
    (finding,) = [f for f in _findings(rig, code) if f.where == where]
    assert "arm.finger_joint follows arm.joint_6 (mimic)" in finding.message
    assert "give 'joint_6' instead and it follows" in finding.message


# -- refusals of the rig file reader -------------------------------------------------------------------------
def _provenance(data):
    data["provenance"] = {"mime_gui": "0.1", "segments": {}, "files": {"arm.urdf": {"sha256": "AB" * 32}}}


# (id, edit of the demo rig file, code, JSON pointer, words the message must hold)
REFUSALS = [
    ("a position in mm", lambda d: d["chain"][0]["at"].update(unit="mm"), "rigfile.unit", "/chain/0/at/unit",
     ["expected the unit 'm', got 'mm'"]),
    ("a version as text", lambda d: d.update(version="1"), "rigfile.version", "/version",
     ["expected an integer version, got text ('1')"]),
    ("a newer version", lambda d: d.update(version=2), "rigfile.version", "/version",
     ["version 2 is not supported (written by a newer mime-gui)", "this mime-gui reads version 1"]),
    ("an older version", lambda d: d.update(version=0), "rigfile.version", "/version",
     ["version 0 is not supported;", "this mime-gui reads version 1"]),
    ("a segment that is text", lambda d: d["chain"].__setitem__(1, "motor"), "rigfile.type", "/chain/1",
     ["expected a segment object, got text ('motor')"]),
    ("a geometry that is a list", lambda d: d["parts"]["holder"].update(geometry=[0.01, 0.02]),
     "rigfile.type", "/parts/holder/geometry", ["expected a geometry object, got a list"]),
    ("an unknown key of a part", lambda d: d["parts"]["holder"].update(colour="red"), "rigfile.key",
     "/parts/holder/colour",
     ["unknown key 'colour'", "allowed here: at, density, geometry, mass, material, mount"]),
    ("a SHA-256 in capitals", _provenance, "rigfile.value", "/provenance/files/arm.urdf/sha256",
     ["a SHA-256 is 64 lowercase hexadecimal digits"]),
]


@pytest.mark.parametrize(("edit", "code", "pointer", "words"), [c[1:] for c in REFUSALS],
                         ids=[c[0] for c in REFUSALS])
def test_a_refused_rig_file_names_the_pointer_and_the_fix(tmp_path, edit, code, pointer, words):
    data = json.loads(DEMO_RIG.read_text())
    edit(data)
    path = tmp_path / "r.rig.json"
    path.write_text(json.dumps(data, indent=2))
    with pytest.raises(RigFileError) as info:
        load(path)
    assert (info.value.code, info.value.pointer) == (code, pointer)
    assert f"#{pointer}: " in str(info.value)
    for word in words:
        assert word in info.value.message, (word, info.value.message)
