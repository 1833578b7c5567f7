"""Recovery files: the rig being edited, written aside every little while, so a crash loses little.

A recovery file is a rig file (``<id>.rig.json``) with a sidecar (``<id>.json``) saying which file it
recovers (the rig or URDF that was open), which process wrote it and when. It lives in a folder of its own
(:func:`default_folder`), never beside the user's file, and is never written over the user's file: recovering
opens the user's file as it is on disk and lays the recovered rig over it as one edit, so the document is
modified, undo goes back to the file on disk, and only Save writes it.

A clean close or a save removes the process's recovery file. What stays behind after a crash is offered on
the next start (:meth:`RecoveryStore.pending` lists files whose process is gone).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from mime_gui.files import write_atomic
from mime_gui.rig.apparatus import Apparatus

#: Seconds between two autosaves while the rig is modified.
INTERVAL = 30.0


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
        from mime_gui.rig.rigfile import parse

        base = Path(self.original).resolve().parent if self.original else self.rig_file.parent
        text = self.rig_file.read_text(encoding="utf-8")
        return parse(text, str(self.rig_file), base=base)

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
        folder = Path(original).resolve().parent if original else (rig.base or Path.cwd())
        write_atomic(self.rig_file, dumps(rig, folder))
        meta = {"original": str(Path(original).resolve()) if original else "", "kind": kind,
                "saved_at": time.time(), "pid": os.getpid()}
        write_atomic(self.meta_file, json.dumps(meta, indent=2))
        self.writes += 1
        return self.rig_file

    def discard(self) -> None:
        """Remove this process's recovery file (after a save, or a close that kept or dropped the changes
        on purpose)."""
        Recovery(self.rig_file, self.meta_file, "", "rig", 0.0, os.getpid()).discard()

    def pending(self) -> list[Recovery]:
        """Recovery files whose process is gone, newest first. A sidecar that cannot be read, or whose rig
        file is missing, is skipped (and left for the user to look at)."""
        if not self.folder.is_dir():
            return []
        out = []
        for meta_file in self.folder.glob("*.json"):
            if meta_file.name.endswith(".rig.json"):
                continue
            rig_file = meta_file.with_name(meta_file.name[:-len(".json")] + ".rig.json")
            try:
                meta = json.loads(meta_file.read_text(encoding="utf-8"))
                pid = int(meta.get("pid", 0))
                item = Recovery(rig_file, meta_file, str(meta.get("original", "")),
                                str(meta.get("kind", "rig")), float(meta.get("saved_at", 0.0)), pid)
            except (OSError, ValueError, TypeError, AttributeError):
                continue
            if not rig_file.is_file() or _alive(pid):
                continue
            out.append(item)
        return sorted(out, key=lambda r: r.saved_at, reverse=True)


__all__ = ["INTERVAL", "Recovery", "RecoveryStore", "default_folder"]
