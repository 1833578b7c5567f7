"""The triangles of the box and the ring (what the 3D view draws and trimesh weighs): each is closed, holds
the closed-form volume of its solid, and has every face wound so that its normal points out of the
material."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mime_gui.rig.geometries import KINDS, Box, Ring, Sphere

trimesh = pytest.importorskip("trimesh")


def _faces(kind, geometry, **options):
    vertices, faces = KINDS[kind].mesh(geometry, None, **options)
    vertices, faces = np.asarray(vertices, dtype=float), np.asarray(faces)
    corners = vertices[faces]
    normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    return trimesh.Trimesh(vertices, faces, process=False), corners, normals


def test_a_box_s_triangles_close_its_volume_and_face_out_of_it():
    size = (0.02, 0.01, 0.04)
    mesh, corners, normals = _faces("box", Box(size))
    assert len(corners) == 12 and mesh.is_watertight
    assert mesh.volume == pytest.approx(0.02 * 0.01 * 0.04, rel=1e-12)
    # each face lies on one side of the box, and its normal points along that side's outward axis
    for triangle, normal in zip(corners, normals, strict=True):
        (axis,) = [i for i in range(3) if np.ptp(triangle[:, i]) == 0.0]
        outward = np.sign(triangle[0, axis])
        assert normal[axis] * outward > 0 and np.allclose(np.delete(normal, axis), 0.0)


def test_a_ring_s_triangles_close_its_polygon_s_volume_and_face_out_of_its_material():
    r, R, length, n = 0.003, 0.006, 0.004, 40
    mesh, corners, normals = _faces("ring", Ring(r, R, length), resolution=n)
    assert len(corners) == 8 * n and mesh.is_watertight
    # two regular n-gons of circumradius R and r: n/2·sin(2π/n)·(R² − r²) each cap, times the length
    assert mesh.volume == pytest.approx(n / 2 * math.sin(2 * math.pi / n) * (R * R - r * r) * length,
                                        rel=1e-12)
    radial = np.hypot(corners[..., 0], corners[..., 1])
    middle = corners.mean(axis=1)
    for triangle, rho, centre, normal in zip(corners, radial, middle, normals, strict=True):
        if np.ptp(triangle[:, 2]) == 0.0:  # a cap: out along its own side of z
            assert normal[2] * np.sign(triangle[0, 2]) > 0
        elif np.allclose(rho, R):  # the outer wall: away from the axis
            assert normal[:2] @ centre[:2] > 0
        else:  # the bore's wall: towards the axis
            assert np.allclose(rho, r) and normal[:2] @ centre[:2] < 0
    assert normals.any(axis=1).all()  # no triangle has collapsed to a line


def test_a_sphere_s_triangles_close_the_stack_of_frusta_between_its_latitude_rings():
    r, rings, sectors = 0.01, 24, 48
    mesh, corners, normals = _faces("sphere", Sphere(r), rings=rings, sectors=sectors)
    assert mesh.is_watertight
    np.testing.assert_allclose(np.linalg.norm(mesh.vertices, axis=1), r, rtol=1e-12)  # on the sphere
    # rings at the polar angles iπ/rings (the poles are rings of radius 0), each a regular polygon of
    # `sectors` corners at the same azimuths: between two rings a frustum, h/3·(A1 + A2 + √(A1·A2))
    theta = np.arange(rings + 1) * math.pi / rings
    rho, z = r * np.sin(theta), r * np.cos(theta)
    area = sectors / 2 * math.sin(2 * math.pi / sectors) * rho**2
    frusta = (z[:-1] - z[1:]) / 3 * (area[:-1] + area[1:] + np.sqrt(area[:-1] * area[1:]))
    assert mesh.volume == pytest.approx(frusta.sum(), rel=1e-12)
    assert frusta.sum() == pytest.approx(4 / 3 * math.pi * r**3, rel=0.01)  # and that is nearly the ball
    assert np.all(np.einsum("ij,ij->i", normals, corners.mean(axis=1)) > 0)  # every face points outward
