"""A measure's end at a point clicked on the robot in the 3D view (the ⊕ button beside an end): the point
lies on the link's drawn surface (trimesh), rides with the link as the arm moves, and the distance read is
the one computed from the published poses; a click off every surface picks nothing and selects nothing."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from test_assembly import _link_under_its_own_centre, settle
from test_driving import open_ready
from test_face_drop import link_mesh
from test_measures_dock import choose, measures_dock

from mime_gui import RESOURCES
from mime_gui.rig.measures import PointEnd


def click(qtbot, widget, pos: QPoint) -> None:
    """A left click as a hand makes it: press, a pixel's jitter, release."""
    QTest.mousePress(widget, Qt.LeftButton, Qt.NoModifier, pos)
    QTest.mouseMove(widget, pos + QPoint(1, 0))
    settle(qtbot, 5)
    QTest.mouseRelease(widget, Qt.LeftButton, Qt.NoModifier, pos + QPoint(1, 0))
    settle(qtbot, 20)


def test_a_point_clicked_on_a_link_is_a_measure_end_that_rides_with_it(window, qtbot):
    open_ready(window, RESOURCES / "demo" / "demo.rig.json", qtbot)
    session, dock = window.session, measures_dock(window, qtbot)
    settle(qtbot, 50)
    link, pos = _link_under_its_own_centre(window)
    a, b = dock.pickers
    choose(b, "arm.tool0")
    selected = session.selection
    qtbot.mouseClick(a.point, Qt.LeftButton)
    assert a.point.isChecked()
    click(qtbot, window.scene.plotter, pos)
    end = a.end()
    assert isinstance(end, PointEnd) and (end.segment, end.frame) == ("arm", link)
    assert not a.point.isChecked() and session.selection == selected  # the click gave a point, no selection
    mesh = link_mesh(window, link)
    world = session.frame_world_pose("arm", link) @ np.r_[end.at, 1.0]
    _closest, distance, _tri = __import__("trimesh").proximity.closest_point(mesh, world[None, :3])
    assert distance[0] < 1e-6 * float(np.linalg.norm(mesh.extents))
    qtbot.mouseClick(dock.add_button, Qt.LeftButton)
    assert len(session.measures) == 1
    # the arm moves: the point rides on its link, the distance follows
    names = session.command_names("arm")
    session.set_joint_positions("arm", {names[0]: 0.7, names[1]: -0.4})
    settle(qtbot, 20)
    (reading,) = session.measure_readings()
    point = session.frame_world_pose("arm", link) @ np.r_[end.at, 1.0]
    tool = session.frame_world_pose("arm", "tool0")[:3, 3]
    assert abs(reading.distance - np.linalg.norm(tool - point[:3])) < 1e-12


def test_a_click_off_every_surface_picks_nothing(window, qtbot):
    open_ready(window, RESOURCES / "demo" / "demo.rig.json", qtbot)
    session, dock = window.session, measures_dock(window, qtbot)
    settle(qtbot, 50)
    a, _b = dock.pickers
    before = a.end()
    qtbot.mouseClick(a.point, Qt.LeftButton)
    click(qtbot, window.scene.plotter, QPoint(3, 3))  # the background
    assert a.end() == before and not a.point.isChecked()
    # the next click selects again, as always
    link, pos = _link_under_its_own_centre(window)
    click(qtbot, window.scene.plotter, pos)
    assert session.selection is not None and session.selection.name == link and a.end() == before


def test_a_click_on_a_link_in_the_view_selects_it(window, qtbot):
    """Clicks are read from Qt's events: the camera's style takes VTK's focus at the press, and VTK would
    give it the release alone."""
    from mime_gui.session import ItemRef

    open_ready(window, RESOURCES / "demo" / "demo.rig.json", qtbot)
    settle(qtbot, 50)
    link, pos = _link_under_its_own_centre(window)
    click(qtbot, window.scene.plotter, pos)
    assert window.session.selection == ItemRef("arm", "link", link)
    click(qtbot, window.scene.plotter, QPoint(3, 3))  # the background: nothing selected
    assert window.session.selection is None
