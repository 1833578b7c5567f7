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


def test_an_occurrence_added_without_a_note_has_none_and_a_later_refusal_keeps_the_first_note():
    report = ReadReport(file="robots/arm.urdf")
    report.add("link/visual", "used", 4)
    report.add("gazebo", "recognised-not-used", 9, "simulator settings")
    report.add("gazebo", "refused", 11)  # a refusal without a note of its own
    assert report.to_dict()["used"] == [{"kind": "link/visual", "count": 1, "lines": [4], "note": ""}]
    assert report.to_dict()["refused"] == [
        {"kind": "gazebo", "count": 2, "lines": [9, 11], "note": "simulator settings"}]
