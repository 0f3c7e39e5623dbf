"""Boundaries: scores ON the threshold, so that `>=` and `>` give different answers.

Continuous scores never sit on a threshold, so a test with them cannot tell `>=` from `>`.
Here scores lie on a grid of binary fractions (exact in floating point) that contains the
threshold, and each function's result is compared with a brute-force count under its
documented decision rule.
"""

from __future__ import annotations

import numpy as np
import pytest

from fastfair.calibration import delta_pcc, fair_thresholds
from fastfair.parity import marginal_outcome_test


def accepted(score, threshold):
    """The documented decision rule of delta_pcc and fair_thresholds (positive when s >= t)."""
    return score >= threshold


def _grid_data(seed, n=4000, users=800):
    rng = np.random.default_rng(seed)
    user = rng.integers(0, users, n)
    group = user % 2
    score = rng.integers(1, 16, n) / 16.0  # 1/16 .. 15/16: half the rows per value ~ 6%
    y = (rng.random(n) < score).astype(float)
    return y, score, group, user


def test_marginal_outcome_uses_rows_on_the_threshold():
    """marginal_outcome_test: accept when score >= t, so rows at s = t are marginal."""
    y, s, g, user = _grid_data(0)
    t = 0.5
    on = s == t
    assert on.sum() > 100
    # outcomes at the threshold differ by group: dropping them moves the estimates
    y = np.where(on, (g == 0).astype(float), y)
    res = marginal_outcome_test(y, s, g, t, cluster=user, bandwidth=0.05)
    np.testing.assert_array_equal(
        res.n_observations, [np.sum((s >= t) & (g == k)) for k in (0, 1)]
    )
    # brute force: per-user weights 1/n_m over all the user's rows, kernel rows s >= t
    _, inv, n_m = np.unique(user, return_inverse=True, return_counts=True)
    k = np.exp(-0.5 * ((s - t) / 0.05) ** 2) * (s >= t) / n_m[inv]
    for grp in (0, 1):
        sel = g == grp
        expected = (k * y)[sel].sum() / k[sel].sum()
        assert res.estimate[grp] == pytest.approx(expected, rel=1e-9)


class _ShiftCalibrator:
    """A fitted stand-in calibrator: group 1's scores move up by 1/8, group 0's stay."""

    groups_ = np.array([0, 1])

    def transform(self, score, group):
        return np.asarray(score) + np.where(np.asarray(group) == 1, 0.125, 0.0)


def test_delta_pcc_counts_scores_on_the_threshold_by_its_rule():
    rng = np.random.default_rng(1)
    n = 2000
    g = rng.integers(0, 2, n)
    s = rng.integers(0, 9, n) / 8.0  # 0, 1/8, ..., 1: the threshold 1/2 is on the grid
    t = 0.5
    res = delta_pcc(None, s, g, t, calibrator=_ShiftCalibrator())
    f = _ShiftCalibrator().transform(s, g)
    for grp in (0, 1):
        sel = g == grp
        expected = np.mean(accepted(f[sel], t).astype(float) - accepted(s[sel], t))
        assert res.value[grp] == pytest.approx(expected, abs=1e-15)
    # group 1 moves every score up one grid step: it gains the rows that land on, or
    # pass, the threshold under the rule, i.e. exactly one grid value's rows
    gained = (s == (0.375 if accepted(0.5, 0.5) else 0.5)) & (g == 1)
    assert res.value[1] == pytest.approx(gained.sum() / np.sum(g == 1), abs=1e-15)
    assert res.value[0] == 0.0


def test_fair_thresholds_positive_rates_count_scores_on_the_threshold_by_its_rule():
    y, s, g, _ = _grid_data(2, n=6000)
    t = 0.5
    res = fair_thresholds(y, s, g, t, reference=0, bandwidth=0.1)
    for grp in (0, 1):
        sel = g == grp
        assert res.positive_rate_before[grp] == pytest.approx(np.mean(accepted(s[sel], t)))
        assert res.positive_rate_after[grp] == pytest.approx(
            np.mean(accepted(s[sel], res.thresholds[grp]))
        )
    assert res.thresholds[0] == t


def test_marginal_outcome_refuses_a_threshold_below_every_score_of_a_group():
    """Below every score of a group, nobody of it is at the margin: the one-sided kernel
    estimate at t extrapolated from the lowest scores (p = 0.51 at t just below them, an
    estimate of 0.11 for a true 0.4 further down) instead of refusing."""
    y, s, g, user = _grid_data(1)
    s = np.where(g == 1, np.maximum(s, 0.25), s)  # group 1 scores from 1/4 up
    with pytest.raises(ValueError, match=r"below every score of group\(s\) \['1'\]"):
        marginal_outcome_test(y, s, g, 0.2, cluster=user)
    with pytest.raises(ValueError, match=r"below every score of group\(s\) \['0', '1'\]"):
        marginal_outcome_test(y, s, g, 0.01, cluster=user)
    # at the smallest score itself the rows on the threshold are the marginal ones
    res = marginal_outcome_test(y, s, g, 0.25, cluster=user, bandwidth=0.05)
    assert np.isfinite(res.estimate).all()
