"""The 3D view's widget draws each frame once: the repaint after a render copies VTK's frame to the screen,
and a repaint with no render before it (uncovered, resized, an update of the widget alone) renders."""

from __future__ import annotations

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.multibody import frame_poses, read_urdf

pytestmark = pytest.mark.timeout(60)


def _counting(view) -> list[int]:
    """A list whose length is the number of VTK renders from now on."""
    renders: list[int] = []
    view.plotter.ren_win.AddObserver("StartEvent", lambda *_: renders.append(1))
    return renders


def _shown_demo(make_view, qtbot):
    view = make_view()
    tree = read_urdf(RESOURCES / "demo" / "arm.urdf")
    view.show_segments({"arm": tree})
    qtbot.waitUntil(lambda: view.render_count > 0, timeout=5000)
    qtbot.wait(100)
    return view, tree.compile()


def test_a_frame_moved_by_the_render_loop_is_rendered_once_and_copied(make_view, qtbot):
    view, art = _shown_demo(make_view, qtbot)
    renders = _counting(view)
    copied, rendered = view.plotter.frames_copied, view.render_count
    for k in range(5):
        view.set_frame_poses("arm", frame_poses(art, np.full(art.nq, 0.1 * (k + 1))))
        view.request_render()
        qtbot.waitUntil(lambda k=k: view.plotter.frames_copied == copied + k + 1, timeout=5000)
    qtbot.wait(50)
    assert view.render_count == rendered + 5
    assert len(renders) == 5  # pyvistaqt alone renders every frame twice: once asked, once in the repaint
    assert view.plotter.frames_copied == copied + 5


def test_a_repaint_with_no_render_before_it_renders(make_view, qtbot):
    view, _art = _shown_demo(make_view, qtbot)
    renders = _counting(view)
    copied = view.plotter.frames_copied
    view.plotter.update()  # uncovered, or asked by Qt: nothing fresh to copy
    qtbot.waitUntil(lambda: len(renders) == 1, timeout=5000)
    view.plotter.update()  # the frame that repaint rendered was shown by it
    qtbot.waitUntil(lambda: len(renders) == 2, timeout=5000)
    assert view.plotter.frames_copied == copied
    # a render, then a resize before its repaint: the frame has the old size, so the repaint renders
    view.render_now()
    window = view.window()
    window.resize(window.width() - 120, window.height() - 80)
    qtbot.waitUntil(lambda: len(renders) == 4, timeout=5000)
    qtbot.wait(50)
    assert view.plotter.frames_copied == copied
    w, h = view.plotter.ren_win.GetSize()
    ratio = view.plotter.devicePixelRatioF()
    assert (w, h) == (round(view.plotter.width() * ratio), round(view.plotter.height() * ratio))


def test_the_copied_frame_is_the_one_just_rendered(make_view, qtbot):
    from PySide6.QtGui import QGuiApplication

    view, _art = _shown_demo(make_view, qtbot)
    plotter = view.plotter
    for colour in ((1.0, 0.0, 0.0), (0.0, 0.0, 1.0), (0.0, 1.0, 0.0)):
        copied = plotter.frames_copied
        plotter.renderer.SetBackground(*colour)  # no render asked by the change itself
        plotter.renderer.SetGradientBackground(False)
        view.request_render()
        qtbot.waitUntil(lambda c=copied: plotter.frames_copied > c, timeout=5000)
        qtbot.wait(50)
        shot = QGuiApplication.primaryScreen().grabWindow(plotter.winId()).toImage()
        pixel = shot.pixelColor(3, 3)  # a corner: background
        assert (pixel.redF(), pixel.greenF(), pixel.blueF()) == pytest.approx(colour, abs=0.02)


def test_a_camera_drag_shows_the_turned_scene(make_view, qtbot):
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtTest import QTest

    view, _art = _shown_demo(make_view, qtbot)
    plotter = view.plotter
    view.render_now()
    qtbot.wait(100)

    def shown():
        image = QGuiApplication.primaryScreen().grabWindow(plotter.winId()).toImage()
        return np.array([[image.pixel(x, y) for x in range(0, image.width(), 8)]
                         for y in range(0, image.height(), 8)])

    before, camera = shown(), plotter.camera_position
    renders = _counting(view)
    centre = QPoint(plotter.width() // 2, plotter.height() // 2)
    QTest.mousePress(plotter, Qt.LeftButton, Qt.NoModifier, centre)
    for dx in range(10, 130, 10):  # VTK's trackball turns the camera as the mouse moves
        QTest.mouseMove(plotter, centre + QPoint(dx, dx // 3))
        qtbot.wait(15)
    QTest.mouseRelease(plotter, Qt.LeftButton, Qt.NoModifier, centre + QPoint(130, 43))
    qtbot.wait(100)
    assert plotter.camera_position != camera and renders
    after = shown()
    assert (after != before).mean() > 0.02  # the turned robot is on the screen, not the old frame
    view.render_now()  # and it is the frame a render of the turned camera gives
    qtbot.wait(100)
    np.testing.assert_array_equal(shown(), after)


def _surfaces_in_the_binding_map() -> list:
    import shiboken6
    from PySide6.QtGui import QSurface

    return [w for w in shiboken6.getAllValidWrappers() if type(w) is QSurface]


def _deleted_now(obj) -> None:
    from PySide6.QtCore import QCoreApplication, QEvent

    obj.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.DeferredDelete)


def test_a_deleted_view_leaves_no_stale_surface_for_the_next_qt_object_at_its_address(make_view, qtbot):
    """A stale QSurface wrapper came back from ``QAction.menu()`` and a new window failed to build."""
    import shiboken6
    from PySide6.QtWidgets import QMenu

    view, _ = _shown_demo(make_view, qtbot)
    plotter = view.plotter  # the Python side outlives the widget, as a test's or a closure's reference does
    surface = plotter._surface
    assert surface is not None and shiboken6.isValid(surface)
    assert any(s is surface for s in _surfaces_in_the_binding_map())
    _deleted_now(view.window())
    assert not shiboken6.isValid(plotter)
    assert not shiboken6.isValid(surface)
    assert not any(s is surface for s in _surfaces_in_the_binding_map())
    menus = [QMenu() for _ in range(200)]  # new objects, some at freed addresses, come back as what they are
    assert all(type(m.menuAction().menu()) is QMenu for m in menus)


def test_a_view_moved_to_another_window_lets_go_of_its_old_surface_and_draws_in_the_new_one(make_view, qtbot):
    import shiboken6
    from PySide6.QtWidgets import QMainWindow

    view, _ = _shown_demo(make_view, qtbot)
    old = view.plotter._surface
    other = QMainWindow()
    qtbot.addWidget(other)
    other.setCentralWidget(view)  # a new top-level window: Qt makes the GL context again
    other.resize(800, 600)
    other.show()
    qtbot.waitExposed(other)
    rendered = view.render_count
    view.request_render()
    qtbot.waitUntil(lambda: view.render_count > rendered and view.plotter._surface is not None, timeout=5000)
    assert not shiboken6.isValid(old)
    assert not any(s is old for s in _surfaces_in_the_binding_map())
    assert any(s is view.plotter._surface for s in _surfaces_in_the_binding_map())
    assert view.plotter.image.mean() > 0  # still draws
