"""The read report: what the reader used, recognised and did not use, refused, and its warnings.

Each segment of the document gets the three groups and the warnings; an unresolved mesh lists every path
the reader tried. Clicking a row selects the element it came from (found by its line in the file).
"""

from __future__ import annotations

import bisect

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QDockWidget, QHeaderView, QTreeWidget, QTreeWidgetItem

from mime_gui.app.docks.registry import declare
from mime_gui.app.icons import kind_icon
from mime_gui.multibody.tree import Mesh
from mime_gui.session import ItemRef, Session

REF_ROLE = Qt.UserRole
ROLE_KIND = Qt.UserRole + 1
ROLE_CODE = Qt.UserRole + 2
GROUP_TITLES = (("used", "Read and used"), ("ignored", "Recognised, not used"), ("refused", "Refused"))


class LineIndex:
    """Which element of a description a line number belongs to."""

    def __init__(self, segment: str, tree):
        starts: dict[str, list[tuple[int, ItemRef]]] = {"link": [], "joint": [], "any": []}
        self.exact: dict[int, ItemRef] = {}
        for link in tree.links.values():
            ref = ItemRef(segment, "link", link.name)
            lines = [link.line] + [s.line for s in (*link.visuals, *link.collisions)]
            if link.inertial is not None:
                lines.append(link.inertial.line)
            for line in filter(None, lines):
                self.exact.setdefault(line, ref)
            if link.line:
                starts["link"].append((link.line, ref))
        for joint in tree.joints.values():
            ref = ItemRef(segment, "joint", joint.name)
            if joint.line:
                self.exact.setdefault(joint.line, ref)
                starts["joint"].append((joint.line, ref))
        for tr in getattr(tree, "transmissions", {}).values():
            if tr.line and tr.joint in tree.joints:
                starts["joint"].append((tr.line, ItemRef(segment, "joint", tr.joint)))
        starts["any"] = starts["link"] + starts["joint"]
        self.starts = {k: sorted(v, key=lambda t: t[0]) for k, v in starts.items()}

    def find(self, line: int, kind: str = "") -> ItemRef | None:
        """The element that ``line`` falls in; ``kind`` is a report kind such as ``robot/joint/limit``."""
        if not line:
            return None
        if line in self.exact:
            return self.exact[line]
        parts = kind.split("/")
        which = parts[1] if len(parts) > 1 and parts[1] in ("link", "joint") else "any"
        if len(parts) > 1 and parts[1] == "transmission":
            which = "joint"
        starts = self.starts[which]
        i = bisect.bisect_right([s for s, _ in starts], line) - 1
        return starts[i][1] if i >= 0 else None


def unresolved_meshes(tree) -> list[tuple[str, Mesh]]:
    """``(link name, mesh)`` for every mesh the reader could not find."""
    out = []
    for link in tree.links.values():
        for shape in (*link.visuals, *link.collisions):
            if isinstance(shape.geometry, Mesh) and shape.geometry.filename is None:
                out.append((link.name, shape.geometry))
    return out


class ReportDock(QDockWidget):
    def __init__(self, session: Session, bridge, services, parent=None):
        super().__init__(parent)
        declare(self, "ReadReportDock")  # its title and object name: the dock registry
        self.session = session
        self.tree = QTreeWidget(self)
        self.tree.setColumnCount(3)
        self.tree.setHeaderLabels(["Kind", "Count", "Lines"])
        self.tree.setUniformRowHeights(True)
        self.tree.setIndentation(14)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.Interactive)
        header.resizeSection(2, 90)
        self.tree.itemClicked.connect(self._clicked)
        self.setWidget(self.tree)
        bridge.document_changed.connect(self.rebuild)
        self.rebuild(session.document)

    def groups(self) -> dict[str, QTreeWidgetItem]:
        """Top-level group rows by key (``used``, ``ignored``, ``refused``, ``warnings``) for the first
        segment; tests read their child counts."""
        out = {}
        root = self.tree.invisibleRootItem()
        if self.tree.topLevelItemCount() and self.tree.topLevelItem(0).data(0, ROLE_KIND) == "segment":
            root = self.tree.topLevelItem(0)
        for i in range(root.childCount()):
            item = root.child(i)
            out[item.data(0, ROLE_KIND)] = item
        return out

    def rebuild(self, document=None) -> None:
        with QSignalBlocker(self.tree):
            self.tree.clear()
            segments = self.session.segments
            for name, seg in segments.items():
                parent = self.tree.invisibleRootItem()
                if len(segments) > 1:
                    parent = QTreeWidgetItem(parent, [name])
                    parent.setIcon(0, kind_icon("segment"))
                    parent.setData(0, ROLE_KIND, "segment")
                    parent.setExpanded(True)
                self._add_report(parent, name, seg.tree)

    def _add_report(self, parent: QTreeWidgetItem, segment: str, tree) -> None:
        report = tree.report
        if str(tree.source).startswith("<") and not report.entries and not report.warnings:
            text = f"built by the rig ({tree.source.strip('<>')}), no file read"
            row = QTreeWidgetItem(parent, [text, "", ""])
            row.setData(0, ROLE_KIND, "builtin")
            row.setDisabled(True)
            row.setFirstColumnSpanned(True)  # no count or lines: the whole width for the text
            return
        index = LineIndex(segment, tree)
        for key, title in GROUP_TITLES:
            entries = report.group({"ignored": "recognised-not-used"}.get(key, key))
            group = QTreeWidgetItem(parent, [title, str(len(entries)), ""])
            group.setIcon(0, kind_icon(key))
            group.setData(0, ROLE_KIND, key)
            bold = group.font(0)
            bold.setBold(True)
            group.setFont(0, bold)
            for e in entries:
                lines = ", ".join(map(str, e.lines)) + (" …" if e.count > len(e.lines) else "")
                row = QTreeWidgetItem(group, [e.kind.removeprefix("robot/"), str(e.count), lines])
                row.setData(0, ROLE_KIND, "entry")
                row.setData(0, REF_ROLE, index.find(e.lines[0] if e.lines else 0, e.kind))
                tip = e.kind + (f"\n{e.note}" if e.note else "")
                row.setToolTip(0, tip)
                row.setTextAlignment(1, Qt.AlignRight | Qt.AlignVCenter)
            group.setExpanded(key != "used" and bool(entries))
        missing = unresolved_meshes(tree)
        warnings = QTreeWidgetItem(parent, ["Warnings", str(len(report.warnings)), ""])
        warnings.setIcon(0, kind_icon("warning"))
        warnings.setData(0, ROLE_KIND, "warnings")
        bold = warnings.font(0)
        bold.setBold(True)
        warnings.setFont(0, bold)
        for w in report.warnings:
            text = w.message.replace("<robot/", "<")
            row = QTreeWidgetItem(warnings, [text, "", str(w.line or "")])
            row.setIcon(0, kind_icon("warning"))
            row.setData(0, ROLE_KIND, "warning")
            row.setData(0, ROLE_CODE, w.code)
            row.setToolTip(0, str(w))
            ref = index.find(w.line)
            if w.code == "urdf.mesh-unresolved":
                for link, mesh in missing:
                    if repr(mesh.uri) in w.message and repr(link) in w.message:
                        ref = ItemRef(segment, "link", link)
                        row.setText(0, f"mesh {mesh.uri} of link {link} not found")
                        for path in mesh.tried:
                            tried = QTreeWidgetItem(row, [f"tried {path}", "", ""])
                            tried.setIcon(0, kind_icon("path"))
                            tried.setData(0, ROLE_KIND, "tried")
                            tried.setData(0, REF_ROLE, ref)
                            tried.setForeground(0, QBrush(QColor("#8d949c")))
                            tried.setToolTip(0, path)
                            tried.setFirstColumnSpanned(True)
                        row.setExpanded(True)
                        break
            row.setData(0, REF_ROLE, ref)
        warnings.setExpanded(len(report.warnings) <= 30)

    def _clicked(self, item: QTreeWidgetItem, column: int) -> None:
        ref = item.data(0, REF_ROLE)
        if ref is not None and self.session.has_item(ref):
            self.session.select(ref)
