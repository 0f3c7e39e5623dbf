"""Row-level permutation kernels for means and correlations (fastfair.resampling).

subset_sums: a difference of means between two groups depends on a permutation only
through the sums of v and v^2 over the rows the smaller group receives (the other group's
sums follow from the totals), so permutation b draws a uniform random k-subset of rows into
a per-thread bitmap and sweeps it in row order. Sparse subsets (k < n/16) are drawn by
Floyd's algorithm (k draws); dense ones by setting every row with probability m / 2^L
(L random 64-bit words decide 64 rows at once, by a bit-sliced comparison u < m) and then
removing or adding uniformly random rows until exactly k are set. Both procedures commute
with any relabelling of the rows, so the subset is uniform over all k-subsets.

corr_sums: Pearson's r and the studentized statistic of DiCiccio & Romano (2017) depend
on a permutation of e against x only through sum x_i e_pi(i) and sum x_i^2 e_pi(i)^2
(centred values; the means and variances do not change), so permutation b shuffles e by
Fisher-Yates and takes the two sums.

Permutation b uses only the random stream (key, stream_id, start + b): results do not depend
on the thread count.
"""
import numpy as np

from cython.parallel cimport parallel, prange
from libc.stdint cimport uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy

from _core cimport (
    ff_ctz64, ff_fast_bounded_u32, ff_fast_init, ff_fast_t, ff_fast_u64, ff_floyd_bits,
    ff_popcount64, ff_shuffle_f64, ff_shuffle_intp,
)

cdef enum:
    SWEEP_WORDS = 256  # bitmap words (16384 rows, 128 KB of v) per block of the sweep


def dense_threshold(Py_ssize_t n, Py_ssize_t k):
    """(m, L): rows are first kept with probability m / 2^L ~ k / n (m odd, L >= 1).

    Chosen to minimise the random words drawn: L - (trailing zero bits of m) words per 64
    rows, plus about n |k/n - m/2^L| / min(q, 1 - q) draws to correct the count.
    """
    p = (<double> k) / (<double> n)
    best = None
    for levels in range(1, 25):
        m = min(max(int(round(p * (1 << levels))), 1), (1 << levels) - 1)
        lev = levels
        while m % 2 == 0:
            m //= 2
            lev -= 1
        q = m / (1 << lev)
        cost = lev * n / 64.0 + 1.5 * n * abs(p - q) / min(q, 1.0 - q)
        if best is None or cost < best[0]:
            best = (cost, m, lev)
    return best[1], best[2]


cdef inline Py_ssize_t _dense_subset(uint64_t *bits, Py_ssize_t n, Py_ssize_t k,
                                     uint64_t m, int levels, ff_fast_t *stream) noexcept nogil:
    """Fill `bits` with a uniform k-subset of 0..n-1 (bits must start cleared)."""
    cdef Py_ssize_t words = (n + 63) >> 6, word, count = 0
    cdef uint64_t lt, eq, r
    cdef int lev
    cdef uint32_t t
    for word in range(words):
        lt = 0
        eq = ~(<uint64_t> 0)
        for lev in range(levels - 1, -1, -1):
            r = ff_fast_u64(stream)
            if (m >> lev) & 1:
                lt = lt | (eq & ~r)
                eq = eq & r
            else:
                eq = eq & ~r
        if word == words - 1 and (n & 63):
            lt = lt & (((<uint64_t> 1) << (n & 63)) - 1)
        bits[word] = lt
        count += ff_popcount64(lt)
    while count > k:
        t = ff_fast_bounded_u32(stream, <uint32_t> n)
        if (bits[t >> 6] >> (t & 63)) & 1:
            bits[t >> 6] &= ~((<uint64_t> 1) << (t & 63))
            count -= 1
    while count < k:
        t = ff_fast_bounded_u32(stream, <uint32_t> n)
        if not (bits[t >> 6] >> (t & 63)) & 1:
            bits[t >> 6] |= (<uint64_t> 1) << (t & 63)
            count += 1
    return count


def subset_sums(const double[::1] v, Py_ssize_t k, Py_ssize_t n_permutations,
                uint64_t key, unsigned int stream_id, int n_threads=1, Py_ssize_t start=0):
    """Sums of v and v^2 over a uniform random k-subset of rows, per permutation.

    Returns an (n_permutations, 2) array. Permutation b draws from stream
    (key, stream_id, start + b). Requires 0 < k <= n < 2^32.
    """
    cdef Py_ssize_t n = v.shape[0]
    if not 0 < k <= n or n >= (<Py_ssize_t> 1) << 32:
        raise ValueError("subset_sums needs 0 < k <= n < 2^32")
    cdef Py_ssize_t words = (n + 63) >> 6
    cdef bint dense = 16 * k >= n
    cdef bint sparse = 32 * k < n
    m_py, levels_py = dense_threshold(n, k)
    cdef uint64_t m = m_py
    cdef int levels = levels_py
    # Permutations are processed in groups that share each pass over v: the bitmaps of a
    # group are drawn first, then v is swept block by block (a block stays in cache while
    # every bitmap of the group reads it), which divides the memory traffic of dense subsets
    # by the group size. Each permutation still sums its rows in row order.
    cdef Py_ssize_t stride = words + 1
    cdef Py_ssize_t group = 1 if sparse else max(1, min(8, ((<Py_ssize_t> 1) << 21) // stride))
    cdef Py_ssize_t n_groups = (n_permutations + group - 1) // group
    out = np.empty((n_permutations, 2), dtype=np.float64)
    cdef double[:, ::1] o = out
    cdef Py_ssize_t gi, b0, count, p, blk, blk_end, j, word, bit
    cdef uint64_t bits
    cdef double acc, acc2, accb, acc2b, x
    cdef uint64_t *taken
    cdef uint64_t *mine
    cdef uint32_t *chosen
    cdef double *sums
    cdef ff_fast_t *stream
    with nogil, parallel(num_threads=n_threads):
        taken = <uint64_t *> calloc(stride * group, sizeof(uint64_t))
        chosen = <uint32_t *> malloc(((k if sparse else 0) + 1) * sizeof(uint32_t))
        sums = <double *> malloc(2 * group * sizeof(double))
        stream = <ff_fast_t *> malloc(sizeof(ff_fast_t))
        for gi in prange(n_groups, schedule='static'):
            b0 = gi * group
            count = min(group, n_permutations - b0)
            for p in range(count):
                mine = taken + p * stride
                ff_fast_init(stream, key, stream_id, <uint64_t> (start + b0 + p))
                if dense:
                    _dense_subset(mine, n, k, m, levels, stream)
                else:
                    # Floyd: a uniform k-subset of 0..n-1 with k draws.
                    ff_floyd_bits(stream, mine, 0, n, k, chosen if sparse else NULL)
                sums[2 * p] = 0.0
                sums[2 * p + 1] = 0.0
            if sparse:
                # Very few rows (group = 1): gather them directly, no sweep.
                acc = 0.0
                acc2 = 0.0
                for j in range(k):
                    x = v[chosen[j]]
                    acc = acc + x
                    acc2 = acc2 + x * x
                    taken[chosen[j] >> 6] = 0
                o[b0, 0] = acc
                o[b0, 1] = acc2
                continue
            blk = 0
            while blk < words:
                blk_end = min(blk + SWEEP_WORDS, words)
                for p in range(count):
                    mine = taken + p * stride
                    acc = sums[2 * p]
                    acc2 = sums[2 * p + 1]
                    # Two accumulator pairs (alternate set bits) halve the add latency chain.
                    accb = 0.0
                    acc2b = 0.0
                    for word in range(blk, blk_end):
                        bits = mine[word]
                        mine[word] = 0
                        while bits:
                            bit = ff_ctz64(bits)
                            bits = bits & (bits - 1)
                            x = v[word * 64 + bit]
                            acc = acc + x
                            acc2 = acc2 + x * x
                            if bits:
                                bit = ff_ctz64(bits)
                                bits = bits & (bits - 1)
                                x = v[word * 64 + bit]
                                accb = accb + x
                                acc2b = acc2b + x * x
                    sums[2 * p] = acc + accb
                    sums[2 * p + 1] = acc2 + acc2b
                blk = blk_end
            for p in range(count):
                o[b0 + p, 0] = sums[2 * p]
                o[b0 + p, 1] = sums[2 * p + 1]
        free(taken)
        free(chosen)
        free(sums)
        free(stream)
    return out


def corr_sums(const double[::1] x, const double[::1] e, Py_ssize_t n_permutations,
              uint64_t key, unsigned int stream_id, int n_threads=1, Py_ssize_t start=0):
    """sum x_i e_pi(i) and sum x_i^2 e_pi(i)^2 for random permutations pi of e.

    Returns an (n_permutations, 2) array; permutation b draws from stream
    (key, stream_id, start + b).
    """
    cdef Py_ssize_t n = x.shape[0]
    if e.shape[0] != n or n >= (<Py_ssize_t> 1) << 32:
        raise ValueError("corr_sums needs x and e of the same length < 2^32")
    out = np.empty((n_permutations, 2), dtype=np.float64)
    cdef double[:, ::1] o = out
    cdef Py_ssize_t b, i
    cdef double acc, acc2, prod
    cdef double *buf
    cdef ff_fast_t *stream
    with nogil, parallel(num_threads=n_threads):
        buf = <double *> malloc((n + 1) * sizeof(double))
        stream = <ff_fast_t *> malloc(sizeof(ff_fast_t))
        for b in prange(n_permutations, schedule='static'):
            ff_fast_init(stream, key, stream_id, <uint64_t> (start + b))
            memcpy(buf, &e[0], n * sizeof(double))
            ff_shuffle_f64(stream, buf, n)
            acc = 0.0
            acc2 = 0.0
            for i in range(n):
                prod = x[i] * buf[i]
                acc = acc + prod
                acc2 = acc2 + prod * prod
            o[b, 0] = acc
            o[b, 1] = acc2
        free(buf)
        free(stream)
    return out


cdef _index_rows(Py_ssize_t n, Py_ssize_t size, Py_ssize_t start, Py_ssize_t count,
                 uint64_t key, unsigned int stream_id, bint replace):
    """(count, size) rows of positions in 0..n-1, row b from stream (key, stream_id,
    start + b): draws with replacement, or a random permutation (size = n) by a shuffle."""
    out = np.empty((count, size), dtype=np.intp)
    cdef Py_ssize_t[:, ::1] o = out
    cdef Py_ssize_t b, i
    cdef ff_fast_t stream
    with nogil:
        for b in range(count):
            ff_fast_init(&stream, key, stream_id, <uint64_t> (start + b))
            if replace:
                for i in range(size):
                    o[b, i] = ff_fast_bounded_u32(&stream, <uint32_t> n)
            else:
                for i in range(size):
                    o[b, i] = i
                if size > 1:
                    ff_shuffle_intp(&stream, &o[b, 0], size)
    return out


def permutation_indices(Py_ssize_t n, Py_ssize_t start, Py_ssize_t count, uint64_t key,
                        unsigned int stream_id):
    """(count, n) random permutations of 0..n-1; row b from stream (key, stream_id, start+b)."""
    if n >= (<Py_ssize_t> 1) << 32:
        raise ValueError("permutation_indices needs n < 2^32")
    return _index_rows(n, n, start, count, key, stream_id, False)


def bootstrap_indices(Py_ssize_t n, Py_ssize_t size, Py_ssize_t start, Py_ssize_t count,
                      uint64_t key, unsigned int stream_id):
    """(count, size) draws with replacement from 0..n-1; row b from (key, stream_id, start+b)."""
    if not 0 < n < (<Py_ssize_t> 1) << 32:
        raise ValueError("bootstrap_indices needs 0 < n < 2^32")
    return _index_rows(n, size, start, count, key, stream_id, True)
