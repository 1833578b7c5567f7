"""Parts, magnets, segments, probes, samples and zones share one set of names (the Name row's tip says so):
typing a magnet's name into a part's Name row is refused as it is typed, with the name's owner, and the rig
keeps both items, with no finding left on the magnet the user never touched; another name then renames."""

from __future__ import annotations

from gestures import click_row
from test_assembly import field, open_ready, settle, type_into

from mime_gui.session import ItemRef


def test_a_part_renamed_to_a_magnet_s_name_is_refused_and_the_rig_unchanged(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json")
    session = window.session
    click_row(window, ItemRef("motor", "link", "part:holder"))
    steps = len(session.history)
    name = field(window, "parts.holder")
    assert "share one set of names" in name.toolTip() or "share one set of names" in name.edit.toolTip()
    type_into(qtbot, name.edit, "m1", enter=True)
    qtbot.waitUntil(lambda: getattr(window, "error_dialog", None) is not None
                    and window.error_dialog.isVisible())
    box = window.error_dialog
    assert box.text() == "error[edit.name-taken] parts.holder: 'm1' is already a magnet; choose another name"
    assert box.informativeText() == "The rig is unchanged."
    box.accept()
    settle(qtbot)
    assert list(session.rig.parts) == ["holder"] and list(session.rig.magnets) == ["m1"]
    assert session.findings == () and len(session.history) == steps
    name = field(window, "parts.holder")
    type_into(qtbot, name.edit, "cup", enter=True)
    assert list(session.rig.parts) == ["cup"] and session.findings == ()
    assert window.tree_dock.item_for(ItemRef("motor", "link", "part:cup")) is not None
