"""Field contracts, pinned:

* ``field_lines`` starts its lines on a ring around the magnet's north pole whatever way the magnet points,
  a magnet magnetised along the diagonal of x and y included: the seeds lie 0.6 sizes out along north, 0.3
  sizes from that axis, evenly spaced and right-handed about it, and every line is finite;
* ``plane_side`` sizes the plane on the magnet nearest the centre, whatever the order of the rig's magnets;
* the planner's check of a gradient bound reads the field's gradient at the target where it rides: a probe
  on the rotor that turns the magnet sees the same gradient all along the approach (Magpylib by hand);
* ``rotating_summary`` gives the exact frequency and ellipticity of a narrow ellipse swept over little more
  than one turn, where the spectrum's mirror peak leaks into the peak the FFT finds.
"""

from __future__ import annotations

import math

import magpylib as magpy
import numpy as np
import pytest
from field_helpers import BR, magnet, motor_rig

from mime_gui.field import rest_poses
from mime_gui.field.lines import field_lines
from mime_gui.field.plane import plane_side
from mime_gui.field.planner import check_candidate, plan, trajectory_to
from mime_gui.field.summary import rotating_summary
from mime_gui.rig import Cylinder, Probe, Sphere
from mime_gui.rig.targets import FieldTarget

SIZE = 0.01  # m: the largest extent of a Cylinder(0.005, 0.01) and of a Sphere(0.005)


def test_the_seeds_of_a_magnet_magnetised_along_the_xy_diagonal_ring_its_north_pole():
    north = np.array([1.0, 1.0, 0.0]) / math.sqrt(2.0)
    # a ball: Magpylib's field of a sphere is closed form, quick on any point
    built = motor_rig({"m": magnet(Sphere(0.005), direction=tuple(north))}, {}).build()
    lines = field_lines(built, rest_poses(built), "m", seeds=8, steps=10)
    assert len(lines) == 8
    assert all(np.all(np.isfinite(line)) for line in lines)
    seeds = np.array([line[0] for line in lines])  # the magnet stands at the world's origin
    along = seeds @ north
    np.testing.assert_allclose(along, 0.6 * SIZE, rtol=1e-12)
    spokes = seeds - along[:, None] * north  # from the north axis to each seed
    np.testing.assert_allclose(np.linalg.norm(spokes, axis=1), 0.3 * SIZE, rtol=1e-12)
    # evenly spaced and in order, right-handed about north: an eighth of a turn from each to the next
    turn = np.arctan2(
        np.cross(spokes, np.roll(spokes, -1, axis=0)) @ north,
        np.einsum("ij,ij->i", spokes, np.roll(spokes, -1, axis=0)),
    )
    np.testing.assert_allclose(turn, 2 * math.pi / 8, rtol=1e-12)
    # and each line steps 12 % of the size along B
    for line in lines:
        np.testing.assert_allclose(np.linalg.norm(np.diff(line, axis=0), axis=1), 0.12 * SIZE, rtol=1e-9)


@pytest.mark.parametrize("order", [("far", "near"), ("near", "far")])
def test_the_plane_is_sized_on_the_magnet_nearest_its_centre_whatever_their_order(order):
    placed = {"far": (0.2, 0.0, 0.0), "near": (0.0, 0.05, 0.0)}
    built = motor_rig({name: magnet(Cylinder(0.005, 0.01), at=placed[name]) for name in order}, {}).build()
    # twice the reach to the near magnet's far side: 2 (5 cm + 5 mm); the far one would give 41 cm
    assert plane_side(built, rest_poses(built), (0.0, 0.0, 0.0)) == pytest.approx(0.11, rel=1e-12)


R_BALL, ARM = 0.004, 0.02  # a ball on the rotor, 2 cm along its x, magnetised along that x
RIDING = np.array([0.03, 0.01, 0.005])  # the probe, in the rotor's frame


def _ball_B(points) -> np.ndarray:
    """B (T) of the ball in the rotor's frame: Magpylib's ball placed by the test."""
    ball = magpy.magnet.Sphere(diameter=2 * R_BALL, polarization=(BR, 0.0, 0.0), position=(ARM, 0.0, 0.0))
    return np.asarray(ball.getB(points))


def test_a_gradient_bound_on_a_probe_riding_the_rotor_reads_its_gradient_where_it_rides():
    """The probe turns with the magnet: the gradient it sees does not change as the shaft turns, so its
    Frobenius norm along the whole approach is the one in the rotor's frame (a rotation keeps it)."""
    h = 1e-6
    G = np.stack([(_ball_B(RIDING + h * e) - _ball_B(RIDING - h * e)) / (2 * h) for e in np.eye(3)], axis=1)
    g = float(np.linalg.norm(G))
    angle = 0.7  # the shaft angle the field is asked for at (the world's B is the rotor's turned by it)
    c, s = math.cos(angle), math.sin(angle)
    B = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]) @ _ball_B(RIDING)
    size = float(np.linalg.norm(B))
    rig = motor_rig(
        {"m": magnet(Sphere(R_BALL), (1.0, 0.0, 0.0), at=(ARM, 0.0, 0.0), mount="motor.rotor")},
        {"p": Probe(tuple(RIDING), mount="motor.rotor")},
    )
    built = rig.build()
    target = FieldTarget(
        "probes.p",
        direction=tuple(B),
        tolerance=math.radians(3.0),
        low=0.95 * size,
        high=1.05 * size,
        max_gradient=1.01 * g,
    )
    found = plan(built, target, current=[0.0], starts=2)
    assert found.candidates and found.binding is None
    best = found.candidates[0]
    assert best.gradient == pytest.approx(g, rel=1e-5)
    checked = check_candidate(built, found, trajectory_to(built, found, best))
    assert checked.findings == [] and checked.confirms
    assert checked.gradient == pytest.approx(g, rel=1e-5)


@pytest.mark.parametrize("ellipticity", [0.02, 0.1, 0.3])
def test_a_narrow_ellipse_over_little_more_than_a_turn_has_its_exact_frequency_and_ellipticity(ellipticity):
    """1.75 Hz sampled every 10 ms for 64 steps (1.1 turns), the ellipse's major axis along x: the refined
    frequency and the fitted ellipse are exact, not biased by the mirror peak at -1.75 Hz."""
    dt, f = 0.01, 1.75
    time = dt * np.arange(64)
    phase = 2 * math.pi * f * time + 1.0
    B = np.stack(
        [0.01 * np.cos(phase), 0.01 * ellipticity * np.sin(phase), np.full_like(phase, 0.002)], axis=1
    )
    (summary,) = rotating_summary(time, B[:, None, :])
    assert summary.frequency == pytest.approx(f, rel=1e-7)
    assert summary.ellipticity == pytest.approx(ellipticity, abs=1e-7)
    np.testing.assert_allclose(summary.axis, [0.0, 0.0, 1.0], atol=1e-9)  # turning positively about z
    np.testing.assert_allclose(summary.mean, [0.0, 0.0, 0.002], atol=1e-9)
