"""Saves: nothing that is not a regular file is replaced, a symbolic link is written through, any legal name
saves.

Every output goes through :func:`mime_gui.files.write_atomic` (rig files, Python exports, play output, the
session's saves and report exports). A FIFO, a socket, a device node or a folder at the target is refused with
``file.not-regular`` and left as it was (as root, ``--json /dev/null`` would otherwise replace /dev/null); a
symbolic link keeps pointing where it did while its file gets the new text; a 250-byte name saves although
the temporary name used to be 14 bytes longer.
"""

from __future__ import annotations

import os
import stat

import pytest
from hostile_corpus import DEMO, DEMO_URDF, cli, fifo, null_device, one_error, unix_socket, write

from mime_gui.files import write_atomic
from mime_gui.inputs import FileError
from mime_gui.rig import load

pytestmark = pytest.mark.timeout(60)
RIG = DEMO / "demo.rig.json"
TARGETS = {"fifo": (fifo, stat.S_ISFIFO), "socket": (unix_socket, stat.S_ISSOCK),
           "device": (null_device, stat.S_ISCHR), "folder": (lambda p: (p.mkdir(), p)[1], stat.S_ISDIR)}


def _commands(tmp_path):
    return write(tmp_path, "c.csv", "time,joint_1\n0,0\n0.1,0.5\n")


@pytest.mark.parametrize("special", sorted(TARGETS))
def test_write_atomic_refuses_a_target_that_is_not_a_regular_file_and_leaves_it(tmp_path, special):
    make, is_kind = TARGETS[special]
    target = make(tmp_path / "target")
    with pytest.raises(FileError) as info:
        write_atomic(target, "text")
    assert info.value.code == "file.not-regular" and info.value.file == str(target)
    assert is_kind(os.lstat(target).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["target"]  # no temporary file left


@pytest.mark.parametrize("special", ["fifo", "socket", "device"])
def test_every_command_refuses_such_a_target_on_one_line(tmp_path, special):
    make, is_kind = TARGETS[special]
    for argv, status_expected, stream in [
        (("export", RIG, "--json", make(tmp_path / "out.rig.json")), 1, "out"),
        (("export", RIG, "--python", make(tmp_path / "out.py")), 1, "out"),
        (("play", DEMO_URDF, "--commands", _commands(tmp_path), "--out", make(tmp_path / "out.npz")), 2,
         "err"),
    ]:
        status, out, err = cli(*argv)
        assert status == status_expected, (argv, out, err)
        m = one_error(out if stream == "out" else err)
        assert m["code"] == "file.not-regular" and m["where"] == str(argv[-1])
        assert is_kind(os.lstat(argv[-1]).st_mode)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_a_link_to_a_device_is_refused_not_followed_into_replacing_it(tmp_path):
    device = null_device(tmp_path / "null")
    (tmp_path / "link.rig.json").symlink_to(device)
    status, out, _ = cli("export", RIG, "--json", tmp_path / "link.rig.json")
    assert status == 1 and one_error(out)["code"] == "file.not-regular"
    assert stat.S_ISCHR(os.lstat(device).st_mode) and (tmp_path / "link.rig.json").is_symlink()


def test_a_symbolic_link_is_written_through_and_kept(tmp_path):
    real_folder = tmp_path / "real"
    real_folder.mkdir()
    real = write(real_folder, "rig.rig.json", "old")
    os.chmod(real, 0o640)
    link = tmp_path / "link.rig.json"
    link.symlink_to(os.path.relpath(real, tmp_path))  # a relative link into another folder
    status, out, _ = cli("export", RIG, "--json", link)
    assert status == 0, out
    assert link.is_symlink() and os.readlink(link) == os.path.relpath(real, tmp_path)
    assert load(real) == load(RIG) and stat.S_IMODE(real.stat().st_mode) == 0o640
    assert sorted(p.name for p in real_folder.iterdir()) == ["rig.rig.json"]


def test_a_chain_of_links_and_a_dangling_link(tmp_path):
    real = write(tmp_path, "real.py", "old")
    (tmp_path / "one.py").symlink_to(real)
    (tmp_path / "two.py").symlink_to(tmp_path / "one.py")
    write_atomic(tmp_path / "two.py", "new")
    assert real.read_text() == "new"
    assert (tmp_path / "two.py").is_symlink() and (tmp_path / "one.py").is_symlink()
    dangling = tmp_path / "dangling.npz"
    dangling.symlink_to(tmp_path / "made.npz")
    status, _, err = cli("play", DEMO_URDF, "--commands", _commands(tmp_path), "--out", dangling, "--quiet")
    assert status == 0, err
    assert dangling.is_symlink() and (tmp_path / "made.npz").is_file()


@pytest.mark.parametrize("name_bytes", [250, 255])
def test_a_long_legal_name_saves(tmp_path, name_bytes):
    target = tmp_path / ("r" * (name_bytes - len(".rig.json")) + ".rig.json")
    assert len(os.fsencode(target.name)) == name_bytes
    status, out, _ = cli("export", RIG, "--json", target)
    assert status == 0, out
    assert load(target) == load(RIG)
    assert [p.name for p in tmp_path.iterdir()] == [target.name]


def test_a_long_name_of_wide_characters_saves_with_a_temporary_name_of_whole_characters(tmp_path,
                                                                                          monkeypatch):
    import tempfile

    name = "\U0001f9f2" * 60 + ".py"  # 243 bytes in UTF-8, four per character
    prefixes = []
    real = tempfile.mkstemp

    def spy(*args, **kwargs):
        prefixes.append(kwargs["prefix"])
        return real(*args, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", spy)
    write_atomic(tmp_path / name, "x = 1\n")
    assert (tmp_path / name).read_text() == "x = 1\n"
    (prefix,) = prefixes
    assert prefix == "." + "\U0001f9f2" * 16 + "." and len(os.fsencode(prefix)) <= 66


def test_the_session_refuses_such_a_target_with_its_code(tmp_path):
    from mime_gui.session import Session, SessionError

    session = Session()
    session.open(RIG)
    pipe = fifo(tmp_path / "saved.rig.json")
    with pytest.raises(SessionError) as info:
        session.save(pipe)
    assert info.value.code == "file.not-regular"
    with pytest.raises(SessionError) as info:
        session.export_read_report(fifo(tmp_path / "report.json"))
    assert info.value.code == "file.not-regular"
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)


def test_play_refuses_such_an_output_before_it_reads_or_plays_anything(tmp_path, monkeypatch):
    from mime_gui.cli import play as play_command

    def never(*args, **kwargs):
        raise AssertionError("the file was loaded")

    monkeypatch.setattr(play_command, "load_playable", never)
    pipe = fifo(tmp_path / "out.npz")
    status, _, err = cli("play", DEMO_URDF, "--commands", _commands(tmp_path), "--out", pipe)
    assert status == 2 and one_error(err)["code"] == "file.not-regular"
