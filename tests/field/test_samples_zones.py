"""Samples and keep-out zones on a played trajectory: the force and torque on a sample against the closed
forms of two dipoles, |B| differenced through Magpylib directly, and Magpylib's getFT; a sample that follows
the field feels no torque; a zone the magnet passes through is named at the steps it is there, one it stays
away from never."""

from __future__ import annotations

import math

import magpylib as magpy
import numpy as np
import pytest
from field_helpers import BR, magnet, motor_rig, spin

from mime_gui.field.forces import GRADIENT_BOUND, dipole_dipole
from mime_gui.field.samples import forces_along, forces_now
from mime_gui.field.zones import surface_points, zone_findings
from mime_gui.rig import Box, Cylinder, Sample, Sphere, Zone, a_m2, material
from mime_gui.rig.mass import MU0

R_BALL = 0.004
M_BALL = BR * 4 / 3 * math.pi * R_BALL**3 / MU0  # the rotor's ball magnet's moment, A m2


def _rig(samples=None, zones=None):
    """A motor standing in the world with a ball magnet 3 cm off its axis on the rotor, magnetised along x."""
    ball = magnet(Sphere(R_BALL), (1.0, 0.0, 0.0), at=(0.03, 0.0, 0.0), mount="motor.rotor")
    rig = motor_rig({"m": ball}, {})
    rig.samples = dict(samples or {})
    rig.zones = dict(zones or {})
    assert rig.validate() == []
    return rig.build()


def _ball_at(angle):
    """The ball's centre and moment when the rotor has turned by ``angle``."""
    c, s = math.cos(angle), math.sin(angle)
    return np.array([0.03 * c, 0.03 * s, 0.0]), M_BALL * np.array([c, s, 0.0])


def test_a_fixed_moment_feels_the_dipole_dipole_force_and_torque_at_every_step():
    m = np.array([0.0, 0.3, 1.0]) / np.linalg.norm([0.0, 0.3, 1.0])
    built = _rig({"bead": Sample((0.0, 0.0, 0.02), mount="motor.stator", moment=a_m2(2e-3, reason="VSM"),
                                 magnetisation=tuple(m))})
    trajectory = spin(built, 2.0, 25, 0.01)
    result = forces_along(built, trajectory)
    assert result.routes == ("dipole",)
    angles = 2 * math.pi * 2.0 * 0.01 * np.arange(1, 26)
    for t, angle in enumerate(angles):
        centre, m1 = _ball_at(angle)
        F, tau = dipole_dipole(m1, 2e-3 * m, np.array([0.0, 0.0, 0.02]) - centre)
        assert np.linalg.norm(result.force[t, 0] - F) <= GRADIENT_BOUND * np.linalg.norm(F)
        assert np.linalg.norm(result.torque[t, 0] - tau) <= 1e-9 * np.linalg.norm(tau)
    assert np.allclose(result.moment[:, 0], 2e-3 * m)


def test_a_sample_that_follows_the_field_feels_no_torque_and_is_pulled_up_the_gradient_of_B():
    """F = |m| ∇|B|: |B| differenced by the test itself through Magpylib's getB."""
    built = _rig({"free": Sample((0.01, 0.005, 0.015), mount="motor.stator", moment=a_m2(1e-3, reason="VSM"),
                                 orientation="follows")})
    result = forces_along(built, spin(built, 1.0, 5, 0.02))
    assert np.all(np.linalg.norm(result.torque, axis=-1) <= 1e-12 * np.linalg.norm(result.force, axis=-1))
    p = np.array([0.01, 0.005, 0.015])
    for t in range(5):
        centre, m1 = _ball_at(2 * math.pi * 0.02 * (t + 1))
        ball = magpy.magnet.Sphere(diameter=2 * R_BALL, polarization=tuple(m1 * MU0 / (4 / 3 * math.pi
                                                                                      * R_BALL**3)),
                                   position=centre)
        h = 1e-6
        size = [np.linalg.norm(magpy.getB(ball, p + h * e)) - np.linalg.norm(magpy.getB(ball, p - h * e))
                for e in np.eye(3)]
        grad = np.array(size) / (2 * h)
        assert np.linalg.norm(result.force[t, 0] - 1e-3 * grad) <= 1e-5 * np.linalg.norm(1e-3 * grad)
        B = magpy.getB(ball, p)
        assert np.allclose(result.moment[t, 0], 1e-3 * B / np.linalg.norm(B), rtol=1e-9)


@pytest.mark.parametrize("route", ["dipole", "magnet"])
def test_a_ball_sample_feels_its_dipoles_force_by_either_route(route):
    """A ball of N42 on the stator: getFT (exact for a ball) and the gradient give the closed form."""
    built = _rig({"ball": Sample((-0.01, 0.0, 0.012), mount="motor.stator", geometry=Sphere(0.001),
                                 material="NdFeB-N42", magnetisation=(0.0, 0.0, 1.0))})
    remanence = material("NdFeB-N42").remanence
    m2 = remanence * 4 / 3 * math.pi * 0.001**3 / MU0 * np.array([0.0, 0.0, 1.0])
    result = forces_along(built, spin(built, 1.0, 4, 0.05), method=route)
    assert result.routes == (route,)
    for t in range(4):
        centre, m1 = _ball_at(2 * math.pi * 0.05 * (t + 1))
        F, tau = dipole_dipole(m1, m2, np.array([-0.01, 0.0, 0.012]) - centre)
        assert np.linalg.norm(result.force[t, 0] - F) <= 1e-5 * np.linalg.norm(F)
        assert np.linalg.norm(result.torque[t, 0] - tau) <= 1e-5 * np.linalg.norm(tau)


def _following_ball(source_direction, at, magnetisation):
    """The forces by getFT on a 1 mm ball sample at ``at`` that follows the field of the ball magnet of radius
    R_BALL at the origin (magnetised along ``source_direction``), the motor at rest."""
    rig = motor_rig({"m": magnet(Sphere(R_BALL), source_direction)}, {})
    rig.samples = {"ball": Sample(at, mount="motor.stator", geometry=Sphere(0.001), material="NdFeB-N42",
                                  magnetisation=magnetisation, orientation="follows")}
    assert rig.validate() == []
    built = rig.build()
    result = forces_along(built, built.play(np.zeros((1, 1)), 0.01), method="magnet")
    assert result.routes == ("magnet",)
    return result


def test_a_shaped_sample_facing_against_the_field_is_turned_half_round_to_follow_it():
    """A ball sample magnetised along +y in its mount frame, beside a ball magnet magnetised along +y: on the
    magnet's equator B points along −y, so the sample that follows is turned half round; getFT on its
    shape then gives the closed form of two dipoles with the sample's moment along −y (attracted)."""
    result = _following_ball((0.0, 1.0, 0.0), (0.02, 0.0, 0.0), (0.0, 1.0, 0.0))
    m2 = material("NdFeB-N42").remanence * 4 / 3 * math.pi * 0.001**3 / MU0
    # two dipoles side by side, antiparallel and square to the line between them: F = −3μ0 m1 m2 / (4π d⁴)
    # along that line, toward the magnet
    F = np.array([-3 * MU0 * M_BALL * m2 / (4 * math.pi * 0.02**4), 0.0, 0.0])
    assert np.linalg.norm(result.force[0, 0] - F) <= 1e-5 * np.linalg.norm(F)
    assert np.linalg.norm(result.torque[0, 0]) <= 1e-5 * np.linalg.norm(F) * 0.02


def test_a_shaped_sample_across_the_field_is_turned_along_it_and_feels_the_two_dipoles_force():
    """A ball sample magnetised along +x in its mount frame, above and beside a ball magnet magnetised along
    +z: the field there is neither along nor against +x, so the sample that follows is turned through a
    general angle; getFT on its shape then gives the closed form of two dipoles, its moment along B, and no
    torque."""
    at = np.array([0.005, 0.0, 0.02])
    result = _following_ball((0.0, 0.0, 1.0), tuple(at), (1.0, 0.0, 0.0))
    m1 = M_BALL * np.array([0.0, 0.0, 1.0])
    # the magnet's dipole field at the sample, by hand: B = μ0/(4π) (3 u (m1·u) − m1) / d³
    d = np.linalg.norm(at)
    u = at / d
    B = MU0 / (4 * math.pi) * (3 * u * (m1 @ u) - m1) / d**3
    assert abs(B[0] / np.linalg.norm(B)) < 0.9  # a turn of neither nothing nor half round
    m2 = material("NdFeB-N42").remanence * 4 / 3 * math.pi * 0.001**3 / MU0 * B / np.linalg.norm(B)
    F, _ = dipole_dipole(m1, m2, at)
    assert np.linalg.norm(result.force[0, 0] - F) <= 1e-5 * np.linalg.norm(F)
    assert np.linalg.norm(result.torque[0, 0]) <= 1e-5 * np.linalg.norm(F) * d


def test_a_shaped_sample_through_getft_is_the_reference_for_the_dipole_route():
    """A 2 mm cylinder 1 cm from the ball: the dipole route against getFT on its shape, within (a/s)²/4 and
    getFT's own error at 125 cells (its cells hold a cylinder's moment to about 1e-3)."""
    built = _rig({"rod": Sample((0.0, 0.0, 0.015), mount="motor.stator", geometry=Cylinder(0.001, 0.002),
                                material="NdFeB-N42", magnetisation=(1.0, 0.0, 0.0))})
    trajectory = spin(built, 1.0, 6, 0.03)
    shaped = forces_along(built, trajectory, method="magnet")
    dipole = forces_along(built, trajectory, method="dipole")
    assert shaped.routes == ("magnet",) and dipole.routes == ("dipole",)
    a, s = 0.002, np.linalg.norm([0.03, 0.0, 0.015]) - R_BALL
    bound = (a / s) ** 2 / 4 + 2e-3
    assert np.all(np.linalg.norm(shaped.force - dipole.force, axis=-1)
                  <= bound * np.linalg.norm(shaped.force, axis=-1))
    assert np.all(np.linalg.norm(shaped.torque - dipole.torque, axis=-1)
                  <= bound * np.linalg.norm(shaped.torque, axis=-1))


def test_forces_now_is_the_step_of_the_trajectory_at_those_poses():
    built = _rig({"bead": Sample((0.0, 0.01, 0.02), mount="motor.stator", moment=a_m2(1e-3, reason="VSM"))})
    trajectory = spin(built, 1.0, 10, 0.02)
    along = forces_along(built, trajectory)
    poses = dict(zip(built.frame_names, np.asarray(trajectory.frame_poses)[6], strict=True))
    now = forces_now(built, lambda segment, frame: poses[f"{segment}.{frame}"])
    assert np.allclose(now.force[0], along.force[6], rtol=1e-12, atol=0)
    assert np.allclose(now.torque[0], along.torque[6], rtol=1e-12, atol=0)


def test_newtons_third_law_between_the_magnet_and_a_shaped_sample():
    """The force on the sample (forces_along, getFT on its shape) is minus the force on the rotor's magnet
    from the sample (getFT on the ball with the sample as the source)."""
    built = _rig({"cube": Sample((0.0, 0.0, 0.012), mount="motor.stator", geometry=Box((0.003, 0.003, 0.003)),
                                 remanence=None, material="NdFeB-N42", magnetisation=(0.0, 1.0, 0.0))})
    result = forces_along(built, spin(built, 1.0, 1, 0.1), method="magnet")
    centre, m1 = _ball_at(2 * math.pi * 0.1)
    J = m1 * MU0 / (4 / 3 * math.pi * R_BALL**3)
    ball = magpy.magnet.Sphere(diameter=2 * R_BALL, polarization=tuple(J), position=centre)
    remanence = material("NdFeB-N42").remanence
    cube = magpy.magnet.Cuboid(dimension=(0.003,) * 3, polarization=(0.0, remanence, 0.0),
                               position=(0, 0, 0.012))
    F_back, _ = magpy.getFT(cube, ball, squeeze=True)
    assert np.linalg.norm(result.force[0, 0] + F_back) <= 2e-3 * np.linalg.norm(F_back)


def test_an_unknown_method_is_refused_naming_the_three_there_are():
    from mime_gui.field.errors import FieldError

    built = _rig({"bead": Sample((0.0, 0.0, 0.02), mount="motor.stator", moment=a_m2(1e-3, reason="VSM"))})
    with pytest.raises(FieldError) as err:
        forces_along(built, spin(built, 1.0, 2, 0.01), method="exact")
    assert (err.value.code, err.value.file) == ("field.method", "method")
    assert err.value.message == "'exact' is not one of auto, dipole, magnet"


def test_a_sample_changed_since_the_build_to_break_its_rules_is_refused_at_its_place():
    from mime_gui.field.errors import FieldError

    built = _rig({"bead": Sample((0.0, 0.0, 0.02), mount="motor.stator", moment=a_m2(1e-3, reason="VSM"))})
    built.apparatus.samples["bead"] = Sample((0.0, 0.0, 0.02), mount="motor.stator",
                                             moment=a_m2(1e-3, reason="VSM"), magnetisation=(0.0, 0.0, 0.0))
    with pytest.raises(FieldError) as err:
        forces_along(built, spin(built, 1.0, 2, 0.01))
    assert (err.value.code, err.value.file) == ("field.sample", "samples.bead.magnetisation")
    assert "give a non-zero vector in the mount frame" in err.value.message


def _still(distance):
    """A ball magnet fixed at the origin; a 2 mm cylinder (its largest extent 2 mm), a 2 mm ball and a
    declared moment, each ``distance`` from the magnet's centre along x, y and z."""
    rig = motor_rig({"m": magnet(Sphere(R_BALL), (0.0, 0.0, 1.0))}, {})
    rig.samples = {"rod": Sample((distance, 0.0, 0.0), geometry=Cylinder(0.001, 0.002), material="NdFeB-N42"),
                   "ball": Sample((0.0, distance, 0.0), geometry=Sphere(0.001), material="NdFeB-N42"),
                   "bead": Sample((0.0, 0.0, distance), moment=a_m2(1e-3, reason="VSM"))}
    assert rig.validate() == []
    built = rig.build()
    return built, built.play(np.zeros((3, 1)), 0.01)


@pytest.mark.parametrize("distance, rod", [(0.0245, "dipole"), (0.0235, "magnet")],
                         ids=["beyond ten sizes", "within ten sizes"])
def test_auto_takes_the_dipole_for_a_shape_ten_sizes_from_the_magnet_and_getft_nearer(distance, rod):
    """The rod's 2 mm against a tenth of its distance to the magnet's 4 mm sphere (2 cm at 2.4 cm from its
    centre); a ball and a declared moment take the dipole however near; the route taken gives that route's
    numbers."""
    built, played = _still(distance)
    auto = forces_along(built, played)
    assert auto.routes == (rod, "dipole", "dipole")
    forced = forces_along(built, played, method=rod)
    np.testing.assert_allclose(auto.force[:, 0], forced.force[:, 0], rtol=1e-12, atol=0)
    np.testing.assert_allclose(auto.torque[:, 0], forced.torque[:, 0], rtol=1e-12, atol=0)


def test_without_magnets_a_sample_feels_nothing_and_keeps_its_mount_frame_s_direction():
    rig = motor_rig({}, {})
    rig.samples = {"rod": Sample((0.01, 0.0, 0.0), mount="motor.rotor", geometry=Cylinder(0.001, 0.002),
                                 material="NdFeB-N42", magnetisation=(1.0, 0.0, 0.0), orientation="follows")}
    assert rig.validate() == []
    built = rig.build()
    result = forces_along(built, spin(built, 1.0, 4, 0.25))  # a quarter turn a step
    assert result.routes == ("dipole",)
    assert not result.B.any() and not result.force.any() and not result.torque.any()
    size = material("NdFeB-N42").remanence * math.pi * 0.001**2 * 0.002 / MU0
    turned = np.array([[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [1.0, 0.0, 0.0]])
    np.testing.assert_allclose(result.moment[:, 0], size * turned, rtol=1e-9, atol=1e-12 * size)


# -- zones ---------------------------------------------------------------------------------------------------

def test_a_zone_the_magnet_passes_through_is_named_at_the_steps_it_is_there():
    """The ball circles at 3 cm; a 1 cm ball zone on its circle at 90° with a 20 mT limit is entered about
    the quarter turn; the worst |B| is the ball's dipole field on the zone's surface points, computed here."""
    zone = Zone((0.0, 0.03, 0.0), sphere=0.01, limit=0.02, reason="a Hall sensor")
    built = _rig(zones={"sensor": zone, "bench": Zone((0.0, 0.0, 0.5), box=(0.3, 0.3, 0.3), reason="people")})
    dt, steps = 0.001, 1000  # one turn in one second
    check = zone_findings(built, spin(built, 1.0, steps, dt))
    assert [f.where for f in check.findings] == ["zones.sensor"]
    assert check.findings[0].code == "field.zone"
    angles = 2 * math.pi * dt * np.arange(1, steps + 1)
    # by the test's own field: the largest |B| of the ball's dipole on the zone's surface at each step
    surface = np.array([0.0, 0.03, 0.0]) + surface_points(zone)
    worst = []
    for angle in angles:
        centre, m1 = _ball_at(angle)
        r = surface - centre
        d = np.linalg.norm(r, axis=1, keepdims=True)
        B = MU0 / (4 * math.pi) * (3 * r / d * ((r / d) @ m1)[:, None] - m1) / d**3
        outside = d[:, 0] > R_BALL
        worst.append(np.max(np.linalg.norm(B[outside], axis=1)) if outside.all() else np.inf)
    expected = np.array(worst) > zone.limit
    assert np.array_equal(check.breach[:, 0], expected)
    first = np.flatnonzero(expected)[0]
    assert f"from t = {check.time[first]:g} s" in check.findings[0].message
    last = np.flatnonzero(expected)[-1]
    assert check.time[first] < 0.25 < check.time[last]  # about the quarter turn, as the ball passes
    assert abs(0.5 * (check.time[first] + check.time[last]) - 0.25) < 0.005  # the lattice is not symmetric
    assert 0 < expected.sum() < steps // 2
    # the largest |B| is computed where the ball holds no surface point (and its centre is not in the zone)
    measured = check.breach[:, 0] & np.isfinite(check.worst[:, 0]) & np.isfinite(np.array(worst))
    assert measured.any()
    assert np.allclose(check.worst[measured, 0], np.array(worst)[measured], rtol=1e-9)
    assert np.all(check.worst[~check.breach[:, 0], 0] <= zone.limit)
    assert not check.breach[:, 1].any()


def test_a_zone_the_magnet_stays_away_from_gives_nothing_and_needs_no_field():
    built = _rig(zones={"far": Zone((0.0, 0.0, 0.3), box=(0.2, 0.2, 0.1), reason="the operator's hands")})
    check = zone_findings(built, spin(built, 1.0, 200, 0.005))
    assert check.findings == [] and not check.breach.any()
    assert not check.sampled.any()  # the bound alone clears it
    assert np.all(check.worst <= 5e-4)


def test_a_zone_the_bound_clears_holds_the_bound_of_the_ball_s_moment_at_its_nearest_face():
    """The box's nearest face is 25 cm from the ball's centre at every angle of its 3 cm circle (the circle
    lies within the box's x and y), so each step holds the bound ``μ0/4π · 2|m|/(r − a)³`` with r = 25 cm
    and a the ball's radius, by hand."""
    built = _rig(zones={"far": Zone((0.0, 0.0, 0.3), box=(0.2, 0.2, 0.1), reason="the operator's hands")})
    check = zone_findings(built, spin(built, 1.0, 20, 0.005))
    bound = MU0 / (4 * math.pi) * 2 * M_BALL / (0.25 - R_BALL) ** 3
    assert not check.sampled.any()
    np.testing.assert_allclose(check.worst[:, 0], bound, rtol=1e-9, atol=0)


def test_a_zone_on_a_frame_rides_with_it():
    """A zone on the rotor right beside the magnet is breached at every step; on the stator, once a turn."""
    built = _rig(zones={"riding": Zone((0.03, 0.012, 0.0), sphere=0.004, mount="motor.rotor",
                                       reason="a coil"),
                        "still": Zone((0.0, -0.03, 0.0), sphere=0.004, reason="a coil")})
    check = zone_findings(built, spin(built, 1.0, 100, 0.01))
    assert check.breach[:, 0].all()
    assert 0 < check.breach[:, 1].sum() < 100
    hit = check.time[check.breach[:, 1]]
    assert 0.6 < hit.mean() < 0.9  # three quarters of a turn


def test_a_rig_without_magnets_breaches_no_zone():
    """Even a zone whose limit any field would exceed (a nanotesla) stays clear with no magnet in the rig."""
    rig = motor_rig({}, {})
    rig.zones = {"coil": Zone((0.0, 0.0, 0.02), sphere=0.01, limit=1e-9, reason="a coil")}
    assert rig.validate() == []
    built = rig.build()
    check = zone_findings(built, spin(built, 1.0, 5, 0.01))
    assert check.zone_names == ("coil",) and check.worst.shape == (5, 1)
    assert (check.worst == 0).all() and not check.breach.any() and check.findings == []


def _box_grid(box):
    """The test's own grid on a box's surface: the 6 × 6 × 6 lattice over the box, its outer layer only."""
    u = np.linspace(-1.0, 1.0, 6)
    lattice = np.array([(a, b, c) for a in u for b in u for c in u])
    return lattice[np.abs(lattice).max(axis=1) == 1.0] * 0.5 * np.asarray(box)


def test_a_box_zone_is_sampled_on_a_six_by_six_grid_of_each_face_edges_and_corners_once():
    box = (0.02, 0.01, 0.015)
    points = surface_points(Zone((0.0, 0.0, 0.0), box=box, reason="a coil"))
    assert len(points) == 6**3 - 4**3  # 152: each edge and corner once
    expected = _box_grid(box)
    np.testing.assert_allclose(points[np.lexsort(points.T)], expected[np.lexsort(expected.T)], rtol=0,
                               atol=1e-15)


def test_a_box_zone_the_magnet_passes_is_named_with_the_worst_dipole_field_on_its_faces():
    """A flat box 1 to 2 cm beyond the ball's circle near the quarter turn (3 mm off it, so one step is the
    worst), with a 20 mT limit: the breach and the worst |B| at each step are the ball's dipole field on the
    test's own grid of the box's faces."""
    box, centre = (0.02, 0.01, 0.015), np.array([0.003, 0.045, 0.0])
    zone = Zone(tuple(centre), box=box, limit=0.02, reason="a Hall sensor")
    built = _rig(zones={"sensor": zone})
    dt, steps = 0.005, 200
    check = zone_findings(built, spin(built, 1.0, steps, dt))
    surface = centre + _box_grid(box)
    largest = []
    for angle in 2 * math.pi * dt * np.arange(1, steps + 1):
        ball, m1 = _ball_at(angle)
        r = surface - ball
        d = np.linalg.norm(r, axis=1, keepdims=True)
        B = MU0 / (4 * math.pi) * (3 * r / d * ((r / d) @ m1)[:, None] - m1) / d**3
        largest.append(np.linalg.norm(B, axis=1).max())
    largest = np.array(largest)
    over = largest > zone.limit
    assert 0 < over.sum() < steps // 4
    assert np.array_equal(check.breach[:, 0], over)
    np.testing.assert_allclose(check.worst[over, 0], largest[over], rtol=1e-9)
    assert np.all(check.worst[~over, 0] <= zone.limit)
    [finding] = check.findings
    hit = np.flatnonzero(over)
    worst = hit[np.argmax(largest[hit])]
    assert (finding.code, finding.where) == ("field.zone", "zones.sensor")
    for words in (f"at {len(hit)} of {steps} steps", f"from t = {dt * (hit[0] + 1):g} s to "
                  f"{dt * (hit[-1] + 1):g} s",
                  f"worst {largest[worst] * 1e3:.4g} mT at t = {dt * (worst + 1):g} s",
                  "limit 20 mT", "(a Hall sensor)", "keep the magnets farther away or move the zone"):
        assert words in finding.message, (words, finding.message)
    assert "inside" not in finding.message


def test_the_forces_memory_estimate_by_hand():
    """Ten steps of three samples and two magnets: the gradient's at the samples, and per step and sample its
    position (3 floats), axes (9), moment (3), force (3) and torque (3), per step and magnet its pose (16)."""
    from mime_gui.field.forces import gradient_bytes
    from mime_gui.field.samples import forces_bytes

    floats = 10 * 3 * (3 + 9 + 3 + 3 + 3) + 10 * 2 * 16
    assert floats == 950
    assert forces_bytes(10, 2, 3) == gradient_bytes(10, 2, 3) + 8 * floats
