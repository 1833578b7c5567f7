"""What the Session asks of a 3D view. The Qt/PyVista scene implements it; tests use :class:`FakeRenderer`.

Items are addressed by ``(segment, kind, name)`` references, ``kind`` one of ``link``, ``joint``, ``frame``,
``part``, ``magnet``. A pose update is one call per segment with the world poses of its frames, in the
Articulation's ``frame_names`` order, and the view only assigns actor matrices (no rebuild).
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

    def set_layer_visible(self, layer: str, visible: bool) -> None: ...

    def highlight(self, item: ItemRef | None) -> None: ...

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

    def set_layer_visible(self, layer: str, visible: bool) -> None:
        if layer not in LAYERS:
            raise ValueError(f"unknown layer {layer!r}; layers: {', '.join(LAYERS)}")
        self.calls.append("set_layer_visible")
        self.layers[layer] = bool(visible)

    def highlight(self, item: ItemRef | None) -> None:
        self.calls.append("highlight")
        self.highlighted = item

    def set_item_visible(self, item: ItemRef, visible: bool) -> None:
        self.calls.append("set_item_visible")
        if visible:
            self.hidden.discard(item)
        else:
            self.hidden.add(item)

    def request_render(self) -> None:
        self.renders += 1
