"""Resampling p-value formulas, checked exactly against the returned null distributions.

A p-value checked only as "< 0.01" lets a missing add-one through. Here each Monte-Carlo
p-value is recomputed from the null distribution the function returns, with the formula
written out: (1 + #{null at least as extreme}) / (1 + B) (Phipson & Smyth 2010), and the
max-T adjustment is compared with an independent numpy simulation of the joint permutation
distribution, which fails when the maxima are taken over signed instead of oriented
statistics.
"""

from __future__ import annotations

import pathlib
import runpy

import numpy as np
import pytest
from scipy import stats

import fastfair
from fastfair.auc import auc_test
from fastfair.parity import predictive_parity_test

B = 299


def _add_one(null, observed, alternative):
    if alternative == "two-sided":
        k = np.sum(np.abs(null) >= abs(observed) * (1 - 1e-12))
    elif alternative == "greater":
        k = np.sum(null >= observed - 1e-12 * max(1.0, abs(observed)))
    else:
        k = np.sum(null <= observed + 1e-12 * max(1.0, abs(observed)))
    return (1 + k) / (1 + len(null))


def _data(seed, n=500):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 2, n)
    y = rng.integers(0, 2, n)
    p = (rng.random(n) < np.where(y == 1, 0.7 - 0.1 * g, 0.3)).astype(int)
    s = rng.normal(size=n) + y * (0.7 - 0.25 * g)
    return y, p, s, g


def _mse(y_true, y_pred):
    return np.mean((y_true - y_pred) ** 2, axis=-1)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_monte_carlo_pvalues_have_the_add_one(alternative):
    y, p, s, g = _data(0)
    kw = dict(n_permutations=B, random_state=1, return_null=True, alternative=alternative)
    results = [
        fastfair.permutation_test(y, p, g, metric="tpr", method="monte_carlo", **kw),
        fastfair.permutation_test(
            y, p, g, metric="tpr", method="monte_carlo", scheme="full", **kw
        ),
        auc_test(y, s, g, **kw),
        fastfair.mean_difference_test(s, g, method="monte_carlo", **kw),
        fastfair.permutation_test(y, s, g, metric="mse", **kw),
        fastfair.permutation_test(
            y, s, g, metric=_mse, vectorized=True, studentize="bootstrap-fast", **kw
        ),
    ]
    for res in results:
        assert len(res.null_distribution) == B
        assert res.pvalue == _add_one(res.null_distribution, res.statistic, alternative)
        assert res.pvalue >= 1 / (B + 1)


def test_bootstrap_fast_studentizes_with_ddof_one():
    """studentize='bootstrap-fast' (KDD 2020 Sec. 5): T / sd(bootstrap T*, ddof=1) observed,
    T_b / sd(permuted T, ddof=1) permuted. A recording metric captures the resamples."""
    rng = np.random.default_rng(2)
    n_o, n_r, nb = 30, 40, 9
    group = np.array(["o"] * n_o + ["r"] * n_r)
    y = rng.normal(size=n_o + n_r)
    pred = y + rng.normal(scale=np.where(group == "o", 1.5, 1.0))
    calls = []

    def mse(y_true, y_pred):
        value = float(np.mean((y_true - y_pred) ** 2))
        calls.append(value)
        return value

    res = fastfair.permutation_test(
        y,
        pred,
        group,
        metric=mse,
        studentize="bootstrap-fast",
        reference="r",
        n_bootstrap=nb,
        n_permutations=49,
        random_state=0,
        return_null=True,
    )
    observed = calls[0] - calls[1]
    boot = np.array(calls[2 : 2 + nb]) - np.array(calls[2 + nb : 2 + 2 * nb])
    assert res.difference == pytest.approx(observed, rel=1e-14)
    assert res.statistic == pytest.approx(observed / np.std(boot, ddof=1), rel=1e-12)
    assert np.std(res.null_distribution, ddof=1) == pytest.approx(1.0, rel=1e-12)


def test_algorithm1_bootstrap_variance_is_centred_at_the_statistic():
    """studentize='bootstrap' (KDD 2020 Algorithm 1, eq. 1): V = mean((T* - T)^2), about the
    statistic of the data it resamples (observed, then each permutation)."""
    rng = np.random.default_rng(6)
    n_o, n_r, nb, n_perm = 12, 15, 6, 4
    group = np.array(["o"] * n_o + ["r"] * n_r)
    y = rng.normal(size=n_o + n_r)
    pred = y + rng.normal(scale=np.where(group == "o", 1.5, 1.0))
    calls = []

    def mse(y_true, y_pred):
        calls.append(float(np.mean((y_true - y_pred) ** 2)))
        return calls[-1]

    res = fastfair.permutation_test(
        y,
        pred,
        group,
        metric=mse,
        studentize="bootstrap",
        reference="r",
        n_bootstrap=nb,
        n_permutations=n_perm,
        random_state=0,
        return_null=True,
    )
    block = 2 + 2 * nb  # metric of A, of B, then nb resamples of A and nb of B
    assert len(calls) == block * (1 + n_perm)
    studentized = []
    for k in range(1 + n_perm):
        c = calls[k * block : (k + 1) * block]
        t = c[0] - c[1]
        boot = np.array(c[2 : 2 + nb]) - np.array(c[2 + nb :])
        studentized.append(t / np.sqrt(np.mean((boot - t) ** 2)))
    assert res.statistic == pytest.approx(studentized[0], rel=1e-12)
    np.testing.assert_allclose(res.null_distribution, studentized[1:], rtol=1e-12)


# -------------------------------------------------------------------- multiplier bootstrap


def _parity_data(seed, shift):
    rng = np.random.default_rng(seed)
    user = rng.integers(0, 1500, 6000)
    group = user % 2
    score = rng.beta(2, 2, 6000)
    y = (rng.random(6000) < np.clip(score + shift * group, 0, 1)).astype(float)
    return y, score, group, user


@pytest.mark.parametrize("shift", [0.0, 0.03, 0.15])
@pytest.mark.parametrize("small_sample", ["none", "cr2"])
def test_multiplier_bootstrap_pvalue_and_maxt_formulas(shift, small_sample):
    y, s, g, user = _parity_data(3, shift)
    res = predictive_parity_test(
        y,
        s,
        g,
        cluster=user,
        grid=8,
        n_bootstrap=B,
        adjust="maxT",
        random_state=0,
        return_null=True,
        bandwidth=0.1,
        small_sample=small_sample,
    )
    null = res.null_distribution
    assert null.shape == (B,)
    if small_sample == "none":
        z2 = res.grid_statistic[res.tested] ** 2  # two groups: max_j z_j^2 = statistic^2
        assert z2.max() == pytest.approx(res.statistic**2)
    else:  # each t statistic mapped to the normal scale with the same p-value
        p = res.grid_pvalue[res.tested]
        np.testing.assert_allclose(
            p, 2 * stats.t.sf(np.abs(res.grid_statistic), res.grid_df)[res.tested]
        )
        z2 = stats.norm.isf(p / 2) ** 2
    observed_max = z2.max()
    assert res.pvalue == pytest.approx((1 + np.sum(null >= observed_max * (1 - 1e-12))) / (B + 1))
    maxt = (1 + np.sum(null[:, None] >= z2[None, :] * (1 - 1e-12), axis=0)) / (B + 1)
    np.testing.assert_allclose(
        res.grid_pvalue_adjusted[res.tested], np.maximum(maxt, res.grid_pvalue[res.tested])
    )
    assert res.critical_value == pytest.approx(np.sqrt(np.quantile(null, 0.95)))
    if shift == 0.15:
        assert res.pvalue == 1 / (B + 1)


def test_multiplier_bootstrap_covariance_is_the_cluster_sandwich():
    """The bootstrap draws from N(0, C_g), C_g[j, k] = sum_m u_mj u_mk / (B_j B_k) with
    u_mj = a_mj - f_j b_mj (per-cluster kernel sums): written out here per cluster."""
    from fastfair import _clustered, parity

    y, s, g, user = _parity_data(7, 0.05)
    grid = np.array([0.2, 0.35, 0.5, 0.65, 0.8])
    prep = _clustered.prepare(y, s, g, user, "per_user", "raise", None, min_groups=2)
    fit = parity.statistics._fit(
        prep, grid, 0.1, "gaussian", 0.95, 1, 1, covariance=True, small_sample="none"
    )
    fit2 = parity.statistics._fit(prep, grid, 0.1, "gaussian", 0.95, 1, 1, covariance=True)
    _, inv, n_m = np.unique(user, return_inverse=True, return_counts=True)
    k = np.exp(-0.5 * ((s[:, None] - grid[None, :]) / 0.1) ** 2) / n_m[inv][:, None]
    for grp in (0, 1):
        sel = g == grp
        a = np.zeros((n_m.size, grid.size))
        b = np.zeros((n_m.size, grid.size))
        np.add.at(a, inv[sel], k[sel] * y[sel, None])
        np.add.at(b, inv[sel], k[sel])
        f = a.sum(axis=0) / b.sum(axis=0)
        u = a - f * b
        expected = u.T @ u / np.outer(b.sum(axis=0), b.sum(axis=0))
        cov = parity.statistics._group_covariance(
            fit, fit.curve.estimate, grp, np.arange(grid.size)
        )
        np.testing.assert_allclose(cov, expected, rtol=1e-8, atol=1e-14)
        # small_sample="cr2" (default): the CR2 scores u_mj / sqrt(1 - p_mj), p = b_mj / B_j
        ut = u / np.sqrt(1 - b / b.sum(axis=0))
        expected2 = ut.T @ ut / np.outer(b.sum(axis=0), b.sum(axis=0))
        cov2 = parity.statistics._group_covariance(
            fit2, fit2.curve.estimate, grp, np.arange(grid.size)
        )
        np.testing.assert_allclose(cov2, expected2, rtol=1e-8, atol=1e-14)
        assert np.all(np.diag(cov2) > np.diag(cov))


# -------------------------------------------------------------------- max-T orientation


def _selection_null(g, p, ref, others, n_perm, rng, alternative):
    """Independent joint permutation null of the raw selection-rate differences."""
    stats = np.empty((n_perm, len(others)))
    for b in range(n_perm):
        gb = rng.permutation(g)
        rate_ref = p[gb == ref].mean()
        stats[b] = [p[gb == o].mean() - rate_ref for o in others]
    if alternative == "two-sided":
        return np.abs(stats).max(axis=1), np.abs
    if alternative == "greater":
        return stats.max(axis=1), lambda x: x
    return (-stats).max(axis=1), lambda x: -x


@pytest.mark.parametrize("alternative", ["two-sided", "less"])
def test_maxt_adjusted_pvalues_match_an_independent_joint_permutation(alternative):
    rng = np.random.default_rng(4)
    n = 800
    g = rng.integers(0, 4, n)
    # groups 1-3 select less often than group 0 (the reference): negative differences
    p = (rng.random(n) < np.array([0.5, 0.44, 0.47, 0.5])[g]).astype(int)
    y = np.ones(n, dtype=int)
    n_perm = 4000
    res = fastfair.permutation_test(
        y,
        p,
        g,
        metric="selection_rate",
        scheme="full",
        studentize=False,
        method="monte_carlo",
        adjust="maxT",
        reference=0,
        n_permutations=n_perm,
        alternative=alternative,
        random_state=0,
    )
    maxima, orient = _selection_null(
        g, p, 0, [1, 2, 3], n_perm, np.random.default_rng(5), alternative
    )
    oracle = np.array(
        [(1 + np.sum(maxima >= orient(t) - 1e-12)) / (1 + n_perm) for t in res.statistic]
    )
    expected = np.maximum(oracle, res.pvalue)
    se = np.sqrt(2 * expected * (1 - expected) / n_perm)  # two independent MC estimates
    assert np.all(np.abs(res.pvalue_adjusted - expected) <= 4 * se + 1e-9)
    assert 0.05 < oracle[0] < 0.9  # a comparison where a wrong orientation would show


@pytest.mark.parametrize("module", ["permutation", "auc"])
def test_maxt_adjusted_pvalues_are_floored_at_the_raw_ones(module):
    """Documented (docs/permutation.md, auc_test 'as in permutation_test'): adjusted
    p-values are never below the raw ones. With 19 joint permutations the max-T estimate
    often falls below a raw p-value (an exact one, or one from separate permutations); the
    joint estimate is read where the library computes it (maxt_pvalues, tested on its own
    in test_pvalues.py, called by _pvalues.family_adjusted for both families), and the
    adjusted p-value must be max(max-T estimate, raw)."""
    from unittest import mock

    from fastfair import _pvalues as mod

    seen, bound = [], 0
    original = mod.maxt_pvalues

    def spy(*args, **kwargs):
        seen.append(original(*args, **kwargs))
        return seen[-1]

    for seed in range(6):
        rng = np.random.default_rng(seed)
        g, y = rng.integers(0, 3, 90), rng.integers(0, 2, 90)
        with mock.patch.object(mod, "maxt_pvalues", spy):
            if module == "permutation":
                res = fastfair.permutation_test(
                    y, rng.integers(0, 2, 90), g, metric="tpr", adjust="maxT",
                    n_permutations=19, random_state=seed,
                )  # fmt: skip
            else:
                res = auc_test(
                    y, rng.normal(size=90), g, adjust="maxT", method="permutation",
                    n_permutations=19, random_state=seed,
                )  # fmt: skip
        joint = seen[-1]
        np.testing.assert_array_equal(res.pvalue_adjusted, np.maximum(joint, res.pvalue))
        bound += np.sum(joint < res.pvalue)
    assert bound > 0  # the floor was needed at least once


def test_auc_permutation_null_has_the_right_orientation():
    """The permuted AUC_0 - AUC_1 against an independent within-outcome permutation.

    Group 0 has 2 positives and 2 negatives, group 1 has 40 of each, and the scores
    separate the labels well, so the null of AUC_0 - AUC_1 is far from symmetric (an atom
    where group 0's four pairs are all ordered, AUC_0 = 1): a permuted statistic of the
    wrong sign (AUC_1 - AUC_0) shows in its distribution function.
    """
    rng = np.random.default_rng(8)
    y = np.r_[1, 1, 0, 0, np.ones(40, int), np.zeros(40, int)]
    g = np.r_[np.zeros(4, int), np.ones(80, int)]
    s = rng.normal(size=84) + 2.0 * y
    B = 4000
    res = auc_test(
        y,
        s,
        g,
        scheme="within_outcome",
        studentize=False,
        n_permutations=B,
        random_state=0,
        return_null=True,
    )
    pos, neg = s[y == 1], s[y == 0]
    psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    total = psi.sum()
    oracle = np.empty(B)
    orng = np.random.default_rng(9)
    for b in range(B):
        sp = orng.choice(42, 2, replace=False)
        sn = orng.choice(42, 2, replace=False)
        inner = psi[np.ix_(sp, sn)].sum()
        auc0 = inner / 4
        auc1 = (total - psi[sp].sum() - psi[:, sn].sum() + inner) / (40 * 40)
        oracle[b] = auc0 - auc1
    for cut in (-0.4, -0.15, 0.05):
        p_ff, p_or = np.mean(res.null_distribution <= cut), np.mean(oracle <= cut)
        se = np.sqrt(2 * p_or * (1 - p_or) / B) + 1 / B
        assert abs(p_ff - p_or) <= 4 * se, (cut, p_ff, p_or)
    assert np.mean(oracle >= 0.1) > np.mean(oracle <= -0.1) + 0.2  # skewed, as designed


def test_basic_bootstrap_interval_reflects_the_resampled_differences():
    """The basic bootstrap interval is (T - q_hi, T - q_lo) of the centred resampled
    differences d = T* - T (the null_distribution): for a skewed d (a rate near 0 in a
    small group) it differs from the percentile interval (T + q_lo, T + q_hi). Written for
    round-5 mutant r5-res-basic-becomes-percentile."""
    rng = np.random.default_rng(21)
    g = np.r_[np.zeros(40, int), np.ones(2000, int)]
    y = np.ones(g.size, int)
    pred = (rng.random(g.size) < np.where(g == 0, 0.05, 0.3)).astype(int)
    res = fastfair.basic_bootstrap_test(y, pred, g, metric="tpr", n_bootstrap=999,
                                        random_state=3, return_null=True)  # fmt: skip
    d = np.asarray(res.null_distribution)
    q_lo, q_hi = np.quantile(d[np.isfinite(d)], [0.025, 0.975])
    t = float(res.difference)
    lo, hi = (float(np.squeeze(x)) for x in res.confidence_interval)
    assert (lo, hi) == pytest.approx((t - q_hi, t - q_lo), abs=1e-12)
    assert abs(q_lo + q_hi) > 1e-3  # skewed: the percentile interval would differ


def test_basic_bootstrap_pvalue_counts_ties_on_both_sides():
    """The basic bootstrap p-value counts resampled centred differences equal to T on both
    sides: P*(d >= T) and P*(d <= T) (docstring of basic_bootstrap_test). With two small
    groups of identical accuracy, T = 0 and many d are exactly 0, so a strict count gives a
    different p-value."""
    g = np.repeat([0, 1], 6)
    y = np.ones(12, int)
    pred = np.array([1, 1, 1, 0, 0, 0] * 2)
    for alternative in ("two-sided", "greater", "less"):
        res = fastfair.basic_bootstrap_test(y, pred, g, metric="accuracy", n_bootstrap=199,
                                            alternative=alternative, random_state=5,
                                            return_null=True)  # fmt: skip
        d = np.asarray(res.null_distribution)
        t = float(res.difference)
        assert t == 0.0 and np.mean(d == t) > 0.05  # ties are common
        up, down = np.mean(d >= t), np.mean(d <= t)
        expected = {"two-sided": min(1.0, 2 * min(up, down)), "greater": up, "less": down}
        assert float(res.pvalue) == pytest.approx(expected[alternative], abs=1e-12)


def test_basic_bootstrap_confidence_level_is_open_at_0_and_1():
    g = np.repeat([0, 1], 6)
    y = np.ones(12, int)
    pred = np.array([1, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0])
    for level in (0.0, 1.0):
        with pytest.raises(ValueError, match=r"confidence_level must be in \(0, 1\)"):
            fastfair.basic_bootstrap_test(y, pred, g, metric="accuracy", confidence_level=level)


_holm_by_hand = runpy.run_path(str(pathlib.Path(__file__).with_name("_by_hand.py")))["holm"]


def _rows_after(text, first_header):
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.split()[:1] == [first_header])
    return lines[start].split(), [ln.split() for ln in lines[start + 1 :] if ln.startswith("  ")]


def test_welch_mean_difference_repr_rows_read_back_every_column():
    """mean_difference_test (asymptotic Welch), three groups of unequal sizes and spreads:
    each group's mean and size, each comparison's difference, Wald interval diff -+ z SE,
    Welch statistic, Welch p-value (scipy's ttest_ind, unequal variances) and Holm-adjusted
    p-value, all recomputed from the rows and read back from the repr's tables."""
    rng = np.random.default_rng(36)
    g = rng.integers(0, 3, 90)
    v = rng.normal(size=90) * np.array([1.0, 2.0, 0.5])[g] + 0.6 * (g == 1)
    res = fastfair.mean_difference_test(v, g, method="asymptotic", reference=0)
    fmt = fastfair._format.format_value
    text = repr(res)
    header, rows = _rows_after(text, "group")
    assert header == ["group", "mean", "n"]
    for k in range(3):
        assert rows[k] == [str(k), fmt(v[g == k].mean()), str(int((g == k).sum()))]
    z = stats.norm.ppf(0.975)
    raw, expect = [], []
    for k in (1, 2):
        a, b = v[g == k], v[g == 0]
        diff = a.mean() - b.mean()
        se = np.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
        welch = stats.ttest_ind(a, b, equal_var=False)
        assert welch.statistic == pytest.approx(diff / se, rel=1e-12)
        raw.append(welch.pvalue)
        expect.append(
            [
                f"{k}",
                "-",
                "0",
                fmt(diff),
                f"[{fmt(diff - z * se)},",
                f"{fmt(diff + z * se)}]",
                fmt(diff / se),
            ]
        )
    np.testing.assert_allclose(res.pvalue, raw, rtol=1e-9)
    ses = [np.sqrt(v[g == k].var(ddof=1) / (g == k).sum() + v[g == 0].var(ddof=1) / (g == 0).sum())
           for k in (1, 2)]  # fmt: skip
    np.testing.assert_allclose(res.standard_error, ses, rtol=1e-12)
    holm = _holm_by_hand(np.array(raw))
    assert abs(holm[0] - raw[0]) > 1e-3
    header, rows = _rows_after(text, "comparison")
    assert header[-2:] == ["adjusted", "(holm)"]
    for c in range(2):
        assert rows[c] == [*expect[c], fmt(raw[c]), fmt(holm[c])]


def test_correlation_repr_row_shows_r_tau_statistic_and_pvalue():
    """CorrelationTestResult's row: Pearson's r (numpy), tau = sqrt(mu22 / (mu20 mu02))
    of the centred moments, the statistic sqrt(n) r / tau and the normal p-value, each in
    its column (heteroscedastic data: tau is far from 1 and from the statistic)."""
    rng = np.random.default_rng(36)
    x = rng.normal(size=200)
    e = 0.3 * x + rng.normal(size=200) * (1 + np.abs(x))
    res = fastfair.correlation_test(x, e, method="asymptotic")
    xc, ec = x - x.mean(), e - e.mean()
    r = np.corrcoef(x, e)[0, 1]
    tau = np.sqrt(np.mean(xc**2 * ec**2) / (np.mean(xc**2) * np.mean(ec**2)))
    stat = np.sqrt(200) * r / tau
    fmt = fastfair._format.format_value
    assert fmt(tau) != fmt(stat) and abs(tau - 1) > 0.1
    header, rows = _rows_after(repr(res), "r")
    assert header == ["r", "tau", "statistic", "pvalue"]
    assert rows == [[fmt(r), fmt(tau), fmt(stat), fmt(2 * stats.norm.sf(abs(stat)))]]


def test_basic_bootstrap_repr_rows_read_back_every_column():
    """BootstrapTestResult with three groups: each group's TPR counted from the rows, each
    comparison's difference, interval ends (around the difference), raw p-value and the
    Holm-adjusted one computed by hand from the raw ones (they differ here)."""
    rng = np.random.default_rng(36)
    y = rng.integers(0, 2, 600)
    g = rng.integers(0, 3, 600)
    pred = (rng.random(600) < 0.5 + 0.1 * g).astype(int)
    res = fastfair.basic_bootstrap_test(
        y, pred, g, metric="tpr", n_bootstrap=299, random_state=1, reference=0
    )
    fmt = fastfair._format.format_value
    tpr = [pred[(g == k) & (y == 1)].mean() for k in range(3)]
    text = repr(res)
    header, rows = _rows_after(text, "group")
    assert rows[:3] == [[str(k), fmt(tpr[k])] for k in range(3)]
    p = np.asarray(res.pvalue)
    holm = _holm_by_hand(p)
    assert np.abs(holm - p).max() > 1e-3
    lo, hi = res.confidence_interval
    header, rows = _rows_after(text, "comparison")
    assert header[-2:] == ["adjusted", "(holm)"]
    for c, k in enumerate((1, 2)):
        diff = tpr[k] - tpr[0]
        assert lo[c] < diff < hi[c]
        pv = fastfair._format.format_pvalue
        assert rows[c] == [
            str(k),
            "-",
            "0",
            fmt(diff),
            fmt(lo[c]),
            fmt(hi[c]),
            pv(p[c]),
            pv(holm[c]),
        ]


def test_correlation_repr_reads_back_r_tau_statistic_and_the_permutations_shown():
    """correlation_test's repr: Pearson's r (numpy), tau = sqrt(mu22 / (mu20 mu02)) from
    central moments, S = sqrt(n) r / tau and the p-value, read back from its table; the
    head shows n_permutations=B for a fixed B only, a sequential test's count appearing in
    its sequential line instead."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=200)
    e = 0.3 * x + rng.normal(size=200) * (1 + 0.5 * np.abs(x))
    xc, ec = x - x.mean(), e - e.mean()
    r = np.corrcoef(x, e)[0, 1]
    tau = np.sqrt(np.mean(xc**2 * ec**2) / (np.mean(xc**2) * np.mean(ec**2)))
    fmt = fastfair._format.format_value
    fixed = fastfair.correlation_test(x, e, n_permutations=199, random_state=1)
    seq = fastfair.correlation_test(x, e, random_state=1)
    asym = fastfair.correlation_test(x, e, method="asymptotic")
    for res in (fixed, seq, asym):
        lines = repr(res).splitlines()
        assert lines[1].split() == ["r", "tau", "statistic", "pvalue"]
        row = lines[2].split()
        assert row[:3] == [fmt(r), fmt(tau), fmt(np.sqrt(200) * r / tau)]
    assert repr(fixed).splitlines()[0].endswith(", n=200, n_permutations=199)")
    assert repr(asym).splitlines()[0].endswith(", n=200)")
    assert repr(asym).splitlines()[2].split()[3] == fmt(2 * stats.norm.sf(np.sqrt(200) * r / tau))
    head = repr(seq).splitlines()[0]
    assert head.endswith(", n=200)") and "n_permutations" not in head
    assert repr(seq).splitlines()[-1].endswith(f"permutations {seq.n_permutations}")


def test_unstudentized_interval_uses_the_sample_sd_of_the_bootstrap_differences():
    """An unstudentized test of a callable: the interval is difference -+ z SD(bootstrap
    differences) with the sample SD (ddof=1). Group 0 holds predictions {0, 1}, the
    reference three 0s, so each bootstrap difference is a mean of two draws of {0, 1}, in
    {0, 1/2, 1}; with two resamples the SD is |a - b| / sqrt(2), in {0, 0.354, 0.707}
    (ddof=0 would give |a - b| / 2, in {0, 0.25, 0.5})."""
    y = np.zeros(5)
    pred = np.array([0.0, 1.0, 0.0, 0.0, 0.0])
    g = np.array([0, 0, 1, 1, 1])
    z = stats.norm.ppf(0.975)
    sds = []
    for seed in range(8):
        res = fastfair.permutation_test(
            y, pred, g, metric=lambda t, p: float(np.mean(p)), studentize=False,
            n_permutations=9, n_bootstrap=2, random_state=seed, reference=1,
        )  # fmt: skip
        lo, hi = res.confidence_interval
        assert (lo + hi) / 2 == pytest.approx(0.5, abs=1e-12)
        sds.append((hi - lo) / (2 * z))
    allowed = np.array([0.0, 0.5, 1.0]) / np.sqrt(2)
    assert all(np.min(np.abs(allowed - sd)) < 1e-9 for sd in sds)
    assert max(sds) > 0


def test_generic_and_bootstrap_reprs_name_their_interval_by_its_level():
    """confidence_level=0.9 in a row-metric test (Welch interval diff -+ z_0.95 SE, by hand)
    and a basic bootstrap test: the headers say 90% and the cells are the intervals."""
    rng = np.random.default_rng(1)
    g = np.repeat([0, 1], [120, 180])
    y = rng.normal(size=300)
    pred = y + rng.normal(size=300) * np.where(g == 0, 1.0, 1.5)
    fmt = fastfair._format.format_value
    res = fastfair.permutation_test(
        y, pred, g, metric="mse", method="asymptotic", confidence_level=0.9, reference=1
    )
    sq = (y - pred) ** 2
    a, b = sq[g == 0], sq[g == 1]
    se = np.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    z = stats.norm.ppf(0.95)
    diff = a.mean() - b.mean()
    header, rows = _rows_after(repr(res), "comparison")
    assert header[:4] == ["comparison", "difference", "90%", "CI"]
    assert rows[0][3:6] == [fmt(diff), f"[{fmt(diff - z * se)},", f"{fmt(diff + z * se)}]"]
    yb, pb = rng.integers(0, 2, 300), rng.integers(0, 2, 300)
    boot = fastfair.basic_bootstrap_test(yb, pb, g, metric="tpr", n_bootstrap=99,
                                         random_state=1, confidence_level=0.9)  # fmt: skip
    header, rows = _rows_after(repr(boot), "comparison")
    assert header[2:6] == ["90%", "interval", "low", "high"]
    lo, hi = boot.confidence_interval
    assert rows[0][4:6] == [fmt(lo), fmt(hi)] and lo < hi


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda y, p, s, g: fastfair.permutation_test(
            y, s, g, metric="mse", method="asymptotic", studentize=False),
         ValueError, r"method='asymptotic' needs a studentized statistic"),
        (lambda y, p, s, g: fastfair.permutation_test(
            y, s, g, metric=lambda a, b: 1 / 0, n_permutations=9, vectorized=True),
         fastfair.resampling.MetricError,
         r"metric '<lambda>' raised ZeroDivisionError on the observed data of group \d "
         r"\(vectorized batch of 1\): division by zero"),
        (lambda y, p, s, g: fastfair.permutation_test(
            y, s, g, metric=lambda a, b: "x", n_permutations=9, vectorized=True),
         fastfair.resampling.MetricError, "metric '<lambda>' must return numbers, got str"),
        (lambda y, p, s, g: fastfair.basic_bootstrap_test(y, p, g, metric="equalized_odds"),
         ValueError, "equalized_odds combines two differences; test TPR and FPR"),
        (lambda y, p, s, g: fastfair.basic_bootstrap_test(
            y, p, g, metric="tpr", sample_weight=np.ones(100)),
         ValueError, "sample_weight with a confusion-matrix metric: pass a callable"),
        (lambda y, p, s, g: fastfair.basic_bootstrap_test(y, p, g, metric=3),
         TypeError, "metric must be a string or a callable, got <class 'int'>"),
    ],
)  # fmt: skip
def test_resampling_refuses_each_bad_option_with_its_rule(call, error, match):
    """Each refused option or metric of the resampling tests raises its error class with
    the rule it breaks (a metric that raises or returns text: MetricError naming it)."""
    rng = np.random.default_rng(1)
    g, y = rng.integers(0, 2, 100), rng.integers(0, 2, 100)
    p, s = rng.integers(0, 2, 100), rng.normal(size=100)
    with pytest.raises(error, match=match):
        call(y, p, s, g)


def test_default_reference_is_the_group_with_most_rows_for_means_callables_and_bootstrap():
    """mean_difference_test, a callable metric (permutation_test_rows) and
    basic_bootstrap_test compare every group with the group with the most rows: 'a' (400
    rows), which has the fewest positives (40) and the smallest sum of values, while 'b'
    has the most positives and the largest sum: a reference by positives, by a sum of
    values or by the smallest group would not be 'a'."""
    rng = np.random.default_rng(3)
    sizes, positives = {"a": 400, "b": 250, "c": 150}, {"a": 40, "b": 200, "c": 75}
    g = np.repeat(np.array(list(sizes)), list(sizes.values()))
    y = np.concatenate([np.arange(n) < positives[k] for k, n in sizes.items()]).astype(int)
    p = (rng.random(g.size) < np.where(y == 1, 0.7, 0.3)).astype(int)
    values = rng.normal(size=g.size) * 0.1 + np.where(g == "a", 0.01, 5.0)
    assert np.argmax([values[g == k].sum() for k in sizes]) == 1
    expected = [("b", "a"), ("c", "a")]
    means = fastfair.mean_difference_test(values, g, method="asymptotic")
    assert means.comparisons == expected
    np.testing.assert_allclose(
        means.difference, [values[g == k].mean() - values[g == "a"].mean() for k in "bc"]
    )
    rows = fastfair.permutation_test(
        y, p, g, metric=lambda t, q: np.mean(t == q), n_permutations=19, random_state=0
    )
    assert rows.comparisons == expected
    boot = fastfair.basic_bootstrap_test(y, p, g, n_bootstrap=99, random_state=0)
    assert boot.comparisons == expected


def test_generic_repr_head_names_the_studentization_and_the_bootstrap_resamples_given():
    """The head of a callable or row metric's repr names the studentization asked for and,
    for a bootstrap studentization only, the n_bootstrap given; the permutations given
    appear for a Monte-Carlo test and not for an asymptotic one."""
    rng = np.random.default_rng(1)
    g = np.repeat([0, 1], [60, 80])
    y = rng.normal(size=140)
    pred = y + rng.normal(size=140)

    def mse(a, b):
        return float(np.mean((a - b) ** 2))

    kw = dict(n_permutations=99, random_state=0)
    heads = {
        "bootstrap-fast": fastfair.permutation_test(
            y, pred, g, metric=mse, studentize="bootstrap-fast", n_bootstrap=49, **kw
        ),
        "welch": fastfair.permutation_test(y, pred, g, metric="mse", method="asymptotic"),
        False: fastfair.permutation_test(y, pred, g, metric=mse, studentize=False, **kw),
    }
    heads = {k: repr(res).splitlines()[0] for k, res in heads.items()}
    assert heads["bootstrap-fast"] == (
        "GenericTestResult(metric='mse', method='monte_carlo', statistic=studentized "
        "(bootstrap-fast), alternative='two-sided', n_permutations=99, n_bootstrap=49)"
    )
    assert heads["welch"] == (
        "GenericTestResult(metric='mse', method='asymptotic', statistic=studentized "
        "(welch), alternative='two-sided')"
    )
    assert heads[False] == (
        "GenericTestResult(metric='mse', method='monte_carlo', statistic=raw difference, "
        "alternative='two-sided', n_permutations=99)"
    )


def test_basic_bootstrap_takes_two_resamples_and_refuses_one():
    """n_bootstrap of the basic bootstrap test: 2 (the fewest with a spread) is accepted and
    recorded, 1 refused naming it."""
    g = np.repeat([0, 1], 6)
    y = np.ones(12, int)
    pred = np.array([1, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0])
    res = fastfair.basic_bootstrap_test(y, pred, g, metric="accuracy", n_bootstrap=2,
                                        random_state=0)  # fmt: skip
    assert res.n_bootstrap == 2
    with pytest.raises(ValueError, match=r"^n_bootstrap must be >= 2, got 1$"):
        fastfair.basic_bootstrap_test(y, pred, g, metric="accuracy", n_bootstrap=1)


def test_bootstrap_and_correlation_repr_heads_name_the_options_given():
    """The heads of the basic bootstrap and correlation reprs name the options given: the
    alternative ("less", "greater"), the bootstrap resamples (99), an unstudentized
    correlation's statistic "pearson r", the rows and the permutations."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=200)
    e = x + rng.normal(size=200)
    cor = fastfair.correlation_test(x, e, studentize=False, alternative="greater",
                                    n_permutations=99, random_state=0)  # fmt: skip
    assert repr(cor).splitlines()[0] == (
        "CorrelationTestResult(statistic=pearson r, method='monte_carlo', "
        "alternative='greater', n=200, n_permutations=99)"
    )
    g = np.repeat([0, 1], 150)
    yb, pb = rng.integers(0, 2, 300), rng.integers(0, 2, 300)
    boot = fastfair.basic_bootstrap_test(yb, pb, g, metric="tpr", n_bootstrap=99,
                                         random_state=1, alternative="less")  # fmt: skip
    assert repr(boot).splitlines()[0] == (
        "BootstrapTestResult(metric='tpr', method='basic bootstrap', alternative='less', "
        "n_bootstrap=99)"
    )
