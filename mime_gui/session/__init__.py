"""Headless application state (document, edits and history, commands and state, selection, layers) and the
Renderer protocol.

Never imports Qt, pyvista or vtk: the desktop app in ``mime_gui.app`` is a thin view over this package.
"""

from mime_gui.session.document import Document, Segment
from mime_gui.session.edits import (
    AddItem,
    Edit,
    EditError,
    Remount,
    RemoveItem,
    RenameItem,
    SetArmature,
    SetValue,
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
    "Edit",
    "EditError",
    "Event",
    "FakeRenderer",
    "History",
    "ItemRef",
    "Remount",
    "RemoveItem",
    "RenameItem",
    "Renderer",
    "Segment",
    "Session",
    "SessionError",
    "SetArmature",
    "SetValue",
    "file_kind",
]
