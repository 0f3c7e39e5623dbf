"""Row-level permutations for weighted confusion-matrix metrics.

With sample weights a statistic needs each group's sums of w and w^2 per cell, which depend
on which rows a group receives, not only on how many. Within each stratum, the rows of all
groups but the largest are a uniformly random subset of size k; permutation b draws it with
Floyd's algorithm (k draws, membership in a per-thread bitmap of the stratum's rows, so no
row buffer is shuffled or restored; draws come from the fast stream of ff_random.h).
With two groups the bitmap is then swept in row order (rows are stored sorted by cell, so the sweep streams through memory and clears the
bitmap as it goes); with more groups the chosen rows are dealt out in random order. The
largest group's sums follow from the stratum totals. Permutation b uses only the random
stream (key, stream_id, b).
"""
import numpy as np

from cython.parallel cimport parallel, prange
from libc.stdint cimport uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy, memset

from _core cimport (
    check_codes, check_pairs, check_small_codes, check_strata, ff_ctz64, ff_fast_init, ff_fast_t,
    ff_floyd_bits, ff_metric_statistic, ff_metric_t, ff_shuffle_u32, metric_from_spec,
)


def permute_rows(const uint8_t[::1] cell, const double[::1] weight,
                 const Py_ssize_t[::1] codes, Py_ssize_t n_groups, tuple strata, tuple spec,
                 const Py_ssize_t[:, ::1] pairs, Py_ssize_t n_permutations,
                 uint64_t key, unsigned int stream_id, int n_threads=1, Py_ssize_t start=0):
    """Statistics of `pairs` under random permutations of group labels within strata.

    Permutation b draws from stream (key, stream_id, start + b). cell, weight, codes:
    per-row cell index (2*y_true + y_pred), weight and group code.
    strata: tuple of cell bit masks (rows whose cell is in a mask are permuted among
    themselves; other rows keep their group). Returns an (n_permutations, n_pairs) array.
    """
    cdef Py_ssize_t n_pairs = pairs.shape[0], width = n_groups * 4
    cdef ff_metric_t metric = metric_from_spec(spec)
    cdef Py_ssize_t i, g, c, b, p, s, r, first, n_s, k, taken, words
    problem = (check_codes(codes, n_groups, cell.shape[0]) or check_small_codes(cell, 4, "cell")
               or check_strata(strata) or check_pairs(pairs, n_groups))
    if problem is None and weight.shape[0] != cell.shape[0]:
        problem = f"weight has {weight.shape[0]} entries for {cell.shape[0]} rows"
    if problem is None and n_permutations < 0:
        problem = f"n_permutations must be >= 0, got {n_permutations}"
    if problem is not None:
        raise ValueError(problem)

    # Rows of each stratum, stored contiguously; group sizes per stratum; fixed sums.
    stratum_of_cell = np.full(4, -1, dtype=np.intp)
    for s, mask in enumerate(strata):
        for c in range(4):
            if mask & (1 << c):
                stratum_of_cell[c] = s
    cell_np, code_np, weight_np = np.asarray(cell), np.asarray(codes), np.asarray(weight)
    row_stratum = stratum_of_cell[cell_np]
    order = np.lexsort((cell_np, row_stratum))  # by stratum, then by cell
    n_strata = len(strata)
    bounds = np.searchsorted(row_stratum[order], np.arange(n_strata + 1)).astype(np.intp)
    sizes = np.zeros((n_strata, n_groups), dtype=np.intp)
    for s in range(n_strata):
        sizes[s] = np.bincount(code_np[order[bounds[s]:bounds[s + 1]]], minlength=n_groups)
    # Groups in ascending size per stratum; the largest is filled by subtraction.
    group_order = np.ascontiguousarray(np.argsort(sizes, axis=1, kind="stable"), dtype=np.intp)
    fixed = np.zeros((2, width))
    outside = row_stratum < 0
    np.add.at(fixed[0], code_np[outside] * 4 + cell_np[outside], weight_np[outside])
    np.add.at(fixed[1], code_np[outside] * 4 + cell_np[outside], weight_np[outside] ** 2)
    totals = np.zeros((n_strata, 2, 4))
    for s in range(n_strata):
        rows = order[bounds[s]:bounds[s + 1]]
        np.add.at(totals[s, 0], cell_np[rows], weight_np[rows])
        np.add.at(totals[s, 1], cell_np[rows], weight_np[rows] ** 2)
    cdef Py_ssize_t n_rows = bounds[n_strata]
    cdef const Py_ssize_t[::1] bnd = bounds
    cdef const Py_ssize_t[:, ::1] size = sizes
    cdef const Py_ssize_t[:, ::1] gorder = group_order
    cdef const double[:, ::1] fix = fixed
    cdef const double[:, :, ::1] tot = totals
    cdef Py_ssize_t ns = n_strata
    # Row ranges of each cell within each stratum (rows are sorted by cell).
    cell_bounds = np.zeros((max(n_strata, 1), 5), dtype=np.intp)
    for s in range(n_strata):
        cells_s = cell_np[order[bounds[s]:bounds[s + 1]]]
        cell_bounds[s] = np.searchsorted(cells_s, np.arange(5))
    cdef const Py_ssize_t[:, ::1] cbnd = cell_bounds
    cdef Py_ssize_t lo, hi, w_first, w_last
    cdef double acc, acc2
    cdef uint64_t keep
    s_weight_np = np.ascontiguousarray(weight_np[order[:n_rows]])
    s_cell_np = np.ascontiguousarray(cell_np[order[:n_rows]])
    cdef const double[::1] s_weight = s_weight_np
    cdef const uint8_t[::1] s_cell = s_cell_np
    cdef Py_ssize_t word, bit
    cdef uint64_t bits
    cdef double wi
    cdef Py_ssize_t max_stratum = int(np.diff(bounds).max()) if n_strata else 0
    words = max_stratum // 64 + 1

    out = np.empty((n_permutations, n_pairs), dtype=np.float64)
    cdef double[:, ::1] o = out
    cdef double *w
    cdef double *w2
    cdef uint64_t *taken_bits
    cdef uint32_t *chosen
    cdef ff_fast_t *stream
    cdef Py_ssize_t last
    with nogil, parallel(num_threads=n_threads):
        w = <double *> malloc(2 * width * sizeof(double))
        w2 = w + width
        taken_bits = <uint64_t *> calloc(words, sizeof(uint64_t))
        chosen = <uint32_t *> malloc((max_stratum + 1) * sizeof(uint32_t))
        stream = <ff_fast_t *> malloc(sizeof(ff_fast_t))
        for b in prange(n_permutations, schedule='static'):
            ff_fast_init(stream, key, stream_id, <uint64_t> (start + b))
            memcpy(w, &fix[0, 0], width * sizeof(double))
            memcpy(w2, &fix[1, 0], width * sizeof(double))
            for s in range(ns):
                first = bnd[s]
                n_s = bnd[s + 1] - first
                last = gorder[s, n_groups - 1]
                k = n_s - size[s, last]
                for c in range(4):
                    w[last * 4 + c] += tot[s, 0, c]
                    w2[last * 4 + c] += tot[s, 1, c]
                # Floyd: a uniform k-subset of 0..n_s-1.
                ff_floyd_bits(stream, taken_bits, 0, n_s, k, chosen)
                if n_groups == 2:
                    # Sweep the bitmap in row order, one cell's row range at a time.
                    g = gorder[s, 0]
                    for c in range(4):
                        lo = cbnd[s, c]
                        hi = cbnd[s, c + 1]
                        if hi <= lo:
                            continue
                        acc = 0.0
                        acc2 = 0.0
                        w_first = lo >> 6
                        w_last = (hi - 1) >> 6
                        for word in range(w_first, w_last + 1):
                            bits = taken_bits[word]
                            if word == w_first:
                                bits = bits & (~(<uint64_t> 0) << (lo & 63))
                            if word == w_last and (hi & 63):
                                bits = bits & ((<uint64_t> 1 << (hi & 63)) - 1)
                            while bits:
                                bit = ff_ctz64(bits)
                                bits = bits & (bits - 1)
                                wi = s_weight[first + word * 64 + bit]
                                acc = acc + wi
                                acc2 = acc2 + wi * wi
                        w[g * 4 + c] += acc
                        w2[g * 4 + c] += acc2
                        w[last * 4 + c] -= acc
                        w2[last * 4 + c] -= acc2
                    memset(taken_bits, 0, (n_s // 64 + 1) * sizeof(uint64_t))
                    continue
                # More than two groups: deal the chosen rows out in random order.
                ff_shuffle_u32(stream, chosen, k)
                taken = 0
                for r in range(n_groups - 1):
                    g = gorder[s, r]
                    for i in range(taken, taken + size[s, g]):
                        wi = s_weight[first + chosen[i]]
                        c = s_cell[first + chosen[i]]
                        w[g * 4 + c] += wi
                        w2[g * 4 + c] += wi * wi
                        w[last * 4 + c] -= wi
                        w2[last * 4 + c] -= wi * wi
                    taken = taken + size[s, g]
                for i in range(k):
                    taken_bits[chosen[i] >> 6] = 0
            for p in range(n_pairs):
                o[b, p] = ff_metric_statistic(&metric, w, w2,
                                              <int>pairs[p, 0], <int>pairs[p, 1])
        free(w)
        free(taken_bits)
        free(chosen)
        free(stream)
    return out
