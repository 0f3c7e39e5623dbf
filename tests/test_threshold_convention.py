"""One threshold convention everywhere: a score at or above t is a positive decision.

Scores on a 0.1 grid and thresholds on grid points, so that `>` and `>=` give different
answers: each function is compared with the brute-force count of `score >= t`.
"""

from __future__ import annotations

import numpy as np

import fastfair


def grid_rows(n=4000, seed=0):
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 2, n)
    score = np.round(rng.random(n), 1)
    y = (rng.random(n) < np.clip(score + 0.1 * group, 0, 1)).astype(float)
    return y, score, group


def test_delta_pcc_counts_scores_equal_to_the_threshold_as_positive():
    y, s, g = grid_rows()
    t = 0.5
    res = fastfair.delta_pcc(y, s, g, t)
    f = res.calibrator.transform(s, g)
    want = [np.mean((f >= t)[g == k]) - np.mean((s >= t)[g == k]) for k in (0, 1)]
    np.testing.assert_allclose(res.value, want, rtol=0, atol=1e-15)
    assert np.mean(s == t) > 0.05  # the boundary matters on this data


def test_fair_thresholds_positive_rates_include_the_threshold():
    y, s, g = grid_rows(seed=1)
    t = 0.5
    res = fastfair.fair_thresholds(y, s, g, t, reference=0)
    want = [np.mean(s[g == k] >= t) for k in (0, 1)]
    np.testing.assert_allclose(res.positive_rate_before, want, rtol=0, atol=1e-15)
    after = [np.mean(s[g == k] >= res.thresholds[k]) for k in (0, 1)]
    np.testing.assert_allclose(res.positive_rate_after, after, rtol=0, atol=1e-15)


def test_sweep_and_permutation_test_agree_at_grid_thresholds():
    y, s, g = grid_rows(n=1500, seed=2)
    res = fastfair.threshold_sweep(
        y, s, g, thresholds=[0.3, 0.5], metrics=["selection_rate"], method="exact"
    )
    for k, t in enumerate(res.thresholds):
        rates = [np.mean(s[g == code] >= t) for code in res.comparison]
        np.testing.assert_allclose(res.group_values[0, k], rates, rtol=0, atol=1e-15)


def test_audit_predicts_positive_for_a_score_equal_to_the_threshold():
    y, s, g = grid_rows(n=2000, seed=3)
    res = fastfair.audit(y, None, {"g": g}, y_score=s, threshold=0.5, metrics=["selection_rate"],
                         n_permutations=99)  # fmt: skip
    (row,) = [t for t in res.tests if t["metric"] == "selection_rate"]
    rate = {k: np.mean(s[g == k] >= 0.5) for k in (0, 1)}
    assert row["difference"] == rate[row["group"]] - rate[row["reference"]]


def test_slice_search_predicts_positive_for_a_score_equal_to_the_threshold():
    y, s, g = grid_rows(n=2000, seed=4)
    kw = dict(metric="selection_rate", max_depth=1, n_permutations=99)
    res = fastfair.find_slices(None, y, y_score=s, threshold=0.5, features={"g": g}, **kw)
    assert res.population_value == np.mean(s >= 0.5)
