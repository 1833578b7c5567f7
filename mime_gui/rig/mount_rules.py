"""Where an item mounts: ``<segment>.<frame>`` of the chain, or nowhere (fixed in the world). One resolver for
every kind of item that mounts on a frame (parts, magnets, probes, samples, zones), each refused with its own
code (``part.mount``, ``probe.mount``, …) in the same words."""

from __future__ import annotations

from itertools import islice

#: frames a refusal lists before it says how many more there are
LISTED = 24


def resolve_mount(where: str, mount, rig, a, kind: str) -> tuple[str, str] | None:
    """``(segment, frame)`` of ``mount``, or None: fixed in the world (``mount`` None), a segment whose
    description failed (that finding says why), or refused as ``<kind>.mount`` at ``where`` in ``a``."""
    if mount is None:
        return None
    for seg in rig.chain:
        if mount.startswith(seg + ".") and mount[len(seg) + 1:] in a.frame_sets.get(seg, ()):
            return seg, mount[len(seg) + 1:]
    if any(mount.startswith(seg + ".") and a.frames.get(seg) is None for seg in rig.chain):
        return None
    # the first frames and how many there are, not every frame of the chain for every refused item
    total = sum(len(a.frames.get(seg) or ()) for seg in rig.chain)
    if not total:
        a.add(f"{kind}.mount", where, f"{mount!r} is not a frame of the chain: the chain is empty, so leave "
                                      f"mount out to fix the {kind} in the world")
        return None
    first = list(islice((f"{seg}.{f}" for seg in rig.chain for f in (a.frames.get(seg) or ())), LISTED))
    listing = ", ".join(first) + (f" … ({total - LISTED} more)" if total > LISTED else "")
    form = "mount is '<segment>.<frame>'; " if "." not in mount else ""
    a.add(f"{kind}.mount", where, f"{mount!r} is not a frame of the chain; {form}mount the {kind} on one of "
                                  f"its frames ({listing}), or leave mount out to fix it in the world")
    return None


__all__ = ["LISTED", "resolve_mount"]
