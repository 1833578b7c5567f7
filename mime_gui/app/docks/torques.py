"""The torques dock: the joint torques the played trajectory asks of each dynamic segment, one joint at a
time, with its effort limit drawn, the excesses marked and the playhead; every excess goes to the Validation
dock too (:meth:`~mime_gui.app.docks.validation.ValidationDock.set_limit_excesses`), through the window's
services (app/services.py).

With no command file loaded it shows live driving's torques instead
(:class:`~mime_gui.session.live_torques.LiveTorques`): the last seconds of the chosen joint, scrolling, with
the same limit lines and marks, and the excesses of that window sent to the Validation dock. The plot is drawn
at most once per turn of the event loop and only while the dock is shown; the excesses are looked at at most
:data:`EXCESS_CHECK` times a second.

A rig with no dynamic segment (a URDF opened directly is one kinematic arm) is offered *Treat … as dynamic*
where a kinematic arm's description has mass: one edit (:class:`~mime_gui.session.edits.SetKind`, undoable),
as ``mime-gui play ROBOT.urdf --torques`` takes the URDF's inertials. An arm whose mass properties are not
physical is refused with the code ``play`` gives it (``dynamics.nonphysical``).
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSignalBlocker, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QGraphicsItem,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from mime_gui.app.docks.fields import on_screen
from mime_gui.app.docks.look import status
from mime_gui.app.docks.registry import declare
from mime_gui.multibody import DynamicsError, mass
from mime_gui.rig.limits import EFFORT, demands, unit_pairs
from mime_gui.session import SessionError
from mime_gui.session.edits import SetKind

PLAYED = "Limits the played trajectory exceeds"
EXCESS_CHECK = 4.0  # per second: how often live driving's excesses are looked at


class TorquesDock(QDockWidget):
    excesses_changed = Signal(object, str)  # tuple of mime_gui.rig.limits.Excess, the Validation group title
    # every joint's mime_gui.rig.limits.Demand, what they are of (a line), the time the peaks count from
    demands_changed = Signal(object, str, float)

    def __init__(self, session, bridge, services, parent=None):
        super().__init__(parent)
        declare(self, "TorquesDock")  # its title and object name: the dock registry
        self.transport = transport = services.transport
        self.torques = None  # mime_gui.rig.torques.RigTorques of the trajectory loaded
        body = QWidget(self)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        top = QHBoxLayout()
        self.joint = QComboBox(body)
        self.joint.currentIndexChanged.connect(self.show_joint)
        top.addWidget(QLabel("Joint", body))
        top.addWidget(self.joint, 1)
        self.summary = QLabel(body)
        self.summary.setWordWrap(True)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        # with no dynamic segment: the kinematic arm to make dynamic (one edit), shown only then
        self.offer = QPushButton(body)
        self.offer.setObjectName("treat-as-dynamic")
        self.offer.hide()
        self.offer.clicked.connect(self.treat_as_dynamic)
        self._offered: str | None = None
        layout.addWidget(self.offer)
        self.plot = pg.PlotWidget(body)
        services.plots.follow(self.plot)
        self.plot.setBackground("w")
        self.plot.showGrid(x=True, y=True, alpha=0.3)
        self.plot.setLabel("bottom", "time", units="s")
        self.plot.getAxis("left").setStyle(autoReduceTextSpace=False)  # as the Plots dock's (plots.py)
        self.curve = self.plot.plot(pen=pg.mkPen("#1f5fbf", width=2))
        limit_pen = pg.mkPen("#b3261e", width=1, style=Qt.DashLine)
        self.limits = [self.plot.addLine(y=0, pen=limit_pen) for _ in range(2)]
        self.marks = pg.ScatterPlotItem(size=8, brush=pg.mkBrush("#b3261e"), pen=None)
        self.plot.addItem(self.marks)
        self.playhead = self.plot.addLine(x=0, pen=pg.mkPen("#888", width=1))
        layout.addWidget(self.plot, 1)
        # the chosen joint's demand: peak and RMS torque, peak speed, beside its limits (whole in the tooltip)
        self.readout = QLabel(body)
        self.readout.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.readout.setWordWrap(True)  # two lines in a narrow dock rather than a wider window
        layout.addWidget(self.readout)
        self._demands: list = []  # mime_gui.rig.limits.Demand of the played trajectory, per column
        self.last_demands: tuple = ((), "", 0.0)  # what demands_changed last said
        self.setWidget(body)
        # what the torques find goes to the docks that show it (Validation, Demand), through the services
        self.excesses_changed.connect(services.torques.set_excesses)
        self.demands_changed.connect(services.torques.set_demands)
        services.torques.joint_chosen.connect(self.choose_joint)
        transport.player_changed.connect(self._player_changed)
        self.live = transport.live_torques
        self._live_names: tuple[str, ...] = ()
        self._live_pending = False
        self._live_checked = -math.inf  # when live excesses were last looked at (monotonic s)
        self._live_sent: tuple = ()  # the live excesses last sent
        self._live_excesses: tuple = ()  # and found (the plot's marks between two looks)
        self.live_redraws = 0  # plots drawn from live driving (tests)
        # a look skipped for being too soon is taken when it is due, so the summary never stays stale
        self._check_later = QTimer(self)
        self._check_later.setSingleShot(True)
        self._check_later.timeout.connect(self._check_live)
        self.live.updated.connect(self._live_updated)
        self._row = 0
        transport.playhead_changed.connect(self._playhead_moved)
        self.visibilityChanged.connect(self._shown)
        self._player_changed(transport.player)

    # -- the trajectory ----------------------------------------------------------------------------------
    def _shown(self, shown: bool) -> None:
        if not shown:
            return
        if self.transport.player is None:
            self._live_updated()
        else:
            self._playhead_moved(self._row)

    def _player_changed(self, player) -> None:
        # a played trajectory's curve stays put while the playhead sweeps over it: kept as a pixmap (live
        # driving's scrolls on every redraw: no cache)
        self.curve.curve.setCacheMode(QGraphicsItem.CacheMode.NoCache if player is None else
                                      QGraphicsItem.CacheMode.DeviceCoordinateCache)
        if player is None:
            self.torques = None
            self._live_names = ()
            self._live_sent = None
            self.playhead.hide()
            self.refresh_live(force=True)
            return
        self.playhead.show()
        self.offer.hide()
        self._offered = None
        self.plot.enableAutoRange()
        self.torques, why = None, ""
        if player is not None:
            try:
                self.torques = player.torques()
            except ValueError as exc:  # a description whose mass properties are not physical
                why = str(exc)
        names = self.torques.joint_names if self.torques is not None else ()
        self._demands = self.torques.demands() if self.torques is not None else []
        with QSignalBlocker(self.joint):
            self.joint.clear()
            self.joint.addItems(list(names))
            for i, demand in enumerate(self._demands):
                self.joint.setItemData(i, str(demand), Qt.ToolTipRole)
        found = self.torques.excesses if self.torques is not None else ()
        if player is None:
            self.summary.setText("Open a command file (Playback ▸ Open commands…) to see its torques.")
            status(self.summary, "")
        elif why:
            self.summary.setText(why)
            status(self.summary, "bad")
        elif not names:
            self.summary.setText("No dynamic segment: a kinematic segment's motion is prescribed."
                                 + self._offer_dynamic())
            status(self.summary, "")
        elif found:
            n = len(found)
            self.summary.setText(f"{n} excess{'es' if n != 1 else ''} of the effort or velocity limits "
                                 f"(listed in the Validation dock).{most_loaded(self._demands)}")
            status(self.summary, "bad")
        else:
            self.summary.setText("✓ Every joint stays within its effort and velocity limits."
                                 f"{most_loaded(self._demands)}")
            status(self.summary, "ok")
        self.show_joint(0)
        self.excesses_changed.emit(tuple(found), PLAYED)
        source = Path(getattr(player, "source", "") or "").name
        what = (f"Along the loaded commands{f' ({source})' if source else ''}: each joint's peak and RMS "
                "torque and peak speed beside its limits.") if self._demands else self.summary.text()
        self._send_demands(self._demands, what, self.transport.player.schedule.start)

    def _send_demands(self, found, what: str, time_origin: float) -> None:
        self.last_demands = (tuple(found), what, float(time_origin))
        self.demands_changed.emit(*self.last_demands)

    # -- live driving -------------------------------------------------------------------------------------
    def _live_updated(self) -> None:
        """A live step was taken: redraw on the next turn of the event loop (once however many steps), or,
        behind another tab, look at the excesses a few times a second."""
        if self.transport.player is not None:
            return
        if self._live_joints():  # the joint list (and so the summary) is current, shown or not: cheap
            self._check_live()
        if self._live_pending:
            return
        self._live_pending = True
        QTimer.singleShot(0 if on_screen(self) else int(1000 / EXCESS_CHECK), self._live_due)

    def _live_due(self) -> None:
        self._live_pending = False
        self.refresh_live()

    def refresh_live(self, force: bool = False) -> None:
        """Show live driving's torques (no command file loaded): the summary, the excesses sent to the
        Validation dock when they changed, and the plot when the dock is shown."""
        if self.transport.player is not None:
            return
        live = self.live
        self._live_joints()
        wait = self._live_checked + 1.0 / EXCESS_CHECK - time.monotonic()
        if force or wait <= 0:
            self._check_live()
        elif not self._check_later.isActive():
            self._check_later.start(max(1, math.ceil(wait * 1000)))
        if on_screen(self) or force:
            self._plot_live(live.series(), self.joint.currentIndex())

    def _live_joints(self) -> bool:
        """The joint list of live driving's torques, the chosen joint kept where it still is; True when it
        changed (another rig)."""
        live = self.live
        if live.joint_names == self._live_names:
            return False
        current = self.joint.currentText()
        self._live_names = live.joint_names
        with QSignalBlocker(self.joint):
            self.joint.clear()
            self.joint.addItems(list(live.joint_names))
            if current in live.joint_names:
                self.joint.setCurrentIndex(live.joint_names.index(current))
        return True

    def _check_live(self) -> None:
        """Look at live driving's excesses: the summary, and the Validation dock when they changed."""
        self._check_later.stop()
        if self.transport.player is not None:
            return
        live = self.live
        self._live_checked = time.monotonic()
        data = live.data()
        self._live_excesses = data.excesses
        self._live_summary(data)
        units = unit_pairs(live.effort_units)
        found = demands(data.joint_names, data.time, data.joint_torques, data.joint_velocities,
                        data.effort_limits, data.velocity_limits, units) if len(data.time) else []
        self._send_demands(found, f"Live: over the last {live.window:g} s of driving (time before now)."
                           if found else self.summary.text(), live.time)
        sent = tuple(str(e) for e in data.excesses)
        if sent != self._live_sent:
            self._live_sent = sent
            self.excesses_changed.emit(data.excesses, f"Limits live driving exceeded in the last "
                                                      f"{live.window:g} s")

    def _offer_dynamic(self) -> str:
        """Offer to make the first kinematic arm with mass dynamic (the button), and say why where none can
        be: the summary's added sentence."""
        session = self.live.session
        self._offered = None
        why = ""
        if session.document is not None and not session.findings:
            for name, seg in session.segments.items():
                if session.rig.chain[name].kind != "Arm.Kinematic":
                    continue
                try:
                    moved = mass(seg.articulation)
                except DynamicsError as exc:  # as play --torques refuses it
                    why = why or f" {name} cannot be treated as dynamic: error[{exc.code}] {exc.message}"
                    continue
                if not moved > 0:
                    why = why or (f" {name}'s description gives its moving links no mass, so no torque "
                                  "moves it or holds it.")
                    continue
                self._offered = name
                break
        self.offer.setVisible(self._offered is not None)
        if self._offered is None:
            return why
        self.offer.setText(f"Treat {self._offered} as dynamic")
        self.offer.setToolTip(f"Make {self._offered} a dynamic arm (Arm.Dynamic) with the mass its "
                              "description gives, as mime-gui play --torques takes it: its torques show here "
                              "and it can be driven by torques. One edit (Edit → Undo)")
        return ""

    def treat_as_dynamic(self) -> None:
        """Make the offered kinematic arm dynamic: one edit through the Session."""
        if self._offered is None:
            return
        try:
            self.live.session.apply(SetKind(self._offered, "Arm.Dynamic"))
        except SessionError:  # shown by the window
            pass

    def _live_summary(self, data) -> None:
        session = self.live.session
        self.offer.hide()
        self._offered = None
        if session.document is None:
            self.summary.setText("Open a rig with a dynamic segment to see its torques.")
            status(self.summary, "")
        elif not data.joint_names:
            self.summary.setText("No dynamic segment: a kinematic segment's motion is prescribed (or the rig "
                                 "breaks rules, so it has no build to take the mass from)."
                                 + self._offer_dynamic())
            status(self.summary, "")
        elif not len(data.time):
            self.summary.setText("Live: drive the joints with the sliders to see the torques they need (or "
                                 "open a command file: Playback ▸ Open commands…).")
            status(self.summary, "")
        else:
            driven = [s for s in session.segments if session.drive(s) == "torques"]
            note = (f" {', '.join(driven)}: the torques applied." if driven else "")
            n = len(data.excesses)
            if n:
                self.summary.setText(f"Live: {n} excess{'es' if n != 1 else ''} of the effort or velocity "
                                     f"limits in the last {self.live.window:g} s (listed in the Validation "
                                     f"dock).{note}")
                status(self.summary, "bad")
            else:
                self.summary.setText(f"Live: ✓ within the effort and velocity limits over the last "
                                     f"{self.live.window:g} s.{note}")
                status(self.summary, "ok")

    def _plot_live(self, data, index: int) -> None:
        self.live_redraws += 1
        if data is None or not 0 <= index < len(data.joint_names) or not len(data.time):
            self._clear_plot()
            if data is not None and 0 <= index < len(data.joint_names):
                self._limit_lines(float(data.effort_limits[index]))
            return
        name = data.joint_names[index]
        x = data.time - self.live.time
        y = data.joint_torques[:, index]
        self.curve.setData(x, y)
        self._limit_lines(float(data.effort_limits[index]))
        peaks = [e.peak_time for e in self._live_excesses
                 if e.joint == name and e.code == EFFORT and e.peak_time >= data.time[0]]
        if peaks:
            rows = np.clip(np.searchsorted(data.time, np.asarray(peaks) - 1e-9), 0, len(data.time) - 1)
            self.marks.setData(x[rows], y[rows])
        else:
            self.marks.setData([], [])
        self.plot.setXRange(-self.live.window, 0.0, padding=0.0)
        self._torque_label(self.live.effort_units, index)
        units = unit_pairs(self.live.effort_units)
        found = demands((name,), data.time, y[:, None], data.joint_velocities[:, index:index + 1],
                        data.effort_limits[index:index + 1], data.velocity_limits[index:index + 1],
                        units[index:index + 1])
        self._show_demand(found[0] if found else None, f"last {self.live.window:g} s: ",
                          time_origin=self.live.time)
        self.plot.setLabel("bottom", "time before now", units="s")

    def _clear_plot(self) -> None:
        self.curve.setData([], [])
        self.marks.setData([], [])
        for line in self.limits:
            line.hide()
        self._show_demand(None)

    def _show_demand(self, demand, prefix: str = "", time_origin: float = 0.0) -> None:
        """The readout under the plot: the chosen joint's peak and RMS torque and peak speed."""
        text = "" if demand is None else prefix + demand_text(demand, time_origin)
        self.readout.setText(text)
        self.readout.setToolTip("" if demand is None else str(demand))

    def _limit_lines(self, limit: float) -> None:
        for line, sign in zip(self.limits, (1.0, -1.0), strict=True):
            line.setVisible(math.isfinite(limit) and limit > 0)
            if line.isVisible():
                line.setValue(sign * limit)

    def choose_joint(self, joint: str) -> None:
        """Show ``joint``'s torques, the dock brought to the front (a row clicked in the Demand dock)."""
        index = self.joint.findText(joint)
        if index >= 0:
            self.joint.setCurrentIndex(index)
            self.show()
            self.raise_()

    def show_joint(self, index: int) -> None:
        """Joint ``index`` of the torques: its curve, its effort limit (±) and its excesses' worst steps."""
        if self.transport.player is None:
            self._plot_live(self.live.series(), index)
            return
        self.plot.setLabel("bottom", "time", units="s")
        t = self.torques
        if t is None or not 0 <= index < len(t.joint_names):
            self._clear_plot()
            return
        name = t.joint_names[index]
        start = self.transport.player.schedule.start if self.transport.player is not None else 0.0
        x = t.time - start
        self.curve.setData(x, t.joint_torques[:, index])
        self._limit_lines(float(t.effort_limits[index]))
        peaks = [e.peak_step for e in t.excesses if e.joint == name and e.code == EFFORT]
        if peaks:
            self.marks.setData(x[peaks], t.joint_torques[peaks, index])
        else:
            self.marks.setData([], [])
        self._torque_label(t.effort_units, index)
        self._show_demand(self._demands[index] if index < len(self._demands) else None, time_origin=start)

    def _torque_label(self, units, index: int) -> None:
        """The joint's name is in the list above the plot; the axis says what and in which unit (a longer
        title is cut off in a short dock)."""
        unit = units[index] if 0 <= index < len(units) else "N·m"
        self.plot.setLabel("left", f"{'force' if unit == 'N' else 'torque'} ({unit})")

    def _playhead_moved(self, row: int) -> None:
        self._row = row
        if not on_screen(self):  # behind another tab: moved when shown, not on every played frame
            return
        player = self.transport.player
        if player is not None and self.torques is not None and 0 <= row < len(player.times):
            self.playhead.setValue(float(np.asarray(player.times)[row] - player.schedule.start))

    def curve_data(self) -> tuple[np.ndarray, np.ndarray]:
        """The plotted ``(time, torque)`` (tests)."""
        x, y = self.curve.getData()
        return (np.asarray([]) if x is None else x), (np.asarray([]) if y is None else y)


def _of(share: float) -> str:
    return f" ({100 * share:.0f} %)" if math.isfinite(share) else ""


def demand_text(d, time_origin: float = 0.0) -> str:
    """One joint's demand in a line that fits the dock (its name is in the list above; the shares are of
    its limits, as the tooltip says in full)."""
    return (f"peak {d.peak:.4g} {d.unit} at {d.peak_time - time_origin:.3g} s{_of(d.effort_share)} · "
            f"RMS {d.rms:.4g} {d.unit} · peak |v| {d.speed:.4g} {d.velocity_unit}{_of(d.velocity_share)}")


def most_loaded(found) -> str:
    """The summary's clause naming the joint nearest its effort limit (none where no joint has a limit)."""
    shares = [(d.effort_share, d) for d in found if math.isfinite(d.effort_share)]
    if not shares:
        return ""
    share, d = max(shares, key=lambda x: x[0])
    return f" Most loaded: {d.joint}, {100 * share:.0f} % of its effort limit."

