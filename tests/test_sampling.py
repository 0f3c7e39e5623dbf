"""The shared sampling helpers of csrc/ff_sampling.h and the portable C fallbacks.

Known answers: the random streams of the kernels built on Floyd's subsets and Fisher-Yates
shuffles, recorded before the kernels' private copies were replaced by the shared helpers.
They pin the draw order, including paths the golden results do not reach (sparse subsets).
The portable bit scans (ff_sampling.h) and 128-bit integers (ff_int128.h) are checked by
compiling each header both ways, the compiler's builtins and the plain-C fallback, against
Python's integers.
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


def _run_c(tmp_path, source: str, flags: list[str], stdin: str) -> str:
    """Compile `source` (C11, with csrc/, numpy's and Python's headers) and run it."""
    import numpy

    path = tmp_path / "main.c"
    path.write_text(source)
    exe = tmp_path / "main"
    cc = shlex.split(sysconfig.get_config_var("CC") or "cc")
    includes = [CSRC, numpy.get_include(), sysconfig.get_paths()["include"]]
    command = [*cc, "-std=c11", *flags, *(f"-I{d}" for d in includes), str(path)]
    subprocess.run(
        [*command, "-o", str(exe), "-lm"],
        check=True,
        capture_output=True,
    )
    return subprocess.run(
        [str(exe)], input=stdin, capture_output=True, text=True, check=True
    ).stdout


@pytest.mark.parametrize("plain_c", [True, False], ids=["plain-C fallback", "compiler"])
def test_bit_scans(tmp_path, plain_c):
    """ff_ctz64 / ff_popcount64 against Python on every single bit and random words."""
    rng = np.random.default_rng(0)
    words = [1 << i for i in range(64)] + [(1 << 64) - 1]
    words += [int(w) for w in rng.integers(1, 2**63, 200, dtype=np.int64)]
    words += [int(w) << 7 | 1 << 63 for w in rng.integers(1, 2**40, 50, dtype=np.int64)]
    flags = ["-DFF_PLAIN_C_BITS"] if plain_c else []
    out = _run_c(tmp_path, BIT_SCANS, flags, " ".join(map(str, words)))
    got = [tuple(map(int, line.split())) for line in out.splitlines()]
    expected = [((w & -w).bit_length() - 1, bin(w).count("1")) for w in words]
    assert got == expected


INT128 = r"""
#include <stdio.h>
#include "ff_int128.h"
/* One operation per input line: op and four 64-bit words (hex), the operands
 * x = (w0 << 64) + w1, y = (w2 << 64) + w3, a = w1, b = w3 (as int64). */
static ff_i128 make(unsigned long long hi, unsigned long long lo)
{
#if FF_INT128_NATIVE
    return (ff_i128)(((unsigned __int128)hi << 64) | lo);
#else
    ff_i128 r = {lo, hi};
    return r;
#endif
}
static void print(ff_i128 r)
{
#if FF_INT128_NATIVE
    printf("%llx %llx\n", (unsigned long long)((unsigned __int128)r >> 64), (unsigned long long)r);
#else
    printf("%llx %llx\n", (unsigned long long)r.hi, (unsigned long long)r.lo);
#endif
}
int main(void)
{
    int op;
    unsigned long long w0, w1, w2, w3;
    printf("%d\n", FF_INT128_NATIVE);
    while (scanf("%d %llx %llx %llx %llx", &op, &w0, &w1, &w2, &w3) == 5) {
        ff_i128 x = make(w0, w1), y = make(w2, w3);
        long long a = (long long)w1, b = (long long)w3;
        switch (op) {
        case 0: print(x); break;
        case 1: print(ff_i128_mul(a, b)); break;
        case 2: print(ff_i128_add(x, y)); break;
        case 3: print(ff_i128_sub(x, y)); break;
        case 4: print(ff_i128_scale(x, b)); break;
        default: printf("%a\n", ff_i128_to_double(x));
        }
    }
    return 0;
}
"""


def _int128_cases():
    """(op, x, y, a, b, expected) with every result inside the signed 128-bit range."""
    rng = np.random.default_rng(3)
    edge64 = [0, 1, -1, 2, -2, 2**31, -(2**32) + 1, 2**53 + 1, 2**62, 2**63 - 1, -(2**63)]
    rand64 = [int(v) for v in rng.integers(-(2**63), 2**63 - 1, 40, dtype=np.int64)]
    wide = [0, 1, -1, 2**64, -(2**64), 2**127 - 1, -(2**127), 2**96 + 12345, -(2**100) - 7]
    wide += [int(a) * 2**64 + int(b) for a, b in rng.integers(-(2**62), 2**62, (40, 2))]
    small = [int(v) for v in rng.integers(-(2**20), 2**20, 20)] + [0, 1, -1, 2, -2]
    cases = [(0, x, 0, 0, 0, x) for x in wide]
    cases += [(1, 0, 0, a, b, a * b) for a in edge64 + rand64[:10] for b in edge64 + rand64[10:20]]
    pairs = [(x, y) for x in wide for y in wide[:12]] + list(zip(wide, reversed(wide)))
    cases += [(op, x, y, 0, 0, x + y if op == 2 else x - y) for x, y in pairs for op in (2, 3)]
    cases += [(4, x, 0, 0, b, x * b) for x in wide + edge64 for b in small + edge64]
    # conversion: powers of two, ties to even (odd and even below), sticky bits, random
    to_double = wide + edge64 + rand64
    for k in range(1, 75):
        for m in (2**53 + 1, 2**53 + 3, 2**54 - 1, 2**53 - 1):
            to_double += [m << k, (m << k) + 1, (m << k) - 1, -(m << k)]
    to_double += [2**64 - 1, 2**64 + 2**11, 2**117 + 2**64 + 1, (2**53 - 1) << 74]
    cases = [c for c in cases if -(2**127) <= c[5] < 2**127]
    return cases + [(5, x, 0, 0, 0, float(x)) for x in to_double if -(2**127) <= x < 2**127]


@pytest.mark.parametrize("portable", [True, False], ids=["two 64-bit halves", "compiler"])
def test_int128(tmp_path, portable):
    """ff_int128.h against Python's integers: exact sums and products, and the conversion
    to double rounded to nearest, ties to even (as float(int) rounds)."""
    cases = _int128_cases()
    lines = []
    for op, x, y, a, b, _ in cases:
        words = [x >> 64, x, y >> 64, y] if op != 1 else [0, a, 0, b]
        if op == 4:
            words[3] = b
        lines.append(f"{op} " + " ".join(f"{w % 2**64:x}" for w in words))
    flags = ["-DFF_PORTABLE_INT128"] if portable else []
    out = _run_c(tmp_path, INT128, flags, "\n".join(lines)).splitlines()
    assert out[0] == ("0" if portable else "1")
    for (op, *_, expected), line in zip(cases, out[1:], strict=True):
        if op == 5:
            assert float.fromhex(line) == expected, (op, expected, line)
        else:
            hi, lo = (int(w, 16) for w in line.split())
            value = (hi << 64) + lo
            assert value - (value >> 127 << 128) == expected, (op, expected, line)
