"""Session events as Qt signals.

Document, rig (edit, undo, redo), findings, history, selection, layer, drive, measures and error events are
forwarded at once. Pose events can arrive faster than the
screen refreshes (sliders, playback): they are coalesced into one ``poses_changed`` per event-loop turn,
carrying the set of segments that moved, so widgets that show poses refresh at most once per turn.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal

from mime_gui.session import Session


class SessionBridge(QObject):
    document_changed = Signal(object)  # Document or None
    rig_changed = Signal(object)  # ChangeSet
    findings_changed = Signal(object)  # tuple of Finding
    history_changed = Signal()
    poses_changed = Signal(object)  # frozenset of segment names
    selection_changed = Signal(object)  # ItemRef or None
    layers_changed = Signal(str, bool)
    visibility_changed = Signal(object, bool)  # ItemRef, visible
    drive_changed = Signal(str, str)  # segment, "torques" or "positions"
    measures_changed = Signal(object)  # tuple of mime_gui.rig.measures.Measure
    error = Signal(object)  # SessionError

    def __init__(self, session: Session, parent: QObject | None = None):
        super().__init__(parent)
        self.session = session
        self._moved: set[str] = set()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.flush_poses)
        self._hooks = [
            (session.document_changed, self.document_changed.emit),
            (session.rig_changed, self.rig_changed.emit),
            (session.findings_changed, self.findings_changed.emit),
            (session.history_changed, self.history_changed.emit),
            (session.selection_changed, self.selection_changed.emit),
            (session.layers_changed, self.layers_changed.emit),
            (session.visibility_changed, self.visibility_changed.emit),
            (session.drive_changed, self.drive_changed.emit),
            (session.measures_changed, self.measures_changed.emit),
            (session.error, self.error.emit),
            (session.poses_changed, self._pose_event),
        ]
        for event, fn in self._hooks:
            event.connect(fn)

    def detach(self) -> None:
        """Stop listening (the Session may outlive the window)."""
        for event, fn in self._hooks:
            event.disconnect(fn)
        self._hooks = []
        self._timer.stop()

    def _pose_event(self, segment: str) -> None:
        self._moved.add(segment)
        if not self._timer.isActive():
            self._timer.start()

    def flush_poses(self) -> None:
        """Send the pose events of this turn now (the scene calls it just before rendering, so that what
        moves with the poses is in the frame); nothing when none is waiting."""
        self._timer.stop()
        moved, self._moved = frozenset(self._moved), set()
        if moved:
            self.poses_changed.emit(moved)
