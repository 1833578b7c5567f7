"""What the forms of an item placed at a point share (a probe, a sample, a keep-out zone): its name, the frame
it rides on (or the world), where it sits there and where that is in the world at the pose shown; renaming
or remounting it keeps it selected."""

from __future__ import annotations

import numpy as np

from mime_gui.app.docks.fields import ChoiceField, TextField, VectorField, format_vector
from mime_gui.app.docks.forms.base import Form
from mime_gui.rig.names import NAMESPACE_TEXT
from mime_gui.session import RenameItem, SetValue

#: the Name row's tip on every form whose item has a name
RENAME_TIP = f"Rename (Enter): {NAMESPACE_TEXT} share one set of names"


def world_point(session, item) -> np.ndarray | None:
    """Where ``item`` (anything with ``mount`` and ``at``) is in the world as the session shows the rig now;
    None on a frame the rig lacks."""
    at = np.asarray(item.at, dtype=float)
    if item.mount is None:
        return at
    segment, _, frame = item.mount.partition(".")
    try:
        X = session.frame_world_pose(segment, frame)
    except Exception:  # noqa: BLE001 - a mount being fixed: its finding says why
        return None
    return X[:3, :3] @ at + X[:3, 3]


class PlacedForm(Form):
    """A form of one item of ``collection``; subclasses name it (``title``, ``noun``), say what its ``at``
    is (``at_tip``), and build the rest after :meth:`add_name_and_placement`."""

    collection = ""
    title = ""  # the first section's title, before the name: "Probe"
    noun = ""  # the item as the tips say it: "probe"
    at_tip = ""

    def __init__(self, panel, name: str, parent=None, collection: str | None = None):
        super().__init__(panel, parent)
        self.collection = collection or type(self).collection  # a part's form serves parts and magnets
        self.name = name
        self.build()

    @property
    def base(self) -> str:
        return f"{self.collection}.{self.name}"

    def item(self, rig):
        return getattr(rig, self.collection)[self.name]

    def exists(self, rig) -> bool:
        return self.name in getattr(rig, self.collection)

    def own_paths(self):
        return (self.base,)

    def add_name_and_placement(self) -> None:
        base = self.base
        self.section(f"{self.title} {self.name}")
        self.add("Name", TextField(base, self), lambda r: self.name, self._rename, RENAME_TIP, exact=True)
        self.section("Placement")
        mount = ChoiceField(f"{base}.mount", self)
        mount.options = lambda _rig: self._mounts()  # the frames of the rig shown now
        self.add("Mounted on", mount, lambda r: self.item(r).mount, self._remount,
                 f"A frame of the chain (the {self.noun} rides with it), or the world")
        self.add("At", VectorField(f"{base}.at", lengths=self.lengths, parent=self),
                 lambda r: self.item(r).at, lambda v: self.apply(SetValue(f"{base}.at", v)), self.at_tip)
        self.add_value("… in the world", self._world_text, "At the current joint positions")

    def _mounts(self):
        out = [("(fixed in the world)", None)]
        for seg_name, seg in self.session.segments.items():
            out += [(f"{seg_name}.{f}", f"{seg_name}.{f}") for f in seg.articulation.frame_names
                    if f not in seg.grafts]
        return out

    def _world_text(self, rig) -> str:
        where = world_point(self.session, self.item(rig))
        if where is None:
            return "— (not placed: see the messages above)"
        return f"({format_vector(np.asarray(where) * self.lengths.factor, 4)}) {self.lengths.unit}"

    # -- edits ---------------------------------------------------------------------------------------
    def _rename(self, new: str) -> None:
        new = new.strip() if isinstance(new, str) else new
        if not new or new == self.name:
            self.refresh(self.session.rig, force=True)
            return
        if self.apply(RenameItem(self.collection, self.name, new)):
            self.panel.select_item(self.collection, new)
        else:
            self.refresh(self.session.rig, force=True)

    def _remount(self, mount) -> None:
        if self.apply(SetValue(f"{self.base}.mount", mount)):
            self.panel.select_item(self.collection, self.name)


__all__ = ["RENAME_TIP", "PlacedForm", "world_point"]
