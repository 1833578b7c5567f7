"""Parts and magnets fixed in the world, in the 3D view: each drawn as its shape where the rig places it (its
centroid at ``at``, in the world's axes), in its material's colour, with the parts layer; a click on one
selects it; one whose shape breaks a rule is left out until it is fixed, as on a segment. A part mounted on
a segment is drawn as the link it is grafted as (the view's own actors); one
fixed in the world has no segment to be grafted on, so this draws it.

It draws what the session pushes (the view's :attr:`~.view.SceneView.items`: a world-fixed item comes with
its shape and pose) and uses the view's public side only (``plotter``, ``layer_visible``,
``set_extra_geometry`` — so the camera fits and focuses them and the grid is sized for them —,
``request_render``); its actors are its own, made again only for the items an edit added or changed.
"""

from __future__ import annotations

import numpy as np
import pyvista as pv
import vtk

from mime_gui.app.scene import meshes as M
from mime_gui.app.scene.geometry import primitive_polydata
from mime_gui.multibody import tree as description


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
    def __init__(self, scene):
        self.scene = scene
        self.renderer = scene.plotter.renderer
        self.actors: dict[str, object] = {}  # part or magnet name -> its actor
        self._refs: dict[str, object] = {}  # name -> its ItemRef
        scene.items.listen(self)
        self.items_changed(None, True)

    def items_changed(self, change, reset: bool) -> None:
        """An actor per world-fixed part and magnet pushed; only those added or changed are made again (all
        of them when a document is shown)."""
        items = self.scene.items.items
        if reset:
            redo = set(self.actors) | {ref.name for ref, item in items.items() if item.shape is not None}
        else:
            redo = {ref.name for ref in (*change.added, *change.changed, *change.removed)
                    if ref.kind in ("part", "magnet")}
        for name in redo:
            actor = self.actors.pop(name, None)
            if actor is not None:
                self.renderer.RemoveActor(actor)
                self.scene.set_extra_geometry(actor, None)
                del self._refs[name]
        for ref, item in items.items():
            if ref.name in redo and item.shape is not None:
                self._make(ref, item)
        if reset:  # a new document cleared the view's tables
            for name, actor in self.actors.items():
                self.scene.set_extra_geometry(actor, self._refs[name])
        self.place()

    def _make(self, ref, item) -> None:
        shape = item.shape
        try:
            pd = _polydata(shape)
        except Exception:  # a shape being fixed (a finding): drawn once it can be
            return
        if pd is None or pd.n_points == 0:
            return
        mapper = vtk.vtkPolyDataMapper()
        mapper.SetInputData(pd)
        actor = pv.Actor(mapper=mapper)
        r, g, b, a = shape.rgba
        actor.GetProperty().SetColor(r, g, b)
        actor.GetProperty().SetOpacity(a)
        actor.user_matrix = self.scene.items.poses.get(ref, item.local) @ shape.link_X_shape
        self.renderer.AddActor(actor)
        self.actors[ref.name] = actor
        self._refs[ref.name] = ref
        self.scene.set_extra_geometry(actor, ref)

    def layer_changed(self, layer: str) -> None:
        if layer == "parts":
            self.place()

    def place(self) -> None:
        on = self.scene.layer_visible("parts")
        for actor in self.actors.values():
            actor.SetVisibility(on)
        if self.actors:
            self.scene.request_render()


def install_world_parts(scene) -> WorldParts | None:
    """World-fixed parts drawn in ``scene`` (None for a view without a plotter: the headless renderer)."""
    if getattr(scene, "plotter", None) is None:
        return None
    return WorldParts(scene)


__all__ = ["WorldParts", "install_world_parts"]
