"""The highlight of the selected item: its geometry drawn in one highlight colour, its frame triad or joint
axis enlarged (and shown even when its layer is off). Every property changed is saved and restored."""

from __future__ import annotations

import vtk

from mime_gui.app.scene.actors import ActorRegistry
from mime_gui.session.renderer import ItemRef

HIGHLIGHT_RGB = (1.0, 0.74, 0.16)


class Highlight:
    def __init__(self, registry: ActorRegistry):
        self.registry = registry
        self.item: ItemRef | None = None
        self._saved: list = []  # (actor, saved properties)

    def actors(self) -> list:
        """The actors lit now."""
        return [actor for actor, _ in self._saved]

    def light(self, item: ItemRef | None) -> None:
        """Light ``item``'s actors (call :meth:`restore` first)."""
        self.item = item
        if item is not None:
            for actor in self.registry.actors_of(item):
                self._light_actor(actor)

    def _light_actor(self, actor) -> None:
        prop = actor.GetProperty()
        saved = {"color": prop.GetColor(), "ambient": prop.GetAmbient(), "mapper": actor.GetMapper(),
                 "scale": actor.GetScale(), "visible": actor.GetVisibility(), "opacity": prop.GetOpacity()}
        self._saved.append((actor, saved))
        ref = self.registry.by_actor.get(id(actor))
        if ref is not None and ref.kind in ("frame", "joint"):
            actor.SetScale(*(1.6 * v for v in saved["scale"]))
            actor.SetVisibility(True)
            if ref.kind == "joint":
                prop.SetColor(*HIGHLIGHT_RGB)
            return
        mapper = actor.GetMapper()
        if mapper is not None and mapper.GetScalarVisibility():
            own = vtk.vtkPolyDataMapper()
            own.SetInputData(mapper.GetInput())
            own.ScalarVisibilityOff()
            actor.SetMapper(own)
        prop.SetColor(*HIGHLIGHT_RGB)
        prop.SetAmbient(0.45)
        prop.SetOpacity(max(saved["opacity"], 0.8))

    def restore(self) -> None:
        """Give every lit actor back its saved properties (the item stays remembered)."""
        for actor, saved in self._saved:
            prop = actor.GetProperty()
            if actor.GetMapper() is not saved["mapper"]:
                actor.SetMapper(saved["mapper"])
            prop.SetColor(*saved["color"])
            prop.SetAmbient(saved["ambient"])
            prop.SetOpacity(saved["opacity"])
            actor.SetScale(*saved["scale"])
            actor.SetVisibility(saved["visible"])
        self._saved = []
