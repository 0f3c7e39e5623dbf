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
