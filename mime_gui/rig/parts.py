"""Parts and permanent magnets: solids fixed to a frame of a segment, or to the world.

``Part(geometry, material=..., at=..., mount="<segment>.<frame>")``: ``at`` (m) places the part's centroid in
the mount frame, and the part's own frame is not turned in it (its axes are the mount frame's). With no mount
the part is fixed in the world. A part's mass comes from a declared ``mass`` (``kg``), else a declared
``density`` (``kg_per_m3``), else its material's density; with none it is massless.

A :class:`PermanentMagnet` is a part with a magnetisation direction in its own frame and a remanence from its
material or declared (``tesla``).

Geometry sizes are in metres. A cylinder's axis, and a ring's, is the z axis of the part frame (as in URDF).
"""

from __future__ import annotations

import math
import os
from dataclasses import KW_ONLY, dataclass
from functools import cache
from pathlib import Path

import numpy as np

from mime_gui import mesh_files
from mime_gui.multibody.errors import CodedError
from mime_gui.multibody.magnitudes import MAX_FACTOR, MAX_LENGTH
from mime_gui.rig.segments import _vector
from mime_gui.rig.units import Quantity


@dataclass(frozen=True)
class MassProperties:
    """Of the solid at unit density: ``volume`` (m³), ``centroid`` in the geometry's own frame (m), and
    ``inertia`` per unit density (m⁵) about the centroid in the geometry's axes."""

    volume: float
    centroid: np.ndarray
    inertia: np.ndarray


def _size(v: float) -> bool:
    """A usable size: finite, positive and at most :data:`MAX_LENGTH` (so a volume cannot overflow)."""
    return math.isfinite(v) and 0 < v <= MAX_LENGTH


def _positive(value, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{what} is a number of metres, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class Box:
    """A box of edge lengths ``size`` (m) along x, y, z, centred on its centroid."""

    size: tuple[float, float, float]
    kind = "box"

    def __post_init__(self):
        object.__setattr__(self, "size", _vector(self.size, 3, "box size"))

    def problems(self, base=None) -> list[str]:
        return [] if all(map(_size, self.size)) else \
            [f"a box needs three finite, positive edge lengths of at most {MAX_LENGTH:g} m, got {self.size}"]

    def half_extents(self) -> np.ndarray:
        """Half its extent along its own x, y, z (m): the box about its centroid that holds it."""
        return 0.5 * np.asarray(self.size, dtype=float)

    def mass_properties(self, base=None) -> MassProperties:
        x, y, z = self.size
        v = x * y * z
        inertia = v / 12.0 * np.diag([y * y + z * z, x * x + z * z, x * x + y * y])
        return MassProperties(v, np.zeros(3), inertia)


@dataclass(frozen=True)
class Cylinder:
    """A solid cylinder about its z axis, ``length`` (m) long, centred on its centroid."""

    radius: float
    length: float
    kind = "cylinder"

    def __post_init__(self):
        object.__setattr__(self, "radius", _positive(self.radius, "radius"))
        object.__setattr__(self, "length", _positive(self.length, "length"))

    def problems(self, base=None) -> list[str]:
        ok = _size(self.radius) and _size(self.length)
        return [] if ok else [f"a cylinder needs a finite, positive radius and length of at most "
                              f"{MAX_LENGTH:g} m, got radius={self.radius}, length={self.length}"]

    def half_extents(self) -> np.ndarray:
        return np.array([self.radius, self.radius, 0.5 * self.length])

    def mass_properties(self, base=None) -> MassProperties:
        r, h = self.radius, self.length
        v = math.pi * r * r * h
        side = v * (3 * r * r + h * h) / 12.0
        return MassProperties(v, np.zeros(3), np.diag([side, side, v * r * r / 2.0]))


@dataclass(frozen=True)
class Ring:
    """A ring (a hollow cylinder) about its z axis: ``inner_radius`` < ``outer_radius`` (m), ``length`` (m)
    long, centred on its centroid. A ring magnet's magnetisation is along its axis or across it."""

    inner_radius: float
    outer_radius: float
    length: float
    kind = "ring"

    def __post_init__(self):
        for name in ("inner_radius", "outer_radius", "length"):
            object.__setattr__(self, name, _positive(getattr(self, name), name.replace("_", " ")))

    def problems(self, base=None) -> list[str]:
        r, R, h = self.inner_radius, self.outer_radius, self.length
        if not (_size(r) and _size(R) and _size(h)):
            return [f"a ring needs a finite, positive inner radius, outer radius and length of at most "
                    f"{MAX_LENGTH:g} m, got inner_radius={r}, outer_radius={R}, length={h}"]
        if r >= R:
            return [f"a ring's inner radius must be smaller than its outer radius, got inner_radius={r}, "
                    f"outer_radius={R} (a solid one is a cylinder)"]
        return []

    def half_extents(self) -> np.ndarray:
        return np.array([self.outer_radius, self.outer_radius, 0.5 * self.length])

    def mass_properties(self, base=None) -> MassProperties:
        r, R, h = self.inner_radius, self.outer_radius, self.length
        v = math.pi * (R * R - r * r) * h
        squares = R * R + r * r
        side = v * (3 * squares + h * h) / 12.0
        return MassProperties(v, np.zeros(3), np.diag([side, side, v * squares / 2.0]))


@dataclass(frozen=True)
class Sphere:
    radius: float
    kind = "sphere"

    def __post_init__(self):
        object.__setattr__(self, "radius", _positive(self.radius, "radius"))

    def problems(self, base=None) -> list[str]:
        return [] if _size(self.radius) else \
            [f"a sphere needs a finite, positive radius of at most {MAX_LENGTH:g} m, got {self.radius}"]

    def half_extents(self) -> np.ndarray:
        return np.full(3, float(self.radius))

    def mass_properties(self, base=None) -> MassProperties:
        r = self.radius
        v = 4.0 / 3.0 * math.pi * (r * r * r)  # not r ** 3: a float power raises OverflowError
        return MassProperties(v, np.zeros(3), np.eye(3) * 0.4 * v * r * r)


@dataclass(frozen=True)
class Mesh:
    """A closed triangle mesh read with trimesh (STL, OBJ, PLY …), scaled by ``scale`` (per axis).

    Its mass properties are trimesh's; a mesh that is not watertight has none and is a finding. ``path`` is
    relative to the rig file (or the working folder in Python).
    """

    path: str
    scale: tuple[float, float, float] = (1.0, 1.0, 1.0)
    kind = "mesh"

    def __post_init__(self):
        if not isinstance(self.path, str | os.PathLike):
            raise TypeError(f"a mesh path is text, got {self.path!r}")
        object.__setattr__(self, "path", os.fspath(self.path))
        scale = self.scale
        if isinstance(scale, int | float) and not isinstance(scale, bool):
            scale = (scale, scale, scale)
        object.__setattr__(self, "scale", _vector(scale, 3, "mesh scale"))

    def resolve(self, base=None) -> Path:
        p = Path(self.path)
        return p if p.is_absolute() or base is None else Path(base) / p

    def problems(self, base=None) -> list[str]:
        if not all(math.isfinite(v) and 0 < v <= MAX_FACTOR for v in self.scale):
            return [f"a mesh scale must be finite, positive and at most {MAX_FACTOR:g}, got {self.scale}"]
        try:
            mesh = _load_mesh(str(self.resolve(base).resolve()))
        except CodedError as exc:  # not a regular file, too large, an archive, XML with entities
            return [f"cannot read mesh {self.path!r}: [{exc.code}] {exc.message}"]
        except Exception as exc:  # trimesh raises many kinds for unreadable files
            return [f"cannot read mesh {self.path!r} ({exc}); check the path (relative to the rig file)"]
        if not mesh.is_watertight:
            return [f"mesh {self.path!r} is not watertight (open edges), so it has no volume: close the "
                    f"mesh, or use a primitive for its mass"]
        if mesh.volume <= 0:
            return [f"mesh {self.path!r} has no positive volume (inside out?)"]
        return []

    def mass_properties(self, base=None) -> MassProperties:
        mesh = _load_mesh(str(self.resolve(base).resolve())).copy()
        with np.errstate(over="ignore", invalid="ignore"):  # a huge scale overflows: the caller refuses it
            mesh.apply_scale(self.scale)
            mesh.density = 1.0
            return MassProperties(float(mesh.volume), np.array(mesh.center_mass, dtype=float),
                                  np.array(mesh.moment_inertia, dtype=float))


@cache
def _load_mesh(path: str):
    import trimesh

    mesh = mesh_files.load(path, force="mesh")  # checked and defused before trimesh sees it
    if not isinstance(mesh, trimesh.Trimesh) or len(mesh.faces) == 0:
        raise ValueError("no triangles in the file")
    return mesh


Geometry = Box | Cylinder | Ring | Sphere | Mesh
GEOMETRY_KINDS = {c.kind: c for c in (Box, Cylinder, Ring, Sphere, Mesh)}


@dataclass(eq=True)
class Part:
    """A solid fixed to ``mount`` (``"<segment>.<frame>"``) with its centroid at ``at`` (m) in that frame."""

    geometry: Geometry
    _: KW_ONLY
    material: str | None = None
    at: tuple[float, float, float] = (0.0, 0.0, 0.0)
    mount: str | None = None
    mass: Quantity | None = None
    density: Quantity | None = None

    role = "part"

    def __post_init__(self):
        if not isinstance(self.geometry, Box | Cylinder | Ring | Sphere | Mesh):
            raise TypeError(f"geometry must be Box, Cylinder, Ring, Sphere or Mesh, got {self.geometry!r}")
        self.at = _vector(self.at, 3, "at")
        if self.material is not None and not isinstance(self.material, str):
            raise TypeError(f"material is a name, got {self.material!r}")
        if self.mount is not None and not isinstance(self.mount, str):
            raise TypeError(f"mount is '<segment>.<frame>', got {self.mount!r}")


@dataclass(eq=True, kw_only=True)
class PermanentMagnet(Part):
    """A part magnetised along ``magnetisation`` (a direction in the part's frame), with remanence from its
    material or a declared ``remanence`` (``tesla``)."""

    magnetisation: tuple[float, float, float] = (0.0, 0.0, 1.0)
    remanence: Quantity | None = None

    role = "magnet"

    def __post_init__(self):
        super().__post_init__()
        self.magnetisation = _vector(self.magnetisation, 3, "magnetisation")
