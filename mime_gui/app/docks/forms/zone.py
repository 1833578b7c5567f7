"""The form of a keep-out zone: its name, the frame it rides on (or the world) and where its centre sits
there; a ball (its radius) or a box (its full sizes, in its mount frame's axes); the largest |B| allowed
inside (typed in mT, stored in tesla) and why. Read only, at the pose shown: the largest |B| on it and
whether the field enters it beyond its limit (:func:`mime_gui.session.keepout.zones_now`, the one-step case
of the trajectory's zone check). A check box shows the keep-out |B| surface in the 3D view (View → Keep-out
|B| surface)."""

from __future__ import annotations

import dataclasses

import numpy as np
from PySide6.QtWidgets import QCheckBox

from mime_gui.app.docks.fields import (
    ChoiceField,
    NumberField,
    TextField,
    VectorField,
    format_number,
)
from mime_gui.app.docks.forms.placed import PlacedForm
from mime_gui.session import ReplaceItem, SetValue

SHAPES = (("a ball", "sphere"), ("a box", "box"))


class ZoneForm(PlacedForm):
    collection, title, noun = "zones", "Keep-out zone", "zone"
    at_tip = "Where the zone's centre sits in its mount frame (in the world with no mount)"

    def zone(self, rig):
        return self.item(rig)

    def shape(self, rig) -> tuple:
        return ("zone", self.name, self.zone(rig).box is not None)

    # -- building ------------------------------------------------------------------------------------
    def build(self) -> None:
        base = self.base
        zone = self.zone(self.session.rig)
        self.add_name_and_placement()
        self.section("Shape")
        shape = ChoiceField(f"{base}.shape", self)
        shape.set_choices(list(SHAPES))
        self.add("Shape", shape, lambda r: "box" if self.zone(r).box is not None else "sphere", self._switch,
                 "A ball about its centre, or a box in its mount frame's axes")
        if zone.box is not None:
            self.add("Sizes", VectorField(f"{base}.box", lengths=self.lengths, parent=self),
                     lambda r: self.zone(r).box, lambda v: self._set(f"{base}.box", v),
                     "The box's full sizes along its mount frame's axes")
        else:
            self.add("Radius", NumberField(f"{base}.sphere", parent=self, lengths=self.lengths),
                     lambda r: self.zone(r).sphere, lambda v: self._set(f"{base}.sphere", v))
        self.section("Limit")
        self.add("|B| at most", NumberField(f"{base}.limit", "mT", self),
                 lambda r: self.zone(r).limit * 1e3, lambda v: self._set(f"{base}.limit", v / 1e3),
                 "The largest |B| allowed anywhere inside the zone (0.5 mT: the line signed off for "
                 "pacemaker wearers)")
        self.add("Reason", TextField(f"{base}.reason", self, "who or what stands here, where the limit comes "
                                                             "from"),
                 lambda r: self.zone(r).reason, self._set_reason,
                 "Why the zone is there (Enter): a zone without a reason breaks rule zone.reason")
        self.section("Field on it (now)")
        self.add_value("Largest |B|", self._worst_text, "On the zone's surface at the pose shown (inside it "
                       "|B| is at most that, away from the magnets)")
        self.add_value("State", self._state_text, "Whether the field enters the zone beyond its limit now; "
                       "the zone is drawn red while it does")
        self.surface_box = QCheckBox("Show the keep-out |B| surface", self)
        self.surface_box.setToolTip("The surface |B| = the smallest zone limit around the magnets, at the "
                                    "pose shown (View → Keep-out |B| surface)")
        self.surface_box.toggled.connect(self._surface_toggled)
        self.add_widget("", self.surface_box)
        self.hint("Along a played command file, mime-gui field names the steps where the field enters the "
                  "zone.")
        self.finish()
        self.sync_surface()

    # -- reading -------------------------------------------------------------------------------------
    def _check(self):
        """``(largest |B| T or NaN, breached)`` on this zone at the pose shown, or ``(None, why)``."""
        doc = self.session.document
        built = getattr(doc, "built", None)
        if doc is None or built is None or doc.findings:
            return None, "the rig breaks rules (see Validation)"
        if self.name not in built.apparatus.zones:
            return None, "not built yet"
        if not built.apparatus.magnets:
            return None, "the rig has no magnets"
        from mime_gui.field import FieldError
        from mime_gui.session.keepout import zones_now

        try:
            poses = np.stack([self.session.frame_world_pose(*n.split(".", 1)) for n in built.frame_names])
            check = zones_now(built, poses)
        except (FieldError, KeyError, ValueError) as err:
            return None, str(err)
        z = check.zone_names.index(self.name)
        return (float(check.worst[0, z]), bool(check.breach[0, z])), None

    def _worst_text(self, rig):
        # computed once per refresh: the state's line, refreshed right after, reads the same value
        self._now = now, why = self._check()
        if now is None:
            return f"— ({why})"
        worst, _breach = now
        if not np.isfinite(worst):
            return "— (a magnet is inside it)"
        return f"{format_number(worst * 1e3, 4)} mT"

    def _state_text(self, rig):
        now, _why = getattr(self, "_now", None) or self._check()
        if now is None:
            return "—"
        worst, breach = now
        limit = f"{format_number(self.zone(rig).limit * 1e3, 4)} mT"
        if not breach:
            return f"within its limit of {limit}"
        return f"exceeds its limit of {limit}" if np.isfinite(worst) else f"a magnet is inside it ({limit})"

    # -- the surface ---------------------------------------------------------------------------------
    def sync_surface(self) -> None:
        action = self.panel.keepout_surface
        self.surface_box.setEnabled(action is not None)
        if action is not None:
            self.surface_box.blockSignals(True)
            self.surface_box.setChecked(action.isChecked())
            self.surface_box.blockSignals(False)

    def _surface_toggled(self, on: bool) -> None:
        if self.panel.keepout_surface is not None:
            self.panel.keepout_surface.setChecked(on)

    # -- edits ---------------------------------------------------------------------------------------
    def _set(self, path: str, value) -> None:
        self.apply(SetValue(path, value))

    def _set_reason(self, text) -> None:
        text = text.strip() if isinstance(text, str) else text
        self._set(f"{self.base}.reason", text or None)

    def _switch(self, key: str) -> None:
        zone = self.zone(self.session.rig)
        if (key == "box") == (zone.box is not None):
            return
        if key == "box":  # the ball's bounding box, so the zone keeps its place and reach
            side = 2 * zone.sphere if zone.sphere and np.isfinite(zone.sphere) and zone.sphere > 0 else 0.3
            new = dataclasses.replace(zone, box=(side, side, side), sphere=None)
        else:
            sizes = [v for v in (zone.box or ()) if np.isfinite(v) and v > 0]
            new = dataclasses.replace(zone, box=None, sphere=0.5 * max(sizes, default=0.6))
        label = dict((v, t) for t, v in SHAPES)[key]
        self.apply(ReplaceItem("zones", self.name, new, f"Shape of {self.name}: {label}"))
