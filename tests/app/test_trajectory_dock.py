"""The Trajectory dock, driven as a user would: the rig's trajectories listed, the chosen one drawn as its
rendering with its keyframes and its findings, keyframes added, retimed and removed, the timeline fitted to
the limits and played, each edit one undo step; on the demo rig and on a robot the dock was not written
for."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QAbstractItemView, QApplication, QLineEdit
from test_driving import open_ready

from mime_gui.rig.trajectories import check, render

DT = 0.01
DEMO = "spin 5 Hz"


def trajectory_dock(window, qtbot):
    dock = window.docks["TrajectoryDock"]
    dock.show()
    dock.raise_()
    qtbot.waitUntil(lambda: not dock.visibleRegion().isEmpty(), timeout=3000)
    return dock


def drawn(qtbot, dock) -> None:
    """Wait for the chosen trajectory's rendering to be drawn."""
    qtbot.waitUntil(lambda: not dock._dirty and not dock._pending, timeout=5000)


def undo(qtbot, window) -> None:
    qtbot.keyClick(window, Qt.Key_Z, Qt.ControlModifier)


def listed(dock) -> list[str]:
    return [dock.choice.itemText(i) for i in range(dock.choice.count())]


def findings_listed(dock) -> list[str]:
    return [dock.findings.item(i).text() for i in range(dock.findings.count())]


def test_the_demo_trajectory_is_drawn_as_it_renders(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json", qtbot)
    session, dock = window.session, trajectory_dock(window, qtbot)
    assert window.docks["TrajectoryDock"] in window.tabifiedDockWidgets(window.driving.plots)
    assert listed(dock) == [DEMO] and dock.current() == DEMO
    drawn(qtbot, dock)
    built = session.document.built
    time, commands = render(built, DEMO, DT)
    names = list(built.command_names)
    assert sorted(dock.curves) == sorted(names)
    for name in names:
        t, y = dock.curve_data(name)
        np.testing.assert_array_equal(t, time)
        # the arm's in degrees (the trajectory's unit), the motor's shaft too: radians by hand
        np.testing.assert_allclose(y * math.pi / 180.0, commands[:, names.index(name)], rtol=1e-13,
                                   atol=1e-13)
    # independently of the renderer: at the arm's keyframes, the values the rig file writes (degrees)
    written = {0.0: (0, -20, 50, 0, 30, 0), 3.0: (35, 25, 60, 0, -10, 0), 10.0: (35, 25, 60, 0, -10, 0),
               13.0: (0, -20, 50, 0, 30, 0)}
    for at, degrees in written.items():
        row = int(round(at / DT))
        for j, value in enumerate(degrees, start=1):
            t, y = dock.curve_data(f"arm.joint_{j}")
            assert t[row] == at or abs(t[row] - at) < 1e-9
            assert abs(y[row] - value) < 1e-9, (at, j)
            assert abs(commands[row, names.index(f"arm.joint_{j}")] - math.radians(value)) < 1e-12
    # the keyframes in the table, in the file's order, and no finding: the demo keeps to its limits
    table = dock.table
    rows = [(table.item(r, 0).text(), table.item(r, 1).text()) for r in range(table.rowCount())]
    assert rows == [("arm", "0"), ("arm", "3"), ("arm", "10"), ("arm", "13"), ("motor", "4"), ("motor", "9")]
    assert dock.table.cellWidget(1, 2).currentText() == "quintic"
    assert findings_listed(dock) == [] and "within its limits" in dock.status.text()
    # the keyframes marked: a dashed line at each of a segment's keyframe times
    lines = [item.value() for item in dock.plots["arm"].items if hasattr(item, "value")]
    assert sorted(lines) == [0.0, 3.0, 10.0, 13.0]


def test_rendered_once_per_turn_and_not_while_hidden(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json", qtbot)
    session, dock = window.session, trajectory_dock(window, qtbot)
    drawn(qtbot, dock)
    before = dock.renders
    # two edits in one turn: one rendering after them
    t = session.rig.trajectories[DEMO]
    dock.time.setValue(15.0)
    dock.add_keyframe()
    dock.time.setValue(16.0)
    dock.add_keyframe()
    assert len(session.rig.trajectories[DEMO].segments["arm"]) == len(t.segments["arm"]) + 2
    drawn(qtbot, dock)
    assert dock.renders == before + 1
    assert dock.curve_data("arm.joint_1")[0][-1] >= 16.0 - 1e-9
    # behind the plots' tab: edits render nothing until the dock is in front again
    window.driving.plots.raise_()
    qtbot.waitUntil(lambda: dock.visibleRegion().isEmpty(), timeout=3000)
    undo(qtbot, window)
    qtbot.waitUntil(lambda: len(session.rig.trajectories[DEMO].segments["arm"]) == len(t.segments["arm"]) + 1)
    for _ in range(3):
        QApplication.processEvents()
    assert dock.renders == before + 1 and dock._dirty
    dock.raise_()
    drawn(qtbot, dock)
    assert dock.renders == before + 2
    assert dock.curve_data("arm.joint_1")[0][-1] == render(session.document.built, DEMO, DT)[0][-1]


def test_add_keyframe_is_one_undo_step(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json", qtbot)
    session, dock = window.session, trajectory_dock(window, qtbot)
    rig = session.rig
    session.set_command("arm", np.radians([10.0, 20.0, 30.0, 40.0, 50.0, 60.0]))
    dock.segment.setCurrentText("arm")
    assert dock.time.value() == 14.0  # a second after the arm's last keyframe
    dock.time.setValue(15.5)
    dock.interpolation.setCurrentText("cubic")
    qtbot.mouseClick(dock.add_button, Qt.LeftButton)
    key = session.rig.trajectories[DEMO].segments["arm"][-1]
    assert key.time == 15.5 and key.interpolation == "cubic"
    assert [key.values[f"joint_{j}"] for j in range(1, 7)] == [10.0, 20.0, 30.0, 40.0, 50.0, 60.0]
    assert dock.table.rowCount() == 7 and dock.table.item(4, 1).text() == "15.5"
    # a time not after the last keyframe: refused with its code, nothing changed
    dock.time.setValue(15.0)
    qtbot.mouseClick(dock.add_button, Qt.LeftButton)
    assert "[trajectory.time]" in dock.status.text()
    assert len(session.rig.trajectories[DEMO].segments["arm"]) == 5
    undo(qtbot, window)
    qtbot.waitUntil(lambda: session.rig == rig)
    assert dock.table.rowCount() == 6


def test_keyframe_time_and_interpolation_edited_in_the_table(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json", qtbot)
    session, dock = window.session, trajectory_dock(window, qtbot)
    rig = session.rig
    item = dock.table.item(1, 1)  # the arm's keyframe at 3 s
    item.setText("3500 ms")  # a typed unit is converted, as in the forms
    assert session.rig.trajectories[DEMO].segments["arm"][1].time == 3.5
    assert dock.table.item(1, 1).text() == "3.5"
    dock.table.item(1, 1).setText("soon")
    assert "[trajectory.time]" in dock.status.text()
    assert session.rig.trajectories[DEMO].segments["arm"][1].time == 3.5
    assert dock.table.item(1, 1).text() == "3.5"
    dock.table.cellWidget(1, 2).setCurrentText("linear")
    assert session.rig.trajectories[DEMO].segments["arm"][1].interpolation == "linear"
    # a time past the next keyframe: the rule's finding is listed with its code, nothing rendered
    dock.table.item(1, 1).setText("11")
    drawn(qtbot, dock)
    assert any(text.startswith("[trajectory.time]") for text in findings_listed(dock))
    assert dock.curves == {}
    for _ in range(3):
        undo(qtbot, window)
    qtbot.waitUntil(lambda: session.rig == rig)
    drawn(qtbot, dock)
    assert findings_listed(dock) == [] and len(dock.curves) == 7


def test_fit_to_limits_leaves_no_speed_finding(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json", qtbot)
    session, dock = window.session, trajectory_dock(window, qtbot)
    built = session.document.built
    # a keyframe far from the last one, a tenth of a second after it: beyond the arm's limits
    session.set_command("arm", np.radians([60.0, 30.0, 70.0, 45.0, -40.0, 90.0]))
    dock.time.setValue(13.1)
    qtbot.mouseClick(dock.add_button, Qt.LeftButton)
    drawn(qtbot, dock)
    assert any(text.startswith("[trajectory.speed]") for text in findings_listed(dock))
    assert any(f.code == "trajectory.speed" for f in check(built, session.rig.trajectories[DEMO], DT))
    before = session.rig
    qtbot.mouseClick(dock.fit_button, Qt.LeftButton)
    fitted = session.rig.trajectories[DEMO]
    assert fitted != before.trajectories[DEMO]
    assert fitted.segments["arm"][-1].time > 13.1
    assert not any(f.code == "trajectory.speed" for f in check(built, fitted, DT))
    drawn(qtbot, dock)
    assert not any(text.startswith("[trajectory.speed]") for text in findings_listed(dock))
    assert session.history.undo_name == f"Fit {DEMO} to its limits"
    undo(qtbot, window)
    qtbot.waitUntil(lambda: session.rig == before)


def test_play_loads_the_rendering_and_moves_the_arm(window, qtbot, demo_copy):
    driving = open_ready(window, demo_copy / "demo.rig.json", qtbot)
    session, dock = window.session, trajectory_dock(window, qtbot)
    time, commands = render(session.document.built, DEMO, DT)
    qtbot.mouseClick(dock.play_button, Qt.LeftButton)
    transport = driving.transport
    player = transport.player
    assert player is not None and player.rows == len(time)
    np.testing.assert_array_equal(player.recorded.joint_positions, commands)
    q0 = np.array(session.joint_positions("arm"))
    transport.seek(int(round(3.0 / DT)))
    transport.play()

    def moved():
        transport.tick(0.02)
        return np.max(np.abs(np.array(session.joint_positions("arm")) - q0)) > 0.1
    qtbot.waitUntil(moved, timeout=5000)
    assert player.playing or player.row > 0


def test_a_robot_the_dock_was_not_written_for(window, qtbot, robot_file):
    driving = open_ready(window, robot_file("ur5"), qtbot)
    session, dock = window.session, trajectory_dock(window, qtbot)
    assert listed(dock) == [] and not dock.play_button.isEnabled()
    drawn(qtbot, dock)
    assert "no trajectory" in dock.status.text()
    rig = session.rig
    qtbot.mouseClick(dock.new_button, Qt.LeftButton)
    assert listed(dock) == ["trajectory1"] and dock.current() == "trajectory1"
    (seg,) = session.rig.trajectories["trajectory1"].segments
    names = session.command_names(seg)
    start = np.array(session.command(seg))
    # move every joint by 20°, a keyframe at 4 s, quintic
    session.set_command(seg, start + math.radians(20.0))
    dock.time.setValue(4.0)
    qtbot.mouseClick(dock.add_button, Qt.LeftButton)
    key = session.rig.trajectories["trajectory1"].segments[seg][-1]
    assert key.time == 4.0 and key.interpolation == "quintic"
    np.testing.assert_allclose([key.values[j] for j in names], np.degrees(start) + 20.0, atol=1e-9)
    drawn(qtbot, dock)
    time, commands = render(session.document.built, "trajectory1", DT)
    built_names = list(session.document.built.command_names)
    for j, name in enumerate(names):
        t, y = dock.curve_data(f"{seg}.{name}")
        np.testing.assert_allclose(np.radians(y), commands[:, built_names.index(f"{seg}.{name}")], atol=1e-12)
        assert abs(y[0] - math.degrees(start[j])) < 1e-9 and abs(y[-1] - (math.degrees(start[j]) + 20)) < 1e-9
    qtbot.mouseClick(dock.play_button, Qt.LeftButton)
    assert driving.transport.player.rows == len(time) == int(round(4.0 / DT)) + 1
    # the keyframe removed, then both edits undone: the robot as opened
    dock.table.setCurrentCell(1, 0)
    qtbot.mouseClick(dock.remove_button, Qt.LeftButton)
    assert len(session.rig.trajectories["trajectory1"].segments[seg]) == 1
    for _ in range(3):
        undo(qtbot, window)
    qtbot.waitUntil(lambda: session.rig == rig)
    assert listed(dock) == []


def line_point(dock, seg: str, time: float) -> QPoint:
    """Where on the plots' widget the time ``time`` of ``seg``'s plot is, half-way up."""
    vb = dock.plots[seg].getViewBox()
    (y0, y1) = vb.viewRange()[1]
    scene = vb.mapViewToScene(QPointF(time, 0.5 * (y0 + y1)))
    return dock.graphs.mapFromScene(scene)


def mouse(viewport, kind, at: QPoint, button=Qt.NoButton, buttons=Qt.NoButton) -> None:
    """A mouse event at ``at`` sent to the plots' viewport, as the window system delivers it."""
    event = QMouseEvent(kind, QPointF(at), QPointF(viewport.mapToGlobal(at)), button, buttons, Qt.NoModifier)
    QApplication.sendEvent(viewport, event)


def drag_line(qtbot, dock, seg: str, start: float, end: float, steps: int = 6) -> None:
    """Hover the keyframe line at ``start`` s, press, move to ``end`` s in ``steps`` moves, let go."""
    viewport = dock.graphs.viewport()
    line = next(x for x in dock.lines[seg] if abs(x.value() - start) < 1e-9)
    def settled():  # the plots laid out: the line's point is where it was a moment ago
        point = line_point(dock, seg, start)
        qtbot.wait(50)
        return line_point(dock, seg, start) == point and line in dock.graphs.items(point)
    qtbot.waitUntil(settled, timeout=5000)
    here = line_point(dock, seg, start)
    # hovered first, as by a hand: the line takes the drag it is hovered for
    mouse(viewport, QEvent.MouseMove, here + QPoint(15, 0))
    qtbot.wait(20)
    mouse(viewport, QEvent.MouseMove, here)
    qtbot.waitUntil(lambda: line.mouseHovering, timeout=3000)
    mouse(viewport, QEvent.MouseButtonPress, here, Qt.LeftButton, Qt.LeftButton)
    for k in range(1, steps + 1):
        here = line_point(dock, seg, start + (end - start) * k / steps)
        mouse(viewport, QEvent.MouseMove, here, Qt.NoButton, Qt.LeftButton)
        qtbot.wait(20)
    mouse(viewport, QEvent.MouseButtonRelease, here, Qt.LeftButton, Qt.NoButton)
    qtbot.wait(20)


def test_a_keyframe_dragged_on_the_timeline_is_one_undo_step_and_the_player_follows(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json", qtbot)
    session, dock = window.session, trajectory_dock(window, qtbot)
    window.resize(1500, 950)
    drawn(qtbot, dock)
    rig = session.rig
    qtbot.mouseClick(dock.play_button, Qt.LeftButton)
    transport = window.driving.transport
    transport.seek(int(round(2.0 / DT)))
    line = dock.keyframe_line("arm", 1)
    assert line.value() == 3.0
    drag_line(qtbot, dock, "arm", 3.0, 4.5)
    key = session.rig.trajectories[DEMO].segments["arm"][1]
    # on the rendering's step, within a pixel of where the mouse let go
    assert abs(key.time - 4.5) < 0.1 and key.time == round(key.time, 2) and key.time != 3.0
    assert line.value() == key.time
    assert session.history.undo_name == f"Move a keyframe of arm in {DEMO}"
    assert dock.table.item(dock.table.currentRow(), 1).text() == f"{key.time:g}"  # its row chosen
    drawn(qtbot, dock)
    time, commands = render(session.document.built, DEMO, DT)
    np.testing.assert_allclose(dock.curve_data("arm.joint_1")[1] * math.pi / 180.0,
                               commands[:, list(session.document.built.command_names).index("arm.joint_1")],
                               rtol=1e-13, atol=1e-15)
    # the player plays the edited trajectory, at the same time
    np.testing.assert_array_equal(transport.player.recorded.joint_positions, commands)
    assert transport.player.row == int(round(2.0 / DT))
    # one undo step back to the file's 3 s, the player following
    undo(qtbot, window)
    qtbot.waitUntil(lambda: session.rig == rig)
    np.testing.assert_array_equal(transport.player.recorded.joint_positions,
                                  render(session.document.built, DEMO, DT)[1])
    drawn(qtbot, dock)
    assert dock.keyframe_line("arm", 1).value() == 3.0
    # dragged again, past the next keyframe (10 s): held a step before it
    drag_line(qtbot, dock, "arm", 3.0, 11.0, steps=10)
    assert session.rig.trajectories[DEMO].segments["arm"][1].time == 10.0 - DT
    assert session.rig.trajectories[DEMO].segments["arm"][2].time == 10.0
    assert not dock.rule_findings(DEMO)


def test_a_keyframe_dragged_before_zero_stays_at_zero(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json", qtbot)
    session, dock = window.session, trajectory_dock(window, qtbot)
    window.resize(1500, 950)
    drawn(qtbot, dock)
    drag_line(qtbot, dock, "motor", 4.0, -3.0)  # the motor's first keyframe
    assert session.rig.trajectories[DEMO].segments["motor"][0].time == 0.0
    drag_line(qtbot, dock, "motor", 0.0, 2.0)
    assert abs(session.rig.trajectories[DEMO].segments["motor"][0].time - 2.0) < 0.1
    # two gestures, two undo steps
    undo(qtbot, window)
    assert session.rig.trajectories[DEMO].segments["motor"][0].time == 0.0
    undo(qtbot, window)
    assert session.rig.trajectories[DEMO].segments["motor"][0].time == 4.0


def type_in(qtbot, table, row: int, column: int, text: str) -> None:
    """Open a cell's editor (as a double-click does), type ``text`` over what it holds, press Enter."""
    table.setCurrentCell(row, column)
    table.editItem(table.item(row, column))
    qtbot.waitUntil(lambda: table.state() == QAbstractItemView.EditingState, timeout=3000)
    editor = table.viewport().findChildren(QLineEdit)[-1]  # the cell's editor
    editor.selectAll()
    qtbot.keyClicks(editor, text)
    qtbot.keyClick(editor, Qt.Key_Return)
    qtbot.waitUntil(lambda: table.state() != QAbstractItemView.EditingState, timeout=3000)


def test_values_typed_in_a_keyframes_row(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json", qtbot)
    session, dock = window.session, trajectory_dock(window, qtbot)
    window.resize(1500, 950)
    rig = session.rig
    row = dock._rows.index(("arm", 1))
    type_in(qtbot, dock.table, row, 3, "joint_1 10°, joint_2 -0.5 rad, joint_5 20")
    key = session.rig.trajectories[DEMO].segments["arm"][1]
    assert dict(key.values) == {"joint_1": 10.0, "joint_2": pytest.approx(math.degrees(-0.5), rel=1e-15),
                                "joint_5": 20.0}
    assert key.time == 3.0 and key.interpolation == "quintic"
    assert dock.table.item(row, 3).text() == f"joint_1 10°, joint_2 {math.degrees(-0.5):g}°, joint_5 20°"
    drawn(qtbot, dock)
    t, y = dock.curve_data("arm.joint_1")
    assert y[int(round(3.0 / DT))] == pytest.approx(10.0, abs=1e-9)  # the curve passes the typed value
    # a clause the dock cannot read: refused with its code, the cell shows the keyframe again
    type_in(qtbot, dock.table, row, 3, "joint_1 ten degrees")
    assert "[trajectory.values]" in dock.status.text()
    assert session.rig.trajectories[DEMO].segments["arm"][1] == key
    assert dock.table.item(row, 3).text().startswith("joint_1 10°")
    # the motor's spin, typed in rpm with a number of turns
    spin_row = dock._rows.index(("motor", 1))
    type_in(qtbot, dock.table, spin_row, 3, "spin 120 rpm, ramp 0.25 s, 6 turns")
    spin = session.rig.trajectories[DEMO].segments["motor"][1].spin
    assert (spin.frequency, spin.unit, spin.ramp, spin.hold, spin.turns) == (120.0, "rpm", 0.25, None, 6.0)
    # two edits, two undo steps; typed again after the undo
    undo(qtbot, window)
    undo(qtbot, window)
    qtbot.waitUntil(lambda: session.rig == rig)
    assert dock.table.item(row, 3).text().startswith("joint_1 35°")
    type_in(qtbot, dock.table, row, 3, "pose 'nowhere'")
    # a pose the rig does not have: the rules say so, with the keyframe's place
    drawn(qtbot, dock)
    assert any("trajectory" in text and "nowhere" in text for text in findings_listed(dock))


def test_a_trajectory_swinging_the_magnet_into_the_base_lists_its_clearance_contact(window, qtbot, demo_copy):
    from mime_gui.rig.clearance_check import per_step_minimum
    from mime_gui.rig.collision import clearance_model
    from mime_gui.rig.trajectories import Keyframe, Trajectory
    from mime_gui.session import AddItem

    open_ready(window, demo_copy / "demo.rig.json", qtbot)
    session, dock = window.session, trajectory_dock(window, qtbot)
    joints = ("joint_1", "joint_2", "joint_3", "joint_4", "joint_5", "joint_6")
    folded = dict(zip(joints, (0.26, 1.78, 2.14, -0.02, 1.87, 1.6), strict=True))  # m1 inside the base
    start = dict(zip(joints, session.command("arm"), strict=True))
    swing = Trajectory({"arm": (Keyframe(0.0, values=start),
                                Keyframe(6.0, values=folded, interpolation="quintic"))}, "rad|m")
    session.apply(AddItem("trajectories", "fold", swing))
    with qtbot.waitSignal(dock.clearance_checked, timeout=30000):
        dock.choose("fold")
    contacts = [f for f in dock.clearance_findings if f.code == "clearance.contact"]
    assert contacts and any(text.startswith("[clearance.contact]") for text in findings_listed(dock))
    assert "finding(s) below" in dock.status.text()
    # the plain loop of the collision library on the same played steps finds the overlap too
    built = session.document.built
    time, commands = render(built, "fold", DT)
    minimum, _ = per_step_minimum(clearance_model(built), built.play(commands, DT).frame_poses)
    assert minimum.min() < 0 and minimum[0] > 0
    # the demo's own trajectory is clear of contact
    with qtbot.waitSignal(dock.clearance_checked, timeout=30000):
        dock.choose(DEMO)
    assert dock.clearance_findings == [] and "clear of contact" in dock.status.text()
