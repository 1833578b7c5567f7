"""The files an open document was read from, and a signature of each to tell a change on disk from the
program's own save (see the app's file watch). Headless: the app watches, this says what and compares."""

from __future__ import annotations

import hashlib
import os

from mime_gui.inputs import FileError, read_bytes


def watched_files(document) -> list[str]:
    """The document's own file, then every description and mesh its rig names (absolute paths, each once)."""
    from mime_gui.rig.provenance import referenced_files

    out = [os.path.abspath(document.path)] if document.path else []
    try:
        referenced = referenced_files(document.rig)
    except Exception:  # noqa: BLE001 - a rig that cannot be followed further: its own file is still watched
        referenced = []
    for ref in referenced:
        path = os.path.abspath(ref.path)
        if path not in out:
            out.append(path)
    return out


def signature(path: str, own: bool = False) -> tuple:
    """What a file is now: ``(size, mtime)``, and for the document's own file (``own``) a hash of its bytes,
    so a save that writes the same size within the clock's resolution is still told apart; ``()`` when it is
    gone or cannot be read."""
    try:
        st = os.stat(path)
    except OSError:
        return ()
    if not own:
        return (st.st_size, st.st_mtime_ns)
    try:
        data = read_bytes(path, "rig" if path.lower().endswith(".json") else "urdf")
    except (OSError, FileError):
        return (st.st_size, st.st_mtime_ns)
    return (st.st_size, hashlib.sha256(data).hexdigest())


__all__ = ["signature", "watched_files"]
