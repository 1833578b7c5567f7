"""The build report's payload lines: a kinematic segment carries nothing, so its report says nothing of a
payload (its mass line already says it carries none); a dynamic one says what it carries."""

from __future__ import annotations

from rig_helpers import DEMO_URDF

from mime_gui.rig import Apparatus, Arm


def _arm_lines(rig: Apparatus) -> list[str]:
    lines = rig.build().report.to_text().splitlines()
    start = lines.index("chain") + 1
    end = lines.index("", start)
    return lines[start:end]


def test_a_kinematic_segment_with_nothing_riding_has_no_payload_line():
    rig = Apparatus("k", chain={"arm": Arm.Kinematic(description=str(DEMO_URDF))})
    assert rig.build().report.data["segments"][0]["payload"]["detail"].startswith("kinematic segment")
    lines = _arm_lines(rig)
    assert any(line.endswith("; kinematic, carries none of 0 kg of parts") for line in lines), lines
    assert not [line for line in lines if "payload" in line]


def test_a_dynamic_segment_with_nothing_riding_says_so_in_its_payload_line():
    lines = _arm_lines(Apparatus("d", chain={"arm": Arm.Dynamic(description=str(DEMO_URDF))}))
    assert [line for line in lines if "payload" in line] == ["    payload: 0 kg (nothing rides on it)"]
