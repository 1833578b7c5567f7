"""The parts every form shares: sections of labelled fields, each bound to a rig path, the findings shown
under the field they are about, derived values that refresh in place, and one way to apply an edit.

A form is built once per item and kind of item; an edit of that item refreshes its fields in place (the one
being typed in keeps its text and focus) and its derived values. A form is rebuilt only when what it shows
changes shape (another geometry, a mass declared instead of taken from the material, another segment kind):
:meth:`Form.shape` says what that is.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QFrame, QLabel, QSizePolicy, QVBoxLayout, QWidget

from mime_gui.app.docks.fields import Field, LengthUnit
from mime_gui.app.docks.look import hint, message
from mime_gui.app.docks.look import title as title_look
from mime_gui.session import ItemRef, SessionError
from mime_gui.session.renderer import ITEM_COLLECTIONS, RIDERS


def part_target(session, ref: ItemRef | None):
    """``(collection, name)`` of the part or magnet ``ref`` stands for (its own ref, or the link it is
    grafted as), or of the probe, sample or zone (``("probes", name)`` …), else None."""
    rig = session.rig
    if ref is None or rig is None:
        return None
    if ref.kind in RIDERS:
        collection = RIDERS[ref.kind]
        return (collection, ref.name) if ref.name in getattr(rig, collection, {}) else None
    if ref.kind in ("part", "magnet"):
        collection = "parts" if ref.kind == "part" else "magnets"
        return (collection, ref.name) if ref.name in getattr(rig, collection) else None
    seg = session.segments.get(ref.segment) if ref.kind == "link" else None
    item = seg.item_of(ref.name) if seg is not None else None
    return item if item is not None and item[1] in getattr(rig, item[0], {}) else None


def item_ref(session, collection: str, name: str) -> ItemRef | None:
    """The selection that stands for an item of the rig: a segment's own row; a part or magnet by itself,
    ``ItemRef("", "part", name)``, whatever carries it, so it stays selected while its mount or shape is
    being fixed (a part whose size or mount breaks a rule is not drawn; its graft link is gone). The chain
    tree and the 3D view light the link it is grafted as."""
    if collection == "chain":
        ref = ItemRef(name, "segment", name)
        return ref if session.has_item(ref) else None
    rig = session.rig
    if rig is None or name not in getattr(rig, collection, {}):
        return None
    kinds = {c: k for k, c in ITEM_COLLECTIONS.items()}
    return ItemRef("", kinds[collection], name)


def graft_of(session, name: str) -> tuple[str, str] | None:
    """``(segment, link)`` a part or magnet is drawn as, or None when it is not drawn."""
    for seg_name, seg in session.segments.items():
        link = seg.graft_of(name)
        if link is not None:
            return seg_name, link
    return None


def canonical(session, ref: ItemRef | None) -> ItemRef | None:
    """A grafted part's link (what a click in the tree or the view gives) as the part's own reference."""
    found = part_target(session, ref) if ref is not None and ref.kind == "link" else None
    return item_ref(session, *found) if found is not None else ref


def finding_matches(where: str, path: str) -> bool:
    return where == path or where.startswith(path + ".")


class Form(QWidget):
    """Sections of fields; subclasses add them in :meth:`build` and say their :meth:`shape`."""

    def __init__(self, panel, parent=None):
        super().__init__(parent)
        self.panel = panel
        self.session = panel.session
        self.lengths: LengthUnit = panel.lengths
        self.fields: list[Field] = []
        self.derived: list = []  # callables(rig) refreshing read-only labels
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(6, 4, 6, 6)
        self._layout.setSpacing(2)
        self.other = QLabel(self)  # findings of the item no field shows
        self.other.setWordWrap(True)
        message(self.other)
        self.other.hide()
        self._layout.addWidget(self.other)
        self._form: QFormLayout | None = None

    # -- to override ---------------------------------------------------------------------------------
    def shape(self, rig) -> tuple:
        """What the form's layout depends on; a change of it rebuilds the form."""
        return ()

    def exists(self, rig) -> bool:
        return True

    def own_paths(self) -> tuple[str, ...]:
        """Rig paths whose findings belong to this form."""
        return ()

    # -- building ------------------------------------------------------------------------------------
    def section(self, title: str) -> QFormLayout:
        label = QLabel(title, self)
        title_look(label)
        self._layout.addWidget(label)
        holder = QFrame(self)
        form = QFormLayout(holder)
        form.setContentsMargins(8, 0, 0, 0)
        form.setLabelAlignment(Qt.AlignRight | Qt.AlignVCenter)
        form.setFieldGrowthPolicy(QFormLayout.AllNonFixedFieldsGrow)
        self._layout.addWidget(holder)
        self._form = form
        return form

    def add(self, label: str, field: Field, read, commit, tip: str = "", exact: bool = False) -> Field:
        """A field in the current section; ``exact``: it shows findings of its own path only (a name,
        whose path is the whole item's)."""
        field.exact = exact
        field.read = read
        field.commit = commit
        field.source = lambda: self.session.rig
        field.seal = self.session.seal
        if tip:
            field.setToolTip(tip)
        self._form.addRow(label, field)
        self.fields.append(field)
        return field

    def add_value(self, label: str, compute, tip: str = "") -> QLabel:
        """A read-only derived value, recomputed on every refresh: ``compute(rig)`` returns its text, or
        ``(text, tooltip)``. One line that never changes the form's layout (a wrapped label relaid the whole
        form out at every keystroke); the whole text is in its tooltip."""
        value = QLabel(self)
        value.setTextInteractionFlags(Qt.TextSelectableByMouse)
        value.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Fixed)
        value.setMinimumWidth(20)
        self._form.addRow(label, value)

        def refresh(rig, _label=value, _compute=compute, _tip=tip):
            try:
                text = _compute(rig)
            except (KeyError, ValueError, TypeError, ArithmeticError) as err:
                text = f"— ({err})"
            text, more = text if isinstance(text, tuple) else (text, "")
            if _label.text() != text:
                _label.setText(text)
                _label.setToolTip("\n".join(t for t in (text, more, _tip) if t))

        self.derived.append(refresh)
        return value

    def add_widget(self, label: str, widget: QWidget) -> None:
        self._form.addRow(label, widget)

    def hint(self, text: str) -> QLabel:
        label = QLabel(text, self)
        label.setWordWrap(True)
        hint(label)
        self._layout.addWidget(label)
        return label

    def finish(self) -> None:
        self._layout.addStretch(1)

    # -- refreshing ----------------------------------------------------------------------------------
    def refresh(self, rig, force: bool = False) -> None:
        for field in self.fields:
            field.refresh(rig, force)
        for refresh in self.derived:
            refresh(rig)

    def show_findings(self, findings) -> None:
        """Each finding under one field: the one showing its path, else the first field inside it (a
        finding about a whole geometry goes under its first size), else at the top of the form."""
        mine = [f for f in findings if any(finding_matches(f.where, p) for p in self.own_paths())]
        placed: dict[int, list] = {}
        rest = []
        for f in mine:
            field = self.field_for(f.where) or next(
                (x for x in self.fields if x.path.startswith(f.where + ".")), None)
            if field is None:
                rest.append(f)
            else:
                placed.setdefault(id(field), []).append(f)
        for field in self.fields:
            texts = placed.get(id(field), [])
            field.set_finding("\n".join(f"[{f.code}] {f.message}" for f in texts))
        self.other.setText("\n".join(f"[{f.code}] {f.where}: {f.message}" for f in rest))
        self.other.setVisible(bool(rest))

    def field_for(self, path: str) -> Field | None:
        """The field showing ``path`` (or the closest one holding it)."""
        best = None
        for field in self.fields:
            holds = field.path == path or (not field.exact and finding_matches(path, field.path))
            if holds and (best is None or len(field.path) > len(best.path)):
                best = field
        return best

    # -- edits ---------------------------------------------------------------------------------------
    def apply(self, edit) -> bool:
        """Apply one edit through the Session; a refusal is shown by the window (the Session emitted it)."""
        try:
            self.session.apply(edit)
        except SessionError:
            return False
        return True
