"""The Edit menu's Undo and Redo: actions that mirror the Session's headless history.

The history itself lives in :class:`~mime_gui.session.history.History` (tested without Qt); these actions
only call ``Session.undo``/``redo`` and follow ``history_changed`` for their text and enabled state. Every
editor of the window that takes the focus (a form's line edit, a joint's spin box, an editable combo) lets
Ctrl+Z and Ctrl+Shift+Z through to them, so undo works wherever the focus is; a name being typed keeps Qt's
own text undo first (see :class:`~mime_gui.app.docks.fields.DocumentUndo`).
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QComboBox, QLineEdit

from mime_gui.app.docks.fields import pass_undo
from mime_gui.session import Session, SessionError

#: editors that take Ctrl+Z for their own text unless told otherwise
EDITORS = (QLineEdit, QAbstractSpinBox, QComboBox)


class _FocusFollower(QObject):
    """Hands every editor of ``window`` that takes the focus to the document's undo (a child of the window,
    so the connection to the application ends with it)."""

    def __init__(self, window):
        super().__init__(window)
        self._window = window
        QApplication.instance().focusChanged.connect(self._focus_changed)

    def _focus_changed(self, _old, new) -> None:
        if isinstance(new, EDITORS) and new.window() is self._window:
            pass_undo(new)


class UndoActions:
    def __init__(self, session: Session, bridge, parent):
        self.session = session
        self.undo = QAction("&Undo", parent)
        self.undo.setShortcut(QKeySequence.Undo)
        self.undo.triggered.connect(self._undo)
        self.redo = QAction("&Redo", parent)
        self.redo.setShortcuts([QKeySequence.Redo, QKeySequence("Ctrl+Y")])
        self.redo.triggered.connect(self._redo)
        bridge.history_changed.connect(self.refresh)
        bridge.document_changed.connect(lambda _doc: self.refresh())
        self._focus = _FocusFollower(parent)
        self.refresh()

    def _undo(self) -> None:
        try:
            self.session.undo()
        except SessionError:  # emitted by the Session: the window shows it
            pass

    def _redo(self) -> None:
        try:
            self.session.redo()
        except SessionError:
            pass

    def refresh(self) -> None:
        history = self.session.history
        self.undo.setEnabled(history.can_undo)
        self.redo.setEnabled(history.can_redo)
        self.undo.setText(f"&Undo {history.undo_name}" if history.can_undo else "&Undo")
        self.redo.setText(f"&Redo {history.redo_name}" if history.can_redo else "&Redo")
