"""An export records what wrote it and the SHA-256 of every file it names; validate says when one changed."""

from __future__ import annotations

import hashlib
import json
import runpy
import shutil

import jsonschema
import pytest
from rig_helpers import DEMO_RIG

from mime_gui import RESOURCES, __version__
from mime_gui.cli import main
from mime_gui.rig import RigFileError, load
from mime_gui.rig.provenance import changes, referenced_files
from mime_gui.rig.rigfile import parse


def _sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def demo(tmp_path):
    """A copy of the demo folder (its URDF, meshes and rig file)."""
    folder = tmp_path / "demo"
    shutil.copytree(DEMO_RIG.parent, folder)
    return folder


def _export_json(demo, tmp_path, capsys):
    out = tmp_path / "exported" / "rig.rig.json"
    out.parent.mkdir()
    assert main(["export", str(demo / "demo.rig.json"), "--json", str(out)]) == 0
    capsys.readouterr()
    return out


def test_the_json_export_records_versions_rungs_and_every_file_hash(demo, tmp_path, capsys):
    out = _export_json(demo, tmp_path, capsys)
    block = json.loads(out.read_text())["provenance"]
    assert block["mime_gui"] == __version__
    assert block["segments"] == {
        "arm": {"kind": "Arm.Dynamic", "package": "mime_gui", "version": __version__, "rung": "dynamic"},
        "motor": {"kind": "Motor.Dynamic", "package": "mime_gui", "version": __version__, "rung": "dynamic"}}
    # the URDF, the mesh it names by package:// and the one it names by a relative path, by hand
    meshes = demo / "meshes"
    assert block["files"] == {
        "../demo/arm.urdf": {"sha256": _sha(demo / "arm.urdf"), "used_by": "chain.arm.description"},
        "../demo/meshes/base.stl": {"sha256": _sha(meshes / "base.stl"), "used_by": "chain.arm.base_link"},
        "../demo/meshes/wrist.obj": {"sha256": _sha(meshes / "wrist.obj"), "used_by": "chain.arm.link_5"},
    }
    assert load(out) == load(demo / "demo.rig.json")  # the block changes nothing the rig holds
    jsonschema.validate(json.loads(out.read_text()), json.loads((RESOURCES / "rig.schema.json").read_text()))


def test_a_kinematic_segment_is_recorded_at_its_rung(demo, tmp_path, capsys):
    data = json.loads((demo / "demo.rig.json").read_text())
    data["chain"][1]["kind"] = "Motor.Kinematic"
    del data["chain"][1]["inertia"]
    (demo / "demo.rig.json").write_text(json.dumps(data))
    out = _export_json(demo, tmp_path, capsys)
    motor = json.loads(out.read_text())["provenance"]["segments"]["motor"]
    assert motor["rung"] == "kinematic" and motor["kind"] == "Motor.Kinematic"


def test_the_python_export_records_the_same_provenance(demo, tmp_path, capsys):
    out = tmp_path / "rig.py"
    assert main(["export", str(demo / "demo.rig.json"), "--python", str(out)]) == 0
    namespace = runpy.run_path(str(out))
    block = namespace["PROVENANCE"]
    assert block["segments"]["arm"] == {"kind": "Arm.Dynamic", "package": "mime_gui", "version": __version__,
                                        "rung": "dynamic"}
    assert block["files"]["demo/meshes/wrist.obj"]["sha256"] == _sha(demo / "meshes" / "wrist.obj")
    assert namespace["rig"] == load(demo / "demo.rig.json")


def test_validate_is_quiet_while_the_files_are_as_exported(demo, tmp_path, capsys):
    out = _export_json(demo, tmp_path, capsys)
    assert main(["validate", str(out)]) == 0
    assert "warning[" not in capsys.readouterr().out


def test_a_changed_mesh_is_a_warning_naming_it(demo, tmp_path, capsys):
    out = _export_json(demo, tmp_path, capsys)
    mesh = demo / "meshes" / "wrist.obj"
    data = bytearray(mesh.read_bytes())
    data[-2] ^= 1  # one bit of one byte
    mesh.write_bytes(bytes(data))
    assert main(["validate", str(out)]) == 0  # still a valid rig: a warning, not a finding
    lines = capsys.readouterr().out.splitlines()
    changed = [line for line in lines if line.startswith("warning[")]
    assert len(changed) == 1
    assert changed[0].startswith("warning[provenance.changed] ../demo/meshes/wrist.obj: ")
    assert "chain.arm.link_5" in changed[0]


def test_a_file_gone_since_the_export_is_a_warning_naming_it(demo, tmp_path, capsys):
    out = _export_json(demo, tmp_path, capsys)
    (demo / "meshes" / "base.stl").unlink()
    main(["validate", str(out)])
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("warning[provenance.missing] ../demo/meshes/base.stl: ") for line in lines)


def test_a_file_recorded_without_its_user_is_still_warned_of_when_gone_or_changed(tmp_path):
    (tmp_path / "kept.stl").write_bytes(b"solid kept\nendsolid kept\n")
    block = {"mime_gui": "0.1.0", "segments": {},
             "files": {"gone.stl": {"sha256": "0" * 64}, "kept.stl": {"sha256": "0" * 64}}}  # no used_by
    found = {w.code: w for w in changes(block, tmp_path)}
    gone, changed = found["provenance.missing"], found["provenance.changed"]
    assert gone.file == "gone.stl" and "(used by ?)" in gone.message  # the user unknown, said as "?"
    assert "is gone; restore it or export the rig again" in gone.message
    assert changed.file == "kept.stl" and "(used by ?;" in changed.message


def test_only_a_mesh_named_by_package_has_a_package_folder(demo):
    urdf = demo / "arm.urdf"
    urdf.write_text(urdf.read_text().replace('filename="meshes/wrist.obj"', 'filename="file://meshes/wrist.obj"'))
    roots = {r.path: r.package_root for r in referenced_files(load(demo / "demo.rig.json"))}
    assert roots[demo / "meshes" / "base.stl"] == demo  # package://demo/meshes/base.stl: the demo folder
    assert roots[demo / "meshes" / "wrist.obj"] is None  # file://meshes/wrist.obj: a path, no package


@pytest.mark.parametrize(("edit", "pointer"), [
    (lambda p: p.update(extra=1), "/provenance/extra"),
    (lambda p: p["files"]["a.stl"].update(sha256="abc"), "/provenance/files/a.stl/sha256"),
    (lambda p: p["segments"]["arm"].update(rung=3), "/provenance/segments/arm/rung"),
    (lambda p: p["segments"].update({"a~/b": dict(p["segments"]["arm"], rung=3)}),
     "/provenance/segments/a~0~1b/rung"),  # "~" then "/" escaped in the pointer (RFC 6901)
    (lambda p: p.pop("mime_gui"), "/provenance"),
])
def test_a_bad_provenance_block_is_a_coded_error_at_its_pointer(edit, pointer):
    block = {"mime_gui": "0.1.0", "segments": {"arm": {"kind": "Arm.Kinematic", "package": "mime_gui",
                                                       "version": "0.1.0", "rung": "kinematic"}},
             "files": {"a.stl": {"sha256": "0" * 64}}}
    parse(json.dumps({"format": "mime-rig", "version": 1, "name": "r", "provenance": block}))
    edit(block)
    with pytest.raises(RigFileError) as info:
        parse(json.dumps({"format": "mime-rig", "version": 1, "name": "r", "provenance": block}))
    assert info.value.code.startswith("rigfile.") and info.value.pointer == pointer


def test_a_recorded_description_is_read_within_the_urdf_limit_a_mesh_within_its_own(tmp_path, monkeypatch):
    body = b"<robot name='r'/>" + b" " * 40
    block = {"files": {}}
    for name in ("arm.urdf", "ARM.XML", "part.stl"):
        (tmp_path / name).write_bytes(body)
        block["files"][name] = {"sha256": hashlib.sha256(body).hexdigest(), "used_by": "chain.arm"}
    assert changes(block, tmp_path) == []  # as exported
    monkeypatch.setenv("MIME_GUI_MAX_URDF_MB", "0.00001")  # 10 bytes: the descriptions cannot be read
    assert [(w.code, w.file) for w in changes(block, tmp_path)] == [
        ("provenance.unreadable", "arm.urdf"), ("provenance.unreadable", "ARM.XML")]
