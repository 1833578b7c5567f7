"""How the assembling docks mark text: hints in grey, messages and errors in red, titles in bold, a field
that breaks a rule on a pink ground. Palettes and fonts, not style sheets: a form is built at every
selection, and a style sheet per widget costs a style pass each (style sheets were a tenth of a drop)."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QHeaderView, QLabel, QTreeWidget, QVBoxLayout, QWidget

HINT = QColor("#5f6b7a")
BAD = QColor("#b3261e")
OK = QColor("#1e7d4f")
ERROR_GROUND = QColor("#ffe4e6")


def _text(widget: QWidget, colour: QColor | None) -> QWidget:
    pal = widget.palette()
    if colour is None:
        pal = QPalette()
    else:
        pal.setColor(QPalette.WindowText, colour)
        pal.setColor(QPalette.Text, colour)
    widget.setPalette(pal)
    return widget


def hint(widget: QWidget) -> QWidget:
    return _text(widget, HINT)


def message(widget: QWidget) -> QWidget:
    return _text(widget, BAD)


def bold(widget: QWidget, on: bool = True) -> QWidget:
    font = widget.font()
    if font.bold() != on:
        font.setBold(on)
        widget.setFont(font)
    return widget


def title(widget: QWidget) -> QWidget:
    bold(widget)
    widget.setContentsMargins(0, 6, 0, 0)
    return widget


def status(widget: QWidget, kind: str) -> QWidget:
    """``ok`` (green, bold), ``bad`` (red, bold), ``hint`` (grey) or '' (plain)."""
    _text(widget, {"ok": OK, "bad": BAD, "hint": HINT}.get(kind))
    return bold(widget, kind in ("ok", "bad"))


def mark_error(widget: QWidget, on: bool) -> None:
    """A pink ground under an editor whose value breaks a rule (or does not parse); changed only when the
    state changes."""
    if bool(widget.property("marked")) == on:
        return
    widget.setProperty("marked", on)
    pal = widget.palette()
    if on:
        pal.setColor(QPalette.Base, ERROR_GROUND)
        pal.setColor(QPalette.Button, ERROR_GROUND)
    else:
        default = QPalette()
        pal.setColor(QPalette.Base, default.color(QPalette.Base))
        pal.setColor(QPalette.Button, default.color(QPalette.Button))
    widget.setPalette(pal)


def table_body(dock, headers: list[str], fit: int) -> tuple[QWidget, QVBoxLayout, QLabel, QTreeWidget]:
    """A report dock's body: a wrapped line over a tree with ``headers``, its first ``fit`` columns sized to
    their contents and the last stretched. The caller adds the two to the layout, with what goes between."""
    body = QWidget(dock)
    layout = QVBoxLayout(body)
    layout.setContentsMargins(4, 4, 4, 4)
    line = QLabel(body)
    line.setWordWrap(True)
    tree = QTreeWidget(body)
    tree.setColumnCount(len(headers))
    tree.setHeaderLabels(headers)
    tree.setIndentation(12)
    header = tree.header()
    for col in range(fit):
        header.setSectionResizeMode(col, QHeaderView.ResizeToContents)
    header.setStretchLastSection(True)
    return body, layout, line, tree
