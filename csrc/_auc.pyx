"""AUC and DeLong placements from one sort; group-label permutations as linear sweeps.

Rows are sorted once by score (fast DeLong, Sun & Xu 2014). In sorted order a row is
described by one byte, `packed` = label | TIED (TIED: same score as the next row), and a
group code. Group codes are stored in "label space": the codes of the positives in sorted
order, then those of the negatives, so a permutation within outcome touches one contiguous
range. A sweep over the sorted rows keeps, per group, the number of negatives and positives
already passed; a row's DeLong placement in half-units (ties count one half) is

    positive: 2 * (negatives of its group below) + (negatives of its group in its tie block)
    negative: 2 * (positives of its group above) + (positives of its group in its tie block)

Per group and label the sweep accumulates the sum and the sum of squares of these
placements, centred at the midpoint of their range (m- for positives, m+ for negatives) to
limit cancellation. Permuting group labels does not change the pooled order, so each
permutation is one sweep: O(n) with no sort.
"""
import numpy as np

from cython.parallel cimport parallel, prange
from libc.math cimport sqrt, fabs
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from _core cimport (
    ff_count_below, ff_ctz64, ff_fast_bounded_u32, ff_fast_init, ff_fast_t, ff_floyd_bits,
    ff_i128, ff_i128_add, ff_i128_mul, ff_i128_of, ff_i128_scale, ff_i128_sub, FF_INT128_NATIVE,
)

cdef enum:
    LABEL = 1
    TIED = 2


# Exact per-permutation sums from per-tie-block counts (two groups, one drawn as a bitmap).
# In label space the positives of tie block t are indices cp_pos[t] .. cp_pos[t+1] - 1 and its
# negatives n_pos + cp_neg[t] .. n_pos + cp_neg[t+1] - 1, so the drawn group's counts per
# block are popcounts of consecutive bit ranges, and a positive of group g in block t has the
# half-unit placement 2 (g's negatives in blocks < t) + (g's negatives in t); a negative
# 2 (g's positives in blocks > t) + (g's positives in t). One pass over the blocks (and the
# bitmap's words) gives every group's sums exactly, in 64/128-bit integers.
cdef extern from *:
    """
    #include "ff_sampling.h"
    #include "ff_int128.h"
    /* A hint to fetch the cache line at p (no effect on results; a no-op elsewhere). */
    #if defined(__GNUC__) || defined(__clang__)
    #define ff_prefetch(p) __builtin_prefetch((const void *)(p))
    #else
    #define ff_prefetch(p) ((void)0)
    #endif
    typedef struct { const uint64_t *bits; int64_t w; int64_t acc; } ff_prefix_t;
    /* Set bits below index i; successive calls must pass non-decreasing i. */
    static inline int64_t ff_prefix(ff_prefix_t *c, int64_t i)
    {
        int64_t wi = i >> 6;
        while (c->w < wi) c->acc += ff_popcount64(c->bits[c->w++]);
        return c->acc + ff_popcount64(c->bits[wi] & ((((uint64_t)1) << (i & 63)) - 1));
    }
    /* Sums of x - t and (x - t)^2 over m values from sums sx of x and sxx of x^2 (exact). */
    static inline void ff_centre(int64_t sx, ff_i128 sxx, int64_t m, int64_t t,
                                 double *s, double *q)
    {
        ff_i128 c1 = ff_i128_sub(ff_i128_of(sx), ff_i128_mul(m, t));
        ff_i128 c2 = ff_i128_add(ff_i128_sub(sxx, ff_i128_mul(2 * t, sx)),
                                 ff_i128_scale(ff_i128_mul(m, t), t));
        *s = ff_i128_to_double(c1);
        *q = ff_i128_to_double(c2);
    }
    /* tot, s, q as _sweep fills them, group 1 = the set bits (kp positives, kn negatives),
       group 0 = the rest. bits needs a readable word at index n >> 6. */
    static void ff_block_sums(const uint64_t *bits, const int64_t *cp_pos,
                              const int64_t *cp_neg, int64_t nb, int64_t n_pos,
                              int64_t n_neg, int64_t kp, int64_t kn, int64_t *tot,
                              double *s, double *q)
    {
        ff_prefix_t cp = {bits, 0, 0}, cn = {bits, 0, 0};
        int64_t prev_p = 0, prev_n = ff_prefix(&cn, n_pos), lpt = n_pos - kp;
        int64_t snb = 0, lnb = 0, spb = 0, lpb = 0;
        int64_t s_sp = 0, s_lp = 0, s_sn = 0, s_ln = 0;
        ff_i128 q_sp = ff_i128_of(0), q_lp = q_sp, q_sn = q_sp, q_ln = q_sp;
        for (int64_t t = 0; t < nb; t++) {
            int64_t ep = ff_prefix(&cp, cp_pos[t + 1]), en = ff_prefix(&cn, n_pos + cp_neg[t + 1]);
            int64_t sp = ep - prev_p, sn = en - prev_n;
            int64_t lp = cp_pos[t + 1] - cp_pos[t] - sp, ln = cp_neg[t + 1] - cp_neg[t] - sn;
            int64_t x, c;
            prev_p = ep;
            prev_n = en;
            x = 2 * snb + sn; c = sp * x; s_sp += c; q_sp = ff_i128_add(q_sp, ff_i128_mul(c, x));
            x = 2 * lnb + ln; c = lp * x; s_lp += c; q_lp = ff_i128_add(q_lp, ff_i128_mul(c, x));
            x = 2 * (kp - spb) - sp; c = sn * x; s_sn += c; q_sn = ff_i128_add(q_sn, ff_i128_mul(c, x));
            x = 2 * (lpt - lpb) - lp; c = ln * x; s_ln += c; q_ln = ff_i128_add(q_ln, ff_i128_mul(c, x));
            snb += sn; lnb += ln; spb += sp; lpb += lp;
        }
        tot[0] = n_neg - kn;
        tot[1] = n_pos - kp;
        tot[2] = kn;
        tot[3] = kp;
        ff_centre(s_sp, q_sp, kp, kn, &s[3], &q[3]);
        ff_centre(s_sn, q_sn, kn, kp, &s[2], &q[2]);
        ff_centre(s_lp, q_lp, n_pos - kp, n_neg - kn, &s[1], &q[1]);
        ff_centre(s_ln, q_ln, n_neg - kn, n_pos - kp, &s[0], &q[0]);
    }
    """
    void ff_block_sums(const uint64_t *bits, const int64_t *cp_pos, const int64_t *cp_neg,
                       int64_t nb, int64_t n_pos, int64_t n_neg, int64_t kp, int64_t kn,
                       int64_t *tot, double *s, double *q) noexcept nogil
    void ff_centre(int64_t sx, ff_i128 sxx, int64_t m, int64_t t, double *s,
                   double *q) noexcept nogil
    void ff_prefetch(const int64_t *p) noexcept nogil




def int128_native():
    """True when the exact 128-bit sums use the compiler's __int128, False when they use the
    portable two-halves arithmetic of ff_int128.h (same results)."""
    return bool(FF_INT128_NATIVE)


cdef inline int _code(const uint8_t *codes, const uint64_t *bits, Py_ssize_t idx) noexcept nogil:
    """Group code at label-space index idx: a byte, or a bit (two groups) when bits != NULL."""
    if bits != NULL:
        return <int> ((bits[idx >> 6] >> (idx & 63)) & 1)
    return codes[idx]


cdef void _sweep(Py_ssize_t n, Py_ssize_t n_pos, const uint8_t *packed, const uint8_t *codes,
                 const uint64_t *bits, int n_groups, const int64_t *tot, int64_t *below, int64_t *eq, int *touched,
                 double *s, double *q, double *place) noexcept nogil:
    """Accumulate centred placement sums s and squares q per (group, label).

    tot[2g + lab] must hold group g's label counts; below, eq, s, q are zeroed here.
    With place != NULL, place[r] receives the placement (in [0, 1]) of sorted row r.
    """
    cdef Py_ssize_t r = 0, e, t, ip = 0, ineg = 0, idx
    cdef int lab, g, k, nt
    cdef int64_t x, e0, e1
    cdef double xd
    for k in range(2 * n_groups):
        below[k] = 0
        eq[k] = 0
        s[k] = 0.0
        q[k] = 0.0
    while r < n:
        if not (packed[r] & TIED):
            lab = packed[r] & LABEL
            idx = ip if lab else n_pos + ineg
            g = _code(codes, bits, idx)
            ip += lab
            ineg += 1 - lab
            if lab:
                x = 2 * below[2 * g] - tot[2 * g]
            else:
                x = tot[2 * g + 1] - 2 * below[2 * g + 1]
            k = 2 * g + lab
            xd = <double> x
            s[k] += xd
            q[k] += xd * xd
            below[k] += 1
            if place != NULL:
                place[r] = (xd + tot[2 * g + 1 - lab]) / (2.0 * tot[2 * g + 1 - lab])
            r += 1
        else:
            e = r
            while packed[e] & TIED:
                e += 1
            nt = 0
            for t in range(r, e + 1):
                lab = packed[t] & LABEL
                idx = ip if lab else n_pos + ineg
                g = _code(codes, bits, idx)
                ip += lab
                ineg += 1 - lab
                if eq[2 * g] + eq[2 * g + 1] == 0:
                    touched[nt] = g
                    nt += 1
                eq[2 * g + lab] += 1
            if place != NULL:
                _tie_placements(r, e, n_pos, packed, codes, bits, ip, ineg, tot, below, eq, place)
            for t in range(nt):
                g = touched[t]
                e0 = eq[2 * g]
                e1 = eq[2 * g + 1]
                if e1:
                    xd = <double> (2 * below[2 * g] + e0 - tot[2 * g])
                    s[2 * g + 1] += e1 * xd
                    q[2 * g + 1] += e1 * xd * xd
                if e0:
                    xd = <double> (2 * (tot[2 * g + 1] - below[2 * g + 1] - e1) + e1
                                   - tot[2 * g + 1])
                    s[2 * g] += e0 * xd
                    q[2 * g] += e0 * xd * xd
                below[2 * g] += e0
                below[2 * g + 1] += e1
                eq[2 * g] = 0
                eq[2 * g + 1] = 0
            r = e + 1


cdef void _tie_placements(Py_ssize_t r, Py_ssize_t e, Py_ssize_t n_pos,
                          const uint8_t *packed, const uint8_t *codes,
                          const uint64_t *bits, Py_ssize_t ip,
                          Py_ssize_t ineg, const int64_t *tot, const int64_t *below,
                          const int64_t *eq, double *place) noexcept nogil:
    """Placements of tie block r..e from its per-group counts `eq` (cursors after it)."""
    cdef Py_ssize_t t, jp = ip, jn = ineg, idx
    cdef int lab, g
    cdef int64_t x
    for t in range(e, r - 1, -1):
        lab = packed[t] & LABEL
        jp -= lab
        jn -= 1 - lab
        idx = jp if lab else n_pos + jn
        g = _code(codes, bits, idx)
        if lab:
            x = 2 * below[2 * g] + eq[2 * g]
            place[t] = x / (2.0 * tot[2 * g])
        else:
            x = 2 * (tot[2 * g + 1] - below[2 * g + 1] - eq[2 * g + 1]) + eq[2 * g + 1]
            place[t] = x / (2.0 * tot[2 * g + 1])


cdef inline double _centred_ss(int64_t m, double s, double q) noexcept nogil:
    """Sum of squared deviations from the mean of m integers with sum s, squares q.

    A non-zero value is at least 1/2 (the data are integers), so anything below 1/4, or
    within rounding of q, is an exact zero: constant placements give variance 0 exactly.
    """
    cdef double d = q - s * (s / m)
    if d < 0.25 or d < 1e-13 * q:
        return 0.0
    return d


cdef inline int _group_auc(int g, const int64_t *tot, const double *s, const double *q,
                           double *auc, double *var, double *s10, double *s01) noexcept nogil:
    """AUC, DeLong variance and S10, S01 of group g; returns 0 when the AUC is undefined."""
    cdef int64_t mneg = tot[2 * g], mpos = tot[2 * g + 1]
    cdef double v10 = 0.0, v01 = 0.0
    if mneg == 0 or mpos == 0:
        auc[0] = 0.5
        var[0] = 0.0
        s10[0] = 0.0
        s01[0] = 0.0
        return 0
    auc[0] = (s[2 * g + 1] / mpos + mneg) / (2.0 * mneg)
    if mpos > 1:
        v10 = _centred_ss(mpos, s[2 * g + 1], q[2 * g + 1]) / (mpos - 1) / (4.0 * mneg * mneg)
    if mneg > 1:
        v01 = _centred_ss(mneg, s[2 * g], q[2 * g]) / (mneg - 1) / (4.0 * mpos * mpos)
    s10[0] = v10
    s01[0] = v01
    var[0] = v10 / mpos + v01 / mneg
    return 1


cdef inline double _pair_stat(int a, int b, const int64_t *tot, const double *s,
                              const double *q, bint studentize) noexcept nogil:
    """Statistic of AUC_a - AUC_b: raw or studentized (DeLong); 0 if an AUC is undefined.

    A non-zero difference with zero DeLong variance is studentized with the variance
    A'(1 - A') / (m+ m-) per group, A' the AUC shrunk by half a pseudo-pair.
    """
    cdef double auc_a, auc_b, var_a, var_b, t1, t2, diff, v, pa, pb, sa, sb
    if not _group_auc(a, tot, s, q, &auc_a, &var_a, &t1, &t2):
        return 0.0
    if not _group_auc(b, tot, s, q, &auc_b, &var_b, &t1, &t2):
        return 0.0
    diff = auc_a - auc_b
    if not studentize:
        return diff
    if fabs(diff) < 1e-14:
        return 0.0
    v = var_a + var_b
    if v <= 0.0:
        pa = <double> tot[2 * a] * tot[2 * a + 1]
        pb = <double> tot[2 * b] * tot[2 * b + 1]
        sa = (auc_a * pa + 0.5) / (pa + 1.0)
        sb = (auc_b * pb + 0.5) / (pb + 1.0)
        v = sa * (1.0 - sa) / pa + sb * (1.0 - sb) / pb
    return diff / sqrt(v)


cdef enum:
    RADIX_BITS = 11
    RADIX = 1 << RADIX_BITS


def radix_sort_high(keys_np, int low_bits):
    """keys sorted by their bits above `low_bits`, stably (equal high bits keep their order):
    an LSD radix sort, 11-bit digits, one pass per digit that is not the same in all keys.
    Returns the sorted array (keys_np itself or a new one)."""
    cdef Py_ssize_t n = keys_np.shape[0], i, total
    cdef int n_digits = (64 - low_bits + RADIX_BITS - 1) // RADIX_BITS, d, shift
    cdef uint64_t[::1] src = keys_np
    counts_np = np.zeros((n_digits, RADIX), dtype=np.intp)
    cdef Py_ssize_t[:, ::1] counts = counts_np
    cdef uint64_t u
    with nogil:
        for i in range(n):
            u = src[i] >> low_bits
            for d in range(n_digits):
                counts[d, (u >> (d * RADIX_BITS)) & (RADIX - 1)] += 1
    other_np = None
    cdef uint64_t[::1] dst
    cdef Py_ssize_t[::1] start = np.empty(RADIX, dtype=np.intp)
    for d in range(n_digits):
        if counts_np[d].max() == n:
            continue  # every key has the same digit d: nothing to move
        if other_np is None:
            other_np = np.empty_like(keys_np)
        dst = other_np
        shift = low_bits + d * RADIX_BITS
        with nogil:
            total = 0
            for i in range(RADIX):
                start[i] = total
                total += counts[d, i]
            for i in range(n):
                u = (src[i] >> shift) & (RADIX - 1)
                dst[start[u]] = src[i]
                start[u] += 1
        keys_np, other_np = other_np, keys_np
        src = keys_np
    return keys_np


def sort_order(const double[::1] score):
    """Row indices by ascending score (ties in any order), as np.argsort but faster.

    Each score maps to an order-preserving 64-bit key (IEEE bits, sign-adjusted) whose low
    ceil(log2 n) bits are replaced by the row index; a radix sort of these keys by their high
    bits (no index array to carry) orders the rows. Rows whose high bits tie
    but whose scores differ (scores within a relative ~2^-(52 - log2 n) of each other) are
    then re-sorted by score within their run, so the result is always sorted.
    """
    cdef Py_ssize_t n = score.shape[0], i, r, n_bad = 0
    cdef int ib = max(1, int(n - 1).bit_length())
    cdef uint64_t low = ((<uint64_t> 1) << ib) - 1, u
    keys_np = np.empty(n, dtype=np.uint64)
    cdef uint64_t[::1] keys = keys_np
    cdef const uint64_t *raw = <const uint64_t *> &score[0] if n else NULL
    with nogil:
        for i in range(n):
            u = raw[i]
            u ^= (<uint64_t> 0 - (u >> 63)) | ((<uint64_t> 1) << 63)
            keys[i] = (u & ~low) | <uint64_t> i
    keys_np = radix_sort_high(keys_np, ib)
    keys = keys_np
    order_np = np.empty(n, dtype=np.intp)
    cdef Py_ssize_t[::1] order = order_np
    cdef Py_ssize_t run = 0
    with nogil:
        for r in range(n):
            order[r] = <Py_ssize_t> (keys[r] & low)
            if r and (keys[r] >> ib) != (keys[r - 1] >> ib):
                if r - run > 1 and _sort_run(&order[0], &score[0], run, r):
                    n_bad += 1
                run = r
        if n - run > 1 and _sort_run(&order[0], &score[0], run, n):
            n_bad += 1
    if n_bad:  # runs longer than SHORT_RUN whose scores were out of order
        high = keys_np >> np.uint64(ib)
        unsorted = np.flatnonzero(
            (high[1:] == high[:-1]) & (np.asarray(score)[order_np[1:]] < np.asarray(score)[order_np[:-1]])
        )
        for value in np.unique(high[unsorted + 1]):
            lo_r = np.searchsorted(high, value, "left")
            hi_r = np.searchsorted(high, value, "right")
            run_rows = order_np[lo_r:hi_r]
            order_np[lo_r:hi_r] = run_rows[np.argsort(np.asarray(score)[run_rows], kind="stable")]
    return order_np


cdef enum:
    SHORT_RUN = 32


cdef bint _sort_run(Py_ssize_t *order, const double *score, Py_ssize_t lo,
                    Py_ssize_t hi) noexcept nogil:
    """Order rows order[lo:hi] (keys with equal high bits) by score: an insertion sort when
    the run is short (they are: a few rows whose scores differ below 2^-(52 - log2 n));
    returns True when a longer run is out of order (sort_order then sorts it with numpy)."""
    cdef Py_ssize_t i, j, row
    cdef double x
    if hi - lo > SHORT_RUN:
        for i in range(lo + 1, hi):
            if score[order[i]] < score[order[i - 1]]:
                return True
        return False
    for i in range(lo + 1, hi):
        row = order[i]
        x = score[row]
        j = i - 1
        while j >= lo and score[order[j]] > x:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = row
    return False


def _label_totals(const uint8_t[::1] codes, Py_ssize_t n_pos, int n_groups):
    tot = np.zeros(2 * n_groups, dtype=np.int64)
    tot[1::2] = np.bincount(np.asarray(codes[:n_pos]), minlength=n_groups)
    tot[0::2] = np.bincount(np.asarray(codes[n_pos:]), minlength=n_groups)
    return tot


def sweep_groups(const uint8_t[::1] packed, const uint8_t[::1] codes, Py_ssize_t n_pos,
                 int n_groups, bint placements=False, pairs=None, bint studentize=True):
    """Per-group AUC and DeLong quantities of sorted data, in one sweep.

    Returns (tot, auc, var, s10, s01, place, stats): tot of shape (n_groups, 2) holds the
    counts of negatives and positives; place (sorted-row placements) is None unless
    requested; stats holds the statistics of `pairs` (rows (a, b): AUC_a - AUC_b, studentized
    or raw, by the permutations' code), None without pairs. A group's sums involve its own
    rows only, so a pair's statistic equals the one computed on the two groups' rows alone.
    """
    cdef Py_ssize_t n = packed.shape[0], p
    cdef int g
    tot_np = _label_totals(codes, n_pos, n_groups)
    cdef int64_t[::1] tot = tot_np
    cdef int64_t[::1] below = np.zeros(2 * n_groups, dtype=np.int64)
    cdef int64_t[::1] eq = np.zeros(2 * n_groups, dtype=np.int64)
    cdef int[::1] touched = np.zeros(n_groups, dtype=np.intc)
    cdef double[::1] s = np.zeros(2 * n_groups)
    cdef double[::1] q = np.zeros(2 * n_groups)
    place_np = np.empty(n if placements else 0)
    cdef double[::1] place = place_np
    cdef double *place_ptr = &place[0] if placements and n > 0 else NULL
    with nogil:
        _sweep(n, n_pos, &packed[0], &codes[0], NULL, n_groups, &tot[0], &below[0], &eq[0],
               &touched[0], &s[0], &q[0], place_ptr)
    auc = np.empty(n_groups)
    var = np.empty(n_groups)
    s10 = np.empty(n_groups)
    s01 = np.empty(n_groups)
    cdef double a, v, x10, x01
    for g in range(n_groups):
        _group_auc(g, &tot[0], &s[0], &q[0], &a, &v, &x10, &x01)
        auc[g], var[g], s10[g], s01[g] = a, v, x10, x01
    stats = None
    if pairs is not None:
        pairs_np = np.asarray(pairs, dtype=np.intp)
        if pairs_np.size and (pairs_np.min() < 0 or pairs_np.max() >= n_groups):
            raise ValueError(f"pairs must hold group codes in [0, {n_groups})")
        stats = np.empty(len(pairs_np))
        for p in range(len(pairs_np)):
            stats[p] = _pair_stat(<int> pairs_np[p, 0], <int> pairs_np[p, 1], &tot[0], &s[0],
                                  &q[0], studentize)
    return (tot_np.reshape(n_groups, 2), auc, var, s10, s01,
            place_np if placements else None, stats)


def pair_statistics(const uint8_t[::1] packed, const uint8_t[::1] codes, Py_ssize_t n_pos,
                    int n_groups, pairs, bint studentize):
    """Statistics of `pairs` on the data as observed (same code as the permutations)."""
    return sweep_groups(packed, codes, n_pos, n_groups, False, pairs, studentize)[6]


def _check_sizes(sizes, Py_ssize_t n, Py_ssize_t n_pos, bint within):
    """Raise ValueError unless sizes[s, g] fits the strata: (1, K) summing to n, or (2, K)
    with the positives' row summing to n_pos and the negatives' row to n - n_pos. The
    kernels index rows by these sizes inside nogil code, so they must be checked here."""
    arr = np.asarray(sizes)
    expected = [n_pos, n - n_pos] if within else [n]
    if arr.ndim != 2 or arr.shape[0] != len(expected):
        raise ValueError(
            f"sizes must have {len(expected)} stratum row(s), got shape {arr.shape}"
        )
    if (arr < 0).any() or arr.sum(axis=1).tolist() != expected:
        raise ValueError(
            f"sizes {arr.tolist()} do not match the strata: their rows must sum to "
            f"{expected} (positives, then negatives)" if within else
            f"sizes {arr.tolist()} do not match the strata: they must sum to {n}"
        )


def permute(const uint8_t[::1] packed, Py_ssize_t n_pos, const int64_t[:, ::1] sizes,
            bint within, const Py_ssize_t[:, ::1] pairs, bint studentize,
            Py_ssize_t n_permutations, uint64_t key, unsigned int stream_id,
            int n_threads=1, Py_ssize_t start=0):
    """Statistics of `pairs` under random permutations of the group labels.

    sizes[s, g]: rows of group g in stratum s; one stratum (all rows, `within` False) or two
    (positives, then negatives: permutation within outcome). Permutation b fills each
    stratum with its largest group, then gives every other group (in code order) its rows
    by rejection sampling of uniform positions from stream (key, stream_id, start + b): a
    uniformly random assignment, whatever thread computes it. Returns (n_permutations, n_pairs).
    """
    cdef Py_ssize_t n = packed.shape[0], n_pairs = pairs.shape[0]
    cdef int n_groups = sizes.shape[1], n_strata = sizes.shape[0]
    cdef Py_ssize_t b, p, i, r, lo, hi, span, npos_s
    cdef int st, g, fill, k
    cdef int64_t assigned0, assigned1
    if n_groups > 255:
        raise ValueError("at most 255 groups")
    _check_sizes(sizes, n, n_pos, within)
    if n_pairs and (np.min(pairs) < 0 or np.max(pairs) >= n_groups):
        raise ValueError(f"pairs must hold group codes in [0, {n_groups})")
    fills_np = np.ascontiguousarray(np.argmax(np.asarray(sizes), axis=1), dtype=np.intc)
    cdef const int[::1] fills = fills_np
    bounds_np = np.array([0, n_pos, n] if within else [0, n], dtype=np.intp)
    cdef const Py_ssize_t[::1] bounds = bounds_np
    out = np.empty((n_permutations, n_pairs), dtype=np.float64)
    cdef double[:, ::1] o = out
    cdef uint8_t *codes
    cdef int64_t *ibuf
    cdef int *touched
    cdef double *dbuf
    cdef ff_fast_t *stream
    cdef const uint8_t *pk = &packed[0]
    with nogil, parallel(num_threads=n_threads):
        codes = <uint8_t *> malloc((n + 1) * sizeof(uint8_t))
        ibuf = <int64_t *> malloc(6 * n_groups * sizeof(int64_t))
        touched = <int *> malloc(n_groups * sizeof(int))
        dbuf = <double *> malloc(4 * n_groups * sizeof(double))
        stream = <ff_fast_t *> malloc(sizeof(ff_fast_t))
        for b in prange(n_permutations, schedule='static'):
            ff_fast_init(stream, key, stream_id, <uint64_t> (start + b))
            for k in range(2 * n_groups):
                ibuf[k] = 0
            for st in range(n_strata):
                lo = bounds[st]
                hi = bounds[st + 1]
                span = hi - lo
                fill = fills[st]
                memset(codes + lo, fill, span)
                npos_s = (n_pos if n_pos < hi else hi) - lo
                if npos_s < 0:
                    npos_s = 0
                assigned0 = 0
                assigned1 = 0
                for g in range(n_groups):
                    if g == fill:
                        continue
                    for i in range(sizes[st, g]):
                        while True:
                            r = lo + <Py_ssize_t> ff_fast_bounded_u32(stream,
                                                                 <uint32_t> span)
                            if codes[r] == fill:
                                break
                        codes[r] = <uint8_t> g
                        if r < n_pos:
                            ibuf[2 * g + 1] += 1
                            assigned1 = assigned1 + 1
                        else:
                            ibuf[2 * g] += 1
                            assigned0 = assigned0 + 1
                ibuf[2 * fill + 1] += npos_s - assigned1
                ibuf[2 * fill] += span - npos_s - assigned0
            _sweep(n, n_pos, pk, codes, NULL, n_groups, ibuf,
                   ibuf + 2 * n_groups, ibuf + 4 * n_groups, touched, dbuf,
                   dbuf + 2 * n_groups, NULL)
            for p in range(n_pairs):
                o[b, p] = _pair_stat(<int> pairs[p, 0], <int> pairs[p, 1], ibuf, dbuf,
                                     dbuf + 2 * n_groups, studentize)
        free(codes)
        free(ibuf)
        free(touched)
        free(dbuf)
        free(stream)
    return out



def prepare(const Py_ssize_t[::1] order, const double[::1] score, const uint8_t[::1] y,
            const uint8_t[::1] codes, const uint8_t[::1] remap):
    """Sorted representation of rows `order` (ascending score): (packed, label-space codes,
    n_pos). Group code c of a row becomes remap[c]. One pass of gathers, no temporaries."""
    cdef Py_ssize_t m = order.shape[0], r, i, ip = 0, ineg
    cdef Py_ssize_t n_pos = 0
    cdef double prev = 0.0, sc
    cdef uint8_t lab
    for r in range(m):
        n_pos += y[order[r]]
    packed_np = np.empty(m, dtype=np.uint8)
    codes_np = np.empty(m, dtype=np.uint8)
    cdef uint8_t[::1] packed = packed_np
    cdef uint8_t[::1] out = codes_np
    ineg = n_pos
    with nogil:
        for r in range(m):
            i = order[r]
            sc = score[i]
            if r > 0 and sc == prev:
                packed[r - 1] |= TIED
            prev = sc
            lab = y[i]
            packed[r] = lab
            if lab:
                out[ip] = remap[codes[i]]
                ip += 1
            else:
                out[ineg] = remap[codes[i]]
                ineg += 1
    return packed_np, codes_np, n_pos


_NO_BLOCKS = np.zeros(1, dtype=np.int64)


def _drawn_group(const int64_t[:, ::1] sizes, Py_ssize_t n, Py_ssize_t n_pos, bint within):
    """(small, k0, k1): the group whose rows the two-group kernels draw into the bitmap, and
    its rows in each stratum (k1 = 0 without a second stratum). It is the smaller group of
    each stratum; within outcome, when the smaller groups differ, group 1 in both (one bit
    meaning per bitmap). Raises ValueError unless sizes are two groups' sizes in the strata
    (every two-group kernel's check)."""
    _check_sizes(sizes, n, n_pos, within)
    if sizes.shape[1] != 2:
        raise ValueError(f"sizes must have two groups (columns), got {sizes.shape[1]}")
    small0 = 0 if sizes[0, 0] <= sizes[0, 1] else 1
    if not within:
        return small0, sizes[0, small0], 0
    small1 = 0 if sizes[1, 0] <= sizes[1, 1] else 1
    if small0 != small1:
        return 1, sizes[0, 1], sizes[1, 1]
    return small0, sizes[0, small0], sizes[1, small1]


cdef inline void _draw_small(ff_fast_t *stream, uint64_t key, unsigned int stream_id,
                             uint64_t index, uint64_t *bits, Py_ssize_t words, Py_ssize_t n,
                             Py_ssize_t n_pos, bint within, Py_ssize_t k0,
                             Py_ssize_t k1) noexcept nogil:
    """Permutation `index` of the two-group kernels: the drawn group's k0 rows (of all n, or
    of the n_pos positives within outcome) and k1 negatives set in a cleared bitmap."""
    ff_fast_init(stream, key, stream_id, index)
    memset(bits, 0, words * sizeof(uint64_t))
    ff_floyd_bits(stream, bits, 0, n_pos if within else n, k0, NULL)
    if within:
        ff_floyd_bits(stream, bits, n_pos, n - n_pos, k1, NULL)


def permute_two(const uint8_t[::1] packed, Py_ssize_t n_pos, const int64_t[:, ::1] sizes,
                bint within, bint studentize, Py_ssize_t n_permutations, uint64_t key,
                unsigned int stream_id, int n_threads=1, Py_ssize_t start=0,
                tuple tables=None):
    """Statistic AUC_0 - AUC_1 (studentized or raw) under random permutations, two groups.

    The smaller group of each stratum is drawn by Floyd's algorithm into a bitmap (one bit
    per row, cache-resident), from stream (key, stream_id, start + b). The group sums come
    from a sweep over the n sorted rows, or, with tables (`sparse_tables`), from the drawn
    group's counts per tie block (`ff_block_sums`: O(tie blocks + n / 64), exact integers);
    both give the same statistics wherever the sweep's double sums are exact. Returns
    (n_permutations,).
    """
    cdef Py_ssize_t n = packed.shape[0], b, k, words = (n + 63) // 64 + 1
    cdef int small
    cdef Py_ssize_t k0, k1
    small, k0, k1 = _drawn_group(sizes, n, n_pos, within)
    cdef int64_t pos_small, neg_small, tot_pos = n_pos, tot_neg = n - n_pos
    out = np.empty(n_permutations, dtype=np.float64)
    cdef double[::1] o = out
    cdef uint64_t *bits
    cdef int64_t *ibuf
    cdef int *touched
    cdef double *dbuf
    cdef ff_fast_t *stream
    cdef const uint8_t *pk = &packed[0]
    cdef bint blocks = tables is not None
    cdef const int64_t[::1] cp_pos = tables[3] if blocks else _NO_BLOCKS
    cdef const int64_t[::1] cp_neg = tables[4] if blocks else _NO_BLOCKS
    cdef int64_t nb = cp_pos.shape[0] - 1
    with nogil, parallel(num_threads=n_threads):
        bits = <uint64_t *> malloc(words * sizeof(uint64_t))
        ibuf = <int64_t *> malloc(12 * sizeof(int64_t))
        touched = <int *> malloc(2 * sizeof(int))
        dbuf = <double *> malloc(8 * sizeof(double))
        stream = <ff_fast_t *> malloc(sizeof(ff_fast_t))
        for b in prange(n_permutations, schedule='static'):
            _draw_small(stream, key, stream_id, <uint64_t> (start + b), bits, words, n, n_pos,
                        within, k0, k1)
            if within:
                pos_small = k0
                neg_small = k1
            else:
                pos_small = ff_count_below(bits, n_pos)
                neg_small = k0 - pos_small
            # bit 1 marks group `small`; the sweep reads the bit as the group code
            ibuf[2 * 1] = neg_small
            ibuf[2 * 1 + 1] = pos_small
            ibuf[0] = tot_neg - neg_small
            ibuf[1] = tot_pos - pos_small
            if blocks:
                ff_block_sums(bits, &cp_pos[0], &cp_neg[0], nb, tot_pos, tot_neg, pos_small,
                              neg_small, ibuf, dbuf, dbuf + 4)
            else:
                _sweep(n, n_pos, pk, NULL, bits, 2, ibuf, ibuf + 4, ibuf + 8, touched, dbuf,
                       dbuf + 4, NULL)
            # bit value 1 is group `small`: AUC_0 - AUC_1 in the caller's codes
            o[b] = _pair_stat(1 - small, small, ibuf, dbuf, dbuf + 4, studentize)
        free(bits)
        free(ibuf)
        free(touched)
        free(dbuf)
        free(stream)
    return out


# --------------------------------------------------------------------------------------
# Permutations that cost the drawn group, not n
# --------------------------------------------------------------------------------------
#
# Rows in tie blocks t = 0..nb-1 (ascending score). Against ALL rows, a positive in block t
# has the half-unit placement A(t) = 2 (negatives in blocks < t) + (negatives in t), a
# negative D(t) = 2 (positives in blocks > t) + (positives in t). Let S be the drawn rows
# (the smaller group) and L the rest. For a positive, B(t) = its placement against S's
# negatives; L's positives have placement A - B. B is a step function of t that changes
# only at the blocks of S's negatives, so sums over ALL positives of B, B^2 and A B follow
# from prefix sums over blocks (counts and sums of A) between those blocks: O(|S|) work.
# Subtracting S's own positives leaves L's sums; symmetrically for negatives with E(t) =
# placement against S's positives. With one sort up front a permutation costs the Floyd
# draws of S, a scan of its bitmap (n / 64 words) and O(|S|) integer arithmetic; the sums
# are exact integers (128-bit), so the statistic equals the sweep's wherever the sweep's
# double sums are exact (below 2^53).

def sparse_tables(const uint8_t[::1] packed, Py_ssize_t n_pos):
    """Block tables of sorted rows for `permute_two_sparse` (one O(n) pass).

    Returns (blk, npos_b, nneg_b, cp_pos, cp_neg, a_b, d_b, sa, sd, totals): blk[i] the tie
    block of label-space index i (int32); per block the counts and A, D; cp_*, sa, sd the
    prefix sums over blocks (length nb + 1) of counts, npos*A and nneg*D; totals = (sum A,
    sum D) over all positives / negatives (the squared sums are formed in the kernel).
    """
    cdef Py_ssize_t n = packed.shape[0], r, nb = 0, ip = 0, ineg = 0, t
    for r in range(n):
        if not (packed[r] & TIED):
            nb += 1
    blk_np = np.empty(n, dtype=np.int32)
    npos_np = np.zeros(nb, dtype=np.int64)
    nneg_np = np.zeros(nb, dtype=np.int64)
    cdef int32_t[::1] blk = blk_np
    cdef int64_t[::1] npos_b = npos_np
    cdef int64_t[::1] nneg_b = nneg_np
    t = 0
    with nogil:
        for r in range(n):
            if packed[r] & LABEL:
                blk[ip] = <int32_t> t
                npos_b[t] += 1
                ip += 1
            else:
                blk[n_pos + ineg] = <int32_t> t
                nneg_b[t] += 1
                ineg += 1
            if not (packed[r] & TIED):
                t += 1
    cp_pos_np = np.zeros(nb + 1, dtype=np.int64)
    cp_neg_np = np.zeros(nb + 1, dtype=np.int64)
    cp_pos_np[1:] = np.cumsum(npos_np)
    cp_neg_np[1:] = np.cumsum(nneg_np)
    a_np = 2 * cp_neg_np[:-1] + nneg_np
    d_np = 2 * (n_pos - cp_pos_np[1:]) + npos_np
    sa_np = np.zeros(nb + 1, dtype=np.int64)
    sd_np = np.zeros(nb + 1, dtype=np.int64)
    sa_np[1:] = np.cumsum(npos_np * a_np)
    sd_np[1:] = np.cumsum(nneg_np * d_np)
    return (blk_np, npos_np, nneg_np, cp_pos_np, cp_neg_np, a_np, d_np, sa_np, sd_np)


cdef inline Py_ssize_t _collect(const uint64_t *bits, Py_ssize_t lo, Py_ssize_t hi,
                                const int32_t *blk, int32_t *out) noexcept nogil:
    """Blocks of the set bits lo <= i < hi, ascending; returns their number."""
    cdef Py_ssize_t w, w0 = lo >> 6, w1 = (hi + 63) >> 6, k = 0, i
    cdef uint64_t word
    for w in range(w0, w1):
        word = bits[w]
        while word:
            i = (w << 6) + ff_ctz64(word)
            word &= word - 1
            if i >= lo and i < hi:
                out[k] = blk[i]
                k += 1
    return k


cdef void _sparse_sums(const int32_t *ps, Py_ssize_t kp, const int32_t *ns, Py_ssize_t kn,
                       const int64_t *npos_b, const int64_t *nneg_b, const int64_t *cp_pos,
                       const int64_t *cp_neg, const int64_t *a_b, const int64_t *d_b,
                       const int64_t *sa, const int64_t *sd, Py_ssize_t nb,
                       int64_t sum_a, ff_i128 sum_a2, int64_t sum_d, ff_i128 sum_d2,
                       int64_t n_pos, int64_t n_neg,
                       int64_t *tot, double *s, double *q) noexcept nogil:
    """tot, s, q (as _sweep fills them) for groups 0 = L (the rest) and 1 = S (drawn):
    S's positives have blocks ps[0..kp), its negatives ns[0..kn), both ascending."""
    cdef Py_ssize_t i, j, jlt, jle, prev, nxt
    cdef int64_t p_s, a, dd, m, mp, sp_s = 0, sq_s = 0, sa_s = 0, sd_s = 0, sumb = 0, r, x
    cdef ff_i128 zero = ff_i128_of(0)
    cdef ff_i128 qp_s = zero, qq_s = zero, aa_s = zero, dd_s = zero, ap_s = zero, dq_s = zero
    cdef ff_i128 b2 = zero, ab = zero, e2 = zero, de = zero
    cdef int32_t b, c
    # S's positives against S's negatives (P^S), and A at S's positives
    jlt = 0
    for i in range(kp):
        b = ps[i]
        while jlt < kn and ns[jlt] < b:
            jlt += 1
        jle = jlt
        while jle < kn and ns[jle] == b:
            jle += 1
        p_s = 2 * jlt + (jle - jlt)
        a = a_b[b]
        sp_s += p_s
        qp_s = ff_i128_add(qp_s, ff_i128_mul(p_s, p_s))
        sa_s += a
        aa_s = ff_i128_add(aa_s, ff_i128_mul(a, a))
        ap_s = ff_i128_add(ap_s, ff_i128_mul(a, p_s))
    # S's negatives against S's positives (Q^S), and D at S's negatives
    jlt = 0
    for j in range(kn):
        c = ns[j]
        while jlt < kp and ps[jlt] < c:
            jlt += 1
        jle = jlt
        while jle < kp and ps[jle] == c:
            jle += 1
        p_s = 2 * (kp - jle) + (jle - jlt)
        dd = d_b[c]
        sq_s += p_s
        qq_s = ff_i128_add(qq_s, ff_i128_mul(p_s, p_s))
        sd_s += dd
        dd_s = ff_i128_add(dd_s, ff_i128_mul(dd, dd))
        dq_s = ff_i128_add(dq_s, ff_i128_mul(dd, p_s))
    # B over all positives: steps at the distinct blocks of S's negatives
    m = 0
    prev = -1
    j = 0
    while j <= kn:
        nxt = ns[j] if j < kn else nb
        # positives in blocks prev+1 .. nxt-1 have B = 2m
        if m:
            x = 2 * m
            b2 = ff_i128_add(b2, ff_i128_scale(ff_i128_mul(x, x), cp_pos[nxt] - cp_pos[prev + 1]))
            ab = ff_i128_add(ab, ff_i128_mul(x, sa[nxt] - sa[prev + 1]))
        if j == kn:
            break
        mp = 0
        while j < kn and ns[j] == nxt:
            mp += 1
            j += 1
        x = 2 * m + mp
        b2 = ff_i128_add(b2, ff_i128_scale(ff_i128_mul(x, x), npos_b[nxt]))
        ab = ff_i128_add(ab, ff_i128_scale(ff_i128_mul(x, npos_b[nxt]), a_b[nxt]))
        m += mp
        prev = nxt
    sumb = sd_s  # sum over all positives of B = sum over S's negatives of D
    # E over all negatives: steps at the distinct blocks of S's positives
    r = kp
    prev = -1
    i = 0
    while i <= kp:
        nxt = ps[i] if i < kp else nb
        if r:
            x = 2 * r
            e2 = ff_i128_add(e2, ff_i128_scale(ff_i128_mul(x, x), cp_neg[nxt] - cp_neg[prev + 1]))
            de = ff_i128_add(de, ff_i128_mul(x, sd[nxt] - sd[prev + 1]))
        if i == kp:
            break
        mp = 0
        while i < kp and ps[i] == nxt:
            mp += 1
            i += 1
        r -= mp
        x = 2 * r + mp
        e2 = ff_i128_add(e2, ff_i128_scale(ff_i128_mul(x, x), nneg_b[nxt]))
        de = ff_i128_add(de, ff_i128_scale(ff_i128_mul(x, nneg_b[nxt]), d_b[nxt]))
        prev = nxt
    # group totals: tot[2g] negatives, tot[2g + 1] positives
    tot[2] = kn
    tot[3] = kp
    tot[0] = n_neg - kn
    tot[1] = n_pos - kp
    ff_centre(sp_s, qp_s, kp, tot[2], &s[3], &q[3])
    ff_centre(sq_s, qq_s, kn, tot[3], &s[2], &q[2])
    # sums over L's positives: all positives minus S's, with A - B their placement
    ff_centre((sum_a - sa_s) - (sumb - sp_s),
              _sum3(ff_i128_sub(sum_a2, aa_s), ff_i128_scale(ff_i128_sub(ab, ap_s), -2),
                    ff_i128_sub(b2, qp_s)), tot[1], tot[0], &s[1], &q[1])
    ff_centre((sum_d - sd_s) - (sa_s - sq_s),
              _sum3(ff_i128_sub(sum_d2, dd_s), ff_i128_scale(ff_i128_sub(de, dq_s), -2),
                    ff_i128_sub(e2, qq_s)), tot[0], tot[1], &s[0], &q[0])


cdef inline ff_i128 _sum3(ff_i128 a, ff_i128 b, ff_i128 c) noexcept nogil:
    return ff_i128_add(ff_i128_add(a, b), c)


def permute_two_sparse(const uint8_t[::1] packed, Py_ssize_t n_pos,
                       const int64_t[:, ::1] sizes, bint within, bint studentize,
                       Py_ssize_t n_permutations, uint64_t key, unsigned int stream_id,
                       int n_threads, Py_ssize_t start, tuple tables):
    """`permute_two` (same draws, same statistics) at O(drawn rows + n / 64) per permutation.

    tables: `sparse_tables(packed, n_pos)`. Returns (n_permutations,).
    """
    cdef Py_ssize_t n = packed.shape[0], b, words = (n + 63) // 64 + 1
    cdef int small
    cdef Py_ssize_t k0, k1
    small, k0, k1 = _drawn_group(sizes, n, n_pos, within)
    cdef const int32_t[::1] blk = tables[0]
    cdef const int64_t[::1] npos_b = tables[1]
    cdef const int64_t[::1] nneg_b = tables[2]
    cdef const int64_t[::1] cp_pos = tables[3]
    cdef const int64_t[::1] cp_neg = tables[4]
    cdef const int64_t[::1] a_b = tables[5]
    cdef const int64_t[::1] d_b = tables[6]
    cdef const int64_t[::1] sa = tables[7]
    cdef const int64_t[::1] sd = tables[8]
    cdef Py_ssize_t nb = npos_b.shape[0], t
    cdef int64_t sum_a = sa[nb], sum_d = sd[nb]
    cdef ff_i128 sum_a2 = ff_i128_of(0), sum_d2 = ff_i128_of(0)
    for t in range(nb):
        sum_a2 = ff_i128_add(sum_a2, ff_i128_scale(ff_i128_mul(a_b[t], a_b[t]), npos_b[t]))
        sum_d2 = ff_i128_add(sum_d2, ff_i128_scale(ff_i128_mul(d_b[t], d_b[t]), nneg_b[t]))
    cdef Py_ssize_t kmax = k0 + k1 + 1
    cdef Py_ssize_t kp, kn
    cdef int64_t npos_all = n_pos, nneg_all = n - n_pos
    out = np.empty(n_permutations, dtype=np.float64)
    cdef double[::1] o = out
    cdef uint64_t *bits
    cdef int32_t *ps
    cdef int32_t *ns
    cdef int64_t *ibuf
    cdef double *dbuf
    cdef ff_fast_t *stream
    with nogil, parallel(num_threads=n_threads):
        bits = <uint64_t *> malloc(words * sizeof(uint64_t))
        ps = <int32_t *> malloc(kmax * sizeof(int32_t))
        ns = <int32_t *> malloc(kmax * sizeof(int32_t))
        ibuf = <int64_t *> malloc(4 * sizeof(int64_t))
        dbuf = <double *> malloc(8 * sizeof(double))
        stream = <ff_fast_t *> malloc(sizeof(ff_fast_t))
        for b in prange(n_permutations, schedule='static'):
            _draw_small(stream, key, stream_id, <uint64_t> (start + b), bits, words, n, n_pos,
                        within, k0, k1)
            kp = _collect(bits, 0, n_pos, &blk[0], ps)
            kn = _collect(bits, n_pos, n, &blk[0], ns)
            _sparse_sums(ps, kp, ns, kn, &npos_b[0], &nneg_b[0], &cp_pos[0], &cp_neg[0],
                         &a_b[0], &d_b[0], &sa[0], &sd[0], nb, sum_a, sum_a2, sum_d, sum_d2,
                         npos_all, nneg_all, ibuf, dbuf, dbuf + 4)
            o[b] = _pair_stat(1 - small, small, ibuf, dbuf, dbuf + 4, studentize)
        free(bits)
        free(ps)
        free(ns)
        free(ibuf)
        free(dbuf)
        free(stream)
    return out


# --------------------------------------------------------------------------------------
# Permutations of untied scores: the drawn rows' ranks alone
# --------------------------------------------------------------------------------------
#
# Without ties every row is its own block, so `sparse_tables` would hold ~9 words per row.
# In label space a positive i has d_i = negatives below it (its rank is i + d_i) and a
# negative j has c_j = positives below it; the half-unit placements against all rows are
# A_i = 2 d_i and D_j = 2 (n_pos - c_j). With the drawn group S (positives i_1 < ... with
# d ascending, negatives j_1 < ... with c ascending):
#   S's positive i against S's negatives: 2 #{S negatives j < d_i}   (a merge of two lists)
#   S's negative j against S's positives: 2 #{S positives i >= c_j}
#   B (a positive's placement against S's negatives) is 2m on the positives with label
#   index in [c_{j_m}, c_{j_(m+1)}), so sums of B^2 and A B over all positives come from
#   prefix sums SA[k] = sum_{i < k} A_i at S's negatives; symmetrically E (a negative's
#   placement against S's positives) is 2 (|S+| - m) on [d_{i_m}, d_{i_(m+1)}), with SD.
# L's sums are then the totals minus S's, exactly as in `_sparse_sums`: the same integers,
# so the statistics equal the sparse (and sweep) paths' bit for bit. Per permutation: the
# Floyd draws, a scan of the bitmap (n / 64 words), one read of `below` and one of SA or SD
# per drawn row (ascending addresses) and O(drawn) integer arithmetic.

def rank_tables(const uint8_t[::1] packed, Py_ssize_t n_pos):
    """Table of untied sorted rows for `permute_two_ranks` (one O(n) pass), or None when
    some rows tie (then `sparse_tables` applies) or n >= 2^31.

    Returns an (n, 2) int64 array: row k (label space) holds below = the rows of the other
    label below index k (d_i for a positive, c_j for a negative) and the prefix sum at
    below of the other label's whole-data placements (SD[d_i] for a positive, SA[c_j] for a
    negative; SA[k] = sum of A_i = 2 d_i over positives i < k, SD[k] = sum of
    D_j = 2 (n_pos - c_j) over negatives j < k). One row, one cache line: the kernel reads
    one per drawn row.
    """
    cdef Py_ssize_t n = packed.shape[0], r, ip = 0, ineg = 0
    if n >= (<Py_ssize_t> 1) << 31:
        return None
    table_np = np.empty((n, 2), dtype=np.int64)
    cdef int64_t[:, ::1] table = table_np
    cdef int64_t sa = 0, sd = 0
    cdef bint tied = False
    with nogil:  # the rows below a row are the rows before it: running sums suffice
        for r in range(n):
            if packed[r] & TIED:
                tied = True
                break
            if packed[r] & LABEL:
                if ip >= n_pos:
                    break
                table[ip, 0] = ineg
                table[ip, 1] = sd  # SD[d_i]: D of the negatives before it
                sa += 2 * ineg
                ip += 1
            else:
                if ineg >= n - n_pos:
                    break
                table[n_pos + ineg, 0] = ip
                table[n_pos + ineg, 1] = sa  # SA[c_j]: A of the positives before it
                sd += 2 * (n_pos - ip)
                ineg += 1
    if tied:
        return None
    if ip != n_pos or ineg != n - n_pos:
        raise ValueError(f"n_pos = {n_pos} does not match the labels of packed")
    return table_np


cdef inline Py_ssize_t _decode_bits(const uint64_t *bits, Py_ssize_t words,
                                    int64_t *out) noexcept nogil:
    """Indices of the set bits, ascending, into out (which needs 2 spare entries); returns
    their number. The first two indices of a word are written whatever its count and the
    cursor advances by the bits there were (after Lemire's bitmap decoding): on the sparse
    bitmaps of a small drawn group, no branch per bit."""
    cdef Py_ssize_t w, k = 0
    cdef uint64_t word, w1, w2, top = (<uint64_t> 1) << 63
    for w in range(words):
        word = bits[w]
        w1 = word & (word - 1)
        w2 = w1 & (w1 - 1)
        out[k] = (w << 6) + ff_ctz64(word | top)
        out[k + 1] = (w << 6) + ff_ctz64(w1 | top)
        k += (word != 0) + (w1 != 0)
        while w2:
            out[k] = (w << 6) + ff_ctz64(w2)
            w2 &= w2 - 1
            k += 1
    return k


cdef enum:
    PREFETCH_AHEAD = 16


cdef inline Py_ssize_t _count_less(const int64_t *sorted_values, Py_ssize_t count,
                                   int64_t limit) noexcept nogil:
    """Number of the first entries of an ascending array below limit."""
    cdef Py_ssize_t k = 0
    while k < count and sorted_values[k] < limit:
        k += 1
    return k


cdef inline void _gather_rows(const int64_t *table, const int64_t *pos, Py_ssize_t count,
                              int64_t shift, int64_t *idx, int64_t *val,
                              int64_t *pref) noexcept nogil:
    """Rows pos[0..count) of the (n, 2) table: idx = pos - shift, val and pref its columns
    (independent loads in a simple loop, so their cache misses overlap)."""
    cdef Py_ssize_t k
    cdef int64_t i
    for k in range(count):
        if k + PREFETCH_AHEAD < count:
            ff_prefetch(table + 2 * pos[k + PREFETCH_AHEAD])
        i = pos[k]
        idx[k] = i - shift
        val[k] = table[2 * i]
        pref[k] = table[2 * i + 1]


cdef void _rank_sums(const int64_t *pi, const int64_t *pd, const int64_t *psd, Py_ssize_t kp,
                     const int64_t *nj, const int64_t *nc, const int64_t *nsa, Py_ssize_t kn,
                     int64_t sum_a, ff_i128 sum_a2, int64_t sum_d, ff_i128 sum_d2,
                     int64_t n_pos, int64_t n_neg,
                     int64_t *tot, double *s, double *q) noexcept nogil:
    """tot, s, q (as _sweep fills them) for groups 0 = L (the rest) and 1 = S (drawn), S's
    positives at label indices pi with d = pd and SD[d] = psd, its negatives at nj with
    c = nc and SA[c] = nsa (all ascending); sum_a = SA[n_pos], sum_d = SD[n_neg]."""
    cdef Py_ssize_t i, j
    cdef int64_t x, a, cnt, sp_s = 0, sq_s = 0, sa_s = 0, sd_s = 0
    cdef ff_i128 zero = ff_i128_of(0)
    cdef ff_i128 qp_s = zero, qq_s = zero, aa_s = zero, dd_s = zero, ap_s = zero, dq_s = zero
    cdef ff_i128 b2 = zero, ab = zero, e2 = zero, de = zero
    j = 0
    for i in range(kp):  # S's positives: placement against S's negatives, A, and E
        while j < kn and nj[j] < pd[i]:
            j += 1
        x = 2 * j
        a = 2 * pd[i]
        sp_s += x
        qp_s = ff_i128_add(qp_s, ff_i128_mul(x, x))
        sa_s += a
        aa_s = ff_i128_add(aa_s, ff_i128_mul(a, a))
        ap_s = ff_i128_add(ap_s, ff_i128_mul(a, x))
        # E = 2 (kp - i) on negatives [d_(i-1), d_i)
        cnt = pd[i] - (pd[i - 1] if i > 0 else 0)
        a = psd[i] - (psd[i - 1] if i > 0 else 0)
        x = 2 * (kp - i)
        e2 = ff_i128_add(e2, ff_i128_scale(ff_i128_mul(x, x), cnt))
        de = ff_i128_add(de, ff_i128_mul(x, a))
    i = 0
    for j in range(kn):  # S's negatives: placement against S's positives, D, and B
        while i < kp and pi[i] < nc[j]:
            i += 1
        x = 2 * (kp - i)
        a = 2 * (n_pos - nc[j])
        sq_s += x
        qq_s = ff_i128_add(qq_s, ff_i128_mul(x, x))
        sd_s += a
        dd_s = ff_i128_add(dd_s, ff_i128_mul(a, a))
        dq_s = ff_i128_add(dq_s, ff_i128_mul(a, x))
        # B = 2 (j + 1) on positives [c_j, c_(j+1))
        cnt = (nc[j + 1] if j + 1 < kn else n_pos) - nc[j]
        a = (nsa[j + 1] if j + 1 < kn else sum_a) - nsa[j]
        x = 2 * (j + 1)
        b2 = ff_i128_add(b2, ff_i128_scale(ff_i128_mul(x, x), cnt))
        ab = ff_i128_add(ab, ff_i128_mul(x, a))
    tot[2] = kn
    tot[3] = kp
    tot[0] = n_neg - kn
    tot[1] = n_pos - kp
    ff_centre(sp_s, qp_s, kp, kn, &s[3], &q[3])
    ff_centre(sq_s, qq_s, kn, kp, &s[2], &q[2])
    # L's positives: A - B; sum B over all positives = sum D over S's negatives (sd_s)
    ff_centre((sum_a - sa_s) - (sd_s - sp_s),
              _sum3(ff_i128_sub(sum_a2, aa_s), ff_i128_scale(ff_i128_sub(ab, ap_s), -2),
                    ff_i128_sub(b2, qp_s)), tot[1], tot[0], &s[1], &q[1])
    ff_centre((sum_d - sd_s) - (sa_s - sq_s),
              _sum3(ff_i128_sub(sum_d2, dd_s), ff_i128_scale(ff_i128_sub(de, dq_s), -2),
                    ff_i128_sub(e2, qq_s)), tot[0], tot[1], &s[0], &q[0])


def permute_two_ranks(const uint8_t[::1] packed, Py_ssize_t n_pos,
                      const int64_t[:, ::1] sizes, bint within, bint studentize,
                      Py_ssize_t n_permutations, uint64_t key, unsigned int stream_id,
                      int n_threads, Py_ssize_t start, const int64_t[:, ::1] table):
    """`permute_two` for untied scores (same draws, same statistics) at O(drawn rows +
    n / 64) per permutation from `rank_tables(packed, n_pos)`. Returns (n_permutations,)."""
    cdef Py_ssize_t n = packed.shape[0], b, words = (n + 63) // 64 + 1, t
    cdef int small
    cdef Py_ssize_t k0, k1
    small, k0, k1 = _drawn_group(sizes, n, n_pos, within)
    if table.shape[0] != n or table.shape[1] != 2:
        raise ValueError("table does not match packed: use rank_tables(packed, n_pos)")
    cdef int64_t npos_all = n_pos, nneg_all = n - n_pos, sum_a = 0, sum_d = 0, x
    cdef ff_i128 sum_a2 = ff_i128_of(0), sum_d2 = ff_i128_of(0)
    with nogil:
        for t in range(n_pos):
            x = 2 * table[t, 0]
            sum_a += x
            sum_a2 = ff_i128_add(sum_a2, ff_i128_mul(x, x))
        for t in range(n_pos, n):
            x = 2 * (npos_all - table[t, 0])
            sum_d += x
            sum_d2 = ff_i128_add(sum_d2, ff_i128_mul(x, x))
    cdef Py_ssize_t kmax = k0 + k1 + 1, kp, kn
    out = np.empty(n_permutations, dtype=np.float64)
    cdef double[::1] o = out
    cdef const int64_t *tab = &table[0, 0] if n else NULL
    cdef uint64_t *bits
    cdef int64_t *work
    cdef int64_t *ibuf
    cdef double *dbuf
    cdef ff_fast_t *stream
    with nogil, parallel(num_threads=n_threads):
        bits = <uint64_t *> malloc(words * sizeof(uint64_t))
        work = <int64_t *> malloc((7 * kmax + 4) * sizeof(int64_t))
        ibuf = <int64_t *> malloc(4 * sizeof(int64_t))
        dbuf = <double *> malloc(8 * sizeof(double))
        stream = <ff_fast_t *> malloc(sizeof(ff_fast_t))
        for b in prange(n_permutations, schedule='static'):
            _draw_small(stream, key, stream_id, <uint64_t> (start + b), bits, words, n, n_pos,
                        within, k0, k1)
            kn = _decode_bits(bits, (n + 63) >> 6, work + 6 * kmax)
            kp = _count_less(work + 6 * kmax, kn, n_pos)
            kn = kn - kp
            _gather_rows(tab, work + 6 * kmax, kp, 0, work, work + kmax, work + 2 * kmax)
            _gather_rows(tab, work + 6 * kmax + kp, kn, n_pos, work + 3 * kmax,
                         work + 4 * kmax, work + 5 * kmax)
            _rank_sums(work, work + kmax, work + 2 * kmax, kp, work + 3 * kmax,
                       work + 4 * kmax, work + 5 * kmax, kn, sum_a, sum_a2, sum_d, sum_d2,
                       npos_all, nneg_all, ibuf, dbuf, dbuf + 4)  # S is group 1 here
            o[b] = _pair_stat(1 - small, small, ibuf, dbuf, dbuf + 4, studentize)
        free(bits)
        free(work)
        free(ibuf)
        free(dbuf)
        free(stream)
    return out
