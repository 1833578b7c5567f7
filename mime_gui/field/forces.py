"""The field's gradient, and the force and torque it puts on a small magnetic sample.

**Gradient.** ``G[i, j] = ∂B_i/∂x_j`` (T/m, world axes) by central differences of Magpylib's B, which gives
no gradient of its own: ``G[:, j] = (B(p + h e_j) − B(p − h e_j)) / 2h``. The step is relative to how far
the point is from the magnets: ``h = STEP_RATIO · s`` with ``s`` the distance from the point to the nearest
magnet's bounding sphere (centred on its centroid), floored at ``SURFACE_FLOOR`` of that sphere's radius for
a point inside it. Outside the magnets B is harmonic, so its derivatives over a distance ``s`` from every
source are bounded by those of a point dipole at that distance; for a dipole the truncation error of the
central difference is at most ``(10/3)(h/s)²`` of the gradient (``h²/6 · |∂³B|`` against ``|∂B|``: the
third derivative of ``r⁻³`` is 20/r² of the first), so ``STEP_RATIO = 3e-4`` bounds it by 3e-7 relative.
Magpylib's B carries rounding of about 1e-11 relative for a cylinder or a ring (its elliptic integrals;
1e-15 for a box), which the difference turns into ``1e-11 · s / h ≈ 3e-8``: a smaller step would lose more
to rounding than it gains. Together the gradient is within ``GRADIENT_BOUND = 1e-6`` of its norm (measured:
4e-7 on boxes, cylinders and rings, 200 points from 1.2 to 10 sizes away).
Within ``h`` of a surface the difference spans it and means nothing (as B on the surface itself).

All magnets, steps and points go into one Magpylib call per chunk (each point and its six neighbours are
sensors with a path of ``T`` positions, as in :func:`~mime_gui.field.along.field_along`): no Python loop
over steps or magnets.

**Force and torque on a dipole** of moment ``m`` (A·m², world axes): the energy is ``U = −m·B``, so
``F = ∇(m·B)``, ``F_j = Σ_i m_i ∂B_i/∂x_j = (Gᵀ m)_j`` (``G`` is symmetric in free space, where ``∇×B = 0``,
so ``G m`` is the same number), and ``τ = m × B``.

**A sample with a shape**: :func:`magnet_wrench` goes through Magpylib's ``getFT``, which cuts the target
into cells, each a dipole with the same central differences (its step ``eps`` absolute, here
``GETFT_EPS_RATIO`` of the target's size). A sphere is exact there (a uniformly magnetised ball in a
harmonic field feels exactly the dipole force of its moment at its centre).
"""

from __future__ import annotations

import numpy as np

from mime_gui.field.along import CALL_OVERHEAD, CHUNK_TRIPLES, SCRATCH_PER_TRIPLE, field_at
from mime_gui.field.sources import MagnetSource
from mime_gui.rig.magnet_pull import dipole_dipole
from mime_gui.rig.magnet_sources import bounding_radius

#: the central difference's step over the distance to the nearest magnet's bounding sphere
STEP_RATIO = 3e-4
#: a point inside a magnet's bounding sphere takes this share of the sphere's radius as its distance
SURFACE_FLOOR = 1e-2
#: the truncation bound of the central difference for a dipole field, relative to the gradient
TRUNCATION_BOUND = 10.0 / 3.0 * STEP_RATIO**2
#: the gradient's error bound relative to its (Frobenius) norm: truncation and Magpylib's rounding
GRADIENT_BOUND = 1e-6
#: getFT's finite-difference step over the target's largest extent (Magpylib advises 1e-5 of the size)
GETFT_EPS_RATIO = 1e-5
#: the offsets of a point's six neighbours, in steps: +x, −x, +y, −y, +z, −z
_STENCIL = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], dtype=float)


def difference_steps(world_X_magnets: np.ndarray, radii: np.ndarray, points: np.ndarray) -> np.ndarray:
    """The step ``h (T, P)`` (m) at ``points (T, P, 3)`` with the magnets' centroids at ``world_X_magnets
    (T, M, 4, 4)`` and bounding ``radii (M,)``: ``STEP_RATIO`` of the distance to the nearest bounding
    sphere (``SURFACE_FLOOR`` of its radius inside it)."""
    T, P = points.shape[:2]
    if world_X_magnets.shape[1] == 0:
        return np.full((T, P), STEP_RATIO)
    centres = world_X_magnets[:, :, :3, 3]  # (T, M, 3)
    reach = np.linalg.norm(points[:, :, None, :] - centres[:, None, :, :], axis=-1) - radii  # (T, P, M)
    reach = np.maximum(reach, SURFACE_FLOOR * np.maximum(radii, 1e-12))
    return STEP_RATIO * reach.min(axis=-1)


def _chunks(steps: int, magnets: int, points: int) -> tuple[int, int]:
    """(steps, points) per Magpylib call, each point counting seven evaluations."""
    per_step = max(7 * magnets * points, 1)
    if per_step <= CHUNK_TRIPLES:
        return max(1, min(steps, CHUNK_TRIPLES // per_step)), max(points, 1)
    return 1, max(1, CHUNK_TRIPLES // max(7 * magnets, 1))


def gradient_bytes(steps: int, magnets: int, points: int) -> int:
    """About the most memory :func:`gradient_at` holds: per step and point its B, gradient, step and
    neighbours; per step and magnet its pose; one Magpylib call's scratch."""
    per_step = 8 * (points * (3 + 9 + 1 + 7 * 3 + magnets) + 16 * magnets)
    n, k = _chunks(steps, magnets, points)
    call = min(steps, n) * 7 * magnets * min(points, k)
    return steps * per_step + SCRATCH_PER_TRIPLE * call + CALL_OVERHEAD


def gradient_at(magnets: list[MagnetSource], world_X_magnets: np.ndarray, points: np.ndarray,
                radii: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """B ``(T, P, 3)`` T, its gradient ``G (T, P, 3, 3)`` T/m with ``G[..., i, j] = ∂B_i/∂x_j`` and the
    steps ``h (T, P)`` m, at ``points (T, P, 3)``, summed over ``magnets`` at ``world_X_magnets
    (T, M, 4, 4)``. ``radii`` are the magnets' bounding radii (computed when not given)."""
    points = np.asarray(points, dtype=float)
    T, P = points.shape[:2]
    M = len(magnets)
    if radii is None:
        radii = np.array([bounding_radius(m) for m in magnets])
    B = np.zeros((T, P, 3))
    G = np.zeros((T, P, 3, 3))
    h = difference_steps(world_X_magnets, np.asarray(radii, dtype=float), points)
    if T == 0 or P == 0 or M == 0:
        return B, G, h
    n, k = _chunks(T, M, P)
    for s in range(0, T, n):
        for q in range(0, P, k):
            p = points[s:s + n, q:q + k]  # (t, p, 3)
            step = h[s:s + n, q:q + k]
            near = p[:, :, None, :] + step[:, :, None, None] * _STENCIL  # (t, p, 6, 3)
            where = np.concatenate([p[:, :, None, :], near], axis=2).reshape(len(p), -1, 3)
            field = field_at(magnets, world_X_magnets[s:s + n], where).sum(axis=1)
            field = field.reshape(len(p), p.shape[1], 7, 3)
            B[s:s + n, q:q + k] = field[:, :, 0]
            # column j: (B(+h e_j) − B(−h e_j)) / 2h
            diff = (field[:, :, 1::2] - field[:, :, 2::2]) / (2.0 * step[:, :, None, None])  # (t, p, j, i)
            G[s:s + n, q:q + k] = np.swapaxes(diff, -1, -2)
    return B, G, h


def dipole_wrench(B: np.ndarray, G: np.ndarray, moment: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Force ``F = Gᵀ m`` (N) and torque ``τ = m × B`` (N·m) on dipoles of moment ``m (..., 3)`` A·m² in
    a field ``B (..., 3)`` T with gradient ``G (..., 3, 3)`` T/m (``G[i, j] = ∂B_i/∂x_j``)."""
    moment = np.asarray(moment, dtype=float)
    force = np.einsum("...ij,...i->...j", G, moment)
    return force, np.cross(moment, B)


def magnet_wrench(sources: list, target, meshing: int | tuple | None = None, pivot=None,
                  eps: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Force ``(T, 3)`` N and torque ``(T, 3)`` N·m on the Magpylib magnet ``target`` from ``sources``
    (each placed, with paths of ``T`` steps or one), by Magpylib's ``getFT``; the torque is about
    ``pivot`` (default the target's centroid). ``meshing`` cuts the target into cells (ignored for a
    sphere, which is exact); ``eps`` defaults to ``GETFT_EPS_RATIO`` of the target's largest extent."""
    import magpylib as magpy

    exact = type(target).__name__ in ("Sphere", "Dipole")
    if eps is None:
        eps = GETFT_EPS_RATIO * _extent(target)
    F, tau = magpy.getFT(list(sources), [target], pivot="centroid" if pivot is None else pivot,
                         eps=float(eps), squeeze=False, meshing=None if exact else (meshing or 64))
    return F.sum(axis=0)[:, 0], tau.sum(axis=0)[:, 0]


def _extent(target) -> float:
    if type(target).__name__ == "CylinderSegment":  # (r1, r2, h, φ1, φ2): the angles are not lengths
        r2, h = target.dimension[1], target.dimension[2]
        return float(max(2 * r2, h))
    for name in ("dimension", "diameter"):
        value = getattr(target, name, None)
        if value is not None:
            return float(np.max(np.atleast_1d(value)))
    vertices = getattr(target, "vertices", None)
    if vertices is not None:
        return float(np.ptp(np.asarray(vertices), axis=0).max())
    return 1e-3


__all__ = ["GETFT_EPS_RATIO", "GRADIENT_BOUND", "STEP_RATIO", "TRUNCATION_BOUND", "bounding_radius",
           "difference_steps", "dipole_dipole", "dipole_wrench", "gradient_at", "gradient_bytes",
           "magnet_wrench"]
