"""The field checks of a rig that declares both a keep-out zone and a joint tolerance, a field line asked of a
rig with no magnets, and the field now of a rig with no frames (magnet and probe in the world)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from field_helpers import BR, dipole, magnet, motor_rig, spin

from mime_gui.field import FieldError, field_now, rest_poses
from mime_gui.field.lines import field_lines
from mime_gui.rig import Apparatus, Motor, Probe, Sphere, Zone, tesla
from mime_gui.rig.mass import MU0

R_BALL = 0.004
M_BALL = BR * 4 / 3 * math.pi * R_BALL**3 / MU0  # the ball's moment, A m2
ENCODER = np.array([0.06, 0.0, 0.0])
STEPS, DT = 100, 0.01
ANGLES = 2 * math.pi * DT * np.arange(1, STEPS + 1)  # spin(built, 1.0, STEPS, DT)


def test_the_field_checks_name_a_zone_and_a_joint_of_one_rig_together():
    """The ball 3 cm off the motor's axis passes a 1 cm zone at a quarter turn (a limit of 5 T no field of
    the ball reaches: only its being inside counts) and a second motor's encoder at 6 cm, whose tolerance
    lies between two steps' dipole |B| (the closed form): both are named, the zone first."""
    from mime_gui.field.checks import field_findings

    c, s = np.cos(ANGLES), np.sin(ANGLES)
    centres = 0.03 * np.stack([c, s, np.zeros_like(c)], axis=-1)
    moments = M_BALL * np.stack([c, s, np.zeros_like(c)], axis=-1)
    near = np.array([np.linalg.norm(dipole(m, ENCODER - p)) for m, p in zip(moments, centres, strict=True)])
    tolerance = 0.5 * (near[19] + near[20])
    ball = magnet(Sphere(R_BALL), (1.0, 0.0, 0.0), at=(0.03, 0.0, 0.0), mount="motor.rotor")
    chain = {"motor": Motor.Kinematic(),
             "encoder": Motor.Kinematic(mount="stator", at=tuple(ENCODER),
                                        field_tolerance=tesla(tolerance, reason="its Hall encoder"))}
    zones = {"sensor": Zone((0.0, 0.03, 0.0), sphere=0.01, limit=5.0, reason="a Hall sensor")}
    rig = Apparatus("bench", chain=chain, magnets={"m": ball}, zones=zones)
    assert rig.validate() == []
    built = rig.build()
    found = field_findings(built, spin(built, 1.0, STEPS, DT))
    assert [(f.code, f.where) for f in found] == [("field.zone", "zones.sensor"),
                                                   ("field.joint", "chain.encoder")]
    assert f"at {np.count_nonzero(near > tolerance)} of {STEPS} steps" in found[1].message, found[1].message


def test_a_field_line_asked_of_a_rig_without_magnets_says_it_has_none():
    built = motor_rig({}, {}).build()
    with pytest.raises(FieldError) as err:
        field_lines(built, rest_poses(built), "m")
    assert (err.value.code, err.value.file) == ("field.magnet", "magnets.m")
    assert "'m' is not a magnet of the rig (magnets: none)" in err.value.message


def test_the_field_now_of_a_rig_with_no_frames_is_the_ball_s_dipole_at_its_probe():
    """No chain: the ball and the probe stand in the world, so no frame's pose is asked; the field 2 cm above
    a ball magnetised along z is the point dipole's (exact outside the ball)."""
    rig = Apparatus("bench", magnets={"m": magnet(Sphere(R_BALL))}, probes={"p": Probe((0.0, 0.0, 0.02))})
    assert rig.validate() == []
    built = rig.build()
    assert built.frame_names == ()

    def no_frame(segment, frame):
        raise AssertionError(f"a rig without frames asked for {segment}.{frame}")

    field = field_now(built, no_frame)
    expected = dipole(np.array([0.0, 0.0, M_BALL]), np.array([0.0, 0.0, 0.02]))
    assert field.B.shape == (1, 1, 3)
    np.testing.assert_allclose(field.B[0, 0], expected, rtol=1e-9, atol=1e-15)
