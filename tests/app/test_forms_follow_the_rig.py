"""A form shows the rig after every change set and writes only what its own field shows: typed entries,
Undo, typing again; entries into different fields and entries apart in time are separate undo steps; a text
that is not a whole value is never stored (a unit after the number is converted); Ctrl+Z and Ctrl+Shift+Z
reach the document from any editor; another file never leaves the last one's values in a form or a label."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDoubleSpinBox
from test_assembly import field, open_ready, press, settle, type_into

from mime_gui.rig import load
from mime_gui.session import ItemRef

pytestmark = pytest.mark.timeout(120)


def shown(window, path: str) -> list[str]:
    f = field(window, path)
    return [e.text() for e in f.edits] if hasattr(f, "edits") else [f.edit.text()]


def mm(values) -> tuple:
    return tuple(round(v * 1000, 9) for v in values)


def test_undo_restores_the_fields_and_the_next_entry_writes_only_its_own(window, qtbot, ur5_with_box):
    session, clock = ur5_with_box
    size = "parts.box.geometry.size"
    template = session.rig.parts["box"].geometry.size
    steps = len(session.history)
    for index, text in enumerate(("200", "100", "5")):  # each size in turn, a moment apart at most
        clock.now += 0.2
        type_into(qtbot, field(window, size).edits[index], text)
    clock.now += 0.2
    type_into(qtbot, field(window, size).edits[1], "-100")
    assert mm(session.rig.parts["box"].geometry.size) == (200, -100, 5)
    # four entries, each into its own field or after another field: four steps
    assert len(session.history) == steps + 4

    press(window, Qt.Key_Z, Qt.ControlModifier)
    settle(qtbot)
    assert mm(session.rig.parts["box"].geometry.size) == (200, 100, 5)
    assert shown(window, size) == ["200", "100", "5"]  # the focused vector shows the rig, not its text

    clock.now += 0.2
    type_into(qtbot, field(window, size).edits[0], "1")
    assert mm(session.rig.parts["box"].geometry.size) == (1, 100, 5)

    for _ in range(4):
        press(window, Qt.Key_Z, Qt.ControlModifier)
    settle(qtbot)
    assert session.rig.parts["box"].geometry.size == template
    assert shown(window, size) == [f"{v * 1000:g}" for v in template]


def test_one_field_typed_into_merges_within_a_moment_and_not_after_a_pause(window, qtbot, ur5_with_box):
    session, clock = ur5_with_box
    edit = field(window, "parts.box.at").edits[2]
    steps = len(session.history)
    edit.setFocus()
    edit.selectAll()
    QTest.keyClick(edit, Qt.Key_Backspace)
    for ch in "12":
        clock.now += 0.3  # typing: a keystroke each 0.3 s
        QTest.keyClicks(edit, ch)
    assert len(session.history) == steps + 1 and mm(session.rig.parts["box"].at)[2] == 12
    clock.now += 5.0  # a pause: the next keystroke is a new entry
    QTest.keyClicks(edit, "5")
    settle(qtbot)
    assert mm(session.rig.parts["box"].at)[2] == 125
    assert len(session.history) == steps + 2
    session.undo()
    settle(qtbot)
    assert mm(session.rig.parts["box"].at)[2] == 12 and edit.text() == "12"


@pytest.mark.parametrize("text, stored_mm", [("5 in", 127.0), ("3 cm", 30.0), ("0.25 m", 250.0),
                                             ("2.5mm", 2.5), ("40 µm", 0.04)])
def test_a_unit_typed_after_the_number_is_converted(window, qtbot, ur5_with_box, text, stored_mm):
    session, _clock = ur5_with_box
    type_into(qtbot, field(window, "parts.box.at").edits[0], text)
    assert session.rig.parts["box"].at[0] == pytest.approx(stored_mm / 1000, rel=1e-12)
    assert not field(window, "parts.box.at").message.isVisible()


@pytest.mark.parametrize("text", ["7,5", "5 apples", "1e400", "5 s", "٣", "1_0", "5 in x"])
def test_a_text_that_is_not_a_whole_value_is_never_stored(window, qtbot, ur5_with_box, text):
    session, _clock = ur5_with_box
    before = session.rig.parts["box"].at
    steps = len(session.history)
    edit = field(window, "parts.box.at").edits[0]
    if text.isascii():
        type_into(qtbot, edit, text)  # its prefixes parse on the way
    else:  # QTest types Latin-1 only: a key event carrying the character, as an input method sends it
        type_into(qtbot, edit, "")
        QApplication.sendEvent(edit, QKeyEvent(QEvent.KeyPress, 0, Qt.NoModifier, text))
        settle(qtbot)
    assert session.rig.parts["box"].at == before
    assert len(session.history) == steps  # typed and put back: no step
    f = field(window, "parts.box.at")
    assert f.message.isVisible() and "number" in f.message.text()
    assert f.edits[0].text() == text  # left for the user to fix


def test_a_number_field_puts_back_its_value_and_an_angle_takes_degrees(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json")
    session = window.session
    session.select(ItemRef("motor", "segment", "motor"))
    settle(qtbot)
    lag = "chain.motor.servo_time_constant"
    before = session.rig.chain["motor"].servo_time_constant
    type_into(qtbot, field(window, lag).edit, "0,05")
    assert session.rig.chain["motor"].servo_time_constant == before
    # the demo's lag is 0, the "0" above stored on the way: "5" is stored and put back at the ","
    type_into(qtbot, field(window, lag).edit, "5,5")
    assert session.rig.chain["motor"].servo_time_constant == before == 0.0
    assert "number" in field(window, lag).message.text()
    type_into(qtbot, field(window, lag).edit, "20 ms")
    assert session.rig.chain["motor"].servo_time_constant == pytest.approx(0.02, rel=1e-12)
    angle = "chain.motor.initial_position"
    type_into(qtbot, field(window, angle).edit, "90 deg")
    assert session.rig.chain["motor"].initial_position == pytest.approx(1.5707963267948966, rel=1e-12)


def test_ctrl_z_and_ctrl_shift_z_reach_the_document_from_a_spin_box(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json")
    session = window.session
    holder = session.rig.parts["holder"].at
    session.select(ItemRef("", "part", "holder"))
    settle(qtbot)
    type_into(qtbot, field(window, "parts.holder.at").edits[0], "33")
    assert mm(session.rig.parts["holder"].at)[0] == 33
    spin = next(s for s in window.findChildren(QDoubleSpinBox) if s.isVisible() and s.isEnabled()
                and s.objectName() != "speed")
    spin.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() in (spin, spin.lineEdit()))
    press(window, Qt.Key_Z, Qt.ControlModifier)
    assert session.rig.parts["holder"].at == holder
    press(window, Qt.Key_Z, Qt.ControlModifier | Qt.ShiftModifier)
    assert mm(session.rig.parts["holder"].at)[0] == 33


def test_a_name_being_typed_undoes_its_text_first(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json")
    session = window.session
    session.select(ItemRef("", "part", "holder"))
    settle(qtbot)
    type_into(qtbot, field(window, "parts.holder.at").edits[0], "33")
    name = field(window, "parts.holder").edit
    name.setFocus()
    name.end(False)
    QTest.keyClicks(name, "_x")
    press(window, Qt.Key_Z, Qt.ControlModifier)  # Qt's text undo: the name's typing goes first
    assert name.text() == "holder" and mm(session.rig.parts["holder"].at)[0] == 33
    press(window, Qt.Key_Z, Qt.ControlModifier)  # nothing typed is left: the document's undo
    assert mm(session.rig.parts["holder"].at)[0] != 33


def test_another_file_never_leaves_the_last_ones_frame_in_the_mount_combo(window, qtbot, demo_copy, tmp_path):
    open_ready(window, demo_copy / "demo.rig.json")
    session = window.session
    session.select(ItemRef("", "part", "holder"))
    settle(qtbot)
    assert field(window, "parts.holder.mount").combo.currentText() == "arm.link_3" or \
        field(window, "parts.holder.mount").value() == session.rig.parts["holder"].mount
    text = (demo_copy / "demo.rig.json").read_text()
    mount = session.rig.parts["holder"].mount
    other = demo_copy / "other.rig.json"
    other.write_text(text.replace(f'"{mount}"', '"arm.no_such_frame"'))
    assert load(other).parts["holder"].mount == "arm.no_such_frame"
    open_ready(window, other)
    session.select(ItemRef("", "part", "holder"))
    settle(qtbot)
    combo = field(window, "parts.holder.mount")
    assert combo.value() == "arm.no_such_frame"
    assert combo.combo.currentText() == "arm.no_such_frame (not found)"
    assert mount + " (not found)" not in [combo.combo.itemText(i) for i in range(combo.combo.count())]


def test_the_player_label_says_what_is_loaded_now(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json")
    player = window.driving.player
    assert player.open_file(str(demo_copy / "wave.csv"))
    settle(qtbot)
    assert player.source.text().startswith("wave.csv:")
    player.toggle_record(True)
    settle(qtbot)
    assert "wave.csv" not in player.source.text() and "Recording" in player.source.text()
    player.toggle_record(False)
    settle(qtbot)
    open_ready(window, demo_copy / "arm.urdf")
    assert "wave.csv" not in player.source.text() and "No commands loaded" in player.source.text()


def test_the_armature_table_shows_the_rig_after_undo_and_stores_only_whole_values(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json")
    session = window.session
    dock = window.assembly.armature
    dock.raise_()
    settle(qtbot, 20)
    cell = dock.table("arm").cells[("joint_6", "value")]
    declared = session.rig.chain["arm"].armature["joint_6"]
    type_into(qtbot, cell, "0.0003")
    assert session.rig.chain["arm"].armature["joint_6"].value == 0.0003
    press(window, Qt.Key_Z, Qt.ControlModifier)
    settle(qtbot)
    assert session.rig.chain["arm"].armature["joint_6"] == declared
    assert cell.hasFocus() and cell.text() == f"{declared.value:g}"  # the cell typed in shows the rig
    steps = len(session.history)
    type_into(qtbot, cell, "3,5")
    assert session.rig.chain["arm"].armature["joint_6"] == declared and len(session.history) == steps
    type_into(qtbot, cell, "2 g cm2")  # a unit of its own, converted: 2e-7 kg·m²
    assert session.rig.chain["arm"].armature["joint_6"].value == pytest.approx(2e-7, rel=1e-12)
    assert session.rig.chain["arm"].armature["joint_6"].reason == declared.reason


def test_a_grafted_part_is_one_row_under_its_frame_by_its_own_name(window, qtbot, ur5_with_box):
    from PySide6.QtWidgets import QTreeWidgetItemIterator

    tree = window.tree_dock
    row = tree.item_for(ItemRef("ur5", "link", "part:box"))
    assert row is not None and row.text(0) == "box" and row.text(1).startswith("box part")
    assert row.parent() is tree.item_for(ItemRef("ur5", "link", "wrist_3_link"))
    texts = []
    it = QTreeWidgetItemIterator(tree.tree)
    while it.value():
        texts.append(it.value().text(0))
        it += 1
    assert texts.count("box") == 1 and not [t for t in texts if t.startswith("part:")]


def test_a_pose_is_shown_at_the_precision_of_its_largest_component():
    from mime_gui.app.docks.fields import format_vector

    assert format_vector([1.446e-10, 2.409e-09, 1263.0]) == "0, 0, 1263"
    assert format_vector([0.4, -0.25, 1263.4]) == "0, 0, 1263"  # no "-0"
    assert format_vector([2.6, -0.25, 1263.4]) == "3, 0, 1263"
    assert format_vector([1.2345e-4, 2e-9, -3e-5]) == "0.0001234, 0, -3e-05"
    assert format_vector([0.0, 0.0, 0.0]) == "0, 0, 0"


def test_a_size_momentarily_invalid_keeps_the_part_drawn_dimmed_under_its_mount(window, qtbot, ur5_with_box):
    from mime_gui.app.scene.visibility import DIM

    session, clock = ur5_with_box
    tree, scene = window.tree_dock, window.scene
    graft = ItemRef("ur5", "link", "part:box")
    size = session.rig.parts["box"].geometry.size
    actors = scene._registry.actors_of(graft)
    assert actors and all(a.GetProperty().GetOpacity() == 1.0 for a in actors)
    bounds = scene.plotter.renderer.ComputeVisiblePropBounds()
    type_into(qtbot, field(window, "parts.box.geometry.size").edits[0], "-")  # on the way to "-5": none yet
    type_into(qtbot, field(window, "parts.box.geometry.size").edits[0], "0")  # a zero edge breaks a rule
    assert session.rig.parts["box"].geometry.size[0] == 0.0 and session.findings
    assert graft in session.documents.stand_ins.refs
    row = tree.item_for(graft)
    assert row is not None and row.parent() is tree.item_for(ItemRef("ur5", "link", "wrist_3_link"))
    actors = scene._registry.actors_of(graft)
    assert actors and all(a.GetProperty().GetOpacity() == pytest.approx(DIM) for a in actors)
    assert scene.plotter.renderer.ComputeVisiblePropBounds() == pytest.approx(bounds)  # drawn as it was
    finding = field(window, "parts.box.geometry.size").message
    assert finding.isVisible() and finding.text().startswith("[")  # the rule's code and message
    clock.now += 0.2
    type_into(qtbot, field(window, "parts.box.geometry.size").edits[0], "30")
    assert not session.findings and not session.documents.stand_ins.refs
    actors = scene._registry.actors_of(graft)
    assert all(a.GetProperty().GetOpacity() == 1.0 for a in actors)
    assert session.rig.parts["box"].geometry.size == (0.03, size[1], size[2])


def test_the_player_counts_time_from_the_first_command(window, qtbot, demo_copy):
    # 11 samples from t = 2 s, 0.1 s apart, each held through a step: 1.1 s of commands; row n is the end of
    # step n, (n + 1)·0.1 s after the first sample, so row 5 reads 0.6 s whatever the file's clock says
    rows = "\n".join(f"{2 + i / 10:.2f},0.1" for i in range(11))
    (demo_copy / "late.csv").write_text(f"time,arm.joint_1\n{rows}\n")
    open_ready(window, demo_copy / "demo.rig.json")
    player = window.driving.player
    assert player.open_file(str(demo_copy / "late.csv"))
    window.driving.transport.step(5)
    qtbot.waitUntil(lambda: player.time_label.text() == "0.60 s / 1.10 s", timeout=3000)


def test_a_parts_mass_follows_its_size_as_it_is_typed(window, qtbot, ur5_with_box):
    # the palette's box is 20 × 20 × 10 mm of aluminium, 2700 kg/m³ (materials.json): 0.0108 kg; 40 mm
    # long it is 0.04 · 0.02 · 0.01 · 2700 = 0.0216 kg
    from PySide6.QtWidgets import QLabel

    session, _clock = ur5_with_box
    assert session.rig.parts["box"].geometry.size == pytest.approx((0.02, 0.02, 0.01), abs=1e-15)
    form = window.properties_dock.forms.form

    def texts():
        return [w.text() for w in form.findChildren(QLabel)]

    assert "0.0108 kg" in texts()
    type_into(qtbot, field(window, "parts.box.geometry.size").edits[0], "40")
    qtbot.waitUntil(lambda: "0.0216 kg" in texts(), timeout=3000)
