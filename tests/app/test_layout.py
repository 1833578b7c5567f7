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
                 "PlotsDock", "TorquesDock", "MotorDemandDock", "PosesDock", "MeasuresDock", "TrajectoryDock",
                 "PlannerDock", "SweepDock", "PlayerDock"):
        assert area[name] == Qt.BottomDockWidgetArea, name
    driving = window.driving
    # the forms above the joint sliders, both in sight
    assert window.tabifiedDockWidgets(window.properties_dock) == []
    assert not window.properties_dock.visibleRegion().isEmpty()
    assert not driving.sliders.visibleRegion().isEmpty()
    assert driving.sliders.geometry().top() >= window.properties_dock.geometry().bottom()
    # one bar per tab group, none left behind by the arrangement
    assert _bars(window) == [("Plots", "Torques", "Demand", "Poses", "Measures", "Trajectory", "Find poses"),
                             ("Validation", "Armature", "Build report", "Mass properties", "Read report",
                              "Sweep")]
    player, plots = driving.player, driving.plots
    # the player runs across the foot of the window, under the plots and the findings
    assert player.width() >= window.width() - 20
    assert player.geometry().top() >= plots.geometry().bottom()
    assert player.geometry().top() >= window.properties_dock.geometry().bottom()
    assert driving.player.timeline.width() > window.width() // 2


def test_the_rigs_form_shows_whole_above_its_summary(make_window, qtbot):
    """Nothing selected: the rig's short form (its name and the hint on what to do) in full, not cut at the
    edge of its scroll area, and the read-only summary in the height left under it."""
    window = make_window(size=(1200, 800))
    window.open_file(str(DEMO_RIG))
    qtbot.wait(50)
    dock = window.properties_dock
    scroll = dock.forms.scroll
    assert scroll.isVisible() and dock.tree.isVisible()
    assert scroll.verticalScrollBar().maximum() == 0
    assert dock.tree.height() >= dock.tree.minimumHeight() > 0


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
    assert window.scene.width() >= 0.4 * window.width()  # the side columns narrow with the window


def test_at_1024_the_view_keeps_nearly_half_the_width(make_window, qtbot):
    window = make_window(size=(1024, 700))
    qtbot.wait(50)
    assert window.scene.width() >= 0.42 * 1024
    assert window.tree_dock.width() >= 220 and window.properties_dock.width() >= 220  # still readable


def test_the_status_bar_does_not_stay_on_loading_a_mesh_once_all_are_loaded(qtbot):
    """The app opens its file before the window exists (as ``mime-gui FILE`` does)."""
    from mime_gui.app.main import wait_until_ready
    from mime_gui.app.main_window import MainWindow
    from mime_gui.app.scene import meshes
    from mime_gui.session import Session

    meshes.clear_caches()  # read from disk, as at a start (earlier tests may have the demo's meshes)
    session = Session()
    session.open(DEMO_RIG)
    window = MainWindow(session, restore=False)
    qtbot.addWidget(window)
    window.show()
    seen = []
    window.statusBar().messageChanged.connect(seen.append)
    wait_until_ready(window)
    qtbot.wait(20)
    assert any(m.startswith("Loading ") for m in seen)  # it did say so while loading
    assert not window.statusBar().currentMessage().startswith("Loading ")
    window.close()


def test_the_plots_stand_side_by_side_when_wide_and_stacked_with_one_time_axis_when_tall(make_window, qtbot):
    window = make_window(size=(1200, 800))
    window.open_file(str(DEMO_RIG))
    plots = window.driving.plots
    plots.setFloating(True)

    def shape(w, h):
        plots.resize(w, h)
        qtbot.wait(20)
        rows = [plots.graphs.ci.items[p][0][0] for p in plots.plots]  # (row, col) of each plot
        shown = [p.getAxis("bottom").label.isVisible() for p in plots.plots]
        lefts = [p.getAxis("left").labelText for p in plots.plots]
        return rows, shown, lefts

    rows, shown, lefts = shape(1400, 260)
    assert rows == [0, 0, 0] and shown == [True, True, True]  # side by side, each its own time axis
    assert lefts[0] == "joints (°, m)"  # the sliders' unit
    rows, shown, lefts = shape(520, 700)
    assert rows == [0, 1, 2] and shown == [False, False, True]  # one above the other, the time axis once
    assert lefts[0] == "q (°, m)"  # a short plot has no room for the long name, but keeps the unit
    # a command file loaded while stacked relabels the time axes: still only the last shows it (the
    # clearance plot a loaded file adds is off here: the fourth plot below stands for any extra one)
    window.clearance.action.setChecked(False)
    assert window.driving.player.open_file(str(RESOURCES / "demo" / "chain.csv"))
    qtbot.wait(20)
    assert [p.getAxis("bottom").label.isVisible() for p in plots.plots] == [False, False, True]
    assert plots.plots[-1].getAxis("bottom").labelText == "t (s)"
    # a fourth plot (the field at a probe): a tall dock shows two columns of two, time on the bottom row
    extra = plots.add_plot("B xyz (mT)", "B (mT)", "the field at the selected probe")
    plots.show_plot(extra, True)
    plots.resize(520, 701)
    qtbot.wait(20)
    four = [*plots.plots, extra]
    assert [plots.graphs.ci.items[p][0] for p in four] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert [p.getAxis("bottom").label.isVisible() for p in four] == [False, False, True, True]
    plots.show_plot(extra, False)
    qtbot.wait(20)
    assert extra not in plots.graphs.ci.items
    assert [plots.graphs.ci.items[p][0] for p in plots.plots] == [(0, 0), (1, 0), (2, 0)]


def test_plots_too_low_to_stack_stand_side_by_side_each_with_a_time_inside_its_axis(make_window, qtbot):
    from mime_gui.app.docks.plots import MIN_STACKED_PX

    window = make_window(size=(1200, 800))
    window.open_file(str(DEMO_RIG))
    plots = window.driving.plots
    plots.setFloating(True)
    plots.resize(560, 230)
    qtbot.wait(20)
    graphs = plots.graphs.size()
    # taller than wide enough to stack by its shape, but three stacked plots would each be too low to read
    assert graphs.width() < 2.4 * graphs.height() < 2.4 * 3 * MIN_STACKED_PX
    assert [plots.graphs.ci.items[p][0][0] for p in plots.plots] == [0, 0, 0]
    assert [p.getAxis("left").labelText for p in plots.plots][0] == "joints (°, m)"
    # the live window's 20 s on a narrow axis: the times stand apart, and one stands inside the axis
    axis = plots.plots[0].getAxis("bottom")
    width = axis.geometry().width()
    assert width < 120
    (spacing, times), = axis.tickValues(-20.0, 0.0, width)
    assert spacing * width / 20.0 >= 28 and any(-20.0 < t < 0.0 for t in times)
    plots.resize(560, 3 * MIN_STACKED_PX + 200)  # tall enough: stacked again
    qtbot.wait(20)
    assert [plots.graphs.ci.items[p][0][0] for p in plots.plots] == [0, 1, 2]


def test_a_time_axis_keeps_its_libraries_ticks_where_they_stand_apart(qtbot):
    import pyqtgraph as pg

    from mime_gui.app.docks.plots import TimeAxis, nice_step

    ours, library = TimeAxis("bottom"), pg.AxisItem("bottom")
    for lo, hi, px in ((-20.0, 0.0, 600.0), (0.0, 3.7, 900.0), (2.0, 12.5, 400.0)):
        assert ours.tickSpacing(lo, hi, px) == library.tickSpacing(lo, hi, px)
    assert ours.tickSpacing(-20.0, 0.0, 65.0) == [(10.0, 0.0)]  # 5 s would stand 16 px apart
    assert ours.tickSpacing(-20.0, 0.0, 40.0) == [(20.0, 0.0)]
    steps = [nice_step(x) for x in (8.6, 10.0, 0.3, 2.0, 2.01, 0.04, 51.0)]
    assert steps == [10.0, 10.0, 0.5, 2.0, 5.0, 0.05, 100.0]


def test_every_dock_is_declared_once_placed_by_the_layout_and_listed_in_panels(make_window, qtbot):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QDockWidget

    from mime_gui.app.docks import registry
    from mime_gui.app.layout import BELOW_TABS, BESIDE_TABS, FOOT, LEFT, RIGHT

    window = make_window(size=(1200, 800))
    qtbot.wait(50)
    made = {d.objectName(): d for d in window.findChildren(QDockWidget)}
    declared = [d.name for d in registry.DOCKS]
    assert len(set(declared)) == len(declared)  # once each
    assert set(made) == set(declared)  # no dock the registry lacks, none it declares that was not made
    assert sorted([*LEFT, *RIGHT, *BELOW_TABS, *BESIDE_TABS, FOOT]) == sorted(declared)
    for entry in registry.DOCKS:
        assert made[entry.name].windowTitle() == entry.title
    area = {"left": Qt.LeftDockWidgetArea, "right": Qt.RightDockWidgetArea, "below": Qt.BottomDockWidgetArea,
            "beside": Qt.BottomDockWidgetArea, "foot": Qt.BottomDockWidgetArea}
    for entry in registry.DOCKS:
        assert window.dockWidgetArea(made[entry.name]) == area[entry.place], entry.name
    panels = window.menus["Panels"].actions()
    assert [a.text() for a in panels] == [d.title for d in registry.DOCKS]  # each once, in table order
    player = next(a for a in panels if a.text() == "Player")
    player.trigger()  # unchecked: the dock is hidden, and checked again it is back
    assert made["PlayerDock"].isHidden() and not player.isChecked()
    player.trigger()
    assert not made["PlayerDock"].isHidden()


def test_the_registry_refuses_a_place_it_does_not_know():
    import pytest

    from mime_gui.app.docks import registry

    with pytest.raises(ValueError, match="unknown place"):
        registry.names("top")


def test_a_long_frame_name_is_shortened_in_the_middle_and_the_numbers_stay(make_window, qtbot, robot_file):
    """so101's frames are ``so101_new_calib.moving_jaw_so101_v1_link`` and the like: in a narrow Plots dock
    the readout and the frame box keep both ends of the name (segment and frame) and every number."""
    from mime_gui.session import ItemRef

    path = robot_file("so101")
    window = make_window(size=(1200, 800))
    assert window.open_file(str(path))
    session, driving = window.session, window.driving
    driving.clock.stop()  # the test takes the steps
    plots = driving.plots
    plots.setFloating(True)
    plots.resize(520, 300)
    [segment] = session.segments
    frame = "moving_jaw_so101_v1_link"
    full = f"{segment}.{frame}"
    session.select(ItemRef(segment, "frame", frame))
    assert plots.frame_box.currentText() == full
    session.set_command(segment, {"shoulder_pan": 0.3})
    for _ in range(5):
        driving.transport.tick(0.02)
        qtbot.wait(1)
    pose = session.frame_world_pose(segment, frame)
    qtbot.waitUntil(lambda: f"z {pose[2, 3]:+.4f} m" in plots.readout.text(), timeout=5000)
    readout = plots.readout
    text = readout.text()
    assert f"x {pose[0, 3]:+.4f}  y {pose[1, 3]:+.4f}  z {pose[2, 3]:+.4f} m<br>ω " in text
    numbers = f"x {pose[0, 3]:+.4f}  y {pose[1, 3]:+.4f}  z {pose[2, 3]:+.4f} m"
    whole = readout.label.fontMetrics().horizontalAdvance(f"{full}: {numbers}")
    assert readout.label.sizeHint().width() <= readout.width() < whole  # all of it in view, cut to fit
    shown = text.split("</b>")[0].removeprefix("<b>")
    head, tail = shown.split("…")
    assert full.startswith(head) and full.endswith(tail) and len(head) >= 4 and len(tail) >= 4
    box = plots.frame_box
    head, tail = box.shown_text().split("…")
    qtbot.waitUntil(lambda: full in box.toolTip(), timeout=3000)  # made when drawn
    assert full.startswith(head) and full.endswith(tail) and full in box.toolTip()
    plots.resize(1500, 300)  # room for the whole name: shown whole, without waiting for the next frame
    qtbot.waitUntil(lambda: readout.text().startswith(f"<b>{full}</b>: x "), timeout=3000)
    assert readout.text() == text.replace(f"<b>{shown}</b>", f"<b>{full}</b>")  # the same numbers
