"""Tests of fastfair.parity: clustered Nadaraya-Watson curves and predictive parity tests."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from scipy import stats

from fastfair import _kernel_sums
from fastfair.parity import (
    SparseGridWarning,
    calibration_curve,
    marginal_outcome_test,
    predictive_parity_test,
    select_bandwidth,
)
from fastfair.simulate import heavy_user_injection


def _kernel(u, kernel):
    if kernel == "gaussian":
        return np.exp(-0.5 * u * u)
    return np.clip(1.0 - u * u, 0.0, None)


def bm_df_brute(b):
    """Bell-McCaffrey df of the CR2 variance of a weighted mean of cluster values.

    Random-intercept working model: each cluster is one unit with weight b_m; H = 1 b'/B,
    the CR2 variance is sum_m (g_m' e)^2 with g_m = (I - H)' e_m b_m / (B sqrt(1 - p_m)),
    df = tr(Gram)^2 / sum(Gram^2) with Gram[m, l] = g_m' g_l (explicit M x M matrices).
    """
    b = b[b > 0]
    M, B = b.size, b.sum()
    p = b / B
    ih = np.eye(M) - np.outer(np.ones(M), b) / B
    g = (ih.T @ np.diag(b / (B * np.sqrt(1 - p)))).T
    gram = g @ g.T
    return np.trace(gram) ** 2 / (gram**2).sum()


def direct(y, s, group, cluster, grid, h, kernel="gaussian", weighting="per_user", full=False):
    """Straight numpy: estimate and sandwich variance (METHODS.md 3) per group.

    full=True also returns the CR2 variance sum_m u_m^2 / (1 - p_m) / B^2 (p_m = b_m / B)
    and the Bell-McCaffrey df of each group (`bm_df_brute`).
    """
    labels = np.unique(group)
    est = np.empty((len(labels), len(grid)))
    var = np.empty_like(est)
    var2 = np.empty_like(est)
    dfs = np.empty_like(est)
    ks = _kernel((s[:, None] - grid[None, :]) / h, kernel)
    for k, g in enumerate(labels):
        rows = group == g
        users, inv = np.unique(cluster[rows], return_inverse=True)
        a = np.zeros((len(users), len(grid)))
        b = np.zeros_like(a)
        np.add.at(a, inv, y[rows, None] * ks[rows])
        np.add.at(b, inv, ks[rows])
        n_m = np.bincount(inv).astype(float)
        w = 1.0 / n_m if weighting == "per_user" else np.ones(len(users))
        f = (w[:, None] * a).sum(0) / (w[:, None] * b).sum(0)
        u = w[:, None] * (a - f * b)
        est[k] = f
        wb = w[:, None] * b
        var[k] = (u**2).sum(0) / wb.sum(0) ** 2
        var2[k] = (u**2 / (1 - wb / wb.sum(0))).sum(0) / wb.sum(0) ** 2
        if full:
            dfs[k] = [bm_df_brute(wb[:, j]) for j in range(len(grid))]
    if full:
        return est, var, var2, dfs
    return est, var


def clustered_data(rng, n_users=300, heavy=0.05, heavy_n=40, sd_user=0.15, shift=0.0):
    """Users with a random number of rows (a few heavy), user-level score and outcome effects."""
    n_rows = np.where(rng.random(n_users) < heavy, heavy_n, 1 + rng.poisson(2, n_users))
    user = np.repeat(np.arange(n_users), n_rows)
    group = (np.arange(n_users) % 2)[user]
    centre = rng.beta(2, 2, n_users)[user]
    score = np.clip(centre + rng.normal(0, 0.08, user.size), 0.001, 0.999)
    effect = rng.normal(0, sd_user, n_users)[user]
    p = np.clip(score + effect + shift * group, 0, 1)
    y = (rng.random(user.size) < p).astype(float)
    perm = rng.permutation(user.size)  # rows arrive unsorted
    return y[perm], score[perm], group[perm], user[perm]


@pytest.mark.parametrize("kernel", ["gaussian", "epanechnikov"])
@pytest.mark.parametrize("weighting", ["per_user", "per_observation"])
def test_matches_direct_numpy(kernel, weighting):
    rng = np.random.default_rng(0)
    y, s, g, user = clustered_data(rng)
    labels = np.array([f"u{u:04d}" for u in range(user.max() + 1)])[user]  # string clusters
    grid = np.linspace(0.1, 0.9, 9)
    h = 0.06
    kw = dict(
        cluster=labels,
        grid=grid,
        bandwidth=h,
        kernel=kernel,
        weighting=weighting,
        min_effective_clusters=1,
    )
    curve = calibration_curve(y, s, g, small_sample="none", **kw)
    cr2 = calibration_curve(y, s, g, **kw)
    est, var, var2, df = direct(y, s, g, user, grid, h, kernel, weighting, full=True)
    np.testing.assert_allclose(curve.estimate, est, rtol=1e-10)
    np.testing.assert_allclose(curve.standard_error, np.sqrt(var), rtol=1e-8)
    np.testing.assert_array_equal(curve.n_clusters, [np.unique(user[g == k]).size for k in (0, 1)])
    assert np.all(np.isinf(curve.df))
    # CR2 (second pass: users here hold more than FAST_SHARE of the weight) and its df.
    assert cr2.max_share.max() > 1e-3
    np.testing.assert_array_equal(cr2.estimate, curve.estimate)
    np.testing.assert_allclose(cr2.standard_error, np.sqrt(var2), rtol=1e-8)
    np.testing.assert_allclose(cr2.df, df, rtol=1e-8)
    assert np.all(cr2.standard_error > curve.standard_error)
    # Bands: t quantiles with the group's df, wider than the normal band.
    t = stats.t.ppf(0.975, df)
    np.testing.assert_allclose(cr2.upper - cr2.estimate, t * np.sqrt(var2), rtol=1e-8)
    np.testing.assert_allclose(curve.upper - curve.estimate, 1.959963984540054 * np.sqrt(var))


def test_no_cluster_means_one_row_per_cluster():
    rng = np.random.default_rng(1)
    y, s, g, _ = clustered_data(rng, n_users=100)
    grid = np.linspace(0.2, 0.8, 7)
    a = calibration_curve(y, s, g, grid=grid, bandwidth=0.05, small_sample="none")
    b = calibration_curve(
        y, s, g, cluster=np.arange(y.size), grid=grid, bandwidth=0.05, small_sample="none"
    )
    np.testing.assert_allclose(a.estimate, b.estimate, rtol=1e-12)
    np.testing.assert_allclose(a.standard_error, b.standard_error, rtol=1e-12)
    _, var = direct(y, s, g, np.arange(y.size), grid, 0.05)
    np.testing.assert_allclose(a.standard_error, np.sqrt(var), rtol=1e-8)


def test_gaussian_recurrence_equals_direct_evaluation():
    rng = np.random.default_rng(2)
    n = 2000
    s, y = rng.random(n), rng.random(n)
    starts = np.arange(n + 1, dtype=np.intp)
    cg = np.zeros(n, dtype=np.intp)
    w = np.ones(n)
    grid = np.linspace(0.0, 1.0, 41)  # uniform: recurrence
    for h in (0.004, 0.03, 0.3):
        fast = _kernel_sums.kernel_sums(s, y, None, starts, cg, w, 1, grid, h)
        for j in (0, 17, 40):  # one point: direct exp
            one = _kernel_sums.kernel_sums(s, y, None, starts, cg, w, 1, grid[j : j + 1], h)
            np.testing.assert_allclose(fast["sum_b"][0, j], one["sum_b"][0, 0], rtol=1e-12)
            np.testing.assert_allclose(fast["sum_a"][0, j], one["sum_a"][0, 0], rtol=1e-12)


def test_results_identical_for_any_thread_count():
    rng = np.random.default_rng(3)
    y, s, g, user = clustered_data(rng, n_users=3000)
    kw = dict(cluster=user, grid=20, random_state=5, n_bootstrap=999)
    one = predictive_parity_test(y, s, g, n_jobs=1, **kw)
    two = predictive_parity_test(y, s, g, n_jobs=2, **kw)
    np.testing.assert_array_equal(one.curve.estimate, two.curve.estimate)
    np.testing.assert_array_equal(one.curve.standard_error, two.curve.standard_error)
    assert one.pvalue == two.pvalue and one.critical_value == two.critical_value


def test_bootstrap_matches_explicit_cluster_multipliers():
    """Closed-form Gaussian multiplier bootstrap == xi_m-times-u_m bootstrap over clusters."""
    rng = np.random.default_rng(4)
    y, s, g, user = clustered_data(rng, n_users=400)
    grid = np.linspace(0.2, 0.8, 6)
    h = 0.08
    res = predictive_parity_test(
        y,
        s,
        g,
        cluster=user,
        grid=grid,
        bandwidth=h,
        n_bootstrap=4000,
        return_null=True,
        random_state=0,
    )
    # explicit: per-cluster u_m(s_j), draws sum_m xi_m u_m / V per group
    ks = np.exp(-0.5 * ((s[:, None] - grid) / h) ** 2)
    draws = []
    est = res.curve.estimate
    var = res.curve.standard_error**2
    xi_rng = np.random.default_rng(1)
    d = []
    for k in (0, 1):
        rows = g == k
        users, inv = np.unique(user[rows], return_inverse=True)
        a = np.zeros((len(users), grid.size))
        b = np.zeros_like(a)
        np.add.at(a, inv, y[rows, None] * ks[rows])
        np.add.at(b, inv, ks[rows])
        w = 1.0 / np.bincount(inv)
        vsum = (w[:, None] * b).sum(0)
        lev = w[:, None] * b / vsum  # CR2: u_m / sqrt(1 - p_m), the default small_sample
        u = w[:, None] * (a - est[k] * b) / np.sqrt(1 - lev)
        xi = xi_rng.standard_normal((4000, len(users)))
        d.append(xi @ u / vsum)
    draws = ((d[0] - d[1]) ** 2 / (var[0] + var[1])).max(axis=1)
    ours = res.null_distribution
    for q in (0.5, 0.9, 0.95):
        # MC error of a quantile of 4000 draws: about 2% here; allow 8%.
        np.testing.assert_allclose(np.quantile(ours, q), np.quantile(draws, q), rtol=0.08)
    assert res.critical_value == pytest.approx(np.sqrt(np.quantile(ours, 0.95)))
    assert 2.0 < res.critical_value < 2.8  # between pointwise 1.96 and Bonferroni-6 2.64 + MC


def _eigh_in_another_basis(monkeypatch, turn):
    """np.linalg.eigh returning turn(vals, vecs) for vecs: another valid eigenbasis, as a
    LAPACK build, or a covariance off by rounding, may return."""
    eigh = np.linalg.eigh

    def other(a):
        vals, vecs = eigh(a)
        return vals, turn(vals, vecs)

    monkeypatch.setattr(np.linalg, "eigh", other)


def _flip_signs(vals, vecs):
    return vecs * np.where(np.arange(vecs.shape[1]) % 3 == 1, -1.0, 1.0)


def test_symmetric_root_is_the_unique_one(monkeypatch):
    """R = V diag(sqrt(max(lambda, 0))) V^T: symmetric, R R = cov, the same whichever
    eigenbasis eigh returns (column signs, a basis of a repeated eigenvalue)."""
    from fastfair.parity.inference import _symmetric_root

    rng = np.random.default_rng(8)
    q, _ = np.linalg.qr(rng.normal(size=(6, 6)))
    lam = np.array([4.0, 2.0, 2.0, 0.5, 0.0, -1e-17])  # repeated, zero, negative by rounding
    cov = (q * lam) @ q.T
    want = (q * np.sqrt(np.clip(lam, 0, None))) @ q.T  # the known root, from q directly
    root = _symmetric_root(cov)
    np.testing.assert_allclose(root, want, atol=1e-12)
    np.testing.assert_array_equal(root, root.T)
    np.testing.assert_allclose(root @ root, (q * np.clip(lam, 0, None)) @ q.T, atol=1e-12)

    def rotate_repeated(vals, vecs):  # turn the basis of eigenvalue 2 by 40 degrees
        out = vecs.copy()
        (i, j) = np.flatnonzero(np.isclose(vals, 2.0))
        c, s = np.cos(0.7), np.sin(0.7)
        out[:, i], out[:, j] = c * vecs[:, i] + s * vecs[:, j], c * vecs[:, j] - s * vecs[:, i]
        return out

    for turn in (_flip_signs, rotate_repeated):
        with monkeypatch.context() as m:
            _eigh_in_another_basis(m, turn)
            np.testing.assert_allclose(_symmetric_root(cov), root, atol=1e-12)


def test_bootstrap_does_not_depend_on_the_eigenvector_signs(monkeypatch):
    """Regression (#15): the null draws came from V diag(sqrt(lambda)), whose column signs
    LAPACK sets by a rule that a rounding-level change of the covariance flips (sums of
    another engine or partitioning); one flipped column changed every draw, and the max-T
    p-values of `fastfair audit --engine dask` differed from in memory in ~3% of runs."""
    rng = np.random.default_rng(6)
    y, s, _, user = clustered_data(rng, n_users=600)
    g = np.array(["a", "b", "c"])[user % 3]
    kw = dict(cluster=user, grid=12, adjust="maxT", n_bootstrap=299, return_null=True)
    base = predictive_parity_test(y, s, g, random_state=2, **kw)
    _eigh_in_another_basis(monkeypatch, _flip_signs)
    other = predictive_parity_test(y, s, g, random_state=2, **kw)
    np.testing.assert_allclose(other.null_distribution, base.null_distribution, rtol=1e-9)
    np.testing.assert_array_equal(other.grid_pvalue_adjusted, base.grid_pvalue_adjusted)
    assert other.pvalue == base.pvalue


def _fast_path(monkeypatch, share):
    from fastfair import parity

    monkeypatch.setattr(parity.statistics, "FAST_SHARE", share)


def test_small_sample_fast_path(monkeypatch):
    """Below FAST_SHARE the leverage terms are dropped: CR0 variance, one-pass df."""
    rng = np.random.default_rng(12)
    y, s, g, user = clustered_data(rng, n_users=2000)
    grid = np.linspace(0.2, 0.8, 7)
    kw = dict(cluster=user, grid=grid, bandwidth=0.05)
    full = calibration_curve(y, s, g, **kw)
    none = calibration_curve(y, s, g, small_sample="none", **kw)
    _fast_path(monkeypatch, 1.0)
    fast = calibration_curve(y, s, g, **kw)
    np.testing.assert_array_equal(fast.standard_error, none.standard_error)
    # df = (sum b^2)^2 / sum b^4 per group, directly
    ks = np.exp(-0.5 * ((s[:, None] - grid) / 0.05) ** 2)
    for k in (0, 1):
        rows = g == k
        _, inv = np.unique(user[rows], return_inverse=True)
        b = np.zeros((inv.max() + 1, grid.size))
        np.add.at(b, inv, ks[rows])
        b /= np.bincount(inv)[:, None]
        np.testing.assert_allclose(fast.df[k], (b**2).sum(0) ** 2 / (b**4).sum(0), rtol=1e-9)
    # The full correction differs from the fast path by the leverage terms only.
    share = full.max_share
    assert share.max() < 0.1
    ratio = full.standard_error / fast.standard_error
    assert np.all(ratio > 1) and np.all(ratio <= 1 / np.sqrt(1 - share) + 1e-12)
    np.testing.assert_allclose(full.df, fast.df, rtol=0.2)
    with pytest.raises(ValueError, match="small_sample"):
        calibration_curve(y, s, g, small_sample="cr3", **kw)


def test_cr2_corrects_the_simultaneous_test_and_keeps_power():
    """Few users, heavy-tailed rows: CR2 + t widens the separate-variance test; a real gap
    is still found."""
    from fastfair.parity.inference import _normal_scale

    rng = np.random.default_rng(13)
    y, s, g, user = clustered_data(rng, n_users=120, heavy=0.1, heavy_n=200, sd_user=0.3)
    kw = dict(cluster=user, n_bootstrap=999, random_state=0, variance="separate")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SparseGridWarning)
        cr2 = predictive_parity_test(y, s, g, **kw)
        cr0 = predictive_parity_test(y, s, g, small_sample="none", **kw)
    t = cr2.tested
    assert np.all(cr2.curve.standard_error[:, t] > cr0.curve.standard_error[:, t])
    assert np.all(np.isfinite(cr2.grid_df[t])) and np.all(np.isinf(cr0.grid_df[t]))
    # the simultaneous test compares max_j of the t statistics mapped to the normal scale
    z2 = _normal_scale(cr2.grid_pvalue[t], 2)
    np.testing.assert_allclose(z2, stats.norm.isf(cr2.grid_pvalue[t] / 2) ** 2, rtol=1e-10)
    assert np.all(z2 < cr2.grid_statistic[t] ** 2 + 1e-12)
    assert cr2.pvalue >= cr0.pvalue
    # per-point t critical values of the simultaneous band exceed the normal-scale one
    assert np.all(cr2.critical_values[t] > cr2.critical_value)
    np.testing.assert_allclose(
        cr2.critical_values[t],
        stats.t.ppf(stats.norm.cdf(cr2.critical_value), cr2.grid_df[t]),
        rtol=1e-10,
    )
    y2, s2, g2, u2 = clustered_data(
        np.random.default_rng(14), n_users=120, heavy=0.1, heavy_n=200, sd_user=0.3, shift=0.3
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SparseGridWarning)
        gap = predictive_parity_test(y2, s2, g2, cluster=u2, n_bootstrap=999, random_state=0)
    assert gap.pvalue < 0.01


def test_adjustments_and_table():
    rng = np.random.default_rng(5)
    y, s, g, user = clustered_data(rng, n_users=2000, shift=0.1)
    res = {
        a: predictive_parity_test(
            y, s, g, cluster=user, grid=12, adjust=a, random_state=0, n_bootstrap=499
        )
        for a in ("holm", "bonferroni", "bh", "maxT", "none")
    }
    p = res["none"].grid_pvalue_adjusted
    np.testing.assert_allclose(res["none"].grid_pvalue, p)
    # each adjustment from its definition, on the tested grid points' raw p-values
    t = res["none"].tested
    raw = p[t]
    m, order = raw.size, np.argsort(raw)
    holm = np.empty(m)
    holm[order] = np.minimum(1, np.maximum.accumulate((m - np.arange(m)) * raw[order]))
    bh = np.empty(m)
    bh[order] = np.minimum(
        1, np.minimum.accumulate((raw[order] * m / np.arange(1, m + 1))[::-1])[::-1]
    )
    np.testing.assert_allclose(res["holm"].grid_pvalue_adjusted[t], holm, rtol=1e-13)
    np.testing.assert_allclose(res["bh"].grid_pvalue_adjusted[t], bh, rtol=1e-13)
    np.testing.assert_allclose(
        res["bonferroni"].grid_pvalue_adjusted[t], np.minimum(1, m * raw), rtol=1e-13
    )
    r = res["holm"]
    assert r.pvalue < 0.01 and r.method == "multiplier_bootstrap"
    assert np.all(r.difference < 0)  # group 1 has higher outcomes; difference is 0 minus 1
    assert set(r.table) >= {
        "score", "estimate_0", "standard_error_1", "difference", "difference_standard_error",
        "z", "pvalue_holm",
    }  # fmt: skip
    assert "PredictiveParityResult" in repr(r) and "simultaneous" in repr(r)
    no_boot = predictive_parity_test(y, s, g, cluster=user, grid=12, n_bootstrap=0)
    assert no_boot.method == "holm" and no_boot.pvalue == np.nanmin(no_boot.grid_pvalue_adjusted)
    pd = pytest.importorskip("pandas")
    frame = r.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) == 12
    assert len(r.curve.to_frame()) == 24
    # the DataFrame columns use the vocabulary's names (docs/conventions.md)
    np.testing.assert_array_equal(frame["difference_standard_error"], r.difference_standard_error)
    curve_frame = r.curve.to_frame()
    assert "std_error" not in curve_frame and not any(c.startswith("se_") for c in frame)
    np.testing.assert_array_equal(curve_frame["standard_error"], r.curve.standard_error.ravel())


def test_three_groups_wald():
    rng = np.random.default_rng(6)
    y, s, _, user = clustered_data(rng, n_users=1500)
    g = np.array(["a", "b", "c"])[user % 3]
    kw = dict(cluster=user, grid=8, variance="separate")  # the groups' own variances
    r = predictive_parity_test(y, s, g, random_state=1, n_bootstrap=499, **kw)
    assert r.statistic_name == "chi2(2)" and r.difference is None
    est, se = r.curve.estimate, r.curve.standard_error
    prec = 1 / se**2
    mean = (est * prec).sum(0) / prec.sum(0)
    np.testing.assert_allclose(r.grid_statistic, ((est - mean) ** 2 * prec).sum(0))
    assert r.statistic == pytest.approx(np.max(r.grid_statistic))
    # small_sample="cr2": W / 2 referred to F(2, smallest group df); "none": chi2(2)
    df = r.curve.df.min(axis=0)
    np.testing.assert_allclose(r.grid_df, df)
    np.testing.assert_allclose(r.grid_pvalue, stats.f.sf(r.grid_statistic / 2, 2, df), rtol=1e-10)
    r0 = predictive_parity_test(y, s, g, n_bootstrap=0, small_sample="none", **kw)
    np.testing.assert_allclose(r0.grid_pvalue, stats.chi2.sf(r0.grid_statistic, 2), rtol=1e-12)
    assert np.all(r.grid_pvalue > stats.chi2.sf(r.grid_statistic, 2))


def _null_rejections(reps, seed):
    """Reject rates at alpha = 0.05 at the middle grid point: per-user clustered vs naive."""
    rng = np.random.default_rng(seed)
    clustered = naive = covered = 0
    for _ in range(reps):
        y, s, g, user = clustered_data(rng, n_users=400, heavy=0.1, heavy_n=40, sd_user=0.25)
        grid = np.array([0.5])
        a = predictive_parity_test(y, s, g, cluster=user, grid=grid, bandwidth=0.08, n_bootstrap=0)
        b = predictive_parity_test(y, s, g, grid=grid, bandwidth=0.08, n_bootstrap=0)
        clustered += a.grid_pvalue[0] < 0.05
        naive += b.grid_pvalue[0] < 0.05
        lo, hi = a.curve.lower[0, 0], a.curve.upper[0, 0]
        covered += lo <= 0.5 <= hi  # E[Y | S = 0.5] = 0.5 per user (effects symmetric)
    return clustered / reps, naive / reps, covered / reps


def test_clustered_null_holds_level_naive_does_not():
    reps = 300
    clustered, naive, covered = _null_rejections(reps, 7)
    se = np.sqrt(0.05 * 0.95 / reps)  # MC standard error of a rate near 0.05: 0.0126
    assert abs(clustered - 0.05) < 3.5 * se + 0.02, clustered
    assert naive > 0.05 + 4 * se, naive
    assert abs(covered - 0.95) < 3.5 * se + 0.02, covered


def test_section8_per_observation_reverses_per_user_does_not():
    y, s, g, user = heavy_user_injection(random_state=8)  # Section 8 data
    kw = dict(cluster=user, grid=30, n_bootstrap=0)
    per_user = predictive_parity_test(y, s, g, weighting="per_user", **kw)
    per_obs = predictive_parity_test(y, s, g, weighting="per_observation", **kw)
    assert np.nanmean(per_user.difference) < 0 and np.mean(per_user.difference < 0) > 0.7
    assert np.nanmean(per_obs.difference) > 0 and np.mean(per_obs.difference > 0) > 0.5


def test_marginal_outcome_matches_direct():
    rng = np.random.default_rng(9)
    y, s, g, user = clustered_data(rng, n_users=600)
    t, h = 0.55, 0.05
    y_obs = np.where(s >= t, y, np.nan)  # unobserved below the threshold
    res = marginal_outcome_test(y_obs, s, g, t, cluster=user, bandwidth=h, small_sample="none")
    cr2 = marginal_outcome_test(y_obs, s, g, t, cluster=user, bandwidth=h)
    # direct: rows >= t, weights 1/n_m with n_m counting all of the user's rows
    keep = s >= t
    v2, dfs = [], []
    for k in (0, 1):
        rows = keep & (g == k)
        n_m = np.bincount(user)[user[rows]]
        kk = np.exp(-0.5 * ((s[rows] - t) / h) ** 2) / n_m
        _, inv = np.unique(user[rows], return_inverse=True)
        f = (kk * y[rows]).sum() / kk.sum()
        u = np.bincount(inv, weights=kk * (y[rows] - f))
        b = np.bincount(inv, weights=kk)
        assert res.estimate[k] == pytest.approx(f, rel=1e-10)
        assert res.standard_error[k] == pytest.approx(np.sqrt((u**2).sum()) / kk.sum(), rel=1e-8)
        v2.append((u**2 / (1 - b / b.sum())).sum() / b.sum() ** 2)
        dfs.append(bm_df_brute(b))
        assert cr2.standard_error[k] == pytest.approx(np.sqrt(v2[k]), rel=1e-8)
        assert cr2.max_share[k] == pytest.approx(b.max() / b.sum(), rel=1e-12)
    assert res.difference == pytest.approx(res.estimate[0] - res.estimate[1])
    assert res.pvalue == pytest.approx(2 * stats.norm.sf(abs(res.statistic)), rel=1e-12)
    # Welch-Satterthwaite df of the difference, t reference and t interval.
    df = (v2[0] + v2[1]) ** 2 / (v2[0] ** 2 / dfs[0] + v2[1] ** 2 / dfs[1])
    assert cr2.df == pytest.approx(df, rel=1e-8)
    z = cr2.difference / np.sqrt(v2[0] + v2[1])
    assert cr2.statistic == pytest.approx(z, rel=1e-8)
    assert cr2.pvalue == pytest.approx(2 * stats.t.sf(abs(z), df), rel=1e-8)
    half = stats.t.ppf(0.975, df) * cr2.difference_standard_error
    assert cr2.confidence_interval[1] - cr2.difference == pytest.approx(half, rel=1e-8)
    assert "MarginalOutcomeResult" in repr(res) and "df=" in repr(cr2)


def test_bandwidth_rules():
    rng = np.random.default_rng(10)
    n = 6000
    s = rng.random(n)
    user = rng.integers(0, 3000, n)
    y_lin = rng.random(n) < s
    y_wig = rng.random(n) < 0.5 + 0.4 * np.sin(6 * np.pi * s)
    h_rot = select_bandwidth(y_lin, s, cluster=user)
    sd_scale = min(s.std(), np.subtract(*np.quantile(s, [0.75, 0.25])) / 1.349)
    m = np.unique(user).size
    assert h_rot == pytest.approx(0.9 * sd_scale * m**-0.25, rel=0.03)
    h0 = select_bandwidth(y_lin, s, cluster=user, undersmooth=0.0)
    assert h0 == pytest.approx(h_rot * m**0.05, rel=1e-12)
    assert select_bandwidth(y_lin, s, cluster=user, kernel="epanechnikov") == pytest.approx(
        2.214 * h_rot
    )
    h_wig = select_bandwidth(y_wig, s, cluster=user, method="cv")
    h_lin = select_bandwidth(y_lin, s, cluster=user, method="cv")
    assert h_wig < h_lin
    assert 0.005 < h_wig < 0.05  # wavelength 1/3: a wide kernel would flatten the sine


def test_undersmooth_takes_0_up_to_but_not_0_8():
    """undersmooth lies in [0, 0.8): the rule-of-thumb bandwidth is h(0) M^(-undersmooth)
    (M users, one row each here) from 0 to the last float below 0.8; 0.8 is refused."""
    rng = np.random.default_rng(3)
    n = 400
    s, y = rng.random(n), (rng.random(n) < 0.5).astype(float)
    h0 = select_bandwidth(y, s, undersmooth=0.0)
    top = float(np.nextafter(0.8, 0.0))
    assert select_bandwidth(y, s, undersmooth=top) == pytest.approx(h0 * n**-top, rel=1e-12)
    with pytest.raises(ValueError, match=r"undersmooth must be in \[0, 0.8\)"):
        select_bandwidth(y, s, undersmooth=0.8)


def test_rule_of_thumb_is_silvermans_robust_scale_with_one_row_per_user():
    """One row per user (equal weights): 0.9 min(sd, IQR / 1.349) n^(-1/5), times the
    undersmoothing n^(-0.05), with numpy's sd (ddof 0) and midpoint (Hazen) quartiles; the
    sd alone when the IQR is 0; a constant score has no bandwidth."""
    rng = np.random.default_rng(1)
    n = 500
    y = (rng.random(n) < 0.5).astype(float)
    uniform = rng.random(n)  # sd < IQR / 1.349
    peaked = np.clip(0.5 + 0.05 * rng.standard_t(2, n), 0, 1)  # IQR / 1.349 < sd
    half_tied = np.concatenate([np.full(300, 0.5), rng.random(200)])  # IQR = 0
    for s, side in ((uniform, "sd"), (peaked, "iqr"), (half_tied, "sd")):
        q1, q3 = np.quantile(s, [0.25, 0.75], method="hazen")
        sd, iqr = s.std(), (q3 - q1) / 1.349
        assert (sd < iqr or iqr == 0) == (side == "sd")
        scale = min(sd, iqr) if iqr > 0 else sd
        assert select_bandwidth(y, s) == pytest.approx(0.9 * scale * n**-0.25, rel=1e-12)
    with pytest.raises(ValueError, match="score is constant"):
        select_bandwidth(y, np.full(n, 0.5))


def test_cv_bandwidth_minimizes_the_exact_leave_one_out_loss_over_the_16_candidates():
    """One row per user: the documented CV(h), each row's squared error against its group's
    Nadaraya-Watson fit without that row (computed exactly here, no grid), over the 16
    candidates rule-of-thumb x 2^linspace(-3, 1.5, 16); the minimizer is then undersmoothed
    by n^(-0.05). The minimum is clear (its neighbours' losses are 0.6% and 0.9% higher)."""
    rng = np.random.default_rng(2)
    n = 160
    s, g = rng.random(n), rng.integers(0, 2, n)
    y = (rng.random(n) < 0.5 + 0.35 * np.sin(4 * np.pi * s)).astype(float)
    q1, q3 = np.quantile(s, [0.25, 0.75], method="hazen")
    h0 = 0.9 * min(s.std(), (q3 - q1) / 1.349) * n**-0.2
    candidates = h0 * 2.0 ** np.linspace(-3, 1.5, 16)

    def loss(h):
        total = 0.0
        for i in range(n):
            others = g == g[i]
            others[i] = False
            k = np.exp(-0.5 * ((s[i] - s[others]) / h) ** 2)
            total += (y[i] - k @ y[others] / k.sum()) ** 2
        return total

    losses = np.array([loss(h) for h in candidates])
    best = int(losses.argmin())
    assert 0 < best < 15 and min(losses[best - 1], losses[best + 1]) > 1.005 * losses[best]
    got = select_bandwidth(y, s, g, method="cv")
    assert got == pytest.approx(candidates[best] * n**-0.05, rel=1e-12)


def test_a_constant_score_whose_mean_rounds_has_no_bandwidth():
    # found by harden4 (#36): 500 scores of 0.3 have a mean of 0.3 + 5.6e-17, whose centred
    # residues (~1e-17) once passed the "scale > 0" check as a bandwidth of 1e-17
    y = (np.arange(500) % 2).astype(float)
    with pytest.raises(ValueError, match="score is constant"):
        select_bandwidth(y, np.full(500, 0.3))


# ---------------------------------------------------------------- bad input


def test_bad_input_errors():
    rng = np.random.default_rng(11)
    y, s, g, _ = clustered_data(rng, n_users=200)
    with pytest.raises(ValueError, match="bandwidth must be a finite number > 0"):
        calibration_curve(y, s, g, bandwidth=0.0)
    with pytest.raises(ValueError, match="bandwidth must be a finite number > 0"):
        calibration_curve(y, s, g, bandwidth=-1.0)
    with pytest.raises(TypeError, match="bandwidth"):
        calibration_curve(y, s, g, bandwidth=[0.1])
    with pytest.raises(ValueError, match="bandwidth must be one of"):
        calibration_curve(y, s, g, bandwidth="silvermann")
    with pytest.raises(ValueError, match="kernel must be one of"):
        calibration_curve(y, s, g, kernel="box")
    with pytest.raises(ValueError, match="weighting must be one of"):
        calibration_curve(y, s, g, weighting="per_row")
    with pytest.raises(ValueError, match="grid must be increasing"):
        calibration_curve(y, s, g, grid=[0.5, 0.2])
    with pytest.raises(ValueError, match="grid contains NaN"):
        calibration_curve(y, s, g, grid=[0.2, np.nan])
    with pytest.raises(ValueError, match="adjust must be one of"):
        predictive_parity_test(y, s, g, adjust="fdr")
    with pytest.raises(ValueError, match="at least 2 groups"):
        predictive_parity_test(y, s, np.zeros_like(g))
    with pytest.raises(ValueError, match="same length"):
        calibration_curve(y[:-1], s, g)
    with pytest.raises(ValueError, match="score contains infinite"):
        calibration_curve(y, np.where(s > 0.9, np.inf, s), g)


def test_cluster_spanning_groups_is_an_error():
    rng = np.random.default_rng(12)
    y, s, g, user = clustered_data(rng, n_users=200)
    assert (user == 7).sum() > 1  # the fixed seed gives user 7 several rows
    g = g.copy()
    g[np.flatnonzero(user == 7)[0]] = 1 - g[np.flatnonzero(user == 7)[0]]
    with pytest.raises(
        ValueError, match=r"cluster 7 has rows in group .* must belong to one group"
    ):
        calibration_curve(y, s, g, cluster=user)
    data = {"y": y, "s": s, "g": g, "who": user}  # a column: the message names it too
    with pytest.raises(ValueError, match=r"^cluster 7 of the cluster column 'who' has rows in"):
        calibration_curve("y", "s", "g", cluster="who", data=data)


def test_nan_policy():
    rng = np.random.default_rng(13)
    y, s, g, user = clustered_data(rng, n_users=300)
    y2, s2 = y.copy(), s.copy()
    y2[3], s2[10] = np.nan, np.nan
    with pytest.raises(ValueError, match="score contains 1 NaN"):
        calibration_curve(y2, s2, g, cluster=user)
    with pytest.raises(ValueError, match="y_true contains 1 NaN"):
        calibration_curve(y2, s, g, cluster=user)
    grid = np.linspace(0.2, 0.8, 5)
    omitted = calibration_curve(
        y2, s2, g, cluster=user, nan_policy="omit", grid=grid, bandwidth=0.05
    )
    keep = ~(np.isnan(y2) | np.isnan(s2))
    # per-user weights count the user's rows with a score (row 3 has one, row 10 not)
    ref = calibration_curve(
        y[keep], s[keep], g[keep], cluster=user[keep], grid=grid, bandwidth=0.05
    )
    assert omitted.n_observations.sum() == keep.sum()
    if user[3] not in user[~keep & ~np.isnan(s2)]:
        np.testing.assert_allclose(omitted.estimate, ref.estimate, rtol=0.05)


def test_sparse_points_are_nan_with_warning():
    rng = np.random.default_rng(14)
    y, s, g, user = clustered_data(rng, n_users=400)
    s = np.where(g == 1, 0.1 + 0.3 * s, s)  # group 1 only in [0.1, 0.4]
    grid = np.array([0.2, 0.3, 0.9, 5.0])  # 5.0: out of every score's reach
    with pytest.warns(SparseGridWarning, match="no observations within the kernel's reach"):
        res = predictive_parity_test(
            y, s, g, cluster=user, grid=grid, bandwidth=0.02, random_state=0, n_bootstrap=99
        )
    assert np.isnan(res.curve.estimate[1, 2]) and np.isnan(res.curve.estimate[:, 3]).all()
    assert np.isnan(res.grid_pvalue[2:]).all() and np.isfinite(res.grid_pvalue[:2]).all()
    assert res.tested.tolist() == [True, True, False, False]
    assert np.isfinite(res.pvalue)
    assert any("group 1" in n for n in res.curve.notes)
    assert res.curve.n_out_of_reach[0] > 0 and res.curve.n_out_of_reach[1] == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        calibration_curve(y, s, g, cluster=user, grid=[0.2, 0.3], bandwidth=0.02)


def test_single_cluster_near_a_point_has_no_standard_error():
    s = np.array([0.1, 0.12, 0.5, 0.52, 0.9, 0.5, 0.55, 0.45] * 5)
    y = (np.arange(s.size) % 3 == 0).astype(float)
    user = np.array([0, 0, 1, 1, 2, 3, 4, 5] * 5) + 10 * np.repeat(np.arange(5), 8)
    user[s < 0.2] = 0  # one user holds every row near 0.11
    with pytest.warns(SparseGridWarning, match="effective clusters"):
        c = calibration_curve(y, s, cluster=user, grid=[0.11, 0.5], bandwidth=0.02)
    assert np.isnan(c.standard_error).any()


def test_marginal_bad_input():
    rng = np.random.default_rng(15)
    y, s, g, _ = clustered_data(rng, n_users=200)
    with pytest.raises(ValueError, match="no observations at or above the threshold"):
        marginal_outcome_test(y, s, g, 2.0)
    with pytest.raises(TypeError, match="threshold must be a number"):
        marginal_outcome_test(y, s, g, "0.5")
    s2 = np.where(g == 1, s * 0.5, s)
    with pytest.raises(ValueError, match=r"group\(s\) \['1'\] have no observations"):
        marginal_outcome_test(y, s2, g, 0.6)


def test_plot_smoke():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    rng = np.random.default_rng(16)
    y, s, g, user = clustered_data(rng, n_users=500)
    res = predictive_parity_test(y, s, g, cluster=user, grid=10, n_bootstrap=99)
    ax = res.plot()
    assert len(ax.lines) >= 2
    assert not ax.collections  # no band unless asked: pointwise bands under-cover
    ax = res.plot(band=True)
    assert len(ax.collections) == len(res.groups)
    labels = ax.get_legend_handles_labels()[1]
    assert sum("pointwise 95% band" in text for text in labels) == len(res.groups)


def _null_variance_by_hand(y, s, g, user, grid, h):
    """z (Wald statistic for K > 2) of each grid point with each group's users' scores
    centred at the pooled curve, the variance floored at the pooled residual variance, from
    dense per-user sums (numpy, independent of the kernel pass)."""
    k = np.exp(-0.5 * ((s[:, None] - grid[None, :]) / h) ** 2)
    _, inv = np.unique(user, return_inverse=True)
    w = 1.0 / np.bincount(inv)[inv]  # per-user weights
    a = np.zeros((inv.max() + 1, grid.size))
    b = np.zeros_like(a)
    np.add.at(a, inv, (w * y)[:, None] * k)
    np.add.at(b, inv, w[:, None] * k)
    ug = np.zeros(inv.max() + 1, dtype=int)
    ug[inv] = g
    f0 = a.sum(0) / b.sum(0)
    groups = np.unique(g)
    est = np.array([a[ug == j].sum(0) / b[ug == j].sum(0) for j in groups])
    num = np.array([((a[ug == j] - f0 * b[ug == j]) ** 2).sum(0) for j in groups])
    bb = np.array([(b[ug == j] ** 2).sum(0) for j in groups])
    sigma2 = num.sum(0) / bb.sum(0)  # pooled residual variance per unit of sum b^2: floor
    var = np.maximum(num, sigma2 * bb) / np.array([b[ug == j].sum(0) ** 2 for j in groups])
    if groups.size == 2:
        return (est[0] - est[1]) / np.sqrt(var[0] + var[1])
    mean = (est / var).sum(0) / (1 / var).sum(0)
    return ((est - mean) ** 2 / var).sum(0)


def test_null_variance_matches_direct_numpy_and_holds_the_level_where_separate_does_not():
    """variance="null" (default, issue 33): scores centred at the pooled curve, floored at
    the pooled residual variance, normal reference; equal to a direct computation. On issue
    33's first scenario (calibration exact, a 40-user group where one user holds 40% of the
    rows, shifted score densities)
    the separate-variance simultaneous test rejects far more often than alpha while the
    null-variance test does not (the check can fail: 60 data sets, the old rate ~0.15)."""
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[1] / "validation" / "parity_dependent_null.py"
    spec = importlib.util.spec_from_file_location("pdn", path)
    pdn = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pdn)
    rng = np.random.default_rng(7)
    y, s, g, user = clustered_data(rng)
    grid = np.linspace(0.15, 0.85, 8)
    res = predictive_parity_test(y, s, g, cluster=user, grid=grid, bandwidth=0.05, n_bootstrap=0)
    assert res.variance == "null" and np.all(np.isinf(res.grid_df))
    np.testing.assert_allclose(
        res.grid_statistic, _null_variance_by_hand(y, s, g, user, grid, 0.05), rtol=1e-9
    )
    sep = predictive_parity_test(
        y, s, g, cluster=user, grid=grid, bandwidth=0.05, n_bootstrap=0, variance="separate"
    )
    np.testing.assert_allclose(res.difference, sep.difference)  # same estimate and SE
    np.testing.assert_allclose(res.difference_standard_error, sep.difference_standard_error)
    with pytest.raises(ValueError, match="variance"):
        predictive_parity_test(y, s, g, cluster=user, variance="cr2")
    g3 = user % 3  # three groups: Wald statistic with the null variances, chi2(2)
    r3 = predictive_parity_test(y, s, g3, cluster=user, grid=grid, bandwidth=0.05, n_bootstrap=0)
    w3 = _null_variance_by_hand(y, s, g3, user, grid, 0.05)
    np.testing.assert_allclose(r3.grid_statistic, w3, rtol=1e-9)
    np.testing.assert_allclose(r3.grid_pvalue, stats.chi2.sf(w3, 2), rtol=1e-9)
    counts = pdn.run_cell("issue1", pdn.CELLS["issue1"][0], 60, 0.0, 5)["counts"]
    assert counts["old"][2] >= 4 and counts["new"][2] <= 6  # sim rejections of 60


def test_parity_bootstrap_continues_sequentially():
    """The bootstrap p-value's sampler continues draw b from stream b, so
    multiple_monte_carlo's blocks reproduce the fixed-size draws, and decides."""
    import fastfair
    from fastfair._sequential import samplers_of

    rng = np.random.default_rng(3)
    y, s, g, user = clustered_data(rng, n_users=400)
    res = predictive_parity_test(
        y, s, g, cluster=user, grid=10, n_bootstrap=500, return_null=True, random_state=4
    )
    (sampler,) = samplers_of(res)
    np.testing.assert_array_equal(sampler.draw(0, 500), res.null_distribution)
    np.testing.assert_array_equal(sampler.draw(200, 300), res.null_distribution[200:])
    fam = fastfair.multiple_monte_carlo([res], alpha=0.05)
    assert fam.decision[0] in ("reject", "retain") and fam.n_permutations[0] > 0
    lo, hi = fam.pvalue_interval
    assert lo[0] <= fam.pvalue[0] <= hi[0]
    assert not (lo[0] <= 0.05 <= hi[0])  # decided: the interval left the level


def test_parity_pvalue_near_the_level_is_undecided():
    """A bootstrap p-value within Monte-Carlo error of the level is not decided as is: at a
    cap too small to separate it from alpha, multiple_monte_carlo reports it undecided."""
    import fastfair

    rng = np.random.default_rng(3)
    y, s, g, user = clustered_data(rng, n_users=400)
    res = predictive_parity_test(y, s, g, cluster=user, grid=10, random_state=4)
    fam = fastfair.multiple_monte_carlo([res], alpha=res.pvalue, max_permutations=2000)
    assert fam.decision[0] == "undecided"


def test_null_variance_floor_for_a_group_without_positives():
    """A small group with no positive near a low-score point, the others calibrated: the
    centred residuals alone give it f0^2 / n_eff (z ~ -sqrt(n_eff (1 - f0) / f0)); the
    pooled floor gives about f0 (1 - f0) / n_eff, so z stays moderate (issue 33, the demo
    data's race test)."""
    rng = np.random.default_rng(11)
    n = 20000
    s = rng.uniform(0.01, 0.05, n)
    g = (rng.random(n) < 0.01).astype(int)  # ~200 rows in group 1
    y = (rng.random(n) < s).astype(float)
    y[g == 1] = 0.0  # no positive: 200 * 0.03 = 6 expected, P(0) = e^-6 ~ 0.25%
    kw = dict(grid=np.array([0.03]), bandwidth=0.01, n_bootstrap=0)
    floored = predictive_parity_test(y, s, g, **kw)
    own = _null_variance_by_hand(y, s, g, np.arange(n), np.array([0.03]), 0.01)
    np.testing.assert_allclose(floored.grid_statistic, own, rtol=1e-9)
    f0 = y.mean()
    n_eff = floored.curve.n_effective[1, 0]
    assert abs(floored.grid_statistic[0]) < 1.5 * np.sqrt(n_eff * f0 / (1 - f0)) + 1
    # without the floor: variance f0^2 / n_eff, |z| = sqrt(n_eff) (about 14 here)
    assert abs(floored.grid_statistic[0]) < 0.3 * np.sqrt(n_eff)


def test_df_warning_under_the_null_variance_names_the_intervals_not_the_tests():
    """Issue 33: with variance="null" (default) the tests use a normal reference, so the
    "df below 3" warning is about the intervals only (the curve's and the difference's, t
    with the groups' own CR2 df); with variance="separate" it is about the tests too. On
    issue 33's u20_dom50 cell (20 users, one with half the rows, rho 0.9)."""
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[1] / "validation" / "parity_dependent_null.py"
    spec = importlib.util.spec_from_file_location("pdn", path)
    pdn = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pdn)
    y, s, g, user = pdn.simulate(np.random.default_rng(0), **pdn.CELLS["u20_dom50"][0])
    messages = {}
    for variance in ("null", "separate"):
        with pytest.warns(SparseGridWarning) as record:
            res = predictive_parity_test(y, s, g, cluster=user, n_bootstrap=0, variance=variance)
        messages[variance] = " ".join(str(w.message) for w in record)
        low = res.tested & (res.curve.df[0] < 3)
        assert low.any()  # the warned points are tested
        if variance == "null":
            assert np.all(np.isinf(res.grid_df[low]))  # normal reference
        else:
            assert np.all(res.grid_df[low] < 4)  # Welch-Satterthwaite t of the two groups
        half = res.curve.upper[0, low] - res.curve.estimate[0, low]  # t band, df < 3
        t = stats.t.ppf(0.975, res.curve.df[0, low])
        np.testing.assert_allclose(half, t * res.curve.standard_error[0, low], rtol=1e-10)
    assert "t reference of the intervals is a rough approximation (the tests use the " \
        "variance under the null and a normal reference)" in messages["null"]  # fmt: skip
    assert "the t reference is a rough approximation" in messages["separate"]
    assert "intervals" not in messages["separate"]
    with pytest.warns(SparseGridWarning, match="the t reference is a rough approximation"):
        calibration_curve(y, s, g, cluster=user)


def test_the_null_variance_test_does_not_depend_on_small_sample():
    """variance="null" (the default): the statistic, the normal reference and the
    multiplier bootstrap of the maximum all use the scores centred at the pooled curve,
    from the first pass's sums, so small_sample="cr2" (the default: a second pass, CR2
    variances for the intervals) and "none" give the same p-values, draw for draw -- with
    30 users, one of them holding a fifth of the rows, where CR2 differs from CR0. Written
    for round-3 mutant r3-parity-null-covariance-center (the bootstrap fed the CR2
    covariance centred at each group's own estimate), which it kills on the commit the
    mutant was written for (2b6d922)."""
    rng = np.random.default_rng(3)
    n = 3000
    user = rng.integers(0, 30, n)
    user[:600] = 0
    g = np.where(user < 12, "a", "b")
    s = rng.beta(2, 3, n)
    y = (rng.random(n) < s).astype(int)
    kw = dict(cluster=user, n_bootstrap=999, random_state=0)
    cr2 = predictive_parity_test(y, s, g, **kw)
    cr0 = predictive_parity_test(y, s, g, small_sample="none", **kw)
    assert cr2.curve.standard_error.tolist() != cr0.curve.standard_error.tolist()
    assert cr2.pvalue == cr0.pvalue and cr2.statistic == cr0.statistic
    assert cr2.critical_value == cr0.critical_value
    np.testing.assert_array_equal(cr2.grid_pvalue, cr0.grid_pvalue)


def test_three_groups_max_test_maps_each_point_through_chi2_with_k_minus_1_df():
    """Three groups, CR2 (an F reference per point): the simultaneous test compares the
    bootstrap maxima of chi2(2)-scale Wald draws with the largest pointwise statistic
    mapped to that scale, chi2.isf(pointwise p, K - 1). Recomputed from the pointwise
    p-values and the null draws. Written for round-4 mutant r4-parity-normal-scale-df
    (the mapping with K df: a larger threshold, a smaller p-value)."""
    rng = np.random.default_rng(6)
    y, s, _, user = clustered_data(rng, n_users=600)
    g = np.array(["a", "b", "c"])[user % 3]
    r = predictive_parity_test(y, s, g, cluster=user, grid=8, variance="separate",
                               n_bootstrap=999, random_state=1, return_null=True)  # fmt: skip
    assert np.isfinite(r.grid_df).all()  # an F reference at every point: the mapping matters
    tested = np.isfinite(r.grid_pvalue)
    matched = stats.chi2.isf(r.grid_pvalue[tested], 2)
    null = np.asarray(r.null_distribution)
    exceed = np.sum(null >= matched.max() * (1 - 1e-9))
    assert r.pvalue == pytest.approx((1 + exceed) / (1 + null.size), abs=1e-12)
    assert 0.01 < r.pvalue < 0.99  # the threshold sits inside the draws, not in a tail


def test_weighted_quantiles_with_equal_weights_are_the_midpoint_quantiles():
    """With equal weights the k-th smallest of n scores sits at (k - 0.5) / n, the grid's
    and the scale's quantile (numpy's method="hazen"); any equal weight gives the same."""
    from fastfair._clustered import weighted_quantiles

    x = np.random.default_rng(4).normal(size=37)
    probs = [0.025, 0.25, 0.5, 0.75, 0.975]
    want = np.quantile(x, probs, method="hazen")
    np.testing.assert_allclose(weighted_quantiles(x, np.ones(37), probs), want, rtol=1e-12)
    np.testing.assert_allclose(weighted_quantiles(x, np.full(37, 3.5), probs), want, rtol=1e-12)


def test_a_one_point_grid_is_the_middle_of_the_common_range():
    # grid=k spreads k points over the groups' common central range; grid=1 is its middle,
    # the middle point of grid=3 (and the curve there is the same number)
    rng = np.random.default_rng(3)
    y, s, g, user = clustered_data(rng, n_users=200)
    kw = dict(cluster=user, bandwidth=0.05, small_sample="none")
    three = calibration_curve(y, s, g, grid=3, **kw)
    one = calibration_curve(y, s, g, grid=1, **kw)
    assert three.grid[0] < one.grid[0] < three.grid[2]
    np.testing.assert_allclose(one.grid, three.grid[1:2], rtol=1e-13)
    np.testing.assert_allclose(one.estimate[:, 0], three.estimate[:, 1], rtol=1e-10)


def test_outcomes_all_zero_give_statistic_0_and_pvalue_1_at_every_grid_score():
    # every outcome 0: both groups' curves are 0, no difference anywhere, so z = 0 and
    # p = 1 at each grid score; the constant-outcome floor is in units of 1 when the
    # largest |outcome| is 0 (a unit of 0 would divide 0 by 0)
    rng = np.random.default_rng(5)
    s, g = rng.random(600), rng.integers(0, 2, 600)
    res = predictive_parity_test(np.zeros(600), s, g, grid=5)
    np.testing.assert_array_equal(res.grid_statistic, np.zeros(5))
    np.testing.assert_array_equal(res.grid_pvalue, np.ones(5))
    assert (res.statistic, res.pvalue) == (0.0, 1.0)


def test_a_variance_exactly_at_the_constant_outcome_threshold_is_degenerate():
    # the rule is var * n_eff <= 1e-12 scale^2, inclusive: se = 2^-21 (var = 2^-42) and
    # n_eff = 1e-12 * 2^42 put var * n_eff exactly on 1e-12 (powers of two scale exactly),
    # so the variance is the half-pseudo-observation floor f~ (1 - f~) / n_eff with
    # f~ = (f n_eff + 1/2) / (n_eff + 1); the next float above n_eff keeps se^2
    from fastfair.parity.inference import _studentizing_variance

    se, n_eff, f = 2.0**-21, 1e-12 * 2.0**42, 0.3
    assert se * se * n_eff == 1e-12
    var, degenerate = _studentizing_variance(np.array([f]), np.array([se]), np.array([n_eff]))
    shrunk = (f * n_eff + 0.5) / (n_eff + 1)
    assert degenerate[0] and var[0] == pytest.approx(shrunk * (1 - shrunk) / n_eff, rel=1e-12)
    above = np.array([np.nextafter(n_eff, np.inf)])
    var, degenerate = _studentizing_variance(np.array([f]), np.array([se]), above)
    assert not degenerate[0] and var[0] == se * se


def test_outcomes_near_a_large_constant_are_not_read_as_constant():
    # Outcomes 1 or 1 + 1e-5: each group's variance near a point is ~1e-13, far below the
    # constant-outcome threshold, but var * n_effective (~2e-11, the per-row variance) is
    # above it, so no point is degenerate and every z is that of the 0/1 outcomes (up to
    # the ~1e-5 relative rounding of sums of squares near 1).
    rng = np.random.default_rng(4)
    y, s, g, user = clustered_data(rng, n_users=300)
    kw = dict(cluster=user, grid=np.linspace(0.2, 0.8, 7), bandwidth=0.08, small_sample="none")
    binary = predictive_parity_test(y, s, g, random_state=0, **kw)
    shifted = predictive_parity_test(1.0 + 1e-5 * y, s, g, random_state=0, **kw)
    assert np.all(np.abs(binary.grid_statistic) > 0.05)
    np.testing.assert_allclose(shifted.grid_statistic, binary.grid_statistic, rtol=1e-3)
    np.testing.assert_allclose(shifted.statistic, binary.statistic, rtol=1e-3)


@pytest.mark.parametrize("n_groups", [2, 3])
def test_every_frame_column_reads_back_its_field_by_group_and_grid_point(n_groups):
    """CalibrationCurve.to_frame: row k * n_grid + j is group k at grid point j, every
    column; PredictiveParityResult.to_frame: one row per grid point, the raw p-value in
    ``pvalue`` and the adjusted one in ``pvalue_<adjust>`` (they differ at >= 2 points)."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(21)
    y, s, _, user = clustered_data(rng, n_users=900)
    g = np.array(["a", "b", "c"])[user % n_groups]
    r = predictive_parity_test(y, s, g, cluster=user, grid=[0.3, 0.45, 0.6, 0.75],
                               n_bootstrap=0, adjust="holm", variance="separate")  # fmt: skip
    c = r.curve
    K, G = c.estimate.shape
    frame = c.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) == K * G == n_groups * 4
    for k in range(K):
        for j in range(G):
            row = frame.iloc[k * G + j]
            assert row["group"] == c.groups[k] and row["score"] == c.grid[j]
            for name in ("estimate", "standard_error", "lower", "upper", "n_effective",
                         "max_share", "df"):  # fmt: skip
                assert row[name] == getattr(c, name)[k, j], name
    table = r.to_frame()
    assert len(table) == G
    np.testing.assert_array_equal(table["score"], c.grid)
    for k, label in enumerate(c.groups):
        np.testing.assert_array_equal(table[f"estimate_{label}"], c.estimate[k])
        np.testing.assert_array_equal(table[f"standard_error_{label}"], c.standard_error[k])
    np.testing.assert_array_equal(table[r.statistic_name], r.grid_statistic)
    np.testing.assert_array_equal(table["df"], r.grid_df)
    tested = r.tested
    assert tested.sum() >= 2
    raw = r.grid_pvalue[tested]
    m = raw.size
    order = np.argsort(raw)
    holm = np.empty(m)
    holm[order] = np.minimum(1, np.maximum.accumulate(raw[order] * (m - np.arange(m))))
    np.testing.assert_array_equal(table["pvalue"], r.grid_pvalue)
    np.testing.assert_allclose(table["pvalue_holm"][tested], holm, rtol=1e-12)
    assert not np.allclose(table["pvalue"][tested], table["pvalue_holm"][tested])
    if n_groups == 2:
        np.testing.assert_array_equal(table["difference"], c.estimate[0] - c.estimate[1])
        np.testing.assert_array_equal(table["difference_standard_error"],
                                      r.difference_standard_error)  # fmt: skip
    else:
        assert "difference" not in table


def test_marginal_outcome_repr_rows_and_interval_read_back_from_the_rows():
    """Each repr row is its group's estimate, SE, effective clusters, rows at or above the
    threshold and their users (counted with numpy); the difference line is estimate 0 minus
    1 with difference_standard_error = sqrt(SE_0^2 + SE_1^2) and the t interval (df)."""
    rng = np.random.default_rng(0)
    n = 3000
    g = rng.choice(["a", "b"], n, p=[0.7, 0.3])
    s = rng.random(n)
    y = (rng.random(n) < np.clip(s + 0.1 * (g == "b"), 0, 1)).astype(float)
    user = np.where(g == "a", rng.integers(0, 800, n), 1000 + rng.integers(0, 800, n))
    t = 0.5
    res = marginal_outcome_test(y, s, g, threshold=t, cluster=user)
    lines = repr(res).splitlines()
    for k, label in enumerate(["a", "b"]):
        row = lines[2 + k].split()
        above = (g == label) & (s >= t)
        assert row[0] == label
        assert int(row[4]) == above.sum() == res.n_observations[k]
        assert int(row[5]) == np.unique(user[above]).size == res.n_clusters[k]
        np.testing.assert_allclose(
            [float(v) for v in row[1:4]],
            [res.estimate[k], res.standard_error[k], res.n_effective[k]], atol=5e-5,
        )  # fmt: skip
    se = res.standard_error
    assert res.difference == res.estimate[0] - res.estimate[1]
    assert res.difference_standard_error == pytest.approx(np.hypot(se[0], se[1]), rel=1e-12)
    q = stats.t.ppf(0.975, res.df)
    lo, hi = res.confidence_interval
    assert (lo, hi) == pytest.approx(
        (res.difference - q * res.difference_standard_error,
         res.difference + q * res.difference_standard_error), rel=1e-9,
    )  # fmt: skip
    shown = [float(v) for v in re.findall(r"-?\d+\.\d+", lines[4])]
    assert shown == pytest.approx([res.difference, lo, hi], abs=5e-5)
    assert res.pvalue == pytest.approx(2 * stats.t.sf(abs(res.statistic), res.df), rel=1e-9)
    assert res.statistic == pytest.approx(res.difference / res.difference_standard_error)


def test_grid_given_as_points_is_checked_and_kept():
    """A grid of scores given by the user: one point (a scalar) is a grid of one point, the
    points are kept as given; an empty or 2-D grid and repeated points are refused, and a
    test between groups without a group column names the missing argument. Written for the
    grid checks no test reached (coverage of the default suite)."""
    rng = np.random.default_rng(11)
    y, s, g, _ = clustered_data(rng, n_users=200)
    assert calibration_curve(y, s, g, grid=0.4).grid.tolist() == [0.4]
    assert calibration_curve(y, s, g, grid=[0.3, 0.45, 0.6]).grid.tolist() == [0.3, 0.45, 0.6]
    for bad in ([], [[0.2, 0.4]]):
        with pytest.raises(ValueError, match="grid must be a non-empty 1-D array of scores"):
            calibration_curve(y, s, g, grid=bad)
    with pytest.raises(ValueError, match="grid contains duplicate points"):
        calibration_curve(y, s, g, grid=[0.2, 0.2, 0.6])
    with pytest.raises(TypeError, match="group is required"):
        predictive_parity_test(y, s, None)


def _users_data(seed=5, n=3000):
    rng = np.random.default_rng(seed)
    user = rng.integers(0, 600, n)
    g = np.where(user < 400, "a", "b")
    s = rng.random(n)
    y = (rng.random(n) < s).astype(float)
    return y, s, g, user


def test_curve_repr_header_rows_bands_and_notes_read_back_from_the_rows():
    """The header's rows / users per group (counted with numpy), each row's estimate with
    "-" for a band where the SE is NaN, and the notes' counts of thin points (0 < Kish
    effective users < min_effective_clusters, computed by hand) and empty ones."""
    y, s, g, user = _users_data()
    grid = np.array([0.5, 1.2, 1.25, 1.3, 5.0])
    with pytest.warns(SparseGridWarning):
        c = calibration_curve(y, s, g, cluster=user, grid=grid, min_effective_clusters=40)
    text = repr(c)
    lines = text.splitlines()
    for label in ("a", "b"):
        rows = g == label
        assert f"{label}: {rows.sum()} rows / {np.unique(user[rows]).size} users" in lines[0]
    h = c.bandwidth
    for k, label in enumerate(("a", "b")):
        rows = g == label
        users, inv = np.unique(user[rows], return_inverse=True)
        ks = np.exp(-0.5 * ((s[rows, None] - grid[None, :]) / h) ** 2)
        ks[np.abs(s[rows, None] - grid[None, :]) > 8 * h] = 0.0  # the kernel's reach
        v = np.zeros((users.size, grid.size))
        np.add.at(v, inv, ks)
        v /= np.bincount(inv)[:, None]  # per-user weights 1 / n_m
        with np.errstate(invalid="ignore"):
            n_eff = np.where(v.sum(0) > 0, v.sum(0) ** 2 / (v**2).sum(0), 0.0)
        np.testing.assert_allclose(c.n_effective[k], n_eff, rtol=1e-9, atol=1e-12)
        thin = int(((n_eff > 0) & (n_eff < 40)).sum())
        assert thin >= 2
        assert (f"group '{label}' has fewer than 40 effective clusters at {thin} grid point(s)"
                in text)  # fmt: skip
        assert f"group '{label}' has no observations within the kernel's reach" in text
    for j in range(grid.size):
        expected = [f"{grid[j]:.4f}"]
        for k in range(2):
            est = c.estimate[k, j]
            expected.append("nan" if np.isnan(est) else f"{est:.4f}")
            ok = np.isfinite(c.standard_error[k, j])
            expected.append(f"[{c.lower[k, j]:.4f}, {c.upper[k, j]:.4f}]" if ok else "-")
        assert lines[2 + j].split() == " ".join(expected).split()
    assert "-" in lines[3].split()  # a thin point: estimate shown, band "-"


@pytest.mark.parametrize("n_grid", [16, 17])
def test_curve_repr_shows_up_to_16_grid_rows_and_elides_the_middle_beyond(n_grid):
    """16 grid points: all 16 rows, no "..."; 17: the first 8, "...", the last 8 (scores
    read back against the grid)."""
    y, s, g, user = _users_data()
    grid = np.linspace(0.1, 0.9, n_grid)
    lines = repr(calibration_curve(y, s, g, cluster=user, grid=grid)).splitlines()[2:]
    shown = list(range(16)) if n_grid == 16 else [*range(8), None, *range(9, 17)]
    assert len(lines) == len(shown)
    for line, j in zip(lines, shown):
        if j is None:
            assert line.split() == ["..."]
        else:
            assert float(line.split()[0]) == pytest.approx(grid[j], abs=5e-5)


def _holm(p):
    m = p.size
    order = np.argsort(p)
    out = np.empty(m)
    out[order] = np.minimum(1, np.maximum.accumulate(p[order] * (m - np.arange(m))))
    return out


def test_parity_repr_elides_long_grids_and_states_the_simultaneous_band():
    """18 grid points: 16 rows and "..."; the band line gives the bootstrap critical value
    (the 95% quantile of the null maxima, read from return_null) with small_sample="none",
    and the smallest to largest per-point t critical value with CR2 separate variances."""
    y, s, g, user = _users_data()
    r = predictive_parity_test(y, s, g, cluster=user, grid=18, n_bootstrap=199, random_state=0,
                               small_sample="none", return_null=True)  # fmt: skip
    lines = repr(r).splitlines()
    table = lines[3:-1]
    assert len(table) == 17 and table[8].split() == ["..."]
    for line, j in zip(table[:8] + table[9:], [*range(8), *range(10, 18)]):
        assert float(line.split()[0]) == pytest.approx(r.grid[j], abs=5e-5)
    critical = np.sqrt(np.quantile(r.null_distribution, 0.95))
    assert lines[-1] == f"  simultaneous 95% band for the difference: ± {critical:.4f} SE"
    r = predictive_parity_test(y, s, g, cluster=user, grid=5, n_bootstrap=199, random_state=0,
                               variance="separate")  # fmt: skip
    lo, hi = np.nanmin(r.critical_values), np.nanmax(r.critical_values)
    assert lo < hi
    assert repr(r).splitlines()[-1].endswith(f"± {lo:.4f} to {hi:.4f} SE")


def test_parity_plot_stars_the_points_whose_holm_adjusted_pvalue_is_below_alpha():
    """Stars where Holm's adjustment of the raw p-values (by hand) is below alpha, not
    where the raw p-value is (they differ here at alpha 0.2)."""
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    y, s, g, user = _users_data()
    r = predictive_parity_test(y, s, g, cluster=user, grid=5, n_bootstrap=0, adjust="holm",
                               variance="separate")  # fmt: skip
    adjusted = _holm(r.grid_pvalue)
    assert ((r.grid_pvalue < 0.2) != (adjusted < 0.2)).any()
    ax = r.plot(alpha=0.2)
    try:
        stars = [line for line in ax.lines if line.get_label() == "adjusted p < 0.2"]
        assert len(stars) == 1
        np.testing.assert_array_equal(stars[0].get_xdata(), r.grid[adjusted < 0.2])
    finally:
        plt.close(ax.figure)


def test_marginal_outcome_without_standard_errors_has_nan_test_and_interval():
    """Fewer effective clusters than required in both groups: the estimates (as with
    min_effective_clusters=1) and their difference, but NaN statistic, p-value, df and
    interval."""
    y, s, g, user = _users_data()
    with pytest.warns(SparseGridWarning, match="fewer than 1e\\+06 effective clusters"):
        res = marginal_outcome_test(y, s, g, 0.5, cluster=user, min_effective_clusters=10**6)
    full = marginal_outcome_test(y, s, g, 0.5, cluster=user, min_effective_clusters=1)
    np.testing.assert_array_equal(res.estimate, full.estimate)
    assert res.difference == full.estimate[0] - full.estimate[1]
    assert np.isnan([res.statistic, res.pvalue, res.df, *res.confidence_interval]).all()
    assert "z=nan, pvalue=nan" in repr(res)


def test_parity_option_refusals_name_their_problem():
    y, s, g, user = _users_data()
    for bad in ("0.2", True):
        with pytest.raises(TypeError, match=f"undersmooth must be a number, got {bad!r}"):
            select_bandwidth(y, s, cluster=user, undersmooth=bad)
    with pytest.raises(ValueError, match=r"adjust='maxT' needs the bootstrap: n_bootstrap >= 1"):
        predictive_parity_test(y, s, g, cluster=user, adjust="maxT", n_bootstrap=0)


def test_curve_options_at_the_ends_of_their_ranges_and_the_band_at_any_level():
    """min_effective_clusters 1 is accepted and below 1 refused, confidence_level refused at
    0 and 1; the pointwise band at level c is estimate -+ t_{(1 + c) / 2, df} SE (scipy)."""
    y, s, g, user = _users_data()
    grid = [0.3, 0.5, 0.7]
    one = calibration_curve(y, s, g, cluster=user, grid=grid, min_effective_clusters=1)
    assert np.isfinite(one.standard_error).all()
    for bad in (0.999, 0):
        with pytest.raises(ValueError, match=r"min_effective_clusters must be >= 1 \(a single"):
            calibration_curve(y, s, g, cluster=user, grid=grid, min_effective_clusters=bad)
    with pytest.raises(TypeError, match="min_effective_clusters must be a number, got True"):
        calibration_curve(y, s, g, cluster=user, grid=grid, min_effective_clusters=True)
    for bad in (0.0, 1.0):
        with pytest.raises(ValueError, match=r"confidence_level must be in \(0, 1\)"):
            calibration_curve(y, s, g, cluster=user, grid=grid, confidence_level=bad)
    for level in (0.5, 0.9):
        c = calibration_curve(y, s, g, cluster=user, grid=grid, confidence_level=level)
        q = stats.t.ppf(0.5 + level / 2, c.df)
        np.testing.assert_allclose(c.lower, c.estimate - q * c.standard_error, rtol=1e-10)
        np.testing.assert_allclose(c.upper, c.estimate + q * c.standard_error, rtol=1e-10)
        assert c.confidence_level == level and f"{100 * level:g}% band" in repr(c)


def test_curve_header_without_cluster_counts_each_row_as_its_own_cluster():
    """Without cluster= every row is a cluster: the header says "<n> rows / <n> rows" per
    group (counted with numpy), never "users", and the predictive parity repr repeats it."""
    y, s, g, _ = _users_data(seed=6, n=1500)
    c = calibration_curve(y, s, g, grid=5)
    head = repr(c).splitlines()[0]
    for label in ("a", "b"):
        n = int((g == label).sum())
        assert f"{label}: {n} rows / {n} rows" in head
    assert "users" not in head
    res = predictive_parity_test(y, s, g, grid=5, n_bootstrap=0)
    assert "users" not in repr(res).splitlines()[1]
    assert f"a: {(g == 'a').sum()} rows / {(g == 'a').sum()} rows" in repr(res).splitlines()[1]


def test_max_t_takes_a_single_bootstrap_draw_and_n_bootstrap_starts_at_zero():
    """adjust='maxT' needs the bootstrap, so n_bootstrap >= 1 (0 is refused, tested above):
    one draw is accepted, and its adjusted p-values are (1 + count) / 2, 1/2 or 1, never
    below the raw ones; n_bootstrap -1 is refused naming it (0 is the pointwise test)."""
    y, s, g, user = _users_data()
    res = predictive_parity_test(y, s, g, cluster=user, adjust="maxT", n_bootstrap=1, grid=5,
                                 random_state=0)  # fmt: skip
    raw, adjusted = res.grid_pvalue, res.grid_pvalue_adjusted
    for r, a in zip(raw, adjusted):
        assert a == 1.0 or a == max(0.5, r)
    assert (adjusted >= raw).all()
    with pytest.raises(ValueError, match=r"^n_bootstrap must be >= 0, got -1$"):
        predictive_parity_test(y, s, g, cluster=user, n_bootstrap=-1)


def test_pointwise_pvalues_keep_their_far_tails():
    """The per-point p-values at a far point and a near one, by scipy: two groups, t with
    the Welch-Satterthwaite df of the two variances (4.3e-23 at t = 16); three, F(K - 1,
    min df) of W / (K - 1) (3.5e-12), or chi-square(K - 1) with infinite df (3.5e-57).
    1 - cdf would give 0 or a residue of 1e-16: relative 1e-12, absolute 0."""
    from scipy import stats as st

    from fastfair.parity.inference import _pointwise, _wald

    est = np.array([[0.9, 0.5], [0.1, 0.45]])
    var = np.array([[1e-3, 2e-3], [1.5e-3, 1e-3]])
    df = np.array([[20.0, 30.0], [40.0, 25.0]])
    t, sq = _wald(est, var)
    welch = (var[0] + var[1]) ** 2 / (var[0] ** 2 / df[0] + var[1] ** 2 / df[1])
    p, dfw = _pointwise(t, sq, var, df)
    np.testing.assert_allclose(dfw, welch, rtol=1e-14)
    want = 2 * st.t.sf(np.abs(t), welch)
    assert want[0] < 1e-22
    np.testing.assert_allclose(p, want, rtol=1e-12, atol=0)
    est3, var3 = np.vstack([est, [0.5, 0.5]]), np.vstack([var, [1e-3, 1e-3]])
    df3 = np.vstack([df, [50.0, 60.0]])
    w, sq = _wald(est3, var3)
    p, dfw = _pointwise(w, sq, var3, df3)
    want = st.f.sf(w / 2, 2, df3.min(axis=0))
    assert want[0] < 1e-11
    np.testing.assert_allclose(p, want, rtol=1e-12, atol=0)
    p, _ = _pointwise(w, sq, var3, np.full((3, 2), np.inf))
    want = st.chi2.sf(w, 2)
    assert want[0] < 1e-56
    np.testing.assert_allclose(p, want, rtol=1e-12, atol=0)


def _gap_users_data(seed=5, n=3000, gap=0.3, n_users=600):
    rng = np.random.default_rng(seed)
    user = rng.integers(0, n_users, n)
    g = np.where(user < 2 * n_users // 3, "a", "b")
    s = rng.random(n)
    y = (rng.random(n) < np.clip(s + gap * (g == "b"), 0, 1)).astype(float)
    return y, s, g, user


def test_marginal_outcome_repr_head_names_threshold_statistic_and_the_level_given():
    """Two groups at level 0.9: the head gives the threshold, z and the t reference's df,
    and the difference line "90% CI" with the interval difference -+ t_(0.95, df) SE (by
    hand from the fields). Three groups: the head names the Wald statistic chi2(2), equal
    to sum_g (e_g - e_w)^2 / SE_g^2 with e_w the inverse-variance mean (by hand), with no
    df (small_sample="none") and no difference line."""
    y, s, g, user = _gap_users_data()
    from fastfair._format import format_value as fmt

    two = marginal_outcome_test(y, s, g, threshold=0.5, cluster=user, confidence_level=0.9)
    lines = repr(two).splitlines()
    assert lines[0].startswith(f"MarginalOutcomeResult(threshold=0.5000, z={fmt(two.statistic)}, "
                               f"pvalue={fmt(two.pvalue)}, df={fmt(two.df)}, ")  # fmt: skip
    q = stats.t.ppf(0.95, two.df)
    half = q * two.difference_standard_error
    low, high = fmt(two.difference - half), fmt(two.difference + half)
    assert lines[-1] == f"  difference {fmt(two.difference)}, 90% CI [{low}, {high}]"
    g3 = np.array(["a", "b", "c"])[user % 3]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        three = marginal_outcome_test(y, s, g3, threshold=0.5, cluster=user, small_sample="none")
    e, se = three.estimate, three.standard_error
    w = 1 / se**2
    chi2 = np.sum(w * (e - np.sum(w * e) / np.sum(w)) ** 2)
    assert three.statistic == pytest.approx(chi2, rel=1e-9)
    head = repr(three).splitlines()[0]
    assert head.startswith(f"MarginalOutcomeResult(threshold=0.5000, chi2(2)={fmt(chi2)}, "
                           f"pvalue={fmt(stats.chi2.sf(chi2, 2))}, weighting=")  # fmt: skip
    assert "df=" not in head and not any("difference" in ln for ln in repr(three).splitlines())


def test_parity_repr_head_names_statistic_and_adjustment_and_prints_tiny_pvalues_as_bounds():
    """predictive_parity_test's repr: the head names the statistic (max z) and the
    adjustment given; the band line the level given (90%); every grid p-value column
    prints at the precision a p-value has, a p-value below 1e-16 (a large gap on 20,000
    rows) as "< 1e-16", never as its digits."""
    y, s, g, user = _gap_users_data(n=20000, gap=0.4, n_users=4000)
    res = predictive_parity_test(y, s, g, cluster=user, grid=5, n_bootstrap=99, random_state=0,
                                 adjust="holm", confidence_level=0.9,
                                 small_sample="none")  # fmt: skip
    lines = repr(res).splitlines()
    from fastfair._format import format_value as fmt

    assert lines[0].startswith(f"PredictiveParityResult(statistic=max z = {fmt(res.statistic)}, ")
    assert lines[0].endswith(", method='multiplier_bootstrap', adjust='holm')")
    assert lines[-1].startswith("  simultaneous 90% band for the difference: ± ")
    header = lines[2].split()
    assert header[-2:] == ["pvalue", "pvalue_holm"]
    tiny = 0
    for j, line in enumerate(lines[3:8]):
        cells = re.split(r"\s{2,}", line.strip())
        for name, cell in zip(("pvalue", "pvalue_holm"), cells[-2:]):
            p = res.table[name][j]
            tiny += p < 1e-16
            assert cell == ("< 1e-16" if p < 1e-16 else fmt(p)), (line, p)
    assert tiny >= 1
