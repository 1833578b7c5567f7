"""``mime-gui sweep RIG --vary PATH=RANGE ... [--commands CMD] --out TABLE.csv|.parquet [--workers N]
[--scheduler ADDRESS]``: every variant of a rig, one row each (docs/sweeps.md).

Each ``--vary`` is a rig path and its values (``parts.holder.geometry.radius=0.008:0.012:5``, ``a,b,c``);
several make a grid. Every variant is validated (its findings: how many, their codes); with ``--commands``
one that builds is played as ``mime-gui field`` plays it and its row adds the field at each probe, the peak
torque of each joint of a dynamic segment and its clearance (see :mod:`mime_gui.sweep.evaluation`). The
variants run on local worker processes (``--workers``, default the CPU count) or on a Dask cluster
(``--scheduler``). The table is rewritten as rows come in; run again with the same arguments, a sweep that
was interrupted computes only the variants missing from it. Every refusal is one line
``error[CODE] PLACE: message`` on stderr, exit status 2.
"""

from __future__ import annotations

import argparse
import sys
import time as _time
from collections import Counter
from pathlib import Path

from mime_gui import inputs
from mime_gui.cli import package_dirs
from mime_gui.cli.play import OUTPUT_LIMIT, check_times, count, number, output_bytes
from mime_gui.inputs import resolved
from mime_gui.multibody.errors import printable
from mime_gui.sweep import SweepError, make_job, parse_all, run_sweep
from mime_gui.sweep.evaluation import clearance_along
from mime_gui.sweep.executors import MAX_WORKERS, executor
from mime_gui.sweep.grid import MAX_VARIANTS
from mime_gui.sweep.grid import count as variant_count
from mime_gui.sweep.table import check_suffix

SUFFIXES = (".rig.json", ".zip")
#: sweeps of at least this many variants show a progress bar when stderr is a terminal
PROGRESS_VARIANTS = 20


class _Progress:
    """``[####....] 12/200 variants`` on a terminal, redrawn as the bar grows."""

    def __init__(self, stream, width: int = 40):
        self.stream, self.width, self.shown = stream, width, -1

    def __call__(self, done: int, total: int) -> None:
        filled = self.width * done // max(total, 1)
        if filled != self.shown or done >= total:
            self.shown = filled
            self.stream.write(f"\r  [{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} variants"
                              + ("\n" if done >= total else ""))
            self.stream.flush()


def add_arguments(parser: argparse.ArgumentParser, name: str = "sweep") -> None:
    parser.add_argument("rig", metavar="RIG.rig.json", help="the rig file, or a bundle (.zip)")
    parser.add_argument("--vary", action="append", default=[], required=True, metavar="PATH=RANGE",
                        help="a rig path to a number or text value and its values: START:STOP:COUNT (both "
                             "ends included) or a list a,b,c; one component of a vector by its index "
                             f"(parts.holder.at.2); repeat for a grid (at most {MAX_VARIANTS:,} variants)")
    parser.add_argument("--commands", metavar="CMD",
                        help="recorded joint commands, .csv or .npz: adds the field at the probes, the peak "
                             "torques and the clearance of every variant that builds")
    parser.add_argument("--dt", type=number, default=None, metavar="S",
                        help="step in seconds (default: the median spacing of the samples)")
    parser.add_argument("--servo-tau", type=number, default=None, metavar="S",
                        help="servo time constant in seconds (default: each segment's own)")
    parser.add_argument("--out", required=True, metavar="TABLE.csv",
                        help="the table, .csv or .parquet (Parquet needs pyarrow); an existing table of the "
                             "same sweep is resumed")
    parser.add_argument("--workers", type=count, default=None, metavar="N",
                        help=f"local worker processes, 1 to {MAX_WORKERS} (default: the CPU count)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run on the Dask cluster whose scheduler is at ADDRESS (tcp://host:8786); "
                             "needs dask[distributed]")
    parser.add_argument("--quiet", action="store_true", help="print nothing but errors")
    package_dirs.add_option(parser)


def _check_options(args: argparse.Namespace) -> None:
    if not any(str(args.rig).lower().endswith(s) for s in SUFFIXES):
        raise SweepError("sweep.format", "a sweep varies a rig: give a .rig.json file or a bundle (.zip)",
                         str(args.rig))
    check_times(args, SweepError, "sweep")
    if args.workers is not None and not 1 <= args.workers <= MAX_WORKERS:
        shown = f"{args.workers:,}" if abs(args.workers) < 10**18 else "far more"
        raise SweepError("sweep.workers", f"the local worker processes are 1 to {MAX_WORKERS}, got {shown}",
                         "--workers")
    check_suffix(args.out)


def _rig(args: argparse.Namespace):
    """``(path, text, rig)`` of the rig file (a bundle extracted first)."""
    from mime_gui.rig import bundle, load
    from mime_gui.rig.actuator_sources import discover

    path = bundle.open_bundle(args.rig) if bundle.is_bundle(args.rig) else Path(args.rig)
    rig = load(path)  # every refusal of the file with its code, line and pointer
    discover(resolved(path).parent)
    try:
        text = inputs.read_bytes(path, "rig").decode("utf-8-sig")
    except (OSError, ValueError) as exc:  # read a moment ago: only a race gets here
        raise SweepError("sweep.io", f"cannot read the rig file again ({exc})", str(path)) from None
    return path, text, rig


def _check_commands(rig, recorded, args) -> None:
    """The command file tried on the rig as written: a file the rig cannot play is refused once, with its
    code, not once per row. A rig that does not build is not tried (its variants may build)."""
    from mime_gui.rig import RigError
    from mime_gui.rig.playback import RigPlayable

    try:
        built = rig.build()
    except RigError:
        return
    playable = RigPlayable(built, args.servo_tau)
    schedule = playable.schedule(recorded, args.dt)
    size, cap = output_bytes(playable, schedule.steps), OUTPUT_LIMIT.bytes()
    if size > cap:  # what each worker holds while it plays one variant
        raise SweepError("sweep.too-large", f"playing one variant takes about {inputs.megabytes(size)} "
                         f"({schedule.steps} steps), more than the {inputs.megabytes(cap)} limit; choose a "
                         f"larger step (--dt) or a shorter command file, or set {OUTPUT_LIMIT.variable} "
                         "(megabytes)",
                         str(args.commands))


def sweep(args: argparse.Namespace, out=None, err=None) -> int:
    """The command's work; raises the coded errors :func:`run` prints."""
    from mime_gui.nodes import read_commands

    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    wall = _time.perf_counter()
    _check_options(args)
    with package_dirs.applied(args):
        path, text, rig = _rig(args)
        varies = parse_all(args.vary, rig)
        recorded = None
        if args.commands is not None:
            recorded = read_commands(args.commands)
            _check_commands(rig, recorded, args)
        job = make_job(rig_text=text, rig_file=str(path), base=str(resolved(path).parent), varies=varies,
                       recorded=recorded, dt=args.dt, servo_tau=args.servo_tau,
                       package_dirs=tuple(str(resolved(d)) for d in args.package_dir))
        runner = executor(args.workers, args.scheduler)
        progress = _Progress(err) if variant_count(varies) >= PROGRESS_VARIANTS and err.isatty() else None
        about = f"rig {args.rig} ({rig.name})" + ("" if recorded is None else f"; commands {args.commands}")
        try:
            result = run_sweep(job, args.out, runner, about, on_row=progress)
        except KeyboardInterrupt:
            print(printable(f"interrupted: the rows done are in {args.out}; run the same command again to "
                            "resume"), file=err)
            raise
        finally:
            runner.close()
    if not args.quiet:
        codes = Counter(c for row in result.rows.values() for c in row.get("codes", "").split())
        tally = ", ".join(f"{c}: {n}" for c, n in codes.most_common(8))
        sizes = " x ".join(str(len(v.values)) for v in varies)
        lines = [f"sweep of {args.rig} ({rig.name}): {result.variants} variant(s) ({sizes}) on "
                 f"{runner.description}",
                 f"  computed {result.computed}, kept {result.kept} from the table; {result.with_findings} "
                 f"with findings" + (f" ({tally})" if tally else "")]
        if recorded is None:
            lines.append("  findings only: give --commands for the field, the torques and the clearance")
        elif clearance_along is None:
            lines.append("  no clearance columns: the clearance check (mime_gui.rig.clearance_check) is not "
                         "installed")
        written = f"  wrote {args.out}" if result.computed else \
            f"  nothing to compute: {args.out} holds every variant"
        lines += [f"  wall time: {_time.perf_counter() - wall:.1f} s", written]
        for line in lines:  # names and paths from files: escaped, so no line can be forged
            print(printable(line), file=out)
    return 0


def run(args: argparse.Namespace) -> int:
    """Sweep and report; a coded refusal prints ``error[CODE] PLACE: message`` on stderr and returns 2."""
    try:
        return sweep(args)
    except Exception as exc:  # every coded refusal offers one_line(); anything else is a bug and propagates
        if not callable(getattr(exc, "one_line", None)):
            raise
        print(printable(exc.one_line()), file=sys.stderr)
        return 2


__all__ = ["add_arguments", "run", "sweep"]
