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
import weakref
from decimal import Context, Decimal

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
from mime_gui.rig.typed_units import parse_typed
from mime_gui.rig.units import UNITS, Quantity

LENGTH_UNITS = {"mm": 1000.0, "m": 1.0}


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


def format_scaled(value: float, factor: float, digits: int = 6) -> str:
    """``value`` shown in a unit ``factor`` times smaller: exact where the product passes the largest double
    (1e308 m is 1e+311 mm, not inf)."""
    shown = value * factor
    if math.isfinite(value) and not math.isfinite(shown):
        return format(Context(prec=digits).plus(Decimal(value) * Decimal(factor)).normalize(), "g")
    return format_number(shown, digits)


def format_vector(values, digits: int = 4) -> str:
    """Components at one precision, the vector's: each rounded at the place of the largest one's last
    significant digit, so (1.4e-10, 2.4e-09, 1263) reads "0, 0, 1263" (a pose's float noise is no digit
    of it)."""
    values = [float(v) for v in values]
    finite = [abs(v) for v in values if math.isfinite(v)]
    scale = max(finite, default=0.0)
    if scale == 0.0:
        return ", ".join(format_number(v, digits) for v in values)
    places = digits - 1 - math.floor(math.log10(scale))
    return ", ".join(format_number(round(v, places) if math.isfinite(v) else v, digits) for v in values)


def format_scaled_vector(values, factor: float, digits: int = 4) -> str:
    """:func:`format_vector` of ``values`` shown in a unit ``factor`` times smaller; a component the product
    takes past the largest double is written exactly (:func:`format_scaled`)."""
    values = [float(v) for v in values]
    shown = [v * factor for v in values]
    if all(math.isfinite(s) or not math.isfinite(v) for v, s in zip(values, shown, strict=True)):
        return format_vector(shown, digits)
    return ", ".join(format_scaled(v, factor, digits) for v in values)


def parse_number(text: str, unit: str = "") -> float | None:
    """``text`` as a number in ``unit`` (a unit of the same dimension typed after it is converted: ``5 in``
    in a millimetre field is 127), or None when the whole text is not one (see
    :func:`~mime_gui.rig.typed_units.parse_typed`)."""
    return parse_typed(text, unit)


def parse_length(text: str, lengths: LengthUnit) -> float | None:
    """A length typed in the form's unit (or with a unit of its own), in metres. Divided by the unit's
    factor, so a round number typed in millimetres is the nearest double to the metres it means."""
    value = parse_typed(text, lengths.unit)
    if value is None:
        return None
    return value / lengths.factor if lengths.factor != 1.0 else value


class DocumentUndo(QObject):
    """Lets Ctrl+Z / Ctrl+Shift+Z through an editor (a line edit, a spin box, an editable combo) to the
    window's Undo and Redo: every keystroke in a field is already an edit of the rig (merged per field), so
    the document's undo is the field's undo. A text being edited (a name typed and not yet committed) keeps
    Qt's own text undo while it has some."""

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.ShortcutOverride and (
                event.matches(QKeySequence.Undo) or event.matches(QKeySequence.Redo)):
            if isinstance(watched, QLineEdit) and watched.property(TEXT_UNDO) and watched.isModified() \
                    and watched.isUndoAvailable():
                return False
            event.ignore()
            return True
        return False


UNDO_PASS = DocumentUndo()
#: a line edit whose text is committed on Enter (a name): Ctrl+Z undoes its typing first
TEXT_UNDO = "mime_text_undo"


def pass_undo(edit: QWidget) -> QWidget:
    edit.installEventFilter(UNDO_PASS)
    return edit


class _Typing:
    """Which editor committed last: an entry into another editor starts an undo step of its own (the
    history merges consecutive edits of one rig path, and the x, y and z of a vector share a path)."""

    last = None  # weak reference to the editor


def new_entry(editor: QWidget) -> bool:
    """True when ``editor`` is not the one that committed last (and it is now)."""
    last = _Typing.last() if _Typing.last is not None else None
    _Typing.last = weakref.ref(editor)
    return last is not editor


class Field(QWidget):
    """The base of every field: the editor in a row, a message line under it (hidden when empty).

    A field shows the rig after every change set (an undo, a redo, another file, another field's edit),
    whether or not it has the focus; only the change its own keystroke made leaves its text alone (the
    text is what the user is typing). A text that is not a whole value is never stored: the field puts
    back the value it showed before the typing began and marks the text."""

    committed = Signal()

    def __init__(self, path: str, parent=None):
        super().__init__(parent)
        self.path = path
        self.commit = None  # callable(value), set by the form
        self.exact = False  # findings of its own path only (see Form.add)
        self.read = None  # callable(rig) -> value, set by the form
        self.source = None  # callable() -> the rig now, set by the form
        self.seal = None  # callable(): the next edit is an undo step of its own, set by the form
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
        self._committing = False
        self._origin = None  # the value shown before the typing began (put back for a text that is no value)

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

    def current(self):
        """The value stored in the rig now (None when it cannot be read)."""
        if self.read is None or self.source is None:
            return None
        rig = self.source()
        if rig is None:
            return None
        try:
            return self.read(rig)
        except (KeyError, AttributeError, IndexError):
            return None

    def refresh(self, rig, force: bool = False) -> None:
        if self.read is None or (self._committing and not force):
            return
        try:
            value = self.read(rig)
        except (KeyError, AttributeError, IndexError):
            return
        self._origin = value
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

    def _commit(self, value, editor: QWidget | None = None) -> None:
        if self.commit is None:
            return
        if editor is not None and new_entry(editor) and self.seal is not None:
            self.seal()
        self._committing = True
        try:
            self.commit(value)
        finally:
            self._committing = False
        self.committed.emit()

    def _put_back(self, value, editor: QWidget | None = None) -> None:
        """A text that is no value: the rig goes back to what the field showed before the typing (when a
        prefix of the text had been stored), and the text stays for the user to fix."""
        if value is not None and self.current() != value:
            self._commit(value, editor)


def _same_text(edit: QLineEdit, text: str, value: float, parse) -> None:
    """Show ``text`` unless the editor's own text already means ``value`` (a focused field keeps the
    user's ``5.0`` and its cursor when the rig holds 5)."""
    if edit.text() != text and parse(edit.text()) != value:
        edit.setText(text)


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
        self.edit.setProperty(TEXT_UNDO, True)
        self.edit.editingFinished.connect(self._finished)
        self.row.addWidget(self.edit)

    def editors(self):
        return [self.edit]

    def show_value(self, value) -> None:
        text = "" if value is None else str(value)
        if self.edit.text() != text:
            self.edit.setText(text)
            self.edit.setCursorPosition(0)  # a long path or name shows its start
        self.edit.setModified(False)

    def _finished(self) -> None:
        if self.edit.isModified():
            self.edit.setModified(False)
            self._commit(self.edit.text(), self.edit)


class NumberField(Field):
    """A number in one unit (``s``, ``rad``, ``kg·m²``) or, with ``lengths``, a length in the form's unit;
    committed at every keystroke that makes the whole text a value (a unit of the same dimension may follow
    the number: ``5 in``, ``3 cm``, ``90 deg``)."""

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
            if self.edit.text():
                self.edit.setText("")
            return
        factor = self.lengths.factor if self.lengths is not None else 1.0
        _same_text(self.edit, format_scaled(value, factor), value, self.parse)

    def parse(self, text: str) -> float | None:
        if self.lengths is not None:
            return parse_length(text, self.lengths)
        return parse_number(text, self.unit)

    def _edited(self, text: str) -> None:
        if self.optional and not text.strip():
            self.set_parse_error("")
            if self.current() is not None:  # an entry not there is not removed again
                self._commit(None, self.edit)
            return
        value = self.parse(text)
        if value is None:
            unit = self._unit_text()
            self.set_parse_error(f"not a number{' of ' + unit if unit else ''}")
            if self.optional and self._origin is None:  # it showed "not set": a stored prefix is removed
                if self.current() is not None:
                    self._commit(None, self.edit)
            else:
                self._put_back(self._origin, self.edit)
            return
        self.set_parse_error("")
        self._commit(value, self.edit)


class VectorField(Field):
    """Three numbers (a position in the form's length unit, a direction, angles in degrees); a keystroke
    that makes its component's whole text a value commits the vector with that component replaced."""

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

    def parse(self, text: str) -> float | None:
        if self.lengths is not None:
            return parse_length(text, self.lengths)
        return parse_number(text, self.unit)

    def show_value(self, value) -> None:
        self._value = tuple(float(v) for v in value)
        self.unit_label.setText(self._unit_text())
        factor = self.lengths.factor if self.lengths is not None else 1.0
        for e, v in zip(self.edits, self._value, strict=True):
            _same_text(e, format_scaled(v, factor), v, self.parse)

    def _edited(self, index: int, text: str) -> None:
        """The typed component replaces its own in the vector the rig holds now: the others are what their
        own editors show (the stored values, not their rounded text)."""
        v = self.parse(text)
        stored = self.current()
        values = list(stored if stored is not None else self._value)
        edit = self.edits[index]
        if v is None:
            unit = self._unit_text()
            self.set_parse_error(f"a number{' of ' + unit if unit else ''}")
            origin = self._origin
            if origin is not None and stored is not None and values[index] != origin[index]:
                values[index] = origin[index]
                self._value = tuple(values)
                self._commit(self._value, edit)
            return
        self.set_parse_error("")
        values[index] = v
        self._value = tuple(values)
        self._commit(self._value, edit)


class ChoiceField(Field):
    """One of a list (a material, a mount frame, a kind): ``choices`` are ``(text, value)`` pairs; with
    ``options`` (a callable of the rig) the list follows the rig on every refresh."""

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
        self._choices: list = []
        self.options = None  # callable(rig) -> choices, or None for a fixed list

    def editors(self):
        return [self.combo]

    def editing(self) -> bool:
        return self.combo.view().isVisible()

    def refresh(self, rig, force: bool = False) -> None:
        if self.options is not None and not self._committing:
            try:
                self.set_choices(self.options(rig))
            except (KeyError, AttributeError, IndexError):
                pass
        super().refresh(rig, force)

    def set_choices(self, choices) -> None:
        choices = list(choices)
        if choices == self._choices:
            return
        with QSignalBlocker(self.combo):
            self.combo.clear()
            self._values = []
            for text, value in choices:
                self.combo.addItem(text)
                self._values.append(value)
        self._choices = choices

    def show_value(self, value) -> None:
        count = len(self._choices)
        while self.combo.count() > count:  # an earlier value the list does not hold
            self.combo.removeItem(self.combo.count() - 1)
        del self._values[count:]
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
            self._commit(self._values[index], self.combo)


class QuantityField(Field):
    """A declared value: the number in its unit and the reason it has that value. Either one typed commits
    the whole :class:`~mime_gui.rig.units.Quantity` (the number at every keystroke that makes the whole text
    a value, the reason as it is typed)."""

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

    def parse(self, text: str) -> float | None:
        return parse_number(text, self.unit)

    def show_value(self, value) -> None:
        if isinstance(value, Quantity):
            self._number = value.value
            _same_text(self.value_edit, format_number(value.value), value.value, self.parse)
            reason = value.reason or ""
            if self.reason_edit.text() != reason:
                self.reason_edit.setText(reason)
                self.reason_edit.setCursorPosition(0)
        else:  # a bare number (loaded from a file): shown, and the rules ask for its unit
            self._number = None if value is None else float(value)
            self.value_edit.setText("" if value is None else format_number(float(value)))
            self.reason_edit.setText("")

    def _value_edited(self, text: str) -> None:
        value = self.parse(text)
        if value is None:
            self.set_parse_error(f"the value is a number of {UNITS.get(self.unit, self.unit)}")
            self._put_back(self._origin, self.value_edit)
            return
        self._number = value
        self._commit_quantity(self.value_edit)

    def _reason_edited(self, _text: str) -> None:
        if self._number is None:
            self.set_parse_error(f"give the value (a number of {UNITS.get(self.unit, self.unit)}) first")
            return
        self._commit_quantity(self.reason_edit)

    def _commit_quantity(self, editor) -> None:
        self.set_parse_error("")
        reason = self.reason_edit.text()
        self._commit(Quantity(self._number, self.unit, reason if reason.strip() else None), editor)


class LengthUnit:
    """The unit a form shows lengths in (``mm`` or ``m``); stored values are always metres."""

    def __init__(self, unit: str = "mm"):
        self.unit = unit

    @property
    def factor(self) -> float:
        return LENGTH_UNITS[self.unit]


__all__ = ["ChoiceField", "Field", "LengthUnit", "NumberField", "QuantityField", "TextField", "VectorField",
           "format_number", "format_scaled", "format_scaled_vector", "format_vector", "parse_length",
           "parse_number"]
