"""Driving the arm in the window as a user would: sliders moved with the mouse and the keyboard, Space to
play, the timeline dragged, recording, plots and exports — on the demo rig, a URDF and PR2."""

from __future__ import annotations

import time

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtWidgets import QApplication, QPushButton

from mime_gui import RESOURCES
from mime_gui.app.docks import plots as plots_module
from mime_gui.app.docks.sliders import RESOLUTION
from mime_gui.app.main import wait_until_ready
from mime_gui.nodes import KinematicArmNode

DEMO = RESOURCES / "demo"


def open_ready(window, path, qtbot):
    assert window.open_file(str(path))
    wait_until_ready(window)
    window.activateWindow()  # keys reach the window's shortcuts only when it is the active window
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5000)
    window.driving.clock.stop()  # the test takes the steps itself
    return window.driving


def click_at(qtbot, slider, fraction: float) -> None:
    """A left click on a slider's groove at ``fraction`` of its width (the handle jumps there)."""
    x = int(round(slider.width() * fraction))
    qtbot.mouseClick(slider, Qt.LeftButton, pos=QPoint(x, slider.height() // 2))


def test_docks_and_the_playback_menu_are_in_the_window(window):
    names = {d.objectName() for d in window.findChildren(type(window.properties_dock).__mro__[1])}
    assert {"JointSlidersDock", "PlayerDock", "PlotsDock"} <= names
    menus = [a.text() for a in window.menuBar().actions()]
    assert menus.index("&Playback") == menus.index("&Help") - 1
    assert window.driving.act_play.shortcut().toString() == "Space"


@pytest.mark.parametrize("tau", [0.0, 0.15])
def test_a_slider_moved_by_mouse_and_keyboard_drives_the_arm_through_the_servo(window, qtbot, tau):
    driving = open_ready(window, DEMO / "arm.urdf", qtbot)
    session, sliders = window.session, driving.sliders
    seg = next(iter(session.segments))
    servo = sliders.servo[seg]
    servo.selectAll()
    qtbot.keyClicks(servo, f"{tau}")
    qtbot.keyClick(servo, Qt.Key_Return)
    assert session.rig.chain[seg].servo_time_constant == pytest.approx(tau)
    art = session.segment(seg).articulation
    node = KinematicArmNode(art, servo_time_constant=session.rig.chain[seg].servo_time_constant)
    state = node.initial_state(session.joint_positions(seg))
    row = sliders.row(seg, "joint_2")
    click_at(qtbot, row.slider, 0.8)
    assert row.slider.value() > RESOLUTION // 2
    expected_u = row.lower + (row.upper - row.lower) * row.slider.value() / RESOLUTION
    j = session.command_names(seg).index("joint_2")
    assert session.command(seg)[j] == pytest.approx(expected_u, abs=1e-15)
    for dt in (0.016, 0.021, 0.0167):
        driving.transport.tick(dt)
        state = node.advance(state, session.command(seg), dt)
        np.testing.assert_allclose(session.joint_positions(seg), state.joint_positions, rtol=0, atol=1e-12)
        np.testing.assert_allclose(session.segment(seg).world_X_frame, state.frame_poses, rtol=0, atol=1e-12)
    q = session.joint_positions(seg)[art.joint_index("joint_2")]
    assert (abs(q - expected_u) > 1e-3) == (tau > 0)  # it lags only with a servo time constant
    # the keyboard: PageUp moves the focused slider by a twentieth of its range
    row.slider.setFocus()
    before = row.slider.value()
    qtbot.keyClick(row.slider, Qt.Key_PageUp)
    assert row.slider.value() == min(before + RESOLUTION // 20, RESOLUTION)
    assert session.command(seg)[j] == pytest.approx(row.lower + (row.upper - row.lower) * row.slider.value()
                                                    / RESOLUTION, abs=1e-15)
    driving.transport.tick(0.02)
    state = node.advance(state, session.command(seg), 0.02)
    np.testing.assert_allclose(session.joint_positions(seg), state.joint_positions, rtol=0, atol=1e-12)
    shown = f"{np.degrees(state.joint_positions[art.joint_index('joint_2')]):.1f}"
    qtbot.waitUntil(lambda: row.state_label.text() == shown, timeout=5000)  # pose events come in a later turn


def test_teleport_places_the_arm_and_the_motor_on_it_follows(window, qtbot):
    driving = open_ready(window, DEMO / "demo.rig.json", qtbot)
    session, sliders = window.session, driving.sliders
    sliders.teleport.click()
    flange = session.frame_world_pose("arm", "tool0")
    click_at(qtbot, sliders.row("arm", "joint_1").slider, 0.9)
    j1 = session.segment("arm").articulation.joint_index("joint_1")
    assert session.joint_positions("arm")[j1] == session.command("arm")[0]  # no lag
    moved = session.frame_world_pose("arm", "tool0")
    assert not np.allclose(moved, flange)
    np.testing.assert_allclose(session.frame_world_pose("motor", "stator"), moved, atol=1e-12)


def test_units_filter_continuous_rows_and_reset(window, qtbot):
    driving = open_ready(window, DEMO / "demo.rig.json", qtbot)
    session, sliders = window.session, driving.sliders
    assert [(r.segment, r.joint) for r in sliders.rows] == [("arm", f"joint_{i}") for i in range(1, 7)] + \
        [("motor", "shaft")]
    j6 = sliders.row("arm", "joint_6")
    assert j6.wraps and j6.label.text().endswith("⟳") and (j6.lower, j6.upper) == (-np.pi, np.pi)
    j2 = sliders.row("arm", "joint_2")
    assert j2.spin.suffix() == "°"  # its box takes values beyond the limits (they command the limit)
    qtbot.mouseClick(sliders.units, Qt.LeftButton)
    assert j2.spin.suffix() == " rad"
    assert j2.spin.value() == pytest.approx(session.command("arm")[1], abs=1e-3)
    qtbot.keyClicks(sliders.filter, "shaft")
    assert [r.joint for r in sliders.rows if not r.slider.isHidden()] == ["shaft"]
    assert sliders.groups["arm"].isHidden() and not sliders.groups["motor"].isHidden()
    sliders.filter.clear()
    assert all(not r.slider.isHidden() for r in sliders.rows)
    j2.spin.setFocus()
    j2.spin.selectAll()
    qtbot.keyClicks(j2.spin, "1.5")
    qtbot.keyClick(j2.spin, Qt.Key_Return)
    assert session.command("arm")[1] == pytest.approx(1.5)
    qtbot.mouseClick(sliders.reset, Qt.LeftButton)
    assert session.command("arm")[1] == pytest.approx(-0.4)  # the rig's initial position


def test_a_value_typed_in_either_angle_unit_commands_that_angle(window, qtbot):
    driving = open_ready(window, DEMO / "demo.rig.json", qtbot)
    session, sliders = window.session, driving.sliders
    j2 = sliders.row("arm", "joint_2")
    for unit, typed, radians in (("°", "30", 30 * np.pi / 180), (" rad", "-0.25", -0.25),
                                 ("°", "-12.5", -12.5 * np.pi / 180)):
        if j2.spin.suffix() != unit:
            qtbot.mouseClick(sliders.units, Qt.LeftButton)
        assert j2.spin.suffix() == unit
        j2.spin.setFocus()
        j2.spin.selectAll()
        qtbot.keyClicks(j2.spin, typed)
        qtbot.keyClick(j2.spin, Qt.Key_Return)
        assert session.command("arm")[1] == pytest.approx(radians, abs=1e-12)
        qtbot.mouseClick(sliders.units, Qt.LeftButton)  # the other unit shows the same angle
        shown = radians if unit == "°" else np.degrees(radians)
        assert j2.spin.value() == pytest.approx(shown, abs=0.051)


def test_the_servo_time_constant_is_an_edit_undone_from_the_menu(window, qtbot):
    driving = open_ready(window, DEMO / "demo.rig.json", qtbot)
    session = window.session
    servo = driving.sliders.servo["arm"]
    servo.setFocus()
    qtbot.keyClick(servo, Qt.Key_Up)
    assert session.rig.chain["arm"].servo_time_constant == pytest.approx(0.06)
    window.undo_actions.undo.trigger()
    assert session.rig.chain["arm"].servo_time_constant == pytest.approx(0.05)
    assert servo.value() == pytest.approx(0.05)


def test_pr2_has_a_row_per_commanded_joint_and_none_for_mimic_followers(window, qtbot, robot_file):
    driving = open_ready(window, robot_file("pr2"), qtbot)
    session = window.session
    seg = next(iter(session.segments))
    art = session.segment(seg).articulation
    rows = [r.joint for r in driving.sliders.rows]
    assert rows == list(session.command_names(seg))
    followers = [art.joint_names[i] for i in np.flatnonzero(art.is_mimic)]
    assert followers and not set(followers) & set(rows)


def test_space_plays_and_pauses_and_the_sliders_show_the_played_commands(window, qtbot):
    driving = open_ready(window, DEMO / "demo.rig.json", qtbot)
    assert driving.player.open_file(str(DEMO / "chain.csv"))
    t, player = driving.transport, driving.transport.player
    driving.clock.start()
    qtbot.keyClick(window, Qt.Key_Space)
    assert player.playing
    qtbot.waitUntil(lambda: player.row > 60, timeout=10_000)
    qtbot.keyClick(window, Qt.Key_Space)
    assert not player.playing and t.mode == "player"  # no slider fed back into the player
    row = player.row
    qtbot.wait(100)
    assert player.row == row
    commands = player.commands(row)
    for r in driving.sliders.rows:
        u = commands[r.segment][window.session.command_names(r.segment).index(r.joint)]
        assert r.command == u
        assert r.spin.value() == pytest.approx(np.degrees(u), abs=0.051)
    assert driving.player.timeline.value() == row


def test_dragging_the_timeline_shows_exactly_that_row(window, qtbot):
    driving = open_ready(window, DEMO / "demo.rig.json", qtbot)
    session = window.session
    session.set_layer_visible("frames", True)
    assert driving.player.open_file(str(DEMO / "chain.csv"))
    player, timeline = driving.transport.player, driving.player.timeline
    for fraction in (0.73, 0.2, 0.95):
        click_at(qtbot, timeline, fraction)
        n = timeline.value()
        assert player.row == n and 0 < n < player.rows - 1

        def shown(n=n) -> bool:
            for c in player.columns:
                art = session.segment(c.name).articulation
                row_poses = player.trajectory.frame_poses[n, c.frames]
                triads = window.scene.actors(c.name, "frames")
                assert len(triads) == art.nframes
                where = [art.frame_index(window.scene.item_of(a).name) for a in triads]
                pairs = zip(triads, where, strict=True)
                if not all(np.array_equal(a.user_matrix, row_poses[f]) for a, f in pairs):
                    return False
            return True

        qtbot.waitUntil(shown, timeout=5000)  # the poses reach the view in a later event-loop turn
    # the arrow keys step from the player dock
    timeline.setFocus()
    n = timeline.value()
    qtbot.keyClick(timeline, Qt.Key_Right)
    assert player.row == n + 1
    qtbot.keyClick(timeline, Qt.Key_Left)
    qtbot.keyClick(timeline, Qt.Key_Left)
    assert player.row == n - 1 and timeline.value() == n - 1


@pytest.mark.timeout(180)
def test_ten_times_on_pr2_stays_on_the_wall_clock_by_skipping_rows(window, qtbot, robot_file, tmp_path):
    driving = open_ready(window, robot_file("pr2"), qtbot)
    session = window.session
    seg = next(iter(session.segments))
    names = session.command_names(seg)[:16]
    t = np.arange(3001) * 0.01
    q = 0.5 * np.sin(t[:, None] * (0.5 + 0.1 * np.arange(len(names))))
    path = tmp_path / "pr2.npz"
    np.savez(path, time=t, joint_positions=q, joint_names=np.array(names))
    assert driving.player.open_file(str(path))
    player = driving.transport.player
    speed = driving.player.speed
    speed.setFocus()
    speed.selectAll()
    qtbot.keyClicks(speed, "10")
    qtbot.keyClick(speed, Qt.Key_Return)
    assert player.rate == 10.0
    seen = []
    driving.transport.playhead_changed.connect(lambda row: seen.append((time.perf_counter(), row)))
    renders = window.scene.render_count
    driving.clock.start()
    qtbot.keyClick(window, Qt.Key_Space)
    wall0, p0 = player._anchor
    qtbot.waitUntil(lambda: not player.playing, timeout=20_000)  # 30 s of trajectory at 10×: 3 s
    elapsed = time.perf_counter() - wall0
    shown_frames = window.scene.render_count - renders
    assert elapsed < 3.0 + 0.5  # stayed on the wall clock: no queue of frames behind it
    assert seen[-1][1] == player.rows - 1
    moving = [(wall, row) for wall, row in seen if row < player.rows - 1]
    # rows were shown on the way, not only the last (how many depends on the machine's load: PR2's frame
    # takes 0.1–0.3 s on two busy software-GL cores)
    assert len(moving) >= 3
    # each row shown is the row of its moment: typically to a row and the few ms from choosing it to the
    # signal's listener, never more than a quarter second of wall time behind (one slow frame on a loaded
    # machine); a player that queued frames instead of skipping rows would be seconds behind by the end
    gaps = np.array([abs(row * player.dt - (p0 + 10 * (wall - wall0))) for wall, row in moving])
    assert np.median(gaps) <= player.dt + 10 * 0.020, gaps
    assert gaps.max() <= 10 * 0.25, gaps
    assert player.dropped > 10 * player.shown  # 1000 rows a second, far more than frames
    assert player.shown + player.dropped == player.rows - 1
    assert 0 < shown_frames <= player.shown + 5


def test_record_save_and_play_back_the_recording(window, qtbot, tmp_path):
    driving = open_ready(window, DEMO / "demo.rig.json", qtbot)
    session, dock = window.session, driving.player
    driving.clock.start()
    qtbot.keyClick(window, Qt.Key_R, Qt.ControlModifier)
    assert driving.transport.recording is not None and dock.record_button.isChecked()
    row = driving.sliders.row("arm", "joint_1")
    for k, fraction in enumerate((0.8, 0.3, 0.6), start=1):
        click_at(qtbot, row.slider, fraction)
        qtbot.waitUntil(lambda k=k: driving.transport.recording.samples > 12 * k, timeout=10_000)
    qtbot.mouseClick(dock.record_button, Qt.LeftButton)
    states = {n: session.joint_positions(n) for n in session.segments}
    rec = driving.transport.last_recording
    assert driving.transport.recording is None and rec.samples > 30
    assert dock.save_recording_button.isEnabled() and dock.recording_button.isEnabled()
    path = tmp_path / "take.csv"
    assert dock.save_recording(str(path))
    assert dock.open_file(str(path))
    player = driving.transport.player
    assert player.rows == rec.samples
    last = player.states(player.rows - 1)
    for name, q in states.items():
        np.testing.assert_allclose(last[name].joint_positions, q, rtol=0, atol=1e-12)
    assert dock.play_recording() and driving.transport.player.rows == rec.samples
    qtbot.waitUntil(lambda: dock.source.text().startswith("the recording: "), timeout=3000)


def test_record_on_a_rig_of_no_segment_says_there_is_nothing_to_record(window, qtbot, tmp_path):
    path = tmp_path / "empty.rig.json"
    path.write_text('{"format": "mime-rig", "version": 1, "name": "empty", "chain": []}')
    driving = open_ready(window, path, qtbot)
    dock = driving.player
    qtbot.keyClick(window, Qt.Key_R, Qt.ControlModifier)  # as a user starts a recording
    assert driving.transport.recording is None and not dock.record_button.isChecked()
    assert "player.record-nothing" in dock.error_box.text()
    dock.error_box.close()
    qtbot.mouseClick(dock.record_button, Qt.LeftButton)  # and again, from the button
    assert driving.transport.recording is None and not dock.record_button.isChecked()
    assert "add a segment with a movable joint" in dock.error_box.text()


def test_live_plots_hold_bounded_buffers_and_follow_the_selection(window, qtbot, monkeypatch):
    driving = open_ready(window, DEMO / "demo.rig.json", qtbot)
    session, plots = window.session, driving.plots
    monkeypatch.setattr(plots_module, "LIVE_SAMPLES", 64)  # a sample per event-loop turn: fill it soon
    plots.set_joints([("arm", "joint_1"), ("arm", "joint_3")])
    from mime_gui.session import ItemRef

    session.select(ItemRef("arm", "frame", "link_4"))
    assert plots.frame_box.currentText() == "arm.link_4"
    for i in range(100):
        session.set_command("arm", {"joint_1": 0.5 * np.sin(i * 0.05), "joint_3": 0.4})
        driving.transport.tick(0.01)
        qtbot.wait(1)
    ring = plots._samples
    pose = session.frame_world_pose("arm", "link_4")
    last = np.degrees(session.joint_positions("arm")[0])
    # every sample in and drawn: the last one on the curve and in the readout
    qtbot.waitUntil(lambda: ring.count >= 100 and plots.redraws > 0 and f"x {pose[0, 3]:+.4f}" in
                    plots.readout.text()
                    and plots.curves[1].getOriginalDataset()[1][-1] == pytest.approx(last), timeout=10_000)
    assert len(ring.t) == 64 and ring.values.shape == (64, 2 * 2 + 6)
    t, values = ring.arrays()
    assert np.all(np.diff(t) > 0)  # in time order after wrapping
    x, y = plots.curves[1].getOriginalDataset()  # joint_1's position
    assert len(x) <= 64 and x[-1] == 0.0
    assert y[-1] == pytest.approx(np.degrees(session.joint_positions("arm")[0]))  # in the sliders' unit


def test_plots_show_the_whole_trajectory_with_the_playhead(window, qtbot):
    driving = open_ready(window, DEMO / "demo.rig.json", qtbot)
    plots = driving.plots
    plots.set_joints([("motor", "shaft")])
    assert driving.player.open_file(str(DEMO / "chain.csv"))
    player = driving.transport.player
    driving.transport.seek(120)
    x, command = plots.curves[0].getOriginalDataset()
    _, position = plots.curves[1].getOriginalDataset()
    assert len(x) == player.rows
    c = player.segment("motor")
    # in degrees, as the sliders show angles
    np.testing.assert_allclose(command, np.degrees(player.schedule.commands[:, c.commands][:, 0]), rtol=1e-14)
    np.testing.assert_allclose(position, np.degrees(player.trajectory.joint_positions[:, c.joints][:, 0]),
                               rtol=1e-14)
    assert all(line.value() == pytest.approx(player.times[120] - player.schedule.start)
               for line in plots.playheads)


def test_a_moving_playhead_does_not_draw_the_trajectory_again_but_live_curves_are_drawn(window, qtbot,
                                                                                       monkeypatch):
    import pyqtgraph as pg

    painted, lines = [], []
    paint = pg.PlotCurveItem.paint
    monkeypatch.setattr(pg.PlotCurveItem, "paint", lambda self, *a: (painted.append(self), paint(self, *a)))
    paint_line = pg.InfiniteLine.paint
    monkeypatch.setattr(pg.InfiniteLine, "paint", lambda self, *a: (lines.append(self), paint_line(self, *a)))
    driving = open_ready(window, DEMO / "demo.rig.json", qtbot)
    plots = driving.plots
    plots.raise_()
    qtbot.waitUntil(lambda: plots.joint_plot.isVisible(), timeout=5000)
    assert driving.player.open_file(str(DEMO / "chain.csv"))
    qtbot.waitUntil(lambda: len(painted) > 0, timeout=5000)  # drawn once
    for _ in range(50):  # until the first drawing's late paints (a resize, a layout pass) are over
        count = len(painted)
        qtbot.wait(100)
        if len(painted) == count:
            break
    painted.clear()
    player = driving.transport.player
    for row in (40, 80, 120, 160):
        lines.clear()
        driving.transport.seek(row)
        assert plots.playheads[0].value() == pytest.approx(player.times[row] - player.schedule.start)
        # the moved playhead is drawn, and in that same paint no curve is
        qtbot.waitUntil(lambda: plots.playheads[0] in lines, timeout=5000)
        QApplication.processEvents()
    assert painted == []  # the playhead moved over the curves kept as they were drawn
    driving.transport.unload()  # live: the curves change on every redraw and are drawn each time
    for i in range(3):
        painted.clear()
        window.session.set_command("arm", {"joint_1": 0.2 * i})
        driving.transport.tick(0.01)
        qtbot.waitUntil(lambda: len(painted) > 0, timeout=5000)


def test_the_trajectory_exports_as_the_command_line_writes_it(window, qtbot, tmp_path):
    driving = open_ready(window, DEMO / "demo.rig.json", qtbot)
    assert driving.player.open_file(str(DEMO / "chain.csv"))
    path = tmp_path / "out.npz"
    assert driving.player.export_npz(str(path))
    arrays = driving.transport.player.arrays()
    with np.load(path) as data:
        assert sorted(data.files) == sorted(arrays)
        for key, value in arrays.items():
            assert np.array_equal(data[key], value), key
    assert not driving.player.export_npz(str(tmp_path / "out.csv"))
    assert driving.player.error_box is not None and "player.out" in driving.player.error_box.text()
    driving.player.error_box.close()


@pytest.mark.parametrize("suffix", [".mp4", ".gif", ".png"])
def test_a_video_of_the_view_has_a_frame_per_step_of_the_player(window, qtbot, tmp_path, suffix):
    driving = open_ready(window, DEMO / "demo.rig.json", qtbot)
    assert driving.player.open_file(str(DEMO / "chain.csv"))
    player = driving.transport.player
    player.set_rate(4.0)  # 4.02 s at 4× and 30 frames a second: 31 frames
    driving.transport.seek(77)
    files = driving.export_video(str(tmp_path / f"take{suffix}"))
    assert player.row == 77 and driving.transport.mode == "player"
    if suffix == ".png":
        assert len(files) == 31 and all(f.is_file() for f in files)
    elif suffix == ".gif":
        from PIL import Image

        with Image.open(files[0]) as gif:
            assert gif.n_frames == 31
    else:
        import imageio_ffmpeg

        assert imageio_ffmpeg.count_frames_and_secs(str(files[0]))[0] == 31
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_a_cancelled_video_leaves_nothing(window, qtbot, tmp_path):
    driving = open_ready(window, DEMO / "demo.rig.json", qtbot)
    assert driving.player.open_file(str(DEMO / "chain.csv"))

    def cancel():
        dialog = driving.video_dialog
        if dialog is None or dialog.value() < 3:
            QTimer.singleShot(20, cancel)
            return
        button = dialog.findChild(QPushButton)
        qtbot.mouseClick(button, Qt.LeftButton)

    QTimer.singleShot(20, cancel)
    out = tmp_path / "video"
    out.mkdir()
    files = driving.export_video(str(out / "take.mp4"))
    assert files == [] and list(out.iterdir()) == []


def test_a_refused_command_file_shows_its_code_and_keeps_what_was_loaded(window, qtbot, tmp_path):
    driving = open_ready(window, DEMO / "demo.rig.json", qtbot)
    assert driving.player.open_file(str(DEMO / "chain.csv"))
    loaded = driving.transport.player
    bad = tmp_path / "bad.csv"
    bad.write_text("time,arm.joint_1,arm.no_such_joint\n0,0,0\n")
    assert not driving.player.open_file(str(bad))
    assert driving.transport.player is loaded
    text = driving.player.error_box.text()
    assert text.startswith("error[commands.unknown-joint]") and "bad.csv:1" in text
    driving.player.error_box.close()


def test_a_part_added_joins_the_frames_to_plot_and_the_choices_stay(window, qtbot):
    from mime_gui.rig import Box, Part
    from mime_gui.session import AddItem

    driving = open_ready(window, DEMO / "demo.rig.json", qtbot)
    plots = driving.plots
    plots.set_joints([("arm", "joint_3")])
    plots.set_frame("arm", "link_2")
    window.session.apply(AddItem("parts", "bracket", Part(Box((0.02, 0.02, 0.01)), material="aluminium",
                                                          mount="arm.link_3")))
    frames = [plots.frame_box.itemText(i) for i in range(plots.frame_box.count())]
    assert "arm.part:bracket" in frames
    assert plots.checked_joints() == [("arm", "joint_3")]
    assert plots.frame_box.currentText() == "arm.link_2"
