"""The payload of a dynamic segment: the segments (and their parts) riding on it.

A segment mounted on a dynamic segment's frame, directly or through other segments, is carried by it: at
build, each rider's bodies and mounted parts, posed at the rider's initial positions (its current
configuration), are added up into one rigid body welded to the frame through which it rides on the carrier.
The rider's own joints do not move in that body (a payload is rigid): it is what the carrier's mass matrix
and forward dynamics use. The torques along a trajectory take the riders moving instead
(:mod:`mime_gui.rig.coupled`); held at their initial positions, the two agree.

A rider's own link masses come from its description. Its parts come from the rig, whether the rider is
dynamic (grafted onto it) or kinematic (it carries none, but the segment under it does). A kinematic segment
carries no payload (the spec: it prescribes its motion); a dynamic one with ``carries_payload=False`` carries
none either, and the build report says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache, partial

import numpy as np

from mime_gui.multibody import body_poses, frame_poses
from mime_gui.multibody.moving_base import rigid_mass_properties, with_payload
from mime_gui.rig.chain_node import riders_of


@dataclass(frozen=True)
class Rider:
    """One segment riding on a carrier, as a rigid body: ``mass`` (kg), ``com`` and ``inertia`` (about the
    centre of mass) in the axes of the carrier's ``frame``, through which it rides (``via`` the segments
    between, nearest first)."""

    segment: str
    frame: str  # the carrier's frame
    mass: float
    com: np.ndarray
    inertia: np.ndarray
    via: tuple[str, ...] = ()

    def to_dict(self, carrier: str) -> dict:
        return {"segment": self.segment, "frame": f"{carrier}.{self.frame}", "mass": self.mass,
                "com": self.com.tolist(), "inertia_about_com": self.inertia.tolist(), "via": list(self.via)}


def initial_configuration(art, segment) -> np.ndarray:
    """Full joint positions of a segment at its initial positions (held within its limits)."""
    from mime_gui.nodes import KinematicArmNode

    node = KinematicArmNode(art)
    init = segment.initial_positions
    return node.initial_positions([init.get(j, 0.0) for j in node.command_names])


def _rider_bodies(name, built, apparatus, analysis, carrier_frame_X_base):
    """Masses, centres of mass, inertias and poses (in the carrier frame) of one rider's bodies and of the
    parts a kinematic rider leaves massless."""
    s = built[name]
    art = s.articulation
    q = initial_configuration(art, s.segment)
    base_X_body = body_poses(art, q)
    masses = list(art.mass_of_body)
    coms = list(art.com)
    inertias = list(art.inertia_com)
    poses = list(carrier_frame_X_base @ base_X_body)
    if not s.segment.dynamic:  # its parts are grafted without mass: the carrier still holds them
        base_X_frame = frame_poses(art, q)
        for (collection, pname), mount in analysis.part_mounts.items():
            mass = analysis.masses.get((collection, pname))
            if mount is None or mount[0] != name or mass is None or mass.mass <= 0:
                continue
            part = dict((n, p) for c, n, p in apparatus.solids() if c == collection)[pname]
            X = np.eye(4)
            X[:3, 3] = part.at
            masses.append(mass.mass)
            coms.append(np.zeros(3))
            inertias.append(mass.inertia)
            poses.append(carrier_frame_X_base @ base_X_frame[art.frame_index(mount[1])] @ X)
    return np.array(masses), np.array(coms), np.array(inertias), np.array(poses)


def riders(carrier: str, built: dict, apparatus, analysis) -> list[Rider]:
    """Every segment riding on ``carrier`` (directly or through others), in mount order, as rigid bodies in
    the carrier's frames. ``built``: segment name → BuiltSegment (articulations without payload)."""
    mounts = {n: s.mount for n, s in built.items()}
    out = []
    # per rider: (carrier frame, path of segments, carrier_frame_X_base)
    where: dict[str, tuple[str, tuple[str, ...], np.ndarray]] = {}
    for name in riders_of(mounts, carrier)[1:]:
        seg, frame = mounts[name]
        s = built[name]
        if seg == carrier:
            where[name] = (frame, (), s.placement)
        else:
            cframe, path, X_up = where[seg]
            up = built[seg]
            q = initial_configuration(up.articulation, up.segment)
            up_base_X_frame = frame_poses(up.articulation, q)[up.articulation.frame_index(frame)]
            where[name] = (cframe, (*path, seg), X_up @ up_base_X_frame @ s.placement)
        cframe, path, X = where[name]
        m, c, inertia, poses = _rider_bodies(name, built, apparatus, analysis, X)
        mass, com, I = rigid_mass_properties(m, c, inertia, poses)
        out.append(Rider(name, cframe, mass, com, I, path))
    return out


def carrying(art, frame_riders: list[Rider]):
    """``art`` with every rider welded to the body of its frame (mass properties moved into body axes)."""
    for r in frame_riders:
        if r.mass <= 0 and not np.any(r.inertia):
            continue
        f = art.frame_index(r.frame)
        body = int(art.frame_body[f])
        body_X_frame = art.body_X_frame[f]
        R = body_X_frame[:3, :3]
        art = with_payload(art, body, r.mass, R @ r.com + body_X_frame[:3, 3], R @ r.inertia @ R.T)
    return art


def report_entry(name: str, seg, found: list[Rider]) -> dict:
    """The build report's ``payload`` of one segment: what rides on it and whether it carries it."""
    riding = [r.to_dict(name) for r in found]
    if not seg.dynamic:
        return {"carried": False, "riders": riding, "mass": 0.0,
                "detail": "kinematic segment: prescribed motion, carries no payload"}
    if not carried(seg):
        return {"carried": False, "riders": riding, "mass": 0.0,
                "detail": "carries_payload is off: what rides on it is carried by no segment"}
    return {"carried": True, "riders": riding, "mass": float(sum(r.mass for r in found)),
            "detail": "riders welded to their frames at their initial positions" if found else
            "nothing rides on it"}


def carry(segments: dict, apparatus, analysis) -> dict:
    """Every segment gets ``ride`` (its riders as rigid bodies, :func:`riders`); a dynamic segment that
    carries its payload and has riders gets ``weld`` (its articulation with the riders welded on,
    :func:`carrying`) and ``hang`` (its riders hung on it, moving: :mod:`mime_gui.rig.coupled`). All three
    are made on first use: an edit is drawn without waiting for the payload's mass properties. Returns the
    new segments."""
    import dataclasses

    from mime_gui.rig.coupled import coupled

    mounts = {n: s.mount for n, s in segments.items()}
    out = dict(segments)
    for name, s in segments.items():
        ride = lru_cache(maxsize=None)(partial(_rider_tuple, name, segments, apparatus, analysis))
        welds = carried(s.segment) and len(riders_of(mounts, name)) > 1
        out[name] = dataclasses.replace(
            s, ride=ride, weld=partial(_weld, s.articulation, ride) if welds else None,
            hang=partial(coupled, name, segments, apparatus, analysis) if welds else None)
    return out


def carried(seg) -> bool:
    """Whether the segment carries what rides on it: a dynamic one, unless ``carries_payload`` is off."""
    return bool(seg.dynamic) and getattr(seg, "carries_payload", True)


def _rider_tuple(carrier: str, built: dict, apparatus, analysis) -> tuple[Rider, ...]:
    return tuple(riders(carrier, built, apparatus, analysis))


def _weld(art, ride):
    return carrying(art, list(ride()))
