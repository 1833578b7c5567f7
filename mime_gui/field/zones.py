"""Where the field enters the rig's keep-out zones along a played trajectory.

**Where to look.** Outside the magnets each component of B is harmonic, so ``|B|²`` is subharmonic
(``Δ|B|² = 2 Σ|∇B_i|² ≥ 0``) and its largest value over a zone that holds no magnet is on the zone's
surface. The check samples the surface: a box's six faces on a grid of :data:`FACE_POINTS` × FACE_POINTS
points each (edges and corners included), a ball's sphere at :data:`SPHERE_POINTS` points of a Fibonacci
lattice. Between neighbours ``δ`` apart the true largest |B| can exceed the sampled one by at most
``δ/2 · max|∇B|``, about ``1.5 δ/s`` of |B| at a distance ``s`` from a magnet (a dipole's gradient is
``3|B|/s``): a zone whose spacing is small beside its distance from the magnets is checked closely, and a
zone a magnet sweeps past at a distance below its spacing should be cut into smaller zones.

**Which steps.** First a bound that needs no field: an element ``dm`` of a magnet gives at most
``μ0/4π · 2|dm|/d³`` at a distance ``d``, so a magnet of moment ``|m|`` within a sphere of radius ``a``
about its centroid gives at most ``μ0/4π · 2|m|/(r − a)³`` at ``r > a`` from its centroid. Where the sum of
these bounds at the zone's nearest point stays within the limit, the step is clear whatever the field's
shape. On the other steps each surface point takes its own bound, and only the (step, point) pairs it
cannot clear are computed: each magnet's field at those points taken into its own frame, one Magpylib call
per magnet and chunk over every pair (no loop over steps, and no path of orientations to build). A magnet
whose bounding sphere reaches into the zone makes the step sampled too, and a magnet whose centroid lies in
the zone makes it a breach outright (the field inside a magnet is of the order of its remanence).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mime_gui.field.forces import bounding_radius
from mime_gui.field.sources import magnet_sources
from mime_gui.rig.findings import Finding
from mime_gui.rig.mass import MU0

#: points along each edge of a box zone's face grid
FACE_POINTS = 6
#: points on a ball zone's sphere
SPHERE_POINTS = 64
#: (step, magnet, point) evaluations per Magpylib call
ZONE_CHUNK = 100_000


@dataclass(frozen=True, eq=False)
class ZoneCheck:
    """``time (T,)`` s; ``worst (T, Z)`` the largest |B| (T) on each zone of ``zone_names`` at each step: the
    field computed at the surface points the bound could not clear, the bound elsewhere (so a step within
    the limit holds at most the limit; NaN while a magnet's centroid is in the zone); ``sampled (T, Z)``
    where the bound did not clear the zone; ``breach (T, Z)`` where |B| exceeds the zone's limit;
    ``findings``: one ``field.zone`` per zone breached."""

    time: np.ndarray
    zone_names: tuple[str, ...]
    worst: np.ndarray
    sampled: np.ndarray
    breach: np.ndarray
    findings: list[Finding] = field(default_factory=list)


def surface_points(zone) -> np.ndarray:
    """The points ``(n, 3)`` sampled on a zone's surface, in its own frame (its centre at the origin)."""
    if zone.box is not None:
        half = 0.5 * np.asarray(zone.box, dtype=float)
        u = np.linspace(-1.0, 1.0, FACE_POINTS)
        a, b = np.meshgrid(u, u, indexing="ij")
        faces = []
        for axis in range(3):
            for side in (-1.0, 1.0):
                p = np.empty((a.size, 3))
                others = [i for i in range(3) if i != axis]
                p[:, axis] = side
                p[:, others[0]], p[:, others[1]] = a.ravel(), b.ravel()
                faces.append(p)
        return np.unique(np.concatenate(faces), axis=0) * half
    i = np.arange(SPHERE_POINTS) + 0.5
    z = 1.0 - 2.0 * i / SPHERE_POINTS
    phi = np.pi * (1.0 + 5**0.5) * i
    r = np.sqrt(1.0 - z * z)
    return zone.sphere * np.column_stack([r * np.cos(phi), r * np.sin(phi), z])


def _zone_poses(built, zones, frame_poses) -> np.ndarray:
    """``world_X_zone (T, Z, 4, 4)``: each zone's centre and its mount frame's axes."""
    T = len(frame_poses)
    index = {name: i for i, name in enumerate(built.frame_names)}
    out = np.broadcast_to(np.eye(4), (T, len(zones), 4, 4)).copy()
    for z, zone in enumerate(zones.values()):
        at = np.asarray(zone.at, dtype=float)
        if zone.mount is None:
            out[:, z, :3, 3] = at
        else:
            world_X_frame = frame_poses[:, index[zone.mount]]
            out[:, z, :3, :3] = world_X_frame[:, :3, :3]
            out[:, z, :3, 3] = world_X_frame[:, :3, :3] @ at + world_X_frame[:, :3, 3]
    return out


def _distance(zone, local: np.ndarray) -> np.ndarray:
    """Distance from points ``(..., 3)`` in the zone's frame to the zone (0 inside)."""
    if zone.box is not None:
        outside = np.maximum(np.abs(local) - 0.5 * np.asarray(zone.box), 0.0)
        return np.linalg.norm(outside, axis=-1)
    return np.maximum(np.linalg.norm(local, axis=-1) - zone.sphere, 0.0)


def _field_of_pairs(magnets, X: np.ndarray, points: np.ndarray) -> np.ndarray:
    """B ``(N, 3)`` at ``points (N, 3)``, each with the magnets at its own poses ``X (N, M, 4, 4)``: each
    magnet's field at the points taken into its own frame (one Magpylib call per magnet over every pair,
    no path of N orientations to build), turned back to the world."""
    import magpylib as magpy

    B = np.zeros((len(points), 3))
    for m, magnet in enumerate(magnets):
        R, t = X[:, m, :3, :3], X[:, m, :3, 3]
        local = np.einsum("nji,nj->ni", R, points - t) + magnet.centroid  # the source's own frame
        B += np.einsum("nij,nj->ni", R, magpy.getB(magnet.source(), local, squeeze=True).reshape(-1, 3))
    return B


def _bound(distance: np.ndarray, moment: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """The largest |B| (T) the magnets can give at ``distance (..., M)`` from their centroids, summed over
    them: ``μ0/4π · 2|m|/(r − a)³``, infinite within a bounding sphere."""
    gap = distance - radii
    safe = np.where(gap > 0, gap, 1.0)
    return np.where(gap > 0, MU0 / (4 * np.pi) * 2 * moment / safe**3, np.inf).sum(axis=-1)


def zone_findings(built, trajectory, start: float = 0.0) -> ZoneCheck:
    """The largest |B| on each zone of the rig at every step of ``trajectory``, and a ``field.zone`` finding
    for each zone the field enters beyond its limit (the first and last time, the number of steps, the
    worst |B| and when)."""
    zones = built.apparatus.zones
    frame_poses = np.asarray(trajectory.frame_poses, dtype=float)
    T, Z = len(frame_poses), len(zones)
    time = trajectory.times(start)
    magnets = magnet_sources(built)
    M = len(magnets)
    X = np.stack([m.poses(frame_poses) for m in magnets], axis=1) if magnets else np.zeros((T, 0, 4, 4))
    moment = np.array([built.analysis.moments[m.name].moment for m in magnets])
    radii = np.array([bounding_radius(m) for m in magnets])
    W = _zone_poses(built, zones, frame_poses)
    worst = np.zeros((T, Z))
    sampled = np.zeros((T, Z), dtype=bool)
    breach = np.zeros((T, Z), dtype=bool)
    findings = []
    for z, (name, zone) in enumerate(zones.items()):
        if M == 0:
            break
        # the magnets' centroids in the zone's frame (T, M, 3)
        centres = np.einsum("tji,tmj->tmi", W[:, z, :3, :3], X[:, :, :3, 3] - W[:, z, None, :3, 3])
        reach = _distance(zone, centres)  # (T, M)
        inside = (reach == 0.0).any(axis=1)  # a magnet's centroid in the zone: a breach, not sampled
        total = _bound(reach, moment, radii)
        worst[:, z] = np.where(inside, np.nan, total)
        look = np.flatnonzero((total > zone.limit) & ~inside)
        if len(look):
            sampled[look, z] = True
            local = surface_points(zone)
            points = np.einsum("tij,pj->tpi", W[look, z, :3, :3], local) + W[look, z, None, :3, 3]
            # each point's own bound: only the (step, point) pairs it cannot clear are computed
            reach = np.linalg.norm(X[look, None, :, :3, 3] - points[:, :, None, :], axis=-1)  # (L, P, M)
            largest = _bound(reach, moment, radii)  # (L, P), replaced where computed
            steps, which = np.nonzero(largest > zone.limit)
            for s in range(0, len(steps), max(1, ZONE_CHUNK // M)):
                k = slice(s, s + max(1, ZONE_CHUNK // M))
                B = _field_of_pairs(magnets, X[look[steps[k]]], points[steps[k], which[k]])
                largest[steps[k], which[k]] = np.linalg.norm(B, axis=-1)
            worst[look, z] = largest.max(axis=1)
        breach[:, z] = (worst[:, z] > zone.limit) | inside
        hit = np.flatnonzero(breach[:, z])
        if len(hit):
            measured = hit[~inside[hit]]
            worst_text = ""
            if len(measured):
                k = measured[np.argmax(worst[measured, z])]
                worst_text = f"; worst {worst[k, z] * 1e3:.4g} mT at t = {time[k]:g} s"
            within = np.flatnonzero(inside)
            inside_text = f"; a magnet inside it from t = {time[within[0]]:g} s ({len(within)} steps)" \
                if len(within) else ""
            findings.append(Finding(  # a built rig's zone has a reason: without one, zone.reason refuses it
                "field.zone", f"zones.{name}",
                f"|B| exceeds the zone's limit {zone.limit * 1e3:g} mT at {len(hit)} of {T} steps, from t = "
                f"{time[hit[0]]:g} s to {time[hit[-1]]:g} s{worst_text}{inside_text} "
                f"({zone.reason}); keep the magnets farther away or move the zone"))
    return ZoneCheck(time, tuple(zones), worst, sampled, breach, findings)


__all__ = ["FACE_POINTS", "SPHERE_POINTS", "ZoneCheck", "surface_points", "zone_findings"]
