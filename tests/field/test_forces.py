"""The gradient and the force on a sample, checked against routes of their own: the closed-form gradient of a
sphere's (dipole) field, ∇·B = 0 and ∇×B = 0, the energy −m·B differenced at steps of the test's own through
Magpylib directly, Newton's third law between two magnets through Magpylib's getFT, and the dipole–dipole
closed forms far away."""

from __future__ import annotations

import math

import magpylib as magpy
import numpy as np
import pytest
from field_helpers import BR, magnet, motor_rig, spin
from scipy.spatial.transform import Rotation

from mime_gui.field.forces import (
    GRADIENT_BOUND,
    dipole_dipole,
    dipole_wrench,
    gradient_at,
    magnet_wrench,
)
from mime_gui.field.sources import magnet_sources
from mime_gui.rig import Box, Cylinder, Ring, Sphere
from mime_gui.rig.mass import MU0

SHAPES = {"box": Box((0.01, 0.02, 0.005)), "cylinder": Cylinder(0.005, 0.01), "sphere": Sphere(0.006),
          "ring": Ring(0.003, 0.008, 0.004)}
DIRECTION = np.array([0.3, 0.5, 0.8]) / np.linalg.norm([0.3, 0.5, 0.8])


def _fixed(rig, steps=1):
    built = rig.build()
    magnets = magnet_sources(built)
    poses = np.zeros((steps, len(built.frame_names), 4, 4))
    return magnets, np.stack([m.poses(poses) for m in magnets], axis=1)


def _around(n, near, far, seed=1):
    rng = np.random.default_rng(seed)
    d = rng.normal(size=(n, 3))
    return d / np.linalg.norm(d, axis=1, keepdims=True) * rng.uniform(near, far, size=(n, 1))


def _dipole_gradient(m, r):
    """∂B_i/∂x_j of a point dipole ``m`` at offset ``r``: differentiating μ0/4π (3 u (u·m) − m)/r³."""
    d = np.linalg.norm(r)
    u = r / d
    a = u @ m
    return MU0 / (4 * math.pi) * 3 / d**4 * (np.outer(m, u) + np.outer(u, m) + a * np.eye(3)
                                             - 5 * a * np.outer(u, u))


def test_the_gradient_of_a_spheres_field_is_the_dipoles_closed_form():
    centre = np.array([0.01, 0.02, 0.03])
    magnets, X = _fixed(motor_rig({"m": magnet(Sphere(0.005), tuple(DIRECTION), at=tuple(centre))}, {}))
    offsets = _around(50, 0.006, 0.2)
    B, G, h = gradient_at(magnets, X, (centre + offsets)[None])
    moment = BR * (4 / 3 * math.pi * 0.005**3) / MU0 * DIRECTION
    for g, r in zip(G[0], offsets, strict=True):
        expected = _dipole_gradient(moment, r)
        assert np.linalg.norm(g - expected) <= GRADIENT_BOUND * np.linalg.norm(expected)
    assert np.all(h > 0)


@pytest.mark.parametrize("shape", ["box", "cylinder", "ring"])
def test_the_gradient_is_traceless_and_symmetric_in_free_space(shape):
    """∇·B = 0 (trace) and ∇×B = 0 (antisymmetric part) outside the magnets, to the stated bound."""
    magnets, X = _fixed(motor_rig({"m": magnet(SHAPES[shape], tuple(DIRECTION))}, {}))
    _, G, _ = gradient_at(magnets, X, _around(200, 0.012, 0.1)[None])
    norm = np.linalg.norm(G, axis=(-2, -1))
    assert np.all(np.abs(np.trace(G, axis1=-2, axis2=-1)) <= GRADIENT_BOUND * norm)
    assert np.all(np.linalg.norm(G - np.swapaxes(G, -1, -2), axis=(-2, -1)) <= 2 * GRADIENT_BOUND * norm)


def test_the_index_convention_is_dB_i_by_dx_j():
    """Column j is the change of B along x_j: a one-sided difference of the test's own, at a coarse step."""
    magnets, X = _fixed(motor_rig({"m": magnet(SHAPES["box"], tuple(DIRECTION))}, {}))
    p = np.array([0.02, -0.015, 0.03])
    _, G, _ = gradient_at(magnets, X, p[None, None])
    source = magnets[0].source()
    for j in range(3):
        step = np.zeros(3)
        step[j] = 1e-6
        column = (magpy.getB(source, p + step) - magpy.getB(source, p)) / 1e-6
        assert np.allclose(G[0, 0, :, j], column, rtol=1e-3, atol=1e-3 * np.abs(G).max())


def test_batched_over_a_trajectory_equals_each_step_alone():
    rig = motor_rig({"a": magnet(SHAPES["cylinder"], (1.0, 0.0, 0.0), at=(0.0, 0.0, 0.02),
                                 mount="motor.rotor"),
                     "b": magnet(SHAPES["box"], (0.0, 1.0, 0.0), at=(0.05, 0.0, 0.0))}, {})
    built = rig.build()
    trajectory = spin(built, 1.0, 30, 0.01)
    magnets = magnet_sources(built)
    X = np.stack([m.poses(np.asarray(trajectory.frame_poses)) for m in magnets], axis=1)
    points = np.broadcast_to(_around(4, 0.03, 0.08), (30, 4, 3)).copy()
    B, G, _ = gradient_at(magnets, X, points)
    for t in (0, 13, 29):
        b, g, _ = gradient_at(magnets, X[t:t + 1], points[t:t + 1])
        assert np.allclose(B[t], b[0], rtol=1e-12, atol=0)
        assert np.allclose(G[t], g[0], rtol=1e-9, atol=1e-12 * np.abs(g).max())


@pytest.mark.parametrize("shape", ["box", "ring"])
def test_the_dipole_force_is_minus_the_gradient_of_the_energy(shape):
    """F = −∇U with U = −m·B differenced by the test itself (a five-point stencil, its own step, Magpylib's
    getB directly); τ = m × B is the derivative of U under a turn of m."""
    magnets, X = _fixed(motor_rig({"m": magnet(SHAPES[shape], tuple(DIRECTION))}, {}))
    source = magnets[0].source()
    m = np.array([2e-3, -1e-3, 4e-3])
    for p in _around(5, 0.015, 0.05, seed=3):
        B, G, _ = gradient_at(magnets, X, p[None, None])
        force, torque = dipole_wrench(B[0, 0], G[0, 0], m)
        h = 2e-5

        def U(q):
            return -m @ magpy.getB(source, q)

        minus_grad = np.array([-(-U(p + 2 * h * e) + 8 * U(p + h * e) - 8 * U(p - h * e) + U(p - 2 * h * e))
                               / (12 * h) for e in np.eye(3)])
        assert np.linalg.norm(force - minus_grad) <= 1e-5 * np.linalg.norm(minus_grad)
        # a small turn δθ of m changes U by −τ·δθ
        b = magpy.getB(source, p)
        dU = np.array([(-(Rotation.from_rotvec(1e-6 * e).apply(m)) @ b - U(p)) / 1e-6 for e in np.eye(3)])
        assert np.allclose(torque, -dU, rtol=1e-4, atol=1e-6 * np.linalg.norm(torque))


def _pair():
    a = magpy.magnet.Cuboid(dimension=(0.01, 0.008, 0.006), polarization=(0.3, -0.5, 1.0),
                            orientation=Rotation.from_rotvec([0.2, 0.3, 0.1]))
    b = magpy.magnet.Cylinder(dimension=(0.008, 0.01), polarization=(0.9, 0.2, -0.4),
                              position=(0.012, 0.004, 0.009))
    return a, b


def test_newtons_third_law_between_two_magnets():
    """F on b from a is minus F on a from b, and the torques about one point cancel: each side through
    getFT with the other as the source, 1,000 cells (the meshing's error, about 1e-3 at 64 cells, falls to
    2e-4 there)."""
    a, b = _pair()
    pivot = np.array([0.003, -0.002, 0.001])
    F_ab, T_ab = magnet_wrench([a], b, meshing=1000, pivot=pivot)
    F_ba, T_ba = magnet_wrench([b], a, meshing=1000, pivot=pivot)
    assert np.linalg.norm(F_ab + F_ba) <= 1e-3 * np.linalg.norm(F_ab)
    assert np.linalg.norm(T_ab + T_ba) <= 1e-3 * np.linalg.norm(T_ab)


def test_two_spheres_feel_the_dipole_force_at_any_distance():
    """A ball's field is its dipole's outside it, and a uniformly magnetised ball in a harmonic field feels
    its dipole's force: the closed form holds near contact, through getFT and through the gradient."""
    rig = motor_rig({"a": magnet(Sphere(0.004), (0.0, 0.0, 1.0))}, {})
    magnets, X = _fixed(rig)
    r = np.array([0.006, 0.003, 0.004])  # centres 7.8 mm apart, radii 4 and 3 mm
    J2 = np.array([0.8, 0.0, 0.6])
    target = magpy.magnet.Sphere(diameter=0.006, polarization=J2, position=r)
    m1 = BR * 4 / 3 * math.pi * 0.004**3 / MU0 * np.array([0.0, 0.0, 1.0])
    m2 = J2 * 4 / 3 * math.pi * 0.003**3 / MU0
    F_closed, T_closed = dipole_dipole(m1, m2, r)
    F, T = magnet_wrench([magnets[0].source()], target)
    assert np.linalg.norm(F[0] - F_closed) <= 1e-6 * np.linalg.norm(F_closed)
    assert np.linalg.norm(T[0] - T_closed) <= 1e-9 * np.linalg.norm(T_closed)
    B, G, _ = gradient_at(magnets, X, r[None, None])
    F_grad, T_grad = dipole_wrench(B[0, 0], G[0, 0], m2)
    assert np.linalg.norm(F_grad - F_closed) <= GRADIENT_BOUND * np.linalg.norm(F_closed)
    assert np.linalg.norm(T_grad - T_closed) <= 1e-9 * np.linalg.norm(T_closed)


@pytest.mark.parametrize("sizes", [10, 20, 40])
def test_far_apart_two_magnets_feel_the_dipole_dipole_force_and_torque(sizes):
    """A 1 cm cube and a 1 cm cylinder ``sizes`` sizes apart: the relative error of the dipole–dipole closed
    forms is at most (size/distance)²/4 (the next multipole), 2.5e-3 at ten sizes."""
    size = 0.01
    u = np.array([1.0, 0.5, 0.3]) / np.linalg.norm([1.0, 0.5, 0.3])
    r = sizes * size * u
    a = magpy.magnet.Cuboid(dimension=(size,) * 3, polarization=(0.0, 0.0, BR))
    b = magpy.magnet.Cylinder(dimension=(size, size), polarization=(BR, 0.0, 0.0), position=r)
    F, T = magnet_wrench([a], b, meshing=216)
    m1 = np.array([0.0, 0.0, BR]) * size**3 / MU0
    m2 = np.array([BR, 0.0, 0.0]) * math.pi * (size / 2) ** 2 * size / MU0
    F_closed, T_closed = dipole_dipole(m1, m2, r)
    bound = 0.25 / sizes**2
    assert np.linalg.norm(F[0] - F_closed) <= bound * np.linalg.norm(F_closed)
    assert np.linalg.norm(T[0] - T_closed) <= bound * np.linalg.norm(T_closed)
    # and Newton's third law in the far field
    F_back, _ = magnet_wrench([b], a, meshing=216)
    assert np.linalg.norm(F[0] + F_back[0]) <= bound * np.linalg.norm(F_closed)


# -- edges: no magnet, no point, chunks, getFT's step --------------------------------------------------------

def test_without_magnets_the_field_and_gradient_are_zero_and_the_step_is_the_bare_ratio():
    """No magnet to measure a distance from: every step is STEP_RATIO (3e-4 m, the test's own figure)."""
    points = _around(6, 0.01, 0.05).reshape(2, 3, 3)
    B, G, h = gradient_at([], np.zeros((2, 0, 4, 4)), points)
    assert B.shape == (2, 3, 3) and G.shape == (2, 3, 3, 3) and h.shape == (2, 3)
    assert not B.any() and not G.any()
    assert np.all(h == 3e-4)


def test_no_points_give_empty_fields_of_the_right_shape():
    magnets, X = _fixed(motor_rig({"m": magnet(Sphere(0.005))}, {}), steps=3)
    B, G, h = gradient_at(magnets, X, np.zeros((3, 0, 3)))
    assert B.shape == (3, 0, 3) and G.shape == (3, 0, 3, 3) and h.shape == (3, 0)


def test_the_chunks_of_steps_and_points_by_hand():
    """Seven evaluations per point and magnet, CHUNK_TRIPLES (1e5) a call: 100 steps of 10 points of one
    magnet fit in one call; 10,000 points of two magnets (140,000 a step) are cut to 100,000 // 14 points."""
    from mime_gui.field.forces import _chunks

    assert _chunks(100, 1, 10) == (100, 10)
    assert _chunks(5000, 1, 10) == (1428, 10)
    assert _chunks(5, 2, 10_000) == (1, 7142)


def test_points_cut_into_chunks_give_the_dipoles_gradient_as_one_call_does(monkeypatch):
    """A call bounded to 35 evaluations (five points of one magnet) cuts 12 points into three chunks and the
    three steps into one each: the same B and G as one call, and the closed form of the ball's dipole."""
    import mime_gui.field.forces as forces

    centre = np.array([0.0, 0.01, -0.02])
    magnets, X = _fixed(motor_rig({"m": magnet(Sphere(0.005), tuple(DIRECTION), at=tuple(centre))}, {}),
                        steps=3)
    offsets = _around(36, 0.008, 0.1, seed=5).reshape(3, 12, 3)
    whole_B, whole_G, _ = gradient_at(magnets, X, centre + offsets)
    monkeypatch.setattr(forces, "CHUNK_TRIPLES", 35)
    assert forces._chunks(3, 1, 12) == (1, 5)
    B, G, _ = gradient_at(magnets, X, centre + offsets)
    np.testing.assert_allclose(B, whole_B, rtol=1e-12, atol=0)
    np.testing.assert_allclose(G, whole_G, rtol=1e-12, atol=0)
    moment = BR * (4 / 3 * math.pi * 0.005**3) / MU0 * DIRECTION
    for g, r in zip(G.reshape(-1, 3, 3), offsets.reshape(-1, 3), strict=True):
        expected = _dipole_gradient(moment, r)
        assert np.linalg.norm(g - expected) <= GRADIENT_BOUND * np.linalg.norm(expected)


def test_getft_takes_the_step_it_is_given_and_by_default_a_hundred_thousandth_of_the_target():
    """The same numbers as getFT called here with that step: 1e-5 of the cuboid's largest side (8 mm) by
    default, and a coarse 0.5 mm step when asked for (which changes the force)."""
    a, b = _pair()
    default_F, default_T = magnet_wrench([a], b, meshing=27)
    F, T = magpy.getFT([a], [b], pivot="centroid", eps=1e-5 * 0.01, meshing=27, squeeze=False)
    np.testing.assert_allclose(default_F, F.sum(axis=0)[:, 0], rtol=1e-12)
    np.testing.assert_allclose(default_T, T.sum(axis=0)[:, 0], rtol=1e-12)
    coarse_F, _ = magnet_wrench([a], b, meshing=27, eps=5e-4)
    F, _ = magpy.getFT([a], [b], pivot="centroid", eps=5e-4, meshing=27, squeeze=False)
    np.testing.assert_allclose(coarse_F, F.sum(axis=0)[:, 0], rtol=1e-12)
    assert np.linalg.norm(coarse_F - default_F) > 1e-6 * np.linalg.norm(default_F)


@pytest.mark.parametrize("target, extent", [
    (magpy.magnet.CylinderSegment(dimension=(0.002, 0.005, 0.003, 0.0, 90.0), polarization=(0, 0, 1)), 0.01),
    (magpy.magnet.CylinderSegment(dimension=(0.001, 0.002, 0.012, 30.0, 300.0), polarization=(0, 0, 1)),
     0.012),
    (magpy.magnet.Tetrahedron(vertices=[(0, 0.02, -0.01), (0.004, 0.02, -0.01), (0, 0.027, -0.01),
                                        (0, 0.02, -0.008)], polarization=(0, 0, 1)), 0.007),
    (magpy.magnet.Cuboid(dimension=(0.003, 0.009, 0.002), polarization=(0, 0, 1)), 0.009),
    (magpy.magnet.Sphere(diameter=0.006, polarization=(0, 0, 1)), 0.006),
    (magpy.misc.Dipole(moment=(0, 0, 1)), 1e-3),
], ids=["segment-wide", "segment-tall", "tetrahedron", "cuboid", "sphere", "dipole"])
def test_the_target_s_extent_for_getft_s_step_is_its_largest_length(target, extent):
    """A cylinder segment's angles are not lengths (its extent is its outer diameter or its height), a body
    of vertices its widest span along an axis (here 7 mm along y, away from the origin), a point dipole a
    millimetre."""
    from mime_gui.field.forces import _extent

    assert _extent(target) == pytest.approx(extent, rel=1e-12)


def test_the_gradient_s_memory_estimate_by_hand():
    """Ten steps of three points and two magnets, all in one Magpylib call (420 evaluations): per step and
    point its B (3 floats), gradient (9), step (1), itself and six neighbours (7 × 3) and its distance to
    each magnet (2); per step and magnet its pose (16 floats); the scratch of each evaluation of the call and
    the call's own overhead once."""
    from mime_gui.field.along import CALL_OVERHEAD, SCRATCH_PER_TRIPLE
    from mime_gui.field.forces import gradient_bytes

    floats = 10 * (3 * (3 + 9 + 1 + 7 * 3 + 2) + 2 * 16)
    assert floats == 1400
    assert gradient_bytes(10, 2, 3) == 8 * floats + SCRATCH_PER_TRIPLE * 10 * 7 * 2 * 3 + CALL_OVERHEAD
