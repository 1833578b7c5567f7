"""The window's default arrangement: what sits where, a timeline as wide as the window, no stray tab bar,
and a window that can be small."""

from __future__ import annotations

from PySide6.QtWidgets import QTabBar

from mime_gui import RESOURCES

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"


def _bars(window):
    return sorted(tuple(bar.tabText(i) for i in range(bar.count()))
                  for bar in window.findChildren(QTabBar) if bar.isVisible())


def test_default_arrangement(make_window, qtbot):
    window = make_window(size=(1200, 800))
    qtbot.wait(50)  # the last step (the right column's tabs) runs in the next turn
    area = {d.objectName(): window.dockWidgetArea(d) for d in window.findChildren(type(window.tree_dock)
                                                                                    .__mro__[1])}
    from PySide6.QtCore import Qt

    assert area["ChainTreeDock"] == area["PaletteDock"] == Qt.LeftDockWidgetArea
    assert area["PropertiesDock"] == area["JointSlidersDock"] == Qt.RightDockWidgetArea
    for name in ("ValidationDock", "ArmatureDock", "BuildReportDock", "MassPropertiesDock", "ReadReportDock",
                 "PlotsDock", "PlayerDock"):
        assert area[name] == Qt.BottomDockWidgetArea, name
    driving = window.driving
    assert window.tabifiedDockWidgets(window.properties_dock) == [driving.sliders]
    assert not window.properties_dock.visibleRegion().isEmpty()  # the forms in front
    # one bar per tab group, none left behind by the arrangement
    assert _bars(window) == [("Properties", "Joint sliders"),
                             ("Validation", "Armature", "Build report", "Mass properties", "Read report")]
    player, plots = driving.player, driving.plots
    # the player runs across the foot of the window, under the plots and the findings
    assert player.width() >= window.width() - 20
    assert player.geometry().top() >= plots.geometry().bottom()
    assert player.geometry().top() >= window.properties_dock.geometry().bottom()
    assert driving.player.timeline.width() > window.width() // 2


def test_a_small_window_keeps_its_size_and_the_long_texts_do_not_widen_it(make_window, qtbot):
    window = make_window(size=(900, 600))
    window.open_file(str(DEMO_RIG))
    driving = window.driving
    assert driving.player.open_file(str(RESOURCES / "demo" / "chain.csv"))
    driving.player.source.setText("a very long command file name " * 10)  # clipped, not widening
    qtbot.wait(50)
    assert (window.width(), window.height()) == (900, 600)
    assert window.minimumSizeHint().width() <= 900
    assert window.minimumSizeHint().height() <= 600
