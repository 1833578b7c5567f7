"""The keep-out zones at the pose a view shows: which zones the field enters now, and the |B| grid the view
draws the surface |B| = limit from.

**Which zones.** :func:`zones_now` is the one-step case of :func:`~mime_gui.field.zones.zone_findings` (its
bound, then Magpylib at the zone's surface points it cannot clear; a magnet's centroid in the zone is a
breach outright), so the view's red and the trajectory's findings agree by construction.

**The grid.** :func:`keepout_grid` samples |B| on ``n`` x ``n`` x ``n`` points in one batched
:func:`~mime_gui.field.along.field_at` call. It covers where |B| can reach the limit: outside a sphere of
radius ``a`` about its centroid a magnet of moment ``|m|`` gives at most ``μ0/4π · 2|m|/(r − a)³`` (the
bound of :mod:`mime_gui.field.zones`), so beyond ``a + (μ0/4π · 2 Σ|m| / limit)^(1/3)`` from every magnet
the field is below the limit whatever its shape. The box holds every magnet's such ball, grown by
:data:`MARGIN` so the surface never touches the grid's faces: the grid's points are spent where the
surface can be, not over the whole arm.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mime_gui.rig.mass import MU0
from mime_gui.rig.zones import DEFAULT_LIMIT

#: points along each side of the grid
GRID_POINTS = 40
#: the grid's box is the bound's box grown by this share of its half size
MARGIN = 0.1


class _OnePose:
    """A trajectory of one step: what the field's functions read of one."""

    def __init__(self, frame_poses: np.ndarray):
        self.frame_poses = np.asarray(frame_poses, dtype=float)[None]

    def times(self, start: float = 0.0) -> np.ndarray:
        return np.array([start])


def keepout_limit(rig) -> float:
    """The limit the surface is drawn at: the smallest of the rig's zones' limits that are finite and
    positive (T), else the default (0.5 mT)."""
    limits = [z.limit for z in rig.zones.values()
              if isinstance(z.limit, float) and math.isfinite(z.limit) and z.limit > 0]
    return min(limits, default=DEFAULT_LIMIT)


def zones_now(built, frame_poses: np.ndarray):
    """The :class:`~mime_gui.field.zones.ZoneCheck` of the built rig's zones with its frames at
    ``frame_poses (F, 4, 4)`` (in ``built.frame_names`` order): one step."""
    from mime_gui.field.zones import zone_findings

    return zone_findings(built, _OnePose(frame_poses))


@dataclass(frozen=True, eq=False)
class KeepoutGrid:
    """|B| (T) on a regular grid: ``magnitude[i, j, k]`` at ``origin + (i, j, k) * spacing`` (m, world);
    ``limit`` the |B| the surface is drawn at."""

    origin: np.ndarray
    spacing: np.ndarray
    magnitude: np.ndarray
    limit: float

    @property
    def dims(self) -> tuple[int, int, int]:
        return tuple(int(n) for n in self.magnitude.shape)

    def points(self) -> np.ndarray:
        """The grid's points ``(nx, ny, nz, 3)``."""
        axes = [self.origin[d] + np.arange(n) * self.spacing[d] for d, n in enumerate(self.dims)]
        return np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1)


def _moments(built, magnets) -> np.ndarray:
    parts = {p["name"]: p for p in built.report.data["parts"] if p["collection"] == "magnets"}
    return np.array([float(parts[m.name]["magnet"]["moment"]) for m in magnets])


def grid_box(built, frame_poses: np.ndarray, limit: float) -> tuple[np.ndarray, np.ndarray] | None:
    """``(low, high)`` corners (m, world) of the box the surface |B| = ``limit`` lies in (see the module),
    or None for a rig without magnets."""
    from mime_gui.field.forces import bounding_radius
    from mime_gui.field.sources import magnet_sources

    magnets = magnet_sources(built)
    if not magnets:
        return None
    poses = np.asarray(frame_poses, dtype=float)[None]
    centres = np.stack([m.poses(poses)[0, :3, 3] for m in magnets])
    radii = np.array([bounding_radius(m) for m in magnets])
    reach = (MU0 / (4 * np.pi) * 2 * _moments(built, magnets).sum() / limit) ** (1 / 3)
    half = (float(radii.max()) + reach) * (1 + MARGIN)
    return centres.min(axis=0) - half, centres.max(axis=0) + half


def keepout_grid(built, frame_poses: np.ndarray, limit: float, n: int = GRID_POINTS) -> KeepoutGrid | None:
    """|B| of the built rig's magnets, its frames at ``frame_poses (F, 4, 4)``, on ``n``³ points of the box
    of :func:`grid_box` (one Magpylib call); None for a rig without magnets."""
    from mime_gui.field.along import field_at
    from mime_gui.field.sources import magnet_sources

    box = grid_box(built, frame_poses, limit)
    if box is None:
        return None
    low, high = box
    spacing = (high - low) / (n - 1)
    grid = KeepoutGrid(low, spacing, np.zeros((n, n, n)), float(limit))
    magnets = magnet_sources(built)
    poses = np.asarray(frame_poses, dtype=float)[None]
    X = np.stack([m.poses(poses) for m in magnets], axis=1)  # (1, M, 4, 4)
    B = field_at(magnets, X, grid.points().reshape(1, -1, 3)).sum(axis=1)[0]
    grid.magnitude[...] = np.linalg.norm(B, axis=-1).reshape(n, n, n)
    return grid


__all__ = ["GRID_POINTS", "MARGIN", "KeepoutGrid", "grid_box", "keepout_grid", "keepout_limit", "zones_now"]
