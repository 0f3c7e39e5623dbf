"""The planner sizes the audit's exact conditional test by its exact power (issue 34).

Each power is checked against an independent computation: the audit's own test
(`fastfair.permutation_test_from_counts`, as `fastfair.audit` calls it) run on every table
and weighted by its binomial probability; the binned quadrature against the full sum; the
Wald formula against statsmodels. The power actually reached by the audit at the plan is
simulated in validation/planning_exact_power.py (quick mode in test_validation_quick.py).
"""

import itertools
import math

import numpy as np
import pytest
from scipy import special, stats

import fastfair
from fastfair import _conditional_power as cp
from fastfair.planning import sample_size


def _audit_rejects(x1, m1, x2, m2, alternative, alpha=0.05):
    """The audit's test (TPR: the positives permuted) on one table, group 0 vs reference 1."""
    cells = np.array([[3, 2, m1 - x1, x1], [4, 1, m2 - x2, x2]])
    res = fastfair.permutation_test_from_counts(
        cells, [0, 1], metric="tpr", reference=1, alternative=alternative
    )
    assert res.method == "exact"
    return res.pvalue <= alpha


@pytest.mark.parametrize(("side", "alternative"), [(0, "two-sided"), (1, "greater"), (-1, "less")])
def test_conditional_power_is_the_audit_tests_rejection_probability(side, alternative):
    m1, m2, r1, r2 = 9, 14, 0.8, 0.4
    logfact = special.gammaln(np.arange(40.0) + 1)
    brute = sum(
        stats.binom.pmf(x1, m1, r1) * stats.binom.pmf(x2, m2, r2)
        for x1, x2 in itertools.product(range(m1 + 1), range(m2 + 1))
        if _audit_rejects(x1, m1, x2, m2, alternative)
    )
    assert cp.conditional_power(m1, m2, r1, r2, 0.05, side, logfact) == pytest.approx(
        brute, abs=1e-12
    )


def test_exact_power_with_binomial_denominators_matches_every_table():
    """Unconditional power: denominators (positives) binomial too, all tables enumerated."""
    n, prev, rate = (6, 8), (0.5, 0.6), (0.9, 0.3)
    brute = 0.0
    for m1, m2 in itertools.product(range(n[0] + 1), range(n[1] + 1)):
        w = stats.binom.pmf(m1, n[0], prev[0]) * stats.binom.pmf(m2, n[1], prev[1])
        for x1, x2 in itertools.product(range(m1 + 1), range(m2 + 1)):
            if m1 and m2 and _audit_rejects(x1, m1, x2, m2, "two-sided"):
                brute += w * stats.binom.pmf(x1, m1, rate[0]) * stats.binom.pmf(x2, m2, rate[1])
    assert cp.exact_power(n, prev, rate, 0.05, 0) == pytest.approx(brute, abs=1e-12)


def test_binned_denominators_agree_with_the_full_sum(monkeypatch):
    args = ((40, 200), (0.3, 0.3), (0.75, 0.5), 0.05, 0)
    binned = cp.exact_power(*args)
    assert cp.denominator_nodes(40, 0.3)[0].size == cp.BINS  # the quadrature is in use
    monkeypatch.setattr(cp, "FULL_WINDOW", 10**6)
    full = cp.exact_power(*args)
    assert binned == pytest.approx(full, abs=0.005)


def test_plan_is_the_smallest_n_reaching_the_target_and_stays_there():
    rates = {"tpr": [0.7, 0.45], "prevalence": [0.4, 0.3]}
    res = sample_size("tpr", rates=rates, tau=0.25, allocation=0.3)
    assert res.test == "exact" and res.achieved_power >= 0.8
    p = res.allocation

    def exact_at(total):
        n = np.ceil(total * p * (1 - 1e-12)).astype(int)
        return cp.exact_power((n[1], n[0]), (0.3, 0.4), (0.45, 0.7), 0.05, 0)

    n = int(res.n)
    assert res.n_per_group_ceil.tolist() == np.ceil(n * p * (1 - 1e-12)).astype(int).tolist()
    assert exact_at(n) == pytest.approx(res.achieved_power)
    assert exact_at(n - 1) < 0.8
    width = max(20, math.ceil(0.1 * n))
    assert min(exact_at(m) for m in range(n, n + width + 1, 4)) >= 0.8


def test_exact_plan_differs_from_wald_where_the_issue_found_it():
    """TPR 0.7 vs 0.6, allocation 0.1: the Wald plan (620 / 5,573) gives the audit's test
    power 0.76; the exact plan collects more and reaches 0.8."""
    rates = {"tpr": [0.7, 0.6], "prevalence": [0.3, 0.3]}
    wald = sample_size("tpr", rates=rates, tau=0.1, allocation=0.1, test="asymptotic")
    assert wald.test == "wald" and wald.n_per_group_ceil.tolist() == [620, 5573]
    n = wald.n_per_group_ceil
    assert cp.exact_power((n[1], n[0]), (0.3, 0.3), (0.6, 0.7), 0.05, 0) < 0.77
    exact = sample_size("tpr", rates=rates, tau=0.1, allocation=0.1)
    assert exact.n_total_ceil > wald.n_total_ceil
    assert 0.8 <= exact.achieved_power < 0.805
    assert "exact conditional test" in repr(exact)


def test_three_groups_each_comparison_reaches_the_target_at_the_bonferroni_level():
    rates = {"selection_rate": [0.5, 0.35, 0.4]}
    res = sample_size("selection_rate", rates=rates, tau=0.15, allocation="equal")
    n = res.n_per_group_ceil
    for g in (1, 2):  # every group tau away from the reference, in its direction
        pw = cp.exact_power((n[g], n[0]), (1.0, 1.0), (0.35, 0.5), 0.025, 0)
        assert pw >= 0.8
    assert res.achieved_power >= 0.8


def test_wald_plan_matches_statsmodels():
    from statsmodels.stats.power import normal_power_het

    rates = {"tpr": [0.7, 0.6], "prevalence": [0.3, 0.3]}
    res = sample_size("tpr", rates=rates, tau=0.1, allocation=0.1, test="asymptotic")
    npg = res.n_per_group
    sd = math.sqrt(0.7 * 0.3 / 0.3 / npg[0] + 0.6 * 0.4 / 0.3 / npg[1])
    pw = normal_power_het(0.1, 1, 0.05, std_null=sd, alternative="two-sided")
    assert pw == pytest.approx(0.8, abs=1e-4)  # the far tail adds < 1e-4


def test_auto_falls_back_to_the_formula_and_exact_is_refused_where_it_does_not_apply():
    assert sample_size(sigma2=[0.25, 0.25], tau=0.1).test == "wald"
    rates = {"tpr": [0.7, 0.6], "prevalence": [0.3, 0.3]}
    assert sample_size("tpr", rates=rates, tau=0.1, u_tol=0.02).test == "wald"
    assert sample_size("tpr", rates=rates, tau=0.1, variance="score").test == "score"
    auc = {"auc": [0.8, 0.7], "prevalence": [0.3, 0.3]}
    assert sample_size("auc", rates=auc, tau=0.1).test == "wald"
    with pytest.raises(ValueError, match="test='exact' needs"):
        sample_size("auc", rates=auc, tau=0.1, test="exact")
    with pytest.raises(ValueError, match="test='exact' needs"):
        sample_size(sigma2=[0.25, 0.25], tau=0.1, test="exact")
    with pytest.raises(ValueError, match="test"):
        sample_size("tpr", rates=rates, tau=0.1, test="fisher")
    with pytest.raises(ValueError, match="outside"):
        sample_size("tpr", rates=rates, tau=0.75)


def test_plans_beyond_the_lattice_cap_use_the_score_formula():
    """56,000 rows (TPR 0.7 vs 0.68): the exact lattice would exceed EXACT_MAX_CELLS."""
    rates = {"tpr": [0.7, 0.68], "prevalence": [0.3, 0.3]}
    auto = sample_size("tpr", rates=rates, tau=0.02)
    score = sample_size("tpr", rates=rates, tau=0.02, variance="score")
    assert auto.test == "score" and auto.achieved_power is None
    assert auto.n == score.n
    with pytest.raises(ValueError, match="too many to enumerate"):
        sample_size("tpr", rates=rates, tau=0.02, test="exact")


@pytest.mark.parametrize("rates", [(0.35, 0.5), (0.65, 0.5)])
def test_one_sided_exact_power_tests_in_the_direction_of_the_gap(rates):
    """alternative="greater": the comparison's one-sided exact test rejects small counts of
    the group below the reference and large counts of a group above (side -1 / +1)."""
    from fastfair.planning.inference import _exact_power_at

    alt, den, p = np.array([rates[1], rates[0]]), np.ones(2), np.array([0.5, 0.5])
    got = _exact_power_at(200, p, alt, den, 0, 0.05, "greater")
    side = 1 if rates[0] > rates[1] else -1
    assert got == pytest.approx(cp.exact_power((100, 100), (1.0, 1.0), rates, 0.05, side))
    assert got > 0.5  # the wrong side would have power below alpha


def test_a_denominator_window_of_full_window_values_is_summed_exactly():
    """Binomial(29, 0.5): its window is 0..29, FULL_WINDOW = 30 values, so every value is
    a node with its own binomial probability (not the equal-mass bins)."""
    assert cp.FULL_WINDOW == 30
    nodes, weights = cp.denominator_nodes(29, 0.5)
    np.testing.assert_array_equal(nodes, np.arange(30))
    np.testing.assert_allclose(weights, stats.binom.pmf(np.arange(30), 29, 0.5), rtol=1e-9)
