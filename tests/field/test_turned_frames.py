"""Probes and magnets on a turned mount: a motor standing at a place in the world with an orientation that is
not the identity, its rotor turned. The world positions are the hand composition world ← stator ← rotor ←
point, and the field is Magpylib's at that pose."""

from __future__ import annotations

import math

import numpy as np
import pytest
from field_helpers import BR, magnet, probe

from mime_gui.field import field_along
from mime_gui.rig import Apparatus, Cylinder, Motor

AT = np.array([0.1, -0.2, 0.3])
WXYZ = (math.cos(0.6), math.sin(0.6) * 0.6, math.sin(0.6) * -0.8, 0.0)  # 1.2 rad about (0.6, -0.8, 0)


def quaternion_matrix(w, x, y, z) -> np.ndarray:
    """The rotation of a unit quaternion (w, x, y, z), written out."""
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def rz(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


@pytest.fixture
def turned():
    magnets = {"m": magnet(Cylinder(0.004, 0.01), (1.0, 0.0, 0.0), at=(0.0, 0.01, 0.02), mount="motor.rotor")}
    probes = {"on_stator": probe((0.01, 0.02, 0.05), mount="motor.stator"),
              "on_rotor": probe((0.03, 0.0, 0.01), mount="motor.rotor"), "world": probe((0.2, 0.1, 0.4))}
    rig = Apparatus("bench", chain={"motor": Motor.Kinematic(axis=(0.0, 0.0, 1.0), at=tuple(AT),
                                                             orientation=WXYZ)},
                    magnets=magnets, probes=probes)
    return rig.build(), probes


def test_probes_on_a_turned_motor_sit_where_the_transforms_composed_by_hand_put_them(turned):
    built, probes = turned
    angles = np.array([0.0, 0.7, 2.5])
    field = field_along(built, built.play({"motor.shaft": angles}, 0.01))
    R = quaternion_matrix(*WXYZ)
    assert not np.allclose(R, np.eye(3))
    for step, angle in enumerate(angles):
        expected = [AT + R @ probes["on_stator"].at, AT + R @ rz(angle) @ probes["on_rotor"].at,
                    np.asarray(probes["world"].at)]
        np.testing.assert_allclose(field.probe_positions[step], expected, atol=1e-12, err_msg=f"step {step}")


def test_the_field_of_a_magnet_on_a_turned_rotor_is_magpylib_s_at_the_hand_composed_pose(turned):
    import magpylib as magpy
    from scipy.spatial.transform import Rotation

    built, probes = turned
    angles = np.array([0.3, 1.9])
    field = field_along(built, built.play({"motor.shaft": angles}, 0.01))
    R = quaternion_matrix(*WXYZ)
    for step, angle in enumerate(angles):
        source = magpy.magnet.Cylinder(dimension=(0.008, 0.01), polarization=(BR, 0.0, 0.0))
        source.position = AT + R @ rz(angle) @ np.array([0.0, 0.01, 0.02])
        source.orientation = Rotation.from_matrix(R @ rz(angle))
        world = AT + R @ np.asarray(probes["on_stator"].at)
        np.testing.assert_allclose(field.B[step, 0], source.getB(world), rtol=1e-9, atol=1e-15)
        assert np.linalg.norm(field.B[step, 0]) > 1e-4  # near enough to matter
