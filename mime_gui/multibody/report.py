"""What the reader did with every element and attribute kind of a description file.

Each kind (``link/inertial/mass``, ``joint@type``, ``gazebo`` …) lands in one group: *used*, *recognised and
not used*, or *refused*. Kinds are counted, with the first lines they occur on, so a report of a large robot
stays short; a kind not used gets one warning, not one per element.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from mime_gui.multibody.errors import Diagnostic

_log = logging.getLogger(__name__)

USED = "used"
IGNORED = "recognised-not-used"
REFUSED = "refused"
GROUPS = (USED, IGNORED, REFUSED)
_MAX_LINES = 5


@dataclass
class KindEntry:
    kind: str
    group: str
    count: int = 0
    lines: list[int] = field(default_factory=list)
    note: str = ""

    def to_dict(self) -> dict:
        return {"kind": self.kind, "count": self.count, "lines": list(self.lines), "note": self.note}


@dataclass
class ReadReport:
    file: str = ""
    entries: dict[str, KindEntry] = field(default_factory=dict)
    warnings: list[Diagnostic] = field(default_factory=list)

    def add(self, kind: str, group: str, line: int = 0, note: str = "") -> None:
        """Add one occurrence of ``kind`` (on ``line``, 0 when unknown)."""
        self.merge(kind, group, 1, (line,), note)

    def merge(self, kind: str, group: str, count: int, lines=(), note: str = "") -> None:
        """Add ``count`` occurrences of ``kind`` at once (``lines``: the first lines they occur on)."""
        entry = self.entries.get(kind)
        if entry is None:
            entry = self.entries[kind] = KindEntry(kind, group, note=note)
        elif group == REFUSED and entry.group != REFUSED:
            entry.group = REFUSED  # a refusal wins over the other groups
            entry.note = note or entry.note
        entry.count += count
        room = _MAX_LINES - len(entry.lines)
        if room > 0:
            entry.lines.extend([line for line in lines if line][:room])

    def warn(self, code: str, message: str, line: int = 0) -> None:
        self.warnings.append(Diagnostic(code, message, self.file, line))
        _log.warning("%s:%s: warning[%s] %s", self.file, line, code, message)

    def group(self, group: str) -> list[KindEntry]:
        return sorted((e for e in self.entries.values() if e.group == group), key=lambda e: e.kind)

    @property
    def used(self) -> list[KindEntry]:
        return self.group(USED)

    @property
    def ignored(self) -> list[KindEntry]:
        return self.group(IGNORED)

    @property
    def refused(self) -> list[KindEntry]:
        return self.group(REFUSED)

    def to_dict(self) -> dict:
        return {
            "file": self.file,
            **{g: [e.to_dict() for e in self.group(g)] for g in GROUPS},
            "warnings": [
                {"code": w.code, "line": w.line, "message": w.message} for w in self.warnings
            ],
        }
