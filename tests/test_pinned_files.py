"""The names of the temporary files written beside a file: the suffix asked for, and ``.tmp`` by default."""

from __future__ import annotations

import os
from pathlib import Path

from mime_gui.files import stage, temporary


def test_a_temporary_file_beside_a_file_ends_in_tmp_by_default(tmp_path):
    fd, tmp = temporary(tmp_path / "plan.json")
    os.close(fd)
    name = Path(tmp).name
    assert Path(tmp).parent == tmp_path
    assert name.startswith(".plan.json.") and name.endswith(".tmp")
    assert not name.endswith("XX")


def test_a_staged_file_carries_the_suffix_asked_for_and_the_content(tmp_path):
    tmp = Path(stage(tmp_path / "plan.json", "hello", suffix=".part"))
    assert tmp.parent == tmp_path
    assert tmp.name.startswith(".plan.json.") and tmp.name.endswith(".part")
    assert tmp.read_bytes() == b"hello"
