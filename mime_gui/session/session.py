"""The headless application state: the open document, its history, the segments' commands and state,
selection and display layers.

Widgets never change state themselves: they call a :class:`Session` method, the Session validates, updates
its state, forwards what the 3D view needs to the attached :class:`~mime_gui.session.renderer.Renderer` and
emits an event; the widgets refresh from the event. Nothing here imports Qt, pyvista or vtk.

The rig changes through one door, :meth:`Session.apply` (an :mod:`~mime_gui.session.edits` value), which
validates it, builds it when the rules pass, updates the view in place and records the step for
:meth:`~Session.undo` and :meth:`~Session.redo`. Time goes through the rig's chain node: each segment has a
command (:meth:`~Session.set_command`) apart from its state, and :meth:`~Session.tick` advances every segment
by ``dt`` in mount order; :meth:`~Session.set_joint_positions` places a segment with no lag;
:meth:`~Session.show_state` shows a row of a trajectory played elsewhere (:mod:`mime_gui.session.player`).

Events (each an :class:`~mime_gui.session.events.Event`):

- ``document_changed(document)`` — a file was opened, reloaded or closed (``document`` or None);
- ``rig_changed(change)`` — an edit, undo or redo changed the rig (a :class:`ChangeSet`);
- ``findings_changed(findings)`` — the rules' findings of the rig changed (a tuple of Finding);
- ``history_changed()`` — undo/redo availability or the modified mark changed (also after a save);
- ``poses_changed(segment)`` — the joint positions (or the mount) of ``segment`` changed;
- ``selection_changed(item)`` — an :class:`ItemRef` or None;
- ``layers_changed(layer, visible)``;
- ``visibility_changed(item, visible)`` — one item hidden or shown (tree context menu);
- ``stepped(dt, previous)`` — :meth:`~Session.tick` took a step (``previous``: name → NodeState before it);
- ``drive_changed(segment, drive)`` — a dynamic segment is now driven by ``"torques"`` or ``"positions"``;
- ``error(SessionError)`` — a refused file, edit, command or write; the previous state stays.

A dynamic segment may be driven by joint torques instead of positions (:meth:`~Session.set_drive`,
:meth:`~Session.set_torques`): each tick then advances it by forward dynamics
(:meth:`mime_gui.nodes.dynamic.DynamicArmNode.advance`, semi-implicit Euler in sub-steps of at most 1 ms, the
description's damping and friction, gravity and its mount's motion as the base's), keeping its joint
velocities; its state is published like a position-driven segment's, so what rides on it follows.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mime_gui import inputs
from mime_gui.errors import CodedError
from mime_gui.files import write_atomic
from mime_gui.multibody import UrdfError
from mime_gui.nodes import NodeState
from mime_gui.rig import paths as rig_paths
from mime_gui.rig.apparatus import Apparatus
from mime_gui.rig.build import build, display_segments
from mime_gui.rig.chain_node import ChainNode, ChainSegment, riders_of
from mime_gui.rig.findings import RigError
from mime_gui.rig.rules import analyse
from mime_gui.rig.segments import Arm, _ArmSegment, _MotorSegment
from mime_gui.session.document import Document, Segment
from mime_gui.session.edits import Edit, EditError
from mime_gui.session.events import Event
from mime_gui.session.history import History, Step
from mime_gui.session.live_torques import BaseTrack, base_pose
from mime_gui.session.renderer import DEFAULT_LAYERS, LAYERS, ItemRef, Renderer
from mime_gui.session.stand_ins import StandIns

ITEM_KINDS = ("segment", "link", "joint", "frame", "part", "magnet")


class SessionError(CodedError):
    """A refused file or command, with a stable ``code`` and its place (``file``, ``line``); its text is
    :meth:`~mime_gui.errors.CodedError.one_line`, as the window and its log show it."""

    def __init__(self, code: str, message: str, file: str = "", line: int = 0):
        super().__init__(code, message, file, line)
        self.args = (self.one_line(),)  # the command line's shape, not the bare diagnostic

    @classmethod
    def from_urdf(cls, err: UrdfError) -> SessionError:
        return cls(err.code, err.diagnostic.message, err.file, err.line)


@dataclass(frozen=True)
class ChangeSet:
    """What one edit, undo or redo changed: its name, the item paths it touched (``parts.holder``), and the
    drawn segments added, changed (a new tree: rebuilt in the view) or removed."""

    name: str
    paths: frozenset = frozenset()
    added: frozenset = frozenset()
    changed: frozenset = frozenset()
    removed: frozenset = frozenset()


def file_kind(path: str) -> str:
    """'urdf' or 'rig' from a file name; raises a coded SessionError for anything else."""
    lower = str(path).lower()
    if lower.endswith(".rig.json"):
        return "rig"
    if lower.endswith((".urdf", ".xml")):
        return "urdf"
    raise SessionError("file.kind", "not a URDF (.urdf) or rig (.rig.json) file; open one of those",
                       str(path))


def _discover_actuators(path: str) -> None:
    """The lab's actuators (entry points, the config's and the file's folder's actuators.json) found again,
    so the app sees the list the command line does; a bad record is a SessionError."""
    from mime_gui.rig.actuator_sources import discover

    try:
        discover(Path(path).resolve().parent)
    except CodedError as exc:
        raise SessionError(exc.code, exc.message, exc.diagnostic.file or path) from None


def _open_bundle(path: str) -> str:
    """The rig file of the bundle ``path``, extracted into the bundle cache; a refusal is a SessionError."""
    from mime_gui.rig.bundle import open_bundle

    try:
        return str(open_bundle(path))
    except CodedError as exc:
        raise SessionError(exc.code, exc.message, path) from None


def _confine_extracted(path: str, bundle: str) -> None:
    """Refuse (``bundle.outside``) the bundle's extracted rig ``path`` read again from the cache when a file
    it names is outside its extraction, a link put there since included."""
    from mime_gui.rig.bundle import BundleError, confine

    try:
        confine(path, os.path.dirname(os.path.abspath(path)), bundle)
    except BundleError as exc:
        raise SessionError(exc.code, exc.message, bundle) from None


def _segment_name(name: str, path: str) -> str:
    """A valid segment name from a robot's name (no dots, no surrounding spaces), else the file's stem."""
    name = (name or "").strip().replace(".", "_")
    return name or Path(path).name.split(".")[0] or "arm"


def urdf_rig(path: str) -> Apparatus:
    """The one-segment rig around a URDF: an ``Arm.Kinematic`` on the file, beside which it is saved.
    Raises a coded SessionError when the URDF cannot be read."""
    folder = os.path.dirname(os.path.abspath(path))
    arm = Arm.Kinematic(description=os.path.basename(path))
    try:
        tree = arm.tree(folder)
    except UrdfError as err:
        raise SessionError.from_urdf(err) from None
    name = _segment_name(tree.name, path)
    return Apparatus(name, chain={name: arm}, base=folder)


def _rig_error(err: Exception, path: str, default_code: str = "rig.invalid") -> SessionError:
    """A coded SessionError from a refused rig: its first finding (and a few more), or its own code."""
    findings = getattr(err, "findings", None)
    if findings:
        first = findings[0]
        more = f" (and {len(findings) - 1} more: " + "; ".join(str(f) for f in findings[1:4]) + ")" \
            if len(findings) > 1 else ""
        return SessionError(first.code, f"{first.where}: {first.message}{more}", path)
    code = getattr(err, "code", None) or default_code
    message = str(getattr(err, "message", None) or err)
    pointer = getattr(err, "pointer", "")
    if pointer:
        message = f"at {pointer}: {message}"
    diagnostic = getattr(err, "diagnostic", None)
    return SessionError(code, message, getattr(err, "file", "") or path, getattr(diagnostic, "line", 0))


def _load_rig(path: str) -> Apparatus:
    from mime_gui.rig import load

    try:
        return load(path)
    except UrdfError as err:
        raise SessionError.from_urdf(err) from None
    except (ValueError, KeyError, TypeError, OSError) as err:
        raise _rig_error(err, str(path)) from None


def _copy_atomic(source: str, target: str, kind: str) -> None:
    """Copy ``source`` (a regular file within the limit of ``kind``) over ``target`` or leave ``target`` as
    it was."""
    write_atomic(target, inputs.read_bytes(source, kind))


def _same_bytes(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` hold the same bytes; False when either is not a regular file that reads."""
    try:
        return inputs.read_bytes(a, "bundle") == inputs.read_bytes(b, "bundle")
    except (inputs.FileError, OSError):
        return False


def _bundle_copies(source: Path, rig_file: str, folder: Path) -> list[tuple[Path, Path, bool]]:
    """(file, its copy under ``folder``, already there with the same bytes) for every file of the extracted
    bundle ``source`` but its rig file; links are not followed (an extraction holds none)."""
    out = []
    for root, _dirs, files in os.walk(source, followlinks=False):
        for name in sorted(files):
            src = Path(root) / name
            rel = src.relative_to(source)
            if rel.as_posix() == rig_file or src.is_symlink():
                continue
            dest = folder / rel
            same = dest.is_file() and dest.stat().st_size == src.stat().st_size and _same_bytes(dest, src)
            out.append((src, dest, same))
    return out


def _rebaser(old: Path, new: Path):
    """A function giving a rig whose ``base`` is ``old`` the same rig read against ``new`` (relative paths
    then name the copies there); the same copy for the same rig, so history steps keep sharing it."""
    done: dict[int, Apparatus] = {}

    def rebase(rig: Apparatus) -> Apparatus:
        if rig.base is None or Path(rig.base).resolve() != old:
            return rig
        if id(rig) not in done:
            moved = copy.copy(rig)
            moved.base = new
            done[id(rig)] = moved
        return done[id(rig)]

    return rebase


def _drawing_key(name: str, rig: Apparatus):
    """What a segment's drawn tree depends on: its description (not where it is placed) and the parts
    mounted on it. Equal keys: the tree and articulation of the last drawing still hold."""
    seg = rig.chain[name]
    fields = {"at": (0.0, 0.0, 0.0), "orientation": (1.0, 0.0, 0.0, 0.0), "mount": None,
              "servo_time_constant": 0.0}
    if isinstance(seg, _ArmSegment):
        fields["initial_positions"] = {}
    elif isinstance(seg, _MotorSegment):
        fields["initial_position"] = 0.0
    try:
        bare = dataclasses.replace(seg, **fields)
    except (TypeError, ValueError):
        bare = seg
    prefix = name + "."
    mounted = tuple((c, n, p) for c, n, p in rig.solids()
                    if isinstance(p.mount, str) and p.mount.startswith(prefix))
    return (type(seg), bare, mounted, str(rig.base))


def _carry(old_names, old_values, new_names, default) -> np.ndarray:
    """Values by joint name from an older articulation (joints that are gone are dropped, new ones take
    ``default``)."""
    before = dict(zip(old_names, old_values, strict=True))
    return np.array([before.get(j, d) for j, d in zip(new_names, default, strict=True)], dtype=float)


def _command_names(art) -> tuple[str, ...]:
    """The commanded joints of an articulation (every movable joint but mimic followers)."""
    return tuple(art.joint_names[i] for i in np.flatnonzero(~np.asarray(art.is_mimic)))


def _readonly(a) -> np.ndarray:
    a = np.array(a, dtype=float)
    a.setflags(write=False)
    return a


class Session:
    def __init__(self) -> None:
        self.document: Document | None = None
        self.selection: ItemRef | None = None
        self.layers: dict[str, bool] = dict(DEFAULT_LAYERS)
        self.hidden: set[ItemRef] = set()
        self.renderer: Renderer | None = None
        self.history = History()
        self.stand_ins = StandIns()  # parts drawn as they were while their shape is being fixed
        self._node: ChainNode | None = None
        self._state: dict = {}
        self.document_changed = Event("document_changed")
        self.rig_changed = Event("rig_changed")
        self.findings_changed = Event("findings_changed")
        self.history_changed = Event("history_changed")
        self.poses_changed = Event("poses_changed")
        self.selection_changed = Event("selection_changed")
        self.layers_changed = Event("layers_changed")
        self.visibility_changed = Event("visibility_changed")
        self.stepped = Event("stepped")
        self.drive_changed = Event("drive_changed")
        self.error = Event("error")
        self._drives: dict[str, TorqueDrive] = {}  # torque-driven segments
        self.recording = False  # set while a recording runs (torque driving is not recorded)

    # -- renderer ----------------------------------------------------------------------------------
    def attach_renderer(self, renderer: Renderer | None) -> None:
        """Attach a view and bring it up to date (scene, poses, layers, highlight)."""
        self.renderer = renderer
        if renderer is None:
            return
        for layer, on in self.layers.items():
            renderer.set_layer_visible(layer, on)
        self._show_document()

    def _show_document(self) -> None:
        r = self.renderer
        if r is None:
            return
        segments = self.segments
        r.show_segments({name: (seg.tree, seg.articulation) for name, seg in segments.items()})
        for name, seg in segments.items():
            r.set_frame_poses(name, seg.world_X_frame)
        for item in self.hidden:
            r.set_item_visible(item, False)
        r.highlight(self.selection)
        r.request_render()

    # -- document ----------------------------------------------------------------------------------
    @property
    def segments(self) -> dict[str, Segment]:
        return self.document.segments if self.document else {}

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

    def segment(self, name: str) -> Segment:
        try:
            return self.segments[name]
        except KeyError:
            raise SessionError("session.segment", f"no segment {name!r}; segments: "
                               f"{', '.join(self.segments) or '(none)'}") from None

    def open(self, path: str | os.PathLike) -> Document:
        """Open a URDF (as a one-segment rig) or a rig file. A rig that breaks rules opens with its findings;
        a file that cannot be read at all emits ``error``, raises SessionError and keeps the document."""
        return self._open(str(path))

    def _open(self, path: str, bundle: str = "") -> Document:
        try:
            if not os.path.exists(path):
                raise SessionError("file.not-found", "no such file; check the path", path)
            if os.path.isdir(path):
                raise SessionError("file.kind", "this is a folder; open a .urdf or .rig.json file", path)
            if path.lower().endswith(".zip"):  # a rig bundle opens as the rig it holds, extracted
                bundle = os.path.abspath(path)
                path = _open_bundle(path)
            elif bundle:  # a bundle's extraction read again (reload): still only its own files
                _confine_extracted(path, bundle)
            kind = file_kind(path)
            rig = urdf_rig(path) if kind == "urdf" else _load_rig(path)
            _discover_actuators(path)
            doc = self._document(rig, path, kind)
            doc.bundle = bundle
        except SessionError as err:
            self.error.emit(err)
            raise
        self._set_document(doc)
        return doc

    def open_apparatus(self, apparatus: Apparatus, path: str = "") -> Document:
        """Show a rig built in Python (an Apparatus), with its findings if it breaks rules."""
        try:
            doc = self._document(apparatus, str(path), "rig")
        except SessionError as err:
            self.error.emit(err)
            raise
        self._set_document(doc)
        return doc

    def _document(self, rig: Apparatus, path: str, kind: str) -> Document:
        """A new document: the rules run, the rig is built when they pass; an unreadable description is a
        refusal (nothing of that segment could be drawn or fixed here)."""
        try:
            analysis = analyse(rig)
        except (ValueError, TypeError, OverflowError) as err:
            raise _rig_error(err, path) from None
        unreadable = [f for f in analysis.findings if f.code == "chain.description"]
        if unreadable:
            raise _rig_error(RigError(unreadable), path)
        doc = Document(path, kind, rig)
        self.stand_ins.clear()  # the last document's parts are no stand-ins of this one's
        self._rebuild(doc, analysis)
        return doc

    def _rebuild(self, doc: Document, analysis, previous: dict[str, Segment] | None = None) \
            -> tuple[set, set, set]:
        """Findings, the build (when valid) and the drawn segments of ``doc.rig``; segments whose drawing
        key is unchanged keep their tree, articulation and state. Returns (added, changed, removed)."""
        rig = doc.rig
        previous = previous or {}
        strict = not analysis.findings  # a valid rig is drawn from its build, another leniently
        keys = {name: (strict, _drawing_key(name, rig)) for name in rig.chain}
        reuse = {name: (old.tree, old.articulation) for name, old in previous.items()
                 if name in keys and old.key == keys[name]}
        doc.findings = tuple(analysis.findings)
        drawn = None
        if strict:
            try:
                doc.built = build(rig, analysis, reuse)
                drawn = doc.built.segments
            except (ValueError, TypeError, KeyError, OverflowError) as err:  # a build the rules missed
                doc.findings = (_as_finding(err),)
        if drawn is None:
            # a part whose shape or place is being fixed is drawn as it last was (session/stand_ins.py)
            shown, shown_analysis = self.stand_ins.display(rig, analysis)
            drawn = display_segments(shown, shown_analysis, reuse if not strict and shown is rig else None)
            keys = {name: (False, key if shown is rig else (key, self.stand_ins.refs))
                    for name, (_, key) in keys.items()}
        else:
            self.stand_ins.display(rig, analysis)  # remembers every part as drawn now
        segments: dict[str, Segment] = {}
        added, changed = set(), set()
        for name, built in drawn.items():
            old = previous.get(name)
            if old is None or old.key != keys[name] or old.articulation is not built.articulation:
                (changed if old is not None else added).add(name)
            art = built.articulation
            segments[name] = Segment(name, built.tree, art, np.zeros(art.nq), np.zeros((art.nframes, 4, 4)),
                                     kind=built.segment.kind, mount=built.mount,
                                     placement=np.asarray(built.placement, dtype=float), key=keys[name],
                                     grafts=built.grafts)
            segments[name].initial = dict(getattr(built.segment, "initial_positions", {}) or {})
        removed = set(previous) - set(segments)
        doc.segments = segments
        return added, changed, removed

    def _start(self, doc: Document, previous: dict[str, Segment] | None = None) -> None:
        """The chain node of the drawn segments and their state: positions and commands carried over by
        joint name from ``previous``, else the rig's initial positions, at rest on their mounts. Every
        segment is driven by positions again."""
        self._dropped = list(self._drives)
        self._drives.clear()
        previous = previous or {}
        old_node, old_state = (self._node, self._state) if previous else (None, {})
        self._node = ChainNode({n: ChainSegment(s.articulation, s.placement, s.mount,
                                                _servo(doc.rig, n)) for n, s in doc.segments.items()},
                               reuse=old_node)
        positions, commands, keep = {}, {}, {}
        for name, seg in doc.segments.items():
            node = self._node.nodes[name]
            art = seg.articulation
            init = np.clip([getattr(seg, "initial", {}).get(j, 0.0) for j in art.joint_names], art.lower,
                           art.upper)
            old = previous.get(name)
            if old is not None:
                init = _carry(old.articulation.joint_names, old.q, art.joint_names, init)
            positions[name] = node.held(init)
            command = positions[name][[art.joint_index(j) for j in node.command_names]]
            if old is not None and old.command is not None:
                command = _carry(_command_names(old.articulation), old.command, node.command_names, command)
            commands[name] = command
            if (old is not None and old_node is not None and old_node.nodes.get(name) is node
                    and old.mount == seg.mount and np.array_equal(old.q, positions[name])):
                keep[name] = old_state[name]  # nothing of it changed: its poses stand
        self._state = self._node.initial_state(positions, keep)
        for name, seg in doc.segments.items():
            seg.command = _readonly(commands[name])
            self._sync(seg, self._state[name])

    @staticmethod
    def _sync(seg: Segment, state) -> None:
        seg.q = state.joint_positions
        seg.world_X_frame = state.frame_poses

    def _set_document(self, doc: Document) -> None:
        self._start(doc)
        self.document = doc
        self.history.clear()
        self.hidden = {item for item in self.hidden if self.has_item(item)}
        if self.selection is not None and not self.has_item(self.selection):
            self.selection = None
        self._show_document()
        self.document_changed.emit(doc)
        self.findings_changed.emit(doc.findings)
        self.history_changed.emit()
        self.selection_changed.emit(self.selection)
        self._emit_dropped()

    def _emit_dropped(self) -> None:
        dropped, self._dropped = getattr(self, "_dropped", []), []
        for name in dropped:
            self.drive_changed.emit(name, "positions")

    def close(self) -> None:
        self.document = None
        self.selection = None
        self._node, self._state = None, {}
        self._dropped = list(self._drives)
        self._drives.clear()
        self.hidden.clear()
        self.history.clear()
        self._show_document()
        self.document_changed.emit(None)
        self.findings_changed.emit(())
        self.history_changed.emit()
        self.selection_changed.emit(None)
        self._emit_dropped()

    # -- edits and history ---------------------------------------------------------------------------
    def apply(self, edit: Edit) -> ChangeSet:
        """Apply one edit: the only way the rig changes. The rules run and the rig is built when they pass;
        the view updates in place; the step is recorded for undo. A refused edit (``edit.*``) emits
        ``error`` and changes nothing."""
        doc = self._require()
        before = doc.rig
        try:
            after = edit.apply(before)
        except EditError as err:
            raise self._fail(err.code, err.message, err.where) from None
        change = self._set_rig(after, edit.name, edit.touched(before) | edit.touched(after))
        self.history.push(Step(edit.name, before, after, edit.merge_key))
        self.history_changed.emit()
        return change

    def undo(self) -> ChangeSet | None:
        step = self.history.undo()
        if step is None:
            return None
        change = self._set_rig(step.before, f"Undo {step.name}", self._touched(step))
        self.history_changed.emit()
        return change

    def redo(self) -> ChangeSet | None:
        step = self.history.redo()
        if step is None:
            return None
        change = self._set_rig(step.after, f"Redo {step.name}", self._touched(step))
        self.history_changed.emit()
        return change

    def seal(self) -> None:
        """The next edit starts an undo step of its own, whatever it merges with (an entry into another
        field of a form)."""
        self.history.seal()

    @property
    def can_undo(self) -> bool:
        return self.history.can_undo

    @property
    def can_redo(self) -> bool:
        return self.history.can_redo

    @staticmethod
    def _touched(step: Step) -> frozenset:
        out = set()
        for rig in (step.before, step.after):
            out.update(rig_paths.item_paths(rig))
        return frozenset(p for p in out
                         if not rig_paths.exists(step.before, p) or not rig_paths.exists(step.after, p)
                         or rig_paths.get(step.before, p) != rig_paths.get(step.after, p)) | \
            (frozenset({"name"}) if step.before.name != step.after.name else frozenset())

    def _set_rig(self, rig: Apparatus, name: str, touched: frozenset) -> ChangeSet:
        doc = self._require()
        previous = doc.segments
        old_findings = doc.findings
        doc.rig = rig
        added, changed, removed = self._rebuild(doc, analyse(rig), previous)
        self._start(doc, previous)
        change = ChangeSet(name, frozenset(touched), frozenset(added), frozenset(changed), frozenset(removed))
        if self.selection is not None and not self.has_item(self.selection):
            self.selection = None
            selection_lost = True
        else:
            selection_lost = False
        self.hidden = {item for item in self.hidden if self.has_item(item)}
        r = self.renderer
        if r is not None:
            r.update_segments({n: (doc.segments[n].tree, doc.segments[n].articulation)
                               for n in added | changed}, removed)
            if hasattr(r, "set_dimmed"):
                r.set_dimmed(self.stand_ins.refs)
            for n, seg in doc.segments.items():
                r.set_frame_poses(n, seg.world_X_frame)
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
        self._emit_dropped()
        return change

    def _require(self) -> Document:
        if self.document is None:
            raise self._fail("session.no-document", "nothing is open")
        return self.document

    # -- saving and exporting --------------------------------------------------------------------------
    @property
    def writable(self) -> bool:
        """True when Save has a file of the user's to write: not for a rig built in Python and not for one
        opened from a bundle (its extracted copy lives in the bundle cache, which is pruned)."""
        doc = self.document
        return doc is not None and bool(doc.path) and not doc.bundle

    def suggested_path(self) -> str:
        """Where Save writes without a name: the rig file, or beside a URDF ``<name>.rig.json``; for a rig
        opened from a bundle, a folder beside the bundle: ``<stem>/<stem>.rig.json`` (a suggestion only:
        :meth:`save` needs the name given)."""
        doc = self.document
        if doc is None:
            return ""
        if doc.bundle:
            stem = Path(doc.bundle).name.removesuffix(".zip").removesuffix(".ZIP") or "rig"
            return os.path.join(os.path.dirname(doc.bundle), stem, stem + ".rig.json")
        if doc.kind == "urdf" and doc.path:
            folder = os.path.dirname(os.path.abspath(doc.path))
            return os.path.join(folder, Path(doc.path).name.split(".")[0] + ".rig.json")
        return doc.path

    def save(self, path: str | os.PathLike | None = None) -> str:
        """Write the rig to ``path`` (default: :meth:`suggested_path`), atomically. A URDF document saved
        under a ``.urdf`` name is a copy of its file (while nothing was added to it). A rig opened from a
        bundle needs ``path`` (``session.no-path`` without it): see :meth:`_save_bundled`."""
        doc = self.document
        if doc is None:
            raise self._fail("session.no-document", "nothing is open")
        if doc.bundle and not path:
            raise self._fail("session.no-path", f"this rig was opened from the bundle {doc.bundle} and has "
                             "no file of its own (its extracted copy is in the bundle cache, which is "
                             f"pruned); save it under a name, for example {self.suggested_path()}")
        target = str(path or self.suggested_path())
        if not target:
            raise self._fail("session.no-path", "this rig has no file yet; save it under a name")
        if doc.bundle:
            return self._save_bundled(doc, target)
        copy_urdf = doc.kind == "urdf" and target.lower().endswith((".urdf", ".xml"))
        if copy_urdf and (doc.rig.parts or doc.rig.magnets or len(doc.rig.chain) != 1 or self.modified):
            raise self._fail("session.save-kind", "this rig holds more than its URDF; save it as a "
                                                  ".rig.json file")

        def write() -> None:
            if copy_urdf:
                if os.path.abspath(target) != os.path.abspath(doc.path):
                    _copy_atomic(doc.path, target, "urdf")
                return
            from mime_gui.rig import save

            save(doc.rig, target)

        self._write(target, write)
        if not copy_urdf:
            doc.path, doc.kind = target, "rig"
            self.history.mark_saved()
            self.history_changed.emit()
        return target

    def _save_bundled(self, doc: Document, target: str) -> str:
        """Save a rig opened from a bundle under ``target``: the bundle's other files (its URDFs and meshes,
        in their folders) are copied beside it first, so the saved rig names files of its own and not the
        cache's. A file already there with other bytes is refused (``session.save-bundle``), nothing
        written."""
        from mime_gui.rig import save

        source = Path(doc.path).resolve().parent
        folder = Path(os.path.abspath(target)).parent
        files = source
        if not Path(doc.path).is_file():  # pruned by another program meanwhile: the bundle again
            if not os.path.isfile(doc.bundle):
                raise self._fail("session.save-bundle", f"the bundle's extracted files were removed from the "
                                 f"cache and the bundle {doc.bundle} is gone too, so its files cannot be "
                                 "saved with the rig; put the bundle back and save again", target)
            try:
                files = Path(_open_bundle(doc.bundle)).parent
            except SessionError as err:
                self.error.emit(err)
                raise
        copies = [] if folder.resolve() == source else _bundle_copies(files, Path(doc.path).name, folder)
        for _src, dest, same in copies:
            if dest.exists() and not same:
                raise self._fail("session.save-bundle", f"{dest} is already there with other content than "
                                 f"the bundle's; save into an empty folder (for example "
                                 f"{self.suggested_path()})", target)
        rebase = _rebaser(source, folder)

        def write() -> None:
            folder.mkdir(parents=True, exist_ok=True)
            for src, dest, same in copies:
                if not same:
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    _copy_atomic(str(src), str(dest), "bundle")  # bounded as the bundle was
            save(rebase(doc.rig), target)

        self._write(target, write)
        doc.rig = rebase(doc.rig)
        self.history.map_rigs(rebase)  # undo and redo keep naming the saved copies, not the cache's
        doc.path, doc.kind, doc.bundle = target, "rig", ""
        self.history.mark_saved()
        self.history_changed.emit()
        return target

    def export_read_report(self, path: str | os.PathLike) -> str:
        """Write the read report of every segment as JSON (segment name → report), atomically."""
        doc = self.document
        if doc is None:
            raise self._fail("session.no-document", "nothing is open")
        target = str(path)
        reports = {name: report.to_dict() for name, report in doc.reports().items()}

        self._write(target, lambda: write_atomic(target, json.dumps(reports, indent=2)))
        return target

    def export_json(self, path: str | os.PathLike) -> str:
        """Write the rig as a rig file with its provenance, as ``mime-gui export --json`` writes it (the same
        function), without changing the document's own file; a rig that breaks rules is refused with its
        first finding's code."""
        doc = self.document
        if doc is None:
            raise self._fail("session.no-document", "nothing is open")
        target = str(path)

        def write() -> None:
            from mime_gui.rig.export import export_json

            export_json(doc.rig, target)

        self._write(target, write)
        return target

    def export_python(self, path: str | os.PathLike) -> str:
        """Write the rig as MIME-style Python, atomically; a rig that breaks rules is refused with its first
        finding's code."""
        doc = self.document
        if doc is None:
            raise self._fail("session.no-document", "nothing is open")
        target = str(path)

        def write() -> None:
            from mime_gui.rig.export import export_python

            export_python(doc.rig, target, source=doc.name)

        self._write(target, write)
        return target

    def export_bundle(self, path: str | os.PathLike) -> str:
        """Write the rig and every file it references as a bundle (a zip), as ``mime-gui export --bundle``
        writes it (the same function); a rig that breaks rules, a file it names that is missing
        (``bundle.missing``) or anything opening would refuse writes nothing."""
        doc = self.document
        if doc is None:
            raise self._fail("session.no-document", "nothing is open")
        target = str(path)

        def write() -> None:
            from mime_gui.rig.bundle import write_bundle
            from mime_gui.rig.findings import RigError

            findings = doc.rig.validate()
            if findings:
                raise RigError(findings)
            write_bundle(doc.rig, target)

        self._write(target, write)
        return target

    def _write(self, target: str, write) -> None:
        """Run ``write()``; a failure emits ``error`` and raises a coded SessionError naming ``target``."""
        try:
            write()
        except OSError as err:
            raise self._fail("session.write", f"cannot write {target}: {err.strerror or err}") from None
        except ValueError as err:
            coded = _rig_error(err, target, "session.write")
            self.error.emit(coded)
            raise coded from None

    def reload(self) -> Document | None:
        """Read the current file again, keeping joint positions where the joints still exist."""
        if self.document is None:
            return None
        old = self.document
        if not old.path:
            doc = self.open_apparatus(old.rig)
        else:
            # a bundle's extracted copy stays no file of the user's; extracted again if it was pruned
            path = old.bundle if old.bundle and not os.path.isfile(old.path) else old.path
            doc = self._open(path, old.bundle)
        for name, seg in doc.segments.items():
            prev = old.segments.get(name)
            if prev is None:
                continue
            q = _carry(prev.articulation.joint_names, prev.q, seg.articulation.joint_names, seg.q)
            q = np.clip(q, seg.articulation.lower, seg.articulation.upper)
            if not np.array_equal(q, seg.q):
                self.set_joint_positions(name, q)
        return doc

    # -- commands, state and time ------------------------------------------------------------------------
    def joint_positions(self, segment: str) -> np.ndarray:
        """The segment's state: every joint's position (mimic followers included)."""
        return np.array(self.segment(segment).q)

    def command_names(self, segment: str) -> tuple[str, ...]:
        self.segment(segment)
        return self._node.nodes[segment].command_names

    def command(self, segment: str) -> np.ndarray:
        """The segment's command (its commanded joints, :meth:`command_names` order)."""
        return np.array(self.segment(segment).command)

    def _values(self, segment: str, values, names: tuple[str, ...], current: np.ndarray,
                full: int | None = None) -> np.ndarray:
        art = self.segment(segment).articulation
        if isinstance(values, dict):
            out = np.array(current, dtype=float)
            for name, value in values.items():
                if name not in names:
                    if name in art.joint_names:
                        raise self._fail("session.joint", f"joint {name!r} of {segment!r} follows another "
                                                          "(mimic); command its master")
                    raise self._fail("session.joint", f"no joint {name!r} in {segment!r}; joints: "
                                                      f"{', '.join(names)}")
                out[names.index(name)] = float(value)
        else:
            out = np.array(values, dtype=float)
            if out.shape != (len(names),) and (full is None or out.shape != (full,)):
                raise self._fail("session.q-shape", f"segment {segment!r} has {len(names)} joints, "
                                 f"got an array of shape {out.shape}")
        if not np.all(np.isfinite(out)):
            bad = [names[i] if out.shape == (len(names),) else str(i)
                   for i in np.flatnonzero(~np.isfinite(out))]
            raise self._fail("session.q-non-finite",
                             f"joint positions must be finite (not: {', '.join(bad)})")
        return out

    def set_command(self, segment: str, u) -> None:
        """Set the segment's command (its commanded joints, or a mapping joint → value); the state follows
        on the next :meth:`tick`, through the servo lag."""
        seg = self.segment(segment)
        names = self._node.nodes[segment].command_names
        seg.command = _readonly(self._values(segment, u, names, seg.command))

    def tick(self, dt: float) -> None:
        """Advance every segment by ``dt`` seconds with its command held, in mount order."""
        if self._node is None or not self._state:
            return
        dt = float(dt)
        if not (np.isfinite(dt) and dt > 0):
            raise self._fail("session.dt", f"a step is a positive number of seconds, got {dt}")
        commands = {n: s.command for n, s in self.segments.items()}
        old = self._state
        diverged: list[tuple[str, str]] = []
        drivers = {n: drive.driver(n, dt, diverged) for n, drive in self._drives.items()}
        self._state = self._node.advance(old, commands, dt, drivers)
        for name, message in diverged:  # back at its last finite state, driven by positions
            del self._drives[name]
            self._hold(name)
            self.drive_changed.emit(name, "positions")
            self._fail("session.diverged", f"{message}; {name!r} stopped at its last finite state and is "
                       "driven by positions again")
        self.stepped.emit(dt, old)
        moved = [n for n in self._node.order
                 if not np.array_equal(old[n].frame_poses, self._state[n].frame_poses)]
        self._publish(moved)

    def set_joint_positions(self, segment: str, q) -> None:
        """Place a segment here (every joint, or its commanded joints, or a mapping joint name → value):
        state = command, no lag; what rides on it follows."""
        seg = self.segment(segment)
        art = seg.articulation
        node = self._node.nodes[segment]
        if isinstance(q, dict):
            values = np.array(seg.q, dtype=float)
            for name, value in q.items():
                try:
                    values[art.joint_index(name)] = float(value)
                except KeyError as err:
                    raise self._fail("session.joint", str(err.args[0])) from None
            if not np.all(np.isfinite(values)):
                raise self._fail("session.q-non-finite", "joint positions must be finite")
        else:
            values = self._values(segment, q, art.joint_names, seg.q)
        self._state = self._node.place(self._state, segment, values)
        held = self._state[segment].joint_positions
        seg.command = _readonly(held[[art.joint_index(j) for j in node.command_names]])
        moved = riders_of(self._node.mounts, segment)
        self._rest(moved)
        self._publish(moved)

    def show_state(self, states, commands=None) -> None:
        """Show states computed elsewhere (a row of a played trajectory): each named segment's state (a
        :class:`~mime_gui.nodes.NodeState`) and, when given, its command replace the current ones with no step
        taken, bit for bit; the view and ``poses_changed`` follow. A wrong shape (``session.state``) changes
        nothing."""
        self._require()
        new = dict(self._state)
        for name, state in states.items():
            art = self.segment(name).articulation
            q, poses, rates = (_readonly(getattr(state, k)) for k in
                               ("joint_positions", "frame_poses", "frame_angular_velocities"))
            if q.shape != (art.nq,) or poses.shape != (art.nframes, 4, 4) or rates.shape != (art.nframes, 3):
                raise self._fail("session.state", f"segment {name!r} has {art.nq} joints and {art.nframes} "
                                 f"frames; got a state of shapes {q.shape}, {poses.shape}, {rates.shape}")
            new[name] = NodeState(q, poses, rates)
        held = {name: _readonly(self._values(name, u, self.command_names(name), self.segment(name).command))
                for name, u in (commands or {}).items()}
        self._state = new
        for name, u in held.items():
            self.segments[name].command = u
        self._rest(list(states))
        self._publish([n for n in self._node.order if n in states])

    def state(self, segment: str) -> NodeState:
        """The segment's :class:`~mime_gui.nodes.NodeState` (positions, world frame poses and angular
        velocities after the last step)."""
        self.segment(segment)
        return self._state[segment]

    # -- torque driving ------------------------------------------------------------------------------------
    def drive(self, segment: str) -> str:
        """``"torques"`` when the segment is driven by joint torques, else ``"positions"``."""
        return "torques" if segment in self._drives else "positions"

    def can_drive_torques(self, segment: str) -> bool:
        """True for a dynamic segment of a rig that builds (only those have the mass torques move)."""
        doc = self.document
        built = doc.built.segments.get(segment) if doc is not None and doc.built is not None else None
        return bool(built is not None and not doc.findings and built.segment.dynamic)

    def torque_names(self, segment: str) -> tuple[str, ...]:
        """The joints a torque-driven segment takes a torque on (every movable joint; a mimic joint is a
        degree of freedom of its own under forward dynamics)."""
        return tuple(self.segment(segment).articulation.joint_names)

    def set_drive(self, segment: str, drive: str) -> None:
        """Drive a dynamic segment by ``"torques"`` (from its current positions, at rest, with zero torques)
        or by ``"positions"`` again (its current positions become its command). A kinematic segment
        (``session.drive-kinematic``), an unknown drive (``session.drive``) or a recording in progress
        (``session.drive-recording``) is refused."""
        self._require()
        seg = self.segment(segment)
        if drive not in ("positions", "torques"):
            raise self._fail("session.drive", "a segment is driven by 'positions' or 'torques', not "
                             f"{drive!r}")
        if drive == self.drive(segment):
            return
        if drive == "positions":
            del self._drives[segment]
            self._hold(segment)
            self.drive_changed.emit(segment, drive)
            return
        if not self.can_drive_torques(segment):
            why = ("the rig breaks rules, so it has no build to take the mass from" if self.findings else
                   f"{segment!r} is {seg.kind}: a kinematic segment's motion is prescribed; make it dynamic "
                   "to drive it by torques")
            raise self._fail("session.drive-kinematic", f"cannot drive {segment!r} by torques: {why}")
        if self.recording:
            raise self._fail("session.drive-recording", "a recording is running and records positions; stop "
                             "it before driving a segment by torques")
        from mime_gui.nodes.dynamic import DynamicArmNode

        built = self.document.built.segments[segment]
        try:
            node = DynamicArmNode(built.dynamics_articulation, placement=built.placement)
            q = self._state[segment].joint_positions
            node.advance(q, np.zeros(len(q)), np.zeros(len(q)), 1e-3)  # a joint moving nothing: refused now
        except ValueError as err:  # mass properties that are not physical, or a joint moving no mass
            raise self._fail(getattr(err, "code", "session.drive-nonphysical"),
                             getattr(err, "message", str(err))) from None
        self._drives[segment] = TorqueDrive(node, self._node.nodes[segment], seg.mount is not None,
                                            base_pose(self, segment, self._state)[0])
        self.drive_changed.emit(segment, drive)

    def _hold(self, segment: str) -> None:
        """The segment's command becomes its current positions (it stays where it is)."""
        art = self.segment(segment).articulation
        held = self._state[segment].joint_positions
        commanded = [art.joint_index(j) for j in self._node.nodes[segment].command_names]
        self.segments[segment].command = _readonly(held[commanded])

    def set_torques(self, segment: str, torques) -> None:
        """The torques held on a torque-driven segment from the next tick on: every joint
        (:meth:`torque_names` order) or a mapping joint → value (N·m, N on a sliding joint)."""
        drive = self._drives.get(self.segment(segment).name)
        if drive is None:
            raise self._fail("session.drive-positions", f"{segment!r} is driven by positions; switch it to "
                             "torques first (set_drive)")
        names = self.torque_names(segment)
        if isinstance(torques, dict):
            u = np.array(drive.u, dtype=float)
            for name, value in torques.items():
                if name not in names:
                    raise self._fail("session.joint", f"no joint {name!r} in {segment!r}; joints: "
                                     f"{', '.join(names)}")
                u[names.index(name)] = float(value)
        else:
            u = np.array(torques, dtype=float)
            if u.shape != (len(names),):
                raise self._fail("session.q-shape", f"segment {segment!r} has {len(names)} joints, got "
                                 f"torques of shape {u.shape}")
        if not np.all(np.isfinite(u)):
            raise self._fail("session.torque-non-finite", "torques must be finite numbers (N·m or N)")
        drive.u = _readonly(u)

    def holding_torques(self, segment: str) -> np.ndarray:
        """The torques that keep a torque-driven segment as it is now (:meth:`torque_names` order): with them
        its joint accelerations are zero at its current positions and velocities — gravity, the bias torques
        of its motion and of its mount's (as over the last step), damping and friction. At rest, its gravity
        torques: it stays where it is."""
        drive = self._drives.get(self.segment(segment).name)
        if drive is None:
            raise self._fail("session.drive-positions", f"{segment!r} is driven by positions; switch it to "
                             "torques first (set_drive)")
        return drive.holding(self._state[segment].joint_positions)

    def joint_inertias(self, segment: str) -> np.ndarray:
        """Each joint's own inertia at the segment's current positions: the diagonal of its mass matrix,
        armature included (kg·m², kg on a sliding joint; what a torque on that joint alone accelerates). A
        torque-driven segment's is that of the articulation its forward dynamics move; NaN where the rig has
        no build of the segment."""
        drive = self._drives.get(self.segment(segment).name)
        if drive is not None:
            art = drive.node.art
        else:
            doc = self.document
            built = doc.built.segments.get(segment) if doc is not None and doc.built is not None else None
            if built is None or not built.segment.dynamic:
                return np.full(self.segment(segment).articulation.nq, np.nan)
            art = built.dynamics_articulation
        from mime_gui.multibody.joint_space import mass_matrix

        return np.diagonal(mass_matrix(art, self._state[segment].joint_positions)).copy()

    def applied_torques(self, segment: str) -> np.ndarray:
        """The torques held on a torque-driven segment (zeros for a segment driven by positions)."""
        drive = self._drives.get(segment)
        return np.array(drive.u) if drive is not None else np.zeros(self.segment(segment).articulation.nq)

    def joint_velocities(self, segment: str) -> np.ndarray:
        """A torque-driven segment's joint velocities (its state beside its positions); zeros otherwise."""
        drive = self._drives.get(segment)
        return np.array(drive.v) if drive is not None else np.zeros(self.segment(segment).articulation.nq)

    def _rest(self, names) -> None:
        """Torque-driven segments among ``names`` were put somewhere: at rest there."""
        for name in names:
            drive = self._drives.get(name)
            if drive is not None:
                drive.rest(base_pose(self, name, self._state)[0])

    def frame_angular_velocity(self, segment: str, frame: str) -> np.ndarray:
        """The frame's angular velocity in world axes (rad/s) over the last step (zero at rest)."""
        art = self.segment(segment).articulation
        return np.array(self._state[segment].frame_angular_velocities[art.frame_index(frame)])

    def _publish(self, moved) -> None:
        for name in moved:
            self._sync(self.segments[name], self._state[name])
        if self.renderer is not None and moved:
            for name in moved:
                self.renderer.set_frame_poses(name, self.segments[name].world_X_frame)
            self.renderer.request_render()
        for name in moved:
            self.poses_changed.emit(name)

    def _fail(self, code: str, message: str, file: str = "") -> SessionError:
        err = SessionError(code, message, file)
        self.error.emit(err)
        return err

    # -- selection ---------------------------------------------------------------------------------
    def has_item(self, item: ItemRef) -> bool:
        if item.kind in ("part", "magnet"):
            rig = self.rig
            collection = getattr(rig, "parts" if item.kind == "part" else "magnets", {}) if rig else {}
            part = collection.get(item.name)
            if part is None:
                return False
            mount = part.mount.split(".", 1)[0] if isinstance(part.mount, str) else ""
            return item.segment in ("", mount)
        if item.kind == "probe":  # selected by itself, ItemRef("", "probe", name), as a part is
            probe = getattr(self.rig, "probes", {}).get(item.name) if self.rig is not None else None
            if probe is None:
                return False
            return item.segment in ("", (probe.mount or "").split(".", 1)[0])
        seg = self.segments.get(item.segment)
        if seg is None:
            return False
        if item.kind == "segment":  # a segment's own row: ItemRef(name, "segment", name)
            return item.name == item.segment
        if item.kind == "link":
            return item.name in seg.tree.links
        if item.kind == "joint":
            return item.name in seg.tree.joints
        if item.kind == "frame":
            return item.name in seg.articulation.frame_names
        return False

    def select(self, item: ItemRef | None) -> None:
        """Select an item (or clear with None); unknown items raise ``session.item``."""
        if item is not None and not self.has_item(item):
            raise self._fail("session.item", f"no {item.kind} {item.name!r} in segment {item.segment!r}")
        if item == self.selection:
            return
        self.selection = item
        self.history.seal()
        if self.renderer is not None:
            self.renderer.highlight(item)
            self.renderer.request_render()
        self.selection_changed.emit(item)

    # -- per-item visibility -----------------------------------------------------------------------
    def is_item_visible(self, item: ItemRef) -> bool:
        return item not in self.hidden

    def set_item_visible(self, item: ItemRef, visible: bool) -> None:
        """Hide or show one item in the view (the tree's context menu)."""
        if not self.has_item(item):
            raise self._fail("session.item", f"no {item.kind} {item.name!r} in segment {item.segment!r}")
        visible = bool(visible)
        if (item not in self.hidden) == visible:
            return
        if visible:
            self.hidden.discard(item)
        else:
            self.hidden.add(item)
        if self.renderer is not None:
            self.renderer.set_item_visible(item, visible)
            self.renderer.request_render()
        self.visibility_changed.emit(item, visible)

    # -- layers ------------------------------------------------------------------------------------
    def set_layer_visible(self, layer: str, visible: bool) -> None:
        if layer not in LAYERS:
            raise self._fail("session.layer", f"unknown layer {layer!r}; layers: {', '.join(LAYERS)}")
        visible = bool(visible)
        if self.layers.get(layer) == visible:
            return
        self.layers[layer] = visible
        if self.renderer is not None:
            self.renderer.set_layer_visible(layer, visible)
            self.renderer.request_render()
        self.layers_changed.emit(layer, visible)

    # -- queries for the views ---------------------------------------------------------------------
    def frame_world_pose(self, segment: str, frame: str) -> np.ndarray:
        return self.segment(segment).frame_pose(frame).copy()


def _servo(rig: Apparatus, name: str) -> float:
    tau = getattr(rig.chain.get(name), "servo_time_constant", 0.0)
    return float(tau) if np.isfinite(tau) and tau >= 0 else 0.0


def _as_finding(err: Exception):
    from mime_gui.rig.findings import Finding

    return Finding(getattr(err, "code", "rig.build"), "", str(err))


class TorqueDrive:
    """A torque-driven segment beside its NodeState: its forward-dynamics node, the torques held, its joint
    velocities and its base's track (a mounted segment's base motion is differenced step to step)."""

    def __init__(self, node, kinematic, mounted: bool, pose):
        self.node = node
        self.kinematic = kinematic  # the chain's node of the segment: its state at rest after a divergence
        nq = node.art.nq
        self.u = _readonly(np.zeros(nq))
        self.v = np.zeros(nq)
        self.mounted = mounted
        self.base = BaseTrack(pose) if mounted else None
        R = np.asarray(node.placement)[:3, :3]
        self.gravity_in_base = R.T @ node.gravity
        self.last_base = None  # (V0, A0, g) of the last step, in base axes; None at rest

    def rest(self, pose) -> None:
        self.v = np.zeros_like(self.v)
        self.last_base = None
        if self.mounted:
            self.base = BaseTrack(pose)

    def holding(self, q) -> np.ndarray:
        """The torques ``u`` giving zero joint acceleration at ``(q, v)``: ``c(q, v)`` on the base's motion of
        the last step (at rest: gravity in the base's axes now), plus the damping and friction the node takes
        off (``joint_forces(u, v) = c``)."""
        from mime_gui.multibody.moving_base import bias_on_moving_base

        if self.last_base is not None:
            V0, A0, g = self.last_base
        elif self.base is not None:  # a mounted segment at rest: gravity in its base's axes where it is
            V0, A0, g = None, None, self.base.pose[:3, :3].T @ self.node.gravity
        else:
            V0, A0, g = None, None, self.gravity_in_base
        c = bias_on_moving_base(self.node.art, np.asarray(q, dtype=float), self.v, V0, A0, g)
        return c - self.node.joint_forces(np.zeros_like(c), self.v)  # what damping and friction take off

    def driver(self, name: str, dt: float, diverged: list):
        """The chain node's driver for one step of ``dt``; a divergence is appended to ``diverged`` and the
        segment stays where it was, at rest."""

        def drive(state, mount_pose, mount_rate):
            if self.base is None or mount_pose is None:
                base = (None, None, self.gravity_in_base)
            else:
                base = self.base.step(mount_pose @ self.node.placement, mount_rate, dt, self.node.gravity)
            self.last_base = base
            try:
                new, self.v = self.node.advance(state.joint_positions, self.v, self.u, dt, base, mount_pose,
                                                mount_rate)
            except CodedError as err:  # diverged, or a joint whose acceleration is undefined
                diverged.append((name, str(getattr(err, "message", err))))
                self.v = np.zeros_like(self.v)
                return self.kinematic.initial_state(state.joint_positions, mount_pose=mount_pose,
                                                    mount_rate=mount_rate)
            return new

        return drive
