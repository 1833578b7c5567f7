"""The Poses dock and the joint sliders' Centre and Randomize, driven as a user would: store the current pose
under a typed name, go to one through the servo or with Teleport, rename, delete, undo and redo from the
keyboard; a pose the rules refuse is marked and cannot be gone to."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLineEdit
from robot_data import robot_urdf
from test_driving import open_ready

from mime_gui.rig.poses import Pose, positions_of
from mime_gui.session import AddItem


def poses_dock(window):
    dock = window.driving.poses
    dock.show()
    dock.raise_()
    return dock


def listed(dock) -> list[str]:
    return [dock.list.item(i).text() for i in range(dock.list.count())]


def select(dock, name: str) -> None:
    dock.list.setCurrentItem(dock.item(name))


def editor_of(qtbot, dock) -> QLineEdit:
    """The line edit the list opened on its current item (it has the focus)."""
    def opened():
        w = QApplication.focusWidget()
        return isinstance(w, QLineEdit) and dock.list.isAncestorOf(w)
    qtbot.waitUntil(opened, timeout=2000)
    return QApplication.focusWidget()


def undo(qtbot, window, redo: bool = False) -> None:
    keys = Qt.ControlModifier | Qt.ShiftModifier if redo else Qt.ControlModifier
    qtbot.keyClick(window, Qt.Key_Z, keys)


def test_store_go_to_rename_delete_undo_and_redo(window, qtbot, demo_copy):
    driving = open_ready(window, demo_copy / "demo.rig.json", qtbot)
    session, sliders, dock = window.session, driving.sliders, poses_dock(window)
    assert listed(dock) == ["home", "over the sample"]
    assert dock.name.placeholderText() == "pose1"

    # store the current commands under a typed name, in the sliders' degrees
    qtbot.keyClicks(dock.name, "start")
    qtbot.mouseClick(dock.store_button, Qt.LeftButton)
    assert listed(dock) == ["home", "over the sample", "start"] and dock.current() == "start"
    stored = session.rig.poses["start"]
    assert stored.unit == "deg|m"
    assert stored.values["arm"]["joint_2"] == pytest.approx(math.degrees(-0.4))
    assert positions_of(session.document.built, stored)["arm"] == pytest.approx(
        dict(zip(session.command_names("arm"), session.command("arm"), strict=True)), abs=1e-15)
    assert session.history.undo_name == "Add pose start"
    # an empty name: the next free one, in radians when the sliders show radians
    sliders.units.click()
    qtbot.mouseClick(dock.store_button, Qt.LeftButton)
    assert "pose1" in session.rig.poses and session.rig.poses["pose1"].unit == "rad|m"
    assert dock.name.placeholderText() == "pose2"

    # go to "home" through the servo: the first step is the closed-form lag
    tau = session.rig.chain["arm"].servo_time_constant
    q0 = np.array(session.joint_positions("arm"))
    select(dock, "home")
    qtbot.mouseClick(dock.go_button, Qt.LeftButton)
    home = positions_of(session.document.built, session.rig.poses["home"])
    art = session.segment("arm").articulation
    u = np.array([home["arm"][j] for j in session.command_names("arm")])
    np.testing.assert_array_equal(session.command("arm"), u)
    np.testing.assert_array_equal(session.joint_positions("arm"), q0)  # not there yet
    driving.transport.tick(0.02)
    expected = u + (q0 - u) * math.exp(-0.02 / tau)
    np.testing.assert_allclose(session.joint_positions("arm"), expected, rtol=0, atol=1e-12)
    assert session.history.undo_name == "Add pose pose1"  # going to a pose is no edit

    # with Teleport: there at once (double-click goes too)
    sliders.teleport.click()
    over = positions_of(session.document.built, session.rig.poses["over the sample"])
    dock.list.itemDoubleClicked.emit(dock.item("over the sample"))
    q = session.joint_positions("arm")
    for joint, value in over["arm"].items():
        assert q[art.joint_index(joint)] == value

    # rename in place, undo and redo from the keyboard
    select(dock, "start")
    qtbot.mouseClick(dock.rename_button, Qt.LeftButton)
    editor = editor_of(qtbot, dock)
    editor.selectAll()
    qtbot.keyClicks(editor, "rest")
    qtbot.keyClick(editor, Qt.Key_Return)
    qtbot.waitUntil(lambda: "rest" in session.rig.poses, timeout=2000)  # the list commits in a later turn
    assert list(session.rig.poses) == ["home", "over the sample", "rest", "pose1"]
    assert session.rig.poses["rest"] == stored and session.history.undo_name == "Rename pose start to rest"
    dock.list.setFocus()
    undo(qtbot, window)
    assert list(session.rig.poses) == ["home", "over the sample", "start", "pose1"]
    assert listed(dock) == list(session.rig.poses)
    undo(qtbot, window, redo=True)
    assert listed(dock) == ["home", "over the sample", "rest", "pose1"]

    # delete, undo, redo
    select(dock, "rest")
    qtbot.mouseClick(dock.delete_button, Qt.LeftButton)
    assert listed(dock) == ["home", "over the sample", "pose1"]
    undo(qtbot, window)
    assert listed(dock) == ["home", "over the sample", "rest", "pose1"]
    undo(qtbot, window, redo=True)
    assert "rest" not in session.rig.poses
    # a name taken is refused: nothing changes
    before = session.rig
    qtbot.keyClicks(dock.name, "home")
    qtbot.mouseClick(dock.store_button, Qt.LeftButton)
    assert session.rig is before


def test_a_pose_the_rules_refuse_is_marked_and_cannot_be_gone_to(window, qtbot, demo_copy):
    driving = open_ready(window, demo_copy / "demo.rig.json", qtbot)
    session, dock = window.session, poses_dock(window)
    session.apply(AddItem("poses", "too far", Pose({"arm": {"joint_1": 500}}, "deg|m")))
    item = dock.item("too far")
    found = [f for f in session.findings if f.where.startswith("poses.too far")]
    assert found and item.toolTip() == "\n".join(f.message for f in found)
    assert not item.icon().isNull() and dock.item("home").icon().isNull()
    select(dock, "too far")
    assert not dock.go_button.isEnabled()
    before = np.array(session.command("arm"))
    dock.list.itemDoubleClicked.emit(item)
    np.testing.assert_array_equal(session.command("arm"), before)
    select(dock, "home")
    assert dock.go_button.isEnabled()
    assert driving.sliders.teleport.isEnabled()


@pytest.mark.parametrize("teleport", [False, True])
def test_centre_and_randomize_on_ur5_stay_within_the_limits(window, qtbot, teleport):
    driving = open_ready(window, robot_urdf("ur_description/urdf/ur5_robot.urdf"), qtbot)
    session, sliders, dock = window.session, driving.sliders, poses_dock(window)
    if teleport:
        sliders.teleport.click()
    (name, seg), = session.segments.items()
    art = seg.articulation
    names = session.command_names(name)
    lower = np.array([art.lower[art.joint_index(j)] for j in names])
    upper = np.array([art.upper[art.joint_index(j)] for j in names])
    limited = np.isfinite(lower) & np.isfinite(upper)
    sliders.rng = np.random.default_rng(7)
    draws = []
    for _ in range(20):
        qtbot.mouseClick(dock.randomize_button, Qt.LeftButton)
        u = np.array(session.command(name))
        assert np.all(u[limited] >= lower[limited]) and np.all(u[limited] <= upper[limited])
        assert np.all(np.abs(u[~limited]) <= math.pi)
        if teleport:
            q = session.joint_positions(name)
            np.testing.assert_array_equal([q[art.joint_index(j)] for j in names], u)
        draws.append(u)
    assert np.ptp(draws, axis=0).min() > 0  # every joint moved
    assert session.history.undo_name == ""  # no edit of the rig
    qtbot.mouseClick(dock.centre_button, Qt.LeftButton)
    middle = np.where(limited, 0.5 * (lower + upper), 0.0)
    np.testing.assert_array_equal(session.command(name), middle)
    if not teleport:
        driving.transport.tick(0.02)  # the servo's lag (0 by default: there at once)
    q = session.joint_positions(name)
    tau = session.rig.chain[name].servo_time_constant
    if teleport or tau == 0:
        np.testing.assert_allclose([q[art.joint_index(j)] for j in names], middle, rtol=0, atol=1e-12)
