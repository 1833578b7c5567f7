"""The form of a probe: its name, the frame it rides on (or the world) and where it sits there; read only,
where it is in the world and the magnets' field there now (|B| and its components in mT, world axes),
refreshed as the rig moves. A button shows the |B| plane through it in the 3D view."""

from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QCheckBox

from mime_gui.app.docks.fields import ChoiceField, TextField, VectorField, format_number, format_vector
from mime_gui.app.docks.forms.base import Form
from mime_gui.session import RenameItem, SetValue


def probe_world(session, probe) -> np.ndarray | None:
    """The probe's world position as the session shows the rig now (None on a frame it lacks)."""
    at = np.asarray(probe.at, dtype=float)
    if probe.mount is None:
        return at
    segment, _, frame = probe.mount.partition(".")
    try:
        X = session.frame_world_pose(segment, frame)
    except Exception:  # a mount being fixed: its finding says why
        return None
    return X[:3, :3] @ at + X[:3, 3]


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


class ProbeForm(Form):
    def __init__(self, panel, name: str, parent=None):
        super().__init__(panel, parent)
        self.collection = "probes"
        self.name = name
        self.build()

    @property
    def base(self) -> str:
        return f"probes.{self.name}"

    def probe(self, rig):
        return rig.probes[self.name]

    def exists(self, rig) -> bool:
        return self.name in rig.probes

    def shape(self, rig) -> tuple:
        return ("probe", self.name)

    def own_paths(self):
        return (self.base,)

    def build(self) -> None:
        base = self.base
        self.section(f"Probe {self.name}")
        self.add("Name", TextField(base, self), lambda r: self.name, self._rename,
                 "Rename (Enter): names are shared by segments, parts, magnets and probes", exact=True)
        self.section("Placement")
        mount = ChoiceField(f"{base}.mount", self)
        mount.options = lambda _rig: self._mounts()  # the frames of the rig shown now
        self.add("Mounted on", mount, lambda r: self.probe(r).mount, self._remount,
                 "A frame of the chain (the probe rides with it), or the world")
        self.add("At", VectorField(f"{base}.at", lengths=self.lengths, parent=self),
                 lambda r: self.probe(r).at, lambda v: self.apply(SetValue(f"{base}.at", v)),
                 "Where the probe sits in its mount frame (in the world with no mount)")
        self.add_value("… in the world", self._world_text, "At the current joint positions")
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

    def _mounts(self):
        out = [("(fixed in the world)", None)]
        for seg_name, seg in self.session.segments.items():
            out += [(f"{seg_name}.{f}", f"{seg_name}.{f}") for f in seg.articulation.frame_names
                    if f not in seg.grafts]
        return out

    # -- reading -------------------------------------------------------------------------------------
    def _world_text(self, rig) -> str:
        where = probe_world(self.session, self.probe(rig))
        if where is None:
            return "— (not placed: see the messages above)"
        shown = np.asarray(where, dtype=float) * self.lengths.factor
        return f"({format_vector(shown, 4)}) {self.lengths.unit}"

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

    # -- edits ---------------------------------------------------------------------------------------
    def _rename(self, new: str) -> None:
        new = new.strip() if isinstance(new, str) else new
        if not new or new == self.name:
            self.refresh(self.session.rig, force=True)
            return
        if self.apply(RenameItem("probes", self.name, new)):
            self.panel.select_item("probes", new)
        else:
            self.refresh(self.session.rig, force=True)

    def _remount(self, mount) -> None:
        if self.apply(SetValue(f"{self.base}.mount", mount)):
            self.panel.select_item("probes", self.name)
