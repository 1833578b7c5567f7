"""What the reader's report logs: each warning as ``FILE:LINE: warning[CODE] message``."""

from __future__ import annotations

import logging

import pytest

from mime_gui.multibody.report import ReadReport


def test_a_warning_is_logged_with_its_file_line_code_and_message(caplog):
    report = ReadReport(file="robots/arm.urdf")
    with caplog.at_level(logging.WARNING, logger="mime_gui.multibody.report"):
        report.warn("urdf.unused", "the <gazebo> element is not used", 12)
    assert [r.getMessage() for r in caplog.records] == [
        "robots/arm.urdf:12: warning[urdf.unused] the <gazebo> element is not used"]
    assert [(w.code, w.file, w.line) for w in report.warnings] == [("urdf.unused", "robots/arm.urdf", 12)]


def test_an_error_blocking_an_unknown_use_is_refused_naming_it_and_the_known_uses():
    report = ReadReport(file="robots/arm.urdf")
    with pytest.raises(ValueError) as info:
        report.error("urdf.inertial", "the inertia is not physical", 7, blocks="dynamic")  # not "dynamics"
    message = str(info.value)
    assert "'dynamic'" in message
    for use in ("dynamics", "armature", "drawing", "mimic", "frames"):
        assert use in message, use
    assert report.warnings == []
