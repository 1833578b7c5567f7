"""A changed segment applied in place: its new tree is compared with the drawn one item by item, by what each
item's actors are (a link's shapes, a link's inertial, a joint's axis, a frame's name).

Actors of unchanged items are kept, the same objects, their frame numbers re-indexed into the new
Articulation's frame order. An item whose actors stay the same but sit elsewhere (a primitive's dimension or
placement, a centre of mass) keeps its actors at their new placements. Actors of changed or new items are
built, actors of items that are gone are removed. So adding a part adds exactly its actors, and dragging a
part's dimension changes matrices only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mime_gui.app.scene.actors import GEOMETRY_LAYERS, ActorRegistry, SegmentActors
from mime_gui.app.scene.decorations import Decorations, inertial_drawing, inertial_key, joint_signature
from mime_gui.app.scene.geometry import GeometryActors, link_drawing
from mime_gui.multibody import frame_poses

KEEP = "keep"  # the item's actors stay as they are


def _same_sizes(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(
        len(a[k]) == len(b[k]) and all(np.array_equal(x[0], y[0]) for x, y in zip(a[k], b[k], strict=True))
        for k in a)


def link_changes(old: SegmentActors, tree) -> dict:
    """Per link of ``tree`` whose geometry actors can stay: :data:`KEEP`, or its new sizes by layer (see
    :func:`.geometry.link_drawing`). A link not in the result is built anew."""
    out = {}
    for name in tree.links:
        before = old.drawn.get(("link", name))
        if before is None:
            continue
        now = link_drawing(tree, name)
        if now[0] != before[0]:
            continue
        out[name] = KEEP if now[1] is None or _same_sizes(now[1], before[1]) else now
    return out


def inertial_changes(old: SegmentActors, tree) -> dict:
    """Per link of ``tree`` whose centre-of-mass and inertia actors can stay: :data:`KEEP`, or its new
    drawing (placements moved)."""
    out = {}
    for name, link in tree.links.items():
        before = old.drawn.get(("inertial", name))
        if before is None:
            continue
        if inertial_key(link) == before[2]:
            out[name] = KEEP
            continue
        now = inertial_drawing(link)
        if now[0] != before[0]:
            continue
        same = now[1] is None or all((x is None and y is None) or (x is not None and y is not None
                                                                   and np.array_equal(x, y))
                                     for x, y in zip(now[1], before[1], strict=True))
        out[name] = KEEP if same else now
    return out


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
    rest = None
    for i, name in enumerate(art.frame_names):  # depth-first order: a parent comes before its children
        if name in known:
            continue
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
    removed_meshes: bool  # some of them drew a mesh file
    touched: set  # links whose geometry actors were built or re-sized


def apply_changed(old: SegmentActors, tree, art, registry: ActorRegistry, geometry: GeometryActors,
                  decorations: Decorations) -> Applied:
    """The segment drawn from ``tree``/``art``, reusing ``old``'s actors where they can stay."""
    links = link_changes(old, tree)
    inertials = inertial_changes(old, tree)
    joints = {j: KEEP for j in art.joint_names
              if old.drawn.get(("joint", j)) == joint_signature(tree.joints[j])}
    new = SegmentActors(name=old.name, tree=tree, art=art, poses=carried_poses(old, tree, art))
    old_index = {n: i for i, n in enumerate(old.art.frame_names)}
    new.frame_visible = np.array([bool(old.frame_visible[old_index[n]]) if n in old_index else True
                                  for n in art.frame_names], dtype=bool)
    for kind, status in (("link", links), ("inertial", inertials), ("joint", joints)):
        for name, st in status.items():
            new.drawn[(kind, name)] = old.drawn[(kind, name)] if st is KEEP else st
    for name in links:
        new.tokens[name] = old.tokens[name]  # their pending meshes are still wanted

    removed, removed_meshes = _carry_actors(old, new, links, inertials, joints, registry, geometry)
    _carry_frames(old, new, registry, decorations)
    requests = geometry.build(new, [n for n in tree.links if n not in links])
    for name in tree.links:
        if name not in inertials:
            decorations.add_inertial(new, name)
    for jname in art.joint_names:
        if jname not in joints:
            decorations.add_joint_axis(new, jname)
    touched = {n for n in tree.links if links.get(n) is not KEEP}
    return Applied(new, requests, removed, removed_meshes, touched)


def _carry_actors(old, new, links, inertials, joints, registry, geometry) -> tuple[int, bool]:
    """Move the actors that stay from ``old``'s groups to ``new``'s (at new placements where they moved), and
    remove the others; returns how many geometry actors were removed and whether one drew a mesh."""
    old_names = old.art.frame_names
    new_index = {n: i for i, n in enumerate(new.art.frame_names)}
    removed, removed_meshes = 0, False
    sizes: dict[tuple, object] = {}  # (layer, link) -> its actors' new sizes, in order
    for layer, group in old.layers.items():
        if layer == "frames":  # see _carry_frames
            continue
        status = links if layer in GEOMETRY_LAYERS else joints if layer == "joint_axes" else inertials
        target = new.layers[layer]
        for actor, frame, local, ref, lead in group.entries():
            st = status.get(ref.name)
            if st is None:
                registry.forget(actor)
                removed_meshes |= geometry.forget(actor)
                removed += layer in GEOMETRY_LAYERS
                continue
            frame = new_index[old_names[frame]]
            if st is not KEEP:  # the same actor, elsewhere: a new size or placement
                if layer in GEOMETRY_LAYERS:
                    it = sizes.get((layer, ref.name))
                    if it is None:
                        it = sizes[(layer, ref.name)] = iter(st[1][layer])
                    local, kind, S = next(it)
                    geometry.resize(actor, kind, S)
                else:
                    local = st[1][0 if layer == "com" else 1]
                actor.user_matrix = new.poses[frame] @ local
            target.add(actor, frame, local, ref, lead)
    return removed, removed_meshes


def _carry_frames(old, new, registry, decorations) -> None:
    """Triads and labels in the new frame order (one of each per frame, kept by name)."""
    triads = {ref.name: (actor, local, ref) for actor, _, local, ref, _ in old.layers["frames"].entries()}
    labels = dict(zip(old.art.frame_names, old.labels, strict=True))
    for i, fname in enumerate(new.art.frame_names):
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
