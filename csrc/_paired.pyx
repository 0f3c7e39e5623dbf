"""Paired count tables of two models on the same rows, and their swap permutations.

Each row has a label y and the binary predictions a (model A) and b (model B) of two
models; its paired cell is ``4 * y + 2 * a + b``, so a group's rows are summarised by eight
counts (docs/compare.md). Exchanging the two models' predictions within a row (the paired
permutation) leaves concordant rows (a = b) unchanged and sends a discordant row between
cells (y, 1, 0) and (y, 0, 1). Swapping each row with probability 1/2 therefore makes the
new count of cell (y, 1, 0) of a group Binomial(n_10 + n_01, 1/2), independently across
groups and labels: one draw per (group, label) per permutation, whatever the number of rows.
"""
import numpy as np

from cython.parallel cimport parallel, prange
from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc

from numpy.random.c_distributions cimport binomial_t, random_binomial

from _core cimport (
    check_codes, check_small_codes, ff_fast_init, ff_fast_t, ff_fast_u64, ff_stream_init,
    ff_stream_t,
)

cdef enum:
    CHUNK = 65536  # rows per chunk of the counting pass (fixed: sums do not depend on threads)


def paired_counts(const uint8_t[::1] y, const uint8_t[::1] a, const uint8_t[::1] b,
                  const Py_ssize_t[::1] codes, Py_ssize_t n_groups, int n_threads=1):
    """Per-group counts of the eight paired cells ``4 * y + 2 * a + b``: (n_groups, 8) int64.

    Integer counts per chunk of rows, added in chunk order: identical for any thread count.
    """
    cdef Py_ssize_t n = y.shape[0]
    cdef Py_ssize_t n_chunks = (n + CHUNK - 1) // CHUNK
    cdef Py_ssize_t width = n_groups * 8
    problem = check_codes(codes, n_groups, n)
    if problem is None and (a.shape[0] != n or b.shape[0] != n):
        problem = f"y, a and b must have the same length, got {n}, {a.shape[0]}, {b.shape[0]}"
    problem = (problem or check_small_codes(y, 2, "y") or check_small_codes(a, 2, "a")
               or check_small_codes(b, 2, "b"))
    if problem is not None:
        raise ValueError(problem)
    partial = np.zeros((max(n_chunks, 1), width), dtype=np.int64)
    cdef int64_t[:, ::1] part = partial
    cdef Py_ssize_t k, i, start, stop
    with nogil:
        for k in prange(n_chunks, num_threads=n_threads, schedule='static'):
            start = k * CHUNK
            stop = min(start + CHUNK, n)
            for i in range(start, stop):
                part[k, codes[i] * 8 + 4 * y[i] + 2 * a[i] + b[i]] += 1
    return partial.sum(axis=0).reshape(n_groups, 8)


def paired_swaps(const int64_t[::1] discordant, Py_ssize_t n_permutations, uint64_t key,
                 unsigned int stream_id, int n_threads=1, Py_ssize_t start=0):
    """Swap permutations of discordant rows: an (n_permutations, S) int64 array.

    discordant[s] = n_10 + n_01 of stratum s (a group and a label). Entry (b, s) is the count
    of cell (y, 1, 0) of stratum s after swapping each discordant row with probability 1/2
    in permutation ``start + b``: Binomial(discordant[s], 1/2) drawn from the stream
    (key, stream_id, start + b), so permutation b is the same on any thread.
    """
    cdef Py_ssize_t n_strata = discordant.shape[0], p, s
    cdef ff_stream_t *stream
    cdef binomial_t *binomial
    if n_permutations < 0:
        raise ValueError(f"n_permutations must be >= 0, got {n_permutations}")
    if (np.asarray(discordant) < 0).any():
        raise ValueError("discordant counts must be non-negative")
    out = np.zeros((n_permutations, n_strata), dtype=np.int64)
    cdef int64_t[:, ::1] o = out
    with nogil, parallel(num_threads=n_threads):
        stream = <ff_stream_t *> malloc(sizeof(ff_stream_t))
        binomial = <binomial_t *> malloc(sizeof(binomial_t))
        for p in prange(n_permutations, schedule='static'):
            ff_stream_init(stream, key, stream_id, <uint64_t> (start + p))
            binomial.has_binomial = 0
            for s in range(n_strata):
                if discordant[s] > 0:
                    o[p, s] = random_binomial(&stream.bitgen, 0.5, discordant[s], binomial)
        free(stream)
        free(binomial)
    return out


def swap_bits(uint64_t key, unsigned int stream_id, uint64_t index, Py_ssize_t n):
    """The swaps of permutation `index` for n rows, as `paired_auc_swaps` draws them (bool
    array: True where the row's two scores are exchanged); for known-answer tests."""
    cdef ff_fast_t s
    cdef Py_ssize_t w
    words = np.empty((n + 63) // 64, dtype=np.uint64)
    cdef uint64_t[::1] o = words
    ff_fast_init(&s, key, stream_id, index)
    for w in range(words.shape[0]):
        o[w] = ff_fast_u64(&s)
    return np.unpackbits(words.view(np.uint8), bitorder="little")[:n].astype(bool)


cdef inline bint _in_a(const uint64_t *bits, Py_ssize_t row, uint8_t model) noexcept nogil:
    """Whether a score entry belongs to the swapped model A: row's own A score unless
    swapped, its B score if swapped."""
    return ((bits[row >> 6] >> (row & 63)) & 1) == model


cdef void _swap_placements(const Py_ssize_t[::1] ent_row, const uint8_t[::1] ent_model,
                           const Py_ssize_t[::1] block_end, const Py_ssize_t[::1] ent_group,
                           const uint8_t[::1] y, const int64_t[::1] n_pos,
                           const int64_t[::1] n_neg, const uint64_t *bits, double *pa,
                           double *pb) noexcept nogil:
    """Placements of every row under swaps `bits`: pa[r] (the swapped model A's score of
    row r), pb[r] (model B's); V10 for positives, V01 for negatives, ties counted 1/2."""
    cdef Py_ssize_t m = ent_row.shape[0], k = 0, j, e, r, g
    cdef int64_t below[2][2]  # [model][label]: entries of each swapped model before the block
    cdef int64_t tied[2][2]
    cdef int side, lab
    cdef double v
    while k < m:
        g = ent_group[k]
        if k == 0 or ent_group[k - 1] != g:
            below[0][0] = below[0][1] = below[1][0] = below[1][1] = 0
        e = block_end[k]
        tied[0][0] = tied[0][1] = tied[1][0] = tied[1][1] = 0
        for j in range(k, e):
            r = ent_row[j]
            tied[_in_a(bits, r, ent_model[j])][y[r]] += 1
        for j in range(k, e):
            r = ent_row[j]
            side = _in_a(bits, r, ent_model[j])
            if y[r]:
                v = (below[side][0] + 0.5 * tied[side][0]) / n_neg[g]
            else:
                v = (n_pos[g] - below[side][1] - 0.5 * tied[side][1]) / n_pos[g]
            if side:
                pa[r] = v
            else:
                pb[r] = v
        for side in range(2):
            for lab in range(2):
                below[side][lab] += tied[side][lab]
        k = e


def paired_auc_swaps(const Py_ssize_t[::1] ent_row, const uint8_t[::1] ent_model,
                     const Py_ssize_t[::1] block_end, const Py_ssize_t[::1] ent_group,
                     const uint8_t[::1] y, const Py_ssize_t[::1] codes,
                     const int64_t[::1] n_pos, const int64_t[::1] n_neg,
                     Py_ssize_t n_permutations, uint64_t key, unsigned int stream_id,
                     int n_threads=1, Py_ssize_t start=0):
    """Placement sums of swap permutations of two models' scores: (B, n_groups, 10) float64.

    The 2n scores (model A's and model B's of every row) come sorted by group, then score:
    entry k is row ``ent_row[k]``'s score of model ``ent_model[k]`` (0: A, 1: B) in group
    ``ent_group[k]``, and ``block_end[k]`` is one past the last entry of k's group tied with
    it (read at the first entry of each block). Permutation ``start + b`` exchanges the two
    scores of each row with probability 1/2 (`swap_bits`, stream (key, stream_id, start +
    b)); one linear sweep of the sorted entries then gives every row's placements under
    both swapped models (DeLong's V10 of positives, V01 of negatives), O(n) per permutation
    instead of a sort. Entry (b, g, :) holds, over group g's positives, the sums of the
    A placements, the B placements, their squares and their products, then the same five
    over its negatives; each permutation adds its rows in order, so the sums are the same
    on any thread. Every group must have a positive and a negative.
    """
    cdef Py_ssize_t n = y.shape[0], m = ent_row.shape[0], n_groups = n_pos.shape[0]
    cdef Py_ssize_t n_words = (n + 63) // 64, p, r, w, base
    cdef ff_fast_t *stream
    cdef uint64_t *bits
    cdef double *pa
    cdef double *pb
    if m != 2 * n or ent_model.shape[0] != m or block_end.shape[0] != m or ent_group.shape[0] != m:
        raise ValueError(f"expected 2 * {n} sorted score entries, got {m}")
    problem = check_codes(codes, n_groups, n) or check_small_codes(y, 2, "y")
    if problem is not None:
        raise ValueError(problem)
    if (np.asarray(n_pos) < 1).any() or (np.asarray(n_neg) < 1).any():
        raise ValueError("every group needs a positive and a negative")
    out = np.zeros((n_permutations, n_groups, 10), dtype=np.float64)
    cdef double[:, :, ::1] o = out
    with nogil, parallel(num_threads=n_threads):
        stream = <ff_fast_t *> malloc(sizeof(ff_fast_t))
        bits = <uint64_t *> malloc(max(n_words, 1) * sizeof(uint64_t))
        pa = <double *> malloc(max(n, 1) * sizeof(double))
        pb = <double *> malloc(max(n, 1) * sizeof(double))
        for p in prange(n_permutations, schedule='static'):
            ff_fast_init(stream, key, stream_id, <uint64_t> (start + p))
            for w in range(n_words):
                bits[w] = ff_fast_u64(stream)
            _swap_placements(ent_row, ent_model, block_end, ent_group, y, n_pos, n_neg,
                             bits, pa, pb)
            for r in range(n):
                base = 0 if y[r] else 5
                o[p, codes[r], base] += pa[r]
                o[p, codes[r], base + 1] += pb[r]
                o[p, codes[r], base + 2] += pa[r] * pa[r]
                o[p, codes[r], base + 3] += pb[r] * pb[r]
                o[p, codes[r], base + 4] += pa[r] * pb[r]
        free(stream)
        free(bits)
        free(pa)
        free(pb)
    return out
