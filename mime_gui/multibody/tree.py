"""The canonical, editable description of a robot: links, joints, frames, geometry.

A :class:`MultibodyTree` is what :func:`read_urdf` returns and what the rig model edits (grafting parts adds
links welded by fixed joints). :meth:`MultibodyTree.compile` turns it, once, into the frozen
:class:`~mime_gui.multibody.articulation.Articulation` that every algorithm reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from mime_gui.multibody.report import ReadReport

JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed")


@dataclass
class Inertial:
    """Mass properties of a link: ``link_X_com`` places the centre of mass and the inertia axes."""

    mass: float
    link_X_com: np.ndarray  # (4, 4)
    inertia: np.ndarray  # (3, 3) about the COM, in the COM frame's axes
    line: int = 0
    #: why these mass properties are not physical ("" when they are); such a link blocks the dynamics of the
    #: articulation it belongs to (see ``Articulation.dynamics_errors``), not its kinematics
    error: str = ""


@dataclass
class Box:
    size: tuple[float, float, float]


@dataclass
class Cylinder:
    radius: float
    length: float


@dataclass
class Sphere:
    radius: float


@dataclass
class Capsule:
    """A cylinder of ``length`` between the centres of two hemispherical caps of ``radius``, along z and
    centred on the origin (the convention of SDF, Drake and PyBullet): ``length + 2 radius`` end to end."""

    radius: float
    length: float


@dataclass
class Solid:
    """A rig part's solid of a kind no URDF element reads as (a ring, an arc), as its triangles:
    ``vertices (n, 3)`` and ``faces (m, 3)`` about the shape's origin, wound outward; ``kind`` its
    geometry kind and ``text`` how it reads in a view."""

    kind: str
    text: str
    vertices: np.ndarray
    faces: np.ndarray


@dataclass
class UnknownGeometry:
    """A shape that cannot be drawn (a kind the reader does not know, or a defective shape): the view shows
    a marked placeholder, and the read report holds an error saying why."""

    kind: str
    reason: str = ""


@dataclass
class Mesh:
    uri: str
    scale: tuple[float, float, float] = (1.0, 1.0, 1.0)
    filename: str | None = None  # resolved absolute path, None when it could not be found
    tried: tuple[str, ...] = ()  # every path tried while resolving


Geometry = Box | Cylinder | Sphere | Capsule | Mesh | Solid | UnknownGeometry


@dataclass
class Shape:
    """A visual or collision element of a link, placed by ``link_X_shape``."""

    geometry: Geometry
    link_X_shape: np.ndarray
    rgba: tuple[float, float, float, float] | None = None
    material: str | None = None
    name: str | None = None
    line: int = 0


@dataclass
class Link:
    name: str
    inertial: Inertial | None = None
    visuals: list[Shape] = field(default_factory=list)
    collisions: list[Shape] = field(default_factory=list)
    line: int = 0


@dataclass
class Limit:
    lower: float
    upper: float
    effort: float = np.inf
    velocity: float = np.inf


@dataclass
class Mimic:
    """The joint follows ``joint``: ``q = multiplier * q_joint + offset``."""

    joint: str
    multiplier: float = 1.0
    offset: float = 0.0
    line: int = 0


@dataclass
class Joint:
    """A joint placed by ``parent_X_joint``; the child link's frame is the joint frame."""

    name: str
    type: str  # one of JOINT_TYPES
    parent: str
    child: str
    parent_X_joint: np.ndarray
    axis: np.ndarray = field(default_factory=lambda: np.array([1.0, 0.0, 0.0]))
    limit: Limit | None = None
    damping: float = 0.0
    friction: float = 0.0
    armature: float = 0.0
    mimic: Mimic | None = None
    line: int = 0

    @property
    def movable(self) -> bool:
        return self.type != "fixed"


@dataclass
class Transmission:
    """A simple transmission: one joint driven by one actuator through a reduction.

    ``reduction`` is None when the file's ``<mechanicalReduction>`` is not a usable number; ``error`` then
    says why, and no armature can be reflected through this transmission."""

    name: str
    joint: str
    actuator: str | None
    reduction: float | None = 1.0
    line: int = 0
    error: str = ""


@dataclass
class MultibodyTree:
    name: str
    links: dict[str, Link]
    joints: dict[str, Joint]
    root: str
    source: str = ""
    transmissions: dict[str, Transmission] = field(default_factory=dict)
    report: ReadReport = field(default_factory=ReadReport)
    #: links that stand for mounted rig parts (grafted by the rig model), drawn in a view's "parts" layer
    part_links: set[str] = field(default_factory=set)

    # -- structure ---------------------------------------------------------------------------------
    def child_joints(self, link: str) -> list[Joint]:
        """Joints whose parent is ``link``, in document order."""
        return [j for j in self.joints.values() if j.parent == link]

    def parent_joint(self, link: str) -> Joint | None:
        """The joint whose child is ``link`` (None for the root)."""
        index = self.__dict__.get("_parent_index")
        if index is None or len(index) != len(self.joints):
            index = {j.child: j for j in self.joints.values()}
            self.__dict__["_parent_index"] = index
        return index.get(link)

    def link_order(self) -> list[str]:
        """Links depth-first from the root, children in document order."""
        children: dict[str, list[Joint]] = {}
        for j in self.joints.values():
            children.setdefault(j.parent, []).append(j)
        order: list[str] = []
        stack = [self.root]
        while stack:
            name = stack.pop()
            order.append(name)
            stack.extend(j.child for j in reversed(children.get(name, [])))
        return order

    def movable_joint_names(self) -> list[str]:
        """Movable joints in q order (the order of their child links depth-first)."""
        out = []
        for link in self.link_order():
            j = self.parent_joint(link)
            if j is not None and j.movable:
                out.append(j.name)
        return out

    # -- editing (the rig model grafts parts) ------------------------------------------------------
    def copy(self) -> MultibodyTree:
        """A copy whose tables can grow (grafting adds links and joints) without touching this tree. The
        links, joints and the read report are shared: they are never changed in place once read (but for the
        report's mesh warnings, which the view sets when the description's meshes load, the same for every
        copy), so an edit of a rig copies a 100-link tree in microseconds instead of deep-copying every
        shape."""
        return replace(self, links=dict(self.links), joints=dict(self.joints),
                       transmissions=dict(self.transmissions), part_links=set(self.part_links))

    def add_fixed_link(self, name: str, parent: str, parent_X_link: np.ndarray,
                       inertial: Inertial | None = None) -> Link:
        """Weld a new link to ``parent`` (used to graft rig parts onto a link)."""
        if name in self.links or name in self.joints:
            raise ValueError(f"name {name!r} already exists in {self.name!r}")
        if parent not in self.links:
            raise KeyError(f"unknown link {parent!r}")
        link = Link(name=name, inertial=inertial)
        self.links[name] = link
        self.joints[name] = Joint(name=name, type="fixed", parent=parent, child=name,
                                  parent_X_joint=np.asarray(parent_X_link, dtype=float))
        self.__dict__.pop("_parent_index", None)
        return link

    def compile(self, armature: dict[str, float] | None = None):
        """Freeze into an :class:`Articulation` (optionally with per-joint armature overrides)."""
        from mime_gui.multibody.articulation import compile_tree

        return compile_tree(self, armature=armature)
