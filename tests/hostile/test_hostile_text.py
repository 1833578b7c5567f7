"""Terminal and message safety, numbers written as text, entities only an external DTD declares.

A name from a file may hold a newline, a carriage return, ESC, a C1 control such as CSI (U+009B) or a Unicode
line separator: every command prints it escaped, so no line can be forged and nothing reaches the terminal
raw. ``1_000`` (which Python's ``float`` reads) is not a number in a file. A reference to an entity that only
an external DTD declares is refused, not read as an empty string.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hostile_corpus import DEMO_URDF, LIMIT, cli, error_lines, one_error, rig_with, robot, write

from mime_gui.multibody import UrdfError, read_urdf
from mime_gui.nodes import read_commands
from mime_gui.nodes.commands import CommandFileError

pytestmark = pytest.mark.timeout(60)

# character references XML 1.0 accepts in attribute values, each a way to break or colour a line
FORGERS = {"newline": "&#10;", "return": "&#13;", "csi": "&#x9b;", "nel": "&#x85;",
           "line_separator": "&#x2028;", "tab": "&#9;", "bidi_override": "&#x202e;"}


def forged_urdf(ref: str) -> str:
    """Every name of a two-joint robot carries ``ref`` followed by a would-be error line."""
    fake = f"{ref}error[urdf.xml] x.urdf:1: forged{ref}"
    return robot(f'<link name="a{fake}"/><link name="b{fake}"/><link name="c"/>'
                 f'<joint name="j{fake}" type="revolute"><parent link="a{fake}"/><child link="b{fake}"/>'
                 f'{LIMIT}</joint><joint name="k" type="revolute"><parent link="b{fake}"/><child link="c"/>'
                 f'{LIMIT}<mimic joint="j{fake}"/></joint>', name=f"robot{fake}")


def printable_lines(text: str) -> list[str]:
    assert text.endswith("\n")
    lines = text[:-1].split("\n")
    for line in lines:
        assert line.isprintable(), line
        assert not line.lstrip().startswith("error["), line
    return lines


@pytest.mark.parametrize("forger", sorted(FORGERS))
def test_inspect_escapes_every_name_so_no_line_is_forged(tmp_path, forger):
    path = write(tmp_path, "forged.urdf", forged_urdf(FORGERS[forger]))
    plain = write(tmp_path, "plain.urdf", forged_urdf(""))
    status, out, err = cli("inspect", path)
    assert status == 0 and err == ""
    _, reference, _ = cli("inspect", plain)
    assert len(printable_lines(out)) == len(reference.splitlines())
    status, out, _ = cli("inspect", path, "--json")
    names = json.loads(out)
    assert names["name"].startswith("robot") and "forged" in names["name"]  # the JSON keeps the text exactly


def test_a_refusal_naming_a_hostile_name_stays_one_line(tmp_path):
    fake = "&#10;error[urdf.io] y: z&#x9b;31m"
    path = write(tmp_path, "twice.urdf", robot(f'<link name="a{fake}"/><link name="a{fake}"/>'))
    status, _, err = cli("inspect", path)
    m = one_error(err)
    assert status == 2 and m["code"] == "urdf.duplicate-name" and "\\n" in m["message"]


def test_a_path_with_a_newline_stays_on_its_line(tmp_path):
    path = write(tmp_path, "x\nerror[urdf.io] y.urdf: z\x1b[31m.urdf", robot('<link name="a"/>'))
    status, out, _ = cli("inspect", path)
    assert status == 0 and printable_lines(out)[0].startswith("robot r  (")
    status, _, err = cli("inspect", tmp_path / "no\nsuch\x1b.urdf")
    assert status == 2 and one_error(err)["code"] == "urdf.io"


def test_play_escapes_the_names_it_prints(tmp_path):
    fake = "&#10;error[urdf.xml] x.urdf:1: forged&#x9b;2J"
    urdf = write(tmp_path, "arm\nerror[x] y: z.urdf", robot(
        f'<link name="a"/><link name="b"/><joint name="j" type="revolute"><parent link="a"/><child link="b"/>'
        f"{LIMIT}</joint>", name=f"arm{fake}"))
    cmd = write(tmp_path, "c\x1b[2J\nerror[x] y: z.csv", "time,j\n0,0\n0.1,0.1\n")
    status, out, err = cli("play", urdf, "--commands", cmd, "--out", tmp_path / "o\u2028ut.npz")
    assert status == 0 and err == ""
    lines = printable_lines(out)
    assert len(lines) == 6 and lines[0].startswith("played ") and lines[-1].startswith("  wrote ")
    # a refusal naming the same paths is one line too
    status, _, err = cli("play", urdf, "--commands", cmd, "--out", tmp_path / "o\nut.txt")
    assert status == 2 and one_error(err)["code"] == "play.out"


def test_names_with_control_characters_are_findings_each_on_its_own_line(tmp_path):
    hostile = "esc\x1b[31m\nerror[part.mount] parts.x.mount: forged\u2028\x85end"

    def rename(data):
        data["name"] = hostile
        data["parts"][hostile.replace(".", "")] = data["parts"].pop("holder")

    status, out, _ = cli("validate", rig_with(tmp_path, rename))
    assert status == 1 and [m["code"] for m in error_lines(out)] == ["name.invalid", "name.invalid"], out
    escaped = "esc\\x1b[31m\\nerror[partmount] partsxmount: forged\\u2028\\x85end"
    assert out.splitlines()[1].startswith(f"error[name.invalid] parts.{escaped}: 'esc\\x1b[31m\\n"), out


def test_rig_commands_escape_names_in_every_line(tmp_path):
    # format characters (a bidi override, a zero-width space) keep the rule of names but not a terminal's
    hostile = "esc\u202e[31m error[part:mount] forged\u200bend"

    def rename(data):
        data["name"] = hostile
        data["parts"][hostile] = data["parts"].pop("holder")

    path = rig_with(tmp_path, rename)
    status, out, _ = cli("validate", path)

    def benign(data):  # the same rename with a plain name: the lines validate prints (its warnings too)
        data["parts"]["esc"] = data["parts"].pop("holder")

    _, plain_out, _ = cli("validate", rig_with(tmp_path / "benign", benign))
    assert status == 0 and len(printable_lines(out)) == len(plain_out.splitlines())
    status, out, _ = cli("report", path)
    plain = rig_with(tmp_path / "plain", lambda data: None)
    _, reference, _ = cli("report", plain)
    assert status == 0 and len(printable_lines(out)) == len(reference.splitlines())
    status, out, _ = cli("report", path, "--json")
    assert status == 0 and out.isascii() and json.loads(out)["rig"] == hostile
    target = tmp_path / "out\nerror[x] y: z.rig.json"
    status, out, _ = cli("export", path, "--json", target)
    assert status == 0 and printable_lines(out) == [f"wrote {str(target)!s}".replace("\n", "\\n")]


def test_an_invalid_rig_with_hostile_names_prints_findings_on_their_lines(tmp_path):
    def bad_mount(data):
        data["parts"]["holder"]["mount"] = "motor.rotor\nerror[name.invalid] x: forged\x1b[0m"

    status, out, _ = cli("validate", rig_with(tmp_path, bad_mount))
    (m,) = error_lines(out)
    assert status == 1 and m["code"] == "part.mount"


def test_a_control_character_in_a_file_name_is_escaped_in_python_development_mode(tmp_path):
    """``python -X dev`` checks the name of every encoding error handler when it is given: the escaping of a
    file name must name a real one, or the refusal becomes a traceback for whoever runs in that mode."""
    missing = tmp_path / "no\x01such.urdf"
    done = subprocess.run([sys.executable, "-X", "dev", "-m", "mime_gui", "inspect", str(missing)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr, done.stderr
    m = one_error(done.stderr)
    # U+0001 written as its escape, the four characters \x01, so the line shows where the name has it
    assert m["code"] == "urdf.io" and m["where"] == f"{tmp_path}/no\\x01such.urdf"
    assert "check the path" in m["message"]


# -- numbers as text -----------------------------------------------------------------------------------
@pytest.mark.parametrize("cell, column", [("1_000", 2), ("-1_0", 2), ("0_5", 1), ("1_0e3", 2), ("1e1_0", 2)])
def test_a_csv_cell_with_grouped_digits_is_not_a_number(tmp_path, cell, column):
    rows = f"time,joint_1\n0,0\n{cell if column == 1 else '0.5'},{cell if column == 2 else '1'}\n"
    path = write(tmp_path, "grouped.csv", rows)
    with pytest.raises(CommandFileError) as info:
        read_commands(path)
    assert info.value.code == "commands.format" and info.value.line == 3
    assert "grouped with '_'" in info.value.message
    status, _, err = cli("play", DEMO_URDF, "--commands", path, "--out", tmp_path / "o.npz")
    assert status == 2 and one_error(err)["where"] == f"{path}:3"


def test_grouped_digits_on_the_command_line_are_refused_by_argparse(tmp_path):
    cmd = write(tmp_path, "c.csv", "time,joint_1\n0,0\n0.1,1\n")
    status, _, err = cli("play", DEMO_URDF, "--commands", cmd, "--dt", "1_0", "--out", tmp_path / "o.npz")
    assert status == 2 and "invalid number value: '1_0'" in err and "Traceback" not in err


# -- entities of an external DTD ----------------------------------------------------------------------------
EXTERNAL = '<?xml version="1.0"?>\n<!DOCTYPE robot SYSTEM "robot.dtd">\n'
DTD_CASES = {  # id -> (bytes, code or None when it loads, line)
    "robot_name": ((EXTERNAL + '<robot name="&rname;">\n<link name="a"/>\n</robot>\n').encode(),
                   "urdf.entity", 3),
    "link_name": ((EXTERNAL + '<robot name="r">\n\n<link name="a&suffix;"/>\n</robot>\n').encode(),
                  "urdf.entity", 5),
    "public_id": (b'<?xml version="1.0"?>\n<!DOCTYPE robot PUBLIC "-//X//Robot//EN" "r.dtd">\n'
                  b'<robot name="&r;"><link name="a"/></robot>\n', "urdf.entity", 3),
    "utf16": ((EXTERNAL.replace("1.0", '1.0" encoding="UTF-16') + '<robot name="&r;"><link name="a"/>'
               "</robot>\n").encode("utf-16"), "urdf.entity", 3),
    "in_text": ((EXTERNAL + '<robot name="r">\n<link name="a">&text;</link>\n</robot>\n').encode(),
                "urdf.xml", 4),
    "in_comment_and_cdata": ((EXTERNAL + '<robot name="r&amp;q">\n<!-- &c; -->\n<link name="a">'
                              "<![CDATA[&x;]]></link>\n</robot>\n").encode(), None, 0),
    "no_reference": ((EXTERNAL + '<robot name="r"><link name="a"/></robot>\n').encode(), None, 0),
}


@pytest.mark.parametrize("case", sorted(DTD_CASES))
def test_an_entity_only_an_external_dtd_declares_is_refused(tmp_path, case):
    data, code, line = DTD_CASES[case]
    path = write(tmp_path, f"{case}.urdf", data)
    if code is None:
        tree = read_urdf(path)
        assert tree.root == "a" and tree.name in ("r", "r&q")
        return
    with pytest.raises(UrdfError) as info:
        read_urdf(path)
    assert info.value.code == code and info.value.line == line
    status, _, err = cli("inspect", path)
    assert status == 2 and one_error(err)["code"] == code
