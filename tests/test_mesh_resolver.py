"""The resolver trimesh is given for the files a mesh refers to: a subfolder it is pointed into (a
namespace) reads that folder's files, each through the same size check."""

from __future__ import annotations

import pytest

from mime_gui.mesh_files import checked_resolver


def test_a_namespaced_resolver_reads_the_subfolder_through_the_size_check(tmp_path, monkeypatch):
    (tmp_path / "part.obj").write_text("v 0 0 0\n")
    textures = tmp_path / "textures"
    textures.mkdir()
    (textures / "small.png").write_bytes(b"\x89PNG small")
    (textures / "large.png").write_bytes(b"x" * 4096)
    (tmp_path / "beside.png").write_bytes(b"beside the mesh, not in the subfolder")
    inner = checked_resolver(tmp_path / "part.obj").namespaced("textures")
    assert inner.get("small.png") == b"\x89PNG small"
    with pytest.raises(FileNotFoundError):
        inner.get("beside.png")
    monkeypatch.setenv("MIME_GUI_MAX_MESH_MB", "0.001")  # 1048 bytes
    with pytest.raises(OSError, match=r"\[file.too-large\]"):
        inner.get("large.png")
