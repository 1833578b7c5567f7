"""Parts and magnets fixed in the world, in the 3D view: each drawn as its shape where the rig places it (its
centroid at ``at``, in the world's axes), in its material's colour, with the parts layer; a click on one
selects it; one whose shape breaks a rule is left out until it is fixed, as on a segment. A part mounted on
a segment is drawn as the link it is grafted as (the view's own actors); one
fixed in the world has no segment to be grafted on, so this draws it.

Like the part marks, it uses the view's public side only (``plotter``, ``layer_visible``,
``set_extra_geometry`` — so the camera fits and focuses them and the grid is sized for them —,
``request_render``); its actors are its own, made again only when a world part's shape, place or colour
changes.
"""

from __future__ import annotations

import numpy as np
import pyvista as pv
import vtk

from mime_gui.app.scene import meshes as M
from mime_gui.app.scene.geometry import primitive_polydata
from mime_gui.multibody import tree as description
from mime_gui.rig.visuals import part_rgba, part_shape
from mime_gui.session import ItemRef


def world_solids(rig) -> list[tuple[str, str, object]]:
    """``(kind, name, part)`` of every part (``"part"``) and magnet (``"magnet"``) with no mount."""
    if rig is None:
        return []
    return [("magnet" if collection == "magnets" else "part", name, part)
            for collection, name, part in rig.solids() if part.mount is None]


def world_X_part(part) -> np.ndarray:
    """A world-fixed part's frame: its centroid at ``at``, the world's axes."""
    X = np.eye(4)
    X[:3, 3] = part.at
    return X


def _polydata(shape) -> pv.PolyData | None:
    g = shape.geometry
    if isinstance(g, description.Mesh):
        if g.filename is None:
            return None
        from mime_gui.rig.geometries import load_mesh as _load_mesh

        try:
            mesh = _load_mesh(g.filename)
        except Exception:  # unreadable: the part's own finding says why
            return None
        faces = np.column_stack([np.full(len(mesh.faces), 3), mesh.faces]).ravel()
        return M._normals(pv.PolyData(np.asarray(mesh.vertices) * np.asarray(g.scale), faces))
    return primitive_polydata(g)


class WorldParts:
    def __init__(self, scene, session, bridge):
        self.scene = scene
        self.session = session
        self.renderer = scene.plotter.renderer
        self.actors: dict[str, object] = {}  # part or magnet name -> its actor
        self._refs: dict[str, ItemRef] = {}
        self._built: tuple | None = None
        bridge.rig_changed.connect(lambda _c: self.rebuild())
        bridge.document_changed.connect(lambda _d: self.rebuild(force=True))
        bridge.layers_changed.connect(lambda _l, _v: self.place())
        self.rebuild()

    def rebuild(self, force: bool = False) -> None:
        """An actor per world-fixed part and magnet; an edit that changes none of them only shows them."""
        solids = world_solids(self.session.rig)
        key = tuple((kind, name, part.geometry, part.at, part_rgba(part)) for kind, name, part in solids)
        if key == self._built and not force:
            self._register()  # again: a new document cleared the view's tables
            self.place()
            return
        for actor in self.actors.values():
            self.renderer.RemoveActor(actor)
            self.scene.set_extra_geometry(actor, None)
        self.actors = {}
        self._refs: dict[str, ItemRef] = {}
        base = getattr(self.session.rig, "base", None)
        for kind, name, part in solids:
            if part.geometry.problems(base):  # a shape being fixed (a finding) is drawn once it is one
                continue
            try:
                centroid = part.geometry.mass_properties(base).centroid
                shape = part_shape(part, centroid, base)
                pd = _polydata(shape)
            except Exception:  # a shape being fixed (a finding): drawn once it can be
                continue
            if pd is None or pd.n_points == 0:
                continue
            mapper = vtk.vtkPolyDataMapper()
            mapper.SetInputData(pd)
            actor = pv.Actor(mapper=mapper)
            r, g, b, a = shape.rgba
            actor.GetProperty().SetColor(r, g, b)
            actor.GetProperty().SetOpacity(a)
            actor.user_matrix = world_X_part(part) @ shape.link_X_shape
            self.renderer.AddActor(actor)
            self.actors[name] = actor
            self._refs[name] = ItemRef("", kind, name)
        self._built = key
        self._register()
        self.place()

    def _register(self) -> None:
        for name, actor in self.actors.items():
            self.scene.set_extra_geometry(actor, self._refs[name])

    def place(self) -> None:
        on = self.scene.layer_visible("parts")
        for actor in self.actors.values():
            actor.SetVisibility(on)
        if self.actors:
            self.scene.request_render()


def install_world_parts(scene, session, bridge) -> WorldParts | None:
    """World-fixed parts drawn in ``scene`` (None for a view without a plotter: the headless renderer)."""
    if getattr(scene, "plotter", None) is None:
        return None
    return WorldParts(scene, session, bridge)


__all__ = ["WorldParts", "install_world_parts", "world_X_part", "world_solids"]
