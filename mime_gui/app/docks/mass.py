"""The mass properties dock: per link the description's own inertial and the grafted parts apart from it,
the totals per segment and for the whole apparatus (mass and centre of mass in the world, at the current
joint positions). The 3D view can mark the centres of mass (its ``com`` layer)."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QDockWidget,
    QHeaderView,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mime_gui.app.docks.fields import HINT_STYLE, format_number
from mime_gui.app.icons import kind_icon
from mime_gui.session.mass_properties import mass_table


def _mm(v) -> str:
    if v is None:
        return "—"
    return "(" + ", ".join(format_number(float(x) * 1000.0, 4) for x in v) + ") mm"


def _kg(v) -> str:
    return "—" if v is None else f"{format_number(v, 5)} kg"


class MassPropertiesDock(QDockWidget):
    def __init__(self, session, bridge, parent=None):
        super().__init__("Mass properties", parent)
        self.setObjectName("MassPropertiesDock")
        self.session = session
        body = QWidget(self)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        self.total = QLabel(body)
        self.total.setWordWrap(True)
        self.total.setStyleSheet("font-weight: 600; padding: 2px;")
        self.mark = QCheckBox("Mark centres of mass in 3D", body)
        self.mark.setChecked(bool(session.layers.get("com")))
        self.mark.toggled.connect(lambda on: self.session.set_layer_visible("com", on))
        self.tree = QTreeWidget(body)
        self.tree.setColumnCount(4)
        self.tree.setHeaderLabels(["Body", "Mass", "Centre of mass (world)", "From"])
        self.tree.setIndentation(12)
        header = self.tree.header()
        for col in range(3):
            header.setSectionResizeMode(col, QHeaderView.ResizeToContents)
        header.setStretchLastSection(True)
        note = QLabel("Centres of mass in the world at the current joint positions. Parts on a kinematic "
                      "segment ride along without being carried by its dynamics (marked).", body)
        note.setWordWrap(True)
        note.setStyleSheet(HINT_STYLE)
        layout.addWidget(self.total)
        layout.addWidget(self.mark)
        layout.addWidget(self.tree, 1)
        layout.addWidget(note)
        self.setWidget(body)
        self.rebuilds = 0
        self._timer = QTimer(self)  # coalesced: at most once per event-loop turn, and only while shown
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.rebuild)
        for signal in (bridge.rig_changed, bridge.document_changed, bridge.poses_changed):
            signal.connect(lambda *_: self._timer.start())
        bridge.layers_changed.connect(self._layer_changed)
        self.visibilityChanged.connect(lambda on: on and self._timer.start())
        self.table = None
        self.rebuild()

    def _layer_changed(self, layer: str, visible: bool) -> None:
        if layer == "com" and self.mark.isChecked() != visible:
            with QSignalBlocker(self.mark):
                self.mark.setChecked(visible)

    def rebuild(self) -> None:
        if self.isHidden() and self.table is not None:
            return
        self.rebuilds += 1
        table = self.table = mass_table(self.session)
        t = table.total
        self.total.setText(f"Apparatus: {_kg(t.mass)} ({_kg(t.own)} of the descriptions, {_kg(t.parts)} of "
                           f"parts and magnets); centre of mass {_mm(t.com)}")
        expanded = {self.tree.topLevelItem(i).text(0) for i in range(self.tree.topLevelItemCount())
                    if self.tree.topLevelItem(i).isExpanded()}
        first = self.tree.topLevelItemCount() == 0
        with QSignalBlocker(self.tree):
            self.tree.clear()
            for seg in table.segments:
                top = QTreeWidgetItem(self.tree, [seg.name, _kg(seg.mass), _mm(seg.com),
                                                  f"{_kg(seg.own)} own + {_kg(seg.parts)} mounted"])
                top.setIcon(0, kind_icon("segment"))
                font = top.font(0)
                font.setBold(True)
                top.setFont(0, font)
                for row in table.rows_of(seg.name):
                    self._row(top, row)
                top.setExpanded(first or seg.name in expanded)
            world = table.rows_of("")
            if world:
                top = QTreeWidgetItem(self.tree, ["(fixed in the world or not placed)", "", "", ""])
                for row in world:
                    self._row(top, row)
                top.setExpanded(True)

    def _row(self, parent, row) -> None:
        name = row.name if row.kind == "link" else f"{row.name} (on {row.link})" if row.link else row.name
        carried = row.carried or row.kind == "link"
        source = row.source if carried else f"rides along, not carried: {row.source}"
        item = QTreeWidgetItem(parent, [name, _kg(row.mass), _mm(row.com), source])
        item.setIcon(0, kind_icon(row.kind))
        item.setToolTip(3, source)
