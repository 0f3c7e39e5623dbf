"""Tests of permutation_test against independent computations.

The reference statistic and the brute-force enumeration below are written from the
formulas in METHODS.md 1.2-1.3, without the library's masks or kernels.
"""

import itertools
import math
import zlib

import numpy as np
import pytest
from scipy import stats

import fastfair
from fastfair import _counts
from fastfair.permutation import EXACT_NEGLECTED_MASS, ExactInfeasibleError

# --------------------------------------------------------------------------------------
# Independent reference implementation
# --------------------------------------------------------------------------------------

RATES = {  # metric: (numerator rows, denominator rows) as functions of y, yhat
    "tpr": (lambda y, p: (y == 1) & (p == 1), lambda y, p: y == 1),
    "fnr": (lambda y, p: (y == 1) & (p == 0), lambda y, p: y == 1),
    "fpr": (lambda y, p: (y == 0) & (p == 1), lambda y, p: y == 0),
    "tnr": (lambda y, p: (y == 0) & (p == 0), lambda y, p: y == 0),
    "ppv": (lambda y, p: (y == 1) & (p == 1), lambda y, p: p == 1),
    "fdr": (lambda y, p: (y == 0) & (p == 1), lambda y, p: p == 1),
    "npv": (lambda y, p: (y == 0) & (p == 0), lambda y, p: p == 0),
    "for": (lambda y, p: (y == 1) & (p == 0), lambda y, p: p == 0),
    "selection_rate": (lambda y, p: p == 1, lambda y, p: np.ones_like(y, bool)),
    "accuracy": (lambda y, p: y == p, lambda y, p: np.ones_like(y, bool)),
    "error_rate": (lambda y, p: y != p, lambda y, p: np.ones_like(y, bool)),
}


def ref_rate_stat(y, p, g, metric, studentize=True, pooled=True, w=None):
    """Studentized difference (group 1 - group 0) with the documented degenerate rules."""
    w = np.ones(len(y)) if w is None else w
    num_f, den_f = RATES[metric]
    num_rows, den_rows = num_f(y, p), den_f(y, p)
    out = {}
    for k in (1, 0):
        d = den_rows & (g == k)
        out[k] = (w[num_rows & d].sum(), w[d].sum(), (w[d] ** 2).sum())
    (na, da, sa), (nb, db, sb) = out[1], out[0]
    if da <= 0 or db <= 0:
        return 0.0
    ma, mb = na / da, nb / db
    diff = ma - mb
    if not studentize:
        return diff
    if diff == 0:
        return 0.0
    ia, ib = sa / da**2, sb / db**2
    if pooled:
        pp = (na + nb) / (da + db)
        var = pp * (1 - pp) * (ia + ib)
    else:
        var = ma * (1 - ma) * ia + mb * (1 - mb) * ib
    if var <= 0:
        ea, eb = 1 / ia, 1 / ib
        ra, rb = (ma * ea + 0.5) / (ea + 1), (mb * eb + 0.5) / (eb + 1)
        var = ra * (1 - ra) / (ea + 1) + rb * (1 - rb) / (eb + 1)
    return diff / math.sqrt(var)


def ref_stat(y, p, g, metric, studentize=True, pooled=True):
    if metric == "equalized_odds":
        return sum(ref_rate_stat(y, p, g, m, studentize, pooled) ** 2 for m in ("tpr", "fpr"))
    return ref_rate_stat(y, p, g, metric, studentize, pooled)


def permutable_sets(y, p, metric, scheme):
    """Index sets whose rows exchange group labels."""
    if scheme == "full":
        return [np.arange(len(y))]
    if scheme == "within_outcome" or metric == "equalized_odds":
        return [np.flatnonzero(y == 0), np.flatnonzero(y == 1)]
    return [np.flatnonzero(RATES[metric][1](y, p))]


def brute_force_pvalue(y, p, g, metric, scheme, studentize, pooled, alternative):
    """Enumerate every group assignment reachable by the scheme (all equally likely)."""
    observed = ref_stat(y, p, g, metric, studentize, pooled)
    choices = []
    for rows in permutable_sets(y, p, metric, scheme):
        n_one = int(g[rows].sum())
        choices.append([(rows, c) for c in itertools.combinations(rows, n_one)])
    hits = total = 0
    for combo in itertools.product(*choices):
        gp = g.copy()
        for rows, ones in combo:
            gp[rows] = 0
            gp[list(ones)] = 1
        t = ref_stat(y, p, gp, metric, studentize, pooled)
        if alternative == "two-sided":
            hit = abs(t) >= abs(observed) - 1e-9
        elif alternative == "greater":
            hit = t >= observed - 1e-9
        else:
            hit = t <= observed + 1e-9
        hits += hit
        total += 1
    return hits / total, observed


def tiny_data(seed, n=13):
    rng = np.random.default_rng(seed)
    while True:
        y = rng.integers(0, 2, n)
        p = np.where(rng.random(n) < 0.7, y, 1 - y)
        g = rng.integers(0, 2, n)
        ok = all(
            RATES[m][1](y, p)[g == k].any() for m in ("tpr", "fpr", "ppv", "npv") for k in (0, 1)
        )
        if ok:
            return y, p, g


# --------------------------------------------------------------------------------------
# Exact p-values equal brute-force enumeration
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("metric", [*RATES, "equalized_odds"])
@pytest.mark.parametrize("scheme", ["conditional", "within_outcome", "full"])
def test_exact_equals_brute_force(metric, scheme):
    # crc32, not hash(): str hashes change with each process (PYTHONHASHSEED)
    y, p, g = tiny_data(zlib.crc32(f"{metric}-{scheme}".encode()) % 1000, n=12)
    for studentize, pooled, alternative in [
        (True, True, "two-sided"),
        (True, False, "greater"),
        (False, True, "less"),
    ]:
        if metric == "equalized_odds" and alternative != "two-sided":
            continue
        if metric == "equalized_odds" and scheme == "full":
            with pytest.raises(ExactInfeasibleError):
                fastfair.permutation_test(y, p, g, metric=metric, scheme=scheme, method="exact")
            return
        expected, t_obs = brute_force_pvalue(
            y, p, g, metric, scheme, studentize, pooled, alternative
        )
        res = fastfair.permutation_test(
            y,
            p,
            g,
            metric=metric,
            scheme=scheme,
            method="exact",
            studentize=studentize,
            variance="pooled" if pooled else "unpooled",
            alternative=alternative,
            reference=0,
        )
        assert res.method == "exact"
        assert res.statistic == pytest.approx(t_obs, rel=1e-12, abs=1e-12)
        assert res.pvalue == pytest.approx(expected, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("metric", ["equalized_odds", "tpr"])
def test_exact_mid_p_equals_brute_force_with_ties_counted_one_half(metric):
    """Lancaster's mid-p by enumeration: (#{|T| > |t|} + #{|T| = |t|} / 2) / #assignments.
    Equalized odds takes the separable path (two 1-D distributions and a tail sum), whose
    ties are found by their own search; tpr the general one."""
    for seed in range(3):
        y, p, g = tiny_data(zlib.crc32(f"mid-{metric}-{seed}".encode()) % 1000, n=12)
        observed = ref_stat(y, p, g, metric)
        choices = [
            [(rows, c) for c in itertools.combinations(rows, int(g[rows].sum()))]
            for rows in permutable_sets(y, p, metric, "conditional")
        ]
        above = ties = total = 0
        for combo in itertools.product(*choices):
            gp = g.copy()
            for rows, ones in combo:
                gp[rows] = 0
                gp[list(ones)] = 1
            t = abs(ref_stat(y, p, gp, metric))
            ties += abs(t - abs(observed)) <= 1e-9
            above += t > abs(observed) + 1e-9
            total += 1
        assert ties > 0
        res = fastfair.permutation_test(y, p, g, metric=metric, mid_p=True, reference=0)
        assert res.method == "exact" and res.mid_p
        assert res.pvalue == pytest.approx((above + 0.5 * ties) / total, rel=1e-9, abs=1e-12)


def test_exact_null_distribution_sums_to_one_and_mid_p():
    y, p, g = tiny_data(5, n=14)
    res = fastfair.permutation_test(y, p, g, metric="tpr", return_null=True, reference=0)
    assert res.null_probabilities.sum() == pytest.approx(1.0, abs=1e-12)
    mid = fastfair.permutation_test(y, p, g, metric="tpr", mid_p=True, reference=0)
    ties = res.null_probabilities[np.isclose(np.abs(res.null_distribution), abs(res.statistic))]
    assert mid.pvalue == pytest.approx(res.pvalue - 0.5 * ties.sum(), abs=1e-12)


def test_weighted_statistic_matches_reference():
    rng = np.random.default_rng(3)
    n = 500
    y, p, g = rng.integers(0, 2, n), rng.integers(0, 2, n), rng.integers(0, 2, n)
    w = rng.gamma(2.0, size=n)
    for metric in ("tpr", "ppv", "accuracy"):
        for variance in ("pooled", "unpooled"):
            res = fastfair.permutation_test(
                y,
                p,
                g,
                metric=metric,
                sample_weight=w,
                variance=variance,
                n_permutations=10,
                random_state=0,
                reference=0,
            )
            expected = ref_rate_stat(y, p, g, metric, True, variance == "pooled", w)
            assert res.statistic == pytest.approx(expected, rel=1e-12)
            assert res.method == "monte_carlo" and res.weighted


# --------------------------------------------------------------------------------------
# Monte Carlo agrees with exact; sampled counts match row permutations
# --------------------------------------------------------------------------------------


def _mc_tolerance(p, b):
    return 4 * math.sqrt(max(p * (1 - p), 1e-4) / b) + 2 / b


@pytest.mark.parametrize(
    "metric,scheme",
    [
        ("fnr", "full"),
        ("ppv", "within_outcome"),
        ("accuracy", "conditional"),
        ("equalized_odds", "conditional"),
    ],
)
def test_monte_carlo_within_binomial_error_of_exact(metric, scheme):
    rng = np.random.default_rng(11)
    n = 300
    y = rng.random(n) < 0.4
    g = rng.integers(0, 2, n)
    p = np.where(y, rng.random(n) < 0.75 - 0.12 * g, rng.random(n) < 0.2)
    exact = fastfair.permutation_test(y, p, g, metric=metric, scheme=scheme, method="exact")
    b = 20000
    mc = fastfair.permutation_test(
        y,
        p,
        g,
        metric=metric,
        scheme=scheme,
        method="monte_carlo",
        n_permutations=b,
        random_state=1,
    )
    assert abs(mc.pvalue - exact.pvalue) < _mc_tolerance(exact.pvalue, b)
    count = round(mc.pvalue * (b + 1) - 1)  # permuted statistics as extreme as observed
    ci = stats.binomtest(count, b).proportion_ci(confidence_level=0.95, method="wilson")
    np.testing.assert_allclose(mc.pvalue_interval, (ci.low, ci.high), rtol=1e-10)


@pytest.mark.parametrize("scheme", ["full", "within_outcome", "conditional"])
def test_sampled_counts_match_row_permutations(scheme):
    """Hypergeometric cell-count draws have the distribution of row shuffles (chi-square)."""
    rng = np.random.default_rng(7)
    n = 120
    y = rng.integers(0, 2, n)
    p = np.where(rng.random(n) < 0.7, y, 1 - y)
    g = (rng.random(n) < 0.35).astype(int)
    b = 20000
    counts_null = fastfair.permutation_test(
        y,
        p,
        g,
        metric="ppv",
        scheme=scheme,
        studentize=False,
        method="monte_carlo",
        n_permutations=b,
        random_state=3,
        return_null=True,
        reference=0,
    ).null_distribution
    # Row shuffles with numpy, independently of the library.
    row_null = np.empty(b)
    sets = permutable_sets(y, p, "ppv", scheme)
    gp = g.copy()
    for i in range(b):
        for rows in sets:
            gp[rows] = rng.permutation(g[rows])
        row_null[i] = ref_stat(y, p, gp, "ppv", studentize=False)
    values = np.unique(np.round(np.concatenate([counts_null, row_null]), 10))
    a = np.array([np.sum(np.isclose(counts_null, v)) for v in values])
    r = np.array([np.sum(np.isclose(row_null, v)) for v in values])
    keep = (a + r) >= 10
    table = np.vstack([np.append(a[keep], a[~keep].sum()), np.append(r[keep], r[~keep].sum())])
    table = table[:, table.sum(axis=0) > 0]
    assert stats.chi2_contingency(table)[1] > 1e-3


def test_row_engine_unit_weights_matches_exact_distribution():
    """The weighted row engine with unit weights samples the exact permutation law."""
    rng = np.random.default_rng(8)
    n = 200
    y = rng.integers(0, 2, n)
    p = np.where(rng.random(n) < 0.7, y, 1 - y)
    g = rng.integers(0, 3, n)
    for scheme in ("full", "conditional"):
        exact = fastfair.permutation_test(
            y,
            p,
            g,
            metric="tpr",
            scheme=scheme,
            studentize=False,
            return_null=True,
            comparisons="all",
            method="monte_carlo",
            n_permutations=20000,
            random_state=2,
        )
        weighted = fastfair.permutation_test(
            y,
            p,
            g,
            metric="tpr",
            scheme=scheme,
            studentize=False,
            return_null=True,
            comparisons="all",
            sample_weight=np.ones(n),
            n_permutations=20000,
            random_state=2,
        )
        for c in range(3):
            res = stats.ks_2samp(exact.null_distribution[:, c], weighted.null_distribution[:, c])
            assert res.pvalue > 1e-3
        np.testing.assert_allclose(weighted.statistic, exact.statistic, rtol=1e-12)


# --------------------------------------------------------------------------------------
# Reproducibility across thread counts
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
def test_identical_for_any_thread_count(weighted):
    rng = np.random.default_rng(0)
    n = 5000
    y, p, g = rng.integers(0, 2, n), rng.integers(0, 2, n), rng.integers(0, 3, n)
    w = rng.random(n) if weighted else None
    runs = [
        fastfair.permutation_test(
            y,
            p,
            g,
            metric="fnr",
            scheme="full",
            method="monte_carlo",
            n_permutations=2001,
            sample_weight=w,
            random_state=42,
            n_jobs=n_jobs,
            adjust="maxT",
            return_null=True,
        )
        for n_jobs in (1, 2, 3)
    ]
    for other in runs[1:]:
        np.testing.assert_array_equal(runs[0].null_distribution, other.null_distribution)
        np.testing.assert_array_equal(runs[0].pvalue, other.pvalue)
        np.testing.assert_array_equal(runs[0].pvalue_adjusted, other.pvalue_adjusted)


def test_random_state_forms():
    rng = np.random.default_rng(1)
    y, p, g = rng.integers(0, 2, 400), rng.integers(0, 2, 400), rng.integers(0, 2, 400)
    kw = dict(metric="tpr", method="monte_carlo", n_permutations=500)
    a = fastfair.permutation_test(y, p, g, random_state=5, **kw).pvalue
    assert a == fastfair.permutation_test(y, p, g, random_state=5, **kw).pvalue
    b = fastfair.permutation_test(y, p, g, random_state=np.random.default_rng(5), **kw).pvalue
    assert 0 < b <= 1
    with pytest.raises(TypeError, match="random_state"):
        fastfair.permutation_test(y, p, g, random_state="seed", **kw)


def test_philox_known_answer():
    # Random123 known-answer vector for Philox4x32-10 with zero key and counter.
    words = _counts.philox_words(0, 0, 0, 4)
    assert [hex(x) for x in words] == ["0x6627e8d5", "0xe169c58d", "0xbc57ac4c", "0x9b00dbd8"]
    # Distinct permutation indices give unrelated streams.
    a, b = _counts.philox_words(7, 0, 0, 1000), _counts.philox_words(7, 0, 1, 1000)
    assert not np.array_equal(a, b)
    assert stats.kstest(a / 2**32, "uniform").pvalue > 1e-3


# --------------------------------------------------------------------------------------
# Level and the paper's Section 4.2 pitfall (quick versions of validation/type1_error.py)
# --------------------------------------------------------------------------------------


def _simulate_fnr_null(rng, n_a, n_b, prev_a, prev_b, tpr, tnr=0.9):
    """Cell counts (TN, FP, FN, TP) of two groups with equal FNR, different prevalence."""
    counts = []
    for n, prev in ((n_a, prev_a), (n_b, prev_b)):
        pos = rng.binomial(n, prev)
        tp = rng.binomial(pos, tpr)
        tn = rng.binomial(n - pos, tnr)
        counts.append([tn, n - pos - tn, pos - tp, tp])
    return np.array(counts)


def _rejection_rate(settings, n_sim, seed, **options):
    rng = np.random.default_rng(seed)
    rejected = 0
    for i in range(n_sim):
        counts = _simulate_fnr_null(rng, *settings)
        res = fastfair.permutation_test_from_counts(
            counts, metric="fnr", random_state=i, **options
        )
        rejected += res.pvalue <= 0.05
    return rejected / n_sim


@pytest.mark.parametrize("settings", [(200, 200, 0.8, 0.2, 0.9), (60, 3000, 0.6, 0.15, 0.7)])
def test_defaults_hold_the_level(settings):
    n_sim = 600
    rate = _rejection_rate(settings, n_sim, seed=1)
    assert rate <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / n_sim)


def test_pooled_full_permutation_holds_the_level():
    n_sim = 500
    rate = _rejection_rate(
        (200, 200, 0.8, 0.2, 0.9),
        n_sim,
        seed=2,
        scheme="full",
        method="monte_carlo",
        n_permutations=199,
    )
    assert rate <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / n_sim)


def test_unstudentized_full_permutation_over_rejects():
    """Paper Sec. 4.2: the raw difference under full permutation rejects about 0.12."""
    n_sim = 500
    rate = _rejection_rate(
        (200, 200, 0.8, 0.2, 0.9),
        n_sim,
        seed=3,
        scheme="full",
        studentize=False,
        method="monte_carlo",
        n_permutations=199,
    )
    se = math.sqrt(0.119 * 0.881 / n_sim)
    assert abs(rate - 0.119) < 3 * se
    assert rate > 0.05 + 3 * math.sqrt(0.05 * 0.95 / n_sim)


def test_power_against_a_real_difference():
    rng = np.random.default_rng(4)
    rejected = 0
    for _ in range(100):
        counts = []
        for n, fnr in ((400, 0.1), (400, 0.2)):
            tp = rng.binomial(n // 2, 1 - fnr)
            counts.append([n // 4, n // 4, n // 2 - tp, tp])
        rejected += fastfair.permutation_test_from_counts(counts, metric="fnr").pvalue <= 0.05
    assert rejected >= 70


# --------------------------------------------------------------------------------------
# Several groups
# --------------------------------------------------------------------------------------


def test_several_groups_pairwise_pvalues_and_adjustments():
    rng = np.random.default_rng(5)
    n = 3000
    g = rng.choice(["a", "b", "c", "d"], n)
    y = rng.random(n) < 0.4
    p = np.where(y, rng.random(n) < np.where(g == "d", 0.6, 0.75), rng.random(n) < 0.2)
    res = fastfair.permutation_test(y, p, g, metric="tpr", reference="a")
    assert res.comparisons == [("b", "a"), ("c", "a"), ("d", "a")]
    for c, (other, _) in enumerate(res.comparisons):
        keep = (g == other) | (g == "a")
        pair = fastfair.permutation_test(y[keep], p[keep], g[keep], metric="tpr", reference="a")
        assert res.pvalue[c] == pytest.approx(pair.pvalue, rel=1e-12)
    m = len(res.pvalue)
    order = np.argsort(res.pvalue)
    holm = np.maximum.accumulate((m - np.arange(m)) * res.pvalue[order]).clip(max=1)
    np.testing.assert_allclose(res.pvalue_adjusted[order], holm)
    maxt = fastfair.permutation_test(
        y, p, g, metric="tpr", reference="a", adjust="maxT", n_permutations=4999, random_state=0
    )
    assert maxt.pvalue_adjusted[2] < 0.01
    assert np.all(maxt.pvalue_adjusted[:2] > 0.05)  # b and c do not differ from a
    bonf = fastfair.permutation_test(y, p, g, metric="tpr", reference="a", adjust="bonferroni")
    np.testing.assert_allclose(bonf.pvalue_adjusted, np.minimum(1, 3 * bonf.pvalue))
    every = fastfair.permutation_test(y, p, g, metric="tpr", comparisons="all")
    assert len(every.comparisons) == 6
    assert "adjusted (holm)" in repr(every)


def test_maxt_controls_familywise_error():
    rng = np.random.default_rng(6)
    n_sim, any_rejection = 300, 0
    for i in range(n_sim):
        g = rng.integers(0, 4, 800)
        y = rng.random(800) < 0.5
        p = np.where(y, rng.random(800) < 0.7, rng.random(800) < 0.2)
        res = fastfair.permutation_test(
            y, p, g, metric="tpr", adjust="maxT", n_permutations=199, random_state=i
        )
        any_rejection += np.any(res.pvalue_adjusted <= 0.05)
    assert any_rejection / n_sim <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / n_sim)


# --------------------------------------------------------------------------------------
# Asymptotic method, degenerate statistics
# --------------------------------------------------------------------------------------


def test_asymptotic_is_the_z_test():
    counts = [[400, 50, 40, 160], [420, 30, 70, 130]]
    res = fastfair.permutation_test_from_counts(
        counts, metric="tpr", method="asymptotic", variance="unpooled", reference=0
    )
    ma, mb = 130 / 200, 160 / 200
    z = (ma - mb) / math.sqrt(ma * (1 - ma) / 200 + mb * (1 - mb) / 200)
    assert res.statistic == pytest.approx(z)
    assert res.pvalue == pytest.approx(2 * stats.norm.sf(abs(z)))
    eo = fastfair.permutation_test_from_counts(
        counts, metric="equalized_odds", method="asymptotic"
    )
    assert eo.pvalue == pytest.approx(stats.chi2.sf(eo.statistic, 2))


def test_degenerate_rates_give_defined_results():
    # Both groups have TPR = 1: zero difference, zero variance.
    counts = [[50, 5, 0, 30], [60, 8, 0, 25]]
    for variance in ("pooled", "unpooled"):
        for method in ("exact", "monte_carlo", "asymptotic"):
            res = fastfair.permutation_test_from_counts(
                counts, metric="tpr", variance=variance, method=method, n_permutations=99
            )
            assert res.statistic == 0.0 and res.pvalue == 1.0
    # TPR 1 versus 0: the unpooled variance is zero; the shrunk variance makes it finite.
    counts = [[50, 5, 0, 30], [60, 8, 25, 0]]
    res = fastfair.permutation_test_from_counts(counts, metric="tpr", variance="unpooled")
    assert np.isfinite(res.statistic) and res.pvalue < 1e-10
    # Under full permutation some permuted groups have no positives: statistic 0, no NaN.
    counts = [[10, 1, 0, 1], [300, 20, 3, 2]]
    res = fastfair.permutation_test_from_counts(
        counts,
        metric="tpr",
        scheme="full",
        method="monte_carlo",
        n_permutations=999,
        return_null=True,
        random_state=0,
    )
    assert np.isfinite(res.null_distribution).all() and np.any(res.null_distribution == 0)


def _shrunk_unpooled_statistic(x_a, n_a, x_b, n_b):
    """Documented zero-variance rule, written out: rates (x + 1/2) / (n + 1), each the mean
    of n + 1 observations, so the variance is sum r (1 - r) / (n + 1)."""
    r_a, r_b = (x_a + 0.5) / (n_a + 1), (x_b + 0.5) / (n_b + 1)
    var = r_a * (1 - r_a) / (n_a + 1) + r_b * (1 - r_b) / (n_b + 1)
    return (x_a / n_a - x_b / n_b) / math.sqrt(var)


def test_zero_unpooled_variance_uses_the_shrunk_rates():
    # TPR 30/30 in group 0 against 0/25 in group 1: both plug-in variances are zero.
    counts = [[50, 5, 0, 30], [60, 8, 25, 0]]
    expected = _shrunk_unpooled_statistic(30, 30, 0, 25)
    for method in ("exact", "monte_carlo", "asymptotic"):
        res = fastfair.permutation_test_from_counts(
            counts, metric="tpr", variance="unpooled", method=method, reference=1
        )
        assert res.statistic == pytest.approx(expected, rel=1e-12), method
        flipped = fastfair.permutation_test_from_counts(
            counts, metric="tpr", variance="unpooled", method=method, reference=0
        )
        assert flipped.statistic == pytest.approx(-expected, rel=1e-12), method
    # Weighted rows: n is the Kish effective size (sum w)^2 / sum w^2 of the denominator.
    rng = np.random.default_rng(21)
    y = np.ones(40, dtype=int)
    g = np.repeat([0, 1], [18, 22])
    yhat = (g == 0).astype(int)  # TPR 1 in group 0, 0 in group 1
    w = rng.gamma(2.0, size=40)
    n_eff = [w[g == k].sum() ** 2 / (w[g == k] ** 2).sum() for k in (0, 1)]
    res = fastfair.permutation_test(
        y, yhat, g, metric="tpr", variance="unpooled", sample_weight=w, reference=1,
        n_permutations=10, random_state=0,
    )  # fmt: skip
    expected = _shrunk_unpooled_statistic(n_eff[0], n_eff[0], 0.0, n_eff[1])
    assert res.statistic == pytest.approx(expected, rel=1e-12)


def test_difference_is_group_minus_reference():
    """`difference` is the metric of a comparison's first group minus that of its second,
    each rate counted from the rows."""
    rng = np.random.default_rng(13)
    g = rng.choice(np.array(["u", "v", "w"]), 600, p=[0.2, 0.5, 0.3])
    y = rng.integers(0, 2, 600)
    yhat = np.where(rng.random(600) < np.select([g == "u", g == "v"], [0.9, 0.6], 0.3), y, 1 - y)

    def rate(metric, k):
        num, den = RATES[metric][0](y, yhat), RATES[metric][1](y, yhat)
        return num[den & (g == k)].sum() / (den & (g == k)).sum()

    for metric in ("tpr", "fpr", "ppv"):
        for kw in ({}, {"reference": "u"}, {"comparisons": "all"}):
            for method in ("exact", "asymptotic"):
                res = fastfair.permutation_test(y, yhat, g, metric=metric, method=method, **kw)
                expected = [rate(metric, a) - rate(metric, b) for a, b in res.comparisons]
                np.testing.assert_allclose(res.difference, expected, rtol=1e-12)
                # the statistic studentizes the same difference: same signs
                assert np.all(np.sign(res.statistic) == np.sign(expected))
    res = fastfair.permutation_test(y, yhat, g == "u", metric="tpr", reference=False)
    assert res.comparisons == [(True, False)]
    tpr_rest = yhat[(y == 1) & (g != "u")].mean()
    assert res.difference == pytest.approx(rate("tpr", "u") - tpr_rest, rel=1e-12)


# --------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------


def test_input_forms_agree():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(9)
    n = 300
    y, p = rng.integers(0, 2, n), rng.integers(0, 2, n)
    g = rng.choice(["x", "y"], n)
    base = fastfair.permutation_test(y, p, g, metric="fpr")
    as_lists = fastfair.permutation_test(y.tolist(), p.tolist(), g.tolist(), metric="fpr")
    frame = pd.DataFrame({"label": y.astype(bool), "pred": p, "grp": pd.Categorical(g)})
    as_frame = fastfair.permutation_test("label", "pred", "grp", data=frame, metric="fpr")
    as_series = fastfair.permutation_test(
        frame["label"], frame["pred"], frame["grp"], metric="fpr"
    )
    strings = fastfair.permutation_test(
        np.where(y == 1, "yes", "no"),
        np.where(p == 1, "yes", "no"),
        g,
        metric="fpr",
        pos_label="yes",
    )
    for other in (as_lists, as_frame, as_series, strings):
        assert other.pvalue == base.pvalue and other.statistic == base.statistic
    counts, groups = fastfair.confusion_counts(y, p, g)
    from_counts = fastfair.permutation_test_from_counts(counts, groups, metric="fpr")
    assert from_counts.pvalue == base.pvalue
    assert "PermutationTestResult(metric='fpr'" in repr(base)


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        (dict(y_true=[0, 1, 1], y_pred=[0, 1], group=[0, 1, 1]), ValueError, "same length"),
        (
            dict(y_true=[0, 1, np.nan, 1], y_pred=[0, 1, 1, 0], group=[0, 1, 0, 1]),
            ValueError,
            "y_true contains missing",
        ),
        (
            dict(y_true=[0, 1, 2, 1], y_pred=[0, 1, 1, 0], group=[0, 1, 0, 1]),
            ValueError,
            "y_true must be binary",
        ),
        (dict(y_true=[0, 1, 1, 1], y_pred=[0, 3, 1, 0], group=[0, 1, 0, 1]), ValueError, "y_pred"),
        (
            dict(y_true=[0, 1, 1, 1], y_pred=[0, 1, 1, 0], group=[0, 0, 0, 0]),
            ValueError,
            "at least 2 groups",
        ),
        (
            dict(y_true=[0, 1, 0, 1], y_pred=[0, 1, 1, 0], group=[0, 1, 0, 1], metric="xyz"),
            ValueError,
            "unknown metric",
        ),
        (
            dict(y_true=[0, 1, 0, 1], y_pred=[0, 1, 1, 0], group=[0, 1, 0, 1], reference=5),
            ValueError,
            "reference 5",
        ),
        (
            dict(y_true=[0, 1, 0, 1], y_pred=[0, 1, 1, 0], group=[0, 1, 0, 1], n_permutations=0),
            ValueError,
            "n_permutations",
        ),
        (
            dict(y_true=[0, 0, 0, 1], y_pred=[0, 1, 1, 0], group=[0, 1, 0, 1]),
            ValueError,
            "group 0 has no positives",
        ),
        (
            dict(y_true=[0, 1, 0, 1], y_pred=[0, 1, 1, 0], group=[0, 1, 0, 1], scheme="x"),
            ValueError,
            "scheme",
        ),
        (
            dict(
                y_true=[0, 1, 0, 1],
                y_pred=[0, 1, 1, 0],
                group=[0, 1, 0, 1],
                sample_weight=[1, -1, 1, 1],
            ),
            ValueError,
            "non-negative",
        ),
        (
            dict(
                y_true=[0, 1, 0, 1],
                y_pred=[0, 1, 1, 0],
                group=[0, 1, 0, 1],
                sample_weight=[1, 1, 1, 1],
                method="exact",
            ),
            ValueError,
            "unweighted",
        ),
        (
            dict(
                y_true=[0, 1, 0, 1],
                y_pred=[0, 1, 1, 0],
                group=[0, 1, 0, 1],
                studentize=False,
                method="asymptotic",
            ),
            ValueError,
            "studentized",
        ),
        (
            dict(
                y_true=[0, 1, 0, 1],
                y_pred=[0, 1, 1, 0],
                group=[0, 1, 0, 1],
                metric="equalized_odds",
                alternative="greater",
            ),
            ValueError,
            "two-sided",
        ),
        (
            dict(y_true=["a", "b", "a", "b"], y_pred=["a", "b", "b", "a"], group=[0, 1, 0, 1]),
            ValueError,
            "pos_label",
        ),
        (
            dict(y_true=[0, 1, 0, 1], y_pred=[0, 1, 1, 0], group=[0, 1, None, 1]),
            ValueError,
            "group contains missing",
        ),
        (
            dict(y_true=[0, 1, 0, 1], y_pred=[0, 1, 1, 0], group=[0, 1, 0, 1], n_jobs=0),
            ValueError,
            "n_jobs",
        ),
    ],
)
def test_bad_input(kwargs, error, match):
    kwargs = dict(kwargs)
    args = kwargs.pop("y_true"), kwargs.pop("y_pred"), kwargs.pop("group")
    with pytest.raises(error, match=match):
        fastfair.permutation_test(*args, **kwargs)


def test_bad_counts():
    with pytest.raises(ValueError, match="shape"):
        fastfair.permutation_test_from_counts([[1, 2, 3]])
    with pytest.raises(ValueError, match="non-negative"):
        fastfair.permutation_test_from_counts([[1, 2, 3, -4], [1, 2, 3, 4]])
    with pytest.raises(ValueError, match="empty"):
        fastfair.permutation_test_from_counts([[0, 0, 0, 0], [1, 2, 3, 4]])


def test_object_counts_are_exact_integers_and_huge_ones_are_named():
    """Counts as Python integers (object arrays: exact sums, lists with a value beyond 64
    bits) were all refused as "must be non-negative integers", which they are; a huge one
    now says it is beyond 64-bit arithmetic, and small ones give the int64 answer."""
    for counts in ([[10, 5, 3, 12], [8, 6, 4, 10]], [[10, 0, 3, 12], [8, 6, 0, 10]]):
        counts = np.array(counts)  # (a count of 0 is a non-negative integer too)
        expected = fastfair.permutation_test_from_counts(counts)
        got = fastfair.permutation_test_from_counts(counts.astype(object))
        assert (got.statistic, got.pvalue) == (expected.statistic, expected.pvalue)
    for huge in (2**70, 2**2000):  # float(2**2000) overflows
        with pytest.raises(ValueError, match=r"counts sum to more than 2\*\*62"):
            fastfair.permutation_test_from_counts([[10, 5, 3, huge], [8, 6, 4, 10]])
        with pytest.raises(ValueError, match=r"counts must be non-negative integers, got -"):
            fastfair.permutation_test_from_counts([[10, 5, 3, -huge], [8, 6, 4, 10]])
    for bad in ("x", True, 2.5, float("nan")):
        with pytest.raises(ValueError, match="counts must be non-negative integers, got"):
            table = np.array([[10, 5, 3, bad], [8, 6, 4, 10]], dtype=object)
            fastfair.permutation_test_from_counts(table)


def test_exact_infeasible_raises_and_auto_falls_back():
    counts = [[2_000_000, 400_000, 300_000, 1_300_000], [2_100_000, 380_000, 420_000, 1_100_000]]
    with pytest.raises(ExactInfeasibleError):
        fastfair.permutation_test_from_counts(counts, metric="tpr", scheme="full", method="exact")
    res = fastfair.permutation_test_from_counts(
        counts, metric="tpr", scheme="full", n_permutations=999, random_state=0
    )
    assert res.method == "monte_carlo"
    assert fastfair.permutation_test_from_counts(counts, metric="tpr").method == "exact"


def test_metric_statistics_kernel_matches_reference():
    w = np.array([[10.0, 3, 4, 9], [12, 5, 2, 11]])
    spec = fastfair.CONFUSION_METRICS["tpr"].spec(True, True)
    pair = np.array([[0, 1]], dtype=np.intp)
    t = _counts.metric_statistics(w.reshape(1, -1), w.reshape(1, -1), spec, pair)[0, 0]
    y = np.repeat([0, 0, 1, 1] * 2, w.ravel().astype(int))
    p = np.repeat([0, 1, 0, 1] * 2, w.ravel().astype(int))
    g = np.repeat([0] * 4 + [1] * 4, w.ravel().astype(int))
    assert t == pytest.approx(ref_rate_stat(y, p, 1 - g, "tpr"))


@pytest.mark.parametrize(
    "good,bad,draws", [(30, 50, 20), (30000, 70000, 40000), (5, 1000, 300), (0, 10, 5)]
)
def test_hypergeometric_window_matches_scipy(good, bad, draws):
    from fastfair._exact import _hypergeom_pmf, _hypergeom_window

    lo, hi = _hypergeom_window(good, bad, draws)
    expected = stats.hypergeom.pmf(np.arange(lo, hi + 1), good + bad, good, draws)
    np.testing.assert_allclose(_hypergeom_pmf(good, bad, draws, lo, hi), expected, rtol=1e-12)
    assert stats.hypergeom.cdf(lo - 1, good + bad, good, draws) < 1e-20
    assert stats.hypergeom.sf(hi, good + bad, good, draws) < 1e-20


def test_exact_pvalue_beyond_the_enumeration_window_stays_conservative():
    """FNR 0/200 against 150/200: the observed table lies outside the Hoeffding windows
    the exact enumeration keeps (they drop at most 1e-20 of the mass per side), so the
    p-value is that bound, never 0 and never below the true tail probability, which
    scipy's hypergeometric law gives (about 2.6e-66)."""
    n_a = n_b = 200
    fn_a, fn_b = 0, 150
    counts = [[50, 5, fn_a, n_a - fn_a], [60, 8, fn_b, n_b - fn_b]]
    res = fastfair.permutation_test_from_counts(counts, metric="fnr", method="exact")
    total = fn_a + fn_b
    x = np.arange(max(0, total - n_b), min(total, n_a) + 1)
    pmf = stats.hypergeom(n_a + n_b, total, n_a).pmf(x)
    p = total / (n_a + n_b)
    scale = math.sqrt(p * (1 - p) * (1 / n_a + 1 / n_b))
    t = (x / n_a - (total - x) / n_b) / scale
    t_obs = (fn_a / n_a - fn_b / n_b) / scale
    true_p = pmf[np.abs(t) >= abs(t_obs) * (1 - 1e-12)].sum()
    assert 0 < true_p < 1e-60
    assert true_p <= res.pvalue <= 2 * EXACT_NEGLECTED_MASS


def test_default_reference_is_the_largest_group():
    """Documented default: every group is compared with the group with the most rows."""
    rng = np.random.default_rng(12)
    g = np.repeat(["a", "b", "c"], [150, 400, 250])
    rng.shuffle(g)
    y = rng.integers(0, 2, g.size)
    p = rng.integers(0, 2, g.size)
    s = rng.normal(size=g.size)
    expected = [("a", "b"), ("c", "b")]
    assert fastfair.permutation_test(y, p, g, metric="tpr").comparisons == expected
    assert fastfair.auc_test(y, s, g, method="delong").comparisons == expected
    assert fastfair.mean_difference_test(s, g, method="asymptotic").comparisons == expected


def test_repr_of_exact_pvalues_with_max_t():
    """Three groups tested exactly with max-T: one n_permutations (the joint draws) for every
    comparison. The repr used to index it per comparison and raised IndexError."""
    rng = np.random.default_rng(0)
    group, y_true, y_pred = rng.integers(0, 3, 900), rng.random(900) < 0.4, rng.random(900) < 0.5
    res = fastfair.permutation_test(
        y_true, y_pred, group, adjust="maxT", n_permutations=49, random_state=1
    )
    assert res.method == "exact" and res.n_permutations == 49
    lines = repr(res).splitlines()
    assert lines[-2].split()[:3] == ["0", "-", "2"] and lines[-1].split()[:3] == ["1", "-", "2"]
    assert lines[-3].rstrip().endswith("adjusted (maxT)")
    assert float(lines[-1].split()[-1]) == pytest.approx(res.pvalue_adjusted[1], abs=1e-4)


def test_exact_enumeration_allows_a_product_of_windows_of_exactly_max_exact_points(
    monkeypatch,
):
    """Within outcome, accuracy permutes the negatives and the positives apart: group 0's
    true negatives (among 5 TN and 5 FP, 5 negatives in group 0) take 0..5 and its true
    positives (6 TP, 3 FN, 4 positives in group 0) 1..4: 6 x 4 = 24 joint points, counted
    by hand. With the limit set to 24 the product is enumerated (the p-value of the
    unlimited test); at 23 it is refused, naming the 24 points."""
    cells = [(0, 0, 0, 3), (0, 1, 0, 2), (1, 1, 0, 2), (1, 0, 0, 2)]  # (y, yhat, group, rows)
    cells += [(0, 0, 1, 2), (0, 1, 1, 3), (1, 1, 1, 4), (1, 0, 1, 1)]
    _check_exact_limit_is_inclusive(monkeypatch, cells, 24, metric="accuracy",
                                    scheme="within_outcome")  # fmt: skip


def _check_exact_limit_is_inclusive(monkeypatch, cells, points, **options):
    """With MAX_EXACT_POINTS = `points` the exact test on `cells` ((y, yhat, group, rows))
    gives the unlimited p-value; at `points` - 1 it is refused, naming the points."""
    import fastfair._exact

    y, yhat, g = (np.repeat([c[k] for c in cells], [c[3] for c in cells]) for k in range(3))

    def test():
        return fastfair.permutation_test(y, yhat, g, method="exact", reference=0, **options)

    unlimited = test().pvalue
    monkeypatch.setattr(fastfair._exact, "MAX_EXACT_POINTS", points)
    assert test().pvalue == unlimited
    monkeypatch.setattr(fastfair._exact, "MAX_EXACT_POINTS", points - 1)
    with pytest.raises(ExactInfeasibleError, match=f"{points} support points"):
        test()


def test_exact_enumeration_of_three_categories_allows_exactly_max_exact_points(monkeypatch):
    """Under the full scheme, TPR splits the rows into three categories (TP, FN, the
    negatives), 4 rows each; group 0 holds 6 of the 12 rows, so each category's count in
    it ranges over 0..4: a 5 x 5 grid of 25 points, counted by hand. With the limit set to
    25 the grid is enumerated (the p-value of the unlimited test); at 24 it is refused,
    naming the 25 points."""
    cells = [(1, 1, 0, 2), (1, 0, 0, 1), (0, 1, 0, 2), (0, 0, 0, 1)]  # (y, yhat, group, rows)
    cells += [(1, 1, 1, 2), (1, 0, 1, 3), (0, 0, 1, 1)]
    _check_exact_limit_is_inclusive(monkeypatch, cells, 25, metric="tpr", scheme="full")


def test_exact_enumeration_allows_exactly_max_exact_points_in_one_window():
    """Hoeffding window of Hypergeometric(N, N, N): half-width sqrt(N log(2e20) / 2) + 1
    around N / 2; the two N below give windows of exactly 2,000,000 and 2,000,001 points
    (counted here from the documented bound), the largest allowed and the first refused."""
    from fastfair._exact import MAX_EXACT_POINTS, _stratum_distribution

    def points(n):
        t = math.sqrt(n * math.log(2.0 / EXACT_NEGLECTED_MASS) / 2.0) + 1.0
        return min(n, math.ceil(n / 2 + t)) - max(0, math.floor(n / 2 - t)) + 1

    at, above = 42_785_262_807, 42_785_291_666
    assert (points(at), points(above)) == (MAX_EXACT_POINTS, MAX_EXACT_POINTS + 1)
    xs, probs = _stratum_distribution([at, at], at)
    assert probs.size == MAX_EXACT_POINTS and probs.sum() == pytest.approx(1.0, abs=1e-12)
    assert xs[0][int(np.argmax(probs))] == pytest.approx(at / 2, abs=1)
    with pytest.raises(ExactInfeasibleError, match="2e\\+06 support points"):
        _stratum_distribution([above, above], above)


_COUNTS_ENTRY_POINTS = {
    "permutation_test_from_counts": lambda c: fastfair.permutation_test_from_counts(c),
    "tolerance_test_from_counts": lambda c: fastfair.tolerance_test_from_counts(c, u_tol=0.1),
    "equivalence_test_from_counts": lambda c: fastfair.equivalence_test_from_counts(c, delta=0.1),
}


@pytest.mark.parametrize("name", sorted(_COUNTS_ENTRY_POINTS))
def test_every_counts_entry_point_refuses_tables_at_the_boundaries(name):
    """The documented errors at the edges of a counts table, for every test taking one: a
    single group (shape (1, 4)) and three cells are refused as a shape error naming the
    shape got, one negative cell among positive ones and an empty group as such; two groups
    of four non-negative cells are accepted."""
    run = _COUNTS_ENTRY_POINTS[name]
    for shape_bad, got in (([[10, 5, 3, 12]], r"\(1, 4\)"), ([[1, 2, 3], [4, 5, 6]], r"\(2, 3\)")):
        want = r"counts must have shape \(n_groups >= 2, 4\), got " + got
        with pytest.raises(ValueError, match=want):
            run(shape_bad)
    with pytest.raises(ValueError, match="counts must be non-negative integers"):
        run([[10, 5, 3, 12], [8, 6, -4, 10]])
    with pytest.raises(ValueError, match="group 1 is empty"):
        run([[10, 5, 3, 12], [0, 0, 0, 0]])
    assert np.isfinite(np.atleast_1d(run([[10, 5, 3, 12], [8, 6, 4, 10]]).pvalue)).all()


def test_equalized_odds_repr_reads_back_each_component_of_each_comparison():
    """The repr of an equalized odds test of three groups, row by row: each group's TPR,
    FPR and their denominators counted from the rows; each comparison's TPR and FPR
    differences and intervals, the TPR interval that of the TPR test alone and the FPR
    interval that of the FPR test alone (the two differ, so one shown for the other fails);
    the statistic T_tpr^2 + T_fpr^2 of the two tests alone; the raw p-values and their Holm
    adjustment written out."""
    rng = np.random.default_rng(0)
    n = 600
    g = rng.choice(["a", "b", "c"], n)
    y = rng.random(n) < 0.5
    p = np.where(y, rng.random(n) < np.where(g == "a", 0.6, 0.8), rng.random(n) < 0.2)
    res = fastfair.permutation_test(y, p, g, metric="equalized_odds", n_permutations=199,
                                    random_state=0)  # fmt: skip
    alone = {m: fastfair.permutation_test(y, p, g, metric=m, n_permutations=199, random_state=0)
             for m in ("tpr", "fpr")}  # fmt: skip
    lines = repr(res).splitlines()
    groups = {cells[0]: cells[1:] for cells in (line.split() for line in lines[2:5])}
    for k in "abc":
        pos, neg = y & (g == k), ~y & (g == k)
        tpr, fpr = (p & pos).sum() / pos.sum(), (p & neg).sum() / neg.sum()
        assert groups[k] == [f"{tpr:.4f}", f"{fpr:.4f}", str(pos.sum()), str(neg.sum())]
    pv = np.atleast_1d(res.pvalue)
    order, running, holm = np.argsort(pv, kind="stable"), 0.0, np.empty(len(pv))
    for rank, i in enumerate(order):
        running = max(running, (len(pv) - rank) * pv[i])
        holm[i] = min(1.0, running)
    rows = [line.split("  ") for line in lines[6:]]
    rows = [[c.strip() for c in r if c.strip()] for r in rows]
    assert [r[0] for r in rows] == ["a - c", "b - c"]
    for c, r in enumerate(rows):
        for j, m in enumerate(("tpr", "fpr")):
            lo, hi = (np.atleast_1d(v)[c] for v in alone[m].confidence_interval)
            assert r[1 + 2 * j] == f"{np.atleast_1d(alone[m].difference)[c]:.4f}"
            assert r[2 + 2 * j] == f"[{lo:.4f}, {hi:.4f}]", (c, m)
        stat = sum(np.atleast_1d(alone[m].statistic)[c] ** 2 for m in ("tpr", "fpr"))
        assert r[5:] == [f"{stat:.4f}", f"{pv[c]:.4f}", f"{holm[c]:.4f}"]  # T_tpr^2 + T_fpr^2
    tpr_ci = np.asarray(alone["tpr"].confidence_interval)
    fpr_ci = np.asarray(alone["fpr"].confidence_interval)
    assert not np.allclose(tpr_ci, fpr_ci, atol=1e-3)


def test_weighted_two_group_monte_carlo_pvalue_is_the_permutation_law_of_the_statistic():
    """Weighted rows of only two groups (the row-permutation branch that keeps every row):
    the one-sided Monte-Carlo p-value agrees, within 4 Monte-Carlo standard errors, with the
    exact share of the 495 relabellings whose statistic (each computed by permutation_test
    on the relabelled rows) is at least the observed one. The null is skewed here (0.105
    above vs 0.071 below), so a reflected null is seen (written for round ten's
    r10-perm-subcodes: the group coded as the reference)."""
    rng = np.random.default_rng(5)
    n = 12
    g = np.array(["a"] * 4 + ["b"] * 8)
    y = np.ones(n, int)
    yhat = np.array([1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0])
    kw = dict(metric="tpr", sample_weight=rng.choice([1.0, 2.0, 3.0], n), reference="b")
    B = 20_000
    res = fastfair.permutation_test(y, yhat, g, method="monte_carlo", n_permutations=B,
                                    random_state=1, alternative="greater", **kw)  # fmt: skip
    law = []
    for idx in itertools.combinations(range(n), 4):
        relabelled = np.full(n, "b")
        relabelled[list(idx)] = "a"
        law.append(fastfair.permutation_test(y, yhat, relabelled, method="asymptotic",
                                             **kw).statistic)  # fmt: skip
    exact = np.mean(np.asarray(law) >= res.statistic - 1e-12)
    assert 0.09 < exact < 0.12
    assert abs(res.pvalue - exact) < 4 * np.sqrt(exact * (1 - exact) / B) + 1 / B


def test_metric_aliases_compute_the_rate_they_name():
    """Each alias of METRIC_ALIASES (any letter case) tests the rate it names: each group's
    value is that rate read off the (TN, FP, FN, TP) counts by hand, and the p-value is the
    canonical metric's."""
    counts = np.array([[50, 10, 8, 32], [30, 25, 12, 33]])
    tn, fp, fn, tp = counts.T.astype(float)
    by_hand = {
        "recall": tp / (tp + fn),
        "sensitivity": tp / (tp + fn),
        "specificity": tn / (tn + fp),
        "precision": tp / (tp + fp),
        "demographic_parity": (tp + fp) / counts.sum(axis=1),
        "dp": (tp + fp) / counts.sum(axis=1),
    }
    assert set(by_hand) == set(fastfair._metrics.METRIC_ALIASES)
    for alias, want in by_hand.items():
        for name in (alias, alias.upper()):
            res = fastfair.permutation_test_from_counts(counts, metric=name, method="asymptotic")
            np.testing.assert_allclose(res.group_values, want, rtol=1e-12)
            canonical = fastfair._metrics.METRIC_ALIASES[alias]
            assert res.metric == canonical
            ref = fastfair.permutation_test_from_counts(
                counts, metric=canonical, method="asymptotic"
            )
            assert res.pvalue == ref.pvalue


def test_random_state_errors_name_the_right_kind_of_mistake():
    """A boolean random_state is a TypeError (not an int seed), a negative int a ValueError
    naming it; 0 and a legacy RandomState are accepted, the same RandomState state giving
    the same p-value."""
    rng = np.random.default_rng(1)
    y, p, g = rng.integers(0, 2, 200), rng.integers(0, 2, 200), rng.integers(0, 2, 200)
    kw = dict(metric="tpr", method="monte_carlo", n_permutations=99)
    for flag in (True, False):
        with pytest.raises(TypeError, match="random_state must be None, an int"):
            fastfair.permutation_test(y, p, g, random_state=flag, **kw)
    with pytest.raises(ValueError, match="random_state must be non-negative, got -3"):
        fastfair.permutation_test(y, p, g, random_state=-3, **kw)
    assert 0 < fastfair.permutation_test(y, p, g, random_state=0, **kw).pvalue <= 1
    a = fastfair.permutation_test(y, p, g, random_state=np.random.RandomState(4), **kw)
    b = fastfair.permutation_test(y, p, g, random_state=np.random.RandomState(4), **kw)
    assert a.pvalue == b.pvalue


def test_an_empty_group_of_counts_is_named_by_its_label():
    """An all-zero row of counts is refused with the user's label of that group (not its
    position), for string and integer labels alike."""
    counts = [[10, 5, 3, 12], [0, 0, 0, 0], [8, 6, 4, 10]]
    with pytest.raises(ValueError, match=r"group 'b' is empty \(all counts are zero\)"):
        fastfair.permutation_test_from_counts(counts, groups=["a", "b", "c"])
    with pytest.raises(ValueError, match=r"group 7 is empty"):
        fastfair.permutation_test_from_counts(counts, groups=[3, 7, 9])


def test_sequential_test_with_max_t_decides_each_comparison_at_alpha():
    """A sequential Monte-Carlo test of three groups with adjust="maxT": each comparison's
    sequential test runs at alpha unadjusted (the max-T adjustment comes from 9999 joint
    permutations afterwards), so a comparison is rejected when its confidence sequence lies
    below alpha and retained when above it; each adjusted p-value is a max-T count
    (1 + k)/10000 or the raw p-value when that is larger."""
    rng = np.random.default_rng(2)
    g = rng.integers(0, 3, 600)
    y = rng.integers(0, 2, 600)
    p = (rng.random(600) < 0.4 + 0.1 * g).astype(int)
    res = fastfair.permutation_test(
        y, p, g, method="monte_carlo", n_permutations=None, adjust="maxT", random_state=1
    )
    lo, hi = res.pvalue_interval
    assert set(res.decision) == {"retain", "reject"}
    for c, decision in enumerate(res.decision):
        assert decision == ("reject" if hi[c] <= 0.05 else "retain" if lo[c] > 0.05 else "?")
        adj, raw = res.pvalue_adjusted[c], res.pvalue[c]
        assert adj >= raw
        assert adj == raw or abs(adj * 10000 - round(adj * 10000)) < 1e-6


def test_equalized_odds_repr_names_each_column_by_its_component():
    """The group table's and the comparison table's headers name the TPR columns tpr and
    the FPR columns fpr, in the order of the values under them: a group whose TPR (2/3)
    differs from its FPR (1/3) shows each under its own name."""
    y = np.array([1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0])
    p = np.array([1, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 0])
    g = np.array(["a"] * 6 + ["b"] * 6)
    res = fastfair.permutation_test(y, p, g, metric="equalized_odds", method="exact")
    lines = repr(res).splitlines()
    head = lines[1].split()
    table = {k: dict(zip(head[1:], line.split()[1:])) for k, line in zip("ab", lines[2:4])}
    for k in "ab":
        pos, neg = (y == 1) & (g == k), (y == 0) & (g == k)
        want = {"tpr": p[pos].mean(), "fpr": p[neg].mean()}
        assert table[k] == {"tpr": f"{want['tpr']:.4f}", "fpr": f"{want['fpr']:.4f}",
                            "den(tpr)": str(pos.sum()), "den(fpr)": str(neg.sum())}  # fmt: skip
    assert table["a"]["tpr"] != table["a"]["fpr"]
    header = lines[4]
    assert header.index("tpr difference") < header.index("fpr difference")
    cells = [c.strip() for c in lines[5].split("  ") if c.strip()]
    tpr_b_a = p[(y == 1) & (g == "b")].mean() - p[(y == 1) & (g == "a")].mean()
    fpr_b_a = p[(y == 0) & (g == "b")].mean() - p[(y == 0) & (g == "a")].mean()
    assert cells[0] == "b - a" and cells[1] == f"{tpr_b_a:.4f}" and cells[3] == f"{fpr_b_a:.4f}"


def test_repr_group_table_shows_weighted_denominators_as_sums_and_counts_as_integers():
    """The repr's group table, three groups, FPR: weighted, each group's weighted FPR and
    its denominator, the sum of its negatives' weights (fractional, shown as a number);
    unweighted, the count of its negatives as an integer."""
    rng = np.random.default_rng(36)
    g = rng.integers(0, 3, 600)
    y = rng.integers(0, 2, 600)
    p = (rng.random(600) < 0.4 + 0.1 * g).astype(int)
    w = rng.uniform(0.5, 2.0, 600)
    fmt = fastfair._format.format_value
    neg = [(g == k) & (y == 0) for k in range(3)]
    for weights in (w, None):
        res = fastfair.permutation_test(
            y, p, g, metric="fpr", sample_weight=weights, n_permutations=19, random_state=1
        )
        lines = repr(res).splitlines()
        start = next(i for i, ln in enumerate(lines) if ln.split()[:1] == ["group"])
        assert lines[start].split() == ["group", "fpr", "denominator"]
        for k in range(3):
            if weights is None:
                want = [fmt(p[neg[k]].mean()), str(int(neg[k].sum()))]
            else:
                want = [fmt(np.average(p[neg[k]], weights=w[neg[k]])), fmt(w[neg[k]].sum())]
            assert lines[start + 1 + k].split() == [str(k), *want]


def test_counts_and_their_group_labels_are_refused_with_the_rule_they_break():
    """Each malformed counts table or labels list is refused with the rule it breaks: the
    shape (n_groups >= 2, 4) with the shape given, one label per row with the shape given,
    distinct labels."""
    counts = [[10, 5, 3, 12], [8, 6, 4, 10]]
    cases = [
        (
            dict(counts=[[1, 2, 3, 4]]),
            r"counts must have shape \(n_groups >= 2, 4\), got \(1, 4\)",
        ),
        (dict(counts=[[1, 2, 3], [1, 2, 3]]), r"shape \(n_groups >= 2, 4\), got \(2, 3\)"),
        (dict(counts=counts, groups=["a"]), r"groups must have 2 labels, got shape \(1,\)"),
        (
            dict(counts=counts, groups=[["a", "b"]]),
            r"groups must have 2 labels, got shape \(1, 2\)",
        ),
        (dict(counts=counts, groups=["a", "a"]), r"groups must be distinct labels"),
    ]
    for kwargs, match in cases:
        with pytest.raises(ValueError, match=match):
            fastfair.permutation_test_from_counts(**kwargs)
    res = fastfair.permutation_test_from_counts(counts, groups=["b", "a"], method="asymptotic")
    assert res.groups.tolist() == ["b", "a"]


# Three groups: the two large ones cannot be enumerated exactly (method "auto" falls back to
# Monte Carlo), the small one against the reference can.
_MIXED = [[2_000_000, 400_000, 300_000, 1_300_000], [2_100_000, 380_000, 420_000, 1_100_000],
          [30, 6, 5, 20]]  # fmt: skip


def test_mixed_exact_and_monte_carlo_comparisons_report_each_ones_draws_and_null():
    """method "auto" with one comparison beyond exact enumeration: that one is Monte Carlo,
    the other exact (the same p-value as the exact test of its two groups alone). A fixed
    B: n_permutations B, the null holds the Monte-Carlo comparison's B statistics and its
    p-value is (1 + #{|T_b| >= |T|}) / (1 + B) from them. Sequential: n_permutations is
    the draws of the Monte-Carlo comparison and 0 for the exact one. mid_p asked for: a
    warning, and the result says mid_p=False."""
    kw = dict(metric="tpr", scheme="full", random_state=0, reference=1)
    alone = fastfair.permutation_test_from_counts([_MIXED[2], _MIXED[1]], method="exact", **kw)
    fixed = fastfair.permutation_test_from_counts(
        _MIXED, n_permutations=99, return_null=True, **kw
    )
    assert fixed.method == "mixed" and fixed.comparisons == [(0, 1), (2, 1)]
    assert fixed.n_permutations == 99 and fixed.null_distribution.shape == (99, 1)
    null = fixed.null_distribution[:, 0]
    count = np.sum(np.abs(null) >= abs(fixed.statistic[0]) * (1 - 1e-12))
    assert fixed.pvalue[0] == pytest.approx((1 + count) / 100, rel=1e-12)
    assert fixed.pvalue[1] == pytest.approx(alone.pvalue, rel=1e-12)
    seq = fastfair.permutation_test_from_counts(_MIXED, n_permutations=None, **kw)
    assert seq.method == "mixed" and seq.n_permutations[1] == 0 and seq.n_permutations[0] > 0
    assert seq.pvalue[1] == pytest.approx(alone.pvalue, rel=1e-12)
    n = seq.n_permutations[0]
    assert abs(seq.pvalue[0] * (n + 1) - round(seq.pvalue[0] * (n + 1))) < 1e-9
    with pytest.warns(UserWarning, match="mid_p applies to exact p-values only"):
        res = fastfair.permutation_test_from_counts(_MIXED, n_permutations=99, mid_p=True, **kw)
    assert res.mid_p is False and res.method == "mixed"
    assert res.pvalue[0] == fixed.pvalue[0]


def test_mid_p_dropped_for_a_monte_carlo_fallback_is_dropped_for_every_comparison():
    """mid_p=True where one comparison cannot be enumerated: the result says mid_p=False,
    so the comparison tested exactly has its ordinary exact p-value (that of the exact test
    of its two groups alone without mid-p, which differs from the mid-p one here), and the
    Holm adjustment is over ordinary p-values."""
    kw = dict(metric="tpr", scheme="full", random_state=0, reference=1)
    pair = [_MIXED[2], _MIXED[1]]
    ordinary = fastfair.permutation_test_from_counts(pair, method="exact", **kw).pvalue
    mid = fastfair.permutation_test_from_counts(pair, method="exact", mid_p=True, **kw).pvalue
    assert abs(ordinary - mid) > 1e-3
    with pytest.warns(UserWarning, match="so every comparison has an ordinary p-value"):
        res = fastfair.permutation_test_from_counts(_MIXED, n_permutations=99, mid_p=True, **kw)
    assert res.mid_p is False
    assert res.pvalue[1] == pytest.approx(ordinary, rel=1e-12)
    p = np.sort(res.pvalue)
    holm = np.minimum(1, np.maximum.accumulate(p * [2, 1]))
    np.testing.assert_allclose(np.sort(res.pvalue_adjusted), holm, rtol=1e-12)


def test_seed_sequence_and_its_int_give_the_same_stream_and_metric_names_must_be_strings():
    """random_state=SeedSequence(5) is the stream of random_state=5 (ints go through a
    SeedSequence): the same Monte-Carlo p-value; SeedSequence(6) another. A metric that is
    not a string is a TypeError naming its type."""
    rng = np.random.default_rng(1)
    y, p, g = rng.integers(0, 2, 300), rng.integers(0, 2, 300), rng.integers(0, 2, 300)
    kw = dict(metric="tpr", method="monte_carlo", n_permutations=999, return_null=True)
    a = fastfair.permutation_test(y, p, g, random_state=5, **kw)
    b = fastfair.permutation_test(y, p, g, random_state=np.random.SeedSequence(5), **kw)
    c = fastfair.permutation_test(y, p, g, random_state=np.random.SeedSequence(6), **kw)
    np.testing.assert_array_equal(a.null_distribution, b.null_distribution)
    assert not np.array_equal(a.null_distribution, c.null_distribution)
    with pytest.raises(TypeError, match="metric must be a string, got int"):
        fastfair.permutation_test_from_counts([[1, 2, 3, 4], [2, 3, 4, 5]], metric=3)


def test_exact_equalized_odds_null_is_the_enumerated_law_of_the_statistic():
    """Equalized odds tested exactly (its separable path), return_null: the support and
    probabilities are the law of T_tpr^2 + T_fpr^2 over every assignment of group labels
    within the positives and within the negatives, enumerated here: each support value's
    probability is the share of assignments giving it."""
    y, p, g = tiny_data(11, n=12)
    res = fastfair.permutation_test(
        y, p, g, metric="equalized_odds", return_null=True, reference=0
    )
    assert res.method == "exact"
    choices = [
        [(rows, c) for c in itertools.combinations(rows, int(g[rows].sum()))]
        for rows in permutable_sets(y, p, "equalized_odds", "conditional")
    ]
    stats_seen = []
    for combo in itertools.product(*choices):
        gp = g.copy()
        for rows, ones in combo:
            gp[rows] = 0
            gp[list(ones)] = 1
        stats_seen.append(ref_stat(y, p, gp, "equalized_odds"))
    stats_seen = np.array(stats_seen)
    support, probs = res.null_distribution, res.null_probabilities
    assert probs.sum() == pytest.approx(1.0, abs=1e-12)
    for value in np.unique(np.round(support, 9)):
        share = np.mean(np.abs(stats_seen - value) <= 1e-7)
        got = probs[np.abs(support - value) <= 1e-7].sum()
        assert got == pytest.approx(share, abs=1e-12)
    tail = probs[support >= res.statistic - 1e-9].sum()
    assert res.pvalue == pytest.approx(tail, abs=1e-12)


def test_repr_names_the_interval_by_the_confidence_level_asked_for():
    """confidence_level=0.9: the comparison table's header says 90% CI and its cells are
    the result's interval, narrower than the 95% one, around the difference (TPRs by
    hand)."""
    counts = [[50, 10, 8, 32], [30, 25, 12, 33]]
    fmt = fastfair._format.format_value
    res = {
        level: fastfair.permutation_test_from_counts(
            counts, confidence_level=level, method="asymptotic", reference=1
        )
        for level in (0.9, 0.95)
    }
    diff = 32 / 40 - 33 / 45
    lines = repr(res[0.9]).splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.split()[:1] == ["comparison"])
    assert lines[start].split()[:4] == ["comparison", "difference", "90%", "CI"]
    lo, hi = res[0.9].confidence_interval
    lo95, hi95 = res[0.95].confidence_interval
    assert lo95 < lo < diff < hi < hi95
    assert lines[start + 1].split()[3:6] == [fmt(diff), f"[{fmt(lo)},", f"{fmt(hi)}]"]
    assert "95% CI" in repr(res[0.95])


def test_all_pairs_are_earlier_minus_later_label_and_reference_only_for_reference():
    """comparisons="all": the pairs (a, b), (a, c), (b, c) in label order, each difference
    the earlier label's TPR minus the later's (counted by hand), the p-values adjusted over
    the three; the default reference is the largest group (of unequal sizes), and a
    reference with comparisons="all" is refused. Written for practice mutant
    pprac5-all-pairs-order (the pairs' orientation reversed)."""
    rng = np.random.default_rng(0)
    g = rng.choice(["a", "b", "c"], 600, p=[0.5, 0.3, 0.2])
    y = rng.random(600) < 0.5
    p = rng.random(600) < np.where(g == "a", 0.3, 0.6)
    tpr = {k: p[(g == k) & y].mean() for k in "abc"}
    every = fastfair.permutation_test(y, p, g, metric="tpr", comparisons="all",
                                      n_permutations=99, random_state=0)  # fmt: skip
    assert [tuple(c) for c in every.comparisons] == [("a", "b"), ("a", "c"), ("b", "c")]
    want = [tpr["a"] - tpr["b"], tpr["a"] - tpr["c"], tpr["b"] - tpr["c"]]
    np.testing.assert_allclose(every.difference, want, rtol=1e-12)
    frame = every.to_frame()
    assert frame[["group", "reference"]].values.tolist() == [["a", "b"], ["a", "c"], ["b", "c"]]
    np.testing.assert_allclose(frame["difference"], want, rtol=1e-12)
    ref = fastfair.permutation_test(y, p, g, metric="tpr", n_permutations=99, random_state=0)
    assert [tuple(c) for c in ref.comparisons] == [("b", "a"), ("c", "a")]
    np.testing.assert_allclose(ref.difference, [tpr["b"] - tpr["a"], tpr["c"] - tpr["a"]])
    with pytest.raises(ValueError, match="reference applies to comparisons='reference' only"):
        fastfair.permutation_test(y, p, g, metric="tpr", comparisons="all", reference="a")


def _most_rows_fewest_positives():
    """Three groups in which the group with the most rows ('a', 400) has the fewest
    positives (40), and 'b' the most positives (200 of 250): a default reference chosen by
    positives, by true positives or by the metric's denominator would be 'b', not 'a'."""
    rng = np.random.default_rng(3)
    sizes, positives = {"a": 400, "b": 250, "c": 150}, {"a": 40, "b": 200, "c": 75}
    g = np.repeat(np.array(list(sizes)), list(sizes.values()))
    y = np.concatenate([np.arange(n) < positives[k] for k, n in sizes.items()]).astype(int)
    p = (rng.random(g.size) < np.where(y == 1, 0.7, 0.3)).astype(int)
    return y, p, g


def _hand_counts(y, p, g, labels):
    """TN, FP, FN, TP of each group, counted row by row."""
    return np.array(
        [[np.sum((g == k) & (y == t) & (p == q)) for t in (0, 1) for q in (0, 1)] for k in labels]
    )


def test_from_counts_default_reference_is_the_group_with_most_rows_not_most_positives():
    """permutation_test_from_counts documents the reference of permutation_test: the group
    with most rows (TN + FP + FN + TP). 'a' has the most rows and the fewest positives; the
    counts entry point and the rows entry point both compare b and c with 'a', with the same
    differences (TPRs counted by hand) and the same p-values."""
    y, p, g = _most_rows_fewest_positives()
    labels = ["a", "b", "c"]
    counts = _hand_counts(y, p, g, labels)
    assert labels[int(np.argmax(counts.sum(axis=1)))] == "a"
    assert labels[int(np.argmax(counts[:, 2:].sum(axis=1)))] == "b"
    res = fastfair.permutation_test_from_counts(counts, labels, metric="tpr", method="asymptotic")
    assert res.comparisons == [("b", "a"), ("c", "a")]
    tpr = {k: p[(g == k) & (y == 1)].mean() for k in labels}
    np.testing.assert_allclose(res.difference, [tpr["b"] - tpr["a"], tpr["c"] - tpr["a"]])
    rows = fastfair.permutation_test(y, p, g, metric="tpr", method="asymptotic")
    assert rows.comparisons == res.comparisons
    np.testing.assert_allclose(rows.pvalue, res.pvalue, rtol=1e-12)


# --- practice round prac10 (session 17) ---


def _pooled_t(x, t, na, nb):
    p = t / (na + nb)
    se = np.sqrt(p * (1 - p) * (1 / na + 1 / nb))
    d = x / na - (t - x) / nb
    return np.where(se > 0, d / np.where(se > 0, se, 1.0), 0.0)


def test_exact_equalized_odds_null_is_the_convolution_of_two_hypergeometric_parts():
    counts = np.array([[30, 9, 4, 12], [41, 6, 9, 8]])  # TN, FP, FN, TP
    res = fastfair.permutation_test_from_counts(
        counts, metric="equalized_odds", method="exact", return_null=True
    )
    laws = []
    for num, others in ((3, 2), (1, 0)):  # TP among positives, FP among negatives
        na, nb = counts[0, num] + counts[0, others], counts[1, num] + counts[1, others]
        t = counts[0, num] + counts[1, num]
        x = np.arange(max(0, t - nb), min(t, na) + 1)
        laws.append(
            (
                _pooled_t(x, t, na, nb) ** 2,
                stats.hypergeom.pmf(x, na + nb, t, na),
                _pooled_t(counts[0, num], t, na, nb) ** 2,
            )
        )
    (v1, p1, o1), (v2, p2, o2) = laws
    support = np.add.outer(v1, v2).ravel()
    probs = np.outer(p1, p2).ravel()
    observed = o1 + o2
    assert np.isclose(res.statistic, observed)
    expected = probs[support >= observed - 1e-9].sum()
    assert abs(res.pvalue - expected) < 1e-9
    got = np.asarray(res.null_distribution)
    got_p = np.asarray(res.null_probabilities)
    assert got.shape == got_p.shape == support.shape
    assert np.isclose(got_p.sum(), 1.0)
    for v in np.unique(np.round(support, 9)):
        assert np.isclose(
            got_p[np.abs(got - v) < 1e-8].sum(), probs[np.abs(support - v) < 1e-8].sum()
        )


_METRIC_COUNTS = np.array([[50, 7, 11, 32], [40, 13, 6, 21]])  # TN, FP, FN, TP

_BY_HAND = {
    "tpr": lambda tn, fp, fn, tp: tp / (tp + fn),
    "recall": lambda tn, fp, fn, tp: tp / (tp + fn),
    "sensitivity": lambda tn, fp, fn, tp: tp / (tp + fn),
    "fnr": lambda tn, fp, fn, tp: fn / (tp + fn),
    "fpr": lambda tn, fp, fn, tp: fp / (fp + tn),
    "tnr": lambda tn, fp, fn, tp: tn / (fp + tn),
    "specificity": lambda tn, fp, fn, tp: tn / (fp + tn),
    "ppv": lambda tn, fp, fn, tp: tp / (tp + fp),
    "precision": lambda tn, fp, fn, tp: tp / (tp + fp),
    "fdr": lambda tn, fp, fn, tp: fp / (tp + fp),
    "npv": lambda tn, fp, fn, tp: tn / (tn + fn),
    "for": lambda tn, fp, fn, tp: fn / (tn + fn),
    "selection_rate": lambda tn, fp, fn, tp: (tp + fp) / (tn + fp + fn + tp),
    "demographic_parity": lambda tn, fp, fn, tp: (tp + fp) / (tn + fp + fn + tp),
    "dp": lambda tn, fp, fn, tp: (tp + fp) / (tn + fp + fn + tp),
    "accuracy": lambda tn, fp, fn, tp: (tp + tn) / (tn + fp + fn + tp),
    "error_rate": lambda tn, fp, fn, tp: (fp + fn) / (tn + fp + fn + tp),
}


@pytest.mark.parametrize("name", sorted(_BY_HAND))
def test_every_metric_and_alias_is_its_ratio_of_cells_in_any_case(name):
    want = [_BY_HAND[name](*row) for row in _METRIC_COUNTS]
    for spelling in (name, name.upper(), name.title()):
        res = fastfair.permutation_test_from_counts(
            _METRIC_COUNTS, metric=spelling, method="exact"
        )
        assert np.allclose(res.group_values, want)
        ((a, b),) = res.comparisons  # the reference is the larger group 0
        assert (a, b) == (1, 0) and res.difference == pytest.approx(want[a] - want[b])


def test_from_counts_with_every_option_at_its_default_equals_the_rows_on_every_field():
    """permutation_test_from_counts documents permutation_test's defaults (scheme,
    studentize, variance, method, alternative, mid_p, reference, comparisons, adjust,
    confidence_level): called with the counts alone (counted by hand) it returns, field by
    field, what permutation_test returns on the rows with no option, with three groups so
    that the adjusted p-values and the intervals of two comparisons are compared too."""
    y, p, g = _most_rows_fewest_positives()
    labels = ["a", "b", "c"]
    rows = fastfair.permutation_test(y, p, g).to_dict()
    counts = fastfair.permutation_test_from_counts(_hand_counts(y, p, g, labels), labels).to_dict()
    assert rows["pvalue_adjusted"] != rows["pvalue"] and rows["confidence_level"] == 0.95
    assert counts == rows


@pytest.mark.parametrize("metric", ["tpr", "selection_rate"])
def test_weighted_default_reference_is_the_group_with_the_most_rows(metric):
    """As documented: the reference is the group with the most rows, not the largest sum of
    weights (here the 100-row group outweighs the 200-row one), weighted or not."""
    rng = np.random.default_rng(2)
    group = np.repeat(["small", "big", "mid"], [100, 200, 150])
    y, pred = rng.integers(0, 2, 450), rng.integers(0, 2, 450)
    weight = np.select([group == "small", group == "big"], [5.0, 0.5], 1.0)
    options = dict(metric=metric, sample_weight=weight, n_permutations=99, random_state=0)
    res = fastfair.permutation_test(y, pred, group, **options)
    assert res.to_frame()["reference"].tolist() == ["big", "big"]
    assert sorted(res.to_frame()["group"]) == ["mid", "small"]
    ref = fastfair.permutation_test(y, pred, group, reference="big", **options)
    np.testing.assert_allclose(res.difference, ref.difference)


@pytest.mark.parametrize(
    ("metric", "scheme", "strata"),
    [
        ("tpr", "conditional", 1),
        ("selection_rate", "conditional", 1),
        ("selection_rate", "within_outcome", 2),
        ("fpr", "within_outcome", 2),
    ],
)
def test_exact_pvalue_adds_the_neglected_mass_of_each_stratum(metric, scheme, strata):
    """Perfectly separated predictions (group a all 1, b all 0, 120 rows each): the
    enumerated tail is below 1e-30, so the exact p-value is the documented bound on the mass
    left outside the windows, 2 x EXACT_NEGLECTED_MASS per stratum (rows permuted within
    each outcome: two strata)."""
    from fastfair.permutation import EXACT_NEGLECTED_MASS

    group = np.repeat(["a", "b"], 120)
    y, pred = np.tile([0, 1], 120), (group == "a").astype(int)
    res = fastfair.permutation_test(y, pred, group, metric=metric, method="exact", scheme=scheme)
    assert res.method == "exact"
    assert res.pvalue == pytest.approx(2 * strata * EXACT_NEGLECTED_MASS, rel=1e-9, abs=0)


@pytest.mark.parametrize("scheme", ["conditional", "within_outcome"])
def test_exact_equalized_odds_adds_the_neglected_mass_of_both_parts(scheme):
    """Equalized odds takes the separable path (the TPR and FPR parts enumerated apart, a
    tail sum over their sum of squares): with predictions that separate the groups
    perfectly the enumerated tail is below 1e-30, so the p-value is the bound on the mass
    left outside the two parts' windows, 2 x EXACT_NEGLECTED_MASS each: 4e-20 (abs
    tolerance 0: an additive mistake of 1e-20 would pass any approximate comparison)."""
    group = np.repeat(["a", "b"], 120)
    y, pred = np.tile([0, 1], 120), (group == "a").astype(int)
    res = fastfair.permutation_test(
        y, pred, group, metric="equalized_odds", method="exact", scheme=scheme
    )
    assert res.method == "exact"
    assert res.pvalue == pytest.approx(4 * EXACT_NEGLECTED_MASS, rel=1e-9, abs=0)


def test_repr_head_names_scheme_statistic_variance_and_only_a_fixed_number_of_permutations():
    """The head of PermutationTestResult's repr, each field from the options given: the
    scheme, "studentized" with its variance or "raw difference" without one, and the
    number of permutations only for a fixed-size Monte-Carlo test (not for the exact test
    nor for a sequential one, whose draws the notes give)."""
    rng = np.random.default_rng(0)
    n = 400
    g, y, p = rng.integers(0, 2, n), rng.random(n) < 0.5, rng.random(n) < 0.5
    mc = dict(method="monte_carlo", random_state=0)
    cases = [
        (dict(), "scheme='conditional', method='exact', statistic=studentized, "
                 "variance='pooled', alternative='two-sided')"),
        (dict(n_permutations=99, **mc), "scheme='conditional', method='monte_carlo', "
         "statistic=studentized, variance='pooled', alternative='two-sided', n_permutations=99)"),
        (dict(studentize=False, scheme="full", n_permutations=99, **mc),
         "scheme='full', method='monte_carlo', statistic=raw difference, "
         "alternative='two-sided', n_permutations=99)"),
        (dict(**mc), "scheme='conditional', method='monte_carlo', statistic=studentized, "
                     "variance='pooled', alternative='two-sided')"),
    ]  # fmt: skip
    for kw, tail in cases:
        res = fastfair.permutation_test(y, p, g, **kw)
        assert repr(res).splitlines()[0] == "PermutationTestResult(metric='tpr', " + tail, kw
