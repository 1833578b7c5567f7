"""A sweep run: the variants not yet in the table evaluated through an executor, the table rewritten as rows
come in (at most every :data:`FLUSH_SECONDS`, and once more at the end, an interrupt or a failure), so an
interrupted sweep resumes from the rows written."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from mime_gui.sweep import table
from mime_gui.sweep.evaluation import Job, evaluate
from mime_gui.sweep.executors import Executor
from mime_gui.sweep.grid import variants

#: the table is rewritten at most this often while rows come in (a rewrite that takes long waits longer)
FLUSH_SECONDS = 2.0


@dataclass(frozen=True)
class SweepResult:
    """``variants`` in the grid, ``kept`` from the table already written, ``computed`` in this run; the
    ``rows`` by index."""

    variants: int
    kept: int
    computed: int
    rows: dict[int, dict]

    @property
    def with_findings(self) -> int:
        return sum(1 for row in self.rows.values() if row.get("findings"))


def run_sweep(job: Job, out, executor: Executor, about: str = "", on_row=None, fn=evaluate) -> SweepResult:
    """Evaluate every variant of ``job`` missing from the table ``out`` through ``executor`` and write the
    table; ``on_row(done, total)`` is told of each row. ``fn`` is the evaluation (a test may count it)."""
    out = Path(out)
    grid = list(variants(job.varies))
    rows = table.kept_rows(table.read(out), job.key, job.varies, grid, str(out))
    kept = len(rows)
    todo = [v for v in grid if v.index not in rows]
    computed, unwritten = 0, 0
    last, pause = time.monotonic(), FLUSH_SECONDS

    def flush() -> None:
        nonlocal last, pause, unwritten
        started, unwritten = time.monotonic(), 0  # a write that fails is not tried again on the way out
        table.write(out, job.key, job.varies, rows, len(grid), about)
        last = time.monotonic()
        pause = max(FLUSH_SECONDS, 10 * (last - started))  # a large table is not rewritten for every row

    try:
        for row in executor.map_unordered(fn, job, todo):
            rows[row["variant"]] = row
            computed += 1
            unwritten += 1
            if on_row is not None:
                on_row(kept + computed, len(grid))
            if time.monotonic() - last >= pause:
                flush()
    finally:
        if unwritten:  # the rows done are kept whatever ended the run
            flush()
    return SweepResult(len(grid), kept, computed, rows)


__all__ = ["FLUSH_SECONDS", "SweepResult", "run_sweep"]
