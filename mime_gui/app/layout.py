"""The window's default arrangement of its docks, made once every dock exists.

Qt splits a tabbed group as a whole only if the split comes before the tabs are made, so the whole
arrangement is laid out here in one place, in that order, rather than by each part of the app as it is
installed:

- left: the chain tree above the palette;
- right: the forms (Properties) above the joint sliders, both in sight when a file opens (a user drives the
  arm first, and picks an item to edit next);
- below the view: the findings' tabs (Validation, Armature, Build report, Mass properties, Read report) beside
  the plots (with the joint torques and the joints' demand as tabs behind them), and the player across the
  whole foot of the window, its timeline as wide as the window.

A layout the user saved (the window state in the settings) is restored over this one afterwards, in the
event-loop turn after the window is made (see :func:`arrange_docks`).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QMainWindow

from mime_gui.app.docks import registry

# where each dock goes is declared once, in app/docks/registry.py
LEFT = registry.names("left")
RIGHT = registry.names("right")
BELOW_TABS = registry.names("below")
BESIDE_TABS = registry.names("beside")
(FOOT,) = registry.names("foot")

# the window's state format: bumped when the arrangement changes, so an older saved layout is not restored
# over a newer one
STATE_VERSION = 4


def panel_action(window, dock) -> QAction:
    """A checkable View → Panels entry for ``dock``, made here (not the dock's own toggleViewAction, a
    C++-owned object whose Python wrapper the binding can confuse with a dead object at the same address)."""
    action = QAction(dock.windowTitle(), window, checkable=True)
    action.setChecked(not dock.isHidden())
    action.toggled.connect(lambda on, _d=dock: (_d.setVisible(on), on and _d.raise_()))
    dock.visibilityChanged.connect(lambda _on, _d=dock, _a=action: _a.setChecked(not _d.isHidden()))
    return action


def build_panels_menu(window, menu) -> list[QAction]:
    """View → Panels: one entry per dock of the registry, in its order (each dock the window made)."""
    made = {d.objectName(): d for d in window.findChildren(QDockWidget)}
    menu.clear()
    actions = []
    for entry in registry.DOCKS:
        dock = made.get(entry.name)
        if dock is not None:
            action = panel_action(window, dock)
            menu.addAction(action)
            actions.append(action)
    return actions


def _tabbed(window, docks, area, names) -> list[QDockWidget]:
    group = [docks[n] for n in names if n in docks]
    for i, dock in enumerate(group):
        window.addDockWidget(area, dock)
        dock.show()
        if i:
            window.tabifyDockWidget(group[0], dock)
    if group:
        group[0].raise_()
    return group


def _tab_beside(window, group: list[QDockWidget], more: list[QDockWidget]) -> None:
    """``more`` as tabs beside the first of ``group``, the first staying in front (not added to the area
    first: stacked there for a moment, the column would outgrow a short window)."""
    if not group:
        return
    for dock in more:
        window.tabifyDockWidget(group[0], dock)
        dock.show()
    group[0].raise_()


class _LastStep(QObject):
    """The arrangement's last step, run once: in the next turn of the event loop, before a saved state is
    restored, or, when the window closes first, before its state is saved (else the state saved holds the
    plots' tabs side by side, and a window restored from it is as wide as all of them)."""

    def __init__(self, window: QMainWindow, step: Callable[[], None]):
        super().__init__(window)
        self._step: Callable[[], None] | None = step
        window.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Close:
            self.run()
        return False

    def run(self) -> None:
        step, self._step = self._step, None
        if step is not None:
            self.parent().removeEventFilter(self)
            step()


def arrange_docks(window: QMainWindow) -> Callable[[], None]:
    """Lay the docks out; returns the last step (the plots' tabs), for the next turn of the event
    loop or just before a saved state is restored (it runs once: on a close that comes first too)."""
    docks = {d.objectName(): d for d in window.findChildren(QDockWidget)}
    options = window.dockOptions()
    window.setDockOptions(options & ~QMainWindow.AnimatedDocks)
    known = [*LEFT, *RIGHT, *BELOW_TABS, *BESIDE_TABS, FOOT]
    present = [docks[n] for n in known if n in docks]
    for dock in present:  # each one placed afresh
        window.removeDockWidget(dock)

    def add(area, name: str) -> QDockWidget | None:
        dock = docks.get(name)
        if dock is not None:
            window.addDockWidget(area, dock)
            dock.show()
        return dock

    left = [d for d in (add(Qt.LeftDockWidgetArea, n) for n in LEFT) if d is not None]
    for upper, lower in zip(left, left[1:], strict=False):
        window.splitDockWidget(upper, lower, Qt.Vertical)
    right = [d for d in (add(Qt.RightDockWidgetArea, n) for n in RIGHT) if d is not None]
    for upper, lower in zip(right, right[1:], strict=False):
        window.splitDockWidget(upper, lower, Qt.Vertical)

    # each tab made as its dock is added: docks first added side by side and tabbed afterwards leave a
    # stray tab bar behind
    below = _tabbed(window, docks, Qt.BottomDockWidgetArea, BELOW_TABS)
    # Qt 6 leaves a stray copy of a second tab group's bar over the window when both are made before it is
    # shown: the plots' tabs are made by the step returned, once the window is shown
    beside = add(Qt.BottomDockWidgetArea, BESIDE_TABS[0])  # beside the tabs: the bottom area runs across
    beside_later = [docks[n] for n in BESIDE_TABS[1:] if n in docks]
    foot = docks.get(FOOT)
    if foot is not None:  # across the bottom area, under everything in it
        window.addDockWidget(Qt.BottomDockWidgetArea, foot, Qt.Vertical)
        foot.show()

    window.resizeDocks(left[:1] + right[:1], [360, 340], Qt.Horizontal)
    if below and beside is not None:
        window.resizeDocks([below[0], beside], [3, 2], Qt.Horizontal)
    if foot is not None:
        window.resizeDocks([foot], [foot.minimumSizeHint().height()], Qt.Vertical)
    if len(right) == 2:  # the forms take a little more than the sliders
        window.resizeDocks(right, [3, 2], Qt.Vertical)
    window.setDockOptions(options)

    def finish() -> None:
        _tab_beside(window, [beside] if beside is not None else [], beside_later)
        # the side columns a quarter of the window each at most once it has its size: at 1024 px the view
        # keeps half the width
        side = max(230, min(360, window.width() // 4))
        window.resizeDocks(left[:1] + right[:1], [side, side], Qt.Horizontal)

    return _LastStep(window, finish).run


__all__ = ["STATE_VERSION", "arrange_docks", "build_panels_menu", "panel_action"]
