"""The geometry actors of a link: its visual, collision and (for a grafted rig part) part shapes.

Boxes, cylinders and spheres are one shared unit mesh per kind, sized and placed by the actor's matrix
(``link_X_shape @ diag(size)``): they are built at once, share their GPU buffers, and a changed dimension only
changes a matrix. Mesh files are requested from :mod:`.meshes` (loaded once per file and scale, off the GUI
thread when asked) and their actors are made when the mesh arrives. A mesh file is drawn as one actor per
colour of the file (a single actor colour costs less per pixel than point colours); instances of one mesh
share a mapper. What a link's actors are (:func:`link_drawing`) is compared when its tree changes, so an edit
rebuilds only the links whose shapes changed, and only re-sizes those whose primitives changed size.
"""

from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np
import vtk

from mime_gui.app.scene import meshes as M
from mime_gui.app.scene.actors import ActorRegistry, SegmentActors, color_mapper
from mime_gui.multibody.tree import Box, Capsule, Cylinder, Mesh, Solid, Sphere
from mime_gui.session.renderer import ItemRef

COLLISION_RGBA = (0.35, 0.75, 0.95, 0.45)
#: Collision geometry is drawn translucent and pulled towards the camera by this polygon offset
#: (factor, units; added to VTK's defaults), so it wins the depth test where it coincides with the visual
#: mesh instead of flickering against it.
COLLISION_OFFSET = (-2.0, -8.0)


def _comparable(value):
    return value.tobytes() if isinstance(value, np.ndarray) else value


def geometry_signature(g) -> tuple:
    """The geometry's kind and field values, comparable with ``==``."""
    values = vars(g).values() if hasattr(g, "__dict__") else \
        (getattr(g, f.name) for f in dataclasses.fields(g))
    return (type(g).__name__, *(_comparable(v) for v in values))


def unit_primitive(g):
    """``(kind, size matrix)`` of a primitive drawn as the shared unit mesh of its kind scaled by the size
    matrix, or None (a mesh; a primitive with no positive finite size; a kind with no unit form)."""
    try:
        if isinstance(g, Box):
            kind, (x, y, z) = "box", g.size
        elif isinstance(g, Cylinder):
            kind, x, y, z = "cylinder", g.radius, g.radius, g.length
        elif isinstance(g, Sphere):
            kind, x, y, z = "sphere", g.radius, g.radius, g.radius
        else:
            return None
        x, y, z = float(x), float(y), float(z)
    except (TypeError, ValueError):  # not three numbers: drawn from its own mesh, if at all
        return None
    if not (0 < x < math.inf and 0 < y < math.inf and 0 < z < math.inf):
        return None
    return kind, np.diag((x, y, z, 1.0))


UNIT_POLYDATA = {  # unit meshes: the primitives of meshes.py at size 1
    "box": lambda: M.box_polydata((1.0, 1.0, 1.0)),
    "cylinder": lambda: M.cylinder_polydata(1.0, 1.0),
    "sphere": lambda: M.sphere_polydata(1.0),
}


class UnitMesh:
    """A unit primitive's polydata and what :func:`.meshes.shades_flat` needs to decide, for any size, whether
    the sized mesh shades flat: per face its area, unit normal and mean angle to its corners' smooth normals.
    (A box, a cylinder scaled (r, r, L) and a sphere scaled uniformly keep those angles; only the faces'
    areas, and so their weights, change with the size.)"""

    def __init__(self, kind: str):
        pd = self.polydata = UNIT_POLYDATA[kind]()
        faces = pd.regular_faces
        p = np.asarray(pd.points, dtype=float)
        n = np.asarray(pd.point_data["Normals"], dtype=float)
        fn = np.cross(p[faces[:, 1]] - p[faces[:, 0]], p[faces[:, 2]] - p[faces[:, 0]])
        self.area = np.linalg.norm(fn, axis=1)
        self.normal = fn / np.where(self.area > 0, self.area, 1.0)[:, None]
        cos = np.clip(np.einsum("fkj,fj->fk", n[faces], self.normal), -1.0, 1.0)
        self.angle = np.degrees(np.arccos(cos)).mean(axis=1)

    def shades_flat(self, S: np.ndarray) -> bool:
        size = np.diag(S)[:3]
        # a face's area under diag(size): area · det · |size⁻¹ · normal|
        area = self.area * np.prod(size) * np.linalg.norm(self.normal / size, axis=1)
        return bool(area.sum() > 0 and np.average(self.angle, weights=area) <= M.FLAT_DEGREES)


def layer_of(tree, link_name: str, kind: str) -> str:
    """A rig part's visual shapes are drawn in the parts layer."""
    return "parts" if kind == "visual" and link_name in tree.part_links else kind


def _rgba(shape):
    return None if shape.rgba is None else tuple(float(v) for v in shape.rgba)


def link_drawing(tree, link_name: str) -> tuple:
    """``(structure, sizes)`` of a link's geometry actors. Equal structures mean the same actors can draw the
    link. When every shape is a unit primitive, ``structure`` holds their kinds and colours and ``sizes`` maps
    a layer to each actor's ``(link_X_shape @ size, kind, size)`` in order (a changed placement or dimension
    only changes these); otherwise ``structure`` holds every shape whole (geometry, placement, colour) and
    ``sizes`` is None."""
    link = tree.links[link_name]
    shapes = [(kind, s) for kind, group in (("visual", link.visuals), ("collision", link.collisions))
              for s in group]
    units = [unit_primitive(s.geometry) for _, s in shapes]
    is_part = link_name in tree.part_links
    if all(u is not None for u in units):
        sizes: dict[str, list] = {}
        for (kind, shape), (unit, S) in zip(shapes, units, strict=True):
            sizes.setdefault(layer_of(tree, link_name, kind), []).append(
                (np.asarray(shape.link_X_shape, dtype=float) @ S, unit, S))
        structure = (is_part, tuple((kind, u[0], _rgba(s))
                                    for (kind, s), u in zip(shapes, units, strict=True)))
        return structure, sizes
    structure = (is_part, tuple((kind, geometry_signature(s.geometry),
                                 np.asarray(s.link_X_shape, dtype=float).tobytes(), _rgba(s))
                                for kind, s in shapes))
    return structure, None


def shape_rgba(shape, layer):
    if layer == "collision":
        return COLLISION_RGBA
    return tuple(shape.rgba) if shape.rgba is not None else M.DEFAULT_RGBA


def style_geometry(actor, layer) -> None:
    """Collision geometry: a translucent, unlit-looking overlay pulled towards the camera by a
    polygon offset, so where it coincides with the visual mesh it reads as a tint, not a flicker."""
    if layer == "collision":
        prop = actor.GetProperty()
        prop.SetRepresentationToSurface()
        prop.SetSpecular(0.0)
        prop.SetAmbient(0.45)
        prop.SetDiffuse(0.6)
        prop.SetOpacity(COLLISION_RGBA[3])
        prop.BackfaceCullingOn()  # one translucent layer per mesh: the far side does not darken it
        actor.GetMapper().SetRelativeCoincidentTopologyPolygonOffsetParameters(*COLLISION_OFFSET)


def primitive_polydata(g):
    """The polydata of a primitive geometry at its size (one with no unit form, see :func:`unit_primitive`),
    or None for a kind the view does not draw."""
    if isinstance(g, Box):
        return M.box_polydata(g.size)
    if isinstance(g, Cylinder):
        return M.cylinder_polydata(g.radius, g.length)
    if isinstance(g, Sphere):
        return M.sphere_polydata(g.radius)
    if isinstance(g, Capsule):
        return M.capsule_polydata(g.radius, g.length)
    if isinstance(g, Solid):  # a rig part's kind with no primitive: its kind's triangles
        return M.solid_polydata(g.vertices, g.faces)
    return None


class GeometryActors:
    """Builds the geometry actors of links and the mesh actors when their meshes arrive.

    ``asset_of`` maps a mesh actor's id to ``(MeshAsset, piece index or None)`` (display detail reads it);
    ``mesh_mappers`` lists ``(mapper, asset, index, layer)`` of every shared mesh mapper.
    """

    def __init__(self, registry: ActorRegistry, loader: M.MeshLoader):
        self.registry = registry
        self.loader = loader
        self.asset_of: dict[int, tuple] = {}
        self.mesh_mappers: list = []
        self._mappers: dict[tuple, vtk.vtkPolyDataMapper] = {}
        self._units: dict[str, UnitMesh] = {}
        self._unit_mappers: dict[tuple, vtk.vtkPolyDataMapper] = {}  # (kind, collision): one per style
        # mesh key -> [(segment, layer, link, shape, ref, token)] waiting for the mesh
        self.pending: dict[tuple, list] = {}
        self._batches: dict[int, bool] = {}  # loader batch id -> it opened a document (else an update)

    def clear(self) -> None:
        """Forget every mesh actor, mapper and pending mesh (a new document)."""
        self.asset_of.clear()
        self.mesh_mappers.clear()
        self._mappers.clear()
        self.pending.clear()
        self._batches.clear()

    # -- building ----------------------------------------------------------------------------------
    def build(self, seg: SegmentActors, links=None) -> list:
        """Primitive actors of ``links`` (all of the tree's by default) now; mesh requests returned, visual
        meshes first (actors made when the meshes arrive, see :meth:`add_meshes`)."""
        requests = []
        for link_name in seg.tree.links if links is None else links:
            requests += self._build_link(seg, link_name)
        requests.sort(key=lambda r: 0 if any(p[1] != "collision" for p in self.pending[r.key]) else 1)
        return requests

    def _build_link(self, seg: SegmentActors, link_name: str) -> list:
        tree = seg.tree
        link = tree.links[link_name]
        frame = seg.art.frame_index(link_name)
        ref = ItemRef(seg.name, "link", link_name)
        token = seg.tokens[link_name] = object()
        seg.drawn[("link", link_name)] = link_drawing(tree, link_name)
        requests = []
        for kind, shapes in (("visual", link.visuals), ("collision", link.collisions)):
            layer = layer_of(tree, link_name, kind)
            for shape in shapes:
                g = shape.geometry
                if isinstance(g, Mesh):
                    key = M.cache_key(g.filename, g.scale, g.uri)
                    self.pending.setdefault(key, []).append((seg.name, layer, link_name, shape, ref, token))
                    requests.append(M.MeshRequest(g.filename, tuple(g.scale), g.uri))
                    continue
                unit = unit_primitive(g)
                if unit is not None:
                    actor = self.registry.new_actor(None, shape_rgba(shape, layer),
                                                    mapper=self._unit_mapper(unit[0], layer == "collision"),
                                                    flat=self.unit_mesh(unit[0]).shades_flat(unit[1]))
                    local = np.asarray(shape.link_X_shape, dtype=float) @ unit[1]
                else:
                    pd, rgba = primitive_polydata(g), None
                    if pd is None:  # cannot be drawn (the read report says why): a marked placeholder
                        pd, rgba = M.placeholder_polydata(), M.PLACEHOLDER_RGBA
                    actor = self.registry.new_actor(pd, rgba or shape_rgba(shape, layer),
                                                    flat=M.shades_flat(pd))
                    if rgba is not None:
                        actor.GetProperty().SetLineWidth(2.0)
                        actor.GetProperty().LightingOff()
                    local = shape.link_X_shape
                style_geometry(actor, layer)
                self.registry.register(seg, layer, actor, frame, local, ref)
        return requests

    def unit_mesh(self, kind: str) -> UnitMesh:
        mesh = self._units.get(kind)
        if mesh is None:
            mesh = self._units[kind] = UnitMesh(kind)
        return mesh

    def _unit_mapper(self, kind: str, collision: bool):
        """The shared mapper of a unit primitive (collision geometry has its own: its polygon offset is the
        mapper's)."""
        mapper = self._unit_mappers.get((kind, collision))
        if mapper is None:
            mapper = self._unit_mappers[(kind, collision)] = vtk.vtkPolyDataMapper()
            mapper.SetInputData(self.unit_mesh(kind).polydata)
            mapper.ScalarVisibilityOff()
        return mapper

    def resize(self, actor, kind: str, S: np.ndarray) -> None:
        """A unit primitive's actor at a new size: its shading may change (its matrix is the caller's)."""
        prop = actor.GetProperty()
        if self.unit_mesh(kind).shades_flat(S):
            prop.SetInterpolationToFlat()
        else:
            prop.SetInterpolationToPhong()

    # -- meshes ------------------------------------------------------------------------------------
    def load(self, requests, async_meshes: bool, opens: bool):
        """Load the meshes of ``requests``: ``(results, problems)`` at once when they are all cached (or
        ``async_meshes`` is off), else None and the loader's ``finished`` signal follows (see
        :meth:`take_batch`). ``opens``: the batch belongs to a new document (not an update)."""
        if async_meshes and not all(M.cached(r.filename, r.scale) for r in requests):
            self._batches[self.loader.load(requests)] = opens
            return None
        return M.load_all(requests)

    def take_batch(self, batch: int) -> bool | None:
        """Whether a finished batch opened a document (True) or came from an update (False); None when the
        batch is no longer wanted (a newer document replaced it)."""
        return self._batches.pop(batch, None)

    def add_meshes(self, results: dict, problems) -> list:
        """Make the actors waiting for the meshes in ``results``; returns them. A shape whose link was
        rebuilt or removed since its request is dropped."""
        made = []
        for key, asset in results.items():
            for seg_name, layer, link_name, shape, ref, token in self.pending.pop(key, []):
                seg = self.registry.segments.get(seg_name)
                if seg is None or seg.tokens.get(link_name) is not token:
                    continue
                made += self._add_mesh_actor(seg, layer, seg.art.frame_index(link_name), shape, ref, asset)
        for message in problems:
            warnings.warn(message, M.MeshLoadWarning, stacklevel=3)
        return made

    def _add_mesh_actor(self, seg, layer, frame, shape, ref, asset) -> list:
        registry = self.registry
        if asset.placeholder:
            actor = registry.new_actor(asset.polydata, (1.0, 0.35, 0.3, 1.0))
            actor.GetProperty().SetLineWidth(2.0)
            actor.GetProperty().LightingOff()
            self.asset_of[id(actor)] = (asset, None)
            registry.register(seg, layer, actor, frame, shape.link_X_shape, ref)
            return [actor]
        if layer == "collision":  # one colour: the merged mesh, one actor
            mapper = self._mesh_mapper((asset.key, None), asset, None, asset.polydata, False, layer)
            actor = registry.new_actor(None, shape_rgba(shape, layer), mapper=mapper, flat=asset.flat)
            self.asset_of[id(actor)] = (asset, None)
            style_geometry(actor, layer)
            registry.register(seg, layer, actor, frame, shape.link_X_shape, ref)
            return [actor]
        # one actor per colour of the file: a single actor colour costs less per pixel than point colours
        made = []
        for i, piece in enumerate(asset.pieces):
            mapper = self._mesh_mapper((asset.key, i), asset, i, piece.polydata, piece.scalars, layer)
            rgba = M.piece_rgba(asset, piece, shape.rgba, shape_rgba(shape, layer))
            actor = registry.new_actor(None, rgba, mapper=mapper, flat=piece.flat)
            self.asset_of[id(actor)] = (asset, i)
            registry.register(seg, layer, actor, frame, shape.link_X_shape, ref, lead=i == 0)
            made.append(actor)
        return made

    def _mesh_mapper(self, key, asset, index, pd, colors, layer):
        """Instances of one mesh share a mapper (and its GPU buffers)."""
        mapper = self._mappers.get(key)
        if mapper is None:
            mapper = vtk.vtkPolyDataMapper()
            mapper.SetInputData(pd)
            color_mapper(mapper, colors)
            self._mappers[key] = mapper
            self.mesh_mappers.append((mapper, asset, index, layer))
        return mapper

    def forget(self, actor) -> bool:
        """A geometry actor is gone: drop its asset entry; True when it drew a mesh (then see
        :meth:`prune_mappers` for its mapper)."""
        return self.asset_of.pop(id(actor), None) is not None

    def prune_mappers(self) -> None:
        """Drop shared mesh mappers no actor uses any more (their meshes' links were removed or changed)."""
        used = {id(a.GetMapper()) for a in self.registry.geometry_actors()}
        self._mappers = {k: m for k, m in self._mappers.items() if id(m) in used}
        self.mesh_mappers = [entry for entry in self.mesh_mappers if id(entry[0]) in used]
