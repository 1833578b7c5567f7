"""The armature dock: one table per arm, one row per movable joint — where its armature comes from (declared,
reflected through the description's transmission, or none), the declared value with its unit and reason,
the actuator behind the transmission (a registered one, or a rotor inertia with its reason), the
transmission's reduction as the URDF gives it, and the armature that results.

A kinematic arm has no armature: its table says so and offers the switch to dynamic (one edit). Every cell
edit is one edit; typing a number or a reason merges into one undo step. A cell that breaks a rule is
marked and the finding shows under the table."""

from __future__ import annotations

import dataclasses

from PySide6.QtCore import QSignalBlocker, Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDockWidget,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mime_gui.app.docks.fields import (
    format_number,
    new_entry,
    on_screen,
    parse_number,
    pass_undo,
)
from mime_gui.app.docks.forms.base import finding_matches
from mime_gui.app.docks.look import bold, hint, mark_error, message
from mime_gui.app.docks.registry import declare
from mime_gui.rig.actuators import actuator, actuator_names
from mime_gui.rig.armature import armature_sources
from mime_gui.rig.segments import _ArmSegment
from mime_gui.rig.units import KG, KG_M2, UNITS, Quantity
from mime_gui.session import ReplaceItem, SessionError, SetArmature, SetKind, SetValue

COLUMNS = ("Joint", "Source", "Declared (kg·m²)", "Reason", "Actuator", "Rotor inertia (kg·m²)", "Reduction",
           "Armature")
REASON_WIDTH = 220
#: a sliding joint's declared armature is a mass: its header says both
COLUMN_TIPS = {2: "kg·m² for a turning joint, kg for a sliding one; a unit typed after the number is "
                  "converted (g·cm², g)", 7: "What the joint gets: kg·m² (turning) or kg (sliding)"}
SOURCES = (("none", "none"), ("declared", "declared"), ("reflected", "through its transmission"))
CUSTOM = "(rotor inertia…)"


class ArmTable(QWidget):
    """The table of one arm segment."""

    def __init__(self, dock, name: str, parent=None):
        super().__init__(parent)
        self.dock = dock
        self.session = dock.session
        self.name = name
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 6, 0, 6)
        head = QHBoxLayout()
        self.title = QLabel(self)
        bold(self.title)
        head.addWidget(self.title, 1)
        self.dynamic = QCheckBox("Dynamic", self)
        self.dynamic.setToolTip("A dynamic arm carries its parts' mass and takes an armature per joint; a "
                                "kinematic one prescribes its motion")
        self.dynamic.toggled.connect(self._switch)
        head.addWidget(self.dynamic)
        layout.addLayout(head)
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        hint(self.note)
        layout.addWidget(self.note)
        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setHorizontalHeaderLabels(COLUMNS)
        for col, tip in COLUMN_TIPS.items():
            self.table.horizontalHeaderItem(col).setToolTip(tip)
        self.table.verticalHeader().hide()
        self.table.setSelectionMode(QTableWidget.NoSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.Stretch)
        layout.addWidget(self.table)
        self.messages = QLabel(self)
        self.messages.setWordWrap(True)
        message(self.messages)
        self.messages.hide()
        layout.addWidget(self.messages)
        self.cells: dict[tuple[str, str], QWidget] = {}  # (joint, column) -> editor
        self._typing: QWidget | None = None  # the cell whose keystroke is being applied
        self._origins: dict[tuple[str, str], object] = {}  # (joint, column) -> the value last shown
        self._joints: tuple = ()

    # -- data ----------------------------------------------------------------------------------------
    def seg(self):
        return self.session.rig.chain[self.name]

    def tree(self):
        return self.session.rig.chain[self.name].tree(self.session.rig.base)

    def transmissions(self, tree) -> dict[str, object]:
        """Joint → the transmission driving it (the first, when several do)."""
        out = {}
        for t in tree.transmissions.values():
            out.setdefault(t.joint, t)
        return out

    # -- building ------------------------------------------------------------------------------------
    def refresh(self) -> None:
        seg = self.seg()
        try:
            tree = self.tree()
        except Exception:  # noqa: BLE001 - an unreadable description: its finding says why
            self.title.setText(f"{self.name} ({seg.kind})")
            self.note.setText("Its description cannot be read: see the Validation panel.")
            self.table.setRowCount(0)
            return
        with QSignalBlocker(self.dynamic):
            self.dynamic.setChecked(seg.dynamic)
        self.title.setText(f"{self.name} ({seg.kind}, {tree.name})")
        joints = tuple(tree.movable_joint_names())
        if not seg.dynamic:
            self.note.setText("Kinematic: prescribed motion, no armature. Tick Dynamic to declare it.")
            self.table.hide()
            self.messages.hide()
            return
        self.note.setText("Declared: a value with its reason. Through its transmission: the rotor inertia of "
                          "the actuator (registered, or declared) × reduction².")
        self.table.show()
        if joints != self._joints:
            self._build_rows(tree, joints)
        self._fill(tree, joints)
        self.table.resizeColumnsToContents()
        if self.table.columnWidth(3) < REASON_WIDTH:  # a reason is a sentence: room for one
            self.table.horizontalHeader().setSectionResizeMode(3, QHeaderView.Interactive)
            self.table.setColumnWidth(3, REASON_WIDTH)
        self.table.setFixedHeight(self.table.horizontalHeader().height() + 4
                                  + sum(self.table.rowHeight(i) for i in range(self.table.rowCount())))

    def _build_rows(self, tree, joints) -> None:
        self._joints = joints
        self.cells.clear()
        self.table.setRowCount(len(joints))
        for row, joint in enumerate(joints):
            item = QTableWidgetItem(joint)
            item.setFlags(Qt.ItemIsEnabled)
            self.table.setItem(row, 0, item)
            source = QComboBox(self.table)
            source.activated.connect(lambda _i, j=joint: self._source_chosen(j))
            self.table.setCellWidget(row, 1, source)
            value = QLineEdit(self.table)
            value.textEdited.connect(lambda _t, j=joint: self._declared_edited(j))
            reason = QLineEdit(self.table)
            reason.setPlaceholderText("reason")
            reason.textEdited.connect(lambda _t, j=joint: self._reason_edited(j))
            act = QComboBox(self.table)
            act.activated.connect(lambda _i, j=joint: self._actuator_chosen(j))
            rotor = QLineEdit(self.table)
            rotor.textEdited.connect(lambda _t, j=joint: self._rotor_edited(j))
            for col, widget in ((2, value), (3, reason), (4, act), (5, rotor)):
                self.table.setCellWidget(row, col, pass_undo(widget))
            for col in (6, 7):
                cell = QTableWidgetItem("")
                cell.setFlags(Qt.ItemIsEnabled)
                self.table.setItem(row, col, cell)
            self.cells.update({(joint, "source"): source, (joint, "value"): value, (joint, "reason"): reason,
                               (joint, "actuator"): act, (joint, "rotor"): rotor})

    def _fill(self, tree, joints) -> None:
        seg = self.seg()
        drives = self.transmissions(tree)
        sources = {s.joint: s for s in armature_sources(seg, tree)[0]}
        for row, joint in enumerate(joints):
            t = drives.get(joint)
            declared = seg.armature.get(joint)
            given = seg.actuators.get(t.actuator) if t is not None and t.actuator else None
            kind = "declared" if declared is not None else "reflected" if given is not None else "none"
            unit = KG if tree.joints[joint].type == "prismatic" else KG_M2
            source = self.cells[(joint, "source")]
            with QSignalBlocker(source):
                source.clear()
                for key, text in SOURCES:
                    if key == "reflected" and t is None:
                        continue
                    label = f"through {t.name}" if key == "reflected" else text
                    source.addItem(label, key)
                source.setCurrentIndex(max(0, source.findData(kind)))
            if self._typing is None:  # shown before the next typing: put back for a text that is no value
                self._origins[(joint, "value")] = declared
                self._origins[(joint, "rotor")] = given
            value, reason = self.cells[(joint, "value")], self.cells[(joint, "reason")]
            act, rotor = self.cells[(joint, "actuator")], self.cells[(joint, "rotor")]
            editing_reason = None
            if kind == "declared":
                self._set_text(value, _number(declared), f"{UNITS[unit]} (declared)")
                editing_reason = getattr(declared, "reason", None)
            else:
                self._set_text(value, "", "")
            value.setEnabled(kind == "declared")
            with QSignalBlocker(act):
                act.clear()
                if kind == "reflected":
                    for name in actuator_names():
                        act.addItem(name, name)
                    act.addItem(CUSTOM, None)
                    act.setCurrentIndex(act.findData(given) if isinstance(given, str) else act.count() - 1)
                    if isinstance(given, str) and act.findData(given) < 0:
                        act.addItem(f"{given} (not registered)", given)
                        act.setCurrentIndex(act.count() - 1)
                    act.setToolTip(f"actuator {t.actuator} of {t.name}")
                else:
                    act.addItem("—" if t is None else f"{t.actuator or '—'}", None)
                act.setEnabled(kind == "reflected")
            if kind == "reflected" and isinstance(given, str):
                record = actuator(given)
                self._set_text(rotor, "" if record is None else format_number(record.rotor_inertia),
                               "" if record is None else record.source)
                rotor.setEnabled(False)
                editing_reason = "" if record is None else f"registered: {record.source}"
            elif kind == "reflected":
                self._set_text(rotor, _number(given), "kg·m², declared")
                rotor.setEnabled(True)
                editing_reason = getattr(given, "reason", None)
            else:
                self._set_text(rotor, "", "")
                rotor.setEnabled(False)
            self._set_text(reason, editing_reason or "", "")
            reason.setEnabled(kind == "declared" or (kind == "reflected" and not isinstance(given, str)))
            self.table.item(row, 6).setText("—" if t is None else format_number(t.reduction))
            s = sources.get(joint)
            result = "—" if s is None else f"{format_number(s.value)} {UNITS[s.unit]}"
            self.table.item(row, 7).setText(result)
            self.table.item(row, 7).setToolTip("" if s is None else s.detail)

    def _set_text(self, edit: QLineEdit, text: str, tip: str) -> None:
        """Show the rig's value in a cell: every cell but the one whose keystroke made this change (its text
        is what the user is typing), focused or not (an undo shows in the cell being typed in)."""
        if edit is not self._typing and edit.text() != text:
            with QSignalBlocker(edit):
                edit.setText(text)
                edit.setCursorPosition(0)  # a long reason shows its start
        edit.setToolTip(tip)

    def show_findings(self, findings) -> None:
        base = f"chain.{self.name}"
        mine = [f for f in findings if finding_matches(f.where, f"{base}.armature")
                or finding_matches(f.where, f"{base}.actuators")]
        try:
            drives = self.transmissions(self.tree())
        except Exception:  # noqa: BLE001
            drives = {}
        for joint in self._joints:
            t = drives.get(joint)
            paths = [f"{base}.armature.{joint}"]
            if t is not None and t.actuator:
                paths.append(f"{base}.actuators.{t.actuator}")
            bad = [f for f in mine if any(finding_matches(f.where, p) for p in paths)]
            for key in ("value", "reason", "actuator", "rotor"):
                cell = self.cells.get((joint, key))
                if cell is None:
                    continue
                mark_error(cell, bool(bad) and cell.isEnabled())
                if bad:
                    cell.setToolTip("\n".join(f"[{f.code}] {f.message}" for f in bad))
        self.messages.setText("\n".join(f"[{f.code}] {f.where}: {f.message}" for f in mine))
        self.messages.setVisible(bool(mine) and self.seg().dynamic)

    def focus(self, path: str) -> bool:
        """Focus the cell of ``chain.<arm>.armature.<joint>`` or ``chain.<arm>.actuators.<actuator>``."""
        base = f"chain.{self.name}."
        if not path.startswith(base):
            return False
        rest = path[len(base):].split(".")
        try:
            drives = self.transmissions(self.tree())
        except Exception:  # noqa: BLE001
            return False
        joint = None
        if rest[0] == "armature" and len(rest) > 1:
            joint, key = rest[1], "value"
        elif rest[0] == "actuators" and len(rest) > 1:
            joint = next((j for j, t in drives.items() if t.actuator == rest[1]), None)
            key = "rotor" if not isinstance(self.seg().actuators.get(rest[1]), str) else "actuator"
        if joint is None or (joint, key) not in self.cells:
            return False
        cell = self.cells[(joint, key)]
        if not cell.isEnabled():
            cell = self.cells[(joint, "source")]
        cell.setFocus(Qt.OtherFocusReason)
        return True

    # -- edits ---------------------------------------------------------------------------------------
    def _apply(self, edit, editor: QWidget | None = None) -> None:
        """Apply an edit; from a cell's keystroke (``editor``), an entry into another cell starts an undo
        step of its own, and the cell keeps its text."""
        if editor is not None and new_entry(editor):
            self.session.seal()
        self._typing = editor
        try:
            self.session.apply(edit)
        except SessionError:
            pass
        finally:
            self._typing = None

    def _switch(self, on: bool) -> None:
        self._apply(SetKind(self.name, "Arm.Dynamic" if on else "Arm.Kinematic"))

    def _unit(self, joint: str) -> str:
        return KG if self.tree().joints[joint].type == "prismatic" else KG_M2

    def _source_chosen(self, joint: str) -> None:
        kind = self.cells[(joint, "source")].currentData()
        seg = self.seg()
        t = self.transmissions(self.tree()).get(joint)
        armature = dict(seg.armature)
        actuators = dict(seg.actuators)
        current = {s.joint: s for s in armature_sources(seg, self.tree())[0]}.get(joint)
        armature.pop(joint, None)
        if t is not None and t.actuator:
            actuators.pop(t.actuator, None)
        if kind == "declared":  # start from the armature it has now: only the reason is left to give
            armature[joint] = Quantity(current.value if current else 0.0, self._unit(joint), None)
        elif kind == "reflected" and t is not None and t.actuator:
            actuators[t.actuator] = actuator_names()[0] if actuator_names() else Quantity(0.0, KG_M2, None)
        new = dataclasses.replace(seg, armature=armature, actuators=actuators)
        if new != seg:
            label = dict(SOURCES)[kind] if kind != "reflected" else f"through {t.name}"
            self._apply(ReplaceItem("chain", self.name, new, f"Armature of {self.name}.{joint}: {label}"))

    def _declared_edited(self, joint: str) -> None:
        edit = self.cells[(joint, "value")]
        value = parse_number(edit.text(), self._unit(joint))
        origin = self._origins.get((joint, "value"))
        if value is None:
            mark_error(edit, True)
            if isinstance(origin, Quantity) and self.seg().armature.get(joint) != origin:
                self._apply(SetArmature(self.name, joint, origin), edit)  # no prefix of the text stays stored
            return
        reason = self.cells[(joint, "reason")].text()
        self._apply(SetArmature(self.name, joint, Quantity(value, self._unit(joint), reason.strip() and reason
                                                           or None)), edit)

    def _reason_edited(self, joint: str) -> None:
        seg = self.seg()
        text = self.cells[(joint, "reason")].text()
        reason = text if text.strip() else None
        declared = seg.armature.get(joint)
        if isinstance(declared, Quantity):
            self._apply(SetArmature(self.name, joint, dataclasses.replace(declared, reason=reason)),
                        self.cells[(joint, "reason")])
            return
        t = self.transmissions(self.tree()).get(joint)
        given = seg.actuators.get(t.actuator) if t is not None and t.actuator else None
        if isinstance(given, Quantity):
            self._apply(SetValue(f"chain.{self.name}.actuators.{t.actuator}",
                                 dataclasses.replace(given, reason=reason)), self.cells[(joint, "reason")])

    def _actuator_chosen(self, joint: str) -> None:
        t = self.transmissions(self.tree()).get(joint)
        if t is None or not t.actuator:
            return
        name = self.cells[(joint, "actuator")].currentData()
        current = self.seg().actuators.get(t.actuator)
        if name is None:  # a rotor inertia of its own, starting from the registered one's
            record = actuator(current) if isinstance(current, str) else None
            value = Quantity(record.rotor_inertia if record else 0.0, KG_M2, None)
            if isinstance(current, Quantity):
                return
        else:
            value = name
        if value != current:
            self._apply(SetValue(f"chain.{self.name}.actuators.{t.actuator}", value))

    def _rotor_edited(self, joint: str) -> None:
        edit = self.cells[(joint, "rotor")]
        value = parse_number(edit.text(), KG_M2)
        t = self.transmissions(self.tree()).get(joint)
        given = self.seg().actuators.get(t.actuator)
        path = f"chain.{self.name}.actuators.{t.actuator}"
        if value is None:
            mark_error(edit, True)
            origin = self._origins.get((joint, "rotor"))
            if isinstance(origin, Quantity) and given != origin:
                self._apply(SetValue(path, origin), edit)  # no prefix of the text stays stored
            return
        reason = given.reason if isinstance(given, Quantity) else None
        self._apply(SetValue(path, Quantity(value, KG_M2, reason)), edit)


def _number(q) -> str:
    if isinstance(q, Quantity):
        return format_number(q.value)
    if isinstance(q, int | float):
        return format_number(float(q))
    return ""


class ArmatureDock(QDockWidget):
    def __init__(self, session, bridge, services, parent=None):
        super().__init__(parent)
        declare(self, "ArmatureDock")  # its title and object name: the dock registry
        self.session = session
        self.scroll = QScrollArea(self)
        self.scroll.setWidgetResizable(True)
        self.body = QWidget(self.scroll)
        self.layout_ = QVBoxLayout(self.body)
        self.layout_.setContentsMargins(6, 0, 6, 6)
        self.empty = QLabel("No arm in the chain.", self.body)
        hint(self.empty)
        self.layout_.addWidget(self.empty)
        self.layout_.addStretch(1)
        self.scroll.setWidget(self.body)
        self.setWidget(self.scroll)
        self.tables: dict[str, ArmTable] = {}
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.refresh)
        for signal in (bridge.rig_changed, bridge.document_changed, bridge.findings_changed):
            signal.connect(lambda *_: self._timer.start())  # once per event-loop turn
        self.visibilityChanged.connect(lambda on: on and self._timer.start())
        self.refresh()

    def table(self, segment: str) -> ArmTable:
        return self.tables[segment]

    def refresh(self) -> None:
        if not on_screen(self) and self.tables:
            return  # refreshed when shown
        rig = self.session.rig
        arms = [n for n, s in rig.chain.items() if isinstance(s, _ArmSegment)] if rig is not None else []
        for name in list(self.tables):
            if name not in arms:
                self.tables.pop(name).deleteLater()
        for i, name in enumerate(arms):
            table = self.tables.get(name)
            if table is None:
                table = self.tables[name] = ArmTable(self, name, self.body)
            self.layout_.insertWidget(i, table)
        self.empty.setVisible(not arms)
        for table in self.tables.values():
            table.refresh()
            table.show_findings(self.session.findings)

    def focus(self, path: str) -> bool:
        self.show()
        self.raise_()
        self.refresh()
        for table in self.tables.values():
            if table.focus(path):
                self.scroll.ensureWidgetVisible(table)
                return True
        return False
