"""write_atomic: what a reader of the target sees after a write, a failed write and a crash, and what reaches
the disk (the file's data and the folder's entry) before the call returns."""

from __future__ import annotations

import os
import stat

import pytest

from mime_gui.files import write_atomic


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def _siblings(folder) -> list[str]:
    return sorted(os.listdir(folder))


def test_a_new_file_holds_the_text_as_utf8_bytes_with_its_newlines(tmp_path):
    target = tmp_path / "out.txt"
    assert write_atomic(target, "a\r\nb\nč\r") == target
    assert target.read_bytes() == "a\r\nb\nč\r".encode()
    assert _siblings(tmp_path) == ["out.txt"]


def test_a_function_writes_bytes_to_the_handle_it_is_given(tmp_path):
    target = tmp_path / "out.bin"
    write_atomic(target, lambda fh: fh.write(b"\x00\xff"))
    assert target.read_bytes() == b"\x00\xff"


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_a_new_file_is_0644_whatever_the_umask(tmp_path, umask):
    old = os.umask(umask)
    try:
        write_atomic(tmp_path / "new.txt", "x")
    finally:
        os.umask(old)
    assert _mode(tmp_path / "new.txt") == 0o644


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o755, 0o444])
def test_a_replaced_file_keeps_its_mode(tmp_path, mode):
    target = tmp_path / "kept.txt"
    target.write_text("old")
    os.chmod(target, mode)
    write_atomic(target, "new")
    assert target.read_text() == "new"
    assert _mode(target) == mode


def test_the_temporary_file_is_beside_the_target_so_the_rename_stays_on_one_file_system(tmp_path,
                                                                                        monkeypatch):
    sub = tmp_path / "sub"
    sub.mkdir()
    renames = []
    real_replace = os.replace

    def spy(src, dst):
        renames.append((os.fspath(src), os.fspath(dst)))
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    write_atomic(sub / "target.json", "{}")
    assert len(renames) == 1
    src, dst = renames[0]
    assert os.path.dirname(os.path.abspath(src)) == str(sub.resolve())
    assert os.path.abspath(dst) == str(sub / "target.json")


def test_the_temporary_is_hidden_named_after_its_target_and_ends_in_tmp(tmp_path, monkeypatch):
    """A temporary left by a killed process is recognisable, and no ``*.rig.json`` filter shows it."""
    seen = []
    real_replace = os.replace

    def spy(src, dst):
        seen.append(os.path.basename(src))
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    write_atomic(tmp_path / "demo.rig.json", "{}")
    (name,) = seen
    assert name.startswith(".demo.rig.json.") and name.endswith(".tmp")
    assert len(name) > len(".demo.rig.json..tmp")  # a unique part between them


def test_a_crash_between_write_and_rename_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "rig.json"
    target.write_text("old content")

    def crash(src, dst):
        assert open(src, "rb").read() == b"new content"  # the data was written before the rename
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="No space left"):
        write_atomic(target, "new content")
    assert target.read_text() == "old content"
    assert _siblings(tmp_path) == ["rig.json"]


def test_a_writer_that_fails_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "out.npz"
    target.write_bytes(b"old")

    def half_then_fail(fh):
        fh.write(b"partial")
        raise ValueError("encoder failed")

    with pytest.raises(ValueError, match="encoder failed"):
        write_atomic(target, half_then_fail)
    assert target.read_bytes() == b"old"
    assert _siblings(tmp_path) == ["out.npz"]


def test_an_interrupt_while_writing_leaves_no_temporary(tmp_path):
    def interrupted(fh):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_atomic(tmp_path / "new.txt", interrupted)
    assert _siblings(tmp_path) == []


def test_the_data_is_synced_before_the_rename_and_the_folder_after_it(tmp_path, monkeypatch):
    """The file's bytes reach the disk before the rename, and the folder's entry (the rename) after it."""
    events = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        st = os.fstat(fd)
        kind = "folder" if stat.S_ISDIR(st.st_mode) else "file"
        events.append((kind, st.st_ino))
        return real_fsync(fd)

    def replace(src, dst):
        events.append(("rename", None))
        return real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    target = tmp_path / "synced.txt"
    write_atomic(target, "data")
    folder_inode = os.stat(tmp_path).st_ino
    assert [kind for kind, _ in events] == ["file", "rename", "folder"]
    assert events[0][1] == os.stat(target).st_ino  # the file synced is the one renamed into place
    assert events[2][1] == folder_inode


def test_the_folder_synced_is_the_targets_own_even_through_a_relative_path(tmp_path, monkeypatch):
    sub = tmp_path / "a"
    sub.mkdir()
    synced = []
    real_fsync = os.fsync

    def fsync(fd):
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            synced.append(st.st_ino)
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.chdir(tmp_path)
    write_atomic(os.path.join("a", "rel.txt"), "x")
    assert synced == [os.stat(sub).st_ino]
    assert (sub / "rel.txt").read_text() == "x"


def test_a_folder_that_cannot_be_synced_does_not_fail_a_write_that_happened(tmp_path, monkeypatch):
    real_fsync = os.fsync

    def fsync(fd):
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise OSError(22, "Invalid argument")  # some file systems refuse fsync on a folder
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    write_atomic(tmp_path / "x.txt", "ok")
    assert (tmp_path / "x.txt").read_text() == "ok"


def _open_under(folder) -> list[str]:
    """What this process holds open in ``folder`` (its descriptors' targets; other threads' sockets and
    pipes, which come and go, are not looked at)."""
    out = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # closed while listed
            continue
        if target.startswith(str(folder)):
            out.append(target)
    return out


def test_no_descriptor_is_left_open(tmp_path):
    for i in range(5):
        write_atomic(tmp_path / "x.txt", f"ok {i}")
    assert _open_under(tmp_path) == []
    with open(tmp_path / "x.txt") as held:  # the check sees a file held open
        assert _open_under(tmp_path) == [str(tmp_path / "x.txt")]
        held.read()


def test_a_folder_as_the_target_is_refused_saying_to_give_the_file_to_write_and_stays_as_it_was(tmp_path):
    from mime_gui.inputs import FileError

    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "kept.txt").write_text("kept")
    with pytest.raises(FileError) as info:
        write_atomic(folder, "new")
    assert info.value.code == "file.not-regular" and info.value.file == str(folder)
    # what the path is and the fix: a path to the file to write, not to the folder
    assert "a folder, not a regular file" in info.value.message
    assert info.value.message.endswith("give the path of the file to write")
    assert _siblings(folder) == ["kept.txt"] and _siblings(tmp_path) == ["out"]
