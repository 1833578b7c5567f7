"""A sweep's table: one row per variant, sorted by index, as CSV or Parquet, always written whole through the
atomic writer (a table on disk is a complete table of the rows done so far, never a torn one).

A CSV table starts with a comment line ``# mime-gui sweep: key <SHA-256>; <N> variants`` (then comments
naming the rig and each ``--vary``), then the header and the rows; numbers are written as Python's ``repr``
(read back exactly). A Parquet table carries the key and the count in its schema's metadata. The key is the
:func:`~mime_gui.sweep.evaluation.fingerprint` of the sweep's arguments: :func:`kept_rows` keeps the rows of
a table with the same key and refuses one of other arguments (``sweep.mismatch``) or no sweep at all
(``sweep.table``), so a table is resumed, never mixed.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path

from mime_gui import inputs
from mime_gui.errors import printable
from mime_gui.files import write_atomic
from mime_gui.magnitudes import parse_float, parse_int
from mime_gui.sweep.grid import NUMBER, SweepError

SUFFIXES = (".csv", ".parquet")
MARK = "mime-gui sweep"
META_KEY, META_COUNT = b"mime-gui-sweep", b"variants"
_FIRST_LINE = re.compile(r"# mime-gui sweep: key ([0-9a-f]{64}); (\d{1,7}) variants")
INT_COLUMNS = ("variant", "findings", "limit_excesses", "clearance_findings")
TEXT_COLUMNS = ("codes", "first_finding")
#: the figures' columns, grouped in this order (within a group: as the rows name them, index order)
GROUPS = ("B_max.", "B_min.", "torque_peak.", "limit_excesses", "clearance_")
PARQUET_HINT = "pip install pyarrow (or pip install 'mime-gui[sweep]')"


@dataclass(frozen=True)
class Stored:
    """A table as read: its ``key``, how many ``variants`` its sweep holds, and its rows, each with the
    place it was read from (a CSV line, a Parquet row) and its values (text from a CSV, typed from
    Parquet)."""

    key: str
    variants: int
    rows: list[tuple[int, dict]]
    typed: bool


def check_suffix(out) -> str:
    """``.csv`` or ``.parquet`` (refused otherwise, and Parquet without pyarrow)."""
    suffix = next((s for s in SUFFIXES if str(out).lower().endswith(s)), None)
    if suffix is None:
        raise SweepError("sweep.out", "the table is written as CSV or Parquet: end the file name in .csv or "
                         ".parquet", str(out))
    if suffix == ".parquet":
        try:
            import pyarrow  # noqa: F401
            import pyarrow.parquet  # noqa: F401
        except ImportError:
            raise SweepError("sweep.parquet", f"writing Parquet needs pyarrow, which is not installed: "
                             f"{PARQUET_HINT}; or write CSV (.csv)", str(out)) from None
    return suffix


def columns(varies, rows) -> list[str]:
    """The table's columns: the variant, the varied values, the findings, then the figures by group."""
    fixed = ["variant", *(v.path for v in varies), "findings", *TEXT_COLUMNS]
    seen: dict[str, None] = {}
    for index in sorted(rows):
        for name in rows[index]:
            if name not in seen and name not in fixed:
                seen[name] = None

    def group(name: str) -> int:
        return next((i for i, g in enumerate(GROUPS) if name.startswith(g)), len(GROUPS))

    return fixed + sorted(seen, key=group)  # sorted is stable: first appearance within a group


def _kinds(varies, names) -> dict[str, str]:
    """``int``, ``float`` or ``str`` per column."""
    kinds = {}
    by_path = {v.path: v for v in varies}
    for name in names:
        vary = by_path.get(name)
        if vary is not None:
            kinds[name] = "str" if vary.kind != NUMBER else \
                ("int" if all(isinstance(x, int) for x in vary.values) else "float")
        elif name in INT_COLUMNS:
            kinds[name] = "int"
        else:
            kinds[name] = "str" if name in TEXT_COLUMNS else "float"
    return kinds


def _cell(value) -> str:
    if value is None:
        return ""
    return repr(value) if isinstance(value, float) else str(value)


def write(out, key: str, varies, rows: dict[int, dict], count: int, about: str = "") -> None:
    """The whole table of ``rows`` (by variant index) to ``out``, atomically."""
    names = columns(varies, rows)
    if str(out).lower().endswith(".parquet"):
        _write_parquet(out, key, varies, rows, count, names)
        return
    buffer = io.StringIO()
    buffer.write(f"# {MARK}: key {key}; {count} variants\n")
    if about:
        buffer.write(f"# {printable(about)}\n")
    for vary in varies:  # what was asked, for whoever reads the table later
        buffer.write(f"# --vary {printable(vary.written)}\n")
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(names)
    for index in sorted(rows):
        row = rows[index]
        writer.writerow([_cell(row.get(name)) for name in names])
    _put(out, buffer.getvalue())


def _write_parquet(out, key, varies, rows, count, names) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    types = {"int": pa.int64(), "float": pa.float64(), "str": pa.string()}
    kinds = _kinds(varies, names)
    order = sorted(rows)
    schema = pa.schema([pa.field(n, types[kinds[n]]) for n in names],
                       metadata={META_KEY: key.encode(), META_COUNT: str(count).encode()})
    table = pa.table({n: [rows[i].get(n) for i in order] for n in names}, schema=schema)
    _put(out, lambda fh: pq.write_table(table, fh))


def _put(out, content) -> None:
    try:
        write_atomic(Path(out), content)
    except inputs.FileError:  # a target that is not a regular file: its own code
        raise
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the name
        raise SweepError("sweep.io", f"cannot write the table ({getattr(exc, 'strerror', None) or exc})",
                         str(out)) from None


def read(path) -> Stored | None:
    """The table at ``path`` as stored; None when there is none (no file, or an empty one)."""
    file = str(path)
    try:
        data = inputs.read_bytes(path, "table")
    except inputs.FileError as exc:
        raise SweepError(exc.code, exc.message, file) from None
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise SweepError("sweep.io", f"cannot read the table ({getattr(exc, 'strerror', None) or exc})",
                         file) from None
    if not data.strip():
        return None
    if file.lower().endswith(".parquet"):
        return _read_parquet(data, file)
    return _read_csv(data, file)


def _not_a_sweep(file: str, line: int = 0) -> SweepError:
    return SweepError("sweep.table", "this file holds no sweep table, so the sweep would overwrite it; give "
                      "another --out, or move the file away", file, line)


def _read_csv(data: bytes, file: str) -> Stored:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise _not_a_sweep(file) from None
    lines = text.split("\n")
    first = _FIRST_LINE.fullmatch(lines[0].rstrip("\r"))
    if first is None:
        raise _not_a_sweep(file, 1)
    start = next((i for i, line in enumerate(lines) if not line.startswith("#")), len(lines))
    reader = csv.reader(io.StringIO("\n".join(lines[start:]), newline=""), strict=True)
    header, rows = None, []
    try:
        for record in reader:
            line = start + reader.line_num  # a quoted cell may span lines: the row's last line
            if not record:
                continue
            if header is None:
                header = record
            elif len(record) != len(header):
                raise SweepError("sweep.table", f"{len(record)} cells under a header of {len(header)}: the "
                                 "row is damaged; remove it (it will be computed again)", file, line)
            else:
                rows.append((line, dict(zip(header, record, strict=True))))
    except csv.Error as exc:
        raise SweepError("sweep.table", f"the table is damaged ({exc}); move it away to start over", file,
                         start + reader.line_num) from None
    if header is None:
        raise _not_a_sweep(file, start + 1)
    return Stored(first[1], parse_int(first[2]), rows, typed=False)


def _read_parquet(data: bytes, file: str) -> Stored:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(pa.BufferReader(data))
    except (pa.ArrowException, OSError, ValueError):
        raise _not_a_sweep(file) from None
    meta = table.schema.metadata or {}
    key, count = meta.get(META_KEY, b"").decode("ascii", "replace"), meta.get(META_COUNT, b"")
    if not re.fullmatch(r"[0-9a-f]{64}", key) or not re.fullmatch(rb"\d{1,7}", count):
        raise _not_a_sweep(file)
    rows = [(i + 1, row) for i, row in enumerate(table.to_pylist())]
    return Stored(key, parse_int(count.decode("ascii")), rows, typed=True)


def _typed(kind: str, cell, file: str, line: int, name: str):
    """A stored cell as the row holds it (None: empty)."""
    if kind == "str":
        return "" if cell is None else str(cell)
    if cell is None or cell == "":
        return None
    if not isinstance(cell, str):
        return cell
    try:
        return parse_int(cell) if kind == "int" else parse_float(cell)
    except ValueError:
        raise SweepError("sweep.table", f"{name}: {cell!r} is not a number; the row is damaged: remove it "
                         "(it will be computed again)", file, line) from None


def kept_rows(stored: Stored | None, key: str, varies, grid: list, file: str) -> dict[int, dict]:
    """The rows of ``stored`` a sweep of ``key`` keeps, by index: each checked against its variant."""
    if stored is None:
        return {}
    if stored.key != key or stored.variants != len(grid):
        raise SweepError("sweep.mismatch", "the table holds a sweep of other arguments (another rig, command "
                         "file, --vary, --dt or --servo-tau); give another --out, or move the table away to "
                         "start over", file)
    kept: dict[int, dict] = {}
    for line, cells in stored.rows:
        kinds = _kinds(varies, cells)
        row = {}
        for name, cell in cells.items():
            value = _typed(kinds[name], cell, file, line, name)
            if value is not None or kinds[name] == "str":  # an empty figure: no such value in this row
                row[name] = value
        index = row.get("variant")
        if not isinstance(index, int) or not 0 <= index < len(grid) or index in kept:
            raise SweepError("sweep.table", f"variant {cells.get('variant')!r} is not one of the sweep's "
                             f"0 to {len(grid) - 1}, or is there twice; remove the row", file, line)
        for vary, value in zip(varies, grid[index].values, strict=True):
            if row.get(vary.path) != value:
                raise SweepError("sweep.table", f"variant {index} holds {vary.path} = {row.get(vary.path)!r} "
                                 f"where the sweep has {value!r}; remove the row", file, line)
        kept[index] = row
    return kept


__all__ = ["SUFFIXES", "Stored", "check_suffix", "columns", "kept_rows", "read", "write"]
