"""Write docs/cli.md, the command line's reference: what ``mime-gui --help`` and each subcommand's ``--help``
print, verbatim, at 100 columns.

    .venv/bin/python tools/cli_reference.py          # rewrite docs/cli.md
    .venv/bin/python tools/cli_reference.py --check  # exit 1 when docs/cli.md differs from the help

tests/test_cli_reference.py fails when the page and the help drift apart, so a changed option, default or
help text is seen in review as a change to the page.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "cli.md"
COLUMNS = 100

HEAD = """# Command-line reference

What `mime-gui --help` and each subcommand's `--help` print (at {columns} columns), verbatim. The README's
Quick start and each topic's page show the commands in use; this page lists every option. It is written by
`tools/cli_reference.py` from the parsers themselves, and a test fails when the two differ.
"""


def help_text(argv: list[str]) -> str:
    """What ``mime-gui ARGV --help`` prints, at :data:`COLUMNS` columns."""
    from mime_gui.cli import main

    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(COLUMNS)  # argparse wraps to the terminal's width
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            main([*argv, "--help"])
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before
    return out.getvalue()


def render() -> str:
    from mime_gui.cli.main import SUBCOMMANDS

    parts = [HEAD.format(columns=COLUMNS)]
    for name in ("", *SUBCOMMANDS):
        title = f"mime-gui {name}".strip()
        parts.append(f"## `{title}`\n\n```text\n{help_text([name] if name else [])}```\n")
    return "\n".join(parts)


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        same = PAGE.exists() and PAGE.read_text(encoding="utf-8") == text
        print("docs/cli.md matches the help" if same else "docs/cli.md differs from the help; run "
              "tools/cli_reference.py to rewrite it")
        return 0 if same else 1
    from mime_gui.files import write_atomic

    write_atomic(PAGE, text)
    print(f"wrote {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
