"""Reaching a target with a frame of any segment of the chain: inverse kinematics over every joint between
the world and that frame, across mounts.

A frame on a segment that rides on another moves with the carrier's joints too (the demo's rotor with the
arm's six and the motor's shaft), so the unknowns are the joints of every segment on the path from the
world down to the frame's segment: the first is an
:class:`~mime_gui.multibody.inverse_kinematics.ArticulationFrame` of the frame its rider is mounted on,
placed in the world, and each rider is nested on its carrier with
:class:`~mime_gui.multibody.inverse_kinematics.Mounted` (its ``mount_X_base``). Joints off the path keep
their positions in ``state``; segments off the path are not moved.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from mime_gui.multibody.inverse_kinematics import ArticulationFrame, IKResult, Mounted, solve_frame
from mime_gui.nodes import NodeState


@dataclass(frozen=True)
class Reach:
    """What :func:`reach` found: the full joint positions of each segment on the path (world first), and
    the solver's :class:`~mime_gui.multibody.inverse_kinematics.IKResult` (``converged``, the remaining
    ``position_error`` and ``angle_error``, the joints resting on a limit, named ``segment.joint``)."""

    positions: dict[str, np.ndarray]
    result: IKResult


def path_to(chain, segment: str) -> list[str]:
    """The segments from the one standing in the world down to ``segment``, each the mount of the next."""
    path = [segment]
    while chain.mount_of(path[-1]) is not None:
        path.append(chain.mount_of(path[-1])[0])
    return path[::-1]


def reach(chain, state: Mapping[str, NodeState], segment: str, frame, world_X_target, *,
          orientation: bool = True, **options) -> Reach:
    """Joint positions that put ``frame`` of ``segment`` at ``world_X_target`` (or a point, with
    ``orientation`` False), from the positions in ``state``; ``options`` are
    :func:`~mime_gui.multibody.inverse_kinematics.solve_frame`'s. Raises ``KeyError`` for an unknown segment
    and :class:`~mime_gui.multibody.inverse_kinematics.IKError` for a bad frame, target or start."""
    if segment not in chain.segments:
        raise KeyError(f"no segment {segment!r}; segments: {', '.join(chain.segments)}")
    path = path_to(chain, segment)
    function = None
    for i, name in enumerate(path):
        s = chain.segments[name]
        # the frame the next segment rides on, or the frame asked for on the last one
        aim = frame if i == len(path) - 1 else chain.mount_of(path[i + 1])[1]
        q = state[name].joint_positions
        if function is None:
            function = ArticulationFrame(s.articulation, aim, q, world_X_base=s.placement)
        else:
            function = Mounted(function, s.placement, ArticulationFrame(s.articulation, aim, q))
    x0 = np.concatenate([_unknowns(f, state[n].joint_positions) for n, f in zip(path, _layers(function),
                                                                                   strict=True)])
    result = solve_frame(function, x0, world_X_target, orientation=orientation, **options)
    found = _flatten(result.q, len(path))
    names = tuple(f"{n}.{j}" for n, f in zip(path, _layers(function), strict=True) for j in f.names)
    x, lower, upper = result.x, function.lower, function.upper
    named = IKResult(result.q, x, names, result.converged, result.position_error, result.angle_error,
                     result.iterations, tuple(names[i] for i in np.flatnonzero(x <= lower)),
                     tuple(names[i] for i in np.flatnonzero(x >= upper)))
    return Reach(dict(zip(path, found, strict=True)), named)


def _layers(function) -> list[ArticulationFrame]:
    """The ArticulationFrame of each segment of a nest, world first."""
    out = []
    while isinstance(function, Mounted):
        out.append(function.rider)
        function = function.carrier
    out.append(function)
    return out[::-1]


def _unknowns(f: ArticulationFrame, q: np.ndarray) -> np.ndarray:
    return np.asarray(q, dtype=float)[f.unknowns]


def _flatten(q, count: int) -> list[np.ndarray]:
    """``Mounted.positions`` nests ``(carrier's, rider's)`` pairs; the segments' positions, world first."""
    out = []
    for _ in range(count - 1):
        q, last = q
        out.append(last)
    out.append(q)
    return out[::-1]

