"""Build a tiny downstream Cython extension against the INSTALLED fastfair and check it.

Usage: python .ci/downstream_cython.py (in an environment where fastfair is installed
normally, not editable). The extension cimports fastfair's installed declarations
(`from fastfair._core cimport ...`), compiles with fastfair.get_include() and
numpy.get_include() on its include path, and must reproduce fastfair's own random streams:
the Philox words and a Fisher-Yates permutation of the same (key, stream id, index).
"""

import importlib.util
import pathlib
import shlex
import subprocess
import sys
import sysconfig
import tempfile

import numpy as np

import fastfair

DEMO = """\
# cython: language_level=3
import numpy as np
from libc.stdint cimport uint64_t
from fastfair._core cimport (
    ff_fast_init, ff_fast_t, ff_next_u32, ff_shuffle_intp, ff_stream_init, ff_stream_t,
)

def philox_words(uint64_t key, unsigned int stream_id, uint64_t index, Py_ssize_t n):
    cdef ff_stream_t s
    ff_stream_init(&s, key, stream_id, index)
    return np.array([ff_next_u32(&s.philox) for _ in range(n)], dtype=np.uint32)

def permutation(Py_ssize_t n, uint64_t key, unsigned int stream_id, uint64_t index):
    out = np.arange(n, dtype=np.intp)
    cdef Py_ssize_t[::1] o = out
    cdef ff_fast_t s
    ff_fast_init(&s, key, stream_id, index)
    ff_shuffle_intp(&s, &o[0], n)
    return out
"""

include = pathlib.Path(fastfair.get_include())
for name in ("_core.pxd", "ff_random.h", "ff_sampling.h", "ff_rates.h"):
    assert (include / name).is_file(), f"{name} is not installed in {include}"
work = pathlib.Path(tempfile.mkdtemp())
(work / "demo.pyx").write_text(DEMO)
subprocess.run([sys.executable, "-m", "cython", "demo.pyx", "-o", "demo.c"], cwd=work, check=True)
cc = shlex.split(sysconfig.get_config_var("CC"))
ccshared = shlex.split(sysconfig.get_config_var("CCSHARED") or "")
ldshared = shlex.split(sysconfig.get_config_var("LDSHARED"))
includes = [include, np.get_include(), sysconfig.get_paths()["include"]]
subprocess.run(
    [*cc, *ccshared, "-O2", *(f"-I{d}" for d in includes), "-c", "demo.c", "-o", "demo.o"],
    cwd=work,
    check=True,
)
so = "demo" + sysconfig.get_config_var("EXT_SUFFIX")
subprocess.run([*ldshared, "demo.o", "-o", so], cwd=work, check=True)
spec = importlib.util.spec_from_file_location("demo", work / so)
demo = importlib.util.module_from_spec(spec)
spec.loader.exec_module(demo)

from fastfair import _counts, _means  # noqa: E402

assert np.array_equal(demo.philox_words(7, 3, 11, 40), _counts.philox_words(7, 3, 11, 40))
expected = _means.permutation_indices(25, 5, 4, 99, 2)
for b in range(4):
    assert np.array_equal(demo.permutation(25, 99, 2, 5 + b), expected[b])
print(f"downstream Cython extension built against {include}: streams match fastfair's")
