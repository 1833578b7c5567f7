"""``mime-gui validate | report | export`` on rig files: exit codes and output."""

from __future__ import annotations

import json
import re
import runpy

import pytest
from rig_helpers import DEMO_RIG, DEMO_URDF

from mime_gui.cli import main
from mime_gui.rig import load

LINE = re.compile(r"^error\[[a-z.\-]+\] \S+: .+$")


def _invalid_rig(tmp_path):
    data = json.loads(DEMO_RIG.read_text())
    data["chain"][0]["description"] = str(DEMO_URDF)
    data["chain"][1]["mount"] = "flange"
    data["parts"]["holder"]["material"] = "unobtainium"
    data["magnets"]["m1"]["magnetisation"] = [0, 0, 0]
    path = tmp_path / "bad.rig.json"
    path.write_text(json.dumps(data))
    return path


def test_validate_a_valid_rig(capsys):
    assert main(["validate", str(DEMO_RIG)]) == 0
    out = capsys.readouterr().out
    assert "is valid" in out and "error[" not in out


def test_validate_prints_one_line_per_finding(tmp_path, capsys):
    path = _invalid_rig(tmp_path)
    assert main(["validate", str(path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    findings = load(path).validate()
    assert lines == [str(f) for f in findings]
    assert len(lines) == 3 and all(LINE.match(line) for line in lines)
    assert "error[chain.mount] chain.motor.mount: 'flange'" in lines[0]


def test_validate_an_unreadable_rig_file(tmp_path, capsys):
    data = json.loads(DEMO_RIG.read_text())
    data["parts"]["holder"]["colour"] = "red"
    path = tmp_path / "x.rig.json"
    path.write_text(json.dumps(data))
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out.strip()
    assert out.startswith(f"error[rigfile.key] {path}:1: #/parts/holder/colour: unknown key 'colour'")


def test_report_text_and_json(capsys):
    assert main(["report", str(DEMO_RIG)]) == 0
    text = capsys.readouterr().out
    for needle in ("armature per joint", "reflected", "declared", "example-bldc-60mm", "holder", "grafts",
                   "moment Br·V/μ0", "totals"):
        assert needle in text
    assert main(["report", str(DEMO_RIG), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"rig", "segments", "parts", "grafts", "totals"}
    assert data == load(DEMO_RIG).build().report.to_dict()


def test_report_of_an_invalid_rig(tmp_path, capsys):
    assert main(["report", str(_invalid_rig(tmp_path)), "--json"]) == 1
    assert all(LINE.match(line) for line in capsys.readouterr().out.splitlines())


def test_export_python_executes_into_an_equal_rig(tmp_path, capsys):
    out = tmp_path / "elsewhere" / "rig_demo.py"
    out.parent.mkdir()
    assert main(["export", str(DEMO_RIG), "--python", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    rig = runpy.run_path(str(out))["rig"]
    assert rig == load(DEMO_RIG)
    assert rig.validate() == []


def test_export_json_writes_an_equal_rig_file(tmp_path):
    out = tmp_path / "copy.rig.json"
    assert main(["export", str(DEMO_RIG), "--json", str(out)]) == 0
    assert load(out) == load(DEMO_RIG)
    assert load(out).validate() == []


@pytest.mark.parametrize("option, name", [("--python", "out.py"), ("--json", "out.rig.json")])
def test_export_of_an_invalid_rig_writes_nothing(option, name, tmp_path, capsys):
    path = _invalid_rig(tmp_path)
    out = tmp_path / name
    assert main(["export", str(path), option, str(out)]) == 1
    captured = capsys.readouterr()
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.rig.json"]
    assert all(LINE.match(line) for line in captured.out.splitlines())
    assert "nothing written" in captured.err


def test_export_needs_one_target(capsys):
    with pytest.raises(SystemExit) as info:
        main(["export", str(DEMO_RIG)])
    assert info.value.code == 2
    with pytest.raises(SystemExit):
        main(["export", str(DEMO_RIG), "--python", "a.py", "--json", "b.rig.json"])
