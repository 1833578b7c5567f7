"""A name the simulators' XML cannot hold is refused before anything is written, saying which and why."""

from __future__ import annotations

import pytest

from mime_gui.rig import Apparatus, LabSegment, register_dynamics, unregister_dynamics
from mime_gui.rig.dynamics import frames
from mime_gui.rig.simulators import ExportError
from mime_gui.rig.urdf_export import export_urdf


def test_a_link_name_holding_a_tab_is_refused_with_the_fix_and_nothing_is_written(tmp_path):
    slide = ("slide", "prismatic", "base", "car\triage", (0, 0, 0.02), (1, 0, 0), (-0.1, 0.1))
    register_dynamics("tab-stage", lambda: frames("stage", "base", [slide]))
    try:
        rig = Apparatus("lab", chain={"stage": LabSegment(kind="tab-stage")})
        with pytest.raises(ExportError) as refused:
            export_urdf(rig, tmp_path / "lab.urdf")
    finally:
        unregister_dynamics("tab-stage")
    error = refused.value
    assert error.code == "export.name" and error.file == "chain.stage.car\triage"
    assert ("an XML name cannot keep (a control character, a tab or a newline, U+FFFE, U+FFFF or half of a "
            "surrogate pair)") in error.message
    # the tab shown as the two characters a user types for it, escaped once
    assert error.message.startswith("the name 'car\\triage' holds")
    assert error.message.endswith("; rename it")
    assert list(tmp_path.iterdir()) == []
