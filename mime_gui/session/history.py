"""The undo history of a document, headless: steps of (edit name, rig before, rig after).

Consecutive edits with the same merge key (one field dragged or typed into) merge into one step while they
come within :data:`MERGE_WINDOW` of each other and until the history is :meth:`sealed <History.seal>` (the
Session seals it when the selection changes, a save happens, or a form's entry moves to another field). A
merged step that ends where it began (a value typed and then put back) is no step at all. The saved mark makes
``modified`` exact: undoing back to the saved rig is not a modification.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

#: Steps kept; the oldest are dropped beyond this (each holds two rigs that share most of their values).
LIMIT = 1000
#: Seconds between two edits of one field beyond which the second starts a step of its own (a pause in
#: typing ends an entry, as in a text editor's undo).
MERGE_WINDOW = 1.0


@dataclass
class Step:
    name: str
    before: object
    after: object
    merge_key: object = None
    time: float = 0.0  # when the step last took an edit (the clock of its History)


class History:
    def __init__(self, limit: int = LIMIT, clock=time.monotonic, window: float = MERGE_WINDOW):
        self.limit = limit
        self.clock = clock
        self.window = window
        self._done: list[Step] = []
        self._undone: list[Step] = []
        self._saved: int | None = 0  # len(_done) at the last save; None: unreachable
        self._sealed = True
        self._gesture = False  # within one gesture (a handle dragged) edits merge however slow it goes

    def clear(self) -> None:
        self._done.clear()
        self._undone.clear()
        self._saved = 0
        self._sealed = True

    def push(self, step: Step) -> bool:
        """Record a step; True when it merged into the previous one."""
        if self._saved is not None and self._saved > len(self._done):
            self._saved = None  # the saved state was on the undone steps this edit replaces
        self._undone.clear()
        now = self.clock()
        step.time = now
        top = self._done[-1] if self._done else None
        if (not self._sealed and top is not None and step.merge_key is not None
                and step.merge_key == top.merge_key and (self._gesture or now - top.time <= self.window)):
            top.after = step.after
            top.time = now
            if self._saved == len(self._done):
                self._saved = None  # the saved state was the merged step's old end
            if _same(top.before, top.after):  # typed and put back: nothing to undo
                self._done.pop()
                self._sealed = True
            return True
        self._done.append(step)
        self._sealed = False
        if len(self._done) > self.limit:
            del self._done[0]
            self._saved = None if self._saved in (None, 0) else self._saved - 1
        return False

    def seal(self) -> None:
        """The next edit starts a step of its own, whatever its merge key."""
        self._sealed = True

    def begin_gesture(self) -> None:
        """Edits until :meth:`end_gesture` that share a merge key are one step, however long the user
        pauses in between (a handle held still mid-drag); the first starts a step of its own."""
        self._sealed = True
        self._gesture = True

    def end_gesture(self) -> None:
        """The gesture is over: the next edit starts a step of its own."""
        self._gesture = False
        self._sealed = True

    def undo(self) -> Step | None:
        if not self._done:
            return None
        step = self._done.pop()
        self._undone.append(step)
        self._sealed = True
        return step

    def redo(self) -> Step | None:
        if not self._undone:
            return None
        step = self._undone.pop()
        self._done.append(step)
        self._sealed = True
        return step

    def map_rigs(self, fn) -> None:
        """Replace the rig of every step by ``fn(rig)`` (a saved copy read against another folder)."""
        for step in (*self._done, *self._undone):
            step.before, step.after = fn(step.before), fn(step.after)

    def mark_saved(self) -> None:
        self._saved = len(self._done)
        self._sealed = True

    @property
    def modified(self) -> bool:
        return self._saved != len(self._done)

    @property
    def can_undo(self) -> bool:
        return bool(self._done)

    @property
    def can_redo(self) -> bool:
        return bool(self._undone)

    @property
    def undo_name(self) -> str:
        return self._done[-1].name if self._done else ""

    @property
    def redo_name(self) -> str:
        return self._undone[-1].name if self._undone else ""

    def __len__(self) -> int:
        return len(self._done)


def _same(a, b) -> bool:
    """Equal rigs (frozen values; a comparison that cannot decide counts as different)."""
    if a is b:
        return True
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False
