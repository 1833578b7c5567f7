"""A count of the changes to the registries the rules read (lab segment kinds, actuators, geometry kinds).

An analysis remembers the count it was made at; a later one takes results over from it only while the
count is the same (see :func:`mime_gui.rig.rules.analyse`), so registering a kind or an actuator is seen by
the next edit.
"""

from __future__ import annotations

_epoch = 0


def epoch() -> int:
    """The number of registry changes so far."""
    return _epoch


def bump() -> None:
    """A registry changed."""
    global _epoch
    _epoch += 1


__all__ = ["bump", "epoch"]
