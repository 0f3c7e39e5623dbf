"""Tests of fastfair.resampling: Algorithm 1 for callables, means, correlations, bootstrap.

References are computed independently here (closed-form variances, itertools enumeration,
scipy's classical tests); simulated rejection rates are checked against binomial error.
"""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

import fastfair
from fastfair import _means
from fastfair.resampling import (
    MetricError,
    basic_bootstrap_test,
    correlation_test,
    mean_difference_test,
)


def binomial_band(p, n_sims, z=3.5):
    half = z * math.sqrt(p * (1 - p) / n_sims)
    return p - half, p + half


# --------------------------------------------------------------------------------------
# Kernel: uniform random subsets, reproducible for any thread count
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "k", "draws"),
    [(10, 5, 40_000), (12, 4, 60_000), (40, 2, 60_000), (60, 1, 20_000)],
    ids=["dense-half", "dense-third", "floyd", "sparse-gather"],
)
def test_subset_sums_uniform_over_subsets(n, k, draws):
    # v_i = 2^i makes the sum identify the subset exactly.
    v = np.ldexp(1.0, np.arange(n))
    sums = _means.subset_sums(v, k, draws, 12345, 7, 2)
    ints = sums[:, 0].astype(np.uint64)
    assert all(bin(int(s)).count("1") == k for s in ints[:500])
    if n <= 12:  # the sums of squares are those of the same subsets
        squares = [sum(4.0**i for i in range(n) if s >> i & 1) for s in ints[:500].tolist()]
        np.testing.assert_allclose(sums[:500, 1], squares, rtol=1e-12)
    _, counts = np.unique(ints, return_counts=True)
    n_cells = math.comb(n, k)
    assert len(counts) == n_cells  # every subset occurs
    chi2 = ((counts - draws / n_cells) ** 2 / (draws / n_cells)).sum()
    assert stats.chi2.sf(chi2, n_cells - 1) > 1e-4


def test_kernels_identical_for_any_thread_count():
    rng = np.random.default_rng(3)
    v = rng.normal(size=20_000)
    for k in (9_000, 900, 200):
        a = _means.subset_sums(v, k, 64, 99, 1, 1)
        b = _means.subset_sums(v, k, 64, 99, 1, 2)
        np.testing.assert_array_equal(a, b)
        # permutation b depends only on (key, stream, start + b)
        c = _means.subset_sums(v, k, 32, 99, 1, 2, start=32)
        np.testing.assert_array_equal(a[32:], c)
    x, e = rng.normal(size=500), rng.normal(size=500)
    np.testing.assert_array_equal(
        _means.corr_sums(x, e, 100, 5, 0, 1), _means.corr_sums(x, e, 100, 5, 0, 2)
    )
    group = rng.integers(0, 3, 20_000)
    r1 = mean_difference_test(v, group, n_permutations=499, random_state=4, n_jobs=1)
    r2 = mean_difference_test(v, group, n_permutations=499, random_state=4, n_jobs=2)
    np.testing.assert_array_equal(r1.pvalue, r2.pvalue)
    c1 = correlation_test(x, e, n_permutations=499, random_state=4, n_jobs=1)
    c2 = correlation_test(x, e, n_permutations=499, random_state=4, n_jobs=2)
    assert c1.pvalue == c2.pvalue


def test_corr_sums_are_permutations():
    x = np.arange(1.0, 8.0)
    e = np.ldexp(1.0, np.arange(7))  # distinct powers of two
    sums = _means.corr_sums(np.ones(7), e, 200, 1, 0, 1)
    np.testing.assert_allclose(sums[:, 0], e.sum())
    perms = _means.permutation_indices(7, 0, 200, 1, 0)
    assert (np.sort(perms, axis=1) == np.arange(7)).all()
    got = _means.corr_sums(x, e, 5, 1, 0, 1)[:, 0]
    # corr_sums shuffles e by Fisher-Yates from the same stream as permutation_indices
    shuffled = np.array([e[p] for p in perms[:5]])
    np.testing.assert_allclose(got, shuffled @ x)


@pytest.mark.parametrize(
    ("n", "k"),
    [(50, 1), (50, 2), (50, 3), (50, 4), (50, 25)],
    ids=["sparse", "floyd-2", "floyd-3", "dense-4", "dense-half"],
)
def test_subset_sums_of_squares_are_those_of_the_drawn_subset_on_every_path(n, k):
    """Column 1 of subset_sums is the sum of squares of the same subset whose sum is column
    0, on the sparse gather (32 k < n), Floyd's bitmap and the dense draw (16 k >= n), with
    both accumulator pairs of the sweep in use: v_i = 2^i makes the sum name the subset,
    whose squares 4^i are then summed here (n <= 53: the sums are exact)."""
    v = np.ldexp(1.0, np.arange(n))
    sums = _means.subset_sums(v, k, 300, 2024, 3, 1)
    for total, squares in sums.tolist():
        members = [i for i in range(n) if int(total) >> i & 1]
        assert len(members) == k
        assert squares == pytest.approx(math.fsum(4.0**i for i in members), rel=1e-12)


def test_corr_sums_second_column_is_the_sum_of_squared_products():
    """corr_sums' column 1 is sum_i (x_i e_pi(i))^2 for the permutation pi of column 0 (the
    Fisher-Yates shuffle of permutation_indices' stream), computed here with numpy."""
    rng = np.random.default_rng(36)
    x, e = rng.normal(size=9), rng.normal(size=9) * 3.0
    got = _means.corr_sums(x, e, 6, 1, 0, 1)
    perms = _means.permutation_indices(9, 0, 6, 1, 0)
    prods = x[None, :] * e[perms]
    np.testing.assert_allclose(got[:, 0], prods.sum(axis=1), rtol=1e-12)
    np.testing.assert_allclose(got[:, 1], (prods**2).sum(axis=1), rtol=1e-12)


# --------------------------------------------------------------------------------------
# Difference of means
# --------------------------------------------------------------------------------------


def brute_force_welch(v, na, studentize=True):
    """All splits of v into na + (n - na) rows; the Welch (or raw) statistic of each."""
    out = []
    n = len(v)
    for a in itertools.combinations(range(n), na):
        mask = np.zeros(n, bool)
        mask[list(a)] = True
        x, y = v[mask], v[~mask]
        d = x.mean() - y.mean()
        if studentize:
            d = d / math.sqrt(x.var(ddof=1) / len(x) + y.var(ddof=1) / len(y))
        out.append(d)
    return np.array(out)


@pytest.mark.parametrize("studentize", [True, False])
def test_mean_difference_exact_matches_brute_force(studentize):
    rng = np.random.default_rng(0)
    v = np.round(rng.exponential(size=11), 2)
    group = np.array([1] * 4 + [0] * 7)
    res = mean_difference_test(v, group, method="exact", studentize=studentize, return_null=True)
    ref = brute_force_welch(np.concatenate([v[:4], v[4:]]), 4, studentize)
    obs = ref[0]
    assert res.statistic == pytest.approx(obs, rel=1e-10)
    np.testing.assert_allclose(np.sort(res.null_distribution), np.sort(ref), rtol=1e-9)
    p_ref = np.mean(np.abs(ref) >= abs(obs) * (1 - 1e-12))
    assert res.pvalue == pytest.approx(p_ref, rel=1e-12)
    mc = mean_difference_test(
        v, group, studentize=studentize, n_permutations=20_000, random_state=1
    )
    lo, hi = binomial_band(p_ref, 20_000, z=4)
    assert lo <= mc.pvalue <= hi + 1e-4


def test_mean_difference_asymptotic_is_welch_t_test():
    rng = np.random.default_rng(5)
    v = np.concatenate([rng.normal(0.3, 2, 40), rng.normal(0, 1, 90)])
    g = np.repeat(["b", "a"], [40, 90])
    res = mean_difference_test(v, g, method="asymptotic")
    ref = stats.ttest_ind(v[:40], v[40:], equal_var=False)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-10)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-8)
    assert res.standard_error == pytest.approx(
        math.sqrt(v[:40].var(ddof=1) / 40 + v[40:].var(ddof=1) / 90)
    )


def test_welch_accepts_groups_of_exactly_two_rows():
    v = np.array([1.0, 4.0, 2.0, 3.0, 7.0])
    g = np.array(["a", "a", "b", "b", "b"])
    ref = stats.ttest_ind(v[:2], v[2:], equal_var=False)  # Welch-Satterthwaite df
    res = mean_difference_test(v, g, method="asymptotic")
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-10)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-8)
    assert res.standard_error == pytest.approx(math.sqrt(4.5 / 2 + 7 / 3), rel=1e-12)
    weighted = fastfair.permutation_test(v, v, g, metric="mean_score", sample_weight=np.ones(5),
                                         n_permutations=99, random_state=0)  # fmt: skip
    assert weighted.statistic == pytest.approx(ref.statistic, rel=1e-10)


def test_exact_enumerates_up_to_exactly_max_exact_subsets(monkeypatch):
    import fastfair.resampling.inference as inference

    v, g = np.array([1.0, 4.0, 2.0, 3.0, 7.0]), np.array([0, 0, 1, 1, 1])
    monkeypatch.setattr(inference, "MAX_EXACT_SUBSETS", 10)  # C(5, 2) = 10 splits
    res = mean_difference_test(v, g, method="exact", studentize=False, return_null=True)
    splits = [np.mean(v[list(a)]) - np.delete(v, list(a)).mean()
              for a in itertools.combinations(range(5), 2)]  # fmt: skip
    np.testing.assert_allclose(np.sort(res.null_distribution), np.sort(splits), atol=1e-12)
    monkeypatch.setattr(inference, "MAX_EXACT_SUBSETS", 9)
    with pytest.raises(ValueError, match="MAX_EXACT_SUBSETS = 9"):
        mean_difference_test(v, g, method="exact", studentize=False)


@pytest.mark.parametrize("offset", [1e9, -3e12])
def test_mean_difference_is_exact_for_values_far_from_zero(offset):
    """Values around 1e9 (timestamps, revenue in cents): the statistic, its p-value and the
    exact permutation distribution are those of the same values shifted to 0 (the sums are
    taken around the pooled mean)."""
    rng = np.random.default_rng(6)
    small = np.round(np.concatenate([rng.normal(0.4, 1, 9), rng.normal(0, 2, 7)]) * 64) / 64
    g = np.repeat([1, 0], [9, 7])
    ref = stats.ttest_ind(small[:9], small[9:], equal_var=False)
    res = mean_difference_test(small + offset, g, reference=0, method="asymptotic")
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-9)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-8)
    exact = mean_difference_test(small + offset, g, method="exact")
    shifted = mean_difference_test(small, g, method="exact")
    assert exact.statistic == pytest.approx(shifted.statistic, rel=1e-9)
    assert exact.pvalue == shifted.pvalue


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_mean_difference_one_sided_pvalues(alternative):
    """Asymptotic: scipy's Welch test with the same alternative. Exact: the share of the
    enumerated splits whose Welch statistic is as far in the alternative's direction."""
    rng = np.random.default_rng(5)
    v = np.round(np.concatenate([rng.normal(0.8, 1, 5), rng.normal(0, 2, 7)]), 2)
    g = np.repeat(["b", "a"], [5, 7])  # reference "a" (the larger group): b - a
    ref = stats.ttest_ind(v[:5], v[5:], equal_var=False, alternative=alternative)
    res = mean_difference_test(v, g, method="asymptotic", alternative=alternative)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-10)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-8)
    null = brute_force_welch(v, 5, True)
    obs, tol = null[0], 1e-9 * abs(null[0])
    want = {
        "two-sided": np.mean(np.abs(null) >= abs(obs) - tol),
        "greater": np.mean(null >= obs - tol),
        "less": np.mean(null <= obs + tol),
    }[alternative]
    exact = mean_difference_test(v, g, method="exact", alternative=alternative)
    assert exact.pvalue == pytest.approx(want, rel=1e-12)


def test_mean_difference_level_under_unequal_variances():
    # Weak null (equal means) with unequal variances and sizes: Welch holds the level,
    # the raw difference does not (small group with the large variance: anti-conservative).
    rng = np.random.default_rng(11)
    n_sims = 300
    rejected = {True: 0, False: 0}
    for s in range(n_sims):
        v = np.concatenate([rng.normal(0, 4, 25), rng.normal(0, 1, 250)])
        g = np.repeat([1, 0], [25, 250])
        for stud in (True, False):
            r = mean_difference_test(
                v, g, studentize=stud, n_permutations=299, random_state=s, n_jobs=1
            )
            rejected[stud] += r.pvalue <= 0.05
    lo, hi = binomial_band(0.05, n_sims)
    assert lo <= rejected[True] / n_sims <= hi
    assert rejected[False] / n_sims > hi  # about 0.25


# --------------------------------------------------------------------------------------
# Callable metrics and row metrics through permutation_test
# --------------------------------------------------------------------------------------


def test_bootstrap_variance_matches_closed_form():
    # For a rate the bootstrap variance (eq. 1) has expectation p(1-p)/n per group.
    rng = np.random.default_rng(2)
    group = np.repeat(["a", "b"], [300, 500])
    pred = rng.random(800) < np.where(group == "a", 0.3, 0.6)
    y = np.zeros(800)

    def selection_rate(y_true, y_pred):
        return y_pred.mean(axis=-1)

    res = fastfair.permutation_test(
        y,
        pred,
        group,
        metric=selection_rate,
        vectorized=True,
        studentize="bootstrap",
        method="asymptotic",
        n_bootstrap=4000,
        random_state=0,
    )
    pa, pb = pred[:300].mean(), pred[300:].mean()
    closed = pa * (1 - pa) / 300 + pb * (1 - pb) / 500
    # relative SD of a variance estimate from 4000 resamples: sqrt(2/4000) = 2.2%
    assert res.standard_error**2 == pytest.approx(closed, rel=0.09)
    fast = fastfair.permutation_test(
        y,
        pred,
        group,
        metric=selection_rate,
        vectorized=True,
        studentize="bootstrap-fast",
        method="asymptotic",
        n_bootstrap=4000,
        random_state=0,
    )
    assert fast.standard_error**2 == pytest.approx(closed, rel=0.09)
    # and for a mean, the bootstrap variance is (n-1)/n times s^2/n
    v = rng.normal(size=800) * np.where(group == "a", 2.0, 1.0)
    boot = fastfair.permutation_test(
        v,
        np.zeros(800),
        group,
        metric="mean_outcome",
        studentize="bootstrap",
        method="asymptotic",
        n_bootstrap=4000,
        random_state=0,
    )
    closed = v[:300].var() / 300 + v[300:].var() / 500
    assert boot.standard_error**2 == pytest.approx(closed, rel=0.09)


def test_callable_agrees_with_builtin_and_vectorized_form():
    rng = np.random.default_rng(4)
    group = rng.integers(0, 2, 400)
    y = rng.normal(size=400)
    pred = y + rng.normal(0.15 * group, 1.0)

    def mean_residual(y_true, y_pred):
        return float(np.mean(y_true - y_pred))

    def mean_residual_v(y_true, y_pred):
        return np.mean(y_true - y_pred, axis=-1)

    kw = dict(studentize=False, n_permutations=2000, random_state=3, return_null=True)
    loop = fastfair.permutation_test(y, pred, group, metric=mean_residual, **kw)
    vec = fastfair.permutation_test(y, pred, group, metric=mean_residual_v, vectorized=True, **kw)
    np.testing.assert_allclose(loop.null_distribution, vec.null_distribution, rtol=1e-12)
    assert loop.pvalue == vec.pvalue
    builtin = fastfair.permutation_test(y, pred, group, metric="mean_residual", **kw)
    assert builtin.difference == pytest.approx(loop.difference, rel=1e-12)
    assert builtin.statistic == pytest.approx(loop.statistic, rel=1e-12)
    # different permutations: the p-values agree within Monte-Carlo error
    assert abs(builtin.pvalue - loop.pvalue) < 4 * math.sqrt(0.25 / 2000) * 1.5
    # Welch through the Python path (unit weights) equals the compiled path's statistic
    w = fastfair.permutation_test(
        y,
        pred,
        group,
        metric="mean_residual",
        sample_weight=np.ones(400),
        n_permutations=2000,
        random_state=3,
    )
    c = fastfair.permutation_test(
        y, pred, group, metric="mean_residual", n_permutations=2000, random_state=3
    )
    assert w.variance == c.variance == "welch"
    assert w.statistic == pytest.approx(c.statistic, rel=1e-10)
    assert abs(w.pvalue - c.pvalue) < 0.05


def test_full_algorithm1_matches_hand_computation():
    rng = np.random.default_rng(8)
    group = np.repeat([0, 1], [12, 9])
    y = rng.normal(size=21)
    pred = y + rng.normal(size=21) * np.where(group == 1, 2.0, 1.0)

    def mae(y_true, y_pred):
        return np.mean(np.abs(y_true - y_pred), axis=-1)

    res = fastfair.permutation_test(
        y,
        pred,
        group,
        metric=mae,
        vectorized=True,
        studentize="bootstrap",
        n_permutations=30,
        n_bootstrap=25,
        random_state=6,
        return_null=True,
    )
    key = fastfair._random.stream_key(6)
    v = np.abs(y - pred)
    rows_a, rows_b = np.flatnonzero(group == 1), np.flatnonzero(group == 0)  # (1, ref 0)
    pooled = np.concatenate([rows_a, rows_b])

    def studentized(ra, rb, index):
        t = v[ra].mean() - v[rb].mean()
        ia = _means.bootstrap_indices(len(ra), len(ra), index * 25, 25, key, 1)
        ib = _means.bootstrap_indices(len(rb), len(rb), index * 25, 25, key, 2)
        boot = v[ra[ia]].mean(axis=1) - v[rb[ib]].mean(axis=1)
        return t / math.sqrt(np.mean((boot - t) ** 2))

    perms = _means.permutation_indices(21, 0, 30, key, 0)
    ref = [studentized(pooled[p[:9]], pooled[p[9:]], b) for b, p in enumerate(perms)]
    np.testing.assert_allclose(res.null_distribution, ref, rtol=1e-10)
    assert res.variance == "bootstrap" and res.n_bootstrap == 25
    assert "bootstrap" in repr(res)


def test_multigroup_callable_and_weights():
    rng = np.random.default_rng(9)
    group = rng.choice(["x", "y", "z"], 600, p=[0.5, 0.3, 0.2])
    y = rng.random(600) < 0.4
    pred = rng.random(600)
    seen = {}

    def brier(y_true, y_pred, sample_weight=None):
        seen["w"] = sample_weight is not None
        return np.average((y_true - y_pred) ** 2, weights=sample_weight)

    res = fastfair.permutation_test(
        y,
        pred,
        group,
        metric=brier,
        studentize="bootstrap-fast",
        sample_weight=rng.random(600) + 0.5,
        n_permutations=99,
        n_bootstrap=50,
        random_state=0,
    )
    assert seen["w"]
    assert res.comparisons == [("y", "x"), ("z", "x")]
    lo, hi = np.sort(res.pvalue)
    holm = [min(1.0, 2 * lo), min(1.0, max(2 * lo, hi))]  # Holm, the default, for m = 2
    np.testing.assert_allclose(np.sort(res.pvalue_adjusted), holm, rtol=1e-14)


# --------------------------------------------------------------------------------------
# Correlation (Table 1, quick) and the basic bootstrap (Sec. 4.2, quick)
# --------------------------------------------------------------------------------------


def test_correlation_formulas():
    rng = np.random.default_rng(1)
    x = rng.uniform(1, 2, 300)
    e = rng.normal(size=300) * x
    res = correlation_test(x, e, method="asymptotic", studentize=False)
    ref = stats.pearsonr(x, e)
    assert res.r == pytest.approx(ref.statistic, rel=1e-10)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-6)
    xc, ec = x - x.mean(), e - e.mean()
    tau2 = np.mean(xc**2 * ec**2) / (np.mean(xc**2) * np.mean(ec**2))
    s = math.sqrt(300) * res.r / math.sqrt(tau2)
    stud = correlation_test(x, e, n_permutations=99, random_state=0)
    assert stud.statistic == pytest.approx(s, rel=1e-10)
    assert stud.tau == pytest.approx(math.sqrt(tau2), rel=1e-10)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_correlation_asymptotic_pvalues_of_each_alternative(alternative):
    """Raw: scipy's pearsonr with the same alternative (Student t, n - 2 df). Studentized:
    the normal tail of sqrt(n) r / tau on the alternative's side."""
    rng = np.random.default_rng(3)
    x = rng.uniform(1, 2, 60)
    e = 0.3 * x + rng.normal(size=60) * x  # r about 0.2: the two one-sided tails differ
    raw = correlation_test(x, e, method="asymptotic", studentize=False, alternative=alternative)
    ref = stats.pearsonr(x, e, alternative=alternative)
    assert raw.r == pytest.approx(ref.statistic, rel=1e-10)
    assert raw.pvalue == pytest.approx(ref.pvalue, rel=1e-8)
    assert (raw.method, raw.alternative, raw.n) == ("asymptotic", alternative, 60)
    xc, ec = x - x.mean(), e - e.mean()
    tau = math.sqrt(np.mean(xc**2 * ec**2) / (np.mean(xc**2) * np.mean(ec**2)))
    z = math.sqrt(60) * ref.statistic / tau
    want = {
        "two-sided": 2 * stats.norm.sf(abs(z)),
        "greater": stats.norm.sf(z),
        "less": stats.norm.cdf(z),
    }[alternative]
    stud = correlation_test(x, e, method="asymptotic", alternative=alternative)
    assert stud.statistic == pytest.approx(z, rel=1e-10)
    assert stud.pvalue == pytest.approx(want, rel=1e-8)


def test_correlation_test_accepts_three_rows_and_refuses_two():
    x, e = np.array([1.0, 2.0, 4.0]), np.array([1.0, 3.0, 2.0])
    raw = correlation_test(x, e, method="asymptotic", studentize=False)
    ref = stats.pearsonr(x, e)  # Student t with n - 2 = 1 df
    assert raw.r == pytest.approx(ref.statistic, rel=1e-12) and raw.n == 3
    assert raw.pvalue == pytest.approx(ref.pvalue, rel=1e-8)
    with pytest.raises(ValueError, match="at least 3 rows, got 2"):
        correlation_test(x[:2], e[:2], method="asymptotic")


def test_table1_quick():
    # KDD 2020 Table 1, uncorrelated but dependent: x ~ U(1e-5, 1), e = eps / x^2.
    # Studentized: about 0.043-0.05; raw permutation of e against x: about 0.59.
    rng = np.random.default_rng(2020)
    n_sims, rej_s, rej_r = 150, 0, 0
    for s in range(n_sims):
        x = rng.uniform(1e-5, 1, 2000)
        e = rng.normal(size=2000) / x**2
        rej_s += correlation_test(x, e, n_permutations=199, random_state=s).pvalue <= 0.05
        rej_r += (
            correlation_test(x, e, studentize=False, n_permutations=199, random_state=s).pvalue
            <= 0.05
        )
    assert rej_s / n_sims <= binomial_band(0.05, n_sims)[1]
    assert rej_r / n_sims > 0.35


def test_basic_bootstrap_fnr_quick():
    # Sec. 4.2: the basic bootstrap of the FNR difference rejects about 0.10 at 0.05.
    rng = np.random.default_rng(42)
    n_sims, rejected = 300, 0
    group = np.repeat([0, 1], 200)
    for s in range(n_sims):
        y = rng.random(400) < np.where(group == 0, 0.8, 0.2)
        pred = np.where(rng.random(400) < 0.9, y, ~y)
        res = basic_bootstrap_test(y, pred, group, metric="fnr", n_bootstrap=499, random_state=s)
        rejected += res.pvalue <= 0.05
    rate = rejected / n_sims
    assert binomial_band(0.10, n_sims)[0] <= rate <= binomial_band(0.10, n_sims)[1]


def test_basic_bootstrap_interval_and_callable():
    rng = np.random.default_rng(0)
    group = np.repeat(["a", "b"], 150)
    v = rng.normal(np.where(group == "a", 0.0, 0.5), 1.0)
    res = basic_bootstrap_test(
        v, v, group, metric="mean_outcome", n_bootstrap=2000, random_state=0, return_null=True
    )
    lo, hi = res.confidence_interval
    se = math.sqrt(v[:150].var() / 150 + v[150:].var() / 150)
    assert lo < res.difference < hi
    assert hi - lo == pytest.approx(2 * 1.96 * se, rel=0.1)
    assert res.pvalue < 0.05
    res2 = basic_bootstrap_test(
        v, v, group, metric=lambda a, b: float(np.mean(a)), n_bootstrap=200, random_state=0
    )
    assert res2.difference == pytest.approx(res.difference)


# --------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------


def test_callable_errors_name_the_metric():
    y = np.arange(40.0)
    group = np.repeat([0, 1], 20)

    def explodes(y_true, y_pred):
        raise RuntimeError("boom")

    with pytest.raises(MetricError, match=r"'explodes' raised RuntimeError.*observed.*boom"):
        fastfair.permutation_test(y, y, group, metric=explodes)

    def nan_metric(y_true, y_pred):
        return float("nan")

    with pytest.raises(MetricError, match="'nan_metric' returned nan"):
        fastfair.permutation_test(y, y, group, metric=nan_metric, studentize=False)

    def sometimes_nan(y_true, y_pred):
        return np.nan if y_true[0] > 30 else 1.0

    with pytest.raises(MetricError, match=r"'sometimes_nan' returned nan on permutation"):
        fastfair.permutation_test(
            y, y, group, metric=sometimes_nan, studentize=False, n_permutations=200, random_state=0
        )

    def wrong_shape(y_true, y_pred):
        return y_true.mean()

    with pytest.raises(MetricError, match=r"'wrong_shape' must return shape \(1,\)"):
        fastfair.permutation_test(y, y, group, metric=wrong_shape, vectorized=True)

    def text(y_true, y_pred):
        return "high"

    with pytest.raises(MetricError, match="'text' must return a number"):
        fastfair.permutation_test(y, y, group, metric=text)


def test_option_errors():
    y = np.arange(40.0) % 2
    group = np.repeat([0, 1], 20)
    with pytest.raises(ValueError, match="does not apply to the confusion-matrix metric"):
        fastfair.permutation_test(y, y, group, metric="tpr", studentize="bootstrap")
    with pytest.raises(ValueError, match="studentize must be one of"):
        fastfair.permutation_test(y, y, group, metric=np.mean, studentize="jackknife")
    with pytest.raises(ValueError, match="'welch' applies to row-level"):
        fastfair.permutation_test(y, y, group, metric=lambda a, b: 1.0, studentize="welch")
    with pytest.raises(ValueError, match="maxT"):
        mean_difference_test(y, np.arange(40) % 3, adjust="maxT")
    with pytest.raises(ValueError, match="at least 2 rows"):
        mean_difference_test(np.arange(5.0), [0, 0, 0, 0, 1])
    with pytest.raises(ValueError, match="values contains NaN"):
        mean_difference_test([1.0, np.nan, 2.0, 3.0], [0, 0, 1, 1])
    with pytest.raises(ValueError, match="attribute is constant"):
        correlation_test(np.ones(10), np.arange(10.0))
    with pytest.raises(ValueError, match="n_bootstrap must be >= 2"):
        fastfair.permutation_test(y, y, group, metric=np.mean, n_bootstrap=1)
    with pytest.raises(ValueError, match="MAX_EXACT_SUBSETS"):
        mean_difference_test(np.arange(60.0), np.repeat([0, 1], 30), method="exact")
    with pytest.raises(TypeError, match="metric must be a string or a callable"):
        fastfair.permutation_test(y, y, group, metric=3, studentize="bootstrap")


def test_progress_option():
    y = np.arange(40.0)
    group = np.repeat([0, 1], 20)
    kw = dict(metric="mse", studentize="bootstrap-fast", n_permutations=20, n_bootstrap=10)
    try:
        import tqdm  # noqa: F401
    except ImportError:
        with pytest.warns(UserWarning, match="progress=True needs tqdm"):
            fastfair.permutation_test(y, y[::-1], group, progress=True, **kw)
    else:
        fastfair.permutation_test(y, y[::-1], group, progress=True, **kw)
    # off by default when stderr is not a terminal (as under pytest): no warning, no bar
    res = fastfair.permutation_test(y, y[::-1], group, **kw)
    assert res.variance == "bootstrap-fast"


def test_confusion_only_options_are_refused_for_callables():
    rng = np.random.default_rng(0)
    y, p, g = rng.random(50), rng.random(50), rng.integers(0, 2, 50)
    for option in (dict(variance="unpooled"), dict(mid_p=True), dict(pos_label=1)):
        with pytest.raises(ValueError, match="confusion-matrix metrics only"):
            fastfair.permutation_test(y, p, g, metric="mse", **option)


@pytest.mark.parametrize(
    "metric,row",
    [
        ("mse", lambda y, p: (y - p) ** 2),
        ("mae", lambda y, p: np.abs(y - p)),
        ("mean_residual", lambda y, p: y - p),
        ("mean_score", lambda y, p: p),
    ],
)
def test_row_metrics_are_means_of_their_row_values(metric, row):
    rng = np.random.default_rng(13)
    g = np.repeat(["a", "b"], [40, 60])
    y = rng.normal(size=100)
    p = y + rng.normal(scale=0.5, size=100)
    res = fastfair.permutation_test(y, p, g, metric=metric, method="asymptotic")
    v = row(y, p)
    means = [v[g == "a"].mean(), v[g == "b"].mean()]
    np.testing.assert_allclose(res.group_values, means, rtol=1e-12)
    assert res.difference == pytest.approx(means[0] - means[1], rel=1e-12)
    va, vb = v[g == "a"], v[g == "b"]  # Welch: sample variances with ddof 1
    se = np.sqrt(va.var(ddof=1) / va.size + vb.var(ddof=1) / vb.size)
    assert res.statistic == pytest.approx((means[0] - means[1]) / se, rel=1e-10)


def _weighted_three_groups():
    rng = np.random.default_rng(36)
    n = 600
    g = rng.integers(0, 3, n)
    y = rng.integers(0, 2, n)
    pred = (rng.random(n) < 0.4 + 0.1 * g).astype(int)
    w = rng.uniform(0.5, 2.0, n) * 1000.0  # weights in any unit, largest far from 1
    return y, pred, g, w


def _weighted_accuracy(y_true, y_pred, sample_weight=None):
    return np.average(y_true == y_pred, weights=sample_weight)


@pytest.mark.parametrize("metric", ["mse", _weighted_accuracy])
def test_weighted_group_denominators_are_the_users_sums_of_weights(metric):
    """A weighted row metric or callable: group_denominators (the repr's "sum of weights"
    column) is each group's sum of the user's weights (numpy), in the weights' own unit,
    as permutation_test reports for a confusion metric; group_values the weighted metric."""
    y, pred, g, w = _weighted_three_groups()
    res = fastfair.permutation_test(
        y, pred, g, metric=metric, sample_weight=w, n_permutations=19, random_state=1, reference=0
    )
    sums = np.array([w[g == k].sum() for k in range(3)])
    np.testing.assert_allclose(res.group_denominators, sums, rtol=1e-12)
    per_row = (y - pred) ** 2 if metric == "mse" else (y == pred) * 1.0
    values = [np.average(per_row[g == k], weights=w[g == k]) for k in range(3)]
    np.testing.assert_allclose(res.group_values, values, rtol=1e-12)
    fmt = fastfair._format.format_value
    lines = repr(res).splitlines()
    assert lines[1].split()[-3:] == ["sum", "of", "weights"]
    for k in range(3):
        assert lines[2 + k].split() == [str(k), fmt(values[k]), fmt(sums[k])]
    confusion = fastfair.permutation_test(
        y, pred, g, metric="accuracy", sample_weight=w, n_permutations=19, random_state=1
    )
    np.testing.assert_allclose(confusion.group_denominators, sums, rtol=1e-12)


# --- practice round prac10 (session 17) ---


def test_exact_row_metric_test_without_studentization_enumerates_every_split():
    """A row metric (mean residual y - p) by method="exact" with studentize=False: the null
    is the mean difference over all C(7, 3) splits of the residuals, the p-value the share
    of splits at least as extreme (enumerated here)."""
    y = np.array([1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0])
    p = np.array([0.2, 0.4, 0.9, 0.3, 0.1, 0.5, 0.6])
    g = np.array([0, 0, 0, 1, 1, 1, 1])
    res = fastfair.resampling.permutation_test_rows(
        y, p, g, metric="mean_residual", method="exact", studentize=False, reference=1
    )
    v = y - p
    splits = np.array([v[list(a)].mean() - np.delete(v, list(a)).mean()
                       for a in itertools.combinations(range(7), 3)])  # fmt: skip
    observed = v[:3].mean() - v[3:].mean()
    assert res.difference == pytest.approx(observed)
    assert res.pvalue == pytest.approx(np.mean(np.abs(splits) >= abs(observed) - 1e-12))
    assert res.method == "exact" and not res.studentize


def test_a_callable_with_studentize_true_runs_algorithm_1_the_bootstrap_inside_each_permutation():
    """Documented: studentize=True means "bootstrap" (Algorithm 1) for callables, not the
    fast variant: the default equals studentize="bootstrap" and differs from
    "bootstrap-fast" on the same seed."""
    rng = np.random.default_rng(3)
    g = np.repeat([0, 1], [30, 24])
    y = rng.integers(0, 2, g.size)
    p = rng.integers(0, 2, g.size)

    def agreement(y, p):
        return float(np.mean(y == p))

    kw = dict(metric=agreement, n_permutations=19, n_bootstrap=10, random_state=0)
    default = fastfair.resampling.permutation_test_rows(y, p, g, **kw)
    alg1 = fastfair.resampling.permutation_test_rows(y, p, g, studentize="bootstrap", **kw)
    fast = fastfair.resampling.permutation_test_rows(y, p, g, studentize="bootstrap-fast", **kw)
    assert default.variance == "bootstrap"
    assert default.statistic == alg1.statistic and default.pvalue == alg1.pvalue
    assert fast.statistic != default.statistic or fast.pvalue != default.pvalue


def test_welch_takes_groups_of_two_rows_and_a_raw_difference_a_group_of_one():
    """Welch's statistic needs a variance in each group: 2 rows is enough (the statistic
    by hand, in mean_difference_test and MeanStats.welch), 1 is refused; the raw
    difference (studentize=False) takes a group of one row, whose exact p-value counts the
    6 single rows as far from the rest as the observed one (1 and 11 of 1, 2, 4, 7, 11, 3:
    |6 v - 28| / 5 >= 4.4), 2 / 6 exactly."""
    v = np.array([1.0, 2.0, 4.0, 7.0, 11.0, 3.0])
    g = np.array([0, 0, 1, 1, 1, 1])
    a, b = v[:2], v[2:]
    want = (a.mean() - b.mean()) / np.sqrt(a.var(ddof=1) / 2 + b.var(ddof=1) / 4)
    res = mean_difference_test(v, g, method="asymptotic", reference=1)
    assert res.statistic == pytest.approx(want, rel=1e-12)
    from fastfair.stats import MeanStats

    diff, stat = MeanStats.from_arrays(v, g).welch(0, 1)
    assert (diff, stat) == pytest.approx((a.mean() - b.mean(), want), rel=1e-12)
    one = np.array([0, 1, 1, 1, 1, 1])
    with pytest.raises(ValueError, match="at least 2 rows in every group; group 0 has 1"):
        mean_difference_test(v, one, method="asymptotic", reference=1)
    raw = mean_difference_test(v, one, studentize=False, method="exact", reference=1)
    assert raw.statistic == pytest.approx(1.0 - 27.0 / 5.0, rel=1e-12)
    assert raw.pvalue == 2 / 6
    # a weighted row metric (the permutation engine's own Welch check): the same ends
    w, pred = np.array([1.0, 2.0, 1.0, 1.0, 1.0, 1.0]), v + np.array([0.5, 0, -1, 1, -1, 0.5])
    kw = dict(metric="mse", sample_weight=w, studentize="welch", n_permutations=19,
              random_state=0, reference=1)  # fmt: skip
    assert np.isfinite(fastfair.resampling.permutation_test_rows(v, pred, g, **kw).statistic)
    with pytest.raises(ValueError, match=r"needs >= 2 rows per group; group 0$"):
        fastfair.resampling.permutation_test_rows(v, pred, one, **kw)


def test_asymptotic_t_pvalues_keep_their_far_tails():
    """Welch's t p-value (Welch-Satterthwaite df, by hand) of two well separated groups is
    4.5e-18, and the unstudentized correlation test's t (n - 2 df) of an almost exact line
    1.8e-73: scipy's t survival function gives them, 1 - cdf would give 0 or a rounding
    residue of 1e-16. Relative 1e-12, absolute 0; the one-sided ones are half."""
    rng = np.random.default_rng(1)
    g = np.repeat([0, 1], [25, 35])
    v = rng.normal(size=60) + 3.0 * g
    a, b = v[g == 1], v[g == 0]
    ua, ub = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    t = (a.mean() - b.mean()) / np.sqrt(ua + ub)
    df = (ua + ub) ** 2 / (ua**2 / (a.size - 1) + ub**2 / (b.size - 1))
    for alternative, k in (("two-sided", 2), ("greater", 1)):
        res = mean_difference_test(v, g, method="asymptotic", reference=0, alternative=alternative)
        want = k * stats.t.sf(t, df)
        assert 0 < want < 1e-17
        assert res.pvalue == pytest.approx(want, rel=1e-12, abs=0)
    x = rng.normal(size=60)
    y = x + 0.05 * rng.normal(size=60)
    r = np.corrcoef(x, y)[0, 1]
    tt = r * np.sqrt(58 / (1 - r * r))
    for alternative, k in (("two-sided", 2), ("greater", 1)):
        res = correlation_test(
            x, y, method="asymptotic", studentize=False, alternative=alternative
        )
        want = k * stats.t.sf(tt, 58)
        assert 0 < want < 1e-70
        assert res.pvalue == pytest.approx(want, rel=1e-9, abs=0)
