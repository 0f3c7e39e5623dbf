"""Paired count tables of two models on the same rows, and their swap permutations.

Each row has a label y and the binary predictions a (model A) and b (model B) of two
models; its paired cell is ``4 * y + 2 * a + b``, so a group's rows are summarised by eight
counts (docs/compare.md). Exchanging the two models' predictions within a row (the paired
permutation) leaves concordant rows (a = b) unchanged and sends a discordant row between
cells (y, 1, 0) and (y, 0, 1). Swapping each row with probability 1/2 therefore makes the
new count of cell (y, 1, 0) of a group Binomial(n_10 + n_01, 1/2), independently across
groups and labels: one draw per (group, label) per permutation, whatever the number of rows.
"""
import numpy as np

from cython.parallel cimport parallel, prange
from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc

from numpy.random.c_distributions cimport binomial_t, random_binomial

from _core cimport check_codes, check_small_codes, ff_stream_init, ff_stream_t

cdef enum:
    CHUNK = 65536  # rows per chunk of the counting pass (fixed: sums do not depend on threads)


def paired_counts(const uint8_t[::1] y, const uint8_t[::1] a, const uint8_t[::1] b,
                  const Py_ssize_t[::1] codes, Py_ssize_t n_groups, int n_threads=1):
    """Per-group counts of the eight paired cells ``4 * y + 2 * a + b``: (n_groups, 8) int64.

    Integer counts per chunk of rows, added in chunk order: identical for any thread count.
    """
    cdef Py_ssize_t n = y.shape[0]
    cdef Py_ssize_t n_chunks = (n + CHUNK - 1) // CHUNK
    cdef Py_ssize_t width = n_groups * 8
    problem = check_codes(codes, n_groups, n)
    if problem is None and (a.shape[0] != n or b.shape[0] != n):
        problem = f"y, a and b must have the same length, got {n}, {a.shape[0]}, {b.shape[0]}"
    problem = (problem or check_small_codes(y, 2, "y") or check_small_codes(a, 2, "a")
               or check_small_codes(b, 2, "b"))
    if problem is not None:
        raise ValueError(problem)
    partial = np.zeros((max(n_chunks, 1), width), dtype=np.int64)
    cdef int64_t[:, ::1] part = partial
    cdef Py_ssize_t k, i, start, stop
    with nogil:
        for k in prange(n_chunks, num_threads=n_threads, schedule='static'):
            start = k * CHUNK
            stop = min(start + CHUNK, n)
            for i in range(start, stop):
                part[k, codes[i] * 8 + 4 * y[i] + 2 * a[i] + b[i]] += 1
    return partial.sum(axis=0).reshape(n_groups, 8)


def paired_swaps(const int64_t[::1] discordant, Py_ssize_t n_permutations, uint64_t key,
                 unsigned int stream_id, int n_threads=1, Py_ssize_t start=0):
    """Swap permutations of discordant rows: an (n_permutations, S) int64 array.

    discordant[s] = n_10 + n_01 of stratum s (a group and a label). Entry (b, s) is the count
    of cell (y, 1, 0) of stratum s after swapping each discordant row with probability 1/2
    in permutation ``start + b``: Binomial(discordant[s], 1/2) drawn from the stream
    (key, stream_id, start + b), so permutation b is the same on any thread.
    """
    cdef Py_ssize_t n_strata = discordant.shape[0], p, s
    cdef ff_stream_t *stream
    cdef binomial_t *binomial
    if n_permutations < 0:
        raise ValueError(f"n_permutations must be >= 0, got {n_permutations}")
    if (np.asarray(discordant) < 0).any():
        raise ValueError("discordant counts must be non-negative")
    out = np.zeros((n_permutations, n_strata), dtype=np.int64)
    cdef int64_t[:, ::1] o = out
    with nogil, parallel(num_threads=n_threads):
        stream = <ff_stream_t *> malloc(sizeof(ff_stream_t))
        binomial = <binomial_t *> malloc(sizeof(binomial_t))
        for p in prange(n_permutations, schedule='static'):
            ff_stream_init(stream, key, stream_id, <uint64_t> (start + p))
            binomial.has_binomial = 0
            for s in range(n_strata):
                if discordant[s] > 0:
                    o[p, s] = random_binomial(&stream.bitgen, 0.5, discordant[s], binomial)
        free(stream)
        free(binomial)
    return out
