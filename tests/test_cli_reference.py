"""docs/cli.md is what the command line says of itself: every subcommand's ``--help``, verbatim.

The page is written by tools/cli_reference.py; these tests read each help through ``mime-gui … --help`` and
compare it with the page's block for that command, so an option, a default or a help text that changes
without the page (or the page without the code) fails here, one command at a time.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from mime_gui.cli import main
from mime_gui.cli.main import SUBCOMMANDS

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import cli_reference  # noqa: E402

COMMANDS = ("", *SUBCOMMANDS)


def _blocks() -> dict[str, str]:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    return {title.removeprefix("mime-gui").strip(): block
            for title, block in re.findall(r"^## `([^`]+)`\n\n```text\n(.*?)```\n", text, re.S | re.M)}


def test_the_page_has_one_block_per_command_in_the_order_of_the_window_s_help():
    assert list(_blocks()) == list(COMMANDS)


@pytest.mark.parametrize("name", COMMANDS, ids=[name or "mime-gui" for name in COMMANDS])
def test_the_page_shows_what_the_command_s_help_prints(name, monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", str(cli_reference.COLUMNS))
    with pytest.raises(SystemExit) as done:
        main([name, "--help"] if name else ["--help"])
    assert done.value.code == 0
    printed = capsys.readouterr().out
    assert printed.startswith(f"usage: mime-gui {name}".rstrip() + " ")
    assert _blocks()[name] == printed, "docs/cli.md is stale: run .venv/bin/python tools/cli_reference.py"


def test_the_tool_s_check_passes_on_the_page_and_fails_on_a_stale_one(tmp_path, monkeypatch, capsys):
    assert cli_reference.main(["--check"]) == 0
    stale = tmp_path / "cli.md"
    stale.write_text(cli_reference.PAGE.read_text(encoding="utf-8").replace("--json", "--jsn", 1),
                     encoding="utf-8")
    monkeypatch.setattr(cli_reference, "PAGE", stale)
    assert cli_reference.main(["--check"]) == 1
    assert "differs from the help" in capsys.readouterr().out


def test_the_window_s_subcommand_list_keeps_one_column_for_the_longest_name(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    listed = capsys.readouterr().out.split("headless subcommands:\n", 1)[1].splitlines()
    assert len(listed) == len(SUBCOMMANDS)
    starts = {line.index(help_) for line, (_, help_) in zip(listed, SUBCOMMANDS.values(), strict=True)}
    assert starts == {2 + max(map(len, SUBCOMMANDS)) + 2}
