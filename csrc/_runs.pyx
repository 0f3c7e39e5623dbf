"""Exact DeLong placement sums of rows held as sorted runs: one k-way merge, O(n log k).

Each run is a batch's rows sorted by score: `score` (float64, ascending, no NaN) and `code`
(uint16: 2 * cell + label, the cell a combination of group codes). The runs are merged
through a binary heap of the runs' next scores, and the merged stream is swept once: rows
with the same score (in any runs) form a tie block, and per group g (a cell belongs to
``cell_groups[cell, :]``, one group per attribute) a row's DeLong placement in half-units is

    positive: L = 2 * (negatives of g below the block) + (negatives of g in the block)
    negative: M = 2 * (positives of g above the block) + (positives of g in the block)

Per group the sweep adds up L and L^2 over the positives and M and M^2 over the negatives,
in integers (the squares in 128 bits, two uint64 words), so the sums do not depend on how
the rows were cut into runs: one run sorted whole gives the same integers as k runs merged.
"""
import numpy as np

from libc.stdint cimport int32_t, int64_t, uint16_t, uint64_t
from libc.stdlib cimport free, malloc

cdef uint64_t LOW32 = 0xFFFFFFFF


cdef inline void _add128(uint64_t *lo, uint64_t *hi, uint64_t x) noexcept nogil:
    cdef uint64_t s = lo[0] + x
    hi[0] += s < lo[0]
    lo[0] = s


cdef inline void _add_mul128(uint64_t *lo, uint64_t *hi, uint64_t a, uint64_t b) noexcept nogil:
    """(lo, hi) += a * b exactly, for any a and b < 2^32."""
    cdef uint64_t p0 = (a & LOW32) * b, p1 = (a >> 32) * b
    _add128(lo, hi, p0)
    _add128(lo, hi, p1 << 32)
    hi[0] += p1 >> 32


cdef struct Sweep:
    int64_t *tot      # (G, 2): negatives, positives of each group (all runs)
    int64_t *below    # (G, 2): passed so far
    int64_t *eq       # (G, 2): in the current tie block
    int32_t *touched  # groups met in the current block
    char *seen
    int n_touched
    int64_t *lin      # (G, 2): sum of L over positives, sum of M over negatives
    uint64_t *sq      # (G, 4): L^2 (lo, hi) over positives, M^2 (lo, hi) over negatives


cdef void _flush(Sweep *w) noexcept nogil:
    cdef int t, g
    cdef int64_t en, ep, place
    for t in range(w.n_touched):
        g = w.touched[t]
        en, ep = w.eq[2 * g], w.eq[2 * g + 1]
        if ep:
            place = 2 * w.below[2 * g] + en
            w.lin[2 * g + 1] += ep * place
            _add_mul128(&w.sq[4 * g], &w.sq[4 * g + 1], <uint64_t> place * <uint64_t> place, <uint64_t> ep)
        if en:
            place = 2 * (w.tot[2 * g + 1] - w.below[2 * g + 1] - ep) + ep
            w.lin[2 * g] += en * place
            _add_mul128(&w.sq[4 * g + 2], &w.sq[4 * g + 3], <uint64_t> place * <uint64_t> place,
                        <uint64_t> en)
        w.below[2 * g] += en
        w.below[2 * g + 1] += ep
        w.eq[2 * g] = 0
        w.eq[2 * g + 1] = 0
        w.seen[g] = 0
    w.n_touched = 0


cdef inline void _row(Sweep *w, uint16_t code, const int32_t *cg, int m) noexcept nogil:
    cdef int j, g
    cdef int lab = code & 1
    cdef const int32_t *row = cg + (code >> 1) * m
    for j in range(m):
        g = row[j]
        w.eq[2 * g + lab] += 1
        if not w.seen[g]:
            w.seen[g] = 1
            w.touched[w.n_touched] = g
            w.n_touched += 1


cdef inline void _sift(int *heap, int size, int i, const double **sc, const int64_t *pos) noexcept nogil:
    cdef int c, r = heap[i]
    cdef double v = sc[r][pos[r]]
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and sc[heap[c + 1]][pos[heap[c + 1]]] < sc[heap[c]][pos[heap[c]]]:
            c += 1
        if not sc[heap[c]][pos[heap[c]]] < v:
            break
        heap[i] = heap[c]
        i = c
    heap[i] = r


cdef void _merge(int k, const double **sc, const uint16_t **cd, const int64_t *length,
                 int64_t *pos, int *heap, Sweep *w, const int32_t *cg, int m) noexcept nogil:
    cdef int size = 0, i, r
    cdef double v, block = 0.0
    cdef bint started = False
    for r in range(k):
        pos[r] = 0
        if length[r] > 0:
            heap[size] = r
            size += 1
    i = size // 2 - 1
    while i >= 0:
        _sift(heap, size, i, sc, pos)
        i -= 1
    while size > 0:
        r = heap[0]
        v = sc[r][pos[r]]
        if not started or v != block:
            _flush(w)
            block, started = v, True
        _row(w, cd[r][pos[r]], cg, m)
        pos[r] += 1
        if pos[r] == length[r]:
            size -= 1
            heap[0] = heap[size]
        if size > 0:
            _sift(heap, size, 0, sc, pos)
    _flush(w)


def merge_placements(list scores, list codes, const int32_t[:, ::1] cell_groups, int n_groups,
                     const int64_t[:, ::1] totals):
    """Per group: (lin, sq) placement sums of the rows of the sorted runs, merged.

    Parameters
    ----------
    scores, codes : lists of k arrays
        Run r: ``scores[r]`` float64 ascending without NaN, ``codes[r]`` uint16
        ``2 * cell + label``, of equal length (a run may be empty).
    cell_groups : int32 array (n_cells, m)
        The groups (in [0, n_groups)) of each cell, one per attribute.
    totals : int64 array (n_groups, 2)
        Negatives and positives of each group over all runs.

    Returns
    -------
    lin : int64 array (n_groups, 2)
        Sum of M over the negatives, sum of L over the positives.
    sq : uint64 array (n_groups, 4)
        L^2 over the positives and M^2 over the negatives as (lo, hi) words:
        ``sq[g, 0] + 2**64 * sq[g, 1]`` and ``sq[g, 2] + 2**64 * sq[g, 3]``.
    """
    cdef int k = len(scores), r, m = cell_groups.shape[1]
    if len(codes) != k:
        raise ValueError("scores and codes must hold the same number of runs")
    if totals.shape[0] != n_groups or totals.shape[1] != 2:
        raise ValueError("totals must have shape (n_groups, 2)")
    if cell_groups.shape[0] and (np.min(cell_groups) < 0 or np.max(cell_groups) >= n_groups):
        raise ValueError(f"cell_groups must hold group codes in [0, {n_groups})")
    keep_s = [np.ascontiguousarray(s, dtype=np.float64) for s in scores]
    keep_c = [np.ascontiguousarray(c, dtype=np.uint16) for c in codes]
    lengths = np.array([len(s) for s in keep_s], dtype=np.int64)
    if any(len(c) != n for c, n in zip(keep_c, lengths)):
        raise ValueError("each run's scores and codes must have the same length")
    for c in keep_c:
        if len(c) and (int(c.max()) >> 1) >= cell_groups.shape[0]:
            raise ValueError("a code names a cell beyond cell_groups")
    lin_np = np.zeros((n_groups, 2), dtype=np.int64)
    sq_np = np.zeros((n_groups, 4), dtype=np.uint64)
    below_np = np.zeros((n_groups, 2), dtype=np.int64)
    eq_np = np.zeros((n_groups, 2), dtype=np.int64)
    touched_np = np.zeros(max(n_groups, 1), dtype=np.int32)
    seen_np = np.zeros(max(n_groups, 1), dtype=np.int8)
    tot_np = np.ascontiguousarray(totals, dtype=np.int64)
    cdef int64_t[:, ::1] lin = lin_np, below = below_np, eq = eq_np, tot = tot_np
    cdef uint64_t[:, ::1] sq = sq_np
    cdef int32_t[::1] touched = touched_np
    cdef signed char[::1] seen_v = seen_np
    cdef int64_t[::1] length = lengths
    cdef int64_t[::1] pos = np.zeros(max(k, 1), dtype=np.int64)
    cdef int[::1] heap = np.zeros(max(k, 1), dtype=np.intc)
    cdef const double **sc = <const double **> malloc(max(k, 1) * sizeof(double *))
    cdef const uint16_t **cd = <const uint16_t **> malloc(max(k, 1) * sizeof(uint16_t *))
    cdef const double[::1] s_view
    cdef const uint16_t[::1] c_view
    cdef Sweep w
    if sc == NULL or cd == NULL:
        free(sc)
        free(cd)
        raise MemoryError()
    try:
        for r in range(k):
            if lengths[r]:
                s_view = keep_s[r]
                c_view = keep_c[r]
                sc[r], cd[r] = &s_view[0], &c_view[0]
            else:
                sc[r], cd[r] = NULL, NULL
        if n_groups == 0:
            return lin_np, sq_np
        w.tot, w.below, w.eq = &tot[0, 0], &below[0, 0], &eq[0, 0]
        w.touched, w.seen, w.n_touched = &touched[0], <char *> &seen_v[0], 0
        w.lin, w.sq = &lin[0, 0], &sq[0, 0]
        with nogil:
            _merge(k, sc, cd, &length[0], &pos[0], &heap[0], &w,
                   &cell_groups[0, 0] if cell_groups.shape[0] else NULL, m)
    finally:
        free(sc)
        free(cd)
    return lin_np, sq_np
