"""The field as physics: far from a magnet it is the point dipole of the magnet's moment; a diametric magnet
on a turning rotor gives a field rotating about the rotor axis at the motor's rate; a probe riding with the
magnet sees a field that does not change; the batched path equals one Magpylib call per step."""

from __future__ import annotations

import math

import numpy as np
import pytest
from field_helpers import BR, demo, dipole, magnet, motor_rig, probe, spin

from mime_gui.field import field_along, rotating_summary
from mime_gui.field.sources import magnet_sources
from mime_gui.rig import Box, Cylinder, Ring, Sphere
from mime_gui.rig.mass import MU0

SHAPES = {"box": Box((0.01, 0.02, 0.005)), "cylinder": Cylinder(0.005, 0.01), "sphere": Sphere(0.006),
          "ring": Ring(0.003, 0.008, 0.004)}


def _directions(n=6):
    rng = np.random.default_rng(7)
    v = rng.normal(size=(n, 3))
    return v / np.linalg.norm(v, axis=1, keepdims=True)


@pytest.mark.parametrize("shape", SHAPES)
def test_far_from_a_magnet_the_field_is_the_point_dipole_of_its_moment(shape):
    direction = np.array([1.0, -2.0, 0.5]) / np.linalg.norm([1.0, -2.0, 0.5])
    centre = np.array([0.1, -0.05, 0.2])
    distance = 0.02 * 50  # fifty times the largest size
    probes = {f"p{i}": probe(tuple(centre + distance * d)) for i, d in enumerate(_directions())}
    rig = motor_rig({"m": magnet(SHAPES[shape], tuple(direction), at=tuple(centre))}, probes)
    built = rig.build()
    field = field_along(built, built.play(np.zeros((2, 1)), 0.01))
    volume = built.report.data["parts"][0]["volume"]
    moment = BR * volume / MU0 * direction
    expected = dipole(moment, np.array([p.at for p in probes.values()]) - centre)
    error = np.linalg.norm(field.B[0] - expected, axis=1) / np.linalg.norm(expected, axis=1)
    assert np.all(error < 0.01), error
    assert np.allclose(field.B[0], field.B[1])


def test_a_magnet_on_a_turning_frame_is_turned_with_it():
    """Far field of a magnet magnetised along x on the rotor: the dipole turned by the rotor's angle."""
    rig = motor_rig({"m": magnet(Cylinder(0.004, 0.01), (1.0, 0.0, 0.0), at=(0.0, 0.0, 0.02),
                                 mount="motor.rotor")},
                    {"p": probe((0.6, 0.3, 0.4))})
    built = rig.build()
    angles = np.linspace(0.3, 2.0, 5)
    field = field_along(built, built.play({"motor.shaft": angles}, 0.01))
    volume = math.pi * 0.004**2 * 0.01
    for angle, B in zip(angles, field.B[:, 0], strict=True):
        m = BR * volume / MU0 * np.array([math.cos(angle), math.sin(angle), 0.0])
        expected = dipole(m, np.array([0.6, 0.3, 0.4 - 0.02]))
        assert np.linalg.norm(B - expected) < 0.01 * np.linalg.norm(expected)


@pytest.mark.parametrize("rate", [2.5, -4.0], ids=["forward", "backward"])
def test_a_diametric_magnet_on_the_rotor_makes_a_field_rotating_about_the_rotor_axis_at_the_motor_rate(rate):
    rig = demo(magnets={"m1": magnet(Cylinder(0.005, 0.01), (1.0, 0.0, 0.0), at=(0.0, 0.0, 0.025),
                                     mount="motor.rotor")},
               probes={"axis": probe((0.0, 0.0, 0.05), mount="motor.stator")})
    built = rig.build()
    trajectory = spin(built, rate, steps=400, dt=0.005)
    field = field_along(built, trajectory)
    (summary,) = rotating_summary(field.time, field.B)
    stator = trajectory.frame_poses[-1, built.frame_names.index("motor.stator")]
    rotor_axis = stator[:3, :3] @ np.array([0.0, 0.0, 1.0])
    assert summary.frequency == pytest.approx(abs(rate), rel=2e-3)
    assert summary.axis @ rotor_axis == pytest.approx(math.copysign(1.0, rate), abs=1e-6)
    assert summary.ellipticity == pytest.approx(1.0, abs=1e-4)
    assert summary.B_min == pytest.approx(summary.B_max, rel=1e-9) and summary.B_max > 1e-3
    assert np.allclose(field.B[0, 0] @ rotor_axis, 0.0, atol=1e-9 * summary.B_max)  # across the axis


def test_a_probe_riding_on_the_magnet_frame_sees_a_constant_field_while_the_arm_moves():
    from mime_gui.nodes import read_commands
    from mime_gui.rig.playback import RigPlayable

    rig = demo(probes={"rider": probe((0.012, 0.0, 0.03), mount="motor.rotor"),
                       "fixed": probe((0.3, 0.0, 0.25))})
    built = rig.build()
    playable = RigPlayable(built)
    schedule = playable.schedule(read_commands(rig.base / "chain.csv"), None)
    field = field_along(built, playable.play(schedule))
    local = field.in_probe_frames()[:, 0]
    assert np.ptp(field.B[:, 0], axis=0).max() > 1e-3  # in the world it turns with the arm and rotor
    assert np.allclose(local, local[0], rtol=0, atol=1e-9 * np.linalg.norm(local[0]))
    assert np.ptp(field.B[:, 1], axis=0).max() > 0  # the fixed probe sees the magnet move


def test_contributions_sum_to_the_field_and_each_is_that_magnet_alone():
    magnets = {"a": magnet(Box((0.01, 0.01, 0.01)), at=(0.0, 0.0, 0.03), mount="motor.rotor"),
               "b": magnet(Sphere(0.004), (0.0, 1.0, 0.0), at=(0.05, 0.0, 0.0))}
    probes = {"p": probe((0.02, 0.01, 0.06)), "q": probe((0.0, 0.0, 0.01), mount="motor.stator")}
    built = motor_rig(magnets, probes).build()
    trajectory = spin(built, 1.0, steps=7, dt=0.05)
    field = field_along(built, trajectory, contributions=True)
    assert field.contributions.shape == (7, 2, 2, 3) and field.magnet_names == ("a", "b")
    assert np.allclose(field.contributions.sum(axis=1), field.B)
    alone = motor_rig({"b": magnets["b"]}, probes).build()
    assert np.allclose(field_along(alone, alone.play(np.zeros((7, 1)), 0.05)).B, field.contributions[:, 1])


def test_the_batched_field_equals_one_magpylib_call_per_step():
    import magpylib as magpy
    from scipy.spatial.transform import Rotation

    rig = demo(probes={"s": probe((0.0, 0.01, 0.05), mount="motor.stator"), "w": probe((0.3, 0.05, 0.3))})
    built = rig.build()
    trajectory = spin(built, 3.0, steps=5, dt=0.03)
    field = field_along(built, trajectory)
    (m,) = magnet_sources(built)
    for step in range(5):
        pose = m.poses(trajectory.frame_poses)[step]
        source = m.source()
        source.position, source.orientation = pose[:3, 3], Rotation.from_matrix(pose[:3, :3])
        assert np.allclose(source.getB(field.probe_positions[step]), field.B[step], rtol=1e-12, atol=0)
    assert magpy.__version__


def test_on_the_axis_of_an_axial_ring_magnet_the_field_is_the_outer_cylinder_s_less_the_bore_s():
    """The closed form on the axis of an axially magnetised cylinder of radius a and length L, at z from its
    centre: Bz = Br/2 [(z + L/2)/√((z + L/2)² + a²) − (z − L/2)/√((z − L/2)² + a²)]; a ring is the outer
    cylinder less its bore's, in the bore and beyond the faces alike."""
    r, R, L = 0.003, 0.008, 0.004
    heights = (-0.03, -0.006, -0.001, 0.0, 0.0015, 0.0025, 0.01, 0.05)  # in the bore (|z| < 2 mm) and out
    probes = {f"p{i}": probe((0.0, 0.0, z)) for i, z in enumerate(heights)}
    built = motor_rig({"m": magnet(Ring(r, R, L))}, probes).build()
    field = field_along(built, built.play(np.zeros((1, 1)), 0.01))

    def cylinder(a, z):
        return BR / 2 * ((z + L / 2) / math.hypot(z + L / 2, a) - (z - L / 2) / math.hypot(z - L / 2, a))

    for i, z in enumerate(heights):
        expected = cylinder(R, z) - cylinder(r, z)
        np.testing.assert_allclose(field.B[0, i], [0.0, 0.0, expected], rtol=1e-9, atol=1e-12,
                                   err_msg=f"z = {z}")
    # in the bore the field turns back against the magnetisation
    assert field.B[0, heights.index(0.0), 2] < 0 < field.B[0, heights.index(0.01), 2]
