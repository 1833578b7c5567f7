"""Field contracts, pinned: the field checks run the joints' check when every segment declares a tolerance
(not only when some other segment does not); a segment asked for by name that declares no tolerance has its
joints' |B| computed and is never over; a planned trajectory's demand excess is named at its segment
(``chain.<segment>``); a step without any field has no direction and never counts as turning; and three
steps are enough for a rotating summary (a steady field's frequency is 0, not NaN)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from field_helpers import magnet, spin

from mime_gui import RESOURCES
from mime_gui.field import joint_field
from mime_gui.field.checks import field_findings
from mime_gui.field.step_out import turning
from mime_gui.field.summary import rotating_summary
from mime_gui.rig import Apparatus, Motor, Sphere, load, tesla

STEPS, DT = 100, 0.01
ENCODER = (0.06, 0.0, 0.0)


def _two_motors(motor_tolerance=None, encoder_tolerance=1e-9):
    """A motor turning a 4 mm ball magnet 3 cm off its axis and a second motor on its stator 6 cm away;
    each declares the field tolerance given (None: none)."""
    def limit(value):
        return None if value is None else tesla(value, reason="its Hall encoder's datasheet")

    ball = magnet(Sphere(0.004), (1.0, 0.0, 0.0), at=(0.03, 0.0, 0.0), mount="motor.rotor")
    chain = {"motor": Motor.Kinematic(field_tolerance=limit(motor_tolerance)),
             "encoder": Motor.Kinematic(mount="stator", at=ENCODER, field_tolerance=limit(encoder_tolerance))}
    rig = Apparatus("bench", chain=chain, magnets={"m": ball})
    assert rig.validate() == []
    return rig.build()


def test_the_field_checks_name_a_joint_over_its_tolerance_when_every_segment_declares_one():
    """Both segments declare a tolerance: the encoder's (a nanotesla, which the ball passes at every step)
    is named, the motor's (10 T, which a ball of 1.3 T remanence cannot reach) is not."""
    built = _two_motors(motor_tolerance=10.0, encoder_tolerance=1e-9)
    found = field_findings(built, spin(built, 1.0, STEPS, DT))
    assert [(f.code, f.where) for f in found] == [("field.joint", "chain.encoder")]
    assert f"at {STEPS} of {STEPS} steps" in found[0].message, found[0].message
    assert "Hall encoder's datasheet" in found[0].message


def test_a_segment_asked_for_without_a_tolerance_is_computed_and_never_over():
    """``joint_field(segments=...)`` may name a segment that declares no tolerance: its joints' |B| is
    computed against an infinite tolerance (no finding), beside the declaring segment's."""
    built = _two_motors(motor_tolerance=None, encoder_tolerance=1e-9)
    result = joint_field(built, spin(built, 1.0, 5, DT), segments=["motor", "encoder"])
    assert result.joint_names == ("motor.shaft", "encoder.shaft")
    assert result.tolerance[0] == math.inf and result.tolerance[1] == 1e-9
    assert (result.B > 0).all() and not result.over[:, 0].any() and result.over[:, 1].all()
    assert [(f.code, f.where) for f in result.findings] == [("field.joint", "chain.encoder")]


def test_a_planned_trajectory_s_demand_excess_is_named_at_its_segment():
    """The planner's checks add each effort or velocity excess of a dynamic segment as a finding at
    ``chain.<segment>`` (what the Validation panel and ``plan`` point at), its message the excess's own
    text after the joint's name. A step of 0.05 rad of the demo arm's joint 2 in one 10 ms step passes its
    2 rad/s velocity limit (5 rad/s)."""
    from mime_gui.field.planner import _played_findings

    built = load(RESOURCES / "demo" / "demo.rig.json").build()
    commands = np.tile(built.initial_commands(), (STEPS, 1))
    commands[37:, built.command_names.index("arm.joint_2")] += 0.05
    played = built.play(commands, DT, servo_time_constant=0.0)
    excesses = built.torques(played).excesses
    assert ("torque.velocity", "arm.joint_2") in [(e.code, e.joint) for e in excesses]
    found = [f for f in _played_findings(built, played) if f.code.startswith("torque.")]
    expected = [(e.code, "chain.arm", str(e).split(f"{e.joint}: ", 1)[1]) for e in excesses]
    assert [(f.code, f.where, f.message) for f in found] == expected
    assert all(e.joint.startswith("arm.") for e in excesses)


def test_a_step_without_field_has_no_direction_and_never_turns():
    """A field of 1 mT along z that is off (exactly zero) at some steps (the first, the last, the middle,
    every other one, all): it is never turning there nor beside them (a zero field has no direction to turn
    from). Many lengths of record, since the bug this pins (a direction left unset where the field is zero)
    reads whatever memory held."""
    for T in range(2, 300):
        for S in (1, 2):
            for off in ([0], [T - 1], [T // 2], slice(None, None, 2), slice(None)):
                B = np.zeros((T, S, 3))
                B[..., 2] = 1e-3
                B[off] = 0.0
                moving = turning(B)
                assert moving.shape == (T, S) and not moving.any(), (T, S, off, np.flatnonzero(moving))


def test_three_steps_are_enough_for_a_rotating_summary():
    """Fewer than 3 steps: frequency NaN (RotatingField's docstring). Three steps of a steady field: frequency
    0 and no axis; three steps of a field turning in the xy plane: the axis is the plane's normal, z."""
    time = np.array([0.0, 0.01, 0.02])
    steady = np.tile([1e-3, 0.0, 2e-3], (3, 1))[:, None, :]
    [three] = rotating_summary(time, steady)
    assert three.frequency == 0.0 and np.isnan(three.axis).all()
    assert three.B_min == three.B_max == pytest.approx(math.sqrt(5) * 1e-3, rel=1e-15)
    [two] = rotating_summary(time[:2], steady[:2])
    assert math.isnan(two.frequency)
    angles = np.radians([0.0, 30.0, 60.0])
    turning_field = 1e-3 * np.stack([np.cos(angles), np.sin(angles), np.zeros(3)], axis=-1)[:, None, :]
    [turned] = rotating_summary(time, turning_field)
    assert math.isfinite(turned.frequency)
    assert abs(turned.axis[2]) == pytest.approx(1.0, abs=1e-12)
