"""A URDF opened alone makes a one-segment rig named after its robot: the name must keep the rule of names
(mime_gui.rig.names), so a robot named with dots, a control character or past the longest name gives the
file's stem, and a stem that cannot serve gives ``arm``; the new rig has no finding for its own name."""

from __future__ import annotations

import pytest

from mime_gui.rig.names import MAX_NAME_LENGTH, good_name
from mime_gui.session.reading import _segment_name


@pytest.mark.parametrize("robot, path, expected", [
    ("ur5", "/x/ur5_robot.urdf", "ur5"),
    ("my.robot", "/x/a.urdf", "my_robot"),
    ("line\nbreak", "/x/arm_v2.urdf", "arm_v2"),
    ("r" * (MAX_NAME_LENGTH + 1), "/x/panda.urdf", "panda"),
    ("", "/x/\t.urdf", "arm"),
], ids=["robot-name", "dots", "control-character", "too-long", "nothing-usable"])
def test_a_urdf_opened_alone_names_its_segment_by_a_valid_name(robot, path, expected):
    assert _segment_name(robot, path) == expected
    assert good_name(expected)


def test_a_robot_named_with_a_newline_opens_as_a_rig_without_findings(tmp_path):
    from mime_gui import RESOURCES
    from mime_gui.session.reading import urdf_rig

    text = (RESOURCES / "demo" / "arm.urdf").read_text(encoding="utf-8")
    path = tmp_path / "bench_arm.urdf"
    path.write_text(text.replace('<robot name="demo_arm">', '<robot name="demo&#10;arm">'), encoding="utf-8")
    rig = urdf_rig(str(path))
    assert (rig.name, list(rig.chain)) == ("bench_arm", ["bench_arm"])
    assert rig.validate() == []
