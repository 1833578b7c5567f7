"""``mime-gui trajectory RIG NAME --dt S --out CMD.csv|.npz [--fit]``: a rig's authored trajectory rendered
headless to the command file ``mime-gui play`` and the app's player read (docs/rig-file.md, *Trajectories*).

The options are checked first (``trajectory.dt``, ``trajectory.out``), then the rig's rules (its findings,
exit 1), then the trajectory's name (``trajectory.unknown``) and the rendering's size
(``trajectory.too-large``), before anything is rendered. ``--fit`` stretches the timeline to the limits
first (:func:`mime_gui.rig.trajectories.fit_to_limits`). A joint beyond a limit (``trajectory.speed``) or a
line leaving the reachable space (``trajectory.reach``) is printed as a finding and nothing is written. The
file is written by :func:`mime_gui.nodes.commands.write_commands`, atomically.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mime_gui.cli import package_dirs
from mime_gui.cli.rig import EXIT_INVALID, EXIT_OK, _print_findings, _say, _write
from mime_gui.inputs import resolved
from mime_gui.multibody.errors import CodedError, printable

#: the samples' spacing unless given
DT = 0.01


def add_arguments(parser: argparse.ArgumentParser, name: str = "trajectory") -> None:
    from mime_gui.cli.play import number  # the one number option of every subcommand

    parser.add_argument("rig", metavar="RIG.rig.json", help="the rig file, or a bundle (.zip)")
    parser.add_argument("trajectory", metavar="NAME", help="the rig's trajectory to render")
    parser.add_argument("--dt", type=number, default=DT, metavar="S",
                        help=f"the samples' spacing in seconds (default {DT:g})")
    parser.add_argument("--out", required=True, metavar="CMD.csv", help="the command file to write (.csv or "
                        ".npz)")
    parser.add_argument("--fit", action="store_true", help="stretch the timeline just enough for every joint "
                        "to keep within its velocity and acceleration limits first")
    package_dirs.add_option(parser)


def run(args: argparse.Namespace, out=None, err=None) -> int:
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    with package_dirs.applied(args):
        return _run(args, out, err)


def _run(args: argparse.Namespace, out, err) -> int:
    import math

    from mime_gui.nodes.commands import write_commands
    from mime_gui.rig import RigError, actuator_sources, bundle, load
    from mime_gui.rig.trajectories import (
        TrajectoryError,
        check,
        fit_to_limits,
        sample_count,
        trajectory_commands,
    )

    dt = args.dt
    if not (math.isfinite(dt) and 0 < dt <= 1e9):
        print(f"error[trajectory.dt] --dt: the step must be a positive number of seconds up to 1e9, got {dt}",
              file=out)
        return EXIT_INVALID
    target = Path(args.out)
    if target.suffix.lower() not in (".csv", ".npz"):
        print(printable(f"error[trajectory.out] --out: a command file is written as .csv or .npz, got "
                        f"{target.name!r}"), file=out)
        return EXIT_INVALID
    try:
        path = bundle.open_bundle(args.rig) if bundle.is_bundle(args.rig) else Path(args.rig)
        rig = load(path)
        actuator_sources.discover(resolved(path).parent)
    except CodedError as exc:
        print(printable(exc.one_line()), file=out)
        return EXIT_INVALID
    try:
        built = rig.build()
    except RigError as exc:
        _say(f"{args.rig}: the rig is not valid; nothing written", err)
        return _print_findings(exc.findings, out)
    name = args.trajectory
    trajectory = rig.trajectories.get(name)
    try:
        if trajectory is None:
            raise TrajectoryError("trajectory.unknown", f"the rig has no trajectory {name!r}; trajectories: "
                                  f"{', '.join(rig.trajectories) or '(none)'}", "NAME")
        sample_count(trajectory.duration, dt, len(built.command_names))  # refused before any work
        if args.fit:
            trajectory, findings = fit_to_limits(built, name, dt)
        else:
            findings = check(built, name, dt)
        if findings:
            _say(f"{args.rig}: the trajectory {name!r} is not within its limits; nothing written", err)
            return _print_findings(findings, out)
        recorded = trajectory_commands(built, trajectory, dt)
    except CodedError as exc:
        print(printable(exc.one_line()), file=out)
        return EXIT_INVALID
    comment = (f"trajectory {name!r} of rig {rig.name!r}{' fitted to its limits' if args.fit else ''}: every "
               f"{dt:g} s (radians, metres)")
    failed = _write(target, lambda: write_commands(target, recorded, comment), out)
    if failed:
        return failed
    _say(f"wrote {target} (trajectory {name!r}: {len(recorded.time)} samples every {dt:g} s, "
         f"{recorded.time[-1]:g} s)", out)
    return EXIT_OK
