"""Resolve mesh URIs of a description to files on disk.

``package://NAME/rest`` (also ``package:///rest``) is looked up under: the description's folder, the given
package folders, ``ROS_PACKAGE_PATH``, and every parent folder of the description that holds a folder named
NAME. ``file://`` and relative paths are taken from the description's folder. Every path tried is kept so an
unresolved mesh can say where it looked.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote


def _package_roots(name: str, base: Path | None, package_dirs) -> list[Path]:
    roots: list[Path] = []
    for d in package_dirs:
        d = Path(d)
        roots += [d / name, d]  # a folder *of* packages, or the package folder itself
    for d in os.environ.get("ROS_PACKAGE_PATH", "").split(os.pathsep):
        if d:
            roots += [Path(d) / name, Path(d)]
    if base is not None:
        for parent in [base, *base.parents]:
            if parent.name == name:
                roots.append(parent)
            roots.append(parent / name)
    seen, out = set(), []
    for r in roots:
        if r not in seen:
            seen.add(r)
            out.append(r)
    return out


def resolve_uri(uri: str, base: Path | None, package_dirs=()) -> tuple[str | None, tuple[str, ...]]:
    """Return ``(absolute path or None, paths tried)``."""
    tried: list[str] = []

    def first(candidates):
        for c in candidates:
            tried.append(str(c))
            if c.is_file():
                return str(c.resolve())
        return None

    if uri.startswith("package://"):
        rest = uri[len("package://"):]
        if rest.startswith("/"):  # package:///path: no package name, a path under any root
            rel = rest.lstrip("/")
            roots = [*(Path(d) for d in package_dirs), *([base] if base else [])]
            found = first([r / rel for r in roots])
            if found is None and Path("/" + rel).is_absolute():
                found = first([Path("/" + rel)])
            return found, tuple(tried)
        name, _, rel = rest.partition("/")
        found = first([root / rel for root in _package_roots(name, base, package_dirs)])
        return found, tuple(tried)
    if uri.startswith("file://"):
        path = Path(unquote(uri[len("file://"):]))
        candidates = [path] if path.is_absolute() else [(base or Path.cwd()) / path]
        return first(candidates), tuple(tried)
    path = Path(uri)
    if path.is_absolute():
        return first([path]), tuple(tried)
    return first([(base or Path.cwd()) / path]), tuple(tried)
