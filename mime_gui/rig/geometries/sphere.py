"""The sphere: ``radius`` (m), centred on its centroid."""

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
class Sphere:
    radius: float
    kind = "sphere"

    def __post_init__(self):
        object.__setattr__(self, "radius", number(self.radius, "radius"))

    def problems(self, base=None) -> list[str]:
        return [] if size_ok(self.radius) else \
            [f"a sphere needs a finite, positive radius of at most {MAX_LENGTH:g} m, got {self.radius}"]

    def half_extents(self) -> np.ndarray:
        return np.full(3, float(self.radius))

    def mass_properties(self, base=None) -> MassProperties:
        r = self.radius
        v = 4.0 / 3.0 * np.pi * (r * r * r)  # not r ** 3: a float power raises OverflowError
        return MassProperties(v, np.zeros(3), np.eye(3) * 0.4 * v * r * r)


def _mesh(g: Sphere, base=None, rings: int = 24, sectors: int = 48):
    """Latitude rings between two poles, wound outward."""
    polar = np.linspace(0.0, np.pi, rings + 1)[1:-1]
    t = np.linspace(0.0, 2.0 * np.pi, sectors, endpoint=False)
    r = g.radius
    body = np.stack([np.outer(np.sin(polar), np.cos(t)), np.outer(np.sin(polar), np.sin(t)),
                     np.repeat(np.cos(polar)[:, None], sectors, axis=1)], axis=-1).reshape(-1, 3)
    vertices = r * np.concatenate([body, [[0.0, 0.0, 1.0], [0.0, 0.0, -1.0]]])
    north, south = len(body), len(body) + 1
    k = np.arange(sectors)
    n = (k + 1) % sectors
    faces = [np.column_stack([np.full(sectors, north), k, n])]
    for i in range(rings - 2):
        a, b = i * sectors, (i + 1) * sectors
        faces += [np.column_stack([a + k, b + k, b + n]), np.column_stack([a + k, b + n, a + n])]
    last = (rings - 2) * sectors
    faces.append(np.column_stack([np.full(sectors, south), last + n, last + k]))
    return vertices, np.concatenate(faces)


def _inside(g: Sphere, p: np.ndarray) -> np.ndarray:
    return np.linalg.norm(p, axis=-1) < g.radius * (1.0 - SURFACE_TOLERANCE)


def _source(g: Sphere, J, base=None):
    import magpylib as magpy

    return magpy.magnet.Sphere(diameter=2.0 * g.radius, polarization=J)


KIND = register(GeometryKind(
    "sphere", Sphere, (Field("radius", "Radius"),), text="sphere r={radius} m", summary="a sphere",
    mesh=_mesh, inside=_inside, source=_source,
    drawn=lambda g, base=None: description.Sphere(g.radius),
    templates=(
        KindTemplate("part", "Sphere", "An aluminium sphere, radius 10 mm", Sphere(0.01)),
        KindTemplate("magnet", "Sphere magnet", "An NdFeB N42 sphere, radius 5 mm, magnetised along +z",
                     Sphere(0.005)))))
