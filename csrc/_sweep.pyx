"""Threshold sweeps of outcome rates: counts at every threshold and joint permutations.

Convention: a row is predicted positive at threshold t when score >= t. Each row falls in
one score bin between consecutive thresholds t_0 < ... < t_{K-1} (found by binary search,
no sort of the rows); the counts of rows with score >= t_k per (group, label) are then
running sums over the bins from the top threshold down, updated from one threshold to the
next: one pass over the rows, O(K) for all thresholds.

Permuting group labels among the rows of a stratum (positives, negatives, or all rows)
leaves the pooled counts in every score bin [t_k, t_{k+1}) fixed; group A's counts in the
bins are then sequential hypergeometric draws, so one permutation of all K thresholds
jointly costs O(K): O(1) per threshold and permutation, whatever the number of rows. The
same permutation is applied at every threshold, which is what a simultaneous (max-T) band
over thresholds needs.
"""
import numpy as np

from cython.parallel cimport parallel, prange, threadid
from libc.math cimport fabs, floor, log, sqrt
from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc

from _core cimport (
    ff_metric_statistic, ff_metric_t, ff_stream_init, ff_stream_t, metric_from_spec,
    random_hypergeometric,
)


cdef double HRUA_D1 = 1.7155277699214135  # 2 sqrt(2/e)
cdef double HRUA_D2 = 0.8989161620588988  # 3 - 2 sqrt(3/e)


def counts_above(const double[::1] score, const uint8_t[::1] code,
                 const double[::1] thresholds, Py_ssize_t n_codes, int n_threads=1):
    """Rows of each code with score >= thresholds[k]: an (K, n_codes) int64 array.

    thresholds strictly ascending; codes in 0..n_codes-1. Each thread counts its rows per
    bin (the number of thresholds <= score, by binary search); integer counts, so the
    result does not depend on n_threads. Then running sums from the top bin down.
    """
    cdef Py_ssize_t n = score.shape[0], n_thr = thresholds.shape[0]
    cdef Py_ssize_t i, lo, hi, mid
    cdef int tid
    partial = np.zeros((n_threads, n_thr + 1, n_codes), dtype=np.int64)
    cdef int64_t[:, :, ::1] part = partial
    cdef double s
    with nogil, parallel(num_threads=n_threads):
        tid = threadid()
        for i in prange(n, schedule='static'):
            s = score[i]
            lo = 0
            hi = n_thr
            while lo < hi:  # lo = number of thresholds <= s
                mid = (lo + hi) // 2
                if thresholds[mid] <= s:
                    lo = mid + 1
                else:
                    hi = mid
            part[tid, lo, code[i]] += 1
    per_bin = partial.sum(axis=0)
    return np.cumsum(per_bin[::-1], axis=0)[::-1][1:].copy()


cdef inline int64_t _hrua(ff_stream_t *stream, const double *logfact, int64_t good,
                          int64_t bad, int64_t sample) noexcept nogil:
    """Hypergeometric(good, bad, sample) by Stadlober's ratio of uniforms (HRUA).

    numpy's algorithm (random_hypergeometric for sample >= 10), with the log-factorials
    read from a table instead of Stirling's series: the same exact sampler, faster here,
    where one permutation draws one count per threshold.
    """
    cdef int64_t popsize = good + bad, m, k
    cdef int64_t n = sample if sample < popsize - sample else popsize - sample
    cdef int64_t lo = good if good < bad else bad
    cdef int64_t hi = bad if good < bad else good
    cdef double p = (<double> lo) / popsize, q = (<double> hi) / popsize
    cdef double a = n * p + 0.5
    cdef double c = sqrt((<double> (popsize - n)) * n * p * q / (popsize - 1) + 0.5)
    cdef double h = HRUA_D1 * c + HRUA_D2
    cdef double bound, g, u, v, x, t
    m = <int64_t> floor((n + 1.0) * (lo + 1.0) / (popsize + 2.0))
    g = logfact[m] + logfact[lo - m] + logfact[n - m] + logfact[hi - n + m]
    bound = floor(a + 16 * c)
    if n + 1.0 < bound:
        bound = n + 1.0
    if lo + 1.0 < bound:
        bound = lo + 1.0
    while True:
        u = stream.bitgen.next_double(stream.bitgen.state)
        v = stream.bitgen.next_double(stream.bitgen.state)
        x = a + h * (v - 0.5) / u
        if x < 0.0 or x >= bound:
            continue
        k = <int64_t> floor(x)
        t = g - (logfact[k] + logfact[lo - k] + logfact[n - k] + logfact[hi - n + k])
        if u * (4.0 - u) - 3.0 <= t:
            break
        if u * (u - t) >= 1.0:
            continue
        if 2.0 * log(u) <= t:
            break
    if good > bad:
        k = n - k
    if n < sample:
        k = good - k
    return k


cdef inline int64_t _draw(ff_stream_t *stream, const double *logfact, int64_t in_bin,
                          int64_t pool, int64_t need) noexcept nogil:
    """Group A's rows among `in_bin` rows when `need` of the `pool` remaining rows are A's:
    Hypergeometric(in_bin, pool - in_bin, need), drawn as numpy does (table log-factorials
    for the ratio-of-uniforms branch)."""
    if need <= 0 or in_bin <= 0:
        return 0
    if in_bin >= pool:
        return need
    if need < 10 or need > pool - 10:
        return random_hypergeometric(&stream.bitgen, in_bin, pool - in_bin, need)
    return _hrua(stream, logfact, in_bin, pool - in_bin, need)


def permute_sweep(const int64_t[:, ::1] above, const int64_t[:, ::1] totals, int stratum,
                  tuple spec, int orient, Py_ssize_t n_permutations, uint64_t key,
                  unsigned int stream_id, bint keep_all, const double[::1] logfact,
                  int n_threads=1):
    """Statistics of two groups at every threshold under joint permutations.

    above: (K, 4) observed rows with score >= t_k per code 2*g + y (g = 0 the first group
    of the comparison, g = 1 the second), thresholds ascending. totals: (2, 2) rows per
    (g, y). stratum: bit y set when group labels are permuted among the rows with label y
    (1 negatives, 2 positives, 3 all rows). spec: the metric (see _core.pxd); orient: 0
    two-sided (|T|), 1 greater (T), -1 less (-T). logfact: log(k!) for k = 0..rows of the
    stratum. Permutation b uses the random stream (key, stream_id, b), so results do not
    depend on n_threads.

    Returns (maxima, statistics): maxima (B,) the largest oriented statistic over
    thresholds of each permutation; statistics (B, K) when keep_all, else None.
    """
    cdef Py_ssize_t n_thr = above.shape[0]
    cdef ff_metric_t metric = metric_from_spec(spec)
    cdef Py_ssize_t b, k
    cdef int y
    cdef int64_t n_a = totals[0, 0] + totals[0, 1]
    cdef int64_t pooled_total[2]
    cdef int64_t x, in_bin
    cdef double t, best
    cdef double *table
    cdef int64_t *state  # per label: need, pool, group A's running count, A's total
    cdef ff_stream_t *stream
    for y in range(2):
        pooled_total[y] = totals[0, y] + totals[1, y]
    maxima = np.empty(n_permutations, dtype=np.float64)
    cdef double[::1] mx = maxima
    stats = np.empty((n_permutations if keep_all else 1, n_thr), dtype=np.float64)
    cdef double[:, ::1] st = stats
    with nogil, parallel(num_threads=n_threads):
        table = <double *> malloc(8 * sizeof(double))
        state = <int64_t *> malloc(8 * sizeof(int64_t))
        stream = <ff_stream_t *> malloc(sizeof(ff_stream_t))
        for b in prange(n_permutations, schedule='static'):
            ff_stream_init(stream, key, stream_id, <uint64_t> b)
            # Group A's total per label: observed, or drawn first when labels are permuted
            # over all rows (the bins of each label are then filled given that total).
            for y in range(2):
                state[4 * y + 3] = totals[0, y]
            if stratum == 3:
                x = _draw(stream, &logfact[0], pooled_total[1],
                          pooled_total[0] + pooled_total[1], n_a)
                state[7] = x
                state[3] = n_a - x
            for y in range(2):
                state[4 * y] = state[4 * y + 3]
                state[4 * y + 1] = pooled_total[y]
                state[4 * y + 2] = 0
            best = -1e300
            for k in range(n_thr - 1, -1, -1):
                for y in range(2):
                    if stratum & (1 << y):
                        in_bin = above[k, y] + above[k, 2 + y]
                        if k + 1 < n_thr:
                            in_bin = in_bin - above[k + 1, y] - above[k + 1, 2 + y]
                        x = _draw(stream, &logfact[0], in_bin, state[4 * y + 1], state[4 * y])
                        state[4 * y] -= x
                        state[4 * y + 1] -= in_bin
                        state[4 * y + 2] += x
                    else:
                        state[4 * y + 2] = above[k, y]
                    # cells 2*y + pred: y = 0 -> TN, FP; y = 1 -> FN, TP
                    table[2 * y + 1] = <double> state[4 * y + 2]
                    table[2 * y] = <double> (state[4 * y + 3] - state[4 * y + 2])
                    table[4 + 2 * y + 1] = <double> (
                        above[k, y] + above[k, 2 + y] - state[4 * y + 2])
                    table[4 + 2 * y] = <double> (
                        pooled_total[y] - state[4 * y + 3] - table[4 + 2 * y + 1])
                t = ff_metric_statistic(&metric, table, table, 0, 1)
                if keep_all:
                    st[b, k] = t
                if orient == 0:
                    t = fabs(t)
                elif orient < 0:
                    t = -t
                if t > best:
                    best = t
            mx[b] = best
        free(table)
        free(state)
        free(stream)
    return maxima, (stats if keep_all else None)
