"""``mime-gui validate | report | export RIG.rig.json``: the rig model on the command line, headless.

- ``validate RIG``: exit 0 when the rig is valid; exit 1 with one line per finding,
  ``error[code] where: message`` (``where`` a rig path such as ``parts.holder.mount``).
- ``report RIG [--json]``: the build report (armature source of every joint, mass source of every part,
  grafts, totals, magnetic moments) as text or JSON.
- ``export RIG --python OUT.py | --json OUT.rig.json | --bundle OUT.zip``: MIME-style Python, a rig file, or
  a bundle (the rig file and every file it references); each records its provenance (versions, rungs, the
  SHA-256 of every referenced file). An invalid rig writes nothing and exits 1.
- ``export RIG --urdf OUT.urdf | --mjcf OUT.xml``: the whole rig as one URDF or as MuJoCo's MJCF, its meshes
  copied beside it (docs/simulators.md); what a format cannot hold is refused with an ``export.*`` code.
- ``export RIG --pose NAME --commands OUT.csv [--hold S] [--dt S]``: the rig's pose ``NAME`` as a held
  command file (:func:`mime_gui.rig.poses.pose_commands`) that ``mime-gui play`` plays.

``validate`` prints a ``warning[provenance.changed|missing] FILE: ...`` line for every file an export
recorded that changed or is gone since (the exit status is the rig's). ``RIG`` may be a bundle (``.zip``):
it is checked and extracted into the bundle cache first (see :mod:`mime_gui.rig.bundle`).

A rig file that cannot be read prints one ``error[rigfile.*] FILE:LINE: #/json/pointer: message`` line and
exits 1.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from mime_gui.cli import package_dirs
from mime_gui.inputs import resolved
from mime_gui.multibody.errors import CodedError, printable

EXIT_OK = 0
EXIT_INVALID = 1
#: a pose's command file: the step and how long the pose is held, unless given
POSE_DT = 0.01
POSE_HOLD = 1.0
POSE_MAX_SAMPLES = 5_000_000  # as many steps as play takes


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
        out.add_argument("--urdf", metavar="OUT.urdf", help="write the whole rig as one URDF, its meshes "
                         "beside it (docs/simulators.md)")
        out.add_argument("--mjcf", metavar="OUT.xml", help="write the whole rig as MuJoCo's MJCF, its meshes "
                         "beside it (docs/simulators.md)")
        out.add_argument("--commands", metavar="OUT.csv", help="write the pose --pose as a held command file "
                         "(.csv or .npz) for mime-gui play")
        parser.add_argument("--pose", metavar="NAME", help="with --commands: the rig's pose to write")
        from mime_gui.cli.play import number  # the one number option of every subcommand

        parser.add_argument("--hold", type=number, default=None, metavar="S",
                            help=f"with --commands: seconds the pose is held (default {POSE_HOLD:g})")
        parser.add_argument("--dt", type=number, default=None, metavar="S",
                            help=f"with --commands: the samples' spacing in seconds (default {POSE_DT:g})")


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
        actuator_sources.discover(resolved(path).parent)  # entry points, the config's and the rig's files
    except CodedError as exc:  # rigfile.*, bundle.*, file.*, actuator.*
        print(printable(exc.one_line()), file=out)
        return EXIT_INVALID

    if command == "validate":
        findings = rig.validate()
        for warning in provenance.changes(provenance.of_file(path), resolved(path).parent):
            print(str(warning), file=out)
        if findings:
            return _print_findings(findings, out)
        from mime_gui.rig.clearance_check import initial_clearance

        for warning in initial_clearance(rig):  # they warn: a buried magnet is told, the rig stays valid
            print(f"warning[{warning.code}] {printable(warning.where)}: {printable(warning.message)}",
                  file=out)
        counts = f"{len(rig.chain)} segment(s), {len(rig.parts)} part(s), {len(rig.magnets)} magnet(s)" + \
            (f", {len(rig.poses)} pose(s)" if rig.poses else "")  # a rig without poses reads as before
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

        problem = _pose_options(args, rig)
        if problem:
            print(printable(problem), file=out)
            return EXIT_INVALID
        findings = rig.validate()
        if findings:
            _say(f"{args.rig}: the rig is not valid; nothing written", err)
            return _print_findings(findings, out)
        if getattr(args, "commands", None):
            return _export_pose(rig, args, out)
        bundled = getattr(args, "bundle", None)
        urdf, mjcf = getattr(args, "urdf", None), getattr(args, "mjcf", None)
        target = Path(args.python or args.json or bundled or urdf or mjcf)

        def write() -> None:
            if args.python:
                export_python(rig, target, source=Path(args.rig).name)
            elif urdf or mjcf:  # the simulators' formats (mime_gui.rig.simulators: export.* refusals)
                from mime_gui.rig.mjcf_export import export_mjcf
                from mime_gui.rig.urdf_export import export_urdf

                (export_urdf if urdf else export_mjcf)(rig, target, source=Path(args.rig).name)
            elif bundled:
                bundle.write_bundle(rig, target)
            else:
                export_json(rig, target)

        try:
            failed = _write(target, write, out)
        except RigError as exc:
            return _print_findings(exc.findings, out)
        if failed:
            return failed
        _say(f"wrote {target}", out)
        return EXIT_OK

    raise ValueError(f"unknown rig command {command!r}")


def _pose_options(args: argparse.Namespace, rig) -> str:
    """The refusal of the pose options (``export.dt``, ``export.hold``, ``export.pose``) as a line; ""
    when they are fine. Checked before the rig's rules, as play checks its options first."""
    from mime_gui.nodes.commands import MAX_TIME

    commands, pose = getattr(args, "commands", None), getattr(args, "pose", None)
    if not commands:
        extra = [o for o, v in (("--pose", pose), ("--hold", getattr(args, "hold", None)),
                                ("--dt", getattr(args, "dt", None))) if v is not None]
        return f"error[export.pose] {extra[0]}: goes with --commands OUT.csv" if extra else ""
    dt = POSE_DT if args.dt is None else args.dt
    hold = POSE_HOLD if args.hold is None else args.hold
    if not (math.isfinite(dt) and 0 < dt <= MAX_TIME):
        return f"error[export.dt] --dt: the step must be a positive number of seconds up to " \
               f"{MAX_TIME:g}, got {dt}"
    if not (math.isfinite(hold) and dt <= hold <= MAX_TIME):
        return f"error[export.hold] --hold: the pose is held from one step ({dt:g} s) up to " \
               f"{MAX_TIME:g} s, got {hold}"
    if hold / dt >= POSE_MAX_SAMPLES:
        return f"error[export.hold] --hold: {hold:g} s every {dt:g} s makes more than {POSE_MAX_SAMPLES} " \
               "samples; choose a larger --dt or a shorter --hold"
    if pose is None:
        return f"error[export.pose] --commands: name the pose to write with --pose NAME; poses: " \
               f"{', '.join(rig.poses) or '(none: the rig has no poses)'}"
    if pose not in rig.poses:
        return f"error[export.pose] --pose: the rig has no pose {pose!r}; poses: " \
               f"{', '.join(rig.poses) or '(none)'}"
    return ""


def _write(target: Path, write, out) -> int:
    """Run ``write()``: 0 when it wrote, else the refusal printed as one line and EXIT_INVALID (a value the
    format cannot hold, an ending it does not know, a target that is not a file, a write the system
    refuses). A RigError (no CodedError) passes through: the caller prints its findings."""
    try:
        write()
    except CodedError as exc:
        print(printable(exc.one_line()), file=out)
        return EXIT_INVALID
    except OSError as exc:
        print(printable(f"error[export.io] {target}: cannot write ({exc.strerror or exc})"), file=out)
        return EXIT_INVALID
    return 0


def _export_pose(rig, args: argparse.Namespace, out) -> int:
    from mime_gui.nodes.commands import write_commands
    from mime_gui.rig.poses import pose_commands

    dt = POSE_DT if args.dt is None else args.dt
    hold = POSE_HOLD if args.hold is None else args.hold
    target = Path(args.commands)
    recorded = pose_commands(rig, rig.build(), args.pose, hold, dt)
    comment = (f"pose {args.pose!r} of rig {rig.name!r}: the rig's initial positions at 0 s, then the pose "
               f"held {hold:g} s (radians, metres)")
    failed = _write(target, lambda: write_commands(target, recorded, comment), out)
    if failed:
        return failed
    _say(f"wrote {target} (pose {args.pose!r}: {len(recorded.time)} samples every {dt:g} s)", out)
    return EXIT_OK

