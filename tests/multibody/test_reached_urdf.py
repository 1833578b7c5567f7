"""Package URIs found through the manifests of the description's parent folders, or naming no file."""

from __future__ import annotations

import pytest

from mime_gui.multibody import read_urdf


def _mesh_robot(*uris: str) -> str:
    visuals = "".join(f'<visual><geometry><mesh filename="{u}"/></geometry></visual>' for u in uris)
    return f'<robot name="m"><link name="a">{visuals}</link></robot>'


@pytest.fixture()
def nested(tmp_path, monkeypatch):
    """outer/{package.xml naming beta, meshes/b.stl, inner/{package.xml naming alpha, meshes/a.stl,
    urdf/}}: folders named unlike their packages, so only the manifests find them."""
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    outer = tmp_path / "outer"
    inner = outer / "inner"
    for folder, name in ((outer, "beta"), (inner, "alpha")):
        (folder / "meshes").mkdir(parents=True)
        (folder / "package.xml").write_text(f"<package><name>{name}</name></package>")
    (inner / "urdf").mkdir()
    (inner / "meshes" / "a.stl").write_bytes(b"solid a\nendsolid a\n")
    (outer / "meshes" / "b.stl").write_bytes(b"solid b\nendsolid b\n")
    return outer, inner


def test_two_packages_of_one_description_are_each_found_by_their_manifest(nested):
    outer, inner = nested
    urdf = inner / "urdf" / "robot.urdf"
    urdf.write_text(_mesh_robot("package://alpha/meshes/a.stl", "package://beta/meshes/b.stl"))
    first, second = (v.geometry for v in read_urdf(urdf).links["a"].visuals)
    assert first.filename == str(inner / "meshes" / "a.stl")
    assert second.filename == str(outer / "meshes" / "b.stl")


@pytest.mark.parametrize("uri", ["package://alpha", "package://alpha/"], ids=["bare", "slash"])
def test_a_package_uri_naming_no_file_is_unresolved_and_names_the_package_folders_tried(nested, uri):
    outer, inner = nested
    urdf = inner / "urdf" / "robot.urdf"
    urdf.write_text(_mesh_robot(uri))
    tree = read_urdf(urdf)
    mesh = tree.links["a"].visuals[0].geometry
    assert mesh.filename is None
    assert str(inner) + "/" in mesh.tried  # the package's own folder, found by its manifest
    (warning,) = [w for w in tree.report.warnings if w.code == "urdf.mesh-unresolved"]
    assert f"mesh {uri!r} of link 'a' was not found" in warning.message
    assert str(inner) + "/" in warning.message and "--package-dir" in warning.message


@pytest.mark.parametrize("uri", ["package://alpha//meshes/a.stl", "package://alpha///meshes/a.stl"],
                         ids=["double-slash", "triple-slash"])
def test_a_package_uri_with_slashes_doubled_after_the_name_is_found_in_the_package(nested, uri):
    """An empty xacro argument writes ``package://alpha/$(arg sub)/meshes/a.stl`` as ``alpha//meshes``; ROS
    finds it in the package, not at ``/meshes`` on the disk's root."""
    outer, inner = nested
    urdf = inner / "urdf" / "robot.urdf"
    urdf.write_text(_mesh_robot(uri))
    tree = read_urdf(urdf)
    assert tree.links["a"].visuals[0].geometry.filename == str(inner / "meshes" / "a.stl")
    assert [w for w in tree.report.warnings if w.code == "urdf.mesh-unresolved"] == []
