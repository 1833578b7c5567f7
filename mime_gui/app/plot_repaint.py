"""The window's plots repainted in the same compose as the 3D view's frame.

A pyqtgraph plot whose items change is repainted through Qt's graphics scene, which hands its views'
updates over in a queued call that also sends the window's pending repaint at once (QGraphicsView's pending
update requests are sent, not posted). A plot changed in the turn of a 3D render so had the whole window
composed once for the plot and once more for the frame; on a software GL renderer one compose of a large
window costs about as much as the render. After each render the scenes followed here have their queued
calls delivered at once: the window is composed once, showing the new frame and the plots together."""

from __future__ import annotations

import weakref

import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent


class PlotRepaint:
    def __init__(self):
        self._scenes = weakref.WeakSet()

    def follow(self, view) -> None:
        """Repaint the plots of ``view`` (a ``PlotWidget`` or ``GraphicsLayoutWidget``) with the frames."""
        self._scenes.add(view.scene())

    def flush(self) -> None:
        """Lay out what changed size and deliver the followed scenes' queued repaints now (after a render:
        see the module's text)."""
        # a label whose text changed this turn asks for a layout; done after the compose, it would repaint
        # the status bar (and so compose the window) once more
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        for scene in list(self._scenes):
            if shiboken6.isValid(scene):
                QCoreApplication.sendPostedEvents(scene, QEvent.Type.MetaCall)


__all__ = ["PlotRepaint"]
