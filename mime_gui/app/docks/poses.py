"""Poses: the rig's named poses (its file's ``poses``), to store the current one, go to one, rename and
delete.

*Store* adds the segments' current commands (a torque-driven segment's positions) as a pose named in the box
beside it (``pose1``, ``pose2`` … when left empty), written in the sliders' unit (degrees or radians); *Go
to* (or a double-click) hands the pose's positions to the joint sliders, which command them (the arm follows
through the servo) or, with their Teleport, place them at once. A pose is renamed in place (F2, or a click on
the selected one) and removed with *Delete*. Storing, renaming and deleting are edits of the rig, one undo
step each; going to a pose is not. A pose the rules refuse is marked, its findings in its tooltip, and cannot
be gone to. *Centre* and *Randomize* (joint_state_publisher_gui's) ask the sliders for every joint at the
middle of its range or at a random position within its limits; neither is an edit.
"""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDockWidget,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from mime_gui.app.docks.registry import declare
from mime_gui.rig.poses import pose_of, positions_of
from mime_gui.session import AddItem, RemoveItem, RenameItem, Session, SessionError

NAME_ROLE = Qt.UserRole  # the pose's name as the rig holds it (the text may be mid-edit)


def current_positions(session: Session) -> dict[str, dict[str, float]]:
    """Each segment's commanded joints at their commands (a torque-driven segment's where they are), radians
    and metres: what a stored pose or a trajectory's keyframe takes."""
    out = {}
    for name, seg in session.segments.items():
        names = session.command_names(name)
        if not names:
            continue
        if session.drive(name) == "torques":
            q, art = session.joint_positions(name), seg.articulation
            values = [float(q[art.joint_index(j)]) for j in names]
        else:
            values = [float(v) for v in session.command(name)]
        out[name] = dict(zip(names, values, strict=True))
    return out


class PosesDock(QDockWidget):
    go_to_requested = Signal(object)  # {segment: {joint: radians or metres}}: the joint sliders take it
    centre_requested = Signal()  # joint_state_publisher_gui's Center and Randomize: the sliders do them
    randomize_requested = Signal()

    def __init__(self, session: Session, bridge, services, parent=None):
        super().__init__(parent)
        declare(self, "PosesDock")  # its title and object name: the dock registry
        self.session = session
        self._rows: list | None = None  # (name, findings' text) of each pose listed
        self.degrees = True  # the sliders' unit, which a stored pose is written in (set by the driving part)

        body = QWidget(self)
        outer = QVBoxLayout(body)
        outer.setContentsMargins(4, 4, 4, 4)
        bar = QHBoxLayout()
        self.name = QLineEdit(body)
        self.name.setObjectName("pose-name")
        self.name.setClearButtonEnabled(True)
        self.name.setToolTip("The new pose's name (empty: the next free pose1, pose2 …)")
        self.name.returnPressed.connect(self.store)
        self.store_button = QPushButton("Store", body)
        self.store_button.setToolTip("Store the joints' current commands as a pose of the rig "
                                     "(an edit: Edit → Undo)")
        self.store_button.clicked.connect(self.store)
        bar.addWidget(self.name, 1)
        bar.addWidget(self.store_button)
        outer.addLayout(bar)

        self.list = QListWidget(body)
        self.list.setObjectName("poses")
        self.list.setSelectionMode(QAbstractItemView.SingleSelection)
        # a double-click goes to the pose; F2 or a click on the selected one renames it
        self.list.setEditTriggers(QAbstractItemView.EditKeyPressed | QAbstractItemView.SelectedClicked)
        self.list.itemChanged.connect(self._renamed)
        self.list.itemDoubleClicked.connect(lambda item: self.go_to(item.data(NAME_ROLE)))
        self.list.currentItemChanged.connect(lambda *_: self._enable())
        outer.addWidget(self.list, 1)

        buttons = QHBoxLayout()
        self.go_button = QPushButton("Go to", body)
        self.go_button.setToolTip("Command the pose (the arm follows through the servo), or place it at once "
                                  "with the joint sliders' Teleport")
        self.go_button.clicked.connect(lambda: self.go_to(self.current()))
        self.rename_button = QPushButton("Rename", body)
        self.rename_button.setToolTip("Rename the pose (F2)")
        self.rename_button.clicked.connect(self._edit_current)
        self.delete_button = QPushButton("Delete", body)
        self.delete_button.setToolTip("Remove the pose from the rig (an edit: Edit → Undo)")
        self.delete_button.clicked.connect(lambda: self.delete(self.current()))
        # Centre and Randomize sit here rather than on the sliders' bar, whose width and height set the right
        # column's least size; they are poses without a name
        self.centre_button = QPushButton("Centre", body)
        self.centre_button.setToolTip("Every joint to the middle of its range (a continuous joint to 0), "
                                      "through the servo or with the sliders' Teleport")
        self.centre_button.clicked.connect(self.centre_requested)
        self.randomize_button = QPushButton("Randomize", body)
        self.randomize_button.setToolTip("Every joint to a random position within its limits (a continuous "
                                         "one within ±180°)")
        self.randomize_button.clicked.connect(self.randomize_requested)
        for w in (self.go_button, self.rename_button, self.delete_button):
            buttons.addWidget(w)
        buttons.addStretch(1)
        outer.addLayout(buttons)
        unnamed = QHBoxLayout()  # a row of their own: one row of five widens the bottom tabs
        for w in (self.centre_button, self.randomize_button):
            unnamed.addWidget(w)
        unnamed.addStretch(1)
        outer.addLayout(unnamed)
        self.setWidget(body)

        bridge.document_changed.connect(lambda _doc: self.refresh())
        bridge.rig_changed.connect(lambda _change: self.refresh())
        bridge.findings_changed.connect(lambda _findings: self.refresh())
        self.refresh()

    # -- state -----------------------------------------------------------------------------------------
    def set_degrees(self, on: bool) -> None:
        self.degrees = bool(on)

    def poses(self) -> dict:
        rig = self.session.rig
        return dict(rig.poses) if rig is not None else {}

    def findings_of(self, name: str) -> list:
        """The findings about the pose ``name`` (``poses.<name>`` and what is under it)."""
        where = f"poses.{name}"
        return [f for f in self.session.findings if f.where == where or f.where.startswith(where + ".")]

    def current(self) -> str | None:
        item = self.list.currentItem()
        return item.data(NAME_ROLE) if item is not None else None

    def item(self, name: str) -> QListWidgetItem | None:
        for i in range(self.list.count()):
            if self.list.item(i).data(NAME_ROLE) == name:
                return self.list.item(i)
        return None

    def next_name(self) -> str:
        """``pose1``, ``pose2`` …: the first the rig does not hold (in any case: the rules refuse two names
        that differ only in case)."""
        taken = {n.casefold() for n in self.poses()}
        i = 1
        while f"pose{i}" in taken:
            i += 1
        return f"pose{i}"

    # -- showing the rig ---------------------------------------------------------------------------------
    def refresh(self) -> None:
        rows = [(name, "\n".join(f.message for f in self.findings_of(name))) for name in self.poses()]
        if rows != self._rows:  # unchanged, the list is kept: a name being typed in it stays open
            self._rows = rows
            keep = self.current()
            warning = self.style().standardIcon(QStyle.SP_MessageBoxWarning)
            with QSignalBlocker(self.list):
                self.list.clear()
                for name, why in rows:
                    item = QListWidgetItem(name)
                    item.setData(NAME_ROLE, name)
                    item.setFlags(item.flags() | Qt.ItemIsEditable)
                    if why:
                        item.setIcon(warning)
                        item.setToolTip(why)
                    self.list.addItem(item)
                if keep is not None and self.item(keep) is not None:
                    self.list.setCurrentItem(self.item(keep))
        self.name.setPlaceholderText(self.next_name())
        self._enable()

    def _enable(self) -> None:
        has = self.session.document is not None
        self.name.setEnabled(has)
        self.store_button.setEnabled(has and self._built() is not None)
        name = self.current()
        self.go_button.setEnabled(name is not None and self.can_go_to(name))
        self.rename_button.setEnabled(name is not None)
        self.delete_button.setEnabled(name is not None)
        self.centre_button.setEnabled(has)
        self.randomize_button.setEnabled(has)

    def _built(self):
        doc = self.session.document
        return getattr(doc, "built", None) if doc is not None else None

    def can_go_to(self, name: str) -> bool:
        return name in self.poses() and not self.findings_of(name) and self._built() is not None

    # -- user input --------------------------------------------------------------------------------------
    def current_positions(self) -> dict[str, dict[str, float]]:
        """Each segment's commanded joints at their commands (a torque-driven segment's where they are)."""
        return current_positions(self.session)

    def store(self) -> None:
        """The current commands as a new pose, named from the box (or the next free name): one edit."""
        built = self._built()
        if built is None:
            return
        name = self.name.text().strip() or self.next_name()
        pose = pose_of(built, self.current_positions(), "deg|m" if self.degrees else "rad|m")
        try:
            self.session.apply(AddItem("poses", name, pose))
        except SessionError:  # a name taken: the window shows it, the box keeps the name to change
            return
        self.name.clear()
        item = self.item(name)
        if item is not None:
            self.list.setCurrentItem(item)

    def go_to(self, name: str | None) -> None:
        """The pose's positions to the joint sliders (commanded, or placed with their Teleport)."""
        if name is None or not self.can_go_to(name):
            return
        self.go_to_requested.emit(positions_of(self._built(), self.poses()[name]))

    def rename(self, old: str, new: str) -> None:
        new = new.strip()
        if new and new != old:
            try:
                self.session.apply(RenameItem("poses", old, new))
            except SessionError:  # shown by the window; the list shows the rig again
                pass
        self._rows = None  # the item's text may be one the rig does not hold
        self.refresh()
        item = self.item(new) or self.item(old)
        if item is not None:
            self.list.setCurrentItem(item)

    def delete(self, name: str | None) -> None:
        if name is None:
            return
        try:
            self.session.apply(RemoveItem("poses", name))
        except SessionError:
            pass

    def _edit_current(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self.list.editItem(item)

    def _renamed(self, item: QListWidgetItem) -> None:
        self.rename(item.data(NAME_ROLE), item.text())

    def keyPressEvent(self, event) -> None:
        if event.key() == Qt.Key_Delete and self.list.hasFocus():
            self.delete(self.current())
            return
        super().keyPressEvent(event)


__all__ = ["PosesDock", "current_positions"]
