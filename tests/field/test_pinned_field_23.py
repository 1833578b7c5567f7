"""Field contracts, pinned: a mimic follower's column in the chain's frame Jacobian counts while the
follower is within its limits as the played trajectory holds it, judged on the master's position in double
precision also when the trajectory keeps its positions in single precision; the force on a sample at poses
given as exact fractions (a 3-4-5 rotation) is the force at those poses read as numbers; a zone surface
point whose bound equals the zone's limit is cleared by the bound (it holds the bound, no field computed,
no breach)."""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import numpy as np
from field_helpers import magnet, motor_rig, spin
from robot_data import fold_urdf

from mime_gui.field.forces import bounding_radius
from mime_gui.field.jacobian import ChainJacobian
from mime_gui.field.samples import forces_now
from mime_gui.field.sources import magnet_sources
from mime_gui.field.zones import surface_points, zone_findings
from mime_gui.rig import Apparatus, Arm, Sample, Sphere, Zone, a_m2
from mime_gui.rig.mass import MU0

R_BALL = 0.004

# two 10 cm links folding in a plane, the second following the first at 0.6 of its angle within ±0.5 rad
FOLD_URDF = fold_urdf(0.6)


def test_the_follower_just_inside_its_limit_moves_the_tip_also_from_single_precision_positions(tmp_path):
    """The master at the single-precision value nearest −0.5/0.6 puts the follower at 0.6·θ ≈ −0.49999999
    (in doubles), just inside its −0.5 limit: the played trajectory holds it free, so the tip turns at
    1.6 times the command's rate. The same trajectory with its joint positions kept as float32 (a record
    stored small) describes the same poses and gives the same Jacobian: the limit is judged on the
    position's value, not on arithmetic in the storage's precision (in float32, 0.6·θ rounds to −0.5)."""
    urdf = tmp_path / "fold.urdf"
    urdf.write_text(FOLD_URDF)
    rig = Apparatus("fold", chain={"arm": Arm.Kinematic(description=str(urdf))})
    assert rig.validate() == []
    built = rig.build()
    theta = float(np.float32(-0.5 / 0.6))
    assert 0.6 * theta > -0.5  # the follower is free, by a hair
    played = built.play({"arm.j1": [theta]}, 0.01)
    arm = played.segments["arm"]
    assert arm.joint_positions[0, 1] == 0.6 * theta  # not held at its limit
    stored = dataclasses.replace(arm, joint_positions=arm.joint_positions.astype(np.float32))
    small = dataclasses.replace(played, segments={"arm": stored})
    chain = ChainJacobian(built)
    J = chain.twists(small, [chain.frame_index("arm.tip")])[0, 0, :, 0]
    # by hand: tip = 0.1 (cos θ, sin θ) + 0.1 (cos(θ + φ), sin(θ + φ)), φ = 0.6 θ, dφ/dθ = 0.6
    turned = 1.6 * theta
    velocity = [
        -0.1 * math.sin(theta) - 0.16 * math.sin(turned),
        0.1 * math.cos(theta) + 0.16 * math.cos(turned),
        0.0,
    ]
    np.testing.assert_allclose(J[:3], [0.0, 0.0, 1.6], atol=1e-9)
    np.testing.assert_allclose(J[3:], velocity, atol=1e-9)


def _turned_rig():
    """A motor with a ball magnet 3 cm off its axis on the rotor, a bead (declared moment) on the stator."""
    ball = magnet(Sphere(R_BALL), (1.0, 0.0, 0.0), at=(0.03, 0.0, 0.0), mount="motor.rotor")
    rig = motor_rig({"m": ball}, {})
    rig.samples = {"bead": Sample((0.0, 0.01, 0.02), mount="motor.stator", moment=a_m2(1e-3, reason="VSM"))}
    assert rig.validate() == []
    return rig.build()


def test_the_force_at_poses_given_as_exact_fractions_is_the_force_at_those_poses_as_numbers():
    """A pose written with exact rationals (the rotor turned by the 3-4-5 angle: cos 3/5, sin 4/5) is a pose
    like any other: the force and field on the bead are those of the same pose given in floats."""
    built = _turned_rig()
    turn = [
        [Fraction(3, 5), Fraction(-4, 5), 0, 0],
        [Fraction(4, 5), Fraction(3, 5), 0, 0],
        [0, 0, 1, 0],
        [0, 0, 0, 1],
    ]
    exact = {"motor.rotor": turn, "motor.part:m": turn}
    assert set(exact) < set(built.frame_names) and "motor.stator" in built.frame_names

    def rational(segment, frame):
        return exact.get(f"{segment}.{frame}", [[Fraction(int(i == j)) for j in range(4)] for i in range(4)])

    def floats(segment, frame):
        return np.array(rational(segment, frame), dtype=float)

    got, want = forces_now(built, rational), forces_now(built, floats)
    assert np.abs(want.force).max() > 0  # the bead feels the ball
    np.testing.assert_array_equal(got.force, want.force)
    np.testing.assert_array_equal(got.torque, want.torque)
    np.testing.assert_array_equal(got.B, want.B)


def test_a_surface_point_whose_bound_equals_the_limit_is_cleared_by_its_bound():
    """A ball magnet standing in the world at the origin, a flat box zone above it: the zone's nearest
    point (its face's centre, not a grid point) has a bound above the limit, so the step is sampled; the
    limit is set to the largest bound ``μ0/4π · 2|m|/(r − a)³`` over the face's grid points, so every point
    is cleared by its bound (|B| ≤ bound ≤ limit) and the worst |B| is that bound, exactly, with no breach."""
    rig = motor_rig({"m": magnet(Sphere(R_BALL), (0.0, 0.0, 1.0))}, {})
    at, box = np.array([0.0, 0.0, 0.03]), (0.1, 0.1, 0.02)
    rig.zones = {"plate": Zone(tuple(at), box=box, reason="a sensor plate")}
    assert rig.validate() == []
    built = rig.build()
    (source,) = magnet_sources(built)
    moment = next(p["magnet"]["moment"] for p in built.report.data["parts"] if p["name"] == "m")
    radius = bounding_radius(source)
    # each grid point's bound, by hand, from its distance to the ball's centre (the zone has the world's axes)
    points = surface_points(rig.zones["plate"]) + at
    r = np.linalg.norm(source.world_X_magnet[:3, 3] - points, axis=-1)
    largest = float(np.max(MU0 / (4 * np.pi) * 2 * moment / (r - radius) ** 3))
    nearest = MU0 / (4 * np.pi) * 2 * moment / (0.02 - radius) ** 3  # the face's centre, 2 cm above the ball
    assert nearest > largest
    rig.zones["plate"] = Zone(tuple(at), box=box, limit=largest, reason="a sensor plate")
    built = rig.build()
    check = zone_findings(built, spin(built, 1.0, 3, 0.01))
    assert check.sampled.all()
    assert not check.breach.any() and check.findings == []
    assert (check.worst[:, 0] == largest).all()
