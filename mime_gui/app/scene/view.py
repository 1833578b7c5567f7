"""The 3D view: a :class:`SceneView` widget around ``pyvistaqt.QtInteractor`` implementing the Session's
:class:`~mime_gui.session.renderer.Renderer` protocol.

Every actor is built once, in the frame it is attached to (``frame_X_actor`` kept beside it); a pose update
computes ``world_X_frame @ frame_X_actor`` for all actors of a segment in one batched product and only
assigns ``actor.user_matrix``. Renders are coalesced: any number of :meth:`SceneView.request_render` calls in
one event-loop turn give one render, and a playback that outruns the renderer drops frames instead of
queueing them. Hidden layers are not moved; they catch up when shown.
"""

from __future__ import annotations

import fnmatch
import os
import re
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import pyvista as pv
import vtk
from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QVBoxLayout, QWidget
from pyvistaqt import QtInteractor

from mime_gui.app.scene import meshes as M
from mime_gui.multibody import frame_poses
from mime_gui.multibody.tree import Box, Capsule, Cylinder, Mesh, Sphere
from mime_gui.session.renderer import DEFAULT_LAYERS, LAYERS, ItemRef

GEOMETRY_LAYERS = ("visual", "collision", "parts")
OVERLAY_LAYERS = ("frames", "frame_labels", "joint_axes", "com")
STANDARD_VIEWS = {  # camera direction (from the focal point towards the camera) and view-up
    "iso": ((1.0, 0.8, 0.6), (0, 0, 1)),
    "front": ((1, 0, 0), (0, 0, 1)),
    "back": ((-1, 0, 0), (0, 0, 1)),
    "left": ((0, 1, 0), (0, 0, 1)),
    "right": ((0, -1, 0), (0, 0, 1)),
    "top": ((0, 0, 1), (1, 0, 0)),
    "bottom": ((0, 0, -1), (1, 0, 0)),
}
#: A solid dark-neutral background (as RViz): a gradient costs ~20 % of a frame on a software renderer.
BACKGROUND = "#31363e"
HIGHLIGHT_RGB = (1.0, 0.74, 0.16)
COLLISION_RGBA = (0.35, 0.75, 0.95, 0.45)
INERTIA_RGBA = (0.55, 0.85, 0.45, 0.35)
REVOLUTE_AXIS_RGB = (0.98, 0.82, 0.25)
PRISMATIC_AXIS_RGB = (0.35, 0.85, 0.95)
#: Collision geometry is drawn translucent and pulled towards the camera by this polygon offset
#: (factor, units; added to VTK's defaults), so it wins the depth test where it coincides with the visual
#: mesh instead of flickering against it.
COLLISION_OFFSET = (-2.0, -8.0)
#: The automatic display detail (on a slow, e.g. software, renderer) keeps frames between these times.
AUTO_SLOW_S = 1 / 30  # above: fewer faces
AUTO_TARGET_S = 1 / 40  # the frame time a new budget aims at
AUTO_FAST_S = 1 / 70  # below, while reduced: more faces
AUTO_MIN_BUDGET = 20_000
AUTO_SAMPLES = 5  # renders measured before a decision
TRIAD_FRACTION = 0.07  # triad length as a fraction of the model's bounding-box diagonal
SOFTWARE_GL = ("llvmpipe", "softpipe", "swrast", "software rasterizer", "lavapipe")


_SEE_THROUGH = ("visual", "parts")  # the layers the robot opacity setting applies to


@dataclass
class _Segment:
    name: str
    tree: object
    art: object
    poses: np.ndarray  # (nframes, 4, 4) current world_X_frame
    layers: dict = field(default_factory=dict)  # layer -> _Group
    labels: list = field(default_factory=list)  # vtkBillboardTextActor3D per frame
    frame_visible: np.ndarray | None = None  # per-frame user toggle


@dataclass
class _Group:
    """Actors of one layer of one segment, with the frame each hangs on and its fixed offset."""

    actors: list = field(default_factory=list)
    frames: list = field(default_factory=list)
    local: list = field(default_factory=list)
    refs: list = field(default_factory=list)
    lead: list = field(default_factory=list)  # False for the 2nd… single-colour actor of one mesh
    _frames_arr: np.ndarray | None = None
    _local_arr: np.ndarray | None = None

    def add(self, actor, frame: int, local: np.ndarray, ref: ItemRef, lead: bool = True) -> None:
        self.actors.append(actor)
        self.lead.append(lead)
        self.frames.append(frame)
        self.local.append(np.asarray(local, dtype=float))
        self.refs.append(ref)
        self._frames_arr = self._local_arr = None

    def arrays(self):
        if self._frames_arr is None:
            self._frames_arr = np.asarray(self.frames, dtype=np.intp)
            self._local_arr = np.stack(self.local) if self.local else np.zeros((0, 4, 4))
        return self._frames_arr, self._local_arr


def _rotation_to(axis) -> np.ndarray:
    """A rotation taking +x to ``axis``."""
    a = np.asarray(axis, dtype=float)
    a = a / (np.linalg.norm(a) or 1.0)
    x = np.array([1.0, 0.0, 0.0])
    v = np.cross(x, a)
    c = float(np.dot(x, a))
    if np.linalg.norm(v) < 1e-12:
        return np.eye(3) if c > 0 else np.diag([-1.0, -1.0, 1.0])
    vx = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
    return np.eye(3) + vx + vx @ vx * (1.0 / (1.0 + c))


def _triad_polydata() -> pv.PolyData:
    """Unit-length RGB axes as slim arrows, coloured by a ``RGB`` cell array."""
    parts = []
    for i, color in enumerate(((230, 64, 64), (80, 200, 90), (70, 120, 240))):
        d = np.zeros(3)
        d[i] = 1.0
        arrow = pv.Arrow(start=(0, 0, 0), direction=d, tip_length=0.24, tip_radius=0.085, shaft_radius=0.034,
                         tip_resolution=10, shaft_resolution=8, scale=1.0).triangulate()
        arrow.cell_data["RGB"] = np.tile(np.array(color, dtype=np.uint8), (arrow.n_cells, 1))
        parts.append(arrow)
    merged = parts[0].merge(parts[1:], merge_points=False)
    return merged.compute_normals(split_vertices=True, feature_angle=50)


def _com_polydata() -> pv.PolyData:
    """A unit sphere in the black-and-yellow octant pattern used for centres of mass."""
    s = pv.Sphere(radius=1.0, theta_resolution=24, phi_resolution=16)
    c = s.cell_centers().points
    sign = np.sign(c[:, 0]) * np.sign(c[:, 1]) * np.sign(c[:, 2])
    rgb = np.where(sign[:, None] > 0, np.array([245, 200, 40]), np.array([25, 25, 25])).astype(np.uint8)
    s.cell_data["RGB"] = rgb
    return s


def _arrow_polydata() -> pv.PolyData:
    arrow = pv.Arrow(start=(0, 0, 0), direction=(1, 0, 0), tip_length=0.25, tip_radius=0.07,
                     shaft_radius=0.025, tip_resolution=16, shaft_resolution=12, scale=1.0)
    return arrow.triangulate().compute_normals(split_vertices=True, feature_angle=50)


def equivalent_box(mass: float, inertia: np.ndarray):
    """Sides and axes of the uniform box with the same mass and principal moments:
    ``(sides (3,), R (3, 3))``."""
    moments, axes = np.linalg.eigh(0.5 * (inertia + inertia.T))
    if np.linalg.det(axes) < 0:
        axes[:, 2] = -axes[:, 2]
    a, b, c = moments
    sq = np.array([b + c - a, a + c - b, a + b - c]) * 6.0 / mass
    return np.sqrt(np.clip(sq, 0.0, None)), axes


class SceneView(QWidget):
    """The robot's 3D view. ``picked`` carries an :class:`ItemRef` (or None) after a click on the scene."""

    picked = Signal(object)
    meshes_progress = Signal(int, int, str)
    meshes_loaded = Signal(object)  # list of warning strings
    rendered = Signal()
    antialiasing_changed = Signal(bool)  # also after the first render detects the renderer
    detail_changed = Signal(int, int)  # faces of the shown geometry: (full detail, shown)

    def __init__(self, parent=None, *, async_meshes: bool = True, antialiasing: bool | None = None,
                 display_detail: int | str | None = "auto"):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.plotter = QtInteractor(self, auto_update=False, multi_samples=0)
        layout.addWidget(self.plotter)
        self.async_meshes = async_meshes
        self.render_count = 0
        self.last_render_seconds = 0.0
        self.warnings: list[str] = []
        self._closed = False
        self._first_document = True
        self._segments: dict[str, _Segment] = {}
        self._layers = dict(DEFAULT_LAYERS)
        self._by_actor: dict[int, ItemRef] = {}
        self._asset_of: dict[int, M.MeshAsset] = {}
        self._mesh_actors: list = []  # (actor, asset, layer) for display detail
        self._mappers: dict[tuple, vtk.vtkPolyDataMapper] = {}
        self._pending: dict[tuple, list] = {}  # mesh key -> [(segment, layer, frame, local, shape, ref)]
        self._batch = 0
        self._face_budget: int | None = None
        self._auto_detail = False
        self._auto_times: list[float] = []
        self._auto_skip = 0
        self._hidden: set[ItemRef] = set()
        self._visual_opacity = 1.0
        self._own_opacity: dict[int, float] = {}  # actor id -> its colour's own alpha (visual and parts)
        self._frame_filter = ""
        self._highlighted: ItemRef | None = None
        self._saved: list = []
        self._size = 1.0
        self._triad_pd = _triad_polydata()
        self._com_pd = _com_polydata()
        self._arrow_pd = _arrow_polydata()
        self._grid_actor = None
        self._hover_text = None
        self._hover_name = None
        self._press_pos = None
        self._hover_pos = None
        self.gl_renderer = ""
        self._aa_requested = antialiasing
        self._aa = False

        self._render_timer = QTimer(self)
        self._render_timer.setSingleShot(True)
        self._render_timer.setInterval(0)
        self._render_timer.timeout.connect(self._render_now)
        self._hover_timer = QTimer(self)
        self._hover_timer.setSingleShot(True)
        self._hover_timer.setInterval(30)
        self._hover_timer.timeout.connect(self._update_hover)

        self._loader = M.MeshLoader(self)
        self._loader.progress.connect(self.meshes_progress)
        self._loader.finished.connect(self._on_meshes)
        self._setup_look()
        self._setup_events()
        self.set_display_detail(display_detail)

    # -- look --------------------------------------------------------------------------------------
    def _setup_look(self) -> None:
        p = self.plotter
        # frames, joint axes and centres of mass draw over the geometry (they are mostly inside it)
        self._overlay = vtk.vtkRenderer()
        self._overlay.SetLayer(1)
        self._overlay.SetInteractive(False)
        self._overlay.SetActiveCamera(p.renderer.GetActiveCamera())
        p.ren_win.SetNumberOfLayers(max(2, p.ren_win.GetNumberOfLayers()))
        p.ren_win.AddRenderer(self._overlay)
        self._update_overlay_draw()
        p.set_background(BACKGROUND)
        # VTK's coincident-topology mode is global to the process: polygon offset, so the collision overlay's
        # relative offset (see _style_geometry) applies
        vtk.vtkMapper.SetResolveCoincidentTopologyToPolygonOffset()
        p.remove_all_lights()
        ren = p.renderer
        kit = vtk.vtkLightKit()
        kit.SetKeyLightIntensity(0.85)
        kit.SetKeyToFillRatio(2.5)
        kit.SetKeyToHeadRatio(3.0)
        kit.AddLightsToRenderer(ren)
        self._axes = _OrientationAxes(ren)
        try:  # 'q' would close the embedded interactor
            p.clear_events_for_key("q")
        except Exception:  # noqa: BLE001 - pyvista versions differ
            pass
        self._hover_text = vtk.vtkTextActor()
        prop = self._hover_text.GetTextProperty()
        prop.SetFontSize(15)
        prop.SetColor(1.0, 1.0, 1.0)
        prop.SetBackgroundColor(0.08, 0.09, 0.11)
        prop.SetBackgroundOpacity(0.75)
        prop.SetFrame(False)
        self._hover_text.SetVisibility(False)
        self._hover_text.SetPickable(False)
        ren.AddViewProp(self._hover_text)

    def _setup_events(self) -> None:
        iren = self.plotter.iren.interactor if self.plotter.iren is not None else None
        if iren is None:
            return
        iren.AddObserver("LeftButtonPressEvent", self._on_press, 10.0)
        iren.AddObserver("LeftButtonReleaseEvent", self._on_release, 10.0)
        iren.AddObserver("MouseMoveEvent", self._on_move, 10.0)

    # -- Renderer protocol -------------------------------------------------------------------------
    def show_segments(self, segments: dict) -> None:
        """Replace the scene with ``segments`` (name → MultibodyTree, or (tree, Articulation))."""
        self._clear()
        self.warnings = []
        self._hidden.clear()
        self._auto_restart()
        requests = []
        for name, value in segments.items():
            tree, art = value if isinstance(value, tuple) else (value, None)
            if art is None:
                art = tree.compile()
            poses = frame_poses(art, np.zeros(art.nq))
            seg = _Segment(name=name, tree=tree, art=art, poses=poses,
                           layers={layer: _Group() for layer in LAYERS},
                           frame_visible=np.ones(art.nframes, dtype=bool))
            self._segments[name] = seg
            requests += self._build_geometry(seg)
        self._size = self._model_size()
        for seg in self._segments.values():
            self._build_decorations(seg)
        self._rebuild_grid()
        self._apply_visibility()
        self._batch += 1
        if requests:
            if self.async_meshes and not all(M.cached(r.filename, r.scale) for r in requests):
                self._batch = self._loader.load(requests)
            else:
                results, problems = M.load_all(requests)
                self._on_meshes(self._batch, results, problems)
        else:
            self._apply_detail()
            self.meshes_loaded.emit([])
        if self._first_document:
            self._first_document = False
            self.view_standard("iso")
        else:
            self.reset_camera()

    def set_frame_poses(self, segment: str, world_X_frame: np.ndarray) -> None:
        seg = self._segments[segment]
        poses = np.asarray(world_X_frame, dtype=float)
        if poses.shape != seg.poses.shape:
            raise ValueError(f"segment {segment!r} has {seg.art.nframes} frames: expected poses of shape "
                             f"{seg.poses.shape}, got {poses.shape}")
        seg.poses = poses
        for layer, group in seg.layers.items():
            if self._layers.get(layer) and group.actors:
                self._place(seg, group)
        if self._layers["frame_labels"]:
            self._place_labels(seg)
        self.request_render()

    def set_layer_visible(self, layer: str, visible: bool) -> None:
        if layer not in LAYERS:
            raise ValueError(f"unknown layer {layer!r}; layers: {', '.join(LAYERS)}")
        visible = bool(visible)
        if self._layers[layer] == visible:
            return
        self._layers[layer] = visible
        if visible:  # hidden layers were not moved: catch up
            for seg in self._segments.values():
                self._place(seg, seg.layers[layer])
                if layer == "frame_labels":
                    self._place_labels(seg)
        self._apply_visibility()
        if layer in GEOMETRY_LAYERS:
            self._apply_detail()
        self.request_render()

    @property
    def loading(self) -> bool:
        """True while meshes of the shown document are still loading off the GUI thread."""
        return bool(self._pending)

    def layer_visible(self, layer: str) -> bool:
        return self._layers[layer]

    def highlight(self, item: ItemRef | None) -> None:
        self._restore_highlight()
        self._highlighted = item
        if item is not None:
            for actor in self._actors_of(item):
                self._highlight_actor(actor, item)
        self._update_overlay_draw()
        self.request_render()

    def _update_overlay_draw(self) -> None:
        """The overlay pass only runs when it has something to draw (each pass costs on a software GL)."""
        self._overlay.SetDraw(any(self._layers[layer] for layer in OVERLAY_LAYERS) or bool(self._saved))

    def request_render(self) -> None:
        if not self._closed and not self._render_timer.isActive():
            self._render_timer.start()

    # -- more view API -----------------------------------------------------------------------------
    def set_frame_visible(self, segment: str, frame: str, on: bool) -> None:
        seg = self._segments[segment]
        seg.frame_visible[seg.art.frame_index(frame)] = bool(on)
        self._apply_visibility()
        self.request_render()

    def set_item_visible(self, item: ItemRef, visible: bool) -> None:
        """Hide or show one item (the tree's context menu): a link (or part, magnet) hides every actor of
        it — visual, collision, parts, centre of mass, inertia box; a frame its triad and label; a joint its
        axis. The layer toggles still apply on top."""
        if item.kind in ("part", "magnet"):  # grafted parts are links of their segment's tree
            item = ItemRef(item.segment, "link", item.name)
        if visible:
            self._hidden.discard(item)
        else:
            self._hidden.add(item)
        self._apply_visibility()
        if self._face_budget is not None or self._auto_detail:
            self._apply_detail()
        else:
            self.detail_changed.emit(*self.triangle_counts())
        self.request_render()

    def item_visible(self, item: ItemRef) -> bool:
        if item.kind in ("part", "magnet"):
            item = ItemRef(item.segment, "link", item.name)
        return item not in self._hidden

    def set_frame_filter(self, pattern: str) -> None:
        """Show only frames whose name matches: a glob (``*``, ``?``) or else a case-insensitive substring."""
        self._frame_filter = (pattern or "").strip()
        self._apply_visibility()
        self.request_render()

    def focus(self, item: ItemRef) -> None:
        actors = [a for a in self._actors_of(item) if a.GetMapper() is not None]
        bounds = _union_bounds(actors)
        if bounds is None:
            seg = self._segments.get(item.segment)
            if seg is None:
                return
            frame = item.name if item.kind != "joint" else seg.tree.joints[item.name].child
            try:
                origin = seg.poses[seg.art.frame_index(frame)][:3, 3]
            except KeyError:
                return
            h = 0.1 * self._size
            lo, hi = origin - h, origin + h
            bounds = (lo[0], hi[0], lo[1], hi[1], lo[2], hi[2])
        self._fit(bounds, margin=1.3)
        self.request_render()

    def reset_camera(self) -> None:
        """Fit the visible geometry (the grid aside), keeping the view direction."""
        self._fit(self._scene_bounds())
        self.request_render()

    def _fit(self, bounds, margin: float = 1.08) -> None:
        ren = self.plotter.renderer
        if bounds is None:
            ren.ResetCamera()
            ren.ResetCameraClippingRange()
            return
        cam = ren.GetActiveCamera()
        lo = np.array(bounds[0::2], dtype=float)
        hi = np.array(bounds[1::2], dtype=float)
        centre = (lo + hi) / 2
        forward = np.array(cam.GetFocalPoint()) - np.array(cam.GetPosition())
        forward /= np.linalg.norm(forward) or 1.0
        up = np.array(cam.GetViewUp(), dtype=float)
        up -= forward * np.dot(up, forward)
        if np.linalg.norm(up) < 1e-9:
            up = np.array([0.0, 0.0, 1.0]) if abs(forward[2]) < 0.9 else np.array([1.0, 0.0, 0.0])
            up -= forward * np.dot(up, forward)
        up /= np.linalg.norm(up)
        right = np.cross(forward, up)
        corners = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1])
                            for z in (lo[2], hi[2])])
        rel = corners - centre
        half_w = float(np.abs(rel @ right).max())
        half_h = float(np.abs(rel @ up).max())
        depth = float(np.abs(rel @ forward).max())
        w, h = ren.GetSize()
        aspect = (w / h) if w > 0 and h > 0 else 1.0
        half_h = max(half_h, half_w / aspect, 1e-3) * margin
        tan = np.tan(np.radians(cam.GetViewAngle()) / 2)
        dist = half_h / tan + depth
        cam.SetFocalPoint(*centre)
        cam.SetPosition(*(centre - forward * dist))
        cam.SetViewUp(*up)
        cam.SetParallelScale(half_h)
        ren.ResetCameraClippingRange()

    def view_standard(self, name: str) -> None:
        if name not in STANDARD_VIEWS:
            raise ValueError(f"unknown view {name!r}; views: {', '.join(STANDARD_VIEWS)}")
        direction, up = STANDARD_VIEWS[name]
        cam = self.plotter.renderer.GetActiveCamera()
        focal = np.array(cam.GetFocalPoint())
        dist = cam.GetDistance()
        d = np.asarray(direction, dtype=float)
        d /= np.linalg.norm(d)
        cam.SetFocalPoint(*focal)
        cam.SetPosition(*(focal + d * dist))
        cam.SetViewUp(*up)
        self.reset_camera()

    def set_orthographic(self, on: bool) -> None:
        self.plotter.renderer.GetActiveCamera().SetParallelProjection(bool(on))
        self.reset_camera()

    def is_orthographic(self) -> bool:
        return bool(self.plotter.renderer.GetActiveCamera().GetParallelProjection())

    def set_display_detail(self, face_budget: int | str | None) -> None:
        """Decimate meshes for display only so the shown geometry stays under ``face_budget`` faces
        (None: full detail; ``"auto"``: a budget chosen from the measured frame times, see
        :meth:`_auto_step`). The models, physics and export never see it."""
        if isinstance(face_budget, str):
            if face_budget != "auto":
                raise ValueError(f"display detail {face_budget!r}: a face count, None or 'auto'")
            self._auto_detail = True
            self._face_budget = None
        else:
            self._auto_detail = False
            self._face_budget = None if face_budget is None else max(int(face_budget), 100)
        self._auto_restart()
        self._apply_detail()
        self.request_render()

    def display_detail(self) -> int | str | None:
        """The setting: a face budget, None (full) or ``"auto"``."""
        return "auto" if self._auto_detail else self._face_budget

    def face_budget(self) -> int | None:
        """The face budget in force now (the automatic one when the setting is ``"auto"``)."""
        return self._face_budget

    def detail_summary(self) -> str:
        """The triangle counts for the status bar: ``"134,924 faces"`` or
        ``"31,242 of 134,924 faces (auto)"``."""
        full, shown = self.triangle_counts()
        mode = " (auto)" if self._auto_detail else ""
        if shown == full:
            return f"{full:,} faces{mode}"
        return f"{shown:,} of {full:,} faces{mode}"

    def _auto_restart(self, skip: int = 2) -> None:
        """Forget measured frames; skip the next ``skip`` renders (they upload new geometry)."""
        self._auto_times = []
        self._auto_skip = skip

    def _auto_step(self, seconds: float) -> None:
        """One measured frame for the automatic display detail: after :data:`AUTO_SAMPLES` frames, a median
        over :data:`AUTO_SLOW_S` lowers the budget to aim at :data:`AUTO_TARGET_S` (frame time taken as
        proportional to the faces); one under :data:`AUTO_FAST_S` raises it again, up to full detail."""
        if not self._auto_detail or not self._segments:
            return
        if self._auto_skip > 0:
            self._auto_skip -= 1
            return
        self._auto_times.append(seconds)
        if len(self._auto_times) < AUTO_SAMPLES:
            return
        t = float(np.median(self._auto_times))
        self._auto_times = []
        full, shown = self.triangle_counts()
        if shown <= 0 or t <= 0:
            return
        wanted = int(shown * AUTO_TARGET_S / t) // 1000 * 1000
        budget = self._face_budget
        if t > AUTO_SLOW_S and wanted < 0.95 * shown:
            budget = max(wanted, AUTO_MIN_BUDGET)
            if budget >= shown:
                return
        elif t < AUTO_FAST_S and budget is not None and wanted > 1.05 * shown:
            budget = None if wanted >= full else wanted
        else:
            return
        self._face_budget = budget
        self._auto_restart(skip=1)
        self._apply_detail()
        self.request_render()

    def triangle_counts(self) -> tuple[int, int]:
        """Faces of the visible geometry layers: ``(full detail, shown)``."""
        full = shown = 0
        for actor in self._visible_geometry():
            f, n = self._faces_of(actor)
            full += f
            shown += n
        return full, shown

    def _visible_geometry(self):
        """The shown actors of the geometry layers (visual, collision, parts)."""
        for seg in self._segments.values():
            for layer in GEOMETRY_LAYERS:
                if self._layers[layer]:
                    yield from (a for a in seg.layers[layer].actors if a.GetVisibility())

    def set_visual_opacity(self, opacity: float) -> None:
        """See-through robot: the opacity (0.1 … 1) of the visual geometry and mounted parts, times each
        colour's own alpha, like RViz's robot-model alpha. Frames, axes and markers inside stay solid."""
        opacity = float(opacity)
        if not 0.1 <= opacity <= 1.0:
            raise ValueError(f"opacity {opacity} is outside 0.1 … 1")
        self._visual_opacity = opacity
        for seg in self._segments.values():
            for layer in _SEE_THROUGH:
                for actor in seg.layers[layer].actors:
                    actor.GetProperty().SetOpacity(self._own_opacity.get(id(actor), 1.0) * opacity)
        self.request_render()

    def visual_opacity(self) -> float:
        return self._visual_opacity

    def set_antialiasing(self, on: bool) -> None:
        self._aa_requested = bool(on)
        self._apply_aa()
        self.request_render()

    def antialiasing(self) -> bool:
        return self._aa

    @property
    def software_rendering(self) -> bool:
        return any(s in self.gl_renderer.lower() for s in SOFTWARE_GL)

    def actor_counts(self) -> dict:
        """Number of shapes each layer currently draws (a mesh file drawn as one actor per colour counts
        once; :meth:`actors` lists every actor)."""
        counts = {layer: 0 for layer in LAYERS}
        for seg in self._segments.values():
            for layer, group in seg.layers.items():
                counts[layer] += sum(1 for a, lead in zip(group.actors, group.lead, strict=True)
                                     if lead and a.GetVisibility())
            counts["frame_labels"] += sum(1 for a in seg.labels if a.GetVisibility())
        if self._grid_actor is not None and self._grid_actor.GetVisibility():
            counts["grid"] += 1
        return counts

    def actors(self, segment: str, layer: str) -> list:
        """The actors of one layer of one segment (for tests and tools)."""
        if layer == "frame_labels":
            return list(self._segments[segment].labels)
        return list(self._segments[segment].layers[layer].actors)

    def item_of(self, actor) -> ItemRef | None:
        return self._by_actor.get(id(actor))

    def pick(self, x: float, y: float) -> ItemRef | None:
        """Pick at display coordinates (VTK's, origin bottom-left) and emit :attr:`picked`."""
        picker = vtk.vtkPropPicker()
        prop = None
        for ren in (self._overlay, self.plotter.renderer):
            if picker.PickProp(x, y, ren):
                prop = picker.GetViewProp()
                break
        ref = self._by_actor.get(id(prop)) if prop is not None else None
        self.picked.emit(ref)
        return ref

    def segment_names(self) -> list[str]:
        return list(self._segments)

    def model_size(self) -> float:
        return self._size

    def close(self) -> bool:
        if self._closed:
            return True
        self._closed = True
        self._render_timer.stop()
        self._hover_timer.stop()
        self._loader.shutdown()
        self._segments.clear()
        self._by_actor.clear()
        self.plotter.close()
        return super().close()

    # -- building ----------------------------------------------------------------------------------
    def _new_actor(self, pd, rgba=None, colors=False, mapper=None, overlay=False, flat=False) -> pv.Actor:
        if mapper is None:
            mapper = vtk.vtkPolyDataMapper()
            mapper.SetInputData(pd)
            self._color_mapper(mapper, colors)
        actor = pv.Actor(mapper=mapper)
        prop = actor.GetProperty()
        if flat:  # finely tessellated: looks the same, and skips a per-pixel normal
            prop.SetInterpolationToFlat()
        else:
            prop.SetInterpolationToPhong()
        prop.SetSpecular(0.25)
        prop.SetSpecularPower(30.0)
        prop.SetDiffuse(0.85)
        prop.SetAmbient(0.12)
        if rgba is not None:
            prop.SetColor(*rgba[:3])
            if len(rgba) > 3 and rgba[3] < 1.0:
                prop.SetOpacity(float(rgba[3]))
        (self._overlay if overlay else self.plotter.renderer).AddActor(actor)
        return actor

    @staticmethod
    def _color_mapper(mapper, colors) -> None:
        """``colors``: False, True (the ``RGBA`` point array of a mesh) or the name of a cell array."""
        if colors is True:
            mapper.SetScalarModeToUsePointFieldData()
            mapper.SelectColorArray("RGBA")
            mapper.SetColorModeToDirectScalars()
            mapper.ScalarVisibilityOn()
        elif colors:
            mapper.SetScalarModeToUseCellFieldData()
            mapper.SelectColorArray(colors)
            mapper.SetColorModeToDirectScalars()
            mapper.ScalarVisibilityOn()
        else:
            mapper.ScalarVisibilityOff()

    def _register(self, seg: _Segment, layer: str, actor, frame: int, local, ref: ItemRef,
                  lead: bool = True) -> None:
        seg.layers[layer].add(actor, frame, local, ref, lead)
        self._by_actor[id(actor)] = ref
        if layer in _SEE_THROUGH:
            own = actor.GetProperty().GetOpacity()
            self._own_opacity[id(actor)] = own
            if self._visual_opacity < 1.0:
                actor.GetProperty().SetOpacity(own * self._visual_opacity)
        actor.user_matrix = seg.poses[frame] @ local

    def _build_geometry(self, seg: _Segment) -> list:
        """Primitive actors now; mesh requests returned (actors made when the meshes arrive)."""
        requests = []
        part_links = seg.tree.part_links
        for link_name, link in seg.tree.links.items():
            frame = seg.art.frame_index(link_name)
            ref = ItemRef(seg.name, "link", link_name)
            for kind, shapes in (("visual", link.visuals), ("collision", link.collisions)):
                layer = "parts" if (link_name in part_links and kind == "visual") else kind
                for shape in shapes:
                    g = shape.geometry
                    if isinstance(g, Mesh):
                        key = M.cache_key(g.filename, g.scale, g.uri)
                        self._pending.setdefault(key, []).append((seg.name, layer, frame, shape, ref))
                        requests.append(M.MeshRequest(g.filename, tuple(g.scale), g.uri))
                        continue
                    rgba = None
                    if isinstance(g, Box):
                        pd = M.box_polydata(g.size)
                    elif isinstance(g, Cylinder):
                        pd = M.cylinder_polydata(g.radius, g.length)
                    elif isinstance(g, Sphere):
                        pd = M.sphere_polydata(g.radius)
                    elif isinstance(g, Capsule):
                        pd = M.capsule_polydata(g.radius, g.length)
                    else:  # cannot be drawn (the read report says why): a marked placeholder
                        pd, rgba = M.placeholder_polydata(), M.PLACEHOLDER_RGBA
                    actor = self._new_actor(pd, rgba or self._shape_rgba(shape, layer),
                                            flat=M.shades_flat(pd))
                    if rgba is not None:
                        actor.GetProperty().SetLineWidth(2.0)
                        actor.GetProperty().LightingOff()
                    self._style_geometry(actor, layer)
                    self._register(seg, layer, actor, frame, shape.link_X_shape, ref)
        # visual meshes before collision meshes
        requests.sort(key=lambda r: 0 if any(p[1] != "collision" for p in self._pending[r.key]) else 1)
        return requests

    @staticmethod
    def _shape_rgba(shape, layer):
        if layer == "collision":
            return COLLISION_RGBA
        return tuple(shape.rgba) if shape.rgba is not None else M.DEFAULT_RGBA

    @staticmethod
    def _style_geometry(actor, layer) -> None:
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

    def _on_meshes(self, batch: int, results: dict, problems) -> None:
        if batch != self._batch or self._closed:
            return
        for key, asset in results.items():
            for seg_name, layer, frame, shape, ref in self._pending.pop(key, []):
                seg = self._segments.get(seg_name)
                if seg is None:
                    continue
                self._add_mesh_actor(seg, layer, frame, shape, ref, asset)
        self._pending.clear()
        M.record_problems([seg.tree for seg in self._segments.values()], results)
        for message in problems:
            warnings.warn(message, M.MeshLoadWarning, stacklevel=2)
        self.warnings.extend(problems)
        old = self._size
        self._size = self._model_size()
        if abs(self._size - old) > 1e-9 * max(old, 1.0):
            self._rescale_decorations()
            self._rebuild_grid()
        self._apply_visibility()
        self._auto_restart()
        self._apply_detail()
        self.reset_camera()
        self.meshes_loaded.emit(list(problems))

    def _add_mesh_actor(self, seg, layer, frame, shape, ref, asset) -> None:
        if asset.placeholder:
            actor = self._new_actor(asset.polydata, (1.0, 0.35, 0.3, 1.0))
            actor.GetProperty().SetLineWidth(2.0)
            actor.GetProperty().LightingOff()
            self._asset_of[id(actor)] = (asset, None)
            self._register(seg, layer, actor, frame, shape.link_X_shape, ref)
            return
        if layer == "collision":  # one colour: the merged mesh, one actor
            mapper = self._mesh_mapper((asset.key, None), asset, None, asset.polydata, False, layer)
            actor = self._new_actor(None, self._shape_rgba(shape, layer), mapper=mapper, flat=asset.flat)
            self._asset_of[id(actor)] = (asset, None)
            self._style_geometry(actor, layer)
            self._register(seg, layer, actor, frame, shape.link_X_shape, ref)
            return
        # one actor per colour of the file: a single actor colour costs less per pixel than point colours
        for i, piece in enumerate(asset.pieces):
            mapper = self._mesh_mapper((asset.key, i), asset, i, piece.polydata, piece.scalars, layer)
            rgba = M.piece_rgba(asset, piece, shape.rgba, self._shape_rgba(shape, layer))
            actor = self._new_actor(None, rgba, mapper=mapper, flat=piece.flat)
            self._asset_of[id(actor)] = (asset, i)
            self._register(seg, layer, actor, frame, shape.link_X_shape, ref, lead=i == 0)

    def _mesh_mapper(self, key, asset, index, pd, colors, layer):
        """Instances of one mesh share a mapper (and its GPU buffers)."""
        mapper = self._mappers.get(key)
        if mapper is None:
            mapper = vtk.vtkPolyDataMapper()
            mapper.SetInputData(pd)
            self._color_mapper(mapper, colors)
            self._mappers[key] = mapper
            self._mesh_actors.append((mapper, asset, index, layer))
        return mapper

    def _build_decorations(self, seg: _Segment) -> None:
        art, tree, s = seg.art, seg.tree, self._size
        eye = np.eye(4)
        for i, fname in enumerate(art.frame_names):
            triad = self._new_actor(None, None, mapper=self._shared_mapper("triad", self._triad_pd, "RGB"),
                                   overlay=True)
            triad.SetScale(TRIAD_FRACTION * s)
            triad.GetProperty().SetSpecular(0.1)
            self._register(seg, "frames", triad, i, eye, ItemRef(seg.name, "frame", fname))
            label = vtk.vtkBillboardTextActor3D()
            label.SetInput(fname)
            tp = label.GetTextProperty()
            tp.SetFontSize(13)
            tp.SetColor(0.95, 0.95, 0.95)
            tp.SetBackgroundColor(0.1, 0.1, 0.12)
            tp.SetBackgroundOpacity(0.55)
            label.SetDisplayOffset(6, 6)
            label.SetPickable(False)
            self._overlay.AddActor(label)
            seg.labels.append(label)
        for jname in art.joint_names:
            joint = tree.joints[jname]
            frame = art.frame_index(joint.child)
            local = np.eye(4)
            local[:3, :3] = _rotation_to(joint.axis)
            color = PRISMATIC_AXIS_RGB if joint.type == "prismatic" else REVOLUTE_AXIS_RGB
            actor = self._new_actor(None, color, mapper=self._shared_mapper("arrow", self._arrow_pd, None),
                                   overlay=True)
            actor.SetScale(1.6 * TRIAD_FRACTION * s)
            self._register(seg, "joint_axes", actor, frame, local, ItemRef(seg.name, "joint", jname))
        for link_name, link in tree.links.items():
            inertial = link.inertial
            if inertial is None or not inertial.mass > 0:
                continue
            frame = art.frame_index(link_name)
            ref = ItemRef(seg.name, "link", link_name)
            com = self._new_actor(None, None, mapper=self._shared_mapper("com", self._com_pd, "RGB"),
                                 overlay=True)
            com.SetScale(0.22 * TRIAD_FRACTION * s)
            local = np.eye(4)
            local[:3, 3] = inertial.link_X_com[:3, 3]
            self._register(seg, "com", com, frame, local, ref)
            sides, axes = equivalent_box(inertial.mass, np.asarray(inertial.inertia, dtype=float))
            if not np.all(np.isfinite(sides)) or sides.max() <= 0:
                continue
            sides = np.maximum(sides, 1e-3 * max(sides.max(), 1e-6))
            box = self._new_actor(M.box_polydata(sides), INERTIA_RGBA)
            box.GetProperty().SetSpecular(0.0)
            local = np.asarray(inertial.link_X_com, dtype=float).copy()
            local[:3, :3] = local[:3, :3] @ axes
            self._register(seg, "inertia", box, frame, local, ref)

    def _shared_mapper(self, name, pd, colors):
        mapper = self._mappers.get(name)
        if mapper is None:
            mapper = vtk.vtkPolyDataMapper()
            mapper.SetInputData(pd)
            self._color_mapper(mapper, colors)
            self._mappers[name] = mapper
        return mapper

    def _rescale_decorations(self) -> None:
        s = self._size
        for seg in self._segments.values():
            for a in seg.layers["frames"].actors:
                a.SetScale(TRIAD_FRACTION * s)
            for a in seg.layers["joint_axes"].actors:
                a.SetScale(1.6 * TRIAD_FRACTION * s)
            for a in seg.layers["com"].actors:
                a.SetScale(0.22 * TRIAD_FRACTION * s)

    def _rebuild_grid(self) -> None:
        ren = self.plotter.renderer
        if self._grid_actor is not None:
            ren.RemoveActor(self._grid_actor)
            self._grid_actor = None
        bounds = self._scene_bounds()
        if bounds is None:
            bounds = (-0.5, 0.5, -0.5, 0.5, 0.0, 0.0)
        cx, cy = (bounds[0] + bounds[1]) / 2, (bounds[2] + bounds[3]) / 2
        extent = max(bounds[1] - bounds[0], bounds[3] - bounds[2], self._size, 0.2) * 1.6
        step = _nice_step(extent / 16)
        n = int(np.ceil(extent / step / 2)) + 1
        half = n * step
        x0, y0 = np.floor(cx / step) * step, np.floor(cy / step) * step
        z = min(0.0, bounds[4])
        ticks = np.arange(-n, n + 1) * step
        pts, lines, colors = [], [], []
        for t in ticks:
            major = abs(round(t / step)) % 5 == 0
            c = (110, 117, 128) if major else (76, 82, 91)  # opaque: a translucent pass costs a lot here
            segments = (((x0 + t, y0 - half), (x0 + t, y0 + half)),
                        ((x0 - half, y0 + t), (x0 + half, y0 + t)))
            for a, b in segments:
                i = len(pts)
                pts += [(a[0], a[1], z), (b[0], b[1], z)]
                lines += [2, i, i + 1]
                colors.append(c)
        pd = pv.PolyData(np.array(pts, dtype=float), lines=np.array(lines))
        # colours on the points (each line has its own two): cell colours cost a texture lookup per fragment
        pd.point_data["RGB"] = np.repeat(np.array(colors, dtype=np.uint8), 2, axis=0)
        mapper = vtk.vtkPolyDataMapper()
        mapper.SetInputData(pd)
        mapper.SetScalarModeToUsePointFieldData()
        mapper.SelectColorArray("RGB")
        mapper.SetColorModeToDirectScalars()
        mapper.ScalarVisibilityOn()
        actor = pv.Actor(mapper=mapper)
        actor.GetProperty().LightingOff()
        actor.SetPickable(False)
        ren.AddActor(actor)
        self._grid_actor = actor
        self._grid_actor.SetVisibility(self._layers["grid"])

    def _clear(self) -> None:
        self._restore_highlight()
        self._highlighted = None
        ren = self.plotter.renderer
        for seg in self._segments.values():
            for group in seg.layers.values():
                for a in group.actors:
                    ren.RemoveActor(a)
                    self._overlay.RemoveActor(a)
            for a in seg.labels:
                self._overlay.RemoveActor(a)
        self._segments.clear()
        self._by_actor.clear()
        self._own_opacity.clear()
        self._asset_of.clear()
        self._mesh_actors.clear()
        self._mappers.clear()
        self._pending.clear()
        self._hover_name = None
        if self._hover_text is not None:
            self._hover_text.SetVisibility(False)

    # -- placing and visibility ----------------------------------------------------------------------
    @staticmethod
    def _place(seg: _Segment, group: _Group) -> None:
        if not group.actors:
            return
        frames, local = group.arrays()
        matrices = np.matmul(seg.poses[frames], local)
        for actor, m in zip(group.actors, matrices, strict=True):
            actor.user_matrix = m

    def _place_labels(self, seg: _Segment) -> None:
        # labels are screen-aligned text: placed by their anchor point
        size = TRIAD_FRACTION * self._size * 0.3
        for label, pose in zip(seg.labels, seg.poses, strict=True):
            p = pose[:3, 3]
            label.SetPosition(p[0], p[1], p[2] + size)

    def _frame_shown(self, seg: _Segment) -> np.ndarray:
        shown = seg.frame_visible.copy()
        if self._frame_filter:
            pat = self._frame_filter
            if any(ch in pat for ch in "*?["):
                rx = re.compile(fnmatch.translate(pat), re.IGNORECASE)
                match = [bool(rx.match(n)) for n in seg.art.frame_names]
            else:
                low = pat.lower()
                match = [low in n.lower() for n in seg.art.frame_names]
            shown &= np.array(match, dtype=bool)
        return shown

    def _apply_visibility(self) -> None:
        hidden = self._hidden
        for seg in self._segments.values():
            shown = self._frame_shown(seg)
            for layer, group in seg.layers.items():
                on = self._layers[layer]
                if layer == "frames":
                    for a, f, ref in zip(group.actors, group.frames, group.refs, strict=True):
                        a.SetVisibility(on and bool(shown[f]) and ref not in hidden)
                elif hidden:
                    for a, ref in zip(group.actors, group.refs, strict=True):
                        a.SetVisibility(on and ref not in hidden)
                else:
                    for a in group.actors:
                        a.SetVisibility(on)
            on = self._layers["frame_labels"]
            for i, label in enumerate(seg.labels):
                hide = bool(hidden) and ItemRef(seg.name, "frame", seg.art.frame_names[i]) in hidden
                label.SetVisibility(on and bool(shown[i]) and not hide)
        if self._grid_actor is not None:
            self._grid_actor.SetVisibility(self._layers["grid"])
        self._update_overlay_draw()
        if self._highlighted is not None:  # a highlighted frame or axis stays visible, unless hidden
            for actor, _ in self._saved:
                if actor.GetMapper() is not None and self._by_actor.get(id(actor)) not in hidden:
                    actor.SetVisibility(True)

    def _faces_of(self, actor) -> tuple[int, int]:
        """``(full detail, shown)`` faces of one actor."""
        data = actor.GetMapper().GetInput()
        shown = data.GetNumberOfCells() if data is not None else 0
        asset, index = self._asset_of.get(id(actor), (None, None))
        if asset is None or asset.placeholder:
            return shown, shown
        return (asset.n_faces if index is None else asset.pieces[index].n_faces), shown

    def _apply_detail(self) -> None:
        budget = self._face_budget
        total_mesh = other = 0
        for actor in self._visible_geometry():
            asset, _ = self._asset_of.get(id(actor), (None, None))
            full, shown = self._faces_of(actor)
            if asset is not None and not asset.placeholder:
                total_mesh += full
            else:
                other += shown
        keep = 1.0
        if budget is not None and total_mesh > 0 and total_mesh + other > budget:
            keep = max(budget - other, 0.05 * budget) / total_mesh
        for mapper, asset, index, _layer in self._mesh_actors:
            if index is None:
                pd = asset.decimated(keep) if keep < 1.0 else asset.polydata
            else:
                pd = asset.decimated_pieces(keep)[index] if keep < 1.0 else asset.pieces[index].polydata
            if mapper.GetInput() is not pd:
                mapper.SetInputData(pd)
        self.detail_changed.emit(*self.triangle_counts())

    # -- highlight ---------------------------------------------------------------------------------
    def _actors_of(self, item: ItemRef) -> list:
        seg = self._segments.get(item.segment)
        if seg is None:
            return []
        out = []
        if item.kind == "frame":
            out += [a for a, r in zip(seg.layers["frames"].actors, seg.layers["frames"].refs, strict=True)
                    if r.name == item.name]
            if item.name in seg.tree.links:
                out += self._actors_of(ItemRef(item.segment, "link", item.name))
            return out
        if item.kind == "joint":
            group = seg.layers["joint_axes"]
            out += [a for a, r in zip(group.actors, group.refs, strict=True) if r.name == item.name]
            joint = seg.tree.joints.get(item.name)
            if joint is not None:
                out += self._actors_of(ItemRef(item.segment, "link", joint.child))
            return out
        for layer in GEOMETRY_LAYERS:
            group = seg.layers[layer]
            out += [a for a, r in zip(group.actors, group.refs, strict=True) if r.name == item.name]
        return out

    def _highlight_actor(self, actor, item) -> None:
        prop = actor.GetProperty()
        saved = {"color": prop.GetColor(), "ambient": prop.GetAmbient(), "mapper": actor.GetMapper(),
                 "scale": actor.GetScale(), "visible": actor.GetVisibility(), "opacity": prop.GetOpacity()}
        self._saved.append((actor, saved))
        ref = self._by_actor.get(id(actor))
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

    def _restore_highlight(self) -> None:
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
        if self._segments:
            self._apply_visibility_without_highlight()

    def _apply_visibility_without_highlight(self) -> None:
        highlighted, self._highlighted = self._highlighted, None
        try:
            self._apply_visibility()
        finally:
            self._highlighted = highlighted

    # -- bounds ------------------------------------------------------------------------------------
    def _scene_bounds(self):
        actors = []
        for seg in self._segments.values():
            for layer in GEOMETRY_LAYERS:
                actors += seg.layers[layer].actors
        bounds = _union_bounds(actors)
        if bounds is None:
            pts = [seg.poses[:, :3, 3] for seg in self._segments.values() if seg.art.nframes]
            if not pts:
                return None
            p = np.concatenate(pts)
            lo, hi = p.min(axis=0) - 0.05, p.max(axis=0) + 0.05
            bounds = (lo[0], hi[0], lo[1], hi[1], lo[2], hi[2])
        return bounds

    def _model_size(self) -> float:
        b = self._scene_bounds()
        if b is None:
            return 1.0
        d = float(np.linalg.norm([b[1] - b[0], b[3] - b[2], b[5] - b[4]]))
        return d if d > 1e-6 else 1.0

    # -- rendering ---------------------------------------------------------------------------------
    def _render_now(self) -> None:
        if self._closed:
            return
        t0 = time.perf_counter()
        self.plotter.render()
        self.last_render_seconds = time.perf_counter() - t0
        self.render_count += 1
        if not self.gl_renderer:
            self._detect_gl()
        self._auto_step(self.last_render_seconds)
        self.rendered.emit()

    def render_now(self) -> None:
        """Render immediately (benchmarks, screenshots); normal code calls :meth:`request_render`."""
        self._render_timer.stop()
        self._render_now()

    def _detect_gl(self) -> None:
        try:
            caps = self.plotter.ren_win.ReportCapabilities() or ""
        except Exception:  # noqa: BLE001 - no context yet
            return
        for line in caps.splitlines():
            if "renderer string" in line.lower():
                self.gl_renderer = line.split(":", 1)[-1].strip()
                break
        else:
            return
        if os.environ.get("LIBGL_ALWAYS_SOFTWARE") == "1" and "software" not in self.gl_renderer:
            self.gl_renderer += " (LIBGL_ALWAYS_SOFTWARE)"
        if not self._apply_aa():  # tell the window the detected state even when it did not change
            self.antialiasing_changed.emit(self._aa)

    def _apply_aa(self) -> bool:
        """Apply the requested (or, unset, the detected) anti-aliasing; True when it changed."""
        want = self._aa_requested
        if want is None:
            if not self.gl_renderer:
                return False
            want = not self.software_rendering
        if want == self._aa:
            return False
        ren = self.plotter.renderer
        ren.SetUseFXAA(bool(want))
        self._aa = bool(want)
        self.request_render()
        self.antialiasing_changed.emit(self._aa)
        return True

    # -- mouse -------------------------------------------------------------------------------------
    def _on_press(self, iren, _event) -> None:
        self._press_pos = iren.GetEventPosition()

    def _on_release(self, iren, _event) -> None:
        if self._press_pos is None:
            return
        x, y = iren.GetEventPosition()
        px, py = self._press_pos
        self._press_pos = None
        if abs(x - px) + abs(y - py) <= 4:
            self.pick(x, y)
            self.request_render()

    def _on_move(self, iren, _event) -> None:
        self._hover_pos = iren.GetEventPosition()
        if not self._hover_timer.isActive():
            self._hover_timer.start()

    def _update_hover(self) -> None:
        if self._closed or not self._layers["frames"]:
            if self._hover_text is not None and self._hover_text.GetVisibility():
                self._hover_text.SetVisibility(False)
                self._hover_name = None
                self.request_render()
            return
        pos = self._hover_pos
        if pos is None:
            return
        name, where = self.frame_near(pos[0], pos[1])
        if name == self._hover_name:
            return
        self._hover_name = name
        if name is None:
            self._hover_text.SetVisibility(False)
        else:
            self._hover_text.SetInput(name)
            self._hover_text.SetPosition(where[0] + 10, where[1] + 8)
            self._hover_text.SetVisibility(True)
        self.request_render()

    def frame_near(self, x: float, y: float, radius: float = 14.0):
        """Name (``segment/frame`` with several segments) and display position of the shown frame origin
        nearest to display point ``(x, y)`` within ``radius`` pixels, or ``(None, None)``."""
        ren = self.plotter.renderer
        w, h = ren.GetSize()
        if w <= 0 or h <= 0:
            return None, None
        cam = ren.GetActiveCamera()
        mat = cam.GetCompositeProjectionTransformMatrix(ren.GetTiledAspectRatio(), -1, 1)
        P = np.array([[mat.GetElement(i, j) for j in range(4)] for i in range(4)])
        best, best_d, best_xy = None, radius, None
        many = len(self._segments) > 1
        for seg in self._segments.values():
            group = seg.layers["frames"]
            vis = np.array([a.GetVisibility() for a in group.actors], dtype=bool)
            if not vis.any():
                continue
            pts = seg.poses[:, :, 3] @ P.T
            ok = (pts[:, 3] > 0) & vis
            ndc = pts[:, :2] / np.where(pts[:, 3:4] == 0, 1, pts[:, 3:4])
            sx = (ndc[:, 0] + 1) * 0.5 * w
            sy = (ndc[:, 1] + 1) * 0.5 * h
            d = np.hypot(sx - x, sy - y)
            d[~ok] = np.inf
            i = int(np.argmin(d))
            if d[i] < best_d:
                best_d = d[i]
                best = f"{seg.name}/{seg.art.frame_names[i]}" if many else seg.art.frame_names[i]
                best_xy = (sx[i], sy[i])
        return best, best_xy


class _OrientationAxes:
    """The world axes in the bottom-left corner, drawn as 2D lines in the main renderer and re-aimed from
    the camera before each render. (PyVista's orientation widget draws the same in a renderer of its own: a
    second pass that cost ~5 % of a PR2 frame on a software renderer.)"""

    COLORS = ((0.93, 0.30, 0.30), (0.38, 0.82, 0.42), (0.35, 0.55, 1.0))
    LENGTH = 42.0  # pixels
    ORIGIN = (58.0, 58.0)

    def __init__(self, renderer):
        self.renderer = renderer
        pts = vtk.vtkPoints()
        pts.SetNumberOfPoints(4)
        lines = vtk.vtkCellArray()
        colors = vtk.vtkUnsignedCharArray()
        colors.SetNumberOfComponents(3)
        colors.SetName("RGB")
        for i, c in enumerate(self.COLORS):
            lines.InsertNextCell(2)
            lines.InsertCellPoint(0)
            lines.InsertCellPoint(i + 1)
            colors.InsertNextTuple3(*(255 * v for v in c))
        self.polydata = vtk.vtkPolyData()
        self.polydata.SetPoints(pts)
        self.polydata.SetLines(lines)
        self.polydata.GetCellData().SetScalars(colors)
        mapper = vtk.vtkPolyDataMapper2D()
        mapper.SetInputData(self.polydata)
        mapper.SetScalarModeToUseCellData()
        mapper.SetColorModeToDirectScalars()
        self.actor = vtk.vtkActor2D()
        self.actor.SetMapper(mapper)
        self.actor.GetProperty().SetLineWidth(2.5)
        self.actor.SetPickable(False)
        renderer.AddViewProp(self.actor)
        self.labels = []
        for name, c in zip("XYZ", self.COLORS, strict=True):
            label = vtk.vtkTextActor()
            label.SetInput(name)
            tp = label.GetTextProperty()
            tp.SetFontSize(13)
            tp.SetBold(True)
            tp.SetColor(*c)
            tp.SetJustificationToCentered()
            tp.SetVerticalJustificationToCentered()
            label.SetPickable(False)
            renderer.AddViewProp(label)
            self.labels.append(label)
        renderer.AddObserver("StartEvent", self.update)
        self.update()

    def update(self, *_args) -> None:
        cam = self.renderer.GetActiveCamera()
        m = cam.GetViewTransformMatrix()
        ox, oy = self.ORIGIN
        pts = self.polydata.GetPoints()
        pts.SetPoint(0, ox, oy, 0.0)
        for i, label in enumerate(self.labels):
            dx, dy = m.GetElement(0, i), m.GetElement(1, i)  # world axis i in view coordinates
            pts.SetPoint(i + 1, ox + self.LENGTH * dx, oy + self.LENGTH * dy, 0.0)
            label.SetPosition(ox + (self.LENGTH + 11) * dx, oy + (self.LENGTH + 11) * dy)
        pts.Modified()

    def directions(self) -> np.ndarray:
        """The drawn axes' screen directions (3, 2), for tests."""
        pts = np.array([self.polydata.GetPoints().GetPoint(i)[:2] for i in range(4)])
        return (pts[1:] - pts[0]) / self.LENGTH


def _union_bounds(actors):
    lo = np.full(3, np.inf)
    hi = np.full(3, -np.inf)
    for a in actors:
        if a.GetMapper() is None or a.GetMapper().GetInput() is None:
            continue
        b = a.GetBounds()
        if b is None or not np.all(np.isfinite(b)) or b[0] > b[1]:
            continue
        lo = np.minimum(lo, b[0::2])
        hi = np.maximum(hi, b[1::2])
    if not np.all(np.isfinite(lo)):
        return None
    return (lo[0], hi[0], lo[1], hi[1], lo[2], hi[2])


def _nice_step(x: float) -> float:
    if x <= 0:
        return 0.1
    e = 10.0 ** np.floor(np.log10(x))
    for m in (1.0, 2.0, 5.0, 10.0):
        if m * e >= x:
            return float(m * e)
    return float(10 * e)


__all__ = ["DEFAULT_LAYERS", "STANDARD_VIEWS", "SceneView", "equivalent_box"]
