"""The field's Jacobian over the chain's commands, composed: the field's derivative with respect to each
magnet's pose, times the engine's frame Jacobians.

**Frames.** :func:`frame_twists` gives, for poses of many commands at once, the world twist of any frames
of the built rig per command: ``(K, F, 6, n)``, rows ``[ω; v]`` in world axes, ``v`` the velocity of the
frame's origin (as :mod:`mime_gui.multibody.inverse_kinematics` writes it). Each segment's share is
:func:`~mime_gui.multibody.geometric_jacobian` of its articulation (its base's axes, linear rows at its base's
origin), turned into world axes by its base's pose; a segment riding on another moves with the frame it is
mounted on, so the carrier's columns are those of that frame (twists at a common point add along a chain of
rigid mounts). A mimic follower's column is added to its master's, times its multiplier, while it is not
held at a limit (as the playback node makes it).

**The field.** A magnet at ``(R, c)`` gives ``B(p) = R b(Rᵀ(p − c))`` with ``b`` its field in its own
frame. Turned by ``ω`` about ``c`` and moved by ``v``, and the point moved by ``v_p``, to first order::

    dB = ω × B + G (v_p − u),        u = v + ω × (p − c)
    dG = [ω] G − G [ω] + H[v_p − u]

where ``u`` is the velocity of the magnet's body at ``p``, ``G[i, j] = ∂B_i/∂x_j`` and ``H[i, j, k] =
∂²B_i/∂x_j∂x_k`` (``H[w]`` its contraction with ``w`` over ``k``): the field rides with the magnet, so only
the point's motion relative to the magnet's body and the turn of the field's own axes change it. Magpylib
gives B alone, so ``G`` is taken per magnet by central differences (:mod:`mime_gui.field.forces`: step
``STEP_RATIO`` of the distance to the magnet's bounding sphere, within 1e-6 of its norm) and ``H``, when
asked, by second central differences at :data:`SECOND_RATIO` of that distance (the six axis points and
twelve diagonal ones: within about 1e-5 of its norm, measured on a ball against its dipole's) — every
magnet, pose and point in one Magpylib call.
"""

from __future__ import annotations

import numpy as np

from mime_gui.field.along import field_at
from mime_gui.field.forces import STEP_RATIO, difference_steps
from mime_gui.multibody.jacobians import geometric_jacobian

#: the second differences' step over the distance to the nearest magnet's bounding sphere: truncation
#: about 2.5 (h/s)² of H for a dipole, Magpylib's rounding (1e-11 of B for a cylinder) about 1e-12 (s/h)²
SECOND_RATIO = 2e-3
_AXES = np.eye(3)
#: the first differences' six points, then the second differences' six on the axes and twelve diagonals
_FIRST = np.concatenate([_AXES, -_AXES])
_PAIRS = [(j, k) for j in range(3) for k in range(j + 1, 3)]
_DIAGONAL = np.array([sj * _AXES[j] + sk * _AXES[k] for j, k in _PAIRS for sj in (1, -1) for sk in (1, -1)])


class ChainJacobian:
    """The frames of a built rig as functions of its commands (``built.command_names``)."""

    def __init__(self, built):
        self.built = built
        self.names = tuple(built.command_names)
        self._frames: list[tuple[str, int]] = []  # global frame index -> (segment, its own index)
        self._offset: dict[str, int] = {}
        self._columns: dict[str, np.ndarray] = {}
        self._mount: dict[str, int | None] = {}
        self._nodes = {seg: built.node(seg) for seg in built.segments}  # made once: a node costs ~0.1 ms
        for seg, s in built.segments.items():
            self._offset[seg] = len(self._frames)
            self._frames += [(seg, f) for f in range(s.articulation.nframes)]
            node = self._nodes[seg]
            self._columns[seg] = np.array([self.names.index(f"{seg}.{j}") for j in node.command_names],
                                          dtype=int)
        for seg, s in built.segments.items():
            if s.mount is None or s.mount[0] not in built.segments:
                self._mount[seg] = None
            else:
                carrier = built.segments[s.mount[0]].articulation
                self._mount[seg] = self._offset[s.mount[0]] + carrier.frame_index(s.mount[1])

    def frame_index(self, name: str) -> int:
        """The index of ``<segment>.<frame>`` in ``built.frame_names``."""
        seg, _, frame = name.partition(".")
        return self._offset[seg] + self.built.segments[seg].articulation.frame_index(frame)

    def _per_command(self, seg: str, q: np.ndarray) -> np.ndarray:
        """``dq/du (K, nq, ncommands)`` of the segment: the commanded joints one each, a follower its
        master's times its multiplier while it is within its limits."""
        node = self._nodes[seg]
        K, nq = q.shape
        D = np.zeros((K, nq, len(node._commanded)))
        D[:, node._commanded, np.arange(len(node._commanded))] = 1.0
        for f, m, mult, off in node._followers:
            free = (mult * q[:, m] + off > node.lower[f]) & (mult * q[:, m] + off < node.upper[f])
            D[:, f] = mult * D[:, m] * free[:, None]
        return D

    def twists(self, played, frames, frame_poses: np.ndarray | None = None) -> np.ndarray:
        """``J (K, F, 6, n)``: the world twist of each of ``frames`` (indices into ``built.frame_names``)
        per command at each pose of ``played`` (a :class:`~mime_gui.rig.build.RigTrajectory` with no servo
        lag: one pose a row), rows ``[ω; v]``, ``v`` at the frame's origin."""
        if frame_poses is None:
            frame_poses = np.asarray(played.frame_poses, dtype=float)
        K = len(frame_poses)
        out = np.zeros((K, len(frames), 6, len(self.names)))
        for i, index in enumerate(frames):
            p = frame_poses[:, index, :3, 3]
            seg, f = self._frames[index]
            while True:
                s = self.built.segments[seg]
                q = np.asarray(played.segments[seg].joint_positions, dtype=float)
                mount = self._mount[seg]
                world_X_base = np.broadcast_to(s.placement, (K, 4, 4)) if mount is None else \
                    frame_poses[:, mount] @ s.placement
                J = geometric_jacobian(s.articulation, q, f) @ self._per_command(seg, q)  # (K, 6, c)
                R, t = world_X_base[:, :3, :3], world_X_base[:, :3, 3]
                w = R @ J[:, :3]
                # the base's linear rows are at its origin t: at the frame's origin p add ω × (p − t)
                v = R @ J[:, 3:] + np.cross(w, (p - t)[:, :, None], axis=1)
                view = out[:, i]  # (K, 6, n), a view: one advanced index keeps the axes' order
                view[:, :3, self._columns[seg]] = w
                view[:, 3:, self._columns[seg]] = v
                if mount is None:
                    break
                seg, f = self._frames[mount]
        return out


def point_velocities(twists: np.ndarray, origins: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``(K, 3, n)``: the velocity per command of ``points (K, 3)`` riding on frames with ``twists
    (K, 6, n)`` at ``origins (K, 3)``: ``v + ω × (p − o)``."""
    return twists[:, 3:] + np.cross(twists[:, :3], (points - origins)[:, :, None], axis=1)


def field_terms(magnets, world_X_magnets: np.ndarray, points: np.ndarray, radii, second: bool = False):
    """Each magnet's ``B (K, M, 3)``, ``G (K, M, 3, 3)`` and, with ``second``, ``H (K, M, 3, 3, 3)`` (else
    None) at ``points (K, 3)``, the magnets at ``world_X_magnets (K, M, 4, 4)``: one Magpylib call."""
    K, M = world_X_magnets.shape[:2]
    h = difference_steps(world_X_magnets, np.asarray(radii, dtype=float), points[:, None])[:, 0]  # (K,)
    offsets = [np.zeros((1, 3)), _FIRST]
    if second:
        offsets += [_FIRST * (SECOND_RATIO / STEP_RATIO), _DIAGONAL * (SECOND_RATIO / STEP_RATIO)]
    stencil = np.concatenate(offsets)  # (P, 3) in steps of h
    where = points[:, None, :] + h[:, None, None] * stencil
    B = field_at(magnets, world_X_magnets, where)  # (K, M, P, 3)
    B0 = B[:, :, 0]
    # G[..., i, j] = (B(+h e_j) − B(−h e_j)) / 2h
    G = np.swapaxes((B[:, :, 1:4] - B[:, :, 4:7]) / (2.0 * h[:, None, None, None]), -1, -2)
    if not second:
        return B0, G, None
    d = h * (SECOND_RATIO / STEP_RATIO)
    plus, minus = B[:, :, 7:10], B[:, :, 10:13]  # (K, M, j, i)
    H = np.zeros((K, M, 3, 3, 3))
    H[:, :, :, [0, 1, 2], [0, 1, 2]] = np.swapaxes((plus - 2.0 * B0[:, :, None] + minus), -1, -2) \
        / (d * d)[:, None, None, None]
    corners = B[:, :, 13:].reshape(K, M, len(_PAIRS), 4, 3)  # (++, +−, −+, −−) per pair
    mixed = (corners[:, :, :, 0] - corners[:, :, :, 1] - corners[:, :, :, 2] + corners[:, :, :, 3]) \
        / (4.0 * d * d)[:, None, None, None]
    for n, (j, k) in enumerate(_PAIRS):
        H[:, :, :, j, k] = H[:, :, :, k, j] = mixed[:, :, n]
    return B0, G, H


def _skew(w: np.ndarray) -> np.ndarray:
    """``[w]`` of vectors ``(..., 3)``: ``(..., 3, 3)``."""
    S = np.zeros((*w.shape, 3))
    S[..., 0, 1], S[..., 0, 2], S[..., 1, 2] = -w[..., 2], w[..., 1], -w[..., 0]
    S[..., 1, 0], S[..., 2, 0], S[..., 2, 1] = w[..., 2], -w[..., 1], w[..., 0]
    return S


def compose(B: np.ndarray, G: np.ndarray, H: np.ndarray | None, magnet_twists: np.ndarray,
            centres: np.ndarray, points: np.ndarray, point_velocity: np.ndarray):
    """``dB (K, 3, n)`` and, with ``H``, ``dG (K, 3, 3, n)`` (else None) per command, from each magnet's
    ``B (K, M, 3)``, ``G (K, M, 3, 3)``, ``H (K, M, 3, 3, 3)``, its twist ``(K, M, 6, n)`` at its
    ``centres (K, M, 3)``, and the point's velocity ``(K, 3, n)`` (zeros for a point fixed in the world)."""
    w, v = magnet_twists[:, :, :3], magnet_twists[:, :, 3:]  # (K, M, 3, n)
    r = (points[:, None, :] - centres)[..., None]  # (K, M, 3, 1)
    u = v + np.cross(w, r, axis=2)  # the magnet's body at the point
    rel = point_velocity[:, None] - u  # the point's velocity relative to it
    dB = (np.cross(w, B[..., None], axis=2) + np.einsum("kmij,kmjn->kmin", G, rel)).sum(axis=1)
    if H is None:
        return dB, None
    W = _skew(np.moveaxis(w, 2, -1))  # (K, M, n, 3, 3)
    turn = np.einsum("kmnia,kmaj->kmijn", W, G) - np.einsum("kmia,kmnaj->kmijn", G, W)
    dG = (turn + np.einsum("kmija,kman->kmijn", H, rel)).sum(axis=1)
    return dB, dG


__all__ = ["SECOND_RATIO", "ChainJacobian", "compose", "field_terms", "point_velocities"]
