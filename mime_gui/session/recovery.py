"""Recovery files: the rig being edited, written aside every little while, so a crash loses little.

A recovery file is a rig file (``<id>.rig.json``) with a sidecar (``<id>.json``) saying which file it
recovers (the rig or URDF that was open), which process wrote it and when. It lives in a folder of its own
(:func:`default_folder`), never beside the user's file, and is never written over the user's file: recovering
opens the user's file as it is on disk and lays the recovered rig over it as one edit, so the document is
modified, undo goes back to the file on disk, and only Save writes it.

A clean close or a save removes the process's recovery file. What stays behind after a crash is offered on
the next start (:meth:`RecoveryStore.pending` lists files whose process is gone, newest first). Both files are
read through :mod:`mime_gui.inputs` (regular files within the rig file's limit), so a FIFO in the folder
cannot block the start; a sidecar that cannot be used (not JSON, a process id or time out of range, NaN) is
skipped with a coded ``recovery.*`` (or ``file.*``) message in the log and the others are still offered.
"""

from __future__ import annotations

import json
import logging
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path

from mime_gui import inputs
from mime_gui.files import write_atomic
from mime_gui.inputs import resolved
from mime_gui.multibody.errors import CodedError
from mime_gui.multibody.magnitudes import parse_float
from mime_gui.rig.apparatus import Apparatus

#: Seconds between two autosaves while the rig is modified (``MIME_GUI_AUTOSAVE_SECONDS`` overrides it).
INTERVAL = 30.0
AUTOSAVE_ENV = "MIME_GUI_AUTOSAVE_SECONDS"
#: the seconds the interval may be set to: a twentieth of a second to a day
INTERVAL_RANGE = (0.05, 86400.0)
#: the largest process id a sidecar may name (a 32-bit signed pid_t)
MAX_PID = 2**31 - 1
#: the latest time a sidecar may give (3000-01-01): every platform's localtime takes it
MAX_TIME = 32503680000.0

log = logging.getLogger(__name__)


class RecoveryError(CodedError):
    """A recovery file or setting that cannot be used (``recovery.*``)."""


def autosave_interval() -> float:
    """``$MIME_GUI_AUTOSAVE_SECONDS``, else :data:`INTERVAL`. A value that is not a number of seconds in
    :data:`INTERVAL_RANGE` is logged as ``recovery.interval`` and the default is used."""
    raw = os.environ.get(AUTOSAVE_ENV, "")
    if not raw.strip():
        return INTERVAL
    try:
        value = parse_float(raw.strip())
    except ValueError:
        value = math.nan
    low, high = INTERVAL_RANGE
    if not low <= value <= high:  # also nan
        log.warning("%s", RecoveryError(
            "recovery.interval", f"{AUTOSAVE_ENV}={raw!r} is not a number of seconds from {low:g} to "
            f"{high:g}; autosaving every {INTERVAL:g} s (unset it, or give a number such as 60)"))
        return INTERVAL
    return value


def default_folder() -> Path:
    """``$MIME_GUI_RECOVERY_DIR``, else ``$XDG_STATE_HOME/mime-gui/recovery`` (``~/.local/state/…``)."""
    override = os.environ.get("MIME_GUI_RECOVERY_DIR")
    if override:
        return Path(override)
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(state) / "mime-gui" / "recovery"


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process with that number: not ours, but alive
        return True
    except OSError:
        return False
    return True


@dataclass(frozen=True)
class Recovery:
    """One recovery file left behind: ``rig_file`` (the rig text), ``original`` (the file it recovers, ''
    for a rig never saved), ``kind`` ('rig' or 'urdf'), ``saved_at`` (seconds since the epoch), ``pid``."""

    rig_file: Path
    meta_file: Path
    original: str
    kind: str
    saved_at: float
    pid: int

    def load(self) -> Apparatus:
        """The recovered rig, its relative paths read against the recovered file's folder. Raises
        :class:`~mime_gui.rig.rigfile.RigFileError` when the recovery file is damaged."""
        from mime_gui.rig.rigfile import load

        base = resolved(self.original).parent if self.original else self.rig_file.parent
        return load(self.rig_file, base=base)

    def discard(self) -> None:
        for p in (self.rig_file, self.meta_file):
            try:
                p.unlink()
            except FileNotFoundError:
                pass


class RecoveryStore:
    """Writes this process's recovery file and finds those of processes that are gone."""

    def __init__(self, folder: str | os.PathLike | None = None):
        self.folder = Path(folder) if folder is not None else default_folder()
        self.id = f"{os.getpid()}-{int(time.time() * 1000)}"
        self.writes = 0
        #: what the last :meth:`pending` skipped, each with its code and the sidecar it names
        self.skipped: list[CodedError] = []

    @property
    def rig_file(self) -> Path:
        return self.folder / f"{self.id}.rig.json"

    @property
    def meta_file(self) -> Path:
        return self.folder / f"{self.id}.json"

    def write(self, rig: Apparatus, original: str, kind: str) -> Path:
        """Write the rig aside (atomically), with paths relative to ``original``'s folder so it reads back
        the same. Raises OSError or RigFileError when it cannot be written."""
        from mime_gui.rig.rigfile import dumps

        self.folder.mkdir(parents=True, exist_ok=True)
        folder = resolved(original).parent if original else (rig.base or Path.cwd())
        write_atomic(self.rig_file, dumps(rig, folder))
        meta = {"original": str(resolved(original)) if original else "", "kind": kind,
                "saved_at": time.time(), "pid": os.getpid()}
        write_atomic(self.meta_file, json.dumps(meta, indent=2))
        self.writes += 1
        return self.rig_file

    def discard(self) -> None:
        """Remove this process's recovery file (after a save, or a close that kept or dropped the changes
        on purpose)."""
        Recovery(self.rig_file, self.meta_file, "", "rig", 0.0, os.getpid()).discard()

    def pending(self) -> list[Recovery]:
        """Recovery files whose process is gone, newest first (by ``saved_at``; equal times by the sidecar's
        name). A sidecar that cannot be used, or whose rig file is missing or not a regular file, is skipped
        with its coded message logged and kept in :attr:`skipped`; the files are left for the user to look
        at."""
        self.skipped = []
        if not self.folder.is_dir():
            return []
        out = []
        for meta_file in sorted(self.folder.glob("*.json")):
            if meta_file.name.endswith(".rig.json"):
                continue
            rig_file = meta_file.with_name(meta_file.name[:-len(".json")] + ".rig.json")
            try:
                item = _sidecar(meta_file, rig_file)
                if _alive(item.pid):
                    continue  # another window's, still being edited
                _rig_file(item)
            except CodedError as err:
                log.warning("%s", err)
                self.skipped.append(err)
                continue
            out.append(item)
        return sorted(out, key=lambda r: (-r.saved_at, r.meta_file.name))


def _sidecar(meta_file: Path, rig_file: Path) -> Recovery:
    """The recovery ``meta_file`` describes; raises :class:`RecoveryError` or ``FileError`` naming it."""
    file = str(meta_file)
    fix = "; it is left as it is: remove it (and its .rig.json) once you no longer need it"
    try:
        data = json.loads(inputs.read_bytes(meta_file, "rig", "a recovery sidecar").decode("utf-8"))
    except inputs.FileError as err:
        raise RecoveryError(err.code, err.message + fix, file) from None
    except OSError as err:
        raise RecoveryError("recovery.io", f"cannot read the sidecar ({err.strerror or err}){fix}",
                            file) from None
    except RecursionError:
        raise RecoveryError("recovery.sidecar", f"the JSON is nested too deeply to be a sidecar{fix}",
                            file) from None
    except ValueError as err:  # not UTF-8, not JSON
        raise RecoveryError("recovery.sidecar", f"not a JSON sidecar ({err}){fix}", file) from None

    def bad(message: str) -> RecoveryError:
        return RecoveryError("recovery.sidecar", message + fix, file)

    if not isinstance(data, dict):
        raise bad('expected an object {"original", "kind", "saved_at", "pid"}')
    pid, saved_at = data.get("pid", 0), data.get("saved_at", 0.0)
    original, kind = data.get("original", ""), data.get("kind", "rig")
    if isinstance(pid, bool) or not isinstance(pid, int) or not 0 <= pid <= MAX_PID:
        raise bad(f"pid must be a process id from 0 to {MAX_PID}, got {_short(pid)}")
    if isinstance(saved_at, bool) or not isinstance(saved_at, int | float) or not 0 <= saved_at <= MAX_TIME:
        raise bad(f"saved_at must be seconds since 1970 before the year 3000, got {_short(saved_at)}")  # nan
    if not isinstance(original, str) or "\x00" in original:
        raise bad(f"original must be the path of the recovered file (text), got {_short(original)}")
    if kind not in ("rig", "urdf"):
        raise bad(f"kind must be 'rig' or 'urdf', got {_short(kind)}")
    return Recovery(rig_file, meta_file, original, kind, float(saved_at), pid)


def _short(value) -> str:
    """``repr(value)``, cut to a length a log line can hold."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _rig_file(item: Recovery) -> None:
    """Refuse a recovery whose rig file is missing or is not a regular file within the rig file's limit."""
    file = str(item.meta_file)
    try:
        inputs.check(item.rig_file, "rig", "a recovery file")
    except inputs.FileError as err:
        raise RecoveryError(err.code, f"its recovery file {item.rig_file.name}: {err.message}",
                            file) from None
    except FileNotFoundError:
        raise RecoveryError("recovery.missing", f"its recovery file {item.rig_file.name} is not there; "
                            "remove the sidecar", file) from None
    except OSError as err:
        raise RecoveryError("recovery.io", f"cannot examine its recovery file {item.rig_file.name} "
                            f"({err.strerror or err})", file) from None


__all__ = ["AUTOSAVE_ENV", "INTERVAL", "Recovery", "RecoveryError", "RecoveryStore", "autosave_interval",
           "default_folder"]
