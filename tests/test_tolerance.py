"""Tolerance tests (H0: U <= u_tol) and equivalence tests (TOST) of issue 17."""

import math
import pathlib
import runpy

import numpy as np
import pytest
from scipy import optimize, special, stats
from statsmodels.stats import proportion as sm_proportion

import fastfair

COUNTS = [[500, 40, 30, 170], [450, 60, 55, 120]]  # TN, FP, FN, TP; TPR 0.85 and 0.686


def _brute_z(x1, n1, x2, n2, d):
    """Miettinen-Nurminen Z(d) with the restricted MLE found numerically."""

    def negloglik(p2):
        p1 = p2 + d
        return -(
            special.xlogy(x1, p1)
            + special.xlogy(n1 - x1, 1 - p1)
            + special.xlogy(x2, p2)
            + special.xlogy(n2 - x2, 1 - p2)
        )

    res = optimize.minimize_scalar(
        negloglik, bounds=(max(0, -d), min(1, 1 - d)), method="bounded", options={"xatol": 1e-13}
    )
    q2 = res.x
    q1 = q2 + d
    var = (q1 * (1 - q1) / n1 + q2 * (1 - q2) / n2) * (n1 + n2) / (n1 + n2 - 1)
    return (x1 / n1 - x2 / n2 - d) / math.sqrt(var)


@pytest.mark.parametrize("u_tol", [0.0, 0.02, 0.1, 0.2])
def test_tolerance_pvalue_matches_brute_force(u_tol):
    # method="score": "auto" would run the exact test here (30 non-events in group a)
    res = fastfair.tolerance_test_from_counts(
        COUNTS, ["a", "b"], metric="tpr", u_tol=u_tol, alternative="less", method="score"
    )
    assert res.comparisons == [("b", "a")]  # U = TPR_b - TPR_a = 120/175 - 170/200 < 0
    z = _brute_z(120, 175, 170, 200, -u_tol)
    assert res.statistic == pytest.approx(z, rel=1e-5)
    assert res.pvalue == pytest.approx(special.ndtr(z), rel=1e-4)
    greater = fastfair.tolerance_test_from_counts(
        COUNTS, ["a", "b"], metric="tpr", u_tol=u_tol, alternative="greater", method="score"
    )
    assert greater.pvalue == pytest.approx(special.ndtr(-_brute_z(120, 175, 170, 200, u_tol)))
    assert greater.pvalue > 0.99  # the gap is negative: no evidence that U > u_tol
    # swapping the reference turns "less" into "greater"
    swapped = fastfair.tolerance_test_from_counts(
        COUNTS, ["a", "b"], metric="tpr", u_tol=u_tol, alternative="greater", reference="b",
        method="score",
    )  # fmt: skip
    assert swapped.pvalue == pytest.approx(res.pvalue, rel=1e-9)


def test_tolerance_zero_two_sided_is_the_score_test_of_equality():
    res = fastfair.tolerance_test_from_counts(
        COUNTS, metric="tpr", u_tol=0.0, reference=0, method="score"
    )
    ref = sm_proportion.test_proportions_2indep(120, 175, 170, 200, method="score")
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-9)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-9)


@pytest.mark.parametrize(("x1", "u_tol"), [(5_000_300, 0.0), (5_001_300, 1e-4)])
def test_a_difference_of_a_few_parts_in_100000_is_not_read_as_zero(x1, u_tol):
    """Ten million rows per group: a difference 3e-5 from the margin is 0.13 standard
    errors, a real Z (statsmodels' Miettinen-Nurminen score test), not the 0 kept for
    differences at the rounding of the rates."""
    n, x2 = 10_000_000, 5_000_000
    counts = [[0, 0, n - x2, x2], [0, 0, n - x1, x1]]
    res = fastfair.tolerance_test_from_counts(
        counts, metric="tpr", u_tol=u_tol, alternative="greater", method="score", reference=0
    )
    ref = sm_proportion.test_proportions_2indep(
        x1, n, x2, n, value=u_tol, method="score", compare="diff", alternative="larger"
    )
    assert ref.statistic == pytest.approx(0.134, abs=1e-3)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-6)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-6)


@pytest.mark.parametrize("u_tol", np.linspace(0, 0.3, 31))
def test_tolerance_test_agrees_with_the_interval(u_tol):
    """Two-sided: p <= alpha exactly when the 1 - alpha interval misses [-u_tol, u_tol]."""
    res = fastfair.tolerance_test_from_counts(
        COUNTS, metric="tpr", u_tol=float(u_tol), confidence_level=0.95, method="score"
    )
    lo, hi = res.confidence_interval
    outside = hi < -u_tol or lo > u_tol
    assert (res.pvalue <= 0.05) == outside or abs(res.pvalue - 0.05) < 1e-9
    perm = fastfair.permutation_test_from_counts(COUNTS, metric="tpr")
    assert res.confidence_interval == pytest.approx(perm.confidence_interval, abs=1e-12)


def test_equivalence_test_is_tost_and_agrees_with_its_interval():
    big = [[5000, 400, 300, 1700], [4500, 420, 320, 1650]]
    res = fastfair.equivalence_test_from_counts(big, metric="tpr", delta=0.04)
    (a, b) = res.comparisons[0]
    lo, hi = res.equivalence_interval
    assert lo > -0.04 and hi < 0.04 and res.equivalent
    # the 90% interval of the same statistic
    perm = fastfair.permutation_test_from_counts(big, metric="tpr", confidence_level=0.9)
    assert (lo, hi) == pytest.approx(perm.confidence_interval, abs=1e-12)
    # p-value: the larger one-sided p-value, from the brute-force statistic
    x = {0: (1700, 2000), 1: (1650, 1970)}
    xa, na = x[a]
    xb, nb = x[b]
    p_low = special.ndtr(-_brute_z(xa, na, xb, nb, -0.04))
    p_up = special.ndtr(_brute_z(xa, na, xb, nb, 0.04))
    assert res.pvalue == pytest.approx(max(p_low, p_up), rel=1e-4)
    # a margin inside the interval's reach: not shown
    narrow = fastfair.equivalence_test_from_counts(big, metric="tpr", delta=0.02)
    assert not narrow.equivalent and narrow.pvalue > 0.05
    small = fastfair.equivalence_test_from_counts(
        [[50, 4, 3, 17], [45, 4, 3, 16]], metric="tpr", delta=0.03
    )
    assert not small.equivalent  # same rates, too few positives to show it
    text = repr(res)
    assert "90% CI" in text and "equivalent" in text and "yes" in text


def test_tolerance_and_equivalence_on_rows_weights_and_groups():
    rng = np.random.default_rng(0)
    n = 3000
    group = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])
    y = rng.random(n) < 0.4
    yhat = np.where(y, rng.random(n) < 0.8, rng.random(n) < 0.1)
    res = fastfair.tolerance_test(y, yhat, group, metric="tpr", u_tol=0.02)
    counts, labels = fastfair.confusion_counts(y, yhat, group)
    ref = fastfair.tolerance_test_from_counts(counts, labels, metric="tpr", u_tol=0.02)
    assert np.allclose(res.pvalue, ref.pvalue) and res.comparisons == [("b", "a"), ("c", "a")]
    assert np.allclose(res.pvalue_adjusted, fastfair._pvalues.adjust_pvalues(res.pvalue, "holm"))
    same = fastfair.tolerance_test(
        y, yhat, group, metric="tpr", u_tol=0.02, sample_weight=np.full(n, 3.0)
    )
    assert np.allclose(same.pvalue, res.pvalue) and same.weighted
    eq = fastfair.equivalence_test(y, yhat, group, metric="tpr", delta=0.1)
    assert eq.equivalent.shape == (2,)
    assert np.array_equal(eq.equivalent, eq.pvalue_adjusted <= 0.05)
    assert "ToleranceTestResult" in repr(res) and "|U| > 0.02" in repr(res)


# --------------------------------------------------------------------------------------
# The exact unconditional test (Chan 1998)
# --------------------------------------------------------------------------------------


def _brute_exact(x1, n1, x2, n2, d, side):
    """sup over a fine nuisance grid of P(Z(d) at least as extreme), scipy pmfs."""
    z = np.array([[_brute_z(a, n1, b, n2, d) for b in range(n2 + 1)] for a in range(n1 + 1)])
    z_obs = z[x1, x2]
    region = z >= z_obs - 1e-9 if side == "greater" else z <= z_obs + 1e-9
    best = 0.0
    for p2 in np.linspace(max(0, -d), min(1, 1 - d), 4001):
        pmf1 = stats.binom.pmf(np.arange(n1 + 1), n1, min(max(p2 + d, 0), 1))
        pmf2 = stats.binom.pmf(np.arange(n2 + 1), n2, p2)
        best = max(best, float(pmf1 @ region @ pmf2))
    return best


@pytest.mark.parametrize(
    ("x1", "n1", "x2", "n2", "d", "side"),
    [(4, 6, 1, 7, 0.1, "greater"), (1, 5, 4, 8, -0.2, "less"), (7, 8, 3, 6, 0.25, "greater")],
)
def test_exact_pvalue_matches_brute_force_enumeration(x1, n1, x2, n2, d, side):
    from fastfair._unconditional import exact_pvalue

    assert exact_pvalue(x1, n1, x2, n2, d, side) == pytest.approx(
        _brute_exact(x1, n1, x2, n2, d, side), rel=1e-6
    )


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_exact_at_zero_margin_is_barnards_test(alternative):
    """At d = 0 the score statistic orders outcomes as the pooled z: scipy's Barnard test."""
    for x1, n1, x2, n2 in [(15, 40, 5, 35), (3, 30, 12, 28), (7, 12, 8, 23)]:
        counts = [[0, 0, n1 - x1, x1], [0, 0, n2 - x2, x2]]  # TPR = x / n
        res = fastfair.tolerance_test_from_counts(
            counts, metric="tpr", alternative=alternative, method="exact", reference=1
        )
        ref = stats.barnard_exact([[x1, x2], [n1 - x1, n2 - x2]], alternative, n=100)
        assert res.method == "exact" and res.pvalue == pytest.approx(ref.pvalue, rel=1e-6)


def test_score_statistic_is_monotone_in_each_count():
    """Barnard's convexity, on which the fast exact tails rely: Z(d) is non-decreasing in x1
    and non-increasing in x2, for small, unbalanced and large groups and any margin."""
    from fastfair._score import score_statistic

    for n1, n2 in [(1, 1), (2, 7), (10, 30), (30, 1000), (300, 100)]:
        for d in (-0.99, -0.3, -0.02, 0.0, 0.001, 0.05, 0.5, 0.99):
            for correction in (True, False):
                z = score_statistic(
                    np.arange(n1 + 1.0)[:, None], n1, np.arange(n2 + 1.0), n2, d,
                    correction=correction,
                )  # fmt: skip
                assert not np.isnan(z).any()
                assert (np.diff(z, axis=0) >= 0).all() and (np.diff(z, axis=1) <= 0).all()


def test_exact_runs_are_the_brute_force_region():
    """The region found by bisection in x1 (runs) is the mask of the whole outcome table,
    and its tail probabilities are the same numbers."""
    from fastfair._unconditional import BoundaryTails

    rng = np.random.default_rng(3)
    for _ in range(40):
        n1, n2 = (int(v) for v in rng.integers(1, 60, 2))
        d = float(rng.choice([-0.4, -0.05, 0.0, 0.02, 0.3]))
        tails = BoundaryTails(n1, n2, d)
        z_obs = float(tails.z[rng.integers(0, n1 + 1), rng.integers(0, n2 + 1)])
        for side in ("greater", "less"):
            x2, first, last = tails.runs(z_obs, side)
            mask = np.zeros((n1 + 1, n2 + 1), dtype=bool)
            for b, lo, hi in zip(x2, first, last):
                mask[lo : hi + 1, b] = True
            assert np.array_equal(mask, tails.region(z_obs, side))
            p2 = np.linspace(tails.lo, tails.hi, 7)
            assert np.array_equal(
                tails.probabilities(mask, p2), tails._run_probabilities((x2, first, last), p2)
            )


def test_exact_runs_along_x1_are_the_brute_force_region():
    """The runs along the smaller group (bisection in x2, used above FULL_SUM_MAX rows) are
    the mask of the whole table, and give the same tail probabilities."""
    from fastfair._unconditional import BoundaryTails

    rng = np.random.default_rng(5)
    for _ in range(40):
        n1, n2 = (int(v) for v in rng.integers(1, 60, 2))
        d = float(rng.choice([-0.4, -0.05, 0.0, 0.02, 0.3]))
        tails = BoundaryTails(n1, n2, d)
        z_obs = float(tails.z[rng.integers(0, n1 + 1), rng.integers(0, n2 + 1)])
        for side in ("greater", "less"):
            x1, first, last = tails.runs_by_x1(z_obs, side)
            mask = np.zeros((n1 + 1, n2 + 1), dtype=bool)
            for a, lo, hi in zip(x1, first, last):
                mask[a, lo : hi + 1] = True
            assert np.array_equal(mask, tails.region(z_obs, side))
            p2 = np.linspace(tails.lo, tails.hi, 7)
            np.testing.assert_allclose(
                tails._run_probabilities((x1, first, last), p2, by_x1=True),
                tails.probabilities(mask, p2), rtol=1e-12, atol=1e-15,
            )  # fmt: skip


def _z_obs_whose_threshold_is(tails, value: float, side: str) -> float:
    """An observed Z whose threshold (the observed Z less or plus its tie tolerance) is
    exactly `value`: the float nearest value +- the tolerance, moved by a few ulps."""
    z = value + (1e-10 if side == "greater" else -1e-10) * max(1.0, abs(value))
    for k in range(2000):
        for candidate in (z + k * np.spacing(z), z - k * np.spacing(z)):
            if tails._threshold(candidate, side) == value:
                return candidate
    raise AssertionError(f"no observed Z has the threshold {value!r}")


def test_exact_runs_keep_an_outcome_whose_z_is_exactly_the_threshold():
    """An outcome whose Z equals the threshold exactly is in the region (Z >= threshold,
    Z <= threshold): the runs of both bisections agree with the whole table's mask there,
    the one place where ``>=`` and ``>`` differ."""
    from fastfair._unconditional import BoundaryTails

    rng = np.random.default_rng(11)
    for _ in range(30):
        n1, n2 = (int(v) for v in rng.integers(1, 50, 2))
        tails = BoundaryTails(n1, n2, float(rng.choice([-0.3, 0.0, 0.1])))
        value = float(tails.z[rng.integers(0, n1 + 1), rng.integers(0, n2 + 1)])
        for side in ("greater", "less"):
            z_obs = _z_obs_whose_threshold_is(tails, value, side)
            region = tails.region(z_obs, side)
            assert region[tails.z == value].all()
            by_x2, by_x1 = np.zeros_like(region), np.zeros_like(region)
            for b, lo, hi in zip(*tails.runs(z_obs, side)):
                by_x2[lo : hi + 1, b] = True
            for a, lo, hi in zip(*tails.runs_by_x1(z_obs, side)):
                by_x1[a, lo : hi + 1] = True
            assert np.array_equal(by_x2, region)
            assert np.array_equal(by_x1, region)


def test_mirror_tables_whose_z_differ_only_by_rounding_have_the_same_exact_pvalue():
    """With equal groups, the table (x1, x2) and its mirror (n - x2, n - x1) have the same
    difference of rates and the same restricted variance, so the same Z. With a margin a
    hair off a difference of rates (0.1 + 1e-9), |Z| is about 1e-8 and the two computed Z
    differ by rounding (up to 6e-16, far above 1e-10 |Z|): the tie tolerance of 1e-10 in
    absolute terms below |Z| = 1 keeps each in the other's region, so every mirror pair has
    the same exact p-value, on both sides."""
    from fastfair._unconditional import BoundaryTails, exact_pvalue

    n, d = 10, 0.1 + 1e-9
    z = BoundaryTails(n, n, d).z
    mirror = z[::-1, ::-1].T  # mirror[x1, x2] = z[n - x2, n - x1]
    rounding = (z != mirror) & (np.abs(z - mirror) > 1e-10 * np.abs(z))
    assert rounding.sum() >= 6 and np.abs(z - mirror)[rounding].max() < 1e-15
    for x1, x2 in zip(*np.nonzero(rounding)):
        for side in ("greater", "less"):
            assert exact_pvalue(x1, n, x2, n, d, side) == exact_pvalue(
                n - x2, n, n - x1, n, d, side
            )


def test_windowed_tail_sums_are_the_full_sums():
    """Random groups up to 30,000 rows, margins and regions: the windowed sums are low by
    at most 4 * tol (the Chernoff bound of the module doc) and never high by more than
    rounding; a coarser tol = 1e-3 drops visible mass, so the comparison can fail."""
    from fastfair._margin_tails import region_probabilities

    from fastfair._unconditional import WINDOW_TOL, BoundaryTails

    rng = np.random.default_rng(11)
    coarse_gap = 0.0
    for i in range(30):
        n1, n2 = int(rng.integers(1, 3000)), int(rng.integers(1, 30000))
        d = float(rng.uniform(-0.3, 0.3))
        tails = BoundaryTails(n1, n2, d)
        z_obs = float(tails.statistic(rng.integers(0, n1 + 1), rng.integers(0, n2 + 1)))
        runs = tails.runs(z_obs, "greater" if i % 2 else "less")
        p2 = np.ascontiguousarray(tails.nuisance_grid()[::5])
        args = (tails.logc1, tails.logc2, np.clip(p2 + d, 0, 1), p2, *runs)
        full = region_probabilities(*args, tol=0.0)
        windowed = region_probabilities(*args, tol=WINDOW_TOL)
        assert (full - windowed <= 4 * WINDOW_TOL + 1e-15).all()
        assert (windowed - full <= 1e-15).all()
        coarse_gap = max(coarse_gap, float((full - region_probabilities(*args, tol=1e-3)).max()))
    assert coarse_gap > 1e-4
    with pytest.raises(ValueError, match="tol"):
        region_probabilities(*args, tol=1.0)


def test_exact_pvalue_of_a_large_reference_is_the_full_sum(monkeypatch):
    """30 rows against 20,000 (windowed sums, runs along x1) and the same p-values with
    every term summed along x2 (FULL_SUM_MAX raised) agree to 1e-13."""
    from fastfair import _unconditional

    tails = _unconditional.BoundaryTails(30, 20_000, 0.01)
    z = [float(tails.statistic(x1, x2)) for x1, x2 in ((3, 40), (1, 200), (29, 19_000))]
    fast = [tails.pvalue(v, side) for v in z for side in ("greater", "less")]
    monkeypatch.setattr(_unconditional, "FULL_SUM_MAX", 10**9)
    assert not tails._large
    full = [tails.pvalue(v, side) for v in z for side in ("greater", "less")]
    np.testing.assert_allclose(fast, full, rtol=0, atol=1e-13)
    assert min(fast) < 0.05 < max(fast)


def test_exact_cdf_sums_are_the_windowed_sums(monkeypatch):
    """The tail sums along a small group with the reference's distribution function (used
    above CDF_ABOVE rows) give the windowed sums' p-values to 1e-9, both sides, groups in
    either order; a p-value that uses a wrong run end (last + 1) differs, so the check can
    fail."""
    from fastfair import _unconditional

    rng = np.random.default_rng(3)
    for n1, n2 in ((30, 20_000), (300, 30_000), (25_000, 40), (7, 100_000)):
        for d in (0.0, 0.01, -0.05):
            tails = _unconditional.BoundaryTails(n1, n2, d)
            for side in ("greater", "less"):
                z = float(tails.statistic(rng.integers(0, n1 + 1), rng.integers(0, n2 + 1)))
                monkeypatch.setattr(_unconditional, "CDF_ABOVE", 10**12)
                windowed = tails.pvalue(z, side)
                monkeypatch.setattr(_unconditional, "CDF_ABOVE", 0)
                assert tails._by_cdf
                assert tails.pvalue(z, side) == pytest.approx(windowed, rel=0, abs=1e-9)
    tails = _unconditional.BoundaryTails(30, 20_000, 0.0)
    x1, first, last = tails.runs_by_x1(float(tails.statistic(4, 100)), "greater")
    grid = tails.nuisance_grid()
    right = tails._run_probabilities((x1, first, last), grid, by_x1=True)
    wrong = tails._run_probabilities((x1, first, last + 1), grid, by_x1=True)
    assert (wrong - right).max() > 1e-6


def test_auto_is_exact_for_a_small_group_against_a_huge_reference():
    """Issue 34: beyond 200,000 rows "auto" ran the score test (level 0.068 at 300 vs
    300,000, TPR 0.03 vs 0.02, margin 0.01); a smaller group of at most SMALL_GROUP_MAX rows
    now runs the exact test whatever the reference's size, and method='exact' accepts 30
    rows against 3,000,000 (beyond MAX_SIZE) but not two groups of 600,000."""
    counts = [[0, 0, 291, 9], [0, 0, 294_000, 6_000]]
    res = fastfair.tolerance_test_from_counts(counts, u_tol=0.01, alternative="greater")
    assert res.method == "exact"
    huge = [[0, 0, 28, 2], [0, 0, 2_940_000, 60_000]]
    res = fastfair.tolerance_test_from_counts(huge, u_tol=0.01, alternative="greater")
    assert res.method == "exact" and 0 < res.pvalue < 1
    lo, hi = res.confidence_interval
    assert lo < 2 / 30 - 0.02 < hi
    both = [[0, 0, 599_990, 10], [0, 0, 599_990, 10]]
    assert fastfair.tolerance_test_from_counts(both).method == "score"
    with pytest.raises(ValueError, match="both groups above"):
        fastfair.tolerance_test_from_counts(both, method="exact")


def test_auto_is_exact_for_a_small_group_against_a_large_reference():
    """30 rows with 1 event against 100,000 with 500 (beyond the old 5,000 cap): "auto"
    runs the exact test (the score test's level reached 0.14 there); a weighted or
    well-populated comparison still runs the score test."""
    counts = [[0, 0, 29, 1], [0, 0, 99_500, 500]]  # TPR 1/30 and 0.005
    auto = fastfair.tolerance_test_from_counts(counts, u_tol=0.0, alternative="greater")
    exact = fastfair.tolerance_test_from_counts(
        counts, u_tol=0.0, alternative="greater", method="exact"
    )
    assert auto.method == "exact" and auto.pvalue == exact.pvalue
    score = fastfair.tolerance_test_from_counts(
        counts, u_tol=0.0, alternative="greater", method="score"
    )
    assert auto.pvalue > score.pvalue  # the score test is liberal here
    lo, hi = auto.confidence_interval
    assert lo < 1 / 30 - 0.005 < hi
    many = [[0, 0, 140, 60], [0, 0, 70_000, 30_000]]  # 60 events: at least 50
    assert fastfair.tolerance_test_from_counts(many).method == "score"


@pytest.mark.parametrize(
    ("x1", "n1", "x2", "n2"), [(1, 200, 0, 4000), (2, 30, 1, 3000), (1, 10, 0, 5000)]
)
def test_exact_pvalue_finds_narrow_peaks_of_large_groups(x1, n1, x2, n2):
    """With 3000-5000 rows and rare events the tail's maximum over the nuisance rate is a
    peak about 1/n wide near 0: the grid uniform in arcsin(sqrt(p)) finds it (a grid uniform
    in p alone was 7e-4 low at 200 / 4000). Brute force: 16,000 nuisance values, dense near 0."""
    from fastfair._unconditional import BoundaryTails, exact_pvalue

    tails = BoundaryTails(n1, n2, 0.0)
    mask = tails.region(float(tails.statistic(x1, x2)), "greater")
    grid = np.concatenate([np.linspace(0, 1, 8001), np.geomspace(1e-7, 1, 8001)])
    brute = max(float(tails.probabilities(mask, g).max()) for g in np.array_split(grid, 8))
    assert exact_pvalue(x1, n1, x2, n2, 0.0, "greater") == pytest.approx(brute, rel=1e-5)


def test_exact_tests_are_identical_for_any_n_jobs():
    """The tail sums run on threads over nuisance values: forced onto 1 and 3 threads the
    p-values and exact intervals are the same numbers."""
    from fastfair import _parallel

    counts = [[300, 4, 2, 1], [90, 6, 4, 3]]  # few events: the exact test
    runs = []
    with _parallel.force_parallel():
        for n_jobs in (1, 3):
            tol = fastfair.tolerance_test_from_counts(
                counts, metric="fpr", u_tol=0.002, method="exact", n_jobs=n_jobs
            )
            eq = fastfair.equivalence_test_from_counts(
                counts, metric="fpr", delta=0.01, n_jobs=n_jobs
            )
            runs.append((tol.pvalue, tol.confidence_interval, eq.pvalue, eq.equivalence_interval))
    assert eq.method == "exact" and runs[0] == runs[1]
    large = [[0, 0, 29, 1], [0, 0, 9950, 50]]  # windowed sums (n_A + n_B > FULL_SUM_MAX)
    with _parallel.force_parallel():
        res = [
            fastfair.tolerance_test_from_counts(large, u_tol=0.01, method="exact", n_jobs=j)
            for j in (1, 3)
        ]
    assert [(r.pvalue, r.confidence_interval) for r in res[:1]] == [
        (r.pvalue, r.confidence_interval) for r in res[1:]
    ]
    with pytest.raises(ValueError, match="n_jobs"):
        fastfair.tolerance_test_from_counts(counts, metric="fpr", n_jobs=0)


def test_auto_holds_the_level_where_exact_below_10_did_not():
    """n_A = 100, n_B = 1000, p_B = 0.05, U = u_tol = 0.02: with the exact test only below
    10 events "auto" rejected at the boundary with probability 0.058; with EXACT_BELOW = 20
    it is at most alpha + 3 Monte-Carlo SE of 10,000 draws (0.0565). Exact computation."""
    from fastfair._unconditional import BoundaryTails
    from fastfair.tolerance import EXACT_BELOW

    n1, n2, u, p_b = 100, 1000, 0.02, 0.05
    tails = BoundaryTails(n1, n2, u)
    exact = tails.z >= tails.critical_value(0.05, "greater")
    score = tails.z > special.ndtri(0.95)
    x1, x2 = np.arange(n1 + 1.0)[:, None], np.arange(n2 + 1.0)
    fewest = np.minimum(np.minimum(x1, n1 - x1), np.minimum(x2, n2 - x2))
    pmf1 = stats.binom.pmf(np.arange(n1 + 1), n1, p_b + u)
    pmf2 = stats.binom.pmf(np.arange(n2 + 1), n2, p_b)

    def level(below):
        return float(pmf1 @ np.where(fewest < below, exact, score) @ pmf2)

    assert level(10) > 0.0575 and level(EXACT_BELOW) <= 0.0565
    counts = [[0, 0, 95, 5], [0, 0, 950, 50]]  # TPR 0.05 in both: "auto" is exact here
    assert fastfair.tolerance_test_from_counts(counts, u_tol=u).method == "exact"


def test_exact_test_holds_its_level_where_the_score_test_does_not():
    """n = 10 and 30, equal rates 0.05 (U = 0): exact level <= alpha over the whole
    boundary (its supremum); the score test's is 0.118 (so the check can fail)."""
    from fastfair._unconditional import BoundaryTails

    tails = BoundaryTails(10, 30, 0.0)
    crit = tails.critical_value(0.05, "greater")
    level = tails.probabilities(tails.z >= crit, np.linspace(0, 1, 501))
    assert level.max() <= 0.05 + 1e-9 and level.max() > 0.03
    score = tails.probabilities(tails.z > special.ndtri(0.95), np.array([0.05]))
    assert score[0] > 0.1
    # power twin: a true gap of 0.6 (rates 0.8 and 0.2) is found most of the time
    pmf1 = stats.binom.pmf(np.arange(11), 10, 0.8)
    pmf2 = stats.binom.pmf(np.arange(31), 30, 0.2)
    assert float(pmf1 @ (tails.z >= crit) @ pmf2) > 0.8


def test_auto_method_chooses_exact_with_few_events():
    sparse = [[50, 4, 3, 17], [45, 4, 8, 60]]  # 3 false negatives in group 0
    auto = fastfair.tolerance_test_from_counts(sparse, metric="tpr", u_tol=0.02)
    exact = fastfair.tolerance_test_from_counts(sparse, metric="tpr", u_tol=0.02, method="exact")
    assert auto.method == "exact" and auto.pvalue == exact.pvalue
    # the exact interval inverts the exact test: p <= alpha exactly when it excludes +-u_tol
    for u in (0.0, 0.1, 0.2, 0.3):
        res = fastfair.tolerance_test_from_counts(sparse, metric="tpr", u_tol=u, method="exact")
        lo, hi = res.confidence_interval
        assert (res.pvalue <= 0.05) == (hi < -u or lo > u)
    assert fastfair.tolerance_test_from_counts(COUNTS, metric="tpr").method == "score"
    # 30 false negatives: score against a similar group, exact against one 20 times larger
    unbalanced = [[500, 40, 30, 170], [50_000, 4_000, 600, 3_400]]
    assert fastfair.tolerance_test_from_counts(unbalanced, metric="tpr").method == "exact"
    unbalanced[1][2:] = [550, 3_350]  # 3,900 positives: 19.5 times 200
    assert fastfair.tolerance_test_from_counts(unbalanced, metric="tpr").method == "score"
    eq = fastfair.equivalence_test_from_counts(sparse, metric="tpr", delta=0.2)
    assert eq.method == "exact" and not eq.equivalent
    with pytest.raises(ValueError, match="1,000,000"):
        fastfair.tolerance_test_from_counts(
            [[0, 0, 10, 500_000], [0, 0, 10, 500_000]], method="exact"
        )
    y = np.repeat([1, 1, 0], [30, 3, 40])
    yhat = np.repeat([1, 0, 0], [30, 3, 40])
    group = np.tile([0, 1], 37)[:73]
    weighted = fastfair.tolerance_test(y, yhat, group, sample_weight=np.ones(73))
    assert weighted.method == "score"
    with pytest.raises(ValueError, match="weighted"):
        fastfair.tolerance_test(y, yhat, group, sample_weight=np.ones(73), method="exact")


def test_wald_method_is_the_plug_in_statistic():
    res = fastfair.tolerance_test_from_counts(
        COUNTS, metric="tpr", u_tol=0.05, alternative="greater", method="wald", reference=1
    )
    p1, p2 = 170 / 200, 120 / 175
    z = (p1 - p2 - 0.05) / math.sqrt(p1 * (1 - p1) / 200 + p2 * (1 - p2) / 175)
    assert res.statistic == pytest.approx(z) and res.method == "wald"
    fm = fastfair.tolerance_test_from_counts(
        COUNTS, metric="tpr", u_tol=0.05, method="farrington-manning", reference=1,
        alternative="greater",
    )  # fmt: skip
    mn = fastfair.tolerance_test_from_counts(
        COUNTS, metric="tpr", u_tol=0.05, reference=1, alternative="greater"
    )
    assert fm.statistic == pytest.approx(mn.statistic * math.sqrt(375 / 374))


@pytest.mark.parametrize(
    "counts",
    [
        [[0, 0, 0, 40], [0, 0, 25, 0]],  # TPR 1 and 0
        [[0, 0, 0, 12], [0, 0, 0, 300]],  # both 1: difference 0, statistic 0
        [[0, 0, 30, 0], [0, 0, 0, 7]],  # TPR 0 and 1
        [[0, 0, 3, 40], [0, 0, 25, 2]],  # a plain case: no fallback
    ],
)
def test_wald_zero_variance_fallback_is_the_permutation_tests_rule(counts):
    """Both rates 0 or 1: the plug-in variance is 0 and both the tolerance test's Wald
    statistic and the permutation test's unpooled one use rates shrunk by half a
    pseudo-observation with variance r(1 - r)/(n + 1) (one helper, one rule)."""
    tol = fastfair.tolerance_test_from_counts(counts, metric="tpr", method="wald", reference=1)
    perm = fastfair.permutation_test_from_counts(
        counts, metric="tpr", variance="unpooled", reference=1, method="asymptotic"
    )
    assert tol.statistic == pytest.approx(perm.statistic, rel=1e-12, abs=1e-12)
    (fn_a, tp_a), (fn_b, tp_b) = (c[2:] for c in counts)
    n_a, n_b = fn_a + tp_a, fn_b + tp_b
    diff = tp_a / n_a - tp_b / n_b
    var = tp_a / n_a * (1 - tp_a / n_a) / n_a + tp_b / n_b * (1 - tp_b / n_b) / n_b
    if var == 0:
        r_a, r_b = (tp_a + 0.5) / (n_a + 1), (tp_b + 0.5) / (n_b + 1)
        var = r_a * (1 - r_a) / (n_a + 1) + r_b * (1 - r_b) / (n_b + 1)
    assert tol.statistic == pytest.approx(diff / math.sqrt(var) if diff else 0.0, abs=1e-12)
    assert np.isfinite(tol.statistic) and np.isfinite(tol.pvalue)


def test_auc_tolerance_delong_and_logit_mover():
    rng = np.random.default_rng(1)
    n = 800
    group = rng.integers(0, 2, n)
    y = rng.random(n) < 0.4
    score = rng.normal(size=n) + y * (1.2 - 0.4 * group)
    res = fastfair.tolerance_test(
        y, score, group, metric="auc", u_tol=0.02, alternative="greater", reference=1,
        method="delong",
    )  # fmt: skip
    d = fastfair.delong(y, score, group)
    diff = d.auc[0] - d.auc[1]
    z = (diff - 0.02) / math.sqrt(d.variance.sum())
    assert res.difference == pytest.approx(diff) and res.statistic == pytest.approx(z)
    assert res.pvalue == pytest.approx(special.ndtr(-z)) and res.method == "delong"
    # "logit": MOVER from logit-scale intervals, solved here with brentq; "logit-t" (the
    # default): each group's interval at level Phi(z) from the t with min(n+, n-) - 1 df
    logit = fastfair.tolerance_test(
        y, score, group, metric="auc", u_tol=0.02, alternative="greater", reference=1,
        method="logit",
    )  # fmt: skip
    default = fastfair.tolerance_test(
        y, score, group, metric="auc", u_tol=0.02, alternative="greater", reference=1,
        method="logit-t",
    )  # fmt: skip
    dfs = np.minimum(d.n_pos, d.n_neg) - 1.0

    def lower(zz, u=0.02, t=False):
        ends = []
        for k, sign in ((0, -1), (1, 1)):
            a, v = d.auc[k], d.variance[k]
            q = stats.t.ppf(special.ndtr(zz), dfs[k]) if t else zz
            ends.append(special.expit(special.logit(a) + sign * q * math.sqrt(v) / (a * (1 - a))))
        return diff - math.sqrt((d.auc[0] - ends[0]) ** 2 + (ends[1] - d.auc[1]) ** 2) - u

    for res, t in ((logit, False), (default, True)):
        z_star = optimize.brentq(lambda zz, t=t: lower(zz, t=t), 0, 20, xtol=1e-12)
        assert res.statistic == pytest.approx(z_star, rel=1e-8)
        assert res.pvalue == pytest.approx(special.ndtr(-z_star), rel=1e-8)
        assert res.confidence_interval[0] == pytest.approx(
            lower(special.ndtri(0.975), 0.0, t), abs=1e-10
        )
        assert res.confidence_interval[1] > diff > res.confidence_interval[0]
    assert logit.method == "logit" and default.method == "logit-t"
    assert default.pvalue > logit.pvalue  # the t reference is wider


def _newcombe_end(auc, n_pos, n_neg, z, side):
    """Newcombe's (2006, Method 5) interval end, by brentq on |A - theta| = z sqrt(V)."""
    n_star = (n_pos + n_neg) / 2 - 1

    def excess(theta):
        q = (2 - theta) * (1 + theta)
        var = theta * (1 - theta) * (2 * n_star - 1 - 3 * (n_star - 1) / q) / (n_pos * n_neg)
        return abs(auc - theta) - z * math.sqrt(max(var, 0.0))

    inner = auc if 0 < auc < 1 else abs(auc - 1e-12)  # V = 0 at an AUC of 0 or 1
    if side == "lower":
        return optimize.brentq(excess, 1e-15, inner, xtol=1e-14) if auc > 0 else 0.0
    return optimize.brentq(excess, inner, 1 - 1e-15, xtol=1e-14) if auc < 1 else 1.0


@pytest.mark.parametrize(
    "auc, n_pos, n_neg, z, lower, upper",
    [(1.0, 25, 25, 1.645, 0.9452812333625968, 1.0), (0.0, 25, 25, 1.645, 0.0, 0.05471876663)],
)
def test_newcombe_interval_at_separation(auc, n_pos, n_neg, z, lower, upper):
    """A perfectly separated sample (AUC 0 or 1, DeLong variance 0) still has a wide
    score-type interval: 25 per class cannot show an AUC above 0.946 at one-sided 95%."""
    from fastfair.tolerance.statistics import _newcombe_limits

    lo, hi = _newcombe_limits(auc, n_pos, n_neg, z)
    assert lo == pytest.approx(lower, abs=1e-10) and hi == pytest.approx(upper, abs=1e-10)
    end = _newcombe_end(auc, n_pos, n_neg, z, "lower" if auc == 1 else "upper")
    assert end == pytest.approx(lower if auc == 1 else upper, abs=1e-10)


def test_newcombe_limits_match_root_finding():
    """The quartic's companion-matrix roots (polished) against brentq on 400 random
    settings, from 1 positive to 5,000 negatives, levels up to z = 5 and down to 1e-9, and
    where the quartic degenerates (bisection takes over)."""
    from fastfair.tolerance.statistics import _newcombe_limits

    rng = np.random.default_rng(8)
    k = 400
    auc = np.r_[rng.uniform(0, 1, k - 100), rng.uniform(0.97, 1, 100)]
    n_pos = rng.integers(1, 400, k).astype(float)
    n_neg = rng.integers(1, 5000, k).astype(float)
    n_pos[:40] = rng.integers(1, 4, 40)
    z = rng.uniform(0, 5, k)
    z[40:60] = 10.0 ** rng.uniform(-9, -3, 20)
    # one positive and one negative at z = 1: the quartic's leading coefficient vanishes
    auc[60:64], n_pos[60:64], n_neg[60:64], z[60:64] = [0.1, 0.25, 0.5, 0.9], 1, 1, 1.0
    lo, hi = _newcombe_limits(auc, n_pos, n_neg, z)
    for i in range(k):
        assert lo[i] == pytest.approx(_newcombe_end(auc[i], n_pos[i], n_neg[i], z[i], "lower"),
                                      abs=1e-11)  # fmt: skip
        assert hi[i] == pytest.approx(_newcombe_end(auc[i], n_pos[i], n_neg[i], z[i], "upper"),
                                      abs=1e-11)  # fmt: skip


def test_auc_tolerance_hybrid_is_the_union_of_logit_t_and_newcombe():
    """method="hybrid" (the default): MOVER from each group's union of the logit-t interval
    and Newcombe's score-type interval (a group with fewer than 100 positives or negatives;
    the reference here has more and keeps logit-t), solved here with brentq from scratch.
    With 12 positives in group 0 and an AUC near 1 the union is Newcombe's (wider there)."""
    rng = np.random.default_rng(3)
    group = np.repeat([0, 1], [60, 600])
    y = np.r_[np.arange(60) < 12, rng.random(600) < 0.3]
    score = rng.normal(size=660) + y * np.where(group == 0, 2.8, 1.6)
    d = fastfair.delong(y, score, group)
    res = fastfair.tolerance_test(
        y, score, group, metric="auc", u_tol=0.02, alternative="greater", reference=1
    )
    assert res.method == "hybrid" == fastfair.tolerance.AUC_DEFAULT
    dfs = np.minimum(d.n_pos, d.n_neg) - 1.0
    diff = d.auc[0] - d.auc[1]

    def ends(k, zz):
        a, v = d.auc[k], d.variance[k]
        q = stats.t.ppf(special.ndtr(zz), dfs[k])
        half = q * math.sqrt(v) / (a * (1 - a))
        lo, hi = (special.expit(special.logit(a) + s * half) for s in (-1, 1))
        if min(d.n_pos[k], d.n_neg[k]) >= 100:  # NEWCOMBE_BELOW: logit-t alone
            return lo, hi
        n_lo = _newcombe_end(a, d.n_pos[k], d.n_neg[k], zz, "lower")
        n_hi = _newcombe_end(a, d.n_pos[k], d.n_neg[k], zz, "upper")
        return min(lo, n_lo), max(hi, n_hi)

    def lower(zz, u=0.02):
        (lo_a, _), (_, hi_b) = ends(0, zz), ends(1, zz)
        return diff - math.sqrt((d.auc[0] - lo_a) ** 2 + (hi_b - d.auc[1]) ** 2) - u

    z_star = optimize.brentq(lower, 1e-9, 20, xtol=1e-12)
    assert res.statistic == pytest.approx(z_star, rel=1e-8)
    assert res.pvalue == pytest.approx(special.ndtr(-z_star), rel=1e-8)
    assert res.confidence_interval[0] == pytest.approx(lower(special.ndtri(0.975), 0.0), abs=1e-10)
    # group 0's union is Newcombe's lower end, strictly below the logit-t one
    a0 = d.auc[0]
    q0 = stats.t.ppf(0.975, dfs[0])
    logit_lo = special.expit(special.logit(a0) - q0 * math.sqrt(d.variance[0]) / (a0 * (1 - a0)))
    assert _newcombe_end(a0, d.n_pos[0], d.n_neg[0], special.ndtri(0.975), "lower") < logit_lo
    logit_t = fastfair.tolerance_test(
        y, score, group, metric="auc", u_tol=0.02, alternative="greater", reference=1,
        method="logit-t",
    )  # fmt: skip
    assert res.pvalue > logit_t.pvalue


def test_hybrid_widens_only_groups_below_newcombe_below():
    """A group with at least NEWCOMBE_BELOW (100) positives and negatives keeps its logit-t
    interval under "hybrid" (the p-value equals logit-t's to the bit); with 99 positives the
    Newcombe interval widens it where the AUC is high."""
    from fastfair.tolerance import NEWCOMBE_BELOW

    rng = np.random.default_rng(11)
    sizes = (2 * NEWCOMBE_BELOW, 1000)
    group = np.repeat([0, 1], sizes)
    for n_pos, same in ((NEWCOMBE_BELOW, True), (NEWCOMBE_BELOW - 1, False)):
        y = np.r_[np.arange(sizes[0]) < n_pos, rng.random(sizes[1]) < 0.3]
        score = rng.normal(size=sum(sizes)) + y * np.where(group == 0, 2.6, 1.5)
        res = {
            m: fastfair.tolerance_test(y, score, group, metric="auc", u_tol=0.02,
                                       alternative="greater", reference=1, method=m)
            for m in ("hybrid", "logit-t")
        }  # fmt: skip
        if same:
            assert res["hybrid"].pvalue == res["logit-t"].pvalue
            assert res["hybrid"].confidence_interval == res["logit-t"].confidence_interval
        else:
            assert res["hybrid"].pvalue > res["logit-t"].pvalue


def test_auc_margin_warns_with_few_positives_or_negatives():
    """Below AUC_WARN_BELOW[method] positives or negatives in a compared group the AUC margin
    p-value is approximate: a warning says so. "hybrid" (the default) is validated down to
    about 6 per class and warns below 5; "logit-t" exceeded alpha with 25-50 per class and
    warns below 100."""
    import warnings

    rng = np.random.default_rng(4)
    group = np.repeat([0, 1], [60, 400])
    y = np.r_[np.arange(60) < 4, rng.random(400) < 0.4]  # 4 positives in group 0
    score = rng.normal(size=460) + y
    with pytest.warns(fastfair.ApproximateLevelWarning, match="'hybrid'.*group.s. 0"):
        fastfair.tolerance_test(y, score, group, metric="auc", u_tol=0.02, reference=1)
    y[:60] = np.arange(60) < 57  # now 57 positives and 3 negatives
    with pytest.warns(fastfair.ApproximateLevelWarning):
        fastfair.equivalence_test(y, score, group, metric="auc", delta=0.1, reference=1)
    mid = np.r_[np.arange(60) < 20, rng.random(400) < 0.4]  # 20 positives, 40 negatives
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fastfair.tolerance_test(mid, score, group, metric="auc", u_tol=0.02, reference=1)
    with pytest.warns(fastfair.ApproximateLevelWarning, match="'logit-t'.*'hybrid'"):
        fastfair.tolerance_test(
            mid, score, group, metric="auc", u_tol=0.02, reference=1, method="logit-t"
        )


def test_row_metric_tolerance_uses_welch():
    rng = np.random.default_rng(2)
    group = np.repeat([0, 1], [300, 200])
    y = rng.normal(size=500)
    pred = y + rng.normal(scale=np.where(group == 0, 1.0, 1.2))
    res = fastfair.tolerance_test(
        y, pred, group, metric="mse", u_tol=0.1, alternative="greater", reference=0
    )
    sq = (y - pred) ** 2
    a, b = sq[group == 1], sq[group == 0]
    se = math.sqrt(a.var(ddof=1) / 200 + b.var(ddof=1) / 300)
    assert res.statistic == pytest.approx((a.mean() - b.mean() - 0.1) / se)
    assert res.method == "welch"


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"u_tol": -0.1}, ValueError, "u_tol"),
        ({"u_tol": 1.0}, ValueError, "u_tol"),
        ({"u_tol": "a"}, TypeError, "u_tol"),
        ({"metric": "equalized_odds"}, ValueError, "separately"),
        ({"method": "delong"}, ValueError, "method"),
        ({"method": "logit"}, ValueError, "method"),
        ({"alternative": "both"}, ValueError, "alternative"),
        ({"adjust": "maxT"}, ValueError, "adjust"),
        ({"confidence_level": 1.0}, ValueError, "confidence_level"),
    ],
)
def test_tolerance_bad_input(kwargs, error, match):
    with pytest.raises(error, match=match):
        fastfair.tolerance_test_from_counts(COUNTS, **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"delta": 0.0}, "delta"), ({"delta": 0.05, "alpha": 0.5}, "alpha")],
)
def test_equivalence_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        fastfair.equivalence_test_from_counts(COUNTS, **kwargs)


# --------------------------------------------------------------------------------------
# Planning for these tests
# --------------------------------------------------------------------------------------


def test_equivalence_sample_size_closed_form_at_zero_gap():
    from fastfair.planning import power, sample_size

    # sigma^2 = 0.25 in both groups, half each: sigma_U = 1 / sqrt(n); TOST power at tau = 0
    # is 2 Phi(delta sqrt(n) - z_(1-alpha)) - 1, so n = ((z_0.95 + z_0.9) / delta)^2
    res = sample_size(sigma2=[0.25, 0.25], tau=0.0, delta=0.05)
    expected = ((special.ndtri(0.95) + special.ndtri(0.9)) / 0.05) ** 2
    assert res.n == pytest.approx(expected, rel=1e-9)
    assert "TOST" in repr(res) and res.delta == 0.05
    # a true gap of 0.02: power from the two one-sided terms, checked by the formula
    res = sample_size(sigma2=[0.25, 0.25], tau=0.02, delta=0.05)
    se = 1 / math.sqrt(res.n)
    z = special.ndtri(0.95)
    pw = special.ndtr((0.05 - 0.02) / se - z) + special.ndtr((0.05 + 0.02) / se - z) - 1
    assert pw == pytest.approx(0.8, abs=1e-9)
    assert power(sigma2=[0.25, 0.25], tau=0.02, n=res.n, delta=0.05).power == pytest.approx(0.8)
    with pytest.raises(ValueError, match="delta"):
        sample_size(sigma2=[0.25, 0.25], tau=0.06, delta=0.05)
    with pytest.raises(ValueError, match="not both"):
        power(sigma2=[0.25, 0.25], tau=0.01, n=100, delta=0.05, u_tol=0.01)


def test_tost_power_is_zero_not_negative_with_few_units():
    """20 units: sigma_U = 1 / sqrt(20) and the two one-sided terms of the TOST power sum
    below 1; the power is then 0 (METHODS: "at least 0"), not negative."""
    from fastfair.planning import power

    se, z = 1 / math.sqrt(20), special.ndtri(0.95)
    raw = special.ndtr((0.05 - 0.02) / se - z) + special.ndtr((0.05 + 0.02) / se - z) - 1
    assert raw < 0
    res = power(sigma2=[0.25, 0.25], tau=0.02, n=20, delta=0.05, allocation="equal")
    assert res.power == 0.0


def test_tost_plan_with_three_groups_gives_every_comparison_the_power():
    """Three groups, equal allocation, alpha / 2 per comparison: the plan is the n at which
    the harder comparison (the larger variance) has TOST power 0.8, by the formula."""
    from fastfair.planning import sample_size

    s2 = np.array([0.25, 0.16, 0.21])
    res = sample_size(sigma2=s2, tau=0.01, delta=0.05, allocation="equal")
    z, n_g = special.ndtri(1 - 0.05 / 2), res.n / 3
    se = np.sqrt((s2[0] + s2[1:]) / n_g)
    pw = special.ndtr(0.04 / se - z) + special.ndtr(0.06 / se - z) - 1
    assert pw.min() == pytest.approx(0.8, abs=1e-6)
    assert pw.max() > 0.81


def test_score_plan_with_three_groups_is_the_largest_comparisons():
    """Per comparison with the reference, (z sqrt(V0) + z_b sqrt(V1))^2 / tau^2 with V0 at
    the pooled rate (u_tol = 0) and z at alpha / 2 two-sided; the plan (equal allocation,
    where the comparisons differ) is the largest."""
    from fastfair.planning import sample_size

    r, prev = np.array([0.70, 0.62, 0.66]), np.array([0.3, 0.35, 0.4])
    plan = sample_size(
        "tpr", rates={"tpr": r, "prevalence": prev}, tau=0.08, variance="score", allocation="equal"
    )
    n = plan.allocation * prev  # positives per unit of total n
    z, zb = special.ndtri(1 - 0.025 / 2), special.ndtri(0.8)
    per = []
    for g in (1, 2):
        pair = [0, g]
        pooled = (r[pair] * n[pair]).sum() / n[pair].sum()
        v0 = pooled * (1 - pooled) * (1 / n[pair]).sum()
        v1 = (r[pair] * (1 - r[pair]) / n[pair]).sum()
        per.append((z * math.sqrt(v0) + zb * math.sqrt(v1)) ** 2 / 0.08**2)
    assert plan.n == pytest.approx(max(per))
    assert min(per) < 0.95 * max(per)


TABLE2_TPR = {"tpr": [0.6835, 0.7894], "prevalence": [0.3478, 0.4404]}


def test_planned_n_gives_the_promised_power_of_the_score_tolerance_test():
    from fastfair.planning import sample_size, simulate_power

    plan = sample_size("tpr", rates=TABLE2_TPR, tau=0.7894 - 0.6835, u_tol=0.02)
    sim = simulate_power(
        "tpr", rates=TABLE2_TPR, n_per_group=plan.n_per_group_ceil, u_tol=0.02, test="score",
        n_sim=2000, random_state=3,
    )  # fmt: skip
    assert abs(sim.power - 0.8) <= 3 * math.sqrt(0.16 / 2000) + 0.02
    assert "H0: U <= 0.02" in repr(sim)


def test_score_variance_plan_matches_the_pooled_formula_at_zero_tolerance():
    from fastfair.planning import sample_size

    r, prev = np.array([0.6835, 0.7894]), np.array([0.3478, 0.4404])
    tau = r[1] - r[0]
    wald = sample_size("tpr", rates={"tpr": r, "prevalence": prev}, tau=tau, test="asymptotic")
    plan = sample_size("tpr", rates={"tpr": r, "prevalence": prev}, tau=tau, variance="score")
    n = plan.allocation * prev  # positives per unit of total n (the score test's denominators)
    pooled = (r * n).sum() / n.sum()  # at u_tol = 0 the restricted fit is the pooled rate
    v0 = pooled * (1 - pooled) * (1 / n).sum()
    v1 = (r * (1 - r) / n).sum()
    z, zb = special.ndtri(0.975), special.ndtri(0.8)
    assert plan.n == pytest.approx((z * math.sqrt(v0) + zb * math.sqrt(v1)) ** 2 / tau**2)
    assert np.allclose(plan.allocation, wald.allocation) and plan.n > wald.n
    with pytest.raises(ValueError, match="rate metrics"):
        sample_size(sigma2=[0.2, 0.2], tau=0.1, variance="score")
    with pytest.raises(ValueError, match="variance"):
        sample_size(sigma2=[0.2, 0.2], tau=0.1, variance="pooled")


def test_score_tolerance_level_at_the_boundary_in_simulate_power():
    from fastfair.planning import simulate_power

    rates = {"tpr": [0.72, 0.70], "prevalence": [0.4, 0.4]}  # gap exactly u_tol
    sim = simulate_power(
        "tpr", rates=rates, n_per_group=[2000, 2000], u_tol=0.02, alternative="greater",
        test="score", n_sim=4000, random_state=4,
    )  # fmt: skip
    assert abs(sim.power - 0.05) <= 3 * math.sqrt(0.05 * 0.95 / 4000)


def test_planned_n_gives_the_promised_power_of_tost():
    from fastfair.planning import sample_size, simulate_power

    rates = {"tpr": [0.7894, 0.7894], "prevalence": [0.3478, 0.4404]}
    plan = sample_size("tpr", rates=rates, tau=0.0, delta=0.05)
    sim = simulate_power(
        "tpr", rates=rates, n_per_group=plan.n_per_group_ceil, delta=0.05, test="score",
        n_sim=2000, random_state=5,
    )  # fmt: skip
    assert abs(sim.power - 0.8) <= 3 * math.sqrt(0.16 / 2000) + 0.02
    assert sim.formula_power == pytest.approx(0.8, abs=2e-3)
    # level twin: at a true gap equal to delta TOST shows equivalence at most alpha of the time
    edge = {"tpr": [0.7394, 0.7894], "prevalence": [0.3478, 0.4404]}
    sim = simulate_power(
        "tpr", rates=edge, n_per_group=plan.n_per_group_ceil, delta=0.05, test="score",
        n_sim=4000, random_state=6,
    )  # fmt: skip
    assert sim.power <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 4000)


def test_simulate_power_refuses_a_margin_for_permutation_tests():
    from fastfair.planning import simulate_power

    with pytest.raises(ValueError, match="equality"):
        simulate_power("tpr", rates=TABLE2_TPR, n_per_group=[100, 100], u_tol=0.02)


# --------------------------------------------------------------------------------------
# The audit: --tolerance and --equivalence
# --------------------------------------------------------------------------------------


def _demo():
    from importlib.resources import files

    import pandas as pd

    return pd.read_csv(files("fastfair") / "data" / "adult_demo.csv")


def test_docs_worked_example_numbers():
    """docs/tolerance.md's worked example on the demo data: the numbers it quotes are the
    ones the functions return (the "no evidence" vs "shown within +-delta" contrast)."""
    import pathlib

    text = (pathlib.Path(__file__).parents[1] / "docs" / "tolerance.md").read_text()
    df = _demo()
    perm = fastfair.permutation_test("label", "prediction", "sex", data=df, metric="ppv")
    eq5 = fastfair.equivalence_test(
        "label", "prediction", "sex", data=df, metric="ppv", delta=0.05
    )
    eq6 = fastfair.equivalence_test(
        "label", "prediction", "sex", data=df, metric="ppv", delta=0.06
    )
    assert perm.pvalue > 0.05 and not eq5.equivalent and eq6.equivalent
    quoted = [f"{perm.pvalue:.4f}", f"{eq5.equivalence_interval[1]:.4f}", f"{eq5.pvalue:.4f}"]
    quoted.append(f"p = {eq6.pvalue:.3f}")
    race = fastfair.equivalence_test("label", "prediction", "race", data=df, metric="fpr",
                                     delta=0.05)  # fmt: skip
    quoted += [f"{v:.4f}" for v in race.pvalue_adjusted]
    assert [q for q in quoted if q not in text] == []
    assert race.equivalent.tolist() == [False, True, True, False]


def test_audit_equivalence_verdicts_and_separate_family():
    df = _demo()
    res = fastfair.audit(
        "label", "prediction", ["race"], data=df, metrics=["fpr", "equalized_odds"],
        equivalence=0.05,
    )  # fmt: skip
    fpr = {t["group"]: t for t in res.tests if t["metric"] == "fpr"}
    cells, labels = fastfair.confusion_counts("label", "prediction", "race", data=df)
    index = {g: k for k, g in enumerate(labels.tolist())}
    for group, t in fpr.items():
        pair = cells[[index[group], index["White"]]]
        ref = fastfair.equivalence_test_from_counts(pair, [0, 1], metric="fpr", delta=0.05)
        assert t["pvalue_equivalence"] == pytest.approx(ref.pvalue, rel=1e-12)
    rows = [t for t in res.tests if "pvalue_equivalence" in t]
    adjusted = fastfair._pvalues.adjust_pvalues([t["pvalue_equivalence"] for t in rows], "holm")
    assert [t["pvalue_equivalence_adjusted"] for t in rows] == pytest.approx(list(adjusted))
    assert fpr["Black"]["verdict"] == "DIFFERENCE, within ±0.05"
    assert fpr["Asian-Pac-Islander"]["verdict"] == "FAIR within ±0.05"
    assert fpr["Asian-Pac-Islander"]["decision"] == "equivalent"
    assert res.summary["n_equivalent"] >= 1
    eo = next(t for t in res.tests if t["metric"] == "equalized_odds" and "error" not in t)
    pair = cells[[index[eo["group"]], index["White"]]]
    parts = [
        fastfair.equivalence_test_from_counts(pair, [0, 1], metric=m, delta=0.05).pvalue
        for m in ("tpr", "fpr")
    ]
    assert eo["pvalue_equivalence"] == pytest.approx(max(parts))
    assert "FAIR" in res.to_html() and "FAIR within ±0.05" in res.format()
    html = res.to_html()
    assert "No evidence of a gap vs. shown to be fair" in html
    shown = sum(t["pvalue_equivalence_adjusted"] <= 0.05 for t in rows)
    assert f"Here {shown} of {len(rows)} comparisons" in html and 0 < shown < len(rows)
    plain = fastfair.audit("label", "prediction", ["race"], data=df, metrics=["fpr"])
    assert "No evidence of a gap vs. shown" not in plain.to_html()


def test_audit_tolerance_replaces_the_difference_family():
    df = _demo()
    plain = fastfair.audit("label", "prediction", ["sex"], data=df, metrics=["tpr", "fpr"])
    res = fastfair.audit(
        "label", "prediction", ["sex"], data=df, metrics=["tpr", "fpr"], tolerance=0.02
    )
    cells, labels = fastfair.confusion_counts("label", "prediction", "sex", data=df)
    for t, t0 in zip(res.tests, plain.tests):
        ref = fastfair.tolerance_test_from_counts(cells, labels, metric=t["metric"], u_tol=0.02)
        assert t["pvalue_tolerance"] == pytest.approx(ref.pvalue, rel=1e-12)
        assert t["pvalue"] == t0["pvalue"]  # the test of equality is still reported
    adjusted = fastfair._pvalues.adjust_pvalues([t["pvalue_tolerance"] for t in res.tests], "holm")
    assert [t["pvalue_adjusted"] for t in res.tests] == pytest.approx(list(adjusted))
    assert any(t["verdict"] == "DIFFERENCE beyond ±0.02" for t in res.tests)
    with pytest.raises(ValueError, match="equivalence"):
        fastfair.audit("label", "prediction", ["sex"], data=df, equivalence=0.0)


def test_audit_auc_margins_are_tolerance_tests_default():
    """The audit's AUC tolerance and equivalence p-values are those of tolerance_test and
    equivalence_test (metric="auc", the default method) on the two groups' rows."""
    df = _demo()
    res = fastfair.audit(
        "label", "prediction", ["sex"], data=df, y_score="score", metrics=["tpr"],
        tolerance=0.02, equivalence=0.05,
    )  # fmt: skip
    (row,) = [t for t in res.tests if t["metric"] == "auc"]
    keep = df["sex"].isin([row["group"], row["reference"]])
    y, s, g = df["label"][keep], df["score"][keep], df["sex"][keep]
    tol = fastfair.tolerance_test(y, s, g, metric="auc", u_tol=0.02, reference=row["reference"])
    eq = fastfair.equivalence_test(y, s, g, metric="auc", delta=0.05, reference=row["reference"])
    assert tol.method == eq.method == fastfair.tolerance.AUC_DEFAULT
    assert row["pvalue_tolerance"] == pytest.approx(tol.pvalue, rel=1e-9)
    assert row["pvalue_equivalence"] == pytest.approx(eq.pvalue, rel=1e-9)


def test_cli_equivalence_flag(tmp_path, capsys):
    import json

    from fastfair.cli import main

    out = tmp_path / "audit.json"
    code = main(
        ["audit", "--demo", "--pred", "prediction", "--group", "race", "--metrics", "fpr",
         "--equivalence", "0.05", "--tolerance", "0.01", "--quiet", "--json", str(out)]
    )  # fmt: skip
    assert code == 0
    tests = json.loads(out.read_text())["tests"]
    verdicts = {t["group"]: t["verdict"] for t in tests}
    assert verdicts["Asian-Pac-Islander"] == "FAIR within ±0.05"
    assert all("pvalue_equivalence" in t and "pvalue_tolerance" in t for t in tests)
    assert "FAIR within ±0.05" in capsys.readouterr().out
    assert main(["audit", "--demo", "--equivalence", "1.5", "--quiet"]) == 2


def test_audit_notes_approximate_auc_margins():
    """A group with fewer than 5 negatives: equivalence_test warns
    (ApproximateLevelWarning) and the audit carries the same text as the row's margin_note,
    in its printed output and in the report's margins section; groups with 5 or more per
    class get no note."""
    rng = np.random.default_rng(4)
    group = np.repeat(["a", "b", "c"], [60, 400, 400])
    y = np.concatenate([np.arange(60) < 57, rng.random(800) < 0.5])  # a: 3 negatives
    score = rng.standard_normal(860) + 1.5 * y
    res = fastfair.audit(y, y, group, y_score=score, metrics=["tpr"], equivalence=0.05)
    auc = {t["group"]: t for t in res.tests if t["metric"] == "auc"}
    with pytest.warns(fastfair.ApproximateLevelWarning) as caught:
        fastfair.equivalence_test(
            y[group != "c"], score[group != "c"], group[group != "c"], metric="auc",
            delta=0.05, reference=auc["a"]["reference"],
        )  # fmt: skip
    assert auc["a"]["margin_note"] == str(caught[0].message)
    assert "margin_note" not in auc["c"]
    assert f"note: auc a vs {auc['a']['reference']}: AUC margin test" in res.format()
    html = res.to_html()
    assert "<b>Approximate</b>: 1 AUC comparison(s)" in html
    assert "fewer than 20 events or non-events" in html


def _scipy_supremum(x1, n1, x2, n2, d, side):
    """sup over p2 of P(Z(d) at least as extreme as observed) at (p2 + d, p2), with the
    tail summed by scipy (column x2 of the region is a run of x1) and the supremum found on
    3,002 nuisance values (uniform in p2 and in arcsin(sqrt(p2))), then polished by a
    bounded scalar maximisation between the best value's neighbours."""
    from fastfair._score import score_statistic

    z = score_statistic(np.arange(n1 + 1.0)[:, None], n1, np.arange(n2 + 1.0), n2, d)
    z_obs = z[x1, x2]
    inside = (
        z >= z_obs - 1e-9 * max(1, abs(z_obs))
        if side == "greater"
        else (z <= z_obs + 1e-9 * max(1, abs(z_obs)))
    )
    cols = np.flatnonzero(inside.any(axis=0))
    first = inside[:, cols].argmax(axis=0)  # "greater": x1 >= first; "less": x1 <= last
    last = n1 - inside[::-1, cols].argmax(axis=0)

    def tails(p2):  # P(region) at each nuisance value of the array p2
        p2 = np.asarray(p2, dtype=np.float64)[:, None]
        cdf1 = stats.binom.cdf(np.arange(-1, n1 + 1), n1, np.clip(p2 + d, 0, 1))
        inner = np.take_along_axis(cdf1, np.broadcast_to(last + 1, (len(p2), len(cols))), 1)
        inner -= np.take_along_axis(cdf1, np.broadcast_to(first, (len(p2), len(cols))), 1)
        log_choose = (
            special.gammaln(n2 + 1) - special.gammaln(cols + 1) - special.gammaln(n2 - cols + 1)
        )
        pmf2 = np.exp(log_choose + special.xlogy(cols, p2) + special.xlog1py(n2 - cols, -p2))
        return (pmf2 * inner).sum(axis=1)

    lo, hi = max(0.0, -d), min(1.0, 1.0 - d)
    grid = np.unique(np.concatenate([
        np.linspace(lo, hi, 1501),
        np.sin(np.linspace(*np.arcsin(np.sqrt([lo, hi])), 1501)) ** 2,
    ]))  # fmt: skip
    values = np.concatenate([tails(chunk) for chunk in np.array_split(grid, 16)])
    i = int(values.argmax())
    best = optimize.minimize_scalar(
        lambda p: -tails([p])[0],
        bounds=(grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]),
        method="bounded",
        options={"xatol": 1e-14},
    )
    return max(values.max(), -best.fun)


@pytest.mark.parametrize(
    ("x1", "n1", "x2", "n2", "d", "side"),
    [(4, 37, 2, 3687, 0.05, "greater"), (7, 294, 7, 4522, 0.05, "less")],
)
def test_exact_supremum_is_refined_on_both_sides_of_its_best_grid_points(x1, n1, x2, n2, d, side):
    """Against a supremum found independently (scipy tails, dense grid, bounded maximisation):
    to 1e-7. The peaks of these two tails lie between coarse grid points, one left of the
    best one and one right of it: refining on one side only is 6e-6 and 6e-5 low."""
    from fastfair._unconditional import exact_pvalue

    want = _scipy_supremum(x1, n1, x2, n2, d, side)
    assert exact_pvalue(x1, n1, x2, n2, d, side) == pytest.approx(want, rel=1e-7)


# --------------------------------------------------------------------------------------
# method="auto": the boundaries of the rule that sends a comparison to the exact test
# --------------------------------------------------------------------------------------


def _tpr_counts(events_a, n_a, events_b, n_b):
    """Confusion counts [tn, fp, fn, tp] whose TPR rows are events / n (group B the reference)."""
    return [[0, 0, n_a - events_a, events_a], [0, 0, n_b - events_b, events_b]]


@pytest.mark.parametrize(
    ("events_a", "n_a", "events_b", "n_b", "method"),
    [
        # balanced (ratio < 20): exact below 20 events or non-events in either group
        (19, 100, 50, 100, "exact"),
        (20, 100, 50, 100, "score"),
        (81, 100, 50, 100, "exact"),  # 19 non-events in A
        (80, 100, 50, 100, "score"),
        (50, 100, 19, 100, "exact"),  # 19 events in the reference
        (50, 100, 20, 100, "score"),
        (50, 100, 81, 100, "exact"),  # 19 non-events in the reference
        (50, 100, 80, 100, "score"),
        # one denominator 20 times the other: exact below 50
        (49, 120, 1000, 2400, "exact"),
        (50, 120, 1000, 2400, "score"),
        (60, 120, 2351, 2400, "exact"),  # 49 non-events in the larger group
        (60, 120, 2350, 2400, "score"),
        (1000, 2400, 49, 120, "exact"),  # the small group as the reference
        # just under 20 times: the balanced rule
        (49, 120, 1000, 2399, "score"),
        (19, 120, 1000, 2399, "exact"),
    ],
)
def test_auto_sends_each_boundary_to_its_side(events_a, n_a, events_b, n_b, method):
    """Each of the four counts (events and non-events of either group) can be the fewest,
    each threshold (20; 50 when one group is at least 20 times the other) is checked one
    below and at the boundary, and the ratio one below and at 20."""
    counts = _tpr_counts(events_a, n_a, events_b, n_b)
    res = fastfair.tolerance_test_from_counts(counts, u_tol=0.05, reference=1)
    assert res.method == method


def test_auto_exact_size_limits():
    """Exact only where it is cheap: n_A + n_B at most 200,000, or a smaller group of at
    most 500 rows whatever the reference's size (the rule itself: the exact test's cost at
    10^6 rows is checked elsewhere)."""
    from fastfair.tolerance import auto_exact

    few = 5
    assert auto_exact(few, 1_000, 199_000) and not auto_exact(few, 1_000, 199_001)
    assert auto_exact(few, 100_000, 100_000) and not auto_exact(few, 100_000, 100_001)
    assert auto_exact(few, 500, 5_000_000) and not auto_exact(few, 501, 5_000_000)
    assert auto_exact(few, 5_000_000, 500)  # either group may be the small one
    # arrays broadcast, as the validation scripts use it
    np.testing.assert_array_equal(
        auto_exact(np.array([19, 20, 49, 50]), 100, np.array([100, 100, 2000, 2000])),
        [True, False, True, False],
    )


def test_auto_never_runs_exact_on_weighted_rates():
    rng = np.random.default_rng(3)
    y = np.r_[np.ones(40), np.zeros(60), np.ones(40), np.zeros(60)].astype(int)
    yhat = (rng.random(200) < 0.1).astype(int)  # few predicted positives: exact if unweighted
    g = np.repeat([0, 1], 100)
    plain = fastfair.tolerance_test(y, yhat, g, metric="tpr", u_tol=0.05, reference=1)
    weighted = fastfair.tolerance_test(
        y, yhat, g, metric="tpr", u_tol=0.05, reference=1, sample_weight=np.full(200, 2.0)
    )
    assert (plain.method, weighted.method) == ("exact", "score")


def test_cdf_sums_of_interior_runs_are_the_windowed_sums(monkeypatch):
    """A region whose runs end inside the reference's range on both sides (|Z| <= c, a
    two-sided acceptance band) gets the same probabilities from the distribution-function
    sums (above CDF_ABOVE rows) as from the windowed sums: P(first <= X <= last) keeps
    the term X = first. One-sided p-values never have such runs, so this is their only check.
    """
    from fastfair import _unconditional

    for n1, n2, d in ((30, 20_000, 0.0), (12, 5_000, 0.02)):
        tails = _unconditional.BoundaryTails(n1, n2, d)
        mask = np.abs(tails.z) <= 1.0
        grid = np.linspace(0.01, 0.9, 60)
        monkeypatch.setattr(_unconditional, "CDF_ABOVE", 10**12)
        windowed = tails.probabilities(mask, grid)
        monkeypatch.setattr(_unconditional, "CDF_ABOVE", 0)
        assert tails._by_cdf
        cdf = tails.probabilities(mask, grid)
        np.testing.assert_allclose(cdf, windowed, rtol=0, atol=1e-12)
        # the band's runs are interior: each run leaves out outcomes on both sides
        assert 0.2 < windowed.min() and windowed.max() < 0.999


def test_audit_auc_margin_pvalue_matches_the_tolerance_and_equivalence_tests():
    """auc_margin_pvalue (the audit's AUC margin p-value) is the two-sided tolerance test /
    TOST of group 0 against the reference group 1 with the default AUC method; small
    classes in group 0 so that the two groups are not interchangeable."""
    rng = np.random.default_rng(8)
    group = np.r_[np.zeros(60, int), np.ones(400, int)]
    y = rng.random(group.size) < np.where(group == 0, 0.2, 0.5)
    score = rng.normal(size=group.size) + y * np.where(group == 0, 1.5, 0.8)
    d = fastfair.delong(y, score, group)
    args = (d.auc, d.variance, d.n_pos, d.n_neg)
    tol = fastfair.tolerance_test(y, score, group, metric="auc", u_tol=0.05, reference=1)
    eq = fastfair.equivalence_test(y, score, group, metric="auc", delta=0.3, reference=1)
    assert fastfair.tolerance.auc_margin_pvalue(*args, u_tol=0.05) == pytest.approx(
        tol.pvalue, rel=1e-12
    )
    assert fastfair.tolerance.auc_margin_pvalue(*args, delta=0.3) == pytest.approx(
        eq.pvalue, rel=1e-12
    )
    assert 1e-6 < tol.pvalue < 1 and 1e-6 < eq.pvalue < 1


@pytest.mark.parametrize("shift", [0.25, -0.25])
def test_two_sided_tolerance_statistic_is_that_of_the_smaller_pvalue_side(shift):
    """Two-sided: the statistic is Z at the boundary of the side with the smaller p-value
    (+u_tol when the gap is above 0, -u_tol when below), i.e. the one-sided test's Z."""
    rng = np.random.default_rng(3)
    group = np.repeat([0, 1], 300)
    y = np.ones(600, int)
    pred = rng.random(600) < np.where(group == 0, 0.5 + shift, 0.5)
    kw = dict(metric="tpr", u_tol=0.05, reference=1)
    two = fastfair.tolerance_test(y, pred, group, **kw)
    side = fastfair.tolerance_test(
        y, pred, group, alternative="greater" if shift > 0 else "less", **kw
    )
    assert two.statistic == pytest.approx(side.statistic, rel=1e-12)
    assert two.pvalue == pytest.approx(min(1.0, 2 * side.pvalue), rel=1e-12)


def test_equivalence_decision_reads_the_adjusted_pvalues_and_includes_alpha():
    """With several comparisons `equivalent` is adjusted p <= alpha (not the raw p); a
    p-value exactly equal to alpha is equivalent (the TOST rejects at p <= alpha)."""
    rng = np.random.default_rng(4)
    group = np.repeat([0, 1, 2, 3], 400)
    y = np.ones(group.size, int)
    pred = rng.random(group.size) < 0.5
    kw = dict(metric="tpr", delta=0.1, reference=0, adjust="bonferroni")
    res = fastfair.equivalence_test(y, pred, group, **kw)
    raw, adj = np.asarray(res.pvalue), np.asarray(res.pvalue_adjusted)
    alpha = float(np.sort(adj)[1])  # two adjusted p-values at or below it, one above...
    res = fastfair.equivalence_test(y, pred, group, alpha=alpha, **kw)
    assert np.array_equal(res.equivalent, adj <= alpha)
    assert not np.array_equal(adj <= alpha, raw <= alpha)  # ...and the raw ones differ
    keep = group < 2
    two = fastfair.equivalence_test(y[keep], pred[keep], group[keep], metric="tpr", delta=0.1)
    at = fastfair.equivalence_test(
        y[keep], pred[keep], group[keep], metric="tpr", delta=0.1, alpha=two.pvalue
    )
    assert at.equivalent


def test_exact_accepts_a_small_group_against_a_reference_beyond_max_size():
    """The exact test's size rule looks at the smaller group: at most SMALL_GROUP_MAX rows
    against any reference, else n_A + n_B <= MAX_SIZE; on both sides of each limit, and
    method='exact' of 10 rows against 999,991 (beyond MAX_SIZE in all) runs, as "auto" does."""
    from fastfair._unconditional import MAX_SIZE, SMALL_GROUP_MAX, exact_feasible

    assert SMALL_GROUP_MAX == 500 and MAX_SIZE == 1_000_000
    cases = {
        (500, 2_000_000): True,  # the smaller group at its limit, the reference far beyond
        (2_000_000, 500): True,  # in either position
        (501, 999_499): True,  # n_A + n_B exactly MAX_SIZE
        (501, 999_500): False,  # one row more, both groups above SMALL_GROUP_MAX
        (999_500, 501): False,
    }
    for (n1, n2), accepted in cases.items():
        assert bool(exact_feasible(n1, n2)) is accepted, (n1, n2)
    counts = [[0, 0, 9, 1], [0, 0, 999_991, 0]]
    exact = fastfair.tolerance_test_from_counts(counts, alternative="greater", method="exact")
    auto = fastfair.tolerance_test_from_counts(counts, alternative="greater")
    assert exact.method == auto.method == "exact" and exact.pvalue == auto.pvalue
    with pytest.raises(ValueError, match="both groups above"):
        fastfair.tolerance_test_from_counts([[0, 0, 496, 5], [0, 0, 999_000, 1_000]],
                                            method="exact")  # fmt: skip


@pytest.mark.parametrize("x1, n1, x2, n2", [(3, 8, 1, 9), (5, 12, 2, 10)])
def test_exact_bound_rejects_a_margin_whose_pvalue_equals_alpha(x1, n1, x2, n2):
    # The lower bound is inf{d : p(d) > alpha}: a margin whose exact p-value equals alpha is
    # rejected, so it lies outside the interval. Take alpha to be the p-value at the
    # bisection's first midpoint: the bound must then lie just above that margin (within
    # the bisection's resolution), and the upper bound just below its mirror image.
    from fastfair._unconditional import exact_bound, exact_pvalue

    diff = x1 / n1 - x2 / n2
    for side, test, end in (("lower", "greater", -1.0), ("upper", "less", 1.0)):
        margin = 0.5 * (end + diff)
        alpha = exact_pvalue(x1, n1, x2, n2, margin, test)
        assert 0.0 < alpha < 0.5
        bound = exact_bound(x1, n1, x2, n2, alpha, side)
        inside = bound - margin if side == "lower" else margin - bound
        assert 0.0 < inside < 1e-4, (side, bound, margin)


def test_two_sided_tolerance_pvalue_is_capped_at_one_inside_the_margin():
    """Equal rates and u_tol = 0.1: both one-sided p-values exceed 1/2, so twice the
    smaller is above 1; the p-value is 1. Outside the margin (score test) it is twice the
    normal tail of the reported statistic."""
    res = fastfair.tolerance_test_from_counts([[60, 40, 30, 70], [60, 40, 30, 70]], u_tol=0.1)
    assert res.difference == 0.0 and res.pvalue == 1.0
    far = fastfair.tolerance_test_from_counts([[80, 20, 20, 80], [50, 50, 50, 50]], u_tol=0.1)
    assert far.method == "score" and abs(far.difference) == pytest.approx(0.3)
    assert far.pvalue == pytest.approx(2 * stats.norm.sf(abs(far.statistic)), rel=1e-9)


@pytest.mark.filterwarnings("ignore::fastfair.ApproximateLevelWarning")
@pytest.mark.parametrize("method", ["hybrid", "logit", "delong"])
def test_auc_margin_exactly_at_the_observed_difference_has_statistic_0(method):
    """AUCs 0.75 and 0.5 (by hand: 3 and 2 of 4 pairs, each row repeated 10 times) and
    u_tol = 0.25 = their difference: the upper null's statistic is 0 exactly and the
    two-sided p-value 1, not a bisection residue of 1e-13."""
    pos_a, neg_a, pos_b, neg_b = [1.0, 3.0], [0.0, 2.0], [1.0, 3.0], [0.0, 4.0]
    score = np.tile(np.r_[pos_a, neg_a, pos_b, neg_b], 10)
    y = np.tile([1, 1, 0, 0, 1, 1, 0, 0], 10)
    group = np.tile([0, 0, 0, 0, 1, 1, 1, 1], 10)
    res = fastfair.tolerance_test(
        y, score, group, metric="auc", u_tol=0.25, reference=1, method=method
    )
    assert res.group_values.tolist() == [0.75, 0.5]
    assert res.statistic == 0.0 and res.pvalue == 1.0


def test_auc_limits_of_an_auc_of_1_or_0_use_the_half_pseudo_pair_shrinkage():
    """200 positives and 200 negatives (no Newcombe widening): A' = (A m + 1/2) / (m + 1)
    with m = 40,000 pairs, V' = A'(1 - A') / m, the logit-t interval with min(n+, n-) - 1
    = 199 degrees of freedom, computed here from the formula."""
    from fastfair.tolerance.statistics import auc_limits

    m = 200 * 200
    q = stats.t.ppf(0.975, 199)
    lo, hi = auc_limits([1.0, 0.0], [0.0, 0.0], [200, 200], [200, 200])
    for k, auc in enumerate((1.0, 0.0)):
        a = (auc * m + 0.5) / (m + 1)
        half = q * math.sqrt(a * (1 - a) / m) / (a * (1 - a))
        assert lo[k] == pytest.approx(special.expit(special.logit(a) - half), rel=1e-9)
        assert hi[k] == pytest.approx(special.expit(special.logit(a) + half), rel=1e-9)


@pytest.mark.parametrize("side", ["greater", "less"])
def test_exact_critical_value_is_beyond_every_z_when_none_reaches_alpha(side):
    """Groups of 2 and 2 rows: the smallest exact p-value of any attainable Z is above
    0.05, so no Z rejects: critical_value is +inf for "greater" and -inf for "less", and the
    rejection rule (Z >= it, or Z <= it) holds for no outcome."""
    from fastfair._unconditional import BoundaryTails

    tails = BoundaryTails(2, 2, 0.0)  # smallest p-value 1/16
    smallest = min(tails.pvalue(float(v), side) for v in np.unique(tails.z))
    assert smallest > 0.05
    crit = tails.critical_value(0.05, side)
    assert crit == (np.inf if side == "greater" else -np.inf)
    assert not (tails.z >= crit if side == "greater" else tails.z <= crit).any()


@pytest.mark.parametrize("side", ["greater", "less"])
def test_exact_critical_value_includes_a_pvalue_equal_to_alpha(side):
    """critical_value(alpha) is the least extreme attainable Z whose exact p-value is <=
    alpha, found here by scanning every attainable Z; alpha set exactly to the p-value of
    some Z must return that Z, not the next more extreme one."""
    from fastfair._unconditional import BoundaryTails

    tails = BoundaryTails(8, 10, 0.0)
    values = np.unique(tails.z)
    pvalues = {float(v): tails.pvalue(float(v), side) for v in values}
    for v in values[2:-2]:
        alpha = pvalues[float(v)]
        reaching = [u for u, p in pvalues.items() if p <= alpha]
        want = min(reaching) if side == "greater" else max(reaching)
        assert tails.critical_value(alpha, side) == want


@pytest.mark.parametrize("n2", [9, 17, 21])
def test_exact_pvalue_of_the_least_extreme_outcome_is_one_not_above(n2):
    """Every outcome is at least as extreme as the least extreme one: its p-value is the
    whole binomial mass, 1; summed on the nuisance grid it rounds to 1 + 2e-15 with one
    row in a group, and the supremum is capped at 1."""
    from fastfair._unconditional import exact_pvalue

    assert exact_pvalue(0, 1, n2, n2, 0.0, "greater") == 1.0
    assert exact_pvalue(1, 1, 0, n2, 0.0, "less") == 1.0


def _repr_rows(text, first_header):
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.split()[:1] == [first_header])
    return lines[start].split(), [ln.split() for ln in lines[start + 1 :] if ln.startswith("  ")]


THREE = [[500, 40, 30, 170], [450, 60, 55, 120], [300, 20, 40, 90]]  # TPR .85, .686, .692


_holm = runpy.run_path(str(pathlib.Path(__file__).with_name("_by_hand.py")))["holm"]


def test_tolerance_repr_reads_back_hypothesis_groups_and_comparisons():
    """ToleranceTestResult's repr, alternative "less", three groups: the head states
    H1: U < -u_tol; the group table each TPR and its positives; each comparison's row the
    difference, the interval (around it), the brute-force score statistic at -u_tol, its
    p-value Phi(Z) and Holm's adjusted p-value (different from the raw one)."""
    res = fastfair.tolerance_test_from_counts(
        THREE,
        ["a", "b", "c"],
        metric="tpr",
        u_tol=0.02,
        alternative="less",
        method="score",
        reference="a",
    )
    fmt = fastfair._format.format_value
    text = repr(res)
    assert "H1: U < -0.02," in text.splitlines()[0]
    for alternative, h1 in (("greater", "H1: U > 0.02,"), ("two-sided", "H1: |U| > 0.02,")):
        other = fastfair.tolerance_test_from_counts(THREE, ["a", "b", "c"], metric="tpr",
                                                    u_tol=0.02, alternative=alternative,
                                                    method="score", reference="a")  # fmt: skip
        assert h1 in repr(other).splitlines()[0]
    tp = [c[3] for c in THREE]
    pos = [c[2] + c[3] for c in THREE]
    header, rows = _repr_rows(text, "group")
    assert header == ["group", "tpr", "denominator"]
    assert rows[:3] == [[g, fmt(tp[k] / pos[k]), str(pos[k])] for k, g in enumerate("abc")]
    z = [_brute_z(tp[k], pos[k], tp[0], pos[0], -0.02) for k in (1, 2)]
    p = stats.norm.cdf(z)
    adjusted = _holm(p)
    assert abs(adjusted[0] - p[0]) > 1e-4
    lo, hi = res.confidence_interval
    header, rows = _repr_rows(text, "comparison")
    assert header[-4:] == ["statistic", "pvalue", "adjusted", "(holm)"]
    for c, k in enumerate((1, 2)):
        diff = tp[k] / pos[k] - tp[0] / pos[0]
        assert lo[c] < diff < hi[c]
        interval = [f"[{fmt(lo[c])},", f"{fmt(hi[c])}]"]
        assert rows[c] == [
            f"{'abc'[k]}",
            "-",
            "a",
            fmt(diff),
            *interval,
            fmt(z[c]),
            fmt(p[c]),
            fmt(adjusted[c]),
        ]


def test_equivalence_repr_reads_back_the_tost_pvalue_and_verdict_per_comparison():
    """EquivalenceTestResult's repr, three groups: each row's TOST p-value (the larger of
    the brute-force one-sided score p-values at -delta and +delta), the verdict from
    Holm's adjusted p-value, and that adjusted p-value; the 1 - 2 alpha interval header. At
    delta = 0.24 both raw p-values are below alpha and both adjusted ones above it."""
    split = 0
    for delta in (0.2, 0.24, 0.26):
        res = fastfair.equivalence_test_from_counts(
            THREE, ["a", "b", "c"], metric="tpr", delta=delta, method="score", reference="a"
        )
        fmt = fastfair._format.format_value
        tp = [c[3] for c in THREE]
        pos = [c[2] + c[3] for c in THREE]
        p, lows, ups = [], [], []
        for k in (1, 2):
            z_low = _brute_z(tp[k], pos[k], tp[0], pos[0], -delta)
            z_up = _brute_z(tp[k], pos[k], tp[0], pos[0], delta)
            p.append(max(stats.norm.sf(z_low), stats.norm.cdf(z_up)))
            lows.append(z_low)
            ups.append(z_up)
        # statistic: (Z at -delta, Z at +delta) per comparison, in that order
        np.testing.assert_allclose(res.statistic[0], lows, rtol=1e-7)
        np.testing.assert_allclose(res.statistic[1], ups, rtol=1e-7)
        adjusted = _holm(np.array(p))
        header, rows = _repr_rows(repr(res), "comparison")
        assert header[2:4] == ["90%", "CI"]
        for c in range(2):
            verdict = "yes" if adjusted[c] <= 0.05 else "no"
            assert rows[c][-3:] == [fmt(p[c]), verdict, fmt(adjusted[c])]
            split += p[c] <= 0.05 < adjusted[c]
    assert split >= 1


def test_weighted_rates_report_the_users_sums_of_weights_as_denominators():
    """Weighted tolerance and equivalence tests of a rate, three groups: each group's
    denominator (field and repr column) is the sum of the user's weights over its negatives
    (FPR), in the weights' unit, as permutation_test reports; the rates are the weighted
    FPRs (numpy)."""
    rng = np.random.default_rng(36)
    g = rng.integers(0, 3, 600)
    y = rng.integers(0, 2, 600)
    pred = (rng.random(600) < 0.4 + 0.1 * g).astype(int)
    w = rng.uniform(0.5, 2.0, 600) * 1000.0
    neg = [(g == k) & (y == 0) for k in range(3)]
    sums = np.array([w[m].sum() for m in neg])
    fpr = np.array([np.average(pred[m], weights=w[m]) for m in neg])
    fmt = fastfair._format.format_value
    tol = fastfair.tolerance_test(y, pred, g, metric="fpr", u_tol=0.02, sample_weight=w)
    eq = fastfair.equivalence_test(y, pred, g, metric="fpr", delta=0.2, sample_weight=w)
    perm = fastfair.permutation_test(
        y, pred, g, metric="fpr", sample_weight=w, n_permutations=19, random_state=1
    )
    for res in (tol, eq, perm):
        np.testing.assert_allclose(res.group_denominators, sums, rtol=1e-12)
        np.testing.assert_allclose(res.group_values, fpr, rtol=1e-12)
    for res in (tol, eq):
        _, rows = _repr_rows(repr(res), "group")
        assert rows[:3] == [[str(k), fmt(fpr[k]), fmt(sums[k])] for k in range(3)]


def test_audit_margin_pvalue_from_counts_is_group_0_against_reference_1():
    """margin_pvalue_from_counts (the audit's rate margin p-value) of two rows of counts:
    group 0's TPR minus the reference (row 1) TPR, the two-sided tolerance p-value
    min(1, 2 min(Phi(-Z(u)), Phi(Z(-u)))) and the TOST p-value max(Phi(-Z(-delta)),
    Phi(Z(delta))) from the brute-force Miettinen-Nurminen Z (score test: 30 or more events
    and non-events in both groups)."""
    x0, n0 = COUNTS[0][3], COUNTS[0][2] + COUNTS[0][3]
    x1, n1 = COUNTS[1][3], COUNTS[1][2] + COUNTS[1][3]
    u, delta = 0.1, 0.2
    two_sided = min(1.0, 2 * min(stats.norm.sf(_brute_z(x0, n0, x1, n1, u)),
                                 stats.norm.cdf(_brute_z(x0, n0, x1, n1, -u))))  # fmt: skip
    tost = max(stats.norm.sf(_brute_z(x0, n0, x1, n1, -delta)),
               stats.norm.cdf(_brute_z(x0, n0, x1, n1, delta)))  # fmt: skip
    margin = fastfair.tolerance.margin_pvalue_from_counts
    assert margin(np.array(COUNTS), "tpr", u_tol=u) == pytest.approx(two_sided, rel=1e-7)
    assert margin(np.array(COUNTS), "tpr", delta=delta) == pytest.approx(tost, rel=1e-7)
    assert 1e-4 < two_sided < 0.9 and 1e-4 < tost < 0.9


def test_audit_auc_difference_interval_is_the_hybrid_tests_mover_interval():
    """auc_difference_interval (the audit's AUC difference interval) of group 0 against the
    reference group 1, group 0 with few positives (Newcombe's widening applies to it only):
    the MOVER combination of each group's auc_limits written out here, lower D - sqrt((A_0
    - l_0)^2 + (u_1 - A_1)^2), upper D + sqrt((u_0 - A_0)^2 + (A_1 - l_1)^2), and equal to
    the default (hybrid) AUC tolerance test's confidence interval on the rows."""
    rng = np.random.default_rng(8)
    group = np.r_[np.zeros(60, int), np.ones(400, int)]
    y = rng.random(group.size) < np.where(group == 0, 0.2, 0.5)
    score = rng.normal(size=group.size) + y * np.where(group == 0, 1.5, 0.8)
    d = fastfair.delong(y, score, group)
    (lo0, lo1), (hi0, hi1) = fastfair.tolerance.auc_limits(d.auc, d.variance, d.n_pos, d.n_neg)
    a0, a1 = d.auc
    diff = a0 - a1
    want = (diff - np.hypot(a0 - lo0, hi1 - a1), diff + np.hypot(hi0 - a0, a1 - lo1))
    got = fastfair.tolerance.auc_difference_interval(d.auc, d.variance, d.n_pos, d.n_neg, [0], [1])
    np.testing.assert_allclose(np.ravel(got), want, rtol=1e-9)
    assert abs((a0 - lo0) - (hi0 - a0)) > 1e-3  # asymmetric limits: the ends matter
    tol = fastfair.tolerance_test(y, score, group, metric="auc", u_tol=0.05, reference=1)
    np.testing.assert_allclose(tol.confidence_interval, want, rtol=1e-6)


def test_margin_errors_state_the_documented_range_per_margin_and_metric():
    """The margin's error states its documented range: u_tol >= 0 (0 allowed) and delta > 0
    (0 refused), both below 1 for rates and AUC; a row metric's margin only finite (a gap
    of 2 in squared error is a valid margin there)."""
    for value in (-0.1, 1.0):
        with pytest.raises(ValueError, match=r"u_tol must be >= 0 and < 1 \(a gap between"):
            fastfair.tolerance_test_from_counts(COUNTS, u_tol=value)
    for value in (0.0, -0.1, 1.0):
        with pytest.raises(ValueError, match=r"delta must be > 0 and < 1 \(a gap between"):
            fastfair.equivalence_test_from_counts(COUNTS, delta=value)
    assert fastfair.tolerance_test_from_counts(COUNTS, u_tol=0.0).u_tol == 0.0
    rng = np.random.default_rng(3)
    group = np.repeat([0, 1], [60, 40])
    y = rng.normal(size=100)
    pred = y + rng.normal(size=100)
    with pytest.raises(ValueError, match=r"u_tol must be >= 0 and finite, got inf"):
        fastfair.tolerance_test(y, pred, group, metric="mse", u_tol=np.inf)
    with pytest.raises(ValueError, match=r"delta must be > 0 and finite, got 0"):
        fastfair.equivalence_test(y, pred, group, metric="mse", delta=0)
    assert fastfair.tolerance_test(y, pred, group, metric="mse", u_tol=2.0).u_tol == 2.0


def test_hybrid_auc_margin_warns_below_five_per_class_not_at_five():
    """AUC_WARN_BELOW["hybrid"] = 5 is strict: a compared group with exactly 5 positives
    draws no ApproximateLevelWarning, one with 4 does (the warning names that group)."""
    import warnings

    rng = np.random.default_rng(5)
    group = np.repeat([0, 1], [60, 400])
    score = rng.normal(size=460)
    for positives, warns in ((5, False), (4, True)):
        y = np.r_[np.arange(60) < positives, rng.random(400) < 0.4]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fastfair.tolerance_test(y, score + y, group, metric="auc", u_tol=0.02, reference=1)
        got = [w for w in caught if issubclass(w.category, fastfair.ApproximateLevelWarning)]
        assert len(got) == warns
        if warns:
            assert "group(s) 0:" in str(got[0].message) and "fewer than 5" in str(got[0].message)


def test_tolerance_repr_labels_the_interval_with_its_confidence_level():
    """ToleranceTestResult's comparison table names its interval by `confidence_level`
    (95% by default, 80% when asked), and the interval shown is the result's: the score
    interval at that level, which holds the difference and narrows as the level drops."""
    fmt = fastfair._format.format_value
    widths = []
    for level, label in ((0.95, "95%"), (0.8, "80%")):
        res = fastfair.tolerance_test_from_counts(
            COUNTS, metric="tpr", u_tol=0.02, method="score", confidence_level=level
        )
        header, rows = _repr_rows(repr(res), "comparison")
        assert header[2:4] == [label, "CI"]
        lo, hi = res.confidence_interval
        assert lo < res.difference < hi
        assert rows[0][4:6] == [f"[{fmt(lo)},", f"{fmt(hi)}]"]
        widths.append(hi - lo)
    assert widths[1] < widths[0]


def test_equivalence_alpha_must_leave_a_1_minus_2_alpha_interval():
    """alpha 0.5 (a 0% interval) is refused with the reason; just below it the TOST
    interval is the score interval at level 1 - 2 alpha = 2%: the ends are where the
    Miettinen-Nurminen Z (brute force) equals -+ z_(1 - alpha)."""
    with pytest.raises(ValueError, match=r"alpha must be below 0.5 for a 1 - 2 alpha interval"):
        fastfair.equivalence_test_from_counts(COUNTS, delta=0.1, alpha=0.5)
    res = fastfair.equivalence_test_from_counts(
        COUNTS, delta=0.1, alpha=0.49, method="score", reference=1
    )
    lo, hi = res.equivalence_interval
    x0, n0 = COUNTS[0][3], COUNTS[0][2] + COUNTS[0][3]
    x1, n1 = COUNTS[1][3], COUNTS[1][2] + COUNTS[1][3]
    z = stats.norm.ppf(1 - 0.49)
    assert lo < x0 / n0 - x1 / n1 < hi and hi - lo < 0.005
    assert _brute_z(x0, n0, x1, n1, lo) == pytest.approx(z, abs=1e-6)
    assert _brute_z(x0, n0, x1, n1, hi) == pytest.approx(-z, abs=1e-6)


def test_rate_methods_are_refused_for_auc_and_row_metrics_with_the_methods_they_take():
    """method="score" (a rate method) for metric="auc" names the AUC methods, and "exact"
    for a row metric names bootstrap and welch; "auto" for AUC runs the default, hybrid."""
    rng = np.random.default_rng(6)
    group = np.repeat([0, 1], [150, 150])
    y = rng.integers(0, 2, 300)
    score = rng.normal(size=300) + y
    with pytest.raises(ValueError, match=r"metric='auc' is tested with method='hybrid', "):
        fastfair.tolerance_test(y, score, group, metric="auc", u_tol=0.05, method="score")
    with pytest.raises(ValueError, match=r"a callable or row metric is tested with method="):
        fastfair.tolerance_test(y, score, group, metric="mse", u_tol=0.05, method="exact")
    auto = fastfair.tolerance_test(y, score, group, metric="auc", u_tol=0.05)
    hybrid = fastfair.tolerance_test(y, score, group, metric="auc", u_tol=0.05, method="hybrid")
    assert auto.method == "hybrid" and auto.pvalue == hybrid.pvalue


def _most_rows_fewest_positives():
    """'a' has the most rows (400) and the fewest positives (40); 'b' the most positives
    (200 of 250): a default reference by positives or by denominator would be 'b'."""
    rng = np.random.default_rng(3)
    sizes, positives = {"a": 400, "b": 250, "c": 150}, {"a": 40, "b": 200, "c": 75}
    g = np.repeat(np.array(list(sizes)), list(sizes.values()))
    y = np.concatenate([np.arange(n) < positives[k] for k, n in sizes.items()]).astype(int)
    p = (rng.random(g.size) < np.where(y == 1, 0.7, 0.3)).astype(int)
    counts = np.array(
        [[np.sum((g == k) & (y == t) & (p == q)) for t in (0, 1) for q in (0, 1)] for k in sizes]
    )
    return y, p, g, counts


def test_tolerance_and_equivalence_default_reference_is_the_group_with_most_rows():
    """The reference of tolerance_test, equivalence_test and their from-counts twins is by
    default the group with the most rows (as in permutation_test), not the one with the
    most positives; rows and counts give the same gaps (TPRs counted by hand) and p-values."""
    y, p, g, counts = _most_rows_fewest_positives()
    labels = ["a", "b", "c"]
    assert labels[int(np.argmax(counts.sum(axis=1)))] == "a"
    assert labels[int(np.argmax(counts[:, 2:].sum(axis=1)))] == "b"
    tpr = {k: p[(g == k) & (y == 1)].mean() for k in labels}
    expected = [("b", "a"), ("c", "a")]
    gaps = [tpr["b"] - tpr["a"], tpr["c"] - tpr["a"]]
    tol = fastfair.tolerance_test_from_counts(counts, labels, u_tol=0.05, method="score")
    tol_rows = fastfair.tolerance_test(y, p, g, u_tol=0.05, method="score")
    eq = fastfair.equivalence_test_from_counts(counts, labels, delta=0.3, method="score")
    eq_rows = fastfair.equivalence_test(y, p, g, delta=0.3, method="score")
    for res in (tol, tol_rows, eq, eq_rows):
        assert res.comparisons == expected
        np.testing.assert_allclose(res.difference, gaps, rtol=1e-12)
    np.testing.assert_allclose(tol.pvalue, tol_rows.pvalue, rtol=1e-12)
    np.testing.assert_allclose(eq.pvalue, eq_rows.pvalue, rtol=1e-12)


# --- practice round prac10 (session 17) ---
def test_two_sided_statistic_on_a_tie_of_the_sides_is_the_upper_sides():
    """A zero gap with u_tol > 0 (Wald): both one-sided p-values are equal, and the
    documented convention takes Z at +u_tol, (0 - u_tol)/SE < 0, not the lower side's."""
    counts = [[60, 20, 30, 90], [45, 15, 20, 60]]  # TPR 0.75 in both groups
    res = fastfair.tolerance_test_from_counts(
        counts, metric="tpr", u_tol=0.05, method="wald", reference=1
    )
    se = np.sqrt(0.75 * 0.25 / 120 + 0.75 * 0.25 / 80)
    assert res.difference == 0.0
    assert res.statistic == pytest.approx(-0.05 / se, rel=1e-12)
    assert res.pvalue == 1.0  # min(1, 2 Phi(u_tol / SE))


def _rows_of_counts(counts):
    """Rows (y_true, y_pred, group) with the given TN, FP, FN, TP per group."""
    y, p, g = [], [], []
    for k, row in enumerate(counts):
        for cell, n in enumerate(row):
            y += [cell // 2] * n
            p += [cell % 2] * n
            g += [k] * n
    return np.array(y), np.array(p), np.array(g)


COUNTS_3G = [[400, 40, 30, 170], [300, 45, 50, 110], [200, 15, 12, 70]]


def test_from_counts_entry_points_have_the_row_functions_defaults():
    """With only the required arguments, the from-counts functions give the row functions'
    results (3 groups: adjusted p-values, Holm by hand, and the 95% interval)."""
    y, p, g = _rows_of_counts(COUNTS_3G)
    tol_rows = fastfair.tolerance_test(y, p, g, u_tol=0.02)
    tol_counts = fastfair.tolerance_test_from_counts(COUNTS_3G, u_tol=0.02)
    assert tol_counts.confidence_level == tol_rows.confidence_level == 0.95
    for end in range(2):
        assert np.allclose(tol_counts.confidence_interval[end], tol_rows.confidence_interval[end])
    assert np.allclose(tol_counts.pvalue_adjusted, _holm(tol_counts.pvalue))
    eq_rows = fastfair.equivalence_test(y, p, g, delta=0.2)
    eq_counts = fastfair.equivalence_test_from_counts(COUNTS_3G, delta=0.2)
    assert eq_counts.adjust == eq_rows.adjust == "holm"
    assert np.allclose(eq_counts.pvalue_adjusted, _holm(eq_counts.pvalue))
    assert np.allclose(eq_counts.pvalue_adjusted, eq_rows.pvalue_adjusted)
    assert not np.allclose(eq_counts.pvalue_adjusted, np.minimum(1, 2 * eq_counts.pvalue))
    assert (eq_counts.equivalent == (eq_counts.pvalue_adjusted <= 0.05)).all()


def test_auc_margin_results_count_every_row_of_a_group_as_its_denominator():
    rng = np.random.default_rng(2)
    g = np.repeat(["a", "b", "c"], [150, 120, 90])
    y = rng.random(g.size) < 0.3
    s = rng.normal(y * 1.0, 1.0)
    rows = np.array([(g == k).sum() for k in ("a", "b", "c")])
    for res in (
        fastfair.tolerance_test(y, s, g, metric="auc", u_tol=0.05),
        fastfair.equivalence_test(y, s, g, metric="auc", delta=0.3),
    ):
        assert res.group_denominators.tolist() == rows.tolist()
        table = repr(res).splitlines()[1:5]
        assert [int(line.split()[-1]) for line in table[1:]] == rows.tolist()


def test_row_metric_margin_results_report_group_sizes_and_weight_sums():
    """Row metrics (Welch) and callables (bootstrap): group_denominators are the rows of
    each group, or the sums of their weights when weighted (counted here)."""
    rng = np.random.default_rng(4)
    g = np.repeat(["a", "b", "c"], [70, 50, 40])
    y = rng.random(g.size) < 0.5
    p = rng.random(g.size)
    w = rng.uniform(0.5, 2.0, g.size)
    sizes = [int((g == k).sum()) for k in "abc"]
    sums = [w[g == k].sum() for k in "abc"]
    res = fastfair.tolerance_test(y, p, g, metric="mse", u_tol=0.05)
    assert res.method == "welch" and res.group_denominators.tolist() == sizes
    weighted = fastfair.equivalence_test(y, p, g, metric="mse", delta=0.2, sample_weight=w)
    np.testing.assert_allclose(weighted.group_denominators, sums, rtol=1e-12)
    mse = [np.average((y[g == k] - p[g == k]) ** 2, weights=w[g == k]) for k in "abc"]
    np.testing.assert_allclose(weighted.group_values, mse, rtol=1e-12)


def test_from_counts_with_every_option_at_its_default_equals_the_rows_on_every_field():
    """tolerance_test_from_counts and equivalence_test_from_counts document the defaults of
    tolerance_test and equivalence_test (metric, u_tol, alternative, method, reference,
    comparisons, adjust, confidence_level, alpha): with only the counts they return, field
    by field, what the rows spelled out from those counts give with no option, on three
    groups (every cell at least 15: the score test, fast)."""
    counts = np.array([[300, 60, 50, 90], [100, 20, 40, 140], [60, 15, 25, 50]])
    labels = ["a", "b", "c"]
    g = np.repeat(np.repeat(labels, 4), counts.ravel())
    cell = np.repeat(np.tile(np.arange(4), 3), counts.ravel())
    y, p = cell // 2, cell % 2
    rows = fastfair.tolerance_test(y, p, g).to_dict()
    assert rows["pvalue_adjusted"] != rows["pvalue"] and rows["comparisons"][0] == ["b", "a"]
    assert fastfair.tolerance_test_from_counts(counts, labels).to_dict() == rows
    rows_eq = fastfair.equivalence_test(y, p, g, delta=0.3).to_dict()
    assert fastfair.equivalence_test_from_counts(counts, labels, delta=0.3).to_dict() == rows_eq


def test_weighted_default_reference_is_the_group_with_the_most_rows():
    """tolerance_test, as permutation_test: the default reference has the most rows, not
    the largest sum of weights; the gaps are those against that group named explicitly."""
    rng = np.random.default_rng(4)
    group = np.repeat(["small", "big"], [100, 200])
    y, pred = rng.integers(0, 2, 300), rng.integers(0, 2, 300)
    weight = np.where(group == "small", 5.0, 0.5)
    res = fastfair.tolerance_test(y, pred, group, metric="tpr", u_tol=0.2,
                                  sample_weight=weight)  # fmt: skip
    named = fastfair.tolerance_test(y, pred, group, metric="tpr", u_tol=0.2,
                                    sample_weight=weight, reference="big")  # fmt: skip
    assert res.to_frame()["reference"].tolist() == ["big"]
    np.testing.assert_allclose(res.difference, named.difference)
    np.testing.assert_allclose(res.pvalue, named.pvalue)


def test_newcombe_variance_is_hanley_mcneils_at_n_star_and_its_derivative_a_finite_difference():
    """newcombe_variance against Hanley & McNeil's (1982) formula written with Q1 = theta /
    (2 - theta), Q2 = 2 theta^2 / (1 + theta) and both class sizes N* = (n+ + n-)/2 - 1;
    its derivative (which only steers the Newton polish of Newcombe's limits, a bisection
    then repairs a bad step) against a central difference of the variance."""
    from fastfair.tolerance.statistics import _newcombe_limits, newcombe_variance

    theta = np.array([0.03, 0.2, 0.5, 0.77, 0.99])
    for n_pos, n_neg in ((3, 9), (12, 5), (40, 40)):
        n_star = 0.5 * (n_pos + n_neg) - 1.0
        q1, q2 = theta / (2 - theta), 2 * theta**2 / (1 + theta)
        hm = (theta * (1 - theta) + (n_star - 1) * (q1 - theta**2)
              + (n_star - 1) * (q2 - theta**2)) / (n_pos * n_neg)  # fmt: skip
        np.testing.assert_allclose(newcombe_variance(theta, n_pos, n_neg), hm, rtol=1e-12)
        var, dvar = newcombe_variance(theta, n_pos, n_neg, derivative=True)
        np.testing.assert_allclose(var, hm, rtol=1e-12)
        h = 1e-6
        fd = (newcombe_variance(theta + h, n_pos, n_neg)
              - newcombe_variance(theta - h, n_pos, n_neg)) / (2 * h)  # fmt: skip
        np.testing.assert_allclose(dvar, fd, rtol=1e-6, atol=1e-10)
        # the limits solve (A - theta)^2 = z^2 V(theta) on each side of A (scipy's brentq)
        auc, z = 0.8, 1.96
        lo, hi = _newcombe_limits(auc, n_pos, n_neg, z)

        def f(t, auc=auc, z=z, n_pos=n_pos, n_neg=n_neg):
            return (auc - t) ** 2 - z * z * newcombe_variance(t, n_pos, n_neg)

        assert float(lo) == pytest.approx(optimize.brentq(f, 1e-12, auc), abs=1e-10)
        assert float(hi) == pytest.approx(optimize.brentq(f, auc, 1 - 1e-12), abs=1e-10)


def test_switch_points_bisect_every_line_to_the_first_k_where_the_predicate_holds():
    """_switch_points (the region's bisection in x1, all lines at once) against a scan:
    lines switching at k = 0 (lo = -1), at size (the last outcome), never (hi = size + 1)
    and in between; the predicate is only asked about k in 0..size."""
    from fastfair._unconditional import _switch_points

    size = 37
    switch = np.array([0, 1, 5, 18, 36, size, size + 1, size + 1, 2, 30])

    def switched(k):
        assert k.shape == switch.shape and (k >= 0).all() and (k <= size).all()
        assert np.array_equal(k, np.floor(k))
        return k >= switch

    lo, hi = _switch_points(len(switch), size, switched)
    np.testing.assert_array_equal(hi, switch)
    np.testing.assert_array_equal(lo, switch - 1)
    lo, hi = _switch_points(1, 0, lambda k: k >= 0)  # one outcome, switched at once
    assert (lo.tolist(), hi.tolist()) == ([-1.0], [0.0])


def test_auc_margins_are_below_one_like_rate_margins():
    """An AUC gap is a difference of probabilities too: with metric='auc' from the rows,
    u_tol in [0, 1) and delta in (0, 1): 0 (u_tol) and 0.999 accepted and recorded, 1.0
    refused with the rates' message (a row metric's margin is only finite: tested above)."""
    rng = np.random.default_rng(0)
    g, y = rng.integers(0, 2, 400), rng.integers(0, 2, 400)
    s = rng.random(400) + 0.3 * y
    for call, name, ok in ((fastfair.tolerance_test, "u_tol", (0.0, 0.999)),
                           (fastfair.equivalence_test, "delta", (0.999,))):  # fmt: skip
        for value in ok:
            assert getattr(call(y, s, g, metric="auc", **{name: value}), name) == value
        need = ">= 0" if name == "u_tol" else "> 0"
        with pytest.raises(ValueError, match=rf"^{name} must be {need} and < 1 \(a gap between "
                                             r"two probabilities\), got 1.0$"):  # fmt: skip
            call(y, s, g, metric="auc", **{name: 1.0})


def test_margin_pvalues_keep_their_far_tails():
    """A gap 0.2 against u_tol 0.01 on 1000 rows a group: z near 9, one-sided p-values
    near 1e-18 (score, Farrington-Manning and Wald), twice that two-sided, and the lower
    tail of the other order of the groups (alternative 'less'); an equivalence
    test at delta 0.3 of two almost equal rates: the larger of its two one-sided tails,
    1.2e-44. Each is the normal tail of the reported statistic (scipy), which 1 - cdf
    would round to 0: relative 1e-12, absolute 0."""
    norm = stats.norm
    counts = np.array([[900, 100, 300, 700], [800, 200, 500, 500]])
    for method in ("score", "farrington-manning", "wald"):
        for alternative, k, ref in (("greater", 1, 1), ("two-sided", 2, 1), ("less", 1, 0)):
            res = fastfair.tolerance_test_from_counts(
                counts, metric="tpr", u_tol=0.01, method=method, alternative=alternative,
                reference=ref,
            )  # fmt: skip
            want = k * (norm.cdf(res.statistic) if ref == 0 else norm.sf(res.statistic))
            assert 0 < want < 1e-17
            assert res.pvalue == pytest.approx(want, rel=1e-12, abs=0)
    close = np.array([[500, 500, 500, 500], [500, 500, 498, 502]])
    eq = fastfair.equivalence_test_from_counts(
        close, metric="tpr", delta=0.3, method="score", reference=1
    )
    z_low, z_up = eq.statistic
    want = max(norm.sf(z_low), norm.cdf(z_up))
    assert 0 < want < 1e-43
    assert eq.pvalue == pytest.approx(want, rel=1e-12, abs=0)


def test_equivalence_repr_states_delta_and_alpha_and_gives_each_comparison_its_own_verdict():
    """Three groups, b's TPR close to a's and c's far from it: at delta = 0.1 and alpha =
    0.1 the repr's head states H1: |U| < 0.1 and alpha = 0.1, the interval is the 80% one
    (1 - 2 alpha), and each comparison's row has its own verdict, from Holm's adjustment
    of the brute-force TOST p-values at alpha: "yes" for b, "no" for c."""
    counts = [[500, 40, 30, 170], [450, 60, 28, 160], [300, 20, 60, 90]]
    res = fastfair.equivalence_test_from_counts(counts, ["a", "b", "c"], metric="tpr",
                                                delta=0.1, alpha=0.1, method="score",
                                                reference="a")  # fmt: skip
    lines = repr(res).splitlines()
    assert lines[0] == ("EquivalenceTestResult(metric='tpr', method='score', H1: |U| < 0.1, "
                        "alpha=0.1, U = group - reference)")  # fmt: skip
    tp = [c[3] for c in counts]
    pos = [c[2] + c[3] for c in counts]
    p = np.array([
        max(stats.norm.sf(_brute_z(tp[k], pos[k], tp[0], pos[0], -0.1)),
            stats.norm.cdf(_brute_z(tp[k], pos[k], tp[0], pos[0], 0.1)))
        for k in (1, 2)
    ])  # fmt: skip
    verdicts = ["yes" if q <= 0.1 else "no" for q in _holm(p)]
    assert verdicts == ["yes", "no"]
    header, rows = _repr_rows(repr(res), "comparison")
    assert header[2:4] == ["80%", "CI"]
    assert [row[-2] for row in rows[:2]] == verdicts
