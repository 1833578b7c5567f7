"""Clearance in the window: nothing collides unseen.

- **At assembly**: the rig's ``clearance.*`` findings in its initial pose, in the Validation dock's group
  "Clearance in the initial pose" (:func:`mime_gui.session.clearance.prepare`, once per build). Computed on
  a worker thread after the edit's frame (a 0 ms timer coalesces the events of one edit; the first check of a
  description loads and hulls its meshes, which takes a second on Panda), so an edit is drawn at once and
  its clearance follows.
- **While driving** (View → Clearance): the moving pair closest to touching at the pose shown, a line
  between its two nearest points with a small ball at each end (orange; red closer than the margin or
  overlapping) and ``closest: a ↔ b 12.3 mm`` in the status bar. Computed just before a render (a
  ``before_render`` hook), at most once per event-loop turn and only when a pose array or the build was
  replaced (:class:`~mime_gui.session.clearance.LiveClearance`), with the model the worker made for the build.
- **Along a played trajectory**: the smallest clearance at every step (:func:`~mime_gui.rig.clearance_check.
  clearance_along`, once per loaded player, on the worker) plotted in the Plots dock with the margin and the
  playhead; a click puts the playhead on the worst step near the click.

The toggle stops the live computation and hides the line, the status text and the plot; the findings stay.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QGraphicsItem

from mime_gui.app.docks.plots import nice_range
from mime_gui.app.steady_label import SteadyLabel
from mime_gui.session.clearance import LiveClearance, current_build, prepare, prepared

ORANGE = (1.0, 0.55, 0.0)
RED = (0.86, 0.1, 0.1)
#: pixels either side of a click on the clearance plot searched for the worst step
CLICK_PIXELS = 8


class ClosestLine:
    """The line between the closest pair's nearest points and a ball at each end, in the 3D view; moved in
    place (the points of one mesh each), never made again."""

    def __init__(self, scene):
        import pyvista as pv

        self.scene = scene
        plotter = scene.plotter
        self.line = pv.PolyData(np.zeros((2, 3)), lines=np.array([2, 0, 1]))
        self.ends = pv.PolyData(np.zeros((2, 3)))
        self.line_actor = plotter.add_mesh(self.line, color=ORANGE, line_width=4, render_lines_as_tubes=True,
                                           lighting=False, pickable=False, reset_camera=False, render=False)
        self.end_actor = plotter.add_mesh(self.ends, color=ORANGE, point_size=11,
                                          render_points_as_spheres=True, lighting=False, pickable=False,
                                          reset_camera=False, render=False)
        # views of the two meshes' point arrays, written in place (each wrapped once, not per pose)
        self._points = (self.line.points, self.ends.points)
        self._colour = ORANGE
        self.visible = True
        self.show(None)

    def show(self, closest) -> None:
        """Draw ``closest`` (a :class:`~mime_gui.session.clearance.ClosestPair`), or nothing for None."""
        visible = closest is not None
        if visible:
            for view, mesh in zip(self._points, (self.line, self.ends), strict=True):
                view[0], view[1] = closest.point_first, closest.point_second
                mesh.GetPoints().Modified()
            colour = RED if closest.within_margin else ORANGE
            if colour != self._colour:
                self._colour = colour
                for actor in (self.line_actor, self.end_actor):
                    actor.GetProperty().SetColor(colour)
        if visible != self.visible:
            self.visible = visible
            self.line_actor.SetVisibility(visible)
            self.end_actor.SetVisibility(visible)

    def colour(self) -> tuple[float, float, float]:
        return tuple(self.line_actor.GetProperty().GetColor())

    def close(self) -> None:
        plotter = self.scene.plotter
        for actor in (self.line_actor, self.end_actor):
            plotter.remove_actor(actor, render=False)


class ClearancePlot(QObject):
    """The smallest clearance over the loaded trajectory in the Plots dock (see the module's text)."""

    def __init__(self, dock, transport, views):
        super().__init__(views)
        self.dock = dock
        self.transport = transport
        self.views = views
        self.plot = dock.add_plot("clearance (mm)", "clearance (mm)", "The smallest distance between items "
                                  "moving relative to each other at every step (negative: they overlap); "
                                  "dashed: the margin. Click to go to the worst step near the click")
        self.curve = self.plot.plot(pen=pg.mkPen("#d2475a", width=2))
        # the curve stays put while the playhead sweeps over it: kept as a pixmap, not drawn again per move
        self.curve.curve.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.margin_line = pg.InfiniteLine(angle=0, pen=pg.mkPen("#9a5b00", width=1, style=Qt.DashLine))
        self.plot.addItem(self.margin_line)
        self.playhead = self.plot.addLine(x=0, pen=pg.mkPen("#888", width=1))
        self.series = None  # (player, ClearanceCheck) of the loaded trajectory
        self.computed = 0  # trajectories checked (tests: once per loaded player)
        self.pending = None  # the player whose check is on the worker
        dock.graphs.scene().sigMouseClicked.connect(self._clicked)
        transport.player_changed.connect(lambda _p: self.refresh())
        transport.mode_changed.connect(lambda _m: self.refresh())
        transport.playhead_changed.connect(self._playhead)

    def _plays(self):
        t = self.transport
        return t.player if t.player is not None and t.mode == "player" else None

    def refresh(self) -> None:
        """Show the plot of the loaded trajectory (its check started on the worker once per player)."""
        player = self._plays()
        on = player is not None and self.views.on
        self.dock.show_plot(self.plot, on)
        if not on:
            return
        if self.series is not None and self.series[0] is player:
            self._draw()
            return
        self.curve.setData([], [])
        if self.pending is not player:
            self.pending = player
            self.views.submit("trajectory", player, _along(player))

    def arrived(self, player, found) -> None:
        if player is not self.pending:
            return  # a trajectory loaded no more
        self.pending = None
        if isinstance(found, Exception):
            self.series = None
            self.views.say(f"no clearance along the trajectory: {found}")
            return
        self.series = (player, found)
        self.computed += 1
        if self._plays() is player and self.views.on:
            self._draw()

    def _draw(self) -> None:
        player, found = self.series
        t = player.times - player.schedule.start
        mm = np.where(np.isfinite(found.minimum), found.minimum * 1e3, np.nan)
        self.curve.setData(t, mm, connect="finite")
        self.margin_line.setValue(found.margin * 1e3)
        finite = mm[np.isfinite(mm)]
        if finite.size:
            self.plot.setYRange(*nice_range(min(finite.min(), 0.0), max(finite.max(), found.margin * 1e3)),
                                padding=0)
        self._playhead(player.row)

    def _playhead(self, row: int) -> None:
        player = self._plays()
        if player is None or self.series is None or self.series[0] is not player:
            return
        self.playhead.setValue(float(player.times[row] - player.schedule.start))

    def values(self) -> tuple[np.ndarray, np.ndarray]:
        """The plotted ``(t s, clearance mm)`` (tests)."""
        x, y = self.curve.xData, self.curve.yData  # as given, not as clipped to the view
        return (np.zeros(0), np.zeros(0)) if x is None else (np.asarray(x), np.asarray(y))

    def row_near(self, t: float, pixels: float = CLICK_PIXELS) -> int | None:
        """The worst step within ``pixels`` of time ``t`` on the plot (the nearest step when none is)."""
        if self.series is None:
            return None
        player, found = self.series
        times = player.times - player.schedule.start
        width = abs(self.plot.getViewBox().viewPixelSize()[0]) * pixels
        near = np.flatnonzero(np.abs(times - t) <= width)
        if not len(near):
            return int(np.argmin(np.abs(times - t)))
        worst = found.minimum[near]
        if not np.isfinite(worst).any():
            return int(near[np.argmin(np.abs(times[near] - t))])
        return int(near[np.nanargmin(np.where(np.isfinite(worst), worst, np.nan))])

    def _clicked(self, event) -> None:
        if not self.plot.isVisible() or self.series is None or self._plays() is not self.series[0]:
            return
        pos = event.scenePos()
        box = self.plot.getViewBox()
        if not box.sceneBoundingRect().contains(pos):
            return
        row = self.row_near(box.mapSceneToView(pos).x())
        if row is not None:
            event.accept()
            self.transport.seek(row)


def _along(player):
    """What the worker runs for ``player``'s trajectory (no Qt, no VTK)."""
    built, trajectory, start = player.playable.built, player.trajectory, player.schedule.start

    def work():
        from mime_gui.rig.clearance_check import check

        return check(prepare(built)[0], trajectory.frame_poses, trajectory.times(start))

    return work


class ClearanceViews(QObject):
    """The clearance findings, the closest pair and the plot (see the module's text)."""

    done = Signal(str, object, object)  # what, its key, the result or an exception (from the worker)

    def __init__(self, window, docks, services):
        super().__init__(window)
        self.window = window
        self.session = session = window.session
        self.scene = window.scene
        self.validation = docks["ValidationDock"]
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="clearance")
        self._closed = False
        self.live = LiveClearance(session, model=lambda built: (prepared(built) or (None,))[0])
        self.shown = None  # the ClosestPair drawn
        self.assembled = 0  # builds whose findings arrived (tests)
        self._wanted = None  # the build whose findings are on the worker
        self.line = ClosestLine(self.scene) if getattr(self.scene, "plotter", None) is not None else None
        self.status = SteadyLabel(window)  # a new distance each frame: see app/steady_label.py
        self.status.setToolTip("The pair of items closest to touching at the pose shown (View → Clearance)")
        window.statusBar().insertPermanentWidget(0, self.status)
        self.status.hide()
        self.action = QAction("Clearance", window, checkable=True)
        self.action.setStatusTip("The pair closest to touching at the pose shown, in the view and the status "
                                 "bar, and the clearance along a played trajectory in the plots")
        self.action.setChecked(True)
        self.action.toggled.connect(self._toggled)
        view = window.menus.get("View")
        if view is not None:
            view.addAction(self.action)
        self.done.connect(self._arrived)
        self._timer = QTimer(self)  # one computation for the events of one edit, after its frame
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._assemble)
        bridge = window.bridge
        bridge.document_changed.connect(lambda _d: self._timer.start())
        bridge.rig_changed.connect(lambda _c: self._timer.start())
        bridge.findings_changed.connect(lambda _f: self._timer.start())
        self.plot = ClearancePlot(docks["PlotsDock"], services.transport, self)
        if hasattr(self.scene, "add_before_render"):
            self.scene.add_before_render(self._before_render)
        self._timer.start()

    @property
    def on(self) -> bool:
        return self.action.isChecked()

    # -- the worker -------------------------------------------------------------------------------------
    def submit(self, what: str, key, work) -> None:
        if self._closed:
            return

        def run():
            try:
                return work()
            except Exception as err:  # shown as text, never a traceback in the window
                return err

        future = self._pool.submit(run)
        future.add_done_callback(lambda f: self._closed or self.done.emit(what, key, f.result()))

    def _arrived(self, what: str, key, result) -> None:
        if what == "trajectory":
            self.plot.arrived(key, result)
            return
        if key is not self._wanted:
            return  # a build shown no more
        self._wanted = None
        self.assembled += 1
        self.validation.set_clearance(() if isinstance(result, Exception) else result[1])
        if isinstance(result, Exception):
            self.say(f"no clearance check: {result}")
        self.live.forget()  # the model is ready: the closest pair at the next render
        if self.on:
            self.scene.request_render()

    # -- at assembly ------------------------------------------------------------------------------------
    def _assemble(self) -> None:
        built = current_build(self.session.document)
        if built is None:
            self._wanted = None
            self.validation.set_clearance(())
            return
        hit = prepared(built)
        if hit is not None:  # an undo back to a build already checked
            self._wanted = built
            self._arrived("assembly", built, hit)
            return
        if self._wanted is not built:
            self._wanted = built
            self.submit("assembly", built, lambda: prepare(built))

    # -- while driving ----------------------------------------------------------------------------------
    def _before_render(self) -> None:
        if not self.on:
            return
        closest = self.live.update()
        if closest is self.shown:
            return
        self.shown = closest
        if self.line is not None:
            self.line.show(closest)
        self._say_closest(closest)

    def _say_closest(self, closest) -> None:
        if closest is None:
            self.status.hide()
            self.status.setText("")
            return
        self.status.setText(closest.text())
        style = "color: #b3261e;" if closest.within_margin else ""
        if style != self.status.styleSheet():  # a style set again restyles the label: only on a change
            self.status.setStyleSheet(style)
        self.status.show()

    def say(self, text: str) -> None:
        self.window.statusBar().showMessage(text, 6000)

    def _toggled(self, on: bool) -> None:
        self.live.forget()
        self.shown = None
        if not on:
            if self.line is not None:
                self.line.show(None)
            self._say_closest(None)
        self.plot.refresh()
        self.scene.request_render()

    def close(self) -> None:
        self._closed = True
        self._timer.stop()
        self._pool.shutdown(wait=False, cancel_futures=True)


def install_clearance(window, docks, services) -> ClearanceViews:
    """The clearance findings in the Validation dock, the closest pair in the view and the status bar, the
    clearance plot in the Plots dock, and View → Clearance."""
    return ClearanceViews(window, docks, services)


__all__ = ["ClearancePlot", "ClearanceViews", "ClosestLine", "install_clearance"]
