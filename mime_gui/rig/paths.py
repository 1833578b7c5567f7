"""Rig paths: every value of a rig has one, the same that findings name.

``name``, ``chain.arm`` (a segment), ``chain.arm.at``, ``chain.arm.armature.joint_3``,
``chain.arm.initial_positions.joint_1``, ``parts.holder`` (a part), ``parts.holder.at``,
``parts.holder.geometry.radius``, ``magnets.m1.magnetisation``, ``probes.sample.at``, ``frames.tilted.at``
(a declared frame). A path is written
with dots; an item's name (which a valid rig never spells with a dot, but a rig being fixed may) is matched
against the names that exist, longest first, so every item of any rig has a path.

:func:`get` reads the value at a path; :func:`replace` returns a new rig with one value replaced (or
removed, with :data:`DELETE`), copying only the values along the path and sharing the rest, so a rig held
by the undo history is never changed by a later edit.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from mime_gui.rig.apparatus import Apparatus

COLLECTIONS = ("chain", "parts", "magnets", "probes", "frames", "samples", "zones")


class _Delete:
    def __repr__(self) -> str:
        return "DELETE"


#: Replace with this to remove an entry of a mapping (an armature declaration, an initial position …).
DELETE = _Delete()


class RigPathError(KeyError):
    """A path that names nothing in the rig: ``code`` ``rig.path``, the path, and what exists there."""

    code = "rig.path"

    def __init__(self, path: str, message: str):
        self.path = path
        self.message = message
        super().__init__(f"{path}: {message}")

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def join(*parts: str) -> str:
    return ".".join(parts)


def split(rig: Apparatus, path: str) -> tuple[str, ...]:
    """The components of ``path``: ``("parts", "holder", "at")``; the item name is matched against the
    names that exist (longest first), so a name holding a dot still has a path."""
    if not isinstance(path, str) or not path:
        raise RigPathError(str(path), "a rig path is text such as 'parts.holder.at'")
    if path == "name":
        return ("name",)
    head, _, rest = path.partition(".")
    if head not in COLLECTIONS or not rest:
        raise RigPathError(path, "a rig path starts with name, chain.<segment>, parts.<part>, "
                                 "magnets.<magnet>, probes.<probe>, frames.<frame>, samples.<sample> "
                                 "or zones.<zone>")
    items = getattr(rig, head)
    for name in sorted(items, key=len, reverse=True):
        if rest == name:
            return (head, name)
        if rest.startswith(name + "."):
            return (head, name, *rest[len(name) + 1:].split("."))
    raise RigPathError(path, f"no {_singular(head)} {rest.split('.')[0]!r}; {head}: "
                             f"{', '.join(items) or '(none)'}")


def _singular(collection: str) -> str:
    return {"chain": "segment", "parts": "part", "magnets": "magnet", "probes": "probe",
            "frames": "frame", "samples": "sample", "zones": "zone"}.get(collection, collection)


def _child(value, key: str, path: str):
    if isinstance(value, Mapping):
        if key not in value:
            raise RigPathError(path, f"no entry {key!r}; entries: {', '.join(map(str, value)) or '(none)'}")
        return value[key]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = [f.name for f in dataclasses.fields(value) if f.init]
        if key not in names:
            raise RigPathError(path, f"{type(value).__name__} has no {key!r}; fields: {', '.join(names)}")
        return getattr(value, key)
    raise RigPathError(path, f"{type(value).__name__} holds no named values")


def get(rig: Apparatus, path: str):
    """The value at ``path``."""
    parts = split(rig, path)
    if parts == ("name",):
        return rig.name
    value = getattr(rig, parts[0])[parts[1]]
    for key in parts[2:]:
        value = _child(value, key, path)
    return value


def exists(rig: Apparatus, path: str) -> bool:
    try:
        get(rig, path)
    except RigPathError:
        return False
    return True


def _replaced(value, keys: tuple[str, ...], new, path: str):
    """``value`` with the entry at ``keys`` replaced by ``new``: a new mapping or a new dataclass (its
    checks run again, so a value of the wrong type raises TypeError or ValueError)."""
    key, rest = keys[0], keys[1:]
    if isinstance(value, Mapping):
        out = dict(value)
        if rest:
            out[key] = _replaced(_child(value, key, path), rest, new, path)
        elif new is DELETE:
            _child(value, key, path)
            del out[key]
        else:
            out[key] = new
        return out
    current = _child(value, key, path)
    if new is DELETE and not rest:
        raise RigPathError(path, f"{key!r} is a field of {type(value).__name__}, not an entry to remove")
    return dataclasses.replace(value, **{key: _replaced(current, rest, new, path) if rest else new})


def with_items(rig: Apparatus, collection: str, items: dict) -> Apparatus:
    """A new rig like ``rig`` with ``collection`` (``chain``, ``parts``, ``magnets``, ``probes``, ``frames``,
    ``poses``, ``trajectories`` or ``targets``) replaced."""
    tables = {c: getattr(rig, c) for c in (*COLLECTIONS, "poses", "trajectories", "targets")}
    tables[collection] = items
    return Apparatus(rig.name, base=rig.base, package_dirs=rig.package_dirs, clearance=rig.clearance,
                     **tables)


def replace(rig: Apparatus, path: str, value) -> Apparatus:
    """A new rig with the value at ``path`` replaced by ``value`` (``DELETE`` removes a mapping entry, or
    an item: ``replace(rig, "parts.holder", DELETE)``)."""
    parts = split(rig, path)
    if parts == ("name",):
        return Apparatus(value, chain=rig.chain, parts=rig.parts, magnets=rig.magnets, base=rig.base,
                         package_dirs=rig.package_dirs, probes=rig.probes, poses=rig.poses, frames=rig.frames,
                         trajectories=rig.trajectories, samples=rig.samples, zones=rig.zones,
                         clearance=rig.clearance, targets=rig.targets)
    collection, name, keys = parts[0], parts[1], parts[2:]
    items = dict(getattr(rig, collection))
    if not keys:
        if value is DELETE:
            del items[name]
        else:
            items[name] = value
    else:
        items[name] = _replaced(items[name], keys, value, path)
    return with_items(rig, collection, items)


def item_paths(rig: Apparatus) -> list[str]:
    """``chain.<segment>``, ``parts.<part>``, ``magnets.<magnet>``, ``probes.<probe>`` and ``frames.<frame>``
    for every item, in rig order."""
    return [join(c, n) for c in COLLECTIONS for n in getattr(rig, c)]


__all__ = ["COLLECTIONS", "DELETE", "RigPathError", "exists", "get", "item_paths", "join", "replace", "split",
           "with_items"]
