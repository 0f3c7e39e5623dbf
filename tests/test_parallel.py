"""Thread counts honour OMP_NUM_THREADS, the affinity mask and the cgroup CPU quota.

Each source is set on its own: the environment variable with monkeypatch, the affinity by
replacing ``os.sched_getaffinity``, the cgroup files by pointing ``_parallel.CGROUP_ROOT``
at a directory of fake cgroup v1 and v2 files.
"""

import os

import numpy as np
import pytest
from fastfair._counts import openmp_enabled

from fastfair import _parallel

pytestmark = pytest.mark.skipif(not openmp_enabled(), reason="sequential build: one thread")


@pytest.fixture
def machine(monkeypatch, tmp_path):
    """A machine of 8 CPUs in the affinity mask, no cgroup quota, OMP_NUM_THREADS unset."""
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)), raising=False)
    monkeypatch.setattr(_parallel, "CGROUP_ROOT", tmp_path)
    return tmp_path


def _v2(root, text):
    (root / "cpu.max").write_text(text)


def _v1(root, quota, period):
    (root / "cpu").mkdir()
    (root / "cpu" / "cpu.cfs_quota_us").write_text(f"{quota}\n")
    (root / "cpu" / "cpu.cfs_period_us").write_text(f"{period}\n")


def test_affinity_mask_counts_the_cpus(machine, monkeypatch):
    assert _parallel.effective_n_threads(None) == 8
    assert _parallel.effective_n_threads(-1) == 8
    assert _parallel.effective_n_threads(-3) == 6
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {2, 5, 7}, raising=False)
    assert _parallel.effective_n_threads(None) == 3
    assert _parallel.effective_n_threads(-2) == 2


@pytest.mark.parametrize(
    ("text", "expected"),
    [("150000 100000\n", 2), ("200000 100000", 2), ("50000 100000", 1), ("max 100000\n", 8),
     ("2400000 100000", 8), ("", 8), ("garbage", 8)],
)  # fmt: skip
def test_cgroup_v2_cpu_max_bounds_the_threads(machine, text, expected):
    _v2(machine, text)
    assert _parallel.effective_n_threads(None) == expected
    assert _parallel.effective_n_threads(-1) == expected


@pytest.mark.parametrize(
    ("quota", "period", "expected"), [(300000, 100000, 3), (250000, 100000, 3), (-1, 100000, 8)]
)
def test_cgroup_v1_cfs_quota_bounds_the_threads(machine, quota, period, expected):
    _v1(machine, quota, period)
    assert _parallel.effective_n_threads(None) == expected
    assert _parallel.effective_n_threads(-2) == expected - 1


def test_cgroup_v2_is_read_before_v1(machine):
    _v2(machine, "100000 100000")
    _v1(machine, 400000, 100000)
    assert _parallel.effective_n_threads(None) == 1


@pytest.mark.parametrize(("value", "expected"), [("3", 3), ("4,2", 4), (" 12 ", 12)])
def test_omp_num_threads_sets_all_cores(machine, monkeypatch, value, expected):
    _v2(machine, "200000 100000")  # the variable wins over the quota, as in OpenMP
    monkeypatch.setenv("OMP_NUM_THREADS", value)
    assert _parallel.effective_n_threads(None) == expected
    assert _parallel.effective_n_threads(-1) == expected
    assert _parallel.effective_n_threads(5) == 5  # an explicit count is used as given


@pytest.mark.parametrize("value", ["", "0", "-2", "many"])
def test_an_unusable_omp_num_threads_is_ignored(machine, monkeypatch, value):
    monkeypatch.setenv("OMP_NUM_THREADS", value)
    assert _parallel.effective_n_threads(None) == 8


def test_threads_for_uses_the_same_count(machine, monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    assert _parallel.threads_for(None, 10**9, 1) == 2
    assert _parallel.threads_for(None, 1, 10) == 1


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no affinity masks here")
def test_a_real_affinity_mask_and_environment_in_a_fresh_process():
    """Not monkeypatched: a new interpreter restricts its own affinity mask to one CPU, or
    gets OMP_NUM_THREADS from its environment, and the kernels' thread count follows."""
    import subprocess
    import sys

    code = (
        "import os, sys\n"
        "if sys.argv[1] == 'mask':\n"
        "    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})\n"
        "from fastfair import _parallel\n"
        "print(_parallel.effective_n_threads(None), _parallel.threads_for(None, 10**9, 1))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}

    def threads(kind, **extra):
        out = subprocess.run([sys.executable, "-c", code, kind], env={**env, **extra},
                             capture_output=True, text=True, check=True)  # fmt: skip
        return out.stdout.split()

    assert threads("mask") == ["1", "1"]
    assert threads("none", OMP_NUM_THREADS="3") == ["3", "3"]
    assert threads("mask", OMP_NUM_THREADS="3") == ["3", "3"]  # the variable wins, as in OpenMP


def test_n_jobs_is_used_up_to_max_threads_inclusive(machine):
    """An explicit n_jobs of MAX_THREADS (1024) is used as given and -1024 counts back to
    one thread; one beyond, either way, is refused with the limit named."""
    assert _parallel.MAX_THREADS == 1024
    assert _parallel.effective_n_threads(1024) == 1024
    assert _parallel.effective_n_threads(-1024) == 1
    assert _parallel.effective_n_threads(-8) == 1 and _parallel.effective_n_threads(-7) == 2
    for n_jobs in (1025, -1025):
        with pytest.raises(ValueError, match="n_jobs must be at most 1024 threads, got"):
            _parallel.effective_n_threads(n_jobs)


def test_n_jobs_of_the_wrong_kind_or_zero_is_refused_with_its_rule(machine):
    """n_jobs 0 is a ValueError saying what to use instead; a float or a boolean (numpy's
    too) is a TypeError naming the value; numpy integers are used as given."""
    with pytest.raises(ValueError, match=r"n_jobs == 0 has no meaning; use None or -1"):
        _parallel.effective_n_threads(0)
    for bad, shown in ((1.5, "1.5"), (True, "True"), (np.bool_(False), "False")):
        with pytest.raises(TypeError, match=f"n_jobs must be an integer or None, got {shown}"):
            _parallel.effective_n_threads(bad)
    assert _parallel.effective_n_threads(np.int64(3)) == 3
    assert _parallel.effective_n_threads(np.int32(-2)) == 7


def test_without_affinity_masks_all_cpus_count(machine, monkeypatch):
    """Where os.sched_getaffinity does not exist (not Linux) every CPU of os.cpu_count
    counts, at least one when it is unknown."""
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 6)
    assert _parallel.effective_n_threads(None) == 6
    assert _parallel.effective_n_threads(-2) == 5
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert _parallel.effective_n_threads(None) == 1


def test_threads_for_gives_one_thread_per_whole_unit_of_work_at_its_boundaries(machine):
    """One thread per whole work_per_thread (rounded down, at least one, at most n_jobs or
    the machine's 8): 1,999 units of 1,000 run on one thread, 2,000 on two; force_parallel
    ignores the work."""
    cases = [(4, 0, 1), (4, 999, 1), (4, 1999, 1), (4, 2000, 2), (4, 3999, 3), (4, 4000, 4)]
    cases += [(4, 10**9, 4), (-1, 7999, 7), (-1, 8000, 8), (None, 10**9, 8), (-3, 10**9, 6)]
    for n_jobs, work, want in cases:
        assert _parallel.threads_for(n_jobs, work, 1000) == want, (n_jobs, work)
    with _parallel.force_parallel():
        assert _parallel.threads_for(3, 1, 1000) == 3
        assert _parallel.threads_for(None, 0, 1000) == 8
