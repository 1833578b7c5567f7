"""Rigs of magnets that pull on each other, shared by the tests of the pull (headless playback, the live
drive, the torque drive)."""

from __future__ import annotations

import numpy as np

from mime_gui import RESOURCES
from mime_gui.rig import PermanentMagnet, Sphere, load

BALL_RADIUS = 0.005  # m


def ball(at, mount, direction) -> PermanentMagnet:
    """An N42 ball of 5 mm radius at ``at`` on ``mount`` (None: the world), magnetised along ``direction``."""
    return PermanentMagnet(Sphere(radius=BALL_RADIUS), material="NdFeB-N42", magnetisation=tuple(direction),
                           at=tuple(float(x) for x in at), mount=mount)


def compass_rig():
    """The demo rig, its magnet a ball magnetised across the shaft, and a ball in the world 4 cm from it,
    mostly along the rotor's y, magnetised along it (head to tail with the rotor's ball turned a quarter)."""
    rig = load(RESOURCES / "demo" / "demo.rig.json")
    rig.magnets["m1"] = ball((0.0, 0.0, 0.025), "motor.rotor", (1.0, 0.0, 0.0))
    built = rig.build()
    start = built.play(np.tile(built.initial_commands(), (1, 1)), 0.01).initial
    rotor = start["motor"].frame_poses[built.articulation("motor").frame_index("rotor")]
    centre = rotor[:3, :3] @ [0.0, 0.0, 0.025] + rotor[:3, 3]
    across = rotor[:3, :3] @ [0.0, 1.0, 0.0]
    rig.magnets["world"] = ball(centre + rotor[:3, :3] @ [0.015, 0.037, 0.0], None, across)
    return rig
