"""Clearance in the session, for the window: the rig's ``clearance.*`` findings in its initial pose (once per
build) and the pair closest to touching at the pose shown, with the nearest points of the two.

- :func:`assembly_findings`: what ``mime-gui validate`` adds to the rules
  (:mod:`mime_gui.rig.clearance_check`), for the document's build; kept per built rig with its model
  (:func:`prepare`), so a build is checked once however many views ask.
  Nothing for a rig that breaks a rule (it is not built; the build kept is an older rig's).
- :func:`closest_now`: the moving pair (relative motion possible: what
  :func:`~mime_gui.rig.clearance_check.check` reports along a trajectory) closest at one pose, its signed
  distance and a nearest point on each. The bounding balls of every piece bound each pair from below and two
  points inside the pieces bound the smallest distance from above; the collision library is called on the
  pairs under that bound only, nearest first, until the next lower bound cannot beat the best distance found,
  and not on a pair whose pieces kept their relative pose since it was last computed (:class:`PairMemory`).
- :class:`LiveClearance`: :func:`closest_now` at the session's drawn poses, computed again only when a pose
  array or the build was replaced (the session replaces them, never writes into them: their identity is the
  change stamp).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mime_gui.rig.collision import TOLERANCE, ClearanceModel, clearance_model, piece_poses

_lock = threading.Lock()
_prepared: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # built rig → (model, findings)


def current_build(document):
    """The document's build when it is the rig's (no rule broken), else None."""
    if document is None or document.findings or document.built is None:
        return None
    return document.built


def prepare(built) -> tuple[ClearanceModel, tuple]:
    """The clearance model of ``built`` and its ``clearance.*`` findings in the initial pose, computed once
    per build (a worker thread may run it: the first of a description loads and hulls its meshes)."""
    with _lock:
        hit = _prepared.get(built)
    if hit is None:
        from mime_gui.rig.clearance_check import check, initial_frame_poses

        model = clearance_model(built)
        hit = (model, tuple(check(model, initial_frame_poses(built)).findings))
        with _lock:
            _prepared[built] = hit
    return hit


def prepared(built) -> tuple[ClearanceModel, tuple] | None:
    """What :func:`prepare` made for ``built``, or None when it has not run yet."""
    with _lock:
        return _prepared.get(built)


def assembly_findings(document) -> tuple:
    """The ``clearance.*`` findings of the document's rig in its initial pose (``()`` without a current
    build), computed once per build."""
    built = current_build(document)
    return () if built is None else prepare(built)[1]


def frame_poses_now(document) -> np.ndarray | None:
    """``(F, 4, 4)`` the drawn frames' world poses in ``built.frame_names`` order (None when the drawn
    segments are not the build's, for a moment between an edit and its drawing)."""
    built = current_build(document)
    if built is None:
        return None
    out = []
    for name, s in built.segments.items():
        seg = document.segments.get(name)
        if seg is None or seg.world_X_frame.shape[0] != s.articulation.nframes:
            return None
        out.append(seg.world_X_frame)
    return np.concatenate(out) if out else np.zeros((0, 4, 4))


@dataclass(frozen=True)
class ClosestPair:
    """The pair closest to touching: its labels, its signed ``distance`` (m, negative: they overlap), a
    nearest point on each in the world (m), the rig's ``margin`` (m)."""

    first: str
    second: str
    distance: float
    point_first: np.ndarray
    point_second: np.ndarray
    margin: float

    @property
    def within_margin(self) -> bool:
        """Closer than the margin, or overlapping (the finding's own boundaries)."""
        return self.distance < self.margin - TOLERANCE

    @property
    def overlapping(self) -> bool:
        return self.distance < -TOLERANCE

    def text(self) -> str:
        d = self.distance * 1e3
        told = f"overlap {-d:.1f} mm" if self.overlapping else f"{d:.1f} mm"
        return f"closest: {self.first} ↔ {self.second} {told}"


def _library_distance(geometry_a, Xa: np.ndarray, geometry_b, Xb: np.ndarray):
    import coal

    result = coal.DistanceResult()
    d = coal.distance(geometry_a, coal.Transform3s(Xa[:3, :3], Xa[:3, 3]), geometry_b,
                      coal.Transform3s(Xb[:3, :3], Xb[:3, 3]), coal.DistanceRequest(), result)
    return float(d), np.array(result.getNearestPoint1()), np.array(result.getNearestPoint2())


#: relative poses of a piece pair within this of the last computed one are the same pose (m, and rad)
SAME_POSE = 1e-12


class PairMemory:
    """Each moving piece pair's last computed distance, its relative pose then and its nearest points in the
    first piece's frame: a pair whose pieces kept their relative pose (links of one hand while the elbow
    turns) is not computed again."""

    def __init__(self, n: int):
        self.relative = np.full((n, 12), np.nan)
        self.distance = np.zeros(n)
        self.points = np.zeros((n, 2, 3))


def closest_now(model: ClearanceModel, frame_poses, memory: PairMemory | None = None) -> ClosestPair | None:
    """The moving pair of ``model`` closest at ``frame_poses (F, 4, 4)`` (the rig's frames in
    ``built.frame_names`` order), with its nearest points; None when the rig has no moving pair.
    ``memory`` (a :class:`PairMemory` of the model's moving piece pairs, kept by the caller between
    poses) spares the pairs whose relative pose did not change."""
    flat = model.pieces
    pa, pb, owner = flat["moving"]
    if not len(pa):
        return None
    W = piece_poses(flat, np.asarray(frame_poses, dtype=float)[None])[0]  # (P, 4, 4)
    C = np.einsum("pij,pj->pi", W[:, :3, :3], flat["piece_centre"]) + W[:, :3, 3]
    A = np.einsum("pij,pj->pi", W[:, :3, :3], flat["piece_anchor"]) + W[:, :3, 3]
    lower = np.linalg.norm(C[pa] - C[pb], axis=1) - flat["radius"][pa] - flat["radius"][pb]
    upper = float(np.linalg.norm(A[pa] - A[pb], axis=1).min())  # two points inside: the minimum is below
    candidates = np.flatnonzero(lower <= upper)
    best, found = np.inf, None
    if memory is not None:
        Wa, Wb = W[pa[candidates]], W[pb[candidates]]
        R = np.einsum("nji,njk->nik", Wa[:, :3, :3], Wb[:, :3, :3])
        p = np.einsum("nji,nj->ni", Wa[:, :3, :3], Wb[:, :3, 3] - Wa[:, :3, 3])
        relative = np.concatenate([R.reshape(-1, 9), p], axis=1)
        same = (np.abs(relative - memory.relative[candidates]) <= SAME_POSE).all(axis=1)
        if same.any():  # known distances: the best of them to beat before calling the library
            k = int(np.argmin(memory.distance[candidates[same]]))
            q = candidates[same][k]
            pts = np.einsum("ij,nj->ni", W[pa[q], :3, :3], memory.points[q]) + W[pa[q], :3, 3]
            best, found = float(memory.distance[q]), (q, pts[0], pts[1])
        fresh = dict(zip(candidates[~same].tolist(), relative[~same], strict=True))  # stored once computed
        candidates = candidates[~same]
    candidates = candidates[np.argsort(lower[candidates], kind="stable")]
    geometry = flat["geometry"]
    for q in candidates:
        if lower[q] >= best:
            break  # no later pair can be closer
        d, p1, p2 = _library_distance(geometry[pa[q]], W[pa[q]], geometry[pb[q]], W[pb[q]])
        if memory is not None:
            memory.relative[q] = fresh[int(q)]
            memory.distance[q] = d
            R, x = W[pa[q], :3, :3], W[pa[q], :3, 3]
            memory.points[q] = (np.array([p1, p2]) - x) @ R
        if d < best:
            best, found = d, (q, p1, p2)
    if found is None:
        return None
    q, p1, p2 = found
    i, j = model.moving[owner[q]]
    return ClosestPair(model.bodies[i].label, model.bodies[j].label, best, p1, p2, model.margin)


class LiveClearance:
    """The closest pair at the session's drawn poses (:meth:`update`), computed again only when a segment's
    pose array or the build was replaced; ``computed`` counts the computations."""

    def __init__(self, session, model: Callable[[object], ClearanceModel | None] | None = None):
        self.session = session
        # the model of a build, or None while it is not ready (the window makes them on a worker)
        self.model = model or (lambda built: prepare(built)[0])
        self.closest: ClosestPair | None = None
        self.computed = 0
        self._stamp: tuple = ()
        self._memory: tuple | None = None  # (model, its PairMemory)

    def _current_stamp(self) -> tuple:
        document = self.session.document
        built = current_build(document)
        if built is None:
            return (None,)
        return (built, *(seg.world_X_frame for seg in document.segments.values()))

    def update(self) -> ClosestPair | None:
        stamp = self._current_stamp()
        if len(stamp) == len(self._stamp) and all(a is b for a, b in zip(stamp, self._stamp, strict=True)):
            return self.closest
        self._stamp = stamp
        built = stamp[0]
        model = self.model(built) if built is not None else None
        poses = frame_poses_now(self.session.document) if model is not None else None
        if poses is None:
            self.closest = None
            return None
        if self._memory is None or self._memory[0] is not model:
            self._memory = (model, PairMemory(len(model.pieces["moving"][0])))
        self.closest = closest_now(model, poses, self._memory[1])
        self.computed += 1
        return self.closest

    def forget(self) -> None:
        """Compute again at the next :meth:`update` (the stamp is dropped, with the arrays it holds)."""
        self._stamp = ()
        self.closest = None


__all__ = ["ClosestPair", "LiveClearance", "PairMemory", "assembly_findings", "closest_now", "current_build",
           "frame_poses_now", "prepare", "prepared"]
