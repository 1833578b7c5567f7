"""|B| on a square plane through a point, the magnets at one pose of the rig: one Magpylib call.

:func:`rest_poses` is the rig at its initial positions (one step holding them); :func:`field_plane` takes any
``frame_poses (F, 4, 4)`` (one row of a trajectory) so a view can show the plane at the pose it draws.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mime_gui.field.along import field_at
from mime_gui.field.sources import magnet_sources


@dataclass(frozen=True, eq=False)
class FieldPlane:
    """``points (n, n, 3)`` m in the world, ``B (n, n, 3)`` T and ``magnitude (n, n)`` T."""

    points: np.ndarray
    B: np.ndarray

    @property
    def magnitude(self) -> np.ndarray:
        return np.linalg.norm(self.B, axis=-1)


def rest_poses(built) -> np.ndarray:
    """``frame_poses (F, 4, 4)`` of the rig at its initial positions."""
    hold = built.initial_commands()[None, :]
    return built.play(hold, 1.0).frame_poses[0]


#: bounds of a plane's side (m): a magnet of a millimetre, a lab bench
MIN_SIDE, MAX_SIDE = 1e-3, 2.0


def plane_side(built, frame_poses: np.ndarray, centre) -> float:
    """The side (m) of a plane around ``centre`` that shows the nearest magnet whole and the space between:
    twice the reach from ``centre`` to that magnet's far side, and at least four magnet sizes (a probe on
    the magnet still sees its surroundings), within :data:`MIN_SIDE` and :data:`MAX_SIDE`. A rig without
    magnets gets 10 cm."""
    magnets = magnet_sources(built)
    if not magnets:
        return 0.1
    frame_poses = np.asarray(frame_poses)[None]
    centre = np.asarray(centre, dtype=float)
    best = None
    for m in magnets:
        X = m.poses(frame_poses)[0]
        half = getattr(m.geometry, "half_extents", None)
        size = 0.01 if half is None else 2.0 * float(np.max(half()))
        reach = float(np.linalg.norm(X[:3, 3] - centre)) + size / 2.0
        if best is None or reach < best[0]:
            best = (reach, size)
    reach, size = best
    side = max(2.0 * reach, 4.0 * size)
    return float(min(max(side, MIN_SIDE), MAX_SIDE))


def field_plane(built, frame_poses: np.ndarray, centre, normal=(0.0, 0.0, 1.0), size: float = 0.1,
                n: int = 100) -> FieldPlane:
    """B on an ``n`` x ``n`` grid of side ``size`` (m) centred on ``centre``, square to ``normal``."""
    normal = np.asarray(normal, dtype=float)
    normal = normal / np.linalg.norm(normal)
    helper = np.array([1.0, 0.0, 0.0]) if abs(normal[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    u = np.cross(normal, helper)
    u /= np.linalg.norm(u)
    v = np.cross(normal, u)
    s = np.linspace(-size / 2.0, size / 2.0, n)
    points = np.asarray(centre, dtype=float) + s[:, None, None] * u + s[None, :, None] * v
    magnets = magnet_sources(built)
    poses = np.stack([m.poses(np.asarray(frame_poses)[None])[0] for m in magnets])[None] if magnets else \
        np.zeros((1, 0, 4, 4))
    B = field_at(magnets, poses, points.reshape(1, -1, 3)).sum(axis=1)[0]
    return FieldPlane(points, B.reshape(n, n, 3))


__all__ = ["MAX_SIDE", "MIN_SIDE", "FieldPlane", "field_plane", "plane_side", "rest_poses"]
