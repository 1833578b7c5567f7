"""The build report dock: where every number of the built rig comes from — each joint's armature source,
each part's mass source, each graft, each magnet's moment. While the rig breaks a rule it shows the report
of the last build that succeeded, and says so."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, QTimer
from PySide6.QtWidgets import (
    QDockWidget,
    QTreeWidgetItem,
)

from mime_gui.app.docks.fields import format_number, on_screen
from mime_gui.app.docks.look import hint, status, table_body
from mime_gui.app.docks.registry import declare
from mime_gui.app.icons import kind_icon


def _unit(unit: str) -> str:
    return "kg" if unit == "kg" else "kg·m²"


class BuildReportDock(QDockWidget):
    def __init__(self, session, bridge, services, parent=None):
        super().__init__(parent)
        declare(self, "BuildReportDock")  # its title and object name: the dock registry
        self.session = session
        body, layout, self.banner, self.tree = table_body(self, ["Item", "Value", "Source"], fit=2)
        layout.addWidget(self.banner)
        layout.addWidget(self.tree, 1)
        self.setWidget(body)
        self.rebuilds = 0
        self._shown = None
        self._timer = QTimer(self)  # at most once per event-loop turn, and only while shown
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.rebuild)
        for signal in (bridge.rig_changed, bridge.document_changed, bridge.findings_changed):
            signal.connect(lambda *_: self._timer.start())
        self.visibilityChanged.connect(lambda on: on and self._timer.start())
        self.rebuild()

    def rebuild(self) -> None:
        doc = self.session.document
        built = doc.built if doc is not None else None
        if not on_screen(self) and self._shown is not None:
            return
        if built is self._shown and built is not None and bool(doc.findings) == self._stale:
            return
        self.rebuilds += 1
        self._shown = built
        self._stale = bool(doc and doc.findings)
        if doc is None:
            self.banner.setText("Nothing is open.")
            hint(self.banner)
        elif built is None:
            self.banner.setText("The rig has not built yet: fix the findings in the Validation panel.")
            status(self.banner, "bad")
        elif doc.findings:
            self.banner.setText("The rig breaks a rule now: this is the report of its last valid build.")
            status(self.banner, "bad")
        else:
            self.banner.setText(f"Rig {built.report['rig']!r}, built from what is written now.")
            hint(self.banner)
        with QSignalBlocker(self.tree):
            self.tree.clear()
            if built is not None:
                self._fill(built.report.data)

    def _section(self, title: str, icon: str) -> QTreeWidgetItem:
        item = QTreeWidgetItem(self.tree, [title, "", ""])
        item.setIcon(0, kind_icon(icon))
        font = item.font(0)
        font.setBold(True)
        item.setFont(0, font)
        item.setExpanded(True)
        return item

    def _row(self, parent, item: str, value: str, source: str) -> QTreeWidgetItem:
        row = QTreeWidgetItem(parent, [item, value, source])
        row.setToolTip(2, source)
        return row

    def _fill(self, d: dict) -> None:
        armature = self._section("Armature per joint", "joint")
        for s in d["segments"]:
            seg = self._row(armature, s["name"], s["kind"], f"{len(s['joints'])} joint(s)")
            seg.setExpanded(True)
            for j in s["joints"]:
                self._row(seg, j["joint"], f"{format_number(j['value'])} {_unit(j['unit'])}",
                          f"{j['source']}: {j['detail']}")
        parts = self._section("Mass of each part and magnet", "part")
        for p in d["parts"]:
            self._row(parts, p["name"], f"{format_number(p['mass'], 5)} kg",
                      f"{p['mass_source']}: {p['mass_detail']}")
        grafts = self._section("Grafts", "link")
        if not d["grafts"]:
            self._row(grafts, "(none)", "", "parts on kinematic segments ride along without mass")
        for g in d["grafts"]:
            self._row(grafts, g["part"], f"{format_number(g['mass'], 5)} kg",
                      f"welded to {g['segment']}.{g['link']} as link {g['graft']}")
        magnets = self._section("Magnets", "magnet")
        shown = [p for p in d["parts"] if "magnet" in p]
        if not shown:
            self._row(magnets, "(none)", "", "")
        for p in shown:
            m = p["magnet"]
            direction = ", ".join(format_number(x, 3) for x in m["direction"])
            self._row(magnets, p["name"], f"{format_number(m['moment'], 5)} A·m²",
                      f"along ({direction}); Br {format_number(m['remanence'])} T from "
                      f"{m['remanence_source']}")
        t = d["totals"]
        totals = self._section("Totals", "group")
        self._row(totals, "segments' own mass", f"{format_number(t['segments_mass'], 5)} kg", "")
        self._row(totals, "parts and magnets", f"{format_number(t['parts_mass'], 5)} kg",
                  f"{format_number(t['carried_mass'], 5)} kg carried by dynamic segments")
        self._row(totals, "magnetic moment", f"{format_number(t['magnetic_moment'], 5)} A·m²",
                  f"{t['magnets']} magnet(s), summed")

    def values(self) -> dict[str, str]:
        """``section/item → value · source`` (tests)."""
        out = {}

        def visit(item, prefix):
            for i in range(item.childCount()):
                child = item.child(i)
                key = f"{prefix}/{child.text(0)}"
                out[key] = f"{child.text(1)} · {child.text(2)}"
                visit(child, key)

        for i in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(i)
            visit(top, top.text(0))
        return out
