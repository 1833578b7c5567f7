"""The collision geometry of a built rig: every link, part, magnet, sample and world part as convex pieces
for the collision library (coal, Pinocchio's FCL), each fixed to a frame, with a bounding sphere.

**Which geometry.** A link's collision elements when its description has any, its visuals otherwise. Boxes,
cylinders, spheres and capsules are the library's own primitives (exact). A mesh, of a description or a
part, is its convex hull (computed once per file, size and modification time): the distance of convex shapes
is exact and signed (a penetration has a depth), where a triangle soup has neither an inside nor a depth; a
hull holds its mesh, so a hull never reports a pair farther apart than the meshes are (it may report them
closer, in a mesh's hollows). A ring and an arc are cut into :data:`WEDGES` convex wedges about their axis,
so what sits in the bore is not inside the piece. A sample that turns along the field is its bounding ball.
Probes (points) and zones (field volumes) have no solid.

**Which pairs.** Links of one description that are fixed to one another (the articulation's body), links
whose bodies a joint joins (adjacent, across a mount too), and links that touch in the description's rest
pose (every joint at zero, held within its limits) or in every one of :data:`SAMPLED_POSES` poses drawn
within the limits are left out, and listed (:attr:`ClearanceModel.left_out`). A part, magnet or sample is
checked against every other item, its own mount link included (a magnet buried in its link is found). Pairs
fixed to one another (one rigid group: a part and its mount link, two parts of one frame, world parts) keep
one distance: they are checked once, for contact only.
"""

from __future__ import annotations

import math
import os
import threading
import weakref
from dataclasses import dataclass, field, replace

import numpy as np

from mime_gui.multibody import tree as description

#: convex wedges a ring or an arc is cut into about its axis
WEDGES = 16
#: poses drawn within the joint limits to find the links of a description that touch in every pose
SAMPLED_POSES = 32
#: distances within this of zero are touching, not a penetration (m): a part seated on a face
TOLERANCE = 1e-6
#: (step, piece pair) lower bounds held at once
CHUNK = 2_000_000

_lock = threading.Lock()
_hulls: dict[tuple, tuple[np.ndarray, np.ndarray] | str] = {}  # mesh file → hull (vertices, triangles)
_convex: dict[tuple, object] = {}  # (hull key, scale) → coal.Convex
_left_out: dict[tuple, dict] = {}  # description signature → {(link, link): why}
_models: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # built rig → ClearanceModel


@dataclass(frozen=True, eq=False)
class Piece:
    """A convex piece: ``geometry`` (a coal shape), placed by ``body_X_piece``; its bounding ball (``centre``
    in the body frame, ``radius``) and ``anchor``, a point inside it (an upper bound of distances)."""

    geometry: object
    body_X_piece: np.ndarray
    centre: np.ndarray
    radius: float
    anchor: np.ndarray


@dataclass(frozen=True, eq=False)
class Body:
    """An item that can touch another: ``label`` (``arm.link_3``, ``parts.holder``), ``kind`` (link, part,
    magnet, sample, world part), the rig path ``where`` its findings name, ``frame`` (index into the rig's
    frame names; -1 the world), ``frame_X_body``, its ``pieces`` and its rigid ``group``."""

    label: str
    kind: str
    where: str
    frame: int
    frame_X_body: np.ndarray
    pieces: tuple[Piece, ...]
    group: int
    segment: str | None = None
    body: int = -1  # the articulation body of a link (-1: not a description link)


@dataclass(frozen=True, eq=False)
class ClearanceModel:
    """The bodies of a built rig and the pairs the check computes: ``moving`` (body index pairs ``(n, 2)``,
    relative motion possible) and ``fixed`` (one rigid group), ``margin`` (m); ``left_out``: ``(label,
    label, why)`` of the pairs left out automatically; ``allowed``: ``(label, label, reason)`` of the pairs
    the rig allows to touch; ``skipped``: ``(label, why)`` of geometry that could not be used."""

    bodies: tuple[Body, ...]
    moving: np.ndarray
    fixed: np.ndarray
    margin: float
    left_out: tuple[tuple[str, str, str], ...] = ()
    allowed: tuple[tuple[str, str, str], ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()
    unknown: tuple[tuple[int, str], ...] = ()  # (index of an allowed pair, a name it gives that is no item)
    pieces: dict = field(default_factory=dict, repr=False)  # flattened arrays, see _flatten


# -- geometry ----------------------------------------------------------------------------------------
def _stamp(path: str) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (os.path.abspath(path), st.st_size, st.st_mtime_ns)


def _hull(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The convex hull of ``points``: its vertices and outward triangles (indices into them)."""
    from scipy.spatial import ConvexHull, QhullError

    points = np.asarray(points, dtype=float)
    try:
        hull = ConvexHull(points)
    except QhullError:  # flat or a line: joggled into a thin solid
        hull = ConvexHull(points, qhull_options="QJ")
    index = np.full(len(points), -1)
    index[hull.vertices] = np.arange(len(hull.vertices))
    tris = index[hull.simplices]
    vertices = points[hull.vertices]
    # Qhull's simplices are not wound consistently: turn each to face away from the centroid
    c = vertices.mean(axis=0)
    a, b, d = vertices[tris[:, 0]], vertices[tris[:, 1]], vertices[tris[:, 2]]
    inward = np.einsum("ij,ij->i", np.cross(b - a, d - a), a - c) < 0
    tris[inward] = tris[inward][:, ::-1]
    return vertices, tris


def _coal_convex(vertices: np.ndarray, tris: np.ndarray):
    import coal

    points = coal.StdVec_Vec3s()
    for v in vertices:
        points.append(np.asarray(v, dtype=float))
    triangles = coal.StdVec_Triangle()
    for t in tris:
        triangles.append(coal.Triangle(int(t[0]), int(t[1]), int(t[2])))
    return coal.Convex(points, triangles)


def _convex_piece(vertices: np.ndarray, X: np.ndarray, key=None) -> Piece:
    """A convex piece of ``vertices`` (the shape's frame), placed by ``X``; hull cached under ``key``."""
    with _lock:
        hit = _convex.get(key) if key is not None else None
    if hit is None:
        hv, tris = _hull(vertices)
        hit = (_coal_convex(hv, tris), hv)
        if key is not None:
            with _lock:
                _convex[key] = hit
    geometry, hv = hit
    lo, hi = hv.min(axis=0), hv.max(axis=0)
    centre = 0.5 * (lo + hi)
    radius = float(np.linalg.norm(hv - centre, axis=1).max())
    return Piece(geometry, X, X[:3, :3] @ centre + X[:3, 3], radius, X[:3, :3] @ hv.mean(axis=0) + X[:3, 3])


def _primitive(geometry, X: np.ndarray) -> Piece:
    import coal

    centre = X[:3, 3].copy()
    if isinstance(geometry, description.Box):
        sx, sy, sz = (float(v) for v in geometry.size)
        return Piece(coal.Box(sx, sy, sz), X, centre, 0.5 * math.sqrt(sx * sx + sy * sy + sz * sz), centre)
    if isinstance(geometry, description.Sphere):
        return Piece(coal.Sphere(float(geometry.radius)), X, centre, float(geometry.radius), centre)
    if isinstance(geometry, description.Cylinder):
        r, h = float(geometry.radius), float(geometry.length)
        return Piece(coal.Cylinder(r, h), X, centre, math.hypot(r, 0.5 * h), centre)
    r, h = float(geometry.radius), float(geometry.length)  # a capsule
    return Piece(coal.Capsule(r, h), X, centre, r + 0.5 * h, centre)


def _mesh_vertices(filename: str) -> tuple[np.ndarray, tuple] | str:
    """The vertices of a mesh file (cached by file, size and time), or why it cannot be read."""
    stamp = _stamp(filename)
    if stamp is None:
        return "the mesh file is missing"
    with _lock:
        hit = _hulls.get(stamp)
    if hit is None:
        from mime_gui import mesh_files

        try:
            loaded = mesh_files.load(filename, force="mesh")
            vertices = np.asarray(loaded.vertices, dtype=float)
            if len(vertices) < 4 or not np.isfinite(vertices).all():
                raise ValueError("no solid in the file")
            hit = (_hull(vertices)[0], stamp)
        except Exception as exc:  # trimesh raises many kinds for unreadable files
            hit = f"cannot read the mesh ({getattr(exc, 'message', None) or exc})"
        with _lock:
            _hulls[stamp] = hit
    return hit


def _wedges(vertices: np.ndarray) -> list[np.ndarray]:
    """A ring's or an arc's triangles cut into convex wedges about z: the vertices within each span of
    angles, the span's ends shared by both neighbours."""
    angle = np.round(np.arctan2(vertices[:, 1], vertices[:, 0]), 9)
    steps = np.unique(angle)
    if len(steps) < 2:
        return [vertices]
    cuts = steps[np.linspace(0, len(steps) - 1, min(WEDGES, len(steps) - 1) + 1).round().astype(int)]
    full = np.isclose(steps[-1] - steps[0], 2 * np.pi, atol=1e-6) or len(steps) > 2 and \
        np.ptp(steps) > 2 * np.pi * (1 - 1.5 / len(steps))
    out = []
    for a, b in zip(cuts[:-1], cuts[1:], strict=True):
        out.append(vertices[(angle >= a) & (angle <= b)])
    if full:  # the gap between the last angle and the first, across ±π
        out.append(vertices[(angle >= steps[-1]) | (angle <= steps[0])])
    return [w for w in out if len(w) >= 4]


def shape_pieces(shape: description.Shape, body_X_link: np.ndarray, label: str) \
        -> tuple[list[Piece], str | None]:
    """The convex pieces of one visual or collision element (its pose ``body_X_link @ link_X_shape``), and
    why it has none when it has none."""
    g = shape.geometry
    X = body_X_link @ np.asarray(shape.link_X_shape, dtype=float)
    if isinstance(g, description.Box | description.Sphere | description.Cylinder | description.Capsule):
        return [_primitive(g, X)], None
    if isinstance(g, description.Mesh):
        if g.filename is None:
            return [], f"mesh {g.uri!r} was not found"
        got = _mesh_vertices(g.filename)
        if isinstance(got, str):
            return [], got
        vertices, stamp = got
        scale = tuple(float(s) for s in g.scale)
        return [_convex_piece(vertices * np.asarray(scale), X, key=(stamp, scale))], None
    if isinstance(g, description.Solid):
        vertices = np.asarray(g.vertices, dtype=float)
        if g.kind in ("ring", "arc"):
            return [_convex_piece(w, X) for w in _wedges(vertices)], None
        return [_convex_piece(vertices, X)], None
    return [], f"a {getattr(g, 'kind', type(g).__name__)} shape has no collision geometry"


def _ball(radius: float) -> Piece:
    import coal

    zero = np.zeros(3)
    return Piece(coal.Sphere(float(radius)), np.eye(4), zero, float(radius), zero)


# -- the rig's bodies ----------------------------------------------------------------------------------
def _link_shapes(link) -> list:
    return list(link.collisions) if link.collisions else list(link.visuals)


def _groups(built) -> dict[tuple[str, int], int]:
    """Each ``(segment, articulation body)``'s rigid group; ``("", -1)`` is the world. A segment's root body
    is fixed to the body its mount frame is on (the first segment's to the world)."""
    parent: dict = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    world = ("", -1)
    find(world)
    for name, s in built.segments.items():
        art = s.articulation
        for b in range(len(art.parent)):
            find((name, b))
        if s.mount is None:
            parent[find((name, 0))] = find(world)
        else:
            seg, frame = s.mount
            mart = built.segments[seg].articulation
            body = int(mart.frame_body[mart.frame_names.index(frame)])
            parent[find((name, 0))] = find((seg, body))
    roots: dict = {}
    return {k: roots.setdefault(find(k), len(roots)) for k in list(parent)}


def _signature(s) -> tuple:
    """What a segment's left-out link pairs depend on: its joints and its description's links and shapes
    (not the grafted parts, so an edit of a part does not redo them)."""
    art, tree = s.articulation, s.tree
    links = []
    for i, f in enumerate(art.frame_names):
        link = tree.links.get(f)
        if link is None or f in tree.part_links:
            continue
        shapes = tuple((repr(sh.geometry), np.asarray(sh.link_X_shape, float).tobytes())
                       for sh in _link_shapes(link))
        links.append((f, int(art.frame_body[i]), art.body_X_frame[i].tobytes(), shapes))
    return (art.name, art.parent.tobytes(), art.parent_X_joint.tobytes(), art.axis.tobytes(),
            art.joint_type.tobytes(), art.lower.tobytes(), art.upper.tobytes(), art.mimic_master.tobytes(),
            tuple(links))


def _described_links(s, signature) -> dict[str, tuple[list[Piece], list[str]]]:
    """Each description link's pieces and why some shapes have none (cached per description: validate
    builds the rig again on every edit, and its links are read from the same files)."""
    key = ("links", signature)
    with _lock:
        hit = _left_out.get(key)
    if hit is None:
        hit = {}
        for f in s.articulation.frame_names:
            link = s.tree.links.get(f)
            if link is None or f in s.tree.part_links:
                continue
            pieces, whys = [], []
            for shape in _link_shapes(link):
                got, why = shape_pieces(shape, np.eye(4), f)
                pieces += got
                whys += [why] if why else []
            if pieces or whys:
                hit[f] = (pieces, whys)
        with _lock:
            _left_out[key] = hit
    return hit


def _description_left_out(s, signature, bodies: list[Body], index: list[int]) -> dict:
    """``{(i, j): why}`` of the link pairs of one description (``index`` into ``bodies``) that touch in its
    rest pose or in every sampled pose (adjacent and fixed pairs are told apart before)."""
    from mime_gui.multibody.kinematics import frame_poses

    art = s.articulation
    key = ("pairs", signature)
    with _lock:
        hit = _left_out.get(key)
    if hit is None:
        lo = np.where(np.isfinite(art.lower), art.lower, -np.pi)
        hi = np.where(np.isfinite(art.upper), art.upper, np.pi)
        rest = np.clip(np.zeros(art.nq), lo, hi)
        rng = np.random.default_rng(0)  # the same poses every run: the list does not change by chance
        q = np.vstack([rest, lo + (hi - lo) * rng.random((SAMPLED_POSES, art.nq))])
        poses = frame_poses(art, q)  # (S, nframes, 4, 4) in the segment's base frame
        sub = [bodies[i] for i in index]
        pairs = np.array([(a, b) for a in range(len(sub)) for b in range(a + 1, len(sub))
                          if sub[a].body != sub[b].body], dtype=int).reshape(-1, 2)
        hit = {}
        if len(pairs):
            frames = np.array([art.frame_names.index(b.label.split(".", 1)[1]) for b in sub])
            d = pair_distances(sub, poses[:, frames], pairs, cutoff=TOLERANCE)  # (S, n)
            touching = d < TOLERANCE
            for k in np.flatnonzero(touching[0]):
                a, b = sub[pairs[k, 0]].label.split(".", 1)[1], sub[pairs[k, 1]].label.split(".", 1)[1]
                hit[(a, b)] = "touch in every pose" if touching[:, k].all() else "touch at rest"
        with _lock:
            _left_out[key] = hit
    by_link = {bodies[i].label.split(".", 1)[1]: i for i in index}
    return {(by_link[a], by_link[b]): why for (a, b), why in hit.items() if a in by_link and b in by_link}


def _item_body(label, kind, where, frame, at, shape, group, base_X=None) -> tuple[Body | None, str | None]:
    X = np.eye(4)
    X[:3, 3] = at
    pieces, why = shape_pieces(shape, np.eye(4), label)
    if not pieces:
        return None, why
    return Body(label, kind, where, frame, X if base_X is None else base_X @ X, tuple(pieces), group), None


def clearance_model(built) -> ClearanceModel:
    """The bodies and pairs of ``built`` (cached per built rig; the geometry per file)."""
    with _lock:
        hit = _models.get(built)
    if hit is None:
        hit = _model(built)
        with _lock:
            _models[built] = hit
    return hit


def _model(built) -> ClearanceModel:
    from mime_gui.rig.clearance import DEFAULT_MARGIN
    from mime_gui.rig.visuals import part_shape

    rig = built.apparatus
    frame_index = {n: i for i, n in enumerate(built.frame_names)}
    groups = _groups(built)
    world = groups[("", -1)]
    bodies: list[Body] = []
    skipped: list[tuple[str, str]] = []
    per_segment: dict[str, list[int]] = {}
    signatures: dict[str, tuple] = {}
    for name, s in built.segments.items():
        art, tree = s.articulation, s.tree
        signatures[name] = _signature(s)
        described = _described_links(s, signatures[name])
        for i, f in enumerate(art.frame_names):
            link = tree.links.get(f)
            if link is None:
                continue  # a declared frame: no solid
            item = s.grafts.get(f)
            if item is None and f in tree.part_links:
                continue
            if item is None:
                pieces, whys = described.get(f, ([], []))
            else:
                pieces, whys = [], []
                for shape in _link_shapes(link):
                    got, why = shape_pieces(shape, np.eye(4), f)
                    pieces += got
                    whys += [why] if why else []
            group = groups[(name, int(art.frame_body[i]))]
            if item is None:
                label, kind, where = f"{name}.{f}", "link", f"chain.{name}"
            else:
                label, where = f"{item[0]}.{item[1]}", f"{item[0]}.{item[1]}"
                kind = "magnet" if item[0] == "magnets" else "part"
            for why in whys:
                skipped.append((label, why))
            if not pieces:
                continue
            own = item is None  # a description's link, not a grafted part
            bodies.append(Body(label, kind, where, frame_index[f"{name}.{f}"], np.eye(4), tuple(pieces),
                               group, name if own else None, int(art.frame_body[i]) if own else -1))
            if item is None:
                per_segment.setdefault(name, []).append(len(bodies) - 1)
    for collection, pname, part in rig.solids():
        if part.mount is not None:
            continue  # grafted: read above
        centroid = built.analysis.masses[(collection, pname)].centroid  # as built, not read again
        body, why = _item_body(f"{collection}.{pname}", "world part", f"{collection}.{pname}", -1, part.at,
                               part_shape(part, centroid, rig.base), world)
        if body is None:
            skipped.append((f"{collection}.{pname}", why))
        else:
            bodies.append(body)
    for sname, sample in rig.samples.items():
        if sample.geometry is None:
            continue  # a declared moment: a point dipole, no solid
        label = f"samples.{sname}"
        frame, group = -1, world
        if sample.mount is not None:
            seg, _, fname = sample.mount.partition(".")
            frame = frame_index[sample.mount]
            art = built.segments[seg].articulation
            group = groups[(seg, int(art.frame_body[art.frame_names.index(fname)]))]
        X = np.eye(4)
        X[:3, 3] = sample.at
        if sample.orientation == "follows":  # any turn about its centre: its bounding ball
            vertices, _ = _sample_mesh(sample, rig.base)
            c = vertices.mean(axis=0)
            radius = float(np.linalg.norm(vertices - c, axis=1).max())
            bodies.append(Body(label, "sample", label, frame, X, (_ball(radius),), group))
            continue
        centroid = sample.geometry.mass_properties(rig.base).centroid
        pieces, why = shape_pieces(part_shape(sample, centroid, rig.base), np.eye(4), label)
        if pieces:
            bodies.append(Body(label, "sample", label, frame, X, tuple(pieces), group))
        else:
            skipped.append((label, why))

    clearance = getattr(rig, "clearance", None)
    margin = DEFAULT_MARGIN if clearance is None else clearance.distance
    allowed, unknown = {}, []
    items = {f"{c}.{n}" for c in ("parts", "magnets", "samples") for n in getattr(rig, c)} | set(frame_index)
    for k, a in enumerate(() if clearance is None else clearance.allow):
        allowed[frozenset((a.first, a.second))] = a.reason or ""
        unknown += [(k, name) for name in (a.first, a.second) if name not in items]
    left: dict[tuple[int, int], str] = {}
    for name, index in per_segment.items():
        left.update(_description_left_out(built.segments[name], signatures[name], bodies, index))
    # every pair at once: which are left out, allowed, fixed to one another or moving
    n = len(bodies)
    i, j = np.triu_indices(n, 1)
    group = np.array([b.group for b in bodies], dtype=int).reshape(-1)
    link = np.array([b.kind == "link" for b in bodies], dtype=bool).reshape(-1)
    ng = max(groups.values()) + 1  # every group, those without a solid too
    joined = np.zeros((ng, ng), dtype=bool)
    for pair in _adjacent_groups(built, groups):
        a, b = (tuple(pair) * 2)[:2]
        joined[a, b] = joined[b, a] = True
    why = np.full(len(i), "", dtype=object)
    both = link[i] & link[j]
    why[both & joined[group[i], group[j]]] = "joined by a joint"
    why[both & (group[i] == group[j])] = "fixed to one another"
    index = {(a, b): k for k, (a, b) in enumerate(zip(i.tolist(), j.tolist(), strict=True))}
    for (a, b), w in left.items():
        k = index[(min(a, b), max(a, b))]
        if not why[k]:
            why[k] = w
    allowed_out = []
    if allowed:
        label_of = {b.label: k for k, b in enumerate(bodies)}
        for pair, reason in allowed.items():
            ends = sorted(label_of[x] for x in pair if x in label_of)
            if len(ends) == 2:
                k = index[tuple(ends)]
                why[k] = None  # allowed: neither checked nor listed as left out
                allowed_out.append((bodies[ends[0]].label, bodies[ends[1]].label, reason))
    checked = np.array([w == "" for w in why], dtype=bool).reshape(-1)
    rigid = group[i] == group[j]
    left_out = tuple((bodies[a].label, bodies[b].label, w) for a, b, w in zip(i, j, why, strict=True) if w)
    model = ClearanceModel(tuple(bodies), np.column_stack([i, j])[checked & ~rigid],
                           np.column_stack([i, j])[checked & rigid], float(margin), left_out,
                           tuple(allowed_out), tuple(skipped), tuple(unknown))
    flat = _flatten(model.bodies)
    flat["moving"], flat["fixed"] = _piece_pairs(flat, model.moving), _piece_pairs(flat, model.fixed)
    flat["labels"] = tuple((model.bodies[a].label, model.bodies[b].label) for a, b in model.moving)
    model.pieces.update(flat)
    return model


def _piece_pairs(flat: dict, pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every piece pair ``(pa, pb)`` of the body ``pairs`` and the body pair ``owner`` it belongs to (each
    body's pieces are consecutive in the flattened arrays)."""
    nb = int(flat["body"].max()) + 1 if len(flat["body"]) else 0
    count = np.bincount(flat["body"], minlength=nb)
    start = np.concatenate([[0], np.cumsum(count)[:-1]]).astype(int)
    if not len(pairs):
        return np.zeros(0, int), np.zeros(0, int), np.zeros(0, int)
    i, j = pairs[:, 0], pairs[:, 1]
    n = count[i] * count[j]
    owner = np.repeat(np.arange(len(pairs)), n)
    k = np.arange(len(owner)) - np.repeat(np.cumsum(n) - n, n)  # index within each pair's block
    cj = count[j][owner]
    return start[i][owner] + k // cj, start[j][owner] + k % cj, owner


def _sample_mesh(sample, base):
    from mime_gui.rig.geometries import kind_of

    vertices, faces = kind_of(sample.geometry).mesh(sample.geometry, base)
    return np.asarray(vertices, dtype=float), faces


def _adjacent_groups(built, groups) -> set[frozenset]:
    """Rigid groups a joint joins (within a segment, and a mounted segment's bodies with its mount's)."""
    out = set()
    for name, s in built.segments.items():
        parent = s.articulation.parent
        for b in range(1, len(parent)):
            out.add(frozenset((groups[(name, b)], groups[(name, int(parent[b]))])))
    return out


def _flatten(bodies) -> dict:
    """Every piece of every body as arrays: ``body (P,)``, ``frame (P,)``, ``frame_X_piece (P, 4, 4)``,
    ``centre (P, 3)`` and ``anchor (P, 3)`` in the frame, ``radius (P,)``, ``geometry`` (a list)."""
    body, frame, X, centre, anchor, radius, geometry = [], [], [], [], [], [], []
    for k, b in enumerate(bodies):
        for p in b.pieces:
            body.append(k)
            frame.append(b.frame)
            X.append(b.frame_X_body @ p.body_X_piece)
            centre.append(b.frame_X_body[:3, :3] @ p.centre + b.frame_X_body[:3, 3])
            anchor.append(b.frame_X_body[:3, :3] @ p.anchor + b.frame_X_body[:3, 3])
            radius.append(p.radius)
            geometry.append(p.geometry)
    X = np.array(X, dtype=float).reshape(-1, 4, 4)

    def local(points):  # a point given in the frame, in the piece's own frame
        p = np.array(points, dtype=float).reshape(-1, 3)
        return np.einsum("pji,pj->pi", X[:, :3, :3], p - X[:, :3, 3])

    return {"body": np.array(body, dtype=int), "frame": np.array(frame, dtype=int), "frame_X_piece": X,
            "piece_centre": local(centre), "piece_anchor": local(anchor),
            "radius": np.array(radius, dtype=float), "geometry": geometry}


# -- distances: bounds over every step, the library on what they cannot clear ------------------------------
def piece_poses(flat: dict, frame_poses: np.ndarray) -> np.ndarray:
    """``world_X_piece (T, P, 4, 4)``: each piece on its frame (frame -1: the world)."""
    T = len(frame_poses)
    f = flat["frame"]
    base = np.broadcast_to(np.eye(4), (T, len(f), 4, 4)).copy()
    on = f >= 0
    if on.any():
        base[:, on] = frame_poses[:, f[on]]
    return base @ flat["frame_X_piece"]


def _narrow(flat: dict, Wa: np.ndarray, Wb: np.ndarray, ga: np.ndarray, gb: np.ndarray) -> np.ndarray:
    """The signed distances of pieces ``ga`` at ``Wa (N, 4, 4)`` and ``gb`` at ``Wb``: one library call per
    distinct (pair, relative pose)."""
    import coal

    N = len(ga)
    if N == 0:
        return np.zeros(0)
    R = np.einsum("nji,njk->nik", Wa[:, :3, :3], Wb[:, :3, :3])
    p = np.einsum("nji,nj->ni", Wa[:, :3, :3], Wb[:, :3, 3] - Wa[:, :3, 3])
    rows = np.column_stack([ga, gb, R.reshape(N, 9), p])
    unique, first, inverse = np.unique(rows, axis=0, return_index=True, return_inverse=True)
    geometry = flat["geometry"]
    identity = coal.Transform3s()
    request = coal.DistanceRequest()
    out = np.empty(len(unique))
    for k, n in enumerate(first):
        result = coal.DistanceResult()
        out[k] = coal.distance(geometry[ga[n]], identity, geometry[gb[n]], coal.Transform3s(R[n], p[n]),
                               request, result)
    return out[inverse.reshape(-1)]


def scan(flat: dict, frame_poses: np.ndarray, pieces, n: int, cutoff: float, best: bool):
    """Distances ``(T, n)`` of ``n`` body pairs whose piece pairs are ``pieces`` (``pa``, ``pb``, the body
    pair ``owner``): exact where under ``cutoff`` (and, with ``best``, the step's smallest), a lower bound
    elsewhere (never under ``cutoff`` nor under the step's smallest)."""
    T = len(frame_poses)
    out = np.full((T, n), np.inf)
    pa, pb, owner = pieces
    Q = len(pa)
    if Q == 0 or T == 0:
        return out
    radii = flat["radius"][pa] + flat["radius"][pb]
    step = max(1, CHUNK // max(Q, len(flat["body"]) * 8))
    for s in range(0, T, step):
        W = piece_poses(flat, frame_poses[s:s + step])  # (Tc, P, 4, 4)
        Tc = len(W)
        C = np.einsum("tpij,pj->tpi", W[:, :, :3, :3], flat["piece_centre"]) + W[:, :, :3, 3]
        lower = np.linalg.norm(C[:, pa] - C[:, pb], axis=-1) - radii  # (Tc, Q)
        threshold = np.full(Tc, float(cutoff))
        done = np.zeros((Tc, Q), dtype=bool)
        exact = np.full((Tc, Q), np.inf)
        if best:
            A = np.einsum("tpij,pj->tpi", W[:, :, :3, :3], flat["piece_anchor"]) + W[:, :, :3, 3]
            upper = np.linalg.norm(A[:, pa] - A[:, pb], axis=-1).min(axis=1)
            first = np.argmin(lower, axis=1)  # the likeliest closest pair: computed first, to tighten
            t = np.arange(Tc)
            d = _narrow(flat, W[t, pa[first]], W[t, pb[first]], pa[first], pb[first])
            exact[t, first], done[t, first] = d, True
            threshold = np.maximum(threshold, np.minimum(upper, d))
        t, q = np.nonzero((lower <= threshold[:, None]) & ~done)
        exact[t, q] = _narrow(flat, W[t, pa[q]], W[t, pb[q]], pa[q], pb[q])
        done[t, q] = True
        value = np.where(done, exact, lower)
        chunk = np.full((Tc, n), np.inf)
        np.minimum.at(chunk.T, owner, value.T)  # each body pair: the least of its piece pairs
        out[s:s + Tc] = chunk
    return out


def pair_distances(bodies, frame_poses: np.ndarray, pairs: np.ndarray, cutoff: float = 0.0) -> np.ndarray:
    """``(T, n)`` distances of the body ``pairs`` of ``bodies`` (each on ``frame_poses[:, body.frame]``):
    exact under ``cutoff``, a lower bound at or above it."""
    local = [replace(b, frame=k) for k, b in enumerate(bodies)]
    flat = _flatten(local)
    pairs = np.asarray(pairs, dtype=int).reshape(-1, 2)
    return scan(flat, np.asarray(frame_poses, dtype=float), _piece_pairs(flat, pairs), len(pairs), cutoff,
                 False)


__all__ = ["SAMPLED_POSES", "TOLERANCE", "WEDGES", "Body", "ClearanceModel", "Piece", "clearance_model",
           "pair_distances", "piece_poses", "scan", "shape_pieces"]
