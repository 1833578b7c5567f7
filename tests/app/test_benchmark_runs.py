"""The driving benchmark's memory runs still run against today's window (they reach into its docks, so a
rename there breaks them without any other test noticing): each in a fresh process, for no whole minute."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("kind, heading", [
    ("live", "| memory, 0 min of live slider driving with the plots open, PR2 | RSS "),
    ("playback", "| memory, 0 min of looped playback, PR2 (30 s file) | RSS "),
])
def test_a_memory_run_of_the_driving_benchmark_prints_its_row(kind, heading):
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "driving.py"), "--memory-run", kind,
                           "--minutes", "0"], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [line for line in done.stdout.splitlines() if line.startswith("| memory")]
    assert len(rows) == 1 and rows[0].startswith(heading), done.stdout
    assert "no whole minute run" in rows[0]


def test_the_garbage_collection_benchmark_prints_its_row_and_the_settle_leaves_a_full_pass_cheaper():
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gc_settle.py")], capture_output=True,
                          text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [line for line in done.stdout.splitlines() if line.startswith("| a full garbage collection")]
    assert len(rows) == 1, done.stdout
    ours, peer = (float(cell.split()[0]) for cell in rows[0].split("|")[2:4])
    assert ours < peer, rows[0]  # the settle froze the window's objects: a full pass no longer walks them
