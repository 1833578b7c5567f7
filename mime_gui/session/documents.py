"""The documents component of the session: the open document, opening (a URDF, a rig file, a bundle),
saving and exporting.

It holds the document and says when another one is shown (``document_changed``); the session decides what
else follows an open (the history cleared, the chain node started, the view shown).
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

from mime_gui import inputs
from mime_gui.files import write_atomic
from mime_gui.inputs import resolved
from mime_gui.rig.apparatus import Apparatus
from mime_gui.rig.findings import RigError
from mime_gui.rig.rules import analyse
from mime_gui.session.document import Document, DrawnSegment
from mime_gui.session.drawing import draw
from mime_gui.session.errors import SessionError, refuse, rig_error
from mime_gui.session.events import Event
from mime_gui.session.history import History
from mime_gui.session.reading import confine_extracted, open_bundle_rig, read_rig
from mime_gui.session.stand_ins import StandIns


class Documents:
    def __init__(self, error: Event) -> None:
        self.document: Document | None = None
        self.stand_ins = StandIns()  # parts drawn as they were while their shape is being fixed
        self.document_changed = Event("document_changed")
        self._error = error

    def _fail(self, code: str, message: str, file: str = "") -> SessionError:
        return refuse(self._error, code, message, file)

    # -- the document --------------------------------------------------------------------------------
    @property
    def segments(self) -> dict[str, DrawnSegment]:
        return self.document.segments if self.document else {}

    def segment(self, name: str) -> DrawnSegment:
        try:
            return self.segments[name]
        except KeyError:
            raise self._fail("session.segment", f"no segment {name!r}; segments: "
                             f"{', '.join(self.segments) or '(none)'}") from None

    def require(self) -> Document:
        if self.document is None:
            raise self._fail("session.no-document", "nothing is open")
        return self.document

    def show(self, doc: Document | None) -> None:
        """``doc`` is the document from now on (None: nothing open)."""
        self.document = doc

    # -- opening -------------------------------------------------------------------------------------
    def read(self, path: str, bundle: str = "") -> Document:
        """The document of a URDF, a rig file or a bundle (``bundle``: the bundle a reload reads its
        extraction of again); a file that cannot be read emits ``error`` and raises SessionError."""
        try:
            if not os.path.exists(path):
                raise SessionError("file.not-found", "no such file; check the path", path)
            if os.path.isdir(path):
                raise SessionError("file.kind", "this is a folder; open a .urdf or .rig.json file", path)
            if path.lower().endswith(".zip"):  # a rig bundle opens as the rig it holds, extracted
                bundle = os.path.abspath(path)
                path = open_bundle_rig(path)
            elif bundle:  # a bundle's extraction read again (reload): still only its own files
                confine_extracted(path, bundle)
            rig, kind = read_rig(path)
            doc = self.new(rig, path, kind)
            doc.bundle = bundle
        except SessionError as err:
            self._error.emit(err)
            raise
        return doc

    def new(self, rig: Apparatus, path: str, kind: str) -> Document:
        """A new document: the rules run, the rig is built when they pass; an unreadable description is a
        refusal (nothing of that segment could be drawn or fixed here)."""
        try:
            analysis = analyse(rig)
        except (ValueError, TypeError, OverflowError) as err:
            raise rig_error(err, path) from None
        unreadable = [f for f in analysis.findings if f.code == "chain.description"]
        if unreadable:
            raise rig_error(RigError(unreadable), path)
        doc = Document(path, kind, rig)
        self.stand_ins.clear()  # the last document's parts are no stand-ins of this one's
        draw(doc, analysis, self.stand_ins)
        return doc

    def redraw(self, doc: Document, rig: Apparatus) -> tuple[set, set, set]:
        """``doc`` holds ``rig`` from now on, drawn again: (added, changed, removed) segment names."""
        previous = doc.segments
        doc.rig = rig
        return draw(doc, analyse(rig, since=doc.analysis), self.stand_ins, previous)

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

    def save(self, path: str | os.PathLike | None, history: History) -> tuple[str, bool]:
        """Write the rig to ``path`` (default: :meth:`suggested_path`), atomically; returns the file written
        and whether the document is now that file (``history`` marked saved). A URDF document saved under a
        ``.urdf`` name is a copy of its file (while nothing was added to it). A rig opened from a bundle
        needs ``path`` (``session.no-path`` without it): see :meth:`_save_bundled`."""
        doc = self.require()
        if doc.bundle and not path:
            raise self._fail("session.no-path", f"this rig was opened from the bundle {doc.bundle} and has "
                             "no file of its own (its extracted copy is in the bundle cache, which is "
                             f"pruned); save it under a name, for example {self.suggested_path()}")
        target = str(path or self.suggested_path())
        if not target:
            raise self._fail("session.no-path", "this rig has no file yet; save it under a name")
        if doc.bundle:
            return self._save_bundled(doc, target, history), True
        copy_urdf = doc.kind == "urdf" and target.lower().endswith((".urdf", ".xml"))
        if copy_urdf and (doc.rig.parts or doc.rig.magnets or len(doc.rig.chain) != 1 or history.modified):
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
        if copy_urdf:
            return target, False
        doc.path, doc.kind = target, "rig"
        history.mark_saved()
        return target, True

    def _save_bundled(self, doc: Document, target: str, history: History) -> str:
        """Save a rig opened from a bundle under ``target``: the bundle's other files (its URDFs and meshes,
        in their folders) are copied beside it first, so the saved rig names files of its own and not the
        cache's. A file already there with other bytes is refused (``session.save-bundle``), nothing
        written."""
        from mime_gui.rig import save

        source = resolved(doc.path).parent
        folder = Path(os.path.abspath(target)).parent
        files = source
        if not Path(doc.path).is_file():  # pruned by another program meanwhile: the bundle again
            if not os.path.isfile(doc.bundle):
                raise self._fail("session.save-bundle", f"the bundle's extracted files were removed from the "
                                 f"cache and the bundle {doc.bundle} is gone too, so its files cannot be "
                                 "saved with the rig; put the bundle back and save again", target)
            try:
                files = Path(open_bundle_rig(doc.bundle)).parent
            except SessionError as err:
                self._error.emit(err)
                raise
        copies = [] if resolved(folder) == source else _bundle_copies(files, Path(doc.path).name, folder)
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
        history.map_rigs(rebase)  # undo and redo keep naming the saved copies, not the cache's
        doc.path, doc.kind, doc.bundle = target, "rig", ""
        history.mark_saved()
        return target

    def export_read_report(self, path: str | os.PathLike) -> str:
        """Write the read report of every segment as JSON (segment name → report), atomically."""
        doc = self.require()
        target = str(path)
        reports = {name: report.to_dict() for name, report in doc.reports().items()}

        self._write(target, lambda: write_atomic(target, json.dumps(reports, indent=2)))
        return target

    def export_json(self, path: str | os.PathLike) -> str:
        """Write the rig as a rig file with its provenance, as ``mime-gui export --json`` writes it (the same
        function), without changing the document's own file; a rig that breaks rules is refused with its
        first finding's code."""
        doc = self.require()
        target = str(path)

        def write() -> None:
            from mime_gui.rig.export import export_json

            export_json(doc.rig, target)

        self._write(target, write)
        return target

    def export_python(self, path: str | os.PathLike) -> str:
        """Write the rig as MIME-style Python, atomically; a rig that breaks rules is refused with its first
        finding's code."""
        doc = self.require()
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
        doc = self.require()
        target = str(path)

        def write() -> None:
            from mime_gui.rig.bundle import write_bundle

            findings = doc.rig.validate()
            if findings:
                raise RigError(findings)
            write_bundle(doc.rig, target)

        self._write(target, write)
        return target

    def export_simulator(self, path: str | os.PathLike, kind: str) -> str:
        """Write the rig as one URDF (``kind`` ``urdf``) or as MuJoCo's MJCF (``mjcf``), its meshes copied
        beside it, as ``mime-gui export --urdf/--mjcf`` writes it (the same functions); a rig that breaks
        rules, or what the format cannot hold (``export.*``), writes nothing."""
        doc = self.require()
        target = str(path)
        if kind not in ("urdf", "mjcf"):
            raise ValueError(f"kind is 'urdf' or 'mjcf', got {kind!r}")

        def write() -> None:
            from mime_gui.rig.mjcf_export import export_mjcf
            from mime_gui.rig.urdf_export import export_urdf

            (export_urdf if kind == "urdf" else export_mjcf)(doc.rig, target, source=doc.name)

        self._write(target, write)
        return target

    def _write(self, target: str, write) -> None:
        """Run ``write()``; a failure emits ``error`` and raises a coded SessionError naming ``target``."""
        try:
            write()
        except OSError as err:
            raise self._fail("session.write", f"cannot write {target}: {err.strerror or err}") from None
        except ValueError as err:
            coded = rig_error(err, target, "session.write")
            self._error.emit(coded)
            raise coded from None


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
        if rig.base is None or resolved(rig.base) != old:
            return rig
        if id(rig) not in done:
            moved = copy.copy(rig)
            moved.base = new
            done[id(rig)] = moved
        return done[id(rig)]

    return rebase

