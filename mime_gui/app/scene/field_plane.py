"""The |B| colour plane through the selected probe, and field lines from the selected magnet.

The plane: a square of ``n`` x ``n`` points centred on the probe, as large as the nearest magnet and the
space between call for (:func:`mime_gui.field.plane.plane_side`),
square to its mount frame's z axis (the world's z for a probe in the world), coloured by |B| on a log scale
with a colour bar in mT.

The field is computed off the GUI thread (one :func:`mime_gui.field.field_plane` call on a worker) and only
once the rig has stopped moving for :data:`SETTLE_MS`, or when asked; the GUI thread only copies the result
into the drawn grid. A result computed for a pose, probe or rig that has changed since is dropped. What it
computes from, and when, comes from the session's pushes to the view (its :attr:`~.view.SceneView.items`:
the selected item, the probes' poses, the build the field comes from, the frame poses; an item change or a
move starts the wait, a new selection computes at once). The values stay computed here, off the GUI thread:
a plane is a drawing of the view, thousands of points that the session has no use for. Like the probe marks
it uses the view's public side only (``plotter``, ``items``, ``request_render``).

:class:`FieldLinesView` draws the field lines from the selected magnet the same way (worker, debounce),
traced by :func:`mime_gui.field.lines.field_lines`.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyvista as pv
from PySide6.QtCore import QObject, QTimer, Signal

from mime_gui.session.renderer import ItemRef

SETTLE_MS = 250  # the rig counts as stopped after this long without a pose change
SIZE = 0.1  # m: the plane's side before one is computed (then sized to the magnets: field.plane.plane_side)
N = 100  # points per side
SCALARS = "|B| (mT)"
BAR_TITLE = "B magnitude (mT)"  # VTK's own font has no "|"
FLOOR_MT = 1e-3  # the colour scale's lowest value (log scale needs a positive floor)


class FieldPlaneView(QObject):
    """``set_on(True)`` shows the plane for the selected probe; :attr:`status` says what it shows or why
    not."""

    computed = Signal(int, object)  # token, FieldPlane or an exception (from the worker thread)
    changed = Signal(str)  # the status text

    def __init__(self, scene, parent=None):
        super().__init__(parent)
        self.scene = scene
        self.items = scene.items
        self.on = False
        self.status = "off"
        self.mesh: pv.StructuredGrid | None = None
        self.actor = None
        self.bar = None
        self.plane = None  # the last FieldPlane drawn
        self.updates = 0  # planes drawn (tests count them)
        self.compute_seconds = 0.0  # the last computation's time on the worker
        self.draw_seconds = 0.0  # the last copy into the drawn grid, on the GUI thread
        self._token = 0
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="field-plane")
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SETTLE_MS)
        self._timer.timeout.connect(self.update_now)
        self.computed.connect(self._arrived)
        self.items.listen(self)

    # -- what the view pushes ------------------------------------------------------------------------
    def items_changed(self, _change, _reset) -> None:
        self._moved()

    def items_moved(self, _refs) -> None:
        self._moved()

    def selection_changed(self, _ref) -> None:
        self._moved(at_once=True)

    # -- switching -----------------------------------------------------------------------------------
    def set_on(self, on: bool) -> None:
        self.on = bool(on)
        if self.on:
            self.update_now()
        else:
            self._token += 1  # a computation on its way is dropped
            self._timer.stop()
            self._show(False)
            self._status("off")

    def _moved(self, at_once: bool = False) -> None:
        """A pose, the rig or the selection changed: the plane waits until the rig stops."""
        if not self.on:
            return
        self._token += 1
        if at_once:
            self._timer.stop()
            self.update_now()
        else:
            self._timer.start()

    def _status(self, text: str) -> None:
        if text != self.status:
            self.status = text
            self.changed.emit(text)

    def _show(self, visible: bool) -> None:
        for actor in (self.actor, self.bar):
            if actor is not None:
                actor.SetVisibility(visible)
        self.scene.request_render()

    # -- computing -----------------------------------------------------------------------------------
    def _inputs(self):
        """``(built, frame_poses, centre, normal, name)`` for the selected probe now, or a reason why not."""
        ref = self.items.selection
        if ref is None or ref.kind != "probe":
            return "select a probe"
        built = self.items.field.built
        if built is None:
            return self.items.field.why
        X = self.items.poses.get(ItemRef("", "probe", ref.name))
        if X is None:
            return f"probe {ref.name} is not placed (see Validation)"
        try:
            poses = self.items.frame_poses(built.frame_names)
        except KeyError:  # the drawn rig and the build disagree for a moment: the next push retries
            return "waiting for the rig"
        # a probe's pose has its mount frame's axes (the world's for a probe in the world)
        return built, poses, X[:3, 3].copy(), X[:3, 2].copy(), ref.name

    def update_now(self) -> bool:
        """Start computing the plane at the poses shown now; False when there is nothing to compute."""
        if not self.on:
            return False
        inputs = self._inputs()
        if isinstance(inputs, str):
            self._show(False)
            self._status(inputs)
            return False
        self._token += 1
        token = self._token
        name = inputs[-1]
        self._status(f"computing {self.what} {name}…")
        compute = self._compute(inputs)

        def work():
            start = time.perf_counter()
            try:
                result = compute()
            except Exception as err:  # shown as the status, never a traceback in the view
                return err, 0.0
            return result, time.perf_counter() - start

        future = self._pool.submit(work)
        future.add_done_callback(lambda f: self.computed.emit(token, (name, *f.result())))
        return True

    what = "|B| around"

    def _compute(self, inputs):
        """What the worker runs (no Qt, no VTK): here the plane."""
        from mime_gui.field import field_plane
        from mime_gui.field.plane import plane_side

        built, poses, centre, normal, _name = inputs

        def compute():
            self.side = plane_side(built, poses, centre)  # sized to the nearest magnet, not to the arm
            return field_plane(built, poses, centre, normal, self.side, N)

        return compute

    def _done(self, name: str, plane) -> str:
        mt = plane.magnitude * 1e3
        extent = np.ptp(plane.points.reshape(-1, 3), axis=0).max()
        side = f"{extent * 1000:.3g} mm" if extent < 0.1 else f"{extent * 100:.3g} cm"
        return f"|B| around {name}: {mt.min():.3g} to {mt.max():.3g} mT on {side} × {side}"

    def _arrived(self, token: int, result) -> None:
        if token != self._token or not self.on:
            return  # computed for a pose or probe shown no more
        name, plane, seconds = result
        if isinstance(plane, Exception):
            self._show(False)
            self._status(f"no plane: {plane}")
            return
        start = time.perf_counter()
        self.compute_seconds = seconds
        self._draw(plane)
        self.plane = plane
        self.updates += 1
        self.draw_seconds = time.perf_counter() - start
        self._status(self._done(name, plane))

    def _draw(self, plane) -> None:
        n = plane.points.shape[0]
        # a structured grid runs its first index fastest: point (i, j) is number i + j·n
        points = plane.points.transpose(1, 0, 2).reshape(-1, 3)
        mt = np.maximum(plane.magnitude.T.reshape(-1) * 1e3, FLOOR_MT)
        hi = float(mt.max())
        clim = (max(float(mt.min()), hi * 1e-3, FLOOR_MT), max(hi, FLOOR_MT * 10))
        if self.mesh is None or self.mesh.n_points != len(points):
            plotter = self.scene.plotter
            if self.actor is not None:
                plotter.remove_actor(self.actor, render=False)
                plotter.remove_scalar_bar(BAR_TITLE, render=False)
            self.mesh = pv.StructuredGrid()
            self.mesh.points = points
            self.mesh.dimensions = (n, n, 1)
            self.mesh[SCALARS] = mt
            self.actor = plotter.add_mesh(
                self.mesh, scalars=SCALARS, cmap="viridis", log_scale=True, clim=clim, opacity=0.85,
                lighting=False, pickable=False, render=False, reset_camera=False,
                # across the view's foot, right of the orientation axes: the whole title fits
                scalar_bar_args=dict(title=BAR_TITLE, color="white", vertical=False, position_x=0.45,
                                     position_y=0.03, height=0.08, width=0.5, fmt="%.3g", n_labels=4))
            self.bar = plotter.scalar_bars[BAR_TITLE]
        else:
            self.mesh.points[...] = points
            self.mesh[SCALARS][...] = mt
            self.mesh.Modified()
            self.actor.mapper.scalar_range = clim
        self._show(True)

    def close(self) -> None:
        self._token += 1
        self._pool.shutdown(wait=False, cancel_futures=True)


class FieldLinesView(FieldPlaneView):
    """Field lines from the selected magnet (:func:`mime_gui.field.lines.field_lines`), on the same terms
    as the plane: on a worker, when switched on, when the selection changes, once the rig stops."""

    what = "field lines from"

    def _inputs(self):
        ref = self.items.selection
        name = ref.name if ref is not None and ref.kind == "magnet" else None
        if ref is not None and ref.kind == "link":  # a magnet picked as the link it is grafted as
            item = self.items.item_of(ref)
            name = item.ref.name if item is not None and item.ref.kind == "magnet" else None
        if name is None:
            return "select a magnet"
        built = self.items.field.built
        if built is None:  # a magnet is selected, so the rig has one: it breaks rules
            return "the rig breaks rules (see Validation)"
        try:
            poses = self.items.frame_poses(built.frame_names)
        except KeyError:  # the drawn rig and the build disagree for a moment: the next push retries
            return "waiting for the rig"
        return built, poses, name

    def _compute(self, inputs):
        from mime_gui.field.lines import field_lines

        built, poses, name = inputs
        return lambda: field_lines(built, poses, name)

    def _done(self, name: str, lines) -> str:
        return f"{len(lines)} field lines from {name}, from its north pole"

    def _draw(self, lines) -> None:
        pieces = [line for line in lines if len(line) > 1]
        points = np.concatenate(pieces) if pieces else np.zeros((0, 3))
        cells, start = [], 0
        for line in pieces:
            cells += [len(line), *range(start, start + len(line))]
            start += len(line)
        mesh = pv.PolyData(points, lines=np.asarray(cells, dtype=np.int64)) if pieces else pv.PolyData()
        plotter = self.scene.plotter
        if self.actor is None:
            self.mesh = mesh
            self.actor = plotter.add_mesh(self.mesh, color=(0.85, 0.35, 0.75), line_width=2, lighting=False,
                                          pickable=False, render=False, reset_camera=False)
        else:
            self.mesh.copy_from(mesh)
        self._show(True)


__all__ = ["N", "SETTLE_MS", "SIZE", "FieldLinesView", "FieldPlaneView"]
