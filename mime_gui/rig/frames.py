"""Declared frames: frames of the rig's own, fixed to a frame of a segment with an offset and a turn.

``DeclaredFrame("arm.tool0", at=(0, 0, 0.05), orientation=(w, x, y, z))`` is a frame of the segment ``arm``
placed at ``at`` (m) in ``arm.tool0`` and turned by the unit quaternion ``orientation`` (w, x, y, z), as a
segment is placed on its mount. It belongs to the segment of its mount and is mounted on like any of that
segment's frames (``"arm.<name>"``): parts, magnets, probes, later segments and other declared frames. A
part's own frame is never turned in its mount, so a part is tilted by mounting it on a turned declared frame.

The rules (:mod:`mime_gui.rig.frame_rules`) add every declared frame to its segment's tree as a massless link
welded to its mount, so the build, the chain node, the frame poses and every view see an ordinary frame.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass

import numpy as np

from mime_gui.rig.segments import _vector, placement


@dataclass(frozen=True)
class DeclaredFrame:
    """A frame at ``at`` (m) in the frame ``mount`` (``"<segment>.<frame>"``), turned by ``orientation``
    (a unit quaternion w, x, y, z)."""

    mount: str
    _: KW_ONLY
    at: tuple[float, float, float] = (0.0, 0.0, 0.0)
    orientation: tuple[float, float, float, float] = (1.0, 0.0, 0.0, 0.0)

    role = "frame"

    def __post_init__(self):
        if not isinstance(self.mount, str):
            raise TypeError(f"mount is '<segment>.<frame>', got {self.mount!r}")
        object.__setattr__(self, "at", _vector(self.at, 3, "at"))
        object.__setattr__(self, "orientation", _vector(self.orientation, 4, "orientation"))

    @property
    def segment(self) -> str:
        """The segment it belongs to: its mount's."""
        return self.mount.partition(".")[0]

    @property
    def parent(self) -> str:
        """The frame of :attr:`segment` it is fixed to."""
        return self.mount.partition(".")[2]

    def placement(self) -> np.ndarray:
        """``mount_X_frame`` (4×4); the quaternion is normalised."""
        return placement(self.at, self.orientation)


__all__ = ["DeclaredFrame"]
