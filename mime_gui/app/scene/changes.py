"""A changed segment applied in place: its new tree is compared with the drawn one item by item, by what each
item is drawn from (a link's shapes, a link's inertial, a joint's axis, a frame's name). Actors of unchanged
items are kept (their frame numbers re-indexed into the new Articulation's frame order), actors of changed or
new items are built, actors of items that are gone are removed. Adding a part adds exactly its actors.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mime_gui.app.scene.actors import GEOMETRY_LAYERS, ActorRegistry, SegmentActors
from mime_gui.app.scene.decorations import Decorations, inertial_signature, joint_signature
from mime_gui.app.scene.geometry import GeometryActors, link_signature
from mime_gui.multibody import frame_poses


@dataclass
class Kept:
    """The items of a changed segment whose actors stay: links (geometry), links (inertia markers), joints."""

    links: set
    inertials: set
    joints: set


def kept_items(old: SegmentActors, tree, art) -> Kept:
    drawn = old.drawn

    def same(kind: str, name: str, signature) -> bool:
        key = (kind, name)
        return key in drawn and drawn[key] == signature

    return Kept(links={n for n in tree.links if same("link", n, link_signature(tree, n))},
                inertials={n for n in tree.links if same("inertial", n, inertial_signature(tree.links[n]))},
                joints={j for j in art.joint_names if same("joint", j, joint_signature(tree.joints[j]))})


def carried_poses(old: SegmentActors, tree, art) -> np.ndarray:
    """World poses of the new frames until the next pose update: a frame the segment had keeps its pose; a new
    frame hangs off its nearest known ancestor through the tree's joint origins (exact for a grafted part,
    welded by a fixed joint); with no known ancestor, the rest pose."""
    old_index = {n: i for i, n in enumerate(old.art.frame_names)}
    poses = np.empty((art.nframes, 4, 4))
    known: dict[str, np.ndarray] = {}
    for i, name in enumerate(art.frame_names):
        j = old_index.get(name)
        if j is not None:
            poses[i] = known[name] = old.poses[j]
    missing = [i for i, name in enumerate(art.frame_names) if name not in known]
    if not missing:
        return poses
    rest = None
    for i in missing:  # frame order is depth-first: a parent comes before its children
        name = art.frame_names[i]
        joint = tree.parent_joint(name)
        if joint is not None and joint.parent in known:
            known[name] = known[joint.parent] @ joint.parent_X_joint
        else:
            if rest is None:
                rest = frame_poses(art, np.zeros(art.nq))
            known[name] = rest[i]
        poses[i] = known[name]
    return poses


@dataclass
class Applied:
    segment: SegmentActors
    requests: list  # mesh requests of the rebuilt links
    removed_geometry: int  # geometry actors removed


def apply_changed(old: SegmentActors, tree, art, registry: ActorRegistry, geometry: GeometryActors,
                  decorations: Decorations) -> Applied:
    """The segment drawn from ``tree``/``art``, reusing ``old``'s actors where the drawing did not change."""
    kept = kept_items(old, tree, art)
    new = SegmentActors(name=old.name, tree=tree, art=art, poses=carried_poses(old, tree, art))
    old_names = old.art.frame_names
    new_index = {n: i for i, n in enumerate(art.frame_names)}
    old_index = {n: i for i, n in enumerate(old_names)}
    new.frame_visible = np.array([bool(old.frame_visible[old_index[n]]) if n in old_index else True
                                  for n in art.frame_names], dtype=bool)
    for name in kept.links:
        new.drawn[("link", name)] = old.drawn[("link", name)]
        new.tokens[name] = old.tokens[name]
    for name in kept.inertials:
        new.drawn[("inertial", name)] = old.drawn[("inertial", name)]
    for name in kept.joints:
        new.drawn[("joint", name)] = old.drawn[("joint", name)]

    removed_geometry = 0
    for layer, group in old.layers.items():
        if layer == "frames":
            continue
        keep = (kept.links if layer in GEOMETRY_LAYERS else kept.joints if layer == "joint_axes"
                else kept.inertials)
        for actor, frame, local, ref, lead in group.entries():
            if ref.name in keep:
                new.layers[layer].add(actor, new_index[old_names[frame]], local, ref, lead)
            else:
                registry.forget(actor)
                geometry.forget(actor)
                removed_geometry += layer in GEOMETRY_LAYERS

    # triads and labels follow the new frame order (one of each per frame, kept by name)
    triads = {ref.name: (actor, local, ref) for actor, _, local, ref, _ in old.layers["frames"].entries()}
    labels = dict(zip(old_names, old.labels, strict=True))
    for i, fname in enumerate(art.frame_names):
        triad = triads.pop(fname, None)
        if triad is None:
            decorations.add_triad(new, i, fname)
        else:
            new.layers["frames"].add(triad[0], i, triad[1], triad[2])
        label = labels.pop(fname, None)
        new.labels.append(decorations.new_label(fname) if label is None else label)
    for actor, _, _ in triads.values():
        registry.forget(actor)
    for label in labels.values():
        registry.overlay.RemoveActor(label)

    requests = geometry.build(new, [n for n in tree.links if n not in kept.links])
    for name in tree.links:
        if name not in kept.inertials:
            decorations.add_inertial(new, name)
    for jname in art.joint_names:
        if jname not in kept.joints:
            decorations.add_joint_axis(new, jname)
    return Applied(new, requests, removed_geometry)
