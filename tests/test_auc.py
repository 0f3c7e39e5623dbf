"""Tests of fastfair.auc: AUC and DeLong against sklearn and brute force, permutation
kernels, reproducibility across thread counts, validity by simulation, bad input."""

import functools
import pathlib
import runpy

import numpy as np
import pytest
from scipy import stats

import fastfair
import fastfair.auc as ffauc
from fastfair import _auc

sklearn_metrics = pytest.importorskip("sklearn.metrics")


def brute_delong(y, s):
    """O(n^2) AUC, DeLong variance and placements (METHODS.md 1.5)."""
    pos, neg = s[y == 1], s[y == 0]
    psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
    s10 = v10.var(ddof=1) if len(pos) > 1 else 0.0
    s01 = v01.var(ddof=1) if len(neg) > 1 else 0.0
    return psi.mean(), s10 / len(pos) + s01 / len(neg), v10, v01, s10, s01


def make(rng, n, ties=False, n_groups=2, prevalence=0.4):
    y = (rng.random(n) < prevalence).astype(int)
    s = rng.normal(size=n) + y
    if ties:
        s = np.round(s * 2) / 2  # heavy ties: about 12 distinct values
    g = rng.integers(0, n_groups, n)
    return y, s, g


@pytest.mark.parametrize("ties", [False, True])
def test_auc_matches_sklearn_and_bruteforce(ties):
    rng = np.random.default_rng(1)
    y, s, g = make(rng, 600, ties=ties, n_groups=3)
    res = ffauc.delong(y, s, g, return_placements=True)
    for k in range(3):
        m = g == k
        auc, var, v10, v01, s10, s01 = brute_delong(y[m], s[m])
        assert res.auc[k] == pytest.approx(sklearn_metrics.roc_auc_score(y[m], s[m]), abs=1e-14)
        assert res.auc[k] == pytest.approx(auc, abs=1e-14)
        assert res.variance[k] == pytest.approx(var, rel=1e-10)
        assert res.s10[k] == pytest.approx(s10, rel=1e-10)
        assert res.s01[k] == pytest.approx(s01, rel=1e-10)
        np.testing.assert_allclose(res.placements[m & (y == 1)], v10, atol=1e-14)
        np.testing.assert_allclose(res.placements[m & (y == 0)], v01, atol=1e-14)
        assert (res.n_pos[k], res.n_neg[k]) == ((y[m] == 1).sum(), (y[m] == 0).sum())


def test_delong_single_group_and_all_tied():
    rng = np.random.default_rng(2)
    y = rng.random(50) < 0.5
    s = rng.integers(0, 3, 50).astype(float)
    res = ffauc.delong(y, s)
    auc, var, *_ = brute_delong(y.astype(int), s)
    assert res.auc[0] == pytest.approx(auc) and res.variance[0] == pytest.approx(var)
    const = ffauc.delong(y, np.ones(50))
    assert const.auc[0] == 0.5 and const.variance[0] == 0.0
    assert "DeLongResult" in repr(res)


def test_pair_statistic_matches_formula():
    rng = np.random.default_rng(3)
    y, s, g = make(rng, 400, ties=True)
    d = ffauc.delong(y, s, g)
    res = ffauc.auc_test(y, s, g, reference=0, method="delong")
    z = (d.auc[1] - d.auc[0]) / np.sqrt(d.variance.sum())
    assert res.statistic == pytest.approx(z, rel=1e-12)
    assert res.difference == pytest.approx(d.auc[1] - d.auc[0])
    lo, hi = res.confidence_interval
    assert hi - lo == pytest.approx(2 * 1.959963984540054 * np.sqrt(d.variance.sum()))
    raw = ffauc.auc_test(y, s, g, reference=0, studentize=False, n_permutations=9)
    assert raw.statistic == pytest.approx(d.auc[1] - d.auc[0])


def test_permutation_kernels_agree_on_distribution():
    """Byte-code (K groups) and bitmap (two groups) kernels: same null distribution."""
    rng = np.random.default_rng(4)
    y, s, g = make(rng, 300, ties=True)
    order, codes8, y8 = ffauc.statistics._sort_rows(y.astype(np.uint8), s, g)
    srt = ffauc.statistics._Sorted.build(order, s, y8, codes8)
    pairs = np.array([[0, 1]], dtype=np.intp)
    for within in (False, True):
        sizes = ffauc.statistics._strata_sizes(srt, 2, "within_outcome" if within else "full")
        a = _auc.permute(srt.packed, srt.n_pos, sizes, within, pairs, True, 4000, 5, 0)[:, 0]
        b = _auc.permute_two(srt.packed, srt.n_pos, sizes, within, True, 4000, 6, 0)
        assert abs(a.mean() - b.mean()) < 0.1 and abs(a.std() - b.std()) < 0.07
        assert np.isfinite(a).all() and np.isfinite(b).all()


def test_identity_assignment_gives_observed():
    """A permutation kernel fed the observed assignment reproduces the observed statistic."""
    rng = np.random.default_rng(5)
    y, s, g = make(rng, 200, ties=True)
    order, codes8, y8 = ffauc.statistics._sort_rows(y.astype(np.uint8), s, g)
    srt = ffauc.statistics._Sorted.build(order, s, y8, codes8)
    pairs = np.array([[0, 1]], dtype=np.intp)
    obs = _auc.pair_statistics(srt.packed, srt.codes, srt.n_pos, 2, pairs, True)[0]
    _, auc, var, *_ = _auc.sweep_groups(srt.packed, srt.codes, srt.n_pos, 2)
    assert obs == pytest.approx((auc[0] - auc[1]) / np.sqrt(var.sum()), rel=1e-13)


@pytest.mark.parametrize("scheme", ["full", "within_outcome"])
def test_same_result_for_any_n_jobs(scheme):
    rng = np.random.default_rng(6)
    y, s, g = make(rng, 5000, ties=True, n_groups=3)
    kw = dict(scheme=scheme, n_permutations=999, random_state=3, return_null=True, adjust="maxT")
    r1 = ffauc.auc_test(y, s, g, n_jobs=1, **kw)
    r2 = ffauc.auc_test(y, s, g, n_jobs=2, **kw)
    np.testing.assert_array_equal(r1.null_distribution, r2.null_distribution)
    np.testing.assert_array_equal(r1.pvalue, r2.pvalue)
    np.testing.assert_array_equal(r1.pvalue_adjusted, r2.pvalue_adjusted)


def test_within_outcome_keeps_label_counts_and_detects_difference():
    rng = np.random.default_rng(7)
    n = 3000
    g = rng.integers(0, 2, n)
    y = rng.random(n) < 0.4
    s = rng.normal(size=n) + y * (1.0 - 0.5 * g)
    res = ffauc.auc_test(y, s, g, n_permutations=499, random_state=0, reference=1)
    assert res.pvalue < 0.01 and res.difference > 0
    count = round(res.pvalue * 500 - 1)  # B = 499 permutations
    ci = stats.binomtest(count, 499).proportion_ci(confidence_level=0.95, method="wilson")
    np.testing.assert_allclose(res.pvalue_interval, (ci.low, ci.high), rtol=1e-10)
    less = ffauc.auc_test(
        y, s, g, n_permutations=199, random_state=0, reference=1, alternative="less"
    )
    assert less.pvalue > 0.9
    text = repr(res)
    assert "AUCTestResult" in text and "1 - 1" not in text and "0 - 1" in text


def test_many_groups_reference_all_and_adjustments():
    rng = np.random.default_rng(8)
    y, s, g = make(rng, 3000, n_groups=4)
    labels = np.array(["a", "b", "c", "d"])[g]
    res = ffauc.auc_test(y, s, labels, n_permutations=199, random_state=1, reference="b")
    assert [c[1] for c in res.comparisons] == ["b", "b", "b"]
    m, order = 3, np.argsort(res.pvalue)
    holm = np.minimum(1, np.maximum.accumulate((m - np.arange(m)) * res.pvalue[order]))
    np.testing.assert_allclose(res.pvalue_adjusted[order], holm, rtol=1e-14)
    d = ffauc.delong(y, s, labels)
    for c, (a, _) in enumerate(res.comparisons):
        k = list(d.groups).index(a)
        assert res.difference[c] == pytest.approx(d.auc[k] - d.auc[1])
    allp = ffauc.auc_test(y, s, labels, comparisons="all", method="delong", adjust="bonferroni")
    assert len(allp.comparisons) == 6
    np.testing.assert_allclose(allp.pvalue_adjusted, np.minimum(1, 6 * allp.pvalue))


def test_default_reference_is_largest_group_and_data_columns():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(9)
    y, s, _ = make(rng, 900)
    g = np.where(rng.random(900) < 0.7, "big", "small")
    df = pd.DataFrame({"y": y, "s": s, "g": g})
    res = ffauc.auc_test("y", "s", "g", data=df, method="delong")
    assert res.comparisons == [("small", "big")]


def _null_data(rng, n_a, n_b, weak):
    y_a = rng.random(n_a) < 0.8
    y_b = rng.random(n_b) < (0.2 if weak else 0.8)
    s_a = rng.normal(size=n_a) + y_a
    pos_b = rng.normal(np.sqrt(5.0), 3.0, n_b) if weak else rng.normal(1.0, 1.0, n_b)
    s_b = np.where(y_b, pos_b, rng.normal(size=n_b))
    return np.r_[y_a, y_b], np.r_[s_a, s_b], np.r_[np.zeros(n_a, int), np.ones(n_b, int)]


def _rate(weak, scheme, studentize, n_sim=300, seed=11):
    rng = np.random.default_rng(seed)
    hits = 0
    for i in range(n_sim):
        y, s, g = _null_data(rng, 200, 200, weak)
        res = ffauc.auc_test(
            y,
            s,
            g,
            scheme=scheme,
            studentize=studentize,
            n_permutations=199,
            random_state=i,
            n_jobs=1,
        )
        hits += res.pvalue <= 0.05
    return hits / n_sim


def test_validity_weak_null_studentized_holds_raw_does_not():
    """Equal AUC, prevalence 0.8 vs 0.2, positive scores N(1,1) vs N(2.24,3) (Theorems 1-2).

    Full runs: validation/auc_validity.py. 3 binomial SE at n_sim = 300 is 0.038.
    """
    se3 = 3 * np.sqrt(0.05 * 0.95 / 300)
    stud = _rate(True, "full", True)
    raw = _rate(True, "full", False)
    assert abs(stud - 0.05) <= se3
    assert raw > 0.05 + se3  # measured 0.19 in validation/results/auc_validity.txt


def test_validity_strong_null_exact():
    """Same distribution in both groups: every variant is exact (3 SE at 400 sims: 0.033)."""
    se3 = 3 * np.sqrt(0.05 * 0.95 / 400)
    assert abs(_rate(False, "full", False, n_sim=400, seed=12) - 0.05) <= se3
    assert abs(_rate(False, "within_outcome", True, n_sim=400, seed=21) - 0.05) <= se3


def test_degenerate_groups():
    rng = np.random.default_rng(10)
    y = rng.random(200) < 0.5
    g = np.repeat([0, 1], 100)
    s = np.where(g == 0, 1.0, rng.normal(size=200) + 3 * y)  # group 0 constant scores
    res = ffauc.auc_test(y, s, g, n_permutations=99, random_state=0, scheme="full")
    assert res.group_auc[0] == 0.5 and res.group_variance[0] == 0.0
    assert np.isfinite(res.statistic) and np.isfinite(res.pvalue)
    # zero variance in both groups with a non-zero difference: shrunk variance, finite
    s2 = np.where(g == 0, 1.0, y.astype(float))  # group 1 perfectly separated
    res2 = ffauc.auc_test(y, s2, g, method="delong")
    assert res2.group_auc.tolist() == [0.5, 1.0] and res2.group_variance.tolist() == [0, 0]
    assert np.isfinite(res2.statistic) and abs(res2.statistic) > 10
    same = ffauc.auc_test(y, np.ones(200), g, method="delong")
    assert same.statistic == 0.0


def test_bad_input():
    rng = np.random.default_rng(11)
    y, s, g = make(rng, 100)
    with pytest.raises(ValueError, match="no positives"):
        ffauc.auc_test(np.where(g == 1, 0, y), s, g)
    with pytest.raises(ValueError, match="no negatives"):
        ffauc.delong(np.where(g == 0, 1, y), s, g)
    bad = s.copy()
    bad[3] = np.nan
    with pytest.raises(ValueError, match="y_score contains NaN"):
        ffauc.auc_test(y, bad, g)
    with pytest.raises(ValueError, match="same length"):
        ffauc.auc_test(y, s[:-1], g)
    with pytest.raises(ValueError, match="scheme"):
        ffauc.auc_test(y, s, g, scheme="conditional")
    with pytest.raises(ValueError, match="studentize"):
        ffauc.auc_test(y, s, g, method="delong", studentize=False)
    with pytest.raises(ValueError, match="sample_weight"):
        ffauc.auc_test(y, s, g, sample_weight=np.ones(100))
    with pytest.raises(ValueError, match="at least 2 groups"):
        ffauc.auc_test(y, s, np.zeros(100))
    with pytest.raises(TypeError, match="n_permutations"):
        ffauc.auc_test(y, s, g, n_permutations=10.5)
    with pytest.raises(ValueError, match="binary"):
        ffauc.auc_test(np.arange(100) % 3, s, g)


# ---------------------------------------------------------------- sparse permutations


def _sorted_pair(seed, n, share, ties, prevalence=(0.3, 0.5)):
    from fastfair.auc.statistics import _sort_rows, _Sorted

    rng = np.random.default_rng(seed)
    g = (rng.random(n) < share).astype(np.intp)
    y = (rng.random(n) < np.where(g == 1, prevalence[1], prevalence[0])).astype(np.uint8)
    score = rng.normal(size=n) + 0.8 * y - 0.2 * g * y
    if ties:
        score = np.round(score, 1)
    order, codes8, y8 = _sort_rows(y, score, g)
    return _Sorted.build(order, score, y8, codes8)


@pytest.mark.parametrize("scheme", ["within_outcome", "full"])
@pytest.mark.parametrize("studentize", [True, False])
@pytest.mark.parametrize("share,ties", [(0.05, False), (0.1, True), (0.5, True), (0.9, True)])
def test_sparse_permutations_equal_the_sweep(scheme, studentize, share, ties):
    """Same draws, same statistic, bit for bit (the sums are exact integers at this size)."""
    from fastfair.auc.statistics import _strata_sizes

    srt = _sorted_pair(7, 3000, share, ties)
    sizes = _strata_sizes(srt, 2, scheme)
    within = scheme == "within_outcome"
    args = (srt.packed, srt.n_pos, sizes, within, studentize, 300, 12345, 3, 2)
    tables = _auc.sparse_tables(srt.packed, srt.n_pos)
    sweep = _auc.permute_two(*args, 17)
    sparse = _auc.permute_two_sparse(*args, 17, tables)
    blocks = _auc.permute_two(*args, 17, tables)
    assert np.array_equal(sweep, sparse)
    assert np.array_equal(sweep, blocks)
    assert np.unique(sweep).size > 50  # the permutations differ: the check is not vacuous


@pytest.mark.parametrize("scheme", ["within_outcome", "full"])
@pytest.mark.parametrize("studentize", [True, False])
@pytest.mark.parametrize("share", [0.002, 0.05, 0.3, 0.5, 0.97])
def test_rank_permutations_equal_the_sweep(scheme, studentize, share):
    """Untied scores: the ranks path draws the same rows as the sweep and gives the same
    statistics bit for bit (exact integer sums), down to a drawn group of a few rows."""
    from fastfair.auc.statistics import _strata_sizes

    srt = _sorted_pair(11, 3000, share, False)
    sizes = _strata_sizes(srt, 2, scheme)
    args = (srt.packed, srt.n_pos, sizes, scheme == "within_outcome", studentize, 300, 777, 5, 2)
    table = _auc.rank_tables(srt.packed, srt.n_pos)
    sweep = _auc.permute_two(*args, 17)
    ranks = _auc.permute_two_ranks(*args, 17, table)
    assert np.array_equal(sweep, ranks)
    assert np.unique(sweep).size > 20  # the permutations differ: the check is not vacuous


def test_rank_tables_hold_each_rows_counts_and_prefix_sums():
    """rank_tables against its definition, row by row: the rows of the other label below
    each row and the prefix sums of the other label's placements; None with ties."""
    srt = _sorted_pair(4, 500, 0.3, False)
    table = _auc.rank_tables(srt.packed, srt.n_pos)
    labels = srt.packed & 1  # untied: no TIED bits
    pos_rank, neg_rank = np.flatnonzero(labels == 1), np.flatnonzero(labels == 0)
    d = np.array([(neg_rank < r).sum() for r in pos_rank])
    c = np.array([(pos_rank < r).sum() for r in neg_rank])
    big_a, big_d = 2 * d, 2 * (srt.n_pos - c)
    assert np.array_equal(table[:, 0], np.concatenate([d, c]))
    assert np.array_equal(table[: srt.n_pos, 1], [big_d[:k].sum() for k in d])
    assert np.array_equal(table[srt.n_pos :, 1], [big_a[:k].sum() for k in c])
    assert _auc.rank_tables(_sorted_pair(4, 500, 0.3, True).packed, srt.n_pos) is None


def test_untied_small_group_takes_the_ranks_path_and_matches_brute_force():
    """auc_test on untied scores with a small group: the ranks path is chosen, its null
    distribution is the sweep's (same streams), and each permuted statistic is the
    studentized AUC difference recomputed from scratch for the rows that permutation gave
    the small group (sklearn's AUC and DeLong variances from the placements)."""
    from sklearn.metrics import roc_auc_score

    from fastfair.auc.inference import _cheapest_path
    from fastfair.auc.statistics import _sort_rows, _Sorted, _strata_sizes

    rng = np.random.default_rng(21)
    n = 4000
    g = (rng.random(n) < 0.04).astype(int)
    y = rng.random(n) < 0.4
    score = rng.normal(size=n) + y
    res = ffauc.auc_test(y, score, g, n_permutations=300, random_state=3, return_null=True)
    order, codes8, y8 = _sort_rows(y.astype(np.uint8), score, g)
    remap = np.arange(256, dtype=np.uint8)
    remap[:2] = [1, 0]  # the comparison is (1, 0): auc_test's codes are swapped
    sub = _Sorted.build(order, score, y8, codes8, remap)
    assert _cheapest_path(_strata_sizes(sub, 2, "within_outcome"), n, n) == "ranks"
    sweep = _auc.permute_two(sub.packed, sub.n_pos, _strata_sizes(sub, 2, "within_outcome"),
                             True, True, 300, res_key(3), 0, 1, 0)  # fmt: skip
    assert np.array_equal(res.null_distribution, sweep)  # same streams: identical

    def stat(groups):  # brute force: sklearn's AUC, DeLong's placements pair by pair
        aucs, vs = [], []
        for k in (1, 0):
            yk, sk = y[groups == k], score[groups == k]
            above = sk[yk][:, None] > sk[~yk][None, :]
            aucs.append(roc_auc_score(yk, sk))
            vs.append(above.mean(axis=1).var(ddof=1) / above.shape[0]
                      + above.mean(axis=0).var(ddof=1) / above.shape[1])  # fmt: skip
        return (aucs[0] - aucs[1]) / np.sqrt(sum(vs))

    assert stat(g) == pytest.approx(res.statistic, rel=1e-12)
    brute = []  # the same distribution: relabel within outcome with numpy's generator
    for _ in range(300):
        perm = g.copy()
        for lab in (True, False):
            perm[y == lab] = rng.permutation(g[y == lab])
        brute.append(stat(perm))
    assert stats.ks_2samp(brute, res.null_distribution).pvalue > 1e-3


def test_sparse_path_is_chosen_for_a_small_group_and_matches():
    rng = np.random.default_rng(8)
    n = 20000
    g = (rng.random(n) < 0.03).astype(int)
    y = rng.random(n) < 0.4
    score = np.round(rng.normal(size=n) + y, 4)
    from fastfair.auc.inference import _cheapest_path
    from fastfair.auc.statistics import _sort_rows, _Sorted, _strata_sizes

    order, codes8, y8 = _sort_rows(y.astype(np.uint8), score, g)
    srt = _Sorted.build(order, score, y8, codes8)
    n_blocks = len(_auc.sparse_tables(srt.packed, srt.n_pos)[1])
    assert _cheapest_path(_strata_sizes(srt, 2, "within_outcome"), n, n_blocks) == "sparse"
    assert _cheapest_path(_strata_sizes(srt, 2, "within_outcome"), n, n // 100) == "blocks"
    untied = _sorted_pair(1, n, 0.5, False)
    assert _cheapest_path(_strata_sizes(untied, 2, "full"), n, n) == "sweep"
    # a 10% group without ties at 1e6 rows: the ranks path (the block tables would hold
    # every row); a 45% group: the sweep
    tenth = np.array([[30_000, 270_000], [70_000, 630_000]])
    assert _cheapest_path(tenth, 10**6, 10**6) == "ranks"
    assert _cheapest_path(tenth * 9 // 2, 10**6, 10**6) == "sweep"
    assert _cheapest_path(tenth, 10**6, 60_000) == "blocks"
    res = ffauc.auc_test(y, score, g, n_permutations=400, random_state=5, return_null=True)
    assert res.comparisons == [(1, 0)]  # reference 0, the larger group: codes swapped
    remap = np.arange(256, dtype=np.uint8)
    remap[:2] = [1, 0]
    sub = _Sorted.build(order, score, y8, codes8, remap)
    sweep = _auc.permute_two(
        sub.packed, sub.n_pos, _strata_sizes(sub, 2, "within_outcome"), True, True, 400,
        res_key(5), 0, 1, 0,
    )  # fmt: skip
    assert np.array_equal(res.null_distribution, sweep)


def res_key(seed):
    from fastfair._random import stream_key

    return stream_key(seed)


def test_default_method_is_auto_only_for_the_default_sequential_test():
    """method=None: the DeLong z-test for the default call where every compared group has
    >= 1,000 per class (the same p-value as method="delong"), the permutation test when
    n_permutations or sequential is given, with max-T, or with small groups."""
    rng = np.random.default_rng(9)
    n = 6000
    g = rng.integers(0, 2, n)
    y = rng.random(n) < 0.5
    s = rng.normal(size=n) + y
    default = ffauc.auc_test(y, s, g)
    assert default.method == "delong" and default.n_permutations is None
    assert default.pvalue == ffauc.auc_test(y, s, g, method="delong").pvalue
    fixed = ffauc.auc_test(y, s, g, n_permutations=50, random_state=0)
    assert fixed.method == "permutation" and fixed.n_permutations == 50
    seq = ffauc.auc_test(y, s, g, sequential=fastfair.Sequential(alpha=0.01), random_state=0)
    assert seq.method == "permutation" and seq.decision is not None
    three = np.where(rng.random(n) < 0.3, 2, g)
    assert ffauc.auc_test(y, s, three, adjust="maxT", n_permutations=20).method == "permutation"
    small = ffauc.auc_test(y[:3000], s[:3000], g[:3000], random_state=0)
    assert small.method == "permutation" and small.decision is not None


def test_auto_method_uses_delong_only_with_enough_rows_per_class():
    rng = np.random.default_rng(9)
    n = 6000
    g = rng.integers(0, 2, n)
    y = rng.random(n) < 0.5
    s = rng.normal(size=n) + y
    big = ffauc.auc_test(y, s, g, method="auto")
    assert big.method == "delong" and big.n_permutations is None
    assert big.pvalue == ffauc.auc_test(y, s, g, method="delong").pvalue
    small = ffauc.auc_test(y[:3000], s[:3000], g[:3000], method="auto", random_state=0)
    assert small.method == "permutation" and small.decision is not None
    raw = ffauc.auc_test(y, s, g, method="auto", studentize=False, n_permutations=50)
    assert raw.method == "permutation"


@pytest.mark.parametrize(
    "kind", ["normal", "rounded", "close_values", "close_pairs", "signed_zeros", "huge_and_tiny"]
)
@pytest.mark.parametrize("n", [1, 2, 7, 5000])
def test_sort_order_sorts(kind, n):
    """sort_order against np.argsort: a permutation of the rows putting scores in order,
    including scores that share the keys' high bits (the re-sorted runs)."""
    rng = np.random.default_rng(n)
    score = {
        "normal": lambda: rng.normal(size=n),
        "rounded": lambda: np.round(rng.normal(size=n), 1),
        "close_values": lambda: 1.0 + rng.integers(0, 5, n) * 2e-16 - rng.integers(0, 2, n),
        # short runs (2-3 rows) of keys sharing their high bits, scores in any order
        "close_pairs": lambda: rng.permutation(
            np.repeat(rng.random((n + 2) // 3), 3)[:n] * (1 + rng.integers(0, 4, n) * 1e-13)
        ),
        "signed_zeros": lambda: np.where(rng.random(n) < 0.5, -0.0, 0.0) + (rng.random(n) < 0.3),
        "huge_and_tiny": lambda: rng.choice([-1e300, -5e-324, 5e-324, 1e300, 0.0], n),
    }[kind]()
    order = _auc.sort_order(score)
    assert order.dtype == np.intp
    assert np.array_equal(np.sort(order), np.arange(n))
    assert np.array_equal(score[order], np.sort(score))


@pytest.mark.parametrize("smallest, method", [(999, "permutation"), (1000, "delong")])
def test_auto_method_boundary_is_at_exactly_the_documented_class_size(smallest, method):
    """method='auto' takes DeLong's test when every class of the compared groups has at
    least ASYMPTOTIC_MIN_CLASS (1,000) rows: at exactly 1,000 it does, at 999 it does not."""
    from fastfair.auc.ingest import ASYMPTOTIC_MIN_CLASS

    assert ASYMPTOTIC_MIN_CLASS == 1000
    rng = np.random.default_rng(10)
    sizes = [(smallest, 1200), (1100, 1300)]  # (negatives, positives) of groups 0 and 1
    g = np.repeat([0, 0, 1, 1], [c for pair in sizes for c in pair])
    y = np.concatenate([np.repeat([0, 1], pair) for pair in sizes]).astype(bool)
    s = rng.normal(size=y.size) + y
    res = ffauc.auc_test(y, s, g, method="auto", random_state=0, n_permutations=99)
    assert res.method == method


def test_zero_variance_fallback_of_the_studentized_statistic_by_hand():
    """Group 0 perfectly ranked (AUC 1: 3 positives, 4 negatives, 12 pairs), group 1
    perfectly reversed (AUC 0: 5 and 2, 10 pairs): both DeLong variances are 0, and the
    statistic is studentized with A'(1 - A') / pairs per group, A' the AUC shrunk by half
    a pseudo-pair -- each group by its own pairs. Written for round-5 mutant
    r5-auck-fallback-wrong-pairs (group b's term divided by group a's pairs)."""
    y = np.array([1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0])
    s = np.array([0.9, 0.8, 0.7, 0.1, 0.2, 0.3, 0.4, 0.1, 0.2, 0.3, 0.15, 0.25, 0.8, 0.9])
    g = np.repeat([0, 1], 7)
    res = fastfair.auc_test(y, s, g, method="permutation", n_permutations=99, random_state=0)
    shrunk = {0: (1.0 * 12 + 0.5) / 13, 1: (0.0 * 10 + 0.5) / 11}
    var = shrunk[0] * (1 - shrunk[0]) / 12 + shrunk[1] * (1 - shrunk[1]) / 10
    assert abs(float(np.squeeze(res.statistic))) == pytest.approx(1 / np.sqrt(var), rel=1e-12)
    # the DeLong z-test, on the rows and from a DeLongResult, has the same fallback, each
    # group with its own AUC and pairs (round eight's r8-auci-fallback: group a's term twice)
    for delong in (fastfair.auc_test(y, s, g, method="delong"),
                   ffauc.auc_test_from_delong(ffauc.delong(y, s, g))):  # fmt: skip
        assert abs(float(np.squeeze(delong.statistic))) == pytest.approx(
            1 / np.sqrt(var), rel=1e-12
        )


def test_delong_variance_keeps_a_placement_sum_of_squares_of_one_half():
    # Group 0's positives score 0.3 (tied with a negative) and 0.35: their placements in
    # halves are 3 and 4, whose centred sum of squares is exactly 1/2, the smallest
    # non-zero value; the kernel's exact-zero rule must keep it (brute-force DeLong).
    y = np.array([0, 0, 0, 1, 1, 0, 0, 1, 1, 0, 1])
    s = np.array([0.1, 0.3, 0.5, 0.3, 0.35, 0.2, 0.6, 0.7, 0.4, 0.9, 0.8])
    g = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1])
    d = ffauc.delong(y, s, g)
    brute = [brute_delong(y[g == k], s[g == k]) for k in (0, 1)]
    for k in (0, 1):
        assert d.auc[k] == pytest.approx(brute[k][0], abs=1e-14)
        assert d.variance[k] == pytest.approx(brute[k][1], rel=1e-12)
        assert d.s10[k] == pytest.approx(brute[k][4], rel=1e-12)
    assert brute[0][4] > 0
    res = ffauc.auc_test(y, s, g, reference=1, method="delong")
    z = (brute[0][0] - brute[1][0]) / np.sqrt(brute[0][1] + brute[1][1])
    assert res.statistic == pytest.approx(z, rel=1e-12)


def test_delong_z_test_gives_0_and_pvalue_1_when_the_aucs_are_equal_up_to_rounding():
    """6/18 and 5/15 are both 1/3, but the AUCs summed from placements differ by 5.6e-17:
    the difference counts as 0 (statistic 0, p-value 1), not as 1e-16 standard errors."""
    from fractions import Fraction

    sa = np.array([1.0, 0.0, 1.0, 2.0, 3.0, 3.0, 2.0, 1.0, 1.0, 2.0, 2.0])
    sb = np.array([1.0, 0.0, 2.0, 2.0, 1.0, 3.0, 2.0, 0.0])
    ya, yb = np.r_[np.ones(9), np.zeros(2)], np.r_[np.ones(3), np.zeros(5)]

    def exact_auc(y, s):
        pos, neg = s[y == 1], s[y == 0]
        wins = sum(Fraction(int(a > b) * 2 + int(a == b), 2) for a in pos for b in neg)
        return wins / (len(pos) * len(neg))

    assert exact_auc(ya, sa) == exact_auc(yb, sb) == Fraction(1, 3)
    y, s = np.r_[ya, yb].astype(int), np.r_[sa, sb]
    g = np.r_[np.zeros(11), np.ones(8)].astype(int)
    res = ffauc.auc_test_from_delong(ffauc.delong(y, s, g), reference=1)
    assert res.statistic == 0.0 and res.pvalue == 1.0
    rows = ffauc.auc_test(y, s, g, method="delong", reference=1)
    assert rows.statistic == 0.0 and rows.pvalue == 1.0


def test_group_intervals_are_wald_intervals_clipped_to_0_and_1():
    """Two groups with AUCs near 1 and near 0: the Wald interval auc +- z sd (brute-force
    DeLong variance) crosses 1 and 0 and is clipped there; the inner ends are unclipped."""
    y = np.array([1, 1, 1, 1, 1, 0, 0, 0, 0, 0] * 2)
    s = np.r_[
        np.array([5, 6, 7, 8, 2, 1, 2.5, 0, 3, 4]), -np.array([5, 6, 7, 8, 2, 1, 2.5, 0, 3, 4])
    ]
    g = np.repeat([0, 1], 10)
    res = ffauc.auc_test(y, s, g, method="delong", confidence_level=0.9)
    z = stats.norm.ppf(0.95)
    for k, (clip_lo, clip_hi) in enumerate([(False, True), (True, False)]):
        auc, var = brute_delong(y[g == k], s[g == k])[:2]
        assert 0 < var and (auc + z * np.sqrt(var) > 1) == clip_hi
        lo, hi = res.group_interval[0][k], res.group_interval[1][k]
        assert lo == (0.0 if clip_lo else pytest.approx(auc - z * np.sqrt(var), rel=1e-12))
        assert hi == (1.0 if clip_hi else pytest.approx(auc + z * np.sqrt(var), rel=1e-12))


def test_max_t_draws_9999_joint_permutations_by_default_and_reports_no_scheme_for_delong():
    rng = np.random.default_rng(4)
    y, s, g = make(rng, 90, n_groups=3)
    res = ffauc.auc_test(y, s, g, adjust="maxT", random_state=1)
    assert res.method == "permutation" and res.scheme == "within_outcome"
    assert res.n_permutations == 9999 and res.adjust == "maxT"
    full = ffauc.auc_test(y, s, g, scheme="full", n_permutations=99, random_state=1)
    assert full.scheme == "full"
    res = ffauc.auc_test(y, s, g, method="delong", scheme="full")
    assert res.method == "delong" and res.scheme is None


def test_delong_keeps_the_smallest_nonzero_spread_of_two_placements_among_many_negatives():
    """Two positives above all but one of 1,000,000 negatives, that one between them:
    their placements differ by 1e-6, S10 = (1e-6)^2 / 2 (brute force). The kernel's sums
    of squares behind it are near 2e12 (in units of half placements), so its exact-zero
    rule must not scale with them beyond rounding."""
    n = 1_000_000
    neg = np.linspace(0.0, 1.0, n)
    neg[-1] = 2.0 + 5e-10
    s = np.r_[2.0, 2.0 + 1e-9, neg]
    y = np.r_[1, 1, np.zeros(n, dtype=int)]
    pos = s[:2]
    v10 = np.array([(neg < p).mean() + 0.5 * (neg == p).mean() for p in pos])
    assert v10.var(ddof=1) == pytest.approx(5e-13, rel=1e-6, abs=0)
    res = ffauc.delong(y, s)
    assert res.s10[0] == pytest.approx(v10.var(ddof=1), rel=1e-6, abs=0)
    assert res.variance[0] == pytest.approx(
        v10.var(ddof=1) / 2 + neg_var(neg, pos), rel=1e-6, abs=0
    )


def neg_var(neg, pos):
    """S01 / n- by brute force: the negatives' placements among the positives."""
    v01 = (pos[None, :] > neg[:, None]).mean(axis=1) + 0.5 * (pos[None, :] == neg[:, None]).mean(
        axis=1
    )
    return v01.var(ddof=1) / len(neg)


def test_255_groups_are_accepted_and_256_refused():
    rng = np.random.default_rng(7)
    y = np.tile([0, 0, 1, 1], 256)
    score = rng.random(y.size)
    group = np.repeat(np.arange(256), 4)
    pos, neg = score.reshape(256, 4)[:, 2:], score.reshape(256, 4)[:, :2]
    by_hand = (pos[:, :, None] > neg[:, None, :]).mean(axis=(1, 2))  # no ties
    keep = group < 255
    got = fastfair.delong(y[keep], score[keep], group[keep])
    np.testing.assert_allclose(got.auc, by_hand[:255], rtol=1e-12)
    res = fastfair.auc_test(y[keep], score[keep], group[keep], method="delong", reference=0)
    assert len(res.groups) == 255
    for call in (fastfair.delong, functools.partial(fastfair.auc_test, method="delong")):
        with pytest.raises(ValueError, match="group has 256 groups; at most 255 supported"):
            call(y, score, group)


def _table_rows(text, first_header):
    """The rows (lists of cells) of the repr table whose header line starts with
    `first_header`, up to the next header or the end (cells are whitespace-separated)."""
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.split()[:1] == [first_header])
    rows = []
    for ln in lines[start + 1 :]:
        if not ln.startswith("  ") or ln.split()[0] in ("group", "comparison"):
            break
        rows.append(ln.split())
    return lines[start].split(), rows


def _unequal_classes_three_groups():
    rng = np.random.default_rng(36)
    n = 420
    g = rng.integers(0, 3, n)
    y = (rng.random(n) < np.array([0.2, 0.35, 0.55])[g]).astype(int)
    s = rng.normal(size=n) + y * np.array([0.6, 1.4, 0.7])[g]
    return y, s, g


def test_delong_repr_rows_show_each_groups_auc_standard_error_and_class_counts():
    """Every row of DeLongResult's table read back against brute-force DeLong and counts
    (the std_error column is the square root of the variance, not the variance)."""
    y, s, g = _unequal_classes_three_groups()
    header, rows = _table_rows(repr(ffauc.delong(y, s, g)), "group")
    assert header == ["group", "auc", "std_error", "n_pos", "n_neg"]
    assert len(rows) == 3
    fmt = fastfair._format.format_value
    for k, row in enumerate(rows):
        m = g == k
        auc, var, *_ = brute_delong(y[m], s[m])
        n_pos, n_neg = int((y[m] == 1).sum()), int((y[m] == 0).sum())
        assert n_pos != n_neg
        assert row == [str(k), fmt(auc), fmt(np.sqrt(var)), str(n_pos), str(n_neg)]


def test_auc_test_repr_rows_read_back_every_column():
    """AUCTestResult's two tables, three groups (so the Holm-adjusted p-values differ from
    the raw ones): each group's AUC, DeLong SE, Wald interval auc -+ z SE and class counts;
    each comparison's difference, its Wald interval, statistic, raw and adjusted p-value,
    all recomputed from brute-force DeLong."""
    y, s, g = _unequal_classes_three_groups()
    res = ffauc.auc_test(y, s, g, method="delong", reference=2)
    text = repr(res)
    fmt = fastfair._format.format_value
    z = stats.norm.ppf(0.975)
    brute = [brute_delong(y[g == k], s[g == k])[:2] for k in range(3)]
    header, rows = _table_rows(text, "group")
    assert header == ["group", "auc", "std_error", "95%", "low", "high", "n_pos", "n_neg"]
    for k, row in enumerate(rows):
        auc, var = brute[k]
        m = g == k
        lo, hi = max(auc - z * np.sqrt(var), 0.0), min(auc + z * np.sqrt(var), 1.0)
        expect = [fmt(auc), fmt(np.sqrt(var)), fmt(lo), fmt(hi)]
        expect += [str(int((y[m] == 1).sum())), str(int((y[m] == 0).sum()))]
        assert row == [str(k), *expect]
    header, rows = _table_rows(text, "comparison")
    assert header[-2:] == ["adjusted", "(holm)"]
    raw = []
    for k in (0, 1):
        diff = brute[k][0] - brute[2][0]
        se = np.sqrt(brute[k][1] + brute[2][1])
        raw.append(2 * stats.norm.sf(abs(diff / se)))
    holm = np.minimum(1, np.maximum.accumulate(np.array([2, 1]) * np.sort(raw)))
    holm = holm[np.argsort(np.argsort(raw))]
    assert abs(holm[0] - raw[0]) > 1e-3 or abs(holm[1] - raw[1]) > 1e-3
    for k, row in enumerate(rows):
        diff = brute[k][0] - brute[2][0]
        se = np.sqrt(brute[k][1] + brute[2][1])
        expect = [fmt(diff), fmt(diff - z * se), fmt(diff + z * se), fmt(diff / se)]
        expect += [fmt(raw[k]), fmt(holm[k])]
        assert row == [str(k), "-", "2", *expect]


def test_auc_test_from_delong_reports_class_counts_and_fields_of_the_rows():
    """The z-test from a DeLongResult: positives and negatives counted from the rows (the
    classes differ in size in every group), and every field equal to auc_test's on them."""
    y, s, g = _unequal_classes_three_groups()
    res = ffauc.auc_test_from_delong(ffauc.delong(y, s, g), reference=2)
    rows = ffauc.auc_test(y, s, g, method="delong", reference=2)
    n_pos = np.bincount(g, weights=y, minlength=3)
    n_neg = np.bincount(g, weights=1 - y, minlength=3)
    np.testing.assert_array_equal(res.group_n_pos, n_pos)
    np.testing.assert_array_equal(res.group_n_neg, n_neg)
    for name in (
        "statistic",
        "pvalue",
        "pvalue_adjusted",
        "difference",
        "group_auc",
        "group_variance",
    ):
        np.testing.assert_allclose(getattr(res, name), getattr(rows, name), rtol=1e-12)
    for mine, theirs in zip(
        res.group_interval + res.confidence_interval,
        rows.group_interval + rows.confidence_interval,
    ):
        np.testing.assert_allclose(mine, theirs, rtol=1e-12)


def test_auc_test_from_delong_defaults_to_the_group_with_most_rows():
    """The default reference of auc_test_from_delong is the largest group by rows (positives
    plus negatives), as in auc_test: here 'wide' has the most rows but the fewest positives
    (prevalence 0.1 against 0.8), so a reference by positives would be 'keen'."""
    rng = np.random.default_rng(5)
    g = np.repeat(np.array(["keen", "wide"]), [300, 700])
    y = (rng.random(g.size) < np.where(g == "keen", 0.8, 0.1)).astype(int)
    s = rng.normal(size=g.size) + y
    rows = {k: int((g == k).sum()) for k in ("keen", "wide")}
    positives = {k: int(y[g == k].sum()) for k in ("keen", "wide")}
    assert max(rows, key=rows.get) == "wide" and max(positives, key=positives.get) == "keen"
    res = ffauc.auc_test_from_delong(ffauc.delong(y, s, g))
    assert res.comparisons == [("keen", "wide")]
    assert res.comparisons == ffauc.auc_test(y, s, g, method="delong").comparisons


def test_auc_options_refused_with_their_rule():
    """auc_test_from_delong needs a DeLongResult (TypeError naming what it got), and the
    max-T adjustment needs permutations (ValueError)."""
    rng = np.random.default_rng(1)
    g, y, s = rng.integers(0, 2, 100), rng.integers(0, 2, 100), rng.normal(size=100)
    with pytest.raises(TypeError, match="delong_result must be a DeLongResult, got str"):
        ffauc.auc_test_from_delong("x")
    with pytest.raises(ValueError, match="adjust='maxT' needs method='permutation'"):
        ffauc.auc_test(y, s, g, method="delong", adjust="maxT")


# --- practice round prac10 (session 17) ---


def _three_groups(n=60, seed=5):
    rng = np.random.default_rng(seed)
    g = np.repeat(["a", "b", "c"], n)
    y = rng.random(3 * n) < 0.4
    s = rng.normal(y * np.where(g == "c", 1.2, 0.6), 1.0)
    return y, s, g


def test_maxt_auc_test_defaults_to_9999_joint_permutations_and_refuses_asymptotic_methods():
    y, s, g = _three_groups()
    res = fastfair.auc_test(y, s, g, adjust="maxT", random_state=0)
    assert res.method == "permutation" and res.n_permutations == 9999
    assert res.sequential is None and res.decision is None
    assert np.all(res.pvalue_adjusted >= res.pvalue)
    for method in ("auto", "delong"):
        with pytest.raises(ValueError, match="adjust='maxT' needs method='permutation'"):
            fastfair.auc_test(y, s, g, method=method, adjust="maxT")


_holm_by_hand_prac10 = runpy.run_path(str(pathlib.Path(__file__).with_name("_by_hand.py")))["holm"]


def test_auc_test_from_delong_has_the_row_functions_defaults():
    """auc_test_from_delong with only its DeLongResult equals auc_test(method="delong")
    with its defaults on three groups: the reference (most rows), the two-sided p-values,
    Holm's adjustment (by hand, not Bonferroni's) and the 95% intervals."""
    rng = np.random.default_rng(8)
    g = np.repeat(["a", "b", "c"], [90, 160, 120])
    y = rng.random(g.size) < 0.4
    s = rng.normal(y * np.select([g == "a", g == "b"], [0.5, 1.0], 1.4), 1.0)
    rows = fastfair.auc_test(y, s, g, method="delong")
    summary = fastfair.auc_test_from_delong(fastfair.delong(y, s, g))
    assert summary.comparisons == rows.comparisons == [("a", "b"), ("c", "b")]
    assert summary.confidence_level == rows.confidence_level == 0.95
    assert summary.alternative == rows.alternative == "two-sided"
    np.testing.assert_allclose(summary.pvalue, rows.pvalue, rtol=1e-10)
    np.testing.assert_allclose(
        summary.pvalue_adjusted, _holm_by_hand_prac10(summary.pvalue), rtol=1e-12
    )
    assert not np.allclose(summary.pvalue_adjusted, np.minimum(1, 2 * summary.pvalue))
    for end in range(2):
        np.testing.assert_allclose(
            summary.confidence_interval[end], rows.confidence_interval[end], rtol=1e-10
        )


def test_auc_test_repr_head_and_headers_name_scheme_statistic_and_level_given():
    """The repr's head names the permutation scheme asked for (none for DeLong's z-test)
    and whether the statistic is studentized; both tables' interval headers name the
    confidence level given (90%), and the group table's interval is the Wald interval at
    that level (brute-force DeLong, z_0.95)."""
    y, s, g = _unequal_classes_three_groups()
    heads = [
        repr(ffauc.auc_test(y, s, g, reference=2, **kw)).splitlines()[0]
        for kw in (dict(method="delong"),
                   dict(scheme="full", studentize=False, n_permutations=19, random_state=0))
    ]  # fmt: skip
    assert heads == [
        "AUCTestResult(method='delong', statistic=studentized (DeLong), alternative='two-sided')",
        "AUCTestResult(method='permutation', scheme='full', statistic=raw difference, "
        "alternative='two-sided', n_permutations=19)",
    ]
    text = repr(ffauc.auc_test(y, s, g, method="delong", reference=2, confidence_level=0.9))
    header, rows = _table_rows(text, "group")
    assert header[3:6] == ["90%", "low", "high"]
    z = stats.norm.ppf(0.95)
    fmt = fastfair._format.format_value
    for k, row in enumerate(rows):
        auc, var = brute_delong(y[g == k], s[g == k])[:2]
        assert row[3:5] == [fmt(max(auc - z * np.sqrt(var), 0.0)),
                            fmt(min(auc + z * np.sqrt(var), 1.0))]  # fmt: skip
    header, _ = _table_rows(text, "comparison")
    assert header[:5] == ["comparison", "difference", "90%", "low", "high"]
