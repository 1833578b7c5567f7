"""Driving a dynamic segment by torques from the Joint sliders dock, as a user would: the Drive choice, torque
sliders and boxes, Zero torques, the arm falling or turning on the clock, riders following, and back to
positions."""

from __future__ import annotations

import numpy as np
from oracle import ARM_JOINTS, demo_gravity
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QPushButton
from test_driving import DEMO, click_at, open_ready

from mime_gui.app.docks.sliders import DEFAULT_TORQUE, JointRow, TorqueRow

DT = 0.01


def choose(qtbot, sliders, segment: str, drive: str) -> None:
    """Pick ``drive`` in the segment's Drive choice with the keyboard and wait for its rows."""
    combo = sliders.findChild(QComboBox, f"drive:{segment}")
    combo.setFocus()
    qtbot.keyClick(combo, Qt.Key_Down if drive == "Torques" else Qt.Key_Up)
    kind = TorqueRow if drive == "Torques" else JointRow
    qtbot.waitUntil(lambda: all(type(r) is kind for r in sliders.rows if r.segment == segment), timeout=5000)


def test_a_dynamic_arm_driven_by_torques_from_the_sliders(window, qtbot):
    driving = open_ready(window, DEMO / "demo.rig.json", qtbot)
    session, sliders, transport = window.session, driving.sliders, driving.transport
    live = transport.live_torques
    for _ in range(3):  # at rest under position control: the torques hold the arm against gravity
        transport.tick(DT)
    arm_cols = [live.joint_names.index(f"arm.{j}") for j in ARM_JOINTS]
    q0 = session.joint_positions("arm")
    hold = demo_gravity(q0, session.joint_positions("motor")[0])[:6]  # Pinocchio's
    np.testing.assert_allclose(live.last()[0][arm_cols], hold, rtol=1e-9, atol=1e-9)
    motor0 = session.segment("motor").world_X_frame.copy()
    choose(qtbot, sliders, "arm", "Torques")
    assert session.drive("arm") == "torques"
    row = sliders.row("arm", "joint_2")
    assert isinstance(row, TorqueRow) and (row.lower, row.upper) == (-150.0, 150.0)
    assert row.spin.suffix() == " N·m" and row.spin.value() == 0.0
    assert sliders.findChild(QPushButton, "zero:arm") is not None
    assert not sliders.servo["arm"].isEnabled()
    # unpowered, gravity makes the arm fall: each joint starts against the torque that held it
    transport.tick(DT)
    v = session.joint_velocities("arm")
    j2 = session.segment("arm").articulation.joint_index("joint_2")
    assert np.sign(v[j2]) == -np.sign(hold[j2]) != 0
    for _ in range(4):
        transport.tick(DT)
    assert abs(session.joint_positions("arm")[j2] - q0[j2]) > 1e-3
    assert not np.allclose(session.segment("motor").world_X_frame, motor0)  # the motor riding on it follows
    # the live torques show the torques applied (zero here)
    np.testing.assert_array_equal(live.last()[0][arm_cols], 0.0)
    # back where it was, at rest, holding against gravity: it stays; a larger torque typed on joint 2 turns it
    sliders.teleport.setChecked(True)
    sliders.reset_positions()
    sliders.teleport.setChecked(False)
    start = session.joint_positions("arm")
    session.set_torques("arm", hold)
    transport.tick(DT)
    np.testing.assert_allclose(session.joint_positions("arm"), start, atol=1e-6)
    row.spin.setFocus()
    row.spin.selectAll()
    qtbot.keyClicks(row.spin, f"{hold[j2] + 20.0:.3f}")
    qtbot.keyClick(row.spin, Qt.Key_Return)
    assert session.applied_torques("arm")[j2] == np.round(hold[j2] + 20.0, 3)
    before = session.joint_positions("arm")[j2]
    for _ in range(3):
        transport.tick(DT)
    assert session.joint_positions("arm")[j2] > before + 1e-4
    # the slider dragged: its torque, within ± the effort limit
    click_at(qtbot, row.slider, 0.9)
    expected = row.lower + (row.upper - row.lower) * row.slider.value() / row.positions
    assert session.applied_torques("arm")[j2] == expected
    assert 100.0 < session.applied_torques("arm")[j2] <= 150.0
    qtbot.mouseClick(sliders.findChild(QPushButton, "zero:arm"), Qt.LeftButton)
    np.testing.assert_array_equal(session.applied_torques("arm"), 0.0)
    assert row.spin.value() == 0.0
    # back to positions: it holds where it is
    transport.tick(DT)
    choose(qtbot, sliders, "arm", "Positions")
    assert session.drive("arm") == "positions"
    held = session.joint_positions("arm")
    commanded = [session.segment("arm").articulation.joint_index(j) for j in session.command_names("arm")]
    np.testing.assert_array_equal(session.command("arm"), held[commanded])
    transport.tick(DT)
    np.testing.assert_allclose(session.joint_positions("arm"), held, atol=1e-12)
    assert sliders.servo["arm"].isEnabled()


def test_a_motor_turns_with_its_torque_and_a_kinematic_robot_has_no_torques_choice(window, qtbot):
    driving = open_ready(window, DEMO / "demo.rig.json", qtbot)
    session, sliders, transport = window.session, driving.sliders, driving.transport
    choose(qtbot, sliders, "motor", "Torques")
    row = sliders.row("motor", "shaft")
    assert (row.lower, row.upper) == (-DEFAULT_TORQUE, DEFAULT_TORQUE)  # no effort limit in its description
    assert "no effort limit" in row.slider.toolTip()
    before = session.joint_positions("motor")[0]
    row.spin.setFocus()
    row.spin.selectAll()
    qtbot.keyClicks(row.spin, "0.005")
    qtbot.keyClick(row.spin, Qt.Key_Return)
    for _ in range(5):
        transport.tick(DT)
    assert session.joint_positions("motor")[0] > before
    qtbot.waitUntil(lambda: float(row.state_label.text()) > 0.0, timeout=5000)  # the row shows it
    # a torque so large that the dynamics diverge: back at its last finite state, by positions, said in the
    # status bar, and the clock goes on
    session.set_torques("motor", [1e308])
    last = session.joint_positions("motor")
    transport.tick(DT)
    assert session.drive("motor") == "positions"
    np.testing.assert_array_equal(session.joint_positions("motor"), last)
    assert "session.diverged" in window.statusBar().currentMessage()
    qtbot.waitUntil(lambda: isinstance(sliders.row("motor", "shaft"), JointRow)
                    and not isinstance(sliders.row("motor", "shaft"), TorqueRow), timeout=5000)
    transport.tick(DT)
    choose(qtbot, sliders, "motor", "Torques")
    # a recording is refused while a segment is driven by torques, with its reason
    qtbot.mouseClick(driving.player.record_button, Qt.LeftButton)
    assert transport.recording is None and not driving.player.record_button.isChecked()
    assert "player.record-torques" in driving.player.error_box.text()
    driving.player.error_box.close()
    # another document: a kinematic robot has no Drive choice
    open_ready(window, DEMO / "arm.urdf", qtbot)
    qtbot.waitUntil(lambda: not sliders.drive, timeout=5000)
    assert not sliders.findChildren(QComboBox)


def test_long_joint_names_are_elided_so_every_row_fits_a_narrow_dock(window, qtbot, robot_file):
    from mime_gui.app.docks.sliders import NameLabel

    open_ready(window, robot_file("pr2"), qtbot)
    sliders = window.driving.sliders
    sliders.setFloating(True)
    sliders.resize(300, 600)
    qtbot.waitUntil(lambda: sliders.width() <= 320, timeout=5000)
    qtbot.wait(100)
    viewport = sliders.scroll.viewport()
    labels = [w for w in sliders.findChildren(NameLabel) if w.isVisible()]
    long = max(labels, key=lambda w: len(w.full))
    shown = long.shown_text()
    assert len(long.full) > 20 and "…" in shown
    assert shown.startswith(long.full[:3]) and shown.endswith(long.full[-3:])
    assert long.toolTip().startswith(long.full.removesuffix(" ⟳"))
    # nothing sticks out past the dock's right edge: the rows fit instead of scrolling sideways
    row = sliders.row(next(iter(window.session.segments)), long.full.removesuffix(" ⟳"))
    right = row.state_label.mapTo(viewport, row.state_label.rect().topRight()).x()
    assert right <= viewport.width()
    assert not sliders.scroll.horizontalScrollBar().isVisible()
