"""What is shown: the layer toggles, items hidden one by one (the tree's context menu), per-frame toggles and
the frame name filter, and the robot's opacity (see-through visuals and parts).

Hidden layers are not moved by pose updates; they catch up when shown.
"""

from __future__ import annotations

import fnmatch
import re

import numpy as np

from mime_gui.app.scene.actors import SEE_THROUGH, ActorRegistry, SegmentActors
from mime_gui.app.scene.decorations import Decorations
from mime_gui.session.renderer import DEFAULT_LAYERS, LAYERS, ItemRef

#: Layers drawn by the overlay renderer (over the geometry; each pass costs on a software GL).
OVERLAY_LAYERS = ("frames", "frame_labels", "joint_axes", "com")


def as_link(item: ItemRef) -> ItemRef:
    """Grafted parts and magnets are links of their segment's tree."""
    if item.kind in ("part", "magnet"):
        return ItemRef(item.segment, "link", item.name)
    return item


#: the opacity factor of a part drawn as it was while its shape or place is being fixed
DIM = 0.35


class Visibility:
    """The layer toggles (``layers``), the hidden items, the frame filter and the robot opacity, applied to
    every actor of the registry (and the grid of ``decorations``)."""

    def __init__(self, registry: ActorRegistry, decorations: Decorations):
        self.registry = registry
        self.decorations = decorations
        self.layers = dict(DEFAULT_LAYERS)
        self.hidden: set[ItemRef] = set()
        self.frame_filter = ""
        self.dimmed: frozenset[ItemRef] = frozenset()  # parts drawn as they were (session/stand_ins.py)
        self.overlay_wanted = lambda: False  # something else drawn over the geometry is shown (the handles)

    def check_layer(self, layer: str) -> None:
        if layer not in LAYERS:
            raise ValueError(f"unknown layer {layer!r}; layers: {', '.join(LAYERS)}")

    def set_item(self, item: ItemRef, visible: bool) -> None:
        item = as_link(item)
        if visible:
            self.hidden.discard(item)
        else:
            self.hidden.add(item)

    def item_visible(self, item: ItemRef) -> bool:
        return as_link(item) not in self.hidden

    def forget_gone(self, segments) -> None:
        """After an edit, hidden items of ``segments`` (names) that no longer exist are forgotten, as the
        Session forgets them: a part removed and added again is shown."""
        drawn = self.registry.segments

        def exists(ref: ItemRef) -> bool:
            seg = drawn.get(ref.segment)
            if seg is None:
                return False
            if ref.kind == "joint":
                return ref.name in seg.tree.joints
            if ref.kind == "frame":
                return ref.name in seg.art.frame_names
            return ref.name in seg.tree.links

        self.hidden = {ref for ref in self.hidden if ref.segment not in segments or exists(ref)}

    def frame_shown(self, seg: SegmentActors) -> np.ndarray:
        """Per frame: its own toggle and the name filter (a glob, else a case-insensitive substring)."""
        shown = seg.frame_visible.copy()
        if self.frame_filter:
            pat = self.frame_filter
            if any(ch in pat for ch in "*?["):
                rx = re.compile(fnmatch.translate(pat), re.IGNORECASE)
                match = [bool(rx.match(n)) for n in seg.art.frame_names]
            else:
                low = pat.lower()
                match = [low in n.lower() for n in seg.art.frame_names]
            shown &= np.array(match, dtype=bool)
        return shown

    def apply(self, lit=()) -> None:
        """Set every actor's visibility from the layers, the hidden items and the frame toggles and filter;
        ``lit``: highlighted actors, which stay visible unless their item is hidden."""
        hidden = self.hidden
        layers = self.layers
        for seg in self.registry.segments.values():
            shown = self.frame_shown(seg)
            for layer, group in seg.layers.items():
                on = layers[layer]
                if layer == "frames":
                    for a, f, ref in zip(group.actors, group.frames, group.refs, strict=True):
                        a.SetVisibility(on and bool(shown[f]) and ref not in hidden)
                elif hidden:
                    for a, ref in zip(group.actors, group.refs, strict=True):
                        a.SetVisibility(on and ref not in hidden)
                else:
                    for a in group.actors:
                        a.SetVisibility(on)
            on = layers["frame_labels"]
            for i, label in enumerate(seg.labels):
                hide = bool(hidden) and ItemRef(seg.name, "frame", seg.art.frame_names[i]) in hidden
                label.SetVisibility(on and bool(shown[i]) and not hide)
        grid = self.decorations.grid_actor
        if grid is not None:
            grid.SetVisibility(layers["grid"])
        lit = list(lit)
        self.update_overlay_draw(bool(lit))
        by_actor = self.registry.by_actor
        for actor in lit:
            if actor.GetMapper() is not None and by_actor.get(id(actor)) not in hidden:
                actor.SetVisibility(True)

    def update_overlay_draw(self, highlighting: bool) -> None:
        """The overlay pass only runs when it has something to draw (each pass costs on a software GL): a
        layer drawn over the geometry, a highlight, or the selected item's handles."""
        self.registry.overlay.SetDraw(any(self.layers[layer] for layer in OVERLAY_LAYERS) or highlighting
                                      or self.overlay_wanted())

    # -- opacity -----------------------------------------------------------------------------------
    @property
    def opacity(self) -> float:
        return self.registry.see_through

    def set_opacity(self, opacity: float) -> None:
        """See-through robot: the visuals and parts at ``opacity`` (0.1 … 1) times each colour's own alpha
        (and :data:`DIM` for a part drawn as it was while its shape is being fixed)."""
        opacity = float(opacity)
        if not 0.1 <= opacity <= 1.0:
            raise ValueError(f"opacity {opacity} is outside 0.1 … 1")
        self.registry.see_through = opacity
        own = self.registry.own_opacity
        dimmed = self.dimmed
        for seg in self.registry.segments.values():
            for layer in SEE_THROUGH:
                group = seg.layers[layer]
                for actor, ref in zip(group.actors, group.refs, strict=True):
                    dim = DIM if dimmed and ref in dimmed else 1.0
                    actor.GetProperty().SetOpacity(own.get(id(actor), 1.0) * opacity * dim)
        for actor, _ref in self.registry.extra.values():  # parts fixed in the world, as the parts on links
            actor.GetProperty().SetOpacity(own.get(id(actor), 1.0) * opacity)
