"""A name from a file may hold a newline or a control character: a URDF's link names are the robot author's,
and a rig's item name that breaks the rule of names is still shown, as a finding to fix. The chain tree and
the validation dock show such a name escaped, on the one line of its row, and a click on the finding still
reaches its item."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from test_assembly import open_ready, settle

from mime_gui.session import ItemRef


def _all_rows(tree):
    out, stack = [], [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
    while stack:
        item = stack.pop()
        out.append(item)
        stack.extend(item.child(i) for i in range(item.childCount()))
    return out


def test_a_link_and_a_part_named_with_newlines_are_shown_escaped_on_one_line(window, qtbot, demo_copy):
    urdf = demo_copy / "arm.urdf"
    text = urdf.read_text(encoding="utf-8")
    urdf.write_text(text.replace('"base_link"', '"base&#10;link"'), encoding="utf-8")
    path = demo_copy / "demo.rig.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    parts = data["parts"]
    if isinstance(parts, list):
        next(p for p in parts if p["name"] == "holder")["name"] = "hold\ter\nx"
    else:
        parts["hold\ter\nx"] = parts.pop("holder")
    path.write_text(json.dumps(data), encoding="utf-8")
    open_ready(window, path)
    settle(qtbot)
    texts = [row.text(0) for row in _all_rows(window.tree_dock.tree)]
    assert "base\\nlink" in texts and not any("\n" in t or "\t" in t for t in texts)
    rows = window.assembly.validation.rows()
    assert ("name.invalid", "parts.hold\\ter\\nx") in [r[:2] for r in rows]
    assert not any("\n" in cell or "\t" in cell for row in rows for cell in row)
    # the row still leads to its item: the click selects the part by its real name
    dock = window.assembly.validation
    (row,) = [r for r in _all_rows(dock.tree) if r.text(1) == "parts.hold\\ter\\nx"]
    dock.raise_()
    dock.tree.scrollToItem(row)
    centre = dock.tree.visualItemRect(row).center()
    QTest.mouseClick(dock.tree.viewport(), Qt.LeftButton, Qt.NoModifier, centre)
    settle(qtbot, 20)
    assert window.session.selection == ItemRef("", "part", "hold\ter\nx")
