"""Joint permutation null of every slice's statistic, drawn on the cube of counts.

A slice is a set of joint cells of the cube (one cell per observed combination of the
features' levels). Under the null, the metric's successes are exchangeable among its units
(the rows of its denominator: for the TPR, the predictions among the rows with y_true = 1),
so the successes of the joint cells are one multivariate hypergeometric draw: sequential
hypergeometric draws over the cells, O(cells) per permutation however many rows. Every
slice's count is then a sum of its cells' counts (a map per attribute set), and every
slice's statistic is standardized by its exact null mean and standard deviation, so the
maximum over slices gives single-step max-T control of the family-wise error.

Permutation b draws from the random stream (key, stream_id, start + b), so results do not
depend on which thread computes it.
"""
import numpy as np

from cython.parallel cimport parallel, prange, threadid
from libc.math cimport fabs
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport calloc, free, malloc

from numpy.random.c_distributions cimport random_hypergeometric

from _core cimport ff_stream_init, ff_stream_t

cdef enum:
    TWO_SIDED = 0
    GREATER = 1
    LESS = 2


cdef inline double oriented(double z, int alternative) noexcept nogil:
    if alternative == TWO_SIDED:
        return fabs(z)
    if alternative == GREATER:
        return z
    return -z


cdef inline void draw_cells(ff_stream_t *stream, const int64_t[::1] units, int64_t n_success,
                            int64_t *x) noexcept nogil:
    """One multivariate hypergeometric draw of n_success successes over the cells' units."""
    cdef Py_ssize_t j, n_cells = units.shape[0]
    cdef int64_t left = 0, good = n_success
    for j in range(n_cells):
        left += units[j]
    for j in range(n_cells):
        if good == 0 or units[j] == 0:
            x[j] = 0
        elif good == left:
            x[j] = units[j]
        elif units[j] == left:
            x[j] = good
        else:
            x[j] = random_hypergeometric(&stream.bitgen, good, left - good, units[j])
        good -= x[j]
        left -= units[j]


cdef str check_inputs(const int64_t[::1] units, int64_t n_success, const int32_t[:, ::1] slice_map,
                      const double[::1] mean, const double[::1] inv_sd, const double[::1] threshold,
                      int alternative, Py_ssize_t n_permutations):
    cdef Py_ssize_t n_slices = mean.shape[0]
    total = int(np.asarray(units).sum())
    if (np.asarray(units) < 0).any():
        return "units must be non-negative"
    if not 0 <= n_success <= total:
        return f"n_success must lie in [0, {total}], got {n_success}"
    if slice_map.shape[0] and slice_map.shape[1] != units.shape[0]:
        return f"slice_map has {slice_map.shape[1]} columns for {units.shape[0]} cells"
    if inv_sd.shape[0] != n_slices or threshold.shape[0] != n_slices:
        return "mean, inv_sd and threshold must have one entry per slice"
    if slice_map.size and not (-1 <= np.asarray(slice_map).min() and
                               np.asarray(slice_map).max() < n_slices):
        return f"slice_map must hold slice indices in [-1, {n_slices})"
    if alternative not in (TWO_SIDED, GREATER, LESS):
        return f"alternative must be 0, 1 or 2, got {alternative}"
    if n_permutations < 0:
        return f"n_permutations must be >= 0, got {n_permutations}"
    return None


def slice_null(const int64_t[::1] units, int64_t n_success, const int32_t[:, ::1] slice_map,
               const double[::1] mean, const double[::1] inv_sd, const double[::1] threshold,
               int alternative, Py_ssize_t n_permutations, uint64_t key,
               unsigned int stream_id, int n_threads=1, Py_ssize_t start=0,
               bint return_null=False):
    """Maxima and exceedances of the slices' statistics over joint permutations.

    units: (n_cells,) units of the metric per joint cell; n_success: their total successes.
    slice_map: (n_sets, n_cells), the slice (0 .. n_slices-1) of each cell in each attribute
    set, -1 for none. The statistic of slice s is (count_s - mean[s]) * inv_sd[s], oriented
    by `alternative` (0 two-sided |z|, 1 greater z, 2 less -z).

    Returns (maxima, exceed, null): maxima (n_permutations,) of the oriented statistics over
    the slices; exceed (n_slices,) int64, the number of permutations whose oriented statistic
    of slice s is >= threshold[s]; null (n_permutations, n_slices) of the statistics when
    return_null, else None.
    """
    problem = check_inputs(units, n_success, slice_map, mean, inv_sd, threshold, alternative,
                           n_permutations)
    if problem is not None:
        raise ValueError(problem)
    cdef Py_ssize_t n_cells = units.shape[0], n_sets = slice_map.shape[0]
    cdef Py_ssize_t n_slices = mean.shape[0]
    maxima = np.full(n_permutations, -np.inf)
    counts = np.zeros((max(n_threads, 1), n_slices), dtype=np.int64)
    null = np.empty((n_permutations if return_null else 0, n_slices), dtype=np.float64)
    cdef double[::1] mx = maxima
    cdef int64_t[:, ::1] cnt = counts
    cdef double[:, ::1] nl = null
    cdef Py_ssize_t b, j, s, t
    cdef int tid
    cdef int32_t target
    cdef double z, best
    cdef int64_t *x
    cdef int64_t *sums
    cdef ff_stream_t *stream
    with nogil, parallel(num_threads=n_threads):
        x = <int64_t *> malloc((n_cells + 1) * sizeof(int64_t))
        sums = <int64_t *> malloc((n_slices + 1) * sizeof(int64_t))
        stream = <ff_stream_t *> malloc(sizeof(ff_stream_t))
        for b in prange(n_permutations, schedule='static'):
            tid = threadid()
            ff_stream_init(stream, key, stream_id, <uint64_t> (start + b))
            draw_cells(stream, units, n_success, x)
            for s in range(n_slices + 1):
                sums[s] = 0
            for t in range(n_sets):
                for j in range(n_cells):
                    target = slice_map[t, j]
                    if target >= 0:
                        sums[target] += x[j]
            best = -1e300
            for s in range(n_slices):
                z = oriented((<double> sums[s] - mean[s]) * inv_sd[s], alternative)
                if return_null:
                    nl[b, s] = z
                if z >= threshold[s]:
                    cnt[tid, s] += 1
                if z > best:
                    best = z
            mx[b] = best
        free(x)
        free(sums)
        free(stream)
    return maxima, counts.sum(axis=0), (null if return_null else None)
