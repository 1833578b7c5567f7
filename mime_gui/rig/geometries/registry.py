"""The registry of geometry kinds: what each kind of part solid declares, once.

A kind declares its rig-file ``type``, its class, its :class:`Field` s (name, unit, label, bounds), a line of
text and a summary for the docs; its class gives its volume and inertia (``mass_properties``), its extent
(``half_extents``) and its problems. Beside those, each kind registers the adapters the other layers ask for:
its triangles (``mesh``, numpy only, for the views and the checks), which points lie inside it (``inside``,
for the probe rules and the field), its Magpylib source (``source``) and, optionally, the description
primitive a view draws instead of its triangles (``drawn``). The rig file's reader and writer, the schema,
the docs table, the Python export, the report and properties text and the part form read the fields, so a
new kind is one module here (see docs/architecture.md). A kind also offers the palette's templates of it
(:class:`KindTemplate`), says what its ``problems`` hold beyond its fields' bounds (``conditions``, in rule
``part.geometry``'s text), and its fields of unit ``"path"`` are the files it names (:func:`paths_of`,
:func:`with_paths`), which the bundle, the provenance and the rig's equality follow.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mime_gui.multibody.magnitudes import MAX_LENGTH
from mime_gui.rig.registry_epoch import bump

#: how far inside a solid a point must be, relative to the solid's size, to count as inside: a probe on the
#: surface (a sensor resting on the magnet) is outside
SURFACE_TOLERANCE = 1e-9

#: the key a geometry object of the rig file holds a unit under, by the unit of its fields
UNIT_KEYS = {"m": "unit", "deg": "angle_unit"}


@dataclass(frozen=True)
class Field:
    """One value of a geometry: ``name`` (the class's attribute and the rig file's key), ``unit`` (``"m"`` a
    length, ``"deg"`` an angle, ``"1"`` a factor, ``"path"`` a file path relative to the rig file),
    ``size`` (1 a number, 3 a vector), the form's ``label`` and ``tip``, its bounds (``low`` < value <=
    ``high``; with a negative ``low``, an angle, ``low`` <= value) and whether a rig file may leave it out
    (``optional``). The docs table shows them; a kind's ``problems`` holds its values to them."""

    name: str
    label: str
    unit: str = "m"
    size: int = 1
    low: float = 0.0
    high: float = MAX_LENGTH
    tip: str = ""
    optional: bool = False

    @property
    def unit_key(self) -> str | None:
        return UNIT_KEYS.get(self.unit)


@dataclass(frozen=True)
class MassProperties:
    """Of the solid at unit density: ``volume`` (m³), ``centroid`` in the geometry's own frame (m), and
    ``inertia`` per unit density (m⁵) about the centroid in the geometry's axes."""

    volume: float
    centroid: np.ndarray
    inertia: np.ndarray


@dataclass(frozen=True)
class KindTemplate:
    """A template of a kind that the palette offers: a ``"part"`` or a ``"magnet"`` (``role``) with a first
    ``geometry`` small enough for a lab bench; its palette key is ``<role>.<name>`` (``name`` defaults to
    the kind's type), ``label`` and ``tip`` are what the palette shows, ``base_name`` the new item's name
    (numbered when taken; default the kind's type for a part, ``magnet`` for a magnet). ``geometry`` is a
    geometry, or, with ``needs_path`` (the kind of file the palette asks for, ``"mesh"``), a callable
    taking the chosen file. A magnet is magnetised along ``magnetisation`` (in the part's frame)."""

    role: str
    label: str
    tip: str
    geometry: object
    name: str = ""
    base_name: str = ""
    needs_path: str = ""
    magnetisation: tuple[float, float, float] = (0.0, 0.0, 1.0)

    def __post_init__(self):
        if self.role not in ("part", "magnet"):
            raise ValueError(f"a template's role is 'part' or 'magnet', got {self.role!r}")


@dataclass(frozen=True)
class GeometryKind:
    """A kind of part solid and its adapters (see the module's docstring).

    ``text`` is a line with ``{field}`` placeholders, filled with each field's value as the reader formats
    it (the rig report, the properties). ``mesh(g, base)`` gives ``(vertices (n, 3), faces (m, 3))`` in the
    geometry's own frame; ``inside(g, points)`` takes points about the centroid and gives a boolean array,
    or None when it cannot tell; ``source(g, polarization, base)`` gives a Magpylib source in the geometry's
    own frame; ``drawn(g, base)`` gives a description primitive, or None to draw the triangles.
    ``conditions`` is a clause of rule ``part.geometry``: what ``problems`` holds beyond each field's bounds
    (empty when nothing). ``templates`` are the palette's templates of the kind, in the palette's order.
    """

    type: str
    cls: type
    fields: tuple[Field, ...]
    text: str
    summary: str
    mesh: Callable
    inside: Callable
    source: Callable
    drawn: Callable | None = None
    conditions: str = ""
    templates: tuple[KindTemplate, ...] = ()

    @property
    def unit_keys(self) -> tuple[tuple[str, str], ...]:
        """``(key, unit)`` of the units a rig file's geometry object of this kind holds, in field order."""
        out: dict[str, str] = {}
        for f in self.fields:
            if f.unit_key is not None:
                out.setdefault(f.unit_key, f.unit)
        return tuple(out.items())

    def describe(self, values: dict, num, vec) -> str:
        """:attr:`text` with ``values`` (by field name) written by ``num`` (a number) and ``vec`` (a
        vector); a path as it is."""
        shown = {f.name: values[f.name] if f.unit == "path" else vec(values[f.name]) if f.size > 1
                 else num(values[f.name]) for f in self.fields}
        return self.text.format(**shown)

    def values(self, g) -> dict:
        """Each field's value of ``g``, by name (a vector as a list)."""
        return {f.name: list(getattr(g, f.name)) if f.size > 1 else getattr(g, f.name) for f in self.fields}


KINDS: dict[str, GeometryKind] = {}


def register(kind: GeometryKind) -> GeometryKind:
    """Add ``kind`` (its module calls this once, when imported); a second kind of one type is refused."""
    if kind.type in KINDS:
        raise ValueError(f"a geometry kind {kind.type!r} is already registered")
    if getattr(kind.cls, "kind", None) != kind.type:
        raise ValueError(f"{kind.cls.__name__}.kind must be {kind.type!r}")
    KINDS[kind.type] = kind
    bump()
    return kind


def kind_of(g) -> GeometryKind | None:
    """The registered kind of the geometry ``g`` (None for anything else)."""
    kind = KINDS.get(getattr(type(g), "kind", None))
    return kind if kind is not None and isinstance(g, kind.cls) else None


def paths_of(g) -> dict[str, str]:
    """The files the geometry ``g`` names, by field name: its kind's fields of unit ``"path"`` (as written,
    relative to the rig file or absolute); empty for a shape that names none."""
    kind = kind_of(g)
    if kind is None:
        return {}
    return {f.name: getattr(g, f.name) for f in kind.fields if f.unit == "path"}


def with_paths(g, moved: Callable[[str], str]):
    """``g`` with each file it names replaced by ``moved(path)``; ``g`` itself when it names none."""
    paths = paths_of(g)
    return dataclasses.replace(g, **{name: moved(p) for name, p in paths.items()}) if paths else g


def size_ok(v: float) -> bool:
    """A usable size: finite, positive and at most :data:`MAX_LENGTH` (so a volume cannot overflow)."""
    return math.isfinite(v) and 0 < v <= MAX_LENGTH


def number(value, what: str) -> float:
    """A field's value as a float; text or a boolean is refused (sizes are numbers of metres)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{what} is a number of metres, got {value!r}")
    return float(value)


def shift_inertia(inertia: np.ndarray, volume: float, c: np.ndarray) -> np.ndarray:
    """An inertia (per unit density) about a point moved to the centroid ``c`` from it (parallel axes)."""
    return inertia - volume * (float(c @ c) * np.eye(3) - np.outer(c, c))


def quads_to_triangles(quads: np.ndarray) -> np.ndarray:
    """Each quad ``(a, b, c, d)`` as the triangles ``(a, b, c)`` and ``(a, c, d)``, winding kept."""
    q = np.asarray(quads)
    return np.concatenate([q[:, [0, 1, 2]], q[:, [0, 2, 3]]])


__all__ = ["KINDS", "SURFACE_TOLERANCE", "UNIT_KEYS", "Field", "GeometryKind", "KindTemplate",
           "MassProperties", "kind_of", "number", "paths_of", "quads_to_triangles", "register",
           "shift_inertia", "size_ok", "with_paths"]
