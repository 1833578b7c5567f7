"""Force and torque on the rig's samples along a played trajectory, and at the poses a view shows.

Each sample is a small magnet of moment ``m`` (A·m²): a declared one, or ``Br·V/μ0`` of its shape. Its
moment is held in its mount frame (``fixed``: ``m = |m| R_mount d``) or turned along the field where it is
(``follows``: ``m = |m| B/|B|``, so it feels no torque and is pulled up the gradient of |B|; where B is
zero it keeps its mount frame's direction).

Two routes, chosen per sample (``method``):

- ``"dipole"``: ``F = Gᵀ m``, ``τ = m × B`` at its centre, with the gradient of
  :func:`~mime_gui.field.forces.gradient_at`. Exact for a declared moment and for a ball (a uniformly
  magnetised ball in a harmonic field feels its dipole's force); for another shape of largest extent ``a``
  at a distance ``s`` from the nearest magnet's bounding sphere the relative error is about ``(a/s)²/4`` (the
  next multipole), 2.5e-3 at ``s = 10 a``.
- ``"magnet"``: Magpylib's ``getFT`` on the sample's shape cut into :data:`SAMPLE_CELLS` cells, with the
  torque about its centre (a sample with a declared moment has no shape and always takes the dipole).
- ``"auto"`` (default): the dipole where ``a ≤ s / 10`` at every step (or the sample is a ball, or has
  a declared moment), else getFT.

Both run over every step at once (Magpylib paths); getFT's calls are cut into chunks of steps to bound its
scratch (:data:`~mime_gui.field.along.CHUNK_TRIPLES` evaluations a call).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mime_gui.field.along import CHUNK_TRIPLES, _probe_poses
from mime_gui.field.errors import FieldError
from mime_gui.field.forces import (
    GETFT_EPS_RATIO,
    STEP_RATIO,
    bounding_radius,
    difference_steps,
    dipole_wrench,
    gradient_at,
    gradient_bytes,
)
from mime_gui.field.sources import MagnetSource, magnet_sources
from mime_gui.rig.geometries import kind_of
from mime_gui.rig.probes import Probe
from mime_gui.rig.sample_rules import sample_moment

#: cells getFT cuts a shaped sample into (a ball is exact and takes none)
SAMPLE_CELLS = 125
#: the dipole route is taken while a shaped sample's largest extent is at most this share of its distance
#: to the nearest magnet's bounding sphere
DIPOLE_REACH = 0.1
METHODS = ("auto", "dipole", "magnet")


@dataclass(frozen=True, eq=False)
class SampleForces:
    """Force and torque on each sample at every step: ``time (T,)`` s; per step and sample of
    ``sample_names``: ``position (T, S, 3)`` m, ``moment (T, S, 3)`` A·m², ``B (T, S, 3)`` T, ``gradient
    (T, S, 3, 3)`` T/m (``[i, j] = ∂B_i/∂x_j``), ``force (T, S, 3)`` N and ``torque (T, S, 3)`` N·m about
    the sample's centre, all in world axes; ``routes`` says which route each sample took."""

    time: np.ndarray
    sample_names: tuple[str, ...]
    position: np.ndarray
    moment: np.ndarray
    B: np.ndarray
    gradient: np.ndarray
    force: np.ndarray
    torque: np.ndarray
    routes: tuple[str, ...]


def forces_bytes(steps: int, magnets: int, samples: int) -> int:
    """About the most memory :func:`forces_along` holds: the gradient's, and per step and sample its position,
    axes, moment, force and torque; a getFT chunk is bounded like a field call."""
    return gradient_bytes(steps, magnets, samples) + 8 * steps * samples * (3 + 9 + 3 + 3 + 3) + \
        8 * steps * magnets * 16


def _moments(built) -> dict[str, tuple[np.ndarray, float]]:
    out = {}
    for name, sample in built.apparatus.samples.items():
        d, size, problems = sample_moment(sample, built.apparatus.base)
        if problems:  # a built rig passed the rules; a sample changed since is refused here
            code, where, message = problems[0]
            raise FieldError("field.sample", message, f"samples.{name}.{where}")
        out[name] = (d, size)
    return out


def _turn(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Rotations ``(..., 3, 3)`` taking unit vectors ``a`` to ``b`` by the shortest turn (half a turn about
    an axis square to ``a`` when they are opposite)."""
    v = np.cross(a, b)
    c = np.sum(a * b, axis=-1)
    K = np.zeros((*v.shape[:-1], 3, 3))
    K[..., 0, 1], K[..., 0, 2], K[..., 1, 2] = -v[..., 2], v[..., 1], -v[..., 0]
    K[..., 1, 0], K[..., 2, 0], K[..., 2, 1] = v[..., 2], -v[..., 1], v[..., 0]
    opposite = c < -1 + 1e-12
    scale = np.where(opposite, 0.0, 1.0 / np.where(opposite, 1.0, 1.0 + c))
    R = np.eye(3) + K + K @ K * scale[..., None, None]
    if np.any(opposite):
        # a half turn about an axis square to a: R = 2 n nᵀ − I
        helper = np.where(np.abs(a[..., :1]) < 0.9, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
        n = np.cross(a, helper)
        n /= np.linalg.norm(n, axis=-1, keepdims=True)
        half = 2 * n[..., :, None] * n[..., None, :] - np.eye(3)
        R = np.where(opposite[..., None, None], half, R)
    return R


def forces_along(built, trajectory, method: str = "auto", start: float = 0.0) -> SampleForces:
    """Force and torque on every sample of the rig at every step of ``trajectory`` (a played trajectory of
    ``built``), by ``method`` (``"auto"``, ``"dipole"`` or ``"magnet"``, see the module)."""
    if method not in METHODS:
        raise FieldError("field.method", f"{method!r} is not one of {', '.join(METHODS)}", "method")
    samples = built.apparatus.samples
    moments = _moments(built)
    frame_poses = np.asarray(trajectory.frame_poses, dtype=float)
    T, S = len(frame_poses), len(samples)
    points = {name: Probe(s.at, mount=s.mount) for name, s in samples.items()}
    positions, axes = _probe_poses(built, points, frame_poses)
    magnets = magnet_sources(built)
    X = np.stack([m.poses(frame_poses) for m in magnets], axis=1) if magnets else np.zeros((T, 0, 4, 4))
    radii = np.array([bounding_radius(m) for m in magnets])
    B, G, _ = gradient_at(magnets, X, positions, radii)
    size = np.array([moments[n][1] for n in samples]) if S else np.zeros(0)
    d_mount = np.array([moments[n][0] for n in samples]).reshape(S, 3)
    fixed = np.einsum("tsij,sj->tsi", axes, d_mount)  # the moment's direction held in the mount frame
    follows = np.array([s.orientation == "follows" for s in samples.values()], dtype=bool)
    norm = np.linalg.norm(B, axis=-1, keepdims=True)
    along = np.divide(B, norm, out=fixed.copy(), where=norm > 0)
    direction = np.where(follows[None, :, None], along, fixed)
    moment = direction * size[None, :, None]
    force, torque = dipole_wrench(B, G, moment)
    routes = []
    for s, sample in enumerate(samples.values()):
        route = _route(method, sample, magnets, X, radii, positions[:, s])
        routes.append(route)
        if route == "magnet":
            turn = _turn(fixed[:, s], direction[:, s])  # identity for a fixed sample
            force[:, s], torque[:, s] = _shaped(built, sample, magnets, X, positions[:, s],
                                                turn @ axes[:, s], d_mount[s], size[s])
    return SampleForces(trajectory.times(start), tuple(samples), positions, moment, B, G, force, torque,
                        tuple(routes))


def _route(method: str, sample, magnets, X, radii, positions) -> str:
    if sample.geometry is None or method == "dipole" or not magnets:
        return "dipole"
    if method == "magnet":
        return "magnet"
    if type(sample.geometry).__name__ == "Sphere":  # exact by the dipole: no cells needed
        return "dipole"
    extent = 2 * float(np.max(sample.geometry.half_extents()))
    # STEP_RATIO · s is the difference step: divide it out for the distance itself
    reach = difference_steps(X, radii, positions[:, None]).min() / STEP_RATIO
    return "dipole" if extent <= DIPOLE_REACH * reach else "magnet"


def _shaped(built, sample, magnets: list[MagnetSource], X, positions, world_R, d_mount, size):
    """getFT on the sample's shape, magnetised ``Br`` along ``d_mount`` in its frame, at ``positions (T, 3)``
    with axes ``world_R (T, 3, 3)``: force and torque about its centre ``(T, 3)`` each."""
    import magpylib as magpy
    from scipy.spatial.transform import Rotation

    from mime_gui.rig.mass import MU0

    props = sample.geometry.mass_properties(built.apparatus.base)
    J = tuple(float(v) for v in d_mount * size * MU0 / props.volume)  # Br·d, Br = μ0 |m| / V
    T = len(positions)
    force, torque = np.zeros((T, 3)), np.zeros((T, 3))
    per_step = max(1, 7 * SAMPLE_CELLS * len(magnets))
    n = max(1, CHUNK_TRIPLES // per_step)
    extent = 2 * float(np.max(sample.geometry.half_extents()))
    for s in range(0, T, n):
        e = min(T, s + n)
        sources = []
        for m, magnet in enumerate(magnets):
            source = magnet.source()
            source.position = magnet.position(X[s:e, m])
            source.orientation = Rotation.from_matrix(X[s:e, m, :3, :3])
            sources.append(source)
        target = kind_of(sample.geometry).source(sample.geometry, J, built.apparatus.base)
        target.position = positions[s:e] - world_R[s:e] @ props.centroid
        target.orientation = Rotation.from_matrix(world_R[s:e])
        F, tau = magpy.getFT(sources, [target], pivot=positions[s:e][None], eps=GETFT_EPS_RATIO * extent,
                             squeeze=False, meshing=SAMPLE_CELLS)
        force[s:e], torque[s:e] = F.sum(axis=0)[:, 0], tau.sum(axis=0)[:, 0]
    return force, torque


def forces_now(built, world_X_frame, method: str = "auto") -> SampleForces:
    """Force and torque on every sample with every frame where ``world_X_frame(segment, frame)`` puts it."""
    from mime_gui.field.live import _OnePose

    poses = np.stack([world_X_frame(*name.split(".", 1)) for name in built.frame_names]) \
        if built.frame_names else np.zeros((0, 4, 4))
    return forces_along(built, _OnePose(poses), method)


__all__ = ["DIPOLE_REACH", "SAMPLE_CELLS", "SampleForces", "forces_along", "forces_bytes", "forces_now"]
