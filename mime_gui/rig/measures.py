"""Measures: the distance between two things of a rig and, between chosen axes of each, the angle.

A :class:`Measure` has two ends, each one of

- :class:`FrameEnd` — a frame of a segment (``segment.frame``);
- :class:`CentreEnd` — a part's or magnet's centre: its centroid, where the build grafts it as a link
  (:attr:`~mime_gui.rig.build.BuiltSegment.grafts`), or its ``at`` in the world when it is fixed there;
- :class:`ProbeEnd` — a probe's point;
- :class:`PointEnd` — a point fixed on a frame of a segment (a point picked on a link's mesh), ``at`` (m) in
  that frame.

Every end is a point with axes: a frame's own; a part's, magnet's or probe's those of the frame it is
mounted on (a part is never turned in its mount); the world's for what is fixed in the world. The angle is
between the chosen axis (``x``, ``y`` or ``z``) of each end, 0 to 180°.

An end is found (:func:`anchor`) in the rig as written and the drawn or built segments, by what the build
says a grafted link stands for, never by the link's name. An end the rig no longer has (a part renamed or
removed) is refused with ``measure.end``, saying what is missing and how to go on. The values come from the
frames' world poses: the published ones now (:func:`reading`), or every step of a played trajectory
(:func:`measure_along`), with the same arithmetic.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from mime_gui.errors import CodedError
from mime_gui.magnitudes import MAX_LENGTH

AXES = ("x", "y", "z")
#: the rig's collections a centre may be of, and the word for one of each
CENTRES = {"parts": "part", "magnets": "magnet"}


class MeasureError(CodedError):
    """A refused or stale measure (``measure.*``): an end the rig lacks, a bad axis or point."""


@dataclass(frozen=True)
class FrameEnd:
    segment: str
    frame: str

    def label(self) -> str:
        return f"{self.segment}.{self.frame}"


@dataclass(frozen=True)
class CentreEnd:
    collection: str  # "parts" or "magnets"
    name: str

    def label(self) -> str:
        return f"{CENTRES.get(self.collection, self.collection)} {self.name}"


@dataclass(frozen=True)
class ProbeEnd:
    name: str

    def label(self) -> str:
        return f"probe {self.name}"


@dataclass(frozen=True)
class PointEnd:
    segment: str
    frame: str  # a link's frame (or any frame of the segment)
    at: tuple[float, float, float]  # m, in the frame

    def label(self) -> str:
        mm = ", ".join(f"{v * 1e3:.4g}" for v in self.at)
        return f"{self.segment}.{self.frame} + ({mm}) mm"


End = FrameEnd | CentreEnd | ProbeEnd | PointEnd
END_KINDS = (FrameEnd, CentreEnd, ProbeEnd, PointEnd)


@dataclass(frozen=True)
class Measure:
    """Two ends; ``axes`` (``(axis of a, axis of b)``, each ``x``, ``y`` or ``z``) asks for the angle between
    them, None for none."""

    a: End
    b: End
    axes: tuple[str, str] | None = None

    def label(self) -> str:
        return f"{self.a.label()} → {self.b.label()}"


def measure(a: End, b: End, axes=None) -> Measure:
    """A checked :class:`Measure`: two ends of the kinds above, not one, finite points, known axes."""
    for which, end in (("a", a), ("b", b)):
        if not isinstance(end, END_KINDS):
            raise MeasureError("measure.end-kind", f"end {which} is {end!r}; give a frame, a part's or "
                               "magnet's centre, a probe or a point on a frame", f"measure.{which}")
        if isinstance(end, CentreEnd) and end.collection not in CENTRES:
            raise MeasureError("measure.end-kind", "a centre is of a part or a magnet ('parts' or "
                               f"'magnets'), not {end.collection!r}", f"measure.{which}")
        if isinstance(end, PointEnd):
            try:
                at = np.asarray(end.at, dtype=float)
            except (TypeError, ValueError):
                at = np.full(1, np.nan)
            if at.shape != (3,) or not (np.all(np.isfinite(at)) and np.all(np.abs(at) <= MAX_LENGTH)):
                raise MeasureError("measure.point", f"the point {end.at!r} is not three finite numbers "
                                   f"within ±{MAX_LENGTH:g} m; give metres in the frame",
                                   f"measure.{which}.at")
    if a == b:
        raise MeasureError("measure.same-end", f"both ends are {a.label()}; pick two different things",
                           "measure")
    if axes is not None:
        axes = tuple(axes) if not isinstance(axes, str) else (axes,)
        if len(axes) != 2 or any(x not in AXES for x in axes):
            raise MeasureError("measure.axis", f"the axes are {axes!r}; give one of x, y, z for each end, or "
                               "none for no angle", "measure.axes")
    return Measure(a, b, axes)


@dataclass(frozen=True)
class Anchor:
    """Where an end is: ``local`` (m) in the frame ``frame`` of ``segment``, or in the world when
    ``segment`` is None."""

    segment: str | None
    frame: str | None
    local: tuple[float, float, float]


def _graft(segments: Mapping, item: tuple[str, str]) -> tuple[str, str] | None:
    """``(segment, link)`` the build grafted the part or magnet ``item`` as, from its map of grafts."""
    for name, seg in segments.items():
        for link, it in seg.grafts.items():
            if tuple(it) == item:
                return name, link
    return None


def _on_frame(segments: Mapping, segment: str, frame: str, what: str, where: str) -> None:
    seg = segments.get(segment)
    if seg is None:
        raise MeasureError("measure.end", f"{what}: the rig has no segment {segment!r} (renamed or removed); "
                           "remove this measure, or undo the edit", where)
    if frame not in seg.articulation.frame_names:
        raise MeasureError("measure.end", f"{what}: segment {segment!r} has no frame {frame!r} (renamed or "
                           "removed); remove this measure, or undo the edit", where)


def anchor(end: End, rig, segments: Mapping, where: str = "measure") -> Anchor:
    """Where ``end`` is in ``rig`` (the rig as written) drawn as ``segments`` (name → anything with
    ``articulation`` and ``grafts``: the session's drawn segments or a build's); ``measure.end`` when it is
    missing."""
    if isinstance(end, FrameEnd | PointEnd):
        _on_frame(segments, end.segment, end.frame, end.label(), where)
        local = end.at if isinstance(end, PointEnd) else (0.0, 0.0, 0.0)
        return Anchor(end.segment, end.frame, tuple(float(v) for v in local))
    if isinstance(end, CentreEnd):
        kind = CENTRES.get(end.collection, end.collection)
        part = getattr(rig, end.collection, {}).get(end.name)
        if part is None:
            raise MeasureError("measure.end", f"the rig has no {kind} {end.name!r} (renamed or removed); "
                               "remove this measure, or undo the edit", where)
        if part.mount is None:  # fixed in the world, its centroid at ``at``
            return Anchor(None, None, tuple(float(v) for v in part.at))
        grafted = _graft(segments, (end.collection, end.name))
        if grafted is None:
            raise MeasureError("measure.end", f"{kind} {end.name!r} is not placed: its mount "
                               f"{part.mount!r} or its shape breaks a rule (see Validation); fix it and the "
                               "measure reads again", where)
        return Anchor(grafted[0], grafted[1], (0.0, 0.0, 0.0))
    if isinstance(end, ProbeEnd):
        probe = getattr(rig, "probes", {}).get(end.name)
        if probe is None:
            raise MeasureError("measure.end", f"the rig has no probe {end.name!r} (renamed or removed); "
                               "remove this measure, or undo the edit", where)
        at = tuple(float(v) for v in probe.at)
        if probe.mount is None:
            return Anchor(None, None, at)
        segment, _, frame = probe.mount.partition(".")
        if segment not in segments or frame not in segments[segment].articulation.frame_names:
            raise MeasureError("measure.end", f"probe {end.name!r} is not placed: its mount "
                               f"{probe.mount!r} is not a frame of the rig (see Validation); fix it and the "
                               "measure reads again", where)
        return Anchor(segment, frame, at)
    raise MeasureError("measure.end-kind", f"{end!r} is no end of a measure", where)


def end_poses(place: Anchor, frame_poses: Callable[[str, str], np.ndarray], shape=()) -> np.ndarray:
    """The end's world pose(s) ``(*shape, 4, 4)``: its frame's axes, its point as the origin.
    ``frame_poses(segment, frame)`` gives the frame's world pose(s)."""
    local = np.asarray(place.local, dtype=float)
    if place.segment is None:
        X = np.broadcast_to(np.eye(4), (*shape, 4, 4)).copy()
        X[..., :3, 3] = local
        return X
    F = np.asarray(frame_poses(place.segment, place.frame), dtype=float)
    X = F.copy()
    X[..., :3, 3] = F[..., :3, :3] @ local + F[..., :3, 3]
    return X


@dataclass(frozen=True, eq=False)
class Reading:
    """A measure's values at one pose, or along a trajectory (then each has a leading axis of steps, and
    ``time`` (s) is set): the ends' world points ``a``, ``b`` (m), ``distance`` (m) and ``angle`` (rad;
    None without axes)."""

    a: np.ndarray
    b: np.ndarray
    distance: np.ndarray | float
    angle: np.ndarray | float | None = None
    time: np.ndarray | None = None

    @property
    def vector(self) -> np.ndarray:
        """From a to b, in world axes (m)."""
        return self.b - self.a

    @property
    def angle_deg(self):
        return None if self.angle is None else np.degrees(self.angle)


def values(m: Measure, Xa: np.ndarray, Xb: np.ndarray, time=None) -> Reading:
    """The measure's values from the ends' world poses ``(..., 4, 4)``."""
    a, b = Xa[..., :3, 3], Xb[..., :3, 3]
    distance = np.linalg.norm(b - a, axis=-1)
    angle = None
    if m.axes is not None:
        u = Xa[..., :3, AXES.index(m.axes[0])]
        v = Xb[..., :3, AXES.index(m.axes[1])]
        # atan2 of |u×v| and u·v: exact near 0 and 180°, where the arccosine of the dot loses half its digits
        angle = np.arctan2(np.linalg.norm(np.cross(u, v), axis=-1), np.sum(u * v, axis=-1))
    if np.ndim(distance) == 0:
        return Reading(a.copy(), b.copy(), float(distance), None if angle is None else float(angle))
    return Reading(a.copy(), b.copy(), distance, angle, time)


def reading(m: Measure, rig, segments: Mapping) -> Reading:
    """The measure now, from the segments' published frame poses (each with ``frame_pose(frame)``)."""
    def pose(segment: str, frame: str) -> np.ndarray:
        return segments[segment].frame_pose(frame)

    return values(m, end_poses(anchor(m.a, rig, segments, "measure.a"), pose),
                  end_poses(anchor(m.b, rig, segments, "measure.b"), pose))


def measure_along(m: Measure, built, trajectory, start: float = 0.0) -> Reading:
    """The measure at every step of ``trajectory`` (a :class:`~mime_gui.rig.build.RigTrajectory` of ``built``
    or its ``as_trajectory()``; its ``frame_poses`` in ``built.frame_names`` order). ``start`` is the time
    before the first step."""
    frames = np.asarray(trajectory.frame_poses, dtype=float)
    first, offset = {}, 0
    for name, seg in built.segments.items():  # where each segment's frames start in the stacked columns
        first[name] = offset
        offset += seg.articulation.nframes

    def poses(segment: str, frame: str) -> np.ndarray:
        return frames[:, first[segment] + built.segments[segment].articulation.frame_index(frame)]

    rig, segments = built.apparatus, built.segments
    shape = (len(frames),)
    Xa = end_poses(anchor(m.a, rig, segments, "measure.a"), poses, shape)
    Xb = end_poses(anchor(m.b, rig, segments, "measure.b"), poses, shape)
    return values(m, Xa, Xb, trajectory.times(start))


__all__ = ["AXES", "CENTRES", "END_KINDS", "Anchor", "CentreEnd", "End", "FrameEnd", "Measure",
           "MeasureError", "PointEnd", "ProbeEnd", "Reading", "anchor", "end_poses", "measure",
           "measure_along", "reading", "values"]
