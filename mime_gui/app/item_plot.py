"""A plot in the Plots dock of a vector at the selected item over time (x, y, z and its size dashed), with a
readout line under the plots: shown only while such an item is selected; while driving, sampled at each pose
change (the last :data:`~mime_gui.app.docks.plots.LIVE_SECONDS`, a ring buffer, redrawn at most every
:data:`~mime_gui.app.docks.plots.REDRAW_MS` and only while the dock is on screen); with a command file or a
trajectory loaded, computed once over the whole of it (per loaded file, rig and item), with the playhead.

:class:`ItemPlot` holds what the field at a probe (app/field_views.py) and the force on a sample
(app/sample_plot.py) share; a subclass says which item it follows, what it computes over a trajectory and at
one pose, and what its readout says.
"""

from __future__ import annotations

import time

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, QTimer

from mime_gui.app.docks.fields import on_screen
from mime_gui.app.docks.plots import LIVE_SAMPLES, LIVE_SECONDS, REDRAW_MS, XYZ, SampleBuffer, nice_range
from mime_gui.app.readout import Readout
from mime_gui.errors import CodedError


class ItemPlot(QObject):
    """The plot of one kind of item (see the module's text); ``kind`` is the selection's kind it follows
    and ``collection`` the rig's collection the item lives in."""

    kind = ""
    collection = ""

    def __init__(self, dock, session, bridge, transport, label: str, short: str, tip: str, parent=None):
        super().__init__(parent or dock)
        self.dock = dock
        self.session = session
        self.transport = transport
        self.plot = dock.add_plot(label, short, tip)
        self.curves = [self.plot.plot(pen=pg.mkPen(c, width=2)) for c in XYZ]
        self.curves.append(self.plot.plot(pen=pg.mkPen("#555", width=1, style=Qt.DashLine)))
        self.playhead = self.plot.addLine(x=0, pen=pg.mkPen("#888", width=1))
        self.readout = Readout(dock.readout.parentWidget())  # a new text each frame (app/readout.py)
        self.readout.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.readout.hide()
        dock.readout.parentWidget().layout().addWidget(self.readout)
        self.name: str | None = None  # the item shown
        self.series = None  # (key, time (T,), values (T, 3), what the subclass keeps): the loaded trajectory
        self.computed = 0  # trajectories computed (tests count them: once per file, rig and item)
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

    # -- what a subclass says ----------------------------------------------------------------------------
    def compute(self, player, name: str):
        """``(time (T,), values (T, 3) as drawn, kept)`` over the loaded trajectory; raises a CodedError."""
        raise NotImplementedError

    def row_text(self, row: int) -> str:
        """The readout at row ``row`` of the loaded trajectory (``self.series`` is set)."""
        raise NotImplementedError

    def live(self) -> tuple[np.ndarray | None, str]:
        """``(values (3,) as drawn, "")`` at the pose shown, or ``(None, why not)``."""
        raise NotImplementedError

    def live_text(self, values: np.ndarray) -> str:
        """The readout while driving, from the last :data:`LIVE_SECONDS` of values ``(n, 3)``."""
        raise NotImplementedError

    def key(self, player, name: str) -> tuple:
        """What the computed series depends on, beside the player and its build."""
        return (name, getattr(self.session.rig, self.collection)[name])

    # -- which series ----------------------------------------------------------------------------------
    def _selected(self) -> str | None:
        ref, rig = self.session.selection, self.session.rig
        if ref is None or ref.kind != self.kind or rig is None:
            return None
        if ref.name not in getattr(rig, self.collection, {}):
            return None
        return ref.name

    def _plays(self):
        t = self.transport
        return t.player if t.player is not None and t.mode == "player" else None

    def refresh(self) -> None:
        """Show the plot for the selected item (hide it without one), live or over the trajectory."""
        name = self._selected()
        changed = name != self.name
        self.name = name
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
        key = (id(player), id(player.playable.built), *self.key(player, name))
        if self.series is None or self.series[0] != key:
            try:
                t, values, kept = self.compute(player, name)
            except CodedError as err:
                self.series = None
                for curve in self.curves:
                    curve.setData([], [])
                self._say(f"<b>{name}</b>: none: [{err.code}] {err.message}")
                return
            self.computed += 1
            self.series = (key, t, values, kept)
        _key, t, values, _kept = self.series
        columns = [*values.T, np.linalg.norm(values, axis=1)]
        shown = t - player.schedule.start
        for curve, column in zip(self.curves, columns, strict=True):
            curve.setData(shown, column)
        self._fit(np.stack(columns, axis=1))
        self.redraws += 1
        self._playhead(player.row)

    def _playhead(self, row: int) -> None:
        player = self._plays()
        if player is None or self.series is None or self.name is None:
            return
        t = self.series[1]
        row = min(max(int(row), 0), len(t) - 1)
        self.playhead.setValue(float(t[row] - player.schedule.start))
        self._say(self.row_text(row))

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
        if self.name is None or self._plays() is not None:
            return
        values, why = self.live()
        if values is None:
            self._say(f"<b>{self.name}</b>: none ({why})")
            return
        self._samples.append(time.perf_counter() - self._t0, values)
        self._dirty = True

    def _redraw_if_dirty(self) -> None:
        if not self._dirty or self.name is None or self._plays() is not None or not on_screen(self.dock):
            return
        self._dirty = False
        t, values = self._samples.arrays()
        if not len(t):
            return
        keep = t >= t[-1] - LIVE_SECONDS
        ago, V = t[keep] - t[-1], values[keep]
        magnitude = np.linalg.norm(V, axis=1)
        for curve, column in zip(self.curves, [*V.T, magnitude], strict=True):
            curve.setData(ago, column)
        self._fit(np.column_stack([V, magnitude]))
        self._say(self.live_text(V))
        self.redraws += 1


__all__ = ["ItemPlot"]
