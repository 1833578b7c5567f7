"""The torques dock: the played trajectory's joint torques with the effort limit, excesses in Validation."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDockWidget
from test_driving import DEMO, open_ready

from mime_gui.app.docks.fields import on_screen


def test_the_torques_of_a_played_file_with_their_limits_and_excesses(window, qtbot):
    driving = open_ready(window, DEMO / "demo.rig.json", qtbot)
    dock = window.findChild(QDockWidget, "TorquesDock")
    assert dock is window.torques_dock
    # a tab behind the plots, with the joints' demand, the poses, the measures, the trajectories and finding
    # poses for a field
    tabs = [dock, window.demand_dock, window.driving.poses, window.docks["MeasuresDock"],
            window.docks["TrajectoryDock"], window.docks["PlannerDock"]]
    assert window.tabifiedDockWidgets(window.driving.plots) == tabs
    assert dock.joint.count() == 7 and dock.summary.text().startswith("Live")  # live driving's, until a file
    assert driving.player.open_file(str(DEMO / "wave.csv"))
    player = driving.transport.player
    torques = player.torques()
    assert dock.joint.count() == 7 and dock.joint.itemText(6) == "motor.shaft"
    x, y = dock.curve_data()
    np.testing.assert_array_equal(y, torques.joint_torques[:, 0])
    np.testing.assert_allclose(x, player.times - player.schedule.start)
    assert [line.value() for line in dock.limits] == [150.0, -150.0]
    assert all(line.isVisible() for line in dock.limits)
    assert dock.plot.getAxis("left").labelText == "torque (N·m)"  # the joint's name is in the list above
    dock.joint.setCurrentIndex(1)  # arm.joint_2 exceeds its effort limit at the start
    marked = dock.marks.getData()[1]
    assert len(marked) and np.all(np.abs(marked) > 150.0)
    dock.joint.setCurrentIndex(6)  # the motor's shaft has no effort limit
    assert not any(line.isVisible() for line in dock.limits)
    # every excess is listed in the Validation dock, under its own group
    rows = window.assembly.validation.rows()
    listed = [r for r in rows if r[0] in ("torque.effort", "torque.velocity")]
    assert len(listed) == len(torques.excesses) > 0
    assert listed[0][1].startswith(torques.excesses[0].joint)
    dock.raise_()  # the playhead moves while the dock is shown
    qtbot.waitUntil(lambda: on_screen(dock), timeout=5000)
    driving.transport.seek(100)
    assert dock.playhead.value() == player.times[100] - player.schedule.start
    driving.transport.seek(120)
    assert dock.playhead.value() == player.times[120] - player.schedule.start
    # unloading the file clears them: live driving's torques again
    driving.transport.unload()
    assert dock.summary.text().startswith("Live")
    assert not [r for r in window.assembly.validation.rows() if r[0].startswith("torque.")]


def test_the_playhead_moves_over_the_played_torques_without_drawing_them_again(window, qtbot, monkeypatch):
    import pyqtgraph as pg

    painted = []
    paint = pg.PlotCurveItem.paint
    monkeypatch.setattr(pg.PlotCurveItem, "paint", lambda self, *a: (painted.append(self), paint(self, *a)))
    driving = open_ready(window, DEMO / "demo.rig.json", qtbot)
    dock = window.torques_dock
    dock.raise_()
    qtbot.waitUntil(lambda: on_screen(dock), timeout=5000)
    assert driving.player.open_file(str(DEMO / "wave.csv"))
    qtbot.waitUntil(lambda: dock.curve.curve in painted, timeout=5000)
    qtbot.wait(50)
    painted.clear()
    player = driving.transport.player
    for row in (50, 100, 150):
        driving.transport.seek(row)
        qtbot.wait(30)
        assert dock.playhead.value() == player.times[row] - player.schedule.start
    assert dock.curve.curve not in painted
    dock.joint.setCurrentIndex(1)  # another joint's curve: drawn
    qtbot.waitUntil(lambda: dock.curve.curve in painted, timeout=5000)


def steps_drawn_while_hidden(dock, driving, qtbot) -> int:
    """Five live steps once the dock is off screen: none is drawn. Returns the redraw count."""
    qtbot.waitUntil(lambda: not on_screen(dock), timeout=5000)
    drawn = dock.live_redraws
    for _ in range(5):
        driving.transport.tick(0.01)
        qtbot.wait(10)
    qtbot.wait(50)
    assert dock.live_redraws == drawn
    return drawn


def test_live_driving_shows_its_torques_scrolling_with_the_limits_and_excesses(window, qtbot):
    driving = open_ready(window, DEMO / "demo.rig.json", qtbot)
    dock = window.torques_dock
    live = driving.transport.live_torques
    dock.raise_()
    qtbot.waitUntil(lambda: on_screen(dock), timeout=5000)
    dock.joint.setCurrentIndex(1)  # arm.joint_2
    for _ in range(5):
        driving.transport.tick(0.01)
    drawn = dock.live_redraws
    qtbot.waitUntil(lambda: dock.live_redraws > drawn, timeout=5000)
    assert dock.live_redraws == drawn + 1  # five steps, one redraw
    data = live.data()
    x, y = dock.curve_data()
    np.testing.assert_array_equal(y, data.joint_torques[:, 1])
    np.testing.assert_allclose(x, data.time - live.time)
    assert [line.value() for line in dock.limits] == [150.0, -150.0]
    # the summary is looked at a few times a second; a look that came too soon is taken when it is due
    qtbot.waitUntil(lambda: "✓" in dock.summary.text(), timeout=2000)
    # a jump of the command: the servo's first step asks more than the effort limit
    driving.sliders.row("arm", "joint_2").spin.setValue(40.0)
    driving.transport.tick(0.01)
    dock.refresh_live(force=True)
    marked = dock.marks.getData()[1]
    assert len(marked) and np.all(np.abs(marked) > 150.0)
    assert "excess" in dock.summary.text()
    rows = [r for r in window.assembly.validation.rows() if r[0] == "torque.effort"]
    assert rows and rows[0][1].startswith("arm.joint_2")
    assert any("live driving" in window.assembly.validation.tree.topLevelItem(i).text(0)
               for i in range(window.assembly.validation.tree.topLevelItemCount()))
    # closed: no plot is drawn per step
    dock.close()
    drawn = steps_drawn_while_hidden(dock, driving, qtbot)
    dock.show()  # drawn again when shown
    dock.raise_()
    qtbot.waitUntil(lambda: dock.live_redraws > drawn, timeout=5000)


def test_a_look_at_the_excesses_skipped_for_being_too_soon_is_taken_when_due(window, qtbot):
    import time

    from mime_gui.app.docks import torques

    driving = open_ready(window, DEMO / "demo.rig.json", qtbot)
    dock = window.torques_dock
    driving.transport.tick(0.01)
    dock.refresh_live(force=True)
    assert "✓" in dock.summary.text()
    dock._live_checked = time.monotonic()  # just looked: the next step comes too soon
    driving.sliders.row("arm", "joint_2").spin.setValue(40.0)  # a jump: more than the effort limit
    driving.transport.tick(0.01)
    dock.refresh_live()
    assert "✓" in dock.summary.text()  # not yet due
    assert dock._check_later.isActive()
    # no further step comes, yet the summary catches up within one period
    qtbot.waitUntil(lambda: "excess" in dock.summary.text(), timeout=int(3000 / torques.EXCESS_CHECK))


def test_a_kinematic_robot_has_no_live_torques(window, qtbot):
    open_ready(window, DEMO / "arm.urdf", qtbot)
    dock = window.torques_dock
    window.driving.transport.tick(0.01)
    dock.refresh_live(force=True)
    assert dock.joint.count() == 0 and "No dynamic segment" in dock.summary.text()


def test_a_dynamic_rig_loads_the_compiled_dynamics_on_a_thread_and_a_robot_alone_does_not(window, qtbot,
                                                                                         monkeypatch):
    import threading

    from mime_gui.app.driving import Driving
    from mime_gui.multibody import compiled

    monkeypatch.setattr(compiled, "_ready", threading.Event())
    monkeypatch.setattr(compiled, "_thread", None)
    monkeypatch.setattr(Driving, "COMPILED_DELAY", 0.05)
    open_ready(window, DEMO / "arm.urdf", qtbot)  # kinematic: nothing to load
    qtbot.wait(300)
    assert compiled._thread is None and not compiled.ready()
    open_ready(window, DEMO / "demo.rig.json", qtbot)  # a dynamic arm: loaded once the window has drawn
    window.driving.transport.tick(0.01)  # on numpy, or compiled if the thread was quick
    qtbot.waitUntil(compiled.ready, timeout=120_000)
    window.driving.transport.tick(0.01)
    assert window.driving.transport.live_torques.last() is not None


def test_the_chosen_joint_demand_is_read_under_the_plot_and_each_joint_in_its_tooltip(window, qtbot):
    from PySide6.QtCore import Qt

    driving = open_ready(window, DEMO / "demo.rig.json", qtbot)
    dock = window.torques_dock
    assert driving.player.open_file(str(DEMO / "wave.csv"))
    torques = driving.transport.player.torques()
    found = torques.demands()
    tips = [dock.joint.itemData(i, Qt.ToolTipRole) for i in range(dock.joint.count())]
    assert tips == [str(d) for d in found]
    dock.joint.setCurrentIndex(1)  # arm.joint_2, over its effort limit at its peak
    j2 = found[1]
    assert dock.readout.text().startswith(f"peak {j2.peak:.4g} N·m at ")
    assert f"({100 * j2.effort_share:.0f} %)" in dock.readout.text() and j2.effort_share > 1
    assert dock.readout.toolTip() == str(j2)
    shares = [d.effort_share for d in found]
    most = found[int(np.nanargmax(shares))]
    said = f"Most loaded: {most.joint}, {100 * most.effort_share:.0f} % of its effort limit."
    assert said in dock.summary.text()
    dock.joint.setCurrentIndex(6)  # the motor's shaft: no limits, no shares
    assert "%" not in dock.readout.text() and dock.readout.text().startswith("peak ")
    # live driving: the chosen joint's demand over the window kept
    driving.transport.unload()
    dock.raise_()
    qtbot.waitUntil(lambda: on_screen(dock), timeout=5000)
    dock.joint.setCurrentIndex(1)
    for _ in range(5):
        driving.transport.tick(0.01)
    dock.refresh_live(force=True)
    data = driving.transport.live_torques.data()
    peak = np.abs(data.joint_torques[:, 1]).max()
    assert dock.readout.text().startswith(f"last 10 s: peak {peak:.4g} N·m at ")


def test_the_demand_dock_lists_every_joint_s_demand_red_over_a_limit_and_a_click_shows_its_torques(window,
                                                                                                   qtbot):
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from mime_gui.app.docks.demand import demand_cells
    from mime_gui.app.docks.look import BAD

    driving = open_ready(window, DEMO / "demo.rig.json", qtbot)
    demand = window.demand_dock
    assert demand.objectName() == "MotorDemandDock"
    qtbot.waitUntil(lambda: not on_screen(demand), timeout=5000)  # tabbed behind the plots
    assert driving.player.open_file(str(DEMO / "chain.csv"))
    fills = demand.fills
    assert driving.player.open_file(str(DEMO / "wave.csv"))  # behind another tab: its rows wait
    assert demand.fills == fills
    demand.raise_()
    qtbot.waitUntil(lambda: on_screen(demand), timeout=5000)
    assert demand.fills == fills + 1
    player = driving.transport.player
    found = player.torques().demands()
    assert demand.rows() == [demand_cells(d, player.schedule.start) for d in found]
    assert demand.line.text().startswith("Along the loaded commands (wave.csv)")
    over = [i for i, d in enumerate(found) if d.effort_share > 1 or d.velocity_share > 1]
    assert over, [str(d) for d in found]
    for i, d in enumerate(found):
        row = demand.tree.topLevelItem(i)
        assert (row.foreground(2).color() == BAD) == (d.effort_share > 1)
        assert (row.foreground(6).color() == BAD) == (d.velocity_share > 1)
    # a click on a row shows that joint's torques
    row = demand.tree.topLevelItem(over[0])
    QTest.mouseClick(demand.tree.viewport(), Qt.LeftButton, Qt.NoModifier,
                     demand.tree.visualItemRect(row).center())
    torques = window.torques_dock
    qtbot.waitUntil(lambda: on_screen(torques), timeout=5000)
    assert torques.joint.currentText() == found[over[0]].joint
    np.testing.assert_array_equal(torques.curve_data()[1], player.torques().joint_torques[:, over[0]])
    # live driving: the last seconds' demand
    driving.transport.unload()
    demand.raise_()
    qtbot.waitUntil(lambda: on_screen(demand), timeout=5000)
    for _ in range(5):
        driving.transport.tick(0.01)
    torques.refresh_live(force=True)
    qtbot.waitUntil(lambda: demand.line.text().startswith("Live"), timeout=3000)
    live = driving.transport.live_torques.data()
    peaks = [float(r[1].split()[0]) for r in demand.rows()]
    np.testing.assert_allclose(peaks, np.abs(live.joint_torques).max(axis=0), rtol=1e-3)


def test_behind_another_tab_the_torques_dock_does_no_work_per_frame(window, qtbot):
    """Its playhead waits while the plots are in front, and catches up when it is shown; live steps are not
    drawn behind the tab."""
    driving = open_ready(window, DEMO / "demo.rig.json", qtbot)
    dock = window.torques_dock
    qtbot.waitUntil(lambda: not on_screen(dock), timeout=5000)  # tabbed behind the plots
    assert driving.player.open_file(str(DEMO / "wave.csv"))
    player = driving.transport.player
    start = dock.playhead.value()
    for row in (50, 100, 150):
        driving.transport.seek(row)
    assert dock.playhead.value() == start
    dock.raise_()
    qtbot.waitUntil(lambda: dock.playhead.value() == player.times[150] - player.schedule.start, timeout=5000)
    driving.transport.unload()
    window.driving.plots.raise_()
    steps_drawn_while_hidden(dock, driving, qtbot)


def test_panda_carrying_a_spinning_motor_shows_its_demand_and_the_wrist_holds_the_rotor(window, qtbot,
                                                                                       robot_file, tmp_path):
    """A real robot through the window: Panda as a dynamic arm with a motor on its flange; a command file
    spins the rotor up with the arm still, the Demand tab lists all Panda's joints and the motor, and the
    wrist (panda_joint7, about the flange's z, the motor's axis) needs the rotor's reaction."""
    from mime_gui.rig import Apparatus, Arm, Motor, kg_m2, save

    rig = Apparatus("panda-motor", chain={
        "arm": Arm.Dynamic(description=str(robot_file("panda")),
                           initial_positions={"panda_joint4": -1.5, "panda_joint6": 1.5}),
        "motor": Motor.Dynamic(axis=(0, 0, 1), inertia=kg_m2(2e-3, reason="a test figure"),
                               mount="arm.panda_link8")})
    path = save(rig, tmp_path / "panda.rig.json")
    commands = tmp_path / "spin.csv"
    commands.write_text("time,motor.shaft\n" + "".join(f"{t / 100:g},{0.5 * 40 * (t / 100) ** 2:g}\n"
                                                        for t in range(101)))
    driving = open_ready(window, path, qtbot)
    assert driving.player.open_file(str(commands))
    demand = window.demand_dock
    demand.raise_()
    qtbot.waitUntil(lambda: on_screen(demand) and bool(demand.rows()), timeout=5000)
    torques = driving.transport.player.torques()
    names = [r[0] for r in demand.rows()]
    assert names == list(torques.joint_names) and names[-1] == "motor.shaft"
    assert sum(n.startswith("arm.panda_") for n in names) == 9  # seven joints and two fingers
    # the rotor's acceleration, 40 rad/s² × 2e-3 kg·m², held by the wrist too (its axis is the shaft's)
    wrist = names.index("arm.panda_joint7")
    shaft = names.index("motor.shaft")
    middle = slice(20, 80)  # past the servo's start, before the file's end
    np.testing.assert_allclose(torques.joint_torques[middle, shaft], 40 * 2e-3, rtol=0.05)
    built = window.session.document.built
    at_rest = built.torques(built.play(np.tile(built.initial_commands(), (3, 1)), 0.01)).joint_torques[-1]
    reaction = torques.joint_torques[middle, wrist] - at_rest[wrist]
    assert np.abs(np.median(reaction)) == pytest.approx(40 * 2e-3, rel=0.05)
    row = demand.tree.topLevelItem(shaft)
    QTest.mouseClick(demand.tree.viewport(), Qt.LeftButton, Qt.NoModifier,
                     demand.tree.visualItemRect(row).center())
    assert window.torques_dock.joint.currentText() == "motor.shaft"


def test_a_demand_row_reads_in_percent_of_the_limit_and_seconds_from_the_commands_start():
    import math

    from mime_gui.app.docks.demand import demand_cells
    from mime_gui.rig.limits import Demand

    # by hand: 12.5 N·m of a 10 N·m limit is 125 %; the peak at 3.5 s of commands from 1 s is 2.5 s in; a
    # speed below the noise floor reads 0
    d = Demand(joint="arm.j1", peak=12.5, peak_time=3.5, rms=4.0, effort_limit=10.0, speed=1e-12,
               velocity_limit=2.0, unit="N·m", velocity_unit="rad/s")
    assert demand_cells(d, 1.0) == ["arm.j1", "12.5 N·m", "125 %", "2.5 s", "4 N·m", "0 rad/s", "0 %"]
    free = Demand(joint="arm.j2", peak=0.5, peak_time=0.25, rms=0.5, effort_limit=math.inf, speed=3.0,
                  velocity_limit=0.0, unit="N", velocity_unit="m/s")
    assert demand_cells(free) == ["arm.j2", "0.5 N", "no limit", "0.25 s", "0.5 N", "3 m/s", "no limit"]
    # a joint that never pulls (a torque below the noise floor) has no time of peak
    idle = Demand(joint="arm.j3", peak=1e-12, peak_time=0.25, rms=0.0, effort_limit=10.0, speed=1.0,
                  velocity_limit=2.0, unit="N·m", velocity_unit="rad/s")
    assert demand_cells(idle, 0.0) == ["arm.j3", "0 N·m", "0 %", "—", "0 N·m", "1 rad/s", "50 %"]
