"""Side-by-side timing of permutation_test against scipy.stats.permutation_test.

Same data (n = 10^5 rows, two groups), same statistic (the pooled-studentized FNR
difference), full permutation of group labels. scipy runs fewer permutations (it shuffles
rows); we compare time per permutation.
"""

from __future__ import annotations

import time

import numpy as np
from scipy import stats

import fastfair


def _studentized_fnr(codes_a, codes_b, axis=-1):
    """Pooled-studentized FNR difference from row codes 2*y_true + y_pred (vectorized)."""
    fn_a = np.sum(codes_a == 2, axis=axis)
    pos_a = fn_a + np.sum(codes_a == 3, axis=axis)
    fn_b = np.sum(codes_b == 2, axis=axis)
    pos_b = fn_b + np.sum(codes_b == 3, axis=axis)
    pooled = (fn_a + fn_b) / (pos_a + pos_b)
    var = pooled * (1 - pooled) * (1 / pos_a + 1 / pos_b)
    return (fn_a / pos_a - fn_b / pos_b) / np.sqrt(var)


def run(quick: bool = False) -> list[dict]:
    rng = np.random.default_rng(0)
    n = 10**5
    group = rng.integers(0, 2, n)
    y_true = rng.random(n) < np.where(group == 1, 0.2, 0.4)
    y_pred = np.where(y_true, rng.random(n) < 0.8, rng.random(n) < 0.1)
    codes = (2 * y_true + y_pred).astype(np.int8)
    rows = []

    b_ff = 10**4
    start = time.perf_counter()
    res = fastfair.permutation_test(
        y_true,
        y_pred,
        group,
        metric="fnr",
        scheme="full",
        method="monte_carlo",
        n_permutations=b_ff,
        random_state=0,
        reference=1,
    )
    t_ff = time.perf_counter() - start

    b_sp = 50 if quick else 300
    start = time.perf_counter()
    sp = stats.permutation_test(
        (codes[group == 0], codes[group == 1]),
        _studentized_fnr,
        vectorized=True,
        n_resamples=b_sp,
        permutation_type="independent",
        batch=50,
        random_state=np.random.default_rng(0),
    )
    t_sp = time.perf_counter() - start
    assert np.isclose(sp.statistic, res.statistic)
    per_ff, per_sp = t_ff / b_ff, t_sp / b_sp
    rows.append(
        dict(
            task="studentized FNR, full permutation (per permutation)",
            n=n,
            fastfair_s=per_ff,
            peer="scipy.stats.permutation_test (vectorized)",
            peer_s=per_sp,
            ratio=per_sp / per_ff,
        )
    )
    rows.append(
        dict(
            task=f"studentized FNR, full permutation, {b_ff} permutations (total)",
            n=n,
            fastfair_s=t_ff,
            peer=f"scipy, extrapolated from {b_sp}",
            peer_s=per_sp * b_ff,
            ratio=per_sp * b_ff / t_ff,
        )
    )
    start = time.perf_counter()
    fastfair.permutation_test(y_true, y_pred, group, metric="fnr")
    t_exact = time.perf_counter() - start
    rows.append(
        dict(
            task="studentized FNR, exact conditional test (default) vs scipy 10^4 permutations",
            n=n,
            fastfair_s=t_exact,
            peer="scipy.stats.permutation_test (extrapolated)",
            peer_s=per_sp * b_ff,
            ratio=per_sp * b_ff / t_exact,
        )
    )
    return rows
