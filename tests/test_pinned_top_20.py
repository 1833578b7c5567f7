"""Small contracts of the command-file grammar and the mesh files, pinned: ``channel_kind`` refuses a name
no kind declares with a KeyError naming that name, as a mapping does; and a file a mesh refers to by a path
with a leading slash (``/materials/part.mtl``) is read from that subfolder of the mesh's folder."""

from __future__ import annotations

import pytest

from mime_gui import mesh_files
from mime_gui.mesh_files import checked_resolver
from mime_gui.nodes import columns


def test_the_kind_of_an_undeclared_channel_is_a_key_error_naming_the_channel():
    assert columns.channel_kind("joint_torques") is columns.TORQUES
    with pytest.raises(KeyError) as caught:
        columns.channel_kind("joint_velocities")
    # the missing key, as dict[...] gives it: the caller can say which name was not found
    assert caught.value.args == ("joint_velocities",)


def test_a_file_named_with_a_leading_slash_is_read_from_the_subfolder_of_the_mesh_folder(tmp_path):
    (tmp_path / "materials").mkdir()
    (tmp_path / "materials" / "part.mtl").write_bytes(b"newmtl red\nKd 1 0 0\n")
    resolver = checked_resolver(tmp_path / "part.obj")
    # exporters write names rooted at the mesh's folder: "/materials/part.mtl" is not the disk's root
    assert resolver.get("/materials/part.mtl") == b"newmtl red\nKd 1 0 0\n"


def test_a_mesh_whose_material_library_has_a_leading_slash_keeps_its_colour(tmp_path):
    (tmp_path / "materials").mkdir()
    (tmp_path / "materials" / "part.mtl").write_text("newmtl red\nKd 1 0 0\n")
    (tmp_path / "part.obj").write_text(
        "mtllib /materials/part.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl red\nf 1 2 3\n"
    )
    mesh = mesh_files.load(tmp_path / "part.obj")
    assert mesh.visual.material.diffuse.tolist() == [255, 0, 0, 255]
