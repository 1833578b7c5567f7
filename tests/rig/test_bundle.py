"""``mime-gui export --bundle``: a zip that opens and validates in a fresh folder; hostile zips refused."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import zipfile
import zlib

import numpy as np
import pytest
from rig_helpers import DEMO_RIG

from mime_gui.cli import main
from mime_gui.rig import load
from mime_gui.rig.bundle import MAX_RATIO, STEM_BYTES, SUFFIX, BundleError, open_bundle, write_bundle
from mime_gui.rig.rigfile import parse

RIG = b'{"format": "mime-rig", "version": 1, "name": "r"}'


pytestmark = pytest.mark.usefixtures("cache")  # the bundle cache in the test's own folder


@pytest.fixture
def bundle(tmp_path, capsys):
    """The demo rig bundled from a copy that is then removed, the zip moved to a fresh folder."""
    source = tmp_path / "source" / "demo"
    shutil.copytree(DEMO_RIG.parent, source)
    out = tmp_path / "source" / "demo.zip"
    assert main(["export", str(source / "demo.rig.json"), "--bundle", str(out)]) == 0
    fresh = tmp_path / "elsewhere"
    fresh.mkdir()
    moved = shutil.move(str(out), fresh / "demo.zip")
    shutil.rmtree(tmp_path / "source")
    capsys.readouterr()
    return moved


def test_a_bundle_holds_the_rig_and_every_referenced_file(bundle):
    with zipfile.ZipFile(bundle) as z:
        names = sorted(z.namelist())
        data = json.loads(z.read("rig.rig.json"))
    assert names == ["files/arm.urdf", "files/meshes/base.stl", "files/meshes/wrist.obj", "rig.rig.json"]
    assert data["chain"][0]["description"] == "files/arm.urdf"
    assert data["package_dirs"] == ["files"]  # where package://demo/meshes/base.stl is found
    assert sorted(data["provenance"]["files"]) == names[:3]


def test_the_same_rig_bundles_to_the_same_bytes(tmp_path, capsys):
    source = tmp_path / "demo"
    shutil.copytree(DEMO_RIG.parent, source)
    first, second = tmp_path / "a.zip", tmp_path / "b.zip"
    assert main(["export", str(source / "demo.rig.json"), "--bundle", str(first)]) == 0
    (source / "arm.urdf").touch()  # a newer modification time changes nothing
    assert main(["export", str(source / "demo.rig.json"), "--bundle", str(second)]) == 0
    assert first.read_bytes() == second.read_bytes()


def test_a_bundle_validates_in_a_fresh_folder(bundle, capsys, cache):
    assert main(["validate", str(bundle)]) == 0
    out = capsys.readouterr().out
    assert "is valid (2 segment(s), 1 part(s), 1 magnet(s), 2 pose(s))" in out and "warning[" not in out
    [folder] = list(cache.iterdir())
    # the demo rig as written by hand, naming the copies where the bundle keeps them
    expected = json.loads(DEMO_RIG.read_text())
    expected["chain"][0]["description"] = "files/arm.urdf"
    expected["package_dirs"] = ["files"]
    bundled = load(folder / "rig.rig.json")
    assert bundled == parse(json.dumps(expected), base=folder.resolve())
    for name in ("arm.urdf", "meshes/base.stl", "meshes/wrist.obj"):
        assert (folder / "files" / name).read_bytes() == (DEMO_RIG.parent / name).read_bytes()
    assert bundled.validate() == []


def test_a_bundle_plays_and_reports(bundle, tmp_path, capsys):
    out = tmp_path / "played.npz"
    commands = DEMO_RIG.parent / "chain.csv"
    assert main(["play", str(bundle), "--commands", str(commands), "--out", str(out), "--quiet"]) == 0
    reference = tmp_path / "reference.npz"
    assert main(["play", str(DEMO_RIG), "--commands", str(commands), "--out", str(reference), "--quiet"]) == 0
    assert np.array_equal(np.load(out)["frame_poses"], np.load(reference)["frame_poses"])
    assert main(["report", str(bundle)]) == 0


def test_the_session_opens_a_bundle_as_its_rig(bundle):
    from mime_gui.session import Session

    doc = Session().open(str(bundle))
    assert doc.kind == "rig" and doc.path.endswith("rig.rig.json")
    demo = load(DEMO_RIG)
    assert doc.rig.name == demo.name and doc.rig.chain.keys() == demo.chain.keys()
    assert doc.rig.parts == demo.parts and doc.rig.validate() == []


def test_a_mesh_changed_after_extraction_is_named(bundle, capsys, cache):
    main(["validate", str(bundle)])
    [folder] = list(cache.iterdir())
    mesh = folder / "files" / "meshes" / "base.stl"
    mesh.write_bytes(mesh.read_bytes() + b"\0")
    capsys.readouterr()
    main(["validate", str(folder / "rig.rig.json")])
    out = capsys.readouterr().out
    assert "warning[provenance.changed] files/meshes/base.stl: " in out
    assert "wrist.obj" not in out


def test_a_part_mesh_outside_the_rig_folder_is_bundled(tmp_path, capsys):
    source = tmp_path / "lab" / "demo"  # named as its package: package://demo/... resolves
    shutil.copytree(DEMO_RIG.parent, source)
    shared = tmp_path / "lab" / "shared"
    shared.mkdir()
    shutil.copy(DEMO_RIG.parent / "meshes" / "base.stl", shared / "holder.stl")
    data = json.loads((source / "demo.rig.json").read_text())
    data["parts"]["holder"]["geometry"] = {"type": "mesh", "path": "../shared/holder.stl", "scale": [1, 1, 1]}
    (source / "demo.rig.json").write_text(json.dumps(data))
    out = tmp_path / "b.zip"
    assert main(["export", str(source / "demo.rig.json"), "--bundle", str(out)]) == 0
    with zipfile.ZipFile(out) as z:
        assert "files/shared/holder.stl" in z.namelist()
        assert json.loads(z.read("rig.rig.json"))["parts"]["holder"]["geometry"]["path"] == \
            "files/shared/holder.stl"
    shutil.rmtree(tmp_path / "lab")
    assert main(["validate", str(out)]) == 0


def test_an_invalid_rig_writes_no_bundle(tmp_path, capsys):
    data = json.loads(DEMO_RIG.read_text())
    data["chain"][0]["description"] = str(DEMO_RIG.parent / "arm.urdf")
    data["chain"][1]["mount"] = "flange"
    rig = tmp_path / "bad.rig.json"
    rig.write_text(json.dumps(data))
    assert main(["export", str(rig), "--bundle", str(tmp_path / "b.zip")]) == 1
    assert not (tmp_path / "b.zip").exists()


# -- hostile bundles ---------------------------------------------------------------------------------------
def _zip(path, entries):
    """``entries``: (name or ZipInfo, bytes) written as they are."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries:
            z.writestr(name, data)
    return path


def _link(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.create_system = 3
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info


HOSTILE = {
    "dot-dot": ([("rig.rig.json", RIG), ("../escaped.txt", b"x")], "bundle.path"),
    "dot-dot-inside": ([("rig.rig.json", RIG), ("files/../../escaped.txt", b"x")], "bundle.path"),
    "absolute": ([("rig.rig.json", RIG), ("/tmp/escaped.txt", b"x")], "bundle.path"),
    "drive": ([("rig.rig.json", RIG), ("C:/escaped.txt", b"x")], "bundle.path"),
    "backslash": ([("rig.rig.json", RIG), ("..\\escaped.txt", b"x")], "bundle.path"),
    "symlink": ([("rig.rig.json", RIG), (_link("files"), b"/etc")], "bundle.link"),
    "symlink-then-file": ([(_link("files"), b".."), ("rig.rig.json", RIG), ("files/escaped.txt", b"x")],
                          "bundle.link"),
    "duplicate": ([("rig.rig.json", RIG), ("a.stl", b"1"), ("a.stl", b"2")], "bundle.duplicate"),
    "duplicate-case": ([("rig.rig.json", RIG), ("A.stl", b"1"), ("a.stl", b"2")], "bundle.duplicate"),
    "file-and-folder": ([("rig.rig.json", RIG), ("a", b"1"), ("a/b.stl", b"2")], "bundle.duplicate"),
    "bomb": ([("rig.rig.json", RIG), ("zeros.stl", bytes(64 * 1024 * 1024))], "bundle.ratio"),
    "no-rig": ([("files/a.stl", b"1")], "bundle.no-rig"),
    "two-rigs": ([("a.rig.json", RIG), ("b.rig.json", RIG)], "bundle.no-rig"),
}


@pytest.mark.filterwarnings("ignore:Duplicate name")
@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_bundle_is_refused_and_writes_nothing(tmp_path, cache, case, capsys):
    entries, code = HOSTILE[case]
    work = tmp_path / "work"
    work.mkdir()
    path = _zip(work / "hostile.zip", entries)
    with pytest.raises(BundleError) as info:
        open_bundle(path)
    assert info.value.code == code and "hostile.zip" in info.value.file
    assert not cache.exists() or list(cache.iterdir()) == []  # nothing extracted, nothing left behind
    assert sorted(p.name for p in work.iterdir()) == ["hostile.zip"]
    assert not (tmp_path / "escaped.txt").exists()
    # the command line says the same on one line, no traceback
    assert main(["validate", str(path)]) == 1
    assert capsys.readouterr().out.startswith(f"error[{code}] ")


def test_a_bundle_past_the_size_limit_is_refused(tmp_path, cache, monkeypatch):
    monkeypatch.setenv("MIME_GUI_MAX_BUNDLE_MB", "0.01")  # 10,485 bytes unpacked
    ok = _zip(tmp_path / "ok.zip", [("rig.rig.json", RIG), ("a.stl", b"1" * (10485 - len(RIG)))])
    assert open_bundle(ok).name == "rig.rig.json"  # exactly at the limit
    big = _zip(tmp_path / "big.zip", [("rig.rig.json", RIG), ("a.stl", b"1" * (10486 - len(RIG)))])
    with pytest.raises(BundleError) as info:
        open_bundle(big)
    assert info.value.code == "bundle.too-large" and "MIME_GUI_MAX_BUNDLE_MB" in info.value.message


def test_a_compressible_entry_at_the_ratio_is_accepted(tmp_path):
    # a mesh of text compresses well: what is refused is an expansion past MAX_RATIO of a large entry
    data = bytes(2 * 1024 * 1024)
    path = _zip(tmp_path / "zeros.zip", [("rig.rig.json", RIG), ("z.stl", data)])
    with zipfile.ZipFile(path) as z:
        ratio = z.getinfo("z.stl").file_size / z.getinfo("z.stl").compress_size
    assert ratio > MAX_RATIO
    with pytest.raises(BundleError):
        open_bundle(path)
    small = _zip(tmp_path / "small.zip", [("rig.rig.json", RIG), ("z.stl", bytes(1024 * 1024))])
    assert open_bundle(small).exists()  # at the floor, a small entry is not judged by its ratio


def test_a_header_that_lies_about_the_size_is_refused(tmp_path, cache):
    path = _zip(tmp_path / "lie.zip", [("rig.rig.json", RIG), ("a.stl", b"1" * 5000)])
    raw = bytearray(path.read_bytes())
    # the central directory's uncompressed size of a.stl (offset 24 of its record) says 10 bytes
    central = raw.rfind(b"PK\x01\x02")
    raw[central + 24:central + 28] = (10).to_bytes(4, "little")
    path.write_bytes(bytes(raw))
    with pytest.raises(BundleError) as info:
        open_bundle(path)
    assert info.value.code in ("bundle.too-large", "bundle.zip")
    assert not cache.exists() or list(cache.iterdir()) == []


def test_not_a_zip_is_a_coded_error(tmp_path):
    path = tmp_path / "x.zip"
    path.write_text("hello")
    with pytest.raises(BundleError) as info:
        open_bundle(path)
    assert info.value.code == "bundle.zip"


def test_not_a_zip_names_the_file_and_says_to_give_a_bundle_written_by_export_bundle(tmp_path):
    path = tmp_path / "x.zip"
    path.write_text("hello")
    with pytest.raises(BundleError) as info:
        open_bundle(path)
    assert info.value.file == str(path)
    assert "not a readable zip" in info.value.message
    assert info.value.message.endswith("give a bundle written by mime-gui export --bundle")


def test_the_session_refuses_a_hostile_bundle_with_its_code(tmp_path, cache):
    from mime_gui.session import Session, SessionError

    path = _zip(tmp_path / "hostile.zip", [("rig.rig.json", RIG), ("../escaped.txt", b"x")])
    with pytest.raises(SessionError) as info:
        Session().open(str(path))
    assert info.value.code == "bundle.path" and info.value.file == str(path)
    assert not cache.exists() or list(cache.iterdir()) == []


# -- a mesh the description names that is not there --------------------------------------------------------
@pytest.mark.parametrize(("mesh", "uri", "link"), [
    ("meshes/wrist.obj", "meshes/wrist.obj", "chain.arm.link_5"),
    ("meshes/base.stl", "package://demo/meshes/base.stl", "chain.arm.base_link"),
])
def test_a_mesh_that_is_not_there_writes_no_bundle(tmp_path, capsys, mesh, uri, link):
    out_folder = tmp_path / "out"
    out_folder.mkdir()
    for case in ("whole", "broken"):  # each folder named as the package of package://demo/meshes/base.stl
        shutil.copytree(DEMO_RIG.parent, tmp_path / case / "demo")
    assert main(["export", str(tmp_path / "whole" / "demo" / "demo.rig.json"), "--bundle",
                 str(out_folder / "whole.zip")]) == 0  # the same rig with the mesh there
    (out_folder / "whole.zip").unlink()
    rig = tmp_path / "broken" / "demo" / "demo.rig.json"
    (rig.parent / mesh).unlink()
    assert main(["validate", str(rig)]) == 0  # validation only warns: the robot loads without it
    capsys.readouterr()
    assert main(["export", str(rig), "--bundle", str(out_folder / "b.zip")]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"error[bundle.missing] {rig.parent / 'arm.urdf'}: {link} needs the mesh {uri!r} ")
    assert out.rstrip().endswith(" and it is not found on this machine; fix the description's filename= or "
                                 "the rig's package_dirs (mime-gui validate says where it was looked for) "
                                 "before bundling it")
    assert "Traceback" not in out
    assert list(out_folder.iterdir()) == []  # no zip, no temporary file
    with pytest.raises(BundleError) as info:
        write_bundle(load(rig), out_folder / "c.zip")
    assert info.value.code == "bundle.missing" and list(out_folder.iterdir()) == []


# -- damaged zips, names with NUL, long names, a cache that is a file -------------------------------------
def _damaged(path):
    """A bundle whose mesh entry's compressed data is damaged (its first deflate block of a type that does not
    exist); its headers stay as written."""
    _zip(path, [("rig.rig.json", RIG), ("files/a.stl", b"solid a\n" * 200)])
    raw = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as z:
        offset = z.getinfo("files/a.stl").header_offset
    name_len, extra_len = int.from_bytes(raw[offset + 26:offset + 28], "little"), \
        int.from_bytes(raw[offset + 28:offset + 30], "little")
    raw[offset + 30 + name_len + extra_len] = 0xFF  # BTYPE 11: reserved, an invalid block
    path.write_bytes(bytes(raw))
    return path


def test_a_damaged_compressed_entry_is_a_coded_error(tmp_path, cache, capsys):
    path = _damaged(tmp_path / "damaged.zip")
    with zipfile.ZipFile(path) as z, pytest.raises(zlib.error):
        z.read("files/a.stl")  # the damage is of the kind that raised zlib.error through
    with pytest.raises(BundleError) as info:
        open_bundle(path)
    assert info.value.code == "bundle.zip" and info.value.file == str(path)
    assert list(cache.iterdir()) == []
    assert main(["validate", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out.startswith(f"error[bundle.zip] {path}: cannot extract it (") and captured.err == ""


def test_the_session_refuses_a_damaged_bundle_with_its_code(tmp_path, cache):
    from mime_gui.session import Session, SessionError

    path = _damaged(tmp_path / "damaged.zip")
    with pytest.raises(SessionError) as info:
        Session().open(str(path))
    assert info.value.code == "bundle.zip" and info.value.file == str(path)


def test_an_entry_name_holding_nul_is_refused(tmp_path, cache, capsys):
    # zipfile writes a name cut at NUL: the name is written with a stand-in and the bytes put in after
    path = _zip(tmp_path / "nul.zip", [("rig.rig.json", RIG), ("files/a_b.stl", b"x")])
    raw = path.read_bytes()
    assert raw.count(b"files/a_b.stl") == 2  # the local header and the central directory
    path.write_bytes(raw.replace(b"files/a_b.stl", b"files/a\x00b.stl"))
    with zipfile.ZipFile(path) as z:
        assert z.namelist() == ["rig.rig.json", "files/a"]  # what an unchecked extraction would write
    with pytest.raises(BundleError) as info:
        open_bundle(path)
    assert info.value.code == "bundle.path" and r"'files/a\x00b.stl'" in info.value.message
    assert not cache.exists() or list(cache.iterdir()) == []
    assert main(["validate", str(path)]) == 1
    assert capsys.readouterr().out.startswith(f"error[bundle.path] {path}: the entry 'files/a\\x00b.stl' ")


@pytest.mark.parametrize("stem", ["x" * 251, "é" * 125, "rig.bundle.v2." + "y" * 237])
def test_a_bundle_of_any_valid_file_name_opens(tmp_path, cache, capsys, stem):
    name = stem + ".zip"
    assert len(os.fsencode(name)) <= 255
    path = _zip(tmp_path / name, [("rig.rig.json", RIG)])
    rig = open_bundle(path)
    assert rig.read_bytes() == RIG
    folder = rig.parent.name
    assert folder.endswith(SUFFIX) and len(os.fsencode(folder)) <= 80
    # the stem's first STEM_BYTES bytes, whole characters only, then a hash of the whole name
    kept = os.fsencode(stem)[:STEM_BYTES].decode("utf-8", "ignore")
    assert folder.startswith(kept + "-" + hashlib.sha256(os.fsencode(name)).hexdigest()[:8] + "-")
    again = open_bundle(path)
    assert again.parent != rig.parent and again.read_bytes() == RIG  # every opening a folder of its own
    assert main(["validate", str(path)]) == 0
    assert capsys.readouterr().out == f"{path}: rig 'r' is valid (0 segment(s), 0 part(s), 0 magnet(s))\n"


@pytest.mark.parametrize("where", ["cache", "cache/below"])
def test_a_bundle_cache_that_is_a_file_is_a_coded_error(tmp_path, monkeypatch, capsys, where):
    blocker = tmp_path / "cache"
    blocker.write_text("mine")
    monkeypatch.setenv("MIME_GUI_BUNDLE_CACHE", str(tmp_path / where))
    path = _zip(tmp_path / "ok.zip", [("rig.rig.json", RIG)])
    with pytest.raises(BundleError) as info:
        open_bundle(path)
    assert info.value.code == "bundle.cache" and info.value.file == str(tmp_path / where)
    assert f"{blocker} is a file" in info.value.message and "MIME_GUI_BUNDLE_CACHE" in info.value.message
    assert blocker.read_text() == "mine"
    assert main(["validate", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out.startswith(f"error[bundle.cache] {tmp_path / where}: ") and captured.err == ""

    from mime_gui.session import Session, SessionError

    with pytest.raises(SessionError) as info:
        Session().open(str(path))
    assert info.value.code == "bundle.cache" and "MIME_GUI_BUNDLE_CACHE" in info.value.message


def test_a_bundle_that_opening_would_refuse_is_not_written(tmp_path, capsys):
    # an OBJ naming its material library by an absolute path: the library is copied in, the OBJ still names
    # the original, which a machine that has it would read
    source = tmp_path / "demo"
    shutil.copytree(DEMO_RIG.parent, source)
    library = tmp_path / "shared" / "red.mtl"
    library.parent.mkdir()
    library.write_text("newmtl red\nKd 1 0 0\n")
    obj = source / "meshes" / "wrist.obj"
    obj.write_bytes(f"mtllib {library}\n".encode() + obj.read_bytes())
    out_folder = tmp_path / "out"
    out_folder.mkdir()
    assert main(["export", str(source / "demo.rig.json"), "--bundle", str(out_folder / "b.zip")]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"error[bundle.outside] {out_folder / 'b.zip'}: chain.arm.link_5 (the material "
                          f"library of wrist.obj) names '{library}'")
    assert "name it relative to the file that names it" in out and list(out_folder.iterdir()) == []
