"""A video of the view over the played trajectory: MP4 (H.264 through imageio-ffmpeg's bundled ffmpeg), an
animated GIF (Pillow), or a PNG sequence (Qt, always available) — chosen by the file name's ending.

Frames are taken at :data:`FPS` of the player's speed (at 2× a 4 s trajectory makes a 2 s video). The files
appear only when every frame is written: the video (or each PNG frame) goes to a temporary file beside its
target and is renamed over it at the end; a cancelled or failed export removes what it wrote. The targets
follow the rules of every save (:mod:`mime_gui.files`): one that is a FIFO, a device or a folder is refused
with ``file.not-regular`` before a frame is rendered, a symbolic link is written through and kept, and a
long name is written although the temporary file's name is longer than the target's would be.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np

from mime_gui import files
from mime_gui.inputs import FileError
from mime_gui.multibody.errors import CodedError

FPS = 30
GIF_WIDTH = 640  # GIF frames are scaled down to this width (and 256 colours) to stay small


class VideoError(CodedError):
    """A refused video export (``video.*``)."""


def kinds() -> dict[str, str]:
    """The endings this machine can write, each with its file-dialog filter."""
    out = {}
    try:
        import imageio_ffmpeg  # noqa: F401
        out[".mp4"] = "MP4 video (*.mp4)"
    except ImportError:
        pass
    try:
        import PIL  # noqa: F401
        out[".gif"] = "Animated GIF (*.gif)"
    except ImportError:
        pass
    out[".png"] = "PNG sequence (*.png)"
    return out


def frame_rows(player, fps: float = FPS) -> list[int]:
    """The trajectory row of each video frame, at the player's speed."""
    frames = max(1, math.ceil(player.duration / player.rate * fps - 1e-9))
    return [player.row_at(k * player.rate / fps) for k in range(frames)]


def _name_max(folder: Path) -> int:
    """The most bytes a file name may hold in ``folder`` (255 where the system does not say)."""
    try:
        return int(os.pathconf(folder, "PC_NAME_MAX"))
    except (AttributeError, OSError, ValueError):
        return 255


def encode_png(image) -> bytes:
    """A QImage as the bytes of a PNG file, encoded in memory so the file is written by the atomic writer."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.WriteOnly)
    ok = image.save(buffer, "PNG")
    buffer.close()
    if not ok:
        raise OSError("Qt could not encode the image as PNG")
    return bytes(data.data())


def _even(rgb: np.ndarray) -> np.ndarray:
    """Pad to even width and height (H.264 in yuv420p needs both)."""
    h, w = rgb.shape[:2]
    if h % 2 == 0 and w % 2 == 0:
        return rgb
    return np.pad(rgb, ((0, h % 2), (0, w % 2), (0, 0)), mode="edge")


class FrameWriter:
    """Writes RGB frames ``(h, w, 3) uint8`` to ``path`` by its ending; :meth:`close` or :meth:`abort`."""

    def __init__(self, path, fps: float = FPS):
        self.path = Path(path)
        self.fps = float(fps)
        self.kind = self.path.suffix.lower()
        if self.kind not in kinds():
            raise VideoError("video.kind", f"cannot write {self.kind or 'files without an ending'} here; "
                             f"choose one of: {', '.join(kinds())}", str(path))
        if not self.path.parent.is_dir():
            raise VideoError("video.io", "the folder does not exist", str(path))
        self.written: list[Path] = []
        self.frames = 0
        self._gif: list = []
        self._ffmpeg = None
        self._tmp: str | None = None
        #: PNG frames written aside: (temporary file, the frame's file name)
        self._staged: list[tuple[str, Path]] = []
        self._new: list[Path] = []  # frames put in place where there was no file: removed by abort
        if self.kind in (".mp4", ".gif"):
            self._real, _ = self._target(self.path)
        else:
            self._target(self._frame_name(0))  # the first frame's name refused before any is rendered
        if self.kind == ".mp4":  # ffmpeg writes to a path; the ending tells it the format
            try:
                fd, self._tmp = files.temporary(self._real, self.kind)
            except OSError as exc:
                raise VideoError("video.io", f"cannot write in the folder ({exc.strerror or exc})",
                                 str(path)) from None
            os.close(fd)

    def _target(self, path: Path) -> tuple[Path, int | None]:
        """The file ``path`` names through its links, and its mode; a name too long for the folder, or a
        target that is not a regular file, is refused before anything is rendered."""
        limit, size = _name_max(path.parent), len(os.fsencode(path.name))
        if size > limit:
            frames = " (a PNG sequence adds _00000 to the name)" if self.kind == ".png" else ""
            raise VideoError("video.name", f"the file name {path.name!r} holds {size} bytes, more than the "
                             f"{limit} this folder takes{frames}; choose a shorter name", str(self.path))
        try:
            return files.target(path, "the video's file")
        except FileError as exc:
            raise VideoError(exc.code, exc.message, str(path)) from None

    def _frame_name(self, frame: int) -> Path:
        return self.path.with_name(f"{self.path.stem}_{frame:05d}.png")

    def write(self, rgb: np.ndarray) -> None:
        rgb = np.ascontiguousarray(rgb[..., :3], dtype=np.uint8)
        try:
            if self.kind == ".mp4":
                self._write_mp4(_even(rgb))
            elif self.kind == ".gif":
                self._write_gif(rgb)
            else:
                self._write_png(rgb)
        except VideoError:
            self.abort()
            raise
        except (OSError, RuntimeError, ValueError) as exc:
            self.abort()
            raise VideoError("video.io", f"cannot write frame {self.frames} ({exc})",
                             str(self.path)) from None
        self.frames += 1

    def _write_mp4(self, rgb: np.ndarray) -> None:
        if self._ffmpeg is None:
            import imageio_ffmpeg

            h, w = rgb.shape[:2]
            self._ffmpeg = imageio_ffmpeg.write_frames(self._tmp, (w, h), fps=self.fps, macro_block_size=2,
                                                       quality=7, output_params=["-movflags", "+faststart"])
            self._ffmpeg.send(None)
        self._ffmpeg.send(rgb)

    def _write_gif(self, rgb: np.ndarray) -> None:
        from PIL import Image

        image = Image.fromarray(rgb)
        if image.width > GIF_WIDTH:
            image = image.resize((GIF_WIDTH, round(image.height * GIF_WIDTH / image.width)), Image.LANCZOS)
        self._gif.append(image.quantize(colors=256, method=Image.Quantize.MEDIANCUT))

    def _write_png(self, rgb: np.ndarray) -> None:
        from PySide6.QtGui import QImage

        h, w = rgb.shape[:2]
        image = QImage(rgb.data, w, h, rgb.strides[0], QImage.Format_RGB888)
        name = self._frame_name(self.frames)
        real, _ = self._target(name)
        self._staged.append((files.stage(real, encode_png(image), ".png.tmp"), name))

    def close(self) -> list[Path]:
        """Finish the file(s); returns what was written."""
        try:
            if self.kind == ".mp4" and self._ffmpeg is not None:
                self._ffmpeg.close()
                self._ffmpeg = None
            if self.kind == ".gif" and self._gif:
                first, *rest = self._gif
                self._tmp = files.stage(self._real, lambda fh: first.save(
                    fh, format="GIF", save_all=True, append_images=rest, loop=0,
                    duration=round(1000 / self.fps)), ".gif")
                self._gif = []
            if self.frames == 0:
                raise VideoError("video.empty", "no frame was written", str(self.path))
            if self._tmp is not None:
                real, mode = self._target(self.path)  # again: the export took a while
                files.put_in_place(self._tmp, real, mode)
                self._tmp = None
                self.written = [self.path]
            # every frame's target looked at again before the first is put in place
            checked = [(tmp, *self._target(name), name) for tmp, name in self._staged]
            for tmp, real, mode, name in checked:
                files.put_in_place(tmp, real, mode)
                self._staged.pop(0)
                if mode is None:
                    self._new.append(real)
                self.written.append(name)
            self._new = []
        except VideoError:
            self.abort()
            raise
        except (OSError, RuntimeError) as exc:
            self.abort()
            raise VideoError("video.io", f"cannot finish the video ({exc})", str(self.path)) from None
        return self.written

    def abort(self) -> None:
        """Remove what was written (a cancelled or failed export leaves nothing behind)."""
        if self._ffmpeg is not None:
            try:
                self._ffmpeg.close()
            except (OSError, RuntimeError):
                pass
            self._ffmpeg = None
        self._gif = []
        # the temporary files, and the frames put in place where there was no file (a file that was
        # replaced is not removed: its old content is gone either way)
        for path in [*self._new, *(s[0] for s in self._staged), *([self._tmp] if self._tmp else [])]:
            try:
                os.unlink(path)
            except OSError:
                pass
        self.written, self._tmp, self._staged, self._new = [], None, [], []


def render_video(grab: Callable[[], np.ndarray], show_row: Callable[[int], None], rows: list[int], path,
                 fps: float = FPS, progress: Callable[[int, int], bool] | None = None) -> list[Path]:
    """Show each row, grab the view, write the frame. ``progress(done, total)`` returning False cancels
    (nothing is left behind; returns []). Returns the files written."""
    writer = FrameWriter(path, fps)
    try:
        for i, row in enumerate(rows):
            show_row(row)
            writer.write(grab())
            if progress is not None and progress(i + 1, len(rows)) is False:
                writer.abort()
                return []
    except BaseException:
        writer.abort()
        raise
    return writer.close()
