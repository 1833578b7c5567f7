"""Saves that copy a file (a URDF saved as a URDF, a bundle's files saved beside its rig) read it through
the program's reader: a source that became a FIFO is a coded refusal naming it, not a hang, and a FIFO
among the bundle's files at the target is not taken for a copy already there."""

from __future__ import annotations

import os
import shutil
import stat

import pytest

from mime_gui import RESOURCES
from mime_gui.rig import load
from mime_gui.rig.bundle import write_bundle
from mime_gui.session import Session, SessionError

pytestmark = pytest.mark.timeout(60)  # a FIFO opened by mistake blocks: the timeout makes it a failure


def test_a_urdf_saved_as_a_urdf_whose_source_became_a_fifo_is_refused_naming_it(tmp_path):
    source = tmp_path / "arm.urdf"
    shutil.copy(RESOURCES / "demo" / "arm.urdf", source)
    session = Session()
    session.open(str(source))
    source.unlink()
    os.mkfifo(source)  # no writer: copying it with a plain read would wait for ever
    target = tmp_path / "copy.urdf"
    with pytest.raises(SessionError) as info:
        session.save(str(target))
    assert (info.value.code, info.value.file) == ("file.not-regular", str(source))
    assert not target.exists() and stat.S_ISFIFO(os.lstat(source).st_mode)


def test_a_urdf_saved_as_a_urdf_is_the_same_bytes(tmp_path):
    source = tmp_path / "arm.urdf"
    shutil.copy(RESOURCES / "demo" / "arm.urdf", source)
    session = Session()
    session.open(str(source))
    target = tmp_path / "copy.urdf"
    session.save(str(target))
    assert target.read_bytes() == (RESOURCES / "demo" / "arm.urdf").read_bytes()


def test_a_fifo_where_a_bundles_file_goes_is_refused_and_left(tmp_path, monkeypatch):
    monkeypatch.setenv("MIME_GUI_BUNDLE_CACHE", str(tmp_path / "cache"))
    (tmp_path / "lab").mkdir()
    bundle = write_bundle(load(RESOURCES / "demo" / "demo.rig.json"), tmp_path / "lab" / "demo.zip")
    session = Session()
    session.open(str(bundle))
    folder = tmp_path / "elsewhere"
    (folder / "files").mkdir(parents=True)
    pipe = folder / "files" / "arm.urdf"
    os.mkfifo(pipe)
    with pytest.raises(SessionError) as info:
        session.save(folder / "demo.rig.json")
    assert info.value.code == "session.save-bundle" and "arm.urdf" in info.value.message
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode) and not (folder / "demo.rig.json").exists()
