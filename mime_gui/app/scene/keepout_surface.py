"""The keep-out |B| surface (View → Keep-out |B| surface): where the magnets' |B| equals the smallest of the
rig's zone limits (0.5 mT without zones), at the pose shown, drawn as a translucent surface.

|B| is sampled on a grid of :data:`~mime_gui.session.keepout.GRID_POINTS`³ points around the magnets
(:func:`mime_gui.session.keepout.keepout_grid`, one batched Magpylib call on a worker thread) and the
surface is the grid's contour of log10 |B| at log10 of the limit (|B| falls as a power of the distance,
which is nearly linear in its logarithm between neighbouring points). Only while shown, and at most one
computation at a time: a pose change while one runs asks for one more at the poses shown when it ends, so a
moving arm costs one grid per result, never a queue, and the last pose shown always gets its surface. The
inputs come from the session's pushes to the view (its :attr:`~.view.SceneView.items`: the build the field
comes from, the frame poses).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyvista as pv
from PySide6.QtCore import QObject, Signal

SURFACE_RGB = (1.0, 0.52, 0.18)
SURFACE_OPACITY = 0.35
SCALARS = "log10 |B|"


class KeepoutSurfaceView(QObject):
    """``set_on(True)`` shows the surface; :attr:`status` says what it shows or why not."""

    computed = Signal(int, object)  # token, (grid, seconds) or an exception (from the worker thread)
    changed = Signal(str)  # the status text

    def __init__(self, scene, parent=None):
        super().__init__(parent)
        self.scene = scene
        self.items = scene.items
        self.on = False
        self.status = "off"
        self.mesh: pv.PolyData | None = None
        self.actor = None
        self.grid = None  # the last KeepoutGrid drawn
        self.updates = 0  # surfaces drawn (tests count them)
        self.compute_seconds = 0.0
        self.draw_seconds = 0.0
        self._token = 0
        self._of = ""  # where the limit comes from, for the status
        self._running = False  # a computation is on the worker
        self._again = False  # the poses changed while it ran
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="keepout-surface")
        self.computed.connect(self._arrived)
        self.items.listen(self)

    # -- what the view pushes ------------------------------------------------------------------------
    def items_changed(self, _change, _reset) -> None:
        self._moved()

    def items_moved(self, _refs) -> None:
        self._moved()

    # -- switching -----------------------------------------------------------------------------------
    def set_on(self, on: bool) -> None:
        self.on = bool(on)
        if self.on:
            self._token += 1  # a computation on its way was for the view as it was
            self._running = False
            self.update_now()
        else:
            self._token += 1
            self._running = self._again = False
            self._show(False)
            self._status("off")

    def _moved(self) -> None:
        if not self.on:
            return
        if self._running:
            self._again = True
        else:
            self.update_now()

    def _status(self, text: str) -> None:
        if text != self.status:
            self.status = text
            self.changed.emit(text)

    def _show(self, visible: bool) -> None:
        if self.actor is not None:
            self.actor.SetVisibility(visible)
        self.scene.request_render()

    # -- computing -----------------------------------------------------------------------------------
    def _inputs(self):
        """``(built, frame_poses, limit)`` now, or a reason why there is no surface."""
        built = self.items.field.built
        if built is None:
            return self.items.field.why
        try:
            poses = self.items.frame_poses(built.frame_names)
        except KeyError:  # the drawn rig and the build disagree for a moment: the next push retries
            return "waiting for the rig"
        from mime_gui.session.keepout import keepout_limit

        self._of = "the smallest zone limit" if built.apparatus.zones else "no zones: the default limit"
        return built, poses.copy(), keepout_limit(built.apparatus)

    def update_now(self) -> bool:
        """Start computing the surface at the poses shown now; False when there is nothing to compute."""
        if not self.on:
            return False
        inputs = self._inputs()
        if isinstance(inputs, str):
            self._show(False)
            self._status(f"no keep-out surface: {inputs}")
            return False
        self._token += 1
        token = self._token
        self._running, self._again = True, False
        built, poses, limit = inputs
        self._status(f"computing the {limit * 1e3:g} mT surface…")

        def work():
            from mime_gui.session.keepout import keepout_grid

            start = time.perf_counter()
            try:
                grid = keepout_grid(built, poses, limit)
            except Exception as err:  # shown as the status, never a traceback in the view
                return err
            return grid, time.perf_counter() - start

        future = self._pool.submit(work)
        future.add_done_callback(lambda f: self.computed.emit(token, f.result()))
        return True

    def _arrived(self, token: int, result) -> None:
        if token != self._token or not self.on:
            return  # computed for a view switched off (or on again) since
        self._running = False
        if isinstance(result, Exception):
            self._show(False)
            self._status(f"no keep-out surface: {result}")
        else:
            grid, seconds = result
            self.compute_seconds = seconds
            start = time.perf_counter()
            self._draw(grid)
            self.draw_seconds = time.perf_counter() - start
            self.updates += 1
        if self._again:  # the rig moved meanwhile: once more, at the poses shown now
            self.update_now()

    def _draw(self, grid) -> None:
        self.grid = grid
        if grid is None:
            self._show(False)
            self._status("no keep-out surface: the rig has no magnets")
            return
        image = pv.ImageData(dimensions=grid.dims, spacing=tuple(grid.spacing), origin=tuple(grid.origin))
        # ImageData runs its x index fastest
        image.point_data[SCALARS] = np.log10(np.maximum(grid.magnitude, 1e-30)).ravel(order="F")
        surface = image.contour([float(np.log10(grid.limit))], scalars=SCALARS)
        surface.clear_data()  # one colour: the contour's value is the same everywhere
        if self.actor is None:
            self.mesh = pv.PolyData()
            self.mesh.copy_from(surface)
            self.actor = self.scene.plotter.add_mesh(
                self.mesh, color=SURFACE_RGB, opacity=SURFACE_OPACITY, smooth_shading=True, scalars=None,
                pickable=False, render=False, reset_camera=False, name="keepout-surface")
        else:
            self.mesh.copy_from(surface)
        self._show(self.mesh.n_points > 0)
        mt = f"{grid.limit * 1e3:g} mT"
        self._status(f"keep-out surface |B| = {mt} ({self._of})" if self.mesh.n_points else
                     f"|B| stays below {mt} outside the magnets: no keep-out surface")

    def close(self) -> None:
        self._token += 1
        self._pool.shutdown(wait=False, cancel_futures=True)


__all__ = ["KeepoutSurfaceView"]
