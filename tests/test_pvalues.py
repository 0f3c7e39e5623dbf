"""Unit tests of the p-value helpers in fastfair/_pvalues.py against independent computations.

Oracles: brute-force counting loops written from the definitions (Phipson & Smyth 2010 for
the Monte-Carlo add-one; Westfall & Young 1993 for single-step max-T; Holm 1979 as a
step-down loop), scipy.stats (Fisher's exact test, the normal and chi-square laws,
binomtest's Wilson interval) and the defining equation of the Wilson score interval.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import fastfair
import fastfair.auc
from fastfair import _pvalues as pv

ALTS = ("two-sided", "greater", "less")


def _extreme(t, obs, alternative):
    if alternative == "two-sided":
        return abs(t) >= abs(obs)
    if alternative == "greater":
        return t >= obs
    return t <= obs


# -------------------------------------------------------------------- Monte-Carlo p-values


def test_monte_carlo_pvalue_hand_example():
    null = np.array([1.0, 2.0, 3.0, -4.0])
    # two-sided: |T_b| >= 2 for 2, 3, -4; greater: 2, 3; less: 1, 2, -4
    assert pv.monte_carlo_pvalue(null, 2.0, "two-sided") == (4 / 5, 3)
    assert pv.monte_carlo_pvalue(null, 2.0, "greater") == (3 / 5, 2)
    assert pv.monte_carlo_pvalue(null, 2.0, "less") == (4 / 5, 3)
    # nothing as extreme: the smallest attainable value is 1 / (B + 1), never 0
    assert pv.monte_carlo_pvalue(null, 10.0, "two-sided") == (1 / 5, 0)


@pytest.mark.parametrize("alternative", ALTS)
def test_monte_carlo_pvalue_matches_brute_force(alternative):
    rng = np.random.default_rng(0)
    null = np.round(rng.normal(size=(199, 3)), 1)  # rounded: many ties with observed
    observed = np.array([0.5, -1.2, 2.0])
    p, count = pv.monte_carlo_pvalue(null, observed, alternative)
    for c in range(3):
        k = sum(_extreme(t, observed[c], alternative) for t in null[:, c])
        assert count[c] == k
        assert p[c] == (1 + k) / (1 + 199)


# -------------------------------------------------------------------- exact p-values


@pytest.mark.parametrize("table", [[[7, 2], [3, 8]], [[5, 5], [1, 9]], [[2, 6], [6, 2]]])
def test_exact_pvalue_is_fishers_test(table):
    """The exact permutation distribution of a 2x2 table is hypergeometric: Fisher."""
    (a, b), (c, d) = table
    dist = stats.hypergeom(a + b + c + d, a + c, a + b)
    x = np.arange(max(0, a + b - b - d), min(a + b, a + c) + 1)
    probs = dist.pmf(x)
    for alternative in ("greater", "less"):
        ref = stats.fisher_exact(table, alternative=alternative).pvalue
        got = pv.exact_pvalue(x, probs, a, alternative)
        assert got == pytest.approx(ref, rel=1e-12)
    # mid-p: P(X > a) + P(X = a) / 2 (Lancaster)
    mid = pv.exact_pvalue(x, probs, a, "greater", mid_p=True)
    assert mid == pytest.approx(dist.sf(a) + 0.5 * dist.pmf(a), rel=1e-12)
    # two-sided on the centred statistic: P(|X - EX| >= |a - EX|) by brute force
    mean = dist.mean()
    ref2 = sum(p for v, p in zip(x, probs) if abs(v - mean) >= abs(a - mean) - 1e-9)
    assert pv.exact_pvalue(x - mean, probs, a - mean) == pytest.approx(ref2, rel=1e-12)


# -------------------------------------------------------------------- normal and chi-square


def test_asymptotic_pvalue_against_scipy():
    z = np.array([-2.5, -0.3, 0.0, 1.7])
    norm = stats.norm
    np.testing.assert_allclose(pv.asymptotic_pvalue(z), 2 * norm.sf(np.abs(z)), rtol=1e-14)
    np.testing.assert_allclose(pv.asymptotic_pvalue(z, "greater"), norm.sf(z), rtol=1e-14)
    np.testing.assert_allclose(pv.asymptotic_pvalue(z, "less"), norm.cdf(z), rtol=1e-14)
    np.testing.assert_allclose(
        pv.asymptotic_pvalue(np.array([0.5, 6.0]), df=2), stats.chi2.sf([0.5, 6.0], 2)
    )


# -------------------------------------------------------------------- Wilson interval


@pytest.mark.parametrize("level", [0.8, 0.9, 0.95, 0.99])
@pytest.mark.parametrize("count,n", [(0, 50), (3, 50), (17, 40), (40, 40), (250, 9999)])
def test_wilson_interval_matches_scipy(count, n, level):
    ref = stats.binomtest(count, n).proportion_ci(confidence_level=level, method="wilson")
    lo, hi = pv.wilson_interval(count, n, level)
    assert lo == pytest.approx(ref.low, abs=1e-12)
    assert hi == pytest.approx(ref.high, abs=1e-12)


def test_wilson_endpoints_solve_the_score_equation():
    """Wilson (1927): the endpoints p solve |phat - p| = z sqrt(p (1 - p) / n)."""
    count, n = np.array([2, 11, 30]), 37
    lo, hi = pv.wilson_interval(count, n, 0.95)
    z = stats.norm.ppf(0.975)
    phat = count / n
    for p in (lo, hi):
        np.testing.assert_allclose(np.abs(phat - p), z * np.sqrt(p * (1 - p) / n), rtol=1e-10)


# -------------------------------------------------------------------- multiplicity


def _holm_loop(p):
    """Holm (1979) adjusted p-values from the definition: max over j <= i of (m - j) p_(j)."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


@pytest.mark.parametrize(
    "p",
    [[0.01, 0.04, 0.03], [0.2, 0.001, 0.02, 0.015], [0.5, 0.6], [0.01, 0.011, 0.5, 0.04, 0.3]],
)
def test_holm_and_bonferroni_against_their_definitions(p):
    np.testing.assert_allclose(pv.adjust_pvalues(p, "holm"), _holm_loop(p), rtol=1e-14)
    np.testing.assert_allclose(
        pv.adjust_pvalues(p, "bonferroni"), [min(1.0, len(p) * x) for x in p], rtol=1e-14
    )
    np.testing.assert_array_equal(pv.adjust_pvalues(p, "none"), p)


def test_holm_differs_from_bonferroni_where_it_should():
    # sorted 0.01, 0.03, 0.04: Holm 3*0.01, max(0.03, 2*0.03), max(0.06, 1*0.04)
    np.testing.assert_allclose(pv.adjust_pvalues([0.01, 0.04, 0.03], "holm"), [0.03, 0.06, 0.06])
    np.testing.assert_allclose(
        pv.adjust_pvalues([0.01, 0.04, 0.03], "bonferroni"), [0.03, 0.12, 0.09]
    )


def _maxt_loop(joint, observed, alternative):
    B, C = joint.shape
    out = []
    for c in range(C):
        k = 0
        for b in range(B):
            if alternative == "two-sided":
                k += max(abs(t) for t in joint[b]) >= abs(observed[c])
            elif alternative == "greater":
                k += max(joint[b]) >= observed[c]
            else:
                k += min(joint[b]) <= observed[c]
        out.append((1 + k) / (1 + B))
    return out


def test_maxt_hand_example():
    joint = np.array([[-3.0, 0.5], [1.0, -0.2], [0.1, 0.3]])
    # two-sided maxima of |T|: 3, 1, 0.3; |2| is reached once, |-1| twice
    np.testing.assert_allclose(pv.maxt_pvalues(joint, np.array([2.0, -1.0])), [2 / 4, 3 / 4])
    # 'less': minima -3, -0.2, 0.1; -1 is reached (<=) once
    np.testing.assert_allclose(
        pv.maxt_pvalues(joint, np.array([2.0, -1.0]), "less"), [4 / 4, 2 / 4]
    )


@pytest.mark.parametrize("alternative", ALTS)
def test_maxt_matches_brute_force(alternative):
    rng = np.random.default_rng(1)
    joint = np.round(rng.normal(size=(150, 4)), 1)
    observed = np.array([2.1, -2.3, 0.4, -0.1])
    np.testing.assert_allclose(
        pv.maxt_pvalues(joint, observed, alternative),
        _maxt_loop(joint, observed, alternative),
        rtol=1e-14,
    )


def test_benjamini_hochberg():
    np.testing.assert_allclose(
        pv.adjust_pvalues([0.01, 0.04, 0.03, 0.2], "bh"), [0.04, 0.04 * 4 / 3, 0.04 * 4 / 3, 0.2]
    )
    assert pv.adjust_pvalues([], "bh").size == 0
    rng = np.random.default_rng(3)
    p = rng.random(12) ** 3
    m = p.size
    loop = [
        min(1.0, min(m * p[j] / (np.sum(p <= p[j])) for j in range(m) if p[j] >= p[i]))
        for i in range(m)
    ]  # min over the p-values at least p_i of m p_(j) / rank
    np.testing.assert_allclose(pv.adjust_pvalues(p, "bh"), loop, rtol=1e-14)


def test_max_exceedance_pvalues_count_maxima_at_or_above_each_threshold():
    maxima = np.array([0.5, 2.0, 3.0, 1.0])
    np.testing.assert_array_equal(
        pv.max_exceedance_pvalues(maxima, [2.0, 0.1, 3.5]), [3 / 5, 5 / 5, 1 / 5]
    )
    null = np.array([[0.5, -2.0], [1.0, 0.2], [-3.0, 0.1]])
    np.testing.assert_array_equal(
        pv.maxt_pvalues(null, np.array([1.0, 2.5])),
        pv.max_exceedance_pvalues(
            [2.0, 1.0, 3.0], np.array([1.0, 2.5]) - 1e-12 * np.array([1.0, 2.5])
        ),
    )


def test_exact_pvalue_is_clipped_to_one_when_the_probabilities_sum_above_it():
    # 20 equal probabilities 1/20 sum to 1 + 2e-16 in floating point; the p-value of the
    # least extreme statistic is every probability: 1, not above it
    probabilities = np.full(20, 1 / 20)
    assert probabilities.sum() > 1.0
    for mid_p in (False, True):
        p = pv.exact_pvalue(np.arange(20.0), probabilities, 0.0, "greater", mid_p=mid_p)
        assert p <= 1.0
    assert pv.exact_pvalue(np.arange(20.0), probabilities, 0.0, "greater") == 1.0


def test_mid_p_counts_one_half_for_statistics_exactly_at_the_tie_tolerance():
    # observed 0 among permuted statistics of size up to 1/2: the tolerance is 1e-12 x 1/2
    # = 5e-13 exactly, so -5e-13 and 5e-13 are tied with 0 (the tail counts -5e-13 as
    # extreme as 0) and count one half: 0.8 - (0.2 + 0.2 + 0.2) / 2 = 0.5
    values, probabilities = np.array([-0.5, -5e-13, 0.0, 5e-13, 0.5]), np.full(5, 0.2)
    assert pv.exact_pvalue(values, probabilities, 0.0, "greater") == pytest.approx(0.8)
    mid = pv.exact_pvalue(values, probabilities, 0.0, "greater", mid_p=True)
    assert mid == pytest.approx(0.5, rel=1e-12)


def test_an_observed_zero_ties_with_rounding_residues_of_the_permuted_statistics():
    # observed 0: the tolerance is 1e-12 times the largest permuted size (1 here), so the
    # residue -5e-13 counts as a tie (as extreme), -0.5 does not
    null = np.array([1.0, -5e-13, -0.5])
    assert pv.monte_carlo_pvalue(null, 0.0, "greater") == (3 / 4, 2)
    assert pv.monte_carlo_pvalue(-null, 0.0, "less") == (3 / 4, 2)
    # permuted statistics all in units of 1e-13: the tolerance shrinks with them
    small = np.array([1e-13, -5e-26, -0.5e-13])
    assert pv.monte_carlo_pvalue(small, 0.0, "greater") == (3 / 4, 2)
    assert pv.monte_carlo_pvalue(small, 1e-13 - 2e-26, "greater") == (2 / 4, 1)


def test_family_adjusted_maxt_is_never_below_the_raw_pvalue():
    # a joint null drawn apart from the raw p-values can give max-T below them (few draws,
    # none extreme): the adjusted p-value is then the raw one
    raw = np.array([0.5, 0.02])
    joint = np.zeros((9, 2))
    adjusted = pv.family_adjusted(raw, "maxT", np.array([3.0, 3.0]), "two-sided", lambda: joint)
    np.testing.assert_array_equal(adjusted, [0.5, 0.1])
    assert pv.family_adjusted(np.array([0.3]), "maxT", np.array([3.0]), "two-sided", None) is None


def test_adjust_pvalues_names_only_the_methods_it_computes():
    # "maxT" needs the joint permutation statistics (family_adjusted), not p-values alone
    for method in ("maxT", "hochberg"):
        with pytest.raises(ValueError, match="'holm', 'bonferroni', 'bh', 'none'; got") as err:
            pv.adjust_pvalues([0.01, 0.2], method)
        assert "maxT'" not in str(err.value).split("got")[0]


def _adjusted_by_hand(p, adjust):
    """Holm (running max of (m - k) p_(k)), Bonferroni (m p) or none, capped at 1."""
    p = np.asarray(p, dtype=float)
    m = p.size
    if adjust == "none":
        return p
    if adjust == "bonferroni":
        return np.minimum(1.0, m * p)
    out, run_max = np.empty(m), 0.0
    for k, i in enumerate(np.argsort(p, kind="stable")):
        run_max = max(run_max, (m - k) * p[i])
        out[i] = min(1.0, run_max)
    return out


def _four_groups():
    rng = np.random.default_rng(36)
    n = 900
    g = rng.integers(0, 4, n)
    y = (rng.random(n) < 0.4).astype(int)
    pred = (rng.random(n) < np.array([0.5, 0.6, 0.55, 0.7])[g]).astype(int)
    s = rng.normal(size=n) + y * np.array([0.5, 1.0, 0.7, 0.9])[g]
    v = rng.normal(size=n) + 0.2 * g
    counts = np.array(
        [[((g == k) & (y == t) & (pred == q)).sum() for t in (0, 1) for q in (0, 1)]
         for k in range(4)]
    )  # fmt: skip
    return y, pred, s, v, g, counts


_FAMILY_TESTS = {
    "permutation_test_from_counts": lambda d, a: fastfair.permutation_test_from_counts(
        d[5], metric="tpr", adjust=a, reference=0, method="asymptotic"
    ),
    "auc_test": lambda d, a: fastfair.auc_test(
        d[0], d[2], d[4], method="delong", adjust=a, reference=0
    ),
    "auc_test_from_delong": lambda d, a: fastfair.auc.auc_test_from_delong(
        fastfair.auc.delong(d[0], d[2], d[4]), adjust=a, reference=0
    ),
    "mean_difference_test": lambda d, a: fastfair.mean_difference_test(
        d[3], d[4], method="asymptotic", adjust=a, reference=0
    ),
    "basic_bootstrap_test": lambda d, a: fastfair.basic_bootstrap_test(
        d[0], d[1], d[4], metric="tpr", n_bootstrap=199, random_state=1, adjust=a, reference=0
    ),
    "tolerance_test_from_counts": lambda d, a: fastfair.tolerance_test_from_counts(
        d[5], metric="tpr", u_tol=0.01, adjust=a, method="score", reference=0
    ),
    "equivalence_test_from_counts": lambda d, a: fastfair.equivalence_test_from_counts(
        d[5], metric="tpr", delta=0.2, adjust=a, method="score", reference=0
    ),
}


@pytest.mark.parametrize("adjust", ["holm", "bonferroni", "none"])
@pytest.mark.parametrize("name", sorted(_FAMILY_TESTS))
def test_every_family_result_adjusts_its_raw_pvalues_by_the_chosen_procedure(name, adjust):
    """Four groups, three comparisons with the first group: pvalue_adjusted of every test
    of the statistics core is `adjust` applied to its raw p-values, written out by hand
    (each procedure gives different values on them), and `adjust` is recorded; an
    equivalence verdict follows the adjusted p-value."""
    res = _FAMILY_TESTS[name](_four_groups(), adjust)
    raw = np.asarray(res.pvalue, dtype=float)
    assert raw.shape == (3,)
    want = _adjusted_by_hand(raw, adjust)
    for other in {"holm", "bonferroni", "none"} - {adjust}:
        assert not np.allclose(want, _adjusted_by_hand(raw, other), rtol=1e-6, atol=0)
    np.testing.assert_allclose(res.pvalue_adjusted, want, rtol=1e-12, atol=1e-300)
    assert res.adjust == adjust
    if name.startswith("equivalence"):
        np.testing.assert_array_equal(res.equivalent, want <= 0.05)


def test_asymptotic_pvalues_keep_their_far_tails():
    """Far-tail p-values are exactly computable (scipy's survival functions): at z = 9, 12
    or 30 and chi-square 200 they are 1e-19 to 1e-197, which 1 - cdf would round to 0.
    Compared at relative 1e-12, absolute 0; and through an API (counts with z = 9.13: a
    two-sided p-value of 6.9e-20, equalized odds' chi-square(2) one of 2.4e-27)."""
    norm = stats.norm
    z = np.array([-30.0, -12.0, -9.0, 9.0, 12.0, 30.0])
    for alternative, want in (("two-sided", 2 * norm.sf(np.abs(z))), ("greater", norm.sf(z)),
                              ("less", norm.cdf(z))):  # fmt: skip
        got = pv.asymptotic_pvalue(z, alternative)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
        assert (got > 0).all()
    q = np.array([80.0, 200.0])
    np.testing.assert_allclose(
        pv.asymptotic_pvalue(q, df=2), stats.chi2.sf(q, 2), rtol=1e-12, atol=0
    )
    counts = np.array([[900, 100, 300, 700], [800, 200, 500, 500]])
    for metric, alternative in (("tpr", "two-sided"), ("tpr", "greater"),
                                ("equalized_odds", "two-sided")):  # fmt: skip
        res = fastfair.permutation_test_from_counts(
            counts, metric=metric, method="asymptotic", alternative=alternative, reference=1
        )
        t = res.statistic
        want = (stats.chi2.sf(t, 2) if metric == "equalized_odds"
                else (2 if alternative == "two-sided" else 1) * norm.sf(abs(t)))  # fmt: skip
        assert 0 < want < 1e-18
        assert res.pvalue == pytest.approx(want, rel=1e-12, abs=0)
