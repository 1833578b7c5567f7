"""Headless application state (document, joint positions, selection, layers) and the Renderer protocol.

Never imports Qt, pyvista or vtk: the desktop app in ``mime_gui.app`` is a thin view over this package.
"""

from mime_gui.session.events import Event
from mime_gui.session.renderer import DEFAULT_LAYERS, LAYERS, FakeRenderer, ItemRef, Renderer
from mime_gui.session.session import Document, Segment, Session, SessionError, file_kind

__all__ = [
    "DEFAULT_LAYERS",
    "LAYERS",
    "Document",
    "Event",
    "FakeRenderer",
    "ItemRef",
    "Renderer",
    "Segment",
    "Session",
    "SessionError",
    "file_kind",
]
