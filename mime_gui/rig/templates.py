"""Templates the palette offers: parts, magnets and segments with sensible first values, ready to mount.

A template makes one rig value (a :class:`~mime_gui.rig.parts.Part`, a
:class:`~mime_gui.rig.parts.PermanentMagnet`, a :class:`~mime_gui.rig.probes.Probe` or a segment) mounted on
a frame, at the frame's origin. Sizes
are small lab-scale solids (tens of millimetres), materials from the materials table, so a dropped item is
valid at once and only needs its numbers. A mesh needs its file and an arm its URDF: ``make`` takes them
as ``path``.

Besides these, every registered lab segment kind (:mod:`mime_gui.rig.dynamics`, entry points included) is a
segment template (:func:`lab_templates`, key ``segment.lab.<kind>``) with the factory's default parameters;
:func:`template` finds any template by key.

There is no ring geometry in the rig model (its volume, inertia, rules and rig-file form would all have to
exist first), so there is no ring magnet template.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass

from mime_gui.multibody.errors import CodedError
from mime_gui.rig.parts import Box, Cylinder, Mesh, Part, PermanentMagnet, Ring, Sphere
from mime_gui.rig.probes import Probe
from mime_gui.rig.segments import Arm, Motor

PART_MATERIAL = "aluminium"
MAGNET_MATERIAL = "NdFeB-N42"


@dataclass(frozen=True)
class Template:
    key: str  # stable id (what a drag carries)
    label: str
    group: str  # "Parts", "Magnets", "Probes", "Segments"
    collection: str  # "parts", "magnets", "probes", "chain"
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


def _part(geometry, magnet: bool):
    def build(mount, path):
        g = geometry(path) if callable(geometry) else geometry
        if magnet:
            return PermanentMagnet(g, material=MAGNET_MATERIAL, mount=mount, magnetisation=(0.0, 0.0, 1.0))
        return Part(g, material=PART_MATERIAL, mount=mount)
    return build


TEMPLATES: dict[str, Template] = {t.key: t for t in (
    Template("part.box", "Box", "Parts", "parts", "box", "A 20 × 20 × 10 mm aluminium box",
             _part(Box((0.02, 0.02, 0.01)), False)),
    Template("part.cylinder", "Cylinder", "Parts", "parts", "cylinder",
             "An aluminium cylinder, radius 10 mm, 20 mm long along the frame's z axis",
             _part(Cylinder(0.01, 0.02), False)),
    Template("part.ring", "Ring", "Parts", "parts", "ring",
             "An aluminium ring, bore radius 5 mm, outer radius 10 mm, 5 mm long along the frame's z axis",
             _part(Ring(0.005, 0.01, 0.005), False)),
    Template("part.sphere", "Sphere", "Parts", "parts", "sphere", "An aluminium sphere, radius 10 mm",
             _part(Sphere(0.01), False)),
    Template("part.mesh", "Mesh from a file…", "Parts", "parts", "mesh",
             "A closed triangle mesh (STL, OBJ, PLY) in metres; its mass comes from its volume",
             _part(lambda path: Mesh(path), False), needs_path="mesh"),
    Template("magnet.block", "Block magnet", "Magnets", "magnets", "magnet",
             "An NdFeB N42 block, 10 × 10 × 5 mm, magnetised along +z",
             _part(Box((0.01, 0.01, 0.005)), True)),
    Template("magnet.cylinder", "Cylinder magnet", "Magnets", "magnets", "magnet",
             "An NdFeB N42 disc, radius 5 mm, 10 mm long, magnetised along its axis (+z)",
             _part(Cylinder(0.005, 0.01), True)),
    Template("magnet.ring", "Ring magnet", "Magnets", "magnets", "magnet",
             "An NdFeB N42 ring, bore radius 3 mm, outer radius 6 mm, 3 mm long, magnetised along its axis "
             "(+z)", _part(Ring(0.003, 0.006, 0.003), True)),
    Template("magnet.sphere", "Sphere magnet", "Magnets", "magnets", "magnet",
             "An NdFeB N42 sphere, radius 5 mm, magnetised along +z", _part(Sphere(0.005), True)),
    Template("probe.point", "Probe", "Probes", "probes", "probe",
             "A point where the magnets' field is computed, at the frame's origin; it rides with the frame",
             lambda mount, path: Probe((0.0, 0.0, 0.0), mount=mount)),
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
    """Every name in use: segments, parts, magnets and probes share one namespace (``name.duplicate``)."""
    return {*rig.chain, *rig.parts, *rig.magnets, *rig.probes}


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


__all__ = ["LAB_PREFIX", "TEMPLATES", "Template", "copy_name", "default_params", "lab_templates",
           "required_params", "segment_mount", "taken_names", "template", "unique_name"]
