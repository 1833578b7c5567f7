"""Files changed on disk: when the open URDF or rig file, a description it names or one of their meshes
changes, a bar above the 3D view offers to read it again (as Drake's model visualizer and urdf-viz do);
Reload keeps the joint positions, the selection and the camera.

The window's own saves are no change: each file's signature (size, modification time and, for the
document's own file, its bytes) is taken when the document opens, reloads or is saved, and a notice whose
files all still match it is dropped. Editors that save by writing a new file and renaming it over the old
one take the path off Qt's watcher: it is watched again when the notice comes. Notices are gathered for a
moment, so a save that touches several files is one offer.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton

from mime_gui.session.watched import signature, watched_files

#: ms a burst of notices is gathered over before the offer shows
SETTLE_MS = 300


class ChangedBar(QFrame):
    """'arm.urdf changed on disk. [Reload] [Ignore]'."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("ChangedOnDisk")
        self.setStyleSheet("#ChangedOnDisk { background: #fff4ce; border-bottom: 1px solid #e0c97a; }"
                           "#ChangedOnDisk QLabel { color: #3b3000; }")
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 3, 8, 3)
        self.text = QLabel(self)
        self.text.setWordWrap(True)
        self.reload = QPushButton("Reload", self)
        self.reload.setToolTip("Read the files again, keeping the joint positions, the selection and the "
                               "camera")
        self.ignore = QPushButton("Ignore", self)
        self.ignore.setToolTip("Keep what is open; the next change on disk asks again")
        row.addWidget(self.text, 1)
        row.addWidget(self.reload)
        row.addWidget(self.ignore)
        self.hide()


class FileWatch(QObject):
    def __init__(self, window, bar: ChangedBar):
        super().__init__(window)
        self.window = window
        self.session = window.session
        self.bar = bar
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self._notice)
        self.watcher.directoryChanged.connect(self._notice)
        self.known: dict[str, tuple] = {}  # path -> signature when last read or written by the window
        self.own = ""  # the document's own file when the signatures were taken (hashed, the others not)
        self.changed: list[str] = []  # files the offer is about
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SETTLE_MS)
        self._timer.timeout.connect(self._offer)
        bar.reload.clicked.connect(self.reload)
        bar.ignore.clicked.connect(self.ignore)
        window.bridge.document_changed.connect(lambda _doc: self.follow())
        window.bridge.history_changed.connect(self._saved)

    # -- what is watched ---------------------------------------------------------------------------
    def follow(self) -> None:
        """Watch the open document's files (none for a bundle's extracted copy: no file of the user's) and
        take their signatures as they are now."""
        paths = self.watcher.files() + self.watcher.directories()
        if paths:
            self.watcher.removePaths(paths)
        self.known.clear()
        self.changed.clear()
        self.own = ""
        self.bar.hide()
        doc = self.session.document
        if doc is None or doc.bundle or not doc.path:
            return
        files = watched_files(doc)
        self.own = os.path.abspath(doc.path)
        self.known = {f: signature(f, own=f == self.own) for f in files}
        existing = [f for f in files if os.path.exists(f)]
        folders = sorted({str(Path(f).parent) for f in files})  # a file renamed over shows in its folder
        if existing:
            self.watcher.addPaths(existing)
        if folders:
            self.watcher.addPaths(folders)

    def _saved(self) -> None:
        """After a save the document's own file is what the window wrote: not a change."""
        doc = self.session.document
        if doc is None or doc.bundle or not doc.path or self.session.history.modified:
            return
        own = os.path.abspath(doc.path)
        if own != self.own:  # saved under another name (a URDF saved as a rig file): watch that document
            self.follow()
            return
        self.known[own] = signature(own, own=True)
        if own not in self.watcher.files() and os.path.exists(own):
            self.watcher.addPath(own)

    # -- notices -----------------------------------------------------------------------------------
    def _notice(self, _path: str) -> None:
        self._timer.start()

    def _offer(self) -> None:
        if self.session.document is None:
            return
        changed = [f for f, sig in self.known.items() if signature(f, own=f == self.own) != sig]
        watched = set(self.watcher.files())
        back = [f for f in self.known if f not in watched and os.path.exists(f)]
        if back:  # replaced by a rename: watch the new file
            self.watcher.addPaths(back)
        if not changed:
            return
        self.changed = changed
        names = ", ".join(Path(f).name for f in changed[:3]) + (f" and {len(changed) - 3} more"
                                                                 if len(changed) > 3 else "")
        text = f"{names} changed on disk."
        if self.session.history.modified:
            text += " Reload reads it again and discards your unsaved changes."
        self.bar.text.setText(text)
        self.bar.text.setToolTip("\n".join(changed))
        self.bar.show()

    def reload(self) -> None:
        self.bar.hide()
        self.window.reload()

    def ignore(self) -> None:
        """Keep what is open: the files as they are now are the ones known."""
        for f in self.changed:
            self.known[f] = signature(f, own=f == self.own)
        self.changed = []
        self.bar.hide()


def install_file_watch(window, layout) -> FileWatch:
    """The bar above the view (first in ``layout``, the central widget's) and the watch behind it."""
    bar = ChangedBar(window)
    layout.insertWidget(0, bar)
    return FileWatch(window, bar)


__all__ = ["SETTLE_MS", "ChangedBar", "FileWatch", "install_file_watch"]
