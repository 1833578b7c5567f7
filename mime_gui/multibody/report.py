"""What the reader did with every element and attribute kind of a description file.

Each kind (``link/inertial/mass``, ``joint@type``, ``gazebo`` …) lands in one group: *used*, *recognised and
not used*, or *refused*. Kinds are counted, with the first lines they occur on, so a report of a large robot
stays short; a kind not used gets one warning, not one per element.

A defect confined to one element (a non-physical inertia, a reduction that is not a number, a shape that
cannot be drawn, a mimic naming no joint) does not refuse the file: it is an *error* among the warnings (a
:class:`Defect`, ``severity == "error"``), saying which use of the description it blocks (:data:`BLOCKS`).
Reading with ``strict=True`` refuses such a file instead.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from mime_gui.multibody.errors import Diagnostic

_log = logging.getLogger(__name__)

#: What a defect blocks: the dynamics of its articulation, the armature reflected through its transmission,
#: the drawing of its shape, a joint following another (it moves on its own instead), or the frames a joint
#: places (left out).
BLOCKS = {
    "dynamics": "mass, momentum and dynamics of the articulation (an Arm.Dynamic build); kinematics and "
                "viewing are not affected",
    "armature": "the armature reflected through this transmission",
    "drawing": "drawing this shape; a marked placeholder stands in",
    "mimic": "following: the joint moves on its own",
    "frames": "the frames a joint places: the joint and the links below it are left out of the tree "
              "(nothing is drawn, mounted or driven there)",
}

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


@dataclass(frozen=True)
class Defect(Diagnostic):
    """An error the description loads with: ``blocks`` (a key of :data:`BLOCKS`) names the use it breaks."""

    blocks: str = ""
    severity = "error"


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

    def error(self, code: str, message: str, line: int = 0, blocks: str = "") -> Defect:
        """Record a defect the description loads with (listed among the warnings, as an error)."""
        if blocks and blocks not in BLOCKS:
            raise ValueError(f"unknown use {blocks!r}; one of {', '.join(BLOCKS)}")
        defect = Defect(code, message, self.file, line, blocks)
        self.warnings.append(defect)
        _log.warning("%s:%s: error[%s] %s", self.file, line, code, message)
        return defect

    @property
    def errors(self) -> list[Defect]:
        """The defects the description loaded with, in the order they were found."""
        return [w for w in self.warnings if isinstance(w, Defect)]

    def blocked(self, use: str) -> list[Defect]:
        """The defects that block ``use`` (a key of :data:`BLOCKS`)."""
        return [w for w in self.errors if w.blocks == use]

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
            "warnings": [_diagnostic_dict(w) for w in self.warnings],
        }


def _diagnostic_dict(w: Diagnostic) -> dict:
    out = {"code": w.code, "line": w.line, "message": w.message,
           "severity": "error" if isinstance(w, Defect) else "warning"}
    if isinstance(w, Defect):
        out["blocks"] = w.blocks
    return out
