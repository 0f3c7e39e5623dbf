"""Run part of the test suite against a build made without OpenMP (sequential kernels).

Usage: python .ci/no_openmp.py BUILD_DIR — BUILD_DIR from
`meson setup BUILD_DIR -Dopenmp=disabled && ninja -C BUILD_DIR`.
"""

import sys

from _build_copy import import_build, run_tests

fastfair = import_build(sys.argv[1])
assert not fastfair._counts.openmp_enabled()
assert fastfair._parallel.effective_n_threads(None) == 1
files = ("test_permutation.py", "test_auc.py", "test_parity.py", "test_threads.py")
sys.exit(run_tests(files, "thread or exact or identical or n_jobs or brute"))
