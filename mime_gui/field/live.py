"""The field at the rig's probes at one pose, for a view that shows the rig as it is now (driving, playback).

``world_X_frame(segment, frame)`` gives a frame's world pose (the session's ``frame_world_pose``); the pose
of every frame of the built rig is read from it and the field is the one-step case of
:func:`~mime_gui.field.along.field_along`, so a view and the headless API agree by construction.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mime_gui.field.along import FieldTrajectory, field_along


class _OnePose:
    """A trajectory of one step: what :func:`field_along` reads of one."""

    def __init__(self, frame_poses: np.ndarray):
        self.frame_poses = frame_poses[None]

    def times(self, start: float = 0.0) -> np.ndarray:
        return np.array([start])


def field_now(built, world_X_frame: Callable[[str, str], np.ndarray], probes=None) -> FieldTrajectory:
    """B at ``probes`` (default: the rig's) with every frame where ``world_X_frame`` puts it: one step."""
    poses = np.stack([world_X_frame(*name.split(".", 1)) for name in built.frame_names]) \
        if built.frame_names else np.zeros((0, 4, 4))
    return field_along(built, _OnePose(poses), probes)


__all__ = ["field_now"]
