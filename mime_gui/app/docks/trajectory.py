"""Trajectory: the rig's authored trajectories (its file's ``trajectories``) on a timeline, to check, fit to
the limits, edit keyframe by keyframe and play.

The chosen trajectory is rendered every :data:`DT` seconds (:func:`mime_gui.rig.trajectories.render`) and
drawn one plot per segment, each commanded joint's command over time in the trajectory's unit, the keyframes'
times as vertical lines; the findings of :func:`~mime_gui.rig.trajectories.check` (a joint beyond its
velocity or acceleration limit, a line leaving the reachable space) and of the rig's rules about it are
listed under the plot with their codes. The keyframe table shows each segment's keyframes (time,
interpolation, values); a time, an interpolation or values typed in it (:mod:`mime_gui.rig.keyframe_text`)
is one edit, and so is a keyframe's line dragged in time on the plot (one undo step per drag). *Add
keyframe* takes the segment's current commands at a typed time after its last keyframe; *Remove keyframe*
takes the chosen one away; *New* adds a trajectory holding the current pose at 0 s; *Fit to limits*
stretches the timeline just enough (:func:`~mime_gui.rig.trajectories.fit_to_limits`). Each is one edit
of the rig, one undo step. *Play* loads the rendering into the player, as ``mime-gui trajectory`` writes
it, and the player renders it again after every edit
(:meth:`~mime_gui.session.transport.Transport.open_trajectory`).

The plot is rendered once per turn of the event loop after a change, and only while the dock is on screen.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSignalBlocker, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDockWidget,
    QDoubleSpinBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QSizePolicy,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from mime_gui.app.docks.fields import on_screen
from mime_gui.app.docks.look import BAD, hint, message
from mime_gui.app.docks.plots import COLOURS
from mime_gui.app.docks.poses import current_positions
from mime_gui.app.docks.registry import declare
from mime_gui.errors import CodedError
from mime_gui.multibody import PRISMATIC
from mime_gui.rig.keyframe_text import keyframe_text, parse_keyframe_text
from mime_gui.rig.poses import UNIT_FACTORS, pose_of
from mime_gui.rig.trajectories import (
    INTERPOLATIONS,
    Keyframe,
    Trajectory,
    check,
    fit_to_limits,
    render,
)
from mime_gui.rig.typed_units import parse_typed
from mime_gui.session import AddItem, ReplaceItem, Session, SessionError

#: the rendering's step (s): the plot's, the check's and the played commands'
DT = 0.01
HEADERS = ["Segment", "Time (s)", "Interpolation", "Values"]
HEADER_TIPS = ["The segment the keyframe moves",
               "When the keyframe is reached, in seconds from the start (type a new time to move it)",
               "How the joints get there from the keyframe before: linear, cubic (spline), quintic "
               "(minimum jerk, rest to rest), hold (a step at the keyframe), line (a frame on a straight "
               "line), spin (a motor's spin profile)",
               "What the keyframe gives: joint positions (the trajectory's unit, or typed with one: "
               "joint_1 35°, joint_2 0.2 rad), a named pose (pose home), the frame a line moves (frame "
               "tool0), a motor's spin (spin 5 Hz, ramp 0.5 s, hold 4 s); the joints it does not name keep "
               "their values. Double-click to type"]
SEGMENT, TIME, INTERPOLATION, VALUES = range(4)
#: the dock's least size (px), no larger than the other tabs' beside the plots
MINIMUM = (240, 120)


def _button(text: str, parent) -> QToolButton:
    """A button as small as its text (a push button's least width made the dock, and the window, wider)."""
    b = QToolButton(parent)
    b.setText(text)
    b.setToolButtonStyle(Qt.ToolButtonTextOnly)
    return b


def _unit_of(unit: str, sliding: bool) -> str:
    angle, length = unit.split("|")
    return length if sliding else angle


def _shown_unit(u: str) -> str:
    return "°" if u == "deg" else f" {u}"


class TrajectoryDock(QDockWidget):
    clearance_checked = Signal()  # the rendering's clearance findings are listed (tests)
    _clearance_arrived = Signal(int, object)  # (token, findings or a CodedError) from the worker

    def __init__(self, session: Session, bridge, services, parent=None):
        super().__init__(parent)
        declare(self, "TrajectoryDock")  # its title and object name: the dock registry
        self.session = session
        self.transport = services.transport
        self.renders = 0  # times the chosen trajectory was rendered (tests: once per turn, none hidden)
        self._dirty = True  # the plot is out of date (rendered when the dock is next on screen)
        self._pending = False  # a rendering is queued for the next turn of the event loop
        self._rows: list[tuple[str, int]] = []  # (segment, keyframe index) of each table row
        self._listed = None  # the trajectories' names the combo shows
        self._shown = None  # (rig, name) the table shows
        self.rendered: tuple[np.ndarray, np.ndarray] | None = None  # (time, commands) drawn

        splitter = QSplitter(Qt.Horizontal, self)
        splitter.setMinimumSize(*MINIMUM)
        left = QWidget(splitter)
        col = QVBoxLayout(left)
        col.setContentsMargins(4, 4, 4, 4)
        col.setSpacing(3)
        top = QHBoxLayout()
        top.addWidget(QLabel("Trajectory", left))
        self.choice = QComboBox(left)
        self.choice.setObjectName("trajectories")
        self.choice.setToolTip("The rig's trajectories (its file's trajectories section)")
        self.choice.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.choice.setMinimumContentsLength(8)
        self.choice.currentIndexChanged.connect(lambda _i: self._chosen())
        top.addWidget(self.choice, 1)
        self.new_button = _button("New", left)
        self.new_button.setToolTip("A new trajectory holding the current pose at 0 s (an edit: Edit → Undo)")
        self.new_button.clicked.connect(self.new)
        top.addWidget(self.new_button)
        col.addLayout(top)

        actions = QHBoxLayout()
        self.play_button = _button("Play", left)
        self.play_button.setToolTip(f"Load the trajectory, rendered every {DT:g} s, into the player")
        self.play_button.clicked.connect(self.play)
        self.fit_button = _button("Fit to limits", left)
        self.fit_button.setToolTip("Stretch the intervals just enough for every joint to keep within its "
                                   "velocity and acceleration limits (an edit: Edit → Undo)")
        self.fit_button.clicked.connect(self.fit)
        self.remove_button = _button("Remove keyframe", left)
        self.remove_button.setToolTip("Remove the keyframe chosen in the table (an edit: Edit → Undo)")
        self.remove_button.clicked.connect(self.remove_keyframe)
        for b in (self.play_button, self.fit_button, self.remove_button):
            actions.addWidget(b)
        actions.addStretch(1)
        col.addLayout(actions)

        self.table = QTableWidget(0, len(HEADERS), left)
        self.table.setObjectName("keyframes")
        self.table.setHorizontalHeaderLabels(HEADERS)
        for c, tip in enumerate(HEADER_TIPS):
            self.table.horizontalHeaderItem(c).setToolTip(tip)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.DoubleClicked | QAbstractItemView.EditKeyPressed
                                   | QAbstractItemView.SelectedClicked)
        header = self.table.horizontalHeader()
        for c in (SEGMENT, TIME, INTERPOLATION):
            header.setSectionResizeMode(c, QHeaderView.ResizeToContents)
        header.setStretchLastSection(True)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.ElideRight)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 8)
        self.table.setMinimumHeight(48)
        self.table.itemChanged.connect(self._cell_changed)
        self.table.currentCellChanged.connect(lambda *_: self._enable())
        col.addWidget(self.table, 1)

        add = QHBoxLayout()
        self.add_button = _button("Add keyframe", left)
        self.add_button.setToolTip("The segment's current commands as a keyframe at the time beside, after "
                                   "its last keyframe (an edit: Edit → Undo)")
        self.add_button.clicked.connect(self.add_keyframe)
        self.segment = QComboBox(left)
        self.segment.setToolTip("The segment the new keyframe moves")
        self.segment.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.segment.setMinimumContentsLength(3)
        self.segment.currentIndexChanged.connect(lambda _i: self._suggest_time())
        self.time = QDoubleSpinBox(left)
        self.time.setObjectName("keyframe-time")
        self.time.setRange(0.0, 1e6)
        self.time.setDecimals(2)
        self.time.setSuffix(" s")
        self.time.setKeyboardTracking(False)
        self.time.setToolTip("The new keyframe's time, after the segment's last keyframe")
        self.time.setButtonSymbols(QDoubleSpinBox.NoButtons)
        self.time.setMinimumWidth(self.time.fontMetrics().horizontalAdvance("0000.00 s") + 12)
        self.time.setMaximumWidth(self.time.minimumWidth() + 20)
        self.interpolation = QComboBox(left)
        self.interpolation.addItems(INTERPOLATIONS)
        self.interpolation.setCurrentText("quintic")
        self.interpolation.setToolTip("How the joints get to the new keyframe from the one before")
        self.interpolation.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.interpolation.setMinimumContentsLength(5)
        add.setSpacing(3)
        add.addWidget(self.add_button)
        add.addWidget(self.segment, 1)
        add.addWidget(QLabel("at", left))
        add.addWidget(self.time)
        add.addWidget(self.interpolation, 1)
        col.addLayout(add)
        self.status = QLabel(left)
        self.status.setObjectName("trajectory-status")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.status.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)  # never widens the window
        col.addWidget(self.status)

        right = QWidget(splitter)
        rcol = QVBoxLayout(right)
        rcol.setContentsMargins(0, 0, 0, 0)
        rcol.setSpacing(2)
        self.graphs = pg.GraphicsLayoutWidget(right)
        services.plots.follow(self.graphs)
        self.graphs.setBackground("w")
        self.graphs.setMinimumHeight(60)
        rcol.addWidget(self.graphs, 3)
        self.legend = QLabel(right)
        self.legend.setWordWrap(True)
        self.legend.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)  # never widens the window
        self.legend.setToolTip("Each joint's colour in the plots; the dashed lines are the keyframes' times")
        rcol.addWidget(self.legend)
        self.plots: dict[str, pg.PlotItem] = {}  # by segment
        self.curves: dict[str, pg.PlotDataItem] = {}  # by command name (segment.joint)
        self.lines: dict[str, list[pg.InfiniteLine]] = {}  # each segment's keyframes on the timeline
        self._drag = None  # the keyframe line under the mouse
        self._drag_to = None  # (segment, keyframe, time) to apply on the next turn
        self._drag_pending = False
        self.clearance_findings: list = []  # clearance along the last rendering (its worker's)
        self._clearance_token = 0
        self._clearance_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="trajectory-clearance")
        self._clearance_arrived.connect(self._clearance_shown)
        self._said = (0.0, 0, 0)
        self._said_text = ""  # the rendering's status line, as last said
        self.findings = QListWidget(right)
        self.findings.setObjectName("trajectory-findings")
        self.findings.setToolTip("What keeps the trajectory from being played as it is: each finding's code, "
                                 "the keyframe it is about, and what to do")
        self.findings.setWordWrap(True)
        self.findings.setMinimumHeight(36)
        self.findings.hide()  # shown when there are findings
        rcol.addWidget(self.findings, 1)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 1)
        self.splitter = splitter
        self._split = None  # the width the split was last set for
        self.setWidget(splitter)

        bridge.document_changed.connect(lambda _d: self.changed())
        bridge.rig_changed.connect(lambda _c: self.changed())
        bridge.findings_changed.connect(lambda _f: self.changed())
        self.visibilityChanged.connect(lambda on: on and self._dirty and self._queue())
        self.changed()

    # -- the rig's trajectories ------------------------------------------------------------------------
    def _built(self):
        doc = self.session.document
        return getattr(doc, "built", None) if doc is not None else None

    def trajectories(self) -> dict:
        rig = self.session.rig
        return dict(rig.trajectories) if rig is not None else {}

    def current(self) -> str | None:
        name = self.choice.currentText()
        return name if name in self.trajectories() else None

    def trajectory(self) -> Trajectory | None:
        name = self.current()
        return self.trajectories().get(name) if name is not None else None

    def choose(self, name: str) -> None:
        self.choice.setCurrentIndex(self.choice.findText(name))

    def rule_findings(self, name: str) -> list:
        """The rig's findings about the trajectory ``name``."""
        where = f"trajectories.{name}"
        return [f for f in self.session.findings if f.where == where or f.where.startswith(where + ".")]

    def keyframe_of_row(self, row: int) -> tuple[str, int, Keyframe] | None:
        t = self.trajectory()
        if t is None or not 0 <= row < len(self._rows):
            return None
        seg, i = self._rows[row]
        keys = t.segments.get(seg, ())
        return (seg, i, keys[i]) if i < len(keys) else None

    # -- refreshing --------------------------------------------------------------------------------------
    def changed(self) -> None:
        """The rig, its findings or the document changed: the list and the table now, the plot next turn."""
        names = list(self.trajectories())
        if names != self._listed:
            self._listed = names
            keep = self.choice.currentText()
            with QSignalBlocker(self.choice):
                self.choice.clear()
                self.choice.addItems(names)
                if keep in names:
                    self.choice.setCurrentIndex(names.index(keep))
        built = self._built()
        chain = self.session.rig.chain if self.session.rig is not None else {}
        # the last valid build's segments the rig still has (one removed since is no longer offered)
        segs = [s for s in (built.segments if built is not None else ()) if built.node(s).command_names
                and s in chain]
        if segs != [self.segment.itemText(i) for i in range(self.segment.count())]:
            keep = self.segment.currentText()
            with QSignalBlocker(self.segment):
                self.segment.clear()
                self.segment.addItems(segs)
                if keep in segs:
                    self.segment.setCurrentIndex(segs.index(keep))
        self._chosen()

    def _chosen(self) -> None:
        self._fill_table()
        self._suggest_time()
        self._enable()
        self._dirty = True
        self._queue()

    def _queue(self) -> None:
        if not self._pending:
            self._pending = True
            QTimer.singleShot(0, self._due)

    def _due(self) -> None:
        self._pending = False
        if self._dirty and on_screen(self):
            self.redraw()

    def _enable(self) -> None:
        has_doc = self.session.document is not None
        built = self._built()
        t = self.trajectory()
        self.new_button.setEnabled(has_doc and built is not None)
        for w in (self.play_button, self.fit_button):
            w.setEnabled(t is not None and built is not None)
        self.add_button.setEnabled(t is not None and built is not None and self.segment.count() > 0)
        self.remove_button.setEnabled(self.keyframe_of_row(self.table.currentRow()) is not None)

    def _suggest_time(self) -> None:
        """The new keyframe's time: a second after the chosen segment's last keyframe."""
        t = self.trajectory()
        keys = t.segments.get(self.segment.currentText(), ()) if t is not None else ()
        with QSignalBlocker(self.time):
            self.time.setValue(keys[-1].time + 1.0 if keys else 0.0)

    def _unit_of(self, t: Trajectory, seg: str):
        """``joint → the trajectory's unit for it`` on segment ``seg`` (a length unit for a sliding joint)."""
        built = self._built()
        art = built.segments[seg].articulation if built is not None and seg in built.segments else None

        def unit_of(joint: str) -> str:
            sliding = False
            if art is not None:
                try:
                    sliding = art.joint_type[art.joint_index(joint)] == PRISMATIC
                except (KeyError, ValueError, IndexError):
                    sliding = False
            return _unit_of(t.unit, sliding)
        return unit_of

    def _values_text(self, t: Trajectory, seg: str, key: Keyframe) -> str:
        return keyframe_text(key, self._unit_of(t, seg))

    def _fill_table(self) -> None:
        t = self.trajectory()
        state = (self.session.rig, self.current())
        if state == self._shown:
            return
        self._shown = state
        keep = self.table.currentRow()
        segments = t.segments.items() if t is not None else ()
        rows = [(seg, i) for seg, keys in segments for i in range(len(keys))]
        if rows and rows == self._rows and self.table.rowCount() == len(rows):
            self._update_rows(t)  # the same keyframes: their cells in place (an open editor keeps its cell)
            return
        self._rows = rows
        with QSignalBlocker(self.table):
            self.table.setRowCount(0)
            self.table.setRowCount(len(rows))
            for r, (seg, i) in enumerate(rows):
                key = t.segments[seg][i]
                cells = [seg, f"{key.time:g}", key.interpolation, self._values_text(t, seg, key)]
                for c, text in enumerate(cells):
                    item = QTableWidgetItem(text)
                    if c not in (TIME, VALUES):
                        item.setFlags(item.flags() & ~Qt.ItemIsEditable)
                    item.setToolTip(text if c == VALUES else HEADER_TIPS[c])
                    self.table.setItem(r, c, item)
                box = QComboBox(self.table)
                box.addItems(INTERPOLATIONS)
                if key.interpolation not in INTERPOLATIONS:
                    box.addItem(key.interpolation)
                box.setCurrentText(key.interpolation)
                box.setToolTip(HEADER_TIPS[INTERPOLATION])
                box.currentTextChanged.connect(lambda text, r=r: self.set_interpolation(r, text))
                self.table.setCellWidget(r, INTERPOLATION, box)
            if 0 <= keep < len(rows):
                self.table.setCurrentCell(keep, 0)

    def _update_rows(self, t: Trajectory) -> None:
        with QSignalBlocker(self.table):
            for r, (seg, i) in enumerate(self._rows):
                key = t.segments[seg][i]
                for c, text in ((TIME, f"{key.time:g}"), (VALUES, self._values_text(t, seg, key))):
                    item = self.table.item(r, c)
                    if item.text() != text:
                        item.setText(text)
                        if c == VALUES:
                            item.setToolTip(text)
                box = self.table.cellWidget(r, INTERPOLATION)
                if box.currentText() != key.interpolation:
                    with QSignalBlocker(box):
                        if box.findText(key.interpolation) < 0:
                            box.addItem(key.interpolation)
                        box.setCurrentText(key.interpolation)

    def redraw(self) -> None:
        """Render the chosen trajectory and draw it, with its findings (the plot is cleared on a refusal)."""
        self._dirty = False
        self.rendered = None
        self.findings.clear()
        self.findings.hide()
        self._clearance_token += 1  # a check under way is for the rendering before
        self.clearance_findings = []
        name, t, built = self.current(), self.trajectory(), self._built()
        if name is None or built is None:
            self._draw(None, None, None)
            self._say("" if built is not None or self.session.document is None else
                      "The rig does not build: fix its findings to render its trajectories", bad=True)
            if self.session.document is not None and built is not None and not self.trajectories():
                self._say("The rig has no trajectory: New makes one from the current pose")
            return
        ruled = self.rule_findings(name)
        if ruled:  # what the rules refuse is not rendered
            self._list(ruled)
            self._draw(None, None, None)
            self._say(f"The trajectory breaks {len(ruled)} rule(s); fix them to render it", bad=True)
            return
        try:
            self.renders += 1
            time, commands = render(built, t, DT)
            found = check(built, t, DT)
        except CodedError as err:
            self._draw(None, None, None)
            self._say(f"[{err.code}] {err.message}", bad=True)
            return
        self.rendered = (time, commands)
        self._draw(t, time, commands)
        self._list(found)
        self._said = (t.duration, len(time), len(found))
        self._tell(None)
        self._check_clearance(built, commands)

    def _tell(self, clearance: int | None) -> None:
        """The status line; ``clearance``: its findings' count, None while the worker checks it."""
        duration, samples, limits = self._said
        n = limits + (clearance or 0)
        if clearance is None:
            tail = f"{n} finding(s) below; clearance being checked" if n else \
                "within its limits; clearance being checked"
        else:
            tail = f"{n} finding(s) below" if n else "within its limits and clear of contact"
        self._said_text = f"{duration:g} s, {samples} samples every {DT:g} s; {tail}"
        self._say(self._said_text, bad=bool(n))

    # -- clearance along the rendering, on a worker ------------------------------------------------------
    def _check_clearance(self, built, commands) -> None:
        """Clearance along the rendering as played (mime_gui.rig.clearance_check), after it is drawn; its
        findings join the list when they arrive (a newer rendering drops an older one's)."""
        self._clearance_token += 1
        token = self._clearance_token

        def work():
            from mime_gui.rig.clearance_check import clearance_along

            try:
                played = built.play(commands, DT)
                return [f for f in clearance_along(built, played).findings if f.code != "clearance.allow"]
            except CodedError as err:
                return err
            except Exception as err:  # noqa: BLE001 - said in the dock, not lost in the pool's log
                return CodedError("clearance.failed", f"the check failed ({type(err).__name__}: {err})")

        future = self._clearance_pool.submit(work)
        future.add_done_callback(lambda f: self._clearance_arrived.emit(token, f.result()))

    def _clearance_shown(self, token: int, found) -> None:
        if token != self._clearance_token or self.rendered is None:
            return
        if isinstance(found, CodedError):
            self._say(f"clearance not checked: [{found.code}] {found.message}", bad=True)
            return
        self.clearance_findings = list(found)
        self._list(found)
        if self.status.text() == self._said_text:  # a refusal said since stays in sight
            self._tell(len(found))
        self.clearance_checked.emit()

    def _list(self, findings) -> None:
        for f in findings:
            item = QListWidgetItem(f"[{f.code}] {f.where}: {f.message}")
            item.setForeground(BAD)
            item.setToolTip(f.message)
            self.findings.addItem(item)
        self.findings.setVisible(self.findings.count() > 0)

    def _say(self, text: str, bad: bool = False) -> None:
        self.status.setText(text)
        (message if bad else hint)(self.status)

    def _draw(self, t: Trajectory | None, time, commands) -> None:
        """Curves and keyframe lines updated in place (a keyframe dragged keeps its line under the mouse)."""
        built = self._built()
        segs = [s for s in t.segments if built is not None and s in built.segments] if t is not None else []
        if segs != list(self.plots):
            if self._drag is not None:  # the dragged line goes with its plot
                self._drag = None
                self.session.end_gesture()
            self.graphs.clear()
            self.plots, self.curves, self.lines, first = {}, {}, {}, None
            for row, seg in enumerate(segs):
                plot = self.graphs.addPlot(row=row, col=0)
                plot.showGrid(x=True, y=True, alpha=0.25)
                for axis in ("left", "bottom"):
                    plot.getAxis(axis).enableAutoSIPrefix(False)
                plot.setMouseEnabled(x=False, y=False)
                if first is None:
                    first = plot
                else:
                    plot.setXLink(first)
                self.plots[seg] = plot
                self.lines[seg] = []
            if segs:
                self.plots[segs[-1]].setLabel("bottom", "t (s)")
        legend, drawn = [], set()
        for seg, plot in self.plots.items():
            names = built.node(seg).command_names
            art = built.segments[seg].articulation
            units = {_unit_of(t.unit, art.joint_type[art.joint_index(j)] == PRISMATIC) for j in names}
            plot.setLabel("left", f"{seg} ({', '.join(sorted(units))})")
            columns = list(built.command_names)
            for k, joint in enumerate(names):
                sliding = art.joint_type[art.joint_index(joint)] == PRISMATIC
                factor = UNIT_FACTORS[_unit_of(t.unit, sliding)]
                y = commands[:, columns.index(f"{seg}.{joint}")] / factor
                colour = COLOURS[k % len(COLOURS)]
                name = f"{seg}.{joint}"
                drawn.add(name)
                if name in self.curves:
                    self.curves[name].setData(time, y)
                else:
                    self.curves[name] = plot.plot(time, y, pen=pg.mkPen(colour, width=2))
                legend.append(f'<span style="color:{colour}">■ {joint}</span>')
            self._place_lines(seg, plot, t.segments[seg])
        for name in set(self.curves) - drawn:  # a segment's joints changed with its description
            plot = self.plots.get(name.split(".", 1)[0])
            curve = self.curves.pop(name)
            if plot is not None:
                plot.removeItem(curve)
        self.legend.setText(" ".join(legend))  # a segment's joints by colour; its plot is named on its axis

    # -- keyframes dragged on the timeline ---------------------------------------------------------------
    def _place_lines(self, seg: str, plot, keys) -> None:
        """One movable line per keyframe of ``seg``, each held between its neighbours (a step apart)."""
        lines = self.lines[seg]
        while len(lines) > len(keys):
            plot.removeItem(lines.pop())
        while len(lines) < len(keys):
            line = pg.InfiniteLine(angle=90, movable=True, pen=pg.mkPen("#888", width=1, style=Qt.DashLine),
                                   hoverPen=pg.mkPen("#1f77b4", width=3))
            line.setToolTip("A keyframe: drag it in time (one edit: Edit → Undo)")
            line.key = (seg, len(lines))
            line.sigDragged.connect(self._dragged)
            line.sigPositionChangeFinished.connect(self._dropped)
            plot.addItem(line)
            lines.append(line)
        for i, (line, key) in enumerate(zip(lines, keys, strict=True)):
            low = keys[i - 1].time + DT if i > 0 else 0.0
            high = keys[i + 1].time - DT if i + 1 < len(keys) else None
            line.setBounds((low, high))
            if line is not self._drag:
                with QSignalBlocker(line):
                    line.setValue(key.time)

    def keyframe_line(self, seg: str, i: int):
        """The timeline's line of keyframe ``i`` of ``seg`` (tests drag it)."""
        return self.lines[seg][i]

    def _dragged(self, line) -> None:
        """A keyframe's line moves: its time, on the rendering's step, applied once per turn of the event
        loop; the whole drag is one undo step."""
        if self._drag is None:
            self._drag = line
            self.session.begin_gesture()
            seg, i = line.key
            row = self._rows.index((seg, i)) if (seg, i) in self._rows else -1
            if row >= 0:
                self.table.setCurrentCell(row, TIME)
        self._drag_to = (*line.key, round(round(line.value() / DT) * DT, 9))
        if not self._drag_pending:
            self._drag_pending = True
            QTimer.singleShot(0, self._move_dragged)

    def _move_dragged(self) -> None:
        self._drag_pending = False
        if self._drag_to is None:
            return
        (seg, i, time), self._drag_to = self._drag_to, None
        row = self._rows.index((seg, i)) if (seg, i) in self._rows else -1
        if row >= 0:
            self._replace_key(row, "time", merge=True, time=time)

    def _dropped(self, line) -> None:
        if self._drag is not line:
            return
        self._move_dragged()
        self._drag = None
        self.session.end_gesture()
        keys = self.trajectory().segments.get(line.key[0], ()) if self.trajectory() is not None else ()
        if line.key[1] < len(keys):
            with QSignalBlocker(line):
                line.setValue(keys[line.key[1]].time)  # where the edit put it (a refusal puts it back)

    def resizeEvent(self, event) -> None:
        """The table and the plots share the width evenly until the user moves the split."""
        super().resizeEvent(event)
        if self._split is None:
            self._split = self.width()
            self.splitter.setSizes([self.width() // 2, self.width() - self.width() // 2])

    # -- user input --------------------------------------------------------------------------------------
    def _apply(self, edit) -> bool:
        try:
            self.session.apply(edit)
        except SessionError as err:  # the window shows it too; the dock shows the rig again
            self._say(f"[{err.code}] {err.message}", bad=True)
            self._shown = None
            self._fill_table()
            return False
        return True

    def _positions(self, built, unit: str) -> dict[str, dict[str, float]]:
        """The segments' current commands in ``unit``, as a keyframe writes them."""
        pose = pose_of(built, current_positions(self.session), unit)
        return {seg: dict(v) for seg, v in pose.values.items()}

    def next_name(self) -> str:
        taken = {n.casefold() for n in self.trajectories()}
        i = 1
        while f"trajectory{i}" in taken:
            i += 1
        return f"trajectory{i}"

    def new(self) -> None:
        """A trajectory holding the current pose at 0 s (one keyframe per segment): one edit."""
        built = self._built()
        if built is None:
            return
        name = self.next_name()
        values = self._positions(built, "deg|m")
        t = Trajectory({seg: [Keyframe(0.0, values=v)] for seg, v in values.items()}, "deg|m")
        if self._apply(AddItem("trajectories", name, t)):
            self.choose(name)

    def add_keyframe(self) -> None:
        """The chosen segment's current commands at the typed time, after its last keyframe: one edit."""
        name, t, built = self.current(), self.trajectory(), self._built()
        seg = self.segment.currentText()
        if name is None or built is None or not seg:
            return
        time = float(self.time.value())
        keys = list(t.segments.get(seg, ()))
        if keys and not time > keys[-1].time:
            self._say(f"[trajectory.time] a new keyframe of {seg} comes after its last one at "
                      f"{keys[-1].time:g} s; type a later time", bad=True)
            return
        values = self._positions(built, t.unit).get(seg, {})
        keys.append(Keyframe(time, values=values, interpolation=self.interpolation.currentText()))
        segments = dict(t.segments)
        segments[seg] = tuple(keys)
        self._apply(ReplaceItem("trajectories", name, _with_segments(t, segments),
                                label=f"Add a keyframe of {seg} at {time:g} s to {name}"))

    def remove_keyframe(self) -> None:
        name, t = self.current(), self.trajectory()
        found = self.keyframe_of_row(self.table.currentRow())
        if found is None:
            return
        seg, i, key = found
        keys = list(t.segments[seg])
        del keys[i]
        segments = dict(t.segments)
        if keys:
            segments[seg] = tuple(keys)
        else:
            del segments[seg]
        self._apply(ReplaceItem("trajectories", name, _with_segments(t, segments),
                                label=f"Remove the keyframe of {seg} at {key.time:g} s from {name}"))

    def _replace_key(self, row: int, what: str, merge: bool = False, **change) -> bool:
        name, t = self.current(), self.trajectory()
        found = self.keyframe_of_row(row)
        if found is None:
            return False
        seg, i, key = found
        keys = list(t.segments[seg])
        keys[i] = replace(key, **change)
        if keys[i] == key:
            return False
        segments = dict(t.segments)
        segments[seg] = tuple(keys)
        label = (f"Move a keyframe of {seg} in {name}" if merge else
                 f"Change the {what} of a keyframe of {seg} in {name}")
        return self._apply(ReplaceItem("trajectories", name, _with_segments(t, segments), label=label,
                                       merge=merge))

    def _cell_changed(self, item: QTableWidgetItem) -> None:
        found = self.keyframe_of_row(item.row())
        if found is None or item.column() not in (TIME, VALUES):
            return
        seg, _i, key = found
        if item.column() == VALUES:
            self._values_typed(item, seg, key)
            return
        value = parse_typed(item.text(), "s")
        if value is None or not (math.isfinite(value) and value >= 0):
            self._say(f"[trajectory.time] {item.text()!r} is no time: type a number of seconds, 0 or more "
                      "(1.5, 1500 ms)", bad=True)
            with QSignalBlocker(self.table):
                item.setText(f"{key.time:g}")
            return
        if not self._replace_key(item.row(), "time", time=value):
            with QSignalBlocker(self.table):
                item.setText(f"{key.time:g}")

    def _values_typed(self, item: QTableWidgetItem, seg: str, key: Keyframe) -> None:
        """Values typed in a keyframe's row (``joint_1 35°, pose home, spin 5 Hz, …``): one edit."""
        t = self.trajectory()
        try:
            typed = parse_keyframe_text(item.text(), key, self._unit_of(t, seg))
        except CodedError as err:
            self._say(f"[{err.code}] {err.message}", bad=True)
            typed = None
        if typed is None or not self._replace_key(item.row(), "values", values=typed.values, pose=typed.pose,
                                                  frame=typed.frame, spin=typed.spin):
            with QSignalBlocker(self.table):
                item.setText(self._values_text(t, seg, key))

    def set_interpolation(self, row: int, kind: str) -> None:
        """The interval into the keyframe of table row ``row`` interpolated by ``kind``: one edit."""
        self._replace_key(row, "interpolation", interpolation=kind)

    def fit(self) -> None:
        """The trajectory stretched just enough to keep within its limits: one edit (none when it is)."""
        name, t, built = self.current(), self.trajectory(), self._built()
        if name is None or built is None:
            return
        try:
            fitted, left = fit_to_limits(built, t, DT)
        except CodedError as err:
            self._say(f"[{err.code}] {err.message}", bad=True)
            return
        if fitted == t:
            self._say("Already within its limits: nothing to stretch" if not left else
                      f"Nothing can be stretched; {len(left)} finding(s) remain", bad=bool(left))
            return
        self._apply(ReplaceItem("trajectories", name, fitted, label=f"Fit {name} to its limits"))

    def play(self) -> bool:
        """The rendered commands into the player, rendered again after each edit (refused with its coded
        line)."""
        name, built = self.current(), self._built()
        if name is None or built is None:
            return False
        try:
            self.transport.open_trajectory(name, DT)
        except CodedError as err:
            self._say(f"[{err.code}] {err.message}", bad=True)
            return False
        self._say(f"Playing {name}: {self.transport.player.rows} rows every {DT:g} s")
        return True

    def curve_data(self, command: str) -> tuple[np.ndarray, np.ndarray]:
        """The drawn ``(t, value)`` of a command (``segment.joint``), in the trajectory's unit."""
        return self.curves[command].getData()


def _with_segments(t: Trajectory, segments: dict) -> Trajectory:
    return replace(t, segments=segments)


__all__ = ["DT", "TrajectoryDock"]
