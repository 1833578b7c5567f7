"""What the installed package knows about itself: its version and where its bundled data lives.

The data lives in the repository's top-level ``resources/`` folder, installed as the package
``mime_gui.resources`` (``pyproject.toml`` maps the one to the other), so a plain ``pip install``, a wheel and
an editable install all carry it. It is found through ``importlib.resources``; the readers open URDFs and
meshes by path, so a package imported from a zip archive has its data copied out once, to a folder removed
when the process ends.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import tomllib
from importlib import metadata, resources
from importlib.resources.abc import Traversable
from pathlib import Path

DISTRIBUTION = "mime-gui"


def package_version() -> str:
    """The installed distribution's version; in a source tree that was never installed, pyproject's."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        pass
    pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
    try:
        return str(tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return "0+unknown"


def _copy_tree(source: Traversable, target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    for entry in source.iterdir():
        if entry.is_dir():
            _copy_tree(entry, target / entry.name)
        else:
            (target / entry.name).write_bytes(entry.read_bytes())


def resources_folder(package: str = "mime_gui") -> Path:
    """The package's ``resources`` folder as a real path on disk."""
    try:
        root = resources.files(f"{package}.resources")
    except ModuleNotFoundError:
        # A source tree on the path but never installed: nothing maps the data in, it sits beside the package.
        return Path(__file__).resolve().parent.parent / "resources"
    if isinstance(root, Path):
        return root
    # Not a plain folder (a zip import): Python 3.11's ``as_file`` cannot extract a folder, so copy it.
    folder = Path(tempfile.mkdtemp(prefix="mime-gui-resources-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    _copy_tree(root, folder)
    return folder
