"""The Measures dock, driven as a user would: pick two ends (from the lists or the selection), Add, drive a
slider and see the distance follow; the angle between chosen axes; a command file's whole trajectory
plotted with the playhead; an end renamed away reads stale until Ctrl+Z; rows read once per turn and not
while the dock is behind another tab; on the demo rig and on a robot the dock knows nothing of. Expected
values are computed here from the published frame poses and the rig file's numbers."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from robot_data import robot_urdf
from test_driving import click_at, open_ready

from mime_gui import RESOURCES
from mime_gui.app.docks.fields import on_screen
from mime_gui.rig.measures import CentreEnd, FrameEnd
from mime_gui.session import ItemRef, RenameItem

DEMO = RESOURCES / "demo"
RIG = json.loads((DEMO / "demo.rig.json").read_text())


def measures_dock(window, qtbot):
    dock = window.docks["MeasuresDock"]
    dock.show()
    dock.raise_()
    qtbot.waitUntil(lambda: on_screen(dock), timeout=5000)
    return dock


def choose(picker, text: str) -> None:
    """Pick ``text`` in an end's list (as a click on its entry does)."""
    index = picker.combo.findText(text)
    assert index >= 0, f"{text!r} is not listed"
    picker.combo.setCurrentIndex(index)


def on(X: np.ndarray, p) -> np.ndarray:
    return X[:3, :3] @ np.asarray(p, float) + X[:3, 3]


def magnet_to_base(session) -> float:
    """m1's centre (its ``at`` in the rotor, from the rig file) to the arm's base, in mm."""
    m1 = on(session.frame_world_pose("motor", "rotor"), RIG["magnets"]["m1"]["at"]["value"])
    return float(np.linalg.norm(session.frame_world_pose("arm", "base_link")[:3, 3] - m1)) * 1e3


def test_pick_two_ends_add_and_drive_the_distance_follows(window, qtbot):
    driving = open_ready(window, DEMO / "demo.rig.json", qtbot)
    session, dock = window.session, measures_dock(window, qtbot)
    a, b = dock.pickers
    assert a.combo.currentText() == "magnet m1" and b.combo.currentText() == "probe sample"  # a pair at once
    choose(b, "arm.base_link")
    assert [x.currentText() for x in dock.axes] == ["—", "—"]  # a magnet and a frame: no angle asked
    qtbot.mouseClick(dock.add_button, Qt.LeftButton)
    assert session.measures == (dock.current(),) and dock.current().b == FrameEnd("arm", "base_link")
    assert not session.can_undo and not session.modified  # not an edit of the rig
    before = magnet_to_base(session)
    assert dock.rows() == [["magnet m1", "arm.base_link", f"{before:.3f}", "", dock.rows()[0][4]]]
    # drive joint_2 by its slider: the arm follows through the servo, the distance with it
    click_at(qtbot, driving.sliders.row("arm", "joint_2").slider, 0.85)
    for _ in range(10):
        driving.transport.tick(0.02)
    now = magnet_to_base(session)
    assert abs(now - before) > 1.0  # moved by more than a millimetre
    qtbot.waitUntil(lambda: dock.rows()[0][2] == f"{magnet_to_base(session):.3f}", timeout=5000)
    vector = on(session.frame_world_pose("motor", "rotor"), RIG["magnets"]["m1"]["at"]["value"])
    vector = session.frame_world_pose("arm", "base_link")[:3, 3] - vector
    assert dock.rows()[0][4] == ", ".join(f"{v * 1e3:+.3f}" for v in vector)
    # the plot shows the live distance, 0 = now
    t, mm = dock.curve.getData()
    assert t[-1] == 0.0 and mm[-1] == pytest.approx(magnet_to_base(session), abs=1e-9)


def test_ends_from_the_selection_and_the_angle_between_chosen_axes(window, qtbot):
    driving = open_ready(window, DEMO / "demo.rig.json", qtbot)
    session, dock = window.session, measures_dock(window, qtbot)
    a, b = dock.pickers
    assert not a.pick.isEnabled()  # nothing selected
    session.select(ItemRef("arm", "frame", "tool0"))
    qtbot.waitUntil(a.pick.isEnabled, timeout=2000)
    qtbot.mouseClick(a.pick, Qt.LeftButton)
    session.select(ItemRef("arm", "joint", "joint_3"))  # a joint: where it is, its child link
    qtbot.mouseClick(b.pick, Qt.LeftButton)
    assert (a.combo.currentText(), b.combo.currentText()) == ("arm.tool0", "arm.link_3")
    assert [x.currentText() for x in dock.axes] == ["z", "z"]  # two frames: their z axes, to start with
    dock.axes[1].setCurrentText("x")
    qtbot.mouseClick(dock.add_button, Qt.LeftButton)
    sliders = driving.sliders
    sliders.teleport.click()
    click_at(qtbot, sliders.row("arm", "joint_5").slider, 0.2)

    def expected() -> str:
        u = session.frame_world_pose("arm", "tool0")[:3, 2]
        v = session.frame_world_pose("arm", "link_3")[:3, 0]
        return f"{math.degrees(math.acos(float(np.clip(u @ v, -1, 1)))):.2f}"

    qtbot.waitUntil(lambda: dock.rows()[0][3] == expected(), timeout=5000)
    # a magnet picked from the tree's grafted link is the magnet's centre
    graft = session.segment("motor").graft_of("m1")
    session.select(ItemRef("motor", "link", graft))
    qtbot.mouseClick(a.pick, Qt.LeftButton)
    assert a.end() == CentreEnd("magnets", "m1") and a.combo.currentText() == "magnet m1"


def test_rows_are_read_once_per_turn_and_not_behind_another_tab(window, qtbot):
    driving = open_ready(window, DEMO / "demo.rig.json", qtbot)
    session, dock = window.session, measures_dock(window, qtbot)
    qtbot.mouseClick(dock.add_button, Qt.LeftButton)  # magnet m1 to probe sample
    choose(dock.pickers[1], "arm.link_2")
    qtbot.mouseClick(dock.add_button, Qt.LeftButton)
    renders = window.scene.render_count
    for _ in range(3):
        QApplication.processEvents()
    assert window.scene.render_count == renders  # adding and reading measures renders nothing
    q = session.joint_positions("arm")
    before = dock.updates
    for k in range(5):  # five pose changes in one turn of the event loop
        session.set_joint_positions("arm", q + 0.05 * (k + 1))
    qtbot.waitUntil(lambda: dock.updates > before, timeout=5000)
    QApplication.processEvents()
    assert dock.updates == before + 1

    def link2() -> str:
        m1 = on(session.frame_world_pose("motor", "rotor"), RIG["magnets"]["m1"]["at"]["value"])
        return f"{np.linalg.norm(session.frame_world_pose('arm', 'link_2')[:3, 3] - m1) * 1e3:.3f}"

    assert dock.rows()[1][2] == link2()
    # behind the Plots tab: moving reads nothing, showing it again reads once, at the pose now
    driving.plots.raise_()
    qtbot.waitUntil(lambda: not on_screen(dock), timeout=5000)
    hidden = dock.updates
    for k in range(3):
        session.set_joint_positions("arm", q - 0.1 * (k + 1))
        window.bridge.flush_poses()  # as the view does before each frame
    assert dock.updates == hidden
    dock.raise_()
    qtbot.waitUntil(lambda: dock.updates > hidden, timeout=5000)
    assert dock.updates == hidden + 1 and dock.rows()[1][2] == link2()


def test_over_a_loaded_trajectory_with_the_playhead(window, qtbot):
    driving = open_ready(window, DEMO / "demo.rig.json", qtbot)
    session, dock = window.session, measures_dock(window, qtbot)
    choose(dock.pickers[1], "arm.base_link")
    qtbot.mouseClick(dock.add_button, Qt.LeftButton)
    assert driving.player.open_file(str(DEMO / "chain.csv"))
    player = driving.transport.player
    qtbot.waitUntil(lambda: dock.computed == 1, timeout=5000)
    # by hand: each row's rotor and base poses, from the trajectory's columns
    rotor = player.trajectory.frame_poses[:, player.segment("motor").frames][
        :, session.segment("motor").articulation.frame_index("rotor")]
    base = player.trajectory.frame_poses[:, player.segment("arm").frames][
        :, session.segment("arm").articulation.frame_index("base_link")]
    m1 = np.einsum("tij,j->ti", rotor[:, :3, :3], RIG["magnets"]["m1"]["at"]["value"]) + rotor[:, :3, 3]
    expected = np.linalg.norm(base[:, :3, 3] - m1, axis=1) * 1e3
    t, mm = dock.curve.getData()
    np.testing.assert_allclose(t, player.times - player.schedule.start, rtol=0, atol=1e-12)
    np.testing.assert_allclose(mm, expected, rtol=1e-12)
    assert np.ptp(expected) > 1.0
    row = player.rows // 3
    driving.transport.seek(row)
    qtbot.waitUntil(lambda: dock.playhead.value() == pytest.approx(t[row]), timeout=5000)
    assert dock.readout.text() == f"now <b>{expected[row]:.3f} mm</b><br>min {expected.min():.3f} · max " \
                                  f"{expected.max():.3f} mm"
    qtbot.waitUntil(lambda: dock.rows()[0][2] == f"{expected[row]:.3f}", timeout=5000)  # the table too
    for r in (0, row + 5, player.rows - 1):
        driving.transport.seek(r)
    assert dock.computed == 1  # measured once per file, rig and measure, not per row


def test_an_end_renamed_away_reads_stale_until_undone(window, qtbot):
    open_ready(window, DEMO / "demo.rig.json", qtbot)
    session, dock = window.session, measures_dock(window, qtbot)
    qtbot.mouseClick(dock.add_button, Qt.LeftButton)  # magnet m1 to probe sample
    value = dock.rows()[0][2]
    assert float(value) == pytest.approx(
        (RIG["probes"]["sample"]["at"]["value"][2] - RIG["magnets"]["m1"]["at"]["value"][2]) * 1e3, abs=1e-9)
    session.apply(RenameItem("magnets", "m1", "north"))
    qtbot.waitUntil(lambda: dock.rows()[0][2] == "stale", timeout=5000)
    row = dock.table.topLevelItem(0)
    assert "no magnet 'm1'" in row.toolTip(0) and "undo" in row.toolTip(0)
    assert "magnet north" in [dock.pickers[0].combo.itemText(i) for i in range(dock.pickers[0].combo.count())]
    qtbot.keyClick(window, Qt.Key_Z, Qt.ControlModifier)
    qtbot.waitUntil(lambda: dock.rows()[0][2] == value, timeout=5000)
    # remove with the Delete key, clear with the button
    choose(dock.pickers[1], "arm.tool0")
    qtbot.mouseClick(dock.add_button, Qt.LeftButton)
    assert len(session.measures) == 2 and dock.current() == session.measures[1]
    dock.table.setFocus()
    qtbot.keyClick(dock.table, Qt.Key_Delete)
    assert len(session.measures) == 1 and dock.rows()[0][:2] == ["magnet m1", "probe sample"]
    qtbot.mouseClick(dock.clear_button, Qt.LeftButton)
    assert session.measures == () and dock.rows() == [] and not dock.clear_button.isEnabled()


def test_a_robot_the_dock_knows_nothing_of(window, qtbot):
    driving = open_ready(window, robot_urdf("ur_description/urdf/ur5_robot.urdf"), qtbot)
    session, dock = window.session, measures_dock(window, qtbot)
    (segment,) = session.segments
    a, b = dock.pickers
    choose(a, f"{segment}.base_link")
    choose(b, f"{segment}.tool0")
    assert [x.currentText() for x in dock.axes] == ["z", "z"]
    qtbot.mouseClick(dock.add_button, Qt.LeftButton)

    def expected() -> list[str]:
        A, B = session.frame_world_pose(segment, "base_link"), session.frame_world_pose(segment, "tool0")
        d = np.linalg.norm(B[:3, 3] - A[:3, 3]) * 1e3
        angle = math.degrees(math.acos(float(np.clip(A[:3, 2] @ B[:3, 2], -1, 1))))
        return [f"{d:.3f}", f"{angle:.2f}"]

    assert dock.rows()[0][2:4] == expected()
    before = expected()
    driving.sliders.teleport.click()
    click_at(qtbot, driving.sliders.row(segment, "shoulder_lift_joint").slider, 0.3)
    click_at(qtbot, driving.sliders.row(segment, "wrist_1_joint").slider, 0.7)
    qtbot.waitUntil(lambda: dock.rows()[0][2:4] == expected(), timeout=5000)
    assert expected() != before
