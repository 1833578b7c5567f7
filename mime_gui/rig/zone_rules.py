"""The rules a rig's keep-out zones must satisfy (``zone.*``), checked by :func:`mime_gui.rig.rules.analyse`.

A zone has a name of its own among the rig's items (``zone.name``), mounts on ``<segment>.<frame>`` or
nowhere (``zone.mount``), sits at a finite point (``zone.placement``), is a box or a ball, one of them, of
finite positive sizes within ±1e6 m (``zone.shape``), has a limit that is finite, positive and at most
100 T (``zone.limit``), and says why it is there (``zone.reason``).
"""

from __future__ import annotations

import math

import numpy as np

from mime_gui.multibody.magnitudes import MAX_LENGTH
from mime_gui.rig.mass import MAX_REMANENCE
from mime_gui.rig.mount_rules import resolve_mount
from mime_gui.rig.names import RULE, good_name, shown

_NAMED = ("chain", "parts", "magnets", "probes", "samples")


def zone_problems(zone) -> list[tuple[str, str, str]]:
    """``(code, where-suffix, message)`` of a zone's shape, limit and reason."""
    problems = []
    if (zone.box is None) == (zone.sphere is None):
        what = "both a box and a sphere" if zone.box is not None else "neither a box nor a sphere"
        problems.append(("zone.shape", "box", f"the zone has {what}; give box=(sx, sy, sz) (full sizes, m) "
                                              "or sphere=radius (m), one of them"))
    else:
        sizes = zone.box if zone.box is not None else (zone.sphere,)
        if not all(math.isfinite(v) and 0 < v <= MAX_LENGTH for v in sizes):
            key = "box" if zone.box is not None else "sphere"
            problems.append(("zone.shape", key, f"{key} {zone.box if zone.box is not None else zone.sphere} "
                                                f"must be finite and positive, at most {MAX_LENGTH:g} m"))
    if not (math.isfinite(zone.limit) and 0 < zone.limit <= MAX_REMANENCE):
        problems.append(("zone.limit", "limit", f"the limit {zone.limit:g} T must be finite and positive, at "
                                                f"most {MAX_REMANENCE:g} T (0.5 mT is 0.0005)"))
    if zone.reason is None or not zone.reason.strip():
        problems.append(("zone.reason", "reason", "say why the zone is there (who or what stands in it) and "
                                                  "where its limit comes from"))
    return problems


def check_zones(rig, a) -> None:
    """Add a finding to the analysis ``a`` for every zone rule broken."""
    taken = {name: f"{c}.{name}" for c in _NAMED for name in getattr(rig, c) if isinstance(name, str)}
    for name, zone in rig.zones.items():
        where = f"zones.{name}"
        if not good_name(name):
            a.add("zone.name", where, f"{shown(name)} is not a valid name: use {RULE}")
        elif name in taken:
            a.add("zone.name", where, f"{name!r} is already the name of {taken[name]}; rename the zone")
        else:
            taken[name] = where
        resolve_mount(f"{where}.mount", zone.mount, rig, a, "zone")
        at = np.asarray(zone.at, dtype=float)
        if not (np.all(np.isfinite(at)) and np.all(np.abs(at) <= MAX_LENGTH)):
            a.add("zone.placement", f"{where}.at", f"at {zone.at} must be finite (m), each coordinate within "
                                                   f"±{MAX_LENGTH:g} m")
        for code, w, message in zone_problems(zone):
            a.add(code, f"{where}.{w}", message)


__all__ = ["check_zones", "zone_problems"]
