"""Frame functions the inverse-kinematics tests solve over, simple enough to reason about by hand."""

from __future__ import annotations

import numpy as np


class Slide:
    """A frame slid along world x, y and z by three unknowns without limits: J's linear rows are I."""

    names = ("x", "y", "z")
    lower = np.full(3, -np.inf)
    upper = np.full(3, np.inf)

    def evaluate(self, x):
        pose = np.eye(4)
        pose[:3, 3] = x
        J = np.zeros((6, 3))
        J[3:, :] = np.eye(3)
        return pose, J

    def positions(self, x):
        return np.array(x, dtype=float)
