"""B at probes along a played trajectory, batched over time with Magpylib paths.

Each magnet is one Magpylib source whose path is its ``T`` world poses; each probe one sensor whose path is
its ``T`` world positions; one ``getB`` call gives every magnet's field at every probe at every step.
A call covers at most :data:`CHUNK_TRIPLES` (step, magnet, probe) triples: longer trajectories are cut into
chunks of steps (and, when one step holds more, of probes), to bound the memory, never into single steps.
Each magnet's share is kept only when asked (``contributions``); otherwise each chunk is summed as it comes,
so the memory is that of ``B``, not of magnets x probes x steps (:func:`field_bytes` counts it). A probe that
is inside a magnet at some steps is reported (``inside``), not refused: a probe and a magnet on different
frames meet only at some poses.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from mime_gui.field.errors import FieldError
from mime_gui.field.sources import MagnetSource, magnet_sources
from mime_gui.multibody.magnitudes import MAX_LENGTH
from mime_gui.rig.findings import Finding
from mime_gui.rig.probes import Probe, inside

#: (step, magnet, probe) triples per Magpylib call (4 magnets x 4 probes x 6,250 steps)
CHUNK_TRIPLES = 100_000
#: bytes of Magpylib scratch counted per triple of a call: measured up to about 760 (cuboids, 100,000
#: triples), 30 times the 24 bytes of the call's result
SCRATCH_PER_TRIPLE = 1024
#: what one Magpylib call allocates whatever its size (its sources, sensors and their paths; measured at
#: 10–12 MB with tracemalloc on 40 balls and 100 probes), counted once
CALL_OVERHEAD = 16 * 1024 * 1024


@dataclass(frozen=True, eq=False)
class FieldTrajectory:
    """The field along a trajectory: ``time (T,)`` s, ``B (T, P, 3)`` T in world axes at ``probe_names``;
    ``contributions (T, M, P, 3)`` per magnet of ``magnet_names`` when asked (else None);
    ``probe_positions (T, P, 3)`` m and ``world_R_probe (T, P, 3, 3)`` (the probe's mount frame's axes;
    the identity in the world); ``inside (T, P)`` where a probe is inside a magnet, with ``findings``
    saying which, once per probe and magnet."""

    time: np.ndarray
    probe_names: tuple[str, ...]
    magnet_names: tuple[str, ...]
    B: np.ndarray
    probe_positions: np.ndarray
    world_R_probe: np.ndarray
    inside: np.ndarray
    contributions: np.ndarray | None = None
    findings: list[Finding] = field(default_factory=list)

    def in_probe_frames(self) -> np.ndarray:
        """``B (T, P, 3)`` in each probe's own axes (its mount frame's): constant for a probe riding with
        the magnets that make its field."""
        return np.einsum("tpji,tpj->tpi", self.world_R_probe, self.B)


def probe_points(built, probes: Mapping[str, Probe | tuple] | None = None) -> dict[str, Probe]:
    """The probes to compute at: ``probes`` maps a name to a :class:`Probe` or a world point ``(x, y, z)``
    (m); None takes every probe of the rig. A probe on a frame the rig does not have is refused."""
    chosen = dict(built.apparatus.probes) if probes is None else dict(probes)
    frames = set(built.frame_names)
    out = {}
    for name, probe in chosen.items():
        if not isinstance(probe, Probe):
            try:
                probe = Probe(probe)
            except TypeError as exc:
                raise FieldError("field.probe", f"{exc}; give a probe as three numbers in metres",
                                 f"probes.{name}") from None
        if probe.mount is not None and probe.mount not in frames:
            raise FieldError("field.probe", f"{probe.mount!r} is not a frame of the rig; mount the probe on "
                             "'<segment>.<frame>' or leave it in the world", f"probes.{name}.mount")
        # the bound of probe.placement: beyond it Magpylib's series for a cylinder may never end
        if not (np.all(np.isfinite(probe.at)) and np.all(np.abs(probe.at) <= MAX_LENGTH)):
            raise FieldError("field.probe", f"at {probe.at} is not a finite point within ±{MAX_LENGTH:g} m; "
                             "give metres", f"probes.{name}.at")
        out[name] = probe
    return out


def _probe_poses(built, probes: dict[str, Probe], frame_poses: np.ndarray):
    """``positions (T, P, 3)`` and ``world_R_probe (T, P, 3, 3)``."""
    T = len(frame_poses)
    positions = np.empty((T, len(probes), 3))
    rotations = np.empty((T, len(probes), 3, 3))
    index = {name: i for i, name in enumerate(built.frame_names)}
    for j, probe in enumerate(probes.values()):
        at = np.asarray(probe.at, dtype=float)
        if probe.mount is None:
            positions[:, j] = at
            rotations[:, j] = np.eye(3)
        else:
            world_X_frame = frame_poses[:, index[probe.mount]]
            positions[:, j] = world_X_frame[:, :3, :3] @ at + world_X_frame[:, :3, 3]
            rotations[:, j] = world_X_frame[:, :3, :3]
    return positions, rotations


def field_at(magnets: list[MagnetSource], world_X_magnets: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Each magnet's B ``(T, M, P, 3)`` at ``points (T, P, 3)``, the magnets at ``world_X_magnets
    (T, M, 4, 4)``: one Magpylib call, the step as the path."""
    import magpylib as magpy
    from scipy.spatial.transform import Rotation

    T, P = points.shape[:2]
    M = len(magnets)
    if T == 0 or P == 0 or M == 0:
        return np.zeros((T, M, P, 3))
    sources = []
    for m, magnet in enumerate(magnets):
        source = magnet.source()
        source.position = magnet.position(world_X_magnets[:, m])
        source.orientation = Rotation.from_matrix(world_X_magnets[:, m, :3, :3])
        sources.append(source)
    if T == 1:  # one pose (a plane of points): the points as one observer array, no sensor objects
        B = magpy.getB(sources, points[0], squeeze=False)  # (sources, 1, 1, points, 3)
        return np.moveaxis(B[:, :, 0, :, :], 0, 1)
    sensors = [magpy.Sensor(position=points[:, p]) for p in range(P)]
    B = magpy.getB(sources, sensors, squeeze=False)  # (sources, path, sensors, pixel, 3)
    return np.moveaxis(B[:, :, :, 0, :], 0, 1)


def _chunks(steps: int, magnets: int, probes: int) -> tuple[int, int]:
    """(steps, probes) per Magpylib call: at most :data:`CHUNK_TRIPLES` triples, whole steps first."""
    per_step = max(magnets * probes, 1)
    if per_step <= CHUNK_TRIPLES:
        return max(1, min(steps, CHUNK_TRIPLES // per_step)), max(probes, 1)
    return 1, max(1, CHUNK_TRIPLES // max(magnets, 1))


def field_bytes(steps: int, magnets: int, probes: int, contributions: bool = False) -> int:
    """About the most memory :func:`field_along` holds for these sizes, the played trajectory aside: per
    step and probe the position, the probe's axes, ``B``, ``inside`` and the inside test's scratch; per step
    and magnet its pose; each magnet's share when ``contributions`` keeps it; one Magpylib call's scratch."""
    t, m, p = steps, magnets, probes
    per_step = 8 * (1 + p * (3 + 9 + 3 + 8) + 16 * m) + 6 * p + (24 * m * p if contributions else 0)
    chunk_steps, chunk_probes = _chunks(t, m, p)
    call = min(t, chunk_steps) * m * min(p, chunk_probes)
    return t * per_step + SCRATCH_PER_TRIPLE * call + CALL_OVERHEAD


def field_along(built, trajectory, probes=None, contributions: bool = False, start: float = 0.0) \
        -> FieldTrajectory:
    """B at ``probes`` (see :func:`probe_points`) at every step of ``trajectory`` (a
    :class:`~mime_gui.rig.build.RigTrajectory` of ``built`` or its ``as_trajectory()``); ``contributions``
    keeps each magnet's share. ``start`` is the time before the first step."""
    chosen = probe_points(built, probes)
    magnets = magnet_sources(built)
    frame_poses = np.asarray(trajectory.frame_poses, dtype=float)
    T = len(frame_poses)
    positions, rotations = _probe_poses(built, chosen, frame_poses)
    world_X_magnets = np.stack([m.poses(frame_poses) for m in magnets], axis=1) if magnets else \
        np.zeros((T, 0, 4, 4))
    M, P = len(magnets), len(chosen)
    B = np.zeros((T, P, 3))
    parts = np.zeros((T, M, P, 3)) if contributions else None  # only when asked: M times the size of B
    n, k = _chunks(T, M, P)
    for s in range(0, T, n):
        for q in range(0, P, k):
            share = field_at(magnets, world_X_magnets[s:s + n], positions[s:s + n, q:q + k])
            B[s:s + n, q:q + k] = share.sum(axis=1)
            if parts is not None:
                parts[s:s + n, :, q:q + k] = share
    time = trajectory.times(start)
    within, findings = _inside(magnets, world_X_magnets, positions, tuple(chosen), time)
    return FieldTrajectory(time, tuple(chosen), tuple(m.name for m in magnets), B, positions, rotations,
                           within, parts, findings)


def _inside(magnets, world_X_magnets, positions, probe_names, time):
    T, P = positions.shape[:2]
    any_inside = np.zeros((T, P), dtype=bool)
    findings = []
    for m, magnet in enumerate(magnets):
        R = world_X_magnets[:, m, :3, :3]
        local = np.einsum("tji,tpj->tpi", R, positions - world_X_magnets[:, m, None, :3, 3])
        hit = inside(magnet.geometry, local)
        if hit is None:  # a mesh: not checked
            continue
        any_inside |= hit
        for p in np.flatnonzero(hit.any(axis=0)):
            steps = np.flatnonzero(hit[:, p])
            findings.append(Finding(
                "field.probe-inside-magnet", f"probes.{probe_names[p]}",
                f"inside magnet {magnet.name!r} at {len(steps)} of {T} steps (first at t = "
                f"{time[steps[0]]:g} s), where the field is not what a sample sees; move the probe or the "
                "trajectory"))
    return any_inside, findings


__all__ = ["CHUNK_TRIPLES", "FieldTrajectory", "field_along", "field_at", "field_bytes", "probe_points"]
