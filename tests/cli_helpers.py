"""Calling the command line from a test: a whole ``mime-gui`` run with its streams caught, and the arguments a
rig command (validate, report, export) parses, as ``main`` hands them to ``cli.rig.run``."""

from __future__ import annotations

import argparse
import contextlib
import io

from mime_gui.cli import main
from mime_gui.cli import rig as rig_command


def run_cli(*argv) -> tuple[int, str, str]:
    """``mime-gui ARGV...``: its exit status, what it printed on stdout and on stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(a) for a in argv])
    return status, out.getvalue(), err.getvalue()


def rig_args(command: str, *argv) -> argparse.Namespace:
    """The arguments ``mime-gui COMMAND ARGV...`` parses, as main hands them to cli.rig.run."""
    parser = argparse.ArgumentParser()
    rig_command.add_arguments(parser, command)
    args = parser.parse_args([str(a) for a in argv])
    args.command = command
    return args
