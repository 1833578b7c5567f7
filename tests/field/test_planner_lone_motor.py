"""The planner on a lone motor turning a ball magnet past a probe: what it refuses (a point on a frame the rig
lacks, no magnet, no motor turning one for a rotating target, a current pose of the wrong size), a joint
without limits ranking at full room, the field at the asked poses and over a turn against Magpylib called by
the test, near candidates merged, and a bound read again on the search without it."""

from __future__ import annotations

import math

import magpylib as magpy
import numpy as np
import pytest
from field_helpers import BR, magnet, motor_rig

from mime_gui.field.errors import FieldError
from mime_gui.field.planner import (
    TURN_SAMPLES,
    Candidate,
    check_candidate,
    describe_binding,
    plan,
    target_field,
    trajectory_to,
)
from mime_gui.rig import Probe, Sphere
from mime_gui.rig.targets import FieldTarget

R_BALL, ARM = 0.004, 0.02  # the ball's radius and its distance from the shaft, on the rotor along x
POINT = np.array([0.03, 0.01, 0.005])  # the probe, fixed in the world


def _rig(mount="motor.rotor"):
    rig = motor_rig({"m": magnet(Sphere(R_BALL), (1.0, 0.0, 0.0), at=(ARM, 0.0, 0.0), mount=mount)},
                    {"p": Probe(tuple(POINT))})
    assert rig.validate() == []
    return rig, rig.build()


def _by_hand(angle, point=POINT) -> np.ndarray:
    """B (T) at ``point`` with the shaft at ``angle``: Magpylib's ball placed by the test."""
    c, s = math.cos(angle), math.sin(angle)
    ball = magpy.magnet.Sphere(diameter=2 * R_BALL, polarization=(BR * c, BR * s, 0.0),
                               position=(ARM * c, ARM * s, 0.0))
    return np.asarray(ball.getB(point))


KNOWN = 0.7  # the shaft angle the fixed target is read at


def _fixed_target(**bounds) -> FieldTarget:
    B = _by_hand(KNOWN)
    size = float(np.linalg.norm(B))
    return FieldTarget("probes.p", direction=tuple(B), tolerance=math.radians(3.0), low=0.95 * size,
                       high=1.05 * size, **bounds)


def test_a_point_riding_on_a_frame_the_rig_lacks_is_refused_naming_it():
    rig, built = _rig()
    rig.probes["p"] = Probe(tuple(POINT), mount="motor.hub")  # changed since the build
    with pytest.raises(FieldError) as err:
        plan(built, _fixed_target())
    assert (err.value.code, err.value.file) == ("plan.target", "probes.p")
    assert err.value.message == "probes.p rides on 'motor.hub', which the rig lacks"


def test_a_rig_without_magnets_is_refused_with_the_advice_to_add_one():
    built = motor_rig({}, {"p": Probe(tuple(POINT))}).build()
    with pytest.raises(FieldError) as err:
        plan(built, _fixed_target())
    assert (err.value.code, err.value.file) == ("plan.magnets", "magnets")
    assert "add one" in err.value.message


def test_a_rotating_target_without_a_motor_turning_a_magnet_is_refused():
    """The magnet stands in the world: no shaft turns it."""
    rig, built = _rig(mount=None)
    with pytest.raises(FieldError) as err:
        plan(built, FieldTarget("probes.p", axis=(0.0, 0.0, 1.0), frequency=5.0))
    assert (err.value.code, err.value.file) == ("plan.spin", "magnets")
    assert err.value.message == ("a rotating target needs a motor turning a magnet (a magnet mounted on a "
                                 "motor segment's rotor); add one, or ask for a fixed direction")


@pytest.mark.parametrize("current", [[0.1, 0.2], [math.nan]], ids=["two positions", "not a number"])
def test_a_current_pose_that_is_not_one_finite_position_per_command_is_refused(current):
    rig, built = _rig()
    with pytest.raises(FieldError) as err:
        plan(built, _fixed_target(), current=current)
    assert (err.value.code, err.value.file) == ("plan.start", "current")
    assert err.value.message == "the current pose is 1 finite positions (motor.shaft)"


def test_the_field_at_the_asked_poses_is_magpylib_s_and_the_clearance_the_distance_over_the_radius():
    """Without the Jacobian and without a bound: B alone, each pose by the test's own Magpylib call."""
    rig, built = _rig()
    angles = np.array([0.0, 0.7, 2.0, -1.3])
    seen = target_field(built, _fixed_target(), angles[:, None], jacobian=False)
    assert seen.dB is None and seen.G is None
    for k, angle in enumerate(angles):
        np.testing.assert_allclose(seen.B[k], _by_hand(angle), rtol=1e-12, atol=0)
        centre = ARM * np.array([math.cos(angle), math.sin(angle), 0.0])
        assert seen.clear[k, 0] == pytest.approx(np.linalg.norm(POINT - centre) / R_BALL, rel=1e-6)


def _two_motors():
    """The ball on a motor standing on a base motor's rotor 1 cm off its axis: the base's shaft is the joint
    the search moves, the motor's the one it spins."""
    from mime_gui.rig import Apparatus, Motor

    chain = {"base": Motor.Kinematic(), "motor": Motor.Kinematic(mount="rotor", at=(0.01, 0.0, 0.0))}
    rig = Apparatus("bench", chain=chain,
                    magnets={"m": magnet(Sphere(R_BALL), (1.0, 0.0, 0.0), at=(ARM, 0.0, 0.0),
                                         mount="motor.rotor")},
                    probes={"p": Probe(tuple(POINT))})
    assert rig.validate() == []
    return rig.build()


def _two_by_hand(base, shaft) -> np.ndarray:
    turn = base + shaft
    centre = 0.01 * np.array([math.cos(base), math.sin(base), 0.0]) + ARM * np.array([math.cos(turn),
                                                                                      math.sin(turn), 0.0])
    ball = magpy.magnet.Sphere(diameter=2 * R_BALL, polarization=(BR * math.cos(turn), BR * math.sin(turn),
                                                                  0.0), position=centre)
    return np.asarray(ball.getB(POINT))


def test_a_turn_read_without_the_jacobian_is_the_one_read_with_it_and_magpylib_s():
    from mime_gui.field.planner import _Residuals, _Space, rotation_of

    built = _two_motors()
    assert built.command_names == ("base.shaft", "motor.shaft")
    x = np.array([0.4, 0.3])
    turn = np.array([_two_by_hand(x[0], x[1] + 2 * math.pi * k / TURN_SAMPLES) for k in range(TURN_SAMPLES)])
    axis, ellipticity, b_min, b_max = rotation_of(turn)
    target = FieldTarget("probes.p", axis=tuple(axis), frequency=5.0, tolerance=math.radians(5.0),
                         low=0.9 * b_min, high=1.1 * b_max, ellipticity=max(ellipticity - 0.1, 0.0))
    res = _Residuals(_Space(built, target))
    [(r, plain, J)] = res.of(x[None])
    [(r_jac, composed, J_jac)] = res.of(x[None], jacobian=True)
    assert J is None and J_jac.shape == (len(r), 1)
    np.testing.assert_allclose(plain.B, turn, rtol=1e-12, atol=0)
    np.testing.assert_allclose(r, r_jac, rtol=1e-12, atol=1e-15)
    assert plain.meets and composed.meets and plain.sense == 1 and plain.angle < 1e-6
    assert plain.B_min == pytest.approx(b_min, rel=1e-12) and plain.B_max == pytest.approx(b_max, rel=1e-12)
    assert plain.ellipticity == pytest.approx(ellipticity, rel=1e-12)
    assert plain.margins == pytest.approx(composed.margins, rel=1e-12)


def test_a_joint_that_moves_neither_the_magnet_nor_the_probe_has_a_zero_column_in_a_turn_s_jacobian():
    """A second motor on the first one's stator, carrying nothing: turning it changes nothing the rotating
    target reads, so its column of the fit's Jacobian is zero (the differences of a zero change), not NaN."""
    from mime_gui.field.planner import _Residuals, _Space
    from mime_gui.rig import Apparatus, Motor

    chain = {"motor": Motor.Kinematic(), "idle": Motor.Kinematic(mount="stator", at=(0.3, 0.0, 0.0))}
    rig = Apparatus("bench", chain=chain, probes={"p": Probe(tuple(POINT))},
                    magnets={"m": magnet(Sphere(R_BALL), (1.0, 0.0, 0.0), at=(ARM, 0.0, 0.0),
                                         mount="motor.rotor")})
    assert rig.validate() == []
    built = rig.build()
    assert built.command_names == ("motor.shaft", "idle.shaft")
    axis, b_min, b_max = _turn_axis_by_hand()
    target = FieldTarget("probes.p", axis=tuple(axis), frequency=5.0, tolerance=math.radians(10.0),
                         low=0.9 * b_min, high=1.1 * b_max)
    [(r, _, J)] = _Residuals(_Space(built, target)).of(np.array([[0.0, 0.4]]), jacobian=True)
    assert J.shape == (len(r), 1)  # the idle shaft alone: the motor's spins
    assert np.array_equal(J, np.zeros_like(J))


def test_a_fixed_field_exactly_at_either_edge_of_its_window_meets_it_and_one_float_beyond_does_not():
    """The boundary of the window: |B| at the known pose (checked against Magpylib called by the test) as
    the window's low or high edge, then that edge moved one float past it."""
    from mime_gui.field.planner import _Residuals, _Space

    rig, built = _rig()
    B = _by_hand(KNOWN)

    def read(low, high) -> Candidate:
        target = FieldTarget("probes.p", direction=tuple(B), tolerance=math.radians(3.0), low=low, high=high)
        [(_, candidate, _)] = _Residuals(_Space(built, target)).of(np.array([[KNOWN]]))
        return candidate

    size = read(0.5 * np.linalg.norm(B), 2.0 * np.linalg.norm(B)).B_min
    assert size == pytest.approx(np.linalg.norm(B), rel=1e-12)
    assert read(size, 2.0 * size).meets and read(0.5 * size, size).meets
    assert not read(math.nextafter(size, math.inf), 2.0 * size).meets
    assert not read(0.5 * size, math.nextafter(size, 0.0)).meets


def test_a_motor_without_limits_is_planned_with_full_room_and_its_trajectory_checked_clean():
    """The shaft has no limits: every candidate's ``limits`` margin is 1; the best plays to the field asked
    (its angle's field by hand) and the check, on a rig of kinematic segments alone, finds nothing."""
    rig, built = _rig()
    target = _fixed_target()
    found = plan(built, target, current=[0.0], starts=3)
    assert found.candidates and found.binding is None
    B = _by_hand(KNOWN)
    for c in found.candidates:
        assert c.margins["limits"] == 1.0
        b = _by_hand(c.positions[0])
        assert math.acos(np.clip(b @ B / (np.linalg.norm(b) * np.linalg.norm(B)), -1, 1)) \
            <= math.radians(3.0) + 1e-9
    checked = check_candidate(built, found, trajectory_to(built, found, found.candidates[0]))
    assert checked.findings == [] and checked.confirms


def _candidate(x, margin, meets=True) -> Candidate:
    return Candidate(np.array(x, dtype=float), 0.0, 0.0, 0.0, math.nan, 1, meets, {"window": margin}, margin,
                     np.zeros(3))


def test_candidates_nearer_than_the_same_step_to_a_better_one_are_merged_into_it():
    """0.05 rad or m in every joint is one candidate: 0.04 away is dropped, 0.05 away kept, and one that
    does not meet is never offered."""
    from mime_gui.field.planner import _distinct

    best = _candidate([0.0, 1.0], 0.9)
    near = _candidate([0.04, 0.97], 0.8)
    apart = _candidate([0.05, 1.0], 0.5)
    missing = _candidate([2.0, 2.0], 0.95, meets=False)
    assert _distinct([apart, near, missing, best]) == [best, apart]


def test_a_bounded_target_whose_field_no_pose_gives_names_the_window():
    """Two tesla at the probe: the search without the bound meets nothing either, and its binding is kept."""
    rig, built = _rig()
    target = FieldTarget("probes.p", direction=tuple(_by_hand(KNOWN)), low=2.0, high=3.0, max_gradient=1.0)
    found = plan(built, target, current=[0.0], starts=2)
    assert found.candidates == [] and found.binding == "window"
    assert found.nearest is not None and found.nearest.B_max < 0.1
    assert describe_binding(found).endswith("where the window is 2000 to 3000 mT")


def test_the_search_without_its_bound_is_read_again_with_it_and_keeps_what_meets_it():
    """Called directly as the planner calls it when no start met a bounded target: a bound every candidate
    of the search without it keeps (a thousand times the gradient at the known pose) leaves them all,
    binding nothing, each with its gradient read."""
    from mime_gui.field.planner import _Residuals, _Space, _without_bounds

    rig, built = _rig()
    h = 1e-6
    G = np.stack([(_by_hand(KNOWN, POINT + h * e) - _by_hand(KNOWN, POINT - h * e)) / (2 * h)
                  for e in np.eye(3)], axis=1)
    bound = 1e3 * float(np.linalg.norm(G))
    res = _Residuals(_Space(built, _fixed_target(max_gradient=bound)))
    chosen, binding, nearest = _without_bounds(built, res, np.array([0.0]), 3, 0, None, None)
    assert chosen and binding is None and nearest is None
    loose = plan(built, _fixed_target(), current=[0.0], starts=3)
    np.testing.assert_allclose([c.positions for c in chosen], [c.positions for c in loose.candidates])
    for c in chosen:
        assert 0 < c.gradient <= bound and c.margins["gradient"] > 0.9


def _turn_axis_by_hand(point=POINT, samples=64) -> tuple[np.ndarray, float, float]:
    """The axis the field at ``point`` turns about while the shaft turns once (the mean of consecutive
    samples' cross products), and the least and largest |B| over the turn: Magpylib's ball, placed by hand."""
    turn = np.array([_by_hand(2 * math.pi * k / samples, point) for k in range(samples)])
    axis = np.cross(turn, np.roll(turn, -1, axis=0)).sum(axis=0)
    size = np.linalg.norm(turn, axis=1)
    return axis / np.linalg.norm(axis), float(size.min()), float(size.max())


def test_a_rotating_target_on_a_lone_motor_turns_its_shaft_and_nothing_else():
    """The shaft is the only joint, and it spins: no joint is left to search, the current pose is read."""
    rig, built = _rig()
    axis, b_min, b_max = _turn_axis_by_hand()
    target = FieldTarget("probes.p", axis=tuple(axis), frequency=5.0, tolerance=math.radians(10.0),
                         low=0.9 * b_min, high=1.1 * b_max)
    found = plan(built, target)  # eight starts asked: with no joint to search, the current pose alone
    assert found.spinner == ("motor", "shaft") and len(found.ends) == 1
    assert found.candidates, found.binding
    best = found.candidates[0]
    assert best.angle <= math.radians(10.0)
    assert 0.9 * b_min <= best.B_min and best.B_max <= 1.1 * b_max


def test_a_magnet_on_a_motor_s_stator_does_not_turn_so_a_rotating_target_is_refused():
    rig, built = _rig(mount="motor.stator")
    axis, _, _ = _turn_axis_by_hand()
    with pytest.raises(FieldError) as err:
        plan(built, FieldTarget("probes.p", axis=tuple(axis), frequency=5.0))
    assert (err.value.code, err.value.file) == ("plan.spin", "magnets")
    assert "a magnet mounted on a motor segment's rotor" in err.value.message


def test_a_turn_exactly_as_elliptic_as_its_bound_meets_it_and_one_float_rounder_bound_does_not():
    """The boundary of the ellipticity bound (minor over major axis of the turn): the turn at the probe read
    at shaft 0, checked against the two circular parts of Magpylib's turn (a Fourier sum by hand), asked for
    as the bound itself, then that bound moved one float up."""
    from mime_gui.field.planner import _Residuals, _Space

    rig, built = _rig()
    axis, b_min, b_max = _turn_axis_by_hand()

    def read(ellipticity) -> Candidate:
        target = FieldTarget("probes.p", axis=tuple(axis), frequency=5.0, tolerance=math.radians(10.0),
                             low=0.5 * b_min, high=2.0 * b_max, ellipticity=ellipticity)
        [(_, candidate, _)] = _Residuals(_Space(built, target)).of(np.array([[0.0]]))
        return candidate

    # by hand: the turn's varying part in its best plane (the covariance's two largest eigenvectors), split
    # into the circles turning forward and backward (one Fourier sum each); minor over major is their
    # difference over their sum
    turn = np.array([_by_hand(2 * math.pi * k / TURN_SAMPLES) for k in range(TURN_SAMPLES)])
    varying = turn - turn.mean(axis=0)
    _, vectors = np.linalg.eigh(varying.T @ varying)
    z = varying @ (vectors[:, 2] + 1j * vectors[:, 1])
    phase = 2j * np.pi * np.arange(TURN_SAMPLES) / TURN_SAMPLES
    forward, backward = abs(np.mean(z * np.exp(-phase))), abs(np.mean(z * np.exp(phase)))
    ellipticity = read(0.0).ellipticity
    assert ellipticity == pytest.approx(abs(forward - backward) / (forward + backward), rel=1e-9)
    assert 0.0 < ellipticity < 1.0
    assert read(ellipticity).meets
    assert not read(math.nextafter(ellipticity, math.inf)).meets


def test_the_trajectory_to_a_rotating_target_on_a_lone_motor_turns_it_there_then_spins_it():
    """The spinning motor is the rig's only segment: its approach is the one authored (a quintic over 1 s,
    within the motor's limits), then the spin at the target's frequency, 0.5 s ramps held 2 s."""
    from mime_gui.field.planner import rotation_of

    rig, built = _rig()
    turn = np.array([_by_hand(2 * math.pi * k / TURN_SAMPLES) for k in range(TURN_SAMPLES)])
    axis, ellipticity, b_min, b_max = rotation_of(turn)
    target = FieldTarget("probes.p", axis=tuple(axis), frequency=5.0, tolerance=math.radians(10.0),
                         low=0.9 * b_min, high=1.1 * b_max, ellipticity=max(ellipticity - 0.1, 0.0))
    found = plan(built, target, starts=1)
    candidate = found.candidates[0]
    trajectory = trajectory_to(built, found, candidate)
    assert list(trajectory.segments) == ["motor"]
    start, there, spin = trajectory.segments["motor"]
    assert (start.time, start.values) == (0.0, {"shaft": float(built.initial_commands()[0])})
    assert (there.time, there.interpolation) == (1.0, "quintic")
    assert there.values == {"shaft": float(candidate.positions[0])}
    assert spin.interpolation == "spin" and spin.time == pytest.approx(1.0 + 2 * 0.5 + 2.0, abs=1e-12)
    assert spin.spin.hertz == pytest.approx(candidate.sense * 5.0, abs=1e-12)
    assert (spin.spin.ramp, spin.spin.hold) == (0.5, 2.0)
