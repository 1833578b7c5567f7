"""Provenance of an exported rig: what wrote it and the exact files it names, so it can be rebuilt later.

An export records the mime_gui version, each segment's kind, the package (and its version) that registers
the kind, and its rung (``kinematic`` or ``dynamic``), and the SHA-256 of every file the rig references: each
arm's URDF description, the meshes that description names (as resolved), an OBJ's material libraries, and
every part's or magnet's mesh. Paths are relative to the rig file's folder, with forward slashes.

``mime-gui validate`` compares the recorded hashes with the files now on disk: a file that changed is a
``provenance.changed`` warning, one that is gone ``provenance.missing``, each naming the file.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from mime_gui import __version__, inputs
from mime_gui.inputs import resolved
from mime_gui.multibody.errors import printable
from mime_gui.multibody.tree import Mesh as TreeMesh
from mime_gui.rig.geometries import paths_of
from mime_gui.rig.segments import _ArmSegment

PACKAGE = "mime_gui"
_MTLLIB = re.compile(rb"^\s*mtllib\s+(.+?)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Referenced:
    """A file the rig needs: its absolute ``path``, what needs it (``role``, a rig path), and for a mesh
    named by ``package://NAME/rest`` the package folder it was found in (``package_root``)."""

    path: Path
    role: str
    kind: str  # "urdf" or "mesh": which size limit reads it
    package_root: Path | None = None
    uri: str = ""  # as the description spells it, for a description's mesh


@dataclass(frozen=True)
class Warning_:
    """A provenance finding: ``code``, the file it names and what to do."""

    code: str
    file: str
    message: str

    def __str__(self) -> str:
        return f"warning[{self.code}] {printable(self.file)}: {printable(self.message)}"


def rung(segment) -> str:
    return "dynamic" if getattr(segment, "dynamic", False) else "kinematic"


def registrant(segment) -> tuple[str, str]:
    """The package that registers ``segment``'s kind and that package's version."""
    lab = getattr(segment, "registrant", None)  # a lab's kind (register_dynamics, an entry point)
    if lab is not None:
        package, version = lab()
        return (package, version) if package else ("registered in Python", "")
    return PACKAGE, __version__


def sha256(path, kind: str) -> str:
    """The SHA-256 of a file read through the size-checked reader of its ``kind``."""
    return hashlib.sha256(inputs.read_bytes(path, kind)).hexdigest()


def _obj_libraries(path: Path) -> list[Path]:
    """The material libraries an OBJ names (``mtllib``) that exist beside it."""
    try:
        data = inputs.read_bytes(path, "mesh")
    except (OSError, inputs.FileError):
        return []
    return [lib for _, lib in _named_libraries(path, data)]


def _named_libraries(path: Path, data: bytes):
    """``(match, library)`` for each ``mtllib`` line of the OBJ ``path`` (its bytes ``data``) naming a file
    that exists."""
    for match in _MTLLIB.finditer(data):
        candidate = resolved(path.parent / match.group(1).decode("utf-8", "replace"))
        if candidate.is_file():
            yield match, candidate


def renamed_libraries(path: Path, data: bytes, name_of) -> bytes:
    """The OBJ's bytes with each existing library's ``mtllib`` line naming ``name_of(library)`` instead (a
    copy's name beside the copied mesh)."""
    out, end = [], 0
    for match, lib in _named_libraries(path, data):
        out += [data[end:match.start(1)], name_of(lib).encode("utf-8")]
        end = match.end(1)
    return b"".join(out) + data[end:]


def _package_root(mesh: TreeMesh, file: Path) -> Path | None:
    """The package folder a ``package://NAME/rest`` mesh was found in: the file with ``rest`` taken off."""
    scheme, sep, rest = mesh.uri.partition("://")
    if not sep or scheme.lower() not in ("package", "model") or rest.startswith("/"):
        return None
    rel = rest.partition("/")[2]
    depth = len([p for p in rel.split("/") if p])
    root = file
    for _ in range(depth):
        root = root.parent
    return root


def description_meshes(rig, described=None):
    """``(role, mesh, URDF file)`` for every mesh of every arm's description that can be read, in rig order;
    ``described(name, urdf)`` is called for each arm's description first, readable or not."""
    base = Path(rig.base or Path.cwd())
    for name, seg in rig.chain.items():
        if not isinstance(seg, _ArmSegment):
            continue
        urdf = seg.path(base)
        if described is not None:
            described(name, urdf)
        try:
            tree = seg.tree(base, rig.package_folders())
        except Exception:  # noqa: BLE001 - an unreadable description is validation's to report
            continue
        for link in tree.links.values():
            for shape in (*link.visuals, *link.collisions):
                if isinstance(shape.geometry, TreeMesh):
                    yield f"chain.{name}.{link.name}", shape.geometry, str(urdf)


def referenced_files(rig) -> list[Referenced]:
    """Every file ``rig`` references, each once, in rig order. A description that cannot be read adds
    only itself (validation reports why)."""
    base = Path(rig.base or Path.cwd())
    seen: dict[Path, Referenced] = {}

    def add(path: Path, role: str, kind: str, root: Path | None = None, uri: str = "") -> None:
        path = Path(os.path.abspath(path))
        if path not in seen:
            seen[path] = Referenced(path, role, kind, root, uri)

    def described(name: str, urdf: Path) -> None:
        add(urdf, f"chain.{name}.description", "urdf")

    for role, g, _urdf in description_meshes(rig, described):
        if g.filename:
            file = Path(g.filename)
            add(file, role, "mesh", _package_root(g, file), g.uri)
            if file.suffix.lower() == ".obj":
                for lib in _obj_libraries(file):
                    add(lib, role, "mesh")
    for collection in ("parts", "magnets"):
        for name, part in getattr(rig, collection).items():
            for spelled in paths_of(part.geometry).values():  # every file its kind names
                p = Path(spelled)
                file = p if p.is_absolute() else base / p
                add(file, f"{collection}.{name}.geometry", "mesh")
                if file.suffix.lower() == ".obj":
                    for lib in _obj_libraries(file):
                        add(lib, f"{collection}.{name}.geometry", "mesh")
    return list(seen.values())


def _relative(path: Path, folder: Path) -> str:
    try:
        return Path(os.path.relpath(path, resolved(folder))).as_posix()
    except ValueError:  # another drive (Windows)
        return str(path)


def record(rig, folder) -> dict:
    """The ``provenance`` block of ``rig`` exported into ``folder``."""
    folder = Path(folder)
    segments = {}
    for name, seg in rig.chain.items():
        package, version = registrant(seg)
        segments[name] = {"kind": seg.kind, "package": package, "version": version, "rung": rung(seg)}
    files = {}
    for ref in referenced_files(rig):
        try:
            digest = sha256(ref.path, ref.kind)
        except (OSError, inputs.FileError):
            continue  # a missing file is validation's finding; nothing to vouch for
        files[_relative(ref.path, folder)] = {"sha256": digest, "used_by": ref.role}
    return {"mime_gui": __version__, "segments": segments, "files": files}


def changes(block: dict | None, folder) -> list[Warning_]:
    """A warning for every file of ``block`` that changed or is gone since the export (``folder``: the
    rig file's folder, against which the recorded paths are read)."""
    if not block:
        return []
    folder = Path(folder)
    out = []
    for rel, entry in block.get("files", {}).items():
        path = Path(rel) if Path(rel).is_absolute() else folder / rel
        kind = "urdf" if rel.lower().endswith((".urdf", ".xml")) else "mesh"
        try:
            digest = sha256(path, kind)
        except FileNotFoundError:
            out.append(Warning_("provenance.missing", rel, f"the file the export recorded (used by "
                                f"{entry.get('used_by', '?')}) is gone; restore it or export the rig again"))
            continue
        except (OSError, inputs.FileError) as exc:
            out.append(Warning_("provenance.unreadable", rel, f"cannot read the file to check it ({exc})"))
            continue
        if digest != entry["sha256"]:
            out.append(Warning_("provenance.changed", rel, f"the file changed since the export (used by "
                                f"{entry.get('used_by', '?')}; sha256 {digest[:12]}…, recorded "
                                f"{entry['sha256'][:12]}…); the rig may not rebuild as exported"))
    return out


def read(reader, value, pointer: str = "/provenance") -> dict:
    """The ``provenance`` block of a rig file checked by the rig file's ``reader`` (coded ``rigfile.*``
    errors naming the JSON pointer)."""
    d = reader.obj(value, pointer, ("mime_gui", "segments", "files"))
    reader.string(d["mime_gui"], f"{pointer}/mime_gui")
    for name, seg in reader.names(d["segments"], f"{pointer}/segments").items():
        p = f"{pointer}/segments/{name.replace('~', '~0').replace('/', '~1')}"
        s = reader.obj(seg, p, ("kind", "package", "version", "rung"))
        for key in ("kind", "package", "version", "rung"):
            reader.string(s[key], f"{p}/{key}")
    for rel, entry in reader.names(d["files"], f"{pointer}/files").items():
        p = f"{pointer}/files/{rel.replace('~', '~0').replace('/', '~1')}"
        e = reader.obj(entry, p, ("sha256",), ("used_by",))
        digest = reader.string(e["sha256"], f"{p}/sha256")
        if not re.fullmatch(r"[0-9a-f]{64}", digest):
            reader.fail("rigfile.value", f"{p}/sha256", "a SHA-256 is 64 lowercase hexadecimal digits")
        if "used_by" in e:
            reader.string(e["used_by"], f"{p}/used_by")
    return d


def of_file(path) -> dict | None:
    """The ``provenance`` block of a rig file that :func:`mime_gui.rig.rigfile.load` accepted, or None."""
    import json

    data = json.loads(inputs.read_bytes(path, "rig").decode("utf-8-sig"))
    block = data.get("provenance") if isinstance(data, dict) else None
    return block if isinstance(block, dict) else None
