"""The arc magnet's field (a segment of a ring, Magpylib's ``CylinderSegment``): it is Magpylib's own
segment's, placed and turned as the rig says; axially magnetised, on the ring's axis its axial field is the
whole ring's times its share of the turn (exact by symmetry); four quarters make the ring."""

from __future__ import annotations

import math

import numpy as np
import pytest
from field_helpers import BR, magnet, motor_rig, probe

from mime_gui.field import field_along
from mime_gui.rig import Arc, Ring

magpy = pytest.importorskip("magpylib")

ARC = Arc(0.004, 0.009, 0.006, 30.0, 100.0)
POINTS = np.array([[0.0, 0.0, 0.0], [0.02, -0.01, 0.005], [-0.015, 0.02, -0.01], [0.004, 0.03, 0.02],
                   [0.0, 0.0, 0.012], [0.05, 0.05, 0.05]])


def _field(rig, angles=None):
    built = rig.build()
    commands = np.zeros((1, 1)) if angles is None else {"motor.shaft": np.asarray(angles, dtype=float)}
    return field_along(built, built.play(commands, 0.01)).B


def _segment(g, polarization, position):
    dimension = (g.inner_radius, g.outer_radius, g.length, g.start_angle, g.end_angle)
    return magpy.magnet.CylinderSegment(dimension=dimension, polarization=polarization, position=position)


@pytest.mark.parametrize("direction", [(0.0, 0.0, 1.0), (1.0, 0.0, 0.0), (0.3, -0.8, 0.5)])
def test_the_field_is_magpylib_s_own_cylinder_segment_s(direction):
    axis_centre = np.array([0.01, -0.02, 0.03])
    centroid = ARC.mass_properties().centroid
    probes = {f"p{i}": probe(tuple(axis_centre + p)) for i, p in enumerate(POINTS)}
    rig = motor_rig({"m": magnet(ARC, direction, at=tuple(axis_centre + centroid))}, probes)
    d = np.asarray(direction) / np.linalg.norm(direction)
    expected = _segment(ARC, BR * d, axis_centre).getB(axis_centre + POINTS)
    np.testing.assert_allclose(_field(rig)[0], expected, rtol=1e-10, atol=1e-15)


def test_on_a_turning_rotor_the_segment_turns_about_the_rotor_axis():
    centroid = ARC.mass_properties().centroid
    at = np.array([0.0, 0.0, 0.02]) + centroid  # the ring's axis on the rotor's, 20 mm up
    probes = {f"p{i}": probe(tuple(p)) for i, p in enumerate(POINTS)}
    rig = motor_rig({"m": magnet(ARC, (1.0, 0.0, 0.0), at=tuple(at), mount="motor.rotor")}, probes)
    angles = [0.4, 1.7, -2.5]
    B = _field(rig, angles)
    for step, angle in enumerate(angles):
        segment = _segment(ARC, (BR, 0.0, 0.0), (0.0, 0.0, 0.02))
        segment.rotate_from_angax(math.degrees(angle), "z", anchor=(0.0, 0.0, 0.0))
        np.testing.assert_allclose(B[step], segment.getB(POINTS), rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("angles", [(0.0, 90.0), (-40.0, 80.0), (10.0, 370.0), (200.0, 245.0)])
def test_axially_magnetised_on_the_axis_the_axial_field_is_the_ring_s_times_its_share(angles):
    r, R, h = 0.003, 0.008, 0.004
    arc = Arc(r, R, h, *angles)
    share = (angles[1] - angles[0]) / 360.0
    heights = (-0.02, -0.004, 0.0, 0.001, 0.0025, 0.015)  # in the bore and beyond the faces
    probes = {f"p{i}": probe((0.0, 0.0, z)) for i, z in enumerate(heights)}
    centroid = arc.mass_properties().centroid
    ring = _field(motor_rig({"m": magnet(Ring(r, R, h))}, probes))[0]
    segment = _field(motor_rig({"m": magnet(arc, at=tuple(centroid))}, probes))[0]
    np.testing.assert_allclose(segment[:, 2], share * ring[:, 2], rtol=1e-9, atol=1e-15)


def test_four_quarters_make_the_ring():
    r, R, h = 0.003, 0.008, 0.004
    quarters = {f"q{k}": magnet(Arc(r, R, h, 90.0 * k, 90.0 * (k + 1)),
                                at=tuple(Arc(r, R, h, 90.0 * k, 90.0 * (k + 1)).mass_properties().centroid),
                                direction=(0.6, 0.0, 0.8)) for k in range(4)}
    probes = {f"p{i}": probe(tuple(p)) for i, p in enumerate(POINTS[1:])}
    whole = _field(motor_rig({"m": magnet(Ring(r, R, h), direction=(0.6, 0.0, 0.8))}, probes))[0]
    np.testing.assert_allclose(_field(motor_rig(quarters, probes))[0], whole, rtol=1e-9, atol=1e-15)
