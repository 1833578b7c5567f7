"""The headless application state: the open document, joint positions, selection and display layers.

Widgets never change state themselves: they call a :class:`Session` method, the Session validates, updates
its state, forwards what the 3D view needs to the attached :class:`~mime_gui.session.renderer.Renderer` and
emits an event; the widgets refresh from the event. Nothing here imports Qt, pyvista or vtk.

Events (each an :class:`~mime_gui.session.events.Event`):

- ``document_changed(document)`` — a file was opened or reloaded (``document`` is a :class:`Document`);
- ``poses_changed(segment)`` — the joint positions of ``segment`` changed;
- ``selection_changed(item)`` — an :class:`ItemRef` or None;
- ``layers_changed(layer, visible)``;
- ``visibility_changed(item, visible)`` — one item hidden or shown (tree context menu);
- ``error(SessionError)`` — a refused file, command or write; the previous state stays.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mime_gui.files import write_atomic
from mime_gui.multibody import Articulation, MultibodyTree, UrdfError, frame_poses, read_urdf
from mime_gui.session.events import Event
from mime_gui.session.renderer import DEFAULT_LAYERS, LAYERS, ItemRef, Renderer

ITEM_KINDS = ("link", "joint", "frame", "part", "magnet")


class SessionError(Exception):
    """A refused file or command, with a stable ``code`` and its place (``file``, ``line``)."""

    def __init__(self, code: str, message: str, file: str = "", line: int = 0):
        self.code = code
        self.message = message
        self.file = file
        self.line = line
        super().__init__(self.one_line())

    def one_line(self) -> str:
        """``error[CODE] FILE:LINE: message`` (the same shape as the command line prints)."""
        where = f"{self.file}:{self.line}" if self.file and self.line else self.file
        head = f"error[{self.code}]"
        return f"{head} {where}: {self.message}" if where else f"{head} {self.message}"

    @classmethod
    def from_urdf(cls, err: UrdfError) -> SessionError:
        return cls(err.code, err.diagnostic.message, err.file, err.line)


@dataclass
class Segment:
    """One chain of the document: its editable tree, the compiled articulation and its joint positions."""

    name: str
    tree: MultibodyTree
    articulation: Articulation
    q: np.ndarray
    world_X_frame: np.ndarray  # (nframes, 4, 4) at q, in the world (through the mount)
    kind: str = "arm"  # 'arm' for a URDF; a rig names its kinds ('Arm.Dynamic', 'Motor.Kinematic', …)
    mount: tuple[str, str] | None = None  # (segment, frame) this segment rides on; None: the world
    placement: np.ndarray = field(default_factory=lambda: np.eye(4))  # mount_X_base (world_X_base)

    def frame_pose(self, name: str) -> np.ndarray:
        return self.world_X_frame[self.articulation.frame_index(name)]


@dataclass
class Document:
    path: str
    kind: str  # 'urdf' or 'rig'
    segments: dict[str, Segment] = field(default_factory=dict)
    source: object = None  # the rig model (Apparatus) for a rig document
    built: object = None  # the BuiltRig for a rig document

    @property
    def name(self) -> str:
        return Path(self.path).name if self.path else str(getattr(self.source, "name", "untitled"))

    def reports(self) -> dict:
        """Segment name → the ReadReport of its description."""
        return {name: seg.tree.report for name, seg in self.segments.items()}


def file_kind(path: str) -> str:
    """'urdf' or 'rig' from a file name; raises a coded SessionError for anything else."""
    lower = str(path).lower()
    if lower.endswith(".rig.json"):
        return "rig"
    if lower.endswith((".urdf", ".xml")):
        return "urdf"
    raise SessionError("file.kind", "not a URDF (.urdf) or rig (.rig.json) file; open one of those",
                       str(path))


def initial_q(art: Articulation) -> np.ndarray:
    """Zero, clipped into each joint's limits."""
    return np.clip(np.zeros(art.nq), art.lower, art.upper)


def _segment(name: str, tree: MultibodyTree, art: Articulation | None = None, kind: str = "arm",
             mount=None, placement=None, positions: dict | None = None) -> Segment:
    art = art if art is not None else tree.compile()
    q = initial_q(art)
    for joint, value in (positions or {}).items():
        if joint in art.joint_names:
            q[art.joint_index(joint)] = float(value)
    X = np.eye(4) if placement is None else np.asarray(placement, dtype=float)
    return Segment(name, tree, art, q, X @ frame_poses(art, q), kind, mount, X)


def load_urdf_document(path: str) -> Document:
    try:
        tree = read_urdf(path)
        seg = _segment(tree.name or Path(path).stem, tree)
    except UrdfError as err:
        raise SessionError.from_urdf(err) from None
    return Document(str(path), "urdf", {seg.name: seg})


def load_rig_document(path: str) -> Document:
    from mime_gui.rig import load

    try:
        apparatus = load(path)
    except UrdfError as err:
        raise SessionError.from_urdf(err) from None
    except (ValueError, KeyError, TypeError, OSError) as err:
        raise _rig_error(err, str(path)) from None
    return apparatus_document(apparatus, str(path))


def _copy_atomic(source: str, target: str) -> None:
    """Copy ``source`` over ``target`` or leave ``target`` as it was."""
    with open(source, "rb") as src:
        write_atomic(target, lambda out: shutil.copyfileobj(src, out))


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


def apparatus_document(apparatus, path: str = "") -> Document:
    """Build a rig (an Apparatus) into a document: one segment per chain segment, placed on its mount."""
    try:
        built = apparatus.build()
    except UrdfError as err:
        raise SessionError.from_urdf(err) from None
    except (ValueError, KeyError, TypeError, OSError) as err:
        raise _rig_error(err, path) from None
    segments: dict[str, Segment] = {}
    for name, seg in built.segments.items():
        spec = getattr(seg, "segment", None)
        segments[name] = _segment(
            name, seg.tree, seg.articulation, kind=getattr(spec, "kind", "segment"),
            mount=tuple(seg.mount) if seg.mount is not None else None, placement=seg.placement,
            positions=getattr(spec, "initial_positions", None))
    doc = Document(path, "rig", segments, source=apparatus, built=built)
    _place_all(doc)
    return doc


def _mounted_order(segments: dict[str, Segment], start: str | None = None) -> list[str]:
    """Segments in mount order (a mount before what rides on it); from ``start`` and what rides on it."""
    riders: dict[str | None, list[str]] = {}
    for name, seg in segments.items():
        riders.setdefault(seg.mount[0] if seg.mount else None, []).append(name)
    order, todo = [], [start] if start is not None else list(riders.get(None, []))
    while todo:
        name = todo.pop(0)
        order.append(name)
        todo.extend(riders.get(name, []))
    return order


def _place(segments: dict[str, Segment], name: str) -> None:
    seg = segments[name]
    world_X_base = seg.placement
    if seg.mount is not None:
        mount_seg, frame = seg.mount
        world_X_base = segments[mount_seg].frame_pose(frame) @ seg.placement
    frame_poses(seg.articulation, seg.q, out=seg.world_X_frame)
    seg.world_X_frame[...] = world_X_base @ seg.world_X_frame


def _place_all(doc: Document) -> None:
    for name in _mounted_order(doc.segments):
        _place(doc.segments, name)


class Session:
    def __init__(self) -> None:
        self.document: Document | None = None
        self.selection: ItemRef | None = None
        self.layers: dict[str, bool] = dict(DEFAULT_LAYERS)
        self.hidden: set[ItemRef] = set()
        self.renderer: Renderer | None = None
        self.document_changed = Event("document_changed")
        self.poses_changed = Event("poses_changed")
        self.selection_changed = Event("selection_changed")
        self.layers_changed = Event("layers_changed")
        self.visibility_changed = Event("visibility_changed")
        self.error = Event("error")

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
        segments = self.document.segments if self.document else {}
        r.show_segments({name: (seg.tree, seg.articulation) for name, seg in segments.items()})
        for name, seg in segments.items():
            r.set_frame_poses(name, seg.world_X_frame)
        set_item_visible = getattr(r, "set_item_visible", None)
        if set_item_visible is not None:
            for item in self.hidden:
                set_item_visible(item, False)
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

    def segment(self, name: str) -> Segment:
        try:
            return self.segments[name]
        except KeyError:
            raise SessionError("session.segment", f"no segment {name!r}; segments: "
                               f"{', '.join(self.segments) or '(none)'}") from None

    def open(self, path: str | os.PathLike) -> Document:
        """Open a URDF or rig file. A refusal emits ``error``, raises SessionError and keeps the document."""
        path = str(path)
        try:
            if not os.path.exists(path):
                raise SessionError("file.not-found", "no such file; check the path", path)
            if os.path.isdir(path):
                raise SessionError("file.kind", "this is a folder; open a .urdf or .rig.json file", path)
            kind = file_kind(path)
            doc = load_urdf_document(path) if kind == "urdf" else load_rig_document(path)
        except SessionError as err:
            self.error.emit(err)
            raise
        self._set_document(doc)
        return doc

    def open_apparatus(self, apparatus, path: str = "") -> Document:
        """Show a rig built in Python (an Apparatus); a rig that does not build is refused like a file."""
        try:
            doc = apparatus_document(apparatus, str(path))
        except SessionError as err:
            self.error.emit(err)
            raise
        self._set_document(doc)
        return doc

    def save(self, path: str | os.PathLike | None = None) -> str:
        """Write the rig document to ``path`` (default: its own file); a URDF is saved as a copy."""
        doc = self.document
        if doc is None:
            raise self._fail("session.no-document", "nothing is open")
        target = str(path or doc.path)
        if not target:
            raise self._fail("session.no-path", "this rig has no file yet; save it under a name")
        def write() -> None:
            if doc.kind == "rig":
                from mime_gui.rig import save

                save(doc.source, target)
            elif os.path.abspath(target) != os.path.abspath(doc.path):
                _copy_atomic(doc.path, target)

        self._write(target, write)
        if doc.kind == "rig" and not doc.path:
            doc.path = target
        return target

    def export_report(self, path: str | os.PathLike) -> str:
        """Write the read report of every segment as JSON (segment name → report), atomically."""
        doc = self.document
        if doc is None:
            raise self._fail("session.no-document", "nothing is open")
        target = str(path)
        reports = {name: report.to_dict() for name, report in doc.reports().items()}

        self._write(target, lambda: write_atomic(target, json.dumps(reports, indent=2)))
        return target

    def export_python(self, path: str | os.PathLike) -> str:
        """Write the rig document as MIME-style Python, atomically; an invalid rig is refused with its
        finding's code."""
        doc = self.document
        if doc is None or doc.kind != "rig":
            raise self._fail("session.not-a-rig", "only a rig exports to Python; open a rig file")
        target = str(path)

        def write() -> None:
            from mime_gui.rig.export import export_python

            export_python(doc.source, target, source=doc.name)

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
        if not old.path and old.kind == "rig":
            doc = self.open_apparatus(old.source)
        else:
            doc = self.open(old.path)
        for name, seg in doc.segments.items():
            prev = old.segments.get(name)
            if prev is None:
                continue
            before = dict(zip(prev.articulation.joint_names, prev.q, strict=True))
            q = np.array([before.get(j, v) for j, v in zip(seg.articulation.joint_names, seg.q, strict=True)])
            q = np.clip(q, seg.articulation.lower, seg.articulation.upper)
            if not np.array_equal(q, seg.q):
                self.set_joint_positions(name, q)
        return doc

    def _set_document(self, doc: Document) -> None:
        self.document = doc
        self.hidden = {item for item in self.hidden if self.has_item(item)}
        if self.selection is not None and not self.has_item(self.selection):
            self.selection = None
        self._show_document()
        self.document_changed.emit(doc)
        self.selection_changed.emit(self.selection)

    def close(self) -> None:
        self.document = None
        self.selection = None
        self.hidden.clear()
        self._show_document()
        self.document_changed.emit(None)
        self.selection_changed.emit(None)

    # -- joint positions ---------------------------------------------------------------------------
    def joint_positions(self, segment: str) -> np.ndarray:
        return self.segment(segment).q.copy()

    def set_joint_positions(self, segment: str, q) -> None:
        """Set the joint positions (nq values, or a mapping joint name → value) of a segment."""
        seg = self.segment(segment)
        art = seg.articulation
        if isinstance(q, dict):
            values = seg.q.copy()
            for name, value in q.items():
                try:
                    values[art.joint_index(name)] = float(value)
                except KeyError as err:
                    raise self._fail("session.joint", str(err.args[0])) from None
        else:
            values = np.array(q, dtype=float)  # a copy: the caller may reuse its array
            if values.shape != (art.nq,):
                raise self._fail("session.q-shape", f"segment {segment!r} has {art.nq} joints, "
                                 f"got an array of shape {values.shape}")
        if not np.all(np.isfinite(values)):
            raise self._fail("session.q-non-finite", "joint positions must be finite")
        seg.q = values
        moved = _mounted_order(self.segments, segment)  # this segment and everything riding on it
        for name in moved:
            _place(self.segments, name)
        if self.renderer is not None:
            for name in moved:
                self.renderer.set_frame_poses(name, self.segments[name].world_X_frame)
            self.renderer.request_render()
        for name in moved:
            self.poses_changed.emit(name)

    def _fail(self, code: str, message: str) -> SessionError:
        err = SessionError(code, message)
        self.error.emit(err)
        return err

    # -- selection ---------------------------------------------------------------------------------
    def has_item(self, item: ItemRef) -> bool:
        seg = self.segments.get(item.segment)
        if seg is None:
            return False
        if item.kind == "link":
            return item.name in seg.tree.links
        if item.kind == "joint":
            return item.name in seg.tree.joints
        if item.kind == "frame":
            return item.name in seg.articulation.frame_names
        return item.kind in ITEM_KINDS

    def select(self, item: ItemRef | None) -> None:
        """Select an item (or clear with None); unknown items raise ``session.item``."""
        if item is not None and not self.has_item(item):
            raise self._fail("session.item", f"no {item.kind} {item.name!r} in segment {item.segment!r}")
        if item == self.selection:
            return
        self.selection = item
        if self.renderer is not None:
            self.renderer.highlight(item)
            self.renderer.request_render()
        self.selection_changed.emit(item)

    # -- per-item visibility -----------------------------------------------------------------------
    def is_item_visible(self, item: ItemRef) -> bool:
        return item not in self.hidden

    def set_item_visible(self, item: ItemRef, visible: bool) -> None:
        """Hide or show one item; forwarded to renderers that offer ``set_item_visible(item, visible)``."""
        if not self.has_item(item):
            raise self._fail("session.item", f"no {item.kind} {item.name!r} in segment {item.segment!r}")
        visible = bool(visible)
        if (item not in self.hidden) == visible:
            return
        if visible:
            self.hidden.discard(item)
        else:
            self.hidden.add(item)
        set_item_visible = getattr(self.renderer, "set_item_visible", None)
        if set_item_visible is not None:
            set_item_visible(item, visible)
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
