"""A number field that may be left unset (an arm joint's initial position the rig does not declare), typed in
as a user does: a text that is no number stores nothing (not the number its first keys made), emptying a
field that holds no entry is no edit (no "Refused" dialog), a number typed stores it and undo unsets it; a
field that holds a value puts that value back, as every field does."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from test_assembly import field, settle
from test_driving import open_ready

from mime_gui.session import ItemRef

UNSET = "chain.arm.initial_positions.joint_4"  # the demo declares joints 1, 2, 3 and 5


def _arm_form(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json", qtbot)
    window.session.select(ItemRef("arm", "segment", "arm"))
    settle(qtbot, 50)


def _refused(window) -> str | None:
    box = window.error_dialog
    return box.text() if box is not None and box.isVisible() else None


def _keys(qtbot, edit, text: str) -> None:
    edit.setFocus()
    QTest.keyClicks(edit, text)  # one key at a time: "12" is a number before "a" comes
    settle(qtbot)


def test_a_text_that_is_no_number_in_an_unset_initial_position_stores_nothing(window, qtbot, demo_copy):
    _arm_form(window, qtbot, demo_copy)
    session = window.session
    before = dict(session.rig.chain["arm"].initial_positions)
    assert "joint_4" not in before
    f = field(window, UNSET)
    for text in ("12abc", "1_000", "0x10"):
        f.edit.selectAll()
        QTest.keyClick(f.edit, Qt.Key_Backspace)
        _keys(qtbot, f.edit, text)
        assert f.message.text() == "not a number of rad", text
        assert dict(session.rig.chain["arm"].initial_positions) == before, text
    assert _refused(window) is None


def test_emptying_an_unset_initial_position_is_no_edit_and_a_number_typed_then_undone_unsets_it(
        window, qtbot, demo_copy):
    _arm_form(window, qtbot, demo_copy)
    session = window.session
    before = session.rig
    f = field(window, UNSET)
    _keys(qtbot, f.edit, "x")
    QTest.keyClick(f.edit, Qt.Key_Backspace)  # emptied: there is no entry to remove
    settle(qtbot, 50)
    assert _refused(window) is None and f.message.text() == ""
    assert session.rig == before
    _keys(qtbot, f.edit, "0.25")
    assert session.rig.chain["arm"].initial_positions["joint_4"] == 0.25
    session.history.seal()
    session.undo()
    settle(qtbot)
    assert "joint_4" not in session.rig.chain["arm"].initial_positions and f.edit.text() == ""


def test_a_text_that_is_no_number_in_a_declared_initial_position_puts_its_value_back(
        window, qtbot, demo_copy):
    _arm_form(window, qtbot, demo_copy)
    session = window.session
    f = field(window, "chain.arm.initial_positions.joint_1")
    assert session.rig.chain["arm"].initial_positions["joint_1"] == 0.1
    f.edit.selectAll()
    QTest.keyClick(f.edit, Qt.Key_Backspace)
    _keys(qtbot, f.edit, "12abc")
    assert f.message.text() == "not a number of rad"
    assert session.rig.chain["arm"].initial_positions["joint_1"] == 0.1
