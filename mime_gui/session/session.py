"""The headless application state, as a composition of four components, each with its own state and events:

- :attr:`Session.documents` (:class:`~mime_gui.session.documents.Documents`): the open document; opening,
  saving, bundles and exports;
- :attr:`Session.editing` (:class:`~mime_gui.session.editing.Editing`): the one door the rig changes through
  (:meth:`Session.apply`, an :mod:`~mime_gui.session.edits` value), undo, redo and the history;
- :attr:`Session.motion` (:class:`~mime_gui.session.motion.Motion`): the rig's chain node, each segment's
  command and state, time (:meth:`Session.tick`) and torque driving;
- :attr:`Session.view` (:class:`~mime_gui.session.view_state.ViewState`): selection, hidden items, layers and
  the attached :class:`~mime_gui.session.renderer.Renderer`.

Widgets never change state themselves: they call a :class:`Session` method, the session has the component
concerned validate and update its state, forward what the 3D view needs and emit an event; the widgets
refresh from the event. The session is the one door the widgets call, and the one place that says what
follows what across the components (an open restarts the chain node and clears the history; an edit draws
the rig again, restarts the node on it and drops a selection that is gone). Nothing outside writes a
component's state. Nothing here imports Qt, pyvista or vtk.

Events (each an :class:`~mime_gui.session.events.Event`, owned by its component and reachable here by name):

- ``document_changed(document)`` — a file was opened, reloaded or closed (``document`` or None);
- ``rig_changed(change)`` — an edit, undo or redo changed the rig (a :class:`ChangeSet`);
- ``findings_changed(findings)`` — the rules' findings of the rig changed (a tuple of Finding);
- ``history_changed()`` — undo/redo availability or the modified mark changed (also after a save);
- ``poses_changed(segment)`` — the joint positions (or the mount) of ``segment`` changed;
- ``selection_changed(item)`` — an :class:`ItemRef` or None;
- ``layers_changed(layer, visible)``;
- ``visibility_changed(item, visible)`` — one item hidden or shown (tree context menu);
- ``measures_changed(measures)`` — the list of measures changed (:meth:`~Session.add_measure`);
- ``stepped(dt, previous)`` — :meth:`~Session.tick` took a step (``previous``: name → NodeState before it);
- ``drive_changed(segment, drive)`` — a dynamic segment is now driven by ``"torques"`` or ``"positions"``;
- ``error(SessionError)`` — a refused file, edit, command or write; the previous state stays.

A dynamic segment may be driven by joint torques instead of positions (:meth:`~Session.set_drive`,
:meth:`~Session.set_torques`): each tick then advances it by forward dynamics
(:meth:`mime_gui.nodes.dynamic.DynamicArmNode.advance`, semi-implicit Euler in sub-steps of at most 1 ms, the
description's damping and friction, gravity and its mount's motion as the base's), its joint velocities kept
in its state; its state is published like a position-driven segment's, so what rides on it follows.
"""

from __future__ import annotations

import os

import numpy as np

from mime_gui.nodes import NodeState
from mime_gui.rig.apparatus import Apparatus
from mime_gui.session.document import Document, DrawnSegment
from mime_gui.session.documents import Documents
from mime_gui.session.editing import ChangeSet, Editing
from mime_gui.session.edits import Edit
from mime_gui.session.errors import SessionError
from mime_gui.session.events import Event
from mime_gui.session.history import History
from mime_gui.session.motion import Motion, carry
from mime_gui.session.reading import file_kind
from mime_gui.session.renderer import ItemRef, Renderer
from mime_gui.session.view_state import ViewState

__all__ = ["ChangeSet", "Session", "SessionError", "file_kind"]


#: the rig's collections nothing in the 3D view draws: an edit of them alone pushes nothing to the view
UNDRAWN = ("trajectories", "poses", "targets")


class Session:
    def __init__(self) -> None:
        self.error = Event("error")  # one for every component: what the window shows and logs
        self.documents = Documents(self.error)
        self.view = ViewState(lambda: self.documents.document, self.error)
        self.motion = Motion(self.documents, lambda: self.view.renderer, self.error, self.view.move_items)
        self.editing = Editing(self.documents.require, self._set_rig, self.error)
        # each component's events, by name
        self.document_changed = self.documents.document_changed
        self.rig_changed = self.editing.rig_changed
        self.findings_changed = self.editing.findings_changed
        self.history_changed = self.editing.history_changed
        self.poses_changed = self.motion.poses_changed
        self.stepped = self.motion.stepped
        self.drive_changed = self.motion.drive_changed
        self.selection_changed = self.view.selection_changed
        self.layers_changed = self.view.layers_changed
        self.visibility_changed = self.view.visibility_changed
        self.measures_changed = self.view.measures_changed
        self.document_changed.connect(self.view.measures.document_shown)  # drops what another file lacks

    # -- the document ----------------------------------------------------------------------------------
    @property
    def document(self) -> Document | None:
        return self.documents.document

    @property
    def segments(self) -> dict[str, DrawnSegment]:
        return self.documents.segments

    @property
    def path(self) -> str | None:
        return self.document.path if self.document else None

    @property
    def kind(self) -> str | None:
        return self.document.kind if self.document else None

    @property
    def rig(self) -> Apparatus | None:
        """The rig as written (possibly breaking rules); change it with :meth:`apply`."""
        return self.document.rig if self.document else None

    @property
    def findings(self) -> tuple:
        return self.document.findings if self.document else ()

    @property
    def modified(self) -> bool:
        """True between a change and the next save or open."""
        return self.document is not None and self.history.modified

    def segment(self, name: str) -> DrawnSegment:
        return self.documents.segment(name)

    def open(self, path: str | os.PathLike) -> Document:
        """Open a URDF (as a one-segment rig), a rig file or a bundle. A rig that breaks rules opens with its
        findings; a file that cannot be read at all emits ``error``, raises SessionError and keeps the
        document."""
        doc = self.documents.read(str(path))
        self._set_document(doc)
        return doc

    def open_apparatus(self, apparatus: Apparatus, path: str = "") -> Document:
        """Show a rig built in Python (an Apparatus), with its findings if it breaks rules."""
        try:
            doc = self.documents.new(apparatus, str(path), "rig")
        except SessionError as err:
            self.error.emit(err)
            raise
        self._set_document(doc)
        return doc

    def reload(self) -> Document | None:
        """Read the current file again, keeping joint positions where the joints still exist."""
        old = self.document
        if old is None:
            return None
        if not old.path:
            doc = self.open_apparatus(old.rig)
        else:
            # a bundle's extracted copy stays no file of the user's; extracted again if it was pruned
            path = old.bundle if old.bundle and not os.path.isfile(old.path) else old.path
            doc = self.documents.read(path, old.bundle)
            self._set_document(doc)
        for name, seg in doc.segments.items():
            prev = old.segments.get(name)
            if prev is None:
                continue
            q = carry(prev.articulation.joint_names, prev.q, seg.articulation.joint_names, seg.q)
            q = np.clip(q, seg.articulation.lower, seg.articulation.upper)
            if not np.array_equal(q, seg.q):
                self.set_joint_positions(name, q)
        return doc

    def close(self) -> None:
        self.documents.show(None)
        self.motion.stop()
        self.view.clear()
        self.history.clear()
        self.view.show()
        self.document_changed.emit(None)
        self.findings_changed.emit(())
        self.history_changed.emit()
        self.selection_changed.emit(None)
        self.motion.emit_dropped()

    def _set_document(self, doc: Document) -> None:
        self.motion.start(doc)
        self.documents.show(doc)
        self.history.clear()
        self.view.prune()
        self.view.show()
        self.document_changed.emit(doc)
        self.findings_changed.emit(doc.findings)
        self.history_changed.emit()
        self.selection_changed.emit(self.selection)
        self.motion.emit_dropped()

    # -- saving and exporting ----------------------------------------------------------------------------
    @property
    def writable(self) -> bool:
        """True when Save has a file of the user's to write: not for a rig built in Python and not for one
        opened from a bundle (its extracted copy lives in the bundle cache, which is pruned)."""
        return self.documents.writable

    def suggested_path(self) -> str:
        """Where Save writes without a name (:meth:`Documents.suggested_path
        <mime_gui.session.documents.Documents.suggested_path>`)."""
        return self.documents.suggested_path()

    def save(self, path: str | os.PathLike | None = None) -> str:
        """Write the rig to ``path`` (default: :meth:`suggested_path`), atomically; see
        :meth:`Documents.save <mime_gui.session.documents.Documents.save>`."""
        target, saved = self.documents.save(path, self.history)
        if saved:
            self.history_changed.emit()
        return target

    def export_read_report(self, path: str | os.PathLike) -> str:
        return self.documents.export_read_report(path)

    def export_json(self, path: str | os.PathLike) -> str:
        return self.documents.export_json(path)

    def export_python(self, path: str | os.PathLike) -> str:
        return self.documents.export_python(path)

    def export_bundle(self, path: str | os.PathLike) -> str:
        return self.documents.export_bundle(path)

    def export_simulator(self, path: str | os.PathLike, kind: str) -> str:
        """The rig as one URDF (``urdf``) or MuJoCo's MJCF (``mjcf``), its meshes beside it."""
        return self.documents.export_simulator(path, kind)

    # -- edits and history ---------------------------------------------------------------------------
    @property
    def history(self) -> History:
        return self.editing.history

    def apply(self, edit: Edit) -> ChangeSet:
        """Apply one edit: the only way the rig changes (:meth:`Editing.apply
        <mime_gui.session.editing.Editing.apply>`)."""
        return self.editing.apply(edit)

    def undo(self) -> ChangeSet | None:
        return self.editing.undo()

    def redo(self) -> ChangeSet | None:
        return self.editing.redo()

    def seal(self) -> None:
        """The next edit starts an undo step of its own, whatever it merges with."""
        self.editing.seal()

    def begin_gesture(self) -> None:
        """Edits of one field until :meth:`end_gesture` are one undo step (a handle dragged in the view)."""
        self.editing.begin_gesture()

    def end_gesture(self) -> None:
        self.editing.end_gesture()

    @property
    def can_undo(self) -> bool:
        return self.history.can_undo

    @property
    def can_redo(self) -> bool:
        return self.history.can_redo

    def _set_rig(self, rig: Apparatus, name: str, touched: frozenset) -> ChangeSet:
        """Put ``rig`` in place: drawn again, the chain node restarted on it (positions carried over), the
        view updated in place, a selection that is gone dropped."""
        doc = self.documents.require()
        previous = doc.segments
        old_findings = doc.findings
        added, changed, removed = self.documents.redraw(doc, rig)
        self.motion.start(doc, previous)
        change = ChangeSet(name, frozenset(touched), frozenset(added), frozenset(changed), frozenset(removed))
        selection_lost = self.view.prune()
        r = self.view.renderer
        # an edit of what nothing draws (a trajectory, a named pose) leaves the view as it is: no frame
        quiet = (not (added or changed or removed) and bool(touched)
                 and all(path.split(".", 1)[0] in UNDRAWN for path in touched))
        if r is not None and not quiet:
            r.update_segments({n: (doc.segments[n].tree, doc.segments[n].articulation)
                               for n in added | changed}, removed)
            r.set_dimmed(self.documents.stand_ins.refs)
            for n, seg in doc.segments.items():
                r.set_frame_poses(n, seg.world_X_frame)
            self.view.update_items()  # the parts, magnets and probes the edit added, changed or removed
            if selection_lost:  # the view keeps hidden items and the highlight across an update
                r.highlight(None)
            r.request_render()
        self.rig_changed.emit(change)
        if doc.findings != old_findings:
            self.findings_changed.emit(doc.findings)
        if selection_lost:
            self.selection_changed.emit(None)
        for n in doc.segments:
            self.poses_changed.emit(n)
        self.motion.emit_dropped()
        return change

    # -- commands, state and time ------------------------------------------------------------------------
    def joint_positions(self, segment: str) -> np.ndarray:
        """The segment's state: every joint's position (mimic followers included)."""
        return self.motion.joint_positions(segment)

    def command_names(self, segment: str) -> tuple[str, ...]:
        return self.motion.command_names(segment)

    def command(self, segment: str) -> np.ndarray:
        """The segment's command (its commanded joints, :meth:`command_names` order)."""
        return self.motion.command(segment)

    def set_command(self, segment: str, u) -> None:
        """Set the segment's command; the state follows on the next :meth:`tick`, through the servo lag."""
        self.motion.set_command(segment, u)

    def tick(self, dt: float) -> None:
        """Advance every segment by ``dt`` seconds with its command held, in mount order."""
        self.motion.tick(dt)

    def set_joint_positions(self, segment: str, q) -> None:
        """Place a segment here, no lag; what rides on it follows."""
        self.motion.set_joint_positions(segment, q)

    def reach(self, segment: str, frame: str, world_X_target, **options):
        """Bring a frame to a target pose over every joint from the world down to it; the answer becomes the
        commands (or the state at once with ``teleport=True``): :meth:`Motion.reach
        <mime_gui.session.motion.Motion.reach>`."""
        return self.motion.reach(segment, frame, world_X_target, **options)

    def show_state(self, states, commands=None) -> None:
        """Show states computed elsewhere (a row of a played trajectory), bit for bit."""
        self.motion.show_state(states, commands)

    def state(self, segment: str) -> NodeState:
        return self.motion.state(segment)

    def frame_angular_velocity(self, segment: str, frame: str) -> np.ndarray:
        return self.motion.frame_angular_velocity(segment, frame)

    def frame_world_pose(self, segment: str, frame: str) -> np.ndarray:
        return self.segment(segment).frame_pose(frame).copy()

    # -- torque driving ------------------------------------------------------------------------------------
    def drive(self, segment: str) -> str:
        """``"torques"`` when the segment is driven by joint torques, else ``"positions"``."""
        return self.motion.drive(segment)

    def can_drive_torques(self, segment: str) -> bool:
        return self.motion.can_drive_torques(segment)

    def torque_names(self, segment: str) -> tuple[str, ...]:
        return self.motion.torque_names(segment)

    def set_drive(self, segment: str, drive: str) -> None:
        self.motion.set_drive(segment, drive)

    def set_torques(self, segment: str, torques) -> None:
        self.motion.set_torques(segment, torques)

    def holding_torques(self, segment: str) -> np.ndarray:
        return self.motion.holding_torques(segment)

    def joint_inertias(self, segment: str) -> np.ndarray:
        return self.motion.joint_inertias(segment)

    def applied_torques(self, segment: str) -> np.ndarray:
        return self.motion.applied_torques(segment)

    def joint_velocities(self, segment: str) -> np.ndarray:
        return self.motion.joint_velocities(segment)

    # -- the view: selection, visibility, layers ------------------------------------------------------------
    @property
    def renderer(self) -> Renderer | None:
        return self.view.renderer

    @property
    def selection(self) -> ItemRef | None:
        return self.view.selection

    @property
    def layers(self) -> dict[str, bool]:
        return self.view.layers

    @property
    def hidden(self) -> frozenset[ItemRef]:
        return self.view.hidden

    def attach_renderer(self, renderer: Renderer | None) -> None:
        """Attach a view and bring it up to date (scene, poses, layers, highlight)."""
        self.view.attach(renderer)

    def has_item(self, item: ItemRef) -> bool:
        return self.view.has_item(item)

    def select(self, item: ItemRef | None) -> None:
        """Select an item (or clear with None); unknown items raise ``session.item``. Another selection
        starts another undo step."""
        if item != self.selection and (item is None or self.has_item(item)):
            self.editing.seal()
        self.view.select(item)

    def is_item_visible(self, item: ItemRef) -> bool:
        return self.view.is_item_visible(item)

    def set_item_visible(self, item: ItemRef, visible: bool) -> None:
        self.view.set_item_visible(item, visible)

    def set_layer_visible(self, layer: str, visible: bool) -> None:
        self.view.set_layer_visible(layer, visible)

    # -- measures: view state, neither saved with the rig nor undone (session/measures.py) ----------------
    @property
    def measures(self) -> tuple:
        return self.view.measures.all

    def measure_end(self, item: ItemRef, world_point=None):
        """The measure's end ``item`` stands for; with ``world_point``, the point fixed on its frame there."""
        return self.view.measures.end(item, world_point)

    def add_measure(self, a, b, axes=None):
        return self.view.measures.add(a, b, axes)

    def remove_measure(self, measure) -> None:
        self.view.measures.remove(measure)

    def clear_measures(self) -> None:
        self.view.measures.clear()

    def measure_readings(self) -> tuple:
        """Each measure now, from the published poses: a Reading, or the MeasureError of a stale one."""
        return self.view.measures.readings()
