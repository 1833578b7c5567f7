"""The measures the user keeps (:mod:`mime_gui.rig.measures`): a list that is view state, like the selection,
not the rig's: it is neither saved with the rig nor undone with it.

Its values come from the published frame poses (what :meth:`~mime_gui.session.Session.frame_world_pose`
gives), so they follow driving, torques and playback alike. After an edit a measure whose end the rig no
longer has (a part renamed or removed) stays in the list, stale: its reading is the ``measure.end`` refusal
saying what is missing, and an undo brings it back. Another document drops the measures whose ends it lacks
(all of them when the document is closed).

Event: ``measures_changed(measures)`` — the list changed (a tuple of :class:`~mime_gui.rig.measures.Measure`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mime_gui.rig.measures import (
    CentreEnd,
    End,
    FrameEnd,
    Measure,
    MeasureError,
    PointEnd,
    ProbeEnd,
    Reading,
    anchor,
    measure,
    reading,
)
from mime_gui.session.document import Document
from mime_gui.session.errors import SessionError, refuse
from mime_gui.session.events import Event
from mime_gui.session.renderer import ItemRef

#: the collection of each kind of item that has a centre
_COLLECTIONS = {"part": "parts", "magnet": "magnets"}


class MeasureList:
    def __init__(self, document: Callable[[], Document | None], error: Event) -> None:
        self._measures: list[Measure] = []
        self._document = document
        self._error = error
        self.measures_changed = Event("measures_changed")

    @property
    def all(self) -> tuple[Measure, ...]:
        return tuple(self._measures)

    # -- the list ------------------------------------------------------------------------------------
    def add(self, a: End | ItemRef, b: End | ItemRef, axes=None) -> Measure:
        """Measure from ``a`` to ``b`` (ends, or items as selected: :meth:`end`); ``axes`` asks for the angle
        between an axis of each. Refused with a coded error (also on the ``error`` event) when an end is not
        in the document, both are one, an axis is not x, y or z, or the list has it already."""
        a = a if not isinstance(a, ItemRef) else self.end(a)
        b = b if not isinstance(b, ItemRef) else self.end(b)
        try:
            m = measure(a, b, axes)
            doc = self._require()
            for which, end in (("a", m.a), ("b", m.b)):
                anchor(end, doc.rig, doc.segments, f"measure.{which}")
        except MeasureError as err:
            raise self._fail(err.code, err.message, err.file) from None
        if m in self._measures:
            raise self._fail("measure.duplicate", f"{m.label()} is measured already", "measure")
        self._measures.append(m)
        self.measures_changed.emit(self.all)
        return m

    def remove(self, m: Measure) -> None:
        if m not in self._measures:
            raise self._fail("measure.unknown", f"{getattr(m, 'label', lambda: repr(m))()} is not in the "
                             "list of measures", "measure")
        self._measures.remove(m)
        self.measures_changed.emit(self.all)

    def clear(self) -> None:
        if self._measures:
            self._measures.clear()
            self.measures_changed.emit(self.all)

    def document_shown(self, doc: Document | None) -> None:
        """Another document (or a reload, or none): keep the measures it still has both ends of."""
        keep = [m for m in self._measures if doc is not None and _stale(m, doc) is None]
        if keep != self._measures:
            self._measures = keep
            self.measures_changed.emit(self.all)

    # -- values --------------------------------------------------------------------------------------
    def reading(self, m: Measure) -> Reading:
        """``m`` now, from the published poses; a :class:`~mime_gui.rig.measures.MeasureError`
        (``measure.end``) when an end is missing (not announced: a stale measure is shown as such)."""
        doc = self._document()
        if doc is None:
            raise MeasureError("measure.end", "nothing is open", "measure")
        return reading(m, doc.rig, doc.segments)

    def readings(self) -> tuple[Reading | MeasureError, ...]:
        """Every measure now: its reading, or why it has none (stale)."""
        out = []
        for m in self._measures:
            try:
                out.append(self.reading(m))
            except MeasureError as err:
                out.append(err)
        return tuple(out)

    # -- ends ----------------------------------------------------------------------------------------
    def end(self, item: ItemRef, world_point=None) -> End:
        """The end an item of the document stands for: a frame or link (a link grafted for a part or magnet:
        its centre), a joint (its child link's frame, where the joint is), a segment (its root link), a
        part's or magnet's centre, a probe. With ``world_point`` (m, a point picked on the item's link or
        frame) the point fixed on that frame where it is now."""
        doc = self._require()
        if item.kind in _COLLECTIONS:
            end: End = CentreEnd(_COLLECTIONS[item.kind], item.name)
        elif item.kind == "probe":
            end = ProbeEnd(item.name)
        else:
            seg = doc.segments.get(item.segment)
            frame = None
            if seg is not None:
                if item.kind == "segment" and item.name == item.segment:
                    frame = seg.tree.root
                elif item.kind == "joint" and item.name in seg.tree.joints:
                    frame = seg.tree.joints[item.name].child
                elif item.kind in ("frame", "link"):
                    frame = item.name
            if frame is None or frame not in seg.articulation.frame_names:
                raise self._fail("measure.end", f"{item.kind} {item.path()!r} is not a frame, part, magnet "
                                 "or probe of the rig; pick one of those", "measure")
            grafted = seg.item_of(frame)
            end = CentreEnd(*grafted) if grafted is not None and world_point is None else \
                FrameEnd(item.segment, frame)
        if world_point is None:
            return end
        return self._point(end, world_point)

    def _point(self, end: End, world_point) -> PointEnd:
        doc = self._require()
        try:
            p = np.asarray(world_point, dtype=float)
        except (TypeError, ValueError):
            p = np.full(1, np.nan)
        if p.shape != (3,) or not np.all(np.isfinite(p)):
            raise self._fail("measure.point", f"the point {world_point!r} is not three finite numbers; give "
                             "the picked point in metres, world axes", "measure")
        try:
            place = anchor(end, doc.rig, doc.segments)
        except MeasureError as err:
            raise self._fail(err.code, err.message, err.file) from None
        if place.segment is None:
            raise self._fail("measure.point", f"{end.label()} is fixed in the world, on no frame; measure to "
                             "it as it is", "measure")
        X = doc.segments[place.segment].frame_pose(place.frame)
        local = X[:3, :3].T @ (p - X[:3, 3])  # in the frame: the point stays on the link as it moves
        return PointEnd(place.segment, place.frame, tuple(float(v) for v in local))

    # -- helpers -------------------------------------------------------------------------------------
    def _require(self) -> Document:
        doc = self._document()
        if doc is None:
            raise self._fail("measure.end", "nothing is open; open a robot or a rig first", "measure")
        return doc

    def _fail(self, code: str, message: str, file: str = "") -> SessionError:
        return refuse(self._error, code, message, file)


def _stale(m: Measure, doc: Document) -> MeasureError | None:
    try:
        for end in (m.a, m.b):
            anchor(end, doc.rig, doc.segments)
    except MeasureError as err:
        return err
    return None


__all__ = ["MeasureList"]
