"""The 3D view's VTK widget: pyvistaqt's ``QtInteractor``, drawing each frame once.

pyvistaqt renders VTK into its own framebuffer on ``render()``, then, in the repaint that render schedules,
renders the whole scene a second time before copying it to the widget (it cannot know whether pyvista
changed the scene in between). Every change of our scene asks the render loop for a render, so the frame a
render leaves is the one to show: the repaint that follows it only copies it, as VTK's own C++ widget does.
A repaint with no render before it (the window uncovered, a resize, a camera drag handled by VTK) renders as
before. On a software renderer this halves the cost of every frame.

It also lets go of the GL context's surface when Qt deletes it. pyvistaqt keeps the surface's Python wrapper
(a ``QSurface``, which is no QObject, so the binding is never told of its deletion); a wrapper kept past its
object stays in the binding's address map, and the next Qt object made at that address comes back to Python
as that stale ``QSurface`` (a window's View menu did, and the window failed to build).
"""

from __future__ import annotations

import contextlib
from functools import partial

import shiboken6
from pyvistaqt import QtInteractor


def _release_surface(held: list, *_args) -> None:
    """Take the surface's wrapper out of the binding's map, without touching the (deleted) surface."""
    surface, held[0] = held[0], None
    if surface is not None:
        with contextlib.suppress(RuntimeError):
            shiboken6.invalidate(surface)


class Interactor(QtInteractor):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._fresh = False  # VTK's framebuffer holds a frame rendered since the last repaint
        self.frames_copied = 0  # repaints that showed a fresh frame without rendering it again (tests)
        self.ren_win.AddObserver("EndEvent", self._frame_done)
        # The surface goes with the context (re-made when the widget moves to another window) or with the
        # widget; neither slot may hold the widget itself, whose wrapper is dead by then.
        self._surface_held = [None]
        self.destroyed.connect(partial(_release_surface, self._surface_held))

    def initializeGL(self) -> None:
        super().initializeGL()
        ctx, surface = getattr(self, "_ctx", None), getattr(self, "_surface", None)
        if ctx is not None and surface is not None:
            self._surface_held[0] = surface
            # after pyvistaqt's own slot, which still makes the context current on this surface
            ctx.aboutToBeDestroyed.connect(partial(_release_surface, self._surface_held))

    def _frame_done(self, _obj, _event) -> None:
        # a render inside the repaint (pyvistaqt's own) is shown by that repaint: nothing left to copy
        self._fresh = not getattr(self, "_in_paint", True)

    def resizeGL(self, w: int, h: int) -> None:
        self._fresh = False  # the frame has the old size: the repaint renders again
        super().resizeGL(w, h)

    def paintGL(self) -> None:
        if not self._fresh or getattr(self, "_in_paint", None) is not False:
            super().paintGL()
            return
        # pyvistaqt skips its render while _in_paint is set (it guards against re-entry) and copies VTK's
        # framebuffer to the widget as usual
        self._fresh = False
        self.frames_copied += 1
        self._in_paint = True
        try:
            super().paintGL()
        finally:
            self._in_paint = False
