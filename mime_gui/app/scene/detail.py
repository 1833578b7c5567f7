"""Display detail: meshes decimated for display only so the shown geometry stays under a face budget, fixed
or chosen automatically from the measured frame times. The models, physics and export never see it."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mime_gui.app.scene.actors import GEOMETRY_LAYERS, ActorRegistry
from mime_gui.app.scene.geometry import GeometryActors

#: The automatic display detail (on a slow, e.g. software, renderer) keeps frames between these times.
AUTO_SLOW_S = 1 / 30  # above: fewer faces
AUTO_TARGET_S = 1 / 40  # the frame time a new budget aims at
AUTO_FAST_S = 1 / 70  # below, while reduced: more faces
AUTO_MIN_BUDGET = 20_000
AUTO_SAMPLES = 5  # renders measured before a decision


class DisplayDetail:
    """``changed(full, shown)`` is called with the faces of the shown geometry after every application;
    ``request_render()`` after the automatic budget moves."""

    def __init__(self, registry: ActorRegistry, geometry: GeometryActors, layers: dict,
                 changed: Callable[[int, int], None], request_render: Callable[[], None]):
        self.registry = registry
        self.geometry = geometry
        self.layers = layers  # the view's layer toggles (read only)
        self.changed = changed
        self.request_render = request_render
        self.budget: int | None = None
        self.auto = False
        self._times: list[float] = []
        self._skip = 0

    def set(self, face_budget: int | str | None) -> None:
        if isinstance(face_budget, str):
            if face_budget != "auto":
                raise ValueError(f"display detail {face_budget!r}: a face count, None or 'auto'")
            self.auto = True
            self.budget = None
        else:
            self.auto = False
            self.budget = None if face_budget is None else max(int(face_budget), 100)
        self.restart()
        self.apply()

    def setting(self) -> int | str | None:
        return "auto" if self.auto else self.budget

    def summary(self) -> str:
        full, shown = self.triangle_counts()
        mode = " (auto)" if self.auto else ""
        if shown == full:
            return f"{full:,} faces{mode}"
        return f"{shown:,} of {full:,} faces{mode}"

    # -- the automatic budget ----------------------------------------------------------------------
    def restart(self, skip: int = 2) -> None:
        """Forget measured frames; skip the next ``skip`` renders (they upload new geometry)."""
        self._times = []
        self._skip = skip

    def step(self, seconds: float) -> None:
        """One measured frame for the automatic display detail: after :data:`AUTO_SAMPLES` frames, a median
        over :data:`AUTO_SLOW_S` lowers the budget to aim at :data:`AUTO_TARGET_S` (frame time taken as
        proportional to the faces); one under :data:`AUTO_FAST_S` raises it again, up to full detail."""
        if not self.auto or not self.registry.segments:
            return
        if self._skip > 0:
            self._skip -= 1
            return
        self._times.append(seconds)
        if len(self._times) < AUTO_SAMPLES:
            return
        t = float(np.median(self._times))
        self._times = []
        full, shown = self.triangle_counts()
        if shown <= 0 or t <= 0:
            return
        wanted = int(shown * AUTO_TARGET_S / t) // 1000 * 1000
        budget = self.budget
        if t > AUTO_SLOW_S and wanted < 0.95 * shown:
            budget = max(wanted, AUTO_MIN_BUDGET)
            if budget >= shown:
                return
        elif t < AUTO_FAST_S and budget is not None and wanted > 1.05 * shown:
            budget = None if wanted >= full else wanted
        else:
            return
        self.budget = budget
        self.restart(skip=1)
        self.apply()
        self.request_render()

    # -- faces -------------------------------------------------------------------------------------
    def visible_geometry(self):
        """The shown actors of the geometry layers (visual, collision, parts)."""
        for seg in self.registry.segments.values():
            for layer in GEOMETRY_LAYERS:
                if self.layers[layer]:
                    yield from (a for a in seg.layers[layer].actors if a.GetVisibility())

    def faces_of(self, actor) -> tuple[int, int]:
        """``(full detail, shown)`` faces of one actor."""
        data = actor.GetMapper().GetInput()
        shown = data.GetNumberOfCells() if data is not None else 0
        asset, index = self.geometry.asset_of.get(id(actor), (None, None))
        if asset is None or asset.placeholder:
            return shown, shown
        return (asset.n_faces if index is None else asset.pieces[index].n_faces), shown

    def triangle_counts(self) -> tuple[int, int]:
        """Faces of the visible geometry layers: ``(full detail, shown)``."""
        full = shown = 0
        for actor in self.visible_geometry():
            f, n = self.faces_of(actor)
            full += f
            shown += n
        return full, shown

    def apply(self) -> None:
        """Give every shared mesh mapper the display copy the budget in force asks for."""
        budget = self.budget
        total_mesh = other = 0
        for actor in self.visible_geometry():
            asset, _ = self.geometry.asset_of.get(id(actor), (None, None))
            full, shown = self.faces_of(actor)
            if asset is not None and not asset.placeholder:
                total_mesh += full
            else:
                other += shown
        keep = 1.0
        if budget is not None and total_mesh > 0 and total_mesh + other > budget:
            keep = max(budget - other, 0.05 * budget) / total_mesh
        for mapper, asset, index, _layer in self.geometry.mesh_mappers:
            if index is None:
                pd = asset.decimated(keep) if keep < 1.0 else asset.polydata
            else:
                pd = asset.decimated_pieces(keep)[index] if keep < 1.0 else asset.pieces[index].polydata
            if mapper.GetInput() is not pd:
                mapper.SetInputData(pd)
        self.changed(*self.triangle_counts())
