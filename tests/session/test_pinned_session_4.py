"""Small behaviours pinned: the warnings section of ``mime-gui inspect`` saying ``(none)`` only when there
are none, the exact text of a missing file's refusal, a rig file that is not JSON refused with its bare
message (not the whole diagnostic again), and the keep-out limit passing over a zone whose limit is zero."""

from __future__ import annotations

import pytest

from mime_gui.cli import main
from mime_gui.rig import Apparatus
from mime_gui.rig.zones import DEFAULT_LIMIT, Zone
from mime_gui.session import Session, SessionError
from mime_gui.session.keepout import keepout_limit

ONE_LINK = """<robot name="one">
  <material name="red">
    <color rgba="{rgba}"/>
  </material>
  <link name="base"/>
</robot>
"""


def _inspect_text(capsys, path) -> str:
    assert main(["inspect", str(path)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return out


def test_inspect_lists_a_warning_without_saying_there_are_none(tmp_path, capsys):
    path = tmp_path / "one.urdf"
    path.write_text(ONE_LINK.format(rgba="2 0 0 1"))  # red above 1: clipped, with a warning on line 3
    out = _inspect_text(capsys, path)
    assert out.endswith(
        "\nwarnings (1)\n"
        f"  warning[urdf.color] {path}:3: colour rgba='2 0 0 1' of material 'red' is outside [0, 1]; "
        "it is clipped\n")


def test_inspect_says_none_under_warnings_when_the_file_has_none(tmp_path, capsys):
    path = tmp_path / "one.urdf"
    path.write_text(ONE_LINK.format(rgba="1 0 0 1"))
    out = _inspect_text(capsys, path)
    assert out.endswith("\nwarnings (0)\n  (none)\n")


def test_opening_a_missing_file_is_refused_with_the_exact_advice(tmp_path):
    path = tmp_path / "Lab.RIG.json"
    shown = []
    session = Session()
    session.error.connect(shown.append)
    with pytest.raises(SessionError) as err:
        session.open(path)
    assert (err.value.code, err.value.file, err.value.message) == (
        "file.not-found", str(path), "no such file; check the path")
    assert str(err.value) == f"error[file.not-found] {path}: no such file; check the path"
    assert shown == [err.value]


def test_a_rig_file_that_is_not_json_is_refused_with_the_bare_json_message(tmp_path):
    path = tmp_path / "lab.rig.json"
    path.write_text('{\n  "name": "lab",\n  "chain": [\n    oops\n  ]\n}\n')  # "oops" at line 4, column 5
    with pytest.raises(SessionError) as err:
        Session().open(path)
    assert (err.value.code, err.value.file, err.value.line) == ("rigfile.json", str(path), 4)
    assert err.value.message == "not valid JSON: Expecting value (column 5)"
    assert str(err.value) == f"error[rigfile.json] {path}:4: not valid JSON: Expecting value (column 5)"


def test_the_keep_out_limit_passes_over_a_zone_whose_limit_is_zero():
    rig = Apparatus("lab", zones={"off": Zone(sphere=0.1, limit=0.0), "chair": Zone(sphere=0.1, limit=1e-3)})
    assert keepout_limit(rig) == 1e-3


def test_the_keep_out_limit_of_zones_all_at_zero_is_the_default():
    rig = Apparatus("lab", zones={"off": Zone(sphere=0.1, limit=0.0)})
    assert keepout_limit(rig) == DEFAULT_LIMIT == 5e-4
