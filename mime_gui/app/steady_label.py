"""A label whose text changes with every frame (a time, a count, a distance) without laying the window out.

A widget whose size can change asks its parent's layout to be redone at each new text, and up the chain to
the window: the widgets beside it move, the window's layout runs (animated, with docks) and the whole window
is repainted once more after the frame that changed the text. A steady label has a fixed size that only
widens, when a text does not fit, and then with room for two more digits (a count that grows a digit
does not widen it each time): once its widest text has been shown, a new text repaints the label alone, in
the frame's own repaint."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel


class SteadyLabel(QLabel):
    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        super().setText(text)
        hint = self.sizeHint()
        width = self.minimumWidth()
        if hint.width() > width:
            width = hint.width() + self.fontMetrics().horizontalAdvance("00")
        if (width, hint.height()) != (self.maximumWidth(), self.maximumHeight()) or \
                (self.minimumWidth(), self.minimumHeight()) != (width, hint.height()):
            self.setFixedSize(width, hint.height())


__all__ = ["SteadyLabel"]
