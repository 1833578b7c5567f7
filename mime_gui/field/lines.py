"""Field lines from one magnet at one pose of the rig: traced from seeds around its north pole along B (the
field of every magnet), all seeds advanced together, one Magpylib call per half step (midpoint rule), never
a Python loop over seeds.
"""

from __future__ import annotations

import numpy as np

from mime_gui.field.along import field_at
from mime_gui.field.errors import FieldError
from mime_gui.field.sources import magnet_sources


def _size(geometry) -> float:
    """The magnet's largest extent (m); a mesh counts as 10 mm, the lab scale of the templates."""
    half = getattr(geometry, "half_extents", None)
    return 0.01 if half is None else 2.0 * float(np.max(half()))


def field_lines(built, frame_poses: np.ndarray, magnet: str, seeds: int = 12, steps: int = 300,
                reach: float = 12.0) -> list[np.ndarray]:
    """Lines ``(k, 3)`` (m, world) from ``seeds`` points on a ring around magnet ``magnet``'s north pole (in
    order, right-handed about its north axis: a seed's line keeps its place in the list as the magnet
    turns), followed along B in steps of 12 % of the magnet's size until they come back to the magnet, leave
    a sphere of ``reach`` sizes around it, or after ``steps`` steps. ``frame_poses (F, 4, 4)``: one pose of
    the rig."""
    magnets = magnet_sources(built)
    names = [m.name for m in magnets]
    if magnet not in names:
        raise FieldError("field.magnet", f"{magnet!r} is not a magnet of the rig (magnets: "
                         f"{', '.join(names) or 'none'})", f"magnets.{magnet}")
    poses = np.stack([m.poses(np.asarray(frame_poses)[None])[0] for m in magnets])[None]  # (1, M, 4, 4)
    source = magnets[names.index(magnet)]
    X = poses[0, names.index(magnet)]
    centre = X[:3, 3]
    J = np.asarray(source.polarization, dtype=float)
    if not np.any(J):
        raise FieldError("field.magnet", f"magnet {magnet!r} has no polarisation (remanence 0)",
                         f"magnets.{magnet}")
    north = X[:3, :3] @ (J / np.linalg.norm(J))
    size = _size(source.geometry)
    helper = np.array([1.0, 0.0, 0.0]) if abs(north[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    u = np.cross(north, helper)
    u /= np.linalg.norm(u)
    v = np.cross(north, u)
    angles = np.linspace(0.0, 2.0 * np.pi, seeds, endpoint=False)
    ring = 0.3 * size * (np.cos(angles)[:, None] * u + np.sin(angles)[:, None] * v)
    points = centre + 0.6 * size * north + ring
    h = 0.12 * size

    def along(p):
        B = field_at(magnets, poses, p[None]).sum(axis=1)[0]
        norm = np.linalg.norm(B, axis=1, keepdims=True)
        return np.divide(B, norm, out=np.zeros_like(B), where=norm > 0)

    track = [points.copy()]
    active = np.ones(seeds, dtype=bool)
    ends = np.full(seeds, steps, dtype=int)
    for step in range(1, steps + 1):  # a loop over steps of the line, all seeds at once
        k1 = along(points)
        k2 = along(points + 0.5 * h * k1)
        points = np.where(active[:, None], points + h * k2, points)
        track.append(points.copy())
        r = np.linalg.norm(points - centre, axis=1)
        done = active & ((r > reach * size) | ((r < 0.55 * size) & (step > 5)))
        ends[done] = step
        active &= ~done
        if not active.any():
            break
    track = np.stack(track, axis=1)  # (seeds, k, 3)
    return [track[i, :ends[i] + 1] for i in range(seeds)]


__all__ = ["field_lines"]
