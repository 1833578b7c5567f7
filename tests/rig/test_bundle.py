"""``mime-gui export --bundle``: a zip that opens and validates in a fresh folder; hostile zips refused."""

from __future__ import annotations

import json
import shutil
import stat
import zipfile

import numpy as np
import pytest
from rig_helpers import DEMO_RIG

from mime_gui.cli import main
from mime_gui.rig import load
from mime_gui.rig.bundle import MAX_RATIO, BundleError, open_bundle

RIG = b'{"format": "mime-rig", "version": 1, "name": "r"}'


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("MIME_GUI_BUNDLE_CACHE", str(folder))
    return folder


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
    assert "is valid (2 segment(s), 1 part(s), 1 magnet(s))" in out and "warning[" not in out
    [folder] = list(cache.iterdir())
    assert load(folder / "rig.rig.json") == load(folder / "rig.rig.json")
    assert load(folder / "rig.rig.json").validate() == []


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
    source = tmp_path / "lab" / "rigs"
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


def test_the_session_refuses_a_hostile_bundle_with_its_code(tmp_path, cache):
    from mime_gui.session import Session, SessionError

    path = _zip(tmp_path / "hostile.zip", [("rig.rig.json", RIG), ("../escaped.txt", b"x")])
    with pytest.raises(SessionError) as info:
        Session().open(str(path))
    assert info.value.code == "bundle.path" and info.value.file == str(path)
    assert not cache.exists() or list(cache.iterdir()) == []
