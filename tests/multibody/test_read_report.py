"""What the reader's report logs: each warning as ``FILE:LINE: warning[CODE] message``."""

from __future__ import annotations

import logging

from mime_gui.multibody.report import ReadReport


def test_a_warning_is_logged_with_its_file_line_code_and_message(caplog):
    report = ReadReport(file="robots/arm.urdf")
    with caplog.at_level(logging.WARNING, logger="mime_gui.multibody.report"):
        report.warn("urdf.unused", "the <gazebo> element is not used", 12)
    assert [r.getMessage() for r in caplog.records] == [
        "robots/arm.urdf:12: warning[urdf.unused] the <gazebo> element is not used"]
    assert [(w.code, w.file, w.line) for w in report.warnings] == [("urdf.unused", "robots/arm.urdf", 12)]
