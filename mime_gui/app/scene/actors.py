"""The actor registry: every actor of every segment by layer, with the frame it hangs on and its fixed offset.

An actor is built once, in the frame it is attached to (``frame_X_actor`` kept beside it); placing a layer is
one batched product ``world_X_frame[frames] @ frame_X_actor`` followed by a ``user_matrix`` assignment per
actor. Each actor maps back to the item (:class:`ItemRef`) it draws, for picking, highlight and hiding.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyvista as pv
import vtk

from mime_gui.rig.build import graft_link
from mime_gui.session.renderer import LAYERS, ItemRef

GEOMETRY_LAYERS = ("visual", "collision", "parts")
#: The layers the robot opacity setting applies to.
SEE_THROUGH = ("visual", "parts")


@dataclass
class ActorGroup:
    """Actors of one layer of one segment, with the frame each hangs on and its fixed offset."""

    actors: list = field(default_factory=list)
    frames: list = field(default_factory=list)
    local: list = field(default_factory=list)
    refs: list = field(default_factory=list)
    lead: list = field(default_factory=list)  # False for the 2nd… single-colour actor of one mesh
    _frames_arr: np.ndarray | None = None
    _local_arr: np.ndarray | None = None

    def add(self, actor, frame: int, local: np.ndarray, ref: ItemRef, lead: bool = True) -> None:
        self.actors.append(actor)
        self.lead.append(lead)
        self.frames.append(frame)
        self.local.append(np.asarray(local, dtype=float))
        self.refs.append(ref)
        self._frames_arr = self._local_arr = None

    def entries(self):
        """``(actor, frame, local, ref, lead)`` of every actor, in order."""
        return zip(self.actors, self.frames, self.local, self.refs, self.lead, strict=True)

    def arrays(self):
        if self._frames_arr is None:
            self._frames_arr = np.asarray(self.frames, dtype=np.intp)
            self._local_arr = np.stack(self.local) if self.local else np.zeros((0, 4, 4))
        return self._frames_arr, self._local_arr


@dataclass
class SegmentActors:
    """What the view draws of one segment: its tree and Articulation, the current world poses of its frames,
    the actor groups by layer, one label per frame (in frame order), and what each item was drawn from
    (``drawn``: ``(kind, name)`` → a signature, so a changed tree rebuilds only what changed)."""

    name: str
    tree: object
    art: object
    poses: np.ndarray  # (nframes, 4, 4) current world_X_frame (the view's own copy)
    layers: dict = field(default_factory=lambda: {layer: ActorGroup() for layer in LAYERS})
    labels: list = field(default_factory=list)  # vtkBillboardTextActor3D per frame, in frame order
    frame_visible: np.ndarray | None = None  # per-frame user toggle
    drawn: dict = field(default_factory=dict)  # ("link" | "inertial" | "joint", name) -> signature
    tokens: dict = field(default_factory=dict)  # link -> the token its pending meshes carry

    def __post_init__(self):
        if self.frame_visible is None:
            self.frame_visible = np.ones(self.art.nframes, dtype=bool)


class ActorRegistry:
    """Every segment's actors and the item of each actor, in the scene renderer or the overlay renderer
    (drawn over the geometry). An actor of a see-through layer keeps its colour's own alpha and is drawn at
    that times ``see_through`` (the robot opacity). ``created`` counts the actors the factory made."""

    def __init__(self, renderer, overlay):
        self.renderer = renderer
        self.overlay = overlay
        self.segments: dict[str, SegmentActors] = {}
        self.by_actor: dict[int, ItemRef] = {}
        # geometry the view's helpers draw outside the segments (parts fixed in the world): actor id ->
        # (actor, ref); counted in the scene's bounds and found by actors_of
        self.extra: dict[int, tuple] = {}
        self.own_opacity: dict[int, float] = {}  # actor id -> its colour's own alpha (see-through layers)
        self.see_through = 1.0  # the robot opacity: see-through layers draw at own alpha × this
        self.created = 0

    # -- making and registering --------------------------------------------------------------------
    def new_actor(self, pd, rgba=None, colors=False, mapper=None, overlay=False, flat=False) -> pv.Actor:
        if mapper is None:
            mapper = vtk.vtkPolyDataMapper()
            mapper.SetInputData(pd)
            color_mapper(mapper, colors)
        actor = pv.Actor(mapper=mapper)
        prop = actor.GetProperty()
        if flat:  # finely tessellated: looks the same, and skips a per-pixel normal
            prop.SetInterpolationToFlat()
        else:
            prop.SetInterpolationToPhong()
        prop.SetSpecular(0.25)
        prop.SetSpecularPower(30.0)
        prop.SetDiffuse(0.85)
        prop.SetAmbient(0.12)
        if rgba is not None:
            prop.SetColor(*rgba[:3])
            if len(rgba) > 3 and rgba[3] < 1.0:
                prop.SetOpacity(float(rgba[3]))
        (self.overlay if overlay else self.renderer).AddActor(actor)
        self.created += 1
        return actor

    def register(self, seg: SegmentActors, layer: str, actor, frame: int, local, ref: ItemRef,
                 lead: bool = True) -> None:
        """Add ``actor`` to ``seg``'s ``layer`` hanging on ``frame`` at ``local``, and place it."""
        seg.layers[layer].add(actor, frame, local, ref, lead)
        self.by_actor[id(actor)] = ref
        if layer in SEE_THROUGH:
            own = actor.GetProperty().GetOpacity()
            self.own_opacity[id(actor)] = own
            if self.see_through < 1.0:
                actor.GetProperty().SetOpacity(own * self.see_through)
        actor.user_matrix = seg.poses[frame] @ local

    def forget(self, actor) -> None:
        """Take ``actor`` out of the renderers and the maps (its group entry is the caller's)."""
        self.renderer.RemoveActor(actor)
        self.overlay.RemoveActor(actor)
        self.by_actor.pop(id(actor), None)
        self.own_opacity.pop(id(actor), None)

    def forget_segment(self, seg: SegmentActors) -> None:
        for group in seg.layers.values():
            for actor in group.actors:
                self.forget(actor)
        for label in seg.labels:
            self.overlay.RemoveActor(label)

    def clear(self) -> None:
        for seg in self.segments.values():
            self.forget_segment(seg)
        self.segments.clear()
        self.by_actor.clear()
        self.own_opacity.clear()

    # -- placing -----------------------------------------------------------------------------------
    @staticmethod
    def place(seg: SegmentActors, group: ActorGroup) -> None:
        if not group.actors:
            return
        frames, local = group.arrays()
        matrices = np.matmul(seg.poses[frames], local)
        for actor, m in zip(group.actors, matrices, strict=True):
            actor.user_matrix = m

    # -- lookups -----------------------------------------------------------------------------------
    def actors_of(self, item: ItemRef) -> list:
        """The actors drawing ``item``: a frame's triad (and its link's geometry when the frame is a link's),
        a joint's axis (and its child link's geometry), a link's geometry."""
        if item.kind in ("part", "magnet"):  # drawn as the link it is grafted as, on whichever segment
            link = graft_link(item.name)
            return [a for name in self.segments for a in self.actors_of(ItemRef(name, "link", link))] + \
                [a for a, ref in self.extra.values() if ref == item]  # or in the world
        seg = self.segments.get(item.segment)
        if seg is None:
            return []
        out = []
        if item.kind == "frame":
            group = seg.layers["frames"]
            out += [a for a, r in zip(group.actors, group.refs, strict=True) if r.name == item.name]
            if item.name in seg.tree.links:
                out += self.actors_of(ItemRef(item.segment, "link", item.name))
            return out
        if item.kind == "joint":
            group = seg.layers["joint_axes"]
            out += [a for a, r in zip(group.actors, group.refs, strict=True) if r.name == item.name]
            joint = seg.tree.joints.get(item.name)
            if joint is not None:
                out += self.actors_of(ItemRef(item.segment, "link", joint.child))
            return out
        if item.kind == "segment":  # a segment's own row: all of its geometry
            return self.geometry_of(seg)
        if item.kind != "link":
            return []
        for layer in GEOMETRY_LAYERS:
            group = seg.layers[layer]
            out += [a for a, r in zip(group.actors, group.refs, strict=True) if r.name == item.name]
        return out

    def geometry_actors(self) -> list:
        return [a for seg in self.segments.values() for layer in GEOMETRY_LAYERS
                for a in seg.layers[layer].actors]

    def scene_bounds(self):
        """Bounds of the geometry layers (shown or not), else of the frame origins, else None."""
        bounds = union_bounds(self.geometry_actors() + [a for a, _ in self.extra.values()])
        if bounds is None:
            pts = [seg.poses[:, :3, 3] for seg in self.segments.values() if seg.art.nframes]
            if not pts:
                return None
            p = np.concatenate(pts)
            lo, hi = p.min(axis=0) - 0.05, p.max(axis=0) + 0.05
            bounds = (lo[0], hi[0], lo[1], hi[1], lo[2], hi[2])
        return bounds

    def geometry_of(self, seg: SegmentActors, links=None) -> list:
        """The geometry actors of ``seg`` (of ``links`` only, when given)."""
        return [a for layer in GEOMETRY_LAYERS
                for a, ref in zip(seg.layers[layer].actors, seg.layers[layer].refs, strict=True)
                if links is None or ref.name in links]


def color_mapper(mapper, colors) -> None:
    """``colors``: False, True (the ``RGBA`` point array of a mesh) or the name of a cell array."""
    if colors is True:
        mapper.SetScalarModeToUsePointFieldData()
        mapper.SelectColorArray("RGBA")
        mapper.SetColorModeToDirectScalars()
        mapper.ScalarVisibilityOn()
    elif colors:
        mapper.SetScalarModeToUseCellFieldData()
        mapper.SelectColorArray(colors)
        mapper.SetColorModeToDirectScalars()
        mapper.ScalarVisibilityOn()
    else:
        mapper.ScalarVisibilityOff()


def diagonal(bounds) -> float:
    """The diagonal of ``bounds`` (1 for None or a point)."""
    if bounds is None:
        return 1.0
    b = bounds
    d = float(np.linalg.norm([b[1] - b[0], b[3] - b[2], b[5] - b[4]]))
    return d if d > 1e-6 else 1.0


def merge_bounds(a, b):
    if a is None or b is None:
        return b if a is None else a
    return tuple(min(a[i], b[i]) if i % 2 == 0 else max(a[i], b[i]) for i in range(6))


def union_bounds(actors):
    """``(xmin, xmax, ymin, ymax, zmin, zmax)`` around the actors that have data, or None."""
    bounds = [a.GetBounds() for a in actors
              if a.GetMapper() is not None and a.GetMapper().GetInput() is not None]
    b = np.array([x for x in bounds if x is not None], dtype=float).reshape(-1, 6)
    b = b[np.all(np.isfinite(b), axis=1) & (b[:, 0] <= b[:, 1])]
    if not len(b):
        return None
    lo, hi = b[:, 0::2].min(axis=0), b[:, 1::2].max(axis=0)
    return (lo[0], hi[0], lo[1], hi[1], lo[2], hi[2])
