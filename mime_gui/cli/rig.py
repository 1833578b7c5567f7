"""``mime-gui validate | report | export RIG.rig.json``: the rig model on the command line, headless.

- ``validate RIG``: exit 0 when the rig is valid; exit 1 with one line per finding,
  ``error[code] where: message`` (``where`` a rig path such as ``parts.holder.mount``).
- ``report RIG [--json]``: the build report (armature source of every joint, mass source of every part,
  grafts, totals, magnetic moments) as text or JSON.
- ``export RIG --python OUT.py | --json OUT.rig.json | --bundle OUT.zip``: MIME-style Python, a rig file, or
  a bundle (the rig file and every file it references); each records its provenance (versions, rungs, the
  SHA-256 of every referenced file). An invalid rig writes nothing and exits 1.

``validate`` prints a ``warning[provenance.changed|missing] FILE: ...`` line for every file an export
recorded that changed or is gone since (the exit status is the rig's). ``RIG`` may be a bundle (``.zip``):
it is checked and extracted into the bundle cache first (see :mod:`mime_gui.rig.bundle`).

A rig file that cannot be read prints one ``error[rigfile.*] FILE:LINE: #/json/pointer: message`` line and
exits 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from mime_gui.cli import package_dirs
from mime_gui.multibody.errors import CodedError, printable

EXIT_OK = 0
EXIT_INVALID = 1


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument("rig", metavar="RIG.rig.json", help="the rig file, or a bundle (.zip)")
    package_dirs.add_option(parser)
    if name == "report":
        parser.add_argument("--json", action="store_true", help="print the report as JSON")
    elif name == "export":
        out = parser.add_mutually_exclusive_group(required=True)
        out.add_argument("--python", metavar="OUT.py", help="write MIME-style Python source defining `rig`")
        out.add_argument("--json", metavar="OUT.rig.json", help="write a rig file (paths relative to it)")
        out.add_argument("--bundle", metavar="OUT.zip", help="write a zip of the rig file and every file it "
                         "references, to open on another machine")


def _print_findings(findings, stream) -> int:
    for f in findings:
        print(str(f), file=stream)
    return EXIT_INVALID


def _escaped(value):
    """``value`` (JSON-like data) with every string, keys included, as :func:`printable` writes it."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {_escaped(k): _escaped(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_escaped(v) for v in value]
    return value


def _say(line: str, stream) -> None:
    """Print one line, escaped: the names and paths in it come from files, and none may forge a line."""
    print(printable(line), file=stream)


def run(args: argparse.Namespace, out=None, err=None) -> int:
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    command = getattr(args, "command", "validate")
    with package_dirs.applied(args):
        return _run(command, args, out, err)


def _run(command: str, args: argparse.Namespace, out, err) -> int:
    from mime_gui.rig import RigError, actuator_sources, bundle, load, provenance

    try:
        path = bundle.open_bundle(args.rig) if bundle.is_bundle(args.rig) else Path(args.rig)
        rig = load(path)
        actuator_sources.discover(path.resolve().parent)  # entry points, the config's and the rig's files
    except CodedError as exc:  # rigfile.*, bundle.*, file.*, actuator.*
        print(printable(exc.one_line()), file=out)
        return EXIT_INVALID

    if command == "validate":
        findings = rig.validate()
        for warning in provenance.changes(provenance.of_file(path), path.resolve().parent):
            print(str(warning), file=out)
        if findings:
            return _print_findings(findings, out)
        counts = f"{len(rig.chain)} segment(s), {len(rig.parts)} part(s), {len(rig.magnets)} magnet(s)"
        _say(f"{args.rig}: rig {rig.name!r} is valid ({counts})", out)
        return EXIT_OK

    if command == "report":
        try:
            built = rig.build()
        except RigError as exc:
            return _print_findings(exc.findings, out)
        if args.json:
            try:  # JSON holds finite numbers only; the rules keep every reported value finite
                out.write(json.dumps(built.report.data, indent=2, allow_nan=False) + "\n")
            except ValueError as exc:
                print(f"error[report.non-finite] {printable(str(args.rig))}: the report holds a number JSON "
                      f"cannot ({exc}); run mime-gui validate", file=out)
                return EXIT_INVALID
        else:
            # names escaped before the report is rendered: a newline in a name would be a line of its own
            out.write(type(built.report)(_escaped(built.report.data)).to_text())
        return EXIT_OK

    if command == "export":
        from mime_gui.rig.export import export_json, export_python

        findings = rig.validate()
        if findings:
            _say(f"{args.rig}: the rig is not valid; nothing written", err)
            return _print_findings(findings, out)
        bundled = getattr(args, "bundle", None)
        target = Path(args.python or args.json or bundled)
        try:
            if args.python:
                export_python(rig, target, source=Path(args.rig).name)
            elif bundled:
                bundle.write_bundle(rig, target)
            else:
                export_json(rig, target)
        except RigError as exc:
            return _print_findings(exc.findings, out)
        except CodedError as exc:  # a value the file format cannot hold, a target that is not a file
            print(printable(exc.one_line()), file=out)
            return EXIT_INVALID
        except OSError as exc:
            print(printable(f"error[export.io] {target}: cannot write ({exc.strerror or exc})"), file=out)
            return EXIT_INVALID
        _say(f"wrote {target}", out)
        return EXIT_OK

    raise ValueError(f"unknown rig command {command!r}")

