"""Geometry for the 3D view: mesh files loaded once per ``(file, scale)``, and primitives.

Every result is a :class:`pyvista.PolyData` in the frame of the shape (the view places it with
``link_X_shape``), triangulated, with split normals for smooth shading that keeps hard CAD edges.

Colours follow the file, as RViz does (:func:`piece_rgba`): a URDF material colour wins over a mesh file's
default material (one material colour for the whole file, such as an exporter's light grey); a file's own
colours (several materials, per-face or per-vertex colours, a texture) are kept; geometry without colour
takes the URDF's colour, else :data:`DEFAULT_RGBA`. A mesh is drawn see-through only where a material says
so: the URDF colour's alpha, or the file material's own opacity (:func:`material_alpha`); a texture image's
alpha channel is not an opacity (a few transparent pixels would show the whole mesh see-through).

:func:`load_mesh` is thread-safe and cached: decoded files and display meshes are kept in bounded LRU caches
keyed by path, size and modification time (a file changed on disk is read again), emptied by
:func:`clear_caches` (the app's Reload). :class:`MeshLoader` runs a batch of loads off the GUI thread and
delivers progress and results on the GUI thread through Qt signals. A missing or unreadable file gives a
placeholder (a small wire box) and a warning naming the path and the cause, never an exception; a file with a
non-geometric defect (a broken texture reference …) loads its geometry, with a warning
(:mod:`~mime_gui.app.scene.mesh_defects`). :func:`record_problems` puts them in the read report.
"""

from __future__ import annotations

import logging
import math
import os
import sys
import threading
import warnings
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
import pyvista as pv
from PySide6.QtCore import QObject, Signal

#: Colour of geometry that has none of its own, and no URDF material.
DEFAULT_RGBA = (0.72, 0.74, 0.77, 1.0)
#: Edge length of the placeholder box shown for a mesh that cannot be loaded (metres).
PLACEHOLDER_SIZE = 0.05
#: Normals are split across edges sharper than this (degrees): hard CAD edges stay hard.
FEATURE_ANGLE = 40.0
#: Meshes whose smooth normals stray less than this from their faces' normals (area-weighted mean, degrees)
#: are drawn with flat shading: it looks the same and costs less per pixel.
FLAT_DEGREES = 2.5
#: A file with more distinct face colours than this is drawn as one actor with per-point colours.
MAX_COLOUR_PIECES = 16
#: Decoded mesh files kept in memory (least recently used dropped first).
MAX_CACHED_FILES = 256
#: Display meshes (a file at one scale) kept in memory (least recently used dropped first).
MAX_CACHED_ASSETS = 512
#: Colour of the marked placeholder that stands in for geometry that cannot be drawn.
PLACEHOLDER_RGBA = (1.0, 0.35, 0.3, 1.0)


class MeshLoadWarning(UserWarning):
    """A mesh file could not be loaded; a placeholder is shown instead."""


@dataclass
class MeshPiece:
    """The faces of a mesh that share one colour, drawn as one actor.

    ``rgba`` is the file's colour (uint8 (4,)) or None (the URDF material, else :data:`DEFAULT_RGBA`, colours
    it). ``scalars``: the piece carries many colours as a ``RGBA`` point array (a file with more distinct
    face colours than :data:`MAX_COLOUR_PIECES`). ``flat``: the mesh is so finely tessellated that flat
    shading looks the same as smooth shading (see :func:`shades_flat`), so the renderer skips the normals."""

    polydata: pv.PolyData
    rgba: np.ndarray | None = None
    scalars: bool = False
    flat: bool = False

    @property
    def n_faces(self) -> int:
        return int(self.polydata.n_cells)


@dataclass
class MeshAsset:
    """A loaded mesh: ``parts`` (one per geometry of the file, each with its own colour or None), grouped by
    colour into ``pieces`` (what the view draws, one actor each: a single actor colour costs less per pixel
    than per-point colours) and merged into ``polydata`` (with a ``RGBA`` point array when ``has_colors``;
    collision geometry and tools use it)."""

    key: tuple
    polydata: pv.PolyData
    parts: list = field(default_factory=list)  # [(PolyData, rgba uint8 (4,) | (nfaces, 4) | None)]
    has_colors: bool = False
    placeholder: bool = False
    message: str = ""  # why a placeholder stands in: "<path or URI>: <cause>"
    pieces: list = field(default_factory=list)  # [MeshPiece]
    #: the file's colours are one material for the whole file, which a URDF colour replaces
    default_material: bool = False
    #: non-geometric defects the file loaded with (its geometry is drawn), each naming its cause
    notes: tuple = ()
    _decimated: dict = field(default_factory=dict, repr=False)

    @property
    def source(self) -> str:
        """The file (or, when unresolved, the URI) the asset was asked for."""
        return self.key[0] or (self.key[2] if len(self.key) > 2 else "") or "<unnamed mesh>"

    def problems(self) -> list[str]:
        """One sentence per problem, naming the file and the cause (a placeholder, or defects it loaded
        with)."""
        if self.placeholder:
            return [f"placeholder shown for mesh {self.message}"]
        return [f"mesh {self.source}: {note}" for note in self.notes]

    @property
    def n_faces(self) -> int:
        return int(self.polydata.n_cells)

    @property
    def flat(self) -> bool:
        return bool(self.pieces) and all(p.flat for p in self.pieces)

    def _reduced(self, keep: float):
        keep = round(max(keep, 0.01), 2)
        cached = self._decimated.get(keep)
        if cached is None:
            pieces = []
            for piece in self.pieces:
                pd = piece.polydata
                if pd.n_cells > 64:
                    try:
                        pd = _normals(pd.decimate(1.0 - keep, volume_preservation=False))
                        if piece.scalars:  # decimation interpolates the colours: keep them exact bytes
                            pd.point_data["RGBA"] = np.asarray(pd.point_data["RGBA"]).round().astype(np.uint8)
                    except Exception:  # noqa: BLE001 - a bad piece keeps its full detail
                        pd = piece.polydata
                pieces.append(pd)
            cached = {"pieces": pieces, "merged": None}
            self._decimated[keep] = cached
        return cached

    def decimated_pieces(self, keep: float) -> list:
        """Display copies of :attr:`pieces` keeping about ``keep`` (0..1] of the faces (cached per rounded
        ratio)."""
        if self.placeholder or keep >= 0.999 or self.n_faces < 200:
            return [p.polydata for p in self.pieces]
        return self._reduced(keep)["pieces"]

    def decimated(self, keep: float) -> pv.PolyData:
        """Display copy of :attr:`polydata` keeping about ``keep`` (0..1] of the faces."""
        if self.placeholder or keep >= 0.999 or self.n_faces < 200:
            return self.polydata
        cached = self._reduced(keep)
        if cached["merged"] is None:
            pieces = [(pd, p.rgba) for pd, p in zip(cached["pieces"], self.pieces, strict=True)]
            cached["merged"] = _finish(pieces, self.has_colors)
        return cached["merged"]


# -- primitives -------------------------------------------------------------------------------------

def box_polydata(size) -> pv.PolyData:
    sx, sy, sz = (float(v) for v in size)
    pd = pv.Box(bounds=(-sx / 2, sx / 2, -sy / 2, sy / 2, -sz / 2, sz / 2), quads=False)
    return _normals(pd.triangulate())


def cylinder_polydata(radius: float, length: float, resolution: int = 40) -> pv.PolyData:
    """A capped cylinder along z, centred on the origin (URDF convention)."""
    pd = pv.Cylinder(center=(0, 0, 0), direction=(0, 0, 1), radius=float(radius), height=float(length),
                     resolution=resolution, capping=True)
    return _normals(pd.triangulate())


def solid_polydata(vertices, faces) -> pv.PolyData:
    """A rig part's solid given as triangles (see :class:`~mime_gui.multibody.tree.Solid`)."""
    faces = np.asarray(faces, dtype=np.int64)
    cells = np.column_stack([np.full(len(faces), 3), faces]).ravel()
    return _normals(pv.PolyData(np.asarray(vertices, dtype=float), cells))


def sphere_polydata(radius: float) -> pv.PolyData:
    pd = pv.Sphere(radius=float(radius), theta_resolution=32, phi_resolution=20)
    return pd.compute_normals(auto_orient_normals=False, split_vertices=False)


def capsule_polydata(radius: float, length: float, resolution: int = 32) -> pv.PolyData:
    """A capsule along z centred on the origin: a cylinder of ``length`` between the centres of two
    hemispherical caps of ``radius`` (SDF, Drake and PyBullet convention)."""
    if length <= 0:
        return sphere_polydata(radius)
    pd = pv.Capsule(center=(0, 0, 0), direction=(0, 0, 1), radius=float(radius),
                    cylinder_length=float(length), resolution=resolution)
    return _normals(pd.triangulate().clean())


def placeholder_polydata(size: float = PLACEHOLDER_SIZE) -> pv.PolyData:
    """A small wire box (lines only) standing in for a mesh that could not be loaded."""
    h = size / 2
    return pv.Box(bounds=(-h, h, -h, h, -h, h)).extract_all_edges()


def _normals(pd: pv.PolyData) -> pv.PolyData:
    if pd.n_cells == 0:
        return pd
    return pd.compute_normals(cell_normals=False, split_vertices=True, feature_angle=FEATURE_ANGLE,
                              consistent_normals=False, auto_orient_normals=False)


# -- mesh files -------------------------------------------------------------------------------------

class _LRU:
    """A bounded mapping that drops its least recently used entry (callers hold ``_lock``)."""

    def __init__(self, size: int):
        self.size = size
        self.data: OrderedDict = OrderedDict()

    def get(self, key):
        value = self.data.get(key)
        if value is not None:
            self.data.move_to_end(key)
        return value

    def put(self, key, value) -> None:
        self.data[key] = value
        self.data.move_to_end(key)
        while len(self.data) > self.size:
            self.data.popitem(last=False)

    def __len__(self) -> int:
        return len(self.data)


@dataclass
class RawMesh:
    """A decoded file: ``parts`` ``[(vertices, faces, colours, colour source)]`` and the non-geometric
    defects it loaded with (``notes``)."""

    parts: list
    notes: list = field(default_factory=list)


_assets = _LRU(MAX_CACHED_ASSETS)  # (path, size, mtime, scale) -> MeshAsset
_raws = _LRU(MAX_CACHED_FILES)  # (path, size, mtime) -> RawMesh
_log = logging.getLogger(__name__)
_lock = threading.RLock()
_file_locks: dict[tuple, threading.Lock] = {}


def clear_caches() -> None:
    """Forget every decoded file and display mesh (the app's Reload calls it)."""
    with _lock:
        _assets.data.clear()
        _raws.data.clear()
        _file_locks.clear()


clear_cache = clear_caches  # the earlier name


def cache_sizes() -> tuple[int, int]:
    """``(decoded files, display meshes)`` held now."""
    with _lock:
        return len(_raws), len(_assets)


def cache_key(filename: str | None, scale=(1.0, 1.0, 1.0), uri: str = "") -> tuple:
    """What a request asks for: the file and the scale; an unresolved mesh (no file) is told apart by its
    URI, so each one is its own request and its own problem."""
    s = tuple(round(float(v), 9) for v in np.broadcast_to(np.asarray(scale, dtype=float), (3,)))
    if filename:
        return (os.path.abspath(filename), s)
    return (None, s, uri)


def _stamp(path: str) -> tuple[int, int] | None:
    """``(size, modification time)`` of a file, None when it is not there."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_size, st.st_mtime_ns


def cached(filename: str | None, scale=(1.0, 1.0, 1.0)) -> MeshAsset | None:
    """The cached display mesh of ``filename`` at ``scale`` as the file is now, or None."""
    key = cache_key(filename, scale)
    stamp = _stamp(key[0]) if key[0] else None
    if stamp is None:
        return None
    with _lock:
        return _assets.get((key[0], *stamp, key[1]))


def _rgba_u8(c) -> np.ndarray | None:
    if c is None:
        return None
    a = np.asarray(c, dtype=float).reshape(-1)
    if a.size == 3:
        a = np.append(a, 255.0 if a.max() > 1.0 else 1.0)
    if a.max() <= 1.0:
        a = a * 255.0
    return np.clip(np.round(a), 0, 255).astype(np.uint8)


def _part_colors(geom) -> tuple[np.ndarray | None, str | None]:
    """Colour a geometry carries in its file: (4,) uint8, (nfaces, 4) uint8, or None, and where it comes from:
    ``"material"`` (a material's one colour), ``"texture"``, ``"vertex"``, ``"face"`` (the file's own
    colours), or None."""
    visual = getattr(geom, "visual", None)
    if visual is None:
        return None, None
    kind = getattr(visual, "kind", None)
    try:
        if kind == "texture":
            material = getattr(visual, "material", None)
            image = getattr(material, "image", None) or getattr(material, "baseColorTexture", None)
            if image is not None and getattr(visual, "uv", None) is not None:
                vc = np.asarray(visual.to_color().vertex_colors, dtype=np.uint8)
                fc = vc[geom.faces].mean(axis=1).astype(np.uint8)
                # a texture's alpha channel is not the material's opacity: a few transparent pixels
                # would draw the whole mesh see-through
                fc[:, 3] = material_alpha(material)
                return fc, "texture"
            if material is not None and getattr(material, "main_color", None) is not None:
                rgba = _rgba_u8(material.main_color)
                rgba[3] = material_alpha(material)
                return rgba, "material"
            return None, None
        if kind == "vertex":
            vc = np.asarray(visual.vertex_colors, dtype=np.uint8)
            fc = vc[geom.faces].mean(axis=1).astype(np.uint8)
        elif kind == "face":
            fc = np.asarray(visual.face_colors, dtype=np.uint8)
        else:
            return None, None
    except Exception:  # noqa: BLE001 - colours are a nicety; geometry still shows
        return None, None
    if len(fc) and np.all(fc == fc[0]):
        return fc[0].copy(), kind
    return fc, kind


def material_alpha(material) -> int:
    """The opacity (0..255) a mesh file's material declares: an OBJ material's ``d`` (dissolve; ``Tr`` is its
    complement) and its diffuse alpha, a COLLADA or glTF material's base colour alpha (glTF's ``OPAQUE`` and
    ``MASK`` modes draw opaque whatever that alpha). 255 when it declares none."""
    if getattr(material, "alphaMode", None) in ("OPAQUE", "MASK"):
        return 255
    alpha = 1.0
    color = getattr(material, "baseColorFactor", None)
    if color is None:
        color = getattr(material, "diffuse", None)
    c = np.asarray(color).reshape(-1) if color is not None else np.empty(0)
    if c.size == 4:  # trimesh keeps colours as uint8; a float colour is 0..1
        alpha = float(c[3]) / 255.0 if c.dtype.kind in "ui" else float(c[3])
    extra = getattr(material, "kwargs", None) or {}
    key = "d" if "d" in extra else "tr"  # both written: ``d`` is the standard one
    value = extra.get(key)
    try:
        number = float(value[0] if isinstance(value, list | tuple) else value)
    except (TypeError, ValueError, IndexError):
        number = math.nan
    if math.isfinite(number):
        alpha = min(alpha, number if key == "d" else 1.0 - number)
    return int(round(min(max(alpha, 0.0), 1.0) * 255)) if math.isfinite(alpha) else 255


def default_material(parts) -> bool:
    """Whether the colours of a file's ``parts`` ``[(…, colours, source)]`` are one material for the whole
    file (an exporter's default, or one colour the URDF may override): every coloured part takes its colour
    from a material, and all of them the same one."""
    coloured = [(c, src) for *_, c, src in parts if c is not None]
    return bool(coloured) and all(src == "material" for _, src in coloured) \
        and len({np.asarray(c, dtype=np.uint8).tobytes() for c, _ in coloured}) == 1


def piece_rgba(asset: MeshAsset, piece: MeshPiece, urdf_rgba, fallback) -> tuple:
    """The colour of an actor drawing ``piece`` of ``asset`` for a shape whose URDF material colour is
    ``urdf_rgba`` (None: none given): the URDF's colour wins over the file's default material; the file's own
    colours are kept, at the URDF colour's alpha times their material's; a piece without colour takes
    ``fallback`` (the URDF's colour, else the default)."""
    if piece.rgba is None or (urdf_rgba is not None and asset.default_material):
        return tuple(fallback)
    rgba = piece.rgba / 255.0
    if urdf_rgba is not None and len(urdf_rgba) > 3:
        rgba[3] *= float(urdf_rgba[3])
    return tuple(rgba)


def _merge_vertices(v: np.ndarray, faces: np.ndarray):
    """Weld vertices at exactly the same position (file formats such as DAE repeat a vertex for every
    face that uses it: Panda's meshes carry ~2.8 vertices per face, ~0.55 once welded). Fewer vertices is
    less work per frame for the renderer; the shading normals are recomputed after, split at hard edges.
    Colours are taken per face from the file's own geometry, so welding does not mix them."""
    if len(v) == 0:
        return v, faces
    key = np.ascontiguousarray(v + 0.0)  # + 0.0 turns -0.0 into 0.0
    rows = key.view(np.dtype((np.void, key.dtype.itemsize * 3))).ravel()
    _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    if len(first) == len(v):
        return v, faces
    return v[first], inverse.reshape(-1)[faces]


def _read_file(path: str) -> RawMesh:
    """[(vertices (n,3), faces (m,3), colours, colour source)] of every triangle geometry in the file, node
    transforms applied (scenes are flattened), coincident vertices welded; with the non-geometric defects the
    file loaded with. A COLLADA file that loses geometry to a broken material reference is read again
    without the bindings to that material."""
    import trimesh  # local: heavy import, only when a mesh file is met

    from mime_gui import mesh_files

    # checked first: a regular file within the size limit, no archive, XML parsed once with entities refused
    data = mesh_files.read(path)
    notes = []
    if path.lower().endswith((".dae", ".obj")):  # formats that name other files: textures, material libraries
        from mime_gui.app.scene.mesh_defects import missing_textures

        notes += missing_textures(path, data)
    out = _scene_parts(trimesh.load(trimesh.util.wrap_as_stream(data), file_type=mesh_files.file_type(path),
                                    force="scene", process=True, resolver=mesh_files.checked_resolver(path)))
    if path.lower().endswith(".dae") and len(out) < data.count(b"<instance_geometry"):
        from mime_gui.app.scene.mesh_defects import repaired_dae

        fixed, why = repaired_dae(data)
        if fixed is not None:
            again = _scene_parts(trimesh.load(trimesh.util.wrap_as_stream(fixed), file_type="dae",
                                              force="scene", process=True,
                                              resolver=mesh_files.checked_resolver(path)))
            if len(again) > len(out):
                out, notes = again, notes + why
        elif not out:
            raise ValueError("the file holds no triangle geometry" + (f" ({'; '.join(why)})" if why else ""))
    if not out:
        raise ValueError("the file holds no triangle geometry")
    return RawMesh(out, notes)


def _scene_parts(loaded) -> list:
    """The triangle geometries of a trimesh scene, flattened: [(vertices, faces, colours, source)]."""
    out = []
    graph = loaded.graph
    for node in graph.nodes_geometry:
        transform, geom_name = graph[node]
        geom = loaded.geometry.get(geom_name)
        if geom is None or not hasattr(geom, "faces") or len(geom.faces) == 0:
            continue
        v, f = _merge_vertices(np.asarray(geom.vertices, dtype=float), np.asarray(geom.faces, dtype=np.int64))
        T = np.asarray(transform, dtype=float)
        if not np.allclose(T, np.eye(4)):
            v = v @ T[:3, :3].T + T[:3, 3]
            if np.linalg.det(T[:3, :3]) < 0:  # a mirroring node: keep faces outward
                f = f[:, ::-1]
        out.append((v, np.ascontiguousarray(f), *_part_colors(geom)))
    return out


def _raw(path: str, stamp: tuple | None = None) -> RawMesh:
    """The decoded file (cached by path, size and modification time)."""
    stamp = stamp or _stamp(path) or (-1, -1)
    key = (path, *stamp)
    with _lock:
        hit = _raws.get(key)
        if hit is not None:
            return hit
        flock = _file_locks.setdefault(key, threading.Lock())
    with flock:  # two threads asking for the same file read it once
        with _lock:
            hit = _raws.get(key)
        if hit is None:
            hit = _read_file(path)
            with _lock:
                _raws.put(key, hit)
                _file_locks.pop(key, None)
    return hit


def _faces_vtk(faces: np.ndarray) -> np.ndarray:
    cells = np.empty((len(faces), 4), dtype=np.int64)
    cells[:, 0] = 3
    cells[:, 1:] = faces
    return cells.ravel()


def _finish(pieces: list, has_colors: bool) -> pv.PolyData:
    """Merge parts (each already with normals) into one PolyData with a ``RGBA`` point array when coloured.

    Colours go on points, not cells: per-cell colours cost a texture lookup per fragment, which a software
    renderer pays on every pixel. Parts do not share points, so a part's colour stays its own."""
    polys = []
    for pd, rgba in pieces:
        pd = pd.copy(deep=False)
        for name in ("pyvistaOriginalPointIds", "pyvistaOriginalCellIds"):
            if name in pd.point_data:
                del pd.point_data[name]
            if name in pd.cell_data:
                del pd.cell_data[name]
        if has_colors:
            if rgba is None:
                rgba = _rgba_u8(DEFAULT_RGBA)
            colors = np.asarray(rgba, dtype=np.uint8)
            if colors.ndim == 2 and len(colors) == pd.n_cells and pd.n_cells:
                per_point = np.empty((pd.n_points, 4), dtype=np.uint8)
                per_point[:] = colors[0]
                per_point[pd.regular_faces.ravel()] = np.repeat(colors, 3, axis=0)
            else:
                per_point = np.broadcast_to(colors.reshape(-1, 4)[0], (pd.n_points, 4))
            pd.point_data["RGBA"] = np.ascontiguousarray(per_point)
        polys.append(pd)
    if len(polys) == 1:
        return polys[0]
    merged = polys[0].merge(polys[1:], merge_points=False)
    return merged if isinstance(merged, pv.PolyData) else merged.extract_surface()


def shades_flat(pd: pv.PolyData) -> bool:
    """Whether flat shading looks the same as smooth shading on this mesh: the area-weighted mean angle
    between a face's normal and the smooth normals at its corners is under :data:`FLAT_DEGREES` (finely
    tessellated CAD such as Panda's links). Smooth shading costs an interpolated normal per pixel on a
    software renderer; coarse meshes (PR2's arms, primitives with curved sides) keep it."""
    if pd.n_cells == 0 or "Normals" not in pd.point_data:
        return False
    faces = pd.regular_faces
    p = np.asarray(pd.points, dtype=float)
    n = np.asarray(pd.point_data["Normals"], dtype=float)
    fn = np.cross(p[faces[:, 1]] - p[faces[:, 0]], p[faces[:, 2]] - p[faces[:, 0]])
    area = np.linalg.norm(fn, axis=1)
    if not area.sum() > 0:
        return False
    fn /= np.where(area > 0, area, 1.0)[:, None]
    cos = np.clip(np.einsum("fkj,fj->fk", n[faces], fn), -1.0, 1.0)
    angle = np.degrees(np.arccos(cos)).mean(axis=1)
    return bool(np.average(angle, weights=area) <= FLAT_DEGREES)


def _subset(pd: pv.PolyData, mask: np.ndarray) -> pv.PolyData:
    """The faces of triangle mesh ``pd`` selected by ``mask``, with only the points they use."""
    faces = pd.regular_faces[mask]
    used, inverse = np.unique(faces.ravel(), return_inverse=True)
    out = pv.PolyData(np.asarray(pd.points)[used], _faces_vtk(inverse.reshape(-1, 3)))
    for name in pd.point_data.keys():
        out.point_data[name] = np.asarray(pd.point_data[name])[used]
    return out


def _pieces(parts: list) -> list:
    """Group parts by colour into pieces (one actor each)."""
    groups: dict = {}
    for pd, colors in parts:
        if colors is None:
            groups.setdefault(None, []).append(pd)
            continue
        colors = np.asarray(colors, dtype=np.uint8)
        if colors.ndim == 1:
            groups.setdefault(colors.tobytes(), []).append(pd)
            continue
        unique, inverse = np.unique(colors, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        if len(unique) > MAX_COLOUR_PIECES:
            groups.setdefault("scalars", []).append((pd, colors))
            continue
        for k, rgba in enumerate(unique):
            groups.setdefault(rgba.tobytes(), []).append(_subset(pd, inverse == k))
    out = []
    for key, members in groups.items():
        if key == "scalars":
            pd = _finish(members, True)
            out.append(MeshPiece(pd, None, scalars=True, flat=shades_flat(pd)))
            continue
        pd = _finish([(m, None) for m in members], False)
        rgba = None if key is None else np.frombuffer(key, dtype=np.uint8).copy()
        out.append(MeshPiece(pd, rgba, flat=shades_flat(pd)))
    return out


def _build(path: str, scale: np.ndarray, stamp: tuple | None = None) -> MeshAsset:
    raw = _raw(path, stamp)
    mirror = float(np.prod(scale)) < 0
    parts = []
    for v, faces, colors, _ in raw.parts:
        verts = v * scale
        f = faces[:, ::-1] if mirror else faces  # a negative determinant flips the winding back outward
        pd = pv.PolyData(verts, _faces_vtk(f))
        parts.append((_normals(pd), colors))
    has_colors = any(c is not None for _, c in parts)
    return MeshAsset(key=cache_key(path, scale), polydata=_finish(parts, has_colors), parts=parts,
                     has_colors=has_colors, pieces=_pieces(parts),
                     default_material=default_material(raw.parts), notes=tuple(raw.notes))


def load_mesh(filename: str | None, scale=(1.0, 1.0, 1.0), uri: str = "") -> MeshAsset:
    """The mesh of ``filename`` scaled by ``scale`` (cached); a placeholder asset (and a
    :class:`MeshLoadWarning`) when it cannot be loaded."""
    asset = _load(filename, scale, uri)
    for problem in asset.problems():
        warnings.warn(problem, MeshLoadWarning, stacklevel=2)
    return asset


def _load(filename: str | None, scale=(1.0, 1.0, 1.0), uri: str = "") -> MeshAsset:
    """Thread-safe loader behind :func:`load_mesh`: reports a failure in the asset, never warns or raises."""
    key = cache_key(filename, scale, uri)
    stamp = _stamp(key[0]) if key[0] else None
    stamped = (key[0], *stamp, key[1]) if stamp is not None else None
    if stamped is not None:
        with _lock:
            hit = _assets.get(stamped)
        if hit is not None:
            return hit
    scale_arr = np.asarray(key[1], dtype=float)
    what = filename or uri or "<unnamed mesh>"
    try:
        if filename is None:
            raise FileNotFoundError(f"mesh {uri!r} was not found")
        if stamp is None or not os.path.exists(filename):  # not a regular file: the coded refusal below
            raise FileNotFoundError(f"mesh file {filename!r} does not exist")
        if np.any(scale_arr == 0):
            raise ValueError(f"mesh scale {tuple(scale_arr)} has a zero component")
        asset = _build(key[0], scale_arr, stamp)
    except Exception as exc:  # noqa: BLE001 - never crash the view on a bad mesh
        message = f"{what}: {exc}"
        _log.warning("placeholder shown for mesh %s", message)
        asset = MeshAsset(key=key, polydata=placeholder_polydata(), parts=[], placeholder=True,
                          message=message)
        asset.pieces = [MeshPiece(asset.polydata)]
        # placeholders are not cached: the file may appear (Reload)
        return asset
    with _lock:
        _assets.put(stamped, asset)
    return asset


# -- off the GUI thread -----------------------------------------------------------------------------

@dataclass(frozen=True)
class MeshRequest:
    filename: str | None
    scale: tuple = (1.0, 1.0, 1.0)
    uri: str = ""

    @property
    def key(self) -> tuple:
        return cache_key(self.filename, self.scale, self.uri)


def _hand_to_excepthook(future) -> None:
    """A pool keeps a worker's exception in its future, where nobody looks: hand it to the exception hook."""
    exc = None if future.cancelled() else future.exception()
    if exc is not None:
        sys.excepthook(type(exc), exc, exc.__traceback__)


class MeshLoader(QObject):
    """Loads batches of meshes on worker threads; signals arrive on the thread that owns the loader.

    ``progress(done, total, name)`` after each mesh, ``finished(batch_id, {key: MeshAsset}, warnings)`` once
    per batch, ``warnings`` holding each file's problems once (:func:`problems`). A newer batch does not
    cancel an older one (results are cached either way); the receiver ignores batch ids it no longer wants.
    """

    progress = Signal(int, int, str)
    finished = Signal(int, object, object)
    _done = Signal(int, object, object, str, object)  # batch, key, asset, warning, request count

    def __init__(self, parent=None, workers: int = 1):
        super().__init__(parent)
        self._pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="mesh-loader")
        self._batches: dict[int, dict] = {}
        self._next = 0
        self._done.connect(self._on_done)  # queued across threads: runs on the owner's thread

    def load(self, requests) -> int:
        """Start loading; returns the batch id. Already cached meshes complete immediately."""
        unique = {r.key: r for r in requests}
        self._next += 1
        batch = self._next
        state = {"total": len(unique), "results": {}, "warnings": []}
        self._batches[batch] = state
        if not unique:
            self.finished.emit(batch, {}, [])
            self._batches.pop(batch, None)
            return batch
        for req in unique.values():
            self._pool.submit(self._work, batch, req).add_done_callback(_hand_to_excepthook)
        return batch

    def _work(self, batch: int, req: MeshRequest) -> None:
        try:
            asset = _load(req.filename, req.scale, req.uri)
        except Exception as exc:  # noqa: BLE001 - reported, never raised on a worker
            asset = MeshAsset(key=req.key, polydata=placeholder_polydata(), placeholder=True,
                              message=str(exc))
            asset.pieces = [MeshPiece(asset.polydata)]
        try:
            self._done.emit(batch, req.key, asset, "", None)
        except RuntimeError:  # the loader was deleted while this mesh loaded
            pass

    def _on_done(self, batch: int, key, asset, message: str, _unused) -> None:
        state = self._batches.get(batch)
        if state is None:
            return
        state["results"][key] = asset
        done = len(state["results"])
        name = os.path.basename(key[0]) if key[0] else "<missing>"
        self.progress.emit(done, state["total"], name)
        if done == state["total"]:
            self._batches.pop(batch, None)
            self.finished.emit(batch, state["results"], problems(state["results"].values()))

    def shutdown(self) -> None:
        self._batches.clear()
        self._pool.shutdown(wait=False, cancel_futures=True)


def load_all(requests, progress=None) -> tuple[dict, list]:
    """Synchronous batch load (when everything is cached, and for scripts): ``({key: asset}, warnings)``."""
    unique = {r.key: r for r in requests}
    results = {}
    for i, req in enumerate(unique.values()):
        results[req.key] = _load(req.filename, req.scale, req.uri)
        if progress is not None:
            progress(i + 1, len(unique), os.path.basename(req.filename or req.uri or ""))
    return results, problems(results.values())


def problems(assets) -> list[str]:
    """The problems of ``assets``, each file's once (a file drawn at two scales, or by many links, is one
    file): what a status line counts."""
    out: dict[str, list[str]] = {}
    for asset in assets:
        if asset.source not in out:
            out[asset.source] = asset.problems()
    return [p for found in out.values() for p in found]


def record_problems(trees, assets: dict) -> None:
    """Put the problems of the loaded ``assets`` (``{request key: MeshAsset}``) in the read report of each
    tree that uses them: one warning per file and tree, at the line of the first shape that uses it, naming
    the file and the cause (``mesh.placeholder``: the file could not be drawn; ``mesh.defect``: it loaded
    with a defect). A mesh the reader could not find is already there (``urdf.mesh-unresolved``). The mesh
    warnings a report held from an earlier load are replaced. Links that stand for rig parts are skipped (a
    part's mesh is a rig finding, ``part.geometry``), so the report stays the description's own, the same for
    every copy of its tree."""
    from mime_gui.multibody.tree import Mesh

    for tree in trees:
        report = tree.report
        report.warnings[:] = [w for w in report.warnings if not w.code.startswith("mesh.")]
        seen: set[str] = set()
        for link in tree.links.values():
            if link.name in tree.part_links:
                continue
            for shape in (*link.visuals, *link.collisions):
                g = shape.geometry
                if not isinstance(g, Mesh) or g.filename is None:
                    continue
                asset = assets.get(cache_key(g.filename, g.scale))
                if asset is None or asset.source in seen or not (asset.placeholder or asset.notes):
                    continue
                seen.add(asset.source)
                if asset.placeholder:
                    cause = asset.message.removeprefix(f"{g.filename}: ")
                    report.warn("mesh.placeholder", f"mesh {g.uri!r} of link {link.name!r} ({g.filename}) "
                                f"cannot be drawn: {cause}; a marked placeholder stands in", shape.line)
                for note in asset.notes:
                    report.warn("mesh.defect", f"mesh {g.uri!r} of link {link.name!r} ({g.filename}): "
                                f"{note}", shape.line)


__all__ = [
    "DEFAULT_RGBA",
    "MeshAsset",
    "MeshPiece",
    "MeshLoadWarning",
    "MeshLoader",
    "MeshRequest",
    "PLACEHOLDER_RGBA",
    "box_polydata",
    "cache_key",
    "cached",
    "capsule_polydata",
    "clear_cache",
    "clear_caches",
    "cylinder_polydata",
    "load_all",
    "load_mesh",
    "piece_rgba",
    "placeholder_polydata",
    "problems",
    "record_problems",
    "shades_flat",
    "sphere_polydata",
]
