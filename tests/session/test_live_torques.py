"""Live torques without Qt: each live step's torques equal the batched torques of the same states, and the
limits' excesses are flagged at the step they happen."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import numpy as np
import pytest
from oracle import ARM_JOINTS, demo_gravity, demo_model, demo_q

from mime_gui import RESOURCES
from mime_gui.multibody import compiled
from mime_gui.nodes import Trajectory
from mime_gui.session import Session
from mime_gui.session.transport import Transport

DEMO = RESOURCES / "demo"
DT = 0.01


def trajectory(states, dt):
    """The recorded live states as BuiltRig.torques takes them."""
    names = states[0].keys()
    segments = {n: Trajectory(np.array([s[n].joint_positions for s in states[1:]]),
                              np.array([s[n].frame_poses for s in states[1:]]),
                              np.array([s[n].frame_angular_velocities for s in states[1:]]), dt,
                              np.zeros(0, dtype=int)) for n in names}
    return SimpleNamespace(segments=segments, initial=states[0], dt=dt)


def snapshot(session):
    return {n: session.state(n) for n in session.segments}


@pytest.fixture(params=["numpy", "compiled"])
def kernels(request, monkeypatch):
    """Each live step's torques by numpy (before the compiled kernels are loaded) and compiled (after)."""
    ready = threading.Event()
    if request.param == "compiled":
        compiled.load()  # compiles once per process where nothing is cached
        ready.set()
    monkeypatch.setattr(compiled, "_ready", ready)
    return request.param


def test_live_torques_equal_the_batched_torques_of_the_same_steps(demo, kernels):
    session, transport = demo
    assert compiled.ready() == (kernels == "compiled")
    live = transport.live_torques
    assert live.dynamic
    states = [snapshot(session)]
    session.set_command("arm", {"joint_1": 0.6, "joint_2": -0.1, "joint_4": 0.5})
    session.set_command("motor", [3.0])
    for n in range(40):
        if n == 20:
            session.set_command("arm", {"joint_3": 0.2, "joint_6": -1.0})
        transport.tick(DT)
        states.append(snapshot(session))
    batched = session.document.built.torques(trajectory(states, DT))
    window = live.data()
    assert window.joint_names == batched.joint_names
    assert "motor.shaft" in window.joint_names  # a segment riding on a moving mount
    np.testing.assert_allclose(window.time, batched.time, rtol=0, atol=1e-12)
    scale = np.abs(batched.joint_torques).max()
    np.testing.assert_allclose(window.joint_torques, batched.joint_torques, rtol=0, atol=1e-9 * max(scale, 1))
    np.testing.assert_allclose(window.joint_velocities, batched.joint_velocities, rtol=0, atol=1e-9)
    assert [str(e) for e in window.excesses] == [str(e) for e in batched.excesses]
    # and Pinocchio's RNEA of the arm carrying the spinning motor, at each step's positions and
    # finite-difference rates (the arm's joints; the shaft's own torque is left to the batched comparison)
    pin, model = demo_model()
    arm = session.document.built.articulation("arm")
    model.armature[[model.joints[model.getJointId(j)].idx_v for j in arm.joint_names]] = arm.armature
    model.armature[model.joints[model.getJointId("motor")].idx_v] = \
        session.document.built.articulation("motor").armature[0]
    order = [model.joints[model.getJointId(j)].idx_v for j in [*ARM_JOINTS, "motor"]]
    columns = [window.joint_names.index(f"arm.{j}") for j in ARM_JOINTS] + \
        [window.joint_names.index("motor.shaft")]
    q = np.array([np.r_[s["arm"].joint_positions, s["motor"].joint_positions] for s in states])
    v = np.vstack([np.zeros(7), np.diff(q, axis=0) / DT])
    a = np.diff(v, axis=0) / DT
    data = model.createData()
    for n in (0, 1, 19, 20, 21, 39):
        pv, pa = np.zeros(model.nv), np.zeros(model.nv)
        pv[order], pa[order] = v[n + 1], a[n]
        expected = pin.rnea(model, data, demo_q(pin, model, q[n + 1, :6], q[n + 1, 6]), pv, pa)[order]
        np.testing.assert_allclose(window.joint_torques[n, columns][:6], expected[:6], rtol=1e-9, atol=1e-9,
                                   err_msg=f"step {n}")


def test_an_effort_excess_is_flagged_at_the_step_it_happens(demo):
    session, transport = demo
    live = transport.live_torques
    for _ in range(5):  # at rest, holding against gravity: within the limits
        transport.tick(DT)
    assert live.data().excesses == ()
    gravity = demo_gravity(session.joint_positions("arm"), session.joint_positions("motor")[0])
    columns = [live.joint_names.index(f"arm.{j}") for j in ARM_JOINTS]
    np.testing.assert_allclose(live.last()[0][columns], gravity[:6], rtol=1e-9, atol=1e-9)
    assert abs(gravity[1]) > 1.0  # the shoulder does hold weight
    session.set_command("arm", {"joint_2": 0.8})  # a jump of the command: the servo lag's first step is fast
    transport.tick(DT)
    found = [e for e in live.data().excesses if e.code == "torque.effort" and e.joint == "arm.joint_2"]
    assert len(found) == 1
    assert found[0].step == 5 and found[0].time == pytest.approx(6 * DT)
    assert abs(live.last()[0][live.joint_names.index("arm.joint_2")]) > 150.0
    # the window forgets what is older than its length
    for _ in range(int(live.window / DT) + 50):
        transport.tick(DT)
    assert live.data().excesses == ()
    assert live.data().time[0] > live.time - live.window - 1e-9


def test_a_teleport_starts_again_from_rest_and_a_kinematic_rig_has_none(demo):
    session, transport = demo
    live = transport.live_torques
    transport.tick(DT)
    session.set_joint_positions("arm", {"joint_2": 0.5})  # a jump: not differenced as a step
    transport.tick(DT)
    tau, v = live.last()
    assert np.all(v == 0)
    session.open(DEMO / "arm.urdf")  # an Arm.Kinematic
    assert not live.dynamic and live.joint_names == ()
    # one limit per column: none, as there is no column
    assert live.effort_limits.shape == live.velocity_limits.shape == (0,)
    transport.tick(DT)
    assert live.last() is None


def test_live_torques_of_panda_standing_turned_in_the_world_equal_the_batched_ones():
    from robot_data import robot_urdf

    from mime_gui.rig import Apparatus, Arm

    path = robot_urdf("panda_description/urdf/panda.urdf")
    rig = Apparatus("r", chain={"arm": Arm.Dynamic(description=str(path), servo_time_constant=0.03,
                                                   at=(0.1, -0.2, 0.3),
                                                   orientation=(np.cos(0.4), 0.0, np.sin(0.4), 0.0))})
    session = Session()
    session.open_apparatus(rig)
    transport = Transport(session)
    names = session.command_names("arm")
    states = [snapshot(session)]
    for n in range(30):
        session.set_command("arm", 0.4 * np.sin(0.05 * n + np.arange(len(names))))
        transport.tick(DT)
        states.append(snapshot(session))
    batched = session.document.built.torques(trajectory(states, DT))
    window = transport.live_torques.data()
    assert window.joint_names == batched.joint_names
    np.testing.assert_allclose(window.joint_torques, batched.joint_torques, rtol=0, atol=1e-9)


def test_live_torques_feel_a_magnet_fixed_beside_the_arm_as_the_batched_ones_do():
    """A second magnet fixed in the world 3 cm from the demo's: each live step's torques, the pull included,
    equal the batched ones (whose pull is checked against Pinocchio in tests/rig/test_magnet_pull.py)."""
    from mime_gui.rig import Cylinder, PermanentMagnet, load

    rig = load(DEMO / "demo.rig.json")
    session = Session()
    session.open_apparatus(rig)
    frames = session.frame_world_pose("motor", "part:m1")
    near = frames[:3, 3] + np.array([0.03, 0.0, 0.0])
    rig.magnets["m2"] = PermanentMagnet(Cylinder(radius=0.01, length=0.02), material="NdFeB-N42",
                                        at=tuple(near), magnetisation=(1.0, 0.0, 0.0))
    session.open_apparatus(rig)
    transport = Transport(session)
    states = [snapshot(session)]
    session.set_command("arm", {"joint_1": 0.3, "joint_5": 0.4})
    session.set_command("motor", [2.0])
    for _ in range(30):
        transport.tick(DT)
        states.append(snapshot(session))
    batched = session.document.built.torques(trajectory(states, DT))
    assert batched.magnet_torques is not None
    share = np.abs(batched.magnet_torques).max()
    assert share > 1e-4  # the pull is felt: the comparison below holds it
    window = transport.live_torques.data()
    scale = np.abs(batched.joint_torques).max()
    np.testing.assert_allclose(window.joint_torques, batched.joint_torques, rtol=0, atol=1e-9 * max(scale, 1))


#: a turntable (yaw, revolute) carrying a 0.5 kg slider lifted along z (lift, prismatic)
TURN_LIFT = """<robot name="rp"><link name="base"/>
<link name="turn"><inertial><mass value="1"/><origin xyz="0 0 0.1"/>
<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
<link name="slide"><inertial><mass value="0.5"/><origin xyz="0 0 0"/>
<inertia ixx="0.001" iyy="0.001" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
<joint name="yaw" type="revolute"><parent link="base"/><child link="turn"/><axis xyz="0 0 1"/>
<limit lower="-3" upper="3" effort="10" velocity="2"/></joint>
<joint name="lift" type="prismatic"><parent link="turn"/><child link="slide"/><axis xyz="0 0 1"/>
<limit lower="0" upper="0.5" effort="50" velocity="0.3"/></joint></robot>"""


def test_a_sliding_joint_is_shown_in_newtons_and_holds_its_load_s_weight(tmp_path):
    from mime_gui.rig import Apparatus, Arm

    urdf = tmp_path / "turn_lift.urdf"
    urdf.write_text(TURN_LIFT)
    session = Session()
    session.open_apparatus(Apparatus("rp", chain={"arm": Arm.Dynamic(description=str(urdf))}))
    transport = Transport(session)
    transport.tick(DT)
    live = transport.live_torques
    assert live.joint_names == ("arm.yaw", "arm.lift")
    assert live.effort_units == ("N·m", "N")
    tau, _ = live.last()
    assert tau == pytest.approx([0.0, 0.5 * 9.81], abs=1e-12)  # the vertical axis holds no torque


def test_a_segment_holding_no_pulled_magnet_feels_no_pull_while_another_does():
    """A magnet on the demo arm's link_3 (its m1 taken off the motor) and one fixed in the world 3 cm from
    it: the pull turns up in the arm's torques, and the motor riding on the arm, which holds no magnet, has
    the torques of the same steps without the world magnet, exactly."""
    from mime_gui.rig import Cylinder, PermanentMagnet, load

    def magnet(**where):
        return PermanentMagnet(Cylinder(radius=0.01, length=0.02), material="NdFeB-N42",
                               magnetisation=(1.0, 0.0, 0.0), **where)

    def live_window(with_world_magnet: bool):
        rig = load(DEMO / "demo.rig.json")
        del rig.magnets["m1"]
        rig.magnets["m2"] = magnet(mount="arm.link_3")
        session = Session()
        session.open_apparatus(rig)
        if with_world_magnet:
            near = session.frame_world_pose("arm", "link_3")[:3, 3] + np.array([0.03, 0.0, 0.0])
            rig.magnets["m3"] = magnet(at=tuple(near))
            session.open_apparatus(rig)
        transport = Transport(session)
        session.set_command("arm", {"joint_1": 0.3, "joint_5": 0.4})
        session.set_command("motor", [2.0])
        for _ in range(10):
            transport.tick(DT)
        return transport.live_torques.data()

    pulled, alone = live_window(True), live_window(False)
    shaft = pulled.joint_names.index("motor.shaft")
    arm = [pulled.joint_names.index(f"arm.{j}") for j in ARM_JOINTS]
    assert np.abs(pulled.joint_torques[:, arm] - alone.joint_torques[:, arm]).max() > 1e-3  # the pull
    np.testing.assert_array_equal(pulled.joint_torques[:, shaft], alone.joint_torques[:, shaft])
