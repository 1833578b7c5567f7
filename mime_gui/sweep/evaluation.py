"""One variant of a sweep evaluated: :func:`evaluate` is a pure function of a :class:`Job` and a
:class:`~mime_gui.sweep.grid.Variant`, returning the variant's row, so any executor (this process, local
worker processes, a Dask cluster) gives the same row.

A row holds ``variant``, the varied values (by path), ``findings`` (how many), ``codes`` (each code once, in
the order found) and ``first_finding`` (``code where: message``). With commands, a variant that builds is
played exactly as ``mime-gui field`` plays it, and the row adds at each probe ``B_max.<probe>`` and
``B_min.<probe>`` (T, of |B| along the trajectory), for each joint of a dynamic segment
``torque_peak.<segment>.<joint>`` (N·m, or N on a sliding joint; the peak of ``play --torques``) and
``limit_excesses``, and, where the clearance check is installed (:mod:`mime_gui.rig.clearance_check`),
``clearance_min`` (m, negative: a penetration) and ``clearance_findings``. A refusal while playing (a
command the variant cannot take, dynamics of a non-physical inertia) is a finding of its row, never an
exception.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import threading

import numpy as np

from mime_gui.errors import CodedError
from mime_gui.sweep.grid import SweepError, Variant, Vary, apply

try:  # the clearance check is optional: without it the rows have no clearance columns
    from mime_gui.rig.clearance_check import clearance_along
except ImportError:  # pragma: no cover - present in this tree
    clearance_along = None

#: the version of the rows' meaning, part of every table's key: a change of columns starts a new table
ROWS_VERSION = 1


@dataclasses.dataclass(frozen=True, eq=False)
class Job:
    """What every variant shares: the rig file's text, its name (for messages) and ``base`` (the folder its
    relative paths are read against), the varied values, the recorded commands (None: findings only), the
    step and servo time constant (None: the file's spacing, each segment's own), the package folders, and
    whether clearance is computed. ``key`` fingerprints all that changes a row."""

    rig_text: str
    rig_file: str
    base: str
    varies: tuple[Vary, ...]
    recorded: object | None = None
    dt: float | None = None
    servo_tau: float | None = None
    package_dirs: tuple[str, ...] = ()
    clearance: bool = clearance_along is not None
    key: str = ""


def fingerprint(job: Job) -> str:
    """The hex SHA-256 of what makes a row: the rig's text, the varied values, the commands, the options."""
    h = hashlib.sha256()
    settings = {"rows": ROWS_VERSION, "dt": job.dt, "servo_tau": job.servo_tau, "clearance": job.clearance,
                "varies": [[v.path, v.kind, [repr(x) for x in v.values]] for v in job.varies]}
    h.update(json.dumps(settings, sort_keys=True).encode())
    h.update(job.rig_text.encode("utf-8", "surrogatepass"))
    recorded = job.recorded
    if recorded is not None:
        h.update(json.dumps([list(recorded.joint_names), list(recorded.units)]).encode())
        h.update(np.ascontiguousarray(recorded.time, dtype=float).tobytes())
        h.update(np.ascontiguousarray(recorded.joint_positions, dtype=float).tobytes())
    return h.hexdigest()


def make_job(**fields) -> Job:
    """A :class:`Job` with its ``key``."""
    job = Job(**fields)
    return dataclasses.replace(job, key=fingerprint(job))


_lock = threading.Lock()
_prepared: dict[str, object] = {}  # the job's key -> its parsed rig (one job per worker at a time)


def base_rig(job: Job):
    """The job's rig, parsed once per process (a worker evaluates many variants of one job)."""
    with _lock:
        rig = _prepared.get(job.key)
        if rig is None:
            from mime_gui.multibody.resolve import set_package_dirs
            from mime_gui.rig.actuator_sources import discover
            from mime_gui.rig.rigfile import parse

            set_package_dirs(list(job.package_dirs))
            discover(job.base)  # the actuators validate sees: entry points, the config's, the rig's folder
            rig = parse(job.rig_text, job.rig_file, base=job.base)
            _prepared.clear()
            _prepared[job.key] = rig
    return rig


def evaluate(job: Job, variant: Variant) -> dict:
    """The row of ``variant`` (see the module's docstring)."""
    from mime_gui.rig import RigError
    from mime_gui.rig.findings import Finding

    row: dict = {"variant": variant.index}
    row.update({vary.path: value for vary, value in zip(job.varies, variant.values, strict=True)})
    rig = apply(base_rig(job), job.varies, variant.values)
    findings = list(rig.validate())
    figures: dict = {}
    if not findings and job.recorded is not None:
        try:
            figures = _figures(job, rig)
        except RigError as exc:
            findings = list(exc.findings)
        except CodedError as exc:
            findings = [Finding(exc.code, exc.where(), exc.message)]
    codes = list(dict.fromkeys(f.code for f in findings))
    first = f"{findings[0].code} {findings[0].where}: {findings[0].message}" if findings else ""
    row.update({"findings": len(findings), "codes": " ".join(codes), "first_finding": first})
    row.update(figures)
    return row


def _figures(job: Job, rig) -> dict:
    from mime_gui.field import field_along
    from mime_gui.rig.playback import RigPlayable

    built = rig.build()
    playable = RigPlayable(built, job.servo_tau)
    schedule = playable.schedule(job.recorded, job.dt)
    with np.errstate(over="ignore", invalid="ignore"):
        trajectory = playable.play(schedule)
    if not np.all(np.isfinite(trajectory.frame_poses)):
        raise SweepError("sweep.non-finite", "the played poses overflow; check the command file's units and "
                         "values, or choose a larger step (--dt)", "--commands")
    out: dict = {}
    probes = dict(built.apparatus.probes)
    if built.apparatus.magnets and probes:
        field = field_along(built, trajectory, probes, start=schedule.start)
        size = np.linalg.norm(field.B, axis=2)  # (steps, probes): |B|, as the field's summary takes it
        for p, name in enumerate(field.probe_names):
            out[f"B_max.{name}"] = float(size[:, p].max()) if len(size) else None
            out[f"B_min.{name}"] = float(size[:, p].min()) if len(size) else None
    with np.errstate(over="ignore", invalid="ignore"):
        torques = playable.torques(schedule, trajectory)
    if torques.joint_names:
        out.update({f"torque_peak.{d.joint}": float(d.peak) for d in torques.demands()})
        out["limit_excesses"] = len(torques.excesses)
    if job.clearance and clearance_along is not None:
        found = clearance_along(built, trajectory, schedule.start)
        smallest = float(np.min(found.minimum)) if len(found.minimum) else np.inf
        out["clearance_min"] = smallest if np.isfinite(smallest) else None  # no pair that can touch
        out["clearance_findings"] = len(found.findings)
    return out


__all__ = ["Job", "ROWS_VERSION", "base_rig", "clearance_along", "evaluate", "fingerprint", "make_job"]
