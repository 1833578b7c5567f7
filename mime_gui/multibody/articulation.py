"""The frozen arrays every algorithm and node reads.

Bodies are in topological order with ``parent[i] < i``. Body 0 is the root link together with every link
welded to it by fixed joints; it is fixed in the world. Each other body ``i`` is the child of exactly one
movable joint, joint ``i - 1`` in q order, together with the links welded to it. So
``nq == nv == nbodies - 1`` and joint ``j`` moves body ``j + 1``.

Every link name stays addressable as a frame (``frame_names``): a frame is fixed to a body with an offset
``body_X_frame``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from mime_gui.multibody.spatial import spatial_inertia

REVOLUTE = 0
PRISMATIC = 1


def _frozen(a, dtype=float) -> np.ndarray:
    a = np.array(a, dtype=dtype)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class Articulation:
    name: str
    body_names: tuple[str, ...]  # the link that carries each body's frame (body 0: the root link)
    parent: np.ndarray  # (nbodies,) int, parent[0] == -1, parent[i] < i
    joint_names: tuple[str, ...]  # (nq,) movable joints in q order; joint j moves body j + 1
    joint_type: np.ndarray  # (nq,) REVOLUTE or PRISMATIC
    continuous: np.ndarray  # (nq,) bool: revolute with no position limits
    axis: np.ndarray  # (nq, 3) unit axis in the joint (= child body) frame
    parent_X_joint: np.ndarray  # (nq, 4, 4) joint frame in the parent *body* frame at q = 0
    mass_of_body: np.ndarray  # (nbodies,)
    com: np.ndarray  # (nbodies, 3) centre of mass in the body frame
    inertia_com: np.ndarray  # (nbodies, 3, 3) about the COM, body axes
    spatial_inertia: np.ndarray  # (nbodies, 6, 6) [angular; linear] about the body origin
    lower: np.ndarray  # (nq,) -inf for continuous joints
    upper: np.ndarray  # (nq,) +inf for continuous joints
    effort_limit: np.ndarray
    velocity_limit: np.ndarray
    damping: np.ndarray
    friction: np.ndarray
    armature: np.ndarray
    frame_names: tuple[str, ...]
    frame_body: np.ndarray  # (nframes,) int
    body_X_frame: np.ndarray  # (nframes, 4, 4)
    mimic_master: np.ndarray  # (nq,) index of the master joint, -1 when the joint is independent
    mimic_multiplier: np.ndarray
    mimic_offset: np.ndarray
    root_name: str = ""
    #: why the mass properties are not physical (one message per link, naming it and its file:line); when
    #: any, mass, momentum and dynamics refuse with a DynamicsError, kinematics do not
    dynamics_errors: tuple[str, ...] = ()
    _index: dict = field(default=None, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "_index", {
            "frame": {n: i for i, n in enumerate(self.frame_names)},
            "joint": {n: i for i, n in enumerate(self.joint_names)},
            "body": {n: i for i, n in enumerate(self.body_names)},
        })

    # -- sizes -------------------------------------------------------------------------------------
    @property
    def nq(self) -> int:
        return len(self.joint_names)

    @property
    def nv(self) -> int:
        return len(self.joint_names)

    @property
    def nbodies(self) -> int:
        return len(self.body_names)

    @property
    def nframes(self) -> int:
        return len(self.frame_names)

    @property
    def is_mimic(self) -> np.ndarray:
        return self.mimic_master >= 0

    @cached_property
    def kinematics_key(self) -> tuple:
        """Everything but the mass properties, armature, damping and friction: two articulations with equal
        keys have the same names, joints, limits and frames, so the same poses and motions (an edit that
        changes only a part's mass compiles one with the key of the last)."""
        arrays = (self.parent, self.joint_type, self.continuous, self.axis, self.parent_X_joint, self.lower,
                  self.upper, self.effort_limit, self.velocity_limit, self.frame_body, self.body_X_frame,
                  self.mimic_master, self.mimic_multiplier, self.mimic_offset)
        arrays = [np.asarray(a) for a in arrays]  # one made by hand may hold lists
        return (self.name, self.root_name, tuple(self.body_names), tuple(self.joint_names),
                tuple(self.frame_names), *((a.dtype.str, a.shape, a.tobytes()) for a in arrays))

    # -- names -------------------------------------------------------------------------------------
    def frame_index(self, name: str) -> int:
        try:
            return self._index["frame"][name]
        except KeyError:
            raise KeyError(f"unknown frame {name!r} in {self.name!r}; frames: "
                           f"{', '.join(self.frame_names[:12])}{' …' if self.nframes > 12 else ''}") from None

    def joint_index(self, name: str) -> int:
        try:
            return self._index["joint"][name]
        except KeyError:
            raise KeyError(f"unknown joint {name!r} in {self.name!r}; movable joints: "
                           f"{', '.join(self.joint_names)}") from None

    def body_index(self, name: str) -> int:
        """Body of a link name (or of any frame name)."""
        if name in self._index["body"]:
            return self._index["body"][name]
        return int(self.frame_body[self.frame_index(name)])

    def with_armature(self, armature) -> Articulation:
        """A copy with ``armature`` (array of nq, or mapping joint name → value) replacing the current one."""
        values = np.array(self.armature, dtype=float)
        if isinstance(armature, dict):
            for name, value in armature.items():
                values[self.joint_index(name)] = float(value)
        else:
            values = np.asarray(armature, dtype=float).reshape(self.nq)
        return replace(self, armature=_frozen(values))


def _mimic_roots(joints) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Master index, multiplier and offset of every joint, chains of mimics folded onto their independent
    joint (``a = m1 b + o1``, ``b = m2 c + o2`` gives ``a = m1 m2 c + m1 o2 + o1``). Each joint is folded
    once (the walk up a chain stops at a joint already folded), so this is O(n) however mimics chain."""
    nq = len(joints)
    qindex = {j.name: i for i, j in enumerate(joints)}
    master = np.full(nq, -1, dtype=int)
    mult = np.ones(nq)
    off = np.zeros(nq)
    done = np.zeros(nq, dtype=bool)
    for i, j in enumerate(joints):
        if done[i]:
            continue
        path: list[int] = []
        on_path: set[int] = set()
        k = i
        while joints[k].mimic is not None and not done[k]:
            name = joints[k].mimic.joint
            if k in on_path or name not in qindex:
                raise ValueError(f"joint {j.name!r}: the mimic chain through {name!r} does not end at an "
                                 "independent movable joint")
            on_path.add(k)
            path.append(k)
            k = qindex[name]
        if done[k] and master[k] >= 0:
            root, m, o = int(master[k]), float(mult[k]), float(off[k])
        else:
            root, m, o = k, 1.0, 0.0
        done[k] = True
        for f in reversed(path):
            mimic = joints[f].mimic
            m, o = mimic.multiplier * m, mimic.multiplier * o + mimic.offset
            master[f], mult[f], off[f], done[f] = root, m, o, True
    return master, mult, off


def compile_tree(tree, armature: dict[str, float] | None = None) -> Articulation:
    """Build the Articulation of a :class:`MultibodyTree` (see the module docstring for the layout).

    Links welded by fixed joints are merged into the body of their nearest movable ancestor (their inertias
    added about the body origin); every link stays a frame of its body. A chain of mimic joints is folded onto
    its independent joint.
    """
    order = tree.link_order()
    parent_of = {j.child: j for j in tree.joints.values()}
    body_of_link: dict[str, int] = {}
    body_X_link: dict[str, np.ndarray | None] = {}  # None: the identity (a body's own link)
    body_names: list[str] = []
    parent: list[int] = []
    joints = []
    parent_X_joint = []
    for link in order:
        joint = parent_of.get(link)
        if joint is None:
            body_of_link[link] = 0
            body_X_link[link] = None
            body_names.append(link)
            parent.append(-1)
        elif joint.movable:
            body_of_link[link] = len(body_names)
            body_X_link[link] = None
            body_names.append(link)
            parent.append(body_of_link[joint.parent])
            joints.append(joint)
            up = body_X_link[joint.parent]
            parent_X_joint.append(joint.parent_X_joint if up is None else up @ joint.parent_X_joint)
        else:
            body_of_link[link] = body_of_link[joint.parent]
            up = body_X_link[joint.parent]
            body_X_link[link] = joint.parent_X_joint if up is None else up @ joint.parent_X_joint

    nb = len(body_names)
    eye4 = np.eye(4)
    # mass properties of every link with an inertial, then summed per body about the body origin
    inertials = [(body_of_link[n], body_X_link[n], tree.links[n].inertial) for n in order
                 if tree.links[n].inertial is not None]
    mass = np.zeros(nb)
    com = np.zeros((nb, 3))
    inertia_com = np.zeros((nb, 3, 3))
    if inertials:
        b = np.array([i[0] for i in inertials], dtype=int)
        X = (np.array([eye4 if i[1] is None else i[1] for i in inertials])
             @ np.array([i[2].link_X_com for i in inertials], dtype=float))
        m = np.array([i[2].mass for i in inertials], dtype=float)
        I = np.array([i[2].inertia for i in inertials], dtype=float)
        R, c = X[:, :3, :3], X[:, :3, 3]
        cc = np.einsum("ni,ni->n", c, c)
        # inertia about the body origin: R I R^T + m (|c|^2 E - c c^T)
        second_k = (np.einsum("nij,njk,nlk->nil", R, I, R)
                    + m[:, None, None] * (cc[:, None, None] * np.eye(3) - np.einsum("ni,nj->nij", c, c)))
        first = np.zeros((nb, 3))
        second = np.zeros((nb, 3, 3))
        np.add.at(mass, b, m)
        np.add.at(first, b, m[:, None] * c)
        np.add.at(second, b, second_k)
        has = mass > 0
        com[has] = first[has] / mass[has, None]
        cc = np.einsum("ni,ni->n", com, com)
        inertia_com = second - mass[:, None, None] * (cc[:, None, None] * np.eye(3)
                                                     - np.einsum("ni,nj->nij", com, com))
    spatial = spatial_inertia(mass, com, inertia_com)  # [angular; linear] about the body origin

    names = [j.name for j in joints]
    qindex = {n: i for i, n in enumerate(names)}
    nq = len(joints)
    arm = np.array([j.armature for j in joints], dtype=float).reshape(nq)
    for name, value in (armature or {}).items():
        if name not in qindex:
            raise KeyError(f"unknown joint {name!r} for armature; movable joints: {', '.join(names)}")
        arm[qindex[name]] = float(value)
    mimic_master, mimic_mult, mimic_off = _mimic_roots(joints)
    inf = np.inf
    limits = np.array([(j.limit.lower, j.limit.upper, j.limit.effort, j.limit.velocity) if j.limit is not None
                       else (-inf, inf, inf, inf) for j in joints], dtype=float).reshape(nq, 4)

    return Articulation(
        name=tree.name,
        body_names=tuple(body_names),
        parent=_frozen(parent, int),
        joint_names=tuple(names),
        joint_type=_frozen([PRISMATIC if j.type == "prismatic" else REVOLUTE for j in joints],
                           int).reshape(nq),
        continuous=_frozen([j.type == "continuous" for j in joints], bool).reshape(nq),
        axis=_frozen([j.axis for j in joints]).reshape(nq, 3),
        parent_X_joint=_frozen(parent_X_joint).reshape(nq, 4, 4),
        mass_of_body=_frozen(mass),
        com=_frozen(com),
        inertia_com=_frozen(inertia_com),
        spatial_inertia=_frozen(spatial),
        lower=_frozen(limits[:, 0]),
        upper=_frozen(limits[:, 1]),
        effort_limit=_frozen(limits[:, 2]),
        velocity_limit=_frozen(limits[:, 3]),
        damping=_frozen([j.damping for j in joints]).reshape(nq),
        friction=_frozen([j.friction for j in joints]).reshape(nq),
        armature=_frozen(arm),
        frame_names=tuple(order),
        frame_body=_frozen([body_of_link[n] for n in order], int),
        body_X_frame=_frozen([eye4 if body_X_link[n] is None else body_X_link[n] for n in order]
                             ).reshape(len(order), 4, 4),
        mimic_master=_frozen(mimic_master, int),
        mimic_multiplier=_frozen(mimic_mult),
        mimic_offset=_frozen(mimic_off),
        root_name=tree.root,
        dynamics_errors=tuple(tree.links[n].inertial.error for n in order
                              if tree.links[n].inertial is not None and tree.links[n].inertial.error),
    )
