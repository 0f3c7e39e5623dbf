"""The shared sampling helpers of csrc/ff_sampling.h.

Known answers: the random streams of the kernels built on Floyd's subsets and Fisher-Yates
shuffles, recorded before the kernels' private copies were replaced by the shared helpers.
They pin the draw order, including paths the golden results do not reach (sparse subsets).
The portable bit scans are checked by compiling the header's plain-C fallback.
"""

import pathlib
import shlex
import subprocess
import sysconfig

import numpy as np
import pytest

from fastfair import _means

CSRC = pathlib.Path(__file__).resolve().parents[1] / "csrc"

# subset_sums(2.0 ** arange(50), k, 3, key=12345, stream_id=6, n_threads=1, start=2): the
# sum of powers of two names the rows drawn. k = 1: sparse Floyd (rows gathered directly);
# k = 3: Floyd then the sweep; k = 20: the dense sampler.
SUBSETS = {
    1: [[21], [22], [15]],
    3: [[19, 20, 31], [21, 22, 41], [6, 11, 15]],
    20: [
        [1, 4, 8, 10, 11, 12, 17, 20, 21, 22, 28, 33, 34, 38, 39, 43, 44, 45, 46, 47],
        [2, 7, 9, 10, 11, 13, 15, 17, 18, 19, 23, 27, 31, 34, 35, 38, 42, 43, 47, 48],
        [0, 3, 4, 5, 8, 12, 13, 14, 15, 18, 22, 23, 26, 27, 32, 34, 38, 40, 44, 49],
    ],
}


@pytest.mark.parametrize("k", sorted(SUBSETS))
def test_subset_stream_known_answer(k):
    sums = _means.subset_sums(2.0 ** np.arange(50), k, 3, 12345, 6, 1, 2)
    rows = [[i for i in range(50) if int(s) >> i & 1] for s in sums[:, 0]]
    assert rows == SUBSETS[k]


def test_shuffle_and_bounded_streams_known_answer():
    assert _means.permutation_indices(10, 0, 3, 12345, 6).tolist() == [
        [6, 7, 5, 1, 4, 2, 8, 3, 9, 0],
        [0, 6, 4, 3, 7, 9, 2, 1, 8, 5],
        [6, 9, 0, 7, 8, 2, 1, 5, 3, 4],
    ]
    assert _means.bootstrap_indices(7, 10, 0, 2, 12345, 6).tolist() == [
        [0, 0, 3, 0, 3, 6, 3, 6, 3, 1],
        [3, 6, 1, 2, 6, 2, 6, 3, 4, 6],
    ]


BIT_SCANS = r"""
#include <Python.h>
#include <stdio.h>
#include "ff_sampling.h"
int main(void)
{
    unsigned long long x;
    while (scanf("%llu", &x) == 1) printf("%d %d\n", ff_ctz64(x), ff_popcount64(x));
    return 0;
}
"""


@pytest.mark.parametrize("plain_c", [True, False], ids=["plain-C fallback", "compiler"])
def test_bit_scans(tmp_path, plain_c):
    """ff_ctz64 / ff_popcount64 against Python on every single bit and random words."""
    import numpy

    source = tmp_path / "bits.c"
    source.write_text(BIT_SCANS)
    exe = tmp_path / "bits"
    cc = shlex.split(sysconfig.get_config_var("CC") or "cc")
    flags = ["-DFF_PLAIN_C_BITS"] if plain_c else []
    includes = [CSRC, numpy.get_include(), sysconfig.get_paths()["include"]]
    subprocess.run(
        [*cc, "-std=c11", *flags, *(f"-I{d}" for d in includes), str(source), "-o", str(exe)],
        check=True,
        capture_output=True,
    )
    rng = np.random.default_rng(0)
    words = [1 << i for i in range(64)] + [(1 << 64) - 1]
    words += [int(w) for w in rng.integers(1, 2**63, 200, dtype=np.int64)]
    words += [int(w) << 7 | 1 << 63 for w in rng.integers(1, 2**40, 50, dtype=np.int64)]
    run = subprocess.run(
        [str(exe)], input=" ".join(map(str, words)), capture_output=True, text=True, check=True
    )
    got = [tuple(map(int, line.split())) for line in run.stdout.splitlines()]
    expected = [((w & -w).bit_length() - 1, bin(w).count("1")) for w in words]
    assert got == expected
