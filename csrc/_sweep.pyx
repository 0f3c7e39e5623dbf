"""Threshold sweeps of outcome rates: counts at every threshold and joint permutations.

Convention: a row is predicted positive at threshold t when score >= t. Each row falls in
one score bin between consecutive thresholds t_0 < ... < t_{K-1} (found by binary search,
no sort of the rows); the counts of rows with score >= t_k per (group, label) are then
running sums over the bins from the top threshold down, updated from one threshold to the
next: one pass over the rows, O(K) for all thresholds.

Permuting group labels among the rows of a stratum (positives, negatives, or all rows)
leaves the pooled counts in every score bin [t_k, t_{k+1}) fixed; group A's counts in the
bins are then a multivariate hypergeometric draw. It is drawn as a tree of halves: the A
rows of a run of bins fall in its lower half as Hypergeometric(rows of the lower half,
rows of the upper half, A rows of the run), then each half is split in turn. K + 1 bins
take K draws, so one permutation of all K thresholds jointly costs O(K), whatever the
number of rows; and most draws are among the few rows of a small run of bins, where the
log-factorial table is in cache and the row-by-row walk is often cheapest. The same
permutation is applied at every threshold, which is what a simultaneous (max-T) band over
thresholds needs. Each permutation has its own random stream (SFC64 seeded from the
counter-based Philox stream of its index), so results do not depend on the thread count.
"""
import numpy as np

from cython.parallel cimport parallel, prange, threadid
from libc.math cimport fabs, floor, log, sqrt
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc

from _core cimport check_small_codes, ff_fast_bounded_u32, ff_fast_double, ff_fast_init, ff_fast_t


cdef double HRUA_D1 = 1.7155277699214135  # 2 sqrt(2/e)
cdef double HRUA_D2 = 0.8989161620588988  # 3 - 2 sqrt(3/e)
#: Below this many steps the row-by-row walk is cheaper than the ratio-of-uniforms sampler.
cdef int64_t WALK_STEPS = 10


def counts_above(const double[::1] score, const uint8_t[::1] code,
                 const double[::1] thresholds, Py_ssize_t n_codes, int n_threads=1):
    """Rows of each code with score >= thresholds[k]: an (K, n_codes) int64 array.

    thresholds strictly ascending (at least one); codes in 0..n_codes-1. Each thread counts its rows per
    bin (the number of thresholds <= score, by binary search); integer counts, so the
    result does not depend on n_threads. Then running sums from the top bin down.
    """
    cdef Py_ssize_t n = score.shape[0], n_thr = thresholds.shape[0]
    cdef Py_ssize_t i, lo, hi, mid
    cdef int tid
    if code.shape[0] != n:
        raise ValueError(f"code has {code.shape[0]} entries for {n} scores")
    if n_thr < 1 or (n_thr > 1 and not (np.diff(np.asarray(thresholds)) > 0).all()):
        raise ValueError("thresholds must be strictly ascending (at least one)")
    if n_threads < 1:
        raise ValueError(f"n_threads must be >= 1, got {n_threads}")
    problem = check_small_codes(code, n_codes, "code")
    if problem is not None:
        raise ValueError(problem)
    partial = np.zeros((n_threads, n_thr + 1, n_codes), dtype=np.int64)
    cdef int64_t[:, :, ::1] part = partial
    cdef double s
    with nogil, parallel(num_threads=n_threads):
        tid = threadid()
        for i in prange(n, schedule='static'):
            s = score[i]
            # lo = number of thresholds <= s, by a binary search without branches on the
            # data (the halves are always taken, the comparison only moves the base)
            lo = 0
            hi = n_thr  # the count lies in [lo, lo + hi]
            while hi > 1:
                mid = hi // 2
                lo = lo + mid if thresholds[lo + mid] <= s else lo
                hi = hi - mid
            lo = lo + 1 if thresholds[lo] <= s else lo
            part[tid, lo, code[i]] += 1
    per_bin = partial.sum(axis=0)
    return np.cumsum(per_bin[::-1], axis=0)[::-1][1:].copy()


ctypedef struct _node_t:
    # One split of the tree of score bins: `left` of the node's `total` rows lie in its lower
    # half of bins. Shared by every permutation; the constants are those of the
    # ratio-of-uniforms sampler that do not depend on the number of A rows in the node.
    int64_t left
    int64_t total
    int64_t small       # min(left, total - left)
    int64_t large       # max(left, total - left)
    double p            # small / total
    double pq           # p (1 - p) / (total - 1)


cdef inline int64_t _walk(ff_fast_t *s, int64_t good, int64_t bad, int64_t sample) noexcept nogil:
    """Hypergeometric(good, bad, sample): take min(sample, good + bad - sample) rows one by
    one, each good with probability (good left)/(rows left) (numpy's sampler for small
    samples, with an unbiased integer draw per row; good + bad < 2^32)."""
    cdef int64_t total = good + bad
    cdef bint complement = 2 * sample > total
    cdef int64_t draws = total - sample if complement else sample
    cdef int64_t rows = total, good_left = good
    while draws > 0 and good_left > 0 and rows > good_left:
        if ff_fast_bounded_u32(s, <uint32_t> rows) < good_left:
            good_left -= 1
        rows -= 1
        draws -= 1
    if rows == good_left:  # only good rows left: the remaining draws take them
        good_left -= draws
    return good_left if complement else good - good_left


cdef inline int64_t _hrua(ff_fast_t *s, const double *logfact, const _node_t *nd,
                          int64_t n) noexcept nogil:
    """Hypergeometric(nd.small, nd.large, n), n <= total / 2, by Stadlober's ratio of
    uniforms (HRUA; numpy's algorithm for samples >= 10) with log-factorials from a table."""
    cdef int64_t lo = nd.small, hi = nd.large, k
    cdef double a = n * nd.p + 0.5
    cdef double c = sqrt((<double> (nd.total - n)) * n * nd.pq + 0.5)
    cdef double h = HRUA_D1 * c + HRUA_D2
    cdef int64_t m = <int64_t> floor((n + 1.0) * (lo + 1.0) / (nd.total + 2.0))
    cdef double g = logfact[m] + logfact[lo - m] + logfact[n - m] + logfact[hi - n + m]
    cdef double bound = floor(a + 16 * c)
    cdef double u, v, x, t
    if n + 1.0 < bound:
        bound = n + 1.0
    if lo + 1.0 < bound:
        bound = lo + 1.0
    while True:
        u = ff_fast_double(s)
        v = ff_fast_double(s)
        x = a + h * (v - 0.5) / u
        if x < 0.0 or x >= bound:
            continue
        k = <int64_t> floor(x)
        t = g - (logfact[k] + logfact[lo - k] + logfact[n - k] + logfact[hi - n + k])
        if u * (4.0 - u) - 3.0 <= t:
            return k
        if u * (u - t) >= 1.0:
            continue
        if 2.0 * log(u) <= t:
            return k


cdef inline int64_t _node_draw(ff_fast_t *s, const double *logfact, const _node_t *nd,
                               int64_t a) noexcept nogil:
    """A rows in the node's lower half when `a` of its rows are A's: exactly
    Hypergeometric(left, total - left, a). The row-by-row walk when it takes fewer than 10
    steps, else the ratio-of-uniforms sampler."""
    cdef int64_t total = nd.total, left = nd.left, n, k
    if a == 0 or left == 0:
        return 0
    if left == total:
        return a
    if a == total:
        return left
    n = a if 2 * a <= total else total - a
    if nd.small < WALK_STEPS and nd.small <= n:
        return _walk(s, a, total - a, left)  # the same law, left and a swapped
    if n < WALK_STEPS:
        return _walk(s, left, total - left, a)
    k = _hrua(s, logfact, nd, n)
    if left > total - left:
        k = n - k
    if n < a:
        k = left - k
    return k


cdef void _set_node(_node_t *nd, int64_t left, int64_t total) noexcept nogil:
    nd.left = left
    nd.total = total
    nd.small = left if 2 * left <= total else total - left
    nd.large = total - nd.small
    nd.p = (<double> nd.small) / total if total > 0 else 0.0
    nd.pq = nd.p * (<double> nd.large) / total / (total - 1) if total > 1 else 0.0


cdef void _build(_node_t *nodes, const int64_t *start, Py_ssize_t lo, Py_ssize_t hi,
                 Py_ssize_t node) noexcept nogil:
    """Nodes of the bins [lo, hi) in preorder: node, its lower half, then its upper half
    (the lower half of n bins has n - 1 nodes)."""
    cdef Py_ssize_t mid = (lo + hi) // 2
    if hi - lo < 2:
        return
    _set_node(&nodes[node], start[mid] - start[lo], start[hi] - start[lo])
    _build(nodes, start, lo, mid, node + 1)
    _build(nodes, start, mid, hi, node + mid - lo)


cdef void _split(ff_fast_t *s, const double *logfact, const _node_t *nodes,
                 const int64_t *start, int64_t *out, Py_ssize_t lo, Py_ssize_t hi,
                 Py_ssize_t node, int64_t a) noexcept nogil:
    """Spread `a` A rows over the bins [lo, hi) (start: cumulative bin sizes) as a uniformly
    random choice of `a` of their rows would: out[j] = A rows in bin j."""
    cdef Py_ssize_t j, mid
    cdef int64_t x
    if hi - lo == 1:
        out[lo] = a
        return
    if a == 0 or a == start[hi] - start[lo]:
        for j in range(lo, hi):
            out[j] = 0 if a == 0 else start[j + 1] - start[j]
        return
    mid = (lo + hi) // 2
    x = _node_draw(s, logfact, &nodes[node], a)
    _split(s, logfact, nodes, start, out, lo, mid, node + 1, x)
    _split(s, logfact, nodes, start, out, mid, hi, node + mid - lo, a - x)


def permute_sweep(const int64_t[:, ::1] above, const int64_t[:, ::1] totals, int stratum,
                  int num_mask, const double[::1] scale, const double[::1] offset,
                  int orient, Py_ssize_t n_permutations, uint64_t key,
                  unsigned int stream_id, bint keep_all, const double[::1] logfact,
                  int n_threads=1, bint keep_counts=False):
    """Statistics of two groups at every threshold under joint permutations.

    above: (K, 4) observed rows with score >= t_k per code 2*g + y (g = 0 the first group
    of the comparison, g = 1 the second), thresholds ascending. totals: (2, 2) rows per
    (g, y). stratum: bit y set when group labels are permuted among the rows with label y
    (1 negatives, 2 positives, 3 all rows). The rate's numerator is the cells of num_mask
    (bit 2*y + pred: 0 TN, 1 FP, 2 FN, 3 TP) and its denominator the stratum's rows, so
    under the permutation both groups' denominators and the pooled numerator stay those
    observed at each threshold: the pooled studentized gap is affine in group A's
    numerator, T_k = num_A * scale[k] - offset[k]. orient: 0 two-sided (|T|), 1 greater
    (T), -1 less (-T). logfact: log(k!) for k = 0..rows of the
    stratum. Permutation b uses the random stream (key, stream_id, b), so results do not
    depend on n_threads.

    A permutation is drawn as the counts it gives: group A's rows in each score bin, by
    splitting the bins in halves recursively (the A rows of a node among its lower half are
    Hypergeometric(lower-half rows, upper-half rows, A rows of the node): K draws for K
    thresholds, each among the rows of one node, most of them small), then running sums
    from the top bin down.

    Returns (maxima, statistics, counts): maxima (B,) the largest oriented statistic over
    thresholds of each permutation; statistics (K, B), the oriented statistic at each
    threshold (a row per threshold), when keep_all, else None; counts
    (B, K, 2) group A's rows with score >= t_k per label when keep_counts (for tests),
    else None.
    """
    cdef Py_ssize_t n_thr = above.shape[0], n_bins = n_thr + 1
    cdef Py_ssize_t b, k
    cdef int y
    cdef int64_t n_a = totals[0, 0] + totals[0, 1]
    cdef int64_t pooled_total[2]
    cdef int64_t total0, total1, above0, above1, a_fixed
    cdef double t, best
    # Group A's numerator: coef_y * (its rows of label y with score >= t) plus its rows of
    # the labels whose predicted negatives count (a_fixed).
    cdef int64_t coef0 = ((num_mask >> 1) & 1) - (num_mask & 1)
    cdef int64_t coef1 = ((num_mask >> 3) & 1) - ((num_mask >> 2) & 1)
    cdef int64_t *bins  # per thread: A rows per bin, label 0 then label 1
    cdef ff_fast_t *stream
    cdef _node_t label_node
    above_np, totals_np = np.asarray(above), np.asarray(totals)
    if above.shape[1] != 4 or totals.shape[0] != 2 or totals.shape[1] != 2 or n_thr < 1:
        raise ValueError("above must have shape (K >= 1, 4) and totals shape (2, 2)")
    if not 1 <= stratum <= 3 or not 0 <= num_mask < 16 or orient not in (-1, 0, 1):
        raise ValueError("stratum must be 1, 2 or 3, num_mask in 0..15 and orient -1, 0 or 1")
    if scale.shape[0] != n_thr or offset.shape[0] != n_thr:
        raise ValueError("scale and offset need one entry per threshold")
    if n_permutations < 0:
        raise ValueError(f"n_permutations must be >= 0, got {n_permutations}")
    if (totals_np < 0).any() or (above_np < 0).any() or (np.diff(above_np, axis=0) > 0).any() \
            or (above_np[0, :2] > totals_np[0]).any() or (above_np[0, 2:] > totals_np[1]).any():
        raise ValueError("above must count rows with score >= t_k: non-increasing in k and "
                         "at most totals")
    for y in range(2):
        pooled_total[y] = totals[0, y] + totals[1, y]
    if pooled_total[0] + pooled_total[1] >= (<int64_t> 1) << 32:
        raise ValueError("threshold_sweep permutes fewer than 2**32 rows")
    if logfact.shape[0] <= sum(totals_np[:, y].sum() for y in (0, 1) if stratum >> y & 1):
        raise ValueError("logfact must hold log(k!) for k up to the number of rows")
    # start[y, j]: rows of label y in the bins below j; bin j holds the rows with j
    # thresholds <= score (bin K: score >= t_{K-1}).
    pooled_above = np.asarray(above)[:, :2] + np.asarray(above)[:, 2:]
    sizes = np.empty((2, n_bins), dtype=np.int64)
    sizes[:, 0] = np.asarray(pooled_total) - pooled_above[0]
    sizes[:, 1:n_thr] = (pooled_above[:n_thr - 1] - pooled_above[1:]).T
    sizes[:, n_thr] = pooled_above[n_thr - 1]
    start_arr = np.zeros((2, n_bins + 1), dtype=np.int64)
    np.cumsum(sizes, axis=1, out=start_arr[:, 1:])
    cdef const int64_t[:, ::1] start = start_arr
    node_bytes = np.zeros(2 * max(n_bins - 1, 1) * sizeof(_node_t), dtype=np.uint8)
    cdef uint8_t[::1] node_view = node_bytes
    cdef _node_t *nodes = <_node_t *> &node_view[0]
    cdef Py_ssize_t n_nodes = max(n_bins - 1, 1)
    for y in range(2):
        _build(&nodes[y * n_nodes], &start[y, 0], 0, n_bins, 0)
    _set_node(&label_node, pooled_total[0], pooled_total[0] + pooled_total[1])

    maxima = np.empty(n_permutations, dtype=np.float64)
    cdef double[::1] mx = maxima
    stats = np.empty((n_thr, n_permutations if keep_all else 1), dtype=np.float64)
    cdef double[:, ::1] st = stats
    counts = np.empty((n_permutations if keep_counts else 1, n_thr, 2), dtype=np.int64)
    cdef int64_t[:, :, ::1] ct = counts
    with nogil, parallel(num_threads=n_threads):
        bins = <int64_t *> malloc(2 * n_bins * sizeof(int64_t))
        stream = <ff_fast_t *> malloc(sizeof(ff_fast_t))
        for b in prange(n_permutations, schedule='static'):
            ff_fast_init(stream, key, stream_id, <uint64_t> b)
            # Group A's rows per label: observed, or drawn first when labels are permuted
            # over all rows (the bins of each label are then filled given that total).
            total0 = totals[0, 0]
            total1 = totals[0, 1]
            if stratum == 3:
                total0 = _node_draw(stream, &logfact[0], &label_node, n_a)
                total1 = n_a - total0
            a_fixed = (total0 if num_mask & 1 else 0) + (total1 if num_mask & 4 else 0)
            if stratum & 1:
                _split(stream, &logfact[0], &nodes[0], &start[0, 0], &bins[0], 0, n_bins, 0,
                       total0)
            if stratum & 2:
                _split(stream, &logfact[0], &nodes[n_nodes], &start[1, 0], &bins[n_bins], 0,
                       n_bins, 0, total1)
            above0 = 0
            above1 = 0
            best = -1e300
            for k in range(n_thr - 1, -1, -1):
                above0 = above0 + bins[k + 1] if stratum & 1 else above[k, 0]
                above1 = above1 + bins[n_bins + k + 1] if stratum & 2 else above[k, 1]
                if keep_counts:
                    ct[b, k, 0] = above0
                    ct[b, k, 1] = above1
                t = (<double> (a_fixed + coef0 * above0 + coef1 * above1)) * scale[k] - offset[k]
                if orient == 0:
                    t = fabs(t)
                elif orient < 0:
                    t = -t
                if keep_all:
                    st[k, b] = t
                if t > best:
                    best = t
            mx[b] = best
        free(bins)
        free(stream)
    return maxima, (stats if keep_all else None), (counts if keep_counts else None)
