"""Cell counts and count-level permutations for confusion-matrix metrics.

A confusion-matrix statistic depends on the data only through each group's four cell
counts (cell = 2*y_true + y_pred: TN, FP, FN, TP). Permuting group labels among the rows
of a stratum (all rows, one outcome, or the metric's denominator) leaves the pooled cell
counts of the stratum fixed and makes each group's counts multivariate hypergeometric
(docs/permutation.md, "Schemes"), so one permutation costs O(groups x cells), whatever the
number of rows.
"""
import numpy as np

from cython.parallel cimport parallel, prange
from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from numpy.random.c_distributions cimport random_hypergeometric

from _core cimport (
    check_codes, check_pairs, check_small_codes, check_strata, ff_metric_statistic, ff_metric_t,
    ff_next_u32, ff_stream_init, ff_stream_t, metric_from_spec, FF_OPENMP_ENABLED,
)

cdef enum:
    CHUNK = 65536  # rows per chunk of the counting pass (fixed: sums do not depend on threads)


def openmp_enabled():
    """True when the extension was compiled with OpenMP."""
    return bool(FF_OPENMP_ENABLED)


def philox_words(uint64_t key, unsigned int stream_id, uint64_t index, Py_ssize_t n):
    """First n 32-bit words of stream (key, stream_id, index); for known-answer tests."""
    cdef ff_stream_t s
    cdef Py_ssize_t i
    out = np.empty(n, dtype=np.uint32)
    cdef unsigned int[::1] o = out
    ff_stream_init(&s, key, stream_id, index)
    for i in range(n):
        o[i] = ff_next_u32(&s.philox)
    return out


def cell_sums(const uint8_t[::1] cell, const Py_ssize_t[::1] codes, Py_ssize_t n_groups,
              const double[::1] weight=None, int n_threads=1):
    """Per-group sums of weights and squared weights in each cell.

    Returns (w, w2), arrays of shape (n_groups, 4); without weights both hold counts.
    Chunks of rows are fixed and reduced in order, so floating-point sums are identical for
    any number of threads.
    """
    cdef Py_ssize_t n = cell.shape[0]
    cdef Py_ssize_t n_chunks = (n + CHUNK - 1) // CHUNK
    cdef Py_ssize_t width = n_groups * 4
    problem = check_codes(codes, n_groups, n) or check_small_codes(cell, 4, "cell")
    if problem is None and weight is not None and weight.shape[0] != n:
        problem = f"weight has {weight.shape[0]} entries for {n} rows"
    if problem is not None:
        raise ValueError(problem)
    partial = np.zeros((max(n_chunks, 1), 2, width), dtype=np.float64)
    cdef double[:, :, ::1] part = partial
    cdef Py_ssize_t k, i, start, stop, slot
    cdef bint weighted = weight is not None
    cdef double wi
    with nogil:
        for k in prange(n_chunks, num_threads=n_threads, schedule='static'):
            start = k * CHUNK
            stop = min(start + CHUNK, n)
            for i in range(start, stop):
                slot = codes[i] * 4 + cell[i]
                if weighted:
                    wi = weight[i]
                    part[k, 0, slot] += wi
                    part[k, 1, slot] += wi * wi
                else:
                    part[k, 0, slot] += 1.0
    totals = partial.sum(axis=0) if n_chunks > 1 else partial[0]
    w = totals[0].reshape(n_groups, 4).copy()
    w2 = totals[1].reshape(n_groups, 4).copy() if weighted else w.copy()
    return w, w2


def metric_statistics(const double[:, ::1] w, const double[:, ::1] w2, tuple spec,
                      const Py_ssize_t[:, ::1] pairs):
    """Statistic of each pair (a, b) for each row of cell sums.

    w and w2 have shape (m, n_groups * 4); returns an (m, n_pairs) array. Used for the
    observed statistic and for exact enumeration over many candidate tables at once.
    """
    cdef ff_metric_t metric = metric_from_spec(spec)
    cdef Py_ssize_t m = w.shape[0], n_pairs = pairs.shape[0], r, c
    if w2.shape[0] != m or w2.shape[1] != w.shape[1] or w.shape[1] % 4:
        raise ValueError("w and w2 must have the same shape (m, n_groups * 4)")
    problem = check_pairs(pairs, w.shape[1] // 4)
    if problem is not None:
        raise ValueError(problem)
    out = np.empty((m, n_pairs), dtype=np.float64)
    cdef double[:, ::1] o = out
    with nogil:
        for r in range(m):
            for c in range(n_pairs):
                o[r, c] = ff_metric_statistic(&metric, &w[r, 0], &w2[r, 0],
                                              <int>pairs[c, 0], <int>pairs[c, 1])
    return out


def permute_counts(const int64_t[:, ::1] counts, tuple strata, tuple spec,
                   const Py_ssize_t[:, ::1] pairs, Py_ssize_t n_permutations,
                   uint64_t key, unsigned int stream_id, int n_threads=1, Py_ssize_t start=0):
    """Statistics of `pairs` under random permutations of group labels within strata.

    counts: (n_groups, 4) observed cell counts. strata: tuple of cell bit masks; rows of the
    cells of one stratum are permuted among themselves, cells outside every stratum keep their
    observed group counts. Permutation b draws group cell counts from the multivariate
    hypergeometric distribution (sequential hypergeometric draws) using the random stream
    (key, stream_id, start + b). Returns an (n_permutations, n_pairs) array.
    """
    cdef Py_ssize_t n_groups = counts.shape[0], n_pairs = pairs.shape[0]
    cdef Py_ssize_t width = n_groups * 4
    cdef int n_strata = len(strata)
    cdef int[4] masks
    cdef ff_metric_t metric = metric_from_spec(spec)
    cdef Py_ssize_t b, g, c, p
    cdef int s, last_cell
    cdef int64_t need, pool_total, x
    cdef int64_t *pool
    cdef double *table
    cdef ff_stream_t *stream
    problem = check_strata(strata) or check_pairs(pairs, n_groups)
    if problem is None and counts.shape[1] != 4:
        problem = f"counts must have shape (n_groups, 4), got (., {counts.shape[1]})"
    if problem is None and n_permutations < 0:
        problem = f"n_permutations must be >= 0, got {n_permutations}"
    if problem is None and (np.asarray(counts) < 0).any():
        problem = "counts must be non-negative"
    if problem is not None:
        raise ValueError(problem)
    for s in range(n_strata):
        masks[s] = strata[s]
    observed = np.ascontiguousarray(counts, dtype=np.float64).ravel()
    cdef double[::1] obs = observed
    out = np.empty((n_permutations, n_pairs), dtype=np.float64)
    cdef double[:, ::1] o = out
    with nogil, parallel(num_threads=n_threads):
        table = <double *> malloc(width * sizeof(double))
        stream = <ff_stream_t *> malloc(sizeof(ff_stream_t))
        pool = <int64_t *> malloc(4 * sizeof(int64_t))
        for b in prange(n_permutations, schedule='static'):
            ff_stream_init(stream, key, stream_id, <uint64_t> (start + b))
            memcpy(table, &obs[0], width * sizeof(double))
            for s in range(n_strata):
                for c in range(4):
                    pool[c] = 0
                    if masks[s] & (1 << c):
                        for g in range(n_groups):
                            pool[c] += counts[g, c]
                last_cell = -1
                for c in range(4):
                    if masks[s] & (1 << c):
                        last_cell = c
                for g in range(n_groups - 1):
                    need = 0
                    pool_total = 0
                    for c in range(4):
                        if masks[s] & (1 << c):
                            need = need + counts[g, c]
                            pool_total = pool_total + pool[c]
                    for c in range(4):
                        if masks[s] & (1 << c):
                            if c == last_cell:
                                x = need
                            elif need == 0 or pool[c] == 0:
                                x = 0
                            else:
                                x = random_hypergeometric(
                                    &stream.bitgen, pool[c], pool_total - pool[c], need)
                            table[g * 4 + c] = <double> x
                            pool_total = pool_total - pool[c]
                            pool[c] = pool[c] - x
                            need = need - x
                for c in range(4):
                    if masks[s] & (1 << c):
                        table[(n_groups - 1) * 4 + c] = <double> pool[c]
            for p in range(n_pairs):
                o[b, p] = ff_metric_statistic(&metric, table, table,
                                              <int>pairs[p, 0], <int>pairs[p, 1])
        free(table)
        free(stream)
        free(pool)
    return out
