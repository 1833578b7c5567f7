"""Edits: every change to a rig is a value with a readable name, applied by ``Session.apply``.

An edit's :meth:`~Edit.apply` takes a rig and returns a new one (rig values are never changed in place; see
:mod:`mime_gui.rig.paths`), so the history can hold both sides of every step. :attr:`~Edit.merge_key` says
which consecutive edits are one step for undo (every value of one field, while the user drags it).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from mime_gui.rig import paths
from mime_gui.rig.apparatus import Apparatus
from mime_gui.rig.names import NAMESPACE
from mime_gui.rig.paths import COLLECTIONS, DELETE
from mime_gui.rig.poses import Pose
from mime_gui.rig.segments import SEGMENT_KINDS

_SINGULAR = {"chain": "segment", "parts": "part", "magnets": "magnet", "probes": "probe", "frames": "frame",
             "poses": "pose", "trajectories": "trajectory", "samples": "sample", "zones": "zone",
             "targets": "target"}
#: what AddItem, RemoveItem, RenameItem and ReplaceItem work on: the items, the named poses, the
#: trajectories and the field targets (no rig path reaches into one of those, so each is added, renamed,
#: replaced or removed whole)
WHOLE = ("poses", "trajectories", "targets")
EDITABLE = (*COLLECTIONS, *WHOLE)


class EditError(ValueError):
    """An edit that cannot apply to this rig (no such item, a name taken, a value of the wrong type): the
    rig is unchanged. ``code`` is ``edit.*``; ``where`` the rig path."""

    def __init__(self, code: str, where: str, message: str):
        self.code = code
        self.where = where
        self.message = message
        super().__init__(f"{where}: {message}" if where else message)


def _taken(rig: Apparatus, collection: str, name: str) -> str | None:
    """What already bears ``name`` where a ``collection`` item of that name would clash with it (an item of
    the shared namespace for its members, one of its own collection for the rest), or None."""
    for c in NAMESPACE if collection in NAMESPACE else (collection,):
        if name in getattr(rig, c):
            return c
    return None


def _name_taken(rig: Apparatus, collection: str, name: str, where: str) -> None:
    taken = _taken(rig, collection, name)
    if taken is not None:
        raise EditError("edit.name-taken", where, f"{name!r} is already a {_SINGULAR[taken]}; choose another "
                                                  "name")


def _collection(collection: str) -> str:
    if collection not in EDITABLE:
        raise EditError("edit.collection", collection, f"items live in {', '.join(EDITABLE)}")
    return collection


@dataclass(frozen=True)
class Edit:
    """The base of every edit."""

    @property
    def name(self) -> str:
        raise NotImplementedError

    @property
    def merge_key(self):
        """Consecutive edits with the same non-None key are one undo step."""
        return None

    def apply(self, rig: Apparatus) -> Apparatus:
        raise NotImplementedError

    def touched(self, rig: Apparatus) -> frozenset[str]:
        """The item paths (``parts.holder``, ``chain.arm``) this edit changes in ``rig``."""
        raise NotImplementedError

    def changes(self, rig: Apparatus) -> bool:
        """False when the edit would leave ``rig`` as it is (then no undo step is recorded)."""
        return True


@dataclass(frozen=True)
class SetValue(Edit):
    """Set the value at a rig path (``parts.holder.at``, ``chain.arm.armature.joint_6``; ``DELETE``
    removes a mapping entry)."""

    path: str
    value: object

    @property
    def name(self) -> str:
        return f"Remove {self.path}" if self.value is DELETE else f"Set {self.path}"

    @property
    def merge_key(self):
        return ("set", self.path)

    def apply(self, rig: Apparatus) -> Apparatus:
        try:
            return paths.replace(rig, self.path, self.value)
        except paths.RigPathError as err:
            raise EditError("edit.path", self.path, err.message) from None
        except (TypeError, ValueError) as err:
            raise EditError("edit.value", self.path, str(err)) from None

    def changes(self, rig: Apparatus) -> bool:
        """False when the path holds this very value already (of the same type, equal): a field left with
        the text it had, a drag that ends where it began."""
        if self.value is DELETE or not paths.exists(rig, self.path):
            return True
        old = paths.get(rig, self.path)
        try:
            return type(old) is not type(self.value) or not bool(old == self.value)
        except (TypeError, ValueError):  # values that compare element by element: taken as a change
            return True

    def touched(self, rig: Apparatus) -> frozenset[str]:
        if self.path == "name":
            return frozenset({"name"})
        try:
            parts = paths.split(rig, self.path)
        except paths.RigPathError:
            return frozenset()
        return frozenset({paths.join(parts[0], parts[1])})


@dataclass(frozen=True)
class Remount(SetValue):
    """Mount a part or magnet on ``<segment>.<frame>`` (None: fixed in the world), or a segment on a frame."""

    def __init__(self, collection: str, item: str, mount: str | None):
        object.__setattr__(self, "path", paths.join(_collection(collection), item, "mount"))
        object.__setattr__(self, "value", mount)

    @property
    def name(self) -> str:
        _, item = self.path.split(".", 1)
        item = item.rsplit(".", 1)[0]
        return f"Mount {item} on {self.value or 'the world'}"


@dataclass(frozen=True)
class SetArmature(SetValue):
    """Declare a joint's armature (a ``kg_m2`` or ``kg`` quantity with its reason), or None to remove the
    declaration (the joint's armature then comes from a transmission, or is none)."""

    def __init__(self, segment: str, joint: str, value):
        object.__setattr__(self, "path", paths.join("chain", segment, "armature", joint))
        object.__setattr__(self, "value", DELETE if value is None else value)

    @property
    def name(self) -> str:
        what = self.path.split(".", 3)
        return f"Armature of {what[1]}.{what[3]}" if len(what) == 4 else f"Set {self.path}"


@dataclass(frozen=True)
class AddItem(Edit):
    """Add a segment, part or magnet under a new name (a segment at the end of the chain, or at ``index``)."""

    collection: str
    item: str
    value: object
    index: int | None = None

    @property
    def name(self) -> str:
        return f"Add {_SINGULAR.get(self.collection, 'item')} {self.item}"

    def apply(self, rig: Apparatus) -> Apparatus:
        items = getattr(rig, _collection(self.collection))
        _name_taken(rig, self.collection, self.item, paths.join(self.collection, self.item))
        entries = list(items.items())
        at = len(entries) if self.index is None else max(0, min(int(self.index), len(entries)))
        entries.insert(at, (self.item, self.value))
        return _with_items(rig, self.collection, dict(entries))

    def touched(self, rig: Apparatus) -> frozenset[str]:
        return frozenset({paths.join(self.collection, self.item)})


@dataclass(frozen=True)
class RemoveItem(Edit):
    collection: str
    item: str

    @property
    def name(self) -> str:
        return f"Remove {_SINGULAR.get(self.collection, 'item')} {self.item}"

    def apply(self, rig: Apparatus) -> Apparatus:
        items = dict(getattr(rig, _collection(self.collection)))
        if self.item not in items:
            raise EditError("edit.path", paths.join(self.collection, self.item),
                            f"no {_SINGULAR[self.collection]} {self.item!r}")
        del items[self.item]
        return _with_items(rig, self.collection, items)

    def touched(self, rig: Apparatus) -> frozenset[str]:
        return frozenset({paths.join(self.collection, self.item)})


@dataclass(frozen=True)
class RenameItem(Edit):
    """Rename a segment, part, magnet, probe, declared frame or pose in place (its order kept). Renaming a
    segment also renames it in every mount that names it (``old.frame`` → ``new.frame``), so what rides on it
    stays mounted, and in every pose that names it; renaming a declared frame renames it in every mount that
    names it (``segment.old`` → ``segment.new``)."""

    collection: str
    old: str
    new: str

    @property
    def name(self) -> str:
        return f"Rename {_SINGULAR.get(self.collection, 'item')} {self.old} to {self.new}"

    def apply(self, rig: Apparatus) -> Apparatus:
        items = getattr(rig, _collection(self.collection))
        where = paths.join(self.collection, self.old)
        if self.old not in items:
            raise EditError("edit.path", where, f"no {_SINGULAR[self.collection]} {self.old!r}")
        if self.new != self.old:
            _name_taken(rig, self.collection, self.new, where)
        renamed = {(self.new if k == self.old else k): v for k, v in items.items()}
        out = _with_items(rig, self.collection, renamed)
        if self.collection == "chain":
            out = _rename_mounts(out, self.old, self.new)
            out = _rename_in_poses(out, self.old, self.new)
            out = _rename_in_trajectories(out, segment=(self.old, self.new))
        elif self.collection == "poses":
            out = _rename_in_trajectories(out, pose=(self.old, self.new))
        elif self.collection in ("probes", "samples"):  # a target aims at it by name
            out = _rename_in_targets(out, f"{self.collection}.{self.old}", f"{self.collection}.{self.new}")
        elif self.collection == "frames":
            segment = items[self.old].segment
            out = _rename_mounts(out, f"{segment}.{self.old}", f"{segment}.{self.new}", whole=True)
        return out

    def touched(self, rig: Apparatus) -> frozenset[str]:
        out = {paths.join(self.collection, self.old), paths.join(self.collection, self.new)}
        if self.collection == "chain":
            out |= _mounted_on(rig, lambda mount: mount.startswith(self.old + "."))
        elif self.collection == "frames" and self.old in rig.frames:
            named = f"{rig.frames[self.old].segment}.{self.old}"
            out |= _mounted_on(rig, lambda mount: mount == named)
        return frozenset(out)


@dataclass(frozen=True)
class MoveItem(Edit):
    """Move a segment, part or magnet to ``index`` in its collection (the chain's order is the mount order:
    the rules then say which mounts no longer hold)."""

    collection: str
    item: str
    index: int

    @property
    def name(self) -> str:
        return f"Move {_SINGULAR.get(self.collection, 'item')} {self.item}"

    def apply(self, rig: Apparatus) -> Apparatus:
        items = getattr(rig, _collection(self.collection))
        if self.item not in items:
            raise EditError("edit.path", paths.join(self.collection, self.item),
                            f"no {_SINGULAR[self.collection]} {self.item!r}")
        entries = [(k, v) for k, v in items.items() if k != self.item]
        at = max(0, min(int(self.index), len(entries)))
        entries.insert(at, (self.item, items[self.item]))
        return _with_items(rig, self.collection, dict(entries))

    def touched(self, rig: Apparatus) -> frozenset[str]:
        return frozenset({paths.join(self.collection, self.item)})


#: The kind a segment switches to: kinematic <-> dynamic within its family.
_SWITCH = {"Arm.Kinematic": "Arm.Dynamic", "Arm.Dynamic": "Arm.Kinematic",
           "Motor.Kinematic": "Motor.Dynamic", "Motor.Dynamic": "Motor.Kinematic"}


@dataclass(frozen=True)
class SetKind(Edit):
    """Switch a segment between Kinematic and Dynamic (``Arm.Dynamic``, ``Motor.Kinematic`` …). What both
    kinds hold (description, placement, mount, servo, initial positions, axis) is kept; what only the
    dynamic kind holds (armature, actuators, rotor inertia) is dropped going kinematic (undo brings it
    back)."""

    segment: str
    kind: str

    @property
    def name(self) -> str:
        return f"Make {self.segment} {self.kind.rsplit('.', 1)[-1].lower()}"

    def apply(self, rig: Apparatus) -> Apparatus:
        where = paths.join("chain", self.segment)
        seg = rig.chain.get(self.segment)
        if seg is None:
            raise EditError("edit.path", where, f"no segment {self.segment!r}")
        if seg.kind == self.kind:
            return rig
        if _SWITCH.get(seg.kind) != self.kind:
            raise EditError("edit.value", paths.join(where, "kind"),
                            f"a {seg.kind} switches to {_SWITCH.get(seg.kind, 'nothing')}, not {self.kind!r}")
        cls = SEGMENT_KINDS[self.kind]
        names = {f.name for f in dataclasses.fields(cls) if f.init}
        kept = {f.name: getattr(seg, f.name) for f in dataclasses.fields(seg) if f.init and f.name in names}
        return paths.replace(rig, where, cls(**kept))

    def touched(self, rig: Apparatus) -> frozenset[str]:
        return frozenset({paths.join("chain", self.segment)})


@dataclass(frozen=True)
class ReplaceItem(Edit):
    """Replace a whole segment, part or magnet by ``value`` in one step (a change of several of its fields
    that belong together, such as where its mass comes from); ``label`` names the step. With ``merge``,
    consecutive replacements of the same item are one undo step (a keyframe dragged on the timeline)."""

    collection: str
    item: str
    value: object
    label: str = ""
    merge: bool = False

    @property
    def name(self) -> str:
        return self.label or f"Change {_SINGULAR.get(self.collection, 'item')} {self.item}"

    @property
    def merge_key(self):
        return ("replace", self.collection, self.item) if self.merge else None

    def apply(self, rig: Apparatus) -> Apparatus:
        if self.item not in getattr(rig, _collection(self.collection)):
            raise EditError("edit.path", paths.join(self.collection, self.item),
                            f"no {_SINGULAR[self.collection]} {self.item!r}")
        if self.collection in WHOLE:  # no rig path inside it: replaced in its place
            items = dict(getattr(rig, self.collection))
            items[self.item] = self.value
            return _with_items(rig, self.collection, items)
        return paths.replace(rig, paths.join(self.collection, self.item), self.value)

    def touched(self, rig: Apparatus) -> frozenset[str]:
        return frozenset({paths.join(self.collection, self.item)})


@dataclass(frozen=True, eq=False)
class ReplaceRig(Edit):
    """Replace the whole rig (a recovered autosave laid over the file it came from): one undo step back to
    the file as it is on disk."""

    rig: Apparatus
    label: str = "Replace the rig"

    @property
    def name(self) -> str:
        return self.label

    def apply(self, rig: Apparatus) -> Apparatus:
        if not isinstance(self.rig, Apparatus):
            raise EditError("edit.value", "", f"a rig replaces a rig, got {type(self.rig).__name__}")
        return self.rig

    def touched(self, rig: Apparatus) -> frozenset[str]:
        return frozenset({"name", *paths.item_paths(rig), *paths.item_paths(self.rig)})


@dataclass(frozen=True)
class Together(Edit):
    """Several edits as one undo step, applied in order (a part placed on a face: the frame turned to the
    face, and the part on it)."""

    label: str
    edits: tuple

    @property
    def name(self) -> str:
        return self.label

    def apply(self, rig: Apparatus) -> Apparatus:
        for edit in self.edits:
            rig = edit.apply(rig)
        return rig

    def touched(self, rig: Apparatus) -> frozenset[str]:
        out: set[str] = set()
        for edit in self.edits:
            out |= edit.touched(rig)
            try:
                rig = edit.apply(rig)
            except EditError:  # the rig after them all: what each touches there is counted already
                pass
        return frozenset(out)


def _with_items(rig: Apparatus, collection: str, items: dict) -> Apparatus:
    if collection not in WHOLE:
        return paths.with_items(rig, collection, items)
    try:
        return paths.with_items(rig, collection, items)
    except TypeError as err:  # a value that is no Pose: the rig refuses it
        raise EditError("edit.value", collection, str(err)) from None


def _rename_in_poses(rig: Apparatus, old: str, new: str) -> Apparatus:
    """The poses that name segment ``old`` name ``new`` instead (in place: a pose's order is kept)."""
    def renamed(table):
        return {(new if k == old else k): dict(v) for k, v in table.items()}

    if not any(old in pose.values for pose in rig.poses.values()):
        return rig
    poses = {name: Pose(renamed(pose.values), pose.unit, renamed(pose.units)) if old in pose.values else pose
             for name, pose in rig.poses.items()}
    return paths.with_items(rig, "poses", poses)


def _rename_in_targets(rig: Apparatus, old: str, new: str) -> Apparatus:
    """The targets aimed at ``old`` (``probes.<name>``) aim at ``new``."""
    if not any(t.at == old for t in rig.targets.values()):
        return rig
    return paths.with_items(rig, "targets", {n: dataclasses.replace(t, at=new) if t.at == old else t
                                             for n, t in rig.targets.items()})


def _rename_in_trajectories(rig: Apparatus, segment=None, pose=None) -> Apparatus:
    """The trajectories that name segment ``segment[0]`` (or pose ``pose[0]``) name the new one instead."""
    def key(k):
        return segment[1] if segment is not None and k == segment[0] else k

    def keyframe(k):
        return dataclasses.replace(k, pose=pose[1]) if pose is not None and k.pose == pose[0] else k

    out = {}
    for name, t in rig.trajectories.items():
        segments = {key(s): [keyframe(k) for k in keys] for s, keys in t.segments.items()}
        limits = {key(s): v for s, v in t.acceleration_limits.items()}
        out[name] = dataclasses.replace(t, segments=segments, acceleration_limits=limits)
    if out == rig.trajectories:
        return rig
    return paths.with_items(rig, "trajectories", out)


def _rename_mounts(rig: Apparatus, old: str, new: str, whole: bool = False) -> Apparatus:
    """Every mount on segment ``old`` (``old.frame``) now on ``new``; with ``whole``, every mount that is
    exactly ``old`` (a declared frame ``segment.name``) now ``new``."""
    prefix = old + "."
    for collection in COLLECTIONS:
        for name, item in getattr(rig, collection).items():
            mount = getattr(item, "mount", None)
            if not isinstance(mount, str):
                continue
            if whole and mount == old:
                rig = paths.replace(rig, paths.join(collection, name, "mount"), new)
            elif not whole and mount.startswith(prefix):
                where = paths.join(collection, name, "mount")
                rig = paths.replace(rig, where, new + "." + mount[len(prefix):])
    return rig


def _mounted_on(rig: Apparatus, named) -> set[str]:
    """The item paths of everything whose mount ``named(mount)`` accepts."""
    out = set()
    for collection in COLLECTIONS:
        for name, item in getattr(rig, collection).items():
            mount = getattr(item, "mount", None)
            if isinstance(mount, str) and named(mount):
                out.add(paths.join(collection, name))
    return out


__all__ = ["AddItem", "Edit", "EditError", "MoveItem", "RemoveItem", "Remount", "RenameItem", "ReplaceItem",
           "ReplaceRig", "SetArmature", "SetKind", "SetValue", "Together"]
