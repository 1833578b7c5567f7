"""The form of a part or a magnet: name, geometry with its sizes, material (its density and where that figure
comes from) or a declared density or mass with its reason, where it sits in its mount frame, the frame it is
mounted on; for a magnet its magnetisation and remanence. Mass, centre of mass, inertia and magnetic moment
are derived live."""

from __future__ import annotations

import dataclasses

import numpy as np
from PySide6.QtWidgets import QFileDialog, QPushButton

from mime_gui.app.docks.fields import (
    ChoiceField,
    NumberField,
    QuantityField,
    TextField,
    VectorField,
    format_number,
    format_scaled_vector,
    format_vector,
)
from mime_gui.app.docks.forms.base import graft_of
from mime_gui.app.docks.forms.placed import RENAME_TIP, PlacedForm
from mime_gui.rig.geometries import kind_of
from mime_gui.rig.mass import magnet_moment, part_mass
from mime_gui.rig.materials import material, materials
from mime_gui.rig.parts import PermanentMagnet
from mime_gui.rig.units import KG, KG_PER_M3, TESLA, Quantity
from mime_gui.session import ReplaceItem, SetValue

MASS_SOURCES = (("from its material", "material"), ("declared density", "density"), ("declared mass", "mass"))


def _mass_source(part) -> str:
    if part.mass is not None:
        return "mass"
    if part.density is not None:
        return "density"
    return "material"


def _vec(v, digits: int = 4) -> str:
    return format_vector(v, digits)


class PartForm(PlacedForm):
    """A part's or a magnet's form (``collection`` ``parts`` or ``magnets``)."""

    def __init__(self, panel, collection: str, name: str, parent=None):
        super().__init__(panel, name, parent, collection=collection)

    def shape(self, rig) -> tuple:
        p = self.item(rig)
        return (self.collection, self.name, type(p).__name__, p.geometry.kind, _mass_source(p),
                isinstance(p, PermanentMagnet) and p.remanence is not None)

    # -- building ------------------------------------------------------------------------------------
    def build(self) -> None:
        rig = self.session.rig
        part = self.item(rig)
        magnet = isinstance(part, PermanentMagnet)
        base = self.base
        self.section(f"{'Magnet' if magnet else 'Part'} {self.name}")
        self.add("Name", TextField(base, self), lambda r: self.name, self._rename,
                 RENAME_TIP, exact=True)
        self._geometry(part.geometry)
        self._mass_section(part)
        self.section("Placement")
        self.add("At", VectorField(f"{base}.at", lengths=self.lengths, parent=self),
                 lambda r: self.item(r).at, lambda v: self.apply(SetValue(f"{base}.at", v)),
                 "Where the centroid sits in the mount frame (the part's axes are the frame's)")
        mount = ChoiceField(f"{base}.mount", self)
        mount.options = lambda _rig: self._mounts()  # the frames shown now (another file, a renamed segment)
        self.add("Mounted on", mount, lambda r: self.item(r).mount, self._remount,
                 "A frame of the chain, or the world")
        if magnet:
            self._magnet(part)
        self.section("Derived")
        self.add_value("Mass", self._mass_text)
        self.add_value("Density, volume", self._density_text)
        self.add_value("Centre of mass", self._com_text, "The centroid, in the mount frame")
        self.add_value("… in the world", self._world_text, "At the current joint positions")
        self.add_value("Ixx, Iyy, Izz (kg·m²)", lambda r: self._inertia_text(r, diagonal=True),
                       "About the centroid, in the part's axes, in kg·m²")
        self.add_value("Ixy, Ixz, Iyz (kg·m²)", lambda r: self._inertia_text(r, diagonal=False),
                       "About the centroid, in the part's axes, in kg·m²")
        if magnet:
            self.add_value("Magnetic moment", self._moment_text, "Br·V/μ0 along the magnetisation")
            self.add_value("Remanence Br", self._remanence_text)
        self.finish()

    def _geometry(self, g) -> None:
        """A row per field its kind declares: a length in the form's unit, an angle, a factor, or a file
        path with a Browse button."""
        base = f"{self.base}.geometry"
        self.section(f"Geometry: {g.kind}")
        for f in kind_of(g).fields:
            path = f"{base}.{f.name}"

            def get(r, name=f.name):
                return getattr(self.item(r).geometry, name)

            def put(v, path=path):
                self._set(path, v)

            if f.unit == "path":
                row = self.add(f.label, TextField(path, self, f.tip), get, put)
                browse = QPushButton("Browse…", row)
                browse.clicked.connect(lambda _=False, path=path: self._browse_mesh(path))
                row.row.addWidget(browse)
                continue
            lengths = self.lengths if f.unit == "m" else None
            unit = "" if f.unit in ("m", "1") else f.unit
            field = VectorField(path, unit, parent=self, lengths=lengths) if f.size > 1 else \
                NumberField(path, unit, parent=self, lengths=lengths)
            self.add(f.label, field, get, put, f.tip)

    def _mass_section(self, part) -> None:
        base = self.base
        self.section("Mass")
        mat = ChoiceField(f"{base}.material", self)
        mat.set_choices([(m.name, m.name) for m in materials()] + [("(none)", None)])
        self.add("Material", mat, self._material_of, lambda v: self._set(f"{base}.material", v))
        self._material_field = mat
        source = ChoiceField(f"{base}.mass_source", self)
        source.set_choices([(text, key) for text, key in MASS_SOURCES])
        self.add("Mass from", source, lambda r: _mass_source(self.item(r)), self._switch_mass_source,
                 "A declared density or mass replaces the material's density, with its reason")
        kind = _mass_source(part)
        if kind == "density":
            self.add("Density", QuantityField(f"{base}.density", KG_PER_M3, self),
                     lambda r: self.item(r).density, lambda v: self._set(f"{base}.density", v))
        elif kind == "mass":
            self.add("Mass", QuantityField(f"{base}.mass", KG, self, "weighed, datasheet …"),
                     lambda r: self.item(r).mass, lambda v: self._set(f"{base}.mass", v))

    def _magnet(self, part) -> None:
        base = self.base
        self.section("Magnetisation")
        self.add("Direction", VectorField(f"{base}.magnetisation", parent=self),
                 lambda r: self.item(r).magnetisation, lambda v: self._set(f"{base}.magnetisation", v),
                 "North pole direction in the part's axes (normalised when used)")
        # without a declaration, the findings about the remanence show under this choice
        path = f"{base}.remanence" if part.remanence is None else f"{base}.remanence_source"
        source = ChoiceField(path, self)
        source.set_choices([("from its material (grade)", False), ("declared", True)])
        self.add("Remanence", source, lambda r: self.item(r).remanence is not None, self._switch_remanence)
        if part.remanence is not None:
            self.add("Br", QuantityField(f"{base}.remanence", TESLA, self, "grade datasheet, measured …"),
                     lambda r: self.item(r).remanence, lambda v: self._set(f"{base}.remanence", v))

    # -- reading -------------------------------------------------------------------------------------
    def _material_of(self, rig):
        name = self.item(rig).material
        found = material(name) if name is not None else None
        return found.name if found is not None and found.name.lower() == name.lower() else name

    def refresh(self, rig, force: bool = False) -> None:
        super().refresh(rig, force)
        m = material(self.item(rig).material) if self.item(rig).material else None
        if m is None:
            note = "" if self.item(rig).material is None else "not in the materials table"
        else:
            note = f"{m.grade}: {format_number(m.density)} kg/m³ — {m.density_source}"
            if m.magnetic:
                note += f"; Br {format_number(m.remanence)} T — {m.remanence_source}"
        self._material_field.set_note(note)

    def _mass(self, rig):
        return part_mass(self.item(rig), rig.base)[0]

    def _mass_text(self, rig):
        mass = self._mass(rig)
        if mass is None:
            return "— (see the messages above)"
        return f"{format_number(mass.mass, 5)} kg", f"{mass.source}: {mass.detail}"

    def _density_text(self, rig):
        mass = self._mass(rig)
        if mass is None:
            return "—"
        density = "none: massless" if mass.density is None else f"{format_number(mass.density)} kg/m³"
        return f"{density}, {format_number(mass.volume * 1e6, 5)} cm³", f"{mass.source}: {mass.detail}"

    def _com_text(self, rig) -> str:
        part = self.item(rig)
        return f"({format_scaled_vector(part.at, self.lengths.factor)}) {self.lengths.unit}"

    def _world_text(self, rig) -> str:
        drawn = graft_of(self.session, self.name)
        if drawn is None:
            return "— (not placed: see the messages above)"
        X = self.session.frame_world_pose(*drawn)
        return f"({_vec(X[:3, 3] * self.lengths.factor)}) {self.lengths.unit}"

    def _inertia_text(self, rig, diagonal: bool) -> str:
        mass = self._mass(rig)
        if mass is None:
            return "—"
        i = mass.inertia
        values = np.diag(i) if diagonal else [i[0, 1], i[0, 2], i[1, 2]]
        return _vec(values, 4)  # the unit is in the row's label: a long value would cut it off

    def _moment(self, rig):
        part = self.item(rig)
        mass = self._mass(rig)
        return magnet_moment(part, mass.volume if mass is not None else None)[0]

    def _moment_text(self, rig) -> str:
        moment = self._moment(rig)
        if moment is None:
            return "— (see the messages above)"
        return f"{format_number(moment.moment, 5)} A·m² along ({_vec(moment.direction, 3)})"

    def _remanence_text(self, rig):
        moment = self._moment(rig)
        if moment is None:
            return "—"
        return f"{format_number(moment.remanence)} T", moment.source

    # -- edits ---------------------------------------------------------------------------------------
    def _set(self, path: str, value) -> None:
        self.apply(SetValue(path, value))

    def _switch_mass_source(self, kind: str) -> None:
        rig = self.session.rig
        part = self.item(rig)
        if kind == _mass_source(part):
            return
        mass, _ = part_mass(part, rig.base)
        if kind == "mass":  # start from the mass it has now, so the user only adds the reason
            value = dict(mass=Quantity(mass.mass if mass else 0.0, KG, None), density=None)
        elif kind == "density":
            value = dict(density=Quantity(mass.density if mass and mass.density else 0.0, KG_PER_M3, None),
                         mass=None)
        else:
            value = dict(mass=None, density=None)
        label = {v: t for t, v in MASS_SOURCES}[kind]
        self.apply(ReplaceItem(self.collection, self.name, dataclasses.replace(part, **value),
                               f"Mass of {self.name}: {label}"))

    def _switch_remanence(self, declared: bool) -> None:
        part = self.item(self.session.rig)
        if declared == (part.remanence is not None):
            return
        if declared:
            m = material(part.material) if part.material else None
            value = Quantity(m.remanence if m is not None and m.magnetic else 0.0, TESLA, None)
        else:
            value = None
        self.apply(SetValue(f"{self.base}.remanence", value))

    def _browse_mesh(self, target: str) -> None:
        start = str(self.session.rig.base or "")
        path, _ = QFileDialog.getOpenFileName(self, "A mesh file", start, "Meshes (*.stl *.obj *.ply *.off);;"
                                              "All files (*)")
        if path:
            self._set(target, path)
