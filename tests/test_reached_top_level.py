"""Atomic writes on file systems and platforms that fail in their own ways, a rig file swapped for a FIFO
between the size check and the read, and a mesh naming its material library by a path outside its folder."""

from __future__ import annotations

import os
import stat

import pytest

from mime_gui import mesh_files
from mime_gui.files import write_atomic
from mime_gui.rig import RigFileError, load


def test_a_rename_that_took_effect_but_reported_an_error_raises_that_error(tmp_path, monkeypatch):
    """Some network file systems rename and then report a failure: the temporary is gone by then, so its
    removal finds nothing, and the rename's own error is what the caller sees."""
    target = tmp_path / "rig.json"
    real_replace = os.replace

    def renamed_then_failed(src, dst):
        real_replace(src, dst)
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "replace", renamed_then_failed)
    with pytest.raises(OSError) as info:
        write_atomic(target, "new content")
    assert (info.value.errno, info.value.strerror) == (5, "Input/output error")
    assert sorted(os.listdir(tmp_path)) == ["rig.json"]


def test_a_folder_that_cannot_be_opened_to_sync_does_not_fail_the_write(tmp_path, monkeypatch):
    """Windows refuses to open a folder (PermissionError): the rename is in place all the same."""
    real_open = os.open

    def no_folders(path, flags, *args, **kwargs):
        if os.path.isdir(path):
            raise PermissionError(13, "Permission denied")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", no_folders)
    target = write_atomic(tmp_path / "x.txt", "ok")
    assert target.read_text() == "ok"
    assert sorted(os.listdir(tmp_path)) == ["x.txt"]


def test_a_rig_file_swapped_for_a_fifo_after_its_check_is_refused_as_a_fifo(tmp_path, monkeypatch):
    rig = tmp_path / "r.rig.json"
    rig.write_text('{"format": "mime-rig", "version": 1, "name": "r"}')
    real_open = os.open

    def swapped(path, flags, *args, **kwargs):
        if os.fspath(path) == str(rig):  # another program puts a FIFO in its place (no writer)
            os.unlink(rig)
            os.mkfifo(rig)
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", swapped)
    with pytest.raises(RigFileError) as info:
        load(rig)
    assert stat.S_ISFIFO(os.stat(rig).st_mode)
    assert (info.value.code, info.value.file) == ("file.not-regular", str(rig))
    assert "named pipe (FIFO)" in info.value.message and "a rig file" in info.value.message


def test_a_material_library_named_outside_the_mesh_folder_is_read_from_beside_the_mesh(tmp_path):
    """An OBJ exported elsewhere names ``../shared/part.mtl``; the library copied beside it gives the
    colour (red), since nothing outside the mesh's folder is read."""
    (tmp_path / "part.mtl").write_text("newmtl red\nKd 1.0 0.0 0.0\n")
    obj = tmp_path / "part.obj"
    obj.write_text("mtllib ../shared/part.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nusemtl red\n"
                   "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
    mesh = mesh_files.load(obj)
    assert list(mesh.visual.material.main_color) == [255, 0, 0, 255]
    assert len(mesh.faces) == 4
