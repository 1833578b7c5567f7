"""Rendering: requests coalesced into one render per event-loop turn (a playback that outruns the renderer
drops frames instead of queueing them), render times measured, the GL renderer detected after the first
render, and anti-aliasing (FXAA) on by default except on a software renderer.

A request posts an event of normal priority, so the render runs before Qt repaints the window (its repaint
requests are posted at low priority): the widgets that changed in the same turn and the new frame are shown
by one repaint of the window, not one before the render and one after. Just before rendering, the
``before_render`` hooks run (the pose events coalesced for the docks and the scene's marks), so what they
move is in this frame rather than in a second render; just after, the ``after_render`` hooks (the docks'
plots handed their repaints, so the window is composed once for the frame: app/plot_repaint.py)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QEvent, QObject

SOFTWARE_GL = ("llvmpipe", "softpipe", "swrast", "software rasterizer", "lavapipe")


_RENDER_EVENT = QEvent.Type(QEvent.registerEventType())


class _Poster(QObject):
    """Receives the render loop's posted event."""

    def __init__(self, parent, due: Callable[[], None]):
        super().__init__(parent)
        self._due = due

    def event(self, event) -> bool:
        if event.type() == _RENDER_EVENT:
            self._due()
            return True
        return super().event(event)


class RenderLoop:
    """``rendered(seconds)`` after every render; ``antialiasing_changed(on)`` when anti-aliasing changes, and
    once after detection even when it did not."""

    def __init__(self, plotter, parent, rendered: Callable[[float], None],
                 antialiasing_changed: Callable[[bool], None], antialiasing: bool | None = None):
        self.plotter = plotter
        self.rendered = rendered
        self.antialiasing_changed = antialiasing_changed
        self.render_count = 0
        self.last_render_seconds = 0.0
        self.gl_renderer = ""
        self.closed = False
        self.before_render: list[Callable[[], None]] = []
        self.after_render: list[Callable[[], None]] = []
        self._aa_requested = antialiasing
        self.aa = False
        self._pending = False  # a render event is posted and not yet handled
        self._poster = _Poster(parent, self._due)

    @property
    def pending(self) -> bool:
        return self._pending

    def request(self) -> None:
        if not self.closed and not self._pending:
            self._pending = True
            QCoreApplication.postEvent(self._poster, QEvent(_RENDER_EVENT))

    def render_now(self) -> None:
        self._pending = False  # the posted event, when it comes, finds nothing to do
        self._render()

    def stop(self) -> None:
        self.closed = True
        self._pending = False

    def _due(self) -> None:
        if not self._pending or self.closed:
            return
        for hook in self.before_render:
            hook()
        self._pending = False  # what the hooks asked for is in this render
        self._render()
        for hook in self.after_render:
            hook()

    def _render(self) -> None:
        if self.closed:
            return
        t0 = time.perf_counter()
        self.plotter.render()
        self.last_render_seconds = time.perf_counter() - t0
        self.render_count += 1
        if not self.gl_renderer:
            self._detect_gl()
        self.rendered(self.last_render_seconds)

    # -- the GL renderer and anti-aliasing ---------------------------------------------------------
    @property
    def software(self) -> bool:
        return any(s in self.gl_renderer.lower() for s in SOFTWARE_GL)

    def _detect_gl(self) -> None:
        try:
            caps = self.plotter.ren_win.ReportCapabilities() or ""
        except Exception:  # noqa: BLE001 - no context yet
            return
        for line in caps.splitlines():
            if "renderer string" in line.lower():
                self.gl_renderer = line.split(":", 1)[-1].strip()
                break
        else:
            return
        if os.environ.get("LIBGL_ALWAYS_SOFTWARE") == "1" and "software" not in self.gl_renderer:
            self.gl_renderer += " (LIBGL_ALWAYS_SOFTWARE)"
        if not self.apply_aa():  # tell the window the detected state even when it did not change
            self.antialiasing_changed(self.aa)

    def set_antialiasing(self, on: bool) -> None:
        self._aa_requested = bool(on)
        self.apply_aa()

    def apply_aa(self) -> bool:
        """Apply the requested (or, unset, the detected) anti-aliasing; True when it changed."""
        want = self._aa_requested
        if want is None:
            if not self.gl_renderer:
                return False
            want = not self.software
        if want == self.aa:
            return False
        self.plotter.renderer.SetUseFXAA(bool(want))
        self.aa = bool(want)
        self.request()
        self.antialiasing_changed(self.aa)
        return True
