"""Interval widths against closed forms and brute force, not just "estimate inside interval".

An estimate lies inside its own interval for almost any width, so every interval here is
compared endpoint by endpoint with an independent computation at several confidence
levels: DeLong intervals of AUCs from brute-force structural components, the
cluster-robust Nadaraya-Watson intervals of calibration curves and marginal outcomes from
per-cluster sums written out in numpy, and Monte-Carlo p-value intervals from scipy's
Wilson interval.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import fastfair
from fastfair.auc import auc_test, delong
from fastfair.parity import calibration_curve, marginal_outcome_test

LEVELS = (0.8, 0.95, 0.99)


def _z(level):
    return stats.norm.ppf(0.5 + level / 2)


# -------------------------------------------------------------------- DeLong


def _delong_brute(y, s):
    """AUC and DeLong variance from the structural components, O(n_pos n_neg).

    DeLong, DeLong & Clarke-Pearson (1988): psi(x, y) = 1{x > y} + 1{x = y} / 2,
    V10_i = mean_j psi(x_i, y_j) over negatives j, V01_j = mean_i psi(x_i, y_j) over
    positives i, AUC = mean V10, Var = S10 / m + S01 / n with S the ddof=1 variances.
    """
    x, yy = s[y == 1], s[y == 0]
    psi = (x[:, None] > yy[None, :]) + 0.5 * (x[:, None] == yy[None, :])
    v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
    var = v10.var(ddof=1) / len(x) + v01.var(ddof=1) / len(yy)
    return psi.mean(), var


def _auc_data(seed):
    rng = np.random.default_rng(seed)
    n = 400
    g = rng.integers(0, 2, n)
    y = (rng.random(n) < np.where(g == 1, 0.3, 0.5)).astype(int)
    s = np.round(rng.normal(size=n) + y * (1.0 - 0.4 * g), 1)  # rounded: ties
    return y, s, g


def test_delong_variance_is_the_structural_components_formula():
    y, s, g = _auc_data(0)
    res = delong(y, s, g)
    for k in range(2):
        auc, var = _delong_brute(y[g == k], s[g == k])
        assert res.auc[k] == pytest.approx(auc, rel=1e-13)
        assert res.variance[k] == pytest.approx(var, rel=1e-10)


@pytest.mark.parametrize("level", LEVELS)
def test_auc_intervals_are_delong_wald_intervals(level):
    y, s, g = _auc_data(1)
    res = auc_test(y, s, g, method="delong", reference=1, confidence_level=level)
    (a0, v0), (a1, v1) = (_delong_brute(y[g == k], s[g == k]) for k in range(2))
    z = _z(level)
    lo, hi = res.group_interval
    for k, (a, v) in enumerate(((a0, v0), (a1, v1))):
        assert lo[k] == pytest.approx(max(0.0, a - z * np.sqrt(v)), rel=1e-9)
        assert hi[k] == pytest.approx(min(1.0, a + z * np.sqrt(v)), rel=1e-9)
    half = z * np.sqrt(v0 + v1)
    assert res.confidence_interval[0] == pytest.approx(a0 - a1 - half, rel=1e-9)
    assert res.confidence_interval[1] == pytest.approx(a0 - a1 + half, rel=1e-9)
    # the Wald statistic of the difference, referred to N(0, 1)
    assert res.statistic == pytest.approx((a0 - a1) / np.sqrt(v0 + v1), rel=1e-9)
    assert res.pvalue == pytest.approx(2 * stats.norm.sf(abs(res.statistic)), rel=1e-9)


# -------------------------------------------------------------------- Nadaraya-Watson


def _nw_brute(y, s, user, t, h, above=False):
    """Clustered Nadaraya-Watson estimate and SE at t, per-user weights, Gaussian kernel.

    a_m = w_m sum_i y_i K((s_i - t)/h), b_m = w_m sum_i K(.), w_m = 1/n_m (all of user m's
    rows), f = sum a / sum b, Var = sum_m (a_m - f b_m)^2 / (sum b)^2 (cluster-robust
    sandwich, FAccT 2023 Sec. 4). With above=True only rows with s >= t enter the sums.
    """
    users, inv, n_m = np.unique(user, return_inverse=True, return_counts=True)
    use = s >= t if above else np.ones(len(s), bool)
    k = np.exp(-0.5 * ((s - t) / h) ** 2) * use / n_m[inv]
    a = np.bincount(inv, weights=k * np.nan_to_num(y), minlength=len(users))
    b = np.bincount(inv, weights=k, minlength=len(users))
    f = a.sum() / b.sum()
    return f, np.sqrt(((a - f * b) ** 2).sum()) / b.sum()


def _clustered(seed, n=3000, users=600):
    rng = np.random.default_rng(seed)
    user = rng.integers(0, users, n)
    group = user % 2
    score = rng.beta(2, 2, n)
    y = (rng.random(n) < np.clip(score - 0.1 * group, 0, 1)).astype(float)
    return y, score, group, user


@pytest.mark.parametrize("level", LEVELS)
def test_calibration_curve_band_is_the_cluster_robust_wald_band(level):
    y, s, g, user = _clustered(2)
    grid = np.array([0.3, 0.5, 0.7])
    cur = calibration_curve(  # the paper's CR0 band; CR2 + t: tests/test_parity.py
        y,
        s,
        g,
        cluster=user,
        grid=grid,
        bandwidth=0.1,
        confidence_level=level,
        small_sample="none",
    )
    z = _z(level)
    for k in range(2):
        sel = g == k
        for j, t in enumerate(grid):
            f, se = _nw_brute(y[sel], s[sel], user[sel], t, 0.1)
            assert cur.estimate[k, j] == pytest.approx(f, rel=1e-9)
            assert cur.standard_error[k, j] == pytest.approx(se, rel=1e-7)
            assert cur.lower[k, j] == pytest.approx(f - z * se, rel=1e-7)
            assert cur.upper[k, j] == pytest.approx(f + z * se, rel=1e-7)


@pytest.mark.parametrize("level", LEVELS)
def test_marginal_outcome_interval_and_statistic(level):
    y, s, g, user = _clustered(3)
    t = 0.6
    y = np.where(s >= t, y, np.nan)  # outcomes observed above the threshold only
    res = marginal_outcome_test(  # the paper's CR0 interval; CR2 + t: tests/test_parity.py
        y, s, g, t, cluster=user, bandwidth=0.1, confidence_level=level, small_sample="none"
    )
    (f0, se0), (f1, se1) = (
        _nw_brute(y[g == k], s[g == k], user[g == k], t, 0.1, above=True) for k in range(2)
    )
    np.testing.assert_allclose(res.estimate, [f0, f1], rtol=1e-9)
    np.testing.assert_allclose(res.standard_error, [se0, se1], rtol=1e-7)
    se = np.hypot(se0, se1)
    assert res.difference_standard_error == pytest.approx(se, rel=1e-7)
    lo, hi = res.confidence_interval
    assert lo == pytest.approx(f0 - f1 - _z(level) * se, rel=1e-7)
    assert hi == pytest.approx(f0 - f1 + _z(level) * se, rel=1e-7)
    assert res.statistic == pytest.approx((f0 - f1) / se, rel=1e-7)
    assert res.pvalue == pytest.approx(2 * stats.norm.sf(abs((f0 - f1) / se)), rel=1e-6)


# -------------------------------------------------------------------- Monte-Carlo p-values


def _wilson(count, n):
    ci = stats.binomtest(int(count), n).proportion_ci(confidence_level=0.95, method="wilson")
    return ci.low, ci.high


def test_pvalue_intervals_are_wilson_intervals_of_the_exceedance_count():
    """pvalue_interval: Wilson 95% of count / B, count = #{null as extreme} = p (B+1) - 1."""
    rng = np.random.default_rng(4)
    n, B = 600, 399
    g = rng.integers(0, 2, n)
    y = rng.integers(0, 2, n)
    p = (rng.random(n) < np.where(y == 1, 0.7 - 0.08 * g, 0.3)).astype(int)
    s = rng.normal(size=n) + y * (0.8 - 0.3 * g)
    results = [
        fastfair.permutation_test(
            y, p, g, metric="tpr", method="monte_carlo", n_permutations=B, random_state=0
        ),
        auc_test(y, s, g, n_permutations=B, random_state=0),
        fastfair.mean_difference_test(s, g, n_permutations=B, random_state=0),
    ]
    for res in results:
        count = round(res.pvalue * (B + 1) - 1)
        assert 0 < count < B
        lo, hi = _wilson(count, B)
        assert res.pvalue_interval[0] == pytest.approx(lo, abs=1e-12)
        assert res.pvalue_interval[1] == pytest.approx(hi, abs=1e-12)


def test_zero_delong_variance_uses_the_documented_pseudo_pair_variance():
    """auc_test Notes: a non-zero difference with zero DeLong variance is studentized with
    sum_g A'_g (1 - A'_g) / (n+_g n-_g), A' = (A n+ n- + 1/2) / (n+ n- + 1)."""
    y = np.r_[1, 1, 1, 0, 0, 1, 1, 0, 0, 0]
    s = np.r_[0.9, 0.8, 0.7, 0.2, 0.1, 0.5, 0.5, 0.5, 0.5, 0.5]  # A: perfect, B: constant
    g = np.r_[0, 0, 0, 0, 0, 1, 1, 1, 1, 1]
    res = auc_test(y, s, g, method="delong", reference=1)
    assert res.group_variance.tolist() == [0.0, 0.0]
    shrunk = [(1.0 * 6 + 0.5) / 7, (0.5 * 6 + 0.5) / 7]  # 3x2 and 2x3 pairs
    var = sum(a * (1 - a) / 6 for a in shrunk)
    assert res.statistic == pytest.approx(0.5 / np.sqrt(var), rel=1e-12)
