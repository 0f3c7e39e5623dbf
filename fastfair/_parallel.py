"""Thread-count resolution for the OpenMP kernels (scikit-learn's convention)."""

from __future__ import annotations

import contextlib
import numbers
import os
from collections.abc import Iterator

import numpy as np

from fastfair._counts import openmp_enabled
from fastfair._validation import show_value

__all__ = ["effective_n_threads", "force_parallel", "threads_for"]

# Set by `force_parallel` (tests): ignore the work threshold so that small data run the
# multithreaded path of every kernel, where a thread race would show.
_FORCE_PARALLEL = False
MAX_THREADS = 1024  # n_jobs beyond this is refused (OpenMP takes a C int)


def _usable_cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def effective_n_threads(n_jobs: int | None) -> int:
    """Number of threads for a kernel.

    None means all usable cores; a negative value counts back from them (-1 all, -2 all but
    one); 0 and more than MAX_THREADS (1024) are errors. Without OpenMP the kernels are
    sequential and this returns 1. Results never depend on this number (each permutation
    has its own random stream).
    """
    if n_jobs is not None and (
        isinstance(n_jobs, (bool, np.bool_)) or not isinstance(n_jobs, numbers.Integral)
    ):
        raise TypeError(f"n_jobs must be an integer or None, got {show_value(n_jobs)}")
    if n_jobs == 0:
        raise ValueError("n_jobs == 0 has no meaning; use None or -1 for all cores, or >= 1")
    if n_jobs is not None and abs(n_jobs) > MAX_THREADS:
        raise ValueError(f"n_jobs must be at most {MAX_THREADS} threads, got {int(n_jobs):,}")
    if not openmp_enabled():
        return 1
    cpus = _usable_cpus()
    if n_jobs is None:
        return cpus
    if n_jobs < 0:
        return max(1, cpus + 1 + n_jobs)
    return int(n_jobs)


def threads_for(n_jobs: int | None, work: int, work_per_thread: int) -> int:
    """Threads for a kernel call of `work` units: one per `work_per_thread`, at most n_jobs.

    The one "do threads pay off" rule of the package: a thread costs about a millisecond to
    start, so small calls run on one. Results never depend on the count returned.
    """
    n_threads = effective_n_threads(n_jobs)
    if _FORCE_PARALLEL:
        return n_threads
    return max(1, min(n_threads, int(work) // int(work_per_thread)))


@contextlib.contextmanager
def force_parallel() -> Iterator[None]:
    """Run every kernel with the threads asked for, however small the data (for tests)."""
    global _FORCE_PARALLEL
    old, _FORCE_PARALLEL = _FORCE_PARALLEL, True
    try:
        yield
    finally:
        _FORCE_PARALLEL = old
