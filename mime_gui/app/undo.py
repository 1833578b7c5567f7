"""The Edit menu's Undo and Redo: actions that mirror the Session's headless history.

The history itself lives in :class:`~mime_gui.session.history.History` (tested without Qt); these actions
only call ``Session.undo``/``redo`` and follow ``history_changed`` for their text and enabled state.
"""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence

from mime_gui.session import Session, SessionError


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
