"""``mime-gui plan RIG (--target NAME | --at probes.NAME (--direction X,Y,Z | --axis X,Y,Z --frequency HZ))
[--tolerance DEG] [--low MT] [--high MT] [--ellipticity E] [--max-gradient T/M] [--max-force N] [--starts N]
[--seed N] [--dt S] --out CMD.csv|.npz``: poses of the chain that give a probe or a sample the field asked
for (a target of the rig, or one given by the options; :mod:`mime_gui.field.planner`), checked, and the
command file of the best one.

A table of the candidates is printed (margin, what the target sees, the joints), each candidate's trajectory
is checked as played (its limits, the keep-out zones, the field at the target over the spin, a gradient or
force bound at every step), and the first that passes is written (an approach from the rig's initial pose,
then for a rotating target the motor's spin) by :func:`mime_gui.nodes.commands.write_commands`, atomically.
A target that cannot be met names the constraint that binds (exit 1, nothing written), as does a rig that
breaks its rules (its findings); bad options, targets the rig cannot aim at and a write the system refuses
are refused with one line ``error[CODE] PLACE: message`` on stderr (``plan.*``, ``target.*``,
``export.io``; exit 2).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from mime_gui.cli import package_dirs
from mime_gui.cli.rig import EXIT_OK, _print_findings, _say, _write
from mime_gui.inputs import resolved
from mime_gui.multibody.errors import CodedError, printable

EXIT_NONE = 1  # no candidate meets the target, or none passes its checks
EXIT_USAGE = 2
#: the most starts a plan takes (each a descent of a few dozen batched evaluations)
MAX_STARTS = 1000
DT = 0.01


def add_arguments(parser: argparse.ArgumentParser, name: str = "plan") -> None:
    from mime_gui.cli.play import count, number  # the one number parser of every subcommand

    parser.add_argument("rig", metavar="RIG.rig.json", help="the rig file, or a bundle (.zip)")
    parser.add_argument("--target", metavar="NAME", help="a field target of the rig (its file's targets); "
                        "or give --at and the field below")
    parser.add_argument("--at", metavar="probes.NAME", help="where the field is asked for: probes.<name> or "
                        "samples.<name>")
    parser.add_argument("--direction", metavar="X,Y,Z", help="a fixed field along this direction (world "
                        "axes; --direction=-1,0,0 when the first is negative)")
    parser.add_argument("--axis", metavar="X,Y,Z", help="a field rotating about this axis (world axes, "
                        "right-handed for a positive frequency; --axis=-1,0,0 when the first is negative)")
    parser.add_argument("--frequency", type=number, metavar="HZ", help="the rotating field's frequency")
    parser.add_argument("--tolerance", type=number, default=10.0, metavar="DEG",
                        help="how far the direction or the axis may be off, degrees (default 10)")
    parser.add_argument("--low", type=number, default=0.0, metavar="MT", help="the least |B|, mT (default 0)")
    parser.add_argument("--high", type=number, default=1e5, metavar="MT", help="the largest |B|, mT")
    parser.add_argument("--ellipticity", type=number, default=0.0, metavar="E",
                        help="a rotating field's least ellipticity, 0 to 1 (1: a circle)")
    parser.add_argument("--max-gradient", type=number, default=None, metavar="T/M",
                        help="the largest gradient at the point, T/m: the Frobenius norm of dB_i/dx_j, which "
                             "bounds |grad |B|| and every entry (default: no bound)")
    parser.add_argument("--max-force", type=number, default=None, metavar="N",
                        help="the largest force on the sample (--at samples.NAME), newtons (default: no "
                             "bound)")
    parser.add_argument("--starts", type=count, default=8, metavar="N",
                        help=f"starts of the search: the initial pose and N-1 drawn within the limits "
                             f"(default 8, at most {MAX_STARTS})")
    parser.add_argument("--seed", type=count, default=0, metavar="N", help="the starts' seed (default 0)")
    parser.add_argument("--workers", type=count, default=None, metavar="N",
                        help="run the starts on N local worker processes (default: in this process)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run the starts on the Dask cluster at ADDRESS (tcp://host:8786), as mime-gui "
                             "sweep does (docs/sweeps.md)")
    parser.add_argument("--dt", type=number, default=DT, metavar="S",
                        help=f"the command file's step in seconds (default {DT:g})")
    parser.add_argument("--out", required=True, metavar="CMD.csv", help="the command file to write (.csv or "
                        ".npz)")
    package_dirs.add_option(parser)


def _vector(text: str | None, option: str):
    from mime_gui.cli.play import number
    from mime_gui.rig.targets import TargetError

    if text is None:
        return None
    pieces = text.split(",")
    try:
        if len(pieces) != 3:
            raise ValueError
        return tuple(number(p.strip()) for p in pieces)
    except (ValueError, TypeError):
        raise TargetError("plan.option", f"{option} is three numbers X,Y,Z, got {text!r}", option) from None


def target_of(args: argparse.Namespace):
    """The :class:`~mime_gui.rig.targets.FieldTarget` the options ask for (``plan.option``, ``target.*``)."""
    from mime_gui.rig.targets import (
        MAX_FIELD,
        MAX_FORCE,
        MAX_FREQUENCY,
        MAX_GRADIENT,
        FieldTarget,
        TargetError,
    )

    bounds = [("--tolerance", args.tolerance, 0.0, 180.0), ("--low", args.low, 0.0, MAX_FIELD * 1e3),
              ("--high", args.high, 0.0, MAX_FIELD * 1e3), ("--dt", args.dt, 1e-6, 1e3),
              ("--ellipticity", args.ellipticity, 0.0, 1.0)]
    if args.frequency is not None:
        bounds.append(("--frequency", args.frequency, -MAX_FREQUENCY, MAX_FREQUENCY))
    for option, value, low, high in bounds:
        if not (math.isfinite(value) and low <= value <= high):
            raise TargetError("plan.option", f"{option} is a number from {low:g} to {high:g}, got {value!r}",
                              option)
    for option, value, high in (("--max-gradient", args.max_gradient, MAX_GRADIENT),
                                ("--max-force", args.max_force, MAX_FORCE)):
        if value is not None and not (math.isfinite(value) and 0 < value <= high):
            raise TargetError("plan.option", f"{option} is a number above 0 and at most {high:g}, got "
                              f"{value!r}", option)
    if not 1 <= args.starts <= MAX_STARTS:
        raise TargetError("plan.option", f"--starts is a whole number from 1 to {MAX_STARTS}, got "
                          f"{args.starts}", "--starts")
    if not 0 <= args.seed < 2**32:
        raise TargetError("plan.option", f"--seed is a whole number from 0 to {2**32 - 1}, got {args.seed}",
                          "--seed")
    if args.target is not None:
        if args.at is not None or args.direction is not None or args.axis is not None \
                or args.max_gradient is not None or args.max_force is not None:
            raise TargetError("plan.option", "--target names a target of the rig, with its own bounds; give "
                              "it alone, or --at with --direction or --axis", "--target")
        return None  # the rig's own, once it is read
    if args.at is None:
        raise TargetError("plan.option", "give --target NAME (a target of the rig) or --at probes.NAME with "
                          "the field asked for", "--at")
    direction, axis = _vector(args.direction, "--direction"), _vector(args.axis, "--axis")
    if (direction is None) == (axis is None):
        raise TargetError("plan.option", "give --direction (a fixed field) or --axis with --frequency (a "
                          "rotating one)", "--direction")
    return FieldTarget(args.at, direction=direction, axis=axis, frequency=args.frequency,
                       tolerance=math.radians(args.tolerance), low=args.low * 1e-3, high=args.high * 1e-3,
                       ellipticity=args.ellipticity, max_gradient=args.max_gradient, max_force=args.max_force)


def _executor(args: argparse.Namespace, path: Path, target):
    """``(executor, job)`` for ``--workers`` or ``--scheduler`` (the sweep's), ``(None, None)`` without."""
    if args.workers is None and args.scheduler is None:
        return None, None
    from mime_gui import inputs
    from mime_gui.field.planner import plan_job
    from mime_gui.multibody.resolve import package_dirs as current_dirs
    from mime_gui.sweep.executors import executor

    runner = executor(args.workers, args.scheduler)
    text = inputs.read_bytes(path, "rig").decode("utf-8-sig")
    return runner, plan_job(text, str(path), str(resolved(path).parent), target, tuple(current_dirs()))


def run(args: argparse.Namespace, out=None, err=None) -> int:
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    with package_dirs.applied(args):
        return _run(args, out, err)


def _bounded(gradient: float, force: float) -> str:
    """The gradient and the force where the target bounds them."""
    return "".join([f", gradient {gradient:.4g} T/m" if math.isfinite(gradient) else "",
                    f", force {force:.4g} N" if math.isfinite(force) else ""])


def _row(k: int, c, names, rotating: bool) -> str:
    seen = (f"axis {math.degrees(c.angle):6.2f}° off, |B| {c.B_min * 1e3:.4g}–{c.B_max * 1e3:.4g} mT, "
            f"ellipticity {c.ellipticity:.3f}, motor {'forward' if c.sense > 0 else 'backward'}" if rotating
            else f"{math.degrees(c.angle):6.2f}° off, |B| {c.B_min * 1e3:.4g} mT")
    seen += _bounded(c.gradient, c.force)
    joints = ", ".join(f"{n} {v:+.4f}" for n, v in zip(names, c.positions, strict=True))
    return f"  {k + 1:>3}  margin {c.margin:5.3f}  {seen}  [{joints}]"


def _run(args: argparse.Namespace, out, err) -> int:
    from mime_gui.field.planner import check_candidate, describe_binding, plan, trajectory_to
    from mime_gui.nodes.commands import write_commands
    from mime_gui.rig import RigError, actuator_sources, bundle, load
    from mime_gui.rig.trajectories import trajectory_commands

    target_path = Path(args.out)
    try:
        if target_path.suffix.lower() not in (".csv", ".npz"):
            from mime_gui.rig.targets import TargetError

            raise TargetError("plan.out", "a command file is written as .csv or .npz, got "
                              f"{target_path.name!r}", "--out")
        target = target_of(args)
        path = bundle.open_bundle(args.rig) if bundle.is_bundle(args.rig) else Path(args.rig)
        rig = load(path)
        actuator_sources.discover(resolved(path).parent)
        if target is None:
            from mime_gui.rig.targets import TargetError

            target = rig.targets.get(args.target)
            if target is None:
                raise TargetError("plan.target", f"the rig has no target {args.target!r}; targets: "
                                  f"{', '.join(rig.targets) or '(none)'}", "--target")
    except CodedError as exc:  # a usage error, as play's and field's: one line on stderr
        print(printable(exc.one_line()), file=err)
        return EXIT_USAGE
    try:
        built = rig.build()
    except RigError as exc:
        _say(f"{args.rig}: the rig is not valid; nothing planned", err)
        _print_findings(exc.findings, out)
        return EXIT_NONE
    try:
        runner, job = _executor(args, path, target)
        try:
            found = plan(built, target, starts=args.starts, seed=args.seed, executor=runner, job=job)
        finally:
            if runner is not None:
                runner.close()
    except CodedError as exc:
        print(printable(exc.one_line()), file=err)
        return EXIT_USAGE
    kind = (f"rotating about {target.axis} at {target.frequency:g} Hz" if target.rotating
            else f"along {target.direction}")
    limits = "".join([f", gradient at most {target.max_gradient:g} T/m" if target.max_gradient else "",
                      f", force at most {target.max_force:g} N" if target.max_force else ""])
    _say(f"{target.at}: a field {kind}, within {math.degrees(target.tolerance):g}°, |B| "
         f"{target.low * 1e3:g} to {target.high * 1e3:g} mT{limits}: {len(found.candidates)} candidate(s) "
         f"from {len(found.ends)} start(s), {found.evaluations} poses evaluated", out)
    if not found.candidates:
        _say(f"  not met: {found.binding} binds: {describe_binding(found)}; nothing written", out)
        return EXIT_NONE
    for k, c in enumerate(found.candidates):
        _say(_row(k, c, found.names, target.rotating), out)
    for k, c in enumerate(found.candidates):
        try:
            trajectory = trajectory_to(built, found, c)
            checked = check_candidate(built, found, trajectory, args.dt)
        except CodedError as exc:
            _say(f"  candidate {k + 1}: {exc.one_line()}", out)
            continue
        if not checked.confirms:
            reasons = [str(f) for f in checked.findings] or ["the field as played does not meet the target"]
            _say(f"  candidate {k + 1} fails its checks: {'; '.join(reasons[:3])}", out)
            continue
        recorded = trajectory_commands(built, trajectory, args.dt)
        comment = (f"plan for {target.at} of rig {rig.name!r}: candidate {k + 1}, every {args.dt:g} s "
                   "(radians, metres)")
        # a write the system refuses is a refusal like the others: its line on stderr, exit 2
        if _write(target_path, lambda r=recorded, m=comment: write_commands(target_path, r, m), err):
            return EXIT_USAGE
        what = (f"{checked.frequency:.4g} Hz, axis {math.degrees(checked.angle):.2f}° off, |B| "
                f"{checked.B_min * 1e3:.4g}–{checked.B_max * 1e3:.4g} mT" if target.rotating
                else f"{math.degrees(checked.angle):.2f}° off, |B| {checked.B_min * 1e3:.4g} mT")
        what += "" if not (target.max_gradient or target.max_force) else \
            f"; largest along the trajectory:{_bounded(checked.gradient, checked.force)[1:]}"
        _say(f"  candidate {k + 1} passes its checks (as played: {what}); wrote {target_path} "
             f"({len(recorded.time)} samples every {args.dt:g} s, {recorded.time[-1]:g} s)", out)
        return EXIT_OK
    _say("  no candidate passes its checks; nothing written", out)
    return EXIT_NONE
