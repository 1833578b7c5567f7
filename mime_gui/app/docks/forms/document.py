"""The form of the rig itself (nothing selected): its name, and where it is saved."""

from __future__ import annotations

from mime_gui.app.docks.fields import TextField
from mime_gui.app.docks.forms.base import Form
from mime_gui.session import SetValue


class DocumentForm(Form):
    def __init__(self, panel, parent=None):
        super().__init__(panel, parent)
        self.section("Rig")
        self.add("Name", TextField("name", self), lambda r: r.name,
                 lambda v: self.apply(SetValue("name", v.strip() if isinstance(v, str) else v)),
                 "The apparatus's name (Enter to apply)")
        self.hint("Drag a part, a magnet or a motor from the Palette onto a frame (a row of the Chain "
                  "tree or a link in the 3D view); select an item to edit it here.")
        self.finish()

    def shape(self, rig) -> tuple:
        return ("document",)

    def own_paths(self):
        return ("name",)
