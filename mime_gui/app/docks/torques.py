"""The torques dock: the joint torques the played trajectory asks of each dynamic segment, one joint at a
time, with its effort limit drawn, the excesses marked and the playhead; every excess goes to the Validation
dock too (:meth:`~mime_gui.app.docks.validation.ValidationDock.set_limit_excesses`)."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import QComboBox, QDockWidget, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from mime_gui.app.docks.look import status
from mime_gui.rig.limits import EFFORT


class TorquesDock(QDockWidget):
    excesses_changed = Signal(object)  # tuple of mime_gui.rig.limits.Excess

    def __init__(self, transport, parent=None):
        super().__init__("Torques", parent)
        self.setObjectName("TorquesDock")
        self.transport = transport
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
        self.plot = pg.PlotWidget(body)
        self.plot.setBackground("w")
        self.plot.showGrid(x=True, y=True, alpha=0.3)
        self.plot.setLabel("bottom", "time", units="s")
        self.curve = self.plot.plot(pen=pg.mkPen("#1f5fbf", width=2))
        limit_pen = pg.mkPen("#b3261e", width=1, style=Qt.DashLine)
        self.limits = [self.plot.addLine(y=0, pen=limit_pen) for _ in range(2)]
        self.marks = pg.ScatterPlotItem(size=8, brush=pg.mkBrush("#b3261e"), pen=None)
        self.plot.addItem(self.marks)
        self.playhead = self.plot.addLine(x=0, pen=pg.mkPen("#888", width=1))
        layout.addWidget(self.plot, 1)
        self.setWidget(body)
        transport.player_changed.connect(self._player_changed)
        self._row = 0
        transport.playhead_changed.connect(self._playhead_moved)
        self.visibilityChanged.connect(lambda shown: shown and self._playhead_moved(self._row))
        self._player_changed(transport.player)

    # -- the trajectory ----------------------------------------------------------------------------------
    def _player_changed(self, player) -> None:
        self.torques, why = None, ""
        if player is not None:
            try:
                self.torques = player.torques()
            except ValueError as exc:  # a description whose mass properties are not physical
                why = str(exc)
        names = self.torques.joint_names if self.torques is not None else ()
        with QSignalBlocker(self.joint):
            self.joint.clear()
            self.joint.addItems(list(names))
        found = self.torques.excesses if self.torques is not None else ()
        if player is None:
            self.summary.setText("Open a command file (Playback ▸ Open commands…) to see its torques.")
            status(self.summary, "")
        elif why:
            self.summary.setText(why)
            status(self.summary, "bad")
        elif not names:
            self.summary.setText("No dynamic segment: a kinematic segment's motion is prescribed.")
            status(self.summary, "")
        elif found:
            n = len(found)
            self.summary.setText(f"{n} excess{'es' if n != 1 else ''} of the effort or velocity limits "
                                 "(listed in the Validation dock).")
            status(self.summary, "bad")
        else:
            self.summary.setText("✓ Every joint stays within its effort and velocity limits.")
            status(self.summary, "ok")
        self.show_joint(0)
        self.excesses_changed.emit(tuple(found))

    def show_joint(self, index: int) -> None:
        """Joint ``index`` of the torques: its curve, its effort limit (±) and its excesses' worst steps."""
        t = self.torques
        if t is None or not 0 <= index < len(t.joint_names):
            self.curve.setData([], [])
            self.marks.setData([], [])
            for line in self.limits:
                line.hide()
            return
        name = t.joint_names[index]
        start = self.transport.player.schedule.start if self.transport.player is not None else 0.0
        x = t.time - start
        self.curve.setData(x, t.joint_torques[:, index])
        limit = float(t.effort_limits[index])
        for line, sign in zip(self.limits, (1.0, -1.0), strict=True):
            line.setVisible(math.isfinite(limit) and limit > 0)
            if line.isVisible():
                line.setValue(sign * limit)
        peaks = [e.peak_step for e in t.excesses if e.joint == name and e.code == EFFORT]
        if peaks:
            self.marks.setData(x[peaks], t.joint_torques[peaks, index])
        else:
            self.marks.setData([], [])
        self.plot.setLabel("left", f"τ {name} (N·m; N on a sliding joint)")

    def _playhead_moved(self, row: int) -> None:
        self._row = row
        if not self.plot.isVisible():  # behind another tab: moved when shown, not on every played frame
            return
        player = self.transport.player
        if player is not None and self.torques is not None and 0 <= row < len(player.times):
            self.playhead.setValue(float(np.asarray(player.times)[row] - player.schedule.start))

    def curve_data(self) -> tuple[np.ndarray, np.ndarray]:
        """The plotted ``(time, torque)`` (tests)."""
        x, y = self.curve.getData()
        return (np.asarray([]) if x is None else x), (np.asarray([]) if y is None else y)


def install_torques(driving, window) -> TorquesDock:
    """The torques dock (a tab beside the plots: placed with the other docks by app/layout.py), its
    excesses sent to the Validation dock."""
    dock = TorquesDock(driving.transport, window)
    validation = getattr(getattr(window, "assembly", None), "validation", None)
    if validation is not None:
        dock.excesses_changed.connect(validation.set_limit_excesses)
        validation.set_limit_excesses(())
    return dock
