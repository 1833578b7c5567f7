"""The rig's magnets pulling on each other: the force and torque on each magnet from the magnets on other
bodies, along a played trajectory, for the joint torques (:mod:`mime_gui.rig.torques`).

Two magnets are on the same body when they ride on frames of the same body of one segment's articulation
(or both stand in the world); their pull on each other is internal to that body and is not computed. For
every other pair one side is computed, by one of two routes, and the other side is its reaction (Newton's
third law, the torque moved to the other magnet's centre): ``F_a = −F_b`` and ``τ_a = −τ_b − (c_b − c_a) ×
F_b``, so each pair's wrenches balance exactly, and a pair whose bodies are welded together (a motor's
stator on an arm's flange) adds nothing to any joint.

- ``"dipole"``: the dipole–dipole closed forms (:func:`dipole_dipole`) with each magnet's moment
  ``Br·V/μ0`` at its centroid. Exact for two balls at any distance (a ball's field is its dipole's outside
  it, and a uniformly magnetised ball feels its dipole's force). For other shapes the next terms of the
  expansion about the centroid are of relative size ``(R/d)²`` (a uniformly magnetised body's potential is
  ``M·∇`` of its volume's gravitational potential, whose first correction is the quadrupole of its second
  moments), ``R`` the larger bounding radius and ``d`` the distance between centroids: the error of force
  and torque is at most ``DIPOLE_COEFFICIENT · (R/d)²`` of their dipole scales (``μ0/4π · 3|m1||m2|/d⁴``
  and ``μ0/4π · |m1||m2|/d³``), 2e-2 at 10 sizes (``d = 20 R``), 3.2e-3 at :data:`DIPOLE_SIZES`.
- ``"magnet"``: Magpylib's ``getFT`` with the smaller magnet (its bounding radius) as the target, cut into
  :data:`PAIR_CELLS` cells (a ball is exact and takes none), the other magnet's field exact, the torque about
  the target's centroid; the cells hold the force to about 1e-3.
- ``"auto"`` (the default): the dipole for two balls, or where the centroids stay at least
  :data:`DIPOLE_SIZES` of the larger magnet's size (bounding diameter) apart at every step; getFT otherwise
  (farther out getFT's differences of the exact fields lose digits to rounding, for thin shapes first).

Everything runs over every step at once (Magpylib paths); getFT's calls are cut into chunks of steps of at
most :data:`CHUNK_EVALUATIONS` field evaluations.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from mime_gui.rig.magnet_sources import MagnetSource, bounding_radius, magnet_sources
from mime_gui.rig.mass import MU0

#: the dipole route is taken where the centroids stay at least this many sizes (the larger bounding
#: diameter) apart
DIPOLE_SIZES = 25.0
#: the dipole route's error over (R/d)², relative to the dipole scales (measured at most 7.9 over 160 pairs
#: of boxes, cylinders and rings of aspect 1:10 to 10:1 turned every way, 10 and 25 sizes apart)
DIPOLE_COEFFICIENT = 8.0
#: cells getFT cuts the target magnet into (a ball is exact and takes none)
PAIR_CELLS = 64
#: getFT's finite-difference step over the target's bounding diameter (Magpylib advises 1e-5 of the size)
EPS_RATIO = 1e-5
#: field evaluations per getFT call (each cell is evaluated at seven points)
CHUNK_EVALUATIONS = 100_000
METHODS = ("auto", "dipole", "magnet")


def dipole_dipole(m1: np.ndarray, m2: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The closed forms: force and torque (about its own centre) on dipole ``m2`` at ``r`` from dipole
    ``m1`` (A·m², m, world axes)."""
    r = np.asarray(r, dtype=float)
    d = np.linalg.norm(r, axis=-1, keepdims=True)
    u = r / d
    a = np.sum(m1 * u, axis=-1, keepdims=True)
    b = np.sum(m2 * u, axis=-1, keepdims=True)
    c = np.sum(m1 * m2, axis=-1, keepdims=True)
    k = MU0 / (4 * np.pi)
    force = 3 * k / d**4 * (a * m2 + b * m1 + c * u - 5 * a * b * u)
    B1 = k * (3 * u * a - m1) / d**3
    return force, np.cross(m2, B1)


@dataclass(frozen=True, eq=False)
class MagnetPull:
    """The pull of the magnets on each other along a trajectory: per step and magnet of ``magnet_names``,
    ``centre (T, M, 3)`` m, ``force (T, M, 3)`` N and ``torque (T, M, 3)`` N·m about the magnet's centroid,
    world axes, summed over the magnets on other bodies; ``pairs`` ``(a, b, route)`` computed."""

    magnet_names: tuple[str, ...]
    centre: np.ndarray
    force: np.ndarray
    torque: np.ndarray
    pairs: tuple[tuple[str, str, str], ...]

    @property
    def any(self) -> bool:
        """Whether any pair of magnets on different bodies was computed."""
        return bool(self.pairs)


def body_of(built, magnet: MagnetSource) -> tuple[str, int]:
    """``(segment, body)`` the magnet rides on (the body of its graft link in the segment's articulation);
    ``("", -1)`` in the world."""
    if magnet.frame is None:
        return ("", -1)
    segment, link = built.frame_names[magnet.frame].split(".", 1)
    return (segment, built.segments[segment].articulation.body_index(link))


def _moments(built, magnets: list[MagnetSource]) -> np.ndarray:
    """Each magnet's moment ``(M, 3)`` A·m² in its own frame: ``J·V/μ0``."""
    base = built.apparatus.base
    return np.array([m.polarization * m.geometry.mass_properties(base).volume / MU0 for m in magnets]
                    ).reshape(len(magnets), 3)


def magnet_poses(built, magnets: list[MagnetSource], frame_poses) -> np.ndarray:
    """``world_X_magnet (T, M, 4, 4)`` from the stacked ``frame_poses (T, frames, 4, 4)`` of a played
    trajectory, or from a mapping segment → its played trajectory (each with its own ``frame_poses``)."""
    if not isinstance(frame_poses, Mapping):
        frame_poses = np.asarray(frame_poses, dtype=float)
        if not magnets:
            return np.zeros((len(frame_poses), 0, 4, 4))
        return np.stack([m.poses(frame_poses) for m in magnets], axis=1)
    T = len(next(iter(frame_poses.values()))) if frame_poses else 0
    out = np.empty((T, len(magnets), 4, 4))
    for i, m in enumerate(magnets):
        if m.frame is None:
            out[:, i] = m.world_X_magnet
            continue
        segment, frame = built.frame_names[m.frame].split(".", 1)
        f = built.segments[segment].articulation.frame_index(frame)
        out[:, i] = frame_poses[segment].frame_poses[:, f]
    return out


class PullModel:
    """The rig's magnets and the pairs of them on different bodies, prepared once (sources, moments, sizes)
    so the pull is evaluated at many poses: along a played trajectory at once (:func:`magnet_pull`), or one
    instant at a time inside forward dynamics (:mod:`mime_gui.rig.pulled`), where ``"auto"`` then picks each
    pair's route at that instant."""

    def __init__(self, built, method: str = "auto"):
        if method not in METHODS:
            raise ValueError(f"{method!r} is not one of {', '.join(METHODS)}")
        self.built = built
        self.method = method
        self.magnets = magnet_sources(built)
        self.names = tuple(m.name for m in self.magnets)
        self.bodies = [body_of(built, m) for m in self.magnets]
        M, bodies = len(self.magnets), self.bodies
        self.pairs = tuple((a, b) for a in range(M) for b in range(a + 1, M) if bodies[a] != bodies[b])
        self._sizes = None

    def _prepared(self):
        """Bounding radii, moments in the magnets' own frames and which are balls (made on first use: a
        mesh magnet's radius reads its mesh)."""
        if self._sizes is None:
            magnets = self.magnets
            self._sizes = (np.array([bounding_radius(m) for m in magnets]), _moments(self.built, magnets),
                           [type(m.geometry).__name__ == "Sphere" for m in magnets])
        return self._sizes

    def poses(self, frame_poses) -> np.ndarray:
        """``world_X_magnet (T, M, 4, 4)``: :func:`magnet_poses` of these magnets."""
        return magnet_poses(self.built, self.magnets, frame_poses)

    def __call__(self, X: np.ndarray, pairs=None) -> MagnetPull:
        """The pull at the magnets' poses ``X (T, M, 4, 4)``, over ``pairs`` (indices into :attr:`pairs`;
        default every one)."""
        T, M = len(X), len(self.magnets)
        force, torque = np.zeros((T, M, 3)), np.zeros((T, M, 3))
        centre = np.array(X[:, :, :3, 3])
        chosen = self.pairs if pairs is None else [self.pairs[k] for k in pairs]
        if not chosen or T == 0:
            return MagnetPull(self.names, centre, force, torque, ())
        radii, local, balls = self._prepared()
        magnets, method = self.magnets, self.method
        moment = np.einsum("tmij,mj->tmi", X[:, :, :3, :3], local)  # world axes
        done = []
        for a, b in chosen:
            # the target (cut into cells) is the smaller one; the source's field is exact
            source, target = (a, b) if radii[b] <= radii[a] else (b, a)
            r = centre[:, target] - centre[:, source]
            apart = np.linalg.norm(r, axis=-1).min()
            route = method
            if method == "auto":
                far = apart >= DIPOLE_SIZES * 2 * max(radii[a], radii[b])
                route = "dipole" if (balls[a] and balls[b]) or far else "magnet"
            if route == "dipole":
                with np.errstate(divide="ignore", invalid="ignore"):  # coincident centres: zeroed below
                    F, tau = dipole_dipole(moment[:, source], moment[:, target], r)
            else:
                F, tau = _get_ft(magnets[source], X[:, source], magnets[target], X[:, target], balls[target],
                                 2 * radii[target])
            # two centres at one point (magnets passing through each other) have no pull to speak of
            F = np.nan_to_num(F, nan=0.0, posinf=0.0, neginf=0.0)
            tau = np.nan_to_num(tau, nan=0.0, posinf=0.0, neginf=0.0)
            force[:, target] += F
            torque[:, target] += tau
            force[:, source] -= F
            torque[:, source] -= tau + np.cross(r, F)  # the reaction, moved to the source's centre
            done.append((magnets[a].name, magnets[b].name, route))
        return MagnetPull(self.names, centre, force, torque, tuple(done))


    def at(self, X: np.ndarray, pairs=None) -> tuple[np.ndarray, np.ndarray]:
        """``force`` and ``torque`` ``(M, 3)`` at one instant, the magnets at ``X (M, 4, 4)``: the row of
        :meth:`__call__` (to rounding), each dipole pair in floats (numpy's calls on 3-vectors cost more than
        the arithmetic: forward dynamics evaluate this at every sub-step)."""
        M = len(self.magnets)
        force, torque = np.zeros((M, 3)), np.zeros((M, 3))
        chosen = self.pairs if pairs is None else [self.pairs[k] for k in pairs]
        if not chosen:
            return force, torque
        radii, local, balls = self._prepared()
        centre = [X[i, :3, 3].tolist() for i in range(M)]
        for a, b in chosen:
            source, target = (a, b) if radii[b] <= radii[a] else (b, a)
            cs, ct = centre[source], centre[target]
            r = [ct[0] - cs[0], ct[1] - cs[1], ct[2] - cs[2]]
            apart = math.sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2])
            route = self.method
            if route == "auto":
                far = apart >= DIPOLE_SIZES * 2 * max(radii[a], radii[b])
                route = "dipole" if (balls[a] and balls[b]) or far else "magnet"
            if apart == 0.0:
                continue  # two centres at one point: no pull to speak of (as along a trajectory)
            if route == "dipole":
                F, tau = _dipole_pair((X[source, :3, :3] @ local[source]).tolist(),
                                      (X[target, :3, :3] @ local[target]).tolist(), r, apart)
            else:
                F, tau = _get_ft(self.magnets[source], X[source][None], self.magnets[target], X[target][None],
                                 balls[target], 2 * radii[target])
                F, tau = np.nan_to_num(F[0]).tolist(), np.nan_to_num(tau[0]).tolist()
            moment = [r[1] * F[2] - r[2] * F[1], r[2] * F[0] - r[0] * F[2], r[0] * F[1] - r[1] * F[0]]
            for k in range(3):
                force[target, k] += F[k]
                torque[target, k] += tau[k]
                force[source, k] -= F[k]
                torque[source, k] -= tau[k] + moment[k]  # the reaction, moved to the source's centre
        return force, torque


def _dipole_pair(m1, m2, r, d) -> tuple[list[float], list[float]]:
    """:func:`dipole_dipole` of one pair in floats: ``m1``, ``m2`` and ``r`` 3-lists, ``d = |r| > 0``."""
    u = [r[0] / d, r[1] / d, r[2] / d]
    a = m1[0] * u[0] + m1[1] * u[1] + m1[2] * u[2]
    b = m2[0] * u[0] + m2[1] * u[1] + m2[2] * u[2]
    c = m1[0] * m2[0] + m1[1] * m2[1] + m1[2] * m2[2]
    k = MU0 / (4 * math.pi)
    d3, d4 = d**3, d**4  # zero when a hair apart: then 1/d is infinite, as numpy's arrays have it
    s = 3 * k / d4 if d4 else math.inf
    force = [s * (a * m2[i] + b * m1[i] + c * u[i] - 5 * a * b * u[i]) for i in range(3)]
    kd = k / d3 if d3 else math.inf
    B = [kd * (3 * u[i] * a - m1[i]) for i in range(3)]
    torque = [m2[1] * B[2] - m2[2] * B[1], m2[2] * B[0] - m2[0] * B[2], m2[0] * B[1] - m2[1] * B[0]]
    # what is not a number is no pull, as __call__ reads it
    return [x if math.isfinite(x) else 0.0 for x in force], [x if math.isfinite(x) else 0.0 for x in torque]


def magnet_pull(built, frame_poses, method: str = "auto") -> MagnetPull:
    """The force and torque on every magnet of ``built`` from the magnets on other bodies at every step of
    a played trajectory: its stacked ``frame_poses (T, frames, 4, 4)`` or a mapping segment → its played
    trajectory (see the module)."""
    model = PullModel(built, method)
    return model(model.poses(frame_poses))


def _get_ft(source: MagnetSource, world_X_source, target: MagnetSource, world_X_target, exact: bool,
            size: float) -> tuple[np.ndarray, np.ndarray]:
    """getFT on ``target`` from ``source``, each at its poses ``(T, 4, 4)``: force and torque about the
    target's centroid ``(T, 3)``."""
    import magpylib as magpy
    from scipy.spatial.transform import Rotation

    T = len(world_X_source)
    force, torque = np.zeros((T, 3)), np.zeros((T, 3))
    n = max(1, CHUNK_EVALUATIONS // (7 * (1 if exact else PAIR_CELLS)))
    for s in range(0, T, n):
        e = min(T, s + n)
        placed = []
        for magnet, X in ((source, world_X_source[s:e]), (target, world_X_target[s:e])):
            obj = magnet.source()
            obj.position = magnet.position(X)
            obj.orientation = Rotation.from_matrix(X[:, :3, :3])
            placed.append(obj)
        F, tau = magpy.getFT(placed[:1], placed[1:], pivot=world_X_target[s:e, :3, 3][None],
                             eps=EPS_RATIO * size, squeeze=False, meshing=None if exact else PAIR_CELLS)
        force[s:e], torque[s:e] = F[0, :, 0], tau[0, :, 0]
    return force, torque


__all__ = ["CHUNK_EVALUATIONS", "DIPOLE_COEFFICIENT", "DIPOLE_SIZES", "EPS_RATIO", "METHODS", "PAIR_CELLS",
           "MagnetPull", "PullModel", "body_of", "dipole_dipole", "magnet_poses", "magnet_pull"]
