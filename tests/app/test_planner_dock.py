"""Find poses, driven as a user would: a rotating field asked for at the demo's probe, the poses found on
the worker listed best first, one previewed through the joint sliders, used as a trajectory (one edit, one
undo step) and played; the field at the chosen pose checked by Pinocchio and Magpylib (tests/oracle.py);
what is not a target refused with its code."""

from __future__ import annotations

import math

import numpy as np
from oracle import DEMO_MAGNETISATION, demo_poses, magnet_B
from PySide6.QtCore import Qt
from test_driving import open_ready

PROBE = np.array([0.0, 0.0, 0.05])  # the demo's probe on the stator


def planner_dock(window, qtbot):
    dock = window.docks["PlannerDock"]
    dock.show()
    dock.raise_()
    qtbot.waitUntil(lambda: not dock.visibleRegion().isEmpty(), timeout=3000)
    return dock


def ask_rotating(qtbot, dock, axis: str = "0, 0, 1") -> None:
    dock.at.setCurrentText("probes.sample")
    dock.kind.setCurrentText("rotating")
    dock.vector.selectAll()
    qtbot.keyClicks(dock.vector, axis)
    dock.frequency.setValue(5.0)
    dock.tolerance.setValue(10.0)
    dock.low.setValue(1.0)
    dock.high.setValue(50.0)


def turn_axis(arm, shaft) -> np.ndarray:
    """The axis the field at the probe turns about while the shaft turns forward, by hand."""
    B = []
    for k in range(16):
        poses = demo_poses(arm, shaft + 2 * math.pi * k / 16)
        stator = poses["stator"]
        B.append(magnet_B(poses["rotor"], [stator[:3, :3] @ PROBE + stator[:3, 3]], DEMO_MAGNETISATION)[0])
    B = np.array(B)
    axis = np.cross(B - B.mean(axis=0), np.roll(B, -1, axis=0) - B.mean(axis=0)).sum(axis=0)
    return axis / np.linalg.norm(axis)


def test_a_rotating_field_found_previewed_used_and_undone(window, qtbot, demo_copy):
    driving = open_ready(window, demo_copy / "demo.rig.json", qtbot)
    session, dock = window.session, planner_dock(window, qtbot)
    assert window.docks["PlannerDock"] in window.tabifiedDockWidgets(window.driving.plots)
    rig = session.rig
    ask_rotating(qtbot, dock)
    with qtbot.waitSignal(dock.found, timeout=60000):
        qtbot.mouseClick(dock.find_button, Qt.LeftButton)
    plan = dock.plan
    assert plan is not None and plan.candidates and dock.table.rowCount() == len(plan.candidates)
    assert "meet the target" in dock.status.text()
    margins = [c.margin for c in plan.candidates]
    assert margins == sorted(margins, reverse=True)
    # choosing a row previews it: the arm's commands go to the candidate
    dock.table.setCurrentCell(0, 0)
    best = plan.candidates[0]
    np.testing.assert_allclose(session.command("arm"), best.positions[:6], atol=1e-12)
    # by hand: the field turns about the axis asked (the motor's sense as the plan says), within 10°
    axis = best.sense * turn_axis(best.positions[:6], best.positions[6])
    assert math.degrees(math.acos(np.clip(axis @ np.array([0.0, 0.0, 1.0]), -1, 1))) <= 10.0
    # Use: a trajectory of the rig, played; one undo step takes it away
    qtbot.mouseClick(dock.use_button, Qt.LeftButton)
    assert list(session.rig.trajectories) == ["spin 5 Hz", "plan 1"], dock.status.text()
    assert session.history.undo_name.startswith("Add")
    transport = driving.transport
    assert transport.source == ("plan 1", 0.01) and transport.player is not None
    spin = session.rig.trajectories["plan 1"].segments["motor"][-1].spin
    assert spin.frequency == best.sense * 5.0 and spin.unit == "Hz"
    qtbot.keyClick(window, Qt.Key_Z, Qt.ControlModifier)
    qtbot.waitUntil(lambda: session.rig == rig)
    assert dock.plan is plan  # a trajectory added and taken away leaves the poses found as they were
    # the magnet changed under the answer: it is dropped, and found again on request
    from mime_gui.session import SetValue

    session.apply(SetValue("magnets.m1.magnetisation", (0.0, 1.0, 0.0)))
    assert dock.plan is None and "again" in dock.status.text() and dock.table.rowCount() == 0


def test_what_is_no_target_is_refused_and_an_unreachable_one_names_what_binds(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json", qtbot)
    dock = planner_dock(window, qtbot)
    ask_rotating(qtbot, dock, "1, 2")
    qtbot.mouseClick(dock.find_button, Qt.LeftButton)
    assert "[target.direction]" in dock.status.text() and dock.searches == 0
    dock.kind.setCurrentText("fixed direction")
    dock.vector.selectAll()
    qtbot.keyClicks(dock.vector, "0, 0, 1")
    dock.low.setValue(2000.0)  # 2 T at the probe: beyond the magnet
    dock.high.setValue(3000.0)
    with qtbot.waitSignal(dock.found, timeout=60000):
        qtbot.mouseClick(dock.find_button, Qt.LeftButton)
    assert dock.table.rowCount() == 0 and "window binds" in dock.status.text()
    assert not dock.use_button.isEnabled()


def test_a_typed_field_kept_as_a_target_and_chosen_again(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json", qtbot)
    session, dock = window.session, planner_dock(window, qtbot)
    ask_rotating(qtbot, dock, "0, 1, 0")
    dock.ellipticity.setValue(0.5)
    qtbot.mouseClick(dock.keep_button, Qt.LeftButton)
    t = session.rig.targets["target 1"]
    assert (t.at, t.axis, t.frequency, t.low, t.high, t.ellipticity) == \
        ("probes.sample", (0.0, 1.0, 0.0), 5.0, 1e-3, 50e-3, 0.5)
    assert math.isclose(t.tolerance, math.radians(10.0))
    assert dock.targets.currentText() == "target 1"
    # typed over, then the kept target chosen again: the form shows it
    dock.targets.setCurrentIndex(0)
    ask_rotating(qtbot, dock, "1, 0, 0")
    dock.kind.setCurrentText("fixed direction")
    dock.targets.setCurrentText("target 1")
    assert dock.kind.currentText() == "rotating" and dock.vector.text() == "0, 1, 0"
    assert dock.ellipticity.value() == 0.5
    # one undo step takes it away, and the list follows
    qtbot.keyClick(window, Qt.Key_Z, Qt.ControlModifier)
    qtbot.waitUntil(lambda: "target 1" not in session.rig.targets)
    assert [dock.targets.itemText(i) for i in range(dock.targets.count())] == ["(as typed below)"]


def test_the_gradient_and_force_bounds_typed_kept_and_named_when_they_bind(window, qtbot, demo_copy):
    """The bounds' boxes: blank is no bound; a force asks for a sample (the box is off at a probe); a bound
    typed is kept with the target and fills the form again; a gradient no pose keeps names what binds."""
    open_ready(window, demo_copy / "demo.rig.json", qtbot)
    session, dock = window.session, planner_dock(window, qtbot)
    ask_rotating(qtbot, dock)
    assert dock.target().max_gradient is None and not dock.force.isEnabled()  # the demo's probe: no moment
    qtbot.keyClicks(dock.gradient, "abc")
    qtbot.mouseClick(dock.find_button, Qt.LeftButton)
    assert "[target.gradient]" in dock.status.text() and dock.searches == 0
    dock.gradient.clear()
    qtbot.keyClicks(dock.gradient, "2.5")
    qtbot.mouseClick(dock.keep_button, Qt.LeftButton)
    assert session.rig.targets["target 1"].max_gradient == 2.5
    dock.targets.setCurrentIndex(0)
    dock.gradient.clear()
    dock.targets.setCurrentText("target 1")
    assert dock.gradient.text() == "2.5"
    dock.targets.setCurrentIndex(0)
    dock.gradient.setText("1e-6")  # a millionth of a tesla per metre, a centimetre or two from the magnet
    with qtbot.waitSignal(dock.found, timeout=60000):
        qtbot.mouseClick(dock.find_button, Qt.LeftButton)
    assert dock.table.rowCount() == 0 and "gradient binds" in dock.status.text(), dock.status.text()
    assert "T/m" in dock.status.text()


def test_the_rotating_fields_row_shows_for_a_rotating_field_only_and_the_table_keeps_the_height(window, qtbot,
                                                                                                 demo_copy):
    open_ready(window, demo_copy / "demo.rig.json", qtbot)
    dock = planner_dock(window, qtbot)
    rotating = (dock.frequency, dock.ellipticity)
    dock.kind.setCurrentText("fixed direction")
    assert all(w.isHidden() for w in rotating) and dock.vector_label.text() == "Direction"
    dock.kind.setCurrentText("rotating")
    assert not any(w.isHidden() for w in rotating) and dock.vector_label.text() == "Axis"
    assert all(w.isEnabled() for w in rotating)
    dock.kind.setCurrentText("fixed direction")
    qtbot.waitUntil(lambda: all(w.isHidden() for w in rotating))
    # the buttons stand beside the force field, not in a row of their own: the table starts right below
    force, find = dock.force.geometry(), dock.find_button.geometry()
    assert abs(force.center().y() - find.center().y()) <= 2 and find.left() > force.right()
    assert dock.table.geometry().top() > max(force.bottom(), find.bottom())
    # and the hidden row gives its height to the table (once the layout has run)
    qtbot.waitUntil(lambda: dock.table.geometry().top() - dock.force.geometry().bottom()
                    < dock.force.height(), timeout=3000)
