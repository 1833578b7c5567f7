"""Probes in the 3D view: a marker at each probe of the rig and an arrow along the magnets' field there,
recomputed whenever the rig's poses change (sliders, playback), so the arrow turns as the field does.

The field is :func:`mime_gui.field.field_now` at the session's frame poses, with the last good build's
magnets; while the rig does not build (a finding), or has no magnets, the arrows are hidden and the markers
stay. An arrow's length grows with log10 |B| from 1 µT (:data:`FLOOR`) to 1 T (:data:`CEILING`), scaled to
the model, so a sample's millitesla and a magnet's surface tesla both read. Like the part marks, it uses the
view's public side only (``plotter``, ``layer_visible``, ``model_size``, ``request_render``); its actors are
its own, shown with the parts layer.
"""

from __future__ import annotations

import math

import numpy as np
import pyvista as pv
import vtk

from mime_gui.app.scene.part_marks import _rotation_to
from mime_gui.session import ItemRef

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
    def __init__(self, scene, session, bridge):
        self.scene = scene
        self.session = session
        self.renderer = scene.plotter.renderer
        self.markers: dict[str, object] = {}
        self.arrows: dict[str, object] = {}
        self.field = None  # the last FieldTrajectory shown (one step), None when the arrows are hidden
        self._built: tuple | None = None
        bridge.rig_changed.connect(lambda _c: self.rebuild())
        bridge.document_changed.connect(lambda _d: self.rebuild())
        bridge.poses_changed.connect(lambda _s: self.place())
        bridge.layers_changed.connect(lambda _l, _v: self.place())
        bridge.selection_changed.connect(lambda _ref: self.place())
        self.rebuild()

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

    def _probes(self) -> dict:
        rig = self.session.rig
        return dict(getattr(rig, "probes", {}) or {}) if rig is not None else {}

    def rebuild(self) -> None:
        """A marker and an arrow per probe; an edit that changes no probe's name only moves them."""
        key = tuple(self._probes())
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
        for name, marker in self.markers.items():  # again after a new document cleared the view's table
            self._pick_as(marker, ItemRef("", "probe", name))
        self.place()

    def _pick_as(self, actor, ref) -> None:
        """A click on a marker selects its probe (through the view's picking)."""
        pick = getattr(self.scene, "set_pick_ref", None)
        if pick is not None:
            pick(actor, ref)

    def _where(self, probe) -> np.ndarray | None:
        """The probe's world position as the session draws the rig now (None on a frame it lacks)."""
        at = np.asarray(probe.at, dtype=float)
        if probe.mount is None:
            return at
        segment, _, frame = probe.mount.partition(".")
        try:
            world_X_frame = self.session.frame_world_pose(segment, frame)
        except Exception:  # a mount being fixed (a finding): the marker waits for it
            return None
        return world_X_frame[:3, :3] @ at + world_X_frame[:3, 3]

    def _field(self):
        doc = self.session.document
        built = getattr(doc, "built", None)
        if doc is None or built is None or doc.findings or not self.markers or not built.apparatus.magnets:
            return None
        from mime_gui.field import FieldError, field_now

        try:
            return field_now(built, self.session.frame_world_pose)
        except FieldError:  # a magnet the field has no source for: no arrows, the finding is the CLI's
            return None

    def place(self) -> None:
        if not self.markers:  # no probes: nothing to move or draw on a pose change
            return
        on = self.scene.layer_visible("parts")
        size = max(self.scene.model_size(), 1e-3)
        radius, longest = 0.008 * size, 0.12 * size
        selected = self.session.selection
        chosen = selected.name if selected is not None and selected.kind == "probe" else None
        self.field = self._field() if on else None
        B = {} if self.field is None else dict(zip(self.field.probe_names, self.field.B[0], strict=True))
        for name, probe in self._probes().items():
            marker, arrow = self.markers.get(name), self.arrows.get(name)
            if marker is None:
                continue
            where = self._where(probe) if on else None
            marker.SetVisibility(where is not None)
            b = B.get(name)
            magnitude = float(np.linalg.norm(b)) if b is not None else 0.0
            arrow.SetVisibility(where is not None and b is not None and magnitude > 0)
            if where is None:
                continue
            lit = name == chosen  # the selected probe: larger and yellow, as a lit part
            marker.GetProperty().SetColor(*(SELECTED_RGB if lit else PROBE_RGB))
            r = radius * (1.8 if lit else 1.0)
            X = np.diag([r, r, r, 1.0])
            X[:3, 3] = where
            marker.user_matrix = X
            if b is not None and magnitude > 0:
                A = np.eye(4)
                A[:3, :3] = _rotation_to(b / magnitude) * arrow_length(magnitude, longest)
                A[:3, 3] = where
                arrow.user_matrix = A
        self.scene.request_render()


def install_probe_marks(scene, session, bridge) -> ProbeMarks | None:
    if getattr(scene, "plotter", None) is None or not hasattr(scene, "layer_visible"):
        return None
    return ProbeMarks(scene, session, bridge)


__all__ = ["ProbeMarks", "arrow_length", "install_probe_marks"]
