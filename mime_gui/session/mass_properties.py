"""Mass properties of the apparatus as drawn now: per link the description's own inertial, the mounted
parts and magnets apart from it, totals per segment and for the whole apparatus (mass and centre of mass in
the world, at the current joint positions).

The description's inertials are those of the segment's tree (graft links excluded); a part's mass comes from
:func:`~mime_gui.rig.mass.part_mass` (declared mass, declared density or its material), its centre of mass is
its centroid, which the rig places at ``at`` in the mount frame. A part on a kinematic segment rides along
without being carried by the segment's dynamics, but it weighs the same: it counts in the totals, flagged
``carried=False``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mime_gui.rig.mass import part_mass
from mime_gui.rig.parts import PermanentMagnet


@dataclass(frozen=True)
class MassRow:
    """One body: ``kind`` is 'link' (the description's own inertial), 'part' or 'magnet'. ``com`` is the
    world centre of mass (None when the body is not placed: an unresolved mount); ``mass`` None when its
    mass cannot be known (a rule is broken: see the findings)."""

    segment: str  # '' for a part fixed in the world
    link: str  # the link (or mount frame) it belongs to
    kind: str
    name: str
    mass: float | None
    com: np.ndarray | None
    source: str
    carried: bool = True


@dataclass(frozen=True)
class Total:
    name: str
    own: float  # kg of the description's links
    parts: float  # kg of mounted parts and magnets
    com: np.ndarray | None  # world, of own + parts

    @property
    def mass(self) -> float:
        return self.own + self.parts


@dataclass
class MassTable:
    rows: list[MassRow] = field(default_factory=list)
    segments: list[Total] = field(default_factory=list)
    total: Total = field(default_factory=lambda: Total("apparatus", 0.0, 0.0, None))

    def rows_of(self, segment: str) -> list[MassRow]:
        return [r for r in self.rows if r.segment == segment]


def _com(rows) -> np.ndarray | None:
    placed = [(r.mass, r.com) for r in rows if r.mass and r.com is not None]
    m = sum(mass for mass, _ in placed)
    if m <= 0:
        return None
    return sum(mass * com for mass, com in placed) / m


def _total(name: str, rows) -> Total:
    own = sum(r.mass for r in rows if r.kind == "link" and r.mass)
    parts = sum(r.mass for r in rows if r.kind != "link" and r.mass)
    return Total(name, float(own), float(parts), _com(rows))


def mass_table(session) -> MassTable:
    """The table of the session's document at its current poses (empty without a document)."""
    return document_mass_table(session.document)


def document_mass_table(doc) -> MassTable:
    """The table of a document at its current poses (empty for None)."""
    out = MassTable()
    if doc is None:
        return out
    rig = doc.rig
    for name, seg in doc.segments.items():
        tree, art = seg.tree, seg.articulation
        for link_name in tree.link_order():
            if link_name in tree.part_links:
                continue
            inertial = tree.links[link_name].inertial
            if inertial is None or inertial.mass <= 0:
                continue
            X = seg.world_X_frame[art.frame_index(link_name)]
            com = X[:3, :3] @ inertial.link_X_com[:3, 3] + X[:3, 3]
            out.rows.append(MassRow(name, link_name, "link", link_name, float(inertial.mass), com,
                                    "the description's inertial"))
    dynamic = {n: bool(getattr(s, "dynamic", False)) for n, s in rig.chain.items()}
    for _collection, pname, part in rig.solids():
        mass, _problems = part_mass(part, rig.base)
        kind = "magnet" if isinstance(part, PermanentMagnet) else "part"
        segment, frame, com = "", part.mount or "", None
        if part.mount is None:
            com = np.asarray(part.at, dtype=float)
        else:
            for seg_name, seg in doc.segments.items():
                graft = seg.graft_of(pname)
                if part.mount.startswith(seg_name + ".") and graft in seg.articulation.frame_names:
                    segment, frame = seg_name, part.mount[len(seg_name) + 1:]
                    com = seg.frame_pose(graft)[:3, 3].copy()
                    break
        source = "not known: see the findings" if mass is None else f"{mass.source}: {mass.detail}"
        out.rows.append(MassRow(segment, frame, kind, pname, None if mass is None else mass.mass, com, source,
                                carried=dynamic.get(segment, False)))
    out.segments = [_total(name, out.rows_of(name)) for name in doc.segments]
    out.total = _total("apparatus", out.rows)
    return out


__all__ = ["MassRow", "MassTable", "Total", "document_mass_table", "mass_table"]
