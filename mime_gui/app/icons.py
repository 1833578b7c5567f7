"""Small drawn icons, one per item kind, so the tree reads at a glance without image files."""

from __future__ import annotations

from functools import cache

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QIcon, QPainter, QPen, QPixmap, QPolygonF

COLOURS = {
    "segment": "#5b6b82",
    "link": "#4f8fd6",
    "joint": "#e5892b",
    "fixed": "#8d949c",
    "frame": "#3aa776",
    "part": "#9a6fd0",
    "magnet": "#d2475a",
    "probe": "#299e52",
    "sample": "#1aa9c4",
    "zone": "#e0503a",
    "group": "#8d949c",
    "used": "#3aa776",
    "ignored": "#d9a21b",
    "refused": "#d2475a",
    "warning": "#e5892b",
    "path": "#8d949c",
}


def _pixmap(size: int = 32) -> tuple[QPixmap, QPainter]:
    pm = QPixmap(size, size)
    pm.fill(Qt.transparent)
    p = QPainter(pm)
    p.setRenderHint(QPainter.Antialiasing)
    return pm, p


@cache
def kind_icon(kind: str) -> QIcon:
    """An icon per kind: ``segment``, ``link``, ``joint``, ``fixed``, ``frame``, ``part``, ``magnet``…"""
    colour = QColor(COLOURS.get(kind, "#8d949c"))
    pm, p = _pixmap()
    pen = QPen(colour.darker(140), 2.0)
    p.setPen(pen)
    p.setBrush(QBrush(colour))
    if kind == "link":  # a rounded bar: a rigid body
        p.drawRoundedRect(QRectF(4, 9, 24, 14), 4, 4)
    elif kind in ("joint", "fixed"):  # a hinge: ring with a pin
        p.setBrush(Qt.NoBrush if kind == "joint" else QBrush(colour))
        p.setPen(QPen(colour, 4.0))
        p.drawEllipse(QRectF(6, 6, 20, 20))
        p.setPen(Qt.NoPen)
        p.setBrush(QBrush(colour.darker(150)))
        p.drawEllipse(QRectF(12, 12, 8, 8))
    elif kind == "frame":  # a triad
        for dx, dy, c in ((22, 0, "#d2475a"), (0, -22, "#3aa776"), (-12, 10, "#4f8fd6")):
            p.setPen(QPen(QColor(c), 3.0, Qt.SolidLine, Qt.RoundCap))
            p.drawLine(QPointF(11, 21), QPointF(11 + dx * 0.85, 21 + dy * 0.85))
    elif kind == "segment":  # a stack: a chain of bodies
        for i in range(3):
            p.drawRoundedRect(QRectF(5 + 3 * i, 4 + 8 * i, 18, 7), 2, 2)
    elif kind == "magnet":
        p.setPen(QPen(colour, 6.0, Qt.SolidLine, Qt.FlatCap))
        p.drawArc(QRectF(7, 4, 18, 20), 180 * 16, 180 * 16)
        p.drawLine(QPointF(7, 14), QPointF(7, 27))
        p.drawLine(QPointF(25, 14), QPointF(25, 27))
    elif kind == "part":
        p.drawPolygon(QPolygonF([QPointF(16, 3), QPointF(29, 10), QPointF(29, 23), QPointF(16, 29),
                                 QPointF(3, 23), QPointF(3, 10)]))
    elif kind == "probe":  # a sensing point: a dot in a ring, with a crosshair
        p.setBrush(Qt.NoBrush)
        p.drawEllipse(QRectF(6, 6, 20, 20))
        p.drawLine(QPointF(16, 2), QPointF(16, 30))
        p.drawLine(QPointF(2, 16), QPointF(30, 16))
        p.setBrush(QBrush(colour))
        p.drawEllipse(QRectF(12, 12, 8, 8))
    elif kind == "sample":  # a bead with its moment: a ball and an arrow through it
        p.drawEllipse(QRectF(8, 8, 16, 16))
        p.setPen(QPen(colour.darker(160), 3.0, Qt.SolidLine, Qt.RoundCap))
        p.drawLine(QPointF(6, 26), QPointF(26, 6))
        p.drawLine(QPointF(26, 6), QPointF(18, 7))
        p.drawLine(QPointF(26, 6), QPointF(25, 14))
    elif kind == "zone":  # a place to keep out of: a dashed ring with a bar across
        p.setBrush(Qt.NoBrush)
        p.setPen(QPen(colour, 3.0, Qt.DashLine))
        p.drawEllipse(QRectF(4, 4, 24, 24))
        p.setPen(QPen(colour, 4.0, Qt.SolidLine, Qt.RoundCap))
        p.drawLine(QPointF(10, 16), QPointF(22, 16))
    elif kind == "warning":
        p.drawPolygon(QPolygonF([QPointF(16, 3), QPointF(30, 28), QPointF(2, 28)]))
        p.setPen(QPen(QColor("white"), 3.0))
        p.drawLine(QPointF(16, 11), QPointF(16, 20))
        p.drawPoint(QPointF(16, 24))
    elif kind == "path":
        p.setBrush(Qt.NoBrush)
        p.drawLine(QPointF(8, 6), QPointF(8, 16))
        p.drawLine(QPointF(8, 16), QPointF(22, 16))
    else:  # report groups and anything else: a dot
        p.drawEllipse(QRectF(8, 8, 16, 16))
    p.end()
    return QIcon(pm)
