"""Rigs on descriptions written by others: package folders in the rig file, and a description that loads
with an error blocks only the segment kinds it breaks (TIAGo's antenna links)."""

from __future__ import annotations

import json

import pytest
from robot_data import robot_urdf

from mime_gui.multibody.resolve import package_dirs, set_package_dirs
from mime_gui.rig import Apparatus, Arm, RigFileError, load, save
from mime_gui.rig.export import to_python
from mime_gui.rig.segments import _ArmSegment


def test_a_tiago_arm_is_kinematic_but_its_dynamic_build_names_the_antenna_inertia():
    urdf = str(robot_urdf("tiago_description/robots/tiago.urdf"))
    kinematic = Apparatus("tiago", chain={"tiago": Arm.Kinematic(description=urdf)})
    assert kinematic.validate() == []
    built = kinematic.build()
    assert "arm_7_link" in built.articulation("tiago").frame_names
    dynamic = Apparatus("tiago", chain={"tiago": Arm.Dynamic(description=urdf)})
    findings = dynamic.validate()
    assert [(f.code, f.where) for f in findings] == [("chain.inertia", "chain.tiago.description")] * 2
    assert "link 'base_antenna_left_link'" in findings[0].message
    assert f"{urdf}:179" in findings[0].message
    assert "link 'base_antenna_right_link'" in findings[1].message


def _package_workspace(tmp_path):
    """A rig folder, a URDF whose mesh is package://gripper/…, and the package two folders away."""
    mesh = tmp_path / "ws" / "src" / "gripper" / "meshes" / "finger.stl"
    mesh.parent.mkdir(parents=True)
    mesh.write_text("solid f\nendsolid f\n")
    rigs = tmp_path / "rigs"
    rigs.mkdir()
    (rigs / "hand.urdf").write_text('<robot name="hand"><link name="palm"><visual><geometry>'
                                    '<mesh filename="package://gripper/meshes/finger.stl"/></geometry></visual>'
                                    '</link></robot>')
    return rigs, mesh


def _rig_file(rigs, **extra) -> dict:
    return {"format": "mime-rig", "version": 1, "name": "hand", **extra,
            "chain": [{"name": "hand", "kind": "Arm.Kinematic", "description": "hand.urdf"}]}


def test_package_dirs_of_a_rig_file_resolve_its_descriptions_meshes(tmp_path, monkeypatch):
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    rigs, mesh = _package_workspace(tmp_path)
    path = rigs / "hand.rig.json"
    path.write_text(json.dumps(_rig_file(rigs)))
    tree = load(path).build().segments["hand"].tree
    assert tree.links["palm"].visuals[0].geometry.filename is None
    path.write_text(json.dumps(_rig_file(rigs, package_dirs=["../ws/src"])))
    rig = load(path)
    assert rig.package_dirs == ["../ws/src"]
    assert rig.validate() == []
    tree = rig.build().segments["hand"].tree
    assert tree.links["palm"].visuals[0].geometry.filename == str(mesh)
    assert not [w for w in tree.report.warnings if w.code == "urdf.mesh-unresolved"]


def test_package_dirs_are_saved_relative_to_the_new_file_and_exported(tmp_path):
    rigs, _ = _package_workspace(tmp_path)
    path = rigs / "hand.rig.json"
    path.write_text(json.dumps(_rig_file(rigs, package_dirs=["../ws/src"])))
    rig = load(path)
    out = tmp_path / "elsewhere" / "deeper" / "copy.rig.json"
    out.parent.mkdir(parents=True)
    save(rig, out)
    data = json.loads(out.read_text())
    assert data["package_dirs"] == ["../../ws/src"]
    assert list(data)[:4] == ["format", "version", "name", "package_dirs"]
    assert load(out) == rig
    source = to_python(rig, rigs)
    assert "    package_dirs=['../ws/src'],\n" in source
    # no folders: no key, as files without one were written
    rig.package_dirs = []
    save(rig, out)
    assert "package_dirs" not in json.loads(out.read_text())
    assert "package_dirs" not in to_python(rig, rigs)


@pytest.mark.parametrize("value, code, pointer", [
    ("../ws/src", "rigfile.type", "/package_dirs"),
    ([3], "rigfile.type", "/package_dirs/0"),
    (["ok", " "], "rigfile.value", "/package_dirs/1"),
])
def test_package_dirs_that_are_not_folders_are_refused(tmp_path, value, code, pointer):
    path = tmp_path / "r.rig.json"
    path.write_text(json.dumps(_rig_file(tmp_path, package_dirs=value)))
    with pytest.raises(RigFileError) as info:
        load(path)
    assert (info.value.code, info.value.pointer) == (code, pointer)


def test_the_description_cache_keeps_readings_with_other_package_folders_apart(tmp_path, monkeypatch):
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    rigs, mesh = _package_workspace(tmp_path)
    seg = _ArmSegment(description="hand.urdf")
    assert seg.tree(rigs).links["palm"].visuals[0].geometry.filename is None
    assert seg.tree(rigs, [tmp_path / "ws" / "src"]).links["palm"].visuals[0].geometry.filename == str(mesh)
    before = package_dirs()
    try:
        set_package_dirs([tmp_path / "ws" / "src"])  # the command line's --package-dir
        assert seg.tree(rigs).links["palm"].visuals[0].geometry.filename == str(mesh)
    finally:
        set_package_dirs(before)


def test_edits_through_rig_paths_keep_the_package_dirs(tmp_path):
    from mime_gui.rig import paths

    rigs, _ = _package_workspace(tmp_path)
    path = rigs / "hand.rig.json"
    path.write_text(json.dumps(_rig_file(rigs, package_dirs=["../ws/src"])))
    rig = load(path)
    renamed = paths.replace(rig, "name", "other")
    assert renamed.package_dirs == ["../ws/src"]
    moved = paths.replace(rig, "chain.hand.at", (0.0, 0.0, 1.0))
    assert moved.package_dirs == ["../ws/src"] and moved.chain["hand"].at == (0.0, 0.0, 1.0)
