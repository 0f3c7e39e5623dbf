"""Kernels check the sizes they are handed before entering nogil code.

A kernel that trusts its inputs writes out of bounds when a caller passes inconsistent
sizes (a segfault, or silently wrong statistics). Swapping the within-outcome stratum sizes
(negatives' counts in the positives' row and vice versa) must raise ValueError; so must
out-of-range group codes, cells, pairs or strata and mismatched lengths in every kernel.
CI also runs these tests against a build with Cython bounds checks (.ci/alt_build.py).
"""

from __future__ import annotations

import numpy as np
import pytest

from fastfair import _auc, _counts, _paired, _sweep
from fastfair import _rows as _rows_kernel
from fastfair import auc as ffauc


def _sorted_two_groups():
    rng = np.random.default_rng(0)
    n = 400
    g = rng.integers(0, 2, n)
    y = (rng.random(n) < 0.1).astype(np.uint8)  # few positives: swapping overflows them
    s = rng.normal(size=n) + y
    order, codes8, y8 = ffauc.statistics._sort_rows(y, s, g)
    srt = ffauc.statistics._Sorted.build(order, s, y8, codes8)
    return srt, ffauc.statistics._strata_sizes(srt, 2, "within_outcome")


def test_consistent_sizes_run():
    srt, sizes = _sorted_two_groups()
    null = _auc.permute_two(srt.packed, srt.n_pos, sizes, True, True, 20, 1, 0, 1)
    assert null.shape == (20,) and np.isfinite(null).all()


@pytest.mark.parametrize("kernel", ["permute_two", "permute", "permute_two_ranks"])
def test_swapped_within_outcome_sizes_raise(kernel):
    srt, sizes = _sorted_two_groups()
    swapped = np.ascontiguousarray(sizes[::-1])
    pairs = np.array([[0, 1]], dtype=np.intp)
    table = _auc.rank_tables(srt.packed, srt.n_pos)
    with pytest.raises(ValueError, match="sizes"):
        if kernel == "permute_two_ranks":
            _auc.permute_two_ranks(srt.packed, srt.n_pos, swapped, True, True, 20, 1, 0, 1,
                                   0, table)  # fmt: skip
        elif kernel == "permute_two":
            _auc.permute_two(srt.packed, srt.n_pos, swapped, True, True, 20, 1, 0, 1)
        else:
            _auc.permute(srt.packed, srt.n_pos, swapped, True, pairs, True, 20, 1, 0, 1)


def test_rank_tables_of_other_rows_raise():
    srt, sizes = _sorted_two_groups()
    table = _auc.rank_tables(srt.packed, srt.n_pos)
    with pytest.raises(ValueError, match="table"):
        _auc.permute_two_ranks(srt.packed, srt.n_pos, sizes, True, True, 20, 1, 0, 1, 0,
                               table[:-1])  # fmt: skip
    with pytest.raises(ValueError, match="n_pos"):
        _auc.rank_tables(srt.packed, srt.n_pos + 1)


# ---------------------------------------------------------------- the count and row kernels

TPR = ((8,), (12,), True, False)  # spec: numerator TP, denominator positives (FN + TP)
PAIRS = np.array([[1, 0]], dtype=np.intp)


def _rows(n=60):
    rng = np.random.default_rng(1)
    cell = rng.integers(0, 4, n).astype(np.uint8)
    codes = rng.integers(0, 2, n).astype(np.intp)
    return cell, codes, np.ones(n)


def test_count_kernels_accept_consistent_input():
    cell, codes, weight = _rows()
    w, w2 = _counts.cell_sums(cell, codes, 2)
    assert w.sum() == len(cell)
    stat = _counts.metric_statistics(w.reshape(1, -1), w2.reshape(1, -1), TPR, PAIRS)
    assert stat.shape == (1, 1) and np.isfinite(stat).all()
    counts = np.ascontiguousarray(w.astype(np.int64))
    assert _counts.permute_counts(counts, (12,), TPR, PAIRS, 5, 1, 0).shape == (5, 1)
    null = _rows_kernel.permute_rows(cell, weight, codes, 2, (12,), TPR, PAIRS, 5, 1, 0)
    assert null.shape == (5, 1)


def _zero_and_negative_draws():
    """Each permutation kernel called with n draws, as a function of n."""
    cell, codes, weight = _rows()
    w, _ = _counts.cell_sums(cell, codes, 2)
    counts = np.ascontiguousarray(w.astype(np.int64))
    score = np.linspace(0, 1, 50)
    code = (np.arange(50) % 4).astype(np.uint8)
    above = _sweep.counts_above(score, code, np.array([0.2, 0.5, 0.8]), 4)
    totals = np.bincount(code, minlength=4).reshape(2, 2).astype(np.int64)
    logfact = np.cumsum(np.log(np.maximum(np.arange(51), 1)))
    z = np.zeros(3)
    return {
        "counts": lambda n: _counts.permute_counts(counts, (12,), TPR, PAIRS, n, 1, 0),
        "rows": lambda n: _rows_kernel.permute_rows(
            cell, weight, codes, 2, (12,), TPR, PAIRS, n, 1, 0
        ),
        "paired": lambda n: _paired.paired_swaps(np.array([4, 7], dtype=np.int64), n, 1, 0),
        "sweep": lambda n: _sweep.permute_sweep(
            above, totals, 2, 8, z, z, 0, n, 1, 0, False, logfact
        )[0],
    }


@pytest.mark.parametrize("kernel", ["counts", "rows", "paired", "sweep"])
def test_permutation_kernels_draw_zero_permutations_and_refuse_a_negative_count(kernel):
    # n_permutations = 0 is a valid request (the observed statistic alone, or a block of
    # a sequential run that needs no more draws): an empty null, not an error.
    draw = _zero_and_negative_draws()[kernel]
    assert len(draw(0)) == 0
    assert len(draw(3)) == 3
    with pytest.raises(ValueError, match="n_permutations must be >= 0"):
        draw(-1)


def test_weighted_rows_outside_every_stratum_keep_their_sums_of_weights_and_squares():
    """permute_rows moves only the rows of the strata (here the positives, cells 2 and 3);
    the FPR reads only the negatives, so every permuted statistic is the observed one,
    studentized with the weights' sums and sums of squares per group and cell (computed
    here with numpy from the rows)."""
    rng = np.random.default_rng(5)
    n = 300
    cell = rng.integers(0, 4, n).astype(np.uint8)
    codes = rng.integers(0, 2, n).astype(np.intp)
    weight = rng.uniform(0.5, 3.0, n)
    fpr = ((2,), (3,), True, False)  # numerator FP, denominator negatives (TN + FP)
    w, w2 = np.zeros(8), np.zeros(8)
    np.add.at(w, codes * 4 + cell, weight)
    np.add.at(w2, codes * 4 + cell, weight**2)
    observed = _counts.metric_statistics(w.reshape(1, -1), w2.reshape(1, -1), fpr, PAIRS)
    null = _rows_kernel.permute_rows(cell, weight, codes, 2, (12,), fpr, PAIRS, 20, 1, 0)
    np.testing.assert_allclose(null, np.repeat(observed, 20, axis=0), rtol=1e-12)


@pytest.mark.parametrize(
    "case",
    ["code too large", "negative code", "short codes", "cell 4", "short weight"],
)
def test_cell_sums_refuses_inconsistent_rows(case):
    cell, codes, weight = _rows()
    if case == "code too large":
        codes[3] = 2
    elif case == "negative code":
        codes[3] = -1
    elif case == "short codes":
        codes = codes[:-1].copy()
    elif case == "cell 4":
        cell[0] = 4
    else:
        weight = weight[:-1].copy()
    with pytest.raises(ValueError, match=r"codes|cell|weight"):
        _counts.cell_sums(cell, codes, 2, weight)
    with pytest.raises(ValueError, match=r"codes|cell|weight"):
        _rows_kernel.permute_rows(cell, weight, codes, 2, (12,), TPR, PAIRS, 5, 1, 0)


@pytest.mark.parametrize("pairs", [[[2, 0]], [[0, -1]]])
def test_pairs_outside_the_groups_are_refused(pairs):
    cell, codes, weight = _rows()
    w, w2 = _counts.cell_sums(cell, codes, 2)
    bad = np.array(pairs, dtype=np.intp)
    counts = np.ascontiguousarray(w.astype(np.int64))
    with pytest.raises(ValueError, match="pairs"):
        _counts.metric_statistics(w.reshape(1, -1), w2.reshape(1, -1), TPR, bad)
    with pytest.raises(ValueError, match="pairs"):
        _counts.permute_counts(counts, (12,), TPR, bad, 5, 1, 0)
    with pytest.raises(ValueError, match="pairs"):
        _rows_kernel.permute_rows(cell, weight, codes, 2, (12,), TPR, bad, 5, 1, 0)


def test_count_kernels_refuse_bad_strata_and_shapes():
    cell, codes, weight = _rows()
    w, w2 = _counts.cell_sums(cell, codes, 2)
    counts = np.ascontiguousarray(w.astype(np.int64))
    with pytest.raises(ValueError, match="strata"):
        _counts.permute_counts(counts, (1, 2, 4, 8, 3), TPR, PAIRS, 5, 1, 0)
    with pytest.raises(ValueError, match="stratum masks"):
        _rows_kernel.permute_rows(cell, weight, codes, 2, (16,), TPR, PAIRS, 5, 1, 0)
    with pytest.raises(ValueError, match="shape"):
        _counts.permute_counts(np.ascontiguousarray(counts[:, :3]), (12,), TPR, PAIRS, 5, 1, 0)
    with pytest.raises(ValueError, match="non-negative"):
        _counts.permute_counts(counts - 100, (12,), TPR, PAIRS, 5, 1, 0)
    with pytest.raises(ValueError, match="same shape"):
        _counts.metric_statistics(w.reshape(1, -1), w2[:1].reshape(1, -1), TPR, PAIRS)


# ---------------------------------------------------------------- the threshold-sweep kernels


def test_counts_above_refuses_bad_thresholds_and_codes():
    score = np.linspace(0, 1, 50)
    code = (np.arange(50) % 4).astype(np.uint8)
    good = np.array([0.2, 0.5, 0.8])
    assert _sweep.counts_above(score, code, good, 4).shape == (3, 4)
    for bad in (good[::-1].copy(), np.array([0.2, 0.5, 0.5, 0.8]), np.array([])):
        with pytest.raises(ValueError, match="strictly ascending"):  # a repeat too
            _sweep.counts_above(score, code, bad, 4)
    with pytest.raises(ValueError, match="code"):
        _sweep.counts_above(score, code, good, 3)
    with pytest.raises(ValueError, match="code has"):
        _sweep.counts_above(score, code[:-1].copy(), good, 4)


def test_permute_sweep_refuses_inconsistent_counts():
    score = np.linspace(0, 1, 50)
    code = (np.arange(50) % 4).astype(np.uint8)
    thresholds = np.array([0.2, 0.5, 0.8])
    above = _sweep.counts_above(score, code, thresholds, 4)
    totals = np.bincount(code, minlength=4).reshape(2, 2).astype(np.int64)
    logfact = np.cumsum(np.log(np.maximum(np.arange(51), 1)))
    z = np.zeros(3)
    args = (2, 8, z, z, 0, 5, 1, 0, False, logfact)
    assert _sweep.permute_sweep(above, totals, *args)[0].shape == (5,)
    with pytest.raises(ValueError, match="one entry per threshold"):
        _sweep.permute_sweep(above, totals, 2, 8, z[:2].copy(), z, 0, 5, 1, 0, False, logfact)
    with pytest.raises(ValueError, match="non-increasing"):
        _sweep.permute_sweep(np.ascontiguousarray(above[::-1]), totals, *args)
    with pytest.raises(ValueError, match="stratum"):
        _sweep.permute_sweep(above, totals, 4, *args[1:])
    with pytest.raises(ValueError, match="logfact"):
        _sweep.permute_sweep(above, totals, 2, 8, z, z, 0, 5, 1, 0, False, logfact[:10].copy())


# ---------------------------------------------------------------- the exact margin test's tails


def _margin_inputs():
    from fastfair._margin_tails import log_binomial_coefficients

    n1, n2 = 30, 40
    run_x2 = np.arange(n2 + 1, dtype=np.int64)
    run_lo = np.zeros(n2 + 1, dtype=np.int64)
    run_hi = np.minimum(run_x2 // 2, n1).astype(np.int64)
    p2 = np.linspace(0.05, 0.9, 301)
    return (log_binomial_coefficients(n1), log_binomial_coefficients(n2),
            np.clip(p2 + 0.05, 0, 1), p2, run_x2, run_lo, run_hi)  # fmt: skip


def test_margin_tails_are_identical_for_any_thread_count():
    """The nuisance grid is split across threads; each value is computed by one thread."""
    from fastfair._margin_tails import region_probabilities

    args = _margin_inputs()
    # tol > 0: windowed sums (their windows are per-thread state); 1e-3 cuts these tables
    for tol in (0.0, 1e-3, 2.5e-16):
        one = region_probabilities(*args, n_threads=1, tol=tol)
        assert np.all((one >= 0) & (one <= 1 + 1e-12))
        for t in (2, 3):
            assert np.array_equal(one, region_probabilities(*args, n_threads=t, tol=tol))
    assert not np.array_equal(one, region_probabilities(*args, tol=1e-3))


def test_margin_tails_refuse_runs_outside_the_table():
    from fastfair._margin_tails import region_probabilities

    logc1, logc2, p1, p2, run_x2, run_lo, run_hi = _margin_inputs()
    with pytest.raises(ValueError, match="runs must lie"):
        region_probabilities(logc1, logc2, p1, p2, run_x2 + 1, run_lo, run_hi)
    with pytest.raises(ValueError, match="runs must lie"):
        region_probabilities(logc1, logc2, p1, p2, run_x2, run_lo, run_hi + 31)


def test_weighted_cell_sums_are_the_sums_of_weights_and_of_squares_per_group_and_cell():
    """cell_sums with weights, three groups, rows spread over several chunks: w[g, c] is the
    sum of the weights of group g's rows in cell c and w2[g, c] the sum of their squares
    (numpy bincount), the same for one and two threads."""
    rng = np.random.default_rng(36)
    n = 70_000
    codes = rng.integers(0, 3, n).astype(np.intp)
    cell = rng.integers(0, 4, n).astype(np.uint8)
    weight = rng.uniform(0.1, 3.0, n)
    slot = codes * 4 + cell
    want = np.bincount(slot, weights=weight, minlength=12).reshape(3, 4)
    want2 = np.bincount(slot, weights=weight * weight, minlength=12).reshape(3, 4)
    for threads in (1, 2):
        w, w2 = _counts.cell_sums(cell, codes, 3, weight, threads)
        np.testing.assert_allclose(w, want, rtol=1e-12)
        np.testing.assert_allclose(w2, want2, rtol=1e-12)


# ------------------------------------------- input checks at their boundaries (session 18, k18b)


def test_cell_sums_of_zero_and_one_row_and_a_code_one_below_n_groups():
    """Zero rows give zero sums; one row lands in its (group, cell); the largest code
    accepted is n_groups - 1; n_groups = 0 is refused even when there is no row to check."""
    w, w2 = _counts.cell_sums(np.zeros(0, np.uint8), np.zeros(0, np.intp), 1)
    assert w.shape == (1, 4) and not w.any() and not w2.any()
    w, _ = _counts.cell_sums(np.array([3], np.uint8), np.array([2], np.intp), 3)
    want = np.zeros((3, 4))
    want[2, 3] = 1
    np.testing.assert_array_equal(w, want)
    with pytest.raises(ValueError, match="n_groups must be at least 1"):
        _counts.cell_sums(np.zeros(0, np.uint8), np.zeros(0, np.intp), 0)


def test_counts_above_with_one_threshold_refuses_zero_threads_and_accepts_the_last_code():
    score = np.array([0.1, 0.5, 0.5, 0.9, -3.0])
    code = np.array([3, 3, 0, 1, 3], np.uint8)  # 3 = n_codes - 1 is a valid code
    got = _sweep.counts_above(score, code, np.array([0.5]), 4, 1)
    want = [[np.sum((score >= 0.5) & (code == c)) for c in range(4)]]
    np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="n_threads must be >= 1"):
        _sweep.counts_above(score, code, np.array([0.5]), 4, 0)


def test_region_probabilities_at_their_input_boundaries_match_scipy_binomials():
    """Runs sharing one x2 (a non-decreasing run_x2 may repeat), runs reaching x1 = n1 and
    x2 = n2, nuisance values 0 and 1 (the pmf's degenerate branch): the sum of b(x1; n1, p1)
    b(x2; n2, p2) over the region, computed with scipy. n_threads = 0, a negative tol and
    run_x2 beyond n2 are refused."""
    from fastfair._margin_tails import log_binomial_coefficients, region_probabilities
    from scipy import stats

    n1, n2 = 7, 5
    run_x2 = np.array([0, 2, 2, 5, 5], dtype=np.int64)
    run_lo = np.array([0, 0, 5, 3, 7], dtype=np.int64)
    run_hi = np.array([7, 2, 7, 3, 7], dtype=np.int64)
    p1 = np.array([0.0, 1.0, 0.3, 1.0, 0.0, 0.55])
    p2 = np.array([0.0, 1.0, 0.6, 0.0, 1.0, 0.2])
    want = np.zeros(len(p1))
    for x2, lo, hi in zip(run_x2, run_lo, run_hi):
        x1 = np.arange(lo, hi + 1)
        want += stats.binom.pmf(x2, n2, p2) * stats.binom.pmf(x1[:, None], n1, p1).sum(axis=0)
    logc = (log_binomial_coefficients(n1), log_binomial_coefficients(n2))
    args = (*logc, p1, p2, run_x2, run_lo, run_hi)
    for threads in (1, 2):
        np.testing.assert_allclose(region_probabilities(*args, n_threads=threads), want,
                                   rtol=1e-12, atol=1e-15)  # fmt: skip
    with pytest.raises(ValueError, match="n_threads"):
        region_probabilities(*args, n_threads=0)
    with pytest.raises(ValueError, match="tol"):
        region_probabilities(*args, tol=-1e-300)
    bad = run_x2.copy()
    bad[-1] = n2 + 1
    with pytest.raises(ValueError, match="runs must lie"):
        region_probabilities(*logc, p1, p2, bad, run_lo, run_hi)
    with pytest.raises(ValueError, match="non-decreasing"):
        region_probabilities(*logc, p1, p2, run_x2[::-1].copy(), run_lo, run_hi)


def test_log_binomial_coefficients_are_those_of_scipy():
    from fastfair._margin_tails import log_binomial_coefficients
    from scipy import special

    for n in (0, 1, 2, 40):
        k = np.arange(n + 1)
        np.testing.assert_allclose(log_binomial_coefficients(n),
                                   np.log(special.comb(n, k)), rtol=1e-13, atol=1e-13)  # fmt: skip


def test_subset_sums_accept_k_equal_to_n_and_refuse_zero_and_n_plus_one():
    from fastfair import _means

    v = np.array([1.5, -2.0, 4.0, 0.25, 3.0])
    sums = _means.subset_sums(v, len(v), 4, 1, 0)
    np.testing.assert_allclose(sums, np.tile([v.sum(), (v * v).sum()], (4, 1)), rtol=1e-15)
    one = _means.subset_sums(v[:1], 1, 2, 1, 0)
    np.testing.assert_array_equal(one, [[1.5, 2.25]] * 2)
    for k in (0, len(v) + 1):
        with pytest.raises(ValueError, match="0 < k <= n"):
            _means.subset_sums(v, k, 4, 1, 0)


def test_bootstrap_indices_of_one_row_and_refusal_of_zero_rows():
    from fastfair import _means

    np.testing.assert_array_equal(_means.bootstrap_indices(1, 6, 0, 3, 9, 0), np.zeros((3, 6)))
    with pytest.raises(ValueError, match="0 < n"):
        _means.bootstrap_indices(0, 6, 0, 3, 9, 0)
    np.testing.assert_array_equal(_means.permutation_indices(1, 0, 2, 9, 0), [[0], [0]])


def test_slice_null_checks_its_inputs_at_their_boundaries():
    """n_success may equal the total units (every unit a success) but not exceed it or be
    negative; slice_map may hold -1 (no slice) and n_slices - 1, not n_slices."""
    from fastfair._slices import slice_null

    units = np.array([3, 2, 4], dtype=np.int64)
    smap = np.array([[0, -1, 1]], dtype=np.int32)
    mean, ones = np.zeros(2), np.ones(2)
    thr = np.full(2, np.inf)

    def run(k, slice_map=smap, alternative=1, n=5):
        return slice_null(units, k, slice_map, mean, ones, thr, alternative, n, 3, 0)

    maxima, exceed, _ = run(9)  # all 9 units succeed: slice counts are the slices' units
    np.testing.assert_array_equal(maxima, np.full(5, 4.0))
    np.testing.assert_array_equal(exceed, [0, 0])
    maxima, _, _ = run(0)
    np.testing.assert_array_equal(maxima, np.zeros(5))
    for k in (10, -1):
        with pytest.raises(ValueError, match="n_success"):
            run(k)
    with pytest.raises(ValueError, match="slice_map"):
        run(4, np.array([[0, 2, 1]], dtype=np.int32))
    with pytest.raises(ValueError, match="slice_map"):
        run(4, np.array([[0, -2, 1]], dtype=np.int32))
    with pytest.raises(ValueError, match="alternative"):
        run(4, alternative=3)
    with pytest.raises(ValueError, match="n_permutations"):
        run(4, n=-1)


def test_pack_short_text_keeps_eight_bytes_and_stops_at_nine_or_a_nul():
    from fastfair import _kernel_sums

    words = [b"", b"a", b"abcdefgh", b"zz"]
    data = np.frombuffer(b"".join(words), dtype=np.uint8)
    offsets = np.cumsum([0] + [len(w) for w in words]).astype(np.int64)
    out = np.zeros(len(words), dtype=np.uint64)
    assert _kernel_sums.pack_short_text(offsets, data, out) == -1
    want = [int.from_bytes(w.ljust(8, b"\0"), "big") for w in words]
    assert out.tolist() == want
    for bad_words, first_bad in (([b"ab", b"abcdefghi", b"c"], 1), ([b"a\0", b"b"], 0)):
        data = np.frombuffer(b"".join(bad_words), dtype=np.uint8)
        offsets = np.cumsum([0] + [len(w) for w in bad_words]).astype(np.int64)
        out = np.zeros(len(bad_words), dtype=np.uint64)
        assert _kernel_sums.pack_short_text(offsets, data, out) == first_bad
    with pytest.raises(ValueError, match="one entry more"):
        _kernel_sums.pack_short_text(offsets[:-1].copy(), data, out)


def test_kernel_sums_refuse_a_repeated_grid_point_and_a_zero_bandwidth():
    from fastfair import _kernel_sums

    s = np.array([0.2, 0.4, 0.9])
    y = np.array([0.0, 1.0, 1.0])
    starts = np.arange(4, dtype=np.intp)
    group = np.zeros(3, dtype=np.intp)
    weight = np.ones(3)

    def run(grid, h=0.1):
        return _kernel_sums.kernel_sums(s, y, None, starts, group, weight, 1,
                                        np.asarray(grid, dtype=np.float64), h)  # fmt: skip

    run([0.5])  # one point is a grid
    run([0.1, 0.5], 1e-300)
    with pytest.raises(ValueError, match="strictly increasing"):
        run([0.1, 0.5, 0.5])
    with pytest.raises(ValueError, match="strictly increasing"):
        run([])
    with pytest.raises(ValueError, match="bandwidth"):
        run([0.1, 0.5], 0.0)


def test_permute_sweep_needs_logfact_up_to_the_stratum_rows_and_checks_its_codes():
    """logfact must hold log(k!) for k = 0 .. n (n + 1 entries), n the rows of the
    permuted stratum; stratum 3 (all rows), num_mask 15 and orient -1 are valid, stratum 0,
    num_mask 16 and orient 2 are not."""
    score = np.linspace(0, 1, 50)
    code = (np.arange(50) % 4).astype(np.uint8)
    above = _sweep.counts_above(score, code, np.array([0.2, 0.5, 0.8]), 4)
    totals = np.bincount(code, minlength=4).reshape(2, 2).astype(np.int64)
    n_neg = int(totals[:, 0].sum())  # stratum 1: the negatives
    logfact = np.cumsum(np.log(np.maximum(np.arange(51), 1)))
    z = np.zeros(3)

    def run(stratum, lf, num_mask=8, orient=0):
        return _sweep.permute_sweep(above, totals, stratum, num_mask, z, z, orient, 4, 1, 0,
                                    False, np.ascontiguousarray(lf))[0]  # fmt: skip

    assert run(1, logfact[: n_neg + 1]).shape == (4,)
    with pytest.raises(ValueError, match="logfact"):
        run(1, logfact[:n_neg])
    assert run(3, logfact, 15, -1).shape == (4,)
    with pytest.raises(ValueError, match="logfact"):
        run(3, logfact[:50])
    for stratum, mask, orient in ((0, 8, 0), (1, 16, 0), (1, 8, 2)):
        with pytest.raises(ValueError, match="stratum must be"):
            run(stratum, logfact, mask, orient)


def test_paired_swaps_accept_zero_discordant_rows_and_refuse_a_negative_count():
    """With no discordant row in a stratum nothing can be swapped: its draw is 0."""
    null = _paired.paired_swaps(np.array([0, 0], dtype=np.int64), 5, 1, 0)
    assert not np.asarray(null).any()
    with pytest.raises(ValueError, match="non-negative"):
        _paired.paired_swaps(np.array([3, -1], dtype=np.int64), 5, 1, 0)


def _rate_statistic(w, w2, a, b, num, den, studentize, pooled):
    """ff_rates.h's statistic written from its header comment, in numpy."""
    cells = [c for c in range(4) if den >> c & 1]
    tops = [c for c in range(4) if num >> c & 1]
    n_a, n_b = w[a, cells].sum(), w[b, cells].sum()
    if n_a <= 0 or n_b <= 0:
        return 0.0
    m_a, m_b = w[a, tops].sum() / n_a, w[b, tops].sum() / n_b
    if not studentize or m_a == m_b:
        return m_a - m_b if not studentize else 0.0
    eff_a, eff_b = n_a**2 / w2[a, cells].sum(), n_b**2 / w2[b, cells].sum()  # Kish sizes
    if pooled:
        p = (w[a, tops].sum() + w[b, tops].sum()) / (n_a + n_b)
        var = p * (1 - p) * (1 / eff_a + 1 / eff_b)
    else:
        var = m_a * (1 - m_a) / eff_a + m_b * (1 - m_b) / eff_b
    if var <= 0:
        r_a, r_b = (m_a * eff_a + 0.5) / (eff_a + 1), (m_b * eff_b + 0.5) / (eff_b + 1)
        var = r_a * (1 - r_a) / (eff_a + 1) + r_b * (1 - r_b) / (eff_b + 1)
    return (m_a - m_b) / np.sqrt(var)


def test_metric_statistics_are_the_rate_statistics_of_the_header_with_kish_sizes():
    """Weighted cell sums of three groups, every pair: raw, pooled and unpooled studentized
    TPR and FPR, and equalized odds (the sum of the squared TPR and FPR statistics), against
    the header's formulas with Kish effective sizes den^2 / sum w^2; rows where both rates
    are 0 or 1 (the half-pseudo-observation variance, with the Kish sizes), equal rates
    (0) and an empty denominator (0)."""
    rng = np.random.default_rng(18)
    rows = []
    for _ in range(6):
        wt = rng.uniform(0.2, 3.0, (3, 4, 9))  # 9 rows of each group and cell
        keep = rng.random((3, 4, 9)) < 0.6
        rows.append(((wt * keep).sum(axis=2), (wt * wt * keep).sum(axis=2)))
    # both TPRs in {0, 1}: group 0 all TP, group 1 all FN, group 2 no positive at all
    w = np.array([[1.0, 2.0, 0.0, 2.5], [3.0, 1.0, 4.0, 0.0], [2.0, 2.0, 0.0, 0.0]])
    rows.append((w, w * np.array([[1, 1, 1, 2.0], [1, 1, 2.0, 1], [1, 1, 1, 1]])))
    w = np.array([[1.0, 1.0, 1.0, 1.0], [2.0, 2.0, 3.0, 3.0], [1.0, 1.0, 1.0, 1.0]])
    rows.append((w, w.copy()))  # equal rates
    w_all = np.array([r[0].ravel() for r in rows])
    w2_all = np.array([r[1].ravel() for r in rows])
    pairs = np.array([[0, 1], [1, 0], [0, 2], [2, 1]], dtype=np.intp)
    for studentize, pooled in ((False, False), (True, False), (True, True)):
        for num, den in ((8, 12), (2, 3)):
            got = _counts.metric_statistics(w_all, w2_all, ((num,), (den,), studentize, pooled),
                                             pairs)  # fmt: skip
            want = [[_rate_statistic(w, w2, a, b, num, den, studentize, pooled)
                     for a, b in pairs] for w, w2 in rows]  # fmt: skip
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
        eo = _counts.metric_statistics(w_all, w2_all, ((8, 2), (12, 3), studentize, pooled),
                                       pairs)  # fmt: skip
        want = [[_rate_statistic(w, w2, a, b, 8, 12, studentize, pooled) ** 2
                 + _rate_statistic(w, w2, a, b, 2, 3, studentize, pooled) ** 2
                 for a, b in pairs] for w, w2 in rows]  # fmt: skip
        np.testing.assert_allclose(eo, want, rtol=1e-12, atol=1e-15)


def test_loco_cv_loss_takes_a_uniform_grid_of_two_points_and_refuses_one_or_a_nonuniform_one():
    """The leave-one-cluster-out loss needs a uniform grid of at least 2 points: 2 points
    is enough (and gives the loss of the linear interpolation by hand: each row's fit is
    its cluster-left-out estimate at the two ends, weighted by its position)."""
    from fastfair import _kernel_sums

    s = np.array([0.25, 0.5, 0.75, 0.1])
    y = np.array([1.0, 0.0, 1.0, 0.0])
    starts = np.array([0, 1, 2, 3, 4], dtype=np.intp)
    group = np.zeros(4, dtype=np.intp)
    weight = np.ones(4)
    fallback = np.array([0.5])
    h = 0.4

    def run(grid):
        grid = np.asarray(grid, dtype=np.float64)
        return _kernel_sums.loco_cv_loss(s, y, None, starts, group, weight, 1, grid, h, fallback)

    grid = np.array([0.0, 1.0])
    kern = np.exp(-0.5 * ((grid[None, :] - s[:, None]) / h) ** 2)  # (rows, grid)
    fits = []
    for m in range(4):
        others = np.arange(4) != m
        est = (kern[others] * y[others, None]).sum(axis=0) / kern[others].sum(axis=0)
        fits.append(est[0] + s[m] * (est[1] - est[0]))
    want = np.mean((y - np.array(fits)) ** 2)
    assert run(grid) == pytest.approx(want, rel=1e-10)
    with pytest.raises(ValueError, match="uniform grid of at least 2"):
        run([0.5])
    with pytest.raises(ValueError, match="uniform grid of at least 2"):
        run([0.0, 0.3, 1.0])


def test_wasserstein_cell_sums_need_all_three_outputs_with_u_length():
    from fastfair import _wasserstein

    u = np.linspace(-1, 1, 5)
    z, alt, gap = np.empty(5), np.empty(5), np.empty(5)
    _wasserstein.cell_sums(u, 1.0, 1.0, 0.0, 0.0, 1, z, alt, gap)
    for outs in ((z, None, gap), (z, alt, None), (np.empty(4), alt, gap), (z, alt, gap[:4])):
        with pytest.raises(ValueError, match="z_out, alt_out and gap_out"):
            _wasserstein.cell_sums(u, 1.0, 1.0, 0.0, 0.0, 1, *outs)


def test_paired_auc_swaps_accept_one_positive_and_one_negative_a_group_and_refuse_none():
    from fastfair.compare.statistics import SortedScores

    y = np.array([1, 0, 1, 0, 0], dtype=np.uint8)
    codes = np.array([0, 0, 1, 1, 1], dtype=np.intp)
    a = np.array([0.9, 0.1, 0.4, 0.6, 0.2])
    b = np.array([0.3, 0.2, 0.8, 0.1, 0.5])
    e = SortedScores.build(a, b, codes)
    n_pos, n_neg = np.array([1, 1], np.int64), np.array([1, 2], np.int64)
    args = (e.row, e.model, e.block_end, e.group, y, codes)
    sums = _paired.paired_auc_swaps(*args, n_pos, n_neg, 3, 1, 0)
    assert sums.shape == (3, 2, 10)
    with pytest.raises(ValueError, match="a positive and a negative"):
        _paired.paired_auc_swaps(*args, n_pos, np.array([0, 2], np.int64), 3, 1, 0)
    with pytest.raises(ValueError, match="sorted score entries"):
        _paired.paired_auc_swaps(e.row[:-1].copy(), *args[1:], n_pos, n_neg, 3, 1, 0)


def test_merge_placements_accept_a_code_naming_the_last_cell():
    """Codes are 2 * cell + label: with two cells, codes 2 and 3 name cell 1 (accepted),
    code 4 names cell 2 (refused)."""
    from fastfair._runs import merge_placements

    cells = np.array([[0], [1]], dtype=np.int32)
    tot = np.array([[1, 0], [0, 1]], dtype=np.int64)
    lin, _ = merge_placements([np.array([0.1, 0.7])], [np.array([0, 3], np.uint16)], cells, 2,
                              tot)  # fmt: skip
    assert lin.shape == (2, 2)
    with pytest.raises(ValueError, match="beyond cell_groups"):
        merge_placements([np.array([0.1])], [np.array([4], np.uint16)], cells, 2, tot)


def test_block_log_evidence_refuses_blocks_of_other_shapes():
    from fastfair._monitor import block_log_evidence

    good = np.ones((3, 4))
    lines = np.zeros(3)
    log, gap = block_log_evidence(good, good * 2, lines, 0.5, 10.0)
    assert log.shape == gap.shape == (3,)
    for block, seen in ((np.ones((3, 3)), good), (good, np.ones((2, 4))), (np.ones((4, 4)), good)):
        with pytest.raises(ValueError, match="must have shape"):
            block_log_evidence(np.ascontiguousarray(block), np.ascontiguousarray(seen), lines,
                               0.5, 10.0)  # fmt: skip


@pytest.mark.parametrize("n", [65535, 65536, 65537])
def test_unweighted_cell_sums_around_the_chunk_are_bincounts_for_one_and_two_threads(n):
    """Rows one short of, exactly at and one over the 65,536-row chunk, unweighted (w2 is
    then w): the counts of np.bincount per group and cell, the last row included (it is
    put in a cell and group of its own so that dropping it shows)."""
    rng = np.random.default_rng(n)
    codes = rng.integers(0, 2, n).astype(np.intp)
    cell = rng.integers(0, 3, n).astype(np.uint8)
    codes[-1], cell[-1] = 2, 3
    want = np.bincount(codes * 4 + cell, minlength=12).reshape(3, 4).astype(np.float64)
    assert want[2, 3] == 1
    for threads in (1, 2):
        w, w2 = _counts.cell_sums(cell, codes, 3, None, threads)
        np.testing.assert_array_equal(w, want)
        np.testing.assert_array_equal(w2, want)
