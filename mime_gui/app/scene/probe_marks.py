"""Probes in the 3D view: a marker at each probe of the rig and an arrow along the magnets' field there,
recomputed whenever the pushed poses change (sliders, playback), so the arrow turns as the field does.

The probes, their poses and the build the field comes from are what the session pushed (the view's
:attr:`~.view.SceneView.items`); the field is :func:`mime_gui.field.field_now` with that build's magnets at
the view's frame poses, computed here, once per render at most: it is a drawing's input, and the session
publishes poses once per step. While the rig does not build (a finding), or has no magnets, the arrows are
hidden and the markers stay. An arrow's length grows with log10 |B| from 1 µT (:data:`FLOOR`) to 1 T
(:data:`CEILING`), scaled to the model, so a sample's millitesla and a magnet's surface tesla both read. It
uses the view's public side only (``plotter``, ``items``, ``layer_visible``, ``model_size``,
``request_render``); its actors are its own, shown with the parts layer.
"""

from __future__ import annotations

import math

import numpy as np
import pyvista as pv
import vtk

from mime_gui.app.scene.part_marks import _rotation_to
from mime_gui.session.renderer import ItemRef

PROBE_RGB = (0.16, 0.62, 0.32)
FIELD_RGB = (0.55, 0.22, 0.72)
SELECTED_RGB = (1.0, 0.74, 0.16)  # the highlight colour of a selected part
FLOOR = 1e-6  # T: an arrow's shortest length stands for this or less
CEILING = 1.0  # T: its longest length for this or more


def arrow_length(magnitude: float, longest: float) -> float:
    """The drawn length of a field of ``magnitude`` tesla: 10 % of ``longest`` at :data:`FLOOR` and below,
    all of it at :data:`CEILING` and above, linear in log10 |B| between."""
    if not math.isfinite(magnitude) or magnitude <= FLOOR:
        return 0.1 * longest
    share = math.log10(magnitude / FLOOR) / math.log10(CEILING / FLOOR)
    return longest * (0.1 + 0.9 * min(share, 1.0))


class ProbeMarks:
    def __init__(self, scene):
        self.scene = scene
        self.items = scene.items
        self.renderer = scene.plotter.renderer
        self.markers: dict[str, object] = {}
        self.arrows: dict[str, object] = {}
        self.field = None  # the last FieldTrajectory shown (one step), None when the arrows are hidden
        self._built: tuple | None = None
        self._field_key: tuple | None = None  # what the last field was computed from (see _field)
        self._field_value = None
        self.items.listen(self)
        self.items_changed(None, True)

    # what the view pushes
    def items_changed(self, _change, reset: bool) -> None:
        self.rebuild(reset)

    def items_moved(self, _refs) -> None:
        self.place()

    def selection_changed(self, _ref) -> None:
        self.place()

    def layer_changed(self, layer: str) -> None:
        if layer == "parts":
            self.place()

    def _actor(self, pd, rgb, pick=None):
        mapper = vtk.vtkPolyDataMapper()
        mapper.SetInputData(pd)
        actor = pv.Actor(mapper=mapper)
        prop = actor.GetProperty()
        prop.SetColor(*rgb)
        prop.SetAmbient(0.3)
        actor.SetPickable(pick is not None)
        self.renderer.AddActor(actor)
        return actor

    def rebuild(self, reset: bool = False) -> None:
        """A marker and an arrow per drawn probe; an edit that changes no probe's name only moves them."""
        key = tuple(ref.name for ref in self.items.items if ref.kind == "probe")
        if key != self._built:
            for actor in (*self.markers.values(), *self.arrows.values()):
                self.renderer.RemoveActor(actor)
                self._pick_as(actor, None)
            self.markers = {name: self._actor(pv.Sphere(radius=1.0, theta_resolution=12, phi_resolution=8),
                                              PROBE_RGB, pick=name) for name in key}
            # a unit arrow along +x from the probe: scaled to its length when placed
            self.arrows = {name: self._actor(pv.Arrow(start=(0, 0, 0), direction=(1, 0, 0), scale=1.0,
                                                      tip_length=0.25, tip_radius=0.08, shaft_radius=0.03),
                                             FIELD_RGB) for name in key}
            self._built = key
            reset = True
        if reset:  # again after a new document cleared the view's table
            for name, marker in self.markers.items():
                self._pick_as(marker, ItemRef("", "probe", name))
        self.place()

    def _pick_as(self, actor, ref) -> None:
        """A click on a marker selects its probe (through the view's picking)."""
        pick = getattr(self.scene, "set_pick_ref", None)
        if pick is not None:
            pick(actor, ref)

    def _field(self):
        built = self.items.field.built
        if built is None or not self.markers:
            return None
        from mime_gui.field import FieldError, field_now
        from mime_gui.rig.magnet_sources import magnet_sources

        names = built.frame_names
        try:
            poses = np.stack([self.scene.frame_pose(*name.split(".", 1)) for name in names]) if names else \
                np.zeros((0, 4, 4))
        except KeyError:  # a frame not drawn yet: no arrows
            return None
        # the same magnets and probes with their frames at the same poses (a part added, the selection
        # changed): the same field, without a Magpylib call
        rig = built.apparatus
        index = {name: i for i, name in enumerate(names)}
        try:
            used = [m.frame for m in magnet_sources(built) if m.frame is not None]
            used += [index[p.mount] for p in rig.probes.values() if p.mount is not None]
        except KeyError:  # a probe on a frame the rig does not have: field_now says so
            used = list(range(len(names)))
        key = (rig.magnets, rig.probes, rig.base, poses[used].tobytes())
        if self._field_key is not None and self._field_key == key:
            return self._field_value
        try:
            value = field_now(built, lambda segment, frame: poses[index[f"{segment}.{frame}"]])
        except (FieldError, KeyError):  # a magnet with no source: no arrows
            value = None
        self._field_key, self._field_value = key, value
        return value

    def place(self) -> None:
        if not self.markers:  # no probes: nothing to move or draw on a pose change
            return
        on = self.scene.layer_visible("parts")
        size = max(self.scene.model_size(), 1e-3)
        radius, longest = 0.008 * size, 0.12 * size
        selected = self.items.selection
        chosen = selected.name if selected is not None and selected.kind == "probe" else None
        self.field = self._field() if on else None
        B = {} if self.field is None else dict(zip(self.field.probe_names, self.field.B[0], strict=True))
        for name, marker in self.markers.items():
            arrow = self.arrows[name]
            X = self.items.poses.get(ItemRef("", "probe", name)) if on else None
            where = None if X is None else X[:3, 3]
            marker.SetVisibility(where is not None)
            b = B.get(name)
            magnitude = float(np.linalg.norm(b)) if b is not None else 0.0
            arrow.SetVisibility(where is not None and b is not None and magnitude > 0)
            if where is None:
                continue
            lit = name == chosen  # the selected probe: larger and yellow, as a lit part
            marker.GetProperty().SetColor(*(SELECTED_RGB if lit else PROBE_RGB))
            r = radius * (1.8 if lit else 1.0)
            M = np.diag([r, r, r, 1.0])
            M[:3, 3] = where
            marker.user_matrix = M
            if b is not None and magnitude > 0:
                A = np.eye(4)
                A[:3, :3] = _rotation_to(b / magnitude) * arrow_length(magnitude, longest)
                A[:3, 3] = where
                arrow.user_matrix = A
        self.scene.request_render()


def install_probe_marks(scene) -> ProbeMarks | None:
    if getattr(scene, "plotter", None) is None or not hasattr(scene, "items"):
        return None
    return ProbeMarks(scene)


__all__ = ["ProbeMarks", "arrow_length", "install_probe_marks"]
