"""The magnets' field in the window, for the selected probe: B over time in the Plots dock and the |B| plane
in the 3D view (View → |B| plane at the selected probe); for the selected sample, the force on it over time
(:class:`~mime_gui.app.sample_plot.SamplePlot`).

- **Plot** "B xyz (mT)", shown while a probe is selected: while driving, B at the probe sampled at each pose
  change (the last :data:`~mime_gui.app.docks.plots.LIVE_SECONDS`, ring buffer); with a command file
  loaded, :func:`~mime_gui.field.field_along` over the whole trajectory, computed once per loaded file, rig
  and probe (not per frame), with the rotating-field summary in the readout line under the plots.
- **Plane**: :class:`~mime_gui.app.scene.field_plane.FieldPlaneView`.
- **Keep-out surface** (View → Keep-out |B| surface): |B| = the smallest zone limit around the magnets at the
  pose shown, :class:`~mime_gui.app.scene.keepout_surface.KeepoutSurfaceView`; its toggle is the services'
  ``keepout_surface``, which a zone's form shows and sets too.

``install_field_views(window, docks, services)`` adds both once the Plots dock exists and returns the
:class:`FieldViews`; the plane's toggle is the services' ``field_plane`` (app/services.py), which the probe's
form shows and sets too.
"""

from __future__ import annotations

import time

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLabel, QSizePolicy

from mime_gui.app.docks.fields import on_screen
from mime_gui.app.docks.forms.probe import probe_field
from mime_gui.app.docks.plots import LIVE_SAMPLES, LIVE_SECONDS, REDRAW_MS, XYZ, SampleBuffer, nice_range
from mime_gui.app.services import Services


def _fmt_axis(axis) -> str:
    return "(" + ", ".join(f"{a:+.3f}" for a in axis) + ")"


def summary_text(name: str, s) -> str:
    """One line of the rotating-field summary of probe ``name``."""
    mt = f"|B| {s.B_min * 1e3:.4g} to {s.B_max * 1e3:.4g} mT"
    if not np.isfinite(s.frequency):
        return f"<b>{name}</b>: {mt} (too few steps for a frequency)"
    if s.frequency == 0.0 or not np.all(np.isfinite(s.axis)):
        return f"<b>{name}</b>: steady field, {mt}"
    return (f"<b>{name}</b>: rotates at {s.frequency:.4g} Hz about {_fmt_axis(s.axis)}, {mt}, "
            f"ellipticity {s.ellipticity:.3f}")


class FieldPlot(QObject):
    """B at the selected probe in the Plots dock (see the module's text)."""

    def __init__(self, dock, session, bridge, transport, parent=None):
        super().__init__(parent or dock)
        self.dock = dock
        self.session = session
        self.transport = transport
        xyz = "".join(f'<span style="color:{c}">{a}</span>' for a, c in zip("xyz", XYZ, strict=True))
        self.plot = dock.add_plot(f"B {xyz} (mT)", "B (mT)", "The magnets' field at the selected probe, "
                                  "world axes (x red, y green, z blue); |B| dashed")
        self.curves = [self.plot.plot(pen=pg.mkPen(c, width=2)) for c in XYZ]
        self.curves.append(self.plot.plot(pen=pg.mkPen("#555", width=1, style=Qt.DashLine)))
        self.playhead = self.plot.addLine(x=0, pen=pg.mkPen("#888", width=1))
        self.readout = QLabel(dock.readout.parentWidget())
        self.readout.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.readout.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        self.readout.hide()
        dock.readout.parentWidget().layout().addWidget(self.readout)
        self.probe: str | None = None
        self.series = None  # (player, key, FieldTrajectory, summary) of the loaded trajectory
        self.computed = 0  # trajectories' fields computed (tests count them: once per file, rig and probe)
        self.redraws = 0
        self._samples = SampleBuffer(LIVE_SAMPLES, 3)
        self._t0 = time.perf_counter()
        self._dirty = False
        self._timer = QTimer(self)
        self._timer.setInterval(REDRAW_MS)
        self._timer.timeout.connect(self._redraw_if_dirty)
        self._timer.start()
        bridge.selection_changed.connect(lambda _r: self.refresh())
        bridge.rig_changed.connect(lambda _c: self.refresh())
        bridge.document_changed.connect(lambda _d: self.refresh())
        bridge.poses_changed.connect(lambda _s: self._sample())
        transport.player_changed.connect(lambda _p: self.refresh())
        transport.mode_changed.connect(lambda _m: self.refresh())
        transport.playhead_changed.connect(self._playhead)

    def _selected(self) -> str | None:
        ref, rig = self.session.selection, self.session.rig
        if ref is None or ref.kind != "probe" or rig is None or ref.name not in rig.probes:
            return None
        return ref.name

    def _plays(self):
        t = self.transport
        return t.player if t.player is not None and t.mode == "player" else None

    # -- which series ----------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Show the plot for the selected probe (hide it without one), live or over the trajectory."""
        name = self._selected()
        changed = name != self.probe
        self.probe = name
        self.dock.show_plot(self.plot, name is not None)
        self.readout.setVisible(name is not None)
        if name is None:
            return
        player = self._plays()
        self.playhead.setVisible(player is not None)
        if player is None:
            if changed or self.series is not None:
                self.series = None
                self._samples = SampleBuffer(LIVE_SAMPLES, 3)
                self._t0 = time.perf_counter()
            self.plot.setXRange(-LIVE_SECONDS, 0.0, padding=0.0)
            self._sample()
            return
        self._trajectory(player, name)

    def _trajectory(self, player, name: str) -> None:
        built = player.playable.built
        probe = self.session.rig.probes[name]
        key = (id(player), id(built), name, tuple(probe.at), probe.mount)
        if self.series is None or self.series[1] != key:
            from mime_gui.field import FieldError, field_along, rotating_summary

            try:
                field = field_along(built, player.trajectory, {name: probe}, start=player.schedule.start)
            except FieldError as err:
                self.series = None
                for curve in self.curves:
                    curve.setData([], [])
                self._say(f"<b>{name}</b>: no field: [{err.code}] {err}")
                return
            self.computed += 1
            summary = rotating_summary(field.time, field.B)[0]
            self.series = (player, key, field, summary)
        _player, _key, field, summary = self.series
        t = field.time - player.schedule.start
        B = field.B[:, 0] * 1e3
        columns = [*B.T, np.linalg.norm(B, axis=1)]
        for curve, column in zip(self.curves, columns, strict=True):
            curve.setData(t, column)
        self._fit(np.stack(columns, axis=1))
        self.redraws += 1
        self._playhead(player.row)

    def _playhead(self, row: int) -> None:
        player = self._plays()
        if player is None or self.series is None or self.probe is None:
            return
        field, summary = self.series[2], self.series[3]
        row = min(max(int(row), 0), len(field.time) - 1)
        self.playhead.setValue(float(field.time[row] - player.schedule.start))
        b = field.B[row, 0] * 1e3
        self._say(f"{summary_text(self.probe, summary)} · now B ({b[0]:+.4g}, {b[1]:+.4g}, {b[2]:+.4g}) mT")

    def _say(self, text: str) -> None:
        """The readout line: clipped in a narrow dock, the whole of it in its tooltip."""
        self.readout.setText(text)
        self.readout.setToolTip(text.replace("<b>", "").replace("</b>", ""))

    def _fit(self, values: np.ndarray) -> None:
        finite = values[np.isfinite(values)]
        if not finite.size:
            return
        lo, hi = float(finite.min()), float(finite.max())
        a, b = self.plot.getViewBox().state["targetRange"][1]
        if not (a <= lo and hi <= b and (hi - lo) >= 0.25 * (b - a)):
            self.plot.setYRange(*nice_range(lo, hi), padding=0)

    # -- live ------------------------------------------------------------------------------------------
    def _sample(self) -> None:
        if self.probe is None or self._plays() is not None:
            return
        B, why = probe_field(self.session, self.probe)
        if B is None:
            self._say(f"<b>{self.probe}</b>: no field ({why})")
            return
        self._samples.append(time.perf_counter() - self._t0, B * 1e3)
        self._dirty = True

    def _redraw_if_dirty(self) -> None:
        if not self._dirty or self.probe is None or self._plays() is not None or not on_screen(self.dock):
            return
        self._dirty = False
        t, values = self._samples.arrays()
        if not len(t):
            return
        keep = t >= t[-1] - LIVE_SECONDS
        ago, B = t[keep] - t[-1], values[keep]
        magnitude = np.linalg.norm(B, axis=1)
        for curve, column in zip(self.curves, [*B.T, magnitude], strict=True):
            curve.setData(ago, column)
        self._fit(np.column_stack([B, magnitude]))
        b = B[-1]
        self._say(f"<b>{self.probe}</b>: B ({b[0]:+.4g}, {b[1]:+.4g}, {b[2]:+.4g}) mT, |B| "
                             f"{magnitude[-1]:.4g} mT; over the last {LIVE_SECONDS:g} s |B| "
                             f"{magnitude.min():.4g} to {magnitude.max():.4g} mT (load a command file for "
                             "the rotating field's frequency and axis)")
        self.redraws += 1


class FieldViews(QObject):
    def __init__(self, window, docks, services: Services):
        super().__init__(window)
        self.window = window
        session, bridge = window.session, window.bridge
        self.plot = FieldPlot(docks["PlotsDock"], session, bridge, services.transport, self)
        from mime_gui.app.sample_plot import SamplePlot

        self.sample_plot = SamplePlot(docks["PlotsDock"], session, bridge, services.transport, self)
        self.plane = self.lines = self.surface = None
        if getattr(window.scene, "plotter", None) is not None:
            from mime_gui.app.scene.field_plane import FieldLinesView, FieldPlaneView
            from mime_gui.app.scene.keepout_surface import KeepoutSurfaceView

            self.plane = FieldPlaneView(window.scene, self)
            self.plane.changed.connect(lambda text: window.statusBar().showMessage(text, 4000))
            self.lines = FieldLinesView(window.scene, self)
            self.lines.changed.connect(lambda text: window.statusBar().showMessage(text, 4000))
            self.surface = KeepoutSurfaceView(window.scene, self)
            self.surface.changed.connect(lambda text: window.statusBar().showMessage(text, 4000))
        self.plane_action = services.field_plane  # the probe's form shows and sets it too
        self.plane_action.setStatusTip("A colour map of the magnets' |B| on a 10 cm square through the "
                                       "selected probe, computed when the rig stops moving")
        self.plane_action.setEnabled(self.plane is not None)
        self.plane_action.toggled.connect(self._plane_toggled)
        self.lines_action = QAction("Field lines from the selected magnet", window, checkable=True)
        self.lines_action.setStatusTip("Lines along B from a ring around the selected magnet's north pole, "
                                       "traced when the rig stops moving")
        self.lines_action.setEnabled(self.lines is not None)
        self.lines_action.toggled.connect(lambda on: self.lines is not None and self.lines.set_on(on))
        self.surface_action = services.keepout_surface  # a zone's form shows and sets it too
        self.surface_action.setStatusTip("The surface where the magnets' |B| equals the smallest keep-out "
                                         "zone limit (0.5 mT without zones), at the pose shown")
        self.surface_action.setEnabled(self.surface is not None)
        self.surface_action.toggled.connect(lambda on: self.surface is not None and self.surface.set_on(on))
        view = window.menus.get("View")
        if view is not None:
            view.addSeparator()
            view.addAction(self.plane_action)
            view.addAction(self.lines_action)
            view.addAction(self.surface_action)

    def _plane_toggled(self, on: bool) -> None:
        if self.plane is not None:
            self.plane.set_on(on)

    def close(self) -> None:
        """Close the 3D views (the window is closing)."""
        for view in (self.plane, self.lines, self.surface):
            if view is not None:
                view.close()


def install_field_views(window, docks, services: Services) -> FieldViews:
    """B at the selected probe in the Plots dock, the |B| plane and the field lines in the 3D view."""
    return FieldViews(window, docks, services)


__all__ = ["FieldPlot", "FieldViews", "install_field_views", "summary_text"]
