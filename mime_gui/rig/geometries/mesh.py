"""The closed triangle mesh read with trimesh (STL, OBJ, PLY …), scaled per axis.

Its mass properties are trimesh's; a mesh that is not watertight has none and is a finding. ``path`` is
relative to the rig file (or the working folder in Python). Its own frame is the file's, so its centroid is
where the file puts it.
"""

from __future__ import annotations

import math
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from mime_gui import mesh_files
from mime_gui.inputs import resolved
from mime_gui.multibody import tree as description
from mime_gui.multibody.errors import CodedError
from mime_gui.multibody.magnitudes import MAX_FACTOR
from mime_gui.rig.geometries.registry import Field, GeometryKind, KindTemplate, MassProperties, register
from mime_gui.rig.segments import _vector

#: the mesh files kept read (each version of a file counts once)
MAX_CACHED_MESHES = 64


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
            mesh = load_mesh(str(resolved(self.resolve(base))))
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
        mesh = load_mesh(str(resolved(self.resolve(base)))).copy()
        with np.errstate(over="ignore", invalid="ignore"):  # a huge scale overflows: the caller refuses it
            mesh.apply_scale(self.scale)
            mesh.density = 1.0
            return MassProperties(float(mesh.volume), np.array(mesh.center_mass, dtype=float),
                                  np.array(mesh.moment_inertia, dtype=float))


def load_mesh(path: str):
    """The file's triangles, read once per version of the file (its size and modification time): a mesh
    saved again is read again at the next check or reload; one removed since it was read stands as read
    (while it is kept)."""
    try:
        st = os.stat(path)
        stamp = (st.st_size, st.st_mtime_ns)
    except OSError:
        with _stamps_lock:
            stamp = _stamps.get(path)  # None: never read; reading says why
    mesh = _load_mesh(path, stamp)
    if stamp is not None:
        with _stamps_lock:  # read on worker threads too (sweeps)
            _stamps[path] = stamp
            _stamps.move_to_end(path)
            if len(_stamps) > MAX_CACHED_MESHES:
                _stamps.popitem(last=False)
    return mesh


_stamps: OrderedDict[str, tuple[int, int]] = OrderedDict()  # path -> the version last read
_stamps_lock = threading.Lock()


@lru_cache(maxsize=MAX_CACHED_MESHES)
def _load_mesh(path: str, stamp):
    import trimesh

    mesh = mesh_files.load(path, force="mesh")  # checked and defused before trimesh sees it
    if not isinstance(mesh, trimesh.Trimesh) or len(mesh.faces) == 0:
        raise ValueError("no triangles in the file")
    return mesh


def _mesh(g: Mesh, base=None):
    mesh = load_mesh(str(resolved(g.resolve(base))))
    return np.asarray(mesh.vertices) * np.asarray(g.scale), np.asarray(mesh.faces)


def _inside(g: Mesh, p: np.ndarray) -> None:
    """Not told: a containment test of an arbitrary mesh is not worth its cost here (the rules say so)."""
    return None


def _source(g: Mesh, J, base=None):
    """The file's triangles, scaled, in the file's frame (watertight: the rules refuse any other mesh)."""
    import magpylib as magpy

    vertices, faces = _mesh(g, base)
    return magpy.magnet.TriangularMesh(vertices=vertices, faces=faces, polarization=J)


def _drawn(g: Mesh, base=None):
    """The file, found or not: the views load it themselves (off the GUI thread), once per file."""
    path = g.resolve(base)
    found = str(resolved(path)) if path.is_file() else None
    return description.Mesh(g.path, tuple(g.scale), found, (str(path),))


KIND = register(GeometryKind(
    "mesh", Mesh,
    (Field("path", "File", unit="path", tip="mesh file, relative to the rig file"),
     Field("scale", "Scale", unit="1", size=3, high=MAX_FACTOR, optional=True,
           tip="The file's units times the scale are metres")),
    text="mesh {path} scaled {scale}",
    summary="a closed triangle mesh (STL, OBJ, PLY …) read with trimesh, its path relative to the rig file, "
            "scaled per axis (default 1)",
    mesh=_mesh, inside=_inside, source=_source, drawn=_drawn,
    conditions="a mesh is a regular file within the mesh size limit, not an archive, XML without entities, "
               "readable and watertight",
    # a part only: a magnet's shape is rarely a file's, and a mesh magnet is written in the rig file
    templates=(
        KindTemplate("part", "Mesh from a file…", "A closed triangle mesh (STL, OBJ, PLY) in metres; its "
                     "mass comes from its volume", Mesh, needs_path="mesh"),)))
