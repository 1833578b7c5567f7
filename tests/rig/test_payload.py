"""Payload: a dynamic segment carries what rides on it, checked against Pinocchio's appendBodyToJoint."""

from __future__ import annotations

import json
import math

import jsonschema
import numpy as np
import pytest
from rig_helpers import DEMO_RIG, DEMO_URDF, snippet_rig

from mime_gui import RESOURCES
from mime_gui.multibody import dynamics_bias, mass_matrix
from mime_gui.rig import Arm, Cylinder, Motor, Part, RigFileError, kg_m2, load, save
from mime_gui.rig.rigfile import parse, to_data

pin = pytest.importorskip("pinocchio")


def _rot_z(a):
    c, s = math.cos(a), math.sin(a)
    X = np.eye(4)
    X[:2, :2] = [[c, -s], [s, c]]
    return X


def _translate(p):
    X = np.eye(4)
    X[:3, 3] = p
    return X


def _quat_x(angle):
    return (math.cos(angle / 2), math.sin(angle / 2), 0.0, 0.0)


def _cylinder(density, r, length):
    m = density * math.pi * r * r * length
    ixx = m * (3 * r * r + length * length) / 12
    return m, np.diag([ixx, ixx, m * r * r / 2])


def _rig():
    """The snippet rig with the motor turned on its flange, an off-axis part, and a second motor riding
    on the first motor's rotor (so the arm carries it through another segment)."""
    rig = snippet_rig()
    rig.chain["motor"].at = (0.0, 0.01, 0.03)
    rig.chain["motor"].orientation = _quat_x(0.6)
    rig.chain["motor"].initial_position = 0.7
    rig.parts["holder"].at = (0.02, 0.0, 0.01)  # off the shaft: the shaft angle moves it
    rig.chain["spindle"] = Motor.Dynamic(axis=(0, 0, 1), inertia=kg_m2(1e-6, reason="catalogue"),
                                         mount="motor.rotor", at=(0.0, 0.0, 0.04), initial_position=-0.4)
    rig.parts["cap"] = Part(Cylinder(radius=0.004, length=0.01), material="aluminium", at=(0.01, 0.0, 0.0),
                            mount="spindle.rotor")
    return rig


class _PinArm:
    """Pinocchio's model of the demo arm, vectors mapped to ours by joint name."""

    def __init__(self, art):
        self.model = pin.buildModelFromUrdf(str(DEMO_URDF))
        self.art = art
        self.jid = [self.model.getJointId(j) for j in art.joint_names]
        self.iv = np.array([self.model.joints[j].idx_v for j in self.jid])
        self.model.armature = self.v(np.asarray(art.armature))

    def v(self, x):
        out = np.zeros(self.model.nv)
        out[self.iv] = x
        return out

    def q(self, q):
        out = np.zeros(self.model.nq)
        for jid, value in zip(self.jid, q, strict=True):
            j = self.model.joints[jid]
            if j.nq == 2:
                out[j.idx_q:j.idx_q + 2] = math.cos(value), math.sin(value)
            else:
                out[j.idx_q] = value
        return out

    def weld(self, frame: str, X: np.ndarray, mass: float, inertia: np.ndarray):
        """A body of ``mass`` and ``inertia`` (about its centre, at ``X`` in ``frame``)."""
        f = self.model.frames[self.model.getFrameId(frame)]
        placement = f.placement.homogeneous @ X
        body = pin.Inertia(mass, np.zeros(3), inertia)
        self.model.appendBodyToJoint(f.parentJoint, body, pin.SE3(placement[:3, :3], placement[:3, 3]))

    def matrices(self, q):
        data = self.model.createData()
        pq = self.q(q)
        M = pin.crba(self.model, data, pq)
        M = np.triu(M) + np.triu(M, 1).T
        g = pin.computeGeneralizedGravity(self.model, data, pq)
        return M[np.ix_(self.iv, self.iv)], g[self.iv]


@pytest.fixture(scope="module")
def built():
    return _rig().build()


def _oracle(built):
    """The bare demo arm (with its armature) and the riders welded to its flange by hand."""
    report = built.report
    art = built.articulation("arm")
    twin = _PinArm(art)
    motor = _translate((0.0, 0.01, 0.03)) @ np.array(_rot_x4(0.6))  # flange → stator
    rotor = motor @ _rot_z(0.7)  # the motor's shaft at its initial position
    twin.weld("link_6", rotor, 0.0, np.diag([0.0, 0.0, 3e-6]))
    for name, at, frame_X in (("holder", (0.02, 0.0, 0.01), rotor), ("m1", (0.0, 0.0, 0.025), rotor)):
        p = report.part(name)
        m, inertia = _cylinder(p["density"], p["geometry"]["radius"], p["geometry"]["length"])
        twin.weld("link_6", frame_X @ _translate(at), m, inertia)
    spindle_rotor = rotor @ _translate((0.0, 0.0, 0.04)) @ _rot_z(-0.4)
    twin.weld("link_6", spindle_rotor, 0.0, np.diag([0.0, 0.0, 1e-6]))
    p = report.part("cap")
    m, inertia = _cylinder(p["density"], 0.004, 0.01)
    twin.weld("link_6", spindle_rotor @ _translate((0.01, 0.0, 0.0)), m, inertia)
    return twin


def _rot_x4(angle):
    c, s = math.cos(angle), math.sin(angle)
    X = np.eye(4)
    X[1:3, 1:3] = [[c, -s], [s, c]]
    return X


def test_payload_equals_the_riders_welded_to_the_flange(built):
    twin = _oracle(built)
    art = built.dynamics_articulation("arm")
    rng = np.random.default_rng(0)
    for q in rng.uniform(-1.5, 1.5, (6, art.nq)):
        M_ref, g_ref = twin.matrices(q)
        np.testing.assert_allclose(mass_matrix(art, q), M_ref, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(dynamics_bias(art, q, np.zeros(art.nq)), g_ref, rtol=1e-10, atol=1e-12)


def test_the_payload_changes_the_dynamics_and_the_bare_articulation_stays(built):
    bare = built.articulation("arm")
    art = built.dynamics_articulation("arm")
    q = np.array([0.3, -0.5, 0.9, 0.2, 0.6, 0.1])
    assert not np.allclose(dynamics_bias(art, q, np.zeros(6)), dynamics_bias(bare, q, np.zeros(6)))
    # the kinematics are those of the bare arm; the payload is a mass only
    assert art.frame_names == bare.frame_names
    np.testing.assert_array_equal(art.body_X_frame, bare.body_X_frame)


def test_the_report_names_each_rider_with_its_mass_and_frame(built):
    payload = built.report.segment("arm")["payload"]
    assert payload["carried"] is True
    riders = {r["segment"]: r for r in payload["riders"]}
    assert set(riders) == {"motor", "spindle"}
    parts = {p["name"]: p["mass"] for p in built.report["parts"]}
    assert riders["motor"]["mass"] == pytest.approx(parts["holder"] + parts["m1"], rel=1e-12)
    assert riders["spindle"]["mass"] == pytest.approx(parts["cap"], rel=1e-12)
    assert riders["motor"]["frame"] == riders["spindle"]["frame"] == "arm.link_6"
    assert riders["spindle"]["via"] == ["motor"]
    assert payload["mass"] == pytest.approx(parts["holder"] + parts["m1"] + parts["cap"], rel=1e-12)
    # the motor carries the spindle in its turn, on its rotor
    motor = built.report.segment("motor")["payload"]
    assert [(r["segment"], r["frame"]) for r in motor["riders"]] == [("spindle", "motor.rotor")]
    text = built.report.to_text()
    assert "payload:" in text and "spindle:" in text and "through motor" in text


def test_carries_payload_off_leaves_the_bare_arm_and_the_report_says_so():
    rig = _rig()
    rig.chain["arm"].carries_payload = False
    built = rig.build()
    assert built.dynamics_articulation("arm") is built.articulation("arm")
    payload = built.report.segment("arm")["payload"]
    assert payload["carried"] is False and payload["mass"] == 0.0
    assert "carries_payload is off" in payload["detail"]
    assert "payload: none (carries_payload is off" in built.report.to_text()


def test_a_kinematic_segment_carries_no_payload():
    rig = _rig()
    arm = rig.chain["arm"]
    rig.chain["arm"] = Arm.Kinematic(description=arm.description, initial_positions=arm.initial_positions)
    built = rig.build()
    assert built.dynamics_articulation("arm") is built.articulation("arm")
    payload = built.report.segment("arm")["payload"]
    assert payload["carried"] is False and "kinematic" in payload["detail"]
    assert {r["segment"] for r in payload["riders"]} == {"motor", "spindle"}


def test_a_kinematic_rider_still_weighs_on_its_dynamic_carrier():
    """A kinematic motor carries none of its parts, so the arm under it carries them."""
    rig = _rig()
    del rig.chain["spindle"]
    del rig.parts["cap"]
    dynamic = rig.build().report.segment("arm")["payload"]["mass"]
    m = rig.chain["motor"]
    rig.chain["motor"] = Motor.Kinematic(axis=m.axis, mount=m.mount, at=m.at, orientation=m.orientation,
                                         initial_position=m.initial_position)
    kinematic = rig.build().report.segment("arm")["payload"]["mass"]
    assert kinematic == pytest.approx(dynamic, rel=1e-12) and kinematic > 0


def test_carries_payload_round_trips_through_the_rig_file(tmp_path):
    rig = load(DEMO_RIG)
    rig.chain["motor"].carries_payload = False
    path = tmp_path / "off.rig.json"
    save(rig, path)
    data = json.loads(path.read_text())
    assert data["chain"][1]["carries_payload"] is False
    assert "carries_payload" not in data["chain"][0]  # written only when off
    jsonschema.validate(data, json.loads((RESOURCES / "rig.schema.json").read_text()))
    again = load(path)
    assert again.chain["motor"].carries_payload is False
    assert again.chain["arm"].carries_payload is True


def test_carries_payload_must_be_a_boolean():
    data = to_data(load(DEMO_RIG), DEMO_RIG.parent)
    data["chain"][0]["carries_payload"] = "no"
    with pytest.raises(RigFileError) as e:
        parse(json.dumps(data), str(DEMO_RIG), DEMO_RIG.parent)
    assert e.value.code == "rigfile.type" and "/chain/0/carries_payload" in str(e.value)
    data["chain"][0]["carries_payload"] = True
    data["chain"][0]["kind"] = "Arm.Kinematic"  # a kinematic segment has no such option
    with pytest.raises(RigFileError) as e:
        parse(json.dumps(data), str(DEMO_RIG), DEMO_RIG.parent)
    assert e.value.code == "rigfile.key"
    with pytest.raises(TypeError, match="carries_payload"):
        Arm.Dynamic(description="x.urdf", carries_payload=1)


def test_a_bare_motor_riding_on_the_arm_adds_its_rotor_s_inertia_though_it_has_no_mass():
    # the demo's motor with nothing on it: a massless rotor of 3e-6 kg m² about its shaft (tool0's z). Moving
    # the joints at q̇ turns the flange at ω, so the arm's kinetic energy grows by ½ 3e-6 (z·ω)²: ω read here
    # from the flange's rotation over a small step of the kinematics, not from the mass matrix
    from mime_gui.multibody import frame_poses

    rig = load(DEMO_RIG)
    rig.parts.clear()
    rig.magnets.clear()
    rig.probes.clear()
    assert rig.chain["motor"].rotor_inertia() == 3e-6
    arm = rig.build().segments["arm"]
    (rider,) = arm.riders
    assert rider.mass == 0.0 and np.trace(rider.inertia) == pytest.approx(3e-6, rel=1e-12)
    art = arm.articulation
    q = np.array([0.1, -0.4, 0.9, 0.3, 0.6, -0.2])
    grown = mass_matrix(arm.dynamics_articulation, q) - mass_matrix(art, q)
    flange = art.frame_index("tool0")
    R0 = frame_poses(art, q)[flange][:3, :3]
    eps = 1e-7
    for qd in np.random.default_rng(22).normal(size=(5, 6)):
        R1 = frame_poses(art, q + eps * qd)[flange][:3, :3]
        S = (R1 @ R0.T - R0 @ R1.T) / (2 * eps)  # [ω]× to first order
        omega = np.array([S[2, 1], S[0, 2], S[1, 0]])
        assert qd @ grown @ qd == pytest.approx(3e-6 * (R0[:, 2] @ omega) ** 2, rel=1e-6)
