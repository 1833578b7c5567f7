"""The rules a rig's clearance declaration must satisfy (``clearance.declaration``, ``clearance.allow``),
checked by :func:`mime_gui.rig.rules.analyse`.

A declared margin is finite, not negative and at most 1e6 m, and says why it is what it is; an allowed pair
names two different items, once, with its reason. Whether its names are items of the rig is told by the
check itself, as a warning (an item renamed or removed leaves its pair behind, harmlessly): the clearance
(``clearance.contact``, ``clearance.margin``, ``clearance.allow``) is checked on the built rig
(:mod:`.clearance_check`).
"""

from __future__ import annotations

import math

from mime_gui.multibody.magnitudes import MAX_LENGTH


def check_clearance(rig, a) -> None:
    """Add a finding to the analysis ``a`` for every clearance rule broken."""
    c = rig.clearance
    if c is None:
        return
    if c.margin is not None and not (math.isfinite(c.margin) and 0 <= c.margin <= MAX_LENGTH):
        a.add("clearance.declaration", "clearance.margin", f"the margin {c.margin:g} m must be finite, not "
                                                          f"negative and at most {MAX_LENGTH:g} m (5 mm is "
                                                          "0.005)")
    if c.margin is not None and (c.reason is None or not c.reason.strip()):
        a.add("clearance.declaration", "clearance.reason", "say where the margin comes from (a tracking "
                                                           "error, a tolerance, a safety rule)")
    seen = set()
    for i, pair in enumerate(c.allow):
        where = f"clearance.allow.{i}"
        key = frozenset((pair.first, pair.second))
        if pair.first == pair.second:
            a.add("clearance.allow", where, f"an allowed pair names two different items, got {pair.first!r} "
                                            "twice")
        elif key in seen:
            a.add("clearance.allow", where, f"the pair {pair.first!r}, {pair.second!r} is allowed twice; "
                                            "keep one")
        seen.add(key)
        if pair.reason is None or not pair.reason.strip():
            a.add("clearance.allow", f"{where}.reason", "say why the pair may touch (a part seated on a "
                                                        "face, a cable guide)")


__all__ = ["check_clearance"]
