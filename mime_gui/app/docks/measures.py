"""Measures: the distance between two things of the rig (frames, parts' and magnets' centres, probes) and the
angle between an axis of each, live while driving and playing, and over the loaded trajectory.

Pick the two ends in *From* and *To* (or take the selection in the tree or the view with *Selection*), the
axes for the angle (z and z when both ends are frames; ``—`` for none), and *Add*. Each row of the table
reads its measure now: distance (mm), angle (°) and the vector from the first end to the second in world
axes (mm). A measure whose end an edit renamed or removed is marked stale (its row says what is missing);
an undo brings it back. The plot shows the chosen row's distance: over the whole loaded trajectory (or
recording) with the playhead, or the last seconds of live driving.

The list is the session's (:mod:`mime_gui.session.measures`): view state, not the rig, so it is neither
saved nor undone. The rows are read once per turn of the event loop (the bridge's coalesced
``poses_changed``) and only while the dock is on screen; hidden, it only notes that they are out of date.
"""

from __future__ import annotations

import time

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtGui import QBrush
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDockWidget,
    QGraphicsItem,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mime_gui.app.docks.fields import on_screen
from mime_gui.app.docks.look import BAD, status
from mime_gui.app.docks.plots import LIVE_SAMPLES, LIVE_SECONDS, SampleBuffer, nice_range
from mime_gui.app.docks.registry import declare
from mime_gui.rig.measures import AXES, CentreEnd, FrameEnd, MeasureError, ProbeEnd, measure_along
from mime_gui.session import Session, SessionError

# short headers: the distance and the angle in sight in a narrow tab (each header's tooltip says it whole)
HEADERS = ["From", "To", "d (mm)", "∠ (°)", "Δ world x, y, z (mm)"]  # Δ: to − from (its tip)
HEADER_TIPS = ["The first end", "The second end", "The distance between the two ends (mm)",
               "The angle between the chosen axis of each end, 0 to 180°",
               "The vector from the first end to the second, in world axes (mm)"]
DISTANCE, ANGLE, VECTOR = 2, 3, 4
#: from this width (px) the plot stands beside the table, not under it
WIDE = 440
#: the dock's least size (px): what the tabs beside it ask
MINIMUM = (240, 120)
NO_AXIS = "—"


def end_choices(session: Session) -> list[tuple[str, object]]:
    """``(text, end)`` of everything a measure can end on: magnets, probes and parts first (what is measured
    most), then every segment's frames but the links grafted for parts (listed as the parts)."""
    rig = session.rig
    if rig is None:
        return []
    out: list[tuple[str, object]] = []
    out += [(CentreEnd("magnets", n).label(), CentreEnd("magnets", n)) for n in rig.magnets]
    out += [(ProbeEnd(n).label(), ProbeEnd(n)) for n in rig.probes]
    out += [(CentreEnd("parts", n).label(), CentreEnd("parts", n)) for n in rig.parts]
    for name, seg in session.segments.items():
        out += [(FrameEnd(name, f).label(), FrameEnd(name, f)) for f in seg.articulation.frame_names
                if seg.item_of(f) is None]
    return out


def _mm(value: float) -> str:
    return f"{value * 1e3:.3f}"


def _vector(v) -> str:
    return ", ".join(f"{0.0 if abs(x) < 5e-7 else x * 1e3:+.3f}" for x in v)


class EndPicker(QWidget):
    """A combo box of the ends a measure can have and a button that takes the selection."""

    def __init__(self, title: str, parent=None):
        super().__init__(parent)
        self.combo = QComboBox(self)
        self.combo.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.combo.setMinimumContentsLength(6)
        self.combo.setToolTip(f"The measure's {title.lower()} end: a magnet's or part's centre, a probe, "
                              "or a frame (type to jump to one)")
        self.pick = QPushButton("Selection", self)
        self.pick.setToolTip("Take the item selected in the chain tree or the 3D view")
        self.point = QToolButton(self)
        self.point.setText("⊕")
        self.point.setCheckable(True)
        self.point.setToolTip("Click a point on the robot or a part in the 3D view: the end is that point, "
                              "fixed on the link it lies on")
        self._ends: list = []

    def set_choices(self, choices) -> None:
        ends = [end for _text, end in choices]
        if ends == self._ends:
            return
        keep = self.end()
        with QSignalBlocker(self.combo):
            self.combo.clear()
            for text, _end in choices:
                self.combo.addItem(text)
            self._ends = ends
            if keep in ends:
                self.combo.setCurrentIndex(ends.index(keep))
        if keep not in ends:
            self.combo.currentIndexChanged.emit(self.combo.currentIndex())

    def end(self):
        i = self.combo.currentIndex()
        return self._ends[i] if 0 <= i < len(self._ends) else None

    def set_end(self, end) -> None:
        """Show ``end``, adding it to the list when it is not one of it (a point picked on a link)."""
        if end not in self._ends:
            self._ends.append(end)
            with QSignalBlocker(self.combo):
                self.combo.addItem(end.label())
        self.combo.setCurrentIndex(self._ends.index(end))


class MeasuresDock(QDockWidget):
    #: a picker waits for a point clicked in the 3D view (None: no longer); the window answers with
    #: :meth:`take_point`
    point_wanted = Signal(object)

    def __init__(self, session: Session, bridge, services, parent=None):
        super().__init__(parent)
        declare(self, "MeasuresDock")  # its title and object name: the dock registry
        self.session = session
        self.transport = transport = services.transport
        self.updates = 0  # times the rows were read (tests: once per turn, none while hidden)
        self.computed = 0  # trajectories measured (once per loaded file, rig and measure)
        self._stale_rows = True  # the rows are out of date (read when the dock is next on screen)
        self._series = None  # (player, built, measure, its Reading along the trajectory, rows of min and max)
        self._samples = SampleBuffer(LIVE_SAMPLES, 1)
        self._sampled = None  # the measure the live samples are of
        self._readings: dict = {}  # measure → its Reading (or MeasureError) when the rows were last read
        self._t0 = time.perf_counter()

        # the plot beside the table in a wide dock, under it in a narrow one (resizeEvent)
        self.splitter = splitter = QSplitter(Qt.Horizontal, self)
        self._orientation = None  # set at the first resize
        # a least size of its own, no larger than the other tabs': the pickers, the table and the plot side by
        # side would ask more than the window's bottom area has (a small window then grew)
        splitter.setMinimumSize(*MINIMUM)
        left = QWidget(splitter)
        col = QVBoxLayout(left)
        col.setContentsMargins(4, 4, 4, 4)
        col.setSpacing(3)
        grid = QGridLayout()
        grid.setHorizontalSpacing(4)
        grid.setVerticalSpacing(2)
        self.pickers = (EndPicker("From", left), EndPicker("To", left))
        for row, (title, picker) in enumerate(zip(("From", "To"), self.pickers, strict=True)):
            grid.addWidget(QLabel(title, left), row, 0)
            grid.addWidget(picker.combo, row, 1)
            grid.addWidget(picker.pick, row, 2)
            grid.addWidget(picker.point, row, 3)
            picker.pick.clicked.connect(lambda _c=False, p=picker: self.take_selection(p))
            picker.point.toggled.connect(lambda on, p=picker: self._want_point(p, on))
            picker.combo.currentIndexChanged.connect(lambda _i: self._ends_changed())
        # the axes on a row of their own: beside the ends they made the dock (and the window) wider
        angle = QHBoxLayout()
        self.axes = []
        for title in ("From", "To"):
            axis = QComboBox(left)
            axis.addItems([NO_AXIS, *AXES])
            axis.setToolTip(f"The {title.lower()} end's axis the angle is measured from ({NO_AXIS}: no "
                            "angle). A frame's axes are its own, a part's, magnet's or probe's those of the "
                            "frame it is mounted on, the world's for one fixed in the world")
            if self.axes:
                angle.addWidget(QLabel("and", left))
            angle.addWidget(axis)
            self.axes.append(axis)
        angle.addStretch(1)
        self.add_button = QPushButton("Add", left)
        self.add_button.setToolTip("Measure from the first end to the second (not saved with the rig)")
        self.add_button.clicked.connect(self.add)
        angle.addWidget(self.add_button)
        grid.addWidget(QLabel("Angle", left), 2, 0)
        grid.addLayout(angle, 2, 1, 1, 3)
        grid.setColumnStretch(1, 1)
        col.addLayout(grid)
        self.table = QTreeWidget(left)
        self.table.setObjectName("measures")
        self.table.setColumnCount(len(HEADERS))
        self.table.setHeaderLabels(HEADERS)
        for c, tip in enumerate(HEADER_TIPS):
            self.table.headerItem().setToolTip(c, tip)
        self.table.setRootIsDecorated(False)
        self.table.setIndentation(0)
        self.table.setUniformRowHeights(True)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.currentItemChanged.connect(lambda *_: self._chosen())
        self.table.setMinimumHeight(48)
        for c in (DISTANCE, ANGLE):  # as wide as their headers: the values in sight in a narrow tab
            self.table.header().setSectionResizeMode(c, QHeaderView.ResizeToContents)
        col.addWidget(self.table, 1)
        buttons = QHBoxLayout()
        self.remove_button = QPushButton("Remove", left)
        self.remove_button.setToolTip("Remove the chosen measure (Delete)")
        self.remove_button.clicked.connect(self.remove_current)
        self.clear_button = QPushButton("Clear", left)
        self.clear_button.setToolTip("Remove every measure")
        self.clear_button.clicked.connect(session.clear_measures)
        for b in (self.remove_button, self.clear_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        col.addLayout(buttons)

        right = QWidget(splitter)
        rcol = QVBoxLayout(right)
        rcol.setContentsMargins(0, 0, 0, 0)
        rcol.setSpacing(0)
        self.plot = pg.PlotWidget(right)
        services.plots.follow(self.plot)
        self.plot.setBackground("w")
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        for axis in ("left", "bottom"):
            self.plot.getAxis(axis).enableAutoSIPrefix(False)
        self.plot.setLabel("left", "distance (mm)")
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.disableAutoRange()  # ranges change in round steps (nice_range): a redrawn axis costs
        self.curve = self.plot.plot(pen=pg.mkPen("#4f8fd6", width=2))
        self.playhead = self.plot.addLine(x=0, pen=pg.mkPen("#888", width=1))
        rcol.addWidget(self.plot, 1)
        self.readout = QLabel(right)
        self.readout.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.readout.setWordWrap(True)
        self.readout.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)  # never widens the window
        rcol.addWidget(self.readout)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 1)
        self.setWidget(splitter)

        bridge.document_changed.connect(lambda _d: self._rig_shown())
        bridge.rig_changed.connect(lambda _c: self._rig_shown())
        bridge.selection_changed.connect(lambda _s: self._enable())
        bridge.measures_changed.connect(lambda _m: self._list())
        bridge.poses_changed.connect(lambda _s: self._moved())
        transport.player_changed.connect(lambda _p: self._trajectory_changed())
        transport.mode_changed.connect(lambda _m: self._trajectory_changed())
        transport.playhead_changed.connect(self._playhead)
        self.visibilityChanged.connect(lambda on: on and self._shown())
        self._rig_shown()

    # -- the pickers -------------------------------------------------------------------------------------
    def _rig_shown(self) -> None:
        choices = end_choices(self.session)
        for picker in self.pickers:
            picker.set_choices(choices)
        a, b = self.pickers
        if len(choices) > 1 and a.end() == b.end():  # a pair to add at once: the first magnet to what follows
            b.combo.setCurrentIndex((a.combo.currentIndex() + 1) % len(choices))
        self._list()

    def _ends_changed(self) -> None:
        """Both ends frames: the angle between their z axes, else none (either chosen again at will)."""
        frames = all(isinstance(p.end(), FrameEnd) for p in self.pickers)
        for axis in self.axes:
            axis.setCurrentText("z" if frames else NO_AXIS)
        self._enable()

    def take_selection(self, picker: EndPicker) -> None:
        item = self.session.selection
        if item is None:
            return
        try:
            picker.set_end(self.session.measure_end(item))
        except SessionError:  # the window shows it
            pass

    def _want_point(self, picker: EndPicker, on: bool) -> None:
        """Ask the window for the next click's point in the 3D view (:attr:`point_wanted`), one picker at a
        time; unchecked, stop waiting."""
        if on:
            for other in self.pickers:
                if other is not picker and other.point.isChecked():
                    with QSignalBlocker(other.point):
                        other.point.setChecked(False)
        self.point_wanted.emit(picker if on else None)

    def take_point(self, picker: EndPicker, ref, world_point) -> None:
        """The point clicked for ``picker``: on the link (or part) ``ref`` at ``world_point``; None, no
        point (a click off every surface)."""
        with QSignalBlocker(picker.point):
            picker.point.setChecked(False)
        if ref is None:
            return
        try:
            picker.set_end(self.session.measure_end(ref, world_point))
        except SessionError:  # the window shows it
            pass

    def chosen_axes(self) -> tuple[str, str] | None:
        axes = tuple(a.currentText() for a in self.axes)
        return None if NO_AXIS in axes else axes

    def add(self) -> None:
        a, b = (p.end() for p in self.pickers)
        if a is None or b is None:
            return
        try:
            added = self.session.add_measure(a, b, self.chosen_axes())
        except SessionError:  # shown by the window; the pickers keep the ends to change
            return
        row = self.session.measures.index(added)
        self.table.setCurrentItem(self.table.topLevelItem(row))

    def remove_current(self) -> None:
        m = self.current()
        if m is not None:
            try:
                self.session.remove_measure(m)
            except SessionError:
                pass

    def current(self):
        row = self.table.indexOfTopLevelItem(self.table.currentItem()) if self.table.currentItem() else -1
        measures = self.session.measures
        return measures[row] if 0 <= row < len(measures) else None

    def _enable(self) -> None:
        has = self.session.document is not None
        ends = [p.end() for p in self.pickers]
        self.add_button.setEnabled(has and None not in ends and ends[0] != ends[1])
        for p in self.pickers:
            p.pick.setEnabled(has and self.session.selection is not None)
            p.combo.setEnabled(has)
        self.remove_button.setEnabled(self.current() is not None)
        self.clear_button.setEnabled(bool(self.session.measures))

    def resizeEvent(self, event) -> None:
        """The plot beside the table in a wide dock, under it in a tall one (floating, or in a column)."""
        super().resizeEvent(event)
        size = self.size()
        wide = size.width() >= max(1.5 * size.height(), WIDE)
        orientation = Qt.Horizontal if wide else Qt.Vertical
        if orientation != self._orientation:  # the user's split is kept until the orientation changes
            self._orientation = orientation
            self.splitter.setOrientation(orientation)
            # the table first beside the plot, its distance and angle in sight; as tall as it under it
            self.splitter.setSizes([3 * size.width() // 5, 2 * size.width() // 5] if wide else
                                   [size.height() // 2, size.height() // 2])

    def keyPressEvent(self, event) -> None:
        if event.key() == Qt.Key_Delete and self.table.hasFocus():
            self.remove_current()
            return
        super().keyPressEvent(event)

    # -- the table ---------------------------------------------------------------------------------------
    def _list(self) -> None:
        """One row per measure of the session (the chosen one kept), read now when on screen."""
        measures = self.session.measures
        keep = self.current()
        with QSignalBlocker(self.table):
            self.table.clear()
            for m in measures:
                row = QTreeWidgetItem(self.table, [m.a.label(), m.b.label(), "", "", ""])
                for c in (DISTANCE, ANGLE, VECTOR):
                    row.setTextAlignment(c, Qt.AlignRight | Qt.AlignVCenter)
            if measures:
                self.table.setCurrentItem(self.table.topLevelItem(measures.index(keep) if keep in measures
                                                                  else len(measures) - 1))
        for c in range(2):  # a long name (whole in the row's tooltip) does not push the values out of sight
            self.table.resizeColumnToContents(c)
            self.table.setColumnWidth(c, min(self.table.columnWidth(c), 150))
        self._stale_rows = True
        if on_screen(self):
            self.read_rows()
        self._chosen()

    def _moved(self) -> None:
        """Poses changed this turn (driving, playing, an edit): read the rows if the dock is on screen."""
        self._stale_rows = True
        if not on_screen(self):
            return
        self.read_rows()
        if self._plays() is None:
            self._sample()

    def _shown(self) -> None:
        if self._stale_rows:
            self.read_rows()
        self._chosen()

    def read_rows(self) -> None:
        """Every row's values from the published poses now."""
        self._stale_rows = False
        self.updates += 1
        measures, readings = self.session.measures, self.session.measure_readings()
        self._readings = dict(zip(measures, readings, strict=True))
        for i, (m, r) in enumerate(zip(measures, readings, strict=True)):
            row = self.table.topLevelItem(i)
            if row is None:
                continue
            if isinstance(r, MeasureError):
                texts = ("stale", "", r.message)
                tip = f"[{r.code}] {r.message}"
                colour = BAD
            else:
                texts = (_mm(r.distance), "" if r.angle is None else f"{np.degrees(r.angle):.2f}",
                         _vector(r.vector))
                tip = f"{m.label()}: {r.distance * 1e3:.6g} mm"
                if r.angle is not None:
                    tip += f", {np.degrees(r.angle):.6g}° between {m.axes[0]} and {m.axes[1]}"
                colour = None
            for c, text in zip((DISTANCE, ANGLE, VECTOR), texts, strict=True):
                if row.text(c) != text:
                    row.setText(c, text)
            for c in range(len(HEADERS)):
                row.setToolTip(c, tip)
                row.setForeground(c, QBrush(colour) if colour is not None else QBrush())

    def rows(self) -> list[list[str]]:
        """Every row's texts (tests)."""
        return [[self.table.topLevelItem(i).text(c) for c in range(len(HEADERS))]
                for i in range(self.table.topLevelItemCount())]

    # -- the plot ----------------------------------------------------------------------------------------
    def _plays(self):
        t = self.transport
        return t.player if t.player is not None and t.mode == "player" else None

    def _trajectory_changed(self) -> None:
        if self.transport.player is None:
            self._series = None  # not kept alive for nothing
        self._chosen()

    def _chosen(self) -> None:
        """The chosen measure's distance: over the loaded trajectory, or live."""
        self._enable()
        m = self.current()
        player = self._plays()
        self.playhead.setVisible(player is not None and m is not None)
        self.curve.curve.setCacheMode(QGraphicsItem.CacheMode.NoCache if player is None else
                                      QGraphicsItem.CacheMode.DeviceCoordinateCache)
        if m is None:
            self.curve.setData([], [])
            self._say("Pick two ends and Add: the chosen measure's distance is plotted here", hint=True)
            return
        if player is None:
            if m != self._sampled:
                self._sampled = m
                self._samples = SampleBuffer(LIVE_SAMPLES, 1)
                self._t0 = time.perf_counter()
            self.plot.setLabel("bottom", "t (s), 0 = now")
            self.plot.setXRange(-LIVE_SECONDS, 0.0, padding=0.0)
            if on_screen(self):
                self._sample()  # where it stands now, before anything moves
            return
        if not on_screen(self):  # measured along the trajectory when it is shown
            return
        self._measure_trajectory(player, m)

    def _measure_trajectory(self, player, m) -> None:
        built = player.playable.built
        s = self._series
        if s is None or s[0] is not player or s[1] is not built or s[2] != m:
            try:
                along = measure_along(m, built, player.trajectory, start=player.schedule.start)
            except MeasureError as err:
                self._series = None
                self.curve.setData([], [])
                self._say(f"[{err.code}] {err.message}", m)
                return
            self.computed += 1
            mm = along.distance * 1e3
            self._series = (player, built, m, along, int(np.argmin(mm)), int(np.argmax(mm)))
        along = self._series[3]
        t = along.time - player.schedule.start
        mm = along.distance * 1e3
        self.curve.setData(t, mm)
        self.plot.setLabel("bottom", "t (s)")
        self.plot.setXRange(0.0, float(t[-1]) if len(t) else 1.0, padding=0.02)
        self._fit(mm)
        self._playhead(player.row)

    def _playhead(self, row: int) -> None:
        player = self._plays()
        if player is None or self._series is None or self._series[0] is not player or not on_screen(self):
            return
        _player, _built, m, along, lo, hi = self._series
        row = min(max(int(row), 0), len(along.time) - 1)
        t0 = player.schedule.start
        self.playhead.setValue(float(along.time[row] - t0))
        mm = along.distance * 1e3
        self._say(f"now <b>{mm[row]:.3f} mm</b><br>min {mm[lo]:.3f} · max {mm[hi]:.3f} mm",
                  m, f"min at {along.time[lo] - t0:.3g} s, max at {along.time[hi] - t0:.3g} s")

    def _sample(self) -> None:
        m = self.current()
        if m is None:
            return
        r = self._readings.get(m)
        if r is None:
            return
        if isinstance(r, MeasureError):
            self._say(f"stale: {r.message}", m)
            return
        self._samples.append(time.perf_counter() - self._t0, [r.distance * 1e3])
        self._draw_live()

    def _draw_live(self) -> None:
        m = self.current()
        t, values = self._samples.arrays()
        if m is None or not len(t):
            self.curve.setData([], [])
            return
        keep = t >= t[-1] - LIVE_SECONDS
        ago, mm = t[keep] - t[-1], values[keep, 0]
        self.curve.setData(ago, mm)
        self._fit(mm)
        self._say(f"now <b>{mm[-1]:.3f} mm</b><br>min {mm.min():.3f} · max {mm.max():.3f} mm", m,
                  f"min and max over the last {LIVE_SECONDS:g} s")

    def _fit(self, values: np.ndarray) -> None:
        finite = values[np.isfinite(values)]
        if not finite.size:
            return
        lo, hi = float(finite.min()), float(finite.max())
        a, b = self.plot.getViewBox().state["targetRange"][1]
        if not (a <= lo and hi <= b and (hi - lo) >= 0.25 * (b - a)):
            self.plot.setYRange(*nice_range(lo, hi), padding=0)

    def _say(self, text: str, m=None, more: str = "", hint: bool = False) -> None:
        """The lines under the plot (short, for a narrow plot: the chosen row says what they are of; the
        tooltip says it whole)."""
        self.readout.setText(text)
        plain = text.replace("<b>", "").replace("</b>", "").replace("<br>", "; ")
        plain = f"{m.label()}: {plain}" if m is not None else plain
        self.readout.setToolTip(f"{plain} ({more})" if more else plain)
        status(self.readout, "hint" if hint else "")


__all__ = ["EndPicker", "MeasuresDock", "end_choices"]
