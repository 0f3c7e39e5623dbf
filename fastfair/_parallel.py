"""Thread-count resolution for the OpenMP kernels (scikit-learn's convention: OMP_NUM_THREADS,
the affinity mask and the cgroup CPU quota)."""

from __future__ import annotations

import contextlib
import math
import numbers
import os
import pathlib
from collections.abc import Iterator

import numpy as np

from fastfair._counts import openmp_enabled
from fastfair._validation import show_value

__all__ = ["effective_n_threads", "force_parallel", "threads_for"]

# Set by `force_parallel` (tests): ignore the work threshold so that small data run the
# multithreaded path of every kernel, where a thread race would show.
_FORCE_PARALLEL = False
MAX_THREADS = 1024  # n_jobs beyond this is refused (OpenMP takes a C int)


#: Root of the cgroup file system whose CPU quota bounds the threads (tests point it elsewhere).
CGROUP_ROOT = pathlib.Path("/sys/fs/cgroup")


def _affinity_cpus() -> int:
    """CPUs this process may run on (its affinity mask; all CPUs where there is none)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _read_numbers(path: pathlib.Path) -> list[str] | None:
    try:
        return path.read_text().split()
    except (OSError, UnicodeDecodeError):
        return None


def _cgroup_cpus() -> int | None:
    """The CPU quota of the process's cgroup, rounded up to whole CPUs (None: no quota).

    cgroup v2 writes ``"<quota> <period>"`` (or ``"max <period>"``) to ``cpu.max``; v1 has
    ``cpu/cpu.cfs_quota_us`` (-1: none) and ``cpu/cpu.cfs_period_us``. A container limited
    to 1.5 CPUs on a 64-core host thus gets 2 threads, not 64 (the rule of loky, which
    scikit-learn's thread counts use).
    """
    v2 = _read_numbers(CGROUP_ROOT / "cpu.max")
    if v2 is not None:
        pair = v2[:2]
    else:
        quota = _read_numbers(CGROUP_ROOT / "cpu" / "cpu.cfs_quota_us")
        period = _read_numbers(CGROUP_ROOT / "cpu" / "cpu.cfs_period_us")
        pair = (quota or []) + (period or [])
    try:
        quota_us, period_us = int(pair[0]), int(pair[1])
    except (IndexError, ValueError):  # "max", an absent file, or a format we do not know
        return None
    if quota_us <= 0 or period_us <= 0:
        return None
    return max(1, math.ceil(quota_us / period_us))


def _omp_num_threads() -> int | None:
    """The thread count OMP_NUM_THREADS asks for (its first level), None when unset or
    not a positive integer (OpenMP ignores such a value too)."""
    value = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    try:
        n = int(value)
    except ValueError:
        return None
    return n if n > 0 else None


def _usable_cpus() -> int:
    """Threads "all cores" means: OMP_NUM_THREADS when set, else the CPUs of the affinity
    mask, at most the cgroup's CPU quota."""
    requested = _omp_num_threads()
    if requested is not None:
        return requested
    quota = _cgroup_cpus()
    cpus = _affinity_cpus()
    return cpus if quota is None else min(cpus, quota)


def effective_n_threads(n_jobs: int | None) -> int:
    """Number of threads for a kernel.

    None means all usable cores; a negative value counts back from them (-1 all, -2 all but
    one); 0 and more than MAX_THREADS (1024) are errors. Usable cores (as scikit-learn's
    ``_openmp_effective_n_threads``): ``OMP_NUM_THREADS`` when it is set, else the CPUs
    this process may run on (affinity), at most its cgroup's CPU quota (v2 ``cpu.max``, v1
    ``cpu.cfs_quota_us``), rounded up. An explicit positive `n_jobs` is used as given.
    Without OpenMP the kernels are sequential and this returns 1. Results never depend on
    this number (each permutation has its own random stream).
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
    cpus = min(_usable_cpus(), MAX_THREADS)
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
