"""A rig opened from a bundle has no file of its own: Save needs a name, and saving copies the bundle's files
beside the new rig file so it no longer depends on the bundle cache."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mime_gui import RESOURCES
from mime_gui.rig import Box, Part, load
from mime_gui.rig.bundle import write_bundle
from mime_gui.session import Session, SessionError
from mime_gui.session.edits import AddItem


@pytest.fixture
def bundle(tmp_path, monkeypatch):
    monkeypatch.setenv("MIME_GUI_BUNDLE_CACHE", str(tmp_path / "cache"))
    (tmp_path / "lab").mkdir()
    return write_bundle(load(RESOURCES / "demo" / "demo.rig.json"), tmp_path / "lab" / "demo.zip")


def test_save_without_a_name_is_refused_and_the_cache_is_untouched(bundle, tmp_path):
    s = Session()
    doc = s.open(str(bundle))
    extracted = doc.path
    before = open(extracted, "rb").read()
    assert doc.bundle == str(bundle) and not s.writable
    assert "from the bundle demo.zip" in doc.name
    assert s.suggested_path() == str(tmp_path / "lab" / "demo" / "demo.rig.json")
    s.apply(AddItem("parts", "box", Part(Box((0.01, 0.01, 0.01)), mount="arm.tool0")))
    with pytest.raises(SessionError) as err:
        s.save()
    assert err.value.code == "session.no-path" and str(bundle) in err.value.message
    assert open(extracted, "rb").read() == before and s.modified


def test_a_bundle_named_in_capitals_suggests_a_folder_named_without_its_zip_suffix(bundle, tmp_path):
    shouted = bundle.rename(tmp_path / "lab" / "DEMO.ZIP")
    s = Session()
    s.open(str(shouted))
    assert s.suggested_path() == str(tmp_path / "lab" / "DEMO" / "DEMO.rig.json")


def test_save_under_a_name_copies_the_bundles_files_and_leaves_the_bundle(bundle, tmp_path):
    s = Session()
    doc = s.open(str(bundle))
    cache = tmp_path / "cache"
    s.apply(AddItem("parts", "box", Part(Box((0.01, 0.01, 0.01)), mount="arm.tool0")))
    target = s.save(s.suggested_path())
    folder = tmp_path / "lab" / "demo"
    assert target == str(folder / "demo.rig.json")
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()) == [
        "demo.rig.json", "files/arm.urdf", "files/meshes/base.stl", "files/meshes/wrist.obj"]
    assert doc.bundle == "" and doc.path == target and s.writable and not s.modified
    shutil.rmtree(cache)  # the saved rig names its own copies, not the cache's
    saved = load(target)
    assert "box" in saved.parts and saved.validate() == []
    s.undo()  # a step recorded before the save reads against the saved folder too
    s.save()
    assert load(target).validate() == [] and "box" not in load(target).parts
    assert 'files/arm.urdf"' in open(target).read()


def test_save_into_a_folder_with_other_files_of_the_same_name_is_refused(bundle, tmp_path):
    s = Session()
    s.open(str(bundle))
    folder = tmp_path / "elsewhere"
    (folder / "files").mkdir(parents=True)
    (folder / "files" / "arm.urdf").write_text("<robot name='mine'/>")
    with pytest.raises(SessionError) as err:
        s.save(folder / "demo.rig.json")
    assert err.value.code == "session.save-bundle" and "arm.urdf" in err.value.message
    assert (folder / "files" / "arm.urdf").read_text() == "<robot name='mine'/>"
    assert not (folder / "demo.rig.json").exists() and not (folder / "files" / "meshes").exists()
    assert s.document.bundle  # still from the bundle: Save still asks


def test_reload_keeps_a_bundle_document_without_a_file(bundle):
    s = Session()
    s.open(str(bundle))
    doc = s.reload()
    assert doc.bundle == str(bundle) and not s.writable


def test_a_rig_file_stays_writable(tmp_path):
    shutil.copytree(RESOURCES / "demo", tmp_path / "demo")
    s = Session()
    doc = s.open(str(tmp_path / "demo" / "demo.rig.json"))
    assert s.writable and doc.bundle == "" and s.suggested_path() == doc.path
    assert s.save() == doc.path


def test_a_urdf_suggests_a_rig_file_beside_it_named_after_it(tmp_path):
    shutil.copytree(RESOURCES / "demo", tmp_path / "demo")
    (tmp_path / "demo" / "arm.urdf").rename(tmp_path / "demo" / "arm.v2.urdf")
    s = Session()
    s.open(str(tmp_path / "demo" / "arm.v2.urdf"))
    assert s.suggested_path() == str(tmp_path / "demo" / "arm.rig.json")  # the name up to its first dot


def test_an_extraction_pruned_meanwhile_is_taken_from_the_bundle_again(bundle, tmp_path):
    s = Session()
    doc = s.open(str(bundle))
    shutil.rmtree(Path(doc.path).parent)  # another program pruned it
    target = s.save(tmp_path / "kept" / "demo.rig.json")
    assert load(target).validate() == []
    assert (tmp_path / "kept" / "files" / "arm.urdf").is_file()


def test_reload_after_the_extraction_was_pruned_extracts_the_bundle_again(bundle):
    s = Session()
    doc = s.open(str(bundle))
    shutil.rmtree(Path(doc.path).parent)
    again = s.reload()
    assert again.bundle == str(bundle) and Path(again.path).is_file() and again.path != doc.path


def test_a_pruned_extraction_of_a_bundle_that_is_gone_is_a_coded_refusal(bundle, tmp_path):
    s = Session()
    doc = s.open(str(bundle))
    shutil.rmtree(Path(doc.path).parent)
    bundle.unlink()
    with pytest.raises(SessionError) as err:
        s.save(tmp_path / "kept" / "demo.rig.json")
    assert err.value.code == "session.save-bundle" and str(bundle) in err.value.message
    assert not (tmp_path / "kept").exists() and s.document.bundle


def test_a_pruned_extraction_of_a_bundle_that_no_longer_opens_is_refused_with_the_bundles_code(bundle,
                                                                                              tmp_path):
    s = Session()
    doc = s.open(str(bundle))
    seen = []
    s.error.connect(seen.append)
    shutil.rmtree(Path(doc.path).parent)
    bundle.write_bytes(b"not a zip any more")
    with pytest.raises(SessionError) as err:
        s.save(tmp_path / "kept" / "demo.rig.json")
    assert (err.value.code, err.value.file) == ("bundle.zip", str(bundle))
    assert "not a readable zip" in err.value.message
    assert seen == [err.value]
    assert not (tmp_path / "kept").exists() and s.document.bundle == str(bundle)


def test_files_already_beside_the_target_with_the_bundles_bytes_are_kept_not_copied_again(bundle, tmp_path):
    s = Session()
    doc = s.open(str(bundle))
    folder = tmp_path / "kept"
    shutil.copytree(Path(doc.path).parent / "files", folder / "files")  # the bundle's files, already there
    before = {p: p.stat().st_ino for p in (folder / "files").rglob("*") if p.is_file()}
    target = s.save(folder / "demo.rig.json")
    assert {p: p.stat().st_ino for p in (folder / "files").rglob("*") if p.is_file()} == before
    assert load(target).validate() == [] and s.document.bundle == ""
