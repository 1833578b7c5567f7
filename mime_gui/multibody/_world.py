"""World-frame quantities shared by the dynamics, Jacobian and momentum algorithms.

Everything here is vectorised over bodies and over any leading batch dimensions of q. Spatial vectors are
``[angular; linear]`` in world axes, taken about the world origin (RigidBodyDynamics.jl's root-frame
convention), so a body's twist is the sum of its ancestors' joint twists and a subtree's inertia is the sum of
its bodies' inertias.
"""

from __future__ import annotations

import numpy as np

from mime_gui.multibody._model import Model
from mime_gui.multibody.articulation import Articulation
from mime_gui.multibody.kinematics import axis_frames
from mime_gui.multibody.spatial import skew


class _Bilinear:
    """A bilinear product of two vectors over the last axis, written as gathers, one product and one small
    matrix product: ``out = (a[..., ia] * b[..., ib]) @ C`` (fewer numpy calls than component arithmetic)."""

    def __init__(self, blocks, size):
        ia, ib, rows, sign = [], [], [], []
        for out_off, a_off, b_off in blocks:
            for i in range(3):
                for aa, bb, sg in (((i + 1) % 3, (i + 2) % 3, 1.0), ((i + 2) % 3, (i + 1) % 3, -1.0)):
                    ia.append(a_off + aa)
                    ib.append(b_off + bb)
                    rows.append(out_off + i)
                    sign.append(sg)
        self.ia = np.array(ia)
        self.ib = np.array(ib)
        self.C = np.zeros((len(ia), size))
        self.C[np.arange(len(ia)), rows] = sign

    def __call__(self, a, b):
        return (a[..., self.ia] * b[..., self.ib]) @ self.C


#: ``a x b`` of 3-vectors
cross = _Bilinear([(0, 0, 0)], 3)
#: spatial motion cross product ``V x X`` of 6-vectors ``[angular; linear]``
motion_cross = _Bilinear([(0, 0, 0), (3, 0, 3), (3, 3, 0)], 6)
#: spatial force cross product ``V x* h``
force_cross = _Bilinear([(0, 0, 0), (0, 3, 3), (3, 0, 3)], 6)


def tree_sum(matrix: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``matrix @ x`` over the body axis ``-2`` of ``x (..., k, d)``: ``(..., rows, d)``."""
    if x.ndim == 2:
        return matrix @ x
    return np.moveaxis(np.tensordot(matrix, x, axes=([1], [x.ndim - 2])), 0, -2)


def motion_subspaces(m: Model, F: np.ndarray) -> np.ndarray:
    """Unit twists of every joint, world axes about the world origin: ``(..., nq, 6)``.

    A revolute joint's axis passes through its body's origin: ``[z; o x z]``; a prismatic one is ``[0; z]``.
    """
    z = F[..., 1:, :3, 2]
    o = F[..., 1:, :3, 3]
    S = np.empty((*z.shape[:-1], 6))
    if m.any_prismatic:
        S[..., :3] = z * m.revolute[:, None]
        S[..., 3:] = np.where(m.revolute[:, None], cross(o, z), z)
    else:
        S[..., :3] = z
        S[..., 3:] = cross(o, z)
    return S


def spatial_inertias(m: Model, F: np.ndarray) -> np.ndarray:
    """World spatial inertia of every body about the world origin: ``(..., nb, 6, 6)`` (body 0: zero)."""
    R = F[..., :3, :3]
    c = (R @ m.com[:, :, None])[..., 0] + F[..., :3, 3]
    mC = skew(c) * m.mass[:, None, None]
    out = np.empty((*c.shape[:-1], 6, 6))
    # [[Ic + m C C^T, m C], [m C^T, m 1]] with Ic = R Ic' R^T about the COM
    out[..., :3, :3] = R @ m.inertia_com @ np.swapaxes(R, -1, -2) - (mC @ mC) / m.mass_or_one[:, None, None]
    out[..., :3, 3:] = mC
    out[..., 3:, :3] = np.swapaxes(mC, -1, -2)
    out[..., 3:, 3:] = m.mass_eye
    return out


def external_wrench_array(art: Articulation, external_wrenches, batch: tuple) -> np.ndarray | None:
    """``{body or link name: (torque, force)}`` (world axes, about the world origin) as ``(..., nb, 6)``."""
    if external_wrenches is None:
        return None
    if not hasattr(external_wrenches, "items"):
        raise ValueError("external_wrenches must be a mapping of body or link name to (torque, force), "
                         f"got {type(external_wrenches).__name__}")
    out = np.zeros((*batch, art.nbodies, 6))
    for name, wrench in external_wrenches.items():
        try:
            b = art.body_index(name)
        except KeyError as e:
            raise KeyError(f"external_wrenches: {e.args[0]}") from None
        try:
            torque, force = wrench
            torque = np.asarray(torque, dtype=float)
            force = np.asarray(force, dtype=float)
            out[..., b, :3] += torque
            out[..., b, 3:] += force
        except (TypeError, ValueError):
            raise ValueError(f"external_wrenches[{name!r}] must be a pair (torque, force) of 3-vectors "
                             f"broadcastable to the batch {batch}") from None
        if torque.shape[-1:] != (3,) or force.shape[-1:] != (3,):
            raise ValueError(f"external_wrenches[{name!r}] must be a pair (torque, force) of 3-vectors, "
                             f"got shapes {torque.shape} and {force.shape}")
        if not (np.isfinite(torque).all() and np.isfinite(force).all()):
            raise ValueError(f"external_wrenches[{name!r}] holds non-finite values")
    return out


def check_gravity(gravity) -> np.ndarray:
    try:
        g = np.asarray(gravity, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("gravity must be a 3-vector of numbers (world axes, m/s^2)") from None
    if g.shape != (3,) or not np.isfinite(g).all():
        raise ValueError(f"gravity must be a finite 3-vector (world axes, m/s^2), got {g!r}")
    return g


class WorldState:
    """Poses, joint twists and inertias of one configuration batch, computed once and shared."""

    def __init__(self, m: Model, q: np.ndarray):
        self.m = m
        self.F = axis_frames(m, q)
        self.S = motion_subspaces(m, self.F)
        self._I = None

    @property
    def inertias(self) -> np.ndarray:
        if self._I is None:
            self._I = spatial_inertias(self.m, self.F)
        return self._I

    def body_twists(self, v: np.ndarray) -> np.ndarray:
        """Twist of every body ``(..., nb, 6)`` from joint velocities ``v (..., nq)``."""
        return tree_sum(self.m.joint_ancestor, self.S * v[..., None])

    def composite_columns(self) -> np.ndarray:
        """``U_j = I^c_{body(j)} S_j``: ``(..., nq, 6)``, the subtree inertia of each joint's body times its
        unit twist (the columns of the momentum matrix)."""
        Ic = tree_sum(self.m.subtree, self.inertias.reshape(*self.inertias.shape[:-2], 36))
        Ic = Ic.reshape(*Ic.shape[:-1], 6, 6)[..., 1:, :, :]
        return (Ic @ self.S[..., None])[..., 0]
