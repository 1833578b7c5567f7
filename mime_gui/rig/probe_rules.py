"""The rules a rig's probes must satisfy (``probe.*``), checked by :func:`mime_gui.rig.rules.analyse`.

A probe mounts on ``<segment>.<frame>`` of the chain or nowhere (``probe.mount``), is placed at a finite
point (``probe.placement``), and does not sit inside a magnet that rides on the same frame
(``probe.inside-magnet``): there the field is not what a sample sees, and that holds at every step. A probe
and a magnet on different frames can meet only at some poses; the field reports those steps.
"""

from __future__ import annotations

import numpy as np

from mime_gui.multibody.magnitudes import MAX_LENGTH
from mime_gui.rig.probes import inside


def _resolve(where: str, mount, rig, a) -> tuple[str, str] | None:
    if mount is None:
        return None
    for seg in rig.chain:
        if mount.startswith(seg + ".") and mount[len(seg) + 1:] in a.frame_sets.get(seg, ()):
            return seg, mount[len(seg) + 1:]
    if any(mount.startswith(seg + ".") and a.frames.get(seg) is None for seg in rig.chain):
        return None  # the segment's description failed; that finding says why
    first = [f"{seg}.{f}" for seg in rig.chain for f in (a.frames.get(seg) or ())]
    listing = ", ".join(first[:24]) + (f" … ({len(first) - 24} more)" if len(first) > 24 else "")
    hint = ("frames: " + listing) if first else "the chain is empty"
    a.add("probe.mount", where, f"{mount!r} is not a frame of the chain; mount the probe on "
                                f"'<segment>.<frame>' ({hint}), or leave mount out to fix it in the world")
    return None


def check_probes(rig, a) -> None:
    """Add a finding to the analysis ``a`` for every probe rule broken."""
    for name, probe in rig.probes.items():
        where = f"probes.{name}"
        _resolve(f"{where}.mount", probe.mount, rig, a)
        at = np.asarray(probe.at, dtype=float)
        if not (np.all(np.isfinite(at)) and np.all(np.abs(at) <= MAX_LENGTH)):
            a.add("probe.placement", f"{where}.at", f"at {probe.at} must be finite (m), each coordinate "
                                                    f"within ±{MAX_LENGTH:g} m")
            continue
        for magnet_name, magnet in rig.magnets.items():
            if magnet.mount != probe.mount:
                continue
            within = inside(magnet.geometry, at - np.asarray(magnet.at, dtype=float))
            if within is not None and bool(within):
                a.add("probe.inside-magnet", f"{where}.at",
                      f"the probe at {probe.at} m is inside magnet {magnet_name!r} (both on "
                      f"{probe.mount or 'the world'}), where the field is not what a sample sees; move the "
                      "probe outside the magnet (on its surface at the nearest)")


__all__ = ["check_probes"]
