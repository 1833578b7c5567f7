"""Contracts pinned for the twenty-fourth sample's field survivors: the dipole wrench is worked in double
precision whatever precision its inputs come in; the |B| plane's grid at a normal 0.9 along x is laid out as
for the normals nearer x; a planner start that meets its target barely is still improved until well inside
it; the residuals of several poses read each pose on its own; a sample that follows a field opposite to its
mount direction is turned half a turn (getFT route, many steps); an empty record's summary has a NaN
ellipticity and a describable line."""

from __future__ import annotations

import math

import numpy as np
import pytest
from field_helpers import magnet, motor_rig, spin
from test_planner import KNOWN, MOTOR, field_by_hand, magnet_centre

from mime_gui import RESOURCES
from mime_gui.field import dipole_wrench, field_plane, rest_poses
from mime_gui.field.planner import plan
from mime_gui.field.samples import forces_along
from mime_gui.field.summary import rotating_summary
from mime_gui.rig import Cylinder, Probe, Sample, load
from mime_gui.rig.targets import FieldTarget


def test_the_dipole_wrench_of_single_precision_inputs_is_worked_in_double_precision():
    """B, G and m handed over in float32 (as VTK keeps them): F = Gᵀm and τ = m × B of those very values,
    exactly as doubles, not rounded to single precision on the way."""
    G = np.array([[0.1, 0.2, 0.3], [0.2, -0.5, 0.7], [0.3, 0.7, 0.4]], dtype=np.float32)
    m = np.array([0.011, 0.013, 0.017], dtype=np.float32)
    B = np.array([0.01, 0.02, 0.03], dtype=np.float32)
    force, torque = dipole_wrench(B, G, m)
    Gd, md, Bd = G.astype(np.float64), m.astype(np.float64), B.astype(np.float64)
    by_hand = np.array([sum(Gd[i, j] * md[i] for i in range(3)) for j in range(3)])
    assert force.dtype == np.float64 and torque.dtype == np.float64
    np.testing.assert_allclose(force, by_hand, rtol=1e-15, atol=0)
    np.testing.assert_allclose(torque, np.cross(md, Bd), rtol=1e-15, atol=0)


def test_the_plane_at_a_normal_nine_tenths_along_x_is_laid_out_as_for_the_normals_nearer_x():
    """The grid's axes come from the normal crossed with x̂, or with ŷ once the normal is within 0.9 of x
    (where n × x̂ grows small): the threshold itself belongs to the ŷ side, so a normal exactly 0.9 along x
    lays its grid out as one just beyond it does, first index along n × ŷ."""
    built = motor_rig({"m": magnet(Cylinder(0.005, 0.01))}, {}).build()
    poses, centre, size, n = rest_poses(built), np.array([0.01, -0.02, 0.03]), 0.04, 5
    normal = np.array([0.9, math.sqrt(0.19), 0.0])
    assert (normal / np.linalg.norm(normal))[0] == 0.9  # exactly on the threshold
    at = field_plane(built, poses, centre, normal=normal, size=size, n=n).points
    u = np.cross(normal, [0.0, 1.0, 0.0])
    u /= np.linalg.norm(u)  # +z here
    v = np.cross(normal, u)
    np.testing.assert_allclose(at[-1, 0] - at[0, 0], size * u, atol=1e-15)
    np.testing.assert_allclose(at[0, -1] - at[0, 0], size * v, atol=1e-15)
    beyond = field_plane(built, poses, centre, normal=(0.9 + 1e-9, math.sqrt(0.19), 0.0), size=size, n=n)
    np.testing.assert_allclose(at, beyond.points, atol=1e-10)


@pytest.fixture(scope="module")
def dish():
    rig = load(RESOURCES / "demo" / "demo.rig.json")
    point = magnet_centre(KNOWN, MOTOR) + np.array([0.02, -0.01, -0.02])
    rig.probes = {**rig.probes, "dish": Probe(tuple(point))}
    return rig.build(), point


def _tilted(B: np.ndarray, degrees: float) -> np.ndarray:
    """``B``'s direction turned by ``degrees`` about an axis square to it."""
    unit = B / np.linalg.norm(B)
    side = np.cross(unit, [0.0, 0.0, 1.0])
    side /= np.linalg.norm(side)
    a = math.radians(degrees)
    return math.cos(a) * unit + math.sin(a) * side


def test_a_start_that_barely_meets_its_target_is_improved_until_well_inside_it(dish):
    """The current pose sees the field 2.5° off the direction asked for, within the 3° tolerance: it meets
    the target, but barely; the descent goes on until the target's margins are half way in (it stops early
    only there), so the one start's end is nearer the direction than where it began."""
    built, point = dish
    B = field_by_hand(KNOWN, MOTOR, point)
    size = float(np.linalg.norm(B))
    target = FieldTarget("probes.dish", direction=tuple(_tilted(B, 2.5)), tolerance=math.radians(3.0),
                         low=0.8 * size, high=1.2 * size)
    current = np.append(KNOWN, MOTOR)
    found = plan(built, target, current=current, starts=1)
    (end,) = found.ends
    assert end.meets
    assert min(end.margins["direction"], end.margins["window"]) >= 0.5
    b = field_by_hand(end.positions[:6], end.positions[6], point)  # by Pinocchio and Magpylib
    assert math.degrees(math.acos(b @ np.asarray(target.direction) / np.linalg.norm(b))) <= 1.5 + 1e-6


def test_the_residuals_of_several_poses_read_each_pose_on_its_own(dish):
    """Several poses read at once (as the search rereads its candidates against a bound) give each pose what
    it gives alone: its own field, angle and margins, not the first pose's."""
    from mime_gui.field.planner import _Residuals, _Space

    built, point = dish
    B = field_by_hand(KNOWN, MOTOR, point)
    size = float(np.linalg.norm(B))
    target = FieldTarget("probes.dish", direction=tuple(B), tolerance=math.radians(5.0), low=0.9 * size,
                         high=1.1 * size, max_gradient=100.0)
    other = np.append(KNOWN + np.array([0.05, -0.04, 0.03, 0.0, 0.02, 0.0]), MOTOR + 0.3)
    X = np.array([np.append(KNOWN, MOTOR), other])
    res = _Residuals(_Space(built, target))
    together = res.of(X)
    for k, x in enumerate(X):
        [(r_alone, alone, _)] = res.of(x[None])
        r, c, _ = together[k]
        np.testing.assert_allclose(c.B, field_by_hand(x[:6], x[6], point), rtol=1e-9)
        np.testing.assert_allclose(r, r_alone, rtol=1e-12, atol=1e-15)
        assert c.angle == pytest.approx(alone.angle, abs=1e-12) and c.margins == pytest.approx(alone.margins)
        assert c.gradient == pytest.approx(alone.gradient, rel=1e-12)


def test_a_shaped_sample_following_a_field_opposite_its_mount_direction_is_turned_half_a_turn():
    """A 2 mm rod on the axis of a magnet magnetised up, its own magnetisation down, following the field:
    at every step (four of them, through getFT on its shape) it is turned to lie along B, so the magnet
    pulls it in (F_z < 0, as the dipole route says, within (a/s)²/4 and getFT's cells) and turns it no
    more (no torque)."""
    rig = motor_rig({"m": magnet(Cylinder(0.005, 0.01))}, {})
    rig.samples = {"rod": Sample((0.0, 0.0, 0.03), geometry=Cylinder(0.001, 0.002), material="NdFeB-N42",
                                 magnetisation=(0.0, 0.0, -1.0), orientation="follows")}
    assert rig.validate() == []
    built = rig.build()
    trajectory = spin(built, 1.0, 4, 0.01)
    shaped = forces_along(built, trajectory, method="magnet")
    dipole = forces_along(built, trajectory, method="dipole")
    assert shaped.routes == ("magnet",)
    F = shaped.force[:, 0]
    assert np.all(F[:, 2] < 0)  # pulled toward the magnet below it
    bound = (0.002 / (0.03 - np.hypot(0.005, 0.005))) ** 2 / 4 + 2e-3
    assert np.all(np.linalg.norm(F - dipole.force[:, 0], axis=-1) <= bound * np.linalg.norm(F, axis=-1))
    assert np.all(np.linalg.norm(shaped.torque[:, 0], axis=-1) <= 1e-6 * np.linalg.norm(F, axis=-1) * 0.03)


def test_an_empty_record_s_summary_has_nan_ellipticity_and_a_summary_line():
    """No steps: nothing is known, every figure NaN, and the line still reads (ellipticity 'none')."""
    (summary,) = rotating_summary(np.zeros(0), np.zeros((0, 1, 3)))
    assert math.isnan(summary.ellipticity) and math.isnan(summary.frequency)
    assert math.isnan(summary.B_min) and math.isnan(summary.B_max)
    assert summary.describe() == "nan Hz about none, |B| nan to nan T, ellipticity none"
