"""Templates the palette offers: parts, magnets and segments with sensible first values, ready to mount.

A template makes one rig value (a :class:`~mime_gui.rig.parts.Part`, a
:class:`~mime_gui.rig.parts.PermanentMagnet`, a :class:`~mime_gui.rig.probes.Probe`, a
:class:`~mime_gui.rig.samples.Sample`, a keep-out :class:`~mime_gui.rig.zones.Zone` or a segment) mounted on
a frame, at the frame's origin. The part and magnet templates are the geometry kinds' own
(:class:`~mime_gui.rig.geometries.KindTemplate`, declared in each kind's module), parts first, then magnets,
each in the kinds' order: small lab-scale solids (tens of millimetres) of a material from the materials
table, so a dropped item is valid at once and only needs its numbers. A mesh needs its file and an arm its
URDF: ``make`` takes them as ``path``.

Besides these, every registered lab segment kind (:mod:`mime_gui.rig.dynamics`, entry points included) is a
segment template (:func:`lab_templates`, key ``segment.lab.<kind>``) with the factory's default parameters;
:func:`template` finds any template by key.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass

from mime_gui.multibody.errors import CodedError
from mime_gui.rig.geometries import KINDS, KindTemplate, Sphere
from mime_gui.rig.names import NAMESPACE, NAMESPACE_TEXT
from mime_gui.rig.parts import Part, PermanentMagnet
from mime_gui.rig.probes import Probe
from mime_gui.rig.samples import Sample
from mime_gui.rig.segments import Arm, Motor
from mime_gui.rig.zones import DEFAULT_LIMIT, Zone

PART_MATERIAL = "aluminium"
MAGNET_MATERIAL = "NdFeB-N42"
#: a new sample: a 1 mm ball of the magnets' grade, turning along the field (a free bead)
SAMPLE_RADIUS = 0.5e-3
#: a new keep-out zone: a ball of this radius (m) where people stand, at the default limit
ZONE_RADIUS = 0.3
ZONE_REASON = "people stand here: the 0.5 mT line for pacemaker wearers"


@dataclass(frozen=True)
class Template:
    key: str  # stable id (what a drag carries)
    label: str
    group: str  # "Parts", "Magnets", "Probes", "Samples", "Keep-out zones", "Segments"
    collection: str  # "parts", "magnets", "probes", "samples", "zones", "chain"
    base_name: str  # the new item's name, numbered when taken
    tip: str
    build: Callable[[str | None, str | None], object]  # (mount, path) -> rig value
    needs_path: str = ""  # "mesh" or "urdf": ask for a file first
    unavailable: str = ""  # why it cannot be dropped (a lab kind needing parameters without a default)

    def make(self, mount: str | None, path: str | None = None):
        if self.unavailable:
            raise ValueError(self.unavailable)
        if self.needs_path and not path:
            raise ValueError(f"the {self.label} template needs a {self.needs_path} file")
        return self.build(mount, path)


#: where each role of a kind's template goes: its palette group, its rig collection, its material
ROLES = {"part": ("Parts", "parts", PART_MATERIAL), "magnet": ("Magnets", "magnets", MAGNET_MATERIAL)}


def _kind_template(kind, t: KindTemplate) -> Template:
    group, collection, material = ROLES[t.role]

    def build(mount, path):
        g = t.geometry(path) if t.needs_path else t.geometry
        if t.role == "magnet":
            return PermanentMagnet(g, material=material, mount=mount, magnetisation=t.magnetisation)
        return Part(g, material=material, mount=mount)

    base = t.base_name or ("magnet" if t.role == "magnet" else kind.type)
    return Template(f"{t.role}.{t.name or kind.type}", t.label, group, collection, base, t.tip, build,
                    needs_path=t.needs_path)


def kind_templates() -> list[Template]:
    """The geometry kinds' part templates, then their magnet templates, each in the kinds' order."""
    return [_kind_template(kind, t) for role in ROLES for kind in KINDS.values() for t in kind.templates
            if t.role == role]


TEMPLATES: dict[str, Template] = {t.key: t for t in (
    *kind_templates(),
    Template("probe.point", "Probe", "Probes", "probes", "probe",
             "A point where the magnets' field is computed, at the frame's origin; it rides with the frame",
             lambda mount, path: Probe((0.0, 0.0, 0.0), mount=mount)),
    Template("sample.sphere", "Sample", "Samples", "samples", "sample",
             f"A small magnet the field acts on: a {2 * SAMPLE_RADIUS * 1e3:g} mm {MAGNET_MATERIAL} ball at "
             "the frame's origin whose moment turns along the field; it rides with the frame",
             lambda mount, path: Sample((0.0, 0.0, 0.0), mount=mount, geometry=Sphere(SAMPLE_RADIUS),
                                        material=MAGNET_MATERIAL, orientation="follows")),
    Template("zone.sphere", "Keep-out zone", "Keep-out zones", "zones", "zone",
             f"A ball of radius {ZONE_RADIUS:g} m at the frame's origin where |B| must stay below "
             f"{DEFAULT_LIMIT * 1e3:g} mT (where people stand); it rides with the frame",
             lambda mount, path: Zone((0.0, 0.0, 0.0), mount=mount, sphere=ZONE_RADIUS, limit=DEFAULT_LIMIT,
                                      reason=ZONE_REASON)),
    Template("segment.motor", "Motor", "Segments", "chain", "motor",
             "A motor (stator and rotor about z) mounted on the frame; it publishes the frames stator and "
             "rotor", lambda mount, path: Motor.Kinematic(mount=mount)),
    Template("segment.arm", "Arm from a URDF…", "Segments", "chain", "arm",
             "Another arm read from a URDF, mounted on the frame", lambda mount, path: Arm.Kinematic(
                 description=path, mount=mount), needs_path="urdf"),
)}


LAB_PREFIX = "segment.lab."


def default_params(factory) -> dict:
    """The keyword parameters of a lab kind's factory that have a default a rig file can hold (a number,
    text, a boolean, null or a list of them); a parameter without a default is left to the user."""
    from mime_gui.rig.dynamics import json_value

    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):  # a builtin or C callable without a signature: nothing to offer
        return {}
    out = {}
    for name, p in signature.parameters.items():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.POSITIONAL_ONLY) or p.default is p.empty:
            continue
        try:
            out[name] = json_value(p.default, name)
        except (TypeError, ValueError):
            continue
    return out


def required_params(factory) -> list[str]:
    """The parameters of a factory without a default: a template cannot make its segment (the segment
    would not build, and a segment that does not build cannot be selected to be fixed)."""
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):
        return []
    return [name for name, p in signature.parameters.items()
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.default is p.empty]


def _lab_template(kind) -> Template:
    params = default_params(kind.factory)
    shown = ", ".join(f"{k}={v!r}" for k, v in params.items()) or "no parameters"
    required = required_params(kind.factory)
    unavailable = (f"its factory needs {', '.join(required)}, with no default: give the segment in the rig "
                   "file (its params) or in Python") if required else ""
    where = f"{kind.package} {kind.version}".strip() or "registered in Python"
    base = re.sub(r"[^0-9A-Za-z_-]+", "_", kind.name).strip("_") or "segment"

    def build(mount, path, _kind=kind.name, _params=params):
        from mime_gui.rig.dynamics import LabSegment

        return LabSegment(kind=_kind, params=dict(_params), mount=mount)

    return Template(LAB_PREFIX + kind.name, kind.name, "Segments", "chain", base,
                    f"The lab's segment kind {kind.name!r} ({where}), mounted on the frame, with {shown}",
                    build, unavailable=unavailable)


def lab_templates() -> dict[str, Template]:
    """A segment template per registered lab kind, by key; none when the kinds cannot be read (a broken
    entry point is reported by ``mime-gui validate`` and when a rig names it)."""
    from mime_gui.rig import dynamics

    try:
        kinds = dynamics.kinds()
    except CodedError:
        return {}
    return {LAB_PREFIX + name: _lab_template(k) for name, k in sorted(kinds.items())}


def template(key: str) -> Template | None:
    """The template ``key``: a built-in one or a registered lab kind's."""
    found = TEMPLATES.get(key)
    if found is None and isinstance(key, str) and key.startswith(LAB_PREFIX):
        found = lab_templates().get(key)
    return found




def taken_names(rig) -> set[str]:
    """Every name in use: the items of the :data:`NAMESPACE` collections share one namespace."""
    return {name for collection in NAMESPACE for name in getattr(rig, collection, {})}


def unique_name(rig, base: str) -> str:
    """``base``, or ``base_2``, ``base_3`` … the first not taken in ``rig``."""
    taken = taken_names(rig)
    if base not in taken:
        return base
    n = 2
    while f"{base}_{n}" in taken:
        n += 1
    return f"{base}_{n}"


def copy_name(rig, name: str) -> str:
    """The name of a duplicate of ``name``: ``holder_2`` (a trailing ``_<n>`` is counted on, not nested)."""
    stem, sep, tail = name.rpartition("_")
    base = stem if sep and tail.isdigit() else name
    return unique_name(rig, base)


def segment_mount(rig, segment: str, frame: str) -> str:
    """How a new last segment names the frame it mounts on: ``frame`` alone on the chain's last segment,
    else ``<segment>.<frame>`` (see rule ``chain.mount``)."""
    last = next(reversed(rig.chain), None)
    return frame if segment == last else f"{segment}.{frame}"


__all__ = ["LAB_PREFIX", "NAMESPACE", "NAMESPACE_TEXT", "ROLES", "SAMPLE_RADIUS", "TEMPLATES", "ZONE_RADIUS",
           "ZONE_REASON", "Template", "copy_name", "default_params", "kind_templates", "lab_templates",
           "required_params", "segment_mount", "taken_names", "template", "unique_name"]
