"""The demand dock: every dynamic joint's demand at a glance, to size its motor by — peak ``|τ|`` and when,
its share of the effort limit, RMS torque, peak ``|v|`` and its share of the velocity limit
(:func:`mime_gui.rig.limits.demands`) — for the command file the player has loaded, or over live driving's
last seconds. A share over the limit is red. Clicking a row shows that joint's torques in the Torques dock.

It draws what the Torques dock computed (:attr:`~mime_gui.app.docks.torques.TorquesDock.demands_changed`,
passed on by the window's services, app/services.py), and fills its rows only while it is shown.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush
from PySide6.QtWidgets import QDockWidget, QTreeWidgetItem

from mime_gui.app.docks.fields import on_screen
from mime_gui.app.docks.look import BAD, hint, table_body
from mime_gui.app.docks.registry import declare

HEADERS = ["Joint", "Peak |τ|", "% limit", "at", "RMS τ", "Peak |v|", "% limit"]
HEADER_TIPS = ["", "The largest |torque| (N·m; N on a sliding joint)", "The peak as a share of the "
               "description's effort limit", "When the peak comes", "The root mean square of the torque, to "
               "hold against a motor's continuous rating", "The largest |velocity|", "The peak speed as a "
               "share of the description's velocity limit"]


def _share(share: float) -> str:
    return f"{100 * share:.0f} %" if math.isfinite(share) else "no limit"


#: below this a torque (N·m, N) or a speed (rad/s, m/s) is the integrator's rounding, not a demand
NOISE = 1e-9


def _value(v: float, unit: str) -> str:
    return f"{0.0 if abs(v) < NOISE else v:.4g} {unit}"


def demand_cells(d, time_origin: float = 0.0) -> list[str]:
    """One row's texts (the columns of :data:`HEADERS`)."""
    # a joint that never pulls has no peak to time: the first sample's time would read as one
    at = "—" if abs(d.peak) < NOISE else f"{d.peak_time - time_origin:.3g} s"
    return [d.joint, _value(d.peak, d.unit), _share(d.effort_share), at, _value(d.rms, d.unit),
            _value(d.speed, d.velocity_unit), _share(d.velocity_share)]


class DemandDock(QDockWidget):
    def __init__(self, session, bridge, services, parent=None):
        super().__init__(parent)
        declare(self, "MotorDemandDock")  # its title and object name: the dock registry
        self.results = services.torques  # the Torques dock's demands, and where a chosen joint goes
        body, layout, self.line, self.tree = table_body(self, HEADERS, fit=6)
        self.tree.setRootIsDecorated(False)
        for col, tip in enumerate(HEADER_TIPS):
            self.tree.headerItem().setToolTip(col, tip)
        self.tree.setIndentation(0)
        self.tree.itemClicked.connect(self._clicked)
        layout.addWidget(self.line)
        layout.addWidget(self.tree, 1)
        self.setWidget(body)
        self._pending: tuple = ((), "", 0.0)
        self._shown_key: tuple | None = None
        self.fills = 0  # times the rows were made (tests)
        self.results.demands_changed.connect(self.set_demands)
        self.visibilityChanged.connect(lambda on: on and self._fill())
        self.set_demands(*self.results.demands)

    def set_demands(self, found, what: str, time_origin: float = 0.0) -> None:
        """The joints' demands and what they are of (the summary line); rows made now if the dock is shown."""
        self._pending = (tuple(found), what, float(time_origin))
        if on_screen(self):
            self._fill()

    def _fill(self) -> None:
        found, what, origin = self._pending
        key = (tuple(demand_cells(d, origin) for d in found), what)
        if key == self._shown_key:
            return
        self._shown_key = key
        self.fills += 1
        self.line.setText(what)
        hint(self.line)
        self.tree.clear()
        for d, cells in zip(found, key[0], strict=True):
            row = QTreeWidgetItem(self.tree, cells)
            row.setToolTip(0, str(d))
            for col in range(1, len(HEADERS)):
                row.setTextAlignment(col, Qt.AlignRight | Qt.AlignVCenter)
            for cols, share in (((1, 2), d.effort_share), ((5, 6), d.velocity_share)):
                if math.isfinite(share) and share > 1.0:
                    for col in cols:
                        row.setForeground(col, QBrush(BAD))

    def rows(self) -> list[list[str]]:
        """Every row's texts (tests)."""
        return [[self.tree.topLevelItem(i).text(c) for c in range(len(HEADERS))]
                for i in range(self.tree.topLevelItemCount())]

    def _clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        """That joint's torques in the Torques dock, brought to the front."""
        self.results.choose_joint(item.text(0))
