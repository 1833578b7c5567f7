"""What the Session asks of a 3D view. The Qt/PyVista scene implements it; tests use :class:`FakeRenderer`.

Items are addressed by ``(segment, kind, name)`` references, ``kind`` one of ``link``, ``joint``, ``frame``,
``part``, ``magnet``. A pose update is one call per segment with the world poses of its frames, in the
Articulation's ``frame_names`` order, and the view only assigns actor matrices (no rebuild).

Parts, magnets and probes reach the view the same way, as items (:mod:`mime_gui.session.items`): the whole
set when a document is shown (``show_items``), what an edit added, changed and removed (``update_items``),
and the world poses of the items that moved (``set_item_poses``). The view draws from these pushes only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

#: Display layers a view can toggle.
LAYERS = ("visual", "collision", "frames", "frame_labels", "joint_axes", "com", "inertia", "grid", "parts")
#: Layers shown when a document opens (the Session's and a fresh view's).
DEFAULT_LAYERS = {
    "visual": True, "collision": False, "frames": False, "frame_labels": False, "joint_axes": False,
    "com": False, "inertia": False, "grid": True, "parts": True,
}


#: the kinds of :class:`ItemRef` that stand for an item of the rig by itself (``ItemRef("", "probe", name)``),
#: each with its collection
ITEM_COLLECTIONS = {"part": "parts", "magnet": "magnets", "probe": "probes", "sample": "samples",
                    "zone": "zones"}
#: those that ride on a frame by themselves (a part or a magnet is grafted as a link of its segment)
RIDERS = {kind: c for kind, c in ITEM_COLLECTIONS.items() if kind not in ("part", "magnet")}


@dataclass(frozen=True)
class ItemRef:
    segment: str
    kind: str
    name: str

    def path(self) -> str:
        return f"{self.segment}.{self.name}" if self.segment else self.name


class Renderer(Protocol):
    def show_segments(self, segments: dict) -> None:
        """Replace the scene: ``segments`` maps a segment name to its MultibodyTree, or to a
        ``(tree, Articulation)`` pair whose frame order the poses follow (meshes load once)."""

    def update_segments(self, changed: dict, removed=()) -> None:
        """Apply a change set in place: ``changed`` maps a segment name to its new ``(tree, Articulation)``
        (a new segment, or one whose tree changed: a part grafted or removed, a description edited);
        ``removed`` names segments that are gone. Actors of links and frames whose drawing did not change
        are kept (a part added adds exactly its actors), and the camera stays where the user put it."""

    def set_frame_poses(self, segment: str, world_X_frame: np.ndarray) -> None:
        """Move the segment's actors: ``(nframes, 4, 4)`` in its Articulation's frame order. The view keeps
        a copy: the caller may rewrite its array afterwards."""

    def show_items(self, change) -> None:
        """Replace the drawn parts, magnets and probes: ``change``
        (:class:`~mime_gui.session.items.ItemChange`) lists every item as added, with every item's world
        pose, the field's source and the centre of mass."""

    def update_items(self, change) -> None:
        """Apply an item change set in place: the items added, changed (drawn anew) and removed, every
        item's world pose after it, the field's source and the centre of mass."""

    def set_item_poses(self, poses: dict, com=None) -> None:
        """Move the items that moved: ``poses`` maps an item's ref to its world pose (4, 4); ``com`` is the
        apparatus's centre of mass now (None when it is not shown)."""

    def set_layer_visible(self, layer: str, visible: bool) -> None: ...

    def highlight(self, item: ItemRef | None) -> None: ...

    def set_dimmed(self, items) -> None:
        """Draw these items (grafted parts' links) dimmed: parts stood in for while their shape is being
        fixed (:mod:`~mime_gui.session.stand_ins`); every other item as before."""

    # Optional: ``set_item_visible(item, visible)`` hides or shows one item's actors; the Session calls it
    # when the renderer has it (the tree's context menu).

    def request_render(self) -> None:
        """Ask for one render; many requests in one event-loop turn coalesce into one."""


@dataclass
class FakeRenderer:
    """Records what the Session asked for, for headless tests."""

    segments: dict = field(default_factory=dict)
    poses: dict = field(default_factory=dict)
    layers: dict = field(default_factory=dict)
    highlighted: ItemRef | None = None
    hidden: set = field(default_factory=set)
    renders: int = 0
    calls: list = field(default_factory=list)
    items: dict = field(default_factory=dict)  # ref -> DrawnItem
    item_poses: dict = field(default_factory=dict)  # ref -> (4, 4)
    item_changes: list = field(default_factory=list)  # every ItemChange pushed, shown or updated
    field_source: object = None
    com: object = None
    dimmed: frozenset = frozenset()

    def show_segments(self, segments: dict) -> None:
        self.calls.append("show_segments")
        self.segments = dict(segments)
        self.poses.clear()
        self.hidden.clear()

    def update_segments(self, changed: dict, removed=()) -> None:
        self.calls.append("update_segments")
        for name in removed:
            self.segments.pop(name, None)
            self.poses.pop(name, None)
        self.segments.update(changed)

    def set_frame_poses(self, segment: str, world_X_frame: np.ndarray) -> None:
        self.calls.append("set_frame_poses")
        self.poses[segment] = np.array(world_X_frame, copy=True)

    def show_items(self, change) -> None:
        self.calls.append("show_items")
        self.item_changes.append(change)
        self.items = dict(change.added)
        self.item_poses = {ref: np.array(X, copy=True) for ref, X in change.poses.items()}
        self.field_source, self.com = change.field, change.com

    def update_items(self, change) -> None:
        self.calls.append("update_items")
        self.item_changes.append(change)
        for ref in change.removed:
            self.items.pop(ref, None)
            self.item_poses.pop(ref, None)
        self.items.update(change.added)
        self.items.update(change.changed)
        self.item_poses.update({ref: np.array(X) for ref, X in change.poses.items()})
        self.field_source, self.com = change.field, change.com

    def set_item_poses(self, poses: dict, com=None) -> None:
        self.calls.append("set_item_poses")
        self.item_poses.update({ref: np.array(X, copy=True) for ref, X in poses.items()})
        self.com = com

    def set_layer_visible(self, layer: str, visible: bool) -> None:
        if layer not in LAYERS:
            raise ValueError(f"unknown layer {layer!r}; layers: {', '.join(LAYERS)}")
        self.calls.append("set_layer_visible")
        self.layers[layer] = bool(visible)

    def highlight(self, item: ItemRef | None) -> None:
        self.calls.append("highlight")
        self.highlighted = item

    def set_dimmed(self, items) -> None:
        self.calls.append("set_dimmed")
        self.dimmed = frozenset(items)

    def set_item_visible(self, item: ItemRef, visible: bool) -> None:
        self.calls.append("set_item_visible")
        if visible:
            self.hidden.discard(item)
        else:
            self.hidden.add(item)

    def request_render(self) -> None:
        self.renders += 1
