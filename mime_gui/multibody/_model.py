"""Per-Articulation constants the algorithms read, computed once and cached on the Articulation object.

The algorithms work in *axis frames*: body ``i``'s axis frame ``world_X_axis[i] = world_X_body[i] @ A_i``
has the same origin as the body frame and its z axis along the body's joint axis (``A_0`` is the identity).
With it, a joint's motion is a rotation about (or a translation along) z, so

    world_X_axis[i] = world_X_axis[parent] @ parent_axis_X_axis0[i] @ Z(q_i)

with a constant ``parent_axis_X_axis0`` and ``Z`` touching two columns only. Frames are read off with a
constant ``axis_X_frame``. Inertias are kept in axis frames too.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from mime_gui.multibody.articulation import PRISMATIC, Articulation
from mime_gui.multibody.spatial import skew, spatial_inertia

_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _axis_rotations(axes) -> np.ndarray:
    """``(n, 3, 3)`` rotations whose third columns are the unit vectors along ``axes (n, 3)`` (one
    vectorised pass: a Python loop here cost 180 µs a joint)."""
    z = np.asarray(axes, dtype=float).reshape(-1, 3)
    z = z / np.linalg.norm(z, axis=1, keepdims=True)
    helper = np.zeros_like(z)
    near_x = np.abs(z[:, 0]) < 0.9
    helper[near_x, 0] = 1.0
    helper[~near_x, 1] = 1.0
    x = np.cross(helper, z)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    y = np.cross(z, x)
    return np.stack([x, y, z], axis=-1)


@dataclass(frozen=True, eq=False)
class Model:
    nb: int
    nq: int
    parent: np.ndarray  # (nb,)
    prismatic: np.ndarray  # (nq,) bool
    revolute: np.ndarray  # (nq,) bool
    any_prismatic: bool
    revolute_index: np.ndarray  # joints that rotate
    prismatic_index: np.ndarray  # joints that slide
    joint_slot: np.ndarray  # (nq,) position of each joint in revolute_index or prismatic_index
    A: np.ndarray  # (nb, 3, 3) body_R_axis
    parent_axis_X_axis0: np.ndarray  # (nq, 4, 4), row j for body j + 1
    parent_axis_c01: np.ndarray  # (nq, 4) complex: column 0 + i column 1 of parent_axis_X_axis0
    parent_list: list
    axis_X_body: np.ndarray  # (nb, 4, 4)
    axis_X_frame: np.ndarray  # (nframes, 4, 4)
    frame_body: np.ndarray  # (nframes,)
    mass: np.ndarray  # (nb,) with mass[0] = 0 (root excluded)
    com: np.ndarray  # (nb, 3) in axis frames
    inertia_com: np.ndarray  # (nb, 3, 3) about the COM, axis-frame axes
    depth_order: tuple  # tuple of (bodies, parents) per tree level, root excluded
    batch_constants: BatchConstants
    mass_or_one: np.ndarray  # (nb,) mass, with 1 where it is 0 (safe divisor)
    mass_eye: np.ndarray  # (nb, 3, 3) mass * identity

    # The dense (nb, nb) relations below are what the vectorised dynamics read. They are built on first use,
    # so kinematics (poses, angular velocities) never pays their O(nb²) memory and time: 10,000 bodies would
    # need 800 MB for each.
    @cached_property
    def ancestor(self) -> np.ndarray:
        """``(nb, nb)`` float: ``ancestor[b, k] = 1`` when body ``k`` is ``b`` or an ancestor of ``b``."""
        a = np.zeros((self.nb, self.nb))
        parent = self.parent_list
        for b in range(self.nb):  # parent[b] < b: its row is ready, one row copy per body
            if b:
                a[b] = a[parent[b]]
            a[b, b] = 1.0
        a.setflags(write=False)
        return a

    @cached_property
    def joint_ancestor(self) -> np.ndarray:
        """``(nb, nq)``: body ``b`` is moved by joint ``j``."""
        a = np.ascontiguousarray(self.ancestor[:, 1:])
        a.setflags(write=False)
        return a

    @cached_property
    def joint_joint(self) -> np.ndarray:
        """``(nq, nq)`` bool: joint ``k``'s body is ``j``'s body or an ancestor of it (``k <= j``)."""
        a = self.ancestor[1:, 1:].astype(bool)
        a.setflags(write=False)
        return a

    @cached_property
    def subtree(self) -> np.ndarray:
        """``(nb, nb)`` float: ``subtree[b, k] = 1`` when body ``k`` is in the subtree of ``b``."""
        a = np.ascontiguousarray(self.ancestor.T)
        a.setflags(write=False)
        return a


@dataclass(frozen=True, eq=False)
class BatchConstants:
    """Constant 6x6 operators of the compiled articulated-body algorithm (spatial vectors
    [angular; linear])."""

    X: np.ndarray  # (nq, 6, 6) the motion transform child-axis(q=0) <- parent-axis
    I: np.ndarray  # (nb, 6, 6) each body's spatial inertia in its axis frame  # noqa: E741


def _batch_constants(pxa, mass, com, inertia_com) -> BatchConstants:
    nq = len(pxa)
    Rt = np.swapaxes(pxa[:, :3, :3], 1, 2)
    X = np.zeros((nq, 6, 6))
    X[:, :3, :3] = Rt
    X[:, 3:, 3:] = Rt
    X[:, 3:, :3] = -Rt @ skew(pxa[:, :3, 3])
    inertia = np.ascontiguousarray(spatial_inertia(mass, com, inertia_com))
    for a in (X, inertia):
        a.setflags(write=False)
    return BatchConstants(X=X, I=inertia)


def dynamic_model(art: Articulation) -> Model:
    """:func:`model` for an algorithm that reads mass properties; raises
    :class:`~mime_gui.multibody.errors.DynamicsError` when a link of the articulation has non-physical ones
    (``art.dynamics_errors``), so no mass, momentum or dynamics is computed from them."""
    if art.dynamics_errors:
        from mime_gui.multibody.errors import DynamicsError

        first, more = art.dynamics_errors[0], len(art.dynamics_errors) - 1
        raise DynamicsError("dynamics.nonphysical", f"the mass properties of {art.name!r} are not physical, "
                            f"so its mass, momentum and dynamics are not computed: {first}"
                            + (f" (and {more} more)" if more else "") + "; fix the description (its "
                            "kinematics are available)")
    return model(art)


def model(art: Articulation) -> Model:
    """The cached :class:`Model` of ``art`` (computed on first use)."""
    m = _CACHE.get(art)
    if m is None:
        m = _build(art)
        _CACHE[art] = m
    return m


# The kinematic constants of the last few articulation structures, keyed by the arrays they are computed
# from: an edit that changes a part's mass compiles a new Articulation of the same structure, and its Model
# then computes only what the masses give.
_KINEMATIC: OrderedDict = OrderedDict()
_KINEMATIC_SIZE = 8
# a larger articulation's constants cost more to keep than to compute (its own work dominates)
_KINEMATIC_MAX_BODIES = 1024
_KINEMATIC_LOCK = threading.Lock()


def _kinematic(art: Articulation) -> dict:
    """The Model's fields that the joints and frames alone give (cached by structure, see above)."""
    if art.nbodies > _KINEMATIC_MAX_BODIES:
        return _kinematic_fields(art)
    key = art.kinematics_key
    with _KINEMATIC_LOCK:  # models are made on worker threads too (sweeps, the field's workers)
        fields = _KINEMATIC.get(key)
        if fields is not None:
            _KINEMATIC.move_to_end(key)
            return fields
    fields = _kinematic_fields(art)
    with _KINEMATIC_LOCK:
        _KINEMATIC[key] = fields
        if len(_KINEMATIC) > _KINEMATIC_SIZE:
            _KINEMATIC.popitem(last=False)
    return fields


def _kinematic_fields(art: Articulation) -> dict:
    nb, nq = art.nbodies, art.nq
    parent = np.asarray(art.parent, dtype=np.intp)
    prismatic = np.asarray(art.joint_type) == PRISMATIC
    A = np.empty((nb, 3, 3))
    A[0] = np.eye(3)
    A[1:] = _axis_rotations(art.axis)
    axis_X_body = np.zeros((nb, 4, 4))
    axis_X_body[:, :3, :3] = np.swapaxes(A, 1, 2)
    axis_X_body[:, 3, 3] = 1.0
    body_X_axis = np.zeros((nb, 4, 4))
    body_X_axis[:, :3, :3] = A
    body_X_axis[:, 3, 3] = 1.0
    pxa = axis_X_body[parent[1:]] @ art.parent_X_joint @ body_X_axis[1:]
    frame_body = np.asarray(art.frame_body, dtype=np.intp)
    axis_X_frame = axis_X_body[frame_body] @ art.body_X_frame

    depth = [0] * nb
    parents = parent.tolist()
    for b in range(1, nb):
        depth[b] = depth[parents[b]] + 1
    depth = np.array(depth, dtype=int)
    # the bodies of each level, in order: one stable sort, not one scan of every body per level
    order = np.argsort(depth[1:], kind="stable") + 1
    bounds = np.flatnonzero(np.diff(depth[order])) + 1
    levels = [(bodies, parent[bodies]) for bodies in np.split(order, bounds)] if nb > 1 else []

    rev_idx = np.flatnonzero(~prismatic)
    pri_idx = np.flatnonzero(prismatic)
    slot = np.zeros(nq, dtype=np.intp)
    slot[rev_idx] = np.arange(len(rev_idx))
    slot[pri_idx] = np.arange(len(pri_idx))
    c01 = pxa[:, :, 0] + 1j * pxa[:, :, 1]
    for a in (rev_idx, pri_idx, slot, parent, prismatic, A, pxa, axis_X_body, axis_X_frame, frame_body, c01):
        a.setflags(write=False)
    return dict(
        nb=nb, nq=nq, parent=parent, parent_list=[int(p) for p in parent],
        parent_axis_c01=c01, prismatic=prismatic, revolute=~prismatic,
        any_prismatic=bool(prismatic.any()), revolute_index=rev_idx, prismatic_index=pri_idx,
        joint_slot=slot, A=A, parent_axis_X_axis0=pxa, axis_X_body=axis_X_body,
        axis_X_frame=axis_X_frame, frame_body=frame_body, depth_order=tuple(levels),
    )


def _build(art: Articulation) -> Model:
    kin = _kinematic(art)
    A = kin["A"]
    mass = np.array(art.mass_of_body, dtype=float)
    mass[0] = 0.0
    At = np.swapaxes(A, 1, 2)
    com = np.einsum("bji,bj->bi", A, art.com)  # A^T c
    inertia_com = At @ art.inertia_com @ A
    inertia_com[0] = 0.0
    com[0] = 0.0
    for a in (mass, com, inertia_com):
        a.setflags(write=False)
    return Model(
        **kin, mass=mass, com=com, inertia_com=inertia_com,
        batch_constants=_batch_constants(kin["parent_axis_X_axis0"], mass, com, inertia_com),
        mass_or_one=np.where(mass > 0, mass, 1.0), mass_eye=mass[:, None, None] * np.eye(3),
    )
