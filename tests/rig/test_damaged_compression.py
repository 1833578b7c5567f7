"""A zip member damaged inside its compressed stream, for each compression a zip may use (deflate, bzip2,
LZMA): a command file (NPZ) and a bundle are refused with their format's code, never a traceback. Each
decompressor fails its own way (``zlib.error``; ``OSError`` from bz2 although the bytes are in memory;
``lzma.LZMAError``), so each is a case."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest
from rig_helpers import DEMO_RIG

from mime_gui.cli import main
from mime_gui.nodes import read_commands
from mime_gui.nodes.commands import CommandFileError
from mime_gui.rig import load
from mime_gui.rig.bundle import BundleError, open_bundle, write_bundle

COMPRESSIONS = {"deflate": zipfile.ZIP_DEFLATED, "bzip2": zipfile.ZIP_BZIP2, "lzma": zipfile.ZIP_LZMA}


def _npy(a) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, a)
    return buffer.getvalue()


def _damaged(entries, compression: int, member: str) -> bytes:
    """A zip of ``entries`` whose ``member``'s compressed stream has eight bytes zeroed a little way in."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as z:
        for name, data in entries:
            z.writestr(name, data)
    data = bytearray(buffer.getvalue())
    info = zipfile.ZipFile(io.BytesIO(bytes(data))).getinfo(member)
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra) + 10  # past the header
    assert info.compress_size > 18  # the zeroed bytes lie inside the stream
    data[start:start + 8] = bytes(8)
    return bytes(data)


@pytest.mark.parametrize("compression", sorted(COMPRESSIONS))
def test_a_command_file_whose_member_is_damaged_is_a_format_refusal(tmp_path, compression):
    entries = [("time.npy", _npy(np.linspace(0.0, 1.0, 200))),
               ("joint_positions.npy", _npy(np.zeros((200, 6)))),
               ("joint_names.npy", _npy(np.array([f"joint_{i}" for i in range(1, 7)])))]
    path = tmp_path / "c.npz"
    path.write_bytes(_damaged(entries, COMPRESSIONS[compression], "joint_positions.npy"))
    with pytest.raises(CommandFileError) as info:
        read_commands(path)
    assert info.value.code == "commands.format"  # the file was read: its content is what is wrong
    assert "not a readable NPZ archive" in info.value.message and info.value.file == str(path)


@pytest.mark.parametrize("compression", sorted(COMPRESSIONS))
def test_play_of_a_damaged_command_file_is_one_coded_line(tmp_path, capsys, compression):
    entries = [("time.npy", _npy(np.linspace(0.0, 1.0, 200))),
               ("joint_positions.npy", _npy(np.zeros((200, 6)))),
               ("joint_names.npy", _npy(np.array([f"joint_{i}" for i in range(1, 7)])))]
    path = tmp_path / "c.npz"
    path.write_bytes(_damaged(entries, COMPRESSIONS[compression], "joint_positions.npy"))
    status = main(["play", str(DEMO_RIG), "--commands", str(path), "--out", str(tmp_path / "o.npz")])
    err = capsys.readouterr().err
    assert status == 2 and err.startswith("error[commands.format] ") and err.count("\n") == 1
    assert not (tmp_path / "o.npz").exists()


@pytest.mark.parametrize("compression", sorted(COMPRESSIONS))
def test_a_bundle_whose_member_is_damaged_is_refused_and_leaves_nothing_extracted(tmp_path, cache,
                                                                                  compression):
    good = write_bundle(load(DEMO_RIG), tmp_path / "good.zip")
    with zipfile.ZipFile(good) as z:
        entries = [(info.filename, z.read(info)) for info in z.infolist()]
    (urdf,) = [name for name, _ in entries if name.endswith(".urdf")]
    bad = tmp_path / "bad.zip"
    bad.write_bytes(_damaged(entries, COMPRESSIONS[compression], urdf))
    with pytest.raises(BundleError) as info:
        open_bundle(bad)
    assert info.value.code == "bundle.zip" and "ask for the bundle again" in info.value.message
    assert not cache.exists() or list(cache.iterdir()) == []
