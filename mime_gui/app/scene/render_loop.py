"""Rendering: requests coalesced into one render per event-loop turn (a playback that outruns the renderer
drops frames instead of queueing them), render times measured, the GL renderer detected after the first
render, and anti-aliasing (FXAA) on by default except on a software renderer."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from PySide6.QtCore import QTimer

SOFTWARE_GL = ("llvmpipe", "softpipe", "swrast", "software rasterizer", "lavapipe")


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
        self._aa_requested = antialiasing
        self.aa = False
        self._timer = QTimer(parent)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._render)

    def request(self) -> None:
        if not self.closed and not self._timer.isActive():
            self._timer.start()

    def render_now(self) -> None:
        self._timer.stop()
        self._render()

    def stop(self) -> None:
        self.closed = True
        self._timer.stop()

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
