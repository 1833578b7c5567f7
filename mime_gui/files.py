"""Atomic file writes shared by every output the program produces (rig files, Python exports, play output).

:func:`write_atomic` writes one file whole. A writer that cannot hand its bytes over in one call (the video
export, whose frames go to ffmpeg) follows the same rules through its steps: :func:`target` (the file a
path names through its links, refused when it is not a regular file), :func:`temporary` (a file beside it,
its name short enough for any legal target name) or :func:`stage` (one written and flushed) and
:func:`put_in_place` (the rename over it).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from mime_gui.inputs import not_regular

#: bytes of the target's name kept in the temporary file's name (which adds 14 more: ``.`` ``.XXXXXXXX.tmp``)
TEMP_NAME_BYTES = 64


def write_atomic(path, content: str | bytes | Callable[[BinaryIO], object]) -> Path:
    """Replace ``path`` with ``content`` or leave it as it was.

    ``content`` is text (written as UTF-8, newlines as given), bytes, or a function that writes to the binary
    file object it is handed (``lambda fh: numpy.savez(fh, ...)``). The data goes to a temporary file in the
    same folder, is flushed to disk (fsync) and renamed over ``path`` (``os.replace``), so a failure at any
    point never truncates the old file; the temporary file is removed on any failure. The file keeps the mode
    of the one it replaces (0o644 for a new file). Returns ``path``.

    A target that exists and is not a regular file (a folder, a FIFO, a device) is refused with
    :class:`~mime_gui.inputs.FileError` ``file.not-regular`` before anything is written. A symbolic link is
    written through: the file it points to is replaced and the link is kept. The temporary file's name holds
    at most :data:`TEMP_NAME_BYTES` bytes of the target's name, so any name the file system takes saves.
    """
    path = Path(path)
    real, mode = target(path)
    tmp = stage(real, content)
    try:
        put_in_place(tmp, real, mode)
    except BaseException:
        _remove(tmp)
        raise
    return path


def target(path, what: str = "the file to write") -> tuple[Path, int | None]:
    """The file ``path`` names through every symbolic link (the one a write replaces, so the link is kept)
    and its ``st_mode``, None when there is none yet. A target that exists and is not a regular file is
    refused with :class:`~mime_gui.inputs.FileError` ``file.not-regular`` naming ``path``."""
    real = Path(os.path.realpath(path))
    try:
        mode = os.stat(real).st_mode
    except OSError:
        mode = None  # no such file yet (or no way to it: creating the temporary file says why)
    if mode is not None:
        refusal = not_regular(path, mode, what)
        if refusal is not None:
            raise refusal
    return real, mode


def temporary(real: Path, suffix: str = ".tmp") -> tuple[int, str]:
    """A new temporary file beside ``real`` (open descriptor, path): ``.<name>.XXXXXXXX<suffix>`` with at
    most :data:`TEMP_NAME_BYTES` bytes of ``real``'s name, so any name the file system takes can be
    written."""
    return tempfile.mkstemp(prefix=f".{_short_name(real.name)}.", suffix=suffix, dir=real.parent)


def stage(real: Path, content: str | bytes | Callable[[BinaryIO], object], suffix: str = ".tmp") -> str:
    """A :func:`temporary` file beside ``real`` holding ``content`` (as :func:`write_atomic` takes it),
    flushed to disk; its path. It is removed again on any failure."""
    fd, tmp = temporary(real, suffix)
    try:
        with os.fdopen(fd, "wb") as fh:
            if isinstance(content, str):
                fh.write(content.encode("utf-8"))
            elif isinstance(content, bytes):
                fh.write(content)
            else:
                content(fh)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        _remove(tmp)
        raise
    return tmp


def _remove(tmp) -> None:
    try:
        os.unlink(tmp)
    except OSError:
        pass


def put_in_place(tmp, real: Path, mode: int | None) -> None:
    """Rename the written ``tmp`` over ``real`` with the mode of the file it replaces (0o644 for a new one)
    and flush the rename to disk."""
    os.chmod(tmp, mode & 0o7777 if mode is not None else 0o644)
    os.replace(tmp, real)
    _sync_folder(real.parent)


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
