"""The drawn segments of a document: the rules' findings, the build when they pass, and each segment's tree
and articulation, kept from the last drawing where nothing it depends on changed."""

from __future__ import annotations

import dataclasses

import numpy as np

from mime_gui.rig.apparatus import Apparatus
from mime_gui.rig.build import build, display_segments
from mime_gui.rig.dynamics import LabSegment
from mime_gui.rig.segments import _ArmSegment, _MotorSegment
from mime_gui.session.document import Document, DrawnSegment
from mime_gui.session.stand_ins import StandIns


def draw(doc: Document, analysis, stand_ins: StandIns,
         previous: dict[str, DrawnSegment] | None = None) -> tuple[set, set, set]:
    """Findings, the build (when valid) and the drawn segments of ``doc.rig``; segments whose drawing key is
    unchanged keep their tree, articulation and state. A part whose shape or place is being fixed is drawn
    as it last was (``stand_ins``). Returns the names of the segments (added, changed, removed)."""
    rig = doc.rig
    previous = previous or {}
    strict = not analysis.findings  # a valid rig is drawn from its build, another leniently
    keys = {name: (strict, drawing_key(name, rig)) for name in rig.chain}
    reuse = {name: (old.tree, old.articulation) for name, old in previous.items()
             if name in keys and old.key == keys[name]}
    doc.findings = tuple(analysis.findings)
    doc.analysis = analysis
    drawn = None
    if strict:
        try:
            doc.built = build(rig, analysis, reuse)
            drawn = doc.built.segments
        except (ValueError, TypeError, KeyError, OverflowError) as err:  # a build the rules missed
            doc.findings = (as_finding(err),)
    if drawn is None:
        # a part whose shape or place is being fixed is drawn as it last was (session/stand_ins.py)
        shown, shown_analysis = stand_ins.display(rig, analysis)
        drawn = display_segments(shown, shown_analysis, reuse if not strict and shown is rig else None)
        keys = {name: (False, key if shown is rig else (key, stand_ins.refs))
                for name, (_, key) in keys.items()}
    else:
        stand_ins.display(rig, analysis)  # remembers every part as drawn now
    segments: dict[str, DrawnSegment] = {}
    added, changed = set(), set()
    for name, built in drawn.items():
        old = previous.get(name)
        if old is None or old.key != keys[name] or old.articulation is not built.articulation:
            (changed if old is not None else added).add(name)
        art = built.articulation
        segments[name] = DrawnSegment(name, built.tree, art, np.zeros(art.nq), np.zeros((art.nframes, 4, 4)),
                                 kind=built.segment.kind, mount=built.mount,
                                 placement=np.asarray(built.placement, dtype=float), key=keys[name],
                                 grafts=built.grafts, initial=initial_positions(built.segment))
    removed = set(previous) - set(segments)
    doc.segments = segments
    return added, changed, removed


def initial_positions(segment) -> dict[str, float]:
    """Joint name → the rig's initial position (an arm's ``initial_positions``, a motor's one joint); a lab's
    kind of segment may declare none."""
    return dict(getattr(segment, "initial_positions", None) or {})


def drawing_key(name: str, rig: Apparatus):
    """What a segment's drawn tree depends on: its description (not where it is placed), the frames it
    declares and the parts mounted on it. Equal keys: the tree and articulation of the last drawing still
    hold."""
    seg = rig.chain[name]
    fields = {"at": (0.0, 0.0, 0.0), "orientation": (1.0, 0.0, 0.0, 0.0), "mount": None,
              "servo_time_constant": 0.0}
    if isinstance(seg, _ArmSegment | LabSegment):
        fields["initial_positions"] = {}
    elif isinstance(seg, _MotorSegment):
        fields["initial_position"] = 0.0
    try:
        bare = dataclasses.replace(seg, **fields)
    except (TypeError, ValueError):
        bare = seg
    prefix = name + "."
    mounted = tuple((c, n, p) for c, n, p in rig.solids()
                    if isinstance(p.mount, str) and p.mount.startswith(prefix))
    declared = tuple((n, f) for n, f in rig.frames.items() if f.mount.startswith(prefix))
    return (type(seg), bare, mounted, declared, str(rig.base))



def as_finding(err: Exception):
    from mime_gui.rig.findings import Finding

    return Finding(getattr(err, "code", "rig.build"), "", str(err))

