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


def test_rows_to_collect_round_up_but_not_a_float_error_above_an_integer():
    """100 x 0.07 is 7.000000000000001 in floating point: 7 rows, not 8; 7.01 is 8 rows.
    Sizes up to _MAX_UNITS = 2**62 are accepted, anything above (or NaN) refused."""
    from fastfair.planning.inference import _MAX_UNITS, _ceil

    assert 100 * 0.07 > 7.0  # the float error the rounding must absorb
    assert _ceil(np.array([100 * 0.07, 7.01, 7.0, 0.5])).tolist() == [7, 8, 7, 1]
    assert _MAX_UNITS == 2.0**62
    assert _ceil(np.array([2.0**62])).item() > 2**61  # exactly the limit: no error
    for beyond in (np.nextafter(2.0**62, np.inf), np.nan):
        with pytest.raises(ValueError, match="exceeds"):
            _ceil(np.array([1.0, beyond]))


def test_huge_sizes_are_rounded_up_never_down():
    """The float-error allowance above an integer is relative 1e-12 but at most 1e-6 units:
    a size of 3.9e12 (a gap of 1e-6) is not lowered by 3.9 units, and 2**62 or 2**53 + 2,
    integers in floating point, stay themselves."""
    from fastfair.planning.inference import _ceil

    exact = [2**62, 2**53 + 2, 10**13]
    assert _ceil(np.array(exact, dtype=np.float64)).tolist() == exact
    assert _ceil(np.array([1e13 + 0.5, 1e12 + 0.25])).tolist() == [10**13 + 1, 10**12 + 1]
    res = sample_size("selection_rate", rates={"selection_rate": [0.5, 0.500001]}, tau=1e-6)
    assert res.n_per_group.min() > 1e12
    assert np.all(res.n_per_group_ceil >= res.n_per_group)
    assert np.all(res.n_per_group_ceil < res.n_per_group + 1)


def test_an_exact_plan_collects_at_least_two_expected_rows_per_group():
    """A gap so large that the smallest allowed audit already has power 0.999: the plan is
    that smallest total, ceil(2 / p_min) = ceil(2 / 0.03) = 67 (n p_g >= 2 in every group),
    not one more, and its power is the exact power at the rows collected there."""
    res = sample_size(
        "selection_rate", rates={"selection_rate": [0.98, 0.02]}, tau=0.96, allocation=0.03
    )
    smallest = math.ceil(2 / 0.03)
    sizes = np.ceil(smallest * np.array([0.03, 0.97]) * (1 - 1e-12)).astype(int)
    assert smallest == 67 and sizes.tolist() == [3, 65]
    pw = cp.exact_power((sizes[1], sizes[0]), (1.0, 1.0), (0.02, 0.98), 0.05, 0)
    assert pw >= 0.8  # so the floor is what binds
    assert res.test == "exact" and res.n == smallest
    assert res.n_per_group_ceil.tolist() == sizes.tolist()
    assert res.achieved_power == pytest.approx(pw, rel=1e-12)


def _curve(values, default):
    """A power function of the total (ignoring the quadrature's bins) from a dict."""
    return lambda total, bins=None: values.get(total, default)


def test_window_check_reads_totals_up_to_n_plus_max_20_or_10_percent():
    """The points checked above n are linspace(n + 1, n + width, 10) truncated, width =
    max(20, ceil(0.1 n)): a dip at exactly n + width is seen, one beyond it is not."""
    from fastfair.planning.inference import _window_failure

    # n = 100: width 20, the last point checked is 120
    assert _window_failure(_curve({120: 0.79}, 0.805), 100, 0.8) == 120
    assert _window_failure(_curve({121: 0.79}, 0.805), 100, 0.8) is None
    # n = 201: width ceil(20.1) = 21, the last point is 222 (points 202, 204, ..., 219, 222)
    assert _window_failure(_curve({222: 0.79}, 0.805), 201, 0.8) == 222
    assert _window_failure(_curve({221: 0.79}, 0.805), 201, 0.8) is None  # not a point
    assert _window_failure(_curve({219: 0.79}, 0.805), 201, 0.8) == 219


def test_window_check_stops_only_above_target_plus_001_and_returns_the_last_dip():
    """Documented: the check stops once a point exceeds the target by 0.01 (before any dip);
    a power equal to the target passes; the plan moves above the last failing point."""
    from fastfair.planning.inference import _window_failure

    # n = 100: points 101, 103, 105, 107, 109, 111, 113, 115, 117, 120
    assert _window_failure(_curve({101: 0.805, 103: 0.79}, 0.805), 100, 0.8) == 103
    assert _window_failure(_curve({101: 0.82, 103: 0.79}, 0.805), 100, 0.8) is None
    assert _window_failure(_curve({103: 0.79, 111: 0.7999}, 0.805), 100, 0.8) == 111
    assert _window_failure(_curve({}, 0.8), 100, 0.8) is None  # at the target: passes
    dips = {101: 0.79, 103: 0.82, 117: 0.79}  # a high point after a dip does not stop it
    assert _window_failure(_curve(dips, 0.805), 100, 0.8) == 117


def test_exact_search_moves_above_a_dip_in_the_window():
    """A power rising through the target at 80 with a dip at 81: the plan is 82, the
    smallest total above the dip from which the window holds; with no dip it is 80."""
    from fastfair.planning.inference import _exact_total

    rising = {n: 0.8 + 0.004 * (n - 80) for n in range(40, 200)}
    assert _exact_total(_curve(rising, 1.0), 70.0, 10, 0.8) == 80
    assert _exact_total(_curve({**rising, 81: 0.79}, 1.0), 70.0, 10, 0.8) == 82
    # dips at 81 and 93, both points of 80's window: the plan moves above the last one
    dips = {**rising, 81: 0.79, 93: 0.79}
    assert _exact_total(_curve(dips, 1.0), 70.0, 10, 0.8) == 94


def test_exact_search_stops_at_the_smallest_total_when_it_already_passes():
    from fastfair.planning.inference import _exact_total

    assert _exact_total(_curve({}, 0.9), 30.0, 12, 0.8) == 12
    passing_from_13 = {12: 0.5}
    assert _exact_total(_curve(passing_from_13, 0.9), 30.0, 12, 0.8) == 13


def test_denominator_windows_up_to_the_bin_count_are_summed_exactly():
    """With more bins than FULL_WINDOW values a window of 40 values is summed node by node."""
    lo, hi, _ = cp.binomial_window(50, 0.3)
    assert hi - lo + 1 == 40
    nodes, weights = cp.denominator_nodes(50, 0.3, bins=40)
    np.testing.assert_array_equal(nodes, np.arange(lo, hi + 1))
    pmf = stats.binom.pmf(np.arange(lo, hi + 1), 50, 0.3)
    np.testing.assert_allclose(weights, pmf / pmf.sum(), rtol=1e-9)


@pytest.mark.parametrize(("n", "d"), [(200, 0.3), (500, 0.5), (333, 0.17)])
def test_binned_denominators_keep_the_binomial_mean(n, d):
    """Each bin sits at its mean rounded to the nearest integer, so the nodes' mean is the
    binomial's n d within a fraction of a row (truncating the means would lose ~0.5)."""
    nodes, weights = cp.denominator_nodes(n, d)
    assert nodes.size == cp.BINS and weights.sum() == pytest.approx(1.0)
    assert abs(np.dot(weights, nodes) - n * d) < 0.25


def test_two_sided_pvalues_are_the_mass_at_least_as_far_from_the_mean_by_brute_force():
    """_two_sided_pvalues (the exact conditional test's two-sided rule on every row of the
    power lattice) against a plain sum over each row: P0(|X - mu| >= |x - mu|), rows whose
    mean is an integer (the mirror point lies on the lattice: counted, as an equal
    distance), half-integers and others, windows starting below 0 and ending past the
    support (zero mass there)."""
    rows = [(12, 0.5, -3), (13, 0.5, 1), (20, 0.37, 2), (9, 0.21, -1), (30, 0.8, 18)]
    ncol = 17
    pmf = np.zeros((len(rows), ncol))
    mu = np.zeros(len(rows))
    start = np.array([r[2] for r in rows], dtype=np.int64)
    x = start[:, None] + np.arange(ncol)[None, :]
    for i, (n, p, _) in enumerate(rows):
        pmf[i] = stats.binom.pmf(x[i], n, p)
        mu[i] = n * p
    got = cp._two_sided_pvalues(pmf, x, mu, start)
    dist = np.abs(x - mu[:, None])
    want = np.array([[pmf[i][dist[i] >= dist[i, j] - 1e-12].sum() for j in range(ncol)]
                     for i in range(len(rows))])  # fmt: skip
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def test_binomial_window_holds_all_but_1e_8_of_the_mass_and_its_degenerate_cases():
    """The window of Binomial(n, p) against scipy: the mass outside it is below 1e-8 (both
    tails, windows clipped at 0 and at n included) and the pmf on it is scipy's; n = 0,
    p = 0 and p = 1 are the one outcome 0, 0 and n. (WIDTH's "~1e-10" is the normal tail at
    6.5 sd; a skewed binomial's is heavier, 7e-9 at n = 400, p = 0.011: negligible in a
    power, so the bound here is 1e-8.)"""
    for n, p in ((1, 0.5), (7, 0.02), (7, 0.98), (60, 0.3), (400, 0.011), (3000, 0.5)):
        lo, hi, pmf = cp.binomial_window(n, p)
        assert 0 <= lo <= hi <= n
        np.testing.assert_allclose(pmf, stats.binom.pmf(np.arange(lo, hi + 1), n, p),
                                   rtol=1e-12)  # fmt: skip
        outside = stats.binom.cdf(lo - 1, n, p) + stats.binom.sf(hi, n, p)
        assert outside < 1e-8, (n, p, outside)  # skewed tails: 7e-9 at n = 400, p = 0.011
    for (n, p), v in (((0, 0.4), 0), ((9, 0.0), 0), ((9, 1.0), 9)):
        lo, hi, pmf = cp.binomial_window(n, p)
        assert (lo, hi, pmf.tolist()) == (v, v, [1.0])


def test_denominator_windows_of_exactly_full_window_values_are_summed_and_one_more_binned():
    """A window of FULL_WINDOW (30) values is summed value by value; one of 31 is cut into
    BINS equal-mass bins (found by scanning n at d = 0.5)."""
    sizes = {}
    for n in range(2, 400):
        lo, hi, _ = cp.binomial_window(n, 0.5)
        sizes.setdefault(hi - lo + 1, n)
    for size, binned in ((cp.FULL_WINDOW, False), (cp.FULL_WINDOW + 1, True)):
        n = sizes[size]
        nodes, weights = cp.denominator_nodes(n, 0.5)
        assert nodes.size == (cp.BINS if binned else size), (size, n)
        assert weights.sum() == pytest.approx(1.0, rel=1e-12)
