"""The mass properties dock: per link the description's own inertial and the grafted parts apart from it,
the totals per segment and for the whole apparatus (mass and centre of mass in the world, at the current
joint positions). The 3D view can mark the centres of mass (its ``com`` layer)."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QDockWidget,
    QLabel,
    QTreeWidgetItem,
)

from mime_gui.app.docks.fields import format_number, on_screen
from mime_gui.app.docks.look import bold, hint, table_body
from mime_gui.app.docks.registry import declare
from mime_gui.app.icons import kind_icon
from mime_gui.session.mass_properties import mass_table


def _mm(v) -> str:
    if v is None:
        return "—"
    return "(" + ", ".join(format_number(float(x) * 1000.0, 4) for x in v) + ") mm"


def _kg(v) -> str:
    return "—" if v is None else f"{format_number(v, 5)} kg"


class MassPropertiesDock(QDockWidget):
    def __init__(self, session, bridge, services, parent=None):
        super().__init__(parent)
        declare(self, "MassPropertiesDock")  # its title and object name: the dock registry
        self.session = session
        body, layout, self.total, self.tree = table_body(
            self, ["Body", "Mass", "Centre of mass (world)", "From"], fit=3)
        bold(self.total)
        self.mark = QCheckBox("Mark centres of mass in 3D", body)
        self.mark.setChecked(bool(session.layers.get("com")))
        self.mark.toggled.connect(lambda on: self.session.set_layer_visible("com", on))
        note = QLabel("Centres of mass in the world at the current joint positions. Parts on a kinematic "
                      "segment ride along without being carried by its dynamics (marked).", body)
        note.setWordWrap(True)
        hint(note)
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
        self._items: dict[tuple, QTreeWidgetItem] = {}
        self.rebuild()

    def _layer_changed(self, layer: str, visible: bool) -> None:
        if layer == "com" and self.mark.isChecked() != visible:
            with QSignalBlocker(self.mark):
                self.mark.setChecked(visible)

    def rebuild(self) -> None:
        """Recompute the table; when the same bodies are listed, only the texts change (a pose event
        moves every centre of mass, and rebuilds nothing)."""
        if not on_screen(self) and self.table is not None:
            return
        table = self.table = mass_table(self.session)
        t = table.total
        self._set(self.total, f"Apparatus: {_kg(t.mass)} ({_kg(t.own)} of the descriptions, {_kg(t.parts)} "
                              f"of parts and magnets); centre of mass {_mm(t.com)}")
        rows = self._rows(table)
        if [key for key, _, _ in rows] == list(self._items):
            for key, texts, _ in rows:
                item = self._items[key]
                for col, text in enumerate(texts):
                    if item.text(col) != text:
                        item.setText(col, text)
            return
        self.rebuilds += 1
        expanded = {key for key, item in self._items.items() if item.isExpanded()}
        first = not self._items
        self._items = {}
        with QSignalBlocker(self.tree):
            self.tree.clear()
            tops: dict[str, QTreeWidgetItem] = {}
            for key, texts, icon in rows:
                parent = tops.get(key[0]) if key[1] != "top" else None
                item = QTreeWidgetItem(self.tree if parent is None else parent, texts)
                if icon:
                    item.setIcon(0, kind_icon(icon))
                item.setToolTip(3, texts[3])
                if key[1] == "top":
                    tops[key[0]] = item
                    font = item.font(0)
                    font.setBold(True)
                    item.setFont(0, font)
                self._items[key] = item
            for key, item in tops.items():
                item.setExpanded(first or (key, "top", "") in expanded)

    @staticmethod
    def _set(label: QLabel, text: str) -> None:
        if label.text() != text:
            label.setText(text)

    def _rows(self, table) -> list:
        """``(key, texts, icon)`` in display order; a key is ``(segment, kind, name)``."""
        out = []
        for seg in table.segments:
            out.append(((seg.name, "top", ""), [seg.name, _kg(seg.mass), _mm(seg.com),
                                               f"{_kg(seg.own)} own + {_kg(seg.parts)} mounted"], "segment"))
            rows = table.rows_of(seg.name)  # what the user mounted first, then the description's links
            out += [self._row(row) for row in rows if row.kind != "link"]
            out += [self._row(row) for row in rows if row.kind == "link"]
        world = table.rows_of("")
        if world:
            out.append((("", "top", ""), ["(fixed in the world or not placed)", "", "", ""], None))
            out += [self._row(row) for row in world]
        return out

    @staticmethod
    def _row(row):
        name = row.name if row.kind == "link" else f"{row.name} (on {row.link})" if row.link else row.name
        carried = row.carried or row.kind == "link"
        source = row.source if carried else f"rides along, not carried: {row.source}"
        return (row.segment, row.kind, row.name), [name, _kg(row.mass), _mm(row.com), source], row.kind
