"""Package folders remembered by the app: where ``package://`` meshes are looked for, kept between runs.

The command line's ``--package-dir`` folders come first, then the remembered ones (File → Package folders…),
then each description's own folders and ``ROS_PACKAGE_PATH`` (see :mod:`mime_gui.multibody.resolve`). A change
in the dialog reads the open file again, so its meshes are looked for anew.
"""

from __future__ import annotations

import os

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPushButton,
    QVBoxLayout,
)

from mime_gui.multibody.resolve import set_package_dirs

KEY = "packages/dirs"

_command_line: list[str] = []  # the --package-dir folders of this run, ahead of the remembered ones


def remembered(settings: QSettings) -> list[str]:
    value = settings.value(KEY, [])
    if isinstance(value, str):  # QSettings hands back a one-item list as its item
        value = [value]
    return [str(v) for v in value or [] if str(v)]


def remember(settings: QSettings, folders: list[str]) -> None:
    settings.setValue(KEY, list(folders))


def apply(settings: QSettings, command_line=None) -> tuple[str, ...]:
    """Make the command line's folders (kept from the first call) and the remembered ones the process's
    package folders; returns them in the order they are searched."""
    if command_line is not None:
        _command_line[:] = [os.path.abspath(os.fspath(d)) for d in command_line]
    folders: list[str] = []
    for d in (*_command_line, *remembered(settings)):
        if d not in folders:
            folders.append(d)
    set_package_dirs(folders)
    return tuple(folders)


class PackageFoldersDialog(QDialog):
    """The remembered package folders: add, remove, and OK to keep them (and read the open file again)."""

    def __init__(self, settings: QSettings, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Package folders")
        self.settings = settings
        col = QVBoxLayout(self)
        intro = QLabel("Folders where <code>package://</code> meshes are looked for: a folder holding "
                       "packages, or a package folder itself. Searched after the command line's "
                       "<code>--package-dir</code> and before <code>ROS_PACKAGE_PATH</code>.", self)
        intro.setWordWrap(True)
        col.addWidget(intro)
        self.list = QListWidget(self)
        self.list.setTextElideMode(Qt.ElideMiddle)
        self.list.addItems(remembered(settings))
        col.addWidget(self.list, 1)
        if _command_line:
            given = QLabel("From the command line (this run only): " + ", ".join(_command_line), self)
            given.setWordWrap(True)
            given.setStyleSheet("color: gray")
            col.addWidget(given)
        row = QHBoxLayout()
        self.add_button = QPushButton("Add…", self)
        self.add_button.clicked.connect(self._add_dialog)
        self.remove_button = QPushButton("Remove", self)
        self.remove_button.clicked.connect(self.remove_selected)
        row.addWidget(self.add_button)
        row.addWidget(self.remove_button)
        row.addStretch(1)
        col.addLayout(row)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        col.addWidget(buttons)
        self.list.currentRowChanged.connect(lambda _r: self._refresh())
        self._refresh()
        self.resize(560, 320)

    def folders(self) -> list[str]:
        return [self.list.item(i).text() for i in range(self.list.count())]

    def add_folder(self, path: str) -> bool:
        """Add ``path`` (made absolute); False when it is not a folder or is listed already."""
        path = os.path.abspath(path)
        if not os.path.isdir(path) or path in self.folders():
            return False
        self.list.addItem(path)
        self.list.setCurrentRow(self.list.count() - 1)
        self._refresh()
        return True

    def remove_selected(self) -> None:
        row = self.list.currentRow()
        if row >= 0:
            self.list.takeItem(row)
        self._refresh()

    def _add_dialog(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Add a package folder")
        if path:
            self.add_folder(path)

    def _refresh(self) -> None:
        self.remove_button.setEnabled(self.list.currentRow() >= 0)

    def accept(self) -> None:
        remember(self.settings, self.folders())
        apply(self.settings)
        super().accept()


__all__ = ["PackageFoldersDialog", "apply", "remember", "remembered"]
