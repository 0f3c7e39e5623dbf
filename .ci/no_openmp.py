"""Run part of the test suite against a build made without OpenMP (sequential kernels).

Usage: python .ci/no_openmp.py BUILD_DIR — BUILD_DIR from
`meson setup BUILD_DIR -Dopenmp=disabled && ninja -C BUILD_DIR`.
"""

import pathlib
import shutil
import sys
import tempfile

import pytest

root = pathlib.Path(__file__).resolve().parents[1]
build = pathlib.Path(sys.argv[1])
pkg = pathlib.Path(tempfile.mkdtemp()) / "fastfair"
shutil.copytree(root / "fastfair", pkg)
for so in (build / "csrc").glob("*.so"):
    shutil.copy(so, pkg)
sys.path.insert(0, str(pkg.parent))
# An editable install's import hook would shadow the copy; drop it for this process.
sys.meta_path = [f for f in sys.meta_path if "Mesonpy" not in type(f).__name__]
import fastfair  # noqa: E402

assert pathlib.Path(fastfair.__file__).parent == pkg, fastfair.__file__
assert not fastfair._counts.openmp_enabled()
assert fastfair._parallel.effective_n_threads(None) == 1
files = ("test_permutation.py", "test_auc.py", "test_parity.py", "test_threads.py")
tests = [str(root / "tests" / f) for f in files]
sys.exit(
    pytest.main(
        [
            "-q",
            "-p",
            "no:cacheprovider",
            "--import-mode=importlib",
            *tests,
            "-k",
            "thread or exact or identical or n_jobs or brute",
        ]
    )
)
