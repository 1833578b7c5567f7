"""Assembling a rig through the window as a user would: templates dragged (real QMimeData drops) onto a tree
row, fields typed into, combo boxes chosen with the keyboard, Ctrl+Z; from the demo arm's URDF to the demo
rig; findings under their field; export gated by the findings; delete, duplicate, rename."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from gestures import click_row, drop_on_row
from PySide6.QtCore import Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDoubleSpinBox, QPushButton
from test_driving_by_hand import type_into as type_spin

from mime_gui import RESOURCES
from mime_gui.app.drag import template_mime
from mime_gui.app.main import wait_until_ready
from mime_gui.rig import load
from mime_gui.session import ItemRef, SetValue

pytestmark = pytest.mark.timeout(120)
DEMO = RESOURCES / "demo"


@pytest.fixture
def demo_copy(tmp_path) -> Path:
    folder = tmp_path / "demo"
    shutil.copytree(DEMO, folder)
    return folder


def open_ready(window, path) -> None:
    assert window.open_file(str(path))
    wait_until_ready(window)
    window.activateWindow()  # shortcuts (Ctrl+Z, Delete) reach the active window only
    for _ in range(300):
        if window.isActiveWindow():
            break
        QTest.qWait(10)


def press(window, key, modifier=Qt.NoModifier) -> None:
    """A key press where the user's focus is (a shortcut reaches the window from there)."""
    target = QApplication.focusWidget()
    if target is None or target.window() is not window:
        target = window
    QTest.keyClick(target, key, modifier)
    QApplication.processEvents()


def settle(qtbot, ms: int = 5) -> None:
    QApplication.processEvents()
    qtbot.wait(ms)


# -- driving the window --------------------------------------------------------------------------------


def field(window, path: str):
    form = window.properties_dock.forms.form
    assert form is not None, "no form shown"
    f = form.field_for(path)
    assert f is not None and f.path == path, (path, [x.path for x in form.fields])
    return f


def type_into(qtbot, edit, text: str, enter: bool = False) -> None:
    edit.setFocus()
    edit.selectAll()
    QTest.keyClick(edit, Qt.Key_Backspace)
    QTest.keyClicks(edit, text)
    if enter:
        QTest.keyClick(edit, Qt.Key_Return)
    settle(qtbot)


def choose(qtbot, combo, text: str) -> None:
    """Open a combo box's list and pick an item with the arrow keys and Enter, as a keyboard user does."""
    texts = [combo.itemText(i) for i in range(combo.count())]
    target = next(i for i, t in enumerate(texts) if t == text or t.startswith(text))
    combo.setFocus()
    combo.showPopup()
    view = combo.view()
    steps = target - combo.currentIndex()
    for _ in range(abs(steps)):
        QTest.keyClick(view, Qt.Key_Down if steps > 0 else Qt.Key_Up)
    QTest.keyClick(view, Qt.Key_Return)
    settle(qtbot)


def type_vector(qtbot, window, path: str, index: int, text: str) -> None:
    type_into(qtbot, field(window, path).edits[index], text)


# -- drops ---------------------------------------------------------------------------------------------
def test_a_template_dropped_on_a_tree_row_mounts_one_part_there_in_one_undo_step(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json")
    session = window.session
    steps = len(session.history)
    drop_on_row(window, "part.box", ItemRef("arm", "link", "link_3"))
    settle(qtbot)
    assert list(session.rig.parts) == ["holder", "box"]
    box = session.rig.parts["box"]
    assert box.mount == "arm.link_3" and box.at == (0.0, 0.0, 0.0)
    assert len(session.history) == steps + 1 and session.history.undo_name == "Add part box"
    assert session.selection == ItemRef("", "part", "box")  # selected by itself, its form open
    assert window.properties_dock.forms.form.name == "box"
    assert window.tree_dock.item_for(ItemRef("arm", "link", "part:box")) is not None
    press(window, Qt.Key_Z, Qt.ControlModifier)
    settle(qtbot)
    assert list(session.rig.parts) == ["holder"]


def test_a_drop_on_a_joint_row_mounts_on_its_child_and_on_a_segment_row_is_refused(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json")
    drop_on_row(window, "magnet.sphere", ItemRef("arm", "joint", "joint_2"))
    settle(qtbot)
    assert window.session.rig.magnets["magnet"].mount == "arm.link_2"
    tree = window.tree_dock.tree
    top = window.tree_dock.item_for(ItemRef("arm", "segment", "arm"))
    pos = tree.visualItemRect(top).center()
    mime = template_mime("part.box")  # kept alive: the event holds a pointer to it
    enter = QDragEnterEvent(pos, Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    QApplication.sendEvent(tree.viewport(), enter)
    assert not enter.isAccepted()


def test_enter_on_a_palette_template_adds_it_to_the_selected_frame(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json")
    click_row(window, ItemRef("arm", "frame", "tool0"))
    settle(qtbot)
    palette = window.assembly.palette
    palette.tree.setCurrentItem(palette.row("part.sphere"))
    palette.tree.setFocus()
    QTest.keyClick(palette.tree, Qt.Key_Return)
    settle(qtbot)
    assert window.session.rig.parts["sphere"].mount == "arm.tool0"


# -- the end to end: from the demo arm's URDF to the demo rig ------------------------------------------
def test_from_the_demo_urdf_to_the_demo_rig_through_the_window_alone(window, qtbot, tmp_path):
    folder = tmp_path / "demo"  # the URDF names its meshes package://demo/…
    folder.mkdir()
    shutil.copy(DEMO / "arm.urdf", folder / "arm.urdf")
    shutil.copytree(DEMO / "meshes", folder / "meshes")
    open_ready(window, folder / "arm.urdf")
    session = window.session
    (first,) = session.segments

    # the arm: its name, dynamic, servo lag and initial positions in its form
    click_row(window, ItemRef(first, "segment", first))
    type_into(qtbot, field(window, f"chain.{first}").edit, "arm", enter=True)
    assert list(session.rig.chain) == ["arm"] and session.selection == ItemRef("arm", "segment", "arm")
    choose(qtbot, field(window, "chain.arm.kind").combo, "Arm.Dynamic")
    type_into(qtbot, field(window, "chain.arm.servo_time_constant").edit, "0.05")
    for joint, value in (("joint_1", "0.1"), ("joint_2", "-0.4"), ("joint_3", "0.9"), ("joint_5", "0.6")):
        type_into(qtbot, field(window, f"chain.arm.initial_positions.{joint}").edit, value)

    # the armature: one joint declared with its reason, three through their transmissions
    dock = window.assembly.armature
    dock.raise_()
    settle(qtbot, 20)
    table = dock.table("arm")
    choose(qtbot, table.cells[("joint_6", "source")], "declared")
    type_into(qtbot, table.cells[("joint_6", "value")], "0.0002")
    type_into(qtbot, table.cells[("joint_6", "reason")],
              "wrist rotor 1.25e-5 kg m2 through the 4:1 belt, from the wrist motor's datasheet")
    for joint in ("joint_1", "joint_2", "joint_3"):
        choose(qtbot, table.cells[(joint, "source")], "through")
        settle(qtbot, 20)
    for joint in ("joint_1", "joint_2"):
        choose(qtbot, table.cells[(joint, "actuator")], "example-bldc-60mm")
    choose(qtbot, table.cells[("joint_3", "actuator")], "(rotor inertia")
    settle(qtbot, 20)
    type_into(qtbot, table.cells[("joint_3", "rotor")], "1.8e-05")
    type_into(qtbot, table.cells[("joint_3", "reason")],
              "elbow motor datasheet rotor inertia 180 g cm2 (example figure)")

    # the motor on the last link, dynamic with its rotor inertia
    drop_on_row(window, "segment.motor", ItemRef("arm", "frame", "tool0"))
    settle(qtbot, 20)
    assert session.rig.chain["motor"].mount == "tool0"
    choose(qtbot, field(window, "chain.motor.kind").combo, "Motor.Dynamic")
    inertia = field(window, "chain.motor.inertia")
    assert "rotor inertia" in inertia.message.text()  # the finding shows under its field until given
    type_into(qtbot, inertia.value_edit, "3e-06")
    type_into(qtbot, inertia.reason_edit, "catalogue value of the spindle motor's rotor (example figure)")
    assert not inertia.message.isVisible()

    # a holder and a magnet on the rotor
    drop_on_row(window, "part.cylinder", ItemRef("motor", "frame", "rotor"))
    type_into(qtbot, field(window, "parts.cylinder").edit, "holder", enter=True)
    type_vector(qtbot, window, "parts.holder.at", 2, "10")
    drop_on_row(window, "magnet.cylinder", ItemRef("motor", "frame", "rotor"))
    type_into(qtbot, field(window, "magnets.magnet").edit, "m1", enter=True)
    type_vector(qtbot, window, "magnets.m1.at", 2, "25")
    # magnetised across the shaft (diametric), so a turn of the motor turns its field
    type_vector(qtbot, window, "magnets.m1.magnetisation", 0, "1")
    type_vector(qtbot, window, "magnets.m1.magnetisation", 2, "0")

    # the probe where the sample sits, 5 cm above the stator
    drop_on_row(window, "probe.point", ItemRef("motor", "link", "stator"))
    type_into(qtbot, field(window, "probes.probe").edit, "sample", enter=True)
    type_vector(qtbot, window, "probes.sample.at", 2, "50")

    # two named poses: typed into the joint sliders (degrees), each stored from the Poses dock
    dock = window.driving.poses
    dock.show()
    dock.raise_()
    for name, degrees in (("home", (0, -20, 50, 0, 30, 0)), ("over the sample", (35, 25, 60, 0, -10, 0))):
        for joint, value in zip(("joint_1", "joint_2", "joint_3", "joint_4", "joint_5", "joint_6"), degrees,
                                strict=True):
            type_spin(qtbot, window.findChild(QDoubleSpinBox, f"spin:arm.{joint}"), str(value))
        type_spin(qtbot, window.findChild(QDoubleSpinBox, "spin:motor.shaft"), "0")
        qtbot.keyClicks(dock.name, name)
        qtbot.mouseClick(dock.store_button, Qt.LeftButton)
    assert list(session.rig.poses) == ["home", "over the sample"]

    # the rig's name, with nothing selected
    session.select(None)
    settle(qtbot)
    type_into(qtbot, field(window, "name").edit, "demo", enter=True)

    assert session.findings == ()
    assert window.assembly.act_export_json.isEnabled()
    window.act_save.trigger()
    settle(qtbot)
    saved = folder / "arm.rig.json"
    demo = json.loads((DEMO / "demo.rig.json").read_text())
    # the demo's trajectory spins the motor (typed in the Trajectory dock's table: tested there) and its
    # clearance allows the holder to turn against the flange face (a rig file section with no form yet), so
    # the walk makes all but those
    assert set(demo.pop("trajectories")) == {"spin 5 Hz"}
    assert [a["pair"] for a in demo.pop("clearance")["allow"]] == [["parts.holder", "arm.link_6"]]
    assert json.loads(saved.read_text()) == demo
    assert not window.isWindowModified()


# -- undo, findings, export ----------------------------------------------------------------------------
def test_undo_everything_returns_the_original_file(window, qtbot, demo_copy):
    path = demo_copy / "demo.rig.json"
    original = path.read_bytes()
    open_ready(window, path)
    drop_on_row(window, "part.box", ItemRef("arm", "link", "link_2"))
    type_vector(qtbot, window, "parts.box.geometry.size", 0, "35")
    type_vector(qtbot, window, "parts.box.at", 1, "-12.5")
    click_row(window, ItemRef("motor", "link", "part:holder"))
    type_into(qtbot, field(window, "parts.holder.geometry.radius").edit, "12")
    choose(qtbot, field(window, "parts.holder.mass_source").combo, "declared mass")
    type_into(qtbot, field(window, "parts.holder.mass").reason_edit, "weighed")
    click_row(window, ItemRef("motor", "link", "part:m1"))
    press(window, Qt.Key_D, Qt.ControlModifier)  # duplicate
    settle(qtbot)
    assert "m1_2" in window.session.rig.magnets
    press(window, Qt.Key_Delete)
    settle(qtbot)
    assert "m1_2" not in window.session.rig.magnets
    assert window.isWindowModified()
    while window.undo_actions.undo.isEnabled():
        press(window, Qt.Key_Z, Qt.ControlModifier)
        settle(qtbot, 1)
    assert not window.isWindowModified()
    window.act_save.trigger()
    assert path.read_bytes() == original


def test_a_finding_appears_under_its_field_and_clears_and_export_waits_for_it(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json")
    export = window.assembly.act_export_json
    assert export.isEnabled() and window.assembly.act_export_python.isEnabled()
    click_row(window, ItemRef("motor", "link", "part:holder"))
    radius = field(window, "parts.holder.geometry.radius")
    type_into(qtbot, radius.edit, "-5")
    assert [f.code for f in window.session.findings] == ["part.geometry"]
    assert radius.message.isVisible() and "positive radius" in radius.message.text()
    assert radius.edit.hasFocus()  # the form was refreshed in place, not rebuilt under the typing
    assert not export.isEnabled() and not window.assembly.act_export_python.isEnabled()
    assert "[part.geometry] parts.holder.geometry" in export.toolTip()
    assert window.assembly.validation.rows()[0][:2] == ("part.geometry", "parts.holder.geometry")
    type_into(qtbot, radius.edit, "5")
    assert window.session.findings == () and not radius.message.isVisible()
    assert export.isEnabled()
    assert window.session.rig.parts["holder"].geometry.radius == 0.005


def test_a_keystroke_that_does_not_parse_is_marked_and_not_applied(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json")
    click_row(window, ItemRef("motor", "link", "part:holder"))
    steps = len(window.session.history)
    length = field(window, "parts.holder.geometry.length")
    type_into(qtbot, length.edit, "x")
    assert "not a number" in length.message.text() and len(window.session.history) == steps
    type_into(qtbot, length.edit, "3e1 m")  # 3 mm, "3e" marked, 30 mm, then 30 m: a typed unit wins
    assert not length.message.isVisible()
    assert window.session.rig.parts["holder"].geometry.length == 30.0
    assert len(window.session.history) == steps + 1  # the keystrokes of one field are one undo step


def test_clicking_a_finding_selects_its_item_and_focuses_its_field(window, qtbot, demo_copy):
    path = demo_copy / "demo.rig.json"
    path.write_text(path.read_text().replace('"material": "NdFeB-N42"', '"material": "unobtainium"'))
    open_ready(window, path)
    dock = window.assembly.validation
    dock.raise_()
    group = dock.tree.topLevelItem(0)
    row = group.child(0)
    assert row.text(0) == "part.material" or row.text(0).startswith("magnet")
    dock.tree.scrollToItem(row)
    center = dock.tree.visualItemRect(row).center()
    QTest.mouseClick(dock.tree.viewport(), Qt.LeftButton, Qt.NoModifier, center)
    settle(qtbot, 20)
    assert window.session.selection == ItemRef("", "magnet", "m1")
    focused = QApplication.focusWidget()
    material = field(window, "magnets.m1.material")
    assert focused is material.combo


def test_export_writes_files_that_validate(window, qtbot, demo_copy, tmp_path, monkeypatch):
    from mime_gui.cli.main import main

    open_ready(window, demo_copy / "demo.rig.json")
    out = tmp_path / "out.rig.json"
    monkeypatch.setattr("PySide6.QtWidgets.QFileDialog.getSaveFileName",
                        lambda *a, **k: (str(out), "Rig files (*.rig.json)"))
    window.assembly.act_export_json.trigger()
    assert load(out) == window.session.rig
    assert main(["validate", str(out)]) == 0
    assert window.session.path == str(demo_copy / "demo.rig.json")  # export leaves the document's file
    script = demo_copy / "demo_rig.py"  # beside the URDF it names
    assert window.assembly.export_to("python", str(script))
    code = (f"ns = {{}}; exec(open({str(script)!r}).read(), ns); "
            "print(ns['rig'].validate() == [], ns['rig'].name)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=demo_copy,
                         env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert run.stdout.split() == ["True", "demo"], run.stderr


def test_segments_reorder_and_rename_with_mounts_following(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json")
    click_row(window, ItemRef("motor", "segment", "motor"))
    type_into(qtbot, field(window, "chain.motor").edit, "spindle", enter=True)
    rig = window.session.rig
    assert list(rig.chain) == ["arm", "spindle"]
    assert rig.parts["holder"].mount == "spindle.rotor" and rig.magnets["m1"].mount == "spindle.rotor"
    assert window.session.findings == ()
    form = window.properties_dock.forms.form
    up = next(b for b in form.findChildren(QPushButton) if b.text() == "Move up")
    QTest.mouseClick(up, Qt.LeftButton)
    settle(qtbot)
    assert list(window.session.rig.chain) == ["spindle", "arm"]
    assert {f.code for f in window.session.findings} >= {"chain.mount-first", "chain.mount"}
    press(window, Qt.Key_Z, Qt.ControlModifier)
    settle(qtbot)
    assert list(window.session.rig.chain) == ["arm", "spindle"] and window.session.findings == ()


def test_mass_properties_and_build_report_show_the_rig(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json")
    mass = window.assembly.mass
    mass.raise_()
    settle(qtbot, 20)
    report = window.session.document.built.report
    assert f"{report['totals']['parts_mass']:.5g} kg of parts" in mass.total.text()
    window.assembly.build_report.raise_()
    settle(qtbot, 20)
    values = window.assembly.build_report.values()
    assert values["Armature per joint/arm/joint_6"].startswith("0.0002 kg·m² · declared")
    assert values["Magnets/m1"].split(" · ")[0].endswith("A·m²")
    # an edit that breaks a rule keeps the last valid report, and says so
    window.session.apply(SetValue("parts.holder.material", "unobtainium"))
    settle(qtbot, 20)
    assert "last valid build" in window.assembly.build_report.banner.text()


def test_pr2_carrying_a_part(window, qtbot, robot_file, tmp_path):
    open_ready(window, robot_file("pr2"))
    (seg,) = window.session.segments
    drop_on_row(window, "part.box", ItemRef(seg, "link", "r_gripper_palm_link"))
    settle(qtbot)
    assert window.session.rig.parts["box"].mount == f"{seg}.r_gripper_palm_link"
    assert window.session.findings == ()
    assert window.tree_dock.item_for(ItemRef(seg, "link", "part:box")) is not None


# -- the 3D view as a drop target ----------------------------------------------------------------------
def _link_under_its_own_centre(window, exclude=()):
    """A link of the demo arm and a widget point over it where a pick finds that very link."""
    import vtk

    scene, target = window.scene, window.assembly.drop_target
    widget = scene.plotter
    renderer = widget.renderer
    ratio = widget.devicePixelRatioF()
    for link in ("link_2", "link_3", "link_1", "base_link"):
        if link in exclude:
            continue
        for actor in scene.actors("arm", "visual"):
            if scene.item_of(actor) != ItemRef("arm", "link", link):
                continue
            b = actor.GetBounds()
            renderer.SetWorldPoint((b[0] + b[1]) / 2, (b[2] + b[3]) / 2, (b[4] + b[5]) / 2, 1.0)
            renderer.WorldToDisplay()
            x, y, _ = renderer.GetDisplayPoint()
            picker = vtk.vtkPropPicker()
            if picker.PickProp(x, y, renderer) and scene.item_of(picker.GetViewProp()) == \
                    ItemRef("arm", "link", link):
                from PySide6.QtCore import QPoint

                return link, QPoint(round(x / ratio), round(widget.height() - 1 - y / ratio))
            target._last = None
    raise AssertionError("no link of the arm is under its own centre in this view")


def test_a_template_dropped_on_a_link_in_the_3d_view_mounts_on_its_frame(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json")
    settle(qtbot, 50)
    session = window.session
    link, pos = _link_under_its_own_centre(window)
    widget = window.scene.plotter
    mime = template_mime("magnet.block")
    enter = QDragEnterEvent(pos, Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    QApplication.sendEvent(widget, enter)
    assert enter.isAccepted()
    move = QDragMoveEvent(pos, Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    QApplication.sendEvent(widget, move)
    target = window.assembly.drop_target
    assert target.lit == ("arm", link)  # the frame lights up while dragging, and its name shows
    assert target.label.isVisible() and target.label.text() == f"Mount on arm.{link}"
    steps = len(session.history)
    drop = QDropEvent(pos.toPointF(), Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    QApplication.sendEvent(widget, drop)
    settle(qtbot, 20)
    assert session.rig.magnets["magnet"].mount == f"arm.{link}"
    assert len(session.history) == steps + 1
    assert not target.label.isVisible() and target.lit is None
    assert session.selection == ItemRef("", "magnet", "magnet")


def test_a_file_dragged_over_the_view_is_left_to_the_window(window, qtbot, demo_copy):
    from PySide6.QtCore import QMimeData, QPoint, QUrl

    open_ready(window, demo_copy / "demo.rig.json")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(demo_copy / "arm.urdf"))])
    enter = QDragEnterEvent(QPoint(50, 50), Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    assert window.assembly.drop_target.eventFilter(window.scene.plotter, enter) is False


def test_a_magnet_shows_its_magnetisation_and_the_selected_part_an_outline(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json")
    marks = window.assembly.marks
    south, north = marks.arrow_actors("m1")
    rotor = window.session.frame_world_pose("motor", "part:m1")
    # along +x of the magnet's frame (diametric): the north half's far end on its +x side, the south half
    # on the other
    for actor, sign in ((north, 1), (south, -1)):
        points = np.array(actor.GetMapper().GetInput().points)
        world = (np.asarray(actor.user_matrix) @ np.c_[points, np.ones(len(points))].T).T[:, :3]
        along = sign * (world - rotor[:3, 3]) @ rotor[:3, 0]  # on its own side of the centre only
        assert along.min() > -1e-9 and along.max() == pytest.approx(2.2 * 0.005, rel=1e-6)
    assert north.GetProperty().GetColor() != south.GetProperty().GetColor()
    window.session.apply(SetValue("magnets.m1.magnetisation", (0.0, 0.0, 1.0)))  # the arrow turns with it
    south, north = marks.arrow_actors("m1")
    tip = np.asarray(north.user_matrix)[:3, :3] @ np.array([1.0, 0.0, 0.0])
    np.testing.assert_allclose(tip, rotor[:3, :3] @ np.array([0.0, 0.0, 1.0]), atol=1e-12)
    assert marks.outline is None or not marks.outline.GetVisibility()
    click_row(window, ItemRef("motor", "link", "part:holder"))
    settle(qtbot)
    assert marks.outline.GetVisibility()
    holder = window.session.frame_world_pose("motor", "part:holder")
    np.testing.assert_allclose(marks.outline.user_matrix, holder)
    window.session.set_layer_visible("parts", False)
    assert not north.GetVisibility()


def test_the_delete_key_in_a_field_edits_the_text_not_the_rig(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json")
    click_row(window, ItemRef("motor", "link", "part:holder"))
    radius = field(window, "parts.holder.geometry.radius")
    radius.edit.setFocus()
    radius.edit.setCursorPosition(0)
    press(window, Qt.Key_Delete)  # "10" -> "0"
    settle(qtbot)
    assert "holder" in window.session.rig.parts
    assert radius.edit.text() == "0" and window.session.rig.parts["holder"].geometry.radius == 0.0
    type_into(qtbot, radius.edit, "10")  # drawn again (a zero radius is a finding: not drawn)
    click_row(window, ItemRef("motor", "link", "part:holder"))  # the tree has the focus now
    press(window, Qt.Key_Delete)
    settle(qtbot)
    assert "holder" not in window.session.rig.parts


def test_a_rows_context_menu_offers_delete_duplicate_and_rename(window, qtbot, demo_copy):
    from PySide6.QtCore import QTimer

    open_ready(window, demo_copy / "demo.rig.json")
    tree = window.tree_dock.tree
    item = window.tree_dock.item_for(ItemRef("motor", "link", "part:holder"))
    tree.scrollToItem(item)
    pos = tree.visualItemRect(item).center()

    def choose_duplicate():
        menu = window.tree_dock.last_menu
        action = next(a for a in menu.actions() if a.text().replace("&", "") == "Duplicate")
        menu.setActiveAction(action)
        QTest.keyClick(menu, Qt.Key_Return)

    QTimer.singleShot(200, choose_duplicate)
    window.tree_dock._context_menu(pos)  # the menu a right click opens (modal until chosen)
    settle(qtbot)
    assert list(window.session.rig.parts) == ["holder", "holder_2"]
    assert window.session.rig.parts["holder_2"] == window.session.rig.parts["holder"]
    segment_row = window.tree_dock.item_for(ItemRef("motor", "segment", "motor"))
    assert [a.text().replace("&", "") for a in window.assembly._context_actions(
        segment_row.data(0, Qt.UserRole))] == ["Delete", "Duplicate", "Rename"]
    assert not window.assembly.act_duplicate.isEnabled()  # a segment is not duplicated
    assert window.assembly._context_actions(ItemRef("arm", "link", "link_2")) == []


def test_a_segments_orientation_is_typed_in_degrees_and_stored_as_its_quaternion(window, qtbot, demo_copy):
    import math

    from mime_gui.app.docks.forms.segment import quaternion_to_rpy_degrees, rpy_to_quaternion

    open_ready(window, demo_copy / "demo.rig.json")
    click_row(window, ItemRef("arm", "segment", "arm"))
    type_vector(qtbot, window, "chain.arm.orientation", 2, "90")  # yaw
    w, x, y, z = window.session.rig.chain["arm"].orientation
    assert (w, x, y, z) == pytest.approx((math.sqrt(0.5), 0.0, 0.0, math.sqrt(0.5)), abs=1e-15)
    assert window.session.findings == ()  # a unit quaternion
    type_vector(qtbot, window, "chain.arm.at", 0, "250")  # mm
    assert window.session.rig.chain["arm"].at == (0.25, 0.0, 0.0)
    for rpy in [(10.0, 20.0, 30.0), (-170.0, 45.0, 179.0), (0.0, 89.0, 0.0)]:
        q = rpy_to_quaternion(np.radians(rpy))
        assert np.linalg.norm(q) == pytest.approx(1.0, abs=1e-15)
        assert quaternion_to_rpy_degrees(q) == pytest.approx(rpy, abs=1e-9)


def test_a_ring_magnet_dropped_on_the_rotor_is_drawn_as_a_ring_and_its_bore_is_typed_in_mm(window, qtbot,
                                                                                         demo_copy):
    open_ready(window, demo_copy / "demo.rig.json")
    session = window.session
    drop_on_row(window, "magnet.ring", ItemRef("motor", "link", "rotor"))
    settle(qtbot)
    ring = session.rig.magnets["magnet"]
    g = ring.geometry
    assert (g.inner_radius, g.outer_radius, g.length) == (0.003, 0.006, 0.003)
    assert ring.mount == "motor.rotor" and not session.document.findings

    def drawn():
        actors = window.scene._registry.actors_of(ItemRef("", "magnet", "magnet"))
        assert len(actors) == 1
        points = np.asarray(actors[0].GetMapper().GetInput().points)
        radial = np.hypot(points[:, 0], points[:, 1])
        return radial.min(), radial.max(), np.ptp(points[:, 2])

    np.testing.assert_allclose(drawn(), (0.003, 0.006, 0.003), rtol=1e-9)  # a hole through it, in the view
    bore = field(window, "magnets.magnet.geometry.inner_radius")
    type_into(qtbot, bore.edit, "4.5", enter=True)  # mm
    assert session.rig.magnets["magnet"].geometry.inner_radius == pytest.approx(0.0045)
    np.testing.assert_allclose(drawn(), (0.0045, 0.006, 0.003), rtol=1e-9)
    type_into(qtbot, bore.edit, "7", enter=True)  # wider than it
    assert any(f.code == "part.geometry" and f.where == "magnets.magnet.geometry"
               for f in session.document.findings)
    press(window, Qt.Key_Z, Qt.ControlModifier)  # the typing into one field is one step
    settle(qtbot)
    assert session.rig.magnets["magnet"].geometry.inner_radius == pytest.approx(0.003)
    assert not session.document.findings
    np.testing.assert_allclose(drawn(), (0.003, 0.006, 0.003), rtol=1e-9)


def open_with_bench_magnet(window, demo_copy, bore: float) -> None:
    """The demo rig with a ring magnet of ``bore`` radius (outer 50 mm) fixed in the world, on the bench."""
    from mime_gui.rig import PermanentMagnet, Ring, save

    rig = load(demo_copy / "demo.rig.json")
    rig.magnets["bench"] = PermanentMagnet(Ring(bore, 0.05, 0.02), material="NdFeB-N42",
                                           magnetisation=(0.0, 0.0, 1.0), at=(0.45, 0.35, 0.3))
    save(rig, demo_copy / "demo.rig.json")
    open_ready(window, demo_copy / "demo.rig.json")


def test_a_magnet_fixed_in_the_world_has_a_row_a_shape_an_arrow_and_moves_with_its_place(window, qtbot,
                                                                                        demo_copy):
    """A part or magnet no segment carries is drawn where the rig places it, listed under World, picked by a
    click in the view, outlined when selected, and hidden with the parts layer."""
    open_with_bench_magnet(window, demo_copy, 0.02)
    session = window.session
    row = window.tree_dock.item_for(ItemRef("", "magnet", "bench"))
    assert row is not None and row.parent().text(0) == "World"
    assert row.text(1) == "ring magnet in the world"
    world = window.assembly.world_parts
    actor = world.actors["bench"]
    np.testing.assert_allclose(np.asarray(actor.user_matrix)[:3, 3], (0.45, 0.35, 0.3))
    points = np.asarray(actor.GetMapper().GetInput().points)
    np.testing.assert_allclose([np.hypot(points[:, 0], points[:, 1]).min(), np.ptp(points[:, 2])],
                               [0.02, 0.02], rtol=1e-9)
    south, north = window.assembly.marks.arrow_actors("bench")  # its magnetisation, through it
    np.testing.assert_allclose(np.asarray(north.user_matrix)[:3, 3], (0.45, 0.35, 0.3))
    # a click on it in the view selects it, and its outline stands around it
    window.scene.render_now()
    ren = window.scene.plotter.renderer
    ren.SetWorldPoint(0.45 + 0.035, 0.35, 0.3, 1.0)  # on the ring itself, not in its bore
    ren.WorldToDisplay()
    x, y, _ = ren.GetDisplayPoint()
    assert window.scene.pick(x, y) == ItemRef("", "magnet", "bench")
    settle(qtbot)
    assert session.selection == ItemRef("", "magnet", "bench")
    assert window.properties_dock.forms.form.name == "bench"
    outline = window.assembly.marks.outline
    assert outline.GetVisibility()
    np.testing.assert_allclose(np.asarray(outline.user_matrix)[:3, 3], (0.45, 0.35, 0.3))
    # typed to another place, it moves there; the parts layer hides it
    type_vector(qtbot, window, "magnets.bench.at", 2, "500")  # mm
    assert session.rig.magnets["bench"].at == pytest.approx((0.45, 0.35, 0.5))
    np.testing.assert_allclose(np.asarray(world.actors["bench"].user_matrix)[:3, 3], (0.45, 0.35, 0.5))
    window.scene.set_visual_opacity(0.5)  # seen through with the robot
    assert world.actors["bench"].GetProperty().GetOpacity() == pytest.approx(0.5)
    window.scene.set_visual_opacity(1.0)
    assert world.actors["bench"].GetProperty().GetOpacity() == pytest.approx(1.0)
    session.set_layer_visible("parts", False)
    assert not world.actors["bench"].GetVisibility()
    session.set_layer_visible("parts", True)
    assert world.actors["bench"].GetVisibility()
    # far off on the bench it is still framed: Reset camera fits it with the robot, Focus fits it alone
    session.apply(SetValue("magnets.bench.at", (2.5, -2.0, 0.3)))
    settle(qtbot)
    ren = window.scene.plotter.renderer

    def on_view(point) -> bool:
        ren.SetWorldPoint(*point, 1.0)
        ren.WorldToView()
        x, y, _ = ren.GetViewPoint()
        return abs(x) < 1 and abs(y) < 1

    window.scene.reset_camera()
    assert on_view((2.5, -2.0, 0.3)) and on_view((0.0, 0.0, 0.5))
    window.scene.focus(ItemRef("", "magnet", "bench"))
    assert on_view((2.5, -2.0, 0.3)) and not on_view((0.0, 0.0, 0.5))
    # mounted on a frame it is the frame's graft link instead: no world actor, no World row
    session.apply(SetValue("magnets.bench.mount", "arm.link_3"))
    settle(qtbot)
    assert "bench" not in world.actors
    assert window.tree_dock.item_for(ItemRef("", "magnet", "bench")) is None
    assert window.tree_dock.item_for(ItemRef("arm", "link", "part:bench")) is not None


def test_a_world_part_whose_shape_breaks_a_rule_is_left_out_of_the_view_until_fixed(window, qtbot, demo_copy):
    open_with_bench_magnet(window, demo_copy, 1e308)
    session = window.session
    assert any(f.where == "magnets.bench.geometry" for f in session.document.findings)
    assert "bench" not in window.assembly.world_parts.actors
    assert window.assembly.marks.arrow_actors("bench") == []
    bounds = window.scene.plotter.renderer.ComputeVisiblePropBounds()
    assert max(abs(b) for b in bounds) < 10  # the robot's scale, not the broken ring's
    assert window.tree_dock.item_for(ItemRef("", "magnet", "bench")) is not None  # listed, to be fixed
    session.apply(SetValue("magnets.bench.geometry.inner_radius", 0.02))
    settle(qtbot)
    assert "bench" in window.assembly.world_parts.actors
    assert len(window.assembly.marks.arrow_actors("bench")) == 2
