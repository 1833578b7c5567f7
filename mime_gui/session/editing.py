"""The editing component of the session: the one door the rig changes through (:meth:`Editing.apply`), undo
and redo, and the history they walk.

An edit is a value (:mod:`mime_gui.session.edits`); applying it gives a new rig, which the session puts in
place (``set_rig``: drawn again, the chain node restarted, the view updated) and this component records as one
step. Events: ``rig_changed(change)``, ``findings_changed(findings)``, ``history_changed()``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mime_gui.rig import paths as rig_paths
from mime_gui.rig.apparatus import Apparatus
from mime_gui.session.document import Document
from mime_gui.session.edits import WHOLE, Edit, EditError  # WHOLE: what an edit replaces whole
from mime_gui.session.errors import SessionError, refuse
from mime_gui.session.events import Event
from mime_gui.session.history import History, Step


@dataclass(frozen=True)
class ChangeSet:
    """What one edit, undo or redo changed: its name, the item paths it touched (``parts.holder``), and the
    drawn segments added, changed (a new tree: rebuilt in the view) or removed."""

    name: str
    paths: frozenset = frozenset()
    added: frozenset = frozenset()
    changed: frozenset = frozenset()
    removed: frozenset = frozenset()


class Editing:
    def __init__(self, document: Callable[[], Document],
                 set_rig: Callable[[Apparatus, str, frozenset], ChangeSet], error: Event) -> None:
        self.history = History()
        self.rig_changed = Event("rig_changed")
        self.findings_changed = Event("findings_changed")
        self.history_changed = Event("history_changed")
        self._document = document  # the open document, or a refusal (session.no-document)
        self._set_rig = set_rig
        self._error = error

    def apply(self, edit: Edit) -> ChangeSet:
        """Apply one edit: the rules run and the rig is built when they pass; the view updates in place; the
        step is recorded for undo. A refused edit (``edit.*``) emits ``error`` and changes nothing; an edit
        that would change nothing (:meth:`Edit.changes`) records nothing and returns an empty change set."""
        before = self._document().rig
        if not edit.changes(before):  # nothing to draw again, and no undo step that does nothing
            return ChangeSet(edit.name)
        try:
            after = edit.apply(before)
        except EditError as err:
            raise self._fail(err.code, err.message, err.where) from None
        change = self._set_rig(after, edit.name, edit.touched(before) | edit.touched(after))
        self.history.push(Step(edit.name, before, after, edit.merge_key))
        self.history_changed.emit()
        return change

    def undo(self) -> ChangeSet | None:
        step = self.history.undo()
        if step is None:
            return None
        change = self._set_rig(step.before, f"Undo {step.name}", touched(step))
        self.history_changed.emit()
        return change

    def redo(self) -> ChangeSet | None:
        step = self.history.redo()
        if step is None:
            return None
        change = self._set_rig(step.after, f"Redo {step.name}", touched(step))
        self.history_changed.emit()
        return change

    def seal(self) -> None:
        """The next edit starts an undo step of its own, whatever it merges with (an entry into another
        field of a form, another selection)."""
        self.history.seal()

    def begin_gesture(self) -> None:
        """Edits of one field from now until :meth:`end_gesture` are one undo step (a drag in the view)."""
        self.history.begin_gesture()

    def end_gesture(self) -> None:
        self.history.end_gesture()

    def _fail(self, code: str, message: str, file: str) -> SessionError:
        return refuse(self._error, code, message, file)


def touched(step: Step) -> frozenset:
    """The item paths a step changes (and ``name`` when the rig's name changed)."""
    out = set()
    for rig in (step.before, step.after):
        out.update(rig_paths.item_paths(rig))
    wholes = set()  # the named values edited whole (poses, trajectories): no rig path reaches into them
    for collection in WHOLE:
        before, after = getattr(step.before, collection, {}), getattr(step.after, collection, {})
        wholes.update(rig_paths.join(collection, n) for n in {*before, *after}
                      if before.get(n) != after.get(n))
    return frozenset(p for p in out
                     if not rig_paths.exists(step.before, p) or not rig_paths.exists(step.after, p)
                     or _differs(rig_paths.get(step.before, p), rig_paths.get(step.after, p))) | \
        (frozenset({"name"}) if step.before.name != step.after.name else frozenset()) | frozenset(wholes)


def _differs(a, b) -> bool:
    """``a != b``; True for values that compare element by element (as ``SetValue.changes`` takes them)."""
    try:
        return bool(a != b)
    except (TypeError, ValueError):
        return True
