"""The view-state component of the session: what is selected, which items are hidden, which layers are
shown, the measures kept (:mod:`~mime_gui.session.measures`), and the attached view
(:class:`~mime_gui.session.renderer.Renderer`) these are pushed to, with the
parts, magnets and probes it draws (:mod:`~mime_gui.session.items`: all of them when a document is shown,
what an edit changed, the poses of those that moved). Nothing is computed for a view while none is attached.

Events: ``selection_changed(item)``, ``layers_changed(layer, visible)``,
``visibility_changed(item, visible)``, ``measures_changed(measures)``.
"""

from __future__ import annotations

from collections.abc import Callable

from mime_gui.session.document import Document
from mime_gui.session.errors import SessionError, refuse
from mime_gui.session.events import Event
from mime_gui.session.items import DrawnItem, ItemChange, diff, drawn_items, field_source, item_poses
from mime_gui.session.mass_properties import document_mass_table
from mime_gui.session.measures import MeasureList
from mime_gui.session.renderer import DEFAULT_LAYERS, LAYERS, RIDERS, ItemRef, Renderer


class ViewState:
    def __init__(self, document: Callable[[], Document | None], error: Event) -> None:
        self._selection: ItemRef | None = None
        self._layers: dict[str, bool] = dict(DEFAULT_LAYERS)
        self._hidden: set[ItemRef] = set()
        self._renderer: Renderer | None = None
        self._items: dict[ItemRef, DrawnItem] = {}  # the parts, magnets and probes last pushed to the view
        self.selection_changed = Event("selection_changed")
        self.layers_changed = Event("layers_changed")
        self.visibility_changed = Event("visibility_changed")
        self.measures = MeasureList(document, error)  # view state: neither saved with the rig nor undone
        self.measures_changed = self.measures.measures_changed
        self._document = document  # the open document or None
        self._error = error

    @property
    def selection(self) -> ItemRef | None:
        return self._selection

    @property
    def layers(self) -> dict[str, bool]:
        """Layer → shown (a copy)."""
        return dict(self._layers)

    @property
    def hidden(self) -> frozenset[ItemRef]:
        return frozenset(self._hidden)

    @property
    def renderer(self) -> Renderer | None:
        return self._renderer

    def has_item(self, item: ItemRef) -> bool:
        return has_item(self._document(), item)

    # -- the view ----------------------------------------------------------------------------------------
    def attach(self, renderer: Renderer | None) -> None:
        """Attach a view and bring it up to date (scene, poses, layers, highlight)."""
        self._renderer = renderer
        if renderer is None:  # what was pushed went with the view
            self._items = {}
            return
        for layer, on in self._layers.items():
            renderer.set_layer_visible(layer, on)
        self.show()

    def show(self) -> None:
        """Draw the document anew in the attached view: its segments, their poses, its parts, magnets and
        probes, what is hidden and the highlight."""
        r = self._renderer
        if r is None:
            return
        doc = self._document()
        segments = doc.segments if doc is not None else {}
        r.show_segments({name: (seg.tree, seg.articulation) for name, seg in segments.items()})
        for name, seg in segments.items():
            r.set_frame_poses(name, seg.world_X_frame)
        self._items = drawn_items(doc)
        r.show_items(ItemChange(added=dict(self._items), poses=item_poses(doc, self._items),
                                field=field_source(doc), com=self._com()))
        for item in self._hidden:
            r.set_item_visible(item, False)
        r.highlight(self._selection)
        r.request_render()

    @property
    def items(self) -> dict[ItemRef, DrawnItem]:
        """The parts, magnets and probes as last pushed to the view (a copy; empty without a view)."""
        return dict(self._items)

    def update_items(self) -> None:
        """After an edit (the segments drawn and placed anew): push the items added, changed and removed,
        every item's pose, the field's source and the centre of mass."""
        r = self._renderer
        if r is None:
            return
        doc = self._document()
        new = drawn_items(doc, self._items)
        added, changed, removed = diff(self._items, new)
        self._items = new
        r.update_items(ItemChange(added, changed, removed, item_poses(doc, new), field_source(doc),
                                  self._com()))

    def move_items(self, segments) -> None:
        """Segments moved: push the poses of the items riding on them (and the centre of mass, when shown)."""
        r = self._renderer
        if r is None:
            return
        poses = item_poses(self._document(), self._items, frozenset(segments))
        com = self._com()
        if poses or com is not None:
            r.set_item_poses(poses, com)

    def _com(self):
        """The apparatus's centre of mass in the world while its layer is shown (None otherwise: nothing
        computes it for a mark that is hidden)."""
        if not self._layers.get("com"):
            return None
        return document_mass_table(self._document()).total.com

    def prune(self) -> bool:
        """Forget the hidden items and the selection the document no longer has; True when the selection was
        dropped (the caller emits ``selection_changed``, after its own events)."""
        self._hidden = {item for item in self._hidden if self.has_item(item)}
        if self._selection is not None and not self.has_item(self._selection):
            self._selection = None
            return True
        return False

    def clear(self) -> None:
        """Nothing open: nothing selected or hidden."""
        self._selection = None
        self._hidden.clear()

    # -- selection, visibility, layers ---------------------------------------------------------------
    def select(self, item: ItemRef | None) -> bool:
        """Select an item (or clear with None); unknown items raise ``session.item``. True when the
        selection changed."""
        if item is not None and not self.has_item(item):
            raise self._fail("session.item", f"no {item.kind} {item.name!r} in segment {item.segment!r}")
        if item == self._selection:
            return False
        self._selection = item
        if self._renderer is not None:
            self._renderer.highlight(item)
            self._renderer.request_render()
        self.selection_changed.emit(item)
        return True

    def is_item_visible(self, item: ItemRef) -> bool:
        return item not in self._hidden

    def set_item_visible(self, item: ItemRef, visible: bool) -> None:
        """Hide or show one item in the view (the tree's context menu)."""
        if not self.has_item(item):
            raise self._fail("session.item", f"no {item.kind} {item.name!r} in segment {item.segment!r}")
        visible = bool(visible)
        if (item not in self._hidden) == visible:
            return
        if visible:
            self._hidden.discard(item)
        else:
            self._hidden.add(item)
        if self._renderer is not None:
            self._renderer.set_item_visible(item, visible)
            self._renderer.request_render()
        self.visibility_changed.emit(item, visible)

    def set_layer_visible(self, layer: str, visible: bool) -> None:
        if layer not in LAYERS:
            raise self._fail("session.layer", f"unknown layer {layer!r}; layers: {', '.join(LAYERS)}")
        visible = bool(visible)
        if self._layers.get(layer) == visible:
            return
        self._layers[layer] = visible
        if self._renderer is not None:
            self._renderer.set_layer_visible(layer, visible)
            if layer == "com":  # the centre of mass is computed only while shown
                self._renderer.set_item_poses({}, self._com())
            self._renderer.request_render()
        self.layers_changed.emit(layer, visible)

    def _fail(self, code: str, message: str, file: str = "") -> SessionError:
        return refuse(self._error, code, message, file)


#: the items that ride on a frame without being part of a segment's tree, by kind: their rig collection


def has_item(doc: Document | None, item: ItemRef) -> bool:
    """Whether the document has ``item``: a part, magnet, probe, sample or zone of its rig (on the segment
    named, when one is), or a segment, link, joint or frame of its drawn segments."""
    if doc is None:
        return False
    rig = doc.rig
    if item.kind in ("part", "magnet"):
        part = (rig.parts if item.kind == "part" else rig.magnets).get(item.name)
        if part is None:
            return False
        mount = part.mount.split(".", 1)[0] if isinstance(part.mount, str) else ""
        return item.segment in ("", mount)
    if item.kind in RIDERS:  # selected by itself, ItemRef("", "probe", name), as a part is
        value = getattr(rig, RIDERS[item.kind], {}).get(item.name)
        if value is None:
            return False
        return item.segment in ("", (value.mount or "").split(".", 1)[0])
    seg = doc.segments.get(item.segment)
    if seg is None:
        return False
    if item.kind == "segment":  # a segment's own row: ItemRef(name, "segment", name)
        return item.name == item.segment
    if item.kind == "link":
        return item.name in seg.tree.links
    if item.kind == "joint":
        return item.name in seg.tree.joints
    if item.kind == "frame":
        return item.name in seg.articulation.frame_names
    return False
