"""Every command a ```sh block of README.md or docs/*.md shows runs as written and exits 0.

A block line is a command when it starts with ``mime-gui`` or ``python -m mime_gui`` (``make …`` and the
benchmark lines are not this program's). Its placeholders become the demo's files and outputs in one shared
folder through :data:`PLACEHOLDERS`, an unknown one fails; ``[…]`` is optional, ``A|B`` is a choice and
``...`` says "repeatable": a command runs once without its optional parts and once with all of them, for
each choice. The headless subcommands run in this process (a fraction of a second each); the window runs
with ``--screenshot`` in a process of its own, once; a command that waits for the user is in
:data:`SKIPPED` with the reason.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.cli import main

ROOT = Path(__file__).resolve().parents[1]
DEMO = RESOURCES / "demo"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PROGRAMS = (("mime-gui",), ("python", "-m", "mime_gui"))


def _placeholders(out: Path) -> dict[str, str]:
    """What each placeholder of the docs stands for here."""
    return {
        "FILE": DEMO / "demo.rig.json",
        "RIG.rig.json": DEMO / "demo.rig.json",
        "ROBOT.urdf": DEMO / "arm.urdf",
        "CMD.csv": DEMO / "chain.csv",  # the demo rig's (<segment>.<joint> columns)
        "CMD.npz": DEMO / "pick.npz",  # the arm's (bare joint names)
        "BUNDLE.zip": out / "bundle.zip",  # written first, by export --bundle
        "DIR": DEMO,
        "NAME": "sample",  # the demo rig's probe
        "X,Y,Z": "0.3,0,0.25",
        "S": "0.02",
        "N": "2",
        **{f"OUT.{suffix}": out / f"out.{suffix}"
           for suffix in ("png", "npz", "py", "rig.json", "zip", "csv", "urdf", "xml", "parquet")},
    }


PLACEHOLDERS = tuple(_placeholders(Path("/")))
#: documented commands that are not run, and why
SKIPPED = {
    "mime-gui [FILE]": "opens the window and waits for the user to close it; the --screenshot line opens the "
                       "same window, renders it and exits",
}


def _sh_lines(path: Path):
    """``(line number, command text)`` of every line of every ```sh block, continuations joined."""
    inside, pending, start = False, "", 0
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip().startswith("```"):
            inside = line.strip() == "```sh"
            continue
        if not inside:
            continue
        start = start or number
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        yield start, (pending + line).strip()
        pending, start = "", 0


def _command(text: str) -> list[str] | None:
    """The words of a command of this program, its comment dropped; None for another program's line."""
    words = shlex.split(text, comments=True)
    return words if any(tuple(words[:len(p)]) == p for p in PROGRAMS) else None


def _variants(words: list[str]) -> list[list[str]]:
    """The argument lists a synopsis stands for: without its optional groups, and with all of them for each
    choice of every ``A|B`` word."""
    items: list[tuple[bool, str]] = []  # (optional, word)
    depth = 0
    for word in words:
        opening, closing = word.startswith("["), word.endswith("]")
        word = word.strip("[]")
        depth += opening
        if word != "...":
            assert "|" not in word or word.strip("|") == word, f"a lone '|' in {words}: write one line each"
            items.append((depth > 0, word))
        depth -= closing
    bare = [[w.split("|")[0] for optional, w in items if not optional]]
    choices = [w.split("|") for _, w in items]
    full = [list(words) for words in itertools.product(*choices)]
    out: list[list[str]] = []
    for v in bare + full:
        if v not in out:
            out.append(v)
    return out


def documented() -> list[tuple[str, str, list[str]]]:
    """``(where, as written, words)`` of every variant of every documented command."""
    found = []
    for path in DOCS:
        for number, text in _sh_lines(path):
            words = _command(text)
            if words is None:
                continue
            written = " ".join(shlex.split(text, comments=True))
            for variant in _variants(words):
                found.append((f"{path.relative_to(ROOT)}:{number}", written, variant))
    return found


COMMANDS = documented()


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    """One folder for every command's outputs, the bundle the docs open made first."""
    folder = tmp_path_factory.mktemp("documented")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MIME_GUI_BUNDLE_CACHE", str(folder / "bundles"))
        assert main(["export", str(DEMO / "demo.rig.json"), "--bundle", str(folder / "bundle.zip")]) == 0
    return folder


def test_the_docs_show_commands_and_the_skipped_ones_are_among_them():
    written = {w for _, w, _ in COMMANDS}
    assert len(written) >= 10
    assert set(SKIPPED) <= written, "a skipped command is no longer documented: drop it from SKIPPED"


@pytest.mark.parametrize("where, written, words", COMMANDS,
                         ids=[f"{w} {' '.join(v)}" for w, _, v in COMMANDS])
def test_a_documented_command_runs_as_written(where, written, words, out, monkeypatch, capsys):
    if written in SKIPPED:
        pytest.skip(SKIPPED[written])
    monkeypatch.setenv("MIME_GUI_BUNDLE_CACHE", str(out / "bundles"))
    monkeypatch.setenv("MIME_GUI_CONFIG_DIR", str(out / "config"))  # no actuators of this machine's user
    table = _placeholders(out)
    unknown = [w for w in words if re.fullmatch(r"[A-Z][A-Z0-9_,]*(\.[a-z.]+)?", w) and w not in table]
    assert not unknown, f"{where}: placeholder(s) {unknown} not in PLACEHOLDERS"
    args = [str(table.get(w, w)) for w in words]
    outputs = [Path(table[w]) for w in words if w.startswith("OUT.")]
    for output in outputs:  # shared with other lines: each must write its own
        output.unlink(missing_ok=True)
    program = 1 if args[0] == "mime-gui" else 3
    args = args[program:]
    if program == 3 or "--screenshot" in args:  # the module as a program, or the window: a process of its own
        if "--screenshot" in args:
            if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
                pytest.skip("the window needs a display (run under xvfb-run)")
            if words != next(v for w, _, v in COMMANDS if w == where):
                pytest.skip("the window runs once per documented line (its first form): each start is slow")
        done = subprocess.run([sys.executable, "-m", "mime_gui", *args], capture_output=True, text=True,
                              cwd=out, timeout=240)
        status, text = done.returncode, done.stdout + done.stderr
    else:
        try:
            status = main(args)
        except SystemExit as exc:  # argparse refused the line
            status = exc.code
        captured = capsys.readouterr()
        text = captured.out + captured.err
    assert status == 0, f"{where}: {written}\n{text}"
    for output in outputs:
        assert output.is_file() and output.stat().st_size > 0, f"{where}: {written} wrote no {output.name}"


def test_the_servo_time_constant_play_says_it_uses_by_default_is_each_segments_own(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["play", "--help"])
    assert "on a rig each segment's own servo_time_constant" in " ".join(capsys.readouterr().out.split())
    rig, commands = DEMO / "demo.rig.json", str(DEMO / "chain.csv")
    own = ", ".join(f"{s['name']} {s['servo_time_constant']['value']:g} s"
                    for s in json.loads(rig.read_text())["chain"])
    assert main(["play", str(rig), "--commands", commands, "--out", str(tmp_path / "own.npz")]) == 0
    assert f"servo time constant {own}\n" in capsys.readouterr().out
    assert main(["play", str(rig), "--commands", commands, "--servo-tau", "0", "--out",
                 str(tmp_path / "zero.npz"), "--quiet"]) == 0
    with np.load(tmp_path / "own.npz") as a, np.load(tmp_path / "zero.npz") as b:
        assert not np.allclose(a["joint_positions"], b["joint_positions"])  # the arm's 0.05 s lags behind


def test_the_top_level_help_lists_the_headless_subcommands_under_their_heading(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    listed = out[out.index("\nheadless subcommands:\n"):]
    for name in ("inspect", "play", "validate", "report", "export", "field"):  # the README's six
        assert f"\n  {name} " in listed, name
    assert "render once, write the PNG and exit" in " ".join(out.split())


@pytest.mark.parametrize("argv, text", [
    (["play", "--help"], "what to play ("),
    (["validate", "--help"], "the rig file, or a bundle (.zip)"),
    (["inspect", "--help"], "a folder where package:// meshes are looked for"),
], ids=["play", "validate", "inspect"])
def test_each_subcommand_s_help_says_what_its_arguments_are(argv, text, capsys):
    with pytest.raises(SystemExit):
        main(argv)
    assert text in " ".join(capsys.readouterr().out.split())


def test_the_field_summary_docs_field_md_shows_is_the_one_the_command_prints(tmp_path, monkeypatch, capsys):
    # the example's numbers are the demo's: a change of the demo rig or of the field must change them too
    text = (ROOT / "docs" / "field.md").read_text(encoding="utf-8")
    block = r"`(mime-gui field demo\.rig\.json [^`]+)` prints:\n\n```\n(.*?)\n  \.\.\.\n```"
    command, shown = re.search(block, text, re.S).groups()
    folder = tmp_path / "demo"
    shutil.copytree(DEMO, folder)
    monkeypatch.chdir(folder)
    assert main(shlex.split(command)[1:]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[:len(shown.splitlines())] == shown.splitlines()
