"""Every kind of refusal prints one line, ``error[CODE] FILE:LINE: message``, with the line wherever the file
has one (a CLI option is named in place of the file): a URDF, a rig file (its JSON pointer mapped to the line
of the key), an actuators file, a command file (a rig's torque channel included), an option."""

from __future__ import annotations

import re
import shutil

import pytest

from mime_gui import RESOURCES
from mime_gui.cli import main

DEMO = RESOURCES / "demo"
CODE = r"^error\[(?P<code>[a-z][a-z0-9.\-]*)\] "
AT_LINE = re.compile(CODE + r"(?P<file>.+?):(?P<line>[0-9]+): (?P<message>\S.*)\n$")
AT_OPTION = re.compile(CODE + r"(?P<option>--[a-z\-]+): (?P<message>\S.*)\n$")


@pytest.fixture
def demo(tmp_path, monkeypatch):
    monkeypatch.setenv("MIME_GUI_CONFIG_DIR", str(tmp_path / "config"))  # no actuators of the user's
    folder = tmp_path / "demo"
    shutil.copytree(DEMO, folder)
    return folder


def run(capsys, *argv) -> tuple[int, str]:
    """The status and the one stream the command refuses on (stdout for validate, stderr otherwise)."""
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out + err


def at_line(text: str, code: str, file, line: int) -> re.Match:
    m = AT_LINE.match(text)
    assert m, text
    assert (m["code"], m["file"], int(m["line"])) == (code, str(file), line), text
    return m


# -- a URDF ---------------------------------------------------------------------------------------------
URDF = """<robot name="r">
  <link name="a"/>
  <link name="b"/>
  <joint name="j" type="twisty">
    <parent link="a"/><child link="b"/>
  </joint>
</robot>
"""


def test_a_refused_urdf_names_its_line(tmp_path, capsys):
    path = tmp_path / "bad.urdf"
    path.write_text(URDF)
    status, text = run(capsys, "inspect", path)
    assert status == 2
    at_line(text, "urdf.joint-type", path, 4)


# -- a rig file -----------------------------------------------------------------------------------------
def _rig_with(demo, old: str, new: str):
    path = demo / "demo.rig.json"
    text = path.read_text()
    assert text.count(old) == 1
    path.write_text(text.replace(old, new))
    return path


def _line_holding(path, needle: str) -> int:
    (line,) = [n for n, text in enumerate(path.read_text().splitlines(), 1) if needle in text]
    return line


@pytest.mark.parametrize("command", [["validate"], ["report"], ["export", "--json", "OUT"]])
def test_a_refused_rig_file_names_the_line_of_the_key_and_its_pointer(demo, capsys, command):
    path = _rig_with(demo, '"material": "aluminium",', '"material": "aluminium", "colour": "red",')
    argv = [a.replace("OUT", str(demo / "out.rig.json")) for a in command]
    status, text = run(capsys, argv[0], path, *argv[1:])
    assert status == 1
    m = at_line(text, "rigfile.key", path, _line_holding(path, '"colour"'))
    assert m["message"].startswith("#/parts/holder/colour: unknown key 'colour'")
    assert not (demo / "out.rig.json").exists()


def test_a_value_of_the_wrong_type_deep_in_a_list_names_its_own_line(demo, capsys):
    # the demo writes the list [0.0, 0.0, 0.025] on one line: the value's line is that line
    path = _rig_with(demo, '"value": [0.0, 0.0, 0.025]', '"value": [0.0,\n 0.0,\n "up"]')
    status, text = run(capsys, "validate", path)
    assert status == 1
    m = at_line(text, "rigfile.type", path, _line_holding(path, '"up"'))
    assert m["message"].startswith("#/magnets/m1/at/value/2: expected a number")


def test_a_rig_file_that_is_not_json_names_its_line(demo, capsys):
    path = _rig_with(demo, '"name": "demo",', '"name": "demo",,')
    status, text = run(capsys, "validate", path)
    assert status == 1
    at_line(text, "rigfile.json", path, _line_holding(path, ",,"))


def test_a_bad_record_of_an_actuators_file_names_its_line(demo, capsys):
    actuators = demo / "actuators.json"
    actuators.write_text('{\n  "actuators": [\n'
                         '    {"name": "ok", "rotor_inertia": 1e-5, "source": "sheet"},\n'
                         '    {"name": "bad", "rotor_inertia": -1, "source": "sheet"}\n  ]\n}\n')
    status, text = run(capsys, "validate", demo / "demo.rig.json")
    assert status == 1
    m = at_line(text, "actuator.record", actuators, 4)
    assert m["message"].startswith("#/actuators/1: ")


@pytest.mark.parametrize("command", ["play", "field"])
def test_a_rig_breaking_a_rule_names_the_line_of_what_breaks_it(demo, tmp_path, capsys, command):
    path = _rig_with(demo, '"material": "NdFeB-N42",', '"material": "aluminium",')  # no remanence
    status, text = run(capsys, command, path, "--commands", demo / "chain.csv", "--out", tmp_path / "o.npz")
    assert status == 2
    m = at_line(text, "magnet.remanence", path, _line_holding(path, '"remanence"'))
    assert m["message"].startswith("magnets.m1.remanence: the magnet has no remanence")


# -- a command file -------------------------------------------------------------------------------------
def test_a_bad_cell_of_a_command_file_names_its_line(demo, tmp_path, capsys):
    commands = tmp_path / "c.csv"
    commands.write_text("# a comment first\ntime,joint_1\n0,0\n0.1,x\n")
    status, text = run(capsys, "play", demo / "arm.urdf", "--commands", commands, "--out", tmp_path / "o.npz")
    assert status == 2
    at_line(text, "commands.format", commands, 4)


@pytest.mark.parametrize("column, words", [
    ("arm.torque", "'arm' is not a motor"),  # a motor's channel on an arm
    ("arm.joint_torques.elbow", "no joint 'elbow' in 'arm'"),
    ("spindle.torque", "not a torque channel of this rig"),
])
@pytest.mark.parametrize("command", ["play", "field"])
def test_a_torque_channel_the_rig_lacks_names_the_header_line(demo, tmp_path, capsys, column, words, command):
    commands = tmp_path / "t.csv"
    commands.write_text(f"# torques\n\ntime,motor.torque,{column}\n0,0,0\n0.1,0,0\n")
    extra = ["--probe", "0.3,0,0.25"] if command == "field" else []
    status, text = run(capsys, command, demo / "demo.rig.json", "--commands", commands, *extra,
                       "--out", tmp_path / "o.npz")
    assert status == 2
    m = at_line(text, "commands.torque", commands, 3)
    assert m["message"].startswith(f"column 3: '{column}'") and words in m["message"]
    assert not (tmp_path / "o.npz").exists()


# -- an option ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv, code, option", [
    (["play", "ARM", "--dt", "-1"], "play.dt", "--dt"),
    (["play", "ARM", "--servo-tau", "-0.5"], "play.servo-tau", "--servo-tau"),
    (["field", "RIG", "--probe", "1,2"], "field.probe", "--probe"),
])
def test_a_bad_option_names_the_option(demo, tmp_path, capsys, argv, code, option):
    files = {"ARM": demo / "arm.urdf", "RIG": demo / "demo.rig.json"}
    argv = [str(files.get(a, a)) for a in argv]
    status, text = run(capsys, *argv, "--commands", demo / "wave.csv", "--out", tmp_path / "o.npz")
    assert status == 2
    m = AT_OPTION.match(text)
    assert m and (m["code"], m["option"]) == (code, option), text
