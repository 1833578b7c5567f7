"""Saving and exporting the open document: the refusals when there is nothing to save or no name to save
under, a URDF kept a URDF only while nothing was added to it, and the exports (rig file, bundle, URDF,
MJCF) writing what their format holds without changing the document's own file."""

from __future__ import annotations

import json
import os
import shutil
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest

from mime_gui import RESOURCES
from mime_gui.rig import Apparatus, Arm, Box, Part, load
from mime_gui.session import AddItem, Remount, Session, SessionError, SetValue
from mime_gui.session.documents import _rebaser, _same_bytes

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"
DEMO_URDF = RESOURCES / "demo" / "arm.urdf"


def errors_of(session: Session) -> list:
    seen: list = []
    session.error.connect(seen.append)
    return seen


@pytest.fixture
def urdf(tmp_path) -> Path:
    """A copy of the demo URDF (with its meshes) in a folder of the test's own."""
    shutil.copytree(RESOURCES / "demo", tmp_path / "demo")
    return tmp_path / "demo" / "arm.urdf"


# -- nothing open, nothing to save under ------------------------------------------------------------------
@pytest.mark.parametrize("write", ["save", "export_json", "export_bundle", "export_python",
                                   "export_read_report"])
def test_saving_or_exporting_with_nothing_open_is_refused_and_announced(tmp_path, write):
    s = Session()
    seen = errors_of(s)
    with pytest.raises(SessionError) as err:
        getattr(s, write)(tmp_path / "out")
    assert (err.value.code, err.value.message) == ("session.no-document", "nothing is open")
    assert seen == [err.value] and list(tmp_path.iterdir()) == []


def test_with_nothing_open_there_is_no_suggested_path_and_nothing_writable():
    s = Session()
    assert s.suggested_path() == "" and not s.writable


def test_a_rig_built_in_python_needs_a_name_to_be_saved(tmp_path):
    s = Session()
    s.open_apparatus(Apparatus("bench", chain={"arm": Arm.Kinematic(description=str(DEMO_URDF))}))
    seen = errors_of(s)
    assert s.suggested_path() == "" and not s.writable
    with pytest.raises(SessionError) as err:
        s.save()
    assert err.value.code == "session.no-path" and "save it under a name" in err.value.message
    assert seen == [err.value]
    target = s.save(tmp_path / "bench.rig.json")  # under a name it saves, and the rig has that file now
    assert target == str(tmp_path / "bench.rig.json") and s.writable and s.kind == "rig"
    assert list(load(target).chain) == ["arm"]


# -- a URDF saved as a URDF ---------------------------------------------------------------------------------
@pytest.mark.parametrize("edit", [
    AddItem("parts", "box", Part(Box((0.01, 0.01, 0.01)), mount="demo_arm.tool0")),
    SetValue("chain.demo_arm.at", (0.0, 0.0, 0.25)),
], ids=["a part added", "the arm moved"])
def test_a_urdf_with_anything_added_or_changed_is_not_saved_as_a_urdf(urdf, tmp_path, edit):
    s = Session()
    s.open(urdf)
    s.apply(edit)
    seen = errors_of(s)
    target = tmp_path / "copy.urdf"
    with pytest.raises(SessionError) as err:
        s.save(target)
    assert err.value.code == "session.save-kind" and "save it as a .rig.json file" in err.value.message
    assert seen == [err.value] and not target.exists() and s.modified


def test_a_change_undone_lets_the_urdf_be_saved_as_a_urdf_again(urdf, tmp_path):
    s = Session()
    s.open(urdf)
    s.apply(SetValue("chain.demo_arm.at", (0.0, 0.0, 0.25)))
    s.undo()
    target = tmp_path / "copy.urdf"
    assert s.save(target) == str(target)
    assert target.read_bytes() == urdf.read_bytes()


def test_a_urdf_saved_under_an_xml_name_is_a_copy_and_the_document_stays_the_urdf(urdf, tmp_path):
    s = Session()
    doc = s.open(urdf)
    target = tmp_path / "copy.xml"
    assert s.save(target) == str(target)
    assert target.read_bytes() == urdf.read_bytes()
    assert (doc.path, doc.kind) == (str(urdf), "urdf")  # a copy: the document is still the file opened


def test_a_urdf_saved_over_itself_is_left_as_it_is(urdf):
    s = Session()
    doc = s.open(urdf)
    before = os.stat(urdf)
    assert s.save(urdf) == str(urdf)
    after = os.stat(urdf)
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)  # not even rewritten
    assert (doc.path, doc.kind) == (str(urdf), "urdf")


# -- exports ------------------------------------------------------------------------------------------------
@pytest.fixture
def demo_doc():
    s = Session()
    s.open(DEMO_RIG)
    return s


def test_export_json_writes_the_rig_with_its_provenance_and_leaves_the_document(demo_doc, tmp_path):
    s = demo_doc
    s.apply(SetValue("parts.holder.at", (0.01, 0.02, 0.03)))
    out = tmp_path / "out" / "demo.rig.json"
    out.parent.mkdir()
    assert s.export_json(out) == str(out)
    data = json.loads(out.read_text())
    assert "provenance" in data
    again = load(out)
    assert list(again.chain) == ["arm", "motor"] and again.parts["holder"].at == (0.01, 0.02, 0.03)
    assert again.validate() == []
    assert s.path == str(DEMO_RIG) and s.modified  # an export is no save


def test_export_bundle_holds_the_rig_and_every_file_it_names(demo_doc, tmp_path):
    out = tmp_path / "demo.zip"
    assert demo_doc.export_bundle(out) == str(out)
    with zipfile.ZipFile(out) as z:
        names = sorted(z.namelist())
        urdf = z.read("files/arm.urdf")
    assert names == ["files/arm.urdf", "files/meshes/base.stl", "files/meshes/wrist.obj", "rig.rig.json"]
    assert urdf == DEMO_URDF.read_bytes()
    assert demo_doc.path == str(DEMO_RIG) and not demo_doc.modified


@pytest.mark.parametrize("kind, root", [("urdf", "robot"), ("mjcf", "mujoco")])
def test_export_simulator_writes_the_format_asked_with_its_meshes_beside_it(demo_doc, tmp_path, kind, root):
    out = tmp_path / f"demo.{kind}.xml"
    assert demo_doc.export_simulator(out, kind) == str(out)
    text = out.read_text()
    assert ET.fromstring(text.encode()).tag == root
    assert "exported by mime-gui" in text and "from demo.rig.json" in text  # the document named as source
    assert sorted(p.name for p in (tmp_path / f"demo.{kind}_meshes").iterdir()) == ["base.stl", "wrist.obj"]


def test_export_simulator_of_another_format_is_a_programming_error(demo_doc, tmp_path):
    with pytest.raises(ValueError, match="kind is 'urdf' or 'mjcf', got 'sdf'"):
        demo_doc.export_simulator(tmp_path / "demo.sdf", "sdf")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("export", [
    lambda s, p: s.export_json(p / "out.rig.json"),
    lambda s, p: s.export_bundle(p / "out.zip"),
    lambda s, p: s.export_simulator(p / "out.urdf", "urdf"),
    lambda s, p: s.export_simulator(p / "out.xml", "mjcf"),
], ids=["json", "bundle", "urdf", "mjcf"])
def test_an_export_of_a_rig_that_breaks_a_rule_is_refused_with_its_code_and_writes_nothing(
        demo_doc, tmp_path, export):
    demo_doc.apply(Remount("chain", "motor", "nowhere"))
    seen = errors_of(demo_doc)
    with pytest.raises(SessionError) as err:
        export(demo_doc, tmp_path)
    assert err.value.code == "chain.mount" and err.value.file.startswith(str(tmp_path / "out"))
    assert "chain.motor.mount" in err.value.message and seen == [err.value]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("export", [
    lambda s, p: s.export_json(p),
    lambda s, p: s.export_bundle(p),
    lambda s, p: s.export_simulator(p, "mjcf"),
], ids=["json", "bundle", "mjcf"])
def test_an_export_under_a_file_taken_for_a_folder_is_a_coded_write_refusal(demo_doc, tmp_path, export):
    (tmp_path / "notes.txt").write_text("mine")
    target = tmp_path / "notes.txt" / "out"
    seen = errors_of(demo_doc)
    with pytest.raises(SessionError) as err:
        export(demo_doc, target)
    assert err.value.code == "session.write" and f"cannot write {target}" in err.value.message
    assert seen == [err.value] and (tmp_path / "notes.txt").read_text() == "mine"


# -- helpers of the bundle save ----------------------------------------------------------------------------
def test_same_bytes_is_false_for_what_cannot_be_read_as_a_file(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_bytes(b"mesh")
    b.write_bytes(b"mesh")
    (tmp_path / "folder").mkdir()
    assert _same_bytes(a, b)
    assert not _same_bytes(a, tmp_path / "missing")  # not there: an OSError
    assert not _same_bytes(tmp_path / "folder", a)  # a folder: a refused file


def test_the_rebaser_moves_only_rigs_read_against_the_old_folder_and_shares_each_copy(tmp_path):
    old, new, other = tmp_path / "cache", tmp_path / "kept", tmp_path / "other"
    arm = {"arm": Arm.Kinematic(description="arm.urdf")}
    cached, elsewhere, nowhere = (Apparatus("r", chain=arm, base=old), Apparatus("r", chain=arm, base=other),
                                  Apparatus("r", chain=arm))
    rebase = _rebaser(old, new)
    moved = rebase(cached)
    assert moved is not cached and Path(moved.base) == new and Path(cached.base) == old
    assert rebase(cached) is moved  # history steps sharing a rig keep sharing its copy
    assert rebase(elsewhere) is elsewhere and rebase(nowhere) is nowhere


# -- a rig whose rules cannot even be checked ----------------------------------------------------------------
@pytest.mark.parametrize("raised", [ValueError("no number"), TypeError("not a rig value"),
                                    OverflowError("too large")], ids=["value", "type", "overflow"])
def test_a_rig_the_rules_cannot_check_is_refused_naming_its_file_and_the_document_stays(monkeypatch, raised):
    from mime_gui.session import documents as documents_module

    s = Session()
    before = s.open(DEMO_URDF)
    seen = errors_of(s)

    def analyse(rig):
        raise raised

    monkeypatch.setattr(documents_module, "analyse", analyse)
    with pytest.raises(SessionError) as err:
        s.open(DEMO_RIG)
    assert (err.value.code, err.value.message, err.value.file) == ("rig.invalid", str(raised), str(DEMO_RIG))
    assert seen == [err.value] and s.document is before
