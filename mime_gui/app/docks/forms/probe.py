"""The form of a probe: its name, the frame it rides on (or the world) and where it sits there; read only,
where it is in the world and the magnets' field there now (|B| and its components in mT, world axes),
refreshed as the rig moves. A button shows the |B| plane through it in the 3D view."""

from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QCheckBox

from mime_gui.app.docks.fields import format_number, format_vector
from mime_gui.app.docks.forms.placed import PlacedForm


def probe_field(session, name: str):
    """``(B (3,) T in world axes, None)`` at probe ``name`` now, or ``(None, why)`` when there is none."""
    doc = session.document
    built = getattr(doc, "built", None)
    if doc is None or built is None or doc.findings:
        return None, "the rig breaks rules (see Validation)"
    if not built.apparatus.magnets:
        return None, "the rig has no magnets"
    probe = session.rig.probes.get(name)
    if probe is None:
        return None, "no such probe"
    from mime_gui.field import FieldError, field_now

    try:
        field = field_now(built, session.frame_world_pose, {name: probe})
    except FieldError as err:
        return None, f"[{err.code}] {err}"
    return field.B[0, 0], None


class ProbeForm(PlacedForm):
    collection, title, noun = "probes", "Probe", "probe"
    at_tip = "Where the probe sits in its mount frame (in the world with no mount)"

    def probe(self, rig):
        return self.item(rig)

    def shape(self, rig) -> tuple:
        return ("probe", self.name)

    def build(self) -> None:
        self.add_name_and_placement()
        self.section("Field here (now)")
        self.magnitude = self.add_value("|B|", self._magnitude_text,
                                        "The magnets' field at the probe, at the pose shown")
        self.components = self.add_value("Bx, By, Bz", self._components_text, "World axes")
        self.plane_box = QCheckBox("Show the |B| plane through this probe", self)
        self.plane_box.setToolTip("A colour map of |B| on a square through the probe, square to its frame's "
                                  "z axis (View → |B| plane at the selected probe)")
        self.plane_box.toggled.connect(self._plane_toggled)
        self.add_widget("", self.plane_box)
        self.hint("B over time at this probe is in the Plots dock; with a command file loaded, with the "
                  "rotating field's frequency and axis.")
        self.finish()
        self.sync_plane()

    # -- reading -------------------------------------------------------------------------------------
    def _field(self):
        return probe_field(self.session, self.name)

    def _magnitude_text(self, rig):
        # computed once per refresh: the components' line, refreshed right after, reads the same value
        self._now = B, why = self._field()
        if B is None:
            return f"— ({why})"
        return f"{format_number(float(np.linalg.norm(B)) * 1e3, 5)} mT"

    def _components_text(self, rig):
        B, why = getattr(self, "_now", None) or self._field()
        if B is None:
            return "—"
        return f"({format_vector(np.asarray(B, dtype=float) * 1e3, 4)}) mT"

    # -- the plane -----------------------------------------------------------------------------------
    def sync_plane(self) -> None:
        action = self.panel.field_plane
        self.plane_box.setEnabled(action is not None)
        if action is not None:
            self.plane_box.blockSignals(True)
            self.plane_box.setChecked(action.isChecked())
            self.plane_box.blockSignals(False)

    def _plane_toggled(self, on: bool) -> None:
        if self.panel.field_plane is not None:
            self.panel.field_plane.setChecked(on)

