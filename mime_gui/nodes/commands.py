"""Recorded joint commands: CSV and NPZ files (format in docs/command-files.md), resampled for a node.

:func:`read_commands` reads and checks a file on its own; :meth:`RecordedCommands.schedule` checks the joint
names against what a node (or a rig) can command and resamples with a zero-order hold: the command of step
``n`` (from ``t0 + n·dt`` to ``t0 + (n + 1)·dt``) is the latest sample at or before ``t0 + n·dt``.

Every refusal is a :class:`CommandFileError` with a stable code and the place (file and line; for NPZ files
the array row in the message):

=========================  ========================================================================
``commands.io``            the file cannot be read
``commands.format``        not a CSV/NPZ command file: wrong extension, not a number, missing array
``commands.columns``       header without ``time`` first, duplicate columns, a row of the wrong length
``commands.units``         an unknown unit marker, or degrees on a prismatic joint
``commands.empty``         no samples
``commands.non-finite``    NaN or infinity in a sample
``commands.time-order``    times not strictly increasing
``commands.time-range``    a time beyond ±:data:`MAX_TIME` seconds
``commands.unknown-joint`` a column names no commandable joint (unknown, fixed, or a mimic follower)
``commands.dt``            the step cannot be chosen (one sample and no dt, a bad dt, too many steps)
=========================  ========================================================================
"""

from __future__ import annotations

import csv
import io
import lzma
import math
import re
import zipfile
import zlib
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mime_gui import inputs
from mime_gui.files import write_atomic
from mime_gui.multibody import PRISMATIC
from mime_gui.multibody.errors import CodedError
from mime_gui.multibody.magnitudes import parse_float
from mime_gui.nodes import columns as grammar

#: the most steps :meth:`RecordedCommands.schedule` makes unless told otherwise
MAX_STEPS = 5_000_000
#: the largest time and step, in seconds (about 32 years): far beyond any recording, and far below where the
#: step times ``t0 + n·dt`` of :data:`MAX_STEPS` steps would overflow or lose the step to rounding
MAX_TIME = 1e9

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class CommandFileError(CodedError):
    """A refused command file: a stable ``code`` (``commands.*``), the file, the 1-based line (0: none)."""


@dataclass(frozen=True, eq=False)
class Schedule:
    """Commands ready for a node: step ``n`` starts at ``start + n·dt`` with ``commands[n]`` held through it.

    ``commands (N, len(command_names))`` in SI units; ``initial_positions`` the positions the play starts from
    (the first sample of each recorded joint, the given initial value for the others); ``recorded`` the
    commandable joints the file drives.
    """

    command_names: tuple[str, ...]
    start: float
    dt: float
    commands: np.ndarray
    initial_positions: np.ndarray
    recorded: tuple[str, ...]

    @property
    def steps(self) -> int:
        return len(self.commands)


@dataclass(frozen=True, eq=False)
class RecordedCommands:
    """The samples of one file, converted to SI units (radians, metres).

    ``time (S,)`` strictly increasing, ``joint_positions (S, k)`` for ``joint_names (k,)``; ``units`` the unit
    marker of each column as written (``""`` when none); ``lines (S,)`` the 1-based line of each sample in a
    CSV file (0 for NPZ); ``header_line`` the line of the CSV header (0 for NPZ).
    """

    path: str
    time: np.ndarray
    joint_names: tuple[str, ...]
    joint_positions: np.ndarray
    units: tuple[str, ...]
    lines: np.ndarray
    header_line: int = 0

    def fail(self, code: str, message: str, line: int = 0) -> CommandFileError:
        return CommandFileError(code, message, self.path, line)

    def sample_spacing(self) -> float:
        """The median spacing of the samples (the default step)."""
        if len(self.time) < 2:
            raise self.fail("commands.dt", "one sample only: the step cannot come from the sample spacing; "
                            "give a step (--dt)", self.header_line)
        with np.errstate(over="ignore", invalid="ignore"):
            spacing = float(np.median(np.diff(self.time)))
        if not (math.isfinite(spacing) and spacing > 0.0):
            raise self.fail("commands.dt", f"the samples' median spacing is {spacing:g} s (the times run "
                            f"from {self.time[0]:g} to {self.time[-1]:g} s); give a step (--dt) or fix the "
                            "times", self.header_line)
        return spacing

    def resample(self, dt: float | None = None,
                 max_steps: int = MAX_STEPS) -> tuple[np.ndarray, np.ndarray, float]:
        """Zero-order hold at ``dt`` (default :meth:`sample_spacing`) over ``[t0, t_last]``:
        (step start times ``(N,)``, commands ``(N, k)``, dt)."""
        n, dt = self.step_count(dt, max_steps)
        k = np.arange(n)
        grid = self.time[0] + dt * k
        # a sample on a grid time counts as there: a billionth of a step, and the rounding of times far from
        # zero (a file whose clock starts at 1e4 s puts each sample a few ulps off t0 + k·dt)
        index = np.searchsorted(self.time, grid + 1e-9 * dt + 4.0 * (k + 1) * self._ulp(), side="right") - 1
        return grid, self.joint_positions[index], dt

    def _ulp(self) -> float:
        """The float spacing of the largest time: how far rounding alone can put a time."""
        return math.ulp(max(abs(float(self.time[0])), abs(float(self.time[-1]))))

    def step_count(self, dt: float | None = None, max_steps: int = MAX_STEPS) -> tuple[int, float]:
        """(the number of steps, the step) of :meth:`resample` at ``dt``, known before any is made."""
        dt = self.sample_spacing() if dt is None else float(dt)
        if not (math.isfinite(dt) and 0.0 < dt <= MAX_TIME):
            raise self.fail("commands.dt", f"the step must be a positive number of seconds up to "
                            f"{MAX_TIME:g}, got {dt}")
        span = float(self.time[-1]) - float(self.time[0])
        if not math.isfinite(span):
            raise self.fail("commands.dt", f"the times run from {self.time[0]:g} to {self.time[-1]:g} s, a "
                            "span too long to step through; fix the times")
        # the step itself may be off by a few ulps of the times (a median of differences of large times)
        steps = span / dt * (1.0 + 4.0 * self._ulp() / dt) + 1e-9
        if not math.isfinite(steps) or steps >= max_steps:
            raise self.fail("commands.dt", f"a step of {dt:g} s over {span:g} s makes more than {max_steps} "
                            "steps; choose a larger step")
        return int(math.floor(steps)) + 1, dt

    def schedule(self, command_names, dt: float | None = None, initial_positions=None, *,
                 not_commandable: Mapping[str, str] | None = None, linear: Collection[str] = (),
                 max_steps: int = MAX_STEPS) -> Schedule:
        """Map the file's columns onto ``command_names`` and resample.

        ``not_commandable`` maps joint names that exist but take no command to the reason (shown in the
        error); ``linear`` names prismatic joints (degrees are refused on them, metres on the others).
        Joints the file does not name stay at ``initial_positions`` (default 0).
        """
        names = tuple(command_names)
        index = {n: i for i, n in enumerate(names)}
        not_commandable = dict(not_commandable or {})
        columns = []
        for c, name in enumerate(self.joint_names):
            where = f"column {c + 2}" if self.header_line else f"joint_names[{c}]"
            if name not in index:
                why = not_commandable.get(name)
                if why:
                    message = f"{where}: joint {name!r} takes no command: {why}"
                else:
                    message = (f"{where}: unknown joint {name!r}; commandable joints: "
                               f"{', '.join(names) or '(none)'}")
                raise self.fail("commands.unknown-joint", message, self.header_line)
            if self.units[c] == "deg" and name in linear:
                raise self.fail("commands.units", f"{where}: joint {name!r} is prismatic; give it in metres, "
                                "not degrees", self.header_line)
            if self.units[c] == "m" and name not in linear:
                raise self.fail("commands.units", f"{where}: joint {name!r} turns; give it in [rad] or "
                                "[deg], not metres", self.header_line)
            columns.append(index[name])
        initial = np.zeros(len(names)) if initial_positions is None else np.array(initial_positions, float)
        if initial.shape != (len(names),):
            raise ValueError(f"initial_positions must have {len(names)} entries, got {initial.shape}")
        grid, values, dt = self.resample(dt, max_steps)
        commands = np.empty((len(grid), len(names)))
        commands[:] = initial
        commands[:, columns] = values
        initial[columns] = self.joint_positions[0]
        return Schedule(names, float(grid[0]), dt, commands, initial, self.joint_names)

    def for_node(self, node, dt: float | None = None, initial_positions=None,
                 max_steps: int = MAX_STEPS) -> Schedule:
        """:meth:`schedule` for a :class:`~mime_gui.nodes.KinematicArmNode`."""
        art = node.art
        followers = {}
        for f in np.flatnonzero(art.is_mimic):
            master = art.joint_names[art.mimic_master[f]]
            followers[art.joint_names[f]] = f"it follows {master!r} (mimic); command {master!r}"
        linear = {n for n, t in zip(art.joint_names, art.joint_type, strict=True) if t == PRISMATIC}
        return self.schedule(node.command_names, dt, initial_positions, not_commandable=followers,
                             linear=linear, max_steps=max_steps)


def read_commands(path) -> RecordedCommands:
    """Read a ``.csv`` or ``.npz`` command file (docs/command-files.md); raises :class:`CommandFileError`."""
    path = Path(path)
    file = str(path)
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".npz"):
        raise CommandFileError("commands.format", "expected a .csv or .npz command file, got "
                               f"{suffix or 'no'} extension", file)
    try:
        data = inputs.read_bytes(path, "commands")  # a regular file within the size limit, or refused
    except inputs.FileError as exc:
        raise CommandFileError(exc.code, exc.message, file) from None
    except (OSError, ValueError) as exc:  # no such file, a name too long, a NUL byte, no permission
        why = "no such file" if isinstance(exc, FileNotFoundError) else getattr(exc, "strerror", None) or exc
        raise CommandFileError("commands.io", f"cannot read the file ({why}); check the path", file) from None
    return _read_csv(data, file) if suffix == ".csv" else _read_npz(data, file)


def write_commands(path, recorded: RecordedCommands, comment: str = "") -> Path:
    """Write ``recorded`` (radians and metres, no unit markers) as a ``.csv`` or ``.npz`` command file that
    :func:`read_commands` reads back to the same values, atomically. CSV numbers carry 17 significant digits
    (:func:`repr`), so every value reads back as it was; ``comment`` becomes a ``#`` line above the header.
    Raises :class:`CommandFileError` (``commands.format``) for another ending, OSError when it cannot
    write."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".npz":
        def content(fh):
            np.savez(fh, **{grammar.NPZ_TIME: np.asarray(recorded.time, float),
                            grammar.NPZ_VALUES: np.asarray(recorded.joint_positions, float),
                            grammar.NPZ_NAMES: np.array(recorded.joint_names, dtype=str)})
    elif suffix == ".csv":
        for name in recorded.joint_names:  # the reader splits cells at commas and lines at line breaks
            if any(c in name for c in ',"\r\n') or name != name.strip():
                raise CommandFileError("commands.columns", f"{name!r} cannot be a CSV column's name; write "
                                       "the file as .npz", str(path))
        text = io.StringIO()
        for line in comment.splitlines():
            text.write(f"# {line}\n")
        text.write(",".join((grammar.TIME, *recorded.joint_names)) + "\n")
        for t, row in zip(recorded.time, recorded.joint_positions, strict=True):
            text.write(",".join(repr(float(v)) for v in (t, *row)) + "\n")
        content = text.getvalue()
    else:
        raise CommandFileError("commands.format", "a command file is written as .csv or .npz, got "
                               f"{suffix or 'no'} extension", str(path))
    return write_atomic(path, content)


def _unit_marker(cell: str) -> tuple[str, str] | None:
    """``(name, unit)`` of ``'name [unit]'`` (the unit up to the closing bracket ending the cell, holding no
    ``]``), or None. Found by two scans of the cell: a pattern that backtracks takes cubic time on a long
    cell such as ``'a['`` and spaces."""
    if not cell.endswith("]"):
        return None
    body = cell[:-1]
    opening = body.find("[", body.rfind("]") + 1)
    if opening < 0:
        return None
    return body[:opening].strip(), body[opening + 1:].strip()


def _column(cell: str, file: str, line: int, c: int, units=None) -> tuple[str, str]:
    marked = _unit_marker(cell)
    name, unit = (marked[0], marked[1].lower()) if marked else (cell, "")
    if unit and unit not in (grammar.markers() if units is None else units):
        raise CommandFileError("commands.units", f"column {c + 1}: unknown unit [{unit}] in {cell!r}; use "
                               f"{grammar.marker_list()}", file, line)
    if not name:
        raise CommandFileError("commands.columns", f"column {c + 1} has no joint name", file, line)
    return name, unit


def _columns(cells: list[str], file: str, line: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    first, first_unit = _column(cells[0], file, line, 0, {*grammar.markers(), *grammar.TIME_UNITS})
    if first.lower() != grammar.TIME or first_unit not in grammar.TIME_UNITS:
        raise CommandFileError("commands.columns", f"the first column must be 'time' (seconds), got "
                               f"{cells[0]!r}", file, line)
    if len(cells) < 2:
        raise CommandFileError("commands.columns", "no joint columns after 'time'", file, line)
    names, units, seen = [], [], set()  # a set: a header of many columns is checked in linear time
    for c, cell in enumerate(cells[1:], start=1):
        name, unit = _column(cell, file, line, c)
        if name in seen:
            raise CommandFileError("commands.columns", f"column {c + 1}: joint {name!r} appears twice",
                                   file, line)
        seen.add(name)
        names.append(name)
        units.append(unit)
    return tuple(names), tuple(units)


def _scale(units: tuple[str, ...]) -> np.ndarray:
    factors = grammar.markers()
    return np.array([factors.get(u, 1.0) for u in units])


def _read_csv(data: bytes, file: str) -> RecordedCommands:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CommandFileError("commands.format", f"not UTF-8 text (byte {exc.start}); a command file is CSV "
                               "text", file) from None
    header = None
    header_line = 0
    rows: list[list[float]] = []
    lines: list[int] = []
    # only CR, LF and CRLF end a line (str.splitlines would also split on form feeds, vertical tabs and
    # Unicode separators, so line numbers would not be an editor's and a stray one would make a new row)
    for number, raw in enumerate(_LINE_BREAK.split(text), start=1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            cells = [c.strip() for c in next(csv.reader([stripped], strict=True))]
        except csv.Error as exc:
            raise CommandFileError("commands.format", f"not a CSV line ({exc})", file, number) from None
        if header is None:
            header, header_line = _columns(cells, file, number), number
            width = len(header[0]) + 1
            continue
        if len(cells) != width:
            raise CommandFileError("commands.columns", f"{len(cells)} values for {width} columns (time and "
                                   f"{width - 1} joints)", file, number)
        row = []
        for c, cell in enumerate(cells):
            try:
                value = parse_float(cell)
            except ValueError:
                what = "time" if c == 0 else f"joint {header[0][c - 1]!r}"
                hint = (" (digits may not be grouped with '_')" if "_" in cell else
                        " (write the digits in ASCII, 0-9)" if not cell.isascii() else "")
                raise CommandFileError("commands.format", f"column {c + 1} ({what}): {cell!r} is not a "
                                       f"number{hint}", file, number) from None
            if not math.isfinite(value):
                what = "time" if c == 0 else f"joint {header[0][c - 1]!r}"
                raise CommandFileError("commands.non-finite", f"column {c + 1} ({what}) is {cell}",
                                       file, number)
            if c == 0 and abs(value) > MAX_TIME:
                raise CommandFileError("commands.time-range", _beyond(cell), file, number)
            row.append(value)
        if rows and row[0] <= rows[-1][0]:
            raise CommandFileError("commands.time-order", f"time {cells[0]} s is not after the previous "
                                   f"sample's {rows[-1][0]:g} s (line {lines[-1]}); times must increase",
                                   file, number)
        rows.append(row)
        lines.append(number)
    if header is None:
        raise CommandFileError("commands.empty", "no header and no samples; expected 'time,<joint names>' "
                               "then one line per sample", file)
    if not rows:
        raise CommandFileError("commands.empty", "a header and no samples", file, header_line)
    data = np.array(rows)
    names, units = header
    return RecordedCommands(file, _frozen(data[:, 0]), names, _frozen(data[:, 1:] * _scale(units)), units,
                            _frozen(np.array(lines, dtype=int)), header_line)


def _beyond(time: str) -> str:
    return (f"time {time} s is beyond ±{MAX_TIME:g} s (about 32 years); write times in seconds from the "
            "start of the recording")


def _frozen(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def _unpacked_size(data: bytes, file: str) -> None:
    """Refuse an NPZ archive whose members unpack to more than the command-file limit (a few kilobytes of
    zeros can unpack to gigabytes). The sizes are the archive's own; :mod:`zipfile` reads no member past its
    stated size, so they bound what unpacking takes."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            total = sum(info.file_size for info in z.infolist())
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return  # not a zip: np.load says what it is
    limit = inputs.LIMITS["commands"]
    cap = limit.bytes()
    if total > cap:
        raise CommandFileError("file.too-large", f"the archive unpacks to {total / inputs.MB:.1f} MB, more "
                               f"than the {cap / inputs.MB:.1f} MB {limit.what} may hold; set "
                               f"{limit.variable} (megabytes) to raise the limit", file)


def _read_npz(data: bytes, file: str) -> RecordedCommands:
    _unpacked_size(data, file)
    try:
        archive = np.load(io.BytesIO(data), allow_pickle=False)
        if not isinstance(archive, np.lib.npyio.NpzFile):  # a bare .npy file: np.load returned an array
            raise CommandFileError("commands.format", "a single NumPy array (.npy data), not an NPZ archive; "
                                   "save time, joint_positions and joint_names with numpy.savez", file)
        with archive:
            keys = (grammar.NPZ_TIME, grammar.NPZ_VALUES, grammar.NPZ_NAMES)
            missing = [k for k in keys if k not in archive.files]
            if missing:
                raise CommandFileError("commands.format", f"missing array(s) {', '.join(missing)}; an NPZ "
                                       "command file holds time (T,), joint_positions (T, k), "
                                       "joint_names (k,)", file)
            time, values, raw_names = (archive[k] for k in keys)
            for key, array in zip(keys, (time, values, raw_names), strict=True):
                if not isinstance(array, np.ndarray):  # np.load gives the raw bytes of a member not .npy
                    raise CommandFileError("commands.format", f"{key} is not a NumPy array (the archive "
                                           "member is not .npy data); write the file with numpy.savez", file)
    except CommandFileError:
        raise
    # not a zip, a damaged member (deflate, bzip2: an OSError, since the bytes are in memory; LZMA), pickled
    # objects, an encrypted or unknown zip, an absurd array header
    except (ValueError, zipfile.BadZipFile, EOFError, zlib.error, lzma.LZMAError, OSError, RuntimeError,
            NotImplementedError, KeyError, MemoryError) as exc:
        raise CommandFileError("commands.format", f"not a readable NPZ archive of plain arrays "
                               f"({type(exc).__name__}: {exc})", file) from None
    if raw_names.dtype.kind not in "US" or raw_names.ndim != 1:
        raise CommandFileError("commands.format", f"joint_names must be a 1-D array of strings, got "
                               f"{raw_names.dtype} {raw_names.shape}", file)
    if time.dtype.kind not in "fiu" or values.dtype.kind not in "fiu":
        raise CommandFileError("commands.format", "time and joint_positions must be numeric arrays", file)
    try:
        cells = [n.decode() if isinstance(n, bytes) else str(n) for n in raw_names]
    except UnicodeDecodeError as exc:
        raise CommandFileError("commands.format", f"joint_names holds bytes that are not UTF-8 text ({exc})",
                               file) from None
    names, units = _columns([grammar.TIME, *cells], file, 0)
    if time.ndim != 1 or values.ndim != 2 or values.shape != (len(time), len(names)):
        raise CommandFileError("commands.columns", f"joint_positions {values.shape} must be (len(time), "
                               f"len(joint_names)) = ({time.shape[0] if time.ndim else '?'}, {len(names)}); "
                               f"time must be 1-D, got {time.shape}", file)
    if len(time) == 0:
        raise CommandFileError("commands.empty", "no samples (time is empty)", file)
    time = time.astype(float)
    values = values.astype(float)
    bad = np.flatnonzero(~np.isfinite(time) | ~np.all(np.isfinite(values), axis=1))
    if bad.size:
        r = int(bad[0])
        cols = ["time"] * (not math.isfinite(time[r]))
        cols += [names[c] for c in np.flatnonzero(~np.isfinite(values[r]))]
        raise CommandFileError("commands.non-finite", f"row {r}: {', '.join(cols)} not finite", file)
    far = np.flatnonzero(np.abs(time) > MAX_TIME)
    if far.size:
        r = int(far[0])
        raise CommandFileError("commands.time-range", f"row {r}: {_beyond(f'{time[r]:g}')}", file)
    order = np.flatnonzero(np.diff(time) <= 0)
    if order.size:
        r = int(order[0]) + 1
        raise CommandFileError("commands.time-order", f"row {r}: time {time[r]:g} s is not after row "
                               f"{r - 1}'s {time[r - 1]:g} s; times must increase", file)
    return RecordedCommands(file, _frozen(time), names, _frozen(values * _scale(units)), units,
                            _frozen(np.zeros(len(time), dtype=int)), 0)
