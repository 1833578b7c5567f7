"""What a palette drag carries: the key of a template (``part.cylinder``) under the app's own MIME type, so
the chain tree and the 3D view can tell a template from a file dragged in from outside."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QMimeData

TEMPLATE_MIME = "application/x-mime-gui-template"


def template_mime(key: str) -> QMimeData:
    mime = QMimeData()
    mime.setData(TEMPLATE_MIME, QByteArray(key.encode("utf-8")))
    mime.setText(key)
    return mime


def template_key(mime) -> str | None:
    """The template key a drag carries, or None (not one of ours)."""
    if mime is None or not mime.hasFormat(TEMPLATE_MIME):
        return None
    try:
        return bytes(mime.data(TEMPLATE_MIME)).decode("utf-8") or None
    except UnicodeDecodeError:
        return None
