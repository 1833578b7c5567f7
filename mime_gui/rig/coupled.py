"""A dynamic segment and the segments riding on it as one multibody, for the torques its motors must give.

The payload (:mod:`mime_gui.rig.payload`) welds the riders to their frame as one rigid body at their initial
positions: what the carrier's mass matrix and forward dynamics use. Along a played trajectory the riders move,
though: a motor on the flange spins its rotor and the magnets on it, a second arm swings. The torques the
carrier's joints must give then include the riders' reaction to their own motion (a rotor's acceleration
turns its stator, and so the flange, the other way; an off-axis part swung round pulls on the arm) and the
weight of the riders where they are at each step, not where they started.

So for its torques a carrier is *coupled*: its tree (grafted parts included) with every rider's tree hung
from the rider's mount frame by its placement (its links and joints named ``<segment>/<name>``), compiled
into one :class:`~mime_gui.multibody.Articulation` with each segment's armature. The inverse dynamics of that
articulation at the joint positions of all its segments, with their rates, are the coupled torques; the
carrier's own joints are its columns. A kinematic rider's parts, which its own tree holds without mass, get
their mass here, as in the payload.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from mime_gui.multibody import Articulation, MultibodyTree
from mime_gui.multibody.tree import Inertial, Joint
from mime_gui.rig.chain_node import riders_of

SEPARATOR = "/"


@dataclass(frozen=True, eq=False)
class Coupled:
    """``carrier`` and its riders as one articulation; ``columns[segment]``: the indices of that segment's
    joints (in its own joint order) in the coupled articulation's ``q``."""

    carrier: str
    articulation: Articulation
    columns: Mapping[str, np.ndarray]

    @property
    def segments(self) -> tuple[str, ...]:
        """The carrier first, then its riders in mount order."""
        return tuple(self.columns)

    def link_name(self, segment: str, link: str) -> str:
        """What ``segment``'s link ``link`` is called in the coupled articulation."""
        return _named(segment, self.carrier, link)

    def gather(self, per_segment: Mapping[str, np.ndarray]) -> np.ndarray:
        """The coupled ``q`` (or ``v``) ``(..., nq)`` from each segment's ``(..., nq_segment)``."""
        first = np.asarray(per_segment[self.carrier], dtype=float)
        out = np.empty((*first.shape[:-1], self.articulation.nq))
        for name, cols in self.columns.items():
            out[..., cols] = per_segment[name]
        return out


def _named(segment: str, carrier: str, name: str) -> str:
    return name if segment == carrier else f"{segment}{SEPARATOR}{name}"


def _kinematic_part_inertials(built, analysis) -> dict[str, Inertial]:
    """The graft links of a kinematic segment's massive parts (``built``: its BuiltSegment) and their mass
    properties (its tree holds them without mass: the segment prescribes their motion)."""
    out = {}
    for link, item in built.grafts.items():
        mass = analysis.masses.get(item)
        if mass is None or (mass.mass <= 0 and not np.any(mass.inertia)):
            continue
        out[link] = Inertial(mass=mass.mass, link_X_com=np.eye(4), inertia=mass.inertia.copy())
    return out


def _hang(tree: MultibodyTree, rider_tree: MultibodyTree, rider: str, carrier: str, parent_link: str,
          placement: np.ndarray, inertials: Mapping[str, Inertial]) -> None:
    """Add ``rider_tree``'s links and joints to ``tree``, renamed, its root welded to ``parent_link``."""
    def named(n):
        return _named(rider, carrier, n)

    for link in rider_tree.links.values():
        inertial = inertials.get(link.name, link.inertial)
        tree.links[named(link.name)] = dataclasses.replace(link, name=named(link.name), inertial=inertial)
    mount_joint = named(f"mount:{rider_tree.root}")
    tree.joints[mount_joint] = Joint(mount_joint, "fixed", parent_link, named(rider_tree.root),
                                     np.asarray(placement, dtype=float))
    for joint in rider_tree.joints.values():
        mimic = joint.mimic if joint.mimic is None else dataclasses.replace(joint.mimic,
                                                                            joint=named(joint.mimic.joint))
        tree.joints[named(joint.name)] = dataclasses.replace(joint, name=named(joint.name),
                                                             parent=named(joint.parent),
                                                             child=named(joint.child), mimic=mimic)


def coupled(carrier: str, built: Mapping, apparatus, analysis) -> Coupled | None:
    """``carrier`` (a name in ``built``: segment name → BuiltSegment) coupled with its riders; None when
    nothing rides on it or when a rider's mass properties are not physical (the torques then take the rigid
    payload, whose refusal names the fault)."""
    mounts = {n: s.mount for n, s in built.items()}
    members = riders_of(mounts, carrier)
    if len(members) < 2:
        return None
    tree = built[carrier].tree.copy()
    for rider in members[1:]:
        s = built[rider]
        seg, frame = s.mount
        inertials = {} if s.segment.dynamic else _kinematic_part_inertials(s, analysis)
        _hang(tree, s.tree, rider, carrier, _named(seg, carrier, frame), s.placement, inertials)
    tree.__dict__.pop("_parent_index", None)
    armature = {_named(n, carrier, j): float(a) for n in members for j, a in
                zip(built[n].articulation.joint_names, built[n].articulation.armature, strict=True)}
    art = tree.compile(armature=armature)
    if art.dynamics_errors:
        return None
    index = {j: i for i, j in enumerate(art.joint_names)}
    columns = {n: np.array([index[_named(n, carrier, j)] for j in built[n].articulation.joint_names],
                           dtype=int) for n in members}
    return Coupled(carrier, art, columns)
