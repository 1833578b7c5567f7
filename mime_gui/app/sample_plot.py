"""What the selected sample feels, in the Plots dock: the force on it over time ("F xyz (mN)", world axes,
|F| dashed) and, in the readout line, the torque, the field and the gradient's largest entry.

While driving, the force is sampled at each pose change (:func:`mime_gui.field.forces_now`, the last
:data:`~mime_gui.app.docks.plots.LIVE_SECONDS`); with a command file loaded,
:func:`mime_gui.field.forces_along` over the whole trajectory, computed once per loaded file, rig and sample,
with the playhead. The plot is shown only while a sample is selected, as the field's is for a probe
(app/field_views.py).
"""

from __future__ import annotations

import time

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QLabel, QSizePolicy

from mime_gui.app.docks.fields import on_screen
from mime_gui.app.docks.plots import LIVE_SAMPLES, LIVE_SECONDS, REDRAW_MS, XYZ, SampleBuffer, nice_range
from mime_gui.errors import CodedError


def _vector(v, unit: str, scale: float) -> str:
    return "(" + ", ".join(f"{x * scale:+.4g}" for x in v) + f") {unit}"


class SamplePlot(QObject):
    """The force on the selected sample (see the module's text)."""

    def __init__(self, dock, session, bridge, transport, parent=None):
        super().__init__(parent or dock)
        self.dock = dock
        self.session = session
        self.transport = transport
        xyz = "".join(f'<span style="color:{c}">{a}</span>' for a, c in zip("xyz", XYZ, strict=True))
        self.plot = dock.add_plot(f"F {xyz} (mN)", "F (mN)", "The force the rig's magnets put on the "
                                  "selected sample, world axes (x red, y green, z blue); |F| dashed")
        self.curves = [self.plot.plot(pen=pg.mkPen(c, width=2)) for c in XYZ]
        self.curves.append(self.plot.plot(pen=pg.mkPen("#555", width=1, style=Qt.DashLine)))
        self.playhead = self.plot.addLine(x=0, pen=pg.mkPen("#888", width=1))
        self.readout = QLabel(dock.readout.parentWidget())
        self.readout.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.readout.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        self.readout.hide()
        dock.readout.parentWidget().layout().addWidget(self.readout)
        self.sample: str | None = None
        self.series = None  # (key, SampleForces, column) of the loaded trajectory
        self.computed = 0  # trajectories' forces computed (tests: once per file, rig and sample)
        self.redraws = 0
        self._samples = SampleBuffer(LIVE_SAMPLES, 3)
        self._t0 = time.perf_counter()
        self._dirty = False
        self._last = None  # (SampleForces, column) of the last pose sampled
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
        if ref is None or ref.kind != "sample" or rig is None or ref.name not in getattr(rig, "samples", {}):
            return None
        return ref.name

    def _plays(self):
        t = self.transport
        return t.player if t.player is not None and t.mode == "player" else None

    def _built(self):
        doc = self.session.document
        return getattr(doc, "built", None) if doc is not None and not doc.findings else None

    def refresh(self) -> None:
        name = self._selected()
        changed = name != self.sample
        self.sample = name
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

    # -- over a loaded trajectory -----------------------------------------------------------------------
    def _trajectory(self, player, name: str) -> None:
        from mime_gui.field import forces_along

        built = player.playable.built
        key = (id(player), id(built), name, self.session.rig.samples[name])
        if self.series is None or self.series[0] != key:
            try:
                forces = forces_along(built, player.trajectory, start=player.schedule.start)
            except CodedError as err:
                self.series = None
                for curve in self.curves:
                    curve.setData([], [])
                self._say(f"<b>{name}</b>: no force: [{err.code}] {err.message}")
                return
            self.computed += 1
            self.series = (key, forces, forces.sample_names.index(name))
        _key, forces, k = self.series
        t = forces.time - player.schedule.start
        F = forces.force[:, k] * 1e3
        columns = [*F.T, np.linalg.norm(F, axis=1)]
        for curve, column in zip(self.curves, columns, strict=True):
            curve.setData(t, column)
        self._fit(np.stack(columns, axis=1))
        self.redraws += 1
        self._playhead(player.row)

    def _playhead(self, row: int) -> None:
        player = self._plays()
        if player is None or self.series is None or self.sample is None:
            return
        _key, forces, k = self.series
        row = min(max(int(row), 0), len(forces.time) - 1)
        self.playhead.setValue(float(forces.time[row] - player.schedule.start))
        self._say(self._now_text(forces, row, k))

    def _now_text(self, forces, row: int, k: int) -> str:
        return (f"<b>{self.sample}</b>: F {_vector(forces.force[row, k], 'mN', 1e3)}, τ "
                f"{_vector(forces.torque[row, k], 'µN·m', 1e6)}, B {_vector(forces.B[row, k], 'mT', 1e3)}, "
                f"largest gradient {np.abs(forces.gradient[row, k]).max():.4g} T/m ({forces.routes[k]})")

    # -- live ------------------------------------------------------------------------------------------
    def _sample(self) -> None:
        if self.sample is None or self._plays() is not None:
            return
        built = self._built()
        if built is None or self.sample not in built.apparatus.samples:
            self._say(f"<b>{self.sample}</b>: no force while the rig breaks rules (see Validation)")
            return
        from mime_gui.field import forces_now

        try:
            forces = forces_now(built, self.session.frame_world_pose)
        except CodedError as err:
            self._say(f"<b>{self.sample}</b>: no force: [{err.code}] {err.message}")
            return
        k = forces.sample_names.index(self.sample)
        self._samples.append(time.perf_counter() - self._t0, forces.force[0, k] * 1e3)
        self._last = (forces, k)
        self._dirty = True

    def _redraw_if_dirty(self) -> None:
        if not self._dirty or self.sample is None or self._plays() is not None or not on_screen(self.dock):
            return
        self._dirty = False
        t, values = self._samples.arrays()
        if not len(t):
            return
        keep = t >= t[-1] - LIVE_SECONDS
        ago, F = t[keep] - t[-1], values[keep]
        magnitude = np.linalg.norm(F, axis=1)
        for curve, column in zip(self.curves, [*F.T, magnitude], strict=True):
            curve.setData(ago, column)
        self._fit(np.column_stack([F, magnitude]))
        forces, k = self._last
        self._say(self._now_text(forces, 0, k))
        self.redraws += 1

    def _say(self, text: str) -> None:
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


__all__ = ["SamplePlot"]
