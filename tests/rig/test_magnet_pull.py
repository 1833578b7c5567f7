"""The rig's magnets pulling on each other, in the joint torques: Pinocchio's RNEA with the same wrenches
applied on the bodies (the test's own dipole–dipole closed form between balls, at the poses Pinocchio gives)
is the oracle; Newton's third law on the pull; the getFT route against the test's own closed form far away
and against Magpylib's getFT called directly near; the ``torque.magnets`` excess."""

from __future__ import annotations

import json
import math

import magpylib as magpy
import numpy as np
import pytest
from rig_helpers import DEMO_URDF, snippet_rig, spinner_urdf
from scipy.constants import mu_0
from scipy.spatial.transform import Rotation

from mime_gui import RESOURCES
from mime_gui.rig import Apparatus, Arm, Box, Cylinder, PermanentMagnet, Ring, Sphere
from mime_gui.rig.magnet_pull import DIPOLE_COEFFICIENT, EPS_RATIO, PAIR_CELLS, PullModel, magnet_pull

pin = pytest.importorskip("pinocchio")

MU0 = mu_0  # CODATA, from SciPy
N42 = {m["name"]: m for m in json.loads((RESOURCES / "materials.json").read_text())["materials"]}["NdFeB-N42"]
R_BALL = 0.005


def _translate(p):
    X = np.eye(4)
    X[:3, 3] = p
    return X


def _closed_form(m1, m2, r):
    """Force on dipole m2 at r from dipole m1, and the torque on it about its centre (the test's own)."""
    d = np.linalg.norm(r)
    u = r / d
    k = MU0 / (4 * math.pi)
    force = 3 * k / d**4 * ((m1 @ u) * m2 + (m2 @ u) * m1 + (m1 @ m2) * u - 5 * (m1 @ u) * (m2 @ u) * u)
    B1 = k * (3 * u * (m1 @ u) - m1) / d**3
    return force, np.cross(m2, B1)


def _ball(at, mount, direction):
    return PermanentMagnet(Sphere(radius=R_BALL), material="NdFeB-N42", magnetisation=direction, at=at,
                           mount=mount)


def _pull_rig():
    """The snippet rig, its magnet a ball on the rotor magnetised across the shaft, a ball on the arm's
    link_3 and one fixed in the world 3 cm from the rotor's ball where the rig starts."""
    rig = snippet_rig()
    rig.chain["arm"].initial_positions = {"joint_1": 0.1, "joint_2": 0.7, "joint_4": 0.5, "joint_5": -0.4}
    rig.magnets["m1"] = _ball((0.0, 0.0, 0.025), "motor.rotor", (1.0, 0.0, 0.0))
    rig.magnets["m2"] = _ball((0.05, 0.02, 0.0), "arm.link_3", (0.0, 0.6, 0.8))
    built = rig.build()
    start = built.play(np.tile(built.initial_commands(), (1, 1)), 0.01)
    frames = built.frame_names
    rotor = start.frame_poses[0, frames.index("motor.rotor")]
    rig.magnets["m3"] = _ball(tuple(rotor[:3, 3] + rotor[:3, :3] @ [0, 0, 0.025] + [0.03, 0.0, 0.0]), None,
                              (0.0, 0.0, 1.0))
    return rig


def _pin_model(built):
    """The arm as Pinocchio reads it, the motor a z joint on link_6 with its rotor, holder and ball m1, and
    the ball m2 on link_3; bodies from the parts' sizes and densities."""
    model = pin.buildModelFromUrdf(str(DEMO_URDF))
    link6 = model.frames[model.getFrameId("link_6")]
    motor = model.addJoint(link6.parentJoint, pin.JointModelRZ(), link6.placement, "motor")
    report = built.report

    def body(joint, at, mass, inertia):
        placement = pin.SE3(np.eye(3), np.array(at, dtype=float))
        model.appendBodyToJoint(joint, pin.Inertia(mass, np.zeros(3), inertia), placement)

    body(motor, (0, 0, 0), 0.0, np.diag([0.0, 0.0, 3e-6]))
    h = report.part("holder")
    r, length = h["geometry"]["radius"], h["geometry"]["length"]
    mh = h["density"] * math.pi * r * r * length
    body(motor, (0, 0, 0.01), mh, np.diag([mh * (3 * r * r + length**2) / 12] * 2 + [mh * r * r / 2]))
    mb = N42["density"] * 4 / 3 * math.pi * R_BALL**3
    ball = np.eye(3) * 0.4 * mb * R_BALL**2
    body(motor, (0, 0, 0.025), mb, ball)
    link3 = model.frames[model.getFrameId("link_3")]
    at = link3.placement.rotation @ [0.05, 0.02, 0.0] + link3.placement.translation
    body(link3.parentJoint, at, mb, ball)
    return model, motor, link3.parentJoint


def _q(model, values: dict[str, float]):
    q = pin.neutral(model)
    for name, x in values.items():
        j = model.joints[model.getJointId(name)]
        if j.nq == 2:
            q[j.idx_q:j.idx_q + 2] = math.cos(x), math.sin(x)
        else:
            q[j.idx_q] = x
    return q


def _vec(model, values: dict[str, float]):
    out = np.zeros(model.nv)
    for name, x in values.items():
        out[model.joints[model.getJointId(name)].idx_v] = x
    return out


def test_the_pull_enters_the_joint_torques_as_pinocchios_rnea_with_the_same_external_forces():
    """The arm swings a little and the rotor spins: each step's arm torques equal Pinocchio's
    ``rnea(model, data, q, v, a, fext)`` with the test's own dipole–dipole wrenches between the three balls
    (exact for balls) on the motor's and link_3's bodies, to 1e-9; the magnets' share of every column (the
    motor's too) is the difference of two RNEAs, with and without them, to 1e-9 of its size."""
    rig = _pull_rig()
    built = rig.build()
    T, dt = 60, 0.004
    t = dt * np.arange(T)[:, None]
    swing = 0.05 * np.sin(4 * t + np.arange(7)) * (1 - np.exp(-t / 0.05))
    commands = np.tile(built.initial_commands(), (T, 1)) + swing
    commands[:, built.command_names.index("motor.shaft")] = 60.0 * t[:, 0] ** 2
    trajectory = built.play(commands, dt, servo_time_constant=0.01)
    torques = built.torques(trajectory)
    assert torques.magnet_pull is not None and {p[2] for p in torques.magnet_pull.pairs} == {"dipole"}
    model, motor, joint3 = _pin_model(built)
    arm = built.articulation("arm")
    model.armature = _vec(model, {**dict(zip(arm.joint_names, arm.armature, strict=True)),
                                  "motor": built.articulation("motor").armature[0]})
    data = model.createData()
    joints = {"arm": list(arm.joint_names), "motor": ["motor"]}
    q, v, a = {}, {}, {}
    for seg, names in joints.items():
        qs = trajectory.segments[seg].joint_positions
        vs = np.diff(np.vstack([trajectory.initial[seg].joint_positions, qs]), axis=0) / dt
        acc = np.diff(np.vstack([np.zeros(len(names)), vs]), axis=0) / dt
        for k, j in enumerate(names):
            q[j], v[j], a[j] = qs[:, k], vs[:, k], acc[:, k]
    moment = N42["remanence"] * 4 / 3 * math.pi * R_BALL**3 / MU0
    world3 = np.array(rig.magnets["m3"].at)
    cols = [torques.joint_names.index(n) for n in [*(f"arm.{j}" for j in arm.joint_names), "motor.shaft"]]
    pin_v = [model.joints[model.getJointId(j)].idx_v for j in [*arm.joint_names, "motor"]]
    biggest = 0.0
    for n in range(T):
        pq = _q(model, {j: x[n] for j, x in q.items()})
        pin.forwardKinematics(model, data, pq)
        poses = {}
        for name, joint, at, d in (("m1", motor, (0, 0, 0.025), (1.0, 0, 0)),
                                   ("m2", joint3, None, (0, 0.6, 0.8))):
            oMi = data.oMi[joint]
            if at is None:  # m2: at (0.05, 0.02, 0) in link_3's frame
                link3 = model.frames[model.getFrameId("link_3")]
                X = (oMi * link3.placement).homogeneous
                centre = X[:3, :3] @ [0.05, 0.02, 0.0] + X[:3, 3]
                axes = X[:3, :3]
            else:
                centre, axes = oMi.rotation @ at + oMi.translation, oMi.rotation
            poses[name] = (centre, moment * axes @ np.array(d) / np.linalg.norm(d))
        poses["m3"] = (world3, moment * np.array([0.0, 0.0, 1.0]))
        wrench = {k: (np.zeros(3), np.zeros(3)) for k in poses}
        for i, j in (("m1", "m2"), ("m1", "m3"), ("m2", "m3")):
            (ci, mi), (cj, mj) = poses[i], poses[j]
            F, tau = _closed_form(mi, mj, cj - ci)
            wrench[j] = (wrench[j][0] + F, wrench[j][1] + tau + np.cross(cj, F))  # about the origin
            # the other side, by the test's own closed form the other way round
            F2, tau2 = _closed_form(mj, mi, ci - cj)
            wrench[i] = (wrench[i][0] + F2, wrench[i][1] + tau2 + np.cross(ci, F2))
        fext = pin.StdVec_Force()
        for _ in range(model.njoints):
            fext.append(pin.Force.Zero())
        for name, joint in (("m1", motor), ("m2", joint3)):
            F, tau_o = wrench[name]
            oMi = data.oMi[joint]
            # Pinocchio takes each joint's external force in its own frame, about its origin
            about = tau_o - np.cross(oMi.translation, F)
            fext[joint] = pin.Force(oMi.rotation.T @ F, oMi.rotation.T @ about)
        pv = _vec(model, {j: x[n] for j, x in v.items()})
        pa = _vec(model, {j: x[n] for j, x in a.items()})
        with_pull = pin.rnea(model, data, pq, pv, pa, fext)[pin_v].copy()
        without = pin.rnea(model, data, pq, pv, pa)[pin_v].copy()
        # the motor's own column takes its mount's motion by differences of its poses (docs/dynamics.md),
        # not the arm's joint rates: the arm's columns are the whole RNEA, every column's share below
        np.testing.assert_allclose(torques.joint_torques[n, cols[:-1]], with_pull[:-1], rtol=1e-9, atol=1e-9,
                                   err_msg=f"step {n}")
        share = with_pull - without
        biggest = max(biggest, np.abs(share).max())
        np.testing.assert_allclose(torques.magnet_torques[n, cols], share, rtol=0,
                                   atol=1e-9 * np.abs(share).max(), err_msg=f"step {n}")
    assert biggest > 1e-3  # the pull does load the joints (N·m)
    assert np.abs(torques.magnet_torques[:, torques.joint_names.index("motor.shaft")]).max() > 1e-4


def test_newtons_third_law_holds_between_two_magnets_on_different_bodies():
    """A box on the rotor and two cylinders on the stator, near (getFT): the pulls sum to nothing and so do
    their torques about one point, at every step; the pair on the stator (one body) is not computed."""
    rig = snippet_rig()
    rig.magnets["m1"] = PermanentMagnet(Box((0.01, 0.006, 0.004)), material="NdFeB-N42", at=(0, 0, 0.025),
                                        magnetisation=(0.3, 0.2, 1.0), mount="motor.rotor")
    rig.magnets["m2"] = PermanentMagnet(Cylinder(0.004, 0.008), material="NdFeB-N42", at=(0, 0, 0.045),
                                        magnetisation=(1.0, 0.0, 0.2), mount="motor.stator")
    rig.magnets["m4"] = PermanentMagnet(Cylinder(0.004, 0.008), material="NdFeB-N42", at=(0, 0.03, 0.045),
                                        magnetisation=(1.0, 0.0, 0.2), mount="motor.stator")
    built = rig.build()
    T = 5
    commands = np.tile(built.initial_commands(), (T, 1))
    commands[:, built.command_names.index("motor.shaft")] = np.linspace(0.0, 2.0, T)
    trajectory = built.play(commands, 0.01)
    pull = magnet_pull(built, trajectory.frame_poses)
    names = pull.magnet_names
    assert {(a, b) for a, b, _ in pull.pairs} == {("m1", "m2"), ("m1", "m4")}  # m2, m4: the stator
    assert {route for *_, route in pull.pairs} == {"magnet"}
    total_F = pull.force.sum(axis=1)
    total_T = (pull.torque + np.cross(pull.centre, pull.force)).sum(axis=1)
    scale_F, scale_T = np.abs(pull.force).max(), np.abs(pull.torque).max()
    assert scale_F > 0.1  # N: near, strong
    np.testing.assert_allclose(total_F, 0.0, atol=1e-12 * scale_F)
    np.testing.assert_allclose(total_T, 0.0, atol=1e-12 * (scale_T + scale_F))
    # one side against Magpylib's getFT called here, on the other magnet as the target
    i2 = names.index("m2")
    X = trajectory.frame_poses
    for n in (0, T - 1):
        rotor, stator = (X[n, built.frame_names.index(f"motor.{f}")] for f in ("rotor", "stator"))
        p1, p2 = rotor @ [0, 0, 0.025, 1], stator @ [0, 0, 0.045, 1]
        d1 = np.array([0.3, 0.2, 1.0]) / np.linalg.norm([0.3, 0.2, 1.0])
        d2 = np.array([1.0, 0.0, 0.2]) / np.linalg.norm([1.0, 0.0, 0.2])
        a = magpy.magnet.Cuboid(dimension=(0.01, 0.006, 0.004), polarization=N42["remanence"] * d1,
                                position=p1[:3], orientation=Rotation.from_matrix(rotor[:3, :3]))
        b = magpy.magnet.Cylinder(dimension=(0.008, 0.008), polarization=N42["remanence"] * d2,
                                  position=p2[:3], orientation=Rotation.from_matrix(stator[:3, :3]))
        F_on_b, T_on_b = magpy.getFT(a, b, pivot=p2[:3], meshing=2000)
        F_on_a, _ = magpy.getFT(b, a, pivot=p1[:3], meshing=2000)
        # m1 and m4 pull on m1 too: m2's share alone is read off m2 (only m1 pulls on it)
        assert np.linalg.norm(pull.force[n, i2] - F_on_b) <= 2e-3 * np.linalg.norm(F_on_b)
        assert np.linalg.norm(pull.torque[n, i2] - T_on_b) <= 2e-3 * np.linalg.norm(T_on_b)
        assert np.linalg.norm(F_on_a + F_on_b) <= 2e-3 * np.linalg.norm(F_on_b)


def test_of_two_magnets_of_one_size_the_later_is_cut_into_cells_in_both_the_trajectory_and_one_instant():
    """Two equal cylinders, near (getFT): the pull on the later one is Magpylib's getFT on it, cut into
    PAIR_CELLS cells, with the earlier one's field exact (its reaction on the earlier one); the one-instant
    pull of forward dynamics computes the same side, so the two agree to rounding."""
    rig = snippet_rig()  # m1: a cylinder 5 mm in radius, 10 mm long, on the rotor, magnetised along z
    built = rig.build()
    poses = built.play(np.tile(built.initial_commands(), (1, 1)), 0.01).frame_poses
    rotor = poses[0, built.frame_names.index("motor.rotor")]
    p1 = rotor[:3, :3] @ [0.0, 0.0, 0.025] + rotor[:3, 3]
    p2 = p1 + [0.012, 0.004, 0.006]
    rig.magnets["m2"] = PermanentMagnet(Cylinder(radius=0.005, length=0.01), material="NdFeB-N42",
                                        magnetisation=(1.0, 0.0, 0.3), at=tuple(p2))
    built = rig.build()
    pull = magnet_pull(built, poses, "magnet")
    assert pull.pairs == (("m1", "m2", "magnet"),)
    J = N42["remanence"]
    a = magpy.magnet.Cylinder(dimension=(0.01, 0.01), polarization=(0.0, 0.0, J), position=p1,
                              orientation=Rotation.from_matrix(rotor[:3, :3]))
    b = magpy.magnet.Cylinder(dimension=(0.01, 0.01), polarization=J * np.array([1.0, 0.0, 0.3])
                              / np.linalg.norm([1.0, 0.0, 0.3]), position=p2)
    size = 2 * math.hypot(0.005, 0.005)  # the bounding diameter
    F, tau = magpy.getFT(a, b, pivot=p2, meshing=PAIR_CELLS, eps=EPS_RATIO * size)
    i1, i2 = pull.magnet_names.index("m1"), pull.magnet_names.index("m2")
    np.testing.assert_allclose(pull.force[0, i2], F, rtol=0, atol=1e-9 * np.linalg.norm(F))
    np.testing.assert_allclose(pull.torque[0, i2], tau, rtol=0, atol=1e-9 * np.linalg.norm(tau))
    np.testing.assert_allclose(pull.force[0, i1], -F, rtol=0, atol=1e-9 * np.linalg.norm(F))
    model = PullModel(built, "magnet")
    force, torque = model.at(model.poses(poses)[0])
    np.testing.assert_allclose(force, pull.force[0], rtol=0, atol=1e-12 * np.linalg.norm(F))
    np.testing.assert_allclose(torque, pull.torque[0], rtol=0, atol=1e-12 * np.linalg.norm(tau))


@pytest.mark.parametrize("sizes", [10, 20])
@pytest.mark.parametrize("shapes", [(Box((0.01, 0.01, 0.01)), Cylinder(0.005, 0.01)),
                                    (Ring(0.0025, 0.005, 0.004), Box((0.01, 0.005, 0.008)))])
def test_far_apart_the_getft_route_is_the_dipole_dipole_closed_form(sizes, shapes):
    """A magnet in the world and one on the rotor ``sizes`` sizes (the larger bounding diameter) apart,
    through the getFT route: the test's own dipole–dipole closed form holds within ``DIPOLE_COEFFICIENT
    (R/d)²`` of the dipole scales (2e-2 at 10 sizes, 5e-3 at 20); the dipole route gives the closed form
    itself."""
    first, second = shapes
    radius = max(float(np.linalg.norm(g.half_extents())) for g in shapes)
    d = sizes * 2 * radius
    u = np.array([1.0, 0.5, 0.3]) / np.linalg.norm([1.0, 0.5, 0.3])
    rig = snippet_rig()
    rig.magnets["m1"] = PermanentMagnet(second, material="NdFeB-N42", magnetisation=(1, 0, 0.5),
                                        at=(0.0, 0.0, 0.025), mount="motor.rotor")
    built = rig.build()
    poses = built.play(np.tile(built.initial_commands(), (1, 1)), 0.01).frame_poses
    rotor = poses[0, built.frame_names.index("motor.rotor")]
    centre = rotor[:3, :3] @ [0.0, 0.0, 0.025] + rotor[:3, 3]
    rig.magnets["a"] = PermanentMagnet(first, material="NdFeB-N42", magnetisation=(0, 0, 1),
                                       at=tuple(centre - d * u))
    built = rig.build()
    volumes = [g.mass_properties().volume for g in shapes]
    m1 = N42["remanence"] * volumes[0] / MU0 * np.array([0.0, 0.0, 1.0])
    d2 = rotor[:3, :3] @ [1.0, 0.0, 0.5] / np.linalg.norm([1.0, 0.0, 0.5])
    m2 = N42["remanence"] * volumes[1] / MU0 * d2
    F, tau = _closed_form(m1, m2, d * u)
    scale = MU0 / (4 * math.pi) * np.linalg.norm(m1) * np.linalg.norm(m2)
    bound = DIPOLE_COEFFICIENT * (radius / d) ** 2
    for method in ("magnet", "dipole"):
        pull = magnet_pull(built, poses, method)
        b = pull.magnet_names.index("m1")
        assert pull.pairs == (("m1", "a", method),)
        np.testing.assert_allclose(pull.centre[0, b], centre, atol=1e-12)
        tol = bound if method == "magnet" else 1e-9
        assert np.linalg.norm(pull.force[0, b] - F) <= tol * 3 * scale / d**4, method
        assert np.linalg.norm(pull.torque[0, b] - tau) <= tol * scale / d**3, method
    # two magnets standing in the world are one body: no pull
    rig.magnets["m1"].mount = None
    assert magnet_pull(rig.build(), poses).pairs == ()


SPINNER = spinner_urdf(0.01)  # the ball's link


def _spinner(tmp_path, gap: float):
    """A one-joint arm turning about the vertical (gravity loads no joint) with a ball 5 cm out on its link,
    and a ball fixed in the world ``gap`` beyond it."""
    path = tmp_path / "spinner.urdf"
    path.write_text(SPINNER)
    return Apparatus("spinner", chain={"arm": Arm.Dynamic(description=str(path))},
                     magnets={"on_arm": _ball((0.05, 0.0, 0.0), "arm.arm", (1.0, 0.0, 0.0)),
                              "fixed": _ball((0.05 + gap, 0.0, 0.0), None, (0.0, 1.0, 0.0))}).build()


def test_a_pull_past_the_effort_limit_is_a_torque_magnets_excess(tmp_path):
    """Held still, the only torque is the magnets' pull: a world ball 12 mm from the arm's ball asks more
    than the joint's 0.01 N·m (``torque.magnets`` and ``torque.effort``); 10 cm away, nothing."""
    for gap, expected in ((0.012, True), (0.1, False)):
        built = _spinner(tmp_path, gap)
        torques = built.torques(built.play(np.zeros((4, 1)), 0.01))
        share = torques.magnet_torques[:, 0]
        np.testing.assert_allclose(torques.joint_torques[:, 0], share, atol=1e-15)
        codes = {e.code for e in torques.excesses}
        assert (codes == {"torque.magnets", "torque.effort"}) is expected, (gap, codes, share)
        if expected:
            (found,) = [e for e in torques.excesses if e.code == "torque.magnets"]
            assert found.steps == 4 and found.value == pytest.approx(abs(share[0]))
            assert "0.01 N·m with the magnets' pull on each other (within it without)" in str(found)
        np.testing.assert_array_equal(torques.arrays()["magnet_torques"], torques.magnet_torques)


def test_a_rig_with_one_magnet_has_no_pull():
    built = snippet_rig().build()
    torques = built.torques(built.play(np.tile(built.initial_commands(), (3, 1)), 0.01))
    assert torques.magnet_pull is None and torques.magnet_torques is None
    assert "magnet_torques" not in torques.arrays()
