"""Run part of the test suite against a separate install of fastfair built with other
meson options: without OpenMP (sequential kernels), with Cython bounds checks, and with the
portable 128-bit integers of csrc/ff_int128.h instead of the compiler's __int128.

Usage: python .ci/alt_build.py TARGET, where TARGET is a directory from

    pip install --no-deps --no-build-isolation --target TARGET . \\
        -Csetup-args=-Dopenmp=disabled -Csetup-args=-Dcython-boundscheck=true \\
        -Csetup-args=-Dportable-int128=true

That install is imported instead of the environment's fastfair (an editable install's
import hook, which would shadow it, is dropped for this process), and the script checks
that it is. Three properties are tested:
- without OpenMP the kernels give the same results (n_jobs is accepted and ignored);
- with bounds checks an out-of-range memoryview index raises IndexError instead of reading
  or writing past an array, so a kernel handed inconsistent sizes fails loudly;
- the AUC kernels' exact sums give the same statistics from two 64-bit halves (the path of
  compilers without __int128, e.g. MSVC): test_auc.py compares them with the sweep's, and
  the golden results must stay bit for bit.
The subset exercises every compiled kernel on small data and skips the long simulations.
"""

import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
target = pathlib.Path(sys.argv[1]).resolve()
sys.meta_path = [f for f in sys.meta_path if "Mesonpy" not in type(f).__name__]
sys.path.insert(0, str(target))
import fastfair  # noqa: E402

assert pathlib.Path(fastfair.__file__).parent == target / "fastfair", fastfair.__file__
assert not fastfair._counts.openmp_enabled(), "built with OpenMP: -Dopenmp=disabled ignored"
assert fastfair._parallel.effective_n_threads(None) == 1
assert not fastfair._auc.int128_native(), "__int128 used: -Dportable-int128=true ignored"
files = (
    "test_kernel_inputs.py",
    "test_auc.py",
    "test_permutation.py",
    "test_parity.py",
    "test_wasserstein.py",
    "test_generic.py",
    "test_threads.py",
    "test_intervals.py",
    "test_pvalues.py",
    "test_sampling.py",
    "test_golden.py",
)
keyword = (
    "thread or exact or identical or n_jobs or brute"
    " or not (level or power or validity or null or table1)"
)
args = ["-q", "-p", "no:cacheprovider", "--import-mode=importlib", "-m", "not slow"]
args += ["-k", keyword, *(str(ROOT / "tests" / f) for f in files)]
sys.exit(pytest.main(args))
