"""Plots (pyqtgraph): the command and the lagged position of the chosen joints over time, and the chosen
frame's world position and angular velocity, with live readouts.

With a trajectory loaded the plots show all of it with the playhead; while driving live they show the last
:data:`LIVE_SECONDS` from ring buffers of fixed size (memory stays bounded however long one drives). Redraws
are throttled to :data:`REDRAW_MS` so plotting never holds back the 3D view. Angles are plotted in the joint
sliders' unit (:meth:`PlotsDock.set_degrees`); the buffers keep radians.

The joint list names each joint; with several segments each has a heading row above its joints (a heading is
not checkable), and a joint's tooltip gives ``segment.joint``.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSignalBlocker, Qt, QTimer
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QDockWidget,
    QGraphicsItem,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from mime_gui.app.docks.fields import on_screen
from mime_gui.app.docks.registry import declare
from mime_gui.app.eliding_combo import ElidingComboBox
from mime_gui.app.readout import Readout
from mime_gui.multibody import PRISMATIC

LIVE_SECONDS = 20.0
LIVE_SAMPLES = 2400  # ring capacity: 20 s at 120 pose events a second
REDRAW_MS = 50
#: the least height of a stacked plot (px): its rotated name and ticks fit; lower, plots stand side by side
MIN_STACKED_PX = 80
#: the least distance between two labelled times (px): a narrow plot's "-15 -10 -5" ran together
MIN_TICK_PX = 28

COLOURS = ("#4f8fd6", "#e5892b", "#3aa776", "#d2475a", "#9a6fd0", "#8c6d31", "#17becf", "#7f7f7f")
XYZ = ("#d2475a", "#3aa776", "#4f8fd6")


def nice_step(least: float) -> float:
    """The smallest 1, 2 or 5 times a power of ten that is at least ``least`` (> 0)."""
    power = 10.0 ** math.floor(math.log10(least))
    return next(m * power for m in (1.0, 2.0, 5.0, 10.0) if m * power >= least * (1 - 1e-12))


class TimeAxis(pg.AxisItem):
    """A time axis whose labelled ticks stand at least :data:`MIN_TICK_PX` apart, however narrow the plot."""

    def tickSpacing(self, minVal: float, maxVal: float, size: float):
        levels = super().tickSpacing(minVal, maxVal, size)
        span = abs(maxVal - minVal)
        if not levels or span == 0 or size <= 0:
            return levels
        least = span * MIN_TICK_PX / size  # in seconds
        if levels[0][0] >= least:
            return levels
        return [(nice_step(least), 0.0)]


def nice_range(lo: float, hi: float) -> tuple[float, float]:
    """``[lo, hi]`` widened by a tenth each side and rounded outward to a step of 1, 2 or 5 × 10^k."""
    span = hi - lo
    if span < 1e-9:
        span = max(abs(hi), 1.0) * 0.2
    raw = span * 1.2 / 4
    step = 10.0 ** np.floor(np.log10(raw))
    step *= next(m for m in (1, 2, 5, 10) if m * step >= raw)
    pad = 0.1 * span
    return float(np.floor((lo - pad) / step) * step), float(np.ceil((hi + pad) / step) * step)


class SampleBuffer:
    """The last ``capacity`` samples ``(t, values)``: a fixed block of memory, oldest overwritten."""

    def __init__(self, capacity: int, width: int):
        self.t = np.full(capacity, np.nan)
        self.values = np.full((capacity, width), np.nan)
        self.count = 0

    def append(self, t: float, values) -> None:
        i = self.count % len(self.t)
        self.t[i] = t
        self.values[i] = values
        self.count += 1

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The samples in time order."""
        n, cap = self.count, len(self.t)
        if n <= cap:
            return self.t[:n], self.values[:n]
        i = n % cap
        return np.concatenate([self.t[i:], self.t[:i]]), np.concatenate([self.values[i:], self.values[:i]])


class PlotsDock(QDockWidget):
    def __init__(self, session, bridge, services, parent=None):
        super().__init__(parent)
        declare(self, "PlotsDock")  # its title and object name: the dock registry
        self.session = session
        self.transport = transport = services.transport
        self.redraws = 0
        self._dirty = False
        self._drawn_at = 0.0  # perf_counter of the last live redraw
        self._playhead_at = 0.0  # ... and of the last playhead drawn
        self._t0 = time.perf_counter()
        self._samples: SampleBuffer | None = None
        self._joints: list[tuple[str, str]] = []  # (segment, joint) plotted
        self._frame: tuple[str, str] | None = None
        self._frame_choices: list[tuple[str, str]] = []
        self._pending_row: int | None = None
        self.degrees = True  # angles in degrees, as the joint sliders show them (set_degrees)

        splitter = QSplitter(Qt.Horizontal, self)
        side = QWidget(splitter)
        col = QVBoxLayout(side)
        col.setContentsMargins(2, 2, 2, 2)
        col.addWidget(QLabel("Joints", side))
        self.joint_list = QListWidget(side)
        self.joint_list.setToolTip("Joints to plot: command (dashed) and position (solid)")
        self.joint_list.itemChanged.connect(lambda _item: self._channels_changed())
        col.addWidget(self.joint_list, 1)
        col.addWidget(QLabel("Frame", side))
        self.frame_box = ElidingComboBox(side, "Frame to plot: world position and angular velocity (follows "
                                               "the selection)")
        self.frame_box.currentIndexChanged.connect(lambda _i: self._channels_changed())
        col.addWidget(self.frame_box)

        right = QWidget(splitter)
        rcol = QVBoxLayout(right)
        rcol.setContentsMargins(0, 0, 0, 0)
        rcol.setSpacing(0)
        self.graphs = pg.GraphicsLayoutWidget(right)
        self.graphs.setBackground("w")
        xyz = "".join(f'<span style="color:{c}">{a}</span>' for a, c in zip("xyz", XYZ, strict=True))
        self.joint_plot = self._plot(0, "joints (rad, m)", "Checked joints: command (dashed) and position "
                                     "(solid), coloured as in the list")
        self.position_plot = self._plot(1, f"position {xyz} (m)", "The frame's world position")
        self.rate_plot = self._plot(2, f"ω {xyz} (rad/s)", "The frame's angular velocity in world axes")
        for p in (self.position_plot, self.rate_plot):
            p.setXLink(self.joint_plot)
        self.playheads = [p.addLine(x=0, pen=pg.mkPen("#888", width=1)) for p in self.plots]
        self._stacked: bool | None = None  # how the plots stand (see _arrange)
        self._extras: dict = {}  # more plots after the three (the field at a probe): plot -> (labels, shown)
        self._labels = (("joints (°, m)", "q (°, m)"), (f"position {xyz} (m)", f"{xyz} (m)"),
                        (f"ω {xyz} (rad/s)", "ω (rad/s)"))
        self.joint_plot.setLabel("left", self._labels[0][0])
        rcol.addWidget(self.graphs, 1)
        services.plots.follow(self.graphs)
        self.readout = Readout(right)  # a new text each frame, no new layout (app/readout.py)
        self.readout.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.readout.setToolTip("The chosen frame now: world position and angular velocity")
        rcol.addWidget(self.readout)
        splitter.addWidget(side)
        splitter.addWidget(right)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([170, 900])
        self.setWidget(splitter)

        self._timer = QTimer(self)
        self._timer.setInterval(REDRAW_MS)
        self._timer.timeout.connect(self._redraw_if_dirty)
        self._timer.start()
        bridge.document_changed.connect(lambda _d: self.rebuild())
        bridge.rig_changed.connect(self._rig_changed)
        bridge.poses_changed.connect(self._poses_changed)
        bridge.selection_changed.connect(self._selection_changed)
        transport.player_changed.connect(lambda _p: self._show_trajectory())
        transport.playhead_changed.connect(self._playhead_moved)
        transport.mode_changed.connect(lambda _m: self._show_trajectory())
        self.rebuild()

    def _time_label(self, text: str, tip: str) -> None:
        self._time_text = (text, tip)
        for plot in (*self.plots, *self._extras):
            plot.setLabel("bottom", text)
            plot.getAxis("bottom").setToolTip(tip)
        self._arrange(force=True)  # a label set shows again: only the last of a stack keeps it

    def add_plot(self, label: str, short: str, tip: str):
        """One more plot after the three, hidden until :meth:`show_plot`; its time axis is theirs."""
        plot = self._plot(10 + len(self._extras), label, tip)  # a free cell, left at once
        self.graphs.ci.removeItem(plot)
        plot.setXLink(self.joint_plot)
        self._extras[plot] = ((label, short), False)
        return plot

    def show_plot(self, plot, on: bool) -> None:
        if self._extras[plot][1] != on:
            self._extras[plot] = (self._extras[plot][0], on)
            self._stacked = None
            self._arrange()

    def _arrange(self, force: bool = False) -> None:
        """The plots side by side in a wide dock, one above the other in a tall one (then the shared time
        axis is labelled once, under the last); each keeps a readable size either way."""
        size = self.graphs.size()
        shown = [*self.plots, *(p for p, (_labels, on) in self._extras.items() if on)]
        # up to three stand in one column; more stand in two (a fourth plot in a short dock would leave each
        # too low to read); the time axis is labelled on the bottom row only
        cols = 1 if len(shown) <= 3 else 2
        rows = -(-len(shown) // cols)
        # stacked in a tall dock, unless each plot would be too low to show its name and ticks
        stacked = size.width() < 2.4 * size.height() and size.height() >= rows * MIN_STACKED_PX
        if stacked == self._stacked and not force:
            return
        self._stacked = stacked
        layout = self.graphs.ci
        for plot in list(layout.items):
            layout.removeItem(plot)
        labels = [*self._labels, *(self._extras[p][0] for p in shown[len(self.plots):])]
        for i, plot in enumerate(shown):
            if stacked:
                layout.addItem(plot, row=i // cols, col=i % cols)
            else:
                layout.addItem(plot, row=0, col=i)
            last = not stacked or i // cols == rows - 1 or i + cols >= len(shown)
            long, short = labels[i]
            plot.setLabel("left", short if stacked else long)  # a short plot has no room for the long name
            plot.getAxis("bottom").setStyle(showValues=last)
            plot.showLabel("bottom", last)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._arrange()

    def _plot(self, col: int, label: str, tip: str):
        p = self.graphs.addPlot(row=0, col=col, axisItems={"bottom": TimeAxis("bottom")})
        p.setLabel("left", label)
        p.getAxis("left").setToolTip(tip)
        for axis in ("left", "bottom"):
            p.getAxis(axis).enableAutoSIPrefix(False)
        # the tick labels' room only grows: a room fitted anew at each range lays the plots out, and repaints
        # the window, once more after the frame that changed the range
        p.getAxis("left").setStyle(autoReduceTextSpace=False)
        p.showGrid(x=True, y=True, alpha=0.25)
        p.setClipToView(True)
        p.setDownsampling(auto=True, mode="peak")
        p.disableAutoRange()  # ranges change in steps (see _fit): an axis redrawn costs its tick labels
        p.setMouseEnabled(x=False, y=False)
        return p

    def _fit(self, values: np.ndarray) -> None:
        """Each plot's vertical range from its columns, on round numbers, changed only when the values leave
        it or fill less than a quarter of it."""
        k = 2 * len(self._joints)
        for plot, cols in ((self.joint_plot, values[:, :k]), (self.position_plot, values[:, k:k + 3]),
                           (self.rate_plot, values[:, k + 3:k + 6])):
            finite = cols[np.isfinite(cols)]
            if not finite.size:
                continue
            lo, hi = float(finite.min()), float(finite.max())
            a, b = plot.getViewBox().state["targetRange"][1]
            if a <= lo and hi <= b and (hi - lo) >= 0.25 * (b - a):
                continue
            plot.setYRange(*nice_range(lo, hi), padding=0)

    @property
    def plots(self):
        return (self.joint_plot, self.position_plot, self.rate_plot)

    # -- channels --------------------------------------------------------------------------------------
    def rebuild(self) -> None:
        """The joint list and the frame choices of the document (the first commanded joint checked)."""
        session = self.session
        with QSignalBlocker(self.joint_list), QSignalBlocker(self.frame_box):
            self.joint_list.clear()
            self.frame_box.clear()
            self._frame_choices: list[tuple[str, str]] = []  # (segment, frame) of each entry
            first = True
            headed = len(session.segments) > 1  # one segment: its joints' names say it all
            for name, seg in session.segments.items():
                if headed:  # the segment's name once, above its joints (a long one is not repeated per row)
                    head = QListWidgetItem(name, self.joint_list)
                    head.setFlags(Qt.ItemIsEnabled)
                    font = QFont(head.font())
                    font.setBold(True)
                    head.setFont(font)
                    head.setToolTip(f"segment {name}")
                for joint in session.command_names(name):
                    item = QListWidgetItem(("  " if headed else "") + joint, self.joint_list)
                    item.setToolTip(f"{name}.{joint}")
                    item.setData(Qt.UserRole, (name, joint))
                    item.setFlags(item.flags() | Qt.ItemIsUserCheckable)
                    item.setCheckState(Qt.Checked if first else Qt.Unchecked)
                    first = False
                for frame in seg.articulation.frame_names:
                    self.frame_box.addItem(f"{name}.{frame}")
                    self._frame_choices.append((name, frame))
            if session.segments:  # the tip of the first segment, until something is selected
                first_seg = next(iter(session.segments.values()))
                self.frame_box.setCurrentIndex(first_seg.articulation.nframes - 1)
        self._channels_changed()

    def _rig_changed(self, _change) -> None:
        """Rebuild the choices only when the joints or frames changed (a part added makes a frame)."""
        s = self.session
        joints = [self.joint_list.item(i).data(Qt.UserRole) for i in range(self.joint_list.count())
                  if self.joint_list.item(i).data(Qt.UserRole) is not None]
        frames = [(n, f) for n, seg in s.segments.items() for f in seg.articulation.frame_names]
        if joints != [(n, j) for n in s.segments for j in s.command_names(n)]:
            checked, frame = self.checked_joints(), self._frame
            self.rebuild()
            self.set_joints(checked)
            if frame is not None:
                self.set_frame(*frame)
        elif self._frame_choices != frames:
            # a part dropped or removed adds or takes a frame: only the frame list changes (rebuilding the
            # plots cost a dropped part more than its whole edit), the shown frame kept when it is still there
            frame = self._frame
            with QSignalBlocker(self.frame_box):
                self.frame_box.clear()
                self._frame_choices = frames
                for seg_name, f in frames:
                    self.frame_box.addItem(f"{seg_name}.{f}")
                if frame in frames:
                    self.frame_box.setCurrentIndex(frames.index(frame))
            if frame not in frames:
                self.frame_box.setCurrentIndex(max(0, len(frames) - 1) if frames else -1)
                self._channels_changed()

    def checked_joints(self) -> list[tuple[str, str]]:
        return [self.joint_list.item(i).data(Qt.UserRole) for i in range(self.joint_list.count())
                if self.joint_list.item(i).data(Qt.UserRole) is not None
                and self.joint_list.item(i).checkState() == Qt.Checked]

    def joint_item(self, segment: str, joint: str) -> QListWidgetItem:
        """The list's row of ``segment.joint``."""
        for i in range(self.joint_list.count()):
            if self.joint_list.item(i).data(Qt.UserRole) == (segment, joint):
                return self.joint_list.item(i)
        raise KeyError(f"no joint {segment}.{joint} in the plots' list")

    def set_degrees(self, on: bool) -> None:
        """Angles in degrees (True) or radians, as the joint sliders show them; drawn again at once."""
        if bool(on) == self.degrees:
            return
        self.degrees = bool(on)
        unit = "°" if self.degrees else "rad"
        self._labels = ((f"joints ({unit}, m)", f"q ({unit}, m)"), *self._labels[1:])
        self._arrange(force=True)
        self._show_trajectory_or_live()

    def _show_trajectory_or_live(self) -> None:
        if self._plays() is not None:
            self._show_trajectory()
        else:
            self._dirty = True
            self._redraw_if_dirty()

    def _scales(self) -> np.ndarray:
        """Per column: what a value is multiplied by to be drawn (angles in degrees when so chosen)."""
        k = 180.0 / math.pi if self.degrees else 1.0
        out = np.ones(2 * len(self._joints) + 6)
        for i, (seg, joint) in enumerate(self._joints):
            segment = self.session.segments.get(seg)
            if segment is None:
                continue
            art = segment.articulation
            if art.joint_type[art.joint_index(joint)] != PRISMATIC:
                out[2 * i:2 * i + 2] = k
        return out

    def set_joints(self, joints) -> None:
        wanted = {tuple(j) for j in joints}
        with QSignalBlocker(self.joint_list):
            for i in range(self.joint_list.count()):
                item = self.joint_list.item(i)
                if item.data(Qt.UserRole) is not None:  # not a segment's heading
                    item.setCheckState(Qt.Checked if item.data(Qt.UserRole) in wanted else Qt.Unchecked)
        self._channels_changed()

    def set_frame(self, segment: str, frame: str) -> None:
        if (segment, frame) in self._frame_choices:
            self.frame_box.setCurrentIndex(self._frame_choices.index((segment, frame)))

    def _selection_changed(self, item) -> None:
        if item is None or item.kind not in ("frame", "link"):
            return
        seg = self.session.segments.get(item.segment)
        if seg is not None and item.name in seg.articulation.frame_names:
            self.set_frame(item.segment, item.name)

    def _channels_changed(self) -> None:
        self._joints = self.checked_joints()
        i = self.frame_box.currentIndex()
        self._frame = self._frame_choices[i] if 0 <= i < len(self._frame_choices) else None
        self._samples = SampleBuffer(LIVE_SAMPLES, 2 * len(self._joints) + 6)
        self._t0 = time.perf_counter()
        for p in self.plots:
            p.clear()
        self.playheads = [p.addLine(x=0, pen=pg.mkPen("#888", width=1)) for p in self.plots]
        self.curves = []
        with QSignalBlocker(self.joint_list):
            k = 0
            for i in range(self.joint_list.count()):  # the list is the legend
                item = self.joint_list.item(i)
                if item.data(Qt.UserRole) is None:  # a segment's heading
                    continue
                checked = item.checkState() == Qt.Checked
                item.setForeground(QColor(COLOURS[k % len(COLOURS)]) if checked else QColor("black"))
                k += checked
        for k in range(len(self._joints)):
            colour = COLOURS[k % len(COLOURS)]
            self.curves.append(self.joint_plot.plot(pen=pg.mkPen(colour, width=1, style=Qt.DashLine)))
            self.curves.append(self.joint_plot.plot(pen=pg.mkPen(colour, width=2)))
        for plot in (self.position_plot, self.rate_plot):
            for colour in XYZ:
                self.curves.append(plot.plot(pen=pg.mkPen(colour, width=2)))
        self._show_trajectory()
        self._sample()

    # -- values ----------------------------------------------------------------------------------------
    def _live_values(self) -> np.ndarray | None:
        """Commands and positions of the joints, then the frame's position and angular velocity, now."""
        s = self.session
        if s.document is None:
            return None
        out = []
        for seg, joint in self._joints:
            if seg not in s.segments:
                return None
            segment = s.segment(seg)
            out.append(segment.command[s.command_names(seg).index(joint)])
            out.append(segment.q[segment.articulation.joint_index(joint)])
        if self._frame is None or self._frame[0] not in s.segments:
            out += [np.nan] * 6
        else:
            seg, frame = self._frame
            out += list(s.frame_world_pose(seg, frame)[:3, 3])
            out += list(s.frame_angular_velocity(seg, frame))
        return np.array(out, dtype=float)

    def _player_series(self, player) -> np.ndarray:
        """The same channels over the whole trajectory: ``(rows, channels)``."""
        cols = []
        t = player.trajectory
        for seg, joint in self._joints:
            c = player.segment(seg)
            k = self.session.command_names(seg).index(joint)
            j = self.session.segment(seg).articulation.joint_index(joint)
            cols.append(player.schedule.commands[:, c.commands][:, k])
            cols.append(t.joint_positions[:, c.joints][:, j])
        if self._frame is None:
            cols += [np.full(player.rows, np.nan)] * 6
        else:
            seg, frame = self._frame
            c = player.segment(seg)
            f = self.session.segment(seg).articulation.frame_index(frame)
            poses = t.frame_poses[:, c.frames][:, f]
            rates = t.frame_angular_velocities[:, c.frames][:, f]
            cols += [poses[:, 0, 3], poses[:, 1, 3], poses[:, 2, 3], rates[:, 0], rates[:, 1], rates[:, 2]]
        return np.stack(cols, axis=1) if cols else np.zeros((player.rows, 0))

    def _readout(self, values: np.ndarray | None) -> None:
        if values is None or self._frame is None or not len(values):
            self.readout.setText("")
            return
        p, w = values[-6:-3], values[-3:]
        # two lines: one line cut the angular velocity off at the dock's default width; a long frame name
        # is shortened in the middle, not the numbers cut off
        self.readout.set_named(f"{self._frame[0]}.{self._frame[1]}",
                               f"x {p[0]:+.4f}  y {p[1]:+.4f}  z {p[2]:+.4f} m",
                               f"ω {w[0]:+.3f} {w[1]:+.3f} {w[2]:+.3f} rad/s, "
                               f"|ω| {np.linalg.norm(w):.3f} rad/s")

    # -- drawing ---------------------------------------------------------------------------------------
    def _plays(self):
        t = self.transport
        return t.player if t.player is not None and t.mode == "player" else None

    def _show_trajectory(self) -> None:
        player = self._plays()
        for line in self.playheads:
            line.setVisible(player is not None)
        # a loaded trajectory's curves stay put while the playhead sweeps over them: kept as pixmaps, they are
        # not drawn again on every move (live curves change on every redraw: no cache)
        cache = QGraphicsItem.CacheMode.DeviceCoordinateCache if player is not None else \
            QGraphicsItem.CacheMode.NoCache
        for curve in self.curves:
            curve.curve.setCacheMode(cache)  # the PlotDataItem's line, which paints
        if player is None:
            self._samples = SampleBuffer(LIVE_SAMPLES, 2 * len(self._joints) + 6)
            self._t0 = time.perf_counter()
            self._dirty = True
            for plot in self.plots:  # live: the last seconds, 0 is now (the axis itself never moves)
                plot.setXRange(-LIVE_SECONDS, 0.0, padding=0.0)
            self._time_label("t (s), 0 = now", "Live: the last seconds; 0 is now")
            return
        try:
            series = self._player_series(player)
        except (KeyError, ValueError, IndexError):  # the document and the playback disagree for a moment
            return
        times = player.times - player.schedule.start
        series = series * self._scales()
        for curve, column in zip(self.curves, series.T, strict=True):
            curve.setData(times, column)
        for plot in self.plots:
            plot.setXRange(0.0, float(times[-1]) if len(times) else 1.0, padding=0.02)
        self._time_label("t (s)", "Time from the start of the command file")
        self._fit(series)
        self.redraws += 1
        self._playhead(player.row)

    def _playhead_moved(self, row: int) -> None:
        """While playing, the playhead moves at most every ``REDRAW_MS`` (the rows move faster than a plot
        needs), in the turn of the frame that shows the row (one repaint of the window for both); a row set
        by hand (scrub, step, pause) is drawn at once."""
        player = self._plays()
        if player is not None and player.playing and \
                time.perf_counter() - self._playhead_at < REDRAW_MS / 1e3:
            self._pending_row = row  # the next frame's turn, or the timer once the frames stop, draws it
        else:
            self._playhead(row)

    def _playhead(self, row: int) -> None:
        self._pending_row = None
        self._playhead_at = time.perf_counter()
        player = self._plays()
        if player is None:
            return
        x = float(player.times[row] - player.schedule.start)
        for line in self.playheads:
            line.setValue(x)
        try:
            self._readout(self._player_series_row(player, row))
        except (KeyError, ValueError, IndexError):
            self.readout.setText("")

    def _player_series_row(self, player, row: int) -> np.ndarray:
        if self._frame is None:
            return np.zeros(0)
        seg, frame = self._frame
        c = player.segment(seg)
        f = self.session.segment(seg).articulation.frame_index(frame)
        pose = player.trajectory.frame_poses[row, c.frames][f]
        rate = player.trajectory.frame_angular_velocities[row, c.frames][f]
        return np.concatenate([pose[:3, 3], rate])

    def _poses_changed(self, _segments) -> None:
        if self._plays() is None:
            self._sample()

    def _sample(self) -> None:
        values = self._live_values()
        if values is None or self._samples is None or len(values) != self._samples.values.shape[1]:
            return
        now = time.perf_counter()
        self._samples.append(now - self._t0, values)
        self._dirty = True
        if now - self._drawn_at >= REDRAW_MS / 1e3:  # in this frame: one repaint of the window shows both
            self._redraw_if_dirty()

    def _redraw_if_dirty(self) -> None:
        if self._pending_row is not None and self._plays() is not None and \
                time.perf_counter() - self._playhead_at >= 2 * REDRAW_MS / 1e3:  # no frame has drawn it
            self._playhead(self._pending_row)
        if not self._dirty or self._plays() is not None or not on_screen(self):  # not behind another tab
            return
        self._dirty = False
        self._drawn_at = time.perf_counter()
        t, values = self._samples.arrays()
        if not len(t):
            return
        keep = t >= t[-1] - LIVE_SECONDS
        ago = t[keep] - t[-1]
        shown = values[keep] * self._scales()
        for curve, column in zip(self.curves, shown.T, strict=True):
            curve.setData(ago, column)
        self._fit(shown)
        self._readout(values[-1])
        self.redraws += 1
