"""The package's version and bundled data, found from the package itself."""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

import mime_gui
from mime_gui import _package

ROOT = Path(__file__).resolve().parents[1]
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_resources_live_inside_the_package():
    assert mime_gui.RESOURCES == Path(mime_gui.__file__).parent / "resources"
    assert (mime_gui.RESOURCES / "demo" / "demo.rig.json").is_file()


def test_the_version_comes_from_the_installed_metadata(monkeypatch):
    monkeypatch.setattr(_package.metadata, "version", lambda name: {"mime-gui": "9.8.7"}[name])
    assert _package.package_version() == "9.8.7"


def test_a_source_tree_never_installed_reads_pyproject(monkeypatch):
    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(_package.metadata, "version", missing)
    assert _package.package_version() == VERSION


def test_without_metadata_or_pyproject_the_version_says_so(monkeypatch, tmp_path):
    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(_package.metadata, "version", missing)
    monkeypatch.setattr(_package, "__file__", str(tmp_path / "pkg" / "_package.py"))
    assert _package.package_version() == "0+unknown"
