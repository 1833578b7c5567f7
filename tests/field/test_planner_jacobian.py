"""The planner's Jacobian, composed from the field's derivative with respect to each magnet's pose and the
engine's frame Jacobians, against central differences of the field computed independently: the poses by
Pinocchio, the field by Magpylib called directly (never through mime_gui's field code) — on the demo rig (its
magnet on the motor riding on the arm's flange and a probe fixed in the world; a probe on the stator and a
magnet fixed in the world; both riding) and on Panda from example-robot-data (a magnet on its hand, one on a
finger that mimics the other, a probe fixed in the world); the gradient's and the sample's force's changes
likewise, the force through Magpylib's getFT on a dipole."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from oracle import DEMO_MAGNETISATION, demo_poses
from robot_data import robot_urdf

from mime_gui import RESOURCES
from mime_gui.field.planner import target_field
from mime_gui.rig import (
    Apparatus,
    Arm,
    Box,
    Cylinder,
    PermanentMagnet,
    Probe,
    Sample,
    a_m2,
    load,
)
from mime_gui.rig.targets import FieldTarget

pin = pytest.importorskip("pinocchio")
magpy = pytest.importorskip("magpylib")
from scipy.spatial.transform import Rotation  # noqa: E402

DEMO = RESOURCES / "demo"
BR = {m["name"]: m.get("remanence")
      for m in json.loads((RESOURCES / "materials.json").read_text())["materials"]}
BOX = (0.01, 0.006, 0.004)
STATOR_POINT = np.array([0.0, 0.02, 0.06])
#: the central differences' step (rad or m): truncation ~ (h · 15/rad)² ≈ 1e-7, Magpylib's rounding
#: (1e-11 of B for a cylinder a few centimetres away) over h about 1e-6 of B per radian
H = 2e-5
#: the composed Jacobian against the differences, relative to the Jacobian's norm: the spatial gradient's
#: own bound (1e-6) and the differences' error, with room
TOLERANCE = 1e-5


def _cylinder_on_rotor(poses):
    """The demo's magnet m1 (a diametric N42 cylinder 25 mm up the rotor) as Magpylib places it."""
    s = magpy.magnet.Cylinder(dimension=(0.01, 0.01),
                              polarization=tuple(BR["NdFeB-N42"] * np.array(DEMO_MAGNETISATION)))
    X = poses["rotor"] @ _translate((0.0, 0.0, 0.025))
    s.position, s.orientation = X[:3, 3], Rotation.from_matrix(X[:3, :3])
    return s


def _box(at):
    return magpy.magnet.Cuboid(dimension=BOX, polarization=(0.0, BR["NdFeB-N42"], 0.0), position=at)


def _stator_point(poses, at=STATOR_POINT):
    stator = poses["stator"]
    return stator[:3, :3] @ np.asarray(at) + stator[:3, 3]


def _demo_case(case: str, x, rng):
    """The demo rig for one case at commands ``x``, and B (T) at its point as Magpylib gives it with the
    poses by Pinocchio: ``riding magnet``: the rotor's magnet and a probe fixed in the world 3 to 6 cm from
    it; ``riding probe``: a probe on the stator and a magnet fixed in the world 3 to 6 cm from it;
    ``both riding``: the rotor's magnet and the probe on the stator (the shaft alone moves one against the
    other)."""
    rig = load(DEMO / "demo.rig.json")
    poses = demo_poses(x[:6], x[6])
    offset = rng.normal(size=3)
    offset *= rng.uniform(0.03, 0.06) / np.linalg.norm(offset)
    if case == "riding magnet":
        point = _cylinder_on_rotor(poses).position + offset
        rig.probes = {"p": Probe(tuple(point))}

        def B(y):
            return _cylinder_on_rotor(demo_poses(y[:6], y[6])).getB(point)
    elif case == "riding probe":
        at = _stator_point(poses) + offset
        rig.magnets = {"m2": PermanentMagnet(Box(BOX), material="NdFeB-N42", magnetisation=(0.0, 1.0, 0.0),
                                             at=tuple(at))}
        rig.parts = {}
        rig.probes = {"p": Probe(tuple(STATOR_POINT), mount="motor.stator")}

        def B(y):
            return _box(at).getB(_stator_point(demo_poses(y[:6], y[6])))
    else:
        rig.probes = {"p": Probe(tuple(STATOR_POINT), mount="motor.stator")}

        def B(y):
            p = demo_poses(y[:6], y[6])
            return _cylinder_on_rotor(p).getB(_stator_point(p))
    return rig, B


def _translate(p):
    X = np.eye(4)
    X[:3, 3] = p
    return X


def _gradient(B_of, point, h=1e-5):
    """G[i, j] = ∂B_i/∂x_j by central differences of ``B_of(points)`` (h: 2e-4 of the ~5 cm to the magnet,
    so that Magpylib's rounding stays below 1e-7 of G, and the differences below over joints' steps)."""
    steps = np.concatenate([np.eye(3), -np.eye(3)]) * h
    B = B_of(point + steps)
    return ((B[:3] - B[3:]) / (2 * h)).T


def _within(built, rng, count, margin=0.1):
    lower, upper = [], []
    for seg in built.segments:
        node = built.node(seg)
        lower += list(node.lower[node._commanded])
        upper += list(node.upper[node._commanded])
    lo = np.where(np.isfinite(lower), lower, -math.pi)
    hi = np.where(np.isfinite(upper), upper, math.pi)
    span = hi - lo
    return rng.uniform(lo + margin * span, hi - margin * span, size=(count, len(lo)))


def _differences(f, x, h=H):
    """Central differences of ``f`` (an array) over each entry of ``x``: ``(..., n)``."""
    columns = []
    for k in range(len(x)):
        up, down = x.copy(), x.copy()
        up[k] += h
        down[k] -= h
        columns.append((f(up) - f(down)) / (2 * h))
    return np.stack(columns, axis=-1)


def _close(composed, differenced, tolerance=TOLERANCE):
    scale = np.linalg.norm(differenced)
    assert scale > 0
    assert np.linalg.norm(composed - differenced) <= tolerance * scale, \
        (np.linalg.norm(composed - differenced) / scale)


def _demo_samples_rig():
    rig = load(DEMO / "demo.rig.json")
    rig.samples = {"bead": Sample((0.01, 0.0, 0.07), mount="motor.stator",
                                  moment=a_m2(2e-3, reason="a test figure"), magnetisation=(0.0, 1.0, 0.0)),
                   "ball": Sample((0.0, -0.01, 0.07), mount="motor.stator",
                                  moment=a_m2(2e-3, reason="a test figure"), orientation="follows")}
    return rig


@pytest.mark.parametrize("case", ["riding magnet", "riding probe", "both riding"])
def test_the_composed_jacobian_of_the_field_is_magpylib_s_differences_on_the_demo_rig(case):
    """The magnet on the motor riding on the arm's flange, a point fixed in the world; a point riding on the
    stator beside a magnet fixed in the world; both riding — at random poses within the limits."""
    rng = np.random.default_rng(3)
    built = load(DEMO / "demo.rig.json").build()
    for x in _within(built, rng, 3):
        rig, B = _demo_case(case, x, rng)
        seen = target_field(rig.build(), FieldTarget("probes.p", direction=(0.0, 0.0, 1.0)), x[None])
        np.testing.assert_allclose(seen.B[0], B(x), rtol=1e-9, atol=1e-12 * np.linalg.norm(B(x)))
        _close(seen.dB[0], _differences(B, x))


def test_the_gradient_and_the_sample_s_force_change_as_magpylib_s_differences_say():
    """The gradient (its Frobenius norm is what a bound bounds) and the force on a sample held in its mount
    frame and on one that follows the field: their values by Magpylib's B and getFT on a dipole, their
    changes by central differences of those."""
    built = _demo_samples_rig().build()
    rng = np.random.default_rng(5)
    X = _within(built, rng, 2)
    for name, follows in (("bead", False), ("ball", True)):
        target = FieldTarget(f"samples.{name}", direction=(0.0, 0.0, 1.0), max_gradient=1e6, max_force=1e6)
        seen = target_field(built, target, X)
        sample = built.apparatus.samples[name]

        def truth(x, sample=sample, follows=follows):
            poses = demo_poses(x[:6], x[6])
            point = _stator_point(poses, sample.at)
            source = _cylinder_on_rotor(poses)
            B = source.getB(point)
            G = _gradient(source.getB, point)
            d = np.asarray(sample.magnetisation) / np.linalg.norm(sample.magnetisation)
            moment = 2e-3 * (B / np.linalg.norm(B) if follows else poses["stator"][:3, :3] @ d)
            F, _ = magpy.getFT(source, magpy.misc.Dipole(moment=moment, position=point), eps=1e-5)
            return B, G, np.asarray(F).reshape(3)

        for k, x in enumerate(X):
            B, G, F = truth(x)
            np.testing.assert_allclose(seen.G[k], G, rtol=0, atol=1e-6 * np.linalg.norm(G))
            np.testing.assert_allclose(seen.F[k], F, rtol=0, atol=1e-6 * np.linalg.norm(F))
            # differences of differences: a joint's step of 1e-3 keeps the spatial ones' rounding small
            _close(seen.dG[k], _differences(lambda y, t=truth: t(y)[1], x, 1e-3), 2e-5)
            _close(seen.dF[k], _differences(lambda y, t=truth: t(y)[2], x, 1e-3), 2e-5)


# -- Panda from example-robot-data -----------------------------------------------------------------------
PANDA = "panda_description/urdf/panda.urdf"
HAND_AT = (0.0, 0.03, 0.05)
FINGER_AT = (0.0, 0.01, 0.03)


def _panda_rig(path, probe):
    return Apparatus("panda", chain={"arm": Arm.Kinematic(description=str(path))},
                     magnets={"hand": PermanentMagnet(Cylinder(0.006, 0.01), material="NdFeB-N42",
                                                      magnetisation=(1.0, 0.0, 0.0), at=HAND_AT,
                                                      mount="arm.panda_hand"),
                              "finger": PermanentMagnet(Box((0.004, 0.004, 0.006)), material="NdFeB-N42",
                                                        magnetisation=(0.0, 0.0, 1.0), at=FINGER_AT,
                                                        mount="arm.panda_rightfinger")},
                     probes={"dish": Probe(tuple(probe))})


def _panda_sources(model, names, x, follower):
    """The two magnets placed by Pinocchio at commands ``x`` (the follower finger set as the mimic makes
    it: multiplier 1, offset 0)."""
    data = model.createData()
    q = pin.neutral(model)
    values = dict(zip(names, x, strict=True))
    values[follower] = values["panda_finger_joint1"]
    for name, value in values.items():
        j = model.joints[model.getJointId(name)]
        q[j.idx_q] = value
    pin.framesForwardKinematics(model, data, q)
    sources = []
    for frame, at, shape in (("panda_hand", HAND_AT, "cylinder"), ("panda_rightfinger", FINGER_AT, "box")):
        X = data.oMf[model.getFrameId(frame)].homogeneous @ _translate(at)
        if shape == "cylinder":
            s = magpy.magnet.Cylinder(dimension=(0.012, 0.01), polarization=(BR["NdFeB-N42"], 0.0, 0.0))
        else:
            s = magpy.magnet.Cuboid(dimension=(0.004, 0.004, 0.006), polarization=(0.0, 0.0, BR["NdFeB-N42"]))
        s.position, s.orientation = X[:3, 3], Rotation.from_matrix(X[:3, :3])
        sources.append(s)
    return sources


def test_the_composed_jacobian_on_panda_with_a_magnet_on_its_hand_and_one_on_a_mimic_finger():
    path = robot_urdf(PANDA)
    model = pin.buildModelFromUrdf(str(path))
    rng = np.random.default_rng(11)
    built0 = _panda_rig(path, (1.0, 0.0, 0.0)).build()
    names = [n.partition(".")[2] for n in built0.command_names]
    assert "panda_finger_joint2" not in names  # the follower is no command
    for x in _within(built0, rng, 3, margin=0.15):
        hand = _panda_sources(model, names, x, "panda_finger_joint2")[0].position
        # a probe 4 to 8 cm from the hand's magnet, in the world
        offset = rng.normal(size=3)
        probe = hand + offset / np.linalg.norm(offset) * rng.uniform(0.04, 0.08)
        built = _panda_rig(path, probe).build()

        def B(y, probe=probe):
            sources = _panda_sources(model, names, y, "panda_finger_joint2")
            return magpy.getB(sources, probe, sumup=True).reshape(3)

        seen = target_field(built, FieldTarget("probes.dish", direction=(0.0, 0.0, 1.0)), x[None])
        np.testing.assert_allclose(seen.B[0], B(x), rtol=1e-9, atol=1e-12 * np.linalg.norm(B(x)))
        _close(seen.dB[0], _differences(B, x))
        finger = names.index("panda_finger_joint1")
        assert np.linalg.norm(seen.dB[0][:, finger]) > 0  # the finger's magnet moves the field
