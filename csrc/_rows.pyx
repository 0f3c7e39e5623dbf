"""Row-level permutations for weighted confusion-matrix metrics.

With sample weights a statistic needs each group's sums of w and w^2 per cell, which depend
on which rows a group receives, not only on how many. Each permutation assigns the rows of
every stratum to groups by a partial Fisher-Yates shuffle of a row-index buffer: the groups
other than the largest draw their rows one at a time (O(rows of the smaller groups) per
permutation), their sums are updated incrementally, and the largest group's sums follow
from the stratum totals. The swaps are then undone, so every permutation starts from the
identity and permutation b depends only on its random stream (key, stream_id, b).
"""
import numpy as np

from cython.parallel cimport parallel, prange
from libc.stdint cimport int32_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from _core cimport (
    ff_bounded_u32, ff_metric_statistic, ff_metric_t, ff_stream_init, ff_stream_t,
    metric_from_spec,
)


def permute_rows(const uint8_t[::1] cell, const double[::1] weight,
                 const Py_ssize_t[::1] codes, Py_ssize_t n_groups, tuple strata, tuple spec,
                 const Py_ssize_t[:, ::1] pairs, Py_ssize_t n_permutations,
                 uint64_t key, unsigned int stream_id, int n_threads=1):
    """Statistics of `pairs` under random permutations of group labels within strata.

    cell, weight, codes: per-row cell index (2*y_true + y_pred), weight and group code.
    strata: tuple of cell bit masks (rows whose cell is in a mask are permuted among
    themselves; other rows keep their group). Returns an (n_permutations, n_pairs) array.
    """
    cdef Py_ssize_t n = cell.shape[0], n_pairs = pairs.shape[0], width = n_groups * 4
    cdef ff_metric_t metric = metric_from_spec(spec)
    cdef Py_ssize_t i, k, g, c, b, p, s, pos, j, first, stop, r
    cdef int32_t tmp, row
    cdef double wi

    # Rows of each stratum, stored contiguously; group sizes per stratum; fixed sums.
    stratum_of_cell = np.full(4, -1, dtype=np.intp)
    for s, mask in enumerate(strata):
        for c in range(4):
            if mask & (1 << c):
                stratum_of_cell[c] = s
    cell_np = np.asarray(cell)
    code_np = np.asarray(codes)
    weight_np = np.asarray(weight)
    row_stratum = stratum_of_cell[cell_np]
    order = np.argsort(row_stratum, kind="stable")
    n_strata = len(strata)
    bounds = np.searchsorted(row_stratum[order], np.arange(n_strata + 1)).astype(np.intp)
    sizes = np.zeros((n_strata, n_groups), dtype=np.intp)
    for s in range(n_strata):
        rows = order[bounds[s]:bounds[s + 1]]
        sizes[s] = np.bincount(code_np[rows], minlength=n_groups)
    # Groups in ascending size per stratum; the largest is filled by subtraction.
    group_order = np.ascontiguousarray(np.argsort(sizes, axis=1, kind="stable"), dtype=np.intp)
    fixed = np.zeros((2, width))
    totals = np.zeros((n_strata, 2, 4))
    outside = row_stratum < 0
    np.add.at(fixed[0], code_np[outside] * 4 + cell_np[outside], weight_np[outside])
    np.add.at(fixed[1], code_np[outside] * 4 + cell_np[outside], weight_np[outside] ** 2)
    for s in range(n_strata):
        rows = order[bounds[s]:bounds[s + 1]]
        np.add.at(totals[s, 0], cell_np[rows], weight_np[rows])
        np.add.at(totals[s, 1], cell_np[rows], weight_np[rows] ** 2)
    s_cell_np = np.ascontiguousarray(cell_np[order])
    s_weight_np = np.ascontiguousarray(weight_np[order])
    cdef const uint8_t[::1] s_cell = s_cell_np
    cdef const double[::1] s_weight = s_weight_np
    cdef const Py_ssize_t[::1] bnd = bounds
    cdef const Py_ssize_t[:, ::1] size = sizes
    cdef const Py_ssize_t[:, ::1] gorder = group_order
    cdef const double[:, ::1] fix = fixed
    cdef const double[:, :, ::1] tot = totals
    cdef Py_ssize_t n_rows = bounds[n_strata]
    cdef Py_ssize_t ns = n_strata

    out = np.empty((n_permutations, n_pairs), dtype=np.float64)
    cdef double[:, ::1] o = out
    cdef double *w
    cdef double *w2
    cdef int32_t *buf
    cdef int32_t *swaps
    cdef ff_stream_t *stream
    cdef Py_ssize_t last
    with nogil, parallel(num_threads=n_threads):
        w = <double *> malloc(2 * width * sizeof(double))
        w2 = w + width
        buf = <int32_t *> malloc((n_rows + 1) * sizeof(int32_t))
        swaps = <int32_t *> malloc((n_rows + 1) * sizeof(int32_t))
        stream = <ff_stream_t *> malloc(sizeof(ff_stream_t))
        for k in range(n_rows):
            buf[k] = <int32_t> k
        for b in prange(n_permutations, schedule='static'):
            ff_stream_init(stream, key, stream_id, <uint64_t> b)
            memcpy(w, &fix[0, 0], width * sizeof(double))
            memcpy(w2, &fix[1, 0], width * sizeof(double))
            for s in range(ns):
                first = bnd[s]
                stop = bnd[s + 1]
                pos = first
                last = gorder[s, n_groups - 1]
                for c in range(4):
                    w[last * 4 + c] += tot[s, 0, c]
                    w2[last * 4 + c] += tot[s, 1, c]
                for r in range(n_groups - 1):
                    g = gorder[s, r]
                    for i in range(size[s, g]):
                        j = pos + <Py_ssize_t> ff_bounded_u32(&stream.philox,
                                                              <uint32_t> (stop - pos))
                        tmp = buf[pos]
                        buf[pos] = buf[j]
                        buf[j] = tmp
                        swaps[pos] = <int32_t> j
                        row = buf[pos]
                        wi = s_weight[row]
                        w[g * 4 + s_cell[row]] += wi
                        w2[g * 4 + s_cell[row]] += wi * wi
                        w[last * 4 + s_cell[row]] -= wi
                        w2[last * 4 + s_cell[row]] -= wi * wi
                        pos = pos + 1
                # Undo the swaps so the buffer is the identity again.
                while pos > first:
                    pos = pos - 1
                    j = swaps[pos]
                    tmp = buf[pos]
                    buf[pos] = buf[j]
                    buf[j] = tmp
            for p in range(n_pairs):
                o[b, p] = ff_metric_statistic(&metric, w, w2,
                                              <int>pairs[p, 0], <int>pairs[p, 1])
        free(w)
        free(buf)
        free(swaps)
        free(stream)
    return out
