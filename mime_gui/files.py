"""Atomic file writes shared by every output the program produces (rig files, Python exports, play output)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from mime_gui.inputs import not_regular

#: bytes of the target's name kept in the temporary file's name (which adds 14 more: ``.`` ``.XXXXXXXX.tmp``)
TEMP_NAME_BYTES = 64


def write_atomic(path, content: str | Callable[[BinaryIO], object]) -> Path:
    """Replace ``path`` with ``content`` or leave it as it was.

    ``content`` is text (written as UTF-8, newlines as given) or a function that writes to the binary file
    object it is handed (``lambda fh: numpy.savez(fh, ...)``). The data goes to a temporary file in the same
    folder, is flushed to disk (fsync) and renamed over ``path`` (``os.replace``), so a failure at any point
    never truncates the old file; the temporary file is removed on any failure. The file keeps the mode of
    the one it replaces (0o644 for a new file). Returns ``path``.

    A target that exists and is not a regular file (a folder, a FIFO, a device) is refused with
    :class:`~mime_gui.inputs.FileError` ``file.not-regular`` before anything is written. A symbolic link is
    written through: the file it points to is replaced and the link is kept. The temporary file's name holds
    at most :data:`TEMP_NAME_BYTES` bytes of the target's name, so any name the file system takes saves.
    """
    path = Path(path)
    target = Path(os.path.realpath(path))  # through every symbolic link, to the file that is replaced
    try:
        mode = os.stat(target).st_mode
    except OSError:
        mode = None  # no such file yet (or no way to it: creating the temporary file below says why)
    if mode is not None:
        refusal = not_regular(path, mode, "the file to write")
        if refusal is not None:
            raise refusal
    folder = target.parent
    fd, tmp = tempfile.mkstemp(prefix=f".{_short_name(target.name)}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            if isinstance(content, str):
                fh.write(content.encode("utf-8"))
            else:
                content(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode & 0o7777 if mode is not None else 0o644)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _sync_folder(folder)
    return path


def _short_name(name: str) -> str:
    """The first :data:`TEMP_NAME_BYTES` bytes of ``name`` (whole characters only)."""
    raw = os.fsencode(name)
    if len(raw) <= TEMP_NAME_BYTES:
        return name
    return raw[:TEMP_NAME_BYTES].decode("utf-8", "ignore") or "file"


def _sync_folder(folder: Path) -> None:
    """Flush the rename to disk where the platform allows it (POSIX)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
