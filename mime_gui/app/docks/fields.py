"""Form fields bound to rig paths: each shows the value at its path, turns what the user types into one edit
through ``Session.apply``, and shows under itself the message of a finding at its path.

A field never changes the rig itself: it calls its ``commit`` with the new value, and refreshes from the rig
(with its signals blocked) when the rig changes, except while the user is typing in it. Numbers are committed
at every keystroke that parses (same-path edits merge into one undo step); text that does not parse yet is
marked and not committed. Names are committed on Enter or when the field loses focus.

Lengths are stored in metres and shown in the form's length unit (mm or m); a typed ``mm`` or ``m`` suffix
overrides it.
"""

from __future__ import annotations

import math
import re

from PySide6.QtCore import QEvent, QObject, QSignalBlocker, Qt, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from mime_gui.app.docks.look import hint, mark_error, message
from mime_gui.rig.units import UNITS, Quantity

LENGTH_UNITS = {"mm": 1000.0, "m": 1.0}
_NUMBER = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([a-zA-Z°µ/²³ ]*)\s*$")


def on_screen(dock) -> bool:
    """True when a dock is shown now: visible and, tabbed with others, its tab is the current one (a dock
    behind another tab is still 'visible' to Qt, with nothing of it on screen)."""
    return dock.isVisible() and not dock.visibleRegion().isEmpty()


def format_number(value: float, digits: int = 6) -> str:
    if value is None:
        return ""
    if not math.isfinite(value):
        return str(value)
    text = f"{value:.{digits}g}"
    return "0" if text == "-0" else text


def parse_number(text: str, units: dict[str, float] | None = None, default: str = "") -> float | None:
    """``text`` as a number in the unit ``default`` (a suffix from ``units`` overrides it); None when it
    does not parse yet. Values are converted by dividing by the unit's factor (``10 mm`` → 10 / 1000), so a
    round number typed in millimetres is the nearest double to the metres it means."""
    m = _NUMBER.match(text or "")
    if not m:
        return None
    value = float(m.group(1))
    unit = m.group(2).strip() or default
    if units is None:
        return value if not unit or unit == default else None
    if unit not in units:
        return None
    factor = units[unit]
    return value / factor if factor != 1.0 else value


class DocumentUndo(QObject):
    """Lets Ctrl+Z / Ctrl+Shift+Z through a line edit to the window's Undo and Redo: every keystroke in a
    field is already an edit of the rig (merged per field), so the document's undo is the field's undo."""

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.ShortcutOverride and (
                event.matches(QKeySequence.Undo) or event.matches(QKeySequence.Redo)):
            event.ignore()
            return True
        return False


UNDO_PASS = DocumentUndo()


def pass_undo(edit: QWidget) -> QWidget:
    edit.installEventFilter(UNDO_PASS)
    return edit


class Field(QWidget):
    """The base of every field: the editor in a row, a message line under it (hidden when empty)."""

    committed = Signal()

    def __init__(self, path: str, parent=None):
        super().__init__(parent)
        self.path = path
        self.commit = None  # callable(value), set by the form
        self.exact = False  # findings of its own path only (see Form.add)
        self.read = None  # callable(rig) -> value, set by the form
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(1)
        self.row = QHBoxLayout()
        self.row.setSpacing(4)
        self._layout.addLayout(self.row)
        self.message = QLabel(self)
        self.message.setWordWrap(True)
        message(self.message)
        self.message.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.message.hide()
        self._layout.addWidget(self.message)
        self._finding = ""
        self._parse_error = ""

    # -- to override ---------------------------------------------------------------------------------
    def editors(self) -> list[QWidget]:
        return []

    def show_value(self, value) -> None: ...

    # -- shared --------------------------------------------------------------------------------------
    def editing(self) -> bool:
        return any(e.hasFocus() for e in self.editors())

    def showEvent(self, event) -> None:
        for e in self.editors():
            pass_undo(e)
        super().showEvent(event)

    def refresh(self, rig, force: bool = False) -> None:
        if self.read is None or (self.editing() and not force):
            return
        try:
            value = self.read(rig)
        except (KeyError, AttributeError, IndexError):
            return
        for e in self.editors():
            e.blockSignals(True)
        try:
            self.show_value(value)
        finally:
            for e in self.editors():
                e.blockSignals(False)
        self._parse_error = ""
        self._show_message()

    def set_finding(self, text: str) -> None:
        self._finding = text
        self._show_message()

    def set_parse_error(self, text: str) -> None:
        self._parse_error = text
        self._show_message()

    def _show_message(self) -> None:
        text = self._parse_error or self._finding
        self.message.setText(text)
        self.message.setVisible(bool(text))
        for e in self.editors():
            mark_error(e, bool(text))

    def focus(self) -> None:
        editors = self.editors()
        if editors:
            editors[0].setFocus(Qt.OtherFocusReason)
            if isinstance(editors[0], QLineEdit):
                editors[0].selectAll()

    def _commit(self, value) -> None:
        if self.commit is not None:
            self.commit(value)
            self.committed.emit()


def _unit_label(text: str, parent) -> QLabel:
    label = QLabel(text, parent)
    hint(label)
    label.setMinimumWidth(28)
    return label


class TextField(Field):
    """Text committed on Enter or focus-out (a name, a file path): every keystroke would be a new name."""

    def __init__(self, path: str, parent=None, placeholder: str = ""):
        super().__init__(path, parent)
        self.edit = QLineEdit(self)
        self.edit.setMinimumWidth(60)
        self.edit.setPlaceholderText(placeholder)
        self.edit.editingFinished.connect(self._finished)
        self.row.addWidget(self.edit)

    def editors(self):
        return [self.edit]

    def show_value(self, value) -> None:
        self.edit.setText("" if value is None else str(value))
        self.edit.setCursorPosition(0)  # a long path or name shows its start

    def _finished(self) -> None:
        if self.edit.isModified():
            self.edit.setModified(False)
            self._commit(self.edit.text())


class NumberField(Field):
    """A number in one unit (``s``, ``rad``, ``kg·m²``) or, with ``lengths``, a length in the form's unit;
    committed at every keystroke that parses."""

    def __init__(self, path: str, unit: str = "", parent=None, lengths=None):
        super().__init__(path, parent)
        self.unit = unit
        self.lengths = lengths  # a LengthUnit, or None
        self.edit = QLineEdit(self)
        self.edit.setMinimumWidth(60)
        self.edit.textEdited.connect(self._edited)
        self.row.addWidget(self.edit)
        self.unit_label = _unit_label(self._unit_text(), self)
        self.row.addWidget(self.unit_label)
        self._value = None
        self.optional = False  # empty text commits None (an entry removed)

    def _unit_text(self) -> str:
        return self.lengths.unit if self.lengths is not None else self.unit

    def editors(self):
        return [self.edit]

    def show_value(self, value) -> None:
        self._value = value
        self.unit_label.setText(self._unit_text())
        if value is None:
            self.edit.setText("")
        elif self.lengths is not None:
            self.edit.setText(format_number(value * self.lengths.factor))
        else:
            self.edit.setText(format_number(value))

    def parse(self, text: str) -> float | None:
        if self.lengths is not None:
            return parse_number(text, LENGTH_UNITS, self.lengths.unit)
        return parse_number(text, None, self.unit)

    def _edited(self, text: str) -> None:
        if self.optional and not text.strip():
            self.set_parse_error("")
            self._commit(None)
            return
        value = self.parse(text)
        if value is None:
            self.set_parse_error(f"not a number{' of ' + self._unit_text() if self._unit_text() else ''} yet")
            return
        self.set_parse_error("")
        self._commit(value)


class VectorField(Field):
    """Three numbers (a position in the form's length unit, a direction, angles in degrees); a keystroke
    that parses commits the whole vector."""

    def __init__(self, path: str, unit: str = "", parent=None, lengths=None, labels=("x", "y", "z")):
        super().__init__(path, parent)
        self.unit = unit
        self.lengths = lengths
        self.edits = []
        for index, label in enumerate(labels):
            tag = QLabel(label, self)
            hint(tag)
            self.row.addWidget(tag)
            e = QLineEdit(self)
            e.setMinimumWidth(36)
            e.textEdited.connect(lambda text, i=index: self._edited(i, text))
            self.row.addWidget(e, 1)
            self.edits.append(e)
        self.unit_label = _unit_label(self._unit_text(), self)
        self.row.addWidget(self.unit_label)
        self._value = (0.0,) * len(labels)

    def _unit_text(self) -> str:
        return self.lengths.unit if self.lengths is not None else self.unit

    def editors(self):
        return list(self.edits)

    def show_value(self, value) -> None:
        self._value = tuple(float(v) for v in value)
        self.unit_label.setText(self._unit_text())
        factor = self.lengths.factor if self.lengths is not None else 1.0
        for e, v in zip(self.edits, self._value, strict=True):
            e.setText(format_number(v * factor))

    def _edited(self, index: int, text: str) -> None:
        """The typed component replaces its own; the others keep their stored value (not the rounded text
        shown)."""
        if self.lengths is not None:
            v = parse_number(text, LENGTH_UNITS, self.lengths.unit)
        else:
            v = parse_number(text, None, self.unit)
        if v is None:
            self.set_parse_error(f"a number{' of ' + self._unit_text() if self._unit_text() else ''}")
            return
        self.set_parse_error("")
        values = list(self._value)
        values[index] = v
        self._value = tuple(values)
        self._commit(self._value)


class ChoiceField(Field):
    """One of a list (a material, a mount frame, a kind): ``choices`` are ``(text, value)`` pairs."""

    def __init__(self, path: str, parent=None, editable: bool = False):
        super().__init__(path, parent)
        self.combo = QComboBox(self)
        self.combo.setEditable(editable)
        self.combo.setInsertPolicy(QComboBox.NoInsert)
        self.combo.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.combo.setMinimumContentsLength(8)
        self.combo.activated.connect(self._activated)
        self.row.addWidget(self.combo, 1)
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        hint(self.note)
        self.note.hide()
        self._layout.insertWidget(1, self.note)
        self._values: list = []

    def editors(self):
        return [self.combo]

    def editing(self) -> bool:
        return self.combo.view().isVisible()

    def set_choices(self, choices) -> None:
        with QSignalBlocker(self.combo):
            self.combo.clear()
            self._values = []
            for text, value in choices:
                self.combo.addItem(text)
                self._values.append(value)

    def show_value(self, value) -> None:
        if value in self._values:
            self.combo.setCurrentIndex(self._values.index(value))
        else:  # a value the list does not hold (a dangling mount): shown as written
            self.combo.addItem(f"{value} (not found)")
            self._values.append(value)
            self.combo.setCurrentIndex(self.combo.count() - 1)

    def set_note(self, text: str) -> None:
        self.note.setText(text)
        self.note.setVisible(bool(text))

    def value(self):
        i = self.combo.currentIndex()
        return self._values[i] if 0 <= i < len(self._values) else None

    def _activated(self, index: int) -> None:
        if 0 <= index < len(self._values):
            self._commit(self._values[index])


class QuantityField(Field):
    """A declared value: the number in its unit and the reason it has that value. Either one typed commits
    the whole :class:`~mime_gui.rig.units.Quantity` (the number at every keystroke that parses, the reason
    as it is typed)."""

    def __init__(self, path: str, unit: str, parent=None, placeholder: str = "where the number comes from"):
        super().__init__(path, parent)
        self.unit = unit
        self.value_edit = QLineEdit(self)
        self.value_edit.setMinimumWidth(60)
        self.value_edit.textEdited.connect(self._value_edited)
        self.row.addWidget(self.value_edit, 1)
        self.row.addWidget(_unit_label(UNITS.get(unit, unit), self))
        self.reason_edit = QLineEdit(self)  # on a line of its own: a reason is a sentence
        self.reason_edit.setMinimumWidth(60)
        self.reason_edit.setPlaceholderText(placeholder)
        self.reason_edit.textEdited.connect(self._reason_edited)
        reason = QHBoxLayout()
        reason.setSpacing(4)
        reason.addWidget(_unit_label("reason", self))
        reason.addWidget(self.reason_edit, 1)
        self._layout.insertLayout(1, reason)
        self._number: float | None = None

    def editors(self):
        return [self.value_edit, self.reason_edit]

    def show_value(self, value) -> None:
        if isinstance(value, Quantity):
            self._number = value.value
            self.value_edit.setText(format_number(value.value))
            self.reason_edit.setText(value.reason or "")
            self.reason_edit.setCursorPosition(0)
        else:  # a bare number (loaded from a file): shown, and the rules ask for its unit
            self._number = None if value is None else float(value)
            self.value_edit.setText("" if value is None else format_number(float(value)))
            self.reason_edit.setText("")

    def _value_edited(self, text: str) -> None:
        value = parse_number(text)
        if value is None:
            self.set_parse_error(f"the value is a number of {UNITS.get(self.unit, self.unit)}")
            return
        self._number = value
        self._commit_quantity()

    def _reason_edited(self, _text: str) -> None:
        if self._number is None:
            self.set_parse_error(f"give the value (a number of {UNITS.get(self.unit, self.unit)}) first")
            return
        self._commit_quantity()

    def _commit_quantity(self) -> None:
        self.set_parse_error("")
        reason = self.reason_edit.text()
        self._commit(Quantity(self._number, self.unit, reason if reason.strip() else None))


class LengthUnit:
    """The unit a form shows lengths in (``mm`` or ``m``); stored values are always metres."""

    def __init__(self, unit: str = "mm"):
        self.unit = unit

    @property
    def factor(self) -> float:
        return LENGTH_UNITS[self.unit]


__all__ = ["ChoiceField", "Field", "LengthUnit", "NumberField", "QuantityField", "TextField", "VectorField",
           "format_number", "parse_number"]
