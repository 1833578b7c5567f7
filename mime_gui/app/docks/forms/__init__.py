"""Editable forms of the selection, shown in the properties dock: the rig (nothing selected), a segment, a
part, a magnet, a probe, a sample or a keep-out zone. :class:`FormPanel` picks the form for a selection,
keeps it in step with the rig (in place while its shape holds) and focuses the field of a rig path (a
finding clicked in the validation dock)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from mime_gui.app.docks.fields import LENGTH_UNITS, LengthUnit
from mime_gui.app.docks.forms.base import Form, canonical, graft_of, item_ref, part_target
from mime_gui.app.docks.forms.document import DocumentForm
from mime_gui.app.docks.forms.part import PartForm
from mime_gui.app.docks.forms.probe import ProbeForm
from mime_gui.app.docks.forms.sample import SampleForm
from mime_gui.app.docks.forms.segment import SegmentForm
from mime_gui.app.docks.forms.zone import ZoneForm
from mime_gui.app.docks.look import hint


class FormPanel(QWidget):
    def __init__(self, session, parent=None, field_plane=None, keepout_surface=None):
        super().__init__(parent)
        self.session = session
        self.lengths = LengthUnit("mm")
        self.form: Form | None = None
        # View → |B| plane (the window's services): the probe's form shows and sets it
        self.field_plane = field_plane
        if field_plane is not None:
            field_plane.toggled.connect(self._field_plane_toggled)
        # View → Keep-out |B| surface: the zone's form shows and sets it
        self.keepout_surface = keepout_surface
        if keepout_surface is not None:
            keepout_surface.toggled.connect(self._keepout_toggled)
        self.builds = 0  # forms built (tests count them: an edit refreshes in place)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        bar = QHBoxLayout()
        bar.setContentsMargins(6, 4, 6, 0)
        self.title = QLabel(self)
        hint(self.title)
        bar.addWidget(self.title, 1)
        bar.addWidget(QLabel("lengths in", self))
        self.unit = QComboBox(self)
        self.unit.addItems(list(LENGTH_UNITS))
        self.unit.setToolTip("The unit lengths are shown and typed in (stored in metres); a typed mm or m "
                             "overrides it")
        self.unit.currentTextChanged.connect(self._unit_changed)
        bar.addWidget(self.unit)
        layout.addLayout(bar)
        self.scroll = QScrollArea(self)
        self.scroll.setWidgetResizable(True)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)  # fields shrink to the dock
        self.scroll.setFrameShape(QScrollArea.NoFrame)
        layout.addWidget(self.scroll, 1)

    def _field_plane_toggled(self, _on: bool) -> None:
        if hasattr(self.form, "sync_plane"):
            self.form.sync_plane()

    def _keepout_toggled(self, _on: bool) -> None:
        if hasattr(self.form, "sync_surface"):
            self.form.sync_surface()

    # -- which form ----------------------------------------------------------------------------------
    def target(self, ref):
        """``("document",)``, ``("segment", name)``, ``("part", collection, name)`` or None (a link, joint or
        frame of a description: read-only properties)."""
        if self.session.document is None:
            return None
        if ref is None:
            return ("document",)
        if ref.kind == "segment":
            return ("segment", ref.name) if ref.name in self.session.rig.chain else None
        found = part_target(self.session, ref)
        riders = {"probes": "probe", "samples": "sample", "zones": "zone"}
        if found is not None and found[0] in riders:
            return (riders[found[0]], found[1])
        return ("part", *found) if found is not None else None

    def show(self, ref) -> bool:
        """Show the form for ``ref``; False when it has none."""
        target = self.target(ref)
        if target is None:
            self._set_form(None)
            return False
        form = self.form
        if form is not None and getattr(form, "target", None) == target and form.exists(self.session.rig) \
                and form.shape(self.session.rig) == form._shape:
            return True  # the same item by another reference (its link, then its own): the form stays
        self._set_form(self._make(target))
        return True

    def _make(self, target) -> Form:
        self.builds += 1
        if target[0] == "document":
            form = DocumentForm(self)
        elif target[0] == "segment":
            form = SegmentForm(self, target[1])
        elif target[0] == "probe":
            form = ProbeForm(self, target[1])
        elif target[0] == "sample":
            form = SampleForm(self, target[1])
        elif target[0] == "zone":
            form = ZoneForm(self, target[1])
        else:
            form = PartForm(self, target[1], target[2])
        form.target = target
        self.title.setText({"document": "the rig", "segment": "segment", "part": "part or magnet",
                            "probe": "probe", "sample": "sample", "zone": "keep-out zone"}[target[0]])
        rig = self.session.rig
        form._shape = form.shape(rig)
        form.refresh(rig, force=True)
        form.show_findings(self.session.findings)
        return form

    def _set_form(self, form: Form | None) -> None:
        old = self.scroll.takeWidget()
        if old is not None:
            old.deleteLater()
        self.form = form
        if form is not None:
            self.scroll.setWidget(form)

    def reset(self) -> None:
        """Drop the form: the next :meth:`show` builds one from the rig open now."""
        self._set_form(None)

    # -- following the rig ---------------------------------------------------------------------------
    def rig_changed(self) -> None:
        form, rig = self.form, self.session.rig
        if form is None or rig is None or not form.exists(rig):
            return
        if form.shape(rig) != form._shape:
            focused = next((f.path for f in form.fields if f.editing()), None)
            self._set_form(self._make(form.target))
            if focused is not None:
                self.focus_path(focused)
            return
        form.refresh(rig)
        form.show_findings(self.session.findings)

    def findings_changed(self, findings) -> None:
        if self.form is not None:
            self.form.show_findings(findings)

    def poses_changed(self) -> None:
        if self.form is not None and self.session.rig is not None and self.form.exists(self.session.rig):
            for refresh in self.form.derived:
                refresh(self.session.rig)

    def _unit_changed(self, unit: str) -> None:
        self.lengths.unit = unit
        if self.form is not None and self.session.rig is not None:
            self.form.refresh(self.session.rig, force=True)

    # -- navigation ----------------------------------------------------------------------------------
    def focus_path(self, path: str) -> bool:
        """Focus the field showing rig ``path`` in the current form (True when there is one)."""
        if self.form is None:
            return False
        field = self.form.field_for(path)
        if field is None:
            return False
        self.scroll.ensureWidgetVisible(field)
        field.focus()
        return True

    def select_item(self, collection: str, name: str) -> None:
        """Select an item of the rig (after a rename or a remount moved its reference)."""
        ref = item_ref(self.session, collection, name)
        if ref is not None and ref != self.session.selection:
            self.session.select(ref)


__all__ = ["FormPanel", "canonical", "graft_of", "item_ref", "part_target"]
