"""A rig bundle: one zip holding a rig file and every file it references, to carry a rig to another machine.

Writing (:func:`write_bundle`): the referenced files (:func:`mime_gui.rig.provenance.referenced_files`) are
copied under ``files/`` keeping their layout relative to their common folder; the rig file ``rig.rig.json`` at
the zip's root names them by relative paths and lists every ``package://`` package folder in
``package_dirs``, and carries the export's provenance (versions, rungs, SHA-256 of each file). The staged
copy is loaded and validated before the zip is written (atomically): a bundle that would not validate
elsewhere, or that would lack a mesh a description names and this machine does not have (``bundle.missing``),
is never written. Entries carry a fixed date and mode, so the same rig and files give the same
bytes.

Opening (:func:`open_bundle`): every entry is checked before one byte is written, and the bundle is refused
(``bundle.*``) for an entry whose name is absolute, holds ``..``, a backslash, a drive or NUL, is a symbolic
link or anything but a file or a folder, is encrypted, or appears twice (also as two spellings one
case-insensitive file system would merge); for more than :data:`MAX_ENTRIES` entries, more uncompressed bytes
than the ``MIME_GUI_MAX_BUNDLE_MB`` limit, or an entry that expands more than :data:`MAX_RATIO` times (a zip
bomb).
The sizes are counted again while extracting, so a header that lies does not help. The bundle is extracted
into a new folder of the cache (``MIME_GUI_BUNDLE_CACHE``, else ``$XDG_CACHE_HOME/mime_gui/bundles``; named
by a bounded stem and a hash, so any file name fits), files created exclusively and never through a link.
Then :func:`confine` refuses (``bundle.outside``) a rig naming any file outside that folder, before such a
file is read. On any refusal that folder is removed.

Pruning (:func:`prune_cache`, after each open): of the cache's extraction folders (named ``*.mime-bundle``),
the :data:`KEEP` most recent stay and any older than :data:`MAX_AGE_DAYS` days goes, except those this
process extracted (one may be open). Only folders directly in the cache whose name says they are
extractions are removed; a link is never followed nor removed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import lzma
import os
import re
import shutil
import stat
import tempfile
import time
import unicodedata
import zipfile
import zlib
from pathlib import Path
from urllib.parse import unquote

from mime_gui import inputs
from mime_gui.files import write_atomic
from mime_gui.inputs import resolved
from mime_gui.multibody.errors import CodedError
from mime_gui.rig.apparatus import Apparatus
from mime_gui.rig.geometries import paths_of, with_paths
from mime_gui.rig.provenance import _obj_libraries, description_meshes, of_file, referenced_files
from mime_gui.rig.segments import _ArmSegment

RIG_NAME = "rig.rig.json"
FILES = "files"
MAX_ENTRIES = 10_000
MAX_RATIO = 200  # uncompressed / compressed bytes of one entry (text meshes compress ~10x)
RATIO_FLOOR = 1024 * 1024  # entries smaller than this are not judged by their ratio
_CHUNK = 1024 * 1024
_DRIVE = re.compile(r"^[A-Za-z]:")
_EPOCH = (1980, 1, 1, 0, 0, 0)  # the earliest date a zip holds
SUFFIX = ".mime-bundle"  # an extraction's folder name ends so: pruning removes nothing else of the cache
KEEP = 8  # extractions kept in the cache, the most recent
MAX_AGE_DAYS = 30  # an extraction older than this goes even when fewer than KEEP are there
STEM_BYTES = 40  # of the bundle's name in its extraction's folder name: any file name then fits one
_in_use: set[str] = set()  # extractions of this process: never pruned while it runs


class BundleError(CodedError):
    """A bundle that cannot be written or opened (``bundle.*``)."""


# -- writing -----------------------------------------------------------------------------------------
def _absolute_uri(uri: str) -> bool:
    scheme, sep, rest = uri.partition("://")
    if sep and scheme.lower() == "file":
        return rest.startswith("/")
    return not sep and os.path.isabs(uri)


def _layout(rig) -> tuple[list, Path, list[Path]]:
    refs = referenced_files(rig)
    for ref in refs:
        if not ref.path.is_file():
            raise BundleError("bundle.missing", f"{ref.role} needs this file and it is not there; fix the "
                              "rig (mime-gui validate says how) before bundling it", str(ref.path))
        if ref.uri and _absolute_uri(ref.uri):
            raise BundleError("bundle.absolute-path", f"the description names the mesh {ref.uri!r} by an "
                              "absolute path, which no other machine has; refer to it relative to the URDF "
                              "or by package://", ref.role)
    for role, mesh, urdf in description_meshes(rig):
        if mesh.filename is None:  # unresolved: referenced_files leaves it out, so the zip would lack it
            raise BundleError("bundle.missing", f"{role} needs the mesh {mesh.uri!r} and it is not found on "
                              "this machine; fix the description's filename= or the rig's package_dirs "
                              "(mime-gui validate says where it was looked for) before bundling it", urdf)
    roots = sorted({r.package_root for r in refs if r.package_root is not None})
    anchors = [str(r.path.parent) for r in refs] + [str(r) for r in roots]
    anchor = Path(os.path.commonpath(anchors)) if anchors else Path(rig.base or Path.cwd())
    return refs, anchor, roots


def _inside(path: Path, anchor: Path) -> str:
    return (Path(FILES) / path.relative_to(anchor)).as_posix()


def _rewritten(rig, anchor: Path, roots: list[Path], stage: Path) -> Apparatus:
    """``rig`` with every description and every file a part names (a mesh's) naming its copy in the
    stage."""
    base = Path(rig.base or Path.cwd())

    def moved(p: str) -> str:
        path = Path(p) if Path(p).is_absolute() else base / p
        return _inside(Path(os.path.abspath(path)), anchor)

    chain = {n: dataclasses.replace(s, description=moved(s.description)) if isinstance(s, _ArmSegment) else s
             for n, s in rig.chain.items()}

    def part(p):  # every file its geometry names (a field of unit "path"), whatever its kind
        g = with_paths(p.geometry, moved)
        return p if g is p.geometry else dataclasses.replace(p, geometry=g)

    return Apparatus(rig.name, chain=chain, parts={n: part(p) for n, p in rig.parts.items()},
                     magnets={n: part(p) for n, p in rig.magnets.items()}, base=stage,
                     package_dirs=[_inside(r, anchor) for r in roots], probes=rig.probes, poses=rig.poses,
                     frames=rig.frames, trajectories=rig.trajectories, samples=rig.samples, zones=rig.zones,
                     clearance=rig.clearance, targets=rig.targets)


def write_bundle(rig, out) -> Path:
    """Write the valid ``rig`` and every file it references to the zip ``out`` (atomically)."""
    from mime_gui.rig.rigfile import dumps_export, load

    refs, anchor, roots = _layout(rig)
    with tempfile.TemporaryDirectory(prefix="mime-bundle-") as tmp:
        stage = Path(tmp)
        for ref in refs:
            target = stage / _inside(ref.path, anchor)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(inputs.read_bytes(ref.path, ref.kind))
        for root in roots:
            (stage / _inside(root, anchor)).mkdir(parents=True, exist_ok=True)
        bundled = _rewritten(rig, anchor, roots, stage)
        (stage / RIG_NAME).write_text(dumps_export(bundled, stage), encoding="utf-8")
        findings = load(stage / RIG_NAME).validate()
        if findings:
            raise BundleError("bundle.invalid", f"the bundled copy does not validate ({findings[0]}); "
                              "nothing written", str(out))
        # what opening refuses is never written: an OBJ's mtllib by an absolute path, say
        confine(stage / RIG_NAME, stage, str(out), fix="name it relative to the file that names it, so the "
                "bundle carries it")
        names = [RIG_NAME] + [_inside(r.path, anchor) for r in refs]

        def write(fh) -> None:
            # a fixed date and mode per entry: the same rig and files give the same bytes
            with zipfile.ZipFile(fh, "w", zipfile.ZIP_DEFLATED) as z:
                for name in names:
                    info = zipfile.ZipInfo(name, date_time=_EPOCH)
                    info.external_attr = (stat.S_IFREG | 0o644) << 16
                    info.compress_type = zipfile.ZIP_DEFLATED
                    z.writestr(info, (stage / name).read_bytes())

        return write_atomic(out, write)


# -- opening -----------------------------------------------------------------------------------------
def cache_folder() -> Path:
    """Where bundles are extracted: ``MIME_GUI_BUNDLE_CACHE``, else the user's cache folder."""
    explicit = os.environ.get("MIME_GUI_BUNDLE_CACHE")
    if explicit:
        return Path(explicit)
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "mime_gui" / "bundles"


def _refuse(code: str, message: str, file: str) -> BundleError:
    return BundleError(code, message + "; the bundle is refused and nothing of it is written", file)


def _entry_parts(info: zipfile.ZipInfo, file: str) -> tuple[str, ...]:
    name = info.filename
    what = f"the entry {info.orig_filename!r}"
    # zipfile cuts a name at its first NUL (filename); the name as stored (orig_filename) still holds it
    if "\x00" in info.orig_filename or "\\" in name or _DRIVE.match(name) or name.startswith("/"):
        raise _refuse("bundle.path", f"{what} is an absolute path or holds a backslash, a drive or NUL", file)
    parts = tuple(name.rstrip("/").split("/"))
    if any(p in ("", ".", "..") for p in parts):
        raise _refuse("bundle.path", f"{what} holds '..', '.' or an empty folder name", file)
    mode = info.external_attr >> 16
    if info.create_system == 3 and stat.S_IFMT(mode):  # made on Unix with a file type: it says what it is
        if stat.S_ISLNK(mode):
            raise _refuse("bundle.link", f"{what} is a symbolic link", file)
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            raise _refuse("bundle.kind", f"{what} is neither a file nor a folder", file)
    if info.flag_bits & 0x1:
        raise _refuse("bundle.encrypted", f"{what} is encrypted", file)
    return parts


def _checked(z: zipfile.ZipFile, file: str) -> list[tuple[zipfile.ZipInfo, tuple[str, ...]]]:
    infos = z.infolist()
    if len(infos) > MAX_ENTRIES:
        raise _refuse("bundle.entries", f"it holds {len(infos)} entries, more than {MAX_ENTRIES}", file)
    cap = inputs.LIMITS["bundle"].bytes()
    seen: dict[str, str] = {}
    total = 0
    out = []
    for info in infos:
        parts = _entry_parts(info, file)
        key = unicodedata.normalize("NFC", "/".join(parts)).casefold()
        if key in seen:
            raise _refuse("bundle.duplicate", f"the entry {info.filename!r} appears twice (as "
                          f"{seen[key]!r})", file)
        seen[key] = info.filename
        total += info.file_size
        if total > cap:
            raise _refuse("bundle.too-large", f"it unpacks to more than {inputs.megabytes(cap)}; set "
                          "MIME_GUI_MAX_BUNDLE_MB (megabytes) to raise the limit", file)
        if info.file_size > RATIO_FLOOR and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            raise _refuse("bundle.ratio", f"the entry {info.filename!r} expands {info.file_size} bytes from "
                          f"{info.compress_size}, more than {MAX_RATIO} times (a zip bomb)", file)
        out.append((info, parts))
    for _info, parts in out:  # a file whose name is also a folder of another entry
        for i in range(1, len(parts)):
            prefix = unicodedata.normalize("NFC", "/".join(parts[:i])).casefold()
            if prefix in seen and not seen[prefix].endswith("/"):
                raise _refuse("bundle.duplicate", f"{seen[prefix]!r} is both a file and a folder", file)
    rigs = [i.filename for i, p in out if len(p) == 1 and p[0].lower().endswith(".rig.json")]
    if len(rigs) != 1:
        raise _refuse("bundle.no-rig", f"a bundle holds one .rig.json at its root, this one "
                      f"{len(rigs)}", file)
    return out


def _extract(z: zipfile.ZipFile, info: zipfile.ZipInfo, parts, folder: Path, budget: list[int],
             file: str) -> None:
    target = folder.joinpath(*parts)
    if info.is_dir():
        target.mkdir(parents=True, exist_ok=True)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    # the resolved folder must still be inside ours: no entry becomes a path out of it
    if not resolved(target.parent).is_relative_to(resolved(folder)):
        raise _refuse("bundle.path", f"the entry {info.filename!r} leads out of the bundle's folder", file)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(target, flags, 0o644)
    written = 0
    with os.fdopen(fd, "wb") as out, z.open(info) as src:
        while chunk := src.read(_CHUNK):
            written += len(chunk)
            budget[0] -= len(chunk)
            if written > info.file_size or budget[0] < 0:
                raise _refuse("bundle.too-large", f"the entry {info.filename!r} unpacks to more than its "
                              "header says (a zip bomb)", file)
            out.write(chunk)


def open_bundle(path, folder=None) -> Path:
    """Extract the bundle ``path`` into a new folder (under ``folder`` or :func:`cache_folder`) and return
    its rig file; raises :class:`BundleError` (``bundle.*``, or ``file.*`` for the zip itself)."""
    file = os.fspath(path)
    try:
        inputs.check(path, "bundle")
        z = zipfile.ZipFile(path)
    except inputs.FileError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError) as exc:
        raise BundleError("bundle.zip", f"not a readable zip ({exc}); give a bundle written by mime-gui "
                          "export --bundle", file) from None
    with z:
        entries = _checked(z, file)
        root = Path(folder) if folder is not None else cache_folder()
        target = _new_extraction(root, file)
        budget = [inputs.LIMITS["bundle"].bytes()]
        rig = target / next(p[0] for i, p in entries if len(p) == 1 and p[0].lower().endswith(".rig.json"))
        try:
            for info, parts in entries:
                _extract(z, info, parts, target, budget, file)
            confine(rig, target, file)
        except BundleError:
            shutil.rmtree(target, ignore_errors=True)
            raise
        # a CRC that does not match, a damaged deflate, bzip2 (OSError) or LZMA stream …
        except (OSError, zipfile.BadZipFile, EOFError, RuntimeError, zlib.error, lzma.LZMAError) as exc:
            shutil.rmtree(target, ignore_errors=True)
            raise _refuse("bundle.zip", f"cannot extract it ({exc}); ask for the bundle again", file) \
                from None
    _in_use.add(os.path.realpath(target))
    prune_cache(root)
    return rig


def _folder_name(file: str) -> str:
    """The start of an extraction's folder name: the bundle's stem cut to :data:`STEM_BYTES` bytes (whole
    characters) and a hash of its whole name, so a bundle of any valid name fits a folder name."""
    name = Path(file).name
    stem = name[:-4] if name.lower().endswith(".zip") else name
    short = os.fsencode(stem)[:STEM_BYTES].decode(errors="ignore") if len(os.fsencode(stem)) > STEM_BYTES \
        else stem
    digest = hashlib.sha256(os.fsencode(name)).hexdigest()[:8]
    return f"{short}-{digest}-"


def _new_extraction(root: Path, file: str) -> Path:
    """A new, empty extraction folder in the cache ``root``; a cache that cannot hold one is a coded error."""
    try:
        root.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=_folder_name(file), suffix=SUFFIX, dir=root))
    except OSError as exc:
        blocker = next((p for p in (root, *root.parents) if p.exists() and not p.is_dir()), None)
        what = f"{root} cannot hold a new folder ({exc.strerror or exc})" if blocker is None else \
            f"{root} is not a folder: {blocker} is a file"
        raise BundleError("bundle.cache", f"cannot extract the bundle {file}: the bundle cache {what}; move "
                          "that away, or set MIME_GUI_BUNDLE_CACHE to a folder you can write", str(root)) \
            from None


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _within(path, folder) -> bool:
    """Whether ``path`` is ``folder`` or under it, as spelled (``..`` taken out) and through every link."""
    spelled, real = os.path.normpath(os.path.abspath(path)), os.path.realpath(folder)
    if not (_under(spelled, os.path.normpath(os.path.abspath(folder))) or _under(spelled, real)):
        return False  # spelled outside: outside, whatever is there
    return _under(os.path.realpath(spelled), real)


def confine(rig_file, folder, file: str = "",
            fix: str = "ask whoever sent it for one made by mime-gui export --bundle") -> None:
    """Refuse (``bundle.outside``) the extracted rig ``rig_file`` when a file it names is not inside the
    extraction ``folder``: its package folders, descriptions and parts' files (absolute, ``..`` out of it, or
    a link out of it), then each description's meshes as resolved (``package://`` found elsewhere on this
    machine too), the material libraries of its OBJs and the files its provenance records. Each is
    checked before it is read, so nothing outside the bundle is read. A rig or description that cannot be
    read is left to the caller's reading; ``fix`` is the refusal's advice."""
    from mime_gui.rig.rigfile import load

    file = file or os.fspath(rig_file)

    def check(path, names: str, role: str) -> None:
        if _within(path, folder):
            return
        real = os.path.realpath(path)  # where a '..' or a link leads, to say so
        leads = "" if real == names else f" ({real})"
        raise _refuse("bundle.outside", f"{role} names {names!r}{leads}, outside the bundle: a bundle's rig "
                      f"names only files inside it (else it would read, and pass on, files of this machine); "
                      f"{fix}", file)

    check(rig_file, os.fspath(rig_file), "the rig file")
    try:
        rig = load(rig_file)
    except (CodedError, ValueError, OSError):
        return
    base = Path(rig.base or Path(rig_file).parent)
    for i, (spelled, path) in enumerate(zip(rig.package_dirs, rig.package_folders(), strict=True)):
        check(path, spelled, f"package_dirs[{i}]")
    for name, seg in rig.chain.items():
        if isinstance(seg, _ArmSegment):
            check(seg.path(base), seg.description, f"chain.{name}.description")
    meshes = []
    for collection, name, part in rig.solids():
        for spelled in paths_of(part.geometry).values():  # every file its kind names
            path = base / spelled
            check(path, spelled, f"{collection}.{name}.geometry")
            meshes.append((path, f"{collection}.{name}.geometry"))
    for role, mesh, urdf in description_meshes(rig):
        found = mesh.filename or _spelled_mesh(mesh.uri, resolved(urdf).parent)
        if found is not None:
            check(found, mesh.uri, role)
            meshes.append((Path(found), role))
    for path, role in meshes:
        if path.suffix.lower() != ".obj" or not path.is_file():
            continue
        for lib in _obj_libraries(path):  # the view reads them for the OBJ's colours
            check(lib, str(lib), f"{role} (the material library of {path.name})")
    for rel in (of_file(rig_file) or {}).get("files", {}):  # validate reads each to compare its hash
        check(base / rel, rel, "provenance.files")


def _spelled_mesh(uri: str, folder: Path) -> str | None:
    """The file an unresolved mesh ``uri`` that is a path (relative, absolute or ``file://``) names, or None
    (a package or a web address names no file until found)."""
    scheme, sep, rest = uri.partition("://")
    if sep and scheme.lower() != "file":
        return None
    return os.path.join(folder, unquote(rest if sep else uri))


def prune_cache(root, keep: int = KEEP, max_age_days: float = MAX_AGE_DAYS, now: float | None = None) \
        -> list[Path]:
    """Remove from ``root`` the extractions past the ``keep`` most recent (by modification time) or older
    than ``max_age_days``, never one this process extracted; returns those removed. Only folders directly
    in ``root`` named ``*.mime-bundle`` count: a link there, or a file, is left alone, and a link inside an
    extraction is removed as a link, not followed. A folder that cannot be removed is left."""
    root = Path(root)
    now = time.time() if now is None else now
    found = []
    try:
        with os.scandir(root) as entries:
            for entry in entries:
                try:
                    if entry.name.endswith(SUFFIX) and entry.is_dir(follow_symlinks=False):
                        found.append((entry.stat(follow_symlinks=False).st_mtime, entry.name))
                except OSError:
                    continue
    except OSError:
        return []
    removed = []
    for rank, (mtime, name) in enumerate(sorted(found, reverse=True)):
        path = root / name
        if rank < keep and now - mtime <= max_age_days * 86400 or os.path.realpath(path) in _in_use:
            continue
        try:
            shutil.rmtree(path)  # removes the links it meets, never what they point to
        except OSError:
            continue
        removed.append(path)
    return removed


def is_bundle(path) -> bool:
    return os.fspath(path).lower().endswith(".zip")
