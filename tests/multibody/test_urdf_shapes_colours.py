"""Capsules, named colours declared anywhere in the file, and advice that fits the kind of mesh path."""

from __future__ import annotations

import pytest

from mime_gui.multibody import read_urdf
from mime_gui.multibody.resolve import Resolver, package_dirs, set_package_dirs
from mime_gui.multibody.tree import Capsule


def test_capsule_is_read_and_used():
    tree = read_urdf('<robot name="r">\n<link name="a"><visual><geometry>\n'
                     '<capsule radius="0.05" length="0.2"/></geometry></visual></link>\n</robot>')
    (shape,) = tree.links["a"].visuals
    assert shape.geometry == Capsule(0.05, 0.2)
    used = {e.kind: e for e in tree.report.used}
    assert used["robot/link/visual/geometry/capsule"].lines == [3]
    assert "robot/link/visual/geometry/capsule@length" in used
    assert tree.report.warnings == []


def _hand(second_visual: str, robot_level: str = "") -> str:
    return ('<robot name="hand">\n' + robot_level +
            '<link name="palm"><visual><geometry><box size="1 1 1"/></geometry>\n'
            '<material name="black"><color rgba="0.1 0.1 0.1 1"/></material></visual></link>\n'
            '<link name="finger"><visual><geometry><box size="1 1 1"/></geometry>'
            f'{second_visual}</visual></link>\n'
            '<joint name="j" type="fixed"><parent link="palm"/><child link="finger"/></joint>\n</robot>')


def test_a_named_colour_declared_in_one_visual_colours_another_link():
    tree = read_urdf(_hand('<material name="black"/>'))
    assert tree.links["finger"].visuals[0].rgba == (0.1, 0.1, 0.1, 1.0)
    assert tree.links["finger"].visuals[0].material == "black"
    assert not [w for w in tree.report.warnings if w.code == "urdf.material"]


def test_a_later_visual_declaration_resolves_an_earlier_reference():
    text = _hand('<material name="grey"><color rgba="0.5 0.5 0.5 1"/></material>')
    text = text.replace('<material name="black"><color rgba="0.1 0.1 0.1 1"/></material>',
                        '<material name="grey"/>', 1)
    tree = read_urdf(text)
    assert tree.links["palm"].visuals[0].rgba == (0.5, 0.5, 0.5, 1.0)


def test_the_robot_level_colour_wins_and_an_undeclared_name_still_warns():
    tree = read_urdf(_hand('<material name="black"/>',
                           '<material name="black"><color rgba="0 0 0 1"/></material>\n'))
    assert tree.links["finger"].visuals[0].rgba == (0.0, 0.0, 0.0, 1.0)
    assert tree.links["palm"].visuals[0].rgba == (0.1, 0.1, 0.1, 1.0)  # its own colour, as written
    tree = read_urdf(_hand('<material name="chrome"/>'))
    assert tree.links["finger"].visuals[0].rgba is None
    (warning,) = [w for w in tree.report.warnings if w.code == "urdf.material"]
    assert "'chrome'" in warning.message and warning.line == 4


def _mesh_warning(tmp_path, uri: str) -> str:
    urdf = tmp_path / "robot" / "r.urdf"
    urdf.parent.mkdir(exist_ok=True)
    urdf.write_text(f'<robot name="r"><link name="a"><visual><geometry><mesh filename="{uri}"/></geometry>'
                    '</visual></link></robot>')
    (warning,) = read_urdf(urdf).report.warnings
    assert warning.code == "urdf.mesh-unresolved"
    return warning.message


@pytest.mark.parametrize("uri, says, not_says", [
    ("package://gripper/meshes/finger.stl", "folder that holds package 'gripper'", "relative path"),
    ("model://gripper/meshes/finger.stl", "--package-dir", "relative path"),
    ("meshes/finger.stl", "A relative path is read from the URDF's folder", "--package-dir"),
    ("file:///nowhere/finger.stl", "The path is absolute", "--package-dir"),
    ("/nowhere/finger.stl", "The path is absolute", "--package-dir"),
    ("https://example.com/finger.stl", "URI scheme https:// is not read", "--package-dir"),
])
def test_mesh_advice_fits_the_kind_of_path(tmp_path, monkeypatch, uri, says, not_says):
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    message = _mesh_warning(tmp_path, uri)
    assert says in message and not_says not in message
    if uri.startswith("meshes/"):
        assert str(tmp_path / "robot") in message


def test_process_package_dirs_resolve_every_later_read(tmp_path, monkeypatch):
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    mesh = tmp_path / "pkgs" / "gripper" / "meshes" / "finger.stl"
    mesh.parent.mkdir(parents=True)
    mesh.write_text("solid f\nendsolid f\n")
    uri = "package://gripper/meshes/finger.stl"
    _mesh_warning(tmp_path, uri)  # not found without the folder
    before = package_dirs()
    try:
        set_package_dirs([tmp_path / "pkgs"])
        assert package_dirs() == (str(tmp_path / "pkgs"),)
        tree = read_urdf(tmp_path / "robot" / "r.urdf")
        assert tree.links["a"].visuals[0].geometry.filename == str(mesh)
        assert tree.report.warnings == []
    finally:
        set_package_dirs(before)


def test_without_ros_package_path_a_package_is_looked_for_only_above_the_description(tmp_path, monkeypatch):
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")  # the working folder is no package folder
    before = package_dirs()
    try:
        set_package_dirs([])
        found, tried = Resolver(tmp_path / "robot")("package://gripper/meshes/finger.stl")
    finally:
        set_package_dirs(before)
    # each folder from the description's up to the root, as a folder holding the package: nothing else
    above = [tmp_path / "robot", *(tmp_path / "robot").parents]
    assert found is None
    assert tried == tuple(str(p / "gripper" / "meshes" / "finger.stl") for p in above)


def test_only_the_first_scheme_separator_splits_a_uri(tmp_path, monkeypatch):
    """A file name may itself hold "://": the scheme is what comes before the first one, so such a mesh is
    found as a package mesh or as a file:// path rather than dropped as an unknown scheme."""
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    mesh = tmp_path / "pkgs" / "gripper" / "a:" / "finger.stl"
    mesh.parent.mkdir(parents=True)
    mesh.write_text("solid f\nendsolid f\n")
    resolve = Resolver(tmp_path / "robot", package_dirs=[tmp_path / "pkgs"])
    found, tried = resolve("package://gripper/a://finger.stl")
    assert found == str(mesh)
    found, tried = resolve(f"file://{tmp_path}/pkgs/gripper/a://finger.stl")
    assert found == str(mesh) and tried == (f"{tmp_path}/pkgs/gripper/a://finger.stl",)
