"""The palette: part, magnet, probe, sample, keep-out zone and segment templates to drag onto a frame (a row
of the chain tree, or a link in the 3D view). Double-click or Enter adds the template to the selected frame,
for keyboard users. The lab's registered segment kinds are listed under Segments too, read again each time a
document opens.

The palette only starts drags and says which template was chosen; :mod:`mime_gui.app.assembly` turns a
template and a frame into one edit."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtGui import QDrag
from PySide6.QtWidgets import QDockWidget, QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from mime_gui.app.docks.look import hint
from mime_gui.app.docks.registry import declare
from mime_gui.app.drag import template_mime
from mime_gui.app.icons import kind_icon
from mime_gui.rig.templates import TEMPLATES, lab_templates

KEY_ROLE = Qt.UserRole
GROUP_ICONS = {"Parts": "part", "Magnets": "magnet", "Probes": "probe", "Samples": "sample",
               "Keep-out zones": "zone", "Segments": "segment"}


class _TemplateTree(QTreeWidget):
    """A tree whose leaf rows drag their template key."""

    def startDrag(self, actions) -> None:
        item = self.currentItem()
        key = item.data(0, KEY_ROLE) if item is not None else None
        if key is None:
            return
        drag = QDrag(self)
        drag.setMimeData(template_mime(key))
        drag.setPixmap(item.icon(0).pixmap(32, 32))
        drag.exec(Qt.CopyAction)


class PaletteDock(QDockWidget):
    chosen = Signal(str)  # a template key: add it to the selected frame

    def __init__(self, session, bridge, services, parent=None):
        super().__init__(parent)
        declare(self, "PaletteDock")  # its title and object name: the dock registry
        self.session = session
        body = QWidget(self)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        self.tree = _TemplateTree(body)
        self.tree.setHeaderHidden(True)
        self.tree.setIndentation(12)
        self.tree.setDragEnabled(True)
        self.tree.setDragDropMode(QTreeWidget.DragOnly)
        self.tree.setRootIsDecorated(False)
        self._rows: dict[str, QTreeWidgetItem] = {}
        groups: dict[str, QTreeWidgetItem] = {}
        for key, template in TEMPLATES.items():
            group = groups.get(template.group)
            if group is None:
                group = groups[template.group] = QTreeWidgetItem(self.tree, [template.group])
                group.setFlags(Qt.ItemIsEnabled)
                font = group.font(0)
                font.setBold(True)
                group.setFont(0, font)
                group.setExpanded(True)
            row = QTreeWidgetItem(group, [template.label])
            row.setIcon(0, kind_icon(GROUP_ICONS[template.group]))
            row.setData(0, KEY_ROLE, key)
            how = ("Drag onto a frame (a row of the Chain tree or a link in the 3D view), or double-click "
                   "/ Enter to add it to the selected frame.")
            row.setToolTip(0, f"{template.tip}\n\n{how}")
            row.setFlags(Qt.ItemIsEnabled | Qt.ItemIsSelectable | Qt.ItemIsDragEnabled)
            self._rows[key] = row
        self._groups = groups
        self._lab_rows: list[str] = []
        self.refresh_lab_kinds()
        self.tree.itemActivated.connect(self._activated)
        self.describe_target = lambda: ""  # the frame Enter adds to, as text (set by the assembly code)
        self.hint = QLabel(body)
        self.hint.setWordWrap(True)
        hint(self.hint)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.hint)
        self.setWidget(body)
        bridge.selection_changed.connect(self._selection_changed)
        bridge.document_changed.connect(lambda _doc: self._selection_changed(self.session.selection))
        bridge.document_changed.connect(lambda _doc: self.refresh_lab_kinds())
        self._selection_changed(session.selection)

    def refresh_lab_kinds(self) -> None:
        """The rows of the registered lab segment kinds, under Segments after the built-in ones."""
        group = self._groups.get("Segments")
        if group is None:
            return
        for key in self._lab_rows:
            group.removeChild(self._rows.pop(key))
        self._lab_rows = []
        for key, template in lab_templates().items():
            row = QTreeWidgetItem(group, [template.label])
            row.setIcon(0, kind_icon(GROUP_ICONS["Segments"]))
            row.setData(0, KEY_ROLE, key)
            row.setToolTip(0, f"{template.tip}\n\nDrag onto a frame, or double-click / Enter to add it to "
                              "the selected frame; its parameters are then in its form.")
            row.setFlags(Qt.ItemIsEnabled | Qt.ItemIsSelectable | Qt.ItemIsDragEnabled)
            if template.unavailable:  # shown greyed with the reason, not dragged
                row.setFlags(Qt.NoItemFlags)
                row.setToolTip(0, f"{template.tip}\n\nNot offered: {template.unavailable}.")
            self._rows[key] = row
            self._lab_rows.append(key)

    def row(self, key: str) -> QTreeWidgetItem:
        return self._rows[key]

    def _activated(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        key = item.data(0, KEY_ROLE)
        if key is not None:
            self.chosen.emit(key)

    def _selection_changed(self, ref) -> None:
        has = self.session.document is not None
        with QSignalBlocker(self.tree):
            self.tree.setEnabled(has)
        if not has:
            self.hint.setText("Open a URDF or a rig to assemble on it.")
        elif self.describe_target():
            self.hint.setText(f"Enter or double-click adds to {self.describe_target()}; or drag onto any "
                              "frame.")
        else:
            self.hint.setText("Drag onto a frame, or select a frame and press Enter here.")
