"""Resolve mesh URIs of a description to files on disk.

``package://NAME/rest`` is looked up under: the description's folder, the given package folders (each either
a folder *of* packages or the package folder itself), ``ROS_PACKAGE_PATH``, and every parent folder of the
description that is named NAME or holds a folder named NAME. ``package:///rest`` (no package name) is looked
up under the package folders, ``ROS_PACKAGE_PATH``, the description's folder and each of its parents, then
as an absolute path. ``model://NAME/rest`` (Gazebo) is treated as ``package://``. ``file://`` and relative
paths are taken from the description's folder (the working folder for text without a file). Every path tried
is kept so an unresolved mesh can say where it looked.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path
from urllib.parse import unquote

_join = os.path.join
_isfile = os.path.isfile


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
        self.package_dirs = [os.path.abspath(str(d)) for d in package_dirs]
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

    def package_roots(self, name: str) -> list[str]:
        roots = self._roots.get(name)
        if roots is None:
            roots = []
            for d in (*self.package_dirs, *self.ros):
                roots += [_join(d, name), d]  # a folder *of* packages, or the package folder itself
            for parent in self.parents:
                if os.path.basename(parent) == name:
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
            if not rel or rel.startswith("/"):
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
