"""The geometry actors of a link: its visual, collision and (for a grafted rig part) part shapes.

Primitives are built at once; mesh files are requested from :mod:`.meshes` (loaded once per file and scale,
off the GUI thread when asked) and their actors are made when the mesh arrives. A mesh file is drawn as one
actor per colour of the file (a single actor colour costs less per pixel than point colours); instances of
one mesh share a mapper and so its GPU buffers. What a link's actors are drawn from has a signature
(:func:`link_signature`), so a changed tree rebuilds only the links whose shapes changed.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import vtk

from mime_gui.app.scene import meshes as M
from mime_gui.app.scene.actors import ActorRegistry, SegmentActors, color_mapper
from mime_gui.multibody.tree import Box, Cylinder, Mesh, Sphere
from mime_gui.session.renderer import ItemRef

COLLISION_RGBA = (0.35, 0.75, 0.95, 0.45)
#: Collision geometry is drawn translucent and pulled towards the camera by this polygon offset
#: (factor, units; added to VTK's defaults), so it wins the depth test where it coincides with the visual
#: mesh instead of flickering against it.
COLLISION_OFFSET = (-2.0, -8.0)


def _frozen(value):
    """A hashable, comparable stand-in for a geometry field."""
    if isinstance(value, np.ndarray):
        return (value.shape, np.asarray(value, dtype=float).tobytes())
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    return value


def geometry_signature(g) -> tuple:
    if dataclasses.is_dataclass(g):
        return (type(g).__name__, *(_frozen(getattr(g, f.name)) for f in dataclasses.fields(g)))
    return (type(g).__name__, repr(g))


def _shape_signature(shape) -> tuple:
    rgba = None if shape.rgba is None else tuple(float(v) for v in shape.rgba)
    return (geometry_signature(shape.geometry), np.asarray(shape.link_X_shape, dtype=float).tobytes(), rgba)


def link_signature(tree, link_name: str) -> tuple:
    """What a link's geometry actors are drawn from: its shapes (geometry, placement, colour) and whether it
    is a rig part (drawn in the parts layer)."""
    link = tree.links[link_name]
    return (link_name in tree.part_links, tuple(_shape_signature(s) for s in link.visuals),
            tuple(_shape_signature(s) for s in link.collisions))


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
    """The polydata of a primitive geometry, or None for a kind the view does not draw."""
    if isinstance(g, Box):
        return M.box_polydata(g.size)
    if isinstance(g, Cylinder):
        return M.cylinder_polydata(g.radius, g.length)
    if isinstance(g, Sphere):
        return M.sphere_polydata(g.radius)
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
        seg.drawn[("link", link_name)] = link_signature(tree, link_name)
        requests = []
        for kind, shapes in (("visual", link.visuals), ("collision", link.collisions)):
            layer = "parts" if (link_name in tree.part_links and kind == "visual") else kind
            for shape in shapes:
                g = shape.geometry
                if isinstance(g, Mesh):
                    key = M.cache_key(g.filename, g.scale)
                    self.pending.setdefault(key, []).append((seg.name, layer, link_name, shape, ref, token))
                    requests.append(M.MeshRequest(g.filename, tuple(g.scale), g.uri))
                    continue
                pd = primitive_polydata(g)
                if pd is None:
                    continue
                actor = self.registry.new_actor(pd, shape_rgba(shape, layer), flat=M.shades_flat(pd))
                style_geometry(actor, layer)
                self.registry.register(seg, layer, actor, frame, shape.link_X_shape, ref)
        return requests

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

    def add_meshes(self, results: dict, problems) -> int:
        """Make the actors waiting for the meshes in ``results``; returns how many shapes got actors.
        A shape whose link was rebuilt or removed since its request is dropped."""
        made = 0
        for key, asset in results.items():
            for seg_name, layer, link_name, shape, ref, token in self.pending.pop(key, []):
                seg = self.registry.segments.get(seg_name)
                if seg is None or seg.tokens.get(link_name) is not token:
                    continue
                self._add_mesh_actor(seg, layer, seg.art.frame_index(link_name), shape, ref, asset)
                made += 1
        for message in problems:
            warnings.warn(message, M.MeshLoadWarning, stacklevel=3)
        return made

    def _add_mesh_actor(self, seg, layer, frame, shape, ref, asset) -> None:
        registry = self.registry
        if asset.placeholder:
            actor = registry.new_actor(asset.polydata, (1.0, 0.35, 0.3, 1.0))
            actor.GetProperty().SetLineWidth(2.0)
            actor.GetProperty().LightingOff()
            self.asset_of[id(actor)] = (asset, None)
            registry.register(seg, layer, actor, frame, shape.link_X_shape, ref)
            return
        if layer == "collision":  # one colour: the merged mesh, one actor
            mapper = self._mesh_mapper((asset.key, None), asset, None, asset.polydata, False, layer)
            actor = registry.new_actor(None, shape_rgba(shape, layer), mapper=mapper, flat=asset.flat)
            self.asset_of[id(actor)] = (asset, None)
            style_geometry(actor, layer)
            registry.register(seg, layer, actor, frame, shape.link_X_shape, ref)
            return
        # one actor per colour of the file: a single actor colour costs less per pixel than point colours
        for i, piece in enumerate(asset.pieces):
            mapper = self._mesh_mapper((asset.key, i), asset, i, piece.polydata, piece.scalars, layer)
            rgba = shape_rgba(shape, layer) if piece.rgba is None else tuple(piece.rgba / 255.0)
            actor = registry.new_actor(None, rgba, mapper=mapper, flat=piece.flat)
            self.asset_of[id(actor)] = (asset, i)
            registry.register(seg, layer, actor, frame, shape.link_X_shape, ref, lead=i == 0)

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

    def forget(self, actor) -> None:
        """A geometry actor is gone: drop its asset entry (see :meth:`prune_mappers` for its mapper)."""
        self.asset_of.pop(id(actor), None)

    def prune_mappers(self) -> None:
        """Drop shared mesh mappers no actor uses any more (their meshes' links were removed or changed)."""
        used = {id(a.GetMapper()) for a in self.registry.geometry_actors()}
        if len(used) >= len(self._mappers) and all(id(m) in used for m in self._mappers.values()):
            return
        self._mappers = {k: m for k, m in self._mappers.items() if id(m) in used}
        self.mesh_mappers = [entry for entry in self.mesh_mappers if id(entry[0]) in used]
