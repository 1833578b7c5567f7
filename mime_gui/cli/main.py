"""The ``mime-gui`` entry point.

``mime-gui [FILE]`` and ``mime-gui --screenshot OUT.png [FILE]`` open the desktop app (the only path that
imports Qt). The headless subcommands (``inspect``, ``play``, ``validate``, ``report``, ``export``,
``field``, ``trajectory``, ``plan``, ``sweep``) live in ``mime_gui.cli`` and never import Qt, pyvista or vtk.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from mime_gui.cli import package_dirs

# subcommand → module in mime_gui.cli providing ``add_arguments(parser)`` and ``run(args) -> int``
SUBCOMMANDS = {
    "inspect": ("inspect", "print what a URDF holds and what the reader did with it"),
    "play": ("play", "play recorded joint commands through the KinematicArmNode, headless"),
    "validate": ("rig", "check a rig file; one line per finding"),
    "report": ("rig", "the build report of a rig: armature and mass sources, grafts, totals"),
    "export": ("rig", "export a valid rig as MIME-style Python, a rig file or a bundle"),
    "field": ("field", "the magnets' field at probes along played commands, headless"),
    "trajectory": ("trajectory", "render a rig's authored trajectory to a command file, headless"),
    "plan": ("plan", "poses and a command file that give a probe the field asked for, headless"),
    "sweep": ("sweep", "every variant of a rig (findings, field, torques, clearance) as a table, headless"),
}


def _headless(argv: list[str]) -> int:
    name = argv[0]
    module = importlib.import_module(f"mime_gui.cli.{SUBCOMMANDS[name][0]}")
    parser = argparse.ArgumentParser(prog=f"mime-gui {name}", description=SUBCOMMANDS[name][1])
    module.add_arguments(parser, name)
    args = parser.parse_args(argv[1:])
    args.command = name
    return int(module.run(args) or 0)


def _gui_parser() -> argparse.ArgumentParser:
    width = max(map(len, SUBCOMMANDS))  # one column for the help, however long the longest name
    epilog = "headless subcommands:\n" + "\n".join(
        f"  {name:<{width}}  {help_}" for name, (_, help_) in SUBCOMMANDS.items()
    )
    parser = argparse.ArgumentParser(
        prog="mime-gui", description="MIME Rig Builder: open a URDF or a rig file in the desktop app.",
        epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", nargs="?", help="a .urdf or .rig.json file (default: the bundled demo rig)")
    parser.add_argument("--screenshot", metavar="OUT.png",
                        help="show the main window, render once, write the PNG and exit")
    parser.add_argument("--size", default="1400x900", help="window size for --screenshot (WIDTHxHEIGHT)")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    package_dirs.add_option(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in SUBCOMMANDS:
        try:
            return _headless(argv)
        except KeyboardInterrupt:
            return 130
    args = _gui_parser().parse_args(argv)
    if args.version:
        from mime_gui import __version__

        print(f"mime-gui {__version__}")
        return 0
    from mime_gui.app.main import run_app  # Qt is imported here and only here

    return run_app(file=args.file, screenshot=args.screenshot, size=args.size, package_dirs=args.package_dir)


if __name__ == "__main__":
    raise SystemExit(main())
