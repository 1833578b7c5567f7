"""Refusals of writing and opening a bundle that the demo's bundle never meets: a mesh named by an absolute
path or file:// address, a part's file that is not there, a rig whose bundled copy would not validate;
entries that are neither file nor folder, encrypted, too many; folder entries; a bundle that is not a file;
a rig in the bundle that does not read (left to the reading); an unfound package mesh; pruning a cache that
is not there, an entry gone while listed, a folder that cannot be removed."""

from __future__ import annotations

import json
import os
import shutil
import stat
import zipfile

import pytest
from rig_helpers import DEMO_RIG

from mime_gui import inputs
from mime_gui.cli import main
from mime_gui.rig import Pose, load
from mime_gui.rig import bundle as bundle_module
from mime_gui.rig.bundle import MAX_ENTRIES, SUFFIX, BundleError, open_bundle, prune_cache, write_bundle
from mime_gui.rig.rigfile import RigFileError

RIG = b'{"format": "mime-rig", "version": 1, "name": "r"}'


pytestmark = pytest.mark.usefixtures("cache")  # the bundle cache in the test's own folder


def _demo(tmp_path):
    source = tmp_path / "src" / "demo"
    shutil.copytree(DEMO_RIG.parent, source)
    return source


def _zip(path, entries):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries:
            z.writestr(name, data)
    return path


# -- writing -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("spelled", ["{path}", "file://{path}"], ids=["absolute", "file-uri"])
def test_a_mesh_named_by_an_absolute_path_writes_no_bundle(tmp_path, capsys, spelled):
    source = _demo(tmp_path)
    uri = spelled.format(path=source / "meshes" / "wrist.obj")
    urdf = source / "arm.urdf"
    urdf.write_text(urdf.read_text().replace('filename="meshes/wrist.obj"', f'filename="{uri}"'))
    out = tmp_path / "out" / "b.zip"
    out.parent.mkdir()
    with pytest.raises(BundleError) as info:
        write_bundle(load(source / "demo.rig.json"), out)
    assert info.value.code == "bundle.absolute-path" and info.value.file == "chain.arm.link_5"
    assert info.value.message == (f"the description names the mesh {uri!r} by an absolute path, which no "
                                   "other machine has; refer to it relative to the URDF or by package://")
    assert list(out.parent.iterdir()) == []
    assert main(["export", str(source / "demo.rig.json"), "--bundle", str(out)]) == 1
    assert capsys.readouterr().out.startswith("error[bundle.absolute-path] chain.arm.link_5: ")


def test_a_part_s_file_that_is_not_there_writes_no_bundle(tmp_path):
    source = _demo(tmp_path)
    data = json.loads((source / "demo.rig.json").read_text())
    data["parts"]["holder"]["geometry"] = {"type": "mesh", "path": "meshes/holder.stl", "scale": [1, 1, 1]}
    (source / "demo.rig.json").write_text(json.dumps(data))
    out = tmp_path / "b.zip"
    with pytest.raises(BundleError) as info:
        write_bundle(load(source / "demo.rig.json"), out)
    assert info.value.code == "bundle.missing" and info.value.file == str(source / "meshes" / "holder.stl")
    assert info.value.message == ("parts.holder.geometry needs this file and it is not there; fix the rig "
                                  "(mime-gui validate says how) before bundling it")
    assert not out.exists()


def test_a_rig_whose_bundled_copy_does_not_validate_writes_no_bundle(tmp_path):
    rig = load(_demo(tmp_path) / "demo.rig.json")
    rig.poses["far"] = Pose({"arm": {"joint_1": 400.0}}, "deg|m")  # beyond joint_1's 2.9 rad
    out = tmp_path / "b.zip"
    with pytest.raises(BundleError) as info:
        write_bundle(rig, out)
    assert info.value.code == "bundle.invalid" and info.value.file == str(out)
    assert info.value.message.startswith("the bundled copy does not validate (")
    assert "pose.limits" in info.value.message and info.value.message.endswith("); nothing written")
    assert not out.exists() and list(tmp_path.glob("*.zip")) == []


# -- opening: entries -------------------------------------------------------------------------------------
def _unix(name: str, mode: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.create_system = 3
    info.external_attr = mode << 16
    return info


@pytest.mark.parametrize("entry, code, words", [
    (_unix("files/pipe", stat.S_IFIFO | 0o644), "bundle.kind",
     "the entry 'files/pipe' is neither a file nor a folder"),
    (_unix("files/dev", stat.S_IFCHR | 0o644), "bundle.kind",
     "the entry 'files/dev' is neither a file nor a folder"),
], ids=["fifo", "device"])
def test_an_entry_neither_file_nor_folder_is_refused(tmp_path, cache, entry, code, words):
    path = _zip(tmp_path / "odd.zip", [("rig.rig.json", RIG), (entry, b"x")])
    with pytest.raises(BundleError) as info:
        open_bundle(path)
    assert info.value.code == code and info.value.file == str(path)
    assert info.value.message == f"{words}; the bundle is refused and nothing of it is written"
    assert not cache.exists() or list(cache.iterdir()) == []


def test_an_encrypted_entry_is_refused(tmp_path, cache):
    path = _zip(tmp_path / "locked.zip", [("rig.rig.json", RIG), ("files/a.stl", b"solid a\n")])
    raw = bytearray(path.read_bytes())
    # zipfile writes no encrypted entry: set bit 0 of the general purpose flags of a.stl's central record
    central = raw.rfind(b"PK\x01\x02")
    raw[central + 8] |= 0x1
    path.write_bytes(bytes(raw))
    with zipfile.ZipFile(path) as z:
        assert z.getinfo("files/a.stl").flag_bits & 0x1
    with pytest.raises(BundleError) as info:
        open_bundle(path)
    assert info.value.code == "bundle.encrypted" and info.value.file == str(path)
    assert info.value.message == ("the entry 'files/a.stl' is encrypted; the bundle is refused and nothing "
                                  "of it is written")
    assert not cache.exists() or list(cache.iterdir()) == []


def test_a_unix_file_and_folder_entry_with_their_modes_open(tmp_path):
    path = _zip(tmp_path / "ok.zip", [(_unix("rig.rig.json", stat.S_IFREG | 0o644), RIG),
                                      (_unix("files/", stat.S_IFDIR | 0o755), b"")])
    rig = open_bundle(path)
    assert rig.read_bytes() == RIG and (rig.parent / "files").is_dir()


def test_more_entries_than_the_bound_are_refused(tmp_path, cache):
    path = tmp_path / "many.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("rig.rig.json", RIG)
        for i in range(MAX_ENTRIES):
            z.writestr(f"f/{i}", b"")
    with pytest.raises(BundleError) as info:
        open_bundle(path)
    assert info.value.code == "bundle.entries"
    assert info.value.message.startswith(f"it holds {MAX_ENTRIES + 1} entries, more than {MAX_ENTRIES}; ")
    assert not cache.exists() or list(cache.iterdir()) == []


def test_folder_entries_are_extracted_as_folders(tmp_path):
    path = _zip(tmp_path / "folders.zip", [("files/", b""), ("files/empty/", b""), ("rig.rig.json", RIG),
                                           ("files/a.stl", b"solid a\n")])
    rig = open_bundle(path)
    empty = rig.parent / "files" / "empty"
    assert empty.is_dir() and list(empty.iterdir()) == []
    assert (rig.parent / "files" / "a.stl").read_bytes() == b"solid a\n"
    assert sorted(p.relative_to(rig.parent).as_posix() for p in rig.parent.rglob("*")) == \
        ["files", "files/a.stl", "files/empty", "rig.rig.json"]


def test_a_bundle_that_is_a_folder_is_refused_as_a_file_not_as_a_zip(tmp_path):
    folder = tmp_path / "b.zip"
    folder.mkdir()
    with pytest.raises(inputs.FileError) as info:
        open_bundle(folder)
    assert info.value.code == "file.not-regular" and "a folder" in info.value.message


# -- opening: the rig inside ---------------------------------------------------------------------------------
def test_a_bundled_rig_that_does_not_read_is_extracted_and_left_to_the_reading(tmp_path, capsys):
    path = _zip(tmp_path / "broken.zip", [("rig.rig.json", b"{not json")])
    rig = open_bundle(path)
    assert rig.read_bytes() == b"{not json"
    with pytest.raises(RigFileError) as info:
        load(rig)
    assert info.value.code == "rigfile.json"
    assert main(["validate", str(path)]) == 1
    assert "error[rigfile.json]" in capsys.readouterr().out


def test_a_package_mesh_not_found_is_not_refused_as_outside(tmp_path):
    urdf = (b'<robot name="r"><link name="a"><visual><geometry><mesh filename="package://absent/m.stl"/>'
            b'</geometry></visual></link></robot>')
    rig = {"format": "mime-rig", "version": 1, "name": "r",
           "chain": [{"name": "arm", "kind": "Arm.Kinematic", "description": "files/r.urdf"}]}
    path = _zip(tmp_path / "pkg.zip", [("rig.rig.json", json.dumps(rig).encode()), ("files/r.urdf", urdf)])
    opened = open_bundle(path)
    assert (opened.parent / "files" / "r.urdf").read_bytes() == urdf
    assert list(load(opened).chain) == ["arm"]


# -- pruning -----------------------------------------------------------------------------------------------
def _extractions(cache, names):
    out = []
    for i, name in enumerate(names):
        folder = cache / f"{name}{SUFFIX}"
        folder.mkdir(parents=True)
        os.utime(folder, (1000.0 + i, 1000.0 + i))  # old: all of them go
        out.append(folder)
    return out


def test_pruning_a_cache_that_is_not_there_removes_nothing(tmp_path):
    assert prune_cache(tmp_path / "nowhere") == []
    assert not (tmp_path / "nowhere").exists()


def test_a_folder_that_cannot_be_removed_is_left_and_the_others_go(tmp_path, monkeypatch):
    cache = tmp_path / "c"
    a, b, c = _extractions(cache, ["a", "b", "c"])
    real = shutil.rmtree

    def rmtree(path, *args, **kwargs):
        if os.fspath(path) == os.fspath(b):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(bundle_module.shutil, "rmtree", rmtree)
    removed = prune_cache(cache, keep=0)
    assert removed == [c, a]  # most recent first; b is left where it is
    assert b.is_dir() and not a.exists() and not c.exists()


def test_an_extraction_gone_while_the_cache_is_listed_is_skipped(tmp_path, monkeypatch):
    cache = tmp_path / "c"
    a, b = _extractions(cache, ["a", "b"])
    real = os.scandir

    class Gone:
        def __init__(self, entry):
            self._entry = entry
            self.name = entry.name

        def is_dir(self, follow_symlinks=True):
            return self._entry.is_dir(follow_symlinks=follow_symlinks)

        def stat(self, follow_symlinks=True):
            if self.name == a.name:
                raise FileNotFoundError(2, "No such file or directory", self.name)
            return self._entry.stat(follow_symlinks=follow_symlinks)

    class Listing:
        def __init__(self, path):
            self._it = real(path)

        def __enter__(self):
            return (Gone(e) for e in self._it)

        def __exit__(self, *exc):
            self._it.close()

    monkeypatch.setattr(bundle_module.os, "scandir", Listing)
    removed = prune_cache(cache, keep=0)
    monkeypatch.undo()
    assert removed == [b] and a.is_dir()
