"""The magnets' field in the window, for the selected probe: B over time in the Plots dock and the |B| plane
in the 3D view (View → |B| plane at the selected probe); for the selected sample, the force on it over time
(:class:`~mime_gui.app.sample_plot.SamplePlot`).

- **Plot** "B xyz (mT)", shown while a probe is selected: while driving, B at the probe sampled at each pose
  change (the last :data:`~mime_gui.app.docks.plots.LIVE_SECONDS`, ring buffer); with a command file
  loaded, :func:`~mime_gui.field.field_along` over the whole trajectory, computed once per loaded file, rig
  and probe (not per frame), with the rotating-field summary in the readout line under the plots.
- **Plane**: :class:`~mime_gui.app.scene.field_plane.FieldPlaneView`.
- **Keep-out surface** (View → Keep-out |B| surface): |B| = the smallest zone limit around the magnets at the
  pose shown, :class:`~mime_gui.app.scene.keepout_surface.KeepoutSurfaceView`; its toggle is the services'
  ``keepout_surface``, which a zone's form shows and sets too.

``install_field_views(window, docks, services)`` adds both once the Plots dock exists and returns the
:class:`FieldViews`; the plane's toggle is the services' ``field_plane`` (app/services.py), which the probe's
form shows and sets too.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QObject
from PySide6.QtGui import QAction

from mime_gui.app.docks.forms.probe import probe_field
from mime_gui.app.docks.plots import LIVE_SECONDS, XYZ
from mime_gui.app.item_plot import ItemPlot
from mime_gui.app.services import Services


def _fmt_axis(axis) -> str:
    return "(" + ", ".join(f"{a:+.3f}" for a in axis) + ")"


def summary_text(name: str, s) -> str:
    """One line of the rotating-field summary of probe ``name``."""
    mt = f"|B| {s.B_min * 1e3:.4g} to {s.B_max * 1e3:.4g} mT"
    if not np.isfinite(s.frequency):
        return f"<b>{name}</b>: {mt} (too few steps for a frequency)"
    if s.frequency == 0.0 or not np.all(np.isfinite(s.axis)):
        return f"<b>{name}</b>: steady field, {mt}"
    return (f"<b>{name}</b>: rotates at {s.frequency:.4g} Hz about {_fmt_axis(s.axis)}, {mt}, "
            f"ellipticity {s.ellipticity:.3f}")


class FieldPlot(ItemPlot):
    """B at the selected probe in the Plots dock (see the module's text)."""

    kind, collection = "probe", "probes"

    def __init__(self, dock, session, bridge, transport, parent=None):
        xyz = "".join(f'<span style="color:{c}">{a}</span>' for a, c in zip("xyz", XYZ, strict=True))
        super().__init__(dock, session, bridge, transport, f"B {xyz} (mT)", "B (mT)", "The magnets' field "
                         "at the selected probe, world axes (x red, y green, z blue); |B| dashed", parent)

    @property
    def probe(self) -> str | None:
        return self.name

    def key(self, player, name: str) -> tuple:
        probe = self.session.rig.probes[name]
        return (name, tuple(probe.at), probe.mount)

    def compute(self, player, name: str):
        from mime_gui.field import field_along, rotating_summary

        field = field_along(player.playable.built, player.trajectory, {name: self.session.rig.probes[name]},
                            start=player.schedule.start)
        return field.time, field.B[:, 0] * 1e3, rotating_summary(field.time, field.B)[0]

    def row_text(self, row: int) -> str:
        _key, _t, B, summary = self.series
        b = B[row]
        return f"{summary_text(self.name, summary)} · now B ({b[0]:+.4g}, {b[1]:+.4g}, {b[2]:+.4g}) mT"

    def live(self):
        B, why = probe_field(self.session, self.name)
        return (None, why) if B is None else (B * 1e3, "")

    def live_text(self, B: np.ndarray) -> str:
        magnitude = np.linalg.norm(B, axis=1)
        b = B[-1]
        return (f"<b>{self.name}</b>: B ({b[0]:+.4g}, {b[1]:+.4g}, {b[2]:+.4g}) mT, |B| "
                f"{magnitude[-1]:.4g} mT; over the last {LIVE_SECONDS:g} s |B| {magnitude.min():.4g} to "
                f"{magnitude.max():.4g} mT (load a command file for the rotating field's frequency and axis)")


class FieldViews(QObject):
    def __init__(self, window, docks, services: Services):
        super().__init__(window)
        self.window = window
        session, bridge = window.session, window.bridge
        self.plot = FieldPlot(docks["PlotsDock"], session, bridge, services.transport, self)
        from mime_gui.app.sample_plot import SamplePlot

        self.sample_plot = SamplePlot(docks["PlotsDock"], session, bridge, services.transport, self)
        self.plane = self.lines = self.surface = None
        if getattr(window.scene, "plotter", None) is not None:
            from mime_gui.app.scene.field_plane import FieldLinesView, FieldPlaneView
            from mime_gui.app.scene.keepout_surface import KeepoutSurfaceView

            self.plane = FieldPlaneView(window.scene, self)
            self.plane.changed.connect(lambda text: window.statusBar().showMessage(text, 4000))
            self.lines = FieldLinesView(window.scene, self)
            self.lines.changed.connect(lambda text: window.statusBar().showMessage(text, 4000))
            self.surface = KeepoutSurfaceView(window.scene, self)
            self.surface.changed.connect(lambda text: window.statusBar().showMessage(text, 4000))
        self.plane_action = services.field_plane  # the probe's form shows and sets it too
        self.plane_action.setStatusTip("A colour map of the magnets' |B| on a 10 cm square through the "
                                       "selected probe, computed when the rig stops moving")
        self.plane_action.setEnabled(self.plane is not None)
        self.plane_action.toggled.connect(self._plane_toggled)
        self.lines_action = QAction("Field lines from the selected magnet", window, checkable=True)
        self.lines_action.setStatusTip("Lines along B from a ring around the selected magnet's north pole, "
                                       "traced when the rig stops moving")
        self.lines_action.setEnabled(self.lines is not None)
        self.lines_action.toggled.connect(lambda on: self.lines is not None and self.lines.set_on(on))
        self.surface_action = services.keepout_surface  # a zone's form shows and sets it too
        self.surface_action.setStatusTip("The surface where the magnets' |B| equals the smallest keep-out "
                                         "zone limit (0.5 mT without zones), at the pose shown")
        self.surface_action.setEnabled(self.surface is not None)
        self.surface_action.toggled.connect(lambda on: self.surface is not None and self.surface.set_on(on))
        view = window.menus.get("View")
        if view is not None:
            view.addSeparator()
            view.addAction(self.plane_action)
            view.addAction(self.lines_action)
            view.addAction(self.surface_action)

    def _plane_toggled(self, on: bool) -> None:
        if self.plane is not None:
            self.plane.set_on(on)

    def close(self) -> None:
        """Close the 3D views (the window is closing)."""
        for view in (self.plane, self.lines, self.surface):
            if view is not None:
                view.close()


def install_field_views(window, docks, services: Services) -> FieldViews:
    """B at the selected probe in the Plots dock, the |B| plane and the field lines in the 3D view."""
    return FieldViews(window, docks, services)


__all__ = ["FieldPlot", "FieldViews", "install_field_views", "summary_text"]
