"""Power twins of the level tests, and the exact size of the discrete exact test.

A level test that only checks ``rate <= alpha + 3 SE`` passes for a test that never
rejects. Each level simulation in the suite has a twin here: the same procedure on data
with a real difference must reject often. For the exact conditional test (discrete), the
simulated rejection rate is compared, in both directions, with its exactly computed
attainable size: the average over the simulated tables of P(p <= alpha | margins), from
the hypergeometric law written out with scipy.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

import fastfair
from fastfair.auc import auc_test
from fastfair.parity import predictive_parity_test
from fastfair.resampling import correlation_test, mean_difference_test

ALPHA = 0.05


def _fnr_counts(rng, n, prev, tpr, tnr=0.9):
    pos = rng.binomial(n, prev)
    tp = rng.binomial(pos, tpr)
    tn = rng.binomial(n - pos, tnr)
    return [tn, n - pos - tn, pos - tp, tp]


def _exact_fnr(counts):
    """Exact conditional test of equal FNR with the pooled statistic, written out.

    Given the positives n_a, n_b and the false negatives F of both groups, FN_a is
    Hypergeometric(n_a + n_b, F, n_a); T(x) = (x/n_a - (F-x)/n_b) / sqrt(p(1-p)(1/n_a +
    1/n_b)), p = F / (n_a + n_b). Returns (p-value of the observed table, P(p <= alpha)).
    """
    (_, _, fn_a, tp_a), (_, _, fn_b, tp_b) = counts
    n_a, n_b = fn_a + tp_a, fn_b + tp_b
    F = fn_a + fn_b
    x = np.arange(max(0, F - n_b), min(F, n_a) + 1)
    pmf = stats.hypergeom(n_a + n_b, F, n_a).pmf(x)
    p = F / (n_a + n_b)
    if p in (0.0, 1.0):
        return 1.0, 0.0
    t = np.abs(x / n_a - (F - x) / n_b) / math.sqrt(p * (1 - p) * (1 / n_a + 1 / n_b))
    pval = np.array([pmf[t >= ti * (1 - 1e-12)].sum() for ti in t])
    return float(pval[x == fn_a][0]), float(pmf[pval <= ALPHA].sum())


def test_exact_test_rejects_at_its_attainable_size():
    rng = np.random.default_rng(30)
    n_sim, rejected, sizes = 400, 0, []
    for _ in range(n_sim):
        counts = [_fnr_counts(rng, 60, 0.6, 0.7), _fnr_counts(rng, 3000, 0.15, 0.7)]
        res = fastfair.permutation_test_from_counts(counts, metric="fnr")
        pval, size = _exact_fnr(counts)
        assert res.method == "exact"
        assert abs(res.pvalue - pval) <= 1e-9 * max(pval, 1e-300) + 1e-15
        rejected += res.pvalue <= ALPHA
        sizes.append(size)
    sizes = np.array(sizes)
    se = math.sqrt(np.sum(sizes * (1 - sizes))) / n_sim
    assert 0.02 < sizes.mean() < ALPHA  # discrete: below alpha, but far from 0
    assert abs(rejected / n_sim - sizes.mean()) <= 3 * se


def test_power_twin_pooled_full_permutation():
    """Twin of test_pooled_full_permutation_holds_the_level: FNR 0.1 vs 0.3."""
    rng = np.random.default_rng(31)
    n_sim, rejected = 100, 0
    for i in range(n_sim):
        counts = [_fnr_counts(rng, 200, 0.8, 0.9), _fnr_counts(rng, 200, 0.2, 0.7)]
        res = fastfair.permutation_test_from_counts(
            counts,
            metric="fnr",
            scheme="full",
            method="monte_carlo",
            n_permutations=199,
            random_state=i,
        )
        rejected += res.pvalue <= ALPHA
    assert rejected / n_sim >= 0.7  # normal approximation: about 0.9


def test_power_twin_maxt_familywise():
    """Twin of test_maxt_controls_familywise_error: group 3's TPR is 0.45, not 0.7."""
    rng = np.random.default_rng(32)
    n_sim, hits, false = 100, 0, 0
    for i in range(n_sim):
        g = rng.integers(0, 4, 800)
        y = rng.random(800) < 0.5
        tpr = np.where(g == 3, 0.45, 0.7)
        p = np.where(y, rng.random(800) < tpr, rng.random(800) < 0.2)
        res = fastfair.permutation_test(
            y,
            p,
            g,
            metric="tpr",
            adjust="maxT",
            n_permutations=199,
            random_state=i,
            reference=0,
        )
        hits += res.pvalue_adjusted[2] <= ALPHA
        false += np.any(res.pvalue_adjusted[:2] <= ALPHA)
    assert hits / n_sim >= 0.7  # about 0.9
    assert false / n_sim <= ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / n_sim)


def test_power_twin_welch_mean_difference():
    """Twin of test_mean_difference_level_under_unequal_variances: means differ by 1.5."""
    rng = np.random.default_rng(33)
    n_sim, rejected = 100, 0
    for s in range(n_sim):
        v = np.concatenate([rng.normal(1.5, 4, 25), rng.normal(0, 1, 250)])
        g = np.repeat([1, 0], [25, 250])
        rejected += mean_difference_test(v, g, n_permutations=199, random_state=s).pvalue <= ALPHA
    assert rejected / n_sim >= 0.25  # Welch z = 1.5 / 0.81 = 1.86: power about 0.45


def test_power_twin_studentized_correlation():
    """Twin of test_table1_quick: the studentized correlation test detects r = 0.3."""
    rng = np.random.default_rng(34)
    n_sim, rejected = 60, 0
    for s in range(n_sim):
        x = rng.normal(size=200)
        e = 0.3 * x + rng.normal(size=200)
        rejected += correlation_test(x, e, n_permutations=199, random_state=s).pvalue <= ALPHA
    assert rejected / n_sim >= 0.8  # about 0.99


def test_power_twin_auc_studentized():
    """Twin of the AUC validity tests: AUC 0.76 vs 0.62 (binormal, shift 1.0 vs 0.45)."""
    rng = np.random.default_rng(35)
    n_sim, rejected = 60, 0
    for i in range(n_sim):
        g = np.repeat([0, 1], 200)
        y = rng.random(400) < np.where(g == 0, 0.8, 0.2)
        s = rng.normal(size=400) + y * np.where(g == 0, 1.0, 0.45)
        res = auc_test(y, s, g, scheme="full", n_permutations=199, random_state=i, n_jobs=1)
        rejected += res.pvalue <= ALPHA
    assert rejected / n_sim >= 0.3  # DeLong SE about 0.06: power about 0.5


def test_power_twin_clustered_predictive_parity():
    """Twin of test_clustered_null_holds_level_naive_does_not: outcomes differ by 0.15."""
    rng = np.random.default_rng(36)
    n_sim, rejected = 60, 0
    for _ in range(n_sim):
        user = rng.integers(0, 400, 2400)
        g = user % 2
        s = rng.random(2400)
        effect = rng.normal(0, 0.1, 400)[user]
        y = (rng.random(2400) < np.clip(s + 0.15 * g + effect, 0, 1)).astype(float)
        res = predictive_parity_test(
            y, s, g, cluster=user, grid=np.array([0.5]), bandwidth=0.08, n_bootstrap=0
        )
        rejected += res.grid_pvalue[0] < ALPHA
    assert rejected / n_sim >= 0.6  # about 0.8


def test_power_twin_callable_metric_algorithm1():
    """Callable metrics (Algorithm 1, bootstrap-fast): a real difference of MSE is detected."""
    rng = np.random.default_rng(37)

    def mse(y_true, y_pred):
        return np.mean((y_true - y_pred) ** 2, axis=-1)

    n_sim, rejected = 40, 0
    group = np.repeat(["a", "b"], 150)
    for i in range(n_sim):
        y = rng.normal(size=300)
        pred = y + rng.normal(scale=np.where(group == "a", 1.0, 1.35))
        res = fastfair.permutation_test(
            y,
            pred,
            group,
            metric=mse,
            vectorized=True,
            studentize="bootstrap-fast",
            n_permutations=199,
            n_bootstrap=100,
            random_state=i,
        )
        rejected += res.pvalue <= ALPHA
    assert rejected / n_sim >= 0.6  # MSE 1 vs 1.82, SE about 0.25: power about 0.95
