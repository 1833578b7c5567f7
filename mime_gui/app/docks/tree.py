"""The chain tree: segments → links → joints → child links (nested as the chain), and each segment's frames.

Probes, samples and keep-out zones have rows under the row of the frame they ride on, or in a "World"
group. A frame the rig declares (its
``frames``) is a row under the frame it is fixed to, drawn with a triad's icon and saying it is declared.

Selecting an item calls :meth:`Session.select` (a segment's own row selects the segment); the tree follows
``selection_changed`` with its signals blocked. An edit rebuilds the rows of the segments it changed, in
place (the others keep their rows, their expansion and their selection); opening a file rebuilds the whole
tree. The context menu asks the window to focus the camera and toggles an item's visibility through the
Session.

A palette template dragged over a link or frame row lights the row and names the frame; dropped, the tree
emits ``template_dropped(key, segment, frame)`` (the assembly code makes the edit).
"""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QSignalBlocker, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QDockWidget,
    QHeaderView,
    QLineEdit,
    QMenu,
    QToolTip,
    QTreeWidget,
    QTreeWidgetItem,
    QTreeWidgetItemIterator,
    QVBoxLayout,
    QWidget,
)

from mime_gui.app.docks.registry import declare
from mime_gui.app.drag import template_key
from mime_gui.app.icons import kind_icon
from mime_gui.errors import printable
from mime_gui.rig.build import frame_under_grafts
from mime_gui.session import ItemRef, Session
from mime_gui.session.renderer import ITEM_COLLECTIONS, RIDERS

REF_ROLE = Qt.UserRole
KIND_ROLE = Qt.UserRole + 1
DROP_RGB = "#ffe3a3"  # the row a template would be dropped on


def _fmt(v: float, unit: str) -> str:
    if not math.isfinite(v):
        return "∞" if v > 0 else "−∞"
    if unit == "rad":
        return f"{math.degrees(v):.0f}°"
    return f"{v:.3g} {unit}"


def rider_text(kind: str, value) -> str:
    """A probe's, sample's or zone's details: what it is, a zone's shape and limit."""
    if kind == "zone":
        shape = "sphere" if value.box is None else "box"
        try:
            return f"keep-out {shape}, {float(value.limit) * 1e3:.3g} mT"
        except (TypeError, ValueError):
            return f"keep-out {shape}"
    if kind == "sample":
        return f"sample ({value.orientation})" if isinstance(value.orientation, str) else "sample"
    return kind


def joint_summary(joint) -> str:
    """``revolute  −170° … 170°`` — the joint type and its position limits."""
    if joint.type == "fixed":
        return "fixed"
    if joint.type == "continuous" or joint.limit is None:
        text = joint.type
    else:
        unit = "m" if joint.type == "prismatic" else "rad"
        lo, hi = joint.limit.lower, joint.limit.upper
        if lo == -hi and lo < 0:
            text = f"{joint.type}  ±{_fmt(hi, unit)}"
        else:
            text = f"{joint.type}  {_fmt(lo, unit)} … {_fmt(hi, unit)}"
    if joint.mimic is not None:
        text += f"  (mimics {joint.mimic.joint})"
    return text


def link_summary(link) -> str:
    parts = []
    if link.inertial is not None and link.inertial.mass > 0:
        parts.append(f"{link.inertial.mass:.3g} kg")
    if link.visuals:
        parts.append(f"{len(link.visuals)} visual{'s' if len(link.visuals) > 1 else ''}")
    return ", ".join(parts)


def segment_details(seg) -> str:
    """A segment row's details, short enough for the column at the dock's default width (the link count is
    in its tooltip): its kind and its degrees of freedom."""
    return f"{seg.kind} · {seg.articulation.nq} dof"


class TreeDock(QDockWidget):
    focus_requested = Signal(object)  # ItemRef
    filter_changed = Signal(str)  # the filter text: the window also filters the 3D frame triads by it
    template_dropped = Signal(str, str, str)  # template key, segment, frame

    def __init__(self, session: Session, bridge, services, parent=None):
        super().__init__(parent)
        declare(self, "ChainTreeDock")  # its title and object name: the dock registry
        self.session = session
        self._items: dict[ItemRef, QTreeWidgetItem] = {}
        self._tops: dict[str, QTreeWidgetItem] = {}
        self._shapes: dict[str, tuple] = {}
        self.rebuilds = 0  # whole-tree rebuilds (tests count them)

        body = QWidget(self)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        self.filter = QLineEdit(body)
        self.filter.setPlaceholderText("Filter links, joints, frames (also the 3D triads)…")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self.apply_filter)
        self.tree = QTreeWidget(body)
        self.tree.setColumnCount(2)
        self.tree.setHeaderLabels(["Name", "Details"])
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setIndentation(14)
        self.tree.header().setStretchLastSection(True)
        self.tree.header().setSectionResizeMode(0, QHeaderView.Interactive)
        self.tree.setContextMenuPolicy(Qt.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._context_menu)
        self.tree.itemSelectionChanged.connect(self._tree_selection_changed)
        self.tree.itemDoubleClicked.connect(self._double_clicked)
        layout.addWidget(self.filter)
        layout.addWidget(self.tree)
        self.setWidget(body)
        self._drop_row: QTreeWidgetItem | None = None
        self.context_actions = lambda ref: []  # more entries of a row's context menu (set by the assembly)
        self.last_menu: QMenu | None = None
        self.tree.setAcceptDrops(True)
        self.tree.viewport().setAcceptDrops(True)
        self.tree.viewport().installEventFilter(self)

        bridge.document_changed.connect(self._document_changed)
        bridge.rig_changed.connect(self._rig_changed)
        bridge.selection_changed.connect(self.show_selection)
        bridge.visibility_changed.connect(self._visibility_changed)
        self.rebuild(session.document)

    # -- building ----------------------------------------------------------------------------------
    def _item(self, parent, name: str, details: str, kind: str, ref: ItemRef | None,
              icon: str) -> QTreeWidgetItem:
        name, details = printable(name), printable(details)  # a name from a file shown on one line
        texts = [name, details]
        item = QTreeWidgetItem(texts) if parent is None else QTreeWidgetItem(parent, texts)
        item.setIcon(0, kind_icon(icon))
        item.setData(0, REF_ROLE, ref)
        item.setData(0, KIND_ROLE, kind)
        item.setToolTip(0, f"{kind}: {name}")
        item.setToolTip(1, details)
        if ref is not None:
            self._items[ref] = item
        return item

    def _document_changed(self, document) -> None:
        """A new document: the filter clears (it named rows of the last one), then every row is built."""
        if self.filter.text():
            with QSignalBlocker(self.filter):
                self.filter.clear()
            self.filter_changed.emit("")
        self.rebuild(document)

    def rebuild(self, document=None) -> None:
        self.rebuilds += 1
        with QSignalBlocker(self.tree):
            self.tree.clear()
            self._items.clear()
            self._tops.clear()
            self._shapes.clear()
            for seg_name, seg in self.session.segments.items():
                self._add_segment(seg_name, seg)
            self._place_probes()
        self.tree.resizeColumnToContents(0)
        self.tree.setColumnWidth(0, min(max(self.tree.columnWidth(0), 160), 220))
        self.apply_filter(self.filter.text())
        self.show_selection(self.session.selection)

    def _place_probes(self) -> None:
        """A row per probe under the row of the frame it rides on (its link's row, else its frame's), or in
        a "World" group (no mount, or a mount the chain lacks), and in that group a row per part or magnet
        that no segment carries (fixed in the world, or on a mount the chain lacks; a carried one is its
        graft link's row): made again after every edit (a few rows)."""
        for ref in [r for r in self._items if r.kind in ITEM_COLLECTIONS]:
            item = self._items.pop(ref)
            try:
                parent = item.parent()
                if parent is not None:
                    parent.removeChild(item)
            except RuntimeError:  # gone with its segment's rows
                pass
        world = self._tops.pop(" world", None)
        if world is not None:
            self.tree.takeTopLevelItem(self.tree.indexOfTopLevelItem(world))
        rig = self.session.rig

        def world_group():
            if " world" not in self._tops:
                self._tops[" world"] = self._item(None, "World", "", "group", None, "group")
                self._tops[" world"].setToolTip(0, "Items fixed in the world")
                self.tree.addTopLevelItem(self._tops[" world"])
                self._tops[" world"].setExpanded(True)
            return self._tops[" world"]

        for kind, collection in RIDERS.items():
            for name, value in (getattr(rig, collection, {}) if rig is not None else {}).items():
                segment, _, frame = (value.mount or "").partition(".")
                parent = self._items.get(ItemRef(segment, "link", frame)) or \
                    self._items.get(ItemRef(segment, "frame", frame))
                what = rider_text(kind, value)
                if parent is not None:
                    details = what
                elif value.mount is None:
                    details = f"{what} in the world"
                else:
                    details = f"{what} on {value.mount} (not found)"
                self._item(parent or world_group(), name, details, kind, ItemRef("", kind, name), kind)
        grafted = {item[1] for item in map(self._grafted, self._items) if item is not None}
        for collection, name, part in (rig.solids() if rig is not None else ()):
            if name in grafted:
                continue
            kind = "magnet" if collection == "magnets" else "part"
            where = "in the world" if part.mount is None else f"on {part.mount} (not found)"
            self._item(world_group(), name, f"{part.geometry.kind} {kind} {where}", kind,
                       ItemRef("", kind, name), kind)

    @staticmethod
    def _shape(seg) -> tuple:
        """What a segment's rows are made of (its links, joints and frames, and how they nest): equal shapes,
        same rows, and an edit (a part's size typed in) only changes their texts."""
        tree = seg.tree
        return (seg.kind, tree.root, tuple(tree.links),
                tuple((j.name, j.parent, j.child, j.type, j.movable) for j in tree.joints.values()),
                seg.articulation.frame_names)

    def _grafted(self, ref: ItemRef) -> tuple[str, str] | None:
        """``(collection, name)`` of the part or magnet the link row ``ref`` is grafted for, else None."""
        seg = self.session.segments.get(ref.segment) if ref.kind == "link" else None
        return seg.item_of(ref.name) if seg is not None else None

    def _link_text(self, item: tuple[str, str] | None, link) -> str:
        """A link's details; a grafted part's (``item``: what it is grafted for) say what it is."""
        if item is None:
            return link_summary(link)
        collection, own = item
        part = (getattr(self.session.rig, collection, {}) or {}).get(own)
        if part is None:
            return link_summary(link)
        kind = "magnet" if collection == "magnets" else "part"
        mass = link.inertial.mass if link.inertial is not None else None
        if not mass:
            return f"{part.geometry.kind} {kind}"
        weight = f"{mass * 1000:.3g} g" if mass < 1.0 else f"{mass:.3g} kg"  # a magnet weighs grams
        return f"{part.geometry.kind} {kind}, {weight}"

    def _declared(self, seg_name: str, seg) -> dict:
        """The rig's declared frames that are links of the segment's tree: name → its
        :class:`~mime_gui.rig.frames.DeclaredFrame` (welded by its own fixed joint to its mount)."""
        rig = self.session.rig
        out = {}
        for name, frame in (getattr(rig, "frames", None) or {}).items():
            joint = seg.tree.parent_joint(name) if frame.segment == seg_name else None
            if joint is not None and (joint.name, joint.type, joint.parent) == (name, "fixed", frame.parent):
                out[name] = frame
        return out

    @staticmethod
    def _declared_text(frame) -> str:
        return f"declared on {frame.parent}"

    def _details(self, name: str, seg) -> dict:
        """``ref → details text`` of a segment's rows (as :meth:`_add_segment` writes them)."""
        tree = seg.tree
        declared = self._declared(name, seg)
        out = {ItemRef(name, "segment", name): segment_details(seg)}
        out.update({ItemRef(name, "link", n): self._declared_text(declared[n]) if n in declared
                    else self._link_text(seg.item_of(n), link) for n, link in tree.links.items()})
        out.update({ItemRef(name, "joint", n): joint_summary(j) for n, j in tree.joints.items()})
        return out

    def _rig_changed(self, change) -> None:
        """Rebuild the rows of the segments the edit added, changed or removed; keep the others (a segment
        whose rows keep their shape changes its texts in place)."""
        in_place = {n for n in change.changed if n in self._shapes
                    and self._shapes[n] == self._shape(self.session.segments[n])}
        for name in in_place:
            for ref, text in self._details(name, self.session.segments[name]).items():
                item = self._items.get(ref)
                if item is not None and item.text(1).removesuffix("  (hidden)") != text:
                    item.setText(1, text + ("  (hidden)" if ref in self.session.hidden else ""))
                    item.setToolTip(1, text)
        redo = (change.added | change.changed) - in_place
        if not (redo or change.removed):
            with QSignalBlocker(self.tree):
                self._place_probes()
            self.apply_filter(self.filter.text())
            self.show_selection(self.session.selection)
            return
        expanded = {ref for ref, item in self._items.items()
                    if ref.segment in change.changed and item.isExpanded()}
        with QSignalBlocker(self.tree):
            for name in change.removed | (change.changed - in_place):
                self._shapes.pop(name, None)
                top = self._tops.pop(name, None)
                if top is not None:
                    self.tree.takeTopLevelItem(self.tree.indexOfTopLevelItem(top))
                self._items = {ref: item for ref, item in self._items.items() if ref.segment != name}
            for index, (name, seg) in enumerate(self.session.segments.items()):
                if name in redo:
                    self._add_segment(name, seg, index)
            for ref in expanded:
                item = self._items.get(ref)
                if item is not None:
                    item.setExpanded(True)
            for name in redo:
                for ref in self.session.hidden:
                    if ref.segment == name:
                        self._visibility_changed(ref, False)
            self._place_probes()
        self.apply_filter(self.filter.text())
        self.show_selection(self.session.selection)

    def _add_segment(self, seg_name: str, seg, index: int | None = None) -> None:
        tree, art = seg.tree, seg.articulation
        ref = ItemRef(seg_name, "segment", seg_name)
        top = self._item(None, seg_name, segment_details(seg), "segment", ref, "segment")
        top.setToolTip(1, f"{seg.kind}, {art.nq} dof, {len(tree.links)} links")
        if index is None:
            self.tree.addTopLevelItem(top)
        else:
            self.tree.insertTopLevelItem(index, top)
        self._tops[seg_name] = top
        self._shapes[seg_name] = self._shape(seg)
        top.setToolTip(0, f"segment {seg_name}: {tree.source or ''}")
        children: dict[str, list] = {}
        for j in tree.joints.values():
            children.setdefault(j.parent, []).append(j)
        declared = self._declared(seg_name, seg)
        welded = set(seg.grafts) | set(declared)  # rows under their frame, without their weld joint's row

        def add_chain(parent_item, link_name: str) -> None:
            """A serial run of links stays at one level; only a branching link nests its joints. A part or
            magnet grafted on a frame is one row under it, by its own name (its weld joint and its graft
            link are how the build carries it, not something the user made); so is a declared frame, with a
            triad's icon."""
            stack = [(parent_item, link_name)]
            while stack:
                parent, name = stack.pop()
                link = tree.links[name]
                grafted = seg.item_of(name)
                if grafted is not None:
                    own = grafted[1]
                    kind = "magnet" if grafted[0] == "magnets" else "part"
                    item = self._item(parent, own, self._link_text(grafted, link), "link",
                                      ItemRef(seg_name, "link", name), kind)
                    item.setToolTip(0, f"{kind}: {own}")
                elif name in declared:
                    frame = declared[name]
                    item = self._item(parent, name, self._declared_text(frame), "link",
                                      ItemRef(seg_name, "link", name), "frame")
                    item.setToolTip(0, f"declared frame: {name}, fixed to {frame.mount} (the rig's frames)")
                else:
                    item = self._item(parent, name, link_summary(link), "link",
                                      ItemRef(seg_name, "link", name), "link")
                joints = children.get(name, [])
                grafts = [j for j in joints if j.child in welded]
                joints = [j for j in joints if j.child not in welded]
                under = parent if len(joints) == 1 else item
                pending = [(item, j.child) for j in grafts]  # under the frame it is fixed to
                for j in joints:
                    jref = ItemRef(seg_name, "joint", j.name)
                    jitem = self._item(under, j.name, joint_summary(j), "joint", jref,
                                       "joint" if j.movable else "fixed")
                    pending.append((under if len(joints) == 1 else jitem, j.child))
                stack.extend(reversed(pending))

        add_chain(top, tree.root)
        frames = self._item(top, "Frames", f"{art.nframes}", "group", None, "group")
        for i, name in enumerate(art.frame_names):
            if name in seg.grafts:  # a part's own frame: listed by the part's row
                continue
            body = art.body_names[int(art.frame_body[i])]
            details = "" if body == name else f"on body {body}"
            if name in declared:
                details = "declared" + (f", {details}" if details else "")
            row = self._item(frames, name, details, "frame", ItemRef(seg_name, "frame", name), "frame")
            if name in declared:
                row.setToolTip(0, f"declared frame: {name}, fixed to {declared[name].mount}")
        top.setExpanded(True)
        expand_depth = 12 if len(tree.links) <= 40 else 4
        self._expand(top, expand_depth)
        frames.setExpanded(False)

    def _expand(self, item: QTreeWidgetItem, depth: int) -> None:
        if depth <= 0 or item.data(0, KIND_ROLE) == "group":
            return
        item.setExpanded(True)
        for i in range(item.childCount()):
            self._expand(item.child(i), depth - 1)

    # -- queries (used by tests and the window) ----------------------------------------------------
    def counts(self) -> dict[str, int]:
        """Number of tree items per kind (``segment``, ``link``, ``joint``, ``frame``, ``group``)."""
        out: dict[str, int] = {}
        it = QTreeWidgetItemIterator(self.tree)
        while it.value():
            kind = it.value().data(0, KIND_ROLE)
            out[kind] = out.get(kind, 0) + 1
            it += 1
        return out

    def item_for(self, ref: ItemRef) -> QTreeWidgetItem | None:
        return self._items.get(ref)

    # -- filter ------------------------------------------------------------------------------------
    def apply_filter(self, text: str) -> None:
        needle = text.strip().lower()

        def visit(item: QTreeWidgetItem) -> bool:
            any_child = False
            for i in range(item.childCount()):
                any_child |= visit(item.child(i))
            match = not needle or needle in item.text(0).lower()
            shown = match or any_child
            item.setHidden(not shown)
            if needle and any_child:
                item.setExpanded(True)
            return shown

        for i in range(self.tree.topLevelItemCount()):  # segments (and the World group) always show
            top = self.tree.topLevelItem(i)
            visit(top)
            top.setHidden(False)
        self.filter_changed.emit(text.strip())

    # -- selection both ways -----------------------------------------------------------------------
    def _tree_selection_changed(self) -> None:
        items = self.tree.selectedItems()
        ref = items[0].data(0, REF_ROLE) if items else None
        if ref is None and items:
            return  # a segment or group row: nothing to select in 3D
        self.session.select(ref)

    def row_of(self, ref: ItemRef | None) -> QTreeWidgetItem | None:
        """The row of ``ref``; a part or magnet (selected by its own reference, whatever segment carries
        it) is the row of the link it is grafted as."""
        if ref is None:
            return None
        if ref.kind in ("part", "magnet"):
            return next((item for r, item in self._items.items()
                         if (self._grafted(r) or (None, None))[1] == ref.name), self._items.get(ref))
        return self._items.get(ref)

    def show_selection(self, ref: ItemRef | None) -> None:
        with QSignalBlocker(self.tree):
            self.tree.clearSelection()
            item = self.row_of(ref)
            if item is None:
                return
            parent = item.parent()
            while parent is not None:
                parent.setExpanded(True)
                parent = parent.parent()
            item.setSelected(True)
            self.tree.setCurrentItem(item)
            self.tree.scrollToItem(item)

    def _double_clicked(self, item: QTreeWidgetItem, column: int) -> None:
        ref = item.data(0, REF_ROLE)
        if ref is not None:
            self.focus_requested.emit(ref)

    # -- context menu ------------------------------------------------------------------------------
    def _context_menu(self, pos) -> None:
        item = self.tree.itemAt(pos)
        ref = item.data(0, REF_ROLE) if item is not None else None
        if ref is None:
            return
        menu = QMenu(self.tree)
        focus = menu.addAction("Focus camera")
        hidden = not self.session.is_item_visible(ref)
        # a probe's marker, and a part fixed in the world (a World row), go with the parts layer
        shown_alone = ref.kind != "segment" and ref.kind not in ITEM_COLLECTIONS
        toggle = menu.addAction("Show" if hidden else "Hide") if shown_alone else None
        extra = self.context_actions(ref)  # Delete, Duplicate, Rename … (the assembly code's)
        if extra:
            menu.addSeparator()
            for action in extra:
                menu.addAction(action)
        self.last_menu = menu
        chosen = menu.exec(self.tree.viewport().mapToGlobal(pos))
        if chosen is focus:
            self.focus_requested.emit(ref)
        elif chosen is toggle:
            self.session.set_item_visible(ref, hidden)

    def _visibility_changed(self, ref: ItemRef, visible: bool) -> None:
        item = self._items.get(ref)
        if item is None:
            return
        font = item.font(0)
        font.setItalic(not visible)
        item.setFont(0, font)
        colour = item.foreground(1) if visible else QBrush(QColor("#8d949c"))
        item.setForeground(0, colour)
        item.setText(1, item.text(1).removesuffix("  (hidden)") + ("" if visible else "  (hidden)"))

    # -- template drops ----------------------------------------------------------------------------
    def frame_at(self, pos) -> tuple[str, str] | None:
        """``(segment, frame)`` a template dropped at viewport point ``pos`` mounts on: a link or frame row
        names itself, a joint row its child link, a grafted part's row the frame the part is mounted on."""
        item = self.tree.itemAt(pos)
        ref = item.data(0, REF_ROLE) if item is not None else None
        if ref is None or ref.kind not in ("link", "frame", "joint"):
            return None
        seg = self.session.segments.get(ref.segment)
        if seg is None:
            return None
        name = ref.name
        if ref.kind == "joint":
            joint = seg.tree.joints.get(name)
            name = joint.child if joint is not None else name
        name = frame_under_grafts(seg.tree, name)
        return None if name is None else (ref.segment, name)

    def eventFilter(self, watched, event) -> bool:
        kind = event.type()
        if watched is self.tree.viewport() and kind in (QEvent.DragEnter, QEvent.DragMove, QEvent.Drop,
                                                         QEvent.DragLeave):
            if kind == QEvent.DragLeave:
                self._light_drop_row(None)
                return False
            key = template_key(event.mimeData())
            if key is None:
                return False
            pos = event.position().toPoint()
            target = self.frame_at(pos)
            self._light_drop_row(self.tree.itemAt(pos) if target else None)
            if target is None:
                event.ignore()
                return True
            event.setDropAction(Qt.CopyAction)
            event.accept()
            if kind == QEvent.Drop:
                self._light_drop_row(None)
                self.template_dropped.emit(key, *target)
            else:
                QToolTip.showText(self.tree.viewport().mapToGlobal(pos), f"Mount on {target[0]}.{target[1]}",
                                  self.tree.viewport())
            return True
        return super().eventFilter(watched, event)

    def _light_drop_row(self, item: QTreeWidgetItem | None) -> None:
        if item is self._drop_row:
            return
        if self._drop_row is not None:
            try:
                for col in range(2):
                    self._drop_row.setBackground(col, QBrush())
            except RuntimeError:  # the row went away with a rebuild
                pass
        self._drop_row = item
        if item is not None:
            for col in range(2):
                item.setBackground(col, QBrush(QColor(DROP_RGB)))
            QToolTip.hideText()
