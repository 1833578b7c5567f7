"""Hostile ``actuators.json`` files: a FIFO or a folder under that name, JSON nested past the parser's depth.
Each is a coded error naming the file — never a silent skip, a hang or a RecursionError."""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import sys

import pytest
from rig_helpers import DEMO_RIG

from mime_gui.cli import main
from mime_gui.rig import actuators
from mime_gui.rig.actuator_sources import ActuatorError, discover, from_file

pytestmark = pytest.mark.timeout(60)  # a FIFO opened by mistake blocks: the timeout makes it a failure


@pytest.fixture(autouse=True)
def clean(monkeypatch, tmp_path):
    monkeypatch.setenv("MIME_GUI_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setattr(importlib.metadata, "entry_points",
                        lambda **select: importlib.metadata.EntryPoints([]))
    yield
    actuators.set_discovered({})


@pytest.fixture
def rig(tmp_path):
    folder = tmp_path / "rig"
    shutil.copytree(DEMO_RIG.parent, folder)
    return folder / "demo.rig.json"


def _nested(depth: int) -> str:
    return '{"actuators": [' + "[" * depth + "]" * depth + "]}"


@pytest.mark.parametrize("where", ["beside the rig", "in the config folder"])
def test_a_fifo_named_actuators_json_is_refused_naming_it(rig, tmp_path, where):
    folder = rig.parent if where == "beside the rig" else tmp_path / "config"
    folder.mkdir(exist_ok=True)
    pipe = folder / "actuators.json"
    os.mkfifo(pipe)  # no writer: reading it as a plain file would wait for ever
    with pytest.raises(ActuatorError) as info:
        discover(rig.parent)
    assert (info.value.code, info.value.file) == ("file.not-regular", str(pipe))
    assert "named pipe (FIFO)" in info.value.message and "an actuators file" in info.value.message


def test_a_folder_named_actuators_json_is_refused_not_passed_over(rig):
    (rig.parent / "actuators.json").mkdir()
    with pytest.raises(ActuatorError) as info:
        discover(rig.parent)
    assert (info.value.code, info.value.file) == ("file.not-regular", str(rig.parent / "actuators.json"))


def test_the_command_line_names_the_fifo_on_one_line(rig, capsys):
    os.mkfifo(rig.parent / "actuators.json")
    assert main(["validate", str(rig)]) == 1
    out = capsys.readouterr().out.strip()
    assert out.startswith(f"error[file.not-regular] {rig.parent / 'actuators.json'}: ")
    assert "\n" not in out and "Traceback" not in out


@pytest.mark.parametrize("text", [
    pytest.param(lambda depth: _nested(depth), id="inside the list"),
    pytest.param(lambda depth: "[" * depth + "]" * depth, id="the whole file"),
    pytest.param(lambda depth: '{"a":' * depth + "1" + "}" * depth, id="objects"),
])
def test_json_nested_past_the_parsers_depth_is_a_coded_error_naming_the_file(tmp_path, text):
    path = tmp_path / "actuators.json"
    path.write_text(text(sys.getrecursionlimit() * 20), encoding="utf-8")
    with pytest.raises(ActuatorError) as info:
        from_file(path)
    assert (info.value.code, info.value.file) == ("actuator.file", str(path))
    assert "nested too deeply" in info.value.message


def test_nesting_the_parser_takes_is_refused_for_what_it_holds(tmp_path):
    path = tmp_path / "actuators.json"
    path.write_text(_nested(50), encoding="utf-8")
    with pytest.raises(ActuatorError) as info:
        from_file(path)
    assert info.value.code == "actuator.record" and "#/actuators/0" in info.value.message


def test_a_nested_actuators_json_beside_the_rig_fails_validate_on_one_line(rig, capsys):
    (rig.parent / "actuators.json").write_text(_nested(sys.getrecursionlimit() * 20), encoding="utf-8")
    assert main(["validate", str(rig)]) == 1
    out = capsys.readouterr().out.strip()
    assert out.startswith(f"error[actuator.file] {rig.parent / 'actuators.json'}: ")
    assert "nested too deeply" in out and "\n" not in out
