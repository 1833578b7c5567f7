"""The 3D view: a :class:`SceneView` widget around pyvistaqt's ``QtInteractor``
(:mod:`~mime_gui.app.scene.interactor`) implementing the Session's
:class:`~mime_gui.session.renderer.Renderer` protocol.

The widget composes one helper per concept, each in its own module:

- :mod:`.actors`: every actor by segment and layer, placed by ``user_matrix`` in one batched product;
- :mod:`.geometry`: the visual, collision and part actors of links, mesh actors when meshes arrive;
- :mod:`.decorations`: frame triads and labels, joint axes, centres of mass, inertia boxes, the grid and the
  orientation axes;
- :mod:`.visibility`: layers, hidden items, the frame filter, the robot opacity;
- :mod:`.highlight`, :mod:`.camera`, :mod:`.detail` (display detail), :mod:`.picking` (pick and hover) and
  :mod:`.render_loop` (coalesced renders, GL detection, anti-aliasing);
- :mod:`.changes`: a changed segment applied in place (:meth:`SceneView.update_segments`).

A pose update only assigns ``actor.user_matrix`` (hidden layers are not moved; they catch up when shown), on
the view's own copy of the poses. An edit rebuilds only the actors whose drawing changed, and never moves the
camera.
Renders are coalesced: any number of :meth:`SceneView.request_render` calls in one event-loop turn give one
render, and a playback that outruns the renderer drops frames instead of queueing them.
"""

from __future__ import annotations

import numpy as np
import vtk
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QVBoxLayout, QWidget

from mime_gui.app.scene import meshes as M
from mime_gui.app.scene.actors import (
    GEOMETRY_LAYERS,
    ActorRegistry,
    SegmentActors,
    diagonal,
    merge_bounds,
    union_bounds,
)
from mime_gui.app.scene.camera import STANDARD_VIEWS, Camera
from mime_gui.app.scene.changes import apply_changed
from mime_gui.app.scene.decorations import Decorations, OrientationAxes, equivalent_box
from mime_gui.app.scene.detail import (  # noqa: F401 - re-exported: the view's public constants
    AUTO_FAST_S,
    AUTO_MIN_BUDGET,
    AUTO_SAMPLES,
    AUTO_SLOW_S,
    AUTO_TARGET_S,
    DisplayDetail,
)
from mime_gui.app.scene.geometry import GeometryActors
from mime_gui.app.scene.handles import HandleDrag, Handles, Snap
from mime_gui.app.scene.highlight import Highlight
from mime_gui.app.scene.interactor import Interactor
from mime_gui.app.scene.items import SceneItems
from mime_gui.app.scene.picking import Picking
from mime_gui.app.scene.render_loop import RenderLoop
from mime_gui.app.scene.visibility import Visibility
from mime_gui.multibody import frame_poses
from mime_gui.session.renderer import DEFAULT_LAYERS, LAYERS, ItemRef

#: A solid dark-neutral background (as RViz): a gradient costs ~20 % of a frame on a software renderer.
BACKGROUND = "#31363e"

#: After an edit, markers and grid follow the model's size when it changed by more than this fraction.
SIZE_TOLERANCE = 0.1

_OrientationAxes = OrientationAxes  # the name tests and benchmarks import


class SceneView(QWidget):
    """The robot's 3D view. ``picked`` carries an :class:`ItemRef` (or None) after a click on the scene."""

    picked = Signal(object)
    meshes_progress = Signal(int, int, str)
    meshes_loaded = Signal(object)  # list of warning strings
    rendered = Signal()
    antialiasing_changed = Signal(bool)  # also after the first render detects the renderer
    detail_changed = Signal(int, int)  # faces of the shown geometry: (full detail, shown)
    handle_dragged = Signal(object)  # a HandleDrag: the selected item's handles pressed, moved, let go

    def __init__(self, parent=None, *, async_meshes: bool = True, antialiasing: bool | None = None,
                 display_detail: int | str | None = "auto"):
        super().__init__(parent)
        self._hold_camera = False
        self._selected: ItemRef | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.plotter = Interactor(self, auto_update=False, multi_samples=0)
        layout.addWidget(self.plotter)
        self.async_meshes = async_meshes
        self.warnings: list[str] = []
        self._closed = False
        self._first_document = True
        self._fit_on_nothing = False  # last fitted with no geometry (world items come after the segments)
        overlay = self._setup_look()

        self._registry = ActorRegistry(self.plotter.renderer, overlay)
        self._loader = M.MeshLoader(self)
        self._loader.progress.connect(self.meshes_progress)
        self._loader.finished.connect(self._on_meshes)
        self._geometry = GeometryActors(self._registry, self._loader)
        self._decorations = Decorations(self._registry)
        self._visibility = Visibility(self._registry, self._decorations)
        self._visibility.update_overlay_draw(False)
        self._highlight = Highlight(self._registry)
        self._camera = Camera(self.plotter.renderer, self._registry)
        self._loop = RenderLoop(self.plotter, self, rendered=self._rendered,
                                antialiasing_changed=self.antialiasing_changed.emit,
                                antialiasing=antialiasing)
        self._detail = DisplayDetail(self._registry, self._geometry, self._visibility.layers,
                                     changed=self.detail_changed.emit, request_render=self.request_render)
        self._axes = OrientationAxes(self.plotter.renderer)
        try:  # 'q' would close the embedded interactor
            self.plotter.clear_events_for_key("q")
        except Exception:  # noqa: BLE001 - pyvista versions differ
            pass
        self._picking = Picking(self.plotter, self._registry, self._visibility.layers, self,
                                picked=self.picked.emit, request_render=self.request_render)
        # the parts, magnets and probes as pushed; the marks draw from it, their moves just before a render
        self.items = SceneItems(self.frame_pose)
        self.add_before_render(self.items.flush)
        self.add_before_render(self._fit_world_items)
        self._handles = Handles(self.plotter, overlay, dragged=self.handle_dragged.emit,
                                request_render=self.request_render)
        self.add_before_render(self._follow_handles)
        self._picking.busy = lambda: self._handles.dragging  # a handle let go is no click
        self._visibility.overlay_wanted = self._handles.visible  # they are drawn over the geometry
        self.set_display_detail(display_detail)

    def _setup_look(self):
        """Background, lights and the overlay renderer; returns the overlay renderer."""
        p = self.plotter
        # frames, joint axes and centres of mass draw over the geometry (they are mostly inside it)
        overlay = vtk.vtkRenderer()
        overlay.SetLayer(1)
        overlay.SetInteractive(False)
        overlay.SetActiveCamera(p.renderer.GetActiveCamera())
        p.ren_win.SetNumberOfLayers(max(2, p.ren_win.GetNumberOfLayers()))
        p.ren_win.AddRenderer(overlay)
        p.set_background(BACKGROUND)
        # VTK's coincident-topology mode is global to the process: polygon offset, so the collision overlay's
        # relative offset (see geometry.style_geometry) applies
        vtk.vtkMapper.SetResolveCoincidentTopologyToPolygonOffset()
        p.remove_all_lights()
        kit = vtk.vtkLightKit()
        kit.SetKeyLightIntensity(0.85)
        kit.SetKeyToFillRatio(2.5)
        kit.SetKeyToHeadRatio(3.0)
        kit.AddLightsToRenderer(p.renderer)
        return overlay

    # -- Renderer protocol -------------------------------------------------------------------------
    def show_segments(self, segments: dict) -> None:
        """Replace the scene with ``segments`` (name → MultibodyTree, or (tree, Articulation))."""
        hold = self._hold_camera
        self._clear()
        self.warnings = []
        self._visibility.hidden.clear()
        self._detail.restart()
        requests = []
        for name, value in segments.items():
            tree, art = value if isinstance(value, tuple) else (value, None)
            if art is None:
                art = tree.compile()
            seg = SegmentActors(name=name, tree=tree, art=art, poses=frame_poses(art, np.zeros(art.nq)))
            self._registry.segments[name] = seg
            requests += self._geometry.build(seg)
        self._decorations.measure(self._registry.scene_bounds())
        for seg in self._registry.segments.values():
            self._decorations.build(seg)
        self._decorations.rebuild_grid(self._visibility.layers["grid"])
        self._apply_visibility()
        if requests:
            loaded = self._geometry.load(requests, self.async_meshes, opens=True)
            if loaded is not None:
                self._meshes_arrived(*loaded, opens=True)
        else:
            self._detail.apply()
            self.meshes_loaded.emit([])
        if hold:
            if not requests:  # else its meshes let go of the camera when they arrive
                self._hold_camera = False
        elif self._first_document:
            self._first_document = False
            self.view_standard("iso")
        else:
            self.reset_camera()

    def hold_camera(self, on: bool = True) -> None:
        """Keep the camera where the user put it through the next :meth:`show_segments` and its meshes
        (Reload: the same robot, read again); ``False`` lets go (the reload was refused)."""
        self._hold_camera = bool(on)
        if on:
            self._first_document = False

    def update_segments(self, changed: dict, removed=()) -> None:
        """Apply a change set in place: ``changed`` maps a segment name to its new ``(tree, Articulation)``
        (or tree), ``removed`` names segments that are gone. A changed segment keeps the actors of the links,
        frames and joints whose drawing did not change, moves those that only changed size or place, and
        builds only the others (see :mod:`.changes`); a new segment gets all its actors, a removed one loses
        all. Hidden items, layers, highlight, opacity and display detail carry over, and the camera does not
        move (hidden items that are gone are forgotten). Poses of new frames follow with the next
        :meth:`set_frame_poses`."""
        registry = self._registry
        item = self._highlight.item
        self._highlight.restore()
        geometry_changed = prune = False
        for name in removed:
            seg = registry.segments.pop(name, None)
            if seg is not None:
                prune |= any([self._geometry.forget(actor) for actor in registry.geometry_of(seg)])
                registry.forget_segment(seg)
                geometry_changed = True
        created = registry.created
        requests = []
        changed_segments = []
        touched = []  # geometry actors built or re-sized
        for name, value in changed.items():
            tree, art = value if isinstance(value, tuple) else (value, None)
            if art is None:
                art = tree.compile()
            old = registry.segments.get(name)
            if old is None:
                seg = SegmentActors(name=name, tree=tree, art=art, poses=frame_poses(art, np.zeros(art.nq)))
                registry.segments[name] = seg
                requests += self._geometry.build(seg)
                self._decorations.build(seg)
                touched += registry.geometry_of(seg)
            else:
                applied = apply_changed(old, tree, art, registry, self._geometry, self._decorations)
                seg = registry.segments[name] = applied.segment
                requests += applied.requests
                geometry_changed |= applied.removed_geometry > 0
                prune |= applied.removed_meshes
                touched += registry.geometry_of(seg, applied.touched)
            changed_segments.append(seg)
        geometry_changed |= registry.created > created
        if prune:
            self._geometry.prune_mappers()
        self._visibility.forget_gone(set(changed) | set(removed))
        self._follow_model_size(touched)
        if self._visibility.layers["frame_labels"]:
            for seg in changed_segments:
                self._decorations.place_labels(seg)
        # actors kept keep their visibility: only new ones need the layers, hidden items and frame filter
        self._relight(item, refresh=registry.created > created or bool(removed))
        if requests:
            loaded = self._geometry.load(requests, self.async_meshes, opens=False)
            if loaded is not None:
                self._meshes_arrived(*loaded, opens=False)
                geometry_changed = False  # applied with the meshes
        if geometry_changed:
            self._detail.apply()
        self.plotter.renderer.ResetCameraClippingRange()  # new geometry is not cut by the old planes
        self.request_render()

    def set_frame_poses(self, segment: str, world_X_frame: np.ndarray) -> None:
        """Move the segment's actors (shown layers only: hidden ones catch up when shown). The view keeps
        its own copy of the poses: the caller may rewrite its array afterwards."""
        seg = self._registry.segments[segment]
        poses = np.asarray(world_X_frame, dtype=float)
        if poses.shape != seg.poses.shape:
            raise ValueError(f"segment {segment!r} has {seg.art.nframes} frames: expected poses of shape "
                             f"{seg.poses.shape}, got {poses.shape}")
        if np.array_equal(poses, seg.poses):
            return  # every shown actor already stands where these poses put it (an edit elsewhere)
        seg.poses[...] = poses
        layers = self._visibility.layers
        for layer, group in seg.layers.items():
            if layers.get(layer) and group.actors:
                self._registry.place(seg, group)
        if layers["frame_labels"]:
            self._decorations.place_labels(seg)
        self.request_render()

    def show_items(self, change) -> None:
        """Replace the drawn parts, magnets and probes (see :mod:`.items`; the marks draw them)."""
        self.items.show(change)
        self.request_render()

    def update_items(self, change) -> None:
        """Apply an item change set in place: only the items added, changed and removed are drawn anew."""
        self.items.update(change)
        self.request_render()

    def set_item_poses(self, poses: dict, com=None) -> None:
        """Keep the moved items' poses (a copy); the marks are placed once, just before the next render."""
        if self.items.set_poses(poses, com):
            self.request_render()

    def frame_pose(self, segment: str, frame: str) -> np.ndarray:
        """The world pose of a drawn frame, as last pushed (KeyError for one the view does not draw)."""
        seg = self._registry.segments[segment]
        return seg.poses[seg.art.frame_index(frame)]

    def set_layer_visible(self, layer: str, visible: bool) -> None:
        self._visibility.check_layer(layer)
        visible = bool(visible)
        layers = self._visibility.layers
        if layers[layer] == visible:
            return
        layers[layer] = visible
        if visible:  # hidden layers were not moved: catch up
            for seg in self._registry.segments.values():
                self._registry.place(seg, seg.layers[layer])
                if layer == "frame_labels":
                    self._decorations.place_labels(seg)
        self._apply_visibility()
        if layer in GEOMETRY_LAYERS:
            self._detail.apply()
        self.items.layer(layer)
        self.request_render()

    def highlight(self, item: ItemRef | None) -> None:
        """Light the selected item (its outline and lit probe follow, through :attr:`items`); its handles
        come with it."""
        self.light(item)
        self.items.select(item)
        self._selected = item
        self._handles.show(*self._handle_target(item))
        self._visibility.update_overlay_draw(bool(self._highlight.actors()))

    # -- handles ---------------------------------------------------------------------------------------
    @property
    def handles(self) -> Handles:
        return self._handles

    def set_handles_enabled(self, on: bool) -> None:
        """Show the selected item's move and turn handles (on by default)."""
        self._handles.set_enabled(on)
        self._visibility.update_overlay_draw(bool(self._highlight.actors()))

    def handles_enabled(self) -> bool:
        return self._handles.enabled

    def set_snap(self, snap: Snap) -> None:
        """How handle drags snap (Ctrl inverts it for one drag)."""
        self._handles.snap = snap

    def snap(self) -> Snap:
        return self._handles.snap

    def _handle_target(self, ref: ItemRef | None):
        """``(ref, world pose, turns)`` of the handles for the selected ``ref``: a part, magnet or probe (its
        own pose; it moves), or a frame or link (its frame; it moves and turns); ``(None, None, False)``
        for anything else."""
        if ref is None:
            return None, None, False
        drawn = self.items.item_of(ref)
        if drawn is not None:
            return drawn.ref, self.items.poses.get(drawn.ref), False
        if ref.kind in ("frame", "link") and ref.segment in self._registry.segments:
            try:
                return ItemRef(ref.segment, "frame", ref.name), self.frame_pose(ref.segment, ref.name), True
            except KeyError:
                pass
        return None, None, False

    def _follow_handles(self) -> None:
        """Just before a render: the handles stand where their item is now (not while it is being dragged
        through an edit that has not drawn it yet: they follow the item, which follows the drag)."""
        handles = self._handles
        if handles.ref is None:
            return
        ref, pose, _turns = self._handle_target(self._selected)
        if ref == handles.ref and pose is not None:
            handles.move_to(pose)

    def light(self, item: ItemRef | None) -> None:
        """Light an item without selecting it (a drop's target while it is dragged over)."""
        self._highlight.restore()
        self._relight(item)
        self.request_render()

    def request_render(self) -> None:
        self._loop.request()

    # -- more view API -----------------------------------------------------------------------------
    @property
    def loading(self) -> bool:
        """True while meshes of the shown document are still loading off the GUI thread."""
        return bool(self._geometry.pending)

    def layer_visible(self, layer: str) -> bool:
        return self._visibility.layers[layer]

    def set_frame_visible(self, segment: str, frame: str, on: bool) -> None:
        seg = self._registry.segments[segment]
        seg.frame_visible[seg.art.frame_index(frame)] = bool(on)
        self._apply_visibility()
        self.request_render()

    def set_item_visible(self, item: ItemRef, visible: bool) -> None:
        """Hide or show one item (the tree's context menu): a link (or part, magnet) hides every actor of
        it — visual, collision, parts, centre of mass, inertia box; a frame its triad and label; a joint its
        axis. The layer toggles still apply on top."""
        self._visibility.set_item(item, visible)
        self._apply_visibility()
        if self._detail.budget is not None or self._detail.auto:
            self._detail.apply()
        else:
            self.detail_changed.emit(*self.triangle_counts())
        self.request_render()

    def item_visible(self, item: ItemRef) -> bool:
        return self._visibility.item_visible(item)

    def set_frame_filter(self, pattern: str) -> None:
        """Show only frames whose name matches: a glob (``*``, ``?``) or else a case-insensitive substring.
        The same pattern again changes nothing (frames an edit adds are filtered as they are drawn)."""
        pattern = (pattern or "").strip()
        if pattern == self._visibility.frame_filter:
            return
        self._visibility.frame_filter = pattern
        self._apply_visibility()
        self.request_render()

    def focus(self, item: ItemRef) -> None:
        """Fit ``item`` in the view; a probe, sample or zone (drawn by the marks, not the registry) by a box
        of its size around where it is."""
        drawn = self.items.items.get(item) if item.kind in ("probe", "sample", "zone") else None
        X = self.items.poses.get(item) if drawn is not None else None
        if X is not None:
            h = max(max(drawn.half_extents or (0.0,)), 0.05 * self._decorations.size)
            lo, hi = X[:3, 3] - h, X[:3, 3] + h
            self._camera.fit((lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]), margin=1.3)
        else:
            self._camera.focus(item, self._decorations.size)
        self.request_render()

    def reset_camera(self) -> None:
        """Fit the visible geometry (the grid aside), keeping the view direction."""
        self._fit_on_nothing = self._registry.scene_bounds() is None
        self._camera.reset()
        self.request_render()

    def view_standard(self, name: str) -> None:
        self._fit_on_nothing = self._registry.scene_bounds() is None
        self._camera.view_standard(name)
        self.request_render()

    def set_orthographic(self, on: bool) -> None:
        self._camera.set_orthographic(on)
        self.request_render()

    def is_orthographic(self) -> bool:
        return self._camera.is_orthographic()

    def set_display_detail(self, face_budget: int | str | None) -> None:
        """Decimate meshes for display only so the shown geometry stays under ``face_budget`` faces
        (None: full detail; ``"auto"``: a budget chosen from the measured frame times, see
        :meth:`.detail.DisplayDetail.step`). The models, physics and export never see it."""
        self._detail.set(face_budget)
        self.request_render()

    def display_detail(self) -> int | str | None:
        """The setting: a face budget, None (full) or ``"auto"``."""
        return self._detail.setting()

    def face_budget(self) -> int | None:
        """The face budget in force now (the automatic one when the setting is ``"auto"``)."""
        return self._detail.budget

    def detail_summary(self) -> str:
        """The triangle counts for the status bar: ``"134,924 faces"`` or
        ``"31,242 of 134,924 faces (auto)"``."""
        return self._detail.summary()

    def triangle_counts(self) -> tuple[int, int]:
        """Faces of the visible geometry layers: ``(full detail, shown)``."""
        return self._detail.triangle_counts()

    def set_dimmed(self, items) -> None:
        """Draw these items (grafted parts' links) dimmed: parts stood in for while their shape is being
        fixed; the others as the robot's opacity says."""
        items = frozenset(items)
        if not items and not self._visibility.dimmed:
            return
        self._visibility.dimmed = items  # applied again: an edit may have drawn a stand-in's actor anew
        self._visibility.set_opacity(self._visibility.opacity)
        self.request_render()

    def set_visual_opacity(self, opacity: float) -> None:
        """See-through robot: the opacity (0.1 … 1) of the visual geometry and mounted parts, times each
        colour's own alpha, like RViz's robot-model alpha. Frames, axes and markers inside stay solid."""
        self._visibility.set_opacity(opacity)
        self.request_render()

    def visual_opacity(self) -> float:
        return self._visibility.opacity

    def set_antialiasing(self, on: bool) -> None:
        self._loop.set_antialiasing(on)
        self.request_render()

    def antialiasing(self) -> bool:
        return self._loop.aa

    @property
    def software_rendering(self) -> bool:
        return self._loop.software

    @property
    def gl_renderer(self) -> str:
        return self._loop.gl_renderer

    @property
    def render_count(self) -> int:
        return self._loop.render_count

    @property
    def last_render_seconds(self) -> float:
        return self._loop.last_render_seconds

    def actor_counts(self) -> dict:
        """Number of shapes each layer currently draws (a mesh file drawn as one actor per colour counts
        once; :meth:`actors` lists every actor)."""
        counts = {layer: 0 for layer in LAYERS}
        for seg in self._registry.segments.values():
            for layer, group in seg.layers.items():
                counts[layer] += sum(1 for a, lead in zip(group.actors, group.lead, strict=True)
                                     if lead and a.GetVisibility())
            counts["frame_labels"] += sum(1 for a in seg.labels if a.GetVisibility())
        grid = self._decorations.grid_actor
        if grid is not None and grid.GetVisibility():
            counts["grid"] += 1
        return counts

    def actors(self, segment: str, layer: str) -> list:
        """The actors of one layer of one segment (for tests and tools)."""
        if layer == "frame_labels":
            return list(self._registry.segments[segment].labels)
        return list(self._registry.segments[segment].layers[layer].actors)

    def item_of(self, actor) -> ItemRef | None:
        return self._registry.by_actor.get(id(actor))

    def set_pick_ref(self, actor, ref: ItemRef | None) -> None:
        """Make an actor of a helper outside the registry (a probe's marker) pick as ``ref`` (None: not)."""
        if ref is None:
            self._registry.by_actor.pop(id(actor), None)
        else:
            self._registry.by_actor[id(actor)] = ref

    def set_extra_geometry(self, actor, ref: ItemRef | None) -> None:
        """Count a helper's geometry actor (a part fixed in the world) as ``ref``'s: it picks as ``ref``, the
        camera fits and focuses it, the grid is sized for it, the robot's opacity applies to it (None: no
        longer)."""
        self.set_pick_ref(actor, ref)
        registry = self._registry
        if ref is None:
            registry.extra.pop(id(actor), None)
            registry.own_opacity.pop(id(actor), None)
            return
        registry.extra[id(actor)] = (actor, ref)
        # seen through with the robot, as a part on a link is
        own = registry.own_opacity.setdefault(id(actor), actor.GetProperty().GetOpacity())
        actor.GetProperty().SetOpacity(own * registry.see_through)
        if self._fit_on_nothing:  # a rig of world items alone: fitted on all of them before the next frame
            self.request_render()

    def _fit_world_items(self) -> None:
        """The camera fitted, and the grid and markers sized, on the world items that came after a fit on
        nothing (a rig of no segment: its items are pushed after its segments are shown)."""
        if not (self._fit_on_nothing and self._registry.extra):
            return
        self._fit_on_nothing = False
        if self._decorations.measure(self._registry.scene_bounds()):
            self._decorations.rescale(self._decorations.size)
            self._decorations.rebuild_grid(self._visibility.layers["grid"])
        self._camera.reset()

    def pick(self, x: float, y: float) -> ItemRef | None:
        """Pick at display coordinates (VTK's, origin bottom-left) and emit :attr:`picked`."""
        return self._picking.pick(x, y)

    def surface_at(self, x: float, y: float):
        """``(ref, world point, world unit normal)`` of the geometry under display point ``(x, y)`` (VTK's,
        origin bottom-left), or None over the background; the normal faces the camera."""
        return self._picking.surface_at(x, y)

    def pick_point(self, callback) -> None:
        """The next click in the view gives ``callback(ref, world point, world normal)`` of the surface there,
        or ``callback(None)`` off every surface, instead of selecting (None: no longer wait)."""
        if callback is None:
            self._picking.want_point(None)
            return
        self._picking.want_point(lambda hit: callback(*hit) if hit is not None else callback(None))

    def frame_near(self, x: float, y: float, radius: float = 14.0):
        """Name (``segment/frame`` with several segments) and display position of the shown frame origin
        nearest to display point ``(x, y)`` within ``radius`` pixels, or ``(None, None)``."""
        return self._picking.frame_near(x, y, radius)

    def segment_names(self) -> list[str]:
        return list(self._registry.segments)

    def model_size(self) -> float:
        return self._decorations.size

    def render_now(self) -> None:
        """Render immediately (benchmarks, screenshots); normal code calls :meth:`request_render`."""
        self._loop.render_now()

    def add_before_render(self, hook) -> None:
        """Call ``hook()`` just before each requested render, so what it moves is in that frame (the window
        delivers its coalesced pose events to the docks and marks this way)."""
        self._loop.before_render.append(hook)

    def add_after_render(self, hook) -> None:
        """Call ``hook()`` just after each requested render, before the window shows it."""
        self._loop.after_render.append(hook)

    def close(self) -> bool:
        if self._closed:
            return True
        self._closed = True
        self._loop.stop()
        self._picking.stop()
        self._handles.stop()
        self._loader.shutdown()
        self._registry.segments.clear()
        self._registry.by_actor.clear()
        self.plotter.close()
        return super().close()

    # -- internals ---------------------------------------------------------------------------------
    def _apply_visibility(self) -> None:
        self._visibility.apply(self._highlight.actors())

    def _relight(self, item: ItemRef | None, refresh: bool = True) -> None:
        """After :meth:`.Highlight.restore`: visibility without the highlight (``refresh``: set again on every
        actor; else the restore left each as it was), then ``item`` lit."""
        if self._registry.segments and refresh:
            self._visibility.apply()
        self._highlight.light(item)
        self._visibility.update_overlay_draw(bool(self._highlight.actors()))

    def _clear(self) -> None:
        self._highlight.restore()
        self._highlight.item = None
        self._registry.clear()
        self._geometry.clear()
        self._picking.forget_hover()
        self._selected = None
        self._handles.show(None)

    def _on_meshes(self, batch: int, results: dict, problems) -> None:
        if self._closed:
            return
        opens = self._geometry.take_batch(batch)
        if opens is None:  # a newer document replaced the one these meshes were for
            return
        self._meshes_arrived(results, problems, opens)

    def _meshes_arrived(self, results: dict, problems, opens: bool) -> None:
        """Mesh actors for the shapes waiting for ``results``. For a new document (``opens``) the markers and
        grid follow the model's size and the camera fits it; after an update the camera stays."""
        item = self._highlight.item
        self._highlight.restore()
        made = self._geometry.add_meshes(results, problems)
        if opens:  # a whole document's meshes: their problems go in the read reports (an update keeps them)
            M.record_problems([seg.tree for seg in self._registry.segments.values()], results)
        self.warnings.extend(problems)
        if opens:
            if self._decorations.measure(self._registry.scene_bounds()):
                self._decorations.rescale(self._decorations.size)
                self._decorations.rebuild_grid(self._visibility.layers["grid"])
        else:
            self._follow_model_size(made)
        self._relight(item)  # the item's new mesh actors light up too
        self._detail.restart(2 if opens else 1)
        self._detail.apply()
        if opens:
            if self._hold_camera:
                self._hold_camera = False
            else:
                self.reset_camera()
        else:
            self.plotter.renderer.ResetCameraClippingRange()
            self.request_render()
        self.meshes_loaded.emit(list(problems))

    def _follow_model_size(self, actors) -> None:
        """After an edit, markers and grid grow with the model when the edited or new ``actors`` reach more
        than :data:`SIZE_TOLERANCE` beyond the bounds they were sized for (dragging a dimension does not make
        them breathe, removing a part does not shrink them; a new document sizes them afresh)."""
        deco = self._decorations
        bounds = merge_bounds(deco.bounds, union_bounds(actors))
        if diagonal(bounds) > (1.0 + SIZE_TOLERANCE) * deco.size:
            deco.measure(bounds)
            deco.rescale(deco.size)
            deco.rebuild_grid(self._visibility.layers["grid"])

    def _rendered(self, seconds: float) -> None:
        self._detail.step(seconds)
        self.rendered.emit()

    # for tests: one measured frame of the automatic display detail, and forgetting the measured ones
    def _auto_step(self, seconds: float) -> None:
        self._detail.step(seconds)

    def _auto_restart(self, skip: int = 2) -> None:
        self._detail.restart(skip)


__all__ = ["DEFAULT_LAYERS", "STANDARD_VIEWS", "HandleDrag", "SceneView", "Snap", "equivalent_box"]
