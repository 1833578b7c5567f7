"""Special files and sizes: nothing but a regular file within its kind's limit is read, and nothing blocks.

Every reader (URDF, rig file, an arm's description, a part's mesh, a command file, the view's meshes) is
handed a named pipe, a folder, a socket, a device and a file past its limit: each is refused with
``file.not-regular`` or ``file.too-large`` from its ``stat`` (a FIFO opened for reading would block forever),
at the headless API and on the command line (one ``error[...]`` line, the documented exit status).
"""

from __future__ import annotations

import io
import subprocess
import sys
import zipfile

import numpy as np
import pytest
from hostile_corpus import (
    DEMO_URDF,
    cli,
    fifo,
    null_device,
    one_error,
    rig_with,
    robot,
    unix_socket,
    write,
    zero_link,
)

from mime_gui import inputs
from mime_gui.mesh_files import MeshFileError
from mime_gui.mesh_files import read as read_mesh
from mime_gui.multibody import UrdfError, read_urdf
from mime_gui.nodes import read_commands
from mime_gui.nodes.commands import CommandFileError
from mime_gui.rig import RigFileError, load
from mime_gui.sweep import SweepError
from mime_gui.sweep.table import read as read_table

pytestmark = pytest.mark.timeout(60)

SPECIAL = {
    "fifo": (fifo, "a named pipe (FIFO)"),
    "folder": (lambda p: (p.mkdir(), p)[1], "a folder"),
    "socket": (unix_socket, "a socket"),
    "device": (null_device, "a character device"),
    "zero_link": (zero_link, "a character device"),
}
READERS = {  # kind -> (file name, reader, error class)
    "urdf": ("x.urdf", read_urdf, UrdfError),
    "rig": ("x.rig.json", load, RigFileError),
    "commands": ("x.csv", read_commands, CommandFileError),
    "mesh": ("x.dae", read_mesh, MeshFileError),
    "table": ("x.csv", read_table, SweepError),  # a sweep's table, read to resume it
}


@pytest.mark.parametrize("special", sorted(SPECIAL))
@pytest.mark.parametrize("kind", sorted(READERS))
def test_every_reader_refuses_what_is_not_a_regular_file(tmp_path, kind, special):
    make, what = SPECIAL[special]
    name, reader, error = READERS[kind]
    path = make(tmp_path / name)
    with pytest.raises(error) as info:
        reader(path)
    assert info.value.code == "file.not-regular" and info.value.file == str(path)
    # the kind named whole, where the sentence puts it: "this is a socket, not a regular file"
    assert f"this is {what}, not a regular file" in info.value.message


def test_the_check_looks_at_the_file_not_its_name(tmp_path):
    """A symbolic link to a regular file is read; a regular file in a folder reached through a link too."""
    real = write(tmp_path, "real.urdf", robot('<link name="a"/>'))
    (tmp_path / "link.urdf").symlink_to(real)
    assert read_urdf(tmp_path / "link.urdf").root == "a"
    assert inputs.check(tmp_path / "link.urdf", "urdf").st_size == real.stat().st_size


@pytest.mark.parametrize("special", ["fifo", "folder", "zero_link", "socket"])
def test_the_cli_refuses_special_files_on_one_line(tmp_path, special):
    make, _ = SPECIAL[special]
    urdf = make(tmp_path / "robot.urdf")
    status, out, err = cli("inspect", urdf)
    assert status == 2 and out == "" and one_error(err)["code"] == "file.not-regular"
    rig = make(tmp_path / "rig.rig.json")
    status, out, _ = cli("validate", rig)
    assert status == 1 and one_error(out)["code"] == "file.not-regular"
    cmd = make(tmp_path / "cmd.csv")
    status, out, err = cli("play", DEMO_URDF, "--commands", cmd, "--out", tmp_path / "o.npz")
    assert status == 2 and one_error(err)["code"] == "file.not-regular"
    assert not (tmp_path / "o.npz").exists()


def test_a_rig_whose_description_or_mesh_is_a_fifo_is_a_finding_not_a_hang(tmp_path):
    fifo(tmp_path / "pipe.urdf")

    def description(data):
        data["chain"][0]["description"] = "pipe.urdf"

    path = rig_with(tmp_path, description)
    status, out, _ = cli("validate", path)
    assert status == 1
    m = one_error(out)
    assert m["code"] == "chain.description" and m["where"] == "chain.arm.description"
    assert "[file.not-regular]" in m["message"]

    fifo(tmp_path / "pipe.stl")

    def mesh(data):
        data["parts"]["holder"]["geometry"] = {"type": "mesh", "path": "pipe.stl"}

    path = rig_with(tmp_path, mesh, "mesh.rig.json")
    for command in ("validate", "report"):
        status, out, _ = cli(command, path)
        assert status == 1
        m = one_error(out)
        assert m["code"] == "part.geometry" and "[file.not-regular]" in m["message"]


def test_the_real_program_on_a_fifo_exits_at_once(tmp_path):
    """The whole program in a subprocess: it would block forever opening the FIFO."""
    pipe = fifo(tmp_path / "robot.urdf")
    done = subprocess.run([sys.executable, "-m", "mime_gui", "inspect", str(pipe)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert one_error(done.stderr)["code"] == "file.not-regular"


# -- sizes ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", sorted(READERS))
def test_a_file_past_its_limit_is_refused_naming_the_limit_and_the_variable(tmp_path, monkeypatch, kind):
    name, reader, error = READERS[kind]
    limit = inputs.LIMITS[kind]
    monkeypatch.setenv(limit.variable, "0.001")  # 1,048 bytes
    path = write(tmp_path, name, b" " * 2000)
    with pytest.raises(error) as info:
        reader(path)
    assert info.value.code == "file.too-large"
    assert limit.variable in info.value.message and "2000 bytes" in info.value.message
    assert "1048 bytes" in info.value.message
    # at the limit, it is read (and refused for what it holds, if anything)
    path.write_bytes(b" " * 1048)
    try:
        reader(path)
    except error as exc:
        assert exc.code != "file.too-large"


@pytest.mark.parametrize("value", ["0", "-1", "lots", "1_000", "nan", "inf"])
def test_a_limit_that_is_not_a_positive_number_is_refused(tmp_path, monkeypatch, value):
    monkeypatch.setenv("MIME_GUI_MAX_URDF_MB", value)
    path = write(tmp_path, "r.urdf", robot('<link name="a"/>'))
    status, _, err = cli("inspect", path)
    assert status == 2
    m = one_error(err)
    assert m["code"] == "file.limit" and "MIME_GUI_MAX_URDF_MB" in m["message"]
    assert m["message"].endswith("unset it (the default is 64 MB) or give a number such as 256")  # 4 × 64


def test_the_limit_is_the_default_unless_set(monkeypatch):
    monkeypatch.delenv("MIME_GUI_MAX_MESH_MB", raising=False)
    assert inputs.LIMITS["mesh"].bytes() == 256 * inputs.MB
    monkeypatch.setenv("MIME_GUI_MAX_MESH_MB", "512")
    assert inputs.LIMITS["mesh"].bytes() == 512 * inputs.MB


def test_the_cli_says_how_to_raise_the_limit(tmp_path, monkeypatch):
    monkeypatch.setenv("MIME_GUI_MAX_RIG_MB", "0.0001")
    status, out, _ = cli("validate", write(tmp_path, "big.rig.json", "{" + " " * 500 + "}"))
    assert status == 1
    m = one_error(out)
    assert m["code"] == "file.too-large" and "set MIME_GUI_MAX_RIG_MB (megabytes)" in m["message"]


def test_an_npz_that_unpacks_past_the_limit_is_refused_before_it_is_unpacked(tmp_path, monkeypatch):
    monkeypatch.setenv("MIME_GUI_MAX_COMMANDS_MB", "1")
    path = tmp_path / "bomb.npz"
    buffer = io.BytesIO()
    np.savez_compressed(buffer, time=np.arange(2.0), joint_positions=np.zeros((300_000, 1)),
                        joint_names=np.array(["joint_1"]))
    path.write_bytes(buffer.getvalue())
    assert path.stat().st_size < 20_000  # 2.4 MB of zeros in a few kilobytes
    with pytest.raises(CommandFileError) as info:
        read_commands(path)
    assert info.value.code == "file.too-large" and "unpacks to 2.3 MB" in info.value.message
    status, _, err = cli("play", DEMO_URDF, "--commands", path, "--out", tmp_path / "o.npz")
    assert status == 2 and one_error(err)["code"] == "file.too-large"


def test_a_zip_with_lying_sizes_is_still_bounded(tmp_path, monkeypatch):
    """The cap reads the archive's stated sizes; zipfile reads no member past its stated size, so a member
    that claims less than it holds is cut there (np.load then refuses it as damaged)."""
    monkeypatch.setenv("MIME_GUI_MAX_COMMANDS_MB", "1")
    path = tmp_path / "liar.npz"

    def npy(array) -> bytes:
        buffer = io.BytesIO()
        np.save(buffer, array)
        return buffer.getvalue()

    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("time.npy", npy(np.zeros(400_000)))  # 3.2 MB of zeros, stated below as 100 bytes
        z.writestr("joint_positions.npy", npy(np.zeros((2, 1))))
        z.writestr("joint_names.npy", npy(np.array(["joint_1"])))
    data = bytearray(path.read_bytes())
    for sig in (b"PK\x03\x04", b"PK\x01\x02"):  # shrink the stated size in both headers to 100 bytes
        at = data.find(sig)
        offset = at + (22 if sig == b"PK\x03\x04" else 24)
        data[offset:offset + 4] = (100).to_bytes(4, "little")
    path.write_bytes(bytes(data))
    with pytest.raises(CommandFileError) as info:
        read_commands(path)
    assert info.value.code == "commands.format"


def test_play_refuses_an_output_past_its_limit_before_any_step(tmp_path, monkeypatch):
    """A file of a few dozen bytes asks for 4 million steps (within the 5 million a schedule may make): about
    5 GB of output, refused at once, before the arm is stepped (``play`` of the node is never called)."""
    from mime_gui.cli import play as play_command

    cmd = write(tmp_path, "long.csv", "time,joint_1\n0,0\n1e-5,0\n2e-5,0\n40,1\n")
    assert len(cmd.read_bytes()) < 64

    def never(*args, **kwargs):
        raise AssertionError("the arm was played")

    monkeypatch.setattr(play_command.ArmPlayable, "play", never)
    status, out, err = cli("play", DEMO_URDF, "--commands", cmd, "--out", tmp_path / "o.npz")
    assert status == 2 and out == ""
    m = one_error(err)
    assert m["code"] == "play.too-large" and m["where"] == str(tmp_path / "o.npz")
    assert "4000001 steps" in m["message"] and "MIME_GUI_MAX_PLAY_MB" in m["message"]
    assert not (tmp_path / "o.npz").exists()


def test_the_play_estimate_is_the_size_written(tmp_path, monkeypatch):
    """Under the limit the file is written, and its arrays hold what the estimate counted."""
    from mime_gui.cli.play import load_playable, output_bytes

    cmd = write(tmp_path, "c.csv", "time,joint_1\n0,0\n0.5,0.1\n1,0.2\n")
    out = tmp_path / "o.npz"
    assert cli("play", DEMO_URDF, "--commands", cmd, "--out", out, "--dt", "0.01")[0] == 0
    data = np.load(out)
    counted = sum(data[k].nbytes for k in ("time", "joint_positions", "frame_poses",
                                           "frame_angular_velocities"))
    assert output_bytes(load_playable(DEMO_URDF), len(data["time"])) == counted
    # and a limit just below it refuses the same play
    monkeypatch.setenv("MIME_GUI_MAX_PLAY_MB", str((counted - 1) / inputs.MB))
    status, _, err = cli("play", DEMO_URDF, "--commands", cmd, "--out", out, "--dt", "0.01")
    assert status == 2 and one_error(err)["code"] == "play.too-large"


def test_a_file_that_grows_past_the_limit_while_read_is_cut_at_the_limit(tmp_path, monkeypatch):
    """The read stops one byte past the limit whatever the size ``stat`` said (a file that grows, a file
    system that reports no size)."""
    import os

    monkeypatch.setenv("MIME_GUI_MAX_URDF_MB", "0.001")
    path = write(tmp_path, "grow.urdf", b"<robot/>")
    real_fstat = os.fstat
    sizes = []

    def grow_then_stat(fd):
        with open(path, "ab") as fh:  # the file grows between the check and the read
            fh.write(b" " * 5000)
        st = real_fstat(fd)
        sizes.append(st.st_size)
        return st

    monkeypatch.setattr(os, "fstat", grow_then_stat)
    with pytest.raises(inputs.FileError) as info:
        inputs.read_bytes(path, "urdf")
    assert info.value.code == "file.too-large" and "more than 1048 bytes" in info.value.message
    assert sizes == [5008]
