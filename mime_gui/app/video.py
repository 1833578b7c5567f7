"""A video of the view over the played trajectory: MP4 (H.264 through imageio-ffmpeg's bundled ffmpeg), an
animated GIF (Pillow), or a PNG sequence (Qt, always available) — chosen by the file name's ending.

Frames are taken at :data:`FPS` of the player's speed (at 2× a 4 s trajectory makes a 2 s video). The file
appears only when every frame is written: MP4 and GIF go to a temporary file beside the target and are
renamed at the end; a cancelled or failed export removes what it wrote.
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

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
        if self.kind in (".mp4", ".gif"):
            fd, self._tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=self.kind,
                                             dir=self.path.parent)
            os.close(fd)

    def write(self, rgb: np.ndarray) -> None:
        rgb = np.ascontiguousarray(rgb[..., :3], dtype=np.uint8)
        try:
            if self.kind == ".mp4":
                self._write_mp4(_even(rgb))
            elif self.kind == ".gif":
                self._write_gif(rgb)
            else:
                self._write_png(rgb)
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
        target = self.path.with_name(f"{self.path.stem}_{self.frames:05d}.png")
        if not image.save(str(target)):
            raise OSError(f"Qt could not write {target.name}")
        self.written.append(target)

    def close(self) -> list[Path]:
        """Finish the file(s); returns what was written."""
        try:
            if self.kind == ".mp4" and self._ffmpeg is not None:
                self._ffmpeg.close()
                self._ffmpeg = None
            if self.kind == ".gif" and self._gif:
                first, *rest = self._gif
                first.save(self._tmp, format="GIF", save_all=True, append_images=rest, loop=0,
                           duration=round(1000 / self.fps))
                self._gif = []
            if self._tmp is not None:
                if self.frames == 0:
                    raise VideoError("video.empty", "no frame was written", str(self.path))
                os.replace(self._tmp, self.path)
                self._tmp = None
                self.written = [self.path]
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
        for path in [*self.written, *([Path(self._tmp)] if self._tmp else [])]:
            try:
                os.unlink(path)
            except OSError:
                pass
        self.written, self._tmp = [], None


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
