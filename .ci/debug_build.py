"""Run the kernel tests against a build with Cython bounds checks (issue 14).

Usage: python .ci/debug_build.py BUILD_DIR — BUILD_DIR from
`meson setup BUILD_DIR -Dcython-boundscheck=true && ninja -C BUILD_DIR`.

With bounds checks an out-of-range memoryview index raises IndexError instead of reading
or writing past an array, so a kernel handed inconsistent sizes fails loudly here. The
subset exercises every compiled kernel on small data (a few minutes at most).
"""

import sys

from _build_copy import import_build, run_tests

import_build(sys.argv[1])
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
)
sys.exit(run_tests(files, "not level and not power and not validity and not null and not table1"))
