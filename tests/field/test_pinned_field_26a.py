"""Field contracts, pinned: the field at the arm's joints along a played trajectory whose frame poses are
written as exact numbers (Decimals, as a record written in decimal keeps them, or Fractions) is the field at
those poses read as floats, to the last bit, with the same steps over the tolerance and the same findings;
the planner's trajectory from a given current pose takes real positions only: a pose in complex numbers is
refused, never cut to its real part."""

from __future__ import annotations

import dataclasses
import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from field_helpers import magnet, spin

from mime_gui import RESOURCES
from mime_gui.field import joint_field
from mime_gui.field.planner import Candidate, Plan, trajectory_to
from mime_gui.rig import Apparatus, Arc, Motor, Probe, load, tesla
from mime_gui.rig.targets import FieldTarget

ARC = Arc(0.004, 0.009, 0.006, 30.0, 100.0)
TOLERANCE = 1.9e-3  # T: the encoder's joint sees about 2.2 mT at first, falling below this as the arc turns


def _arc_rig():
    """A motor turning an arc magnet (its frame off its centroid) 2 cm up its axis, and a second motor on
    its stator whose joint takes at most ``TOLERANCE``."""
    at = np.array([0.0, 0.0, 0.02]) + ARC.mass_properties().centroid
    arc = magnet(ARC, (1.0, 0.0, 0.0), at=tuple(at), mount="motor.rotor")
    limit = tesla(TOLERANCE, reason="its Hall encoder's datasheet")
    chain = {"motor": Motor.Kinematic(),
             "encoder": Motor.Kinematic(mount="stator", at=(0.03, 0.01, 0.02), field_tolerance=limit)}
    rig = Apparatus("bench", chain=chain, magnets={"m": arc})
    assert rig.validate() == []
    return rig.build()


def _exact(kind):
    """Each float as the exact number of that kind (Decimal(x) and Fraction(x) keep every bit of x)."""
    return np.vectorize(lambda v: kind(float(v)), otypes=[object])


@pytest.mark.parametrize("kind", [Decimal, Fraction], ids=["decimal", "fraction"])
def test_the_joint_field_at_poses_written_as_exact_numbers_is_the_field_at_those_poses(kind):
    built = _arc_rig()
    played = spin(built, 1.7, 50, 0.01)
    as_floats = joint_field(built, played)
    assert as_floats.over.any() and not as_floats.over.all()  # the tolerance is crossed along the spin
    exact = _exact(kind)
    segments = {name: dataclasses.replace(t, frame_poses=exact(t.frame_poses))
                for name, t in played.segments.items()}
    written = dataclasses.replace(played, segments=segments)
    got = joint_field(built, written)
    # the same poses, so the same field (the poses are read as numbers before any arithmetic on them)
    np.testing.assert_array_equal(got.B, as_floats.B)
    np.testing.assert_array_equal(got.over, as_floats.over)
    assert [(f.code, f.where, f.message) for f in got.findings] == \
        [(f.code, f.where, f.message) for f in as_floats.findings]


def test_the_planner_s_trajectory_refuses_a_current_pose_in_complex_numbers():
    """``trajectory_to(current=...)`` starts from the pose given; a pose is real positions, so one given as
    complex numbers is refused (TypeError) rather than quietly taken at its real part. The same pose given
    as real numbers starts the approach there."""
    rig = load(RESOURCES / "demo" / "demo.rig.json")
    rig.probes = {"dish": Probe((0.4, 0.0, 0.2))}
    built = rig.build()
    target = FieldTarget("probes.dish", direction=(0.0, 0.0, 1.0))
    here = Candidate(built.initial_commands() + 0.1, 0.0, 0.0, 0.0, math.nan, 1, True, {}, 1.0,
                     np.zeros((16, 3)))
    found = Plan(target, [here], [here], None, None, built.command_names, 0)
    current = built.initial_commands() + 0.05
    trajectory = trajectory_to(built, found, here, current=list(current))
    first = {f"{seg}.{j}": v for seg, keys in trajectory.segments.items() for j, v in keys[0].values.items()}
    assert first == dict(zip(built.command_names, current.tolist(), strict=True))
    with pytest.raises(TypeError, match="complex"):
        trajectory_to(built, found, here, current=[complex(v, 0.0) for v in current])
    # a pose that is no positions of these joints is refused naming them, not started from NaN
    names = ", ".join(built.command_names)
    for bad in ([math.nan] * len(current), [None] * len(current), list(current)[:-1]):
        with pytest.raises(ValueError) as info:
            trajectory_to(built, found, here, current=bad)
        assert str(info.value).startswith(f"current must be {len(current)} finite positions ({names}), got ")
