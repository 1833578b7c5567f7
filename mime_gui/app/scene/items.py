"""The parts, magnets and probes as the session pushed them to the view (:mod:`mime_gui.session.items`):
each drawn item, its world pose, the field's source and the centre of mass, beside what the view itself
knows (the highlighted item, the layers, the frame poses). The view's marks (:mod:`.world_parts`,
:mod:`.part_marks`, :mod:`.probe_marks`) and field drawings (:mod:`.field_plane`) draw from it, never from
the session.

A listener (:meth:`SceneItems.listen`) has any of ``items_changed(change, reset)`` (``reset``: every item
was replaced, a document was shown), ``items_moved(refs)``, ``selection_changed(ref)`` and
``layer_changed(layer)``. Item changes, the selection and layers reach it at once; moves once per render,
just before it, so a playback step or a slider's many pose pushes cost one placement per frame.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mime_gui.session.items import DrawnItem, FieldSource, ItemChange
from mime_gui.session.renderer import ItemRef


class SceneItems:
    def __init__(self, frame_pose: Callable[[str, str], np.ndarray]):
        self.frame_pose = frame_pose  # (segment, frame) -> the view's copy of its world pose
        self.items: dict[ItemRef, DrawnItem] = {}
        self.poses: dict[ItemRef, np.ndarray] = {}
        self.field = FieldSource()
        self.com: np.ndarray | None = None
        self.selection: ItemRef | None = None
        self._by_link: dict[tuple[str, str], DrawnItem] = {}  # a graft link -> the part or magnet it is
        self._listeners: list = []
        self._moved: set[ItemRef] = set()
        self._com_moved = False

    def listen(self, listener) -> None:
        self._listeners.append(listener)

    def _tell(self, what: str, *args) -> None:
        for listener in list(self._listeners):
            fn = getattr(listener, what, None)
            if fn is not None:
                fn(*args)

    # -- the pushes (from the view's Renderer methods) ------------------------------------------------------
    def show(self, change: ItemChange) -> None:
        self.items = dict(change.added)
        self.poses = {}
        self._moved.clear()
        self._take(change)
        self._tell("items_changed", change, True)

    def update(self, change: ItemChange) -> None:
        for ref in change.removed:
            self.items.pop(ref, None)
            self.poses.pop(ref, None)
            self._moved.discard(ref)
        self.items.update(change.added)
        self.items.update(change.changed)
        self._take(change)
        self._tell("items_changed", change, False)

    def _take(self, change: ItemChange) -> None:
        self.poses.update({ref: np.array(X, dtype=float) for ref, X in change.poses.items()})
        self.field = change.field
        self.com = None if change.com is None else np.array(change.com, dtype=float)
        self._by_link = {item.rides: item for item in self.items.values()
                         if item.rides is not None and item.ref.kind in ("part", "magnet")}

    def set_poses(self, poses: dict, com=None) -> bool:
        """Keep the moved items' poses; True when something is to be placed at the next render."""
        for ref, X in poses.items():
            if ref in self.items:
                self.poses[ref] = np.array(X, dtype=float)  # a copy: the session may reuse its array
                self._moved.add(ref)
        com = None if com is None else np.array(com, dtype=float)
        if com is not None or self.com is not None:
            self.com = com
            self._com_moved = True
        return bool(self._moved) or self._com_moved

    def flush(self) -> None:
        """Tell the listeners what moved since the last render (the view runs it just before rendering)."""
        if not self._moved and not self._com_moved:
            return
        moved, self._moved, self._com_moved = frozenset(self._moved), set(), False
        self._tell("items_moved", moved)

    def select(self, ref: ItemRef | None) -> None:
        self.selection = ref
        self._tell("selection_changed", ref)

    def layer(self, layer: str) -> None:
        self._tell("layer_changed", layer)

    # -- reading -------------------------------------------------------------------------------------
    def item_of(self, ref: ItemRef | None) -> DrawnItem | None:
        """The drawn item ``ref`` names: a part, magnet or probe, or the link a part or magnet is grafted as
        (what a click on it selects)."""
        if ref is None:
            return None
        if ref.kind == "link":
            return self._by_link.get((ref.segment, ref.name))
        return self.items.get(ItemRef("", ref.kind, ref.name))

    def frame_poses(self, names) -> np.ndarray:
        """World poses of ``segment.frame`` names (a build's ``frame_names``), from the view's copies; raises
        KeyError for a frame the view does not draw."""
        if not names:
            return np.zeros((0, 4, 4))
        return np.stack([self.frame_pose(*name.split(".", 1)) for name in names])


__all__ = ["SceneItems"]
