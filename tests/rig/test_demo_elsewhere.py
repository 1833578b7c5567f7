"""A copy of the demo in a folder of another name keeps its meshes: its URDF names them
``package://demo/meshes/…`` and the folder's ``package.xml`` says that folder is package ``demo``, as ROS
finds a package by its manifest rather than by its folder's name."""

from __future__ import annotations

import json
import shutil

import pytest

from mime_gui import RESOURCES
from mime_gui.cli import main
from mime_gui.multibody import read_urdf
from mime_gui.rig import load

DEMO = RESOURCES / "demo"
MESHES = {"base_link": "base.stl", "link_5": "wrist.obj"}  # the demo URDF's meshes: package://, relative


def _copy(tmp_path, name="bench_rig"):
    folder = tmp_path / "labs" / name
    shutil.copytree(DEMO, folder)
    return folder


def _mesh_files(urdf) -> dict:
    tree = read_urdf(urdf)
    return {link: tree.links[link].visuals[0].geometry.filename for link in MESHES}


@pytest.fixture(autouse=True)
def _no_ros_path(monkeypatch):
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)


def test_the_copys_urdf_finds_its_own_meshes_through_its_package_xml(tmp_path):
    folder = _copy(tmp_path)
    found = _mesh_files(folder / "arm.urdf")
    assert found == {link: str(folder / "meshes" / file) for link, file in MESHES.items()}


def test_without_the_manifest_or_with_another_name_in_it_the_copy_has_no_meshes(tmp_path):
    folder = _copy(tmp_path)
    relative = str(folder / "meshes" / "wrist.obj")  # a relative path needs no package
    (folder / "package.xml").unlink()
    assert _mesh_files(folder / "arm.urdf") == {"base_link": None, "link_5": relative}
    (folder / "package.xml").write_text("<package format='3'><name>other_arm</name></package>")
    assert _mesh_files(folder / "arm.urdf") == {"base_link": None, "link_5": relative}
    (folder / "package.xml").write_text("<package><name>demo</name>")  # not XML: no name read from it
    assert _mesh_files(folder / "arm.urdf") == {"base_link": None, "link_5": relative}


def test_the_copys_export_records_its_meshes_in_its_provenance(tmp_path, capsys):
    folder = _copy(tmp_path)
    out = tmp_path / "exported.rig.json"
    assert main(["export", str(folder / "demo.rig.json"), "--json", str(out)]) == 0
    files = json.loads(out.read_text())["provenance"]["files"]
    assert {"labs/bench_rig/arm.urdf", "labs/bench_rig/meshes/base.stl",
            "labs/bench_rig/meshes/wrist.obj"} <= set(files)
    assert files["labs/bench_rig/meshes/base.stl"]["used_by"] == "chain.arm.base_link"
    # and the copy's rig builds with the meshes of the original
    built = load(folder / "demo.rig.json").build()
    assert built.segments["arm"].tree.links["link_5"].visuals[0].geometry.filename == \
        str(folder / "meshes" / "wrist.obj")
