"""Where a sweep's variants are evaluated, behind one small interface: ``map_unordered(fn, job, variants)``
yields ``fn(job, variant)`` for every variant as each finishes, and ``close()`` lets the workers go.

- :class:`SerialExecutor`: in this process, in order (tests, a debugger).
- :class:`LocalExecutor`: local worker processes (:class:`concurrent.futures.ProcessPoolExecutor`); the job
  is handed to each worker once, when it starts.
- :class:`DaskExecutor`: the workers of a Dask cluster (``distributed.Client(address)``); the job is sent to
  every worker once (``scatter``). The workers import this package and read the rig's files (its URDFs and
  meshes) at the paths the rig names: on a cluster of several machines those must be on a shared file system.

Each keeps a bounded number of variants in flight, so a sweep of many variants neither queues them all nor
waits for all before the first row is written.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Protocol

from mime_gui.sweep.grid import SweepError

#: variants in flight per worker: enough to keep each busy while rows are collected
IN_FLIGHT = 4
#: the most local worker processes
MAX_WORKERS = 256
DASK_HINT = "pip install 'dask[distributed]' (or pip install 'mime-gui[sweep]')"


class Executor(Protocol):
    """What a sweep runs its variants through."""

    description: str  # for the summary: "2 local worker processes", "the Dask cluster at ..."

    def map_unordered(self, fn: Callable, job, variants: Iterable) -> Iterator[dict]: ...

    def close(self) -> None: ...


class SerialExecutor:
    description = "this process"

    def map_unordered(self, fn, job, variants):
        for variant in variants:
            yield fn(job, variant)

    def close(self) -> None:
        pass


_job = None  # the job of this worker process (LocalExecutor's initializer)


def _install(job) -> None:
    global _job
    _job = job


def _call(fn, variant):
    return fn(_job, variant)


def default_workers() -> int:
    return max(1, min(os.cpu_count() or 1, MAX_WORKERS))


class LocalExecutor:
    """``workers`` local processes."""

    def __init__(self, workers: int | None = None):
        self.workers = default_workers() if workers is None else workers
        if not 1 <= self.workers <= MAX_WORKERS:
            raise SweepError("sweep.workers", f"the local worker processes are 1 to {MAX_WORKERS}, got "
                             f"{self.workers}", "--workers")
        self.description = f"{self.workers} local worker process{'es' if self.workers != 1 else ''}"

    def map_unordered(self, fn, job, variants):
        todo = iter(variants)
        first = next(todo, None)
        if first is None:
            return
        if multiprocessing.get_start_method() == "fork":
            # the first variant here: the workers forked after it start with what it loaded (the field's
            # library, the compiled kernels) instead of each loading it again
            yield fn(job, first)
        else:
            todo = itertools.chain([first], todo)
        pool = ProcessPoolExecutor(max_workers=self.workers, initializer=_install, initargs=(job,))
        pending: set = set()
        try:
            while True:
                for variant in itertools.islice(todo, IN_FLIGHT * self.workers - len(pending)):
                    pending.add(pool.submit(_call, fn, variant))
                if not pending:
                    return
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    try:
                        row = future.result()
                    except BrokenProcessPool:
                        raise SweepError("sweep.worker", "a worker process ended unexpectedly (out of "
                                         "memory, or killed); run again to resume from the rows written, "
                                         "perhaps with fewer --workers", "--workers") from None
                    yield row
        finally:
            # an interrupt or a failure: what runs is not waited for, what waits is dropped
            pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        pass


class DaskExecutor:
    """The workers of the Dask cluster whose scheduler is at ``address`` (``tcp://host:8786``, or a
    LocalCluster's ``scheduler_address``)."""

    def __init__(self, address: str, timeout: float = 10.0):
        try:
            from distributed import Client
        except ImportError:
            raise SweepError("sweep.dask", f"--scheduler runs the sweep on a Dask cluster, which needs the "
                             f"distributed package: {DASK_HINT}", "--scheduler") from None
        try:
            self.client = Client(address, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError, TypeError) as exc:
            raise SweepError("sweep.scheduler", f"cannot reach a Dask scheduler at {address!r} ({exc}); "
                             "start one (dask scheduler, then dask worker ADDRESS on each machine) or check "
                             "the address", "--scheduler") from None
        self.description = f"the Dask cluster at {address}"

    def workers(self) -> int:
        return max(1, sum(self.client.nthreads().values()))

    def map_unordered(self, fn, job, variants):
        from distributed import as_completed

        shared = self.client.scatter(job, broadcast=True, hash=False)
        todo = iter(variants)
        queue = as_completed(loop=self.client.loop)  # this client's loop: it is not the default client
        for variant in itertools.islice(todo, IN_FLIGHT * self.workers()):
            queue.add(self.client.submit(fn, shared, variant, pure=False))
        try:
            for future in queue:
                row = future.result()
                future.release()
                yield row
                variant = next(todo, None)
                if variant is not None:
                    queue.add(self.client.submit(fn, shared, variant, pure=False))
        finally:
            left = list(queue.futures)
            if left:  # an interrupt or a failure: the cluster stops what it runs for this sweep
                self.client.cancel(left, force=True)
            shared.release()

    def close(self) -> None:
        self.client.close()


def executor(workers: int | None = None, scheduler: str | None = None) -> Executor:
    """The executor the options ask for: a Dask cluster with ``scheduler``, else local processes."""
    if scheduler is not None:
        if workers is not None:
            raise SweepError("sweep.workers", "--workers sets the local worker processes; with --scheduler "
                             "the cluster's workers run the sweep: give one of the two", "--workers")
        return DaskExecutor(scheduler)
    return LocalExecutor(workers)


__all__ = ["DaskExecutor", "Executor", "LocalExecutor", "SerialExecutor", "default_workers", "executor"]
