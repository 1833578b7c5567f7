"""What a new user trips on when driving by hand, through the window on robots of example-robot-data: a value
typed beyond a joint's limit, torque rows fine enough to hold an arm and the Hold button, torques of a URDF
opened directly, mimic joints, and the Plots dock's joint names and angle unit."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton
from robot_data import robot_urdf
from test_driving import open_ready
from test_torque_sliders import choose

from mime_gui.app.docks.fields import on_screen
from mime_gui.app.docks.sliders import TorqueRow

DT = 0.01


def urdf_joint(path, name: str) -> ET.Element:
    """The URDF's own <joint> element (an independent reading of its limits and mimic)."""
    return next(j for j in ET.parse(path).getroot().iter("joint") if j.get("name") == name)


def type_into(qtbot, spin, text: str) -> None:
    spin.setFocus()
    spin.selectAll()
    qtbot.keyClicks(spin, text)
    qtbot.keyClick(spin, Qt.Key_Return)


def pinocchio_of(path, names):
    """Pinocchio's model of the URDF and a function from our joint order's q to Pinocchio's."""
    pin = pytest.importorskip("pinocchio")
    model = pin.buildModelFromUrdf(str(path))
    ids = [model.getJointId(n) for n in names]
    iq = [model.joints[i].idx_q for i in ids]
    iv = [model.joints[i].idx_v for i in ids]

    def q_of(q):
        out = pin.neutral(model)
        out[iq] = q
        return out

    return pin, model, q_of, iv


def test_a_value_typed_beyond_a_limit_commands_the_limit_and_the_row_says_so(window, qtbot, robot_file):
    path = robot_file("panda")
    driving = open_ready(window, path, qtbot)
    session, sliders = window.session, driving.sliders
    sliders.raise_()
    seg = next(iter(session.segments))
    limit = urdf_joint(path, "panda_joint1").find("limit")
    lower, upper = float(limit.get("lower")), float(limit.get("upper"))  # ±2.8973 rad, ±166.0°
    row = sliders.row(seg, "panda_joint1")
    k = session.command_names(seg).index("panda_joint1")
    type_into(qtbot, row.spin, "200")  # degrees: the box no longer drops the keystroke that crosses it
    assert session.command(seg)[k] == upper
    assert row.spin.value() == pytest.approx(math.degrees(upper), abs=0.01)
    assert row.note.isVisibleTo(sliders)
    assert row.note.full.startswith(f"clamped to {round(math.degrees(upper), 2):g}°")  # to the box's decimals
    assert "200°" in row.note.full and "beyond the upper limit" in row.note.full
    assert row.spin.toolTip() == row.note.full
    type_into(qtbot, row.spin, "-999")
    assert session.command(seg)[k] == lower
    assert "-166" in row.note.full and "beyond the lower limit" in row.note.full
    type_into(qtbot, row.spin, "30")  # within the limits: commanded as typed, the note goes
    assert session.command(seg)[k] == pytest.approx(math.radians(30))
    assert not row.note.isVisibleTo(sliders)
    # the slider's 2000 positions span lower..upper: 30° is (0.5236 + 2.8973) / 5.7946 of the way, 1181
    assert row.slider.value() == round((math.radians(30) - lower) / (upper - lower) * 2000) == 1181
    # in radians the same: 200 rad is the upper limit, said in radians
    qtbot.mouseClick(sliders.units, Qt.LeftButton)
    assert row.spin.suffix() == " rad"
    type_into(qtbot, row.spin, "200")
    assert session.command(seg)[k] == upper
    assert row.note.isVisibleTo(sliders) and row.note.full.startswith(f"clamped to {upper:.3f} rad")
    # the same value typed again is still the limit, and still said
    type_into(qtbot, row.spin, "200")
    assert session.command(seg)[k] == upper and row.spin.value() == pytest.approx(upper, abs=1e-3)
    assert row.note.isVisibleTo(sliders)
    # the slider moved: a command within the limits, the note goes
    row.slider.setFocus()
    qtbot.keyClick(row.slider, Qt.Key_PageDown)
    assert session.command(seg)[k] < upper and not row.note.isVisibleTo(sliders)


def test_hold_keeps_panda_still_with_its_gravity_torques_and_its_rows_step_finely(window, qtbot, robot_file,
                                                                                   tmp_path):
    from mime_gui.rig import Apparatus, Arm, save

    path = robot_file("panda")
    rig = Apparatus("panda-held", chain={"arm": Arm.Dynamic(
        description=str(path), initial_positions={"panda_joint2": 0.6, "panda_joint4": -1.5,
                                                  "panda_joint6": 1.5, "panda_finger_joint1": 0.02})})
    driving = open_ready(window, save(rig, tmp_path / "panda.rig.json"), qtbot)
    session, sliders, transport = window.session, driving.sliders, driving.transport
    choose(qtbot, sliders, "arm", "Torques")
    names = session.torque_names("arm")
    q = session.joint_positions("arm")
    pin, model, q_of, iv = pinocchio_of(path, names)
    data = model.createData()
    gravity = pin.computeGeneralizedGravity(model, data, q_of(q))[iv]
    inertia = np.diagonal(pin.crba(model, data, q_of(q)))[iv]
    # each row's step gives its joint alone a modest acceleration (at most 0.1 rad/s² or m/s², at least a
    # 2.5th of that: a 1-2-5 step), and its box shows a tenth of a step
    for j, name in enumerate(names):
        row = sliders.row("arm", name)
        assert isinstance(row, TorqueRow)
        step = row.spin.singleStep()
        assert 0.04 - 1e-9 <= step / inertia[j] <= 0.1 + 1e-9, name
        assert 10.0 ** -row.spin.decimals() <= step / 10
        # the slider's arrow-key step is the box's
        slider_step = (row.upper - row.lower) * row.slider.singleStep() / row.slider.maximum()
        assert slider_step == pytest.approx(step, rel=1e-6)
    # Hold: the torques of gravity at this pose, and the arm stays where it is
    qtbot.mouseClick(sliders.findChild(QPushButton, "hold:arm"), Qt.LeftButton)
    np.testing.assert_allclose(session.applied_torques("arm"), gravity, rtol=0, atol=1e-9)
    j2 = names.index("panda_joint2")
    assert sliders.row("arm", "panda_joint2").spin.value() == pytest.approx(gravity[j2], abs=1e-3)
    for _ in range(int(round(1.0 / DT))):
        transport.tick(DT)
    assert np.abs(session.joint_positions("arm") - q).max() < 1e-3
    # one step up on the wrist's box: the torque rises by its step, and the wrist starts to turn gently
    wrist = sliders.row("arm", "panda_joint7")
    j7 = names.index("panda_joint7")
    before = session.applied_torques("arm")[j7]
    wrist.spin.setFocus()
    qtbot.keyClick(wrist.spin, Qt.Key_Up)
    assert session.applied_torques("arm")[j7] == pytest.approx(before + wrist.spin.singleStep(),
                                                               abs=10.0 ** -wrist.spin.decimals())
    q7 = session.joint_positions("arm")[j7]
    for _ in range(int(round(1.0 / DT))):
        transport.tick(DT)
    turned = session.joint_positions("arm")[j7] - q7
    assert 0.0 < turned < 0.1  # ½·a·t² with a ≤ 0.1 rad/s² on the wrist alone, twice that for the coupling


def test_a_rotor_without_an_effort_limit_steps_by_what_its_inertia_takes(window, qtbot, tmp_path):
    from mime_gui.rig import Apparatus, Motor, kg_m2, save

    inertia = 3e-6  # kg·m², a small rotor: a step of 0.01 N·m would turn it at 3,300 rad/s²
    rig = Apparatus("rotor", chain={"rotor": Motor.Dynamic(axis=(0, 0, 1),
                                                           inertia=kg_m2(inertia, reason="a test figure"))})
    driving = open_ready(window, save(rig, tmp_path / "rotor.rig.json"), qtbot)
    sliders = driving.sliders
    choose(qtbot, sliders, "rotor", "Torques")
    row = sliders.row("rotor", "shaft")
    step = row.spin.singleStep()
    assert 0.04 <= step / inertia <= 0.1
    assert 10.0 ** -row.spin.decimals() <= step / 10
    type_into(qtbot, row.spin, f"{2 * step:.{row.spin.decimals()}f}")  # two steps, exactly as typed
    assert window.session.applied_torques("rotor")[0] == pytest.approx(2 * step, rel=1e-12)


def test_a_urdf_opened_directly_is_offered_to_be_treated_as_dynamic(window, qtbot, robot_file):
    path = robot_file("ur5")
    driving = open_ready(window, path, qtbot)
    session, dock = window.session, window.torques_dock
    seg = next(iter(session.segments))
    dock.raise_()
    qtbot.waitUntil(lambda: dock.summary.text().startswith("No dynamic segment"), timeout=5000)
    assert dock.offer.isVisibleTo(dock) and dock.offer.text() == f"Treat {seg} as dynamic"
    qtbot.mouseClick(dock.offer, Qt.LeftButton)
    assert session.rig.chain[seg].kind == "Arm.Dynamic" and session.can_drive_torques(seg)
    assert window.undo_actions.undo.text().replace("&", "") == f"Undo Make {seg} dynamic"
    qtbot.waitUntil(lambda: not dock.offer.isVisibleTo(dock) and dock.joint.count() == 6, timeout=5000)
    # standing still, its live torques are its gravity torques (Pinocchio on the same URDF)
    for _ in range(3):
        driving.transport.tick(DT)
    qtbot.waitUntil(lambda: dock.summary.text().startswith("Live"), timeout=5000)
    names = session.torque_names(seg)
    pin, model, q_of, iv = pinocchio_of(path, names)
    gravity = pin.computeGeneralizedGravity(model, model.createData(),
                                            q_of(session.joint_positions(seg)))[iv]
    live = driving.transport.live_torques
    assert live.joint_names == tuple(f"{seg}.{n}" for n in names)
    np.testing.assert_allclose(live.last()[0], gravity, rtol=0, atol=1e-6)
    # undone: kinematic again, and offered again
    window.undo_actions.undo.trigger()
    assert session.rig.chain[seg].kind == "Arm.Kinematic"
    qtbot.waitUntil(lambda: dock.offer.isVisibleTo(dock), timeout=5000)


def test_mimic_joints_are_counted_in_good_english_and_shown_in_their_masters_row(window, qtbot, robot_file):
    from PySide6.QtWidgets import QLabel

    path = robot_file("panda")
    driving = open_ready(window, path, qtbot)
    session, sliders = window.session, driving.sliders
    seg = next(iter(session.segments))
    note = sliders.findChild(QLabel, f"mimic:{seg}")
    assert note.text() == "1 mimic joint follows its master"
    mimic = urdf_joint(path, "panda_finger_joint2").find("mimic")
    assert mimic.get("joint") == "panda_finger_joint1"
    m, o = float(mimic.get("multiplier", 1)), float(mimic.get("offset", 0))
    sliders.teleport.setChecked(True)
    type_into(qtbot, sliders.row(seg, "panda_finger_joint1").spin, "0.031")
    line = sliders.row(seg, "panda_finger_joint1").follower_label
    assert line.isVisibleTo(sliders)
    assert line.full == f"↳ panda_finger_joint2 {m * 0.031 + o:.3f} m"
    # two followers (Baxter's grippers, one each): the plural
    open_ready(window, robot_urdf("baxter_description/urdf/baxter.urdf"), qtbot)
    seg = next(iter(session.segments))
    qtbot.waitUntil(lambda: sliders.findChild(QLabel, f"mimic:{seg}") is not None, timeout=5000)
    assert sliders.findChild(QLabel, f"mimic:{seg}").text() == "2 mimic joints follow their masters"


def test_the_plots_name_joints_plainly_and_plot_angles_in_the_sliders_unit(window, qtbot, tmp_path):
    path = robot_urdf("a1_description/urdf/a1.urdf")
    driving = open_ready(window, path, qtbot)
    session, plots, sliders = window.session, driving.plots, driving.sliders
    seg = next(iter(session.segments))
    item = plots.joint_list.item(0)
    assert item.text() == "FR_hip_joint" and item.toolTip() == f"{seg}.FR_hip_joint"
    assert all("." not in plots.joint_list.item(i).text() for i in range(plots.joint_list.count()))
    plots.set_joints([(seg, "FR_thigh_joint")])
    plots.raise_()
    qtbot.waitUntil(lambda: on_screen(plots), timeout=5000)
    type_into(qtbot, sliders.row(seg, "FR_thigh_joint").spin, "40")
    j = session.segment(seg).articulation.joint_index("FR_thigh_joint")
    for _ in range(20):
        driving.transport.tick(0.05)

    def last_position() -> float:
        _x, y = plots.curves[1].getOriginalDataset()
        return float(y[-1]) if y is not None and len(y) else math.nan

    q = session.joint_positions(seg)[j]
    assert abs(q) > 0.1
    qtbot.waitUntil(lambda: last_position() == pytest.approx(math.degrees(q)), timeout=5000)
    assert plots.joint_plot.getAxis("left").labelText in ("joints (°, m)", "q (°, m)")
    qtbot.mouseClick(sliders.units, Qt.LeftButton)  # radians in the sliders: in the plots too
    qtbot.waitUntil(lambda: last_position() == pytest.approx(q), timeout=5000)
    assert plots._labels[0] == ("joints (rad, m)", "q (rad, m)")
    # several segments: each heads its joints (a heading is not a joint to check)
    from mime_gui.rig import Apparatus, Arm, Motor, kg_m2, save

    rig = Apparatus("a1-motor", chain={
        "a1_quadruped_with_a_long_name": Arm.Kinematic(description=str(path)),
        "motor": Motor.Dynamic(axis=(0, 0, 1), inertia=kg_m2(2e-3, reason="a test figure"),
                               mount="a1_quadruped_with_a_long_name.trunk")})
    open_ready(window, save(rig, tmp_path / "a1.rig.json"), qtbot)
    texts = [plots.joint_list.item(i).text() for i in range(plots.joint_list.count())]
    assert texts[0] == "a1_quadruped_with_a_long_name" and texts[1].strip() == "FR_hip_joint"
    assert texts[-2:] == ["motor", "  shaft"]
    assert not plots.joint_list.item(0).flags() & Qt.ItemIsUserCheckable
    plots.set_joints([("motor", "shaft")])
    assert plots.checked_joints() == [("motor", "shaft")]
    assert plots.joint_item("motor", "shaft").toolTip() == "motor.shaft"
