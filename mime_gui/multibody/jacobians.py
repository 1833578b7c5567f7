"""Geometric and point Jacobians of frames, world axes.

``geometric_jacobian`` follows RigidBodyDynamics.jl's convention: rows ``[angular; linear]``, the twist of the
frame's body expressed in the world frame, whose linear part is the velocity of the body point that is
momentarily at the world origin. ``point_jacobian`` gives the velocity of a point fixed in a frame.
"""

from __future__ import annotations

import numpy as np

from mime_gui.multibody import _world
from mime_gui.multibody._model import model
from mime_gui.multibody.articulation import Articulation
from mime_gui.multibody.kinematics import axis_frames, check_vector


def _frame(art: Articulation, frame) -> int:
    if isinstance(frame, (int, np.integer)) and not isinstance(frame, bool):
        if not 0 <= frame < art.nframes:
            raise KeyError(f"frame index {frame} out of range for {art.name!r} ({art.nframes} frames)")
        return int(frame)
    if not isinstance(frame, str):
        raise KeyError(f"frame must be a frame name (str) or index, got {type(frame).__name__}")
    return art.frame_index(frame)


def geometric_jacobian(art: Articulation, q, frame) -> np.ndarray:
    """``J (..., 6, nv)`` with ``[omega; v_o] = J @ v``: the world-frame twist of ``frame``'s body (angular
    rows first; linear rows are the velocity of the body point at the world origin)."""
    m = model(art)
    f = _frame(art, frame)
    q = check_vector(art, q)
    F = axis_frames(m, q)
    S = _world.motion_subspaces(m, F)  # (..., nq, 6)
    mask = m.joint_ancestor[m.frame_body[f]]
    return np.swapaxes(S * mask[:, None], -1, -2)


def point_jacobian(art: Articulation, q, frame, point=(0.0, 0.0, 0.0)) -> np.ndarray:
    """``J (..., 3, nv)``: velocity, in world axes, of the point with coordinates ``point`` in ``frame``."""
    m = model(art)
    f = _frame(art, frame)
    q = check_vector(art, q)
    try:
        point = np.asarray(point, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("point must be a 3-vector of numbers (coordinates in the frame)") from None
    if point.shape != (3,) or not np.isfinite(point).all():
        raise ValueError(f"point must be a finite 3-vector (coordinates in the frame), got {point!r}")
    F = axis_frames(m, q)
    b = m.frame_body[f]
    world_X_frame = F[..., b, :, :] @ m.axis_X_frame[f]
    r = world_X_frame[..., :3, :3] @ point + world_X_frame[..., :3, 3]
    S = _world.motion_subspaces(m, F) * m.joint_ancestor[b][:, None]
    # v_point = v_o + omega x r for every joint column
    v = S[..., 3:] + _world.cross(S[..., :3], r[..., None, :])
    return np.swapaxes(v, -1, -2)
