"""What a watched file is now: size and modification time, and for the document's own file a hash of its
bytes, read within the limit of its kind."""

from __future__ import annotations

import hashlib
import os

from mime_gui import RESOURCES
from mime_gui.rig import load
from mime_gui.session import Session
from mime_gui.session.watched import signature, watched_files

DEMO = RESOURCES / "demo"


def test_the_documents_own_file_is_its_size_and_the_hash_of_its_bytes(tmp_path):
    rig, urdf = tmp_path / "a.rig.json", tmp_path / "arm.URDF"
    rig.write_bytes(b'{"format": 1}')
    urdf.write_bytes(b"<robot name='r'/>")
    assert signature(str(rig), own=True) == (13, hashlib.sha256(b'{"format": 1}').hexdigest())
    assert signature(str(urdf), own=True) == (17, hashlib.sha256(b"<robot name='r'/>").hexdigest())


def test_another_file_is_its_size_and_modification_time_and_a_missing_one_nothing(tmp_path):
    mesh = tmp_path / "part.stl"
    mesh.write_bytes(b"solid x\nendsolid x\n")
    os.utime(mesh, ns=(1_000_000_000, 1_234_567_890_123))
    assert signature(str(mesh)) == (19, 1_234_567_890_123)
    assert signature(str(tmp_path / "gone.rig.json"), own=True) == ()


def test_a_rig_file_is_read_within_its_limit_and_a_description_within_its_own(tmp_path, monkeypatch):
    # a rig file over its limit cannot be read: it is told by size and time, as another file is
    monkeypatch.setenv("MIME_GUI_MAX_RIG_MB", "0.00001")  # 10 bytes
    body = b"x" * 40
    rig, urdf = tmp_path / "big.rig.json", tmp_path / "big.urdf"
    for path in (rig, urdf):
        path.write_bytes(body)
        os.utime(path, ns=(1_000_000_000, 2_000_000_000))
    assert signature(str(rig), own=True) == (40, 2_000_000_000)
    assert signature(str(urdf), own=True) == (40, hashlib.sha256(body).hexdigest())


def test_the_watched_files_are_the_documents_own_then_the_files_its_rig_names():
    session = Session()
    named = [str(DEMO / "arm.urdf"), str(DEMO / "meshes" / "base.stl"), str(DEMO / "meshes" / "wrist.obj")]
    assert watched_files(session.open(DEMO / "demo.rig.json")) == [str(DEMO / "demo.rig.json"), *named]
    # a rig built in Python has no file of its own: only what it names (not the working folder)
    assert watched_files(session.open_apparatus(load(DEMO / "demo.rig.json"))) == named


def test_a_urdf_opened_on_its_own_is_watched_once_though_its_rig_names_it_too():
    urdf = DEMO / "arm.urdf"
    named = [str(DEMO / "meshes" / "base.stl"), str(DEMO / "meshes" / "wrist.obj")]
    assert watched_files(Session().open(urdf)) == [str(urdf), *named]


def test_a_rig_that_cannot_be_followed_still_has_its_own_file_watched(tmp_path):
    from types import SimpleNamespace

    own = tmp_path / "broken.rig.json"
    assert watched_files(SimpleNamespace(path=str(own), rig=None)) == [str(own)]
