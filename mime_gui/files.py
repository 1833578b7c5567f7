"""Atomic file writes shared by every output the program produces (rig files, Python exports, play output)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def write_atomic(path, content: str | Callable[[BinaryIO], object]) -> Path:
    """Replace ``path`` with ``content`` or leave it as it was.

    ``content`` is text (written as UTF-8, newlines as given) or a function that writes to the binary file
    object it is handed (``lambda fh: numpy.savez(fh, ...)``). The data goes to a temporary file in the same
    folder, is flushed to disk (fsync) and renamed over ``path`` (``os.replace``), so a failure at any point
    never truncates the old file; the temporary file is removed on any failure. The file keeps the mode of
    the one it replaces (0o644 for a new file). Returns ``path``.
    """
    path = Path(path)
    folder = path.resolve().parent
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            if isinstance(content, str):
                fh.write(content.encode("utf-8"))
            else:
                content(fh)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.chmod(tmp, os.stat(path).st_mode & 0o7777)
        except OSError:
            os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _sync_folder(folder)
    return path


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
