"""Every headless command writes to the streams its caller hands it, and to no other.

``mime-gui`` passes the process's stdout and stderr; a program that embeds a command (a notebook, a batch
script, the sweep's workers) passes its own, and must get every line: the summary, the findings of a rig
that does not build, the refusal of a bad option or of a target it cannot write. One line that goes to the
process's stream instead is lost to that caller. So each command that takes ``out`` and ``err`` is run here
on a success and on refusals through its own entry point, with two buffers, and the process's streams must
stay empty while the buffers hold what the command said (``play``, ``field`` and ``sweep`` raise a refusal
to their caller instead, with its code and text, and print nothing).
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import shutil

import pytest

from mime_gui import RESOURCES
from mime_gui.errors import CodedError

DEMO = RESOURCES / "demo" / "demo.rig.json"
CHAIN = RESOURCES / "demo" / "chain.csv"

# command -> (module in mime_gui.cli, its entry point taking (args, out, err))
ENTRIES = {
    "validate": ("rig", "run"), "report": ("rig", "run"), "export": ("rig", "run"),
    "play": ("play", "play"), "field": ("field", "field"), "trajectory": ("trajectory", "run"),
    "plan": ("plan", "run"), "sweep": ("sweep", "sweep"),
}


def _broken(tmp_path):
    """The demo rig (copied with its description) with its motor mounted on a frame the arm lacks: it reads,
    and does not build."""
    folder = tmp_path / "demo"
    shutil.copytree(DEMO.parent, folder)
    path = folder / "demo.rig.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["chain"][1]["mount"] = "flange"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


# id -> (command, arguments, exit code or None for any refusal); BROKEN, TMP and MISSING are put in per test
CASES = {
    "validate a valid rig": ("validate", [DEMO], 0),
    "validate a rig that does not build": ("validate", ["BROKEN"], 1),
    "report": ("report", [DEMO], 0),
    "report as JSON": ("report", [DEMO, "--json"], 0),
    "report of a rig that does not build": ("report", ["BROKEN"], 1),
    "export Python": ("export", [DEMO, "--python", "TMP/rig.py"], 0),
    "export a bundle": ("export", [DEMO, "--bundle", "TMP/rig.zip"], 0),
    "export a rig that does not build": ("export", ["BROKEN", "--json", "TMP/x.rig.json"], 1),
    "export into a missing folder": ("export", [DEMO, "--json", "MISSING/rig.rig.json"], 1),
    "export a pose": ("export", [DEMO, "--commands", "TMP/home.csv", "--pose", "home"], 0),
    "play": ("play", [DEMO, "--commands", CHAIN, "--out", "TMP/played.npz"], 0),
    "play into a missing folder": ("play", [DEMO, "--commands", CHAIN, "--out", "MISSING/p.npz"], None),
    "field": ("field", [DEMO, "--commands", CHAIN, "--out", "TMP/field.npz"], 0),
    "field at a probe the rig lacks": ("field", [DEMO, "--commands", CHAIN, "--probe", "nowhere", "--out",
                                                 "TMP/f.npz"], None),
    "trajectory": ("trajectory", [DEMO, "spin 5 Hz", "--out", "TMP/spin.csv"], 0),
    "an unknown trajectory": ("trajectory", [DEMO, "tumble", "--out", "TMP/t.csv"], None),
    "plan for a target the rig lacks": ("plan", [DEMO, "--target", "nothing", "--out", "TMP/plan.csv"], None),
    "sweep of a path the rig lacks": ("sweep", [DEMO, "--vary", "parts.nothing.at=0:1:2", "--out",
                                                "TMP/sweep.csv"], None),
}


def _filled(argv, tmp_path) -> list[str]:
    places = {"TMP": str(tmp_path), "MISSING": str(tmp_path / "no" / "such")}
    out = []
    for a in map(str, argv):
        if a == "BROKEN":
            a = str(_broken(tmp_path))
        for key, value in places.items():
            if a.startswith(key + "/"):
                a = value + a[len(key):]
        out.append(a)
    return out


def _args(command: str, argv) -> argparse.Namespace:
    module = importlib.import_module(f"mime_gui.cli.{ENTRIES[command][0]}")
    parser = argparse.ArgumentParser(prog=f"mime-gui {command}")
    module.add_arguments(parser, command)
    args = parser.parse_args(argv)
    args.command = command
    return args


@pytest.mark.parametrize("case", CASES)
def test_a_command_writes_only_to_the_streams_it_is_given(case, tmp_path, capsys):
    command, argv, expected = CASES[case]
    module_name, entry = ENTRIES[command]
    run = getattr(importlib.import_module(f"mime_gui.cli.{module_name}"), entry)
    args = _args(command, _filled(argv, tmp_path))
    capsys.readouterr()  # whatever reading the arguments printed is not the command's
    out, err = io.StringIO(), io.StringIO()
    try:
        code = run(args, out, err)
    except CodedError as exc:  # play, field and sweep hand a refusal to their caller, which prints it
        assert expected is None, exc.one_line()
        code, said = None, exc.one_line()
    else:
        said = out.getvalue() + err.getvalue()
        if expected is None:  # a refusal: each command has its own exit code for it
            assert code not in (0, None)
        else:
            assert code == expected
    assert said.strip(), "the command said nothing to its caller"
    leaked = capsys.readouterr()
    assert (leaked.out, leaked.err) == ("", "")
