"""The rules a rig's declared frames must satisfy (``frame.*``), and where they are placed: checked by
:func:`mime_gui.rig.rules.analyse` before any mount is resolved.

A declared frame has a name it can be mounted on by (``frame.name``): a name (:mod:`mime_gui.rig.names`)
without colons (the links the build grafts parts as are named with one, so no declared frame can take a part's
place), and not already a link or a joint of its segment. It mounts on ``<segment>.<frame>`` of the chain: a
frame of the segment's description or another declared frame of that segment, never itself nor, through
others, itself again (``frame.mount``). Its ``at`` is finite and within ±1e6 m (``frame.at``) and its
orientation a finite unit quaternion within 1e-6, as a segment's (``frame.orientation``).

Each frame whose name and mount hold is welded to its mount's link in a copy of its segment's tree (the
description's tree is shared by every rig that reads the file), as a massless link: every later step sees it
as a frame of the segment. Declared frames may be given in any order: one mounted on another is placed after
it. A frame whose offset breaks a rule is still placed (at the identity, or with its quaternion normalised),
so what is mounted on it resolves while its offset is being fixed; the rig does not build meanwhile.
"""

from __future__ import annotations

import math

import numpy as np

from mime_gui.multibody.magnitudes import MAX_LENGTH
from mime_gui.multibody.spatial import quaternion_to_matrix
from mime_gui.rig.names import good_name, rule, shown

#: how far a declared frame's quaternion may be from unit length (a segment's orientation takes the same)
UNIT_TOLERANCE = 1e-6


def _listing(names, limit: int = 16) -> str:
    names = list(names)
    if not names:
        return "(none)"
    return ", ".join(names[:limit]) + (f" … ({len(names) - limit} more)" if len(names) > limit else "")


def _placed(values) -> bool:
    return all(math.isfinite(v) and abs(v) <= MAX_LENGTH for v in values)


def _unit(q) -> bool:
    if not all(math.isfinite(v) for v in q):
        return False
    return abs(math.sqrt(sum(v * v for v in q)) - 1.0) <= UNIT_TOLERANCE


def _drawn_placement(frame) -> np.ndarray:
    """``mount_X_frame`` as far as the offset allows: a coordinate beyond the bounds stands at the origin, a
    quaternion with no direction at the identity (such an offset is a finding; the rig does not build)."""
    X = np.eye(4)
    if _placed(frame.at):
        X[:3, 3] = frame.at
    try:
        with np.errstate(over="ignore", invalid="ignore"):  # a huge quaternion: its norm overflows
            X[:3, :3] = quaternion_to_matrix(frame.orientation)
    except ValueError:  # no direction, or a norm that overflows: the identity stays
        pass
    return X


def _check_offset(name: str, frame, a) -> None:
    where = f"frames.{name}"
    if not _placed(frame.at):
        a.add("frame.at", f"{where}.at", f"at {frame.at} must be finite (m), each coordinate within "
                                         f"±{MAX_LENGTH:g} m")
    if not _unit(frame.orientation):
        a.add("frame.orientation", f"{where}.orientation",
              f"orientation {frame.orientation} must be a finite unit quaternion (w, x, y, z) within "
              f"{UNIT_TOLERANCE:g}; normalise it (no turn is (1, 0, 0, 0))")


def _names_ok(rig, a) -> dict:
    """The declared frames whose names are valid (name → frame); a finding for each other one."""
    out = {}
    for name, frame in rig.frames.items():
        if good_name(name, forbidden=".:"):
            out[name] = frame
        else:
            a.add("frame.name", f"frames.{name}", f"{shown(name)} is not a valid frame name: use "
                                                  f"{rule(', colons')}")
    return out


def declare_frames(rig, a) -> dict[str, tuple[str, str]]:
    """Check the declared frames of ``rig`` and weld each valid one to its mount in ``a.trees`` (a copy of
    its segment's tree); add a finding to the analysis ``a`` for every rule broken. Returns name →
    ``(segment, frame it is fixed to)`` of the frames placed."""
    for name, frame in rig.frames.items():
        _check_offset(name, frame, a)
    pending = _names_ok(rig, a)
    copied: set[str] = set()
    placed: dict[str, tuple[str, str]] = {}
    progress = True
    while pending and progress:  # a frame mounted on a declared one waits for it: any order is taken
        before = len(pending)
        for name, frame in list(pending.items()):
            where = f"frames.{name}"
            segment, parent = frame.segment, frame.parent
            if segment not in rig.chain or not parent:
                hint = "mount is '<segment>.<frame>'" if not parent else \
                    f"{segment!r} is no segment of the chain"
                a.add("frame.mount", f"{where}.mount", f"{frame.mount!r}: {hint}; segments: "
                                                       f"{_listing(rig.chain)}")
                del pending[name]
                continue
            tree = a.trees.get(segment)
            if tree is None:  # the segment's description failed; that finding says why
                del pending[name]
                continue
            if parent == name:
                a.add("frame.mount", f"{where}.mount", f"the frame {name!r} mounts on itself; mount it on "
                                                       f"another frame of {segment!r}")
                del pending[name]
                continue
            if parent not in tree.links:
                waiting = pending.get(parent)
                if waiting is not None and waiting.segment == segment:
                    continue  # on a declared frame not placed yet
                a.add("frame.mount", f"{where}.mount", _unknown_mount(name, frame, rig, tree))
                del pending[name]
                continue
            del pending[name]
            if name in tree.links or name in tree.joints:
                what = "a link" if name in tree.links else "a joint"
                a.add("frame.name", where, f"{name!r} is already {what} of {segment!r}, so "
                                           f"'{segment}.{name}' would name it; rename the declared frame")
                continue
            if segment not in copied:  # the read description is shared: weld onto a copy
                tree = a.trees[segment] = tree.copy()
                copied.add(segment)
            tree.add_fixed_link(name, parent, _drawn_placement(frame))
            placed[name] = (segment, parent)
        progress = len(pending) < before  # a frame placed or refused: those waiting on it may go on
    for name, frame in pending.items():  # each waits, through others, on a ring of mounts
        ring = _ring(name, pending)
        text = " → ".join(ring)
        if ring[0] == name:
            message = (f"the frames {text} mount on each other in a ring, so none is placed; mount one of "
                       f"them on a frame of {frame.segment!r}'s description")
        else:
            message = (f"{frame.mount!r} is not placed: the frames {text} mount on each other in a ring; "
                       f"mount one of them on a frame of {frame.segment!r}'s description")
        a.add("frame.mount", f"frames.{name}.mount", message)
    return placed


def _ring(name: str, pending) -> list[str]:
    """The ring of mounts that ``name`` waits on, its first frame repeated at the end."""
    seen = [name]
    while True:
        nxt = pending[seen[-1]].parent
        if nxt in seen:
            ring = seen[seen.index(nxt):]
            return [*ring, nxt]
        seen.append(nxt)


def _unknown_mount(name: str, frame, rig, tree) -> str:
    segment, parent = frame.segment, frame.parent
    other = rig.frames.get(parent)
    if other is not None and other.segment == segment:  # declared, but refused by a rule
        return (f"{frame.mount!r} is a declared frame that is not placed (see frames.{parent}); fix that one "
                "first")
    if other is not None:
        return (f"{parent!r} is a declared frame of {other.segment!r}, not of {segment!r}; mount on "
                f"'{other.segment}.{parent}'")
    return (f"{parent!r} is not a frame of {segment!r}; frames of {segment!r}: "
            f"{_listing(tree.link_order())}")


__all__ = ["UNIT_TOLERANCE", "declare_frames"]
