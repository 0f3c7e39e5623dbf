"""Boundaries and counts of the clustered parity estimator that a formula check misses (#36).

Each test pins one rule at the value where a plausible mistake changes the answer:

* the effective-number-of-users rule is ``n_eff >= min_effective_clusters`` (an SE exactly at
  the threshold, none just above it);
* per-user weights 1/n_m count a user's rows with a score, so rows dropped for a NaN score do
  not down-weight their user (checked against a direct count and a straight-numpy estimate);
* a cross-validated bandwidth found on a subsample of users is rescaled to the full number of
  users as M^(-1/5), i.e. it shrinks as users are added.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from fastfair._clustered import _CV_CLUSTERS
from fastfair.parity import SparseGridWarning, calibration_curve, select_bandwidth


def _brute_curve(y, s, cluster, grid, h, sizes):
    """Straight numpy Nadaraya-Watson estimate and effective number of users, Gaussian
    kernel, per-user weights 1 / sizes[user] (sizes counted by the caller)."""
    k = np.exp(-0.5 * ((s[:, None] - grid[None, :]) / h) ** 2)
    users, inv = np.unique(cluster, return_inverse=True)
    a = np.zeros((users.size, grid.size))
    b = np.zeros_like(a)
    np.add.at(a, inv, y[:, None] * k)
    np.add.at(b, inv, k)
    w = 1.0 / np.array([sizes[u] for u in users], dtype=float)
    wa, wb = w[:, None] * a, w[:, None] * b
    return wa.sum(0) / wb.sum(0), wb.sum(0) ** 2 / (wb**2).sum(0)


def _equal_users(n_users, threshold_rows=1):
    """`n_users` users with one row each at score 0.5 (outcomes 0, 1, 0, ...), so that at
    grid point 0.5 with the Epanechnikov kernel every user's kernel weight is exactly 1 and
    the effective number of users is exactly n_users."""
    s = np.full(n_users * threshold_rows, 0.5)
    y = (np.arange(s.size) % 2).astype(float)
    user = np.repeat(np.arange(n_users), threshold_rows)
    return y, s, user


@pytest.mark.parametrize("n_users", [5, 8])
def test_effective_users_rule_is_inclusive_at_the_threshold(n_users):
    y, s, user = _equal_users(n_users)
    kw = dict(cluster=user, grid=[0.5], bandwidth=0.1, kernel="epanechnikov")
    at = calibration_curve(y, s, min_effective_clusters=float(n_users), **kw)
    assert at.n_effective[0, 0] == n_users  # exact: K(0) = 1 for every user
    assert np.isfinite(at.standard_error[0, 0]) and at.standard_error[0, 0] > 0
    assert np.isfinite(at.lower[0, 0]) and np.isfinite(at.upper[0, 0])
    above = np.nextafter(float(n_users), np.inf)
    with pytest.warns(SparseGridWarning, match="effective clusters"):
        just_above = calibration_curve(y, s, min_effective_clusters=above, **kw)
    assert np.isnan(just_above.standard_error[0, 0])
    assert just_above.estimate[0, 0] == at.estimate[0, 0]  # the estimate is still reported


def _users_with_nan_scores(rng):
    n_users = 120
    n_rows = rng.integers(3, 9, n_users)
    user = np.repeat(np.arange(n_users), n_rows)
    centre = rng.beta(2, 2, n_users)[user]
    s = np.clip(centre + rng.normal(0, 0.1, user.size), 0.01, 0.99)
    y = (rng.random(user.size) < s).astype(float)
    s_nan = s.copy()
    # A NaN score in 40 users with several rows, so their weights would visibly change.
    hit = rng.choice(n_users, 40, replace=False)
    first_row = np.concatenate([[0], np.cumsum(n_rows)[:-1]])
    s_nan[first_row[hit]] = np.nan
    s_nan[first_row[hit[:10]] + 1] = np.nan  # two NaN rows in ten of them
    return y, s, s_nan, user


def test_per_user_weights_count_rows_with_a_score_only():
    rng = np.random.default_rng(36)
    y, s, s_nan, user = _users_with_nan_scores(rng)
    grid = np.linspace(0.2, 0.8, 7)
    h = 0.08
    omitted = calibration_curve(
        y, s_nan, cluster=user, grid=grid, bandwidth=h, nan_policy="omit", min_effective_clusters=1
    )
    keep = ~np.isnan(s_nan)
    # Direct count of each user's rows with a score.
    sizes = {u: int(np.sum(keep & (user == u))) for u in np.unique(user)}
    est, n_eff = _brute_curve(y[keep], s_nan[keep], user[keep], grid, h, sizes)
    np.testing.assert_allclose(omitted.estimate[0], est, rtol=1e-12)
    np.testing.assert_allclose(omitted.n_effective[0], n_eff, rtol=1e-12)
    # The same as removing those rows before the call.
    removed = calibration_curve(
        y[keep], s[keep], cluster=user[keep], grid=grid, bandwidth=h, min_effective_clusters=1
    )
    np.testing.assert_allclose(omitted.estimate, removed.estimate, rtol=1e-12)
    np.testing.assert_allclose(omitted.standard_error, removed.standard_error, rtol=1e-12)
    # Counting the NaN rows instead would move the estimate by far more than rounding.
    wrong = {u: int(np.sum(user == u)) for u in np.unique(user)}
    est_wrong, _ = _brute_curve(y[keep], s_nan[keep], user[keep], grid, h, wrong)
    assert np.max(np.abs(est_wrong - est)) > 1e-4


def _identical_users(n_users):
    """`n_users` copies of one 3-row user (same scores and outcomes): every subsample of
    users holds exactly the same data as any other of the same size."""
    s = np.tile([0.2, 0.45, 0.7], n_users)
    y = np.tile([0.0, 1.0, 1.0], n_users)
    user = np.repeat(np.arange(n_users), 3)
    return y, s, user


def test_cv_bandwidth_on_a_subsample_shrinks_as_m_to_the_minus_one_fifth():
    m = _CV_CLUSTERS
    kw = dict(method="cv", kernel="epanechnikov", undersmooth=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y, s, user = _identical_users(m)
        h_m = select_bandwidth(y, s, cluster=user, **kw)
        y, s, user = _identical_users(4 * m)
        h_4m = select_bandwidth(y, s, cluster=user, **kw)
    # CV runs on m of the 4m users, which hold the same data as the m-user call, so it picks
    # the same h; the full-M rate M^(-1/5) then shrinks it by 4^(-1/5).
    np.testing.assert_allclose(h_4m / h_m, 4.0**-0.2, rtol=1e-12)
    # Undersmoothing multiplies by M^(-u) with the full M.
    h_4m_u = select_bandwidth(y, s, cluster=user, method="cv", kernel="epanechnikov")
    np.testing.assert_allclose(h_4m_u / h_4m, (4.0 * m) ** -0.05, rtol=1e-12)
