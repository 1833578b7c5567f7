"""The package's version and bundled data, found from the package itself."""

from __future__ import annotations

import importlib
import shutil
import sys
import tempfile
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path

import mime_gui
from mime_gui import _package

ROOT = Path(__file__).resolve().parents[1]
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_the_bundled_data_is_the_package_mime_gui_resources():
    """The repository's top-level resources/ installed as mime_gui.resources: the editable install maps it."""
    data = importlib.import_module("mime_gui.resources")
    assert mime_gui.RESOURCES == Path(data.__file__).parent
    demo = "demo/demo.rig.json"
    assert (mime_gui.RESOURCES / demo).read_bytes() == (ROOT / "resources" / demo).read_bytes()


def test_a_source_tree_never_installed_finds_the_data_beside_the_package(monkeypatch):
    def missing(name):
        raise ModuleNotFoundError(name)

    monkeypatch.setattr(_package.resources, "files", missing)
    folder = _package.resources_folder()
    assert folder == Path(_package.__file__).resolve().parents[1] / "resources"
    assert (folder / "demo" / "demo.rig.json").is_file()


def test_every_package_folder_is_installed_and_the_data_mapped():
    """pyproject names the packages (resources/ lives outside mime_gui/): a new package folder goes there."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "mime_gui").rglob("__init__.py")}
    assert set(config["packages"]) == folders | {"mime_gui.resources"}
    assert config["package-dir"] == {"mime_gui.resources": "resources"}
    data = config["package-data"]["mime_gui.resources"]
    shipped = {f for f in (ROOT / "resources").rglob("*")
               if f.is_file() and "__pycache__" not in f.parts and f.name != "__init__.py"}
    matched = {f for pattern in data for f in (ROOT / "resources").glob(pattern)}
    assert sorted(shipped - matched) == [], "bundled files that no package-data pattern ships"


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


def test_a_package_imported_from_a_zip_has_its_data_copied_out_and_removed_at_exit(tmp_path, monkeypatch):
    archive = tmp_path / "zipped.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("zipped_data_pkg/__init__.py", "")
        z.writestr("zipped_data_pkg/resources/__init__.py", "")  # the data as a package, as mime_gui's is
        z.writestr("zipped_data_pkg/resources/demo/arm.urdf", "<robot name='zipped'/>")
        z.writestr("zipped_data_pkg/resources/table.bin", bytes(range(256)))
    monkeypatch.syspath_prepend(str(archive))
    at_exit = []
    monkeypatch.setattr(_package.atexit, "register", lambda fn, *args, **kw: at_exit.append((fn, args, kw)))
    try:
        folder = _package.resources_folder("zipped_data_pkg")
        assert (folder / "demo" / "arm.urdf").read_text() == "<robot name='zipped'/>"
        assert (folder / "table.bin").read_bytes() == bytes(range(256))
        assert sorted(p.name for p in folder.iterdir()) == ["__init__.py", "demo", "table.bin"]
        # a fresh folder in the system's temp dir, named so a leftover one (a killed process) says whose it is
        assert folder.parent == Path(tempfile.gettempdir())
        assert folder.name.startswith("mime-gui-resources-")
        assert at_exit == [(shutil.rmtree, (folder,), {"ignore_errors": True})]
        shutil.rmtree(folder)
    finally:
        sys.modules.pop("zipped_data_pkg.resources", None)
        sys.modules.pop("zipped_data_pkg", None)
