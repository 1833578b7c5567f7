"""``mime-gui play FILE --commands CMD.(csv|npz) [--dt S] [--servo-tau S] --out OUT.npz``: headless playback.

The file is loaded into a :class:`~mime_gui.rig.playback.Playable` by :func:`load_playable`, which picks
a loader from :data:`LOADERS` by the file name's ending. A URDF becomes one
:class:`~mime_gui.nodes.KinematicArmNode` at the world origin; a rig file plays through its chain node.
Other kinds of file plug in by adding ``(suffix, loader)`` to :data:`LOADERS`; a loader takes the path and
the parsed options and returns any object with the Playable attributes and methods. Every refusal is
printed as one line ``error[CODE] FILE:LINE: message`` on stderr, exit status 2.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time as _time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mime_gui.cli import package_dirs
from mime_gui.files import write_atomic
from mime_gui.inputs import FileError, Limit, megabytes, not_regular, resolved
from mime_gui.multibody.errors import CodedError, printable
from mime_gui.multibody.magnitudes import parse_float, parse_int
from mime_gui.nodes import KinematicArmNode, Trajectory, read_commands
from mime_gui.nodes.commands import MAX_TIME, RecordedCommands, Schedule
from mime_gui.nodes.dynamic import MAX_SUBSTEPS, check_substeps
from mime_gui.rig.playback import Playable

#: runs of at least this many steps show a progress bar when stderr is a terminal
PROGRESS_STEPS = 20_000
CHUNK_STEPS = 2048
#: the largest output ``play`` writes (and about what it holds in memory while playing)
OUTPUT_LIMIT = Limit("play", "the output of play", 1024, "MIME_GUI_MAX_PLAY_MB")


class PlayError(CodedError):
    """A refusal of the ``play`` command itself (``play.*``): bad options, an unsupported file, the output."""


@dataclass(frozen=True, eq=False)
class ArmPlayable:
    """One kinematic arm (a URDF) at the world origin."""

    node: KinematicArmNode
    name: str

    @property
    def joint_names(self) -> tuple[str, ...]:
        return self.node.joint_names

    @property
    def frame_names(self) -> tuple[str, ...]:
        return self.node.frame_names

    @property
    def command_names(self) -> tuple[str, ...]:
        return self.node.command_names

    def schedule(self, recorded: RecordedCommands, dt: float | None) -> Schedule:
        return recorded.for_node(self.node, dt)

    def play(self, schedule: Schedule, progress=None) -> Trajectory:
        return self.node.play(schedule.commands, schedule.dt, schedule.initial_positions,
                              chunk=CHUNK_STEPS, progress=progress)

    def torques(self, schedule: Schedule, trajectory: Trajectory):
        """The joint torques along ``trajectory`` of the arm fixed at the world origin."""
        from mime_gui.rig.torques import arm_torques

        q0 = self.node.initial_state(schedule.initial_positions).joint_positions
        return arm_torques(self.node.art, trajectory.joint_positions, q0, schedule.dt, schedule.start)


def load_urdf(path: Path, options: argparse.Namespace) -> ArmPlayable:
    from mime_gui.multibody import read_urdf

    art = read_urdf(path).compile()
    tau = getattr(options, "servo_tau", None)
    node = KinematicArmNode(art, servo_time_constant=0.0 if tau is None else tau)
    return ArmPlayable(node, art.name)


def load_rig(path: Path, options: argparse.Namespace) -> Playable:
    """A rig file: every segment in chain order, each on its mount (see :mod:`mime_gui.rig.playback`)."""
    from mime_gui.rig.actuator_sources import discover
    from mime_gui.rig.playback import load_rig_playable

    discover(resolved(path).parent)  # the same actuators validate sees
    return load_rig_playable(path, options)


def load_bundle(path: Path, options: argparse.Namespace) -> Playable:
    """A rig bundle (``export --bundle``): checked, extracted into the bundle cache, played as its rig."""
    from mime_gui.rig.bundle import open_bundle

    return load_rig(open_bundle(path), options)


#: (file-name ending, loader) tried in order; a loader returns a :class:`Playable`
LOADERS: list[tuple[str, Callable[[Path, argparse.Namespace], Playable]]] = [
    (".urdf", load_urdf),
    (".rig.json", load_rig),
    (".zip", load_bundle),
]


def load_playable(path, options: argparse.Namespace | None = None) -> Playable:
    """The :class:`Playable` of ``path``: the first loader in :data:`LOADERS` whose suffix ends its name."""
    path = Path(path)
    options = options if options is not None else argparse.Namespace(servo_tau=None)
    lowered = path.name.lower()
    for suffix, loader in LOADERS:
        if lowered.endswith(suffix):
            return loader(path, options)
    kinds = ", ".join(s for s, _ in LOADERS)
    raise PlayError("play.format", f"cannot play this kind of file; expected one of: {kinds}", str(path))


def number(text: str) -> float:
    """A number option (``--dt``, ``--servo-tau``), written plainly: ``float`` without ``1_000``."""
    return parse_float(text)


def count(text: str) -> int:
    """A whole-number option (``--substeps``), written plainly; :func:`_check_options` bounds it."""
    return parse_int(text)


def add_arguments(parser: argparse.ArgumentParser, name: str = "play") -> None:
    kinds = ", ".join(f"*{s}" for s, _ in LOADERS)
    parser.add_argument("file", help=f"what to play ({kinds})")
    parser.add_argument("--commands", required=True, metavar="CMD",
                        help="recorded joint commands, .csv or .npz (see docs/command-files.md)")
    parser.add_argument("--dt", type=number, default=None, metavar="S",
                        help="step in seconds (default: the median spacing of the samples)")
    parser.add_argument("--servo-tau", type=number, default=None, metavar="S",
                        help="servo time constant in seconds, for every segment (default: on a rig each "
                             "segment's own servo_time_constant; on a URDF 0, the joints follow at once)")
    parser.add_argument("--out", required=True, metavar="OUT.npz", help="where to write the trajectory")
    parser.add_argument("--quiet", action="store_true", help="print nothing but errors")
    parser.add_argument("--torques", action="store_true",
                        help="add the joint torques of every dynamic segment (joint_torques, "
                             "armature_torques) and check the effort and velocity limits (docs/dynamics.md)")
    parser.add_argument("--clearance", action="store_true",
                        help="add the smallest distance at every step between the rig's items that can touch "
                             "and the closest pair (clearance_minimum, clearance_closest), and check for "
                             "contacts and the rig's margin (docs/clearance.md); a rig file or bundle only")
    parser.add_argument("--integrator", choices=("euler", "rk4"), default="euler",
                        help="how torque-driven segments are integrated (default: semi-implicit Euler)")
    parser.add_argument("--substeps", type=count, default=1, metavar="N",
                        help="sub-steps of forward dynamics per step of torque-driven segments (default 1)")
    package_dirs.add_option(parser)


def check_times(args: argparse.Namespace, error=PlayError, prefix: str = "play") -> None:
    """Refuse a ``--dt`` or ``--servo-tau`` that is not a number of seconds within ``MAX_TIME``."""
    if args.dt is not None and not (math.isfinite(args.dt) and 0 < args.dt <= MAX_TIME):
        raise error(f"{prefix}.dt", f"the step must be a positive number of seconds up to {MAX_TIME:g}, got "
                    f"{args.dt}", "--dt")
    if args.servo_tau is not None and not (math.isfinite(args.servo_tau) and 0 <= args.servo_tau <= MAX_TIME):
        raise error(f"{prefix}.servo-tau", f"the servo time constant must be ≥ 0 and at most {MAX_TIME:g} "
                    f"seconds, got {args.servo_tau}", "--servo-tau")


def _check_options(args: argparse.Namespace) -> None:
    check_times(args)
    substeps = getattr(args, "substeps", 1)
    if not 1 <= substeps <= MAX_SUBSTEPS:
        shown = f"{substeps}" if abs(substeps) < 10**18 else f"about {'-' * (substeps < 0)}10^" \
            f"{int(math.log10(abs(substeps)))}"
        raise PlayError("play.substeps", f"the sub-steps per step are a whole number from 1 to "
                        f"{MAX_SUBSTEPS:,}, got {shown}", "--substeps")
    if not str(args.out).lower().endswith(".npz"):
        raise PlayError("play.out", "the output file must end in .npz", str(args.out))
    try:  # an output that is not a regular file is refused now, not after the play (the save refuses it too)
        refusal = not_regular(args.out, os.stat(args.out).st_mode, "the output file")
    except (OSError, ValueError):
        refusal = None
    if refusal is not None:
        raise refusal


class _ProgressBar:
    def __init__(self, stream, width: int = 40):
        self.stream, self.width, self.shown = stream, width, -1

    def __call__(self, done: int, total: int) -> None:
        filled = self.width * done // max(total, 1)
        if filled == self.shown:
            return
        self.shown = filled
        self.stream.write(f"\r  [{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} steps")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()


def output_bytes(playable: Playable, steps: int) -> int:
    """The size of the output of ``steps`` steps: per step the time, every joint position, every frame's
    pose (4x4) and angular velocity (3), 8 bytes each."""
    return steps * 8 * (1 + len(playable.joint_names) + 19 * len(playable.frame_names))


def _check_size(playable: Playable, recorded: RecordedCommands, dt: float | None, out: str) -> None:
    """Refuse, before any step is made, a playback whose output would exceed :data:`OUTPUT_LIMIT`."""
    try:
        steps, _ = recorded.step_count(dt)
    except CodedError:
        return  # no step count: the schedule refuses it, after the checks of the file's columns
    size, cap = output_bytes(playable, steps), OUTPUT_LIMIT.bytes()
    if size > cap:
        joints, frames = len(playable.joint_names), len(playable.frame_names)
        raise PlayError("play.too-large", f"the output would hold about {megabytes(size)} ({steps} steps "
                        f"of {joints} joints and {frames} frames), more than the {megabytes(cap)} limit; "
                        "choose a larger step (--dt) or a shorter command file, or set "
                        f"{OUTPUT_LIMIT.variable} (megabytes) to raise the limit", out)


def _write(out: Path, arrays: dict[str, np.ndarray]) -> None:
    try:
        write_atomic(out, lambda fh: np.savez(fh, **arrays))
    except FileError:  # a target that is not a regular file: its own code
        raise
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the name
        raise PlayError("play.io", f"cannot write the output ({getattr(exc, 'strerror', None) or exc})",
                        str(out)) from None


def _check_finite(trajectory: Trajectory, playable: Playable, schedule: Schedule, commands: str) -> None:
    """Refuse a playback that overflowed (commands or steps so extreme that positions, poses or rates are
    no longer finite numbers) rather than write infinities and NaNs. The place named is where it began: the
    earliest step, and in it the first joint (its position, then its rate), else the first frame in the
    chain's order (a joint's rate overflows before the frames' rates, a segment's before what rides on it)."""
    q = trajectory.joint_positions
    # step 0's rate is from the positions the play starts at (as the frames' is): a joint no command names
    # (a mimic follower) is taken as starting where step 0 left it
    column = {name: i for i, name in enumerate(schedule.command_names)}
    start = np.array([schedule.initial_positions[column[name]] if name in column else q[0, k]
                      for k, name in enumerate(playable.joint_names)], dtype=float).reshape(1, -1)
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is looked for
        rates = np.diff(np.concatenate([start[:, :q.shape[1]], q]), axis=0) / schedule.dt
    found = []
    for rank, (what, values, names) in enumerate((
            ("joint positions", q, playable.joint_names),
            ("joint rates", rates, playable.joint_names),
            ("frame poses", trajectory.frame_poses, playable.frame_names),
            ("frame angular velocities", trajectory.frame_angular_velocities, playable.frame_names))):
        bad = ~np.isfinite(values).reshape(*values.shape[:2], -1).all(axis=2)
        if bad.any():
            step, column = (int(i[0]) for i in np.nonzero(bad))
            found.append(((step, rank > 1, column, rank), what, names[column]))
    if not found:
        return
    (step, *_), what, name = min(found, key=lambda f: f[0])
    largest = ""
    if schedule.commands.size:
        size = np.abs(schedule.commands)
        row, col = np.unravel_index(int(np.argmax(size)), size.shape)
        largest = (f"the largest command is {schedule.commands[row, col]:g} for "
                   f"{schedule.command_names[col]} at step {row}, ")
    raise PlayError("play.non-finite", f"the {what} overflow at step {step} ({name}): "
                    f"{largest}the step {schedule.dt:g} s; check the file's units and values, or "
                    "choose a larger step (--dt)", commands)


def _fastest_change(velocities: np.ndarray, bad: np.ndarray, step: int) -> int:
    """Of the columns ``bad`` at ``step``, the one whose rate changes most there: the inverse dynamics leave a
    whole step unknown when one joint's acceleration overflows, and that joint is the one to name."""
    columns = np.flatnonzero(bad)
    before = velocities[step - 1, columns] if step > 0 else np.zeros(len(columns))
    with np.errstate(over="ignore", invalid="ignore"):
        change = np.abs(velocities[step, columns] - before)
    change[np.isnan(change)] = np.inf  # a rate that is no number changed most of all
    return int(columns[int(np.argmax(change))])


def _torques(playable, schedule: Schedule, trajectory: Trajectory, args):
    """The torques of ``--torques`` (None without it); a description whose mass properties are not physical
    is refused with its code."""
    if not getattr(args, "torques", False):
        return None
    from mime_gui.multibody import DynamicsError

    try:
        with np.errstate(over="ignore", invalid="ignore"):
            torques = playable.torques(schedule, trajectory)
    except DynamicsError as exc:
        raise PlayError(exc.code, exc.message, str(args.file)) from None
    for what, values in (("joint velocities", torques.joint_velocities),
                         ("joint torques", torques.joint_torques),
                         ("armature torques", torques.armature_torques)):
        bad = ~np.isfinite(values)
        if bad.any():  # the positions were finite, their rates or accelerations are not numbers
            step = int(np.nonzero(bad)[0][0])
            column = _fastest_change(torques.joint_velocities, bad[step], step)
            raise PlayError("play.non-finite", f"the {what} overflow at step {step} "
                            f"({torques.joint_names[column]}): the joints' rates and accelerations at the "
                            f"step {schedule.dt:g} s are too large to compute with; check the file's units "
                            "and values, or choose a larger step (--dt)", str(args.commands))
    return torques


def _check_clearance_option(args: argparse.Namespace, playable) -> None:
    """Refuse ``--clearance`` on what has no rig (a URDF alone has no parts, magnets nor margin)."""
    if getattr(args, "clearance", False) and getattr(playable, "built", None) is None:
        raise PlayError("play.clearance", "--clearance checks a rig's items (its links, parts, magnets and "
                        "samples, and its margin): play a rig file or bundle that holds this description",
                        "--clearance")


def _clearance(playable, schedule: Schedule, trajectory: Trajectory, args):
    """The clearance of ``--clearance`` along the played steps (None without it)."""
    if not getattr(args, "clearance", False):
        return None
    from mime_gui.rig.clearance_check import check
    from mime_gui.rig.collision import clearance_model

    return check(clearance_model(playable.built), trajectory.frame_poses, trajectory.times(schedule.start))


def _clearance_arrays(found) -> dict[str, np.ndarray]:
    model = found.model
    return {"clearance_minimum": found.minimum, "clearance_closest": found.closest,
            "clearance_pairs": np.array(found.pairs, dtype=str).reshape(-1, 2),
            "clearance_margin": np.float64(found.margin),
            "clearance_left_out": np.array(model.left_out, dtype=str).reshape(-1, 3),
            "clearance_allowed": np.array(model.allowed, dtype=str).reshape(-1, 3),
            "clearance_findings": np.array([(f.code, f.where, f.message) for f in found.findings],
                                           dtype=str).reshape(-1, 3)}


FINDINGS_SHOWN = 20  # clearance findings printed (the output holds every one)


def _clearance_summary(found) -> list[str]:
    model = found.model
    lines = [f"  clearance: {len(found.pairs)} moving pair(s) and {len(model.fixed)} fixed pair(s) of "
             f"{len(model.bodies)} items checked, {len(model.left_out)} left out, {len(model.allowed)} "
             f"allowed; margin {found.margin * 1e3:g} mm; {len(found.findings)} finding(s)"]
    if len(found.minimum) and found.closest.min() >= 0:
        k = int(np.argmin(found.minimum))
        a, b = found.pairs[found.closest[k]]
        lines.append(f"    smallest distance {found.minimum[k] * 1e3:.6g} mm at t = {found.time[k]:g} s "
                     f"({a}, {b})")
    lines += [f"    {f}" for f in found.findings[:FINDINGS_SHOWN]]
    if len(found.findings) > FINDINGS_SHOWN:
        lines.append(f"    … and {len(found.findings) - FINDINGS_SHOWN} more (clearance_findings in the "
                     "output)")
    lines += [f"    skipped {label}: {why}" for label, why in model.skipped]
    return lines


DEMANDS_SHOWN = 40  # joints whose demand is printed (the output holds every one)


def _pulled(playable) -> str:
    """Which torque-driven segments' forward dynamics felt the magnets' pull ("" when none did)."""
    pulled = getattr(playable, "pulled", ())
    return f"the forward dynamics of {', '.join(pulled)} (torque-driven) feel it" if pulled else ""


def _torques_summary(torques, pulled: str = "") -> list[str]:
    n = len(torques.joint_names)
    if not n:
        return ["  torques: no dynamic segment"]
    peak = np.abs(torques.joint_torques).max(axis=0) if len(torques.time) else np.zeros(n)
    worst = int(np.argmax(peak))
    lines = [f"  torques: {n} joint(s) of dynamic segments, largest |τ| {peak[worst]:.6g} at "
             f"{torques.joint_names[worst]}; {len(torques.excesses)} limit excess(es)"]
    share = getattr(torques, "magnet_torques", None)
    if share is not None and share.size:
        size = np.abs(share).max(axis=0)
        j = int(np.argmax(size))
        lines.append(f"  magnets' pull on each other: {len(torques.magnet_pull.pairs)} pair(s), largest "
                     f"share |τ| {size[j]:.6g} at {torques.joint_names[j]} (magnet_torques)"
                     + (f"; {pulled}" if pulled else ""))
    lines += [f"    {e}" for e in torques.excesses[:20]]
    if len(torques.excesses) > 20:
        lines.append(f"    … and {len(torques.excesses) - 20} more (limit_excesses in the output)")
    found = torques.demands()
    if found:
        lines.append("  demand per joint (peak, RMS, peak speed; torque_peak, torque_rms, velocity_peak):")
        lines += [f"    {d}" for d in found[:DEMANDS_SHOWN]]
        if len(found) > DEMANDS_SHOWN:
            lines.append(f"    … and {len(found) - DEMANDS_SHOWN} more joints (in the output)")
    return lines


def _clamped_summary(names, counts, steps: int) -> str:
    total = int(np.sum(counts))
    parts = ", ".join(f"{n}: {int(c)}" for n, c in zip(names, counts, strict=True) if c)
    return f"{total} of {steps * len(names)}" + (f" ({parts})" if parts else "")


def play(args: argparse.Namespace, out=None, err=None) -> int:
    """The command's work; raises the coded errors :func:`run` prints."""
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    wall = _time.perf_counter()
    _check_options(args)
    with package_dirs.applied(args):
        playable = load_playable(args.file, args)
    _check_clearance_option(args, playable)
    recorded = read_commands(args.commands)
    _check_size(playable, recorded, args.dt, str(args.out))
    schedule = playable.schedule(recorded, args.dt)
    if getattr(playable, "torque_schedule", None) is not None:  # sub-steps integrate torque-driven segments
        try:
            check_substeps(schedule.steps, args.substeps, schedule.dt)
        except CodedError as exc:
            raise PlayError("play.substeps", exc.message, "--substeps") from None
    progress = _ProgressBar(err) if schedule.steps >= PROGRESS_STEPS and err.isatty() else None
    started = _time.perf_counter()
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is refused below, with its place
        trajectory = playable.play(schedule, progress)
    playing = _time.perf_counter() - started
    _check_finite(trajectory, playable, schedule, str(args.commands))
    torques = _torques(playable, schedule, trajectory, args)
    found = _clearance(playable, schedule, trajectory, args)
    _write(Path(args.out), {
        "time": trajectory.times(schedule.start),
        "joint_names": np.array(playable.joint_names, dtype=str),
        "joint_positions": trajectory.joint_positions,
        "frame_names": np.array(playable.frame_names, dtype=str),
        "frame_poses": trajectory.frame_poses,
        "frame_angular_velocities": trajectory.frame_angular_velocities,
        "command_names": np.array(schedule.command_names, dtype=str),
        "dt": np.float64(schedule.dt),
        "clamped": trajectory.clamped,
        **(torques.arrays() if torques is not None else {}),
        **(_clearance_arrays(found) if found is not None else {}),
    })
    if not args.quiet:
        steps, dt = schedule.steps, schedule.dt
        servo = getattr(playable, "servo_summary", None) or f"{args.servo_tau or 0.0:g} s"
        clamped = _clamped_summary(schedule.command_names, trajectory.clamped, steps)
        total = _time.perf_counter() - wall
        lines = [f"played {args.file} ({playable.name}): {len(playable.command_names)} commanded joints, "
                 f"{len(playable.frame_names)} frames",
                 f"  commands: {args.commands}: {len(recorded.time)} samples of {len(recorded.joint_names)} "
                 f"joint(s)",
                 f"  steps: {steps} x {dt:g} s = {steps * dt:g} s, servo time constant {servo}",
                 f"  clamped command values: {clamped}",
                 f"  wall time: {playing * 1e3:.1f} ms playing, {total * 1e3:.1f} ms in all",
                 f"  wrote {args.out}"]
        pulled = _pulled(playable)
        if torques is not None:
            lines[-1:-1] = _torques_summary(torques, pulled)
        elif pulled:
            lines[-1:-1] = [f"  magnets' pull on each other: {pulled}"]
        if found is not None:
            lines[-1:-1] = _clearance_summary(found)
        for line in lines:  # names and paths from files: escaped, so no line can be forged
            print(printable(line), file=out)
    return 0


def run(args: argparse.Namespace) -> int:
    """Play and report; a coded refusal prints ``error[CODE] FILE:LINE: message`` on stderr and returns 2."""
    try:
        return play(args)
    except Exception as exc:  # every coded refusal offers one_line(); anything else is a bug and propagates
        if not callable(getattr(exc, "one_line", None)):
            raise
        print(printable(exc.one_line()), file=sys.stderr)
        return 2
