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

from _core cimport (
    ff_fast_init, ff_fast_t, ff_floyd_bits, ff_popcount64, ff_stream_init, ff_stream_t,
)

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


cdef inline int64_t bits_before(const uint64_t *bits, int64_t end, int64_t *word,
                                int64_t *count) noexcept nogil:
    """Set bits below `end`, scanning on from the previous call's word (ends ascend)."""
    while word[0] < (end >> 6):
        count[0] += ff_popcount64(bits[word[0]])
        word[0] += 1
    if end & 63:
        return count[0] + ff_popcount64(bits[word[0]] & ((<uint64_t> 1 << (end & 63)) - 1))
    return count[0]


cdef inline void draw_cells_subset(ff_fast_t *fast, const int64_t[::1] units, int64_t n_success,
                                   int64_t n_units, uint64_t *bits, int64_t *x) noexcept nogil:
    """The same law as draw_cells by a uniform subset of the units (Floyd): the successes,
    or the failures when fewer, laid over the cells in order; O(min(K, N - K) + N / 64)."""
    cdef Py_ssize_t j
    cdef int64_t w, start = 0, below = 0, now, word = 0, count = 0
    cdef bint flip = n_success > n_units - n_success
    for w in range((n_units + 63) >> 6):
        bits[w] = 0
    ff_floyd_bits(fast, bits, 0, n_units, n_units - n_success if flip else n_success, NULL)
    for j in range(units.shape[0]):
        start += units[j]
        now = bits_before(bits, start, &word, &count)
        x[j] = units[j] - (now - below) if flip else now - below
        below = now


ctypedef struct Scratch:
    # one thread's buffers of the slice kernels
    int64_t *x  # the drawn successes per cell
    int64_t *sums  # per slice
    ff_stream_t *stream
    ff_fast_t *fast
    uint64_t *bits  # the subset draw's bitmap of units


cdef inline Scratch *scratch_new(Py_ssize_t n_cells, Py_ssize_t n_slices, int64_t n_units,
                                 bint subset) noexcept nogil:
    cdef Scratch *w = <Scratch *> malloc(sizeof(Scratch))
    w.x = <int64_t *> malloc((n_cells + 1) * sizeof(int64_t))
    w.sums = <int64_t *> malloc((n_slices + 1) * sizeof(int64_t))
    w.stream = <ff_stream_t *> malloc(sizeof(ff_stream_t))
    w.fast = <ff_fast_t *> malloc(sizeof(ff_fast_t))
    w.bits = <uint64_t *> malloc(((((n_units + 63) >> 6) + 1) if subset else 1) * sizeof(uint64_t))
    return w


cdef inline void scratch_free(Scratch *w) noexcept nogil:
    free(w.x)
    free(w.sums)
    free(w.stream)
    free(w.fast)
    free(w.bits)
    free(w)


cdef inline void draw(Scratch *w, bint subset, uint64_t key, unsigned int stream_id,
                      uint64_t index, const int64_t[::1] units, int64_t n_success,
                      int64_t n_units) noexcept nogil:
    """Permutation `index`: the successes of every cell in w.x, by the subset draw or the
    sequential hypergeometric draws (the same law, different streams)."""
    if subset:
        ff_fast_init(w.fast, key, stream_id, index)
        draw_cells_subset(w.fast, units, n_success, n_units, w.bits, w.x)
    else:
        ff_stream_init(w.stream, key, stream_id, index)
        draw_cells(w.stream, units, n_success, w.x)


cdef inline double tally(const int64_t *sums, const double[::1] mean, const double[::1] inv_sd,
                         const double[::1] threshold, int alternative, int64_t[:, ::1] cnt,
                         int tid, double[:, ::1] null, Py_ssize_t row) noexcept nogil:
    """The largest oriented statistic over the slices; each slice's exceedance of its
    threshold counted in cnt[tid], the statistics written to null[row] when row >= 0."""
    cdef Py_ssize_t s
    cdef double z, best = -1e300
    for s in range(mean.shape[0]):
        z = oriented((<double> sums[s] - mean[s]) * inv_sd[s], alternative)
        if row >= 0:
            null[row, s] = z
        if z >= threshold[s]:
            cnt[tid, s] += 1
        if z > best:
            best = z
    return best


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


def check_subset(const int64_t[::1] units, bint subset):
    """The number of units; the subset draw needs fewer than 2^32."""
    total = int(np.asarray(units).sum())
    if subset and total >= 2**32 - 1:
        raise ValueError(f"subset draws need fewer than 2^32 units, got {total}")
    return total


def slice_null(const int64_t[::1] units, int64_t n_success, const int32_t[:, ::1] slice_map,
               const double[::1] mean, const double[::1] inv_sd, const double[::1] threshold,
               int alternative, Py_ssize_t n_permutations, uint64_t key,
               unsigned int stream_id, int n_threads=1, Py_ssize_t start=0,
               bint return_null=False, bint subset=False):
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
    cdef int64_t n_units = check_subset(units, subset)
    cdef Py_ssize_t n_cells = units.shape[0], n_sets = slice_map.shape[0]
    cdef Py_ssize_t n_slices = mean.shape[0]
    maxima = np.full(n_permutations, -np.inf)
    counts = np.zeros((max(n_threads, 1), n_slices), dtype=np.int64)
    null = np.empty((n_permutations if return_null else 0, n_slices), dtype=np.float64)
    cdef double[::1] mx = maxima
    cdef int64_t[:, ::1] cnt = counts
    cdef double[:, ::1] nl = null
    cdef Py_ssize_t b, j, s, t
    cdef int32_t target
    cdef Scratch *w
    cdef int64_t *x
    cdef int64_t *sums
    with nogil, parallel(num_threads=n_threads):
        w = scratch_new(n_cells, n_slices, n_units, subset)
        x = w.x
        sums = w.sums
        for b in prange(n_permutations, schedule='static'):
            draw(w, subset, key, stream_id, <uint64_t> (start + b), units, n_success, n_units)
            for s in range(n_slices + 1):
                sums[s] = 0
            for t in range(n_sets):
                for j in range(n_cells):
                    target = slice_map[t, j]
                    if target >= 0:
                        sums[target] += x[j]
            mx[b] = tally(sums, mean, inv_sd, threshold, alternative, cnt, threadid(), nl,
                          b if return_null else -1)
        scratch_free(w)
    return maxima, counts.sum(axis=0), (null if return_null else None)


cdef void leaf(const int64_t *buf, int64_t size, int64_t offset, const int32_t *leaf_map,
               int64_t *sums) noexcept nogil:
    cdef int64_t a
    cdef int32_t s
    for a in range(size):
        s = leaf_map[offset + a]
        if s >= 0:
            sums[s] += buf[a]


cdef void walk(int i, int n_axes, int max_depth, const int64_t *levels, const int64_t *tail,
               const int64_t *buf, int64_t size_kept, int kept, int64_t mask, int64_t **bufs,
               const int64_t *leaf_offset, const int32_t *leaf_map,
               int64_t *sums) noexcept nogil:
    """Every marginal of `buf` onto at most max_depth axes, depth first.

    buf holds the tensor whose axes are the kept axes among 0..i-1 (size_kept entries in
    all) followed by axes i..n_axes-1 (tail[i] entries). The keep branch reuses buf; the
    drop branch sums axis i into bufs[i + 1], which no node of the keep branch's subtree
    writes (a node at level k writes bufs[k + 1] only, and owns a buffer of a level <= k).
    """
    cdef int64_t a, b, l, width, n_level
    cdef int64_t *out
    cdef const int64_t *src
    if i == n_axes:
        if kept > 0:
            leaf(buf, size_kept, leaf_offset[mask], leaf_map, sums)
        return
    out = bufs[i + 1]
    if kept == max_depth:  # every remaining axis is summed out at once
        width = tail[i]
        for a in range(size_kept):
            out[a] = 0
            for b in range(width):
                out[a] += buf[a * width + b]
        leaf(out, size_kept, leaf_offset[mask], leaf_map, sums)
        return
    walk(i + 1, n_axes, max_depth, levels, tail, buf, size_kept * levels[i], kept + 1,
         mask | (<int64_t> 1 << i), bufs, leaf_offset, leaf_map, sums)
    n_level = levels[i]
    width = tail[i + 1]
    for a in range(size_kept):
        src = buf + a * n_level * width
        for b in range(width):
            out[a * width + b] = src[b]
        for l in range(1, n_level):
            for b in range(width):
                out[a * width + b] += src[l * width + b]
    walk(i + 1, n_axes, max_depth, levels, tail, out, size_kept, kept, mask, bufs,
         leaf_offset, leaf_map, sums)


def slice_null_dense(const int64_t[::1] units, int64_t n_success, const int64_t[::1] cell_index,
                     const int64_t[::1] levels, int max_depth, const int64_t[::1] leaf_offset,
                     const int32_t[::1] leaf_map, const double[::1] mean,
                     const double[::1] inv_sd, const double[::1] threshold, int alternative,
                     Py_ssize_t n_permutations, uint64_t key, unsigned int stream_id,
                     int n_threads=1, Py_ssize_t start=0, bint subset=False):
    """:func:`slice_null` with the slices' sums taken as marginals of the dense cube.

    cell_index: each cell's position in the dense tensor of shape `levels` (C order);
    leaf_offset[mask]: where in leaf_map the marginal onto the axes of bit mask `mask`
    starts (its entries, in C order over those axes, hold the slice of each marginal cell
    or -1). Same draws as slice_null, so the same results; cost per permutation about
    (cells + a few times the dense size) instead of (cells x attribute sets).
    Returns (maxima, exceed).
    """
    cdef Py_ssize_t n_axes = levels.shape[0], n_cells = units.shape[0]
    cdef Py_ssize_t n_slices = mean.shape[0]
    empty = np.zeros((0, n_cells), dtype=np.int32)
    problem = check_inputs(units, n_success, empty, mean, inv_sd, threshold, alternative,
                           n_permutations)
    tail_ = np.ones(n_axes + 1, dtype=np.int64)
    for k in range(n_axes - 1, -1, -1):
        tail_[k] = tail_[k + 1] * levels[k]
    if problem is None and (cell_index.shape[0] != n_cells or (n_cells and (
            np.asarray(cell_index).min() < 0 or np.asarray(cell_index).max() >= tail_[0]))):
        problem = f"cell_index must hold {n_cells} positions in [0, {tail_[0]})"
    if problem is None and (leaf_offset.shape[0] != (1 << n_axes) or not 1 <= max_depth <= n_axes):
        problem = "leaf_offset must have 2**len(levels) entries, 1 <= max_depth <= len(levels)"
    if problem is None and leaf_map.shape[0] and np.asarray(leaf_map).max() >= n_slices:
        problem = f"leaf_map must hold slice indices below {n_slices}"
    if problem is not None:
        raise ValueError(problem)
    cdef int64_t n_units = check_subset(units, subset)
    _check_leaves(np.asarray(leaf_offset), np.asarray(levels), max_depth, leaf_map.shape[0])
    cdef int64_t[::1] tail = tail_
    maxima = np.full(n_permutations, -np.inf)
    counts = np.zeros((max(n_threads, 1), n_slices), dtype=np.int64)
    cdef double[::1] mx = maxima
    cdef int64_t[:, ::1] cnt = counts
    cdef double[:, ::1] no_null = np.empty((0, n_slices))
    cdef Py_ssize_t b, j, s, k2
    cdef Scratch *w
    cdef int64_t *x
    cdef int64_t *sums
    cdef int64_t **bufs
    with nogil, parallel(num_threads=n_threads):
        w = scratch_new(n_cells, n_slices, n_units, subset)
        x = w.x
        sums = w.sums
        bufs = <int64_t **> malloc((n_axes + 1) * sizeof(int64_t *))
        bufs[0] = <int64_t *> malloc((tail[0] + 1) * sizeof(int64_t))
        for k2 in range(1, n_axes + 1):
            bufs[k2] = <int64_t *> malloc((tail[0] // levels[k2 - 1] + 1) * sizeof(int64_t))
        for b in prange(n_permutations, schedule='static'):
            draw(w, subset, key, stream_id, <uint64_t> (start + b), units, n_success, n_units)
            for j in range(tail[0]):
                bufs[0][j] = 0
            for j in range(n_cells):
                bufs[0][cell_index[j]] = x[j]
            for s in range(n_slices + 1):
                sums[s] = 0
            walk(0, <int> n_axes, max_depth, &levels[0], &tail[0], bufs[0], 1, 0, 0, bufs,
                 &leaf_offset[0], &leaf_map[0] if leaf_map.shape[0] else NULL, sums)
            mx[b] = tally(sums, mean, inv_sd, threshold, alternative, cnt, threadid(), no_null,
                          -1)
        for k2 in range(n_axes + 1):
            free(bufs[k2])
        free(bufs)
        scratch_free(w)
    return maxima, counts.sum(axis=0)


def _check_leaves(offset, levels, int max_depth, Py_ssize_t map_size):
    """Every marginal the walk reaches (1 .. max_depth axes) lies inside leaf_map."""
    for mask in range(1, offset.shape[0]):
        axes = [k for k in range(levels.shape[0]) if mask >> k & 1]
        if len(axes) > max_depth:
            continue
        size = int(np.prod(levels[axes]))
        if offset[mask] < 0 or offset[mask] + size > map_size:
            raise ValueError(f"leaf_offset[{mask}] does not hold a marginal of {size} cells")
