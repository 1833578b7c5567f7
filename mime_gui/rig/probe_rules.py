"""The rules a rig's probes must satisfy (``probe.*``), checked by :func:`mime_gui.rig.rules.analyse`.

A probe mounts on ``<segment>.<frame>`` of the chain or nowhere (``probe.mount``), is placed at a finite
point (``probe.placement``), and does not sit inside a magnet that rides on the same frame
(``probe.inside-magnet``): there the field is not what a sample sees, and that holds at every step. A probe
and a magnet on different frames can meet only at some poses; the field reports those steps.

The inside test runs once per magnet over every probe on its frame (arrays, not a loop over pairs): a rig of
20,000 probes and 500 ring magnets validates in about a quarter of a second (benchmarks/probes.py).
"""

from __future__ import annotations

import numpy as np

from mime_gui.multibody.magnitudes import MAX_LENGTH
from mime_gui.rig.mount_rules import resolve_mount
from mime_gui.rig.probes import inside


def _points(probes) -> tuple[np.ndarray, np.ndarray]:
    """The probes' points ``(P, 3)`` and whether each is finite within ±MAX_LENGTH ``(P,)``."""
    points = np.array([probe.at for probe in probes], dtype=float).reshape(len(probes), 3)
    with np.errstate(invalid="ignore"):
        placed = np.all(np.isfinite(points) & (np.abs(points) <= MAX_LENGTH), axis=1)
    return points, placed


def magnets_holding(probes, magnets) -> dict[int, list[str]]:
    """For each probe (a :class:`~mime_gui.rig.probes.Probe` of the list ``probes``) inside a magnet of
    ``magnets`` (name → magnet) on the same mount, the names of those magnets in their order; probes not
    placed within the bounds are left out. One :func:`inside` call per magnet, over its mount's probes."""
    points, placed = _points(probes)
    on_mount: dict[str | None, list[int]] = {}
    for i in np.flatnonzero(placed).tolist():
        on_mount.setdefault(probes[i].mount, []).append(i)
    # each mount's probes as one array, made once for every magnet on that mount
    groups = {mount: (np.array(indices), points[indices]) for mount, indices in on_mount.items()}
    held: dict[int, list[str]] = {}
    for name, magnet in magnets.items():
        group = groups.get(magnet.mount)
        if group is None:
            continue
        indices, local = group
        within = inside(magnet.geometry, local - np.asarray(magnet.at, dtype=float))
        if within is None:  # a mesh: not checked
            continue
        for i in indices[within].tolist():
            held.setdefault(i, []).append(name)
    return held


def check_probes(rig, a) -> None:
    """Add a finding to the analysis ``a`` for every probe rule broken."""
    probes = list(rig.probes.values())
    _, placed = _points(probes)
    held = magnets_holding(probes, rig.magnets)
    for i, (name, probe) in enumerate(rig.probes.items()):
        where = f"probes.{name}"
        resolve_mount(f"{where}.mount", probe.mount, rig, a, "probe")
        if not placed[i]:
            a.add("probe.placement", f"{where}.at", f"at {probe.at} must be finite (m), each coordinate "
                                                    f"within ±{MAX_LENGTH:g} m")
            continue
        for magnet_name in held.get(i, ()):
            a.add("probe.inside-magnet", f"{where}.at",
                  f"the probe at {probe.at} m is inside magnet {magnet_name!r} (both on "
                  f"{probe.mount or 'the world'}), where the field is not what a sample sees; move the "
                  "probe outside the magnet (on its surface at the nearest)")


__all__ = ["check_probes", "magnets_holding"]
