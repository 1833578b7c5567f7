"""A combo box of long names (``segment.frame``) that shows the one chosen shortened in the middle when the
box is narrower than it, so both the segment and the frame stay readable (Qt clips the end off, the frame's
own name); the list it opens shows every name whole, and the tooltip the chosen one."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox, QStylePainter


class ElidingComboBox(QComboBox):
    def __init__(self, parent=None, tip: str = ""):
        super().__init__(parent)
        self._tip = tip
        # its width is the layout's, not its longest name's
        self.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(10)
        self._tipped: str | None = None  # the name the tooltip was made for
        self._tooltip()

    def _tooltip(self) -> None:
        # made when the box is drawn: its owner fills it with signals blocked
        text = self.currentText()
        if text != self._tipped:
            self._tipped = text
            self.setToolTip(f"{text}\n{self._tip}" if text and self._tip else text or self._tip)

    def shown_text(self) -> str:
        """The chosen name as the box draws it."""
        opt = QStyleOptionComboBox()
        self.initStyleOption(opt)
        room = self.style().subControlRect(QStyle.CC_ComboBox, opt, QStyle.SC_ComboBoxEditField, self).width()
        return self.fontMetrics().elidedText(self.currentText(), Qt.ElideMiddle, room)

    def paintEvent(self, _event) -> None:  # noqa: N802 - Qt's name
        self._tooltip()
        painter = QStylePainter(self)
        opt = QStyleOptionComboBox()
        self.initStyleOption(opt)
        opt.currentText = self.shown_text()
        painter.drawComplexControl(QStyle.CC_ComboBox, opt)
        painter.drawControl(QStyle.CE_ComboBoxLabel, opt)


__all__ = ["ElidingComboBox"]
