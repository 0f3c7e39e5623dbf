"""Extreme values give answers or clear errors, never numbers that read as answers (#26).

Counts near the int64 limit, values whose squares overflow float64, groups too small for a
variance: each either computes in a form that does not overflow or raises a ValueError
that says what to do.
"""

import numpy as np
import pytest

import fastfair
import fastfair.stats
from fastfair.permutation import MAX_EXACT_POINTS, ExactInfeasibleError

# --------------------------------------------------------------------------------------
# Case 8: the exact test on counts of 2^58 per cell
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("metric", ["tpr", "selection_rate", "accuracy", "equalized_odds"])
def test_infeasible_exact_test_names_monte_carlo_before_allocating(metric):
    """The support (7e9 points for 2^58 per cell) is refused before it is allocated: it
    was a 55 GiB MemoryError."""
    counts = np.full((2, 4), 2**58, dtype=np.int64)
    with pytest.raises(ExactInfeasibleError, match=r"infeasible.*method='monte_carlo'"):
        fastfair.permutation_test_from_counts(counts, metric=metric, method="exact")
    res = fastfair.permutation_test_from_counts(counts, metric=metric, random_state=0)
    assert res.method == "monte_carlo" and 0 < res.pvalue <= 1  # auto falls back


def test_exact_test_just_inside_the_limit_still_runs():
    """The refusal is at the documented MAX_EXACT_POINTS, not below it: a window of about
    a million points (m = 2.5e10 per cell) is still enumerated."""
    counts = np.full((2, 4), 25_000_000_000 // 4, dtype=np.int64)
    counts[0, 3] += 2_000_000  # a TPR gap of 8e-5, 18 standard errors
    res = fastfair.permutation_test_from_counts(counts, metric="tpr", method="exact")
    assert res.method == "exact" and res.pvalue < 1e-12
    assert MAX_EXACT_POINTS == 2_000_000


@pytest.mark.parametrize("per_cell", [2_000, 2**40])
def test_infeasible_exact_model_comparison_names_permutation_before_allocating(per_cell):
    """compare_models_from_counts(method="exact") enumerated (m + 1)^2 swap tables
    whatever m: 2^40 rows per cell was a 16 TiB MemoryError, 2,000 rows per cell 16 million
    tables (1.9 GiB). It is refused at MAX_EXACT_POINTS, naming the methods that work."""
    counts = np.full((2, 8), per_cell, dtype=np.int64)
    with pytest.raises(ExactInfeasibleError, match=r"infeasible.*method='permutation'"):
        fastfair.compare_models_from_counts(counts, metric="tpr", method="exact")
    res = fastfair.compare_models_from_counts(counts, metric="tpr", n_permutations=99,
                                              random_state=0)  # fmt: skip
    assert res.method == "permutation, asymptotic" and 0 < res.pvalue <= 1  # auto falls back


# --------------------------------------------------------------------------------------
# Case 5 and its class: every accumulation that can overflow, one call per family
# --------------------------------------------------------------------------------------

_rng = np.random.default_rng(0)
N = 300
G = _rng.choice(["a", "b"], N)
V = _rng.normal(0.2 * (G == "a"), 1.0, N)  # values on any scale
A = _rng.normal(size=N) + 0.2 * V  # a continuous attribute
S = _rng.random(N)  # scores
Y = (_rng.random(N) < S).astype(int)
P = (S > 0.5).astype(int)
C = (G == "b") * 1000 + _rng.integers(0, 60, N)  # users nested in groups
SCALES = [1e150, 1e160, 1e200, 1e300]


def _mean_abs(y_true, y_pred):
    return float(np.mean(np.abs(y_true - y_pred)))


def _stats(res, *names):
    return tuple(float(np.max(getattr(res, name))) for name in names)


#: name -> (call(k) returning unit-free numbers of the result, or quantities divided by k;
#: the smallest scale at which a clear ValueError is the documented answer, or None).
CALLS = {
    # resampling: means, Welch statistics, correlations, row metrics
    "mean_difference_test": (lambda k: (lambda r: (r.statistic, r.pvalue, r.difference / k))(
        fastfair.mean_difference_test(V * k, G, n_permutations=199, random_state=0)), None),
    "mean_difference_test raw": (lambda k: (lambda r: (r.statistic / k, r.pvalue))(
        fastfair.mean_difference_test(V * k, G, studentize=False, n_permutations=199,
                                      random_state=0)), None),
    "mean_difference_test asymptotic": (lambda k: (lambda r: (r.statistic, r.pvalue))(
        fastfair.mean_difference_test(V * k, G, method="asymptotic")), None),
    "mean_difference_test exact": (lambda k: (lambda r: (r.statistic, r.pvalue))(
        fastfair.mean_difference_test(V[:14] * k, G[:14], method="exact")), None),
    "correlation_test": (lambda k: (lambda r: (r.statistic, r.pvalue, r.r))(
        fastfair.correlation_test(A * k, V * k, n_permutations=199, random_state=0)), None),
    "correlation_test asymptotic": (lambda k: (lambda r: (r.statistic, r.pvalue))(
        fastfair.correlation_test(A * k, V / k, method="asymptotic")), None),
    "permutation_test mae": (lambda k: (lambda r: (r.statistic, r.pvalue))(
        fastfair.permutation_test(V * k, A * k, G, metric="mae", n_permutations=199,
                                  random_state=0)), None),
    "permutation_test mse": (lambda k: (lambda r: (r.statistic, r.pvalue))(
        fastfair.permutation_test(V * k, A * k, G, metric="mse", n_permutations=199,
                                  random_state=0)), 1e155),
    # weighted row metrics and callables: variances of the metric, checked
    "permutation_test weighted mae": (lambda k: (lambda r: (r.statistic, r.pvalue))(
        fastfair.permutation_test(V * k, A * k, G, metric="mae", sample_weight=A**2 + 0.5,
                                  n_permutations=199, random_state=0)), 1e155),
    "permutation_test weighted mse": (lambda k: (lambda r: (r.statistic, r.pvalue))(
        fastfair.permutation_test(V * k, A * k, G, metric="mse", sample_weight=A**2 + 0.5,
                                  n_permutations=199, random_state=0)), 1e77),
    "permutation_test callable": (lambda k: (lambda r: (r.statistic, r.pvalue))(
        fastfair.permutation_test(V * k, A * k, G, metric=_mean_abs, n_permutations=19,
                                  n_bootstrap=20, random_state=0)), 1e155),
    "basic_bootstrap_test": (lambda k: (lambda r: (r.pvalue, r.difference / k))(
        fastfair.basic_bootstrap_test(V * k, A * k, G, metric=_mean_abs, n_bootstrap=99,
                                      random_state=0)), None),
    # summaries
    "MeanStats.welch": (lambda k: (lambda d, t: (d / k, t))(
        *fastfair.stats.MeanStats.from_arrays(V * k, G).welch("a", "b")), 1e155),
    # AUC and thresholds: ranks only
    "auc_test": (lambda k: _stats(fastfair.auc_test(Y, S * k, G, n_permutations=199,
                                                    random_state=0), "statistic", "pvalue"), None),
    "delong": (lambda k: _stats(fastfair.delong(Y, S * k, G), "auc", "variance"), None),
    "threshold_sweep": (lambda k: _stats(fastfair.threshold_sweep(
        Y, S * k, G, thresholds=5, n_permutations=19, random_state=0), "statistic", "pvalue"),
        None),
    # kernel methods: scores of any scale (the bandwidth's standard deviation)
    "calibration_curve": (lambda k: _stats(fastfair.calibration_curve(Y, S * k, G, grid=5),
                                           "estimate", "standard_error"), None),
    "predictive_parity_test": (lambda k: _stats(fastfair.predictive_parity_test(
        Y, S * k, G, cluster=C, grid=5, n_bootstrap=99, random_state=0), "statistic", "pvalue"),
        None),
    "marginal_outcome_test": (lambda k: _stats(fastfair.marginal_outcome_test(
        Y, S * k, G, threshold=0.5 * k), "statistic", "pvalue"), None),
    "GroupCalibrator": (lambda k: tuple(fastfair.GroupCalibrator().fit(S * k, Y, G)
                                        .transform(S * k, G)[:5]), None),
    "MultiObjectiveCalibrator": (lambda k: tuple(fastfair.MultiObjectiveCalibrator().fit(
        np.column_stack([S * k, A * k]), np.column_stack([Y, Y]), G).transform(
        np.column_stack([S * k, A * k]), G)[:5, 0]), None),
    # kernel methods: outcomes of any scale within the documented range
    "marginal_outcome_test outcomes": (lambda k: _stats(fastfair.marginal_outcome_test(
        Y * k, S, G, threshold=0.5), "statistic", "pvalue"), 2.0**250),
    "calibration_curve outcomes": (lambda k: (lambda r: (float(np.max(r.estimate)) / k,
        float(np.max(r.standard_error)) / k))(fastfair.calibration_curve(Y * k, S, G, cluster=C,
                                                                         grid=5)), 2.0**250),
    # weights: rescaled by a power of two on entry
    "permutation_test weights": (lambda k: _stats(fastfair.permutation_test(
        Y, P, G, sample_weight=np.where(G == "a", 2.0, 1.0) * k, n_permutations=199,
        random_state=0), "statistic", "pvalue"), None),
    # features of the Wasserstein projection: X up, coef down (the same classifier)
    "wasserstein_test": (lambda k: (lambda r: (r.statistic / k / k, r.pvalue))(
        fastfair.wasserstein_test(np.column_stack([S * k, A * k]), Y, G, [1.0 / k, -0.5 / k])),
        1e155),  # the statistic is a squared distance in X's unit
    # planning: variances of the metric on any scale (sigma2 k^2, tau k)
    "sample_size sigma2": (lambda k: (fastfair.sample_size(
        sigma2=[1.0 * k, 2.0 * k], tau=0.1 * np.sqrt(k)).n_total_ceil,), None),
    # the audit with a score of any scale
    "audit": (lambda k: tuple(t["pvalue"] for t in fastfair.audit(
        Y, None, {"g": G}, y_score=S * k, threshold=0.5 * k, metrics=["tpr"],
        n_permutations=99).tests), None),
}  # fmt: skip


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", sorted(CALLS))
def test_values_at_1e150_and_beyond_give_the_same_answer_or_a_clear_error(name):
    call, refuse_from = CALLS[name]
    base = np.asarray(call(1.0), dtype=float)
    assert np.isfinite(base).all()
    for k in SCALES:
        if refuse_from is not None and k >= refuse_from:
            with pytest.raises(ValueError, match=r"overflow|extreme scale|leave float64"):
                call(k)
            continue
        got = np.asarray(call(k), dtype=float)
        np.testing.assert_allclose(got, base, rtol=1e-9, err_msg=f"{name} at scale {k:g}")


def test_case5_values_of_1e160_no_longer_give_a_nan_statistic_and_p_of_0_005():
    """The issue's instance: mean_difference_test returned statistic NaN and p = 0.005
    where the unscaled data give 0.18."""
    rng = np.random.default_rng(5)
    g = rng.choice(["a", "b"], 400)
    v = rng.normal(0.1 * (g == "a"), 1.0, 400)
    base = fastfair.mean_difference_test(v, g, random_state=0)
    big = fastfair.mean_difference_test(v * 1e160, g, random_state=0)
    assert big.statistic == pytest.approx(base.statistic, rel=1e-12)
    assert big.pvalue == base.pvalue


def test_one_row_group_has_no_variance():
    stats = fastfair.stats.MeanStats.from_arrays([1.0, 2.0, 3.0], ["a", "a", "b"])
    with pytest.raises(ValueError, match=r"group 'b' has 1 row.*variance is undefined"):
        stats.welch("a", "b")
    with pytest.raises(ValueError, match="at least 2 rows"):
        fastfair.mean_difference_test([1.0, 2.0, 3.0], ["a", "a", "b"])


def test_welch_with_zero_variances_and_different_means_is_infinite_not_zero():
    """0.0 read as "no difference"; the means 1 and 3 differ with no spread at all."""
    stats = fastfair.stats.MeanStats.from_arrays([1.0, 1.0, 3.0, 3.0], ["a", "a", "b", "b"])
    assert stats.welch("a", "b") == (-2.0, -np.inf)
    same = fastfair.stats.MeanStats.from_arrays([2.0, 2.0, 2.0, 2.0], ["a", "a", "b", "b"])
    assert same.welch("a", "b") == (0.0, 0.0)


def test_score_stats_zero_variance_follows_auc_test_not_zero():
    """AUCs of 1 and 0 have DeLong variance 0: ScoreStats.test gave statistic 0, p = 1
    (a difference of -1 read as none); it now takes auc_test's shrunk-variance rule."""
    y = np.array([0, 0, 0, 1, 1, 1] * 10)
    s = np.array([0.1, 0.2, 0.3, 0.7, 0.8, 0.9] * 10)
    g = np.array(["a"] * 30 + ["b"] * 30)
    s = np.where(g == "b", 1 - s, s)
    rows = fastfair.auc_test(y, s, g, method="delong")
    summary = fastfair.stats.ScoreStats.from_arrays(y, s, g).test()
    assert summary.difference == -1.0 and summary.statistic < -100
    assert summary.statistic == pytest.approx(rows.statistic, rel=1e-12)
    assert summary.pvalue == rows.pvalue


@pytest.mark.parametrize("unit", [1e-70, 1e-12, 1e-6, 1e6, 1e70])
def test_kernel_tests_do_not_depend_on_the_unit_of_the_outcome(unit):
    """Outcomes in another unit (1e-6: a rare event's cost in millions) were "constant" to
    an absolute 1e-12 variance threshold: statistic 3e-6, p = 0.99998 instead of -1.14,
    p = 0.27. The threshold is now relative to the outcomes' scale."""
    base = fastfair.marginal_outcome_test(Y, S, G, threshold=0.5)
    got = fastfair.marginal_outcome_test(Y * unit, S, G, threshold=0.5)
    assert got.statistic == pytest.approx(base.statistic, rel=1e-9)
    assert got.pvalue == pytest.approx(base.pvalue, rel=1e-9)
    kw = dict(cluster=C, grid=5, n_bootstrap=99, random_state=0)
    p0 = fastfair.predictive_parity_test(Y, S, G, **kw)
    p1 = fastfair.predictive_parity_test(Y * unit, S, G, **kw)
    assert (p1.statistic, p1.pvalue) == pytest.approx((p0.statistic, p0.pvalue), rel=1e-9)


@pytest.mark.parametrize("unit", [1e-100, 1e100])
def test_outcomes_beyond_the_fourth_power_range_are_refused(unit):
    with pytest.raises(ValueError, match="fourth powers"):
        fastfair.marginal_outcome_test(Y * unit, S, G, threshold=0.5)


@pytest.mark.parametrize("end", [2.0**-250, 2.0**250])
def test_outcomes_whose_largest_magnitude_is_exactly_an_end_of_the_range_are_accepted(end):
    """The outcome range [2^-250, 2^250] includes its ends: outcomes of 0 and exactly the
    end give the statistic and p-value of outcomes 0 and 1 (a power of two rescales
    exactly); the next float beyond the end is refused."""
    base = fastfair.marginal_outcome_test(Y, S, G, threshold=0.5)
    got = fastfair.marginal_outcome_test(Y * end, S, G, threshold=0.5)
    assert (got.statistic, got.pvalue) == pytest.approx((base.statistic, base.pvalue), rel=1e-9)
    beyond = np.nextafter(end, 0.0 if end < 1 else np.inf)
    with pytest.raises(ValueError, match="fourth powers"):
        fastfair.marginal_outcome_test(Y * beyond, S, G, threshold=0.5)


def test_weighted_counts_beyond_float64_are_refused_not_inf():
    weights = np.full(N, 1e307)
    with pytest.raises(ValueError, match="weighted counts exceed float64"):
        fastfair.confusion_counts(Y, P, G, sample_weight=weights)
    counts, _ = fastfair.confusion_counts(Y, P, G, sample_weight=weights / 1e10)
    np.testing.assert_allclose(counts, fastfair.confusion_counts(Y, P, G)[0] * 1e297, rtol=1e-12)


@pytest.mark.parametrize("method", ["monte_carlo", "exact"])
@pytest.mark.parametrize("unit", [1e-12, 1e-200, 1e-300])
def test_unstudentized_statistics_in_small_units_are_not_all_ties(unit, method):
    """Differences of means below 1e-12 were all within the tie tolerance (1e-12 times
    max(|T|, 1)) of the observed one: p = 1 whatever the data. The p-value does not
    depend on the unit of the values."""
    rng = np.random.default_rng(2)
    n = 200 if method == "monte_carlo" else 12
    group = np.repeat(["a", "b"], n // 2)
    values = rng.normal(size=n) + (group == "a") * 2.0
    kw = dict(studentize=False, method=method, n_permutations=199, random_state=0)
    if method == "exact":
        kw.pop("n_permutations")
    ref = fastfair.mean_difference_test(values, group, **kw).pvalue
    res = fastfair.mean_difference_test(values * unit, group, **kw).pvalue
    assert ref < 0.05
    assert res == pytest.approx(ref, rel=1e-9)


@pytest.mark.parametrize("unit", [1e-160, 1e-200, 1e-300])
def test_welch_on_values_whose_squares_underflow_is_refused_not_infinite(unit):
    """MeanStats.welch on values of about 1e-300 returned a statistic of -inf (the sums of
    squares underflowed to 0: a certain difference) where the unscaled values give -5; at
    1e-160 it was -5.00003 (subnormal squares). Refused, as the overflow above is."""
    groups = np.array(["a"] * 5 + ["b"] * 5)
    values = np.arange(10.0)
    _, ref = fastfair.stats.MeanStats.from_arrays(values, groups).welch("a", "b")
    assert ref == pytest.approx(-5.0)
    with pytest.raises(ValueError, match=r"underflow.*multiply the values"):
        fastfair.stats.MeanStats.from_arrays(values * unit, groups).welch("a", "b")
    _, near = fastfair.stats.MeanStats.from_arrays(values * 1e-140, groups).welch("a", "b")
    assert near == pytest.approx(ref, rel=1e-12)  # still computed just above the limit


@pytest.mark.parametrize(("constant", "n"), [(0.1, 100), (1 / 3, 10), (0.7, 100), (1e200, 7)])
@pytest.mark.parametrize("column", ["attribute", "values"])
def test_correlation_with_a_constant_column_is_refused_whatever_its_value(constant, n, column):
    """A constant 0.1 (or 1/3, or 1e200) is not exactly its computed mean: the rounding
    residues, scaled to unit size, gave a "correlation" and a p-value of any size instead
    of the error a constant 0 or 1 gets."""
    rng = np.random.default_rng(0)
    args = {"attribute": rng.normal(size=n), "values": rng.normal(size=n)}
    args[column] = np.full(n, constant)
    with pytest.raises(ValueError, match=f"{column} is constant"):
        fastfair.correlation_test(**args, n_permutations=99, random_state=0)
    with pytest.raises(ValueError, match=f"{column} is constant"):
        fastfair.correlation_test(**args, method="asymptotic")


@pytest.mark.parametrize("studentize", ["bootstrap", "bootstrap-fast"])
@pytest.mark.parametrize("method", ["asymptotic", "monte_carlo"])
def test_bootstrap_studentized_metric_in_units_of_1e_200_is_refused_not_significant(
    studentize, method
):
    """A callable metric's bootstrap variance on values of about 1e-200 underflowed to 0:
    statistic inf, p = 0 (asymptotic) or 0.01 (99 permutations) where the unscaled data
    give about 0.17; tolerance_test gave p = 0 and equivalence_test p = 1 the same way."""
    from fastfair.resampling import permutation_test_rows

    rng = np.random.default_rng(2)
    group = rng.choice(["a", "b"], 200)
    values = rng.normal(size=200) + (group == "a") * 0.3

    def mean_true(t, p):
        return float(np.mean(t))

    kw = dict(metric=mean_true, studentize=studentize, method=method, n_permutations=99,
              n_bootstrap=50, random_state=0)  # fmt: skip
    ref = permutation_test_rows(values, values, group, **kw)
    assert 0.1 < ref.pvalue < 0.3
    tiny = values * 1e-200
    with pytest.raises(ValueError, match=r"underflows.*multiply"):
        permutation_test_rows(tiny, tiny, group, **kw)
    with pytest.raises(ValueError, match=r"underflows.*multiply"):
        fastfair.tolerance_test(tiny, tiny, group, metric=mean_true, u_tol=1e-201)
    with pytest.raises(ValueError, match=r"underflows.*multiply"):
        fastfair.equivalence_test(tiny, tiny, group, metric=mean_true, delta=1e-201)
