"""The app's own outputs follow the rules of every save: a video (MP4, GIF, PNG sequence) and a screenshot
refuse a FIFO at the target before anything is rendered, write through a symbolic link and keep it, take a
long legal name, and a cancelled export leaves the files that were there as they were. A material library
that is a FIFO is named, not read."""

from __future__ import annotations

import os
import stat

import numpy as np
import pytest

from mime_gui.app.scene.mesh_defects import missing_textures
from mime_gui.app.video import FrameWriter, VideoError, kinds, render_video

pytestmark = pytest.mark.timeout(120)  # a FIFO opened by mistake blocks: the timeout makes it a failure

KINDS = [k for k in (".mp4", ".gif", ".png") if k in kinds()]
#: how each kind's first bytes look (MP4: a box named ftyp at offset 4)
MAGIC = {".mp4": (4, b"ftyp"), ".gif": (0, b"GIF89a"), ".png": (0, b"\x89PNG\r\n\x1a\n")}


@pytest.fixture
def out(tmp_path):
    """A folder of the test's own (the app's fixtures keep their settings in ``tmp_path``)."""
    folder = tmp_path / "out"
    folder.mkdir()
    return folder


def frames(n: int = 3) -> list[np.ndarray]:
    return [np.full((24, 32, 3), 40 * i, dtype=np.uint8) for i in range(n)]


def first_file(path, kind):
    """The file a kind writes first for ``path``: the video itself, or the PNG sequence's first frame."""
    return path.with_name(f"{path.stem}_00000.png") if kind == ".png" else path


def looks_like(path, kind) -> bool:
    offset, magic = MAGIC[kind]
    with open(path, "rb") as fh:
        return fh.read(offset + len(magic))[offset:] == magic


def export(path, n: int = 3) -> list:
    grabbed = []

    def grab():
        grabbed.append(1)
        return frames(n)[len(grabbed) - 1]

    return render_video(grab, lambda row: None, list(range(n)), path, fps=10)


@pytest.mark.parametrize("kind", KINDS)
def test_a_fifo_at_the_target_is_refused_before_a_frame_is_rendered(out, kind):
    path = out / f"take{kind}"
    pipe = first_file(path, kind)
    os.mkfifo(pipe)  # no reader: opened for writing, it would block
    rendered = []
    with pytest.raises(VideoError) as info:
        render_video(lambda: rendered.append(1) or frames(1)[0], lambda row: None, [0, 1], path)
    assert (info.value.code, info.value.file) == ("file.not-regular", str(pipe))
    assert rendered == [] and stat.S_ISFIFO(os.lstat(pipe).st_mode)
    assert sorted(p.name for p in out.iterdir()) == [pipe.name]  # no temporary file left


@pytest.mark.parametrize("kind", KINDS)
def test_a_fifo_made_while_rendering_is_refused_at_the_end_and_left(out, kind):
    path = out / f"take{kind}"
    writer = FrameWriter(path, fps=10)
    for rgb in frames(2):
        writer.write(rgb)
    pipe = path.with_name(f"{path.stem}_00001.png") if kind == ".png" else path
    os.mkfifo(pipe)
    with pytest.raises(VideoError) as info:
        writer.close()
    assert (info.value.code, info.value.file) == ("file.not-regular", str(pipe))
    assert sorted(p.name for p in out.iterdir()) == [pipe.name]  # no frame put in place, no temporary


@pytest.mark.parametrize("kind", KINDS)
def test_a_symbolic_link_is_written_through_and_kept_with_its_files_mode(out, kind):
    real_folder = out / "real"
    real_folder.mkdir()
    path = out / f"take{kind}"
    link = first_file(path, kind)
    real = real_folder / f"kept{kind}"
    real.write_bytes(b"old")
    os.chmod(real, 0o640)
    link.symlink_to(os.path.relpath(real, out))
    written = export(path)
    assert written[0] == link and link.is_symlink() and os.readlink(link) == os.path.relpath(real, out)
    assert looks_like(real, kind) and stat.S_IMODE(real.stat().st_mode) == 0o640
    assert sorted(p.name for p in real_folder.iterdir()) == [real.name]


@pytest.mark.parametrize("kind", KINDS)
def test_a_new_video_gets_the_mode_of_a_new_file(out, kind):
    path = out / f"take{kind}"
    written = export(path, n=2)
    assert [stat.S_IMODE(p.stat().st_mode) for p in written] == [0o644] * len(written)


@pytest.mark.parametrize("kind", KINDS)
def test_a_long_legal_name_is_written(out, kind):
    # the longest name the PNG sequence can take: its frames add _00000 to the stem
    stem = "v" * (255 - len(kind) - (len("_00000") if kind == ".png" else 0))
    path = out / f"{stem}{kind}"
    written = export(path)
    assert len(os.fsencode(written[0].name)) == 255 and looks_like(written[0], kind)
    assert len(written) == (3 if kind == ".png" else 1)
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in written)


def test_a_png_sequence_whose_frame_names_would_be_too_long_is_refused_first(out):
    path = out / ("v" * (255 - len(".png")) + ".png")  # legal itself; its frames would not be
    rendered = []
    with pytest.raises(VideoError) as info:
        render_video(lambda: rendered.append(1) or frames(1)[0], lambda row: None, [0], path)
    assert info.value.code == "video.name" and "shorter name" in info.value.message
    assert rendered == [] and list(out.iterdir()) == []


def test_a_cancelled_png_sequence_leaves_the_frames_that_were_there(out):
    path = out / "take.png"
    old = path.with_name("take_00001.png")
    old.write_bytes(b"someone's picture")
    calls = []
    written = render_video(lambda: frames(3)[len(calls) - 1], lambda row: calls.append(row), [0, 1, 2],
                           path, progress=lambda done, total: done < 3)
    assert written == [] and old.read_bytes() == b"someone's picture"
    assert sorted(p.name for p in out.iterdir()) == ["take_00001.png"]


def test_the_screenshot_refuses_a_fifo_and_writes_through_a_link(window, out):
    pipe = out / "shot.png"
    os.mkfifo(pipe)
    assert not window.save_screenshot(str(pipe))
    assert (window.screenshot_error.code, window.screenshot_error.file) == ("file.not-regular", str(pipe))
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)
    real = out / "real.png"
    real.write_bytes(b"old")
    link = out / "link.png"
    link.symlink_to(real)
    assert window.save_screenshot(str(link)) and window.screenshot_error is None
    assert link.is_symlink() and looks_like(real, ".png")


def test_a_material_library_that_is_a_fifo_is_named_not_read(out):
    os.mkfifo(out / "pipe.mtl")
    obj = out / "tet.obj"
    data = b"mtllib pipe.mtl\nusemtl a\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"
    obj.write_bytes(data)
    (note,) = missing_textures(str(obj), data)
    assert "material library 'pipe.mtl' cannot be read" in note and "named pipe (FIFO)" in note
