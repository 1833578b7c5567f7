"""A readout line under a live plot: its text changes with every frame, the window's layout does not.

A label asks its parent's layout to be redone whenever its text is set, and each layout done asks the one
above it, up to the window: the window's layout runs again (its docks' geometry animated) and the whole
window is repainted once more after the frame that set the text. The readout holds its label in a widget
without a layout, which takes that request and stops it; the readout asks for a layout itself only when its
height changes (a text of another number of lines). Its width is the layout's to give (a long line is
clipped in a narrow dock, the whole of it in the tooltip), never the text's. A readout that leads with a name
(:meth:`Readout.set_named`: a frame's, often long) shortens that name in the middle to keep its numbers in
view, again when the dock is resized."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget


class Readout(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.label = QLabel(self)
        self.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Fixed)
        self._height = self.label.sizeHint().height()
        self._named: tuple[str, str, str] | None = None  # (name, rest of its line, next line)

    def set_named(self, name: str, first: str, second: str = "") -> None:
        """``<b>name</b>: first`` and, below it, ``second`` (plain text); ``name`` shortened in the middle
        (…) when the first line would not fit the readout's width."""
        self._named = (name, first, second)
        self._set(self._named_text())

    def _named_text(self) -> str:
        name, first, second = self._named
        bold = QFont(self.label.font())
        bold.setBold(True)
        room = self.width() - QFontMetrics(self.label.font()).horizontalAdvance(": " + first) - 4
        shown = QFontMetrics(bold).elidedText(name, Qt.ElideMiddle, max(room, 0)) if room > 0 else "…"
        return f"<b>{escape(shown or '…')}</b>: {escape(first)}" + (f"<br>{escape(second)}" if second else "")

    def setText(self, text: str) -> None:  # noqa: N802 - QLabel's names
        self._named = None
        self._set(text)

    def _set(self, text: str) -> None:
        self.label.setText(text)
        height = self.label.sizeHint().height()
        if height != self._height:
            self._height = height
            self.updateGeometry()

    def text(self) -> str:
        return self.label.text()

    def setToolTip(self, text: str) -> None:  # noqa: N802
        super().setToolTip(text)
        self.label.setToolTip(text)

    def setTextInteractionFlags(self, flags) -> None:  # noqa: N802
        self.label.setTextInteractionFlags(flags)

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(0, self._height)

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(0, self._height)

    def resizeEvent(self, event) -> None:  # noqa: N802
        if self._named is not None and event.size().width() != event.oldSize().width():
            self.label.setText(self._named_text())
        self.label.setGeometry(0, 0, max(self.width(), self.label.sizeHint().width()), self.height())
        super().resizeEvent(event)


__all__ = ["Readout"]
