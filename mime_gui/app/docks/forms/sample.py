"""The form of a sample: its name, the frame it rides on (or the world) and where it sits there; its moment
from a shape (a solid kind's sizes, a magnet material or a declared remanence) or declared (A·m², with its
reason); its magnetisation direction and whether it is held in its mount frame or follows the field. Read
only, its moment, where it is in the world and, at the pose shown, the field there and the force and torque
on it (:func:`mime_gui.field.forces_now`), refreshed as the rig moves."""

from __future__ import annotations

import dataclasses

import numpy as np

from mime_gui.app.docks.fields import (
    ChoiceField,
    NumberField,
    QuantityField,
    VectorField,
    format_number,
    format_vector,
)
from mime_gui.app.docks.forms.placed import PlacedForm
from mime_gui.rig.geometries import KINDS, Sphere, kind_of
from mime_gui.rig.materials import material, materials
from mime_gui.rig.sample_rules import sample_moment
from mime_gui.rig.samples import ORIENTATIONS
from mime_gui.rig.templates import MAGNET_MATERIAL, SAMPLE_RADIUS
from mime_gui.rig.units import A_M2, TESLA, Quantity
from mime_gui.session import ReplaceItem, SetValue

MOMENT_SOURCES = (("its shape and material", "shape"), ("a declared moment", "declared"))
ORIENTATION_TEXT = {"fixed": "fixed: held in its mount frame", "follows": "follows the field"}


def solid_kinds() -> list[str]:
    """The kinds a sample's shape may be (those that name no file)."""
    return [name for name, kind in KINDS.items() if not any(f.unit == "path" for f in kind.fields)]


def first_geometry(kind: str):
    """A first shape of ``kind`` (its palette template's), to be sized in the form."""
    for t in KINDS[kind].templates:
        if not t.needs_path:
            return t.geometry
    return None


class SampleForm(PlacedForm):
    collection, title, noun = "samples", "Sample", "sample"
    at_tip = "Where the sample's centre sits in its mount frame (in the world with no mount)"

    def sample(self, rig):
        return self.item(rig)

    def shape(self, rig) -> tuple:
        s = self.sample(rig)
        kind = getattr(s.geometry, "kind", None)
        return ("sample", self.name, s.geometry is not None, kind, s.remanence is not None)

    # -- building ------------------------------------------------------------------------------------
    def build(self) -> None:
        base = self.base
        sample = self.sample(self.session.rig)
        self.add_name_and_placement()
        self.section("Moment")
        source = ChoiceField(f"{base}.moment_source", self)
        source.set_choices([(text, key) for text, key in MOMENT_SOURCES])
        self.add("Moment from", source,
                 lambda r: "declared" if self.sample(r).geometry is None else "shape", self._switch_source,
                 "A shape magnetised by its material's remanence (or a declared one), "
                 "or a moment declared in A·m² with its reason")
        if sample.geometry is not None:
            self._shape(sample)
        else:
            self.add("Moment", QuantityField(f"{base}.moment", A_M2, self, "measured (VSM), datasheet …"),
                     lambda r: self.sample(r).moment, lambda v: self._set(f"{base}.moment", v))
        self.add("Direction", VectorField(f"{base}.magnetisation", parent=self),
                 lambda r: self.sample(r).magnetisation, lambda v: self._set(f"{base}.magnetisation", v),
                 "The moment's direction in the mount frame (normalised when used)")
        orientation = ChoiceField(f"{base}.orientation", self)
        orientation.set_choices([(ORIENTATION_TEXT.get(o, o), o) for o in ORIENTATIONS])
        self.add("Orientation", orientation, lambda r: self.sample(r).orientation,
                 lambda v: self._set(f"{base}.orientation", v),
                 "Held in its mount frame (as by a holder), or turned along the field (a free bead: no "
                 "torque, pulled up the gradient of |B|)")
        self.add_value("Moment |m|", self._moment_text,
                       "Br·V/μ0 along the direction, or the declared moment")
        self.section("Field here (now)")
        self.add_value("|B|", self._field_text,
                       "The magnets' field at the sample's centre, at the pose shown")
        self.add_value("Force (mN)", self._force_text, "On the sample at the pose shown, world axes")
        self.add_value("Torque (µN·m)", self._torque_text, "About its centre, world axes")
        self.finish()

    def _shape(self, sample) -> None:
        base = self.base
        for f in kind_of(sample.geometry).fields:
            path = f"{base}.geometry.{f.name}"
            lengths = self.lengths if f.unit == "m" else None
            unit = "" if f.unit in ("m", "1") else f.unit
            field = VectorField(path, unit, parent=self, lengths=lengths) if f.size > 1 else \
                NumberField(path, unit, parent=self, lengths=lengths)
            self.add(f.label, field, lambda r, n=f.name: getattr(self.sample(r).geometry, n),
                     lambda v, p=path: self._set(p, v), f.tip)
        # after the sizes: a finding about the whole shape shows under its first size
        kind = ChoiceField(f"{base}.geometry.kind", self)
        kind.set_choices([(name, name) for name in solid_kinds()])
        self.add("Shape", kind, lambda r: self.sample(r).geometry.kind, self._switch_kind,
                 "A solid kind; its sizes are above")
        mat = ChoiceField(f"{base}.material", self)
        mat.set_choices([(m.name, m.name) for m in materials() if m.magnetic] + [("(none)", None)])
        self.add("Material", mat, self._material_of, lambda v: self._set(f"{base}.material", v),
                 "A magnet grade of the materials table: its remanence gives the moment")
        path = f"{base}.remanence" if sample.remanence is None else f"{base}.remanence_source"
        source = ChoiceField(path, self)
        source.set_choices([("from its material (grade)", False), ("declared", True)])
        self.add("Remanence", source, lambda r: self.sample(r).remanence is not None, self._switch_remanence)
        if sample.remanence is not None:
            self.add("Br", QuantityField(f"{base}.remanence", TESLA, self, "grade datasheet, measured …"),
                     lambda r: self.sample(r).remanence, lambda v: self._set(f"{base}.remanence", v))

    # -- reading -------------------------------------------------------------------------------------
    def _material_of(self, rig):
        name = self.sample(rig).material
        found = material(name) if name is not None else None
        return found.name if found is not None and found.name.lower() == name.lower() else name

    def _moment_text(self, rig):
        d, size, problems = sample_moment(self.sample(rig), rig.base)
        if problems:
            return "— (see the messages above)"
        return f"{format_number(size, 4)} A·m² along ({format_vector(d, 3)})"

    def _forces(self):
        """The force and torque on this sample at the pose shown, or why there are none."""
        doc = self.session.document
        built = getattr(doc, "built", None)
        if doc is None or built is None or doc.findings:
            return None, "the rig breaks rules (see Validation)"
        if self.name not in built.apparatus.samples:
            return None, "not built yet"
        if not built.apparatus.magnets:
            return None, "the rig has no magnets"
        from mime_gui.field import FieldError, forces_now

        try:
            found = forces_now(built, self.session.frame_world_pose)
        except (FieldError, KeyError) as err:
            return None, str(err)
        return (found, found.sample_names.index(self.name)), None

    def _field_text(self, rig):
        # computed once per refresh: the force and torque lines, refreshed right after, read the same value
        self._now = now, why = self._forces()
        if now is None:
            return f"— ({why})"
        found, s = now
        B = found.B[0, s]
        return f"{format_number(float(np.linalg.norm(B)) * 1e3, 5)} mT", f"B ({format_vector(B * 1e3, 4)}) mT"

    def _force_text(self, rig):
        now, _why = getattr(self, "_now", None) or self._forces()
        if now is None:
            return "—"
        found, s = now
        return f"({format_vector(found.force[0, s] * 1e3, 4)})"

    def _torque_text(self, rig):
        now, _why = getattr(self, "_now", None) or self._forces()
        if now is None:
            return "—"
        found, s = now
        return f"({format_vector(found.torque[0, s] * 1e6, 4)})"

    # -- edits ---------------------------------------------------------------------------------------
    def _set(self, path: str, value) -> None:
        self.apply(SetValue(path, value))

    def _switch_source(self, key: str) -> None:
        sample = self.sample(self.session.rig)
        if (key == "shape") == (sample.geometry is not None):
            return
        if key == "declared":  # from the moment it has now, so the user only adds the reason
            _d, size, _p = sample_moment(sample, self.session.rig.base)
            new = dataclasses.replace(sample, geometry=None, material=None, remanence=None,
                                      moment=Quantity(size or 0.0, A_M2, None))
        else:
            new = dataclasses.replace(sample, geometry=Sphere(SAMPLE_RADIUS), material=MAGNET_MATERIAL,
                                      remanence=None, moment=None)
        label = dict((v, t) for t, v in MOMENT_SOURCES)[key]
        self.apply(ReplaceItem("samples", self.name, new, f"Moment of {self.name}: {label}"))

    def _switch_kind(self, kind: str) -> None:
        sample = self.sample(self.session.rig)
        if sample.geometry is None or sample.geometry.kind == kind:
            return
        geometry = first_geometry(kind)
        if geometry is not None:
            self.apply(ReplaceItem("samples", self.name, dataclasses.replace(sample, geometry=geometry),
                                   f"Shape of {self.name}: {kind}"))

    def _switch_remanence(self, declared: bool) -> None:
        sample = self.sample(self.session.rig)
        if declared == (sample.remanence is not None):
            return
        value = None
        if declared:
            m = material(sample.material) if sample.material else None
            value = Quantity(m.remanence if m is not None and m.magnetic else 0.0, TESLA, None)
        self._set(f"{self.base}.remanence", value)
