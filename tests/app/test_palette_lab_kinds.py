"""A lab's registered segment kind in the palette: listed under Segments with its factory's defaults, dropped
on a frame as one undoable edit that mounts it there, its numeric parameters edited in its form."""

from __future__ import annotations

import shutil

import pytest
from gestures import drop_on_row
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from mime_gui import RESOURCES
from mime_gui.app.main import wait_until_ready
from mime_gui.rig import LabSegment, dynamics, register_dynamics, unregister_dynamics
from mime_gui.session import ItemRef

pytestmark = pytest.mark.timeout(120)


def turntable(radius=0.05, teeth=12, label="T1", height=None):
    """A platter turning about z, 10 mm above its base."""
    if radius <= 0:
        raise ValueError(f"radius must be positive, got {radius}")
    return dynamics.frames("turntable", "base", [("spin", "continuous", "base", "platter", (0, 0, 0.01),
                                                  (0, 0, 1), None)])


@pytest.fixture
def kind():
    register_dynamics("turntable", turntable)
    yield "turntable"
    unregister_dynamics("turntable")


def test_a_lab_kind_is_offered_dropped_and_edited(window, qtbot, tmp_path, kind):
    shutil.copytree(RESOURCES / "demo", tmp_path / "demo")
    palette = window.assembly.palette
    with pytest.raises(KeyError):  # registered after the window was made: listed when a document opens
        palette.row("segment.lab.turntable")
    assert window.open_file(str(tmp_path / "demo" / "demo.rig.json"))
    wait_until_ready(window)
    row = palette.row("segment.lab.turntable")
    assert row.parent().text(0) == "Segments" and row.text(0) == "turntable"
    assert "radius=0.05, teeth=12, label='T1', height=None" in row.toolTip(0)

    session = window.session
    segments, steps = list(session.rig.chain), len(session.history)
    drop_on_row(window, "segment.lab.turntable", ItemRef("arm", "frame", "tool0"))
    QTest.qWait(5)
    assert list(session.rig.chain) == [*segments, "turntable"]
    seg = session.rig.chain["turntable"]
    assert segments[-1] != "arm"  # a frame of an earlier segment than the last: named with it
    assert seg == LabSegment(kind="turntable", mount="arm.tool0",
                             params={"radius": 0.05, "teeth": 12, "label": "T1", "height": None})
    assert session.findings == () and "turntable" in session.segments
    assert len(session.history) == steps + 1 and session.history.undo_name == "Add segment turntable"

    form = window.properties_dock.forms.form  # the new segment's form: its numbers editable
    assert form.name == "turntable"
    radius = form.field_for("chain.turntable.params.radius")
    assert radius is not None and form.field_for("chain.turntable.params.teeth") is not None
    assert form.field_for("chain.turntable.params.label") is None  # text: shown, not edited here
    radius.edit.setFocus()
    radius.edit.selectAll()
    QTest.keyClicks(radius.edit, "0.08")
    QApplication.processEvents()
    assert session.rig.chain["turntable"].params["radius"] == 0.08
    teeth = form.field_for("chain.turntable.params.teeth")
    teeth.edit.selectAll()
    QTest.keyClicks(teeth.edit, "24")
    QApplication.processEvents()
    assert session.rig.chain["turntable"].params["teeth"] == 24
    assert type(session.rig.chain["turntable"].params["teeth"]) is int  # the default's type kept

    while session.can_undo and "turntable" in session.rig.chain:
        session.undo()
    assert list(session.rig.chain) == segments


def test_a_kind_gone_leaves_the_palette_when_a_document_opens(window, tmp_path):
    shutil.copytree(RESOURCES / "demo", tmp_path / "demo")
    register_dynamics("turntable", turntable)
    try:
        assert window.open_file(str(tmp_path / "demo" / "demo.rig.json"))
        wait_until_ready(window)
        assert window.assembly.palette.row("segment.lab.turntable") is not None
    finally:
        unregister_dynamics("turntable")
    window.session.reload()
    with pytest.raises(KeyError):
        window.assembly.palette.row("segment.lab.turntable")
    assert window.assembly.palette.row("segment.motor") is not None  # the built-in ones stay


def tilt(angle, radius=0.05):
    """A top tilted by ``angle`` (no default: the user sets it)."""
    return dynamics.frames("tilt", "base", [("tip", "revolute", "base", "top", (0, 0, angle), (1, 0, 0),
                                             (-1, 1))])


def test_a_kind_with_a_parameter_without_a_default_is_shown_but_not_offered(window, tmp_path):
    shutil.copytree(RESOURCES / "demo", tmp_path / "demo")
    register_dynamics("tilt", tilt)
    try:
        assert window.open_file(str(tmp_path / "demo" / "demo.rig.json"))
        wait_until_ready(window)
        row = window.assembly.palette.row("segment.lab.tilt")
        assert not row.flags() & (Qt.ItemIsEnabled | Qt.ItemIsDragEnabled)
        assert "Not offered: its factory needs angle, with no default" in row.toolTip(0)
        before, steps = window.session.rig, len(window.session.history)
        assert not window.assembly.drop_template("segment.lab.tilt", "arm", "tool0")  # a drop that got in
        assert window.session.rig is before and len(window.session.history) == steps
        assert "Cannot add tilt: its factory needs angle" in window.statusBar().currentMessage()
    finally:
        unregister_dynamics("tilt")
