"""A user's gestures on the window, shared by the app tests: a drag from the palette dropped on a row of the
Chain tree, a click on a row."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from mime_gui.app.drag import template_mime
from mime_gui.session import ItemRef


def drop_on_row(window, key: str, ref: ItemRef) -> None:
    """Drag palette template ``key`` over the tree row of ``ref`` and drop it there, with real drag events on
    the viewport; each must be accepted."""
    tree = window.tree_dock.tree
    item = window.tree_dock.item_for(ref)
    assert item is not None, ref
    tree.scrollToItem(item)
    pos = tree.visualItemRect(item).center()
    mime = template_mime(key)  # kept alive: the events hold a pointer to it
    viewport = tree.viewport()
    for event in (QDragEnterEvent(pos, Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier),
                  QDragMoveEvent(pos, Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier),
                  QDropEvent(pos.toPointF(), Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)):
        QApplication.sendEvent(viewport, event)
        assert event.isAccepted(), event.type()
    for _ in range(3):  # the new item's form opens in the next turn, after the frame that shows it
        QApplication.processEvents()


def click_row(window, ref: ItemRef) -> None:
    """A left click on the tree row of ``ref``."""
    tree = window.tree_dock.tree
    item = window.tree_dock.item_for(ref)
    assert item is not None, ref
    tree.scrollToItem(item)
    QTest.mouseClick(tree.viewport(), Qt.LeftButton, Qt.NoModifier, tree.visualItemRect(item).center())
    QApplication.processEvents()


def after_posted_events(qtbot) -> None:
    """Return once every event posted so far has been handled: a marker posted now comes after them (posted
    events are handled in order), so a render already asked for has come by then."""
    from PySide6.QtCore import QTimer

    done: list[bool] = []
    QTimer.singleShot(0, lambda: done.append(True))
    qtbot.waitUntil(lambda: bool(done), timeout=5000)
