"""Headless application state (document, edits and history, commands and state, selection, layers) and the
Renderer protocol.

Never imports Qt, pyvista or vtk: the desktop app in ``mime_gui.app`` is a thin view over this package.
"""

from mime_gui.session.document import Document, DrawnSegment
from mime_gui.session.edits import (
    AddItem,
    Edit,
    EditError,
    MoveItem,
    Remount,
    RemoveItem,
    RenameItem,
    ReplaceItem,
    ReplaceRig,
    SetArmature,
    SetKind,
    SetValue,
    Together,
)
from mime_gui.session.events import Event
from mime_gui.session.history import History
from mime_gui.session.renderer import DEFAULT_LAYERS, LAYERS, FakeRenderer, ItemRef, Renderer
from mime_gui.session.session import ChangeSet, Session, SessionError, file_kind

__all__ = [
    "DEFAULT_LAYERS",
    "LAYERS",
    "AddItem",
    "ChangeSet",
    "Document",
    "DrawnSegment",
    "Edit",
    "EditError",
    "Event",
    "FakeRenderer",
    "History",
    "ItemRef",
    "MoveItem",
    "Remount",
    "RemoveItem",
    "RenameItem",
    "Renderer",
    "ReplaceItem",
    "ReplaceRig",
    "Session",
    "SessionError",
    "SetArmature",
    "SetKind",
    "SetValue",
    "Together",
    "file_kind",
]
