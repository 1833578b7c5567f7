"""Typing into a form on a robot the forms were not written for (UR5 with a box on its wrist): what the
window shows after each keystroke, undo and redo — the findings, the validation dock, the box's mass —
is what the rules give for the rig read from nothing, though each edit takes over the last analysis."""

from __future__ import annotations

import pytest
from test_assembly import field, settle, type_into

from mime_gui.rig.rules import analyse

pytestmark = pytest.mark.timeout(120)


def shows_the_rules_of(window, session) -> None:
    fresh = analyse(session.rig)
    assert session.document.findings == tuple(fresh.findings)
    summary = window.assembly.validation.summary.text()
    if fresh.findings:
        assert "broken" in summary
    else:
        assert "follows every rule" in summary
    built = session.document.built
    if not fresh.findings:
        assert built.analysis.masses[("parts", "box")].mass == fresh.masses[("parts", "box")].mass
        assert built.report.part("box")["mass"] == fresh.masses[("parts", "box")].mass


def test_type_a_bad_size_undo_and_type_again(window, qtbot, ur5_with_box):
    session, clock = ur5_with_box
    size = "parts.box.geometry.size"
    shows_the_rules_of(window, session)
    type_into(qtbot, field(window, size).edits[1], "-100")  # a size no box has
    assert any(f.code == "part.geometry" for f in session.document.findings)
    shows_the_rules_of(window, session)
    clock.now += 5.0
    session.undo()
    settle(qtbot)
    assert not session.document.findings
    shows_the_rules_of(window, session)
    type_into(qtbot, field(window, size).edits[0], "80")  # typed again: a bigger box, heavier
    heavier = session.document.built.analysis.masses[("parts", "box")].mass
    shows_the_rules_of(window, session)
    clock.now += 5.0
    session.undo()
    settle(qtbot)
    assert session.document.built.analysis.masses[("parts", "box")].mass < heavier
    shows_the_rules_of(window, session)
    session.redo()
    settle(qtbot)
    assert session.document.built.analysis.masses[("parts", "box")].mass == heavier
    shows_the_rules_of(window, session)
