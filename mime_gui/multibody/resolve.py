"""Resolve mesh URIs of a description to files on disk.

``package://NAME/rest`` is looked up under: the given package folders (each either a folder *of* packages or
the package folder itself), then the process's package folders (:func:`set_package_dirs`: every entry point's
``--package-dir``), ``ROS_PACKAGE_PATH``, and every parent folder of the description that is named NAME, whose
``package.xml`` names it NAME (as ROS finds a package by its manifest, whatever its folder is called), or that
holds a folder named NAME. ``package:///rest`` (no package name) is looked up under the package folders,
``ROS_PACKAGE_PATH``, the description's folder and each of its parents, then as an absolute path.
``model://NAME/rest`` (Gazebo) is treated as ``package://``. ``file://`` and relative paths are taken from the
description's folder (the working folder for text without a file). Every path tried is kept so an unresolved
mesh can say where it looked.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path
from urllib.parse import unquote

_join = os.path.join
_isfile = os.path.isfile
MANIFEST = "package.xml"

#: The package folders of this process (the command line's ``--package-dir``), after a reader's own.
_process_dirs: list[str] = []


def set_package_dirs(dirs) -> None:
    """Make ``dirs`` the package folders of this process: every description read afterwards looks for
    ``package://`` meshes under them, after the folders its reader is given and before ``ROS_PACKAGE_PATH``.
    Each entry point (the app, ``play``, ``validate``/``report``/``export``, ``inspect``) sets them from its
    ``--package-dir`` options."""
    _process_dirs[:] = [os.path.abspath(os.fspath(d)) for d in dirs]


def package_dirs() -> tuple[str, ...]:
    """The package folders of this process (see :func:`set_package_dirs`)."""
    return tuple(_process_dirs)


def _manifest_name(path: str) -> str | None:
    """The package name a ROS manifest (``package.xml``) declares; None when there is none or it cannot be
    read: it only adds a place to look, so a broken one is no error of the description's."""
    if not _isfile(path):
        return None
    from defusedxml.ElementTree import fromstring

    from mime_gui import inputs

    try:
        root = fromstring(inputs.read_bytes(path, "urdf"))
    except (OSError, ValueError, SyntaxError):  # FileError, defusedxml's refusals, ParseError among them
        return None
    name = root.findtext("name") if root.tag == "package" else None
    return name.strip() if name and name.strip() else None


def _unique(paths) -> list[str]:
    seen: set[str] = set()
    out = []
    for p in paths:
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out


class Resolver:
    """Resolve many URIs of one description, caching the package roots and the answers."""

    def __init__(self, base: Path | str | None, package_dirs=()):
        self.base = None if base is None else os.path.abspath(str(base))
        self.package_dirs = _unique([os.path.abspath(str(d)) for d in (*package_dirs, *_process_dirs)])
        self.ros = [os.path.abspath(d) for d in os.environ.get("ROS_PACKAGE_PATH", "").split(os.pathsep) if d]
        parents: list[str] = []
        if self.base is not None:
            p = self.base
            while True:
                parents.append(p)
                up = os.path.dirname(p)
                if up == p:
                    break
                p = up
        self.parents = parents
        self._roots: dict[str, list[str]] = {}
        self._cache: dict[str, tuple[str | None, tuple[str, ...]]] = {}
        self._dirs: dict[str, bool] = {}
        self._manifests: dict[str, str | None] = {}

    def _is_dir(self, path: str) -> bool:
        """Whether ``path`` is a directory, asked once per folder and per description; a folder whose parent
        is missing is missing without asking."""
        hit = self._dirs.get(path)
        if hit is None:
            up = os.path.dirname(path)
            hit = (up == path or not up or self._is_dir(up)) and os.path.isdir(path)
            self._dirs[path] = hit
        return hit

    def _is_file(self, path: str) -> bool:
        """``os.path.isfile``, without a system call when the candidate's folder is known to be missing (many
        candidates share one: a package root that does not exist rules out every mesh under it)."""
        folder = os.path.dirname(path)
        return (not folder or self._is_dir(folder)) and _isfile(path)

    def _manifest_name(self, folder: str) -> str | None:
        """The ``<name>`` of the ``package.xml`` in ``folder`` (None without a readable one), read once per
        folder and description."""
        if folder not in self._manifests:
            self._manifests[folder] = _manifest_name(_join(folder, MANIFEST))
        return self._manifests[folder]

    def package_roots(self, name: str) -> list[str]:
        roots = self._roots.get(name)
        if roots is None:
            roots = []
            for d in (*self.package_dirs, *self.ros):
                roots += [_join(d, name), d]  # a folder *of* packages, or the package folder itself
            for parent in self.parents:
                if os.path.basename(parent) == name or self._manifest_name(parent) == name:
                    roots.append(parent)
                roots.append(_join(parent, name))
            roots = self._roots[name] = _unique(roots)
        return roots

    def __call__(self, uri: str) -> tuple[str | None, tuple[str, ...]]:
        """Return ``(absolute path or None, paths tried)``."""
        hit = self._cache.get(uri)
        if hit is None:
            hit = self._cache[uri] = self._resolve(uri)
        return hit

    def _resolve(self, uri: str) -> tuple[str | None, tuple[str, ...]]:
        tried: list[str] = []
        is_file = self._is_file

        def first(candidates):
            seen = set()
            for c in candidates:
                if c in seen:
                    continue
                seen.add(c)
                tried.append(c)
                if is_file(c):
                    return os.path.normpath(c)
            return None

        scheme, sep, rest = uri.partition("://")
        if not sep:
            scheme, rest = "", uri
        scheme = scheme.lower()
        rest = unquote(rest)
        if scheme in ("package", "model"):
            if rest.startswith("/"):  # package:///path: no package name, a path under any root
                rel = rest.lstrip("/")
                roots = [*self.package_dirs, *self.ros, *self.parents]
                found = first(itertools.chain((_join(r, rel) for r in roots), ["/" + rel]))
                return found, tuple(tried)
            name, _, rel = rest.partition("/")
            # package://pkg//meshes/x.stl (an empty xacro argument) is read as package://pkg/meshes/x.stl
            rel = rel.lstrip("/")
            if not rel:
                return first(_join(root, rel) for root in self.package_roots(name)), tuple(tried)
            return self._under(self.package_roots(name), rel)
        if scheme == "file":
            if rest.startswith("/"):
                return first([rest]), tuple(tried)
            return first([_join(self.base or os.getcwd(), rest)]), tuple(tried)
        if scheme:  # http://, https:// …: nothing is fetched
            return None, ()
        if os.path.isabs(rest):
            return first([rest]), tuple(tried)
        return first([_join(self.base or os.getcwd(), rest)]), tuple(tried)


    def advice(self, uri: str, tried) -> str:
        """Where an unresolved ``uri`` was looked for and what to do, for its kind of path: a package URI
        needs its package folder, a relative path is read from the description's folder, an absolute one
        is taken as it is, and a web address is not fetched."""
        scheme, sep, rest = uri.partition("://")
        scheme = scheme.lower() if sep else ""
        looked = ("tried: " + ", ".join(tried) + ". ") if tried else ""
        if scheme in ("package", "model"):
            name = unquote(rest).lstrip("/").partition("/")[0] if not rest.startswith("/") else ""
            which = f"the folder that holds package {name!r} (or that folder's parent)" if name else \
                "the folder the path is under"
            manifest = (f", or give the package's folder a package.xml naming it {name!r} (the folder "
                        "holding the URDF or one above it)") if name else ""
            return (f"{looked}Pass {which} with --package-dir, a rig file's package_dirs, or "
                    f"ROS_PACKAGE_PATH{manifest}")
        if scheme and scheme != "file":
            return f"its URI scheme {scheme}:// is not read (meshes are read from files); save the file " \
                   "beside the URDF and refer to it by a relative path"
        path = unquote(rest) if scheme == "file" else uri
        if os.path.isabs(path):
            return f"{looked}The path is absolute and no file is there; fix the path, or keep the mesh " \
                   "beside the URDF and refer to it by a relative path"
        where = f"the URDF's folder {self.base}" if self.base is not None else "the working folder"
        return f"{looked}A relative path is read from {where}; put the file there or fix the path"

    def _under(self, roots: list[str], rel: str) -> tuple[str | None, tuple[str, ...]]:
        """The first ``root/rel`` that is a file (``rel`` relative), each candidate's folder asked once per
        description: a package root that does not exist costs one question for all its meshes."""
        folder_rel = rel.rpartition("/")[0]
        tried: list[str] = []
        seen: set[str] = set()
        is_dir = self._is_dir
        for root in roots:
            prefix = root if root.endswith("/") else root + "/"  # what os.path.join puts between them
            c = prefix + rel
            if c in seen:
                continue
            seen.add(c)
            tried.append(c)
            if is_dir(prefix + folder_rel if folder_rel else root) and _isfile(c):
                return os.path.normpath(c), tuple(tried)
        return None, tuple(tried)
