"""Independent routes to the demo rig's expected values, shared by every test folder: the rig in Pinocchio
(the arm read from its URDF, the motor a joint about tool0's z carrying the holder and the magnet), the
magnet's field from Magpylib called directly on the pose Pinocchio gives, and the servo lag and zero-order
hold computed step by step. The rig's figures are read from its JSON files, not from the rig package."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from mime_gui import RESOURCES

DEMO = RESOURCES / "demo"
ARM_JOINTS = [f"joint_{k}" for k in range(1, 7)]
_RIG = json.loads((DEMO / "demo.rig.json").read_text())
_MATERIALS = {m["name"]: m for m in json.loads((RESOURCES / "materials.json").read_text())["materials"]}


def _cylinder(item):
    g = item["geometry"]
    assert g["type"] == "cylinder" and g["unit"] == "m"
    return g["radius"], g["length"]


def demo_model():
    """Pinocchio's demo rig: the arm, and the motor a z joint at tool0 (its rotor's inertia about z) carrying
    the holder and magnet m1."""
    pin = pytest.importorskip("pinocchio")
    model = pin.buildModelFromUrdf(str(DEMO / "arm.urdf"))
    tool0 = model.frames[model.getFrameId("tool0")]
    motor = model.addJoint(tool0.parentJoint, pin.JointModelRZ(), tool0.placement, "motor")
    model.addJointFrame(motor)
    rotor = next(c for c in _RIG["chain"] if c["name"] == "motor")["inertia"]["value"]  # about its axis
    model.appendBodyToJoint(motor, pin.Inertia(0.0, np.zeros(3), np.diag([0.0, 0.0, rotor])),
                            pin.SE3.Identity())
    for item in (_RIG["parts"]["holder"], _RIG["magnets"]["m1"]):
        r, length = _cylinder(item)
        m = _MATERIALS[item["material"]]["density"] * math.pi * r * r * length
        ixx = m * (3 * r * r + length * length) / 12
        inertia = pin.Inertia(m, np.zeros(3), np.diag([ixx, ixx, m * r * r / 2]))
        model.appendBodyToJoint(motor, inertia, pin.SE3(np.eye(3), np.array(item["at"]["value"], float)))
    return pin, model


def demo_q(pin, model, arm, motor: float = 0.0) -> np.ndarray:
    """Pinocchio's q from the arm's six joint positions (joint_1 … joint_6) and the motor's angle."""
    q = pin.neutral(model)
    for name, value in zip([*ARM_JOINTS, "motor"], [*arm, motor], strict=True):
        j = model.joints[model.getJointId(name)]
        if j.nq == 2:  # continuous: (cos, sin)
            q[j.idx_q:j.idx_q + 2] = math.cos(value), math.sin(value)
        else:
            q[j.idx_q] = value
    return q


def demo_poses(arm, motor: float = 0.0) -> dict[str, np.ndarray]:
    """World poses (4×4) of tool0 (the motor's stator) and of the rotor, by Pinocchio."""
    pin, model = demo_model()
    data = model.createData()
    pin.framesForwardKinematics(model, data, demo_q(pin, model, arm, motor))
    stator = data.oMf[model.getFrameId("tool0")].homogeneous
    rotor = data.oMi[model.getJointId("motor")].homogeneous
    return {"stator": stator, "rotor": rotor}


def demo_gravity(arm, motor: float = 0.0) -> np.ndarray:
    """The torques holding the rig still at these positions (arm joints, then the motor), by Pinocchio."""
    pin, model = demo_model()
    g = pin.computeGeneralizedGravity(model, model.createData(), demo_q(pin, model, arm, motor))
    return np.array([g[model.joints[model.getJointId(n)].idx_v] for n in [*ARM_JOINTS, "motor"]])


def magnet_B(rotor: np.ndarray, points, direction, remanence: float | None = None) -> np.ndarray:
    """B (T) of the demo's magnet m1 riding on ``rotor`` (its world pose) at world ``points``, magnetised
    along ``direction`` (its frame's axes), by Magpylib called directly."""
    import magpylib as magpy
    from scipy.spatial.transform import Rotation

    m1 = _RIG["magnets"]["m1"]
    r, length = _cylinder(m1)
    br = _MATERIALS[m1["material"]]["remanence"] if remanence is None else remanence
    d = np.asarray(direction, float) / np.linalg.norm(direction)
    source = magpy.magnet.Cylinder(dimension=(2 * r, length), polarization=tuple(br * d))
    X = rotor @ _translate(m1["at"]["value"])
    source.position, source.orientation = X[:3, 3], Rotation.from_matrix(X[:3, :3])
    return source.getB(np.asarray(points, float)).reshape(-1, 3)


def _translate(p) -> np.ndarray:
    X = np.eye(4)
    X[:3, 3] = p
    return X


def held(times, values, dt: float, steps: int) -> np.ndarray:
    """The zero-order hold of samples ``values (S, k)`` at ``times (S,)`` on the grid ``t0 + n dt``: the last
    sample at or before each grid time, found one by one."""
    out = []
    for n in range(steps):
        t = times[0] + n * dt
        i = max(i for i in range(len(times)) if times[i] <= t + 1e-9 * dt)
        out.append(values[i])
    return np.array(out)


def lagged(commands, initial, dt: float, tau: float) -> np.ndarray:
    """θ_{n+1} = ū_n + (θ_n − ū_n) e^{−dt/τ}, one step at a time (ū held through the step)."""
    a = 0.0 if tau == 0 else math.exp(-dt / tau)
    theta, out = np.asarray(initial, float), []
    for u in np.asarray(commands, float):
        theta = u + (theta - u) * a
        out.append(theta)
    return np.array(out)


def demo_tool0_angular_velocity(arm, rates) -> np.ndarray:
    """tool0's angular velocity in world axes at joint positions ``arm`` moving at ``rates``, by Pinocchio."""
    pin, model = demo_model()
    data = model.createData()
    v = np.zeros(model.nv)
    for name, rate in zip(ARM_JOINTS, rates, strict=True):
        v[model.joints[model.getJointId(name)].idx_v] = rate
    pin.forwardKinematics(model, data, demo_q(pin, model, arm), v)
    pin.updateFramePlacements(model, data)
    frame = model.getFrameId("tool0")
    return pin.getFrameVelocity(model, data, frame, pin.LOCAL_WORLD_ALIGNED).angular


#: the demo magnet's magnetisation in its mount frame: diametric, across the motor's shaft, so a turn of the
#: shaft turns its field
DEMO_MAGNETISATION = (1.0, 0.0, 0.0)


def chain_B_by_hand(commands_file, steps, on_stator=(), in_world=(), direction=DEMO_MAGNETISATION):
    """B (T) of the demo rig played through a command file of its columns (``time``, ``arm.joint_1`` …
    ``arm.joint_5``, ``motor.shaft``, a comment line first) at the chosen steps: the arm columns lagged by the
    demo arm's 0.05 s servo at the samples' spacing (joint_6, absent, stays at 0; the motor follows at once),
    poses by Pinocchio, the magnet by Magpylib; probes at points on the stator, then world points.
    Returns (the steps' times t0 + (n + 1) dt, B (n, P, 3))."""
    samples = np.loadtxt(commands_file, delimiter=",", skiprows=2)
    arm = np.zeros((len(samples), 6))
    arm[:, :5] = samples[:, 1:6]
    dt = samples[1, 0] - samples[0, 0]
    positions = lagged(arm, arm[0], dt, 0.05)
    out = []
    for n in steps:
        poses = demo_poses(positions[n], samples[n, 6])
        stator = poses["stator"]
        points = [stator[:3, :3] @ p + stator[:3, 3] for p in on_stator] + list(in_world)
        out.append(magnet_B(poses["rotor"], points, direction))
    return samples[0, 0] + dt * (np.array(steps) + 1), np.array(out)


def demo_B_now(session, probes, direction) -> np.ndarray:
    """B (T) at the demo rig's probes ``{name: Probe}`` (on the stator or the world) at the session's
    joint positions, by Pinocchio and Magpylib: (P, 3)."""
    poses = demo_poses(session.joint_positions("arm"), session.joint_positions("motor")[0])
    stator = poses["stator"]
    points = []
    for p in probes.values():
        assert p.mount in (None, "motor.stator")
        at = np.asarray(p.at, float)
        points.append(at if p.mount is None else stator[:3, :3] @ at + stator[:3, 3])
    return magnet_B(poses["rotor"], points, direction)
