"""Timing helpers shared by the benchmark scripts.

This module must not import numpy (nor anything that loads it): ``drop_blas_overrides`` is called before
numpy's first import, since OpenBLAS reads OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE once, when numpy loads it,
and the only way to run without them is to re-execute the script in an environment that lacks them.
"""

from __future__ import annotations

import os
import sys
import time

BLAS_OVERRIDES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


def drop_blas_overrides() -> None:
    """Re-execute this script without OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE when either is set and numpy is
    not loaded yet (the figures are for the BLAS as the machine picks it); otherwise do nothing."""
    if any(k in os.environ for k in BLAS_OVERRIDES) and "numpy" not in sys.modules:
        env = {k: v for k, v in os.environ.items() if k not in BLAS_OVERRIDES}
        os.execve(sys.executable, [sys.executable, *sys.argv], env)


def best(fn, repeat: int, number: int = 1) -> float:
    """Best wall time of one call, over ``repeat`` runs of ``number`` calls."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number)
    return min(times)
