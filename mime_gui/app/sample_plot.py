"""What the selected sample feels, in the Plots dock: the force on it over time ("F xyz (mN)", world axes,
|F| dashed) and, in the readout line, the torque, the field and the gradient's largest entry.

While driving, the force is sampled at each pose change (:func:`mime_gui.field.forces_now`, the last
:data:`~mime_gui.app.docks.plots.LIVE_SECONDS`); with a command file loaded,
:func:`mime_gui.field.forces_along` over the whole trajectory, computed once per loaded file, rig and sample,
with the playhead. The plot is shown only while a sample is selected, as the field's is for a probe
(app/field_views.py).
"""

from __future__ import annotations

import numpy as np

from mime_gui.app.docks.plots import LIVE_SECONDS, XYZ
from mime_gui.app.item_plot import ItemPlot


def _vector(v, unit: str, scale: float) -> str:
    return "(" + ", ".join(f"{x * scale:+.4g}" for x in v) + f") {unit}"


class SamplePlot(ItemPlot):
    """The force on the selected sample (see the module's text)."""

    kind, collection = "sample", "samples"

    def __init__(self, dock, session, bridge, transport, parent=None):
        xyz = "".join(f'<span style="color:{c}">{a}</span>' for a, c in zip("xyz", XYZ, strict=True))
        super().__init__(dock, session, bridge, transport, f"F {xyz} (mN)", "F (mN)", "The force the rig's "
                         "magnets put on the selected sample, world axes (x red, y green, z blue); |F| "
                         "dashed", parent)
        self._last = None  # (SampleForces, column) at the last pose sampled

    @property
    def sample(self) -> str | None:
        return self.name

    def compute(self, player, name: str):
        from mime_gui.field import forces_along

        forces = forces_along(player.playable.built, player.trajectory, start=player.schedule.start)
        k = forces.sample_names.index(name)
        return forces.time, forces.force[:, k] * 1e3, (forces, k)

    def row_text(self, row: int) -> str:
        forces, k = self.series[3]
        return self._text(forces, row, k)

    def _text(self, forces, row: int, k: int) -> str:
        return (f"<b>{self.name}</b>: F {_vector(forces.force[row, k], 'mN', 1e3)}, τ "
                f"{_vector(forces.torque[row, k], 'µN·m', 1e6)}, B {_vector(forces.B[row, k], 'mT', 1e3)}, "
                f"largest gradient {np.abs(forces.gradient[row, k]).max():.4g} T/m ({forces.routes[k]})")

    def live(self):
        doc = self.session.document
        built = getattr(doc, "built", None) if doc is not None and not doc.findings else None
        if built is None or self.name not in built.apparatus.samples:
            return None, "the rig breaks rules: see Validation"
        from mime_gui.errors import CodedError
        from mime_gui.field import forces_now

        try:
            forces = forces_now(built, self.session.frame_world_pose)
        except CodedError as err:
            return None, f"[{err.code}] {err.message}"
        k = forces.sample_names.index(self.name)
        self._last = (forces, k)
        return forces.force[0, k] * 1e3, ""

    def live_text(self, F: np.ndarray) -> str:
        forces, k = self._last
        return self._text(forces, 0, k) + f"; over the last {LIVE_SECONDS:g} s |F| up to " \
            f"{np.linalg.norm(F, axis=1).max():.4g} mN"


__all__ = ["SamplePlot"]
