"""The solid cylinder: ``radius`` and ``length`` (m) about its z axis (as in URDF), centred on its
centroid."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mime_gui.multibody import tree as description
from mime_gui.multibody.magnitudes import MAX_LENGTH
from mime_gui.rig.geometries.registry import (
    SURFACE_TOLERANCE,
    Field,
    GeometryKind,
    KindTemplate,
    MassProperties,
    number,
    register,
    size_ok,
)


@dataclass(frozen=True)
class Cylinder:
    """A solid cylinder about its z axis, ``length`` (m) long, centred on its centroid."""

    radius: float
    length: float
    kind = "cylinder"

    def __post_init__(self):
        object.__setattr__(self, "radius", number(self.radius, "radius"))
        object.__setattr__(self, "length", number(self.length, "length"))

    def problems(self, base=None) -> list[str]:
        ok = size_ok(self.radius) and size_ok(self.length)
        return [] if ok else [f"a cylinder needs a finite, positive radius and length of at most "
                              f"{MAX_LENGTH:g} m, got radius={self.radius}, length={self.length}"]

    def half_extents(self) -> np.ndarray:
        return np.array([self.radius, self.radius, 0.5 * self.length])

    def mass_properties(self, base=None) -> MassProperties:
        r, h = self.radius, self.length
        v = np.pi * r * r * h
        side = v * (3 * r * r + h * h) / 12.0
        return MassProperties(v, np.zeros(3), np.diag([side, side, v * r * r / 2.0]))


def _mesh(g: Cylinder, base=None, resolution: int = 40):
    t = np.linspace(0.0, 2.0 * np.pi, resolution, endpoint=False)
    r, h = g.radius, g.length / 2.0
    rim = np.column_stack([r * np.cos(t), r * np.sin(t)])
    vertices = np.concatenate([np.column_stack([rim, np.full(resolution, z)]) for z in (-h, h)]
                              + [[[0.0, 0.0, -h], [0.0, 0.0, h]]])
    k = np.arange(resolution)
    n = (k + 1) % resolution
    bottom, top = 2 * resolution, 2 * resolution + 1
    faces = np.concatenate([
        np.column_stack([k, n, resolution + n]), np.column_stack([k, resolution + n, resolution + k]),
        np.column_stack([resolution + k, resolution + n, np.full(resolution, top)]),
        np.column_stack([n, k, np.full(resolution, bottom)])])
    return vertices, faces


def _inside(g: Cylinder, p: np.ndarray) -> np.ndarray:
    r, h = g.radius, g.length / 2.0
    radial = np.hypot(p[..., 0], p[..., 1])
    return (radial < r * (1.0 - SURFACE_TOLERANCE)) & (np.abs(p[..., 2]) < h * (1.0 - SURFACE_TOLERANCE))


def _source(g: Cylinder, J, base=None):
    import magpylib as magpy

    return magpy.magnet.Cylinder(dimension=(2.0 * g.radius, g.length), polarization=J)


KIND = register(GeometryKind(
    "cylinder", Cylinder,
    (Field("radius", "Radius"), Field("length", "Length", tip="Along the part's z axis")),
    text="cylinder r={radius} m, length {length} m",
    summary="a solid cylinder; its axis is the part frame's z",
    mesh=_mesh, inside=_inside, source=_source,
    drawn=lambda g, base=None: description.Cylinder(g.radius, g.length),
    templates=(
        KindTemplate("part", "Cylinder", "An aluminium cylinder, radius 10 mm, 20 mm long along the "
                     "frame's z axis", Cylinder(0.01, 0.02)),
        KindTemplate("magnet", "Cylinder magnet", "An NdFeB N42 disc, radius 5 mm, 10 mm long, magnetised "
                     "along its axis (+z)", Cylinder(0.005, 0.01)))))
