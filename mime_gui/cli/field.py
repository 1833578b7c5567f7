"""``mime-gui field RIG --commands CMD [--probe NAME|X,Y,Z ...] [--contributions] --out OUT.npz``.

The rig plays the recorded commands exactly as ``mime-gui play`` does (the same loader, command reading and
schedule), then :func:`mime_gui.field.field_along` gives B at every probe at every step. ``--probe`` names a
probe of the rig or a point ``X,Y,Z`` in metres fixed in the world; with none, every probe of the rig. The
output holds ``time``, ``probe_names``, ``B`` (steps x probes x 3, tesla, world axes), ``magnet_names``,
``probe_positions``, the summary per probe (``frequency``, ``axis``, ``B_min``, ``B_max``, ``ellipticity``),
``inside`` and, with ``--contributions``, ``contributions`` (steps x magnets x probes x 3); with
``--gradient``, ``gradient`` (steps x probes x 3 x 3, T/m, ``[i, j] = dB_i/dx_j``). A rig with samples adds
the force and torque on each (:func:`mime_gui.field.forces_along`: ``sample_*``), one with keep-out zones
the zones' check (:func:`mime_gui.field.zone_findings`: ``zone_*``, and a ``field.zone`` warning per zone
breached); samples with a drag their step-out frequency (:func:`mime_gui.field.step_out`: ``sample_step_out``,
and a ``field.step-out`` warning per sample that falls behind); segments with a field tolerance |B| at their
joints (:func:`mime_gui.field.joint_field`: ``joint_*``, and a ``field.joint`` warning per joint over it).
The summary is printed. Every refusal is one line ``error[CODE] PLACE: message`` on stderr, exit status 2.
"""

from __future__ import annotations

import argparse
import math
import sys
import time as _time
from pathlib import Path

import numpy as np

from mime_gui.cli import package_dirs
from mime_gui.cli.play import (
    OUTPUT_LIMIT,
    PlayError,
    _check_finite,
    _ProgressBar,
    _write,
    check_times,
    number,
    output_bytes,
)
from mime_gui.field import FieldError, field_along, field_bytes, forces_along, rotating_summary, zone_findings
from mime_gui.field.forces import gradient_at, gradient_bytes
from mime_gui.field.joints import joint_bytes, joint_field, joint_frames
from mime_gui.field.samples import forces_bytes
from mime_gui.field.sources import magnet_sources
from mime_gui.field.step_out import step_out
from mime_gui.inputs import megabytes
from mime_gui.multibody.errors import CodedError, printable
from mime_gui.multibody.magnitudes import MAX_LENGTH
from mime_gui.nodes import read_commands
from mime_gui.rig.probes import Probe

SUFFIX = ".rig.json"


def add_arguments(parser: argparse.ArgumentParser, name: str = "field") -> None:
    parser.add_argument("rig", metavar="RIG.rig.json", help="the rig file (its magnets make the field)")
    parser.add_argument("--commands", required=True, metavar="CMD",
                        help="recorded joint commands, .csv or .npz (see docs/command-files.md)")
    parser.add_argument("--probe", action="append", default=[], metavar="NAME|X,Y,Z",
                        help="a probe of the rig, or a point in metres fixed in the world; repeat for more "
                             "(default: every probe of the rig)")
    parser.add_argument("--contributions", action="store_true",
                        help="also write each magnet's share of B (contributions)")
    parser.add_argument("--gradient", action="store_true",
                        help="also write the field's gradient at each probe (gradient, T/m)")
    parser.add_argument("--dt", type=number, default=None, metavar="S",
                        help="step in seconds (default: the median spacing of the samples)")
    parser.add_argument("--servo-tau", type=number, default=None, metavar="S",
                        help="servo time constant in seconds (default: each segment's own)")
    parser.add_argument("--out", required=True, metavar="OUT.npz", help="where to write the field")
    parser.add_argument("--quiet", action="store_true", help="print nothing but errors")
    package_dirs.add_option(parser)


def _check_options(args: argparse.Namespace) -> None:
    if not str(args.rig).lower().endswith(SUFFIX):
        raise FieldError("field.format", f"the field comes from a rig's magnets: give a {SUFFIX} file",
                         str(args.rig))
    check_times(args, FieldError, "field")
    if not str(args.out).lower().endswith(".npz"):
        raise FieldError("field.out", "the output file must end in .npz", str(args.out))


def parse_probe(text: str, rig) -> tuple[str, Probe]:
    """``NAME`` of a probe of ``rig``, or ``X,Y,Z`` (m) in the world, named as written."""
    if text in rig.probes:
        return text, rig.probes[text]
    pieces = text.split(",")
    if len(pieces) == 3:
        try:
            point = tuple(number(p.strip()) for p in pieces)
        except (ValueError, argparse.ArgumentTypeError):
            point = None
        # the bound a probe of the rig file has (probe.placement): beyond it Magpylib's series may not end
        if point is not None and all(math.isfinite(v) and abs(v) <= MAX_LENGTH for v in point):
            return text.strip(), Probe(point)
        raise FieldError("field.probe", f"{text!r} is not a point: write X,Y,Z, three finite numbers of "
                                        f"metres each within ±{MAX_LENGTH:g} m (e.g. 0.3,0,0.25)", "--probe")
    known = ", ".join(rig.probes) or "(the rig has none)"
    raise FieldError("field.probe", f"{text!r} is no probe of the rig (probes: {known}) and not a point "
                                    "X,Y,Z in metres; name a probe or give a point", "--probe")


def _probes(args, rig) -> dict[str, Probe]:
    if not args.probe:
        if not rig.probes:
            raise FieldError("field.no-probe", "the rig has no probes: give --probe X,Y,Z (metres, in the "
                                               "world) or add probes to the rig file", str(args.rig))
        return dict(rig.probes)
    out: dict[str, Probe] = {}
    for text in args.probe:
        name, probe = parse_probe(text, rig)
        if name in out:
            raise FieldError("field.probe", f"the probe {name!r} is given twice; give it once", "--probe")
        out[name] = probe
    return out


def _check_memory(playable, recorded, args, magnets: int, probes: int) -> None:
    """Refuse, before any step is played, a run whose played poses and field (each magnet's share too with
    ``--contributions``) would take more than the limit ``play`` has for its output."""
    try:
        steps, _ = recorded.step_count(args.dt)
    except CodedError:
        return  # no step count: the schedule refuses it, after the checks of the file's columns
    poses = output_bytes(playable, steps)
    field_only = field_bytes(steps, magnets, probes, contributions=False)
    shares = field_bytes(steps, magnets, probes, contributions=True) - field_only if args.contributions else 0
    # the gradient at the probes, the samples' forces and the zones' check, each as large as asked
    rig = playable.built.apparatus
    extra = (gradient_bytes(steps, magnets, probes) if args.gradient else 0) + \
        (forces_bytes(steps, magnets, len(rig.samples)) if rig.samples else 0) + 10 * steps * len(rig.zones) \
        + joint_bytes(steps, magnets, len(joint_frames(playable.built)[0])) + 24 * steps * len(rig.samples)
    field_only += extra
    size, cap = poses + field_only + shares, OUTPUT_LIMIT.bytes()
    if size > cap:
        kept = f", each magnet's share {megabytes(shares)} (--contributions)" if shares else ""
        fewer = "leave out --contributions, " if shares else ""
        raise FieldError("field.too-large", f"the run would take about {megabytes(size)} ({steps} steps: "
                         f"the played poses {megabytes(poses)}, the field of {magnets} magnet(s) at "
                         f"{probes} probe(s) {megabytes(field_only)}{kept}), more than the "
                         f"{megabytes(cap)} limit; {fewer}choose a larger step (--dt), fewer probes or a "
                         f"shorter command file, or set {OUTPUT_LIMIT.variable} (megabytes) to raise the "
                         "limit", str(args.out))


def field(args: argparse.Namespace, out=None, err=None) -> int:
    """The command's work; raises the coded errors :func:`run` prints."""
    from mime_gui.rig.playback import load_rig_playable

    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    wall = _time.perf_counter()
    _check_options(args)
    with package_dirs.applied(args):
        playable = load_rig_playable(Path(args.rig), args)
    built = playable.built
    if not built.apparatus.magnets:
        raise FieldError("field.no-magnet", "the rig has no magnets, so there is no field to compute; add a "
                                            "magnet to the rig", str(args.rig))
    probes = _probes(args, built.apparatus)
    recorded = read_commands(args.commands)
    _check_memory(playable, recorded, args, len(built.apparatus.magnets), len(probes))
    schedule = playable.schedule(recorded, args.dt)
    progress = _ProgressBar(err) if schedule.steps >= 20_000 and err.isatty() else None
    with np.errstate(over="ignore", invalid="ignore"):
        trajectory = playable.play(schedule, progress)
    _check_finite(trajectory, playable, schedule, str(args.commands))  # as play refuses it: field.non-finite
    import magpylib  # noqa: F401  (loaded first: its import is not the field's cost)

    started = _time.perf_counter()
    result = field_along(built, trajectory, probes, contributions=args.contributions, start=schedule.start)
    computing = _time.perf_counter() - started
    summary = rotating_summary(result.time, result.B)
    arrays = {
        "time": result.time, "probe_names": np.array(result.probe_names, dtype=str), "B": result.B,
        "magnet_names": np.array(result.magnet_names, dtype=str), "probe_positions": result.probe_positions,
        "inside": result.inside, "dt": np.float64(schedule.dt),
        "frequency": np.array([s.frequency for s in summary]),
        "axis": np.array([s.axis for s in summary]).reshape(-1, 3),
        "B_min": np.array([s.B_min for s in summary]), "B_max": np.array([s.B_max for s in summary]),
        "ellipticity": np.array([s.ellipticity for s in summary]),
    }
    if args.contributions:
        arrays["contributions"] = result.contributions
    if args.gradient:
        magnets = magnet_sources(built)
        X = np.stack([m.poses(np.asarray(trajectory.frame_poses)) for m in magnets], axis=1)
        arrays["gradient"] = gradient_at(magnets, X, result.probe_positions)[1]
    warnings = list(result.findings)
    if built.apparatus.samples:
        forces = forces_along(built, trajectory, start=schedule.start)
        arrays.update({"sample_names": np.array(forces.sample_names, dtype=str),
                       "sample_positions": forces.position, "sample_moment": forces.moment,
                       "sample_B": forces.B, "sample_gradient": forces.gradient, "sample_force": forces.force,
                       "sample_torque": forces.torque, "sample_route": np.array(forces.routes, dtype=str)})
        if any(sample.drag is not None for sample in built.apparatus.samples.values()):
            keeping = step_out(built, trajectory, forces, start=schedule.start)
            arrays["sample_step_out"] = keeping.available  # Hz; NaN for a sample without a drag
            warnings += keeping.findings
    if built.apparatus.zones:
        zones = zone_findings(built, trajectory, start=schedule.start)
        arrays.update({"zone_names": np.array(zones.zone_names, dtype=str), "zone_worst": zones.worst,
                       "zone_breach": zones.breach})
        warnings += zones.findings
    if any(seg.field_tolerance is not None for seg in built.apparatus.chain.values()):
        joints = joint_field(built, trajectory, start=schedule.start)
        arrays.update({"joint_names": np.array(joints.joint_names, dtype=str), "joint_B": joints.B,
                       "joint_over": joints.over})
        warnings += joints.findings
    _write(Path(args.out), arrays)
    for finding in warnings:
        print(printable(f"warning[{finding.code}] {finding.where}: {finding.message}"), file=err)
    if not args.quiet:
        lines = [f"field of {args.rig} ({built.apparatus.name}): {len(result.magnet_names)} magnet(s) at "
                 f"{len(result.probe_names)} probe(s)",
                 f"  steps: {schedule.steps} x {schedule.dt:g} s = {schedule.steps * schedule.dt:g} s",
                 *(f"  {name}: {s.describe()}" for name, s in zip(result.probe_names, summary, strict=True)),
                 f"  wall time: {computing * 1e3:.1f} ms computing the field, "
                 f"{(_time.perf_counter() - wall) * 1e3:.1f} ms in all",
                 f"  wrote {args.out}"]
        for line in lines:  # names and paths from files: escaped, so no line can be forged
            print(printable(line), file=out)
    return 0


def run(args: argparse.Namespace) -> int:
    """Compute and report; a coded refusal prints ``error[CODE] PLACE: message`` on stderr and returns 2."""
    try:
        try:
            return field(args)
        except PlayError as exc:  # the checks shared with play (output size, writing): this command's codes
            raise FieldError(exc.code.replace("play.", "field.", 1), exc.message, exc.file) from None
    except Exception as exc:  # every coded refusal offers one_line(); anything else is a bug and propagates
        if not callable(getattr(exc, "one_line", None)):
            raise
        print(printable(exc.one_line()), file=sys.stderr)
        return 2
