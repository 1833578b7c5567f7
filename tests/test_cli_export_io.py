"""``mime-gui export`` when the system refuses the write: one ``export.io`` line that says why, in words."""

from __future__ import annotations

import pytest

from mime_gui import RESOURCES
from mime_gui.cli import main

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"


@pytest.mark.parametrize(("option", "where", "reason"), [
    ("--json", "missing/o.rig.json", "No such file or directory"),
    ("--python", "plain/o.py", "Not a directory"),
    ("--commands", "missing/pose.csv", "No such file or directory"),
    ("--mjcf", "missing/o.xml", "No such file or directory"),
    ("--urdf", "missing/o.urdf", "No such file or directory"),
    ("--bundle", "missing/o.zip", "No such file or directory"),
], ids=["json-folder-missing", "python-under-a-file", "pose-commands-folder-missing", "mjcf-folder-missing",
        "urdf-folder-missing", "bundle-folder-missing"])
def test_a_refused_write_says_the_system_s_reason_in_words(tmp_path, capsys, option, where, reason):
    (tmp_path / "plain").write_text("x")
    target = tmp_path / where
    pose = ["--pose", "home"] if option == "--commands" else []
    assert main(["export", str(DEMO_RIG), option, str(target), *pose]) == 1
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith(f"error[export.io] {target}: ")
    # the reason alone, as a reader wants it: not Python's "[Errno N] ...: 'path'" form of the error
    assert line.endswith(f"cannot write ({reason})")
    assert "Errno" not in line
    # nothing written, and no folder made: the simulators' mesh copies go beside an export that is written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plain"]
