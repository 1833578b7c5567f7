"""Files the program reads: a regular file, within a size limit per kind, checked before it is read.

Every reader (URDF, rig file, an arm's description, a part's mesh, a command file, the view's meshes) reads
through :func:`read_bytes`, or calls :func:`check` before it hands a path to a library. A path that names
anything but a regular file — a named pipe (FIFO), a device such as ``/dev/zero``, a socket, a folder — is
refused with ``file.not-regular`` from its ``stat`` alone, before it is opened, so a FIFO cannot block the
program and a device cannot fill its memory. A file larger than its kind's limit is refused with
``file.too-large``, naming the limit and the environment variable that raises it.

Errors other than these two (no such file, no permission) are left to the caller as :class:`OSError`, which
each reader reports with its own ``*.io`` code.

A path is made absolute through its links by :func:`resolved`, never by ``Path.resolve()``: on Python 3.11
that raises a bare ``RuntimeError`` for a loop of symbolic links, where the read that follows names the loop
as the ``OSError`` every reader reports.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from mime_gui.errors import CodedError
from mime_gui.magnitudes import parse_float

MB = 1024 * 1024


class FileError(CodedError):
    """A refused file (``file.*``): not a regular file, too large, or a limit set to a value that is not
    one."""


@dataclass(frozen=True)
class Limit:
    """The most bytes a kind of file may hold: ``default_mb`` megabytes unless ``variable`` says otherwise."""

    kind: str
    what: str  # "a URDF", "a rig file" … as a message names it
    default_mb: float
    variable: str

    def bytes(self) -> int:
        raw = os.environ.get(self.variable)
        if raw is None or not raw.strip():
            return int(self.default_mb * MB)
        try:
            mb = parse_float(raw.strip())
        except ValueError:
            mb = -1.0
        if not (mb > 0 and mb < 1e9):
            raise FileError("file.limit", f"{self.variable}={raw!r} is not a positive number of megabytes; "
                            f"unset it (the default is {self.default_mb:g} MB) or give a number such as "
                            f"{self.default_mb * 4:g}")
        return int(mb * MB)


#: The size limit of every kind of file the program reads.
LIMITS = {
    "urdf": Limit("urdf", "a URDF", 64, "MIME_GUI_MAX_URDF_MB"),
    "rig": Limit("rig", "a rig file", 16, "MIME_GUI_MAX_RIG_MB"),
    "mesh": Limit("mesh", "a mesh file", 256, "MIME_GUI_MAX_MESH_MB"),
    "commands": Limit("commands", "a command file", 256, "MIME_GUI_MAX_COMMANDS_MB"),
    "bundle": Limit("bundle", "a rig bundle", 512, "MIME_GUI_MAX_BUNDLE_MB"),
    "table": Limit("table", "a sweep table", 256, "MIME_GUI_MAX_TABLE_MB"),
}


def resolved(path) -> Path:
    """``path`` absolute, through its symbolic links as far as they lead (``os.path.realpath``): a loop of
    links is left for the read to refuse (``ELOOP``), not raised here."""
    return Path(os.path.realpath(path))


def megabytes(n: int) -> str:
    """A size in bytes as refusals print it: MB to one decimal, bytes under a tenth of one (rounded down)."""
    return f"{n / MB:.1f} MB" if n >= MB // 10 else f"{n} bytes"


def _not_regular(mode: int) -> str | None:
    """What a file of ``mode`` is when it is not a regular file; None when it is one."""
    if stat.S_ISREG(mode):
        return None
    for test, what in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return what
    return "not a regular file"


def not_regular(path, mode: int, what: str = "file") -> FileError | None:
    """The ``file.not-regular`` refusal of ``path`` whose ``st_mode`` is ``mode``; None for a regular file."""
    kind = _not_regular(mode)
    if kind is None:
        return None
    return FileError("file.not-regular", f"this is {kind}, not a regular file; give the path of {what}",
                     os.fspath(path) if not isinstance(path, bytes) else os.fsdecode(path))


def _too_large(path, size: int, limit: Limit, cap: int, exact: bool = True, what: str | None = None) \
        -> FileError:
    held = megabytes(size) if exact else f"more than {megabytes(cap)}"
    return FileError("file.too-large", f"the file holds {held}, more than the {megabytes(cap)} "
                     f"{what or limit.what} may hold; set {limit.variable} (megabytes) to raise the limit",
                     os.fspath(path))


def check(path, kind: str, what: str | None = None) -> os.stat_result:
    """The ``stat`` of ``path`` (symbolic links followed) once it is known to be a regular file within the
    limit of ``kind``; raises :class:`FileError` otherwise, :class:`OSError` when it cannot be examined.
    ``what`` names the file in the messages when it is not the kind's own (an actuators file read within
    the rig file's limit)."""
    limit = LIMITS[kind]
    st = os.stat(path)
    refusal = not_regular(path, st.st_mode, what or limit.what)
    if refusal is not None:
        raise refusal
    cap = limit.bytes()
    if st.st_size > cap:
        raise _too_large(path, st.st_size, limit, cap, what=what)
    return st


def read_bytes(path, kind: str, what: str | None = None) -> bytes:
    """The bytes of ``path``, a regular file within the limit of ``kind`` (see :func:`check`).

    The file is opened without blocking and examined again through its descriptor, so one swapped for a FIFO
    between the two looks is still refused; the read stops one byte past the limit, so a file that grows, or
    a file system that reports no size, cannot make it read more.
    """
    limit = LIMITS[kind]
    check(path, kind, what)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) \
        | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        refusal = not_regular(path, st.st_mode, what or limit.what)
        if refusal is not None:
            raise refusal
        cap = limit.bytes()
        chunks, total = [], 0
        while total <= cap:
            chunk = os.read(fd, min(cap + 1 - total, 16 * MB))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    finally:
        os.close(fd)
    if total > cap:
        raise _too_large(path, total, limit, cap, exact=False, what=what)
    return b"".join(chunks)
