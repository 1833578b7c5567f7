"""Parts drawn as they were while their shape or place is being fixed.

A size being typed passes through values that break a rule (an empty field, a minus sign, a zero): the rig
then has no valid build, and such a part could not be drawn at all; it would vanish from the view and move
out from under its mount in the tree at every such keystroke. Instead the view draws it as it last was
(geometry and place), dimmed, under the same mount, until its values pass again; its finding says what is
wrong meanwhile. A part whose mount changed is not stood in for (it was never drawn there).
"""

from __future__ import annotations

import copy

from mime_gui.rig.build import graft_link
from mime_gui.rig.rules import analyse
from mime_gui.session.renderer import ItemRef

#: the fields whose findings make a part a stand-in (the rest — a material, a mass — does not stop drawing)
SHAPE_FIELDS = ("geometry", "at")


def _breaks(analysis, collection: str, name: str) -> bool:
    prefixes = tuple(f"{collection}.{name}.{f}" for f in SHAPE_FIELDS)
    return any(f.where == p or f.where.startswith(p + ".") for f in analysis.findings for p in prefixes)


class StandIns:
    """The parts as last drawn, per document; :meth:`display` gives the rig to draw in their place."""

    def __init__(self):
        self._shown: dict[tuple[str, str], object] = {}
        self.refs: frozenset[ItemRef] = frozenset()  # the grafted links drawn as stand-ins now

    def clear(self) -> None:
        self._shown.clear()
        self.refs = frozenset()

    def display(self, rig, analysis):
        """``(rig, analysis)`` to draw: ``rig`` itself when no part needs a stand-in, else a copy whose
        breaking parts have their last drawn geometry and place. Remembers the parts drawn as they are."""
        swaps = {}
        for collection, name, part in rig.solids():
            key = (collection, name)
            if not _breaks(analysis, collection, name):
                if key in analysis.part_mounts:
                    self._shown[key] = part
                continue
            old = self._shown.get(key)
            if old is not None and old.mount == part.mount:
                stand_in = copy.copy(part)  # its own values but the shape and place it was drawn with
                stand_in.geometry, stand_in.at = old.geometry, old.at
                swaps[key] = stand_in
        if not swaps:
            self.refs = frozenset()
            return rig, analysis
        shown = copy.copy(rig)
        for collection in ("parts", "magnets"):
            items = dict(getattr(rig, collection))
            for (c, name), part in swaps.items():
                if c == collection:
                    items[name] = part
            setattr(shown, collection, items)
        shown_analysis = analyse(shown)
        self.refs = frozenset(ItemRef(shown_analysis.part_mounts[key][0], "link", graft_link(key[1]))
                              for key in swaps if shown_analysis.part_mounts.get(key) is not None
                              and not _breaks(shown_analysis, *key))
        return shown, shown_analysis


__all__ = ["SHAPE_FIELDS", "StandIns"]
