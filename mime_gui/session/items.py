"""The parts, magnets, probes, samples and keep-out zones as the 3D view draws them, computed from the
document without Qt: which are drawn, what each looks like, where each is in the world, and what the
magnets' field is computed from. The
view state pushes them through the :class:`~mime_gui.session.renderer.Renderer` as item changes
(:class:`ItemChange`) and moved items' poses.

An item rides on a frame (``rides``: ``(segment, frame)``, or None when fixed in the world) and sits at
``local`` in it, so its world pose is that frame's pose times ``local``:

- a part or magnet on a segment rides on the link it is grafted as (its centroid, the mount frame's axes); the
  segment draws its shape, so it comes without one;
- a part or magnet fixed in the world has no segment to be drawn with: its shape (its kind's primitive or
  triangles, :func:`~mime_gui.rig.visuals.part_shape`) comes with it; one whose shape breaks a rule is not
  drawn until it is fixed, as on a segment;
- a probe rides on its mount frame, ``at`` from it (so its pose's z axis is the frame's); one on a frame the
  drawn rig lacks is not drawn;
- a sample and a zone ride the same way (or sit in the world): a sample with its size (``half_extents``, None
  for a declared moment, which has no shape), its moment's direction in its mount frame (``moment``) and
  whether it turns along the field (``follows``); a zone with its outline (``outline``: ``"box"`` or
  ``"sphere"``, ``half_extents`` its half sizes) and its |B| limit (``limit``, T). A zone whose shape breaks
  a rule is not drawn until it is fixed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from mime_gui.rig.parts import PermanentMagnet
from mime_gui.rig.segments import direction
from mime_gui.rig.visuals import part_shape
from mime_gui.rig.zone_rules import zone_problems
from mime_gui.session.document import Document
from mime_gui.session.renderer import ItemRef


@dataclass(frozen=True, eq=False)
class DrawnItem:
    """What the view needs to draw one part, magnet, probe, sample or zone, its pose aside."""

    ref: ItemRef  # ("", "part" | "magnet" | "probe" | "sample" | "zone", name)
    rides: tuple[str, str] | None  # (segment, frame) it follows; None: fixed in the world
    local: np.ndarray  # (4, 4): the item in the frame it rides on (in the world when it rides on none)
    shape: object = None  # a description Shape the view draws itself: a part fixed in the world
    moment: tuple[float, float, float] | None = None  # a magnet's magnetisation direction, in its own axes
    half_extents: tuple[float, float, float] | None = None  # a part's, sample's or zone's, along its axes
    key: tuple = field(default=(), repr=False)  # what the drawing comes from: equal keys, the same drawing
    follows: bool = False  # a sample whose moment turns along the field
    outline: str | None = None  # a zone's: "box" or "sphere"
    limit: float | None = None  # a zone's largest |B| allowed inside, T


@dataclass(frozen=True, eq=False)
class FieldSource:
    """What the magnets' field is computed from: the last good build (None while there is none to compute
    it from, ``why`` says why)."""

    built: object = None
    why: str = "nothing is open"


@dataclass(frozen=True, eq=False)
class ItemChange:
    """One push of items: those ``added``, ``changed`` (drawn anew) and ``removed``; every drawn item's world
    pose after it (``poses``, ref → (4, 4)); the field's source; the whole apparatus's centre of mass in the
    world (None when it is not shown, or not known)."""

    added: Mapping[ItemRef, DrawnItem] = field(default_factory=dict)
    changed: Mapping[ItemRef, DrawnItem] = field(default_factory=dict)
    removed: frozenset[ItemRef] = frozenset()
    poses: Mapping[ItemRef, np.ndarray] = field(default_factory=dict)
    field: FieldSource = field(default_factory=FieldSource)
    com: np.ndarray | None = None


def _at(at) -> np.ndarray:
    X = np.eye(4)
    X[:3, 3] = np.asarray(at, dtype=float)
    X.setflags(write=False)
    return X


_IDENTITY = np.eye(4)
_IDENTITY.setflags(write=False)


def _half_extents(geometry) -> tuple[float, float, float]:
    """A kind's half extents along its axes; one with none (a mesh) counts as 10 mm each way."""
    half = getattr(geometry, "half_extents", None)
    try:
        h = np.asarray(half(), dtype=float) if half is not None else None
    except Exception:  # a shape being fixed (a finding): outlined as a small box meanwhile
        h = None
    if h is None or h.shape != (3,) or not np.all(np.isfinite(h)):
        h = np.full(3, 0.01)
    return tuple(float(v) for v in h)


def drawn_items(doc: Document | None, previous: Mapping[ItemRef, DrawnItem] | None = None
                ) -> dict[ItemRef, DrawnItem]:
    """Every drawn part, magnet, probe, sample and zone of the document, by ref; an item whose key is the
    one in ``previous`` is the same object (its shape is not computed again)."""
    if doc is None:
        return {}
    previous = previous or {}
    rig = doc.rig
    base = getattr(rig, "base", None)
    grafts = {name: (seg_name, link) for seg_name, seg in doc.segments.items()
              for link, (_collection, name) in seg.grafts.items()}
    out: dict[ItemRef, DrawnItem] = {}

    def keep(ref: ItemRef, key: tuple, make) -> None:
        old = previous.get(ref)
        if old is not None and _same(old.key, key):
            out[ref] = old
            return
        item = make()
        if item is not None:
            out[ref] = item

    for collection, name, part in rig.solids():
        ref = ItemRef("", "magnet" if collection == "magnets" else "part", name)
        rides = grafts.get(name)
        if rides is None and part.mount is not None:
            continue  # on a mount being fixed: not drawn, as on a segment
        keep(ref, (part, rides), lambda ref=ref, part=part, rides=rides: _part_item(ref, part, rides, base))
    for kind, collection, make in (("probe", "probes", _probe_item), ("sample", "samples", _sample_item),
                                   ("zone", "zones", _zone_item)):
        for name, value in getattr(rig, collection, {}).items():
            ref = ItemRef("", kind, name)
            found, rides = _rides(doc, value.mount)
            if not found:
                continue  # a mount being fixed (a finding): drawn once it is one
            keep(ref, (value, rides), lambda ref=ref, value=value, rides=rides, make=make: make(
                ref, value, rides, base))
    return out


def _rides(doc: Document, mount) -> tuple[bool, tuple[str, str] | None]:
    """``(found, (segment, frame))`` of a mount (``(True, None)`` in the world); not found: a frame the
    drawn rig lacks."""
    if mount is None:
        return True, None
    segment, _, frame = str(mount).partition(".")
    seg = doc.segments.get(segment)
    if seg is None or frame not in seg.articulation.frame_names:
        return False, None
    return True, (segment, frame)


def _probe_item(ref: ItemRef, probe, rides, _base) -> DrawnItem:
    return DrawnItem(ref, rides, _at(probe.at), key=(probe, rides))


def _sample_item(ref: ItemRef, sample, rides, base) -> DrawnItem:
    """A sample: its size when its shape holds (None for a declared moment, or a shape being fixed), its
    moment's direction in its mount frame (None while it has none)."""
    half = None
    if sample.geometry is not None:
        try:
            ok = not sample.geometry.problems(base)
        except Exception:  # a value of the wrong type being fixed (a finding)
            ok = False
        half = _half_extents(sample.geometry) if ok else None
    moment = direction(sample.magnetisation)
    moment = None if moment is None else tuple(float(v) for v in moment)
    return DrawnItem(ref, rides, _at(sample.at), None, moment, half, (sample, rides),
                     follows=sample.orientation == "follows")


def _zone_item(ref: ItemRef, zone, rides, _base) -> DrawnItem | None:
    if any(code == "zone.shape" for code, _w, _m in zone_problems(zone)):
        return None  # a shape being fixed (a finding): drawn once it is one
    if zone.box is not None:
        half, outline = tuple(0.5 * float(v) for v in zone.box), "box"
    else:
        half, outline = (float(zone.sphere),) * 3, "sphere"
    return DrawnItem(ref, rides, _at(zone.at), None, None, half, (zone, rides), outline=outline,
                     limit=float(zone.limit))


def _part_item(ref: ItemRef, part, rides, base) -> DrawnItem | None:
    moment = direction(part.magnetisation) if isinstance(part, PermanentMagnet) else None
    moment = None if moment is None else tuple(float(v) for v in moment)
    half = _half_extents(part.geometry)
    key = (part, rides)
    if rides is not None:
        return DrawnItem(ref, rides, _IDENTITY, None, moment, half, key)
    if part.geometry.problems(base):  # a shape being fixed (a finding) is drawn once it is one
        return None
    try:
        shape = part_shape(part, part.geometry.mass_properties(base).centroid, base)
    except Exception:  # a shape being fixed (a finding): drawn once it can be
        return None
    return DrawnItem(ref, None, _at(part.at), shape, moment, half, key)


def _same(a: tuple, b: tuple) -> bool:
    try:
        return bool(a == b)
    except Exception:  # values that do not compare (arrays): drawn anew
        return False


def diff(old: Mapping[ItemRef, DrawnItem], new: Mapping[ItemRef, DrawnItem]):
    """``(added, changed, removed)`` from ``old`` to ``new`` (an item is changed when it is another object:
    :func:`drawn_items` keeps the object of an item whose drawing did not change)."""
    added = {ref: item for ref, item in new.items() if ref not in old}
    changed = {ref: item for ref, item in new.items() if ref in old and old[ref] is not item}
    removed = frozenset(ref for ref in old if ref not in new)
    return added, changed, removed


def item_poses(doc: Document | None, items: Mapping[ItemRef, DrawnItem], segments=None
               ) -> dict[ItemRef, np.ndarray]:
    """The world pose of each item (only of those riding on ``segments`` when given: what moved with them)."""
    out: dict[ItemRef, np.ndarray] = {}
    if doc is None:
        return out
    for ref, item in items.items():
        if item.rides is None:
            if segments is None:
                out[ref] = np.array(item.local)
            continue
        segment, frame = item.rides
        if segments is not None and segment not in segments:
            continue
        seg = doc.segments.get(segment)
        if seg is None:
            continue
        X = seg.frame_pose(frame)
        out[ref] = X.copy() if item.local is _IDENTITY else X @ item.local
    return out


def field_source(doc: Document | None) -> FieldSource:
    if doc is None:
        return FieldSource()
    built = doc.built
    if built is None or doc.findings:
        return FieldSource(None, "the rig breaks rules (see Validation)")
    if not built.apparatus.magnets:
        return FieldSource(None, "the rig has no magnets")
    return FieldSource(built, "")


__all__ = ["DrawnItem", "FieldSource", "ItemChange", "diff", "drawn_items", "field_source", "item_poses"]
