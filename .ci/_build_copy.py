"""Import fastfair from a separate meson build and run part of the test suite against it.

Shared by .ci/no_openmp.py and .ci/debug_build.py: the Python package of this clone is
copied to a temporary directory together with the extensions of BUILD_DIR (from
`meson setup BUILD_DIR [options] && ninja -C BUILD_DIR`), and that copy is imported.
"""

import pathlib
import shutil
import sys
import tempfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def import_build(build):
    """Import fastfair from a copy of the package holding BUILD_DIR's extensions."""
    pkg = pathlib.Path(tempfile.mkdtemp()) / "fastfair"
    shutil.copytree(ROOT / "fastfair", pkg)
    for so in (pathlib.Path(build) / "csrc").glob("*.so"):
        shutil.copy(so, pkg)
    sys.path.insert(0, str(pkg.parent))
    # An editable install's import hook would shadow the copy; drop it for this process.
    sys.meta_path = [f for f in sys.meta_path if "Mesonpy" not in type(f).__name__]
    import fastfair

    assert pathlib.Path(fastfair.__file__).parent == pkg, fastfair.__file__
    return fastfair


def run_tests(files, keyword=None):
    """pytest on tests/<files> (optionally -k keyword); returns its exit code."""
    tests = [str(ROOT / "tests" / f) for f in files]
    args = ["-q", "-p", "no:cacheprovider", "--import-mode=importlib", *tests]
    if keyword:
        args += ["-k", keyword]
    return pytest.main(args)
