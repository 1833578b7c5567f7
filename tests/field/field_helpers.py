"""Rigs for the field tests: the demo rig with probes and magnets of one's choosing, and a lone motor."""

from __future__ import annotations

import math

import numpy as np

from mime_gui import RESOURCES
from mime_gui.rig import Apparatus, Motor, PermanentMagnet, Probe, load, tesla
from mime_gui.rig.mass import MU0

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"
BR = 1.3


def demo(magnets=None, probes=None) -> Apparatus:
    """The demo rig (arm, motor on its tool flange), its magnets replaced when ``magnets`` is given."""
    rig = load(DEMO_RIG)
    if magnets is not None:
        rig.magnets = dict(magnets)
    rig.probes = dict(probes or {})
    return rig


def motor_rig(magnets, probes, axis=(0.0, 0.0, 1.0)) -> Apparatus:
    """One kinematic motor standing in the world (frames ``motor.stator`` and ``motor.rotor``)."""
    return Apparatus("bench", chain={"motor": Motor.Kinematic(axis=axis)}, magnets=dict(magnets),
                     probes=dict(probes))


def magnet(geometry, direction=(0.0, 0.0, 1.0), at=(0.0, 0.0, 0.0), mount=None) -> PermanentMagnet:
    return PermanentMagnet(geometry, magnetisation=direction, at=at, mount=mount,
                           remanence=tesla(BR, reason="a round N42 figure for the tests"))


def spin(built, rate_hz: float, steps: int, dt: float, joint: str = "motor.shaft"):
    """The rig's trajectory with ``joint`` turning at ``rate_hz``, everything else at its initial position."""
    return built.play({joint: 2 * math.pi * rate_hz * dt * np.arange(1, steps + 1)}, dt)


def dipole(moment: np.ndarray, r: np.ndarray) -> np.ndarray:
    """The point dipole's B (T) at offsets ``r (..., 3)`` (m) from a moment ``(3,)`` (A m2)."""
    d = np.linalg.norm(r, axis=-1, keepdims=True)
    rhat = r / d
    return MU0 / (4 * math.pi) * (3 * rhat * (rhat @ moment)[..., None] - moment) / d**3


def probe(at, mount=None) -> Probe:
    return Probe(at, mount=mount)
