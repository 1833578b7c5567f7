"""One change of the arm's pose, one frame: a single render that already has the magnets' marks where the
new pose puts them, before the window repaints, so the slider, its readout and the 3D view are shown by one
repaint of the window."""

from __future__ import annotations

import numpy as np
import pytest
from gestures import after_posted_events
from PySide6.QtCore import QEvent, QObject
from test_driving import DEMO, open_ready

pytestmark = pytest.mark.timeout(60)


class _Order(QObject):
    """Appends "repaint" for each repaint of the window (Qt's UpdateRequest)."""

    def __init__(self, events: list[str]):
        super().__init__()
        self.events = events

    def eventFilter(self, _obj, event) -> bool:
        if event.type() == QEvent.UpdateRequest:
            self.events.append("repaint")
        return False


def _recording(window, events: list[str]) -> list[dict]:
    """Records each render in ``events``, and the magnets' mark matrices as that render drew them."""
    loop = window.scene._loop
    drawn: list[dict] = []
    render = loop._render
    marks = window.assembly.marks

    def recorded():
        events.append("render")
        drawn.append({name: [np.array(actor.user_matrix) for actor, *_ in entries]
                      for name, entries in marks.arrows.items()})
        render()

    loop._render = recorded
    return drawn


def _quiet(qtbot, events: list[str]) -> None:
    """Wait until the window has not repainted for 150 ms (what earlier steps left to draw is drawn)."""
    for _ in range(50):
        seen = len(events)
        qtbot.wait(150)
        if len(events) == seen:
            return
    raise AssertionError("the window never stops repainting")


def _settled(window, qtbot) -> None:
    """Wait until what the window does on its workers after opening is in (the meshes, the clearance's
    hulls), whose results render the view again whenever they come on a loaded machine; and keep the
    display at full detail (Auto picks a level from frame times, and a new level renders again)."""
    qtbot.waitUntil(lambda: not window.loading and window.clearance.assembled >= 1, timeout=60_000)
    window.scene.set_display_detail(None)  # full detail: no level chosen anew from a slow frame's time
    qtbot.waitUntil(lambda: not window.loading, timeout=60_000)


def test_a_slider_change_is_one_render_with_the_marks_moved_then_one_repaint(window, qtbot):
    driving = open_ready(window, DEMO / "demo.rig.json", qtbot)
    session = window.session
    qtbot.wait(200)
    events: list[str] = []
    drawn = _recording(window, events)
    order = _Order(events)
    window.installEventFilter(order)
    marks = window.assembly.marks
    assert marks.arrows  # the demo rig's magnets ride on the arm
    row = driving.sliders.row("arm", "joint_1")
    driving.sliders.teleport.setChecked(True)
    qtbot.wait(50)
    for value in (30.0, -20.0):
        _quiet(qtbot, events)
        events.clear()
        drawn.clear()
        row.spin.setValue(value)  # Teleport: the pose at once
        qtbot.waitUntil(lambda: "repaint" in events, timeout=5000)
        qtbot.wait(30)
        assert events[:2] == ["render", "repaint"], events
        assert events.count("render") == 1, events
        # the marks in that render are where the new pose puts them
        for name, entries in marks.arrows.items():
            for (_actor, seg, frame, local), matrix in zip(entries, drawn[0][name], strict=True):
                np.testing.assert_allclose(matrix, session.frame_world_pose(seg, frame) @ local, atol=1e-12)
    window.removeEventFilter(order)


def test_a_render_now_takes_the_place_of_the_requested_one_and_hooks_run_before_requested_renders(
        make_view, qtbot):
    from mime_gui import RESOURCES
    from mime_gui.multibody import read_urdf

    view = make_view()
    view.show_segments({"arm": read_urdf(RESOURCES / "demo" / "arm.urdf")})
    qtbot.waitUntil(lambda: view.render_count > 0, timeout=5000)
    after_posted_events(qtbot)
    hooked: list[int] = []
    view.add_before_render(lambda: hooked.append(view.render_count))
    start = view.render_count
    view.request_render()
    view.request_render()
    view.render_now()  # a screenshot's: at once, without the hooks
    assert view.render_count == start + 1 and hooked == []
    after_posted_events(qtbot)  # the posted request has arrived ...
    assert view.render_count == start + 1  # ... and found nothing left to do
    view.request_render()
    qtbot.waitUntil(lambda: view.render_count == start + 2, timeout=5000)
    assert hooked == [start + 1]  # ran once, just before that render
    view.close()
    view.request_render()  # a closed view renders no more
    after_posted_events(qtbot)
    assert view.render_count == start + 2


def test_a_slider_change_with_the_plots_drawing_it_is_one_repaint_of_the_window(window, qtbot, robot_file):
    """The Plots dock draws the new sample in the frame's turn, and its plots are handed their repaint after
    the render (a graphics scene would otherwise compose the whole window once more for itself), as is the
    status bar's clearance text: one slider change, one render, one repaint showing all of it — on UR5, a
    robot the plots were not written for."""
    from mime_gui.app.docks.plots import REDRAW_MS

    driving = open_ready(window, robot_file("ur5"), qtbot)
    _settled(window, qtbot)
    plots = window.findChild(type(window.properties_dock).__mro__[1], "PlotsDock")
    plots.show()
    plots.raise_()
    assert window.clearance.action.isChecked()  # its status text changes with every pose
    assert plots._joints  # some joints are plotted from the start: the first one is moved
    seg, joint = plots._joints[0]
    row = driving.sliders.row(seg, joint)
    driving.sliders.teleport.setChecked(True)
    curve = plots.curves[1]  # its position (the command is the curve before)
    events: list[str] = []
    _recording(window, events)
    order = _Order(events)
    window.installEventFilter(order)
    for value in (30.0, -20.0):  # the clearance text and the axes' tick labels take their room once (which
        row.spin.setValue(value)  # lays the window out), and the plots' range its span
        qtbot.wait(300)
    for value in (30.0, -20.0, 10.0):
        _quiet(qtbot, events)
        qtbot.wait(REDRAW_MS + 20)  # the last redraw is long enough ago: this frame draws the plots
        events.clear()
        drawn = plots.redraws
        row.spin.setValue(value)
        qtbot.waitUntil(lambda: "repaint" in events, timeout=5000)
        _quiet(qtbot, events)
        assert events == ["render", "repaint"], events
        assert plots.redraws == drawn + 1  # the plots drew the new pose in that frame
        assert curve.yData[-1] == pytest.approx(value, abs=1e-9)  # degrees, as the slider's spin box
    window.removeEventFilter(order)


def test_a_played_row_is_one_repaint_with_the_plots_playhead_on_it(window, qtbot, robot_file, tmp_path):
    """While a file plays, the Plots dock moves its playhead in the turn of the frame that shows the row
    (at most every REDRAW_MS), so the window is repainted once for the row: on Panda."""
    from mime_gui.app.docks.plots import REDRAW_MS

    driving = open_ready(window, robot_file("panda"), qtbot)  # the clock stopped: the test ticks
    _settled(window, qtbot)
    plots = window.findChild(type(window.properties_dock).__mro__[1], "PlotsDock")
    plots.show()
    plots.raise_()
    seg = next(iter(window.session.segments))
    names = window.session.command_names(seg)
    t = np.arange(2001) * 0.01
    q = 0.3 * np.sin(t[:, None] * (0.5 + 0.1 * np.arange(len(names))))
    path = tmp_path / "panda.npz"
    np.savez(path, time=t, joint_positions=q, joint_names=np.array(names))
    assert driving.player.open_file(str(path))
    transport = driving.transport
    player = transport.player
    events: list[str] = []
    _recording(window, events)
    order = _Order(events)
    window.installEventFilter(order)
    transport.play()
    transport.tick(0.0)  # the player's labels take their room once (which lays the window out)
    qtbot.wait(300)
    shown = []
    for _ in range(4):
        _quiet(qtbot, events)
        qtbot.wait(REDRAW_MS + 20)  # the playhead was drawn long enough ago: this row's frame draws it
        events.clear()
        before = player.row
        transport.tick(0.0)  # the player's row follows the wall clock
        assert player.row != before
        qtbot.waitUntil(lambda: "repaint" in events, timeout=5000)
        _quiet(qtbot, events)
        assert events == ["render", "repaint"], events
        x = float(player.times[player.row] - player.schedule.start)
        assert all(line.value() == pytest.approx(x, abs=1e-12) for line in plots.playheads)  # this row's time
        shown.append(player.row)
    transport.pause()
    window.removeEventFilter(order)
    assert shown == sorted(set(shown))  # four rows, each further on
