"""Confidence intervals of differences (issue 18 item 1): score intervals and their use."""

import math

import numpy as np
import pytest
from scipy import optimize, special
from statsmodels.stats import proportion as sm_proportion

import fastfair
from fastfair._score import _z_scalar, restricted_mle, score_interval, score_statistic

CASES = [  # x1, n1, x2, n2: interior, zeros, all-ones, unbalanced, rates near 0 and 1
    (5, 20, 12, 25),
    (0, 10, 0, 15),
    (10, 10, 0, 7),
    (170, 200, 120, 175),
    (1, 30, 29, 30),
    (3, 1000, 0, 5),
    (7, 9, 2, 30),
]


def _brute_mle(x1, n1, x2, n2, d):
    """Restricted MLE by numerical maximization of the binomial likelihood over p2."""

    def negloglik(p2):
        p1 = p2 + d
        return -(
            special.xlogy(x1, p1)
            + special.xlogy(n1 - x1, 1 - p1)
            + special.xlogy(x2, p2)
            + special.xlogy(n2 - x2, 1 - p2)
        )

    lo, hi = max(0.0, -d), min(1.0, 1.0 - d)
    res = optimize.minimize_scalar(
        negloglik, bounds=(lo, hi), method="bounded", options={"xatol": 1e-13}
    )
    return res.x + d, res.x


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("d", [-0.6, -0.1, 0.0, 0.05, 0.3])
def test_restricted_mle_maximizes_the_likelihood(case, d):
    q1, q2 = restricted_mle(*case, d)
    b1, b2 = _brute_mle(*case, d)
    assert q1 - q2 == pytest.approx(d, abs=1e-12)
    assert q1 == pytest.approx(b1, abs=2e-6)
    assert q2 == pytest.approx(b2, abs=2e-6)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # statsmodels' own 0/0 at rates 0
@pytest.mark.parametrize("case", CASES)
def test_score_statistic_at_zero_matches_statsmodels(case):
    # at d = 0 the restricted MLE is the pooled rate (statsmodels' d != 0 path has a wrong
    # cubic coefficient, statsmodels issue 10269, so only d = 0 is compared with it)
    ref = sm_proportion.test_proportions_2indep(*case, value=0, method="score", compare="diff")
    ours = score_statistic(*case, 0.0)
    if np.isnan(ref.statistic):  # both groups at rate 0: 0/0 in statsmodels, 0 here
        assert ours == 0.0
    else:
        assert ours == pytest.approx(ref.statistic, rel=1e-10)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_score_interval_is_the_inverted_test_on_a_grid(case, level):
    """Brute force: the interval is exactly the grid points where |Z(d)| <= z."""
    lo, hi = score_interval(*case, level)
    z = special.ndtri(0.5 + level / 2)
    grid = np.linspace(-1 + 1e-9, 1 - 1e-9, 40001)
    stat = score_statistic(*case, grid)
    kept = grid[np.abs(stat) <= z]
    step = grid[1] - grid[0]
    assert lo == pytest.approx(kept.min(), abs=step)
    assert hi == pytest.approx(kept.max(), abs=step)
    # the ends solve Z = +-z (unless they hit -1 or 1)
    if lo > -1 + 1e-6:
        assert score_statistic(*case, lo) == pytest.approx(z, abs=1e-6)
    if hi < 1 - 1e-6:
        assert score_statistic(*case, hi) == pytest.approx(-z, abs=1e-6)


def test_score_interval_orientation_and_width():
    lo, hi = score_interval(30, 100, 20, 100)
    assert lo < 0.1 < hi  # contains the estimate
    lo2, hi2 = score_interval(20, 100, 30, 100)
    assert (lo2, hi2) == pytest.approx((-hi, -lo), abs=1e-12)  # swapping groups negates
    lo90, hi90 = score_interval(30, 100, 20, 100, 0.9)
    assert lo < lo90 < hi90 < hi
    # about the Wald width at this size (+-1.96 * 0.0608)
    assert hi - lo == pytest.approx(2 * 1.96 * math.sqrt(0.21 / 100 + 0.16 / 100), rel=0.03)


def test_permutation_test_interval_two_groups():
    counts = [[500, 40, 30, 170], [450, 60, 55, 120]]  # TN, FP, FN, TP
    res = fastfair.permutation_test_from_counts(counts, ["a", "b"], metric="fnr")
    assert res.comparisons == [("b", "a")]
    lo, hi = score_interval(55, 175, 30, 200)  # fnr of b minus fnr of a
    assert res.confidence_interval == pytest.approx((lo, hi), abs=1e-12)
    assert lo < res.difference < hi and res.confidence_level == 0.95
    res90 = fastfair.permutation_test_from_counts(
        counts, ["a", "b"], metric="fnr", confidence_level=0.9
    )
    assert res90.confidence_interval == pytest.approx(score_interval(55, 175, 30, 200, 0.9))
    flipped = fastfair.permutation_test_from_counts(
        counts, ["a", "b"], metric="fnr", reference="b"
    )
    assert flipped.confidence_interval == pytest.approx((-hi, -lo), abs=1e-12)
    text = repr(res)
    assert "95% CI" in text and f"[{lo:.4f}, {hi:.4f}]" in text


def test_permutation_test_interval_more_groups_and_equalized_odds():
    counts = np.array([[500, 40, 30, 170], [450, 60, 55, 120], [90, 20, 15, 40]])
    res = fastfair.permutation_test_from_counts(counts, metric="selection_rate", reference=0)
    lo, hi = res.confidence_interval
    assert lo.shape == hi.shape == (2,)
    sel = counts[:, [1, 3]].sum(axis=1)
    n = counts.sum(axis=1)
    for c, g in enumerate((1, 2)):
        assert (lo[c], hi[c]) == pytest.approx(score_interval(sel[g], n[g], sel[0], n[0]))
    eo = fastfair.permutation_test_from_counts(counts[:2], metric="equalized_odds")
    lo, hi = eo.confidence_interval
    assert lo.shape == (2,)
    tpr = fastfair.permutation_test_from_counts(counts[:2], metric="tpr").confidence_interval
    fpr = fastfair.permutation_test_from_counts(counts[:2], metric="fpr").confidence_interval
    assert (lo[0], hi[0]) == pytest.approx(tpr) and (lo[1], hi[1]) == pytest.approx(fpr)
    eo3 = fastfair.permutation_test_from_counts(counts, metric="equalized_odds")
    assert eo3.confidence_interval[0].shape == (2, 2)
    text = repr(eo)
    assert "tpr 95% CI" in text and "fpr 95% CI" in text


def test_weighted_interval_uses_kish_effective_sizes():
    rng = np.random.default_rng(3)
    group = rng.integers(0, 2, 600)
    y = rng.random(600) < 0.4
    yhat = np.where(y, rng.random(600) < 0.8 - 0.1 * group, rng.random(600) < 0.1)
    plain = fastfair.permutation_test(y, yhat, group, metric="tpr", method="asymptotic")
    same = fastfair.permutation_test(
        y, yhat, group, metric="tpr", method="asymptotic", sample_weight=np.full(600, 2.5)
    )
    assert same.confidence_interval == pytest.approx(plain.confidence_interval, abs=1e-12)
    w = rng.gamma(2.0, 0.5, 600)
    res = fastfair.permutation_test(
        y, yhat, group, metric="tpr", method="asymptotic", sample_weight=w
    )
    rates, n_eff = [], []
    for g in res.comparisons[0]:  # (group, reference)
        pos = (group == g) & y
        rates.append(np.sum(w[pos] * yhat[pos]) / np.sum(w[pos]))
        n_eff.append(np.sum(w[pos]) ** 2 / np.sum(w[pos] ** 2))
    expected = score_interval(rates[0] * n_eff[0], n_eff[0], rates[1] * n_eff[1], n_eff[1])
    assert res.confidence_interval == pytest.approx(expected, abs=1e-12)
    # weights that vary make the effective sizes smaller, so the interval wider
    width = res.confidence_interval[1] - res.confidence_interval[0]
    assert width > plain.confidence_interval[1] - plain.confidence_interval[0]


def test_generic_interval_is_difference_plus_minus_z_se():
    rng = np.random.default_rng(5)
    group = np.repeat(["a", "b"], [40, 60])
    y = rng.normal(size=100)
    pred = y + rng.normal(size=100)
    res = fastfair.permutation_test(y, pred, group, metric="mse", method="asymptotic")
    sq = (y - pred) ** 2
    sa, sb = sq[group == "a"], sq[group == "b"]  # a minus the reference, the larger group b
    se = math.sqrt(sa.var(ddof=1) / 40 + sb.var(ddof=1) / 60)
    diff = sa.mean() - sb.mean()
    assert res.difference == pytest.approx(diff)
    assert res.confidence_interval == pytest.approx((diff - 1.959964 * se, diff + 1.959964 * se))
    assert "95% CI" in repr(res)

    def mse(y_true, y_pred):
        return float(np.mean((y_true - y_pred) ** 2))

    boot = fastfair.permutation_test(
        y, pred, group, metric=mse, studentize="bootstrap-fast", n_permutations=99,
        random_state=1, confidence_level=0.9,
    )  # fmt: skip
    half = special.ndtri(0.95) * boot.standard_error
    assert boot.confidence_interval == pytest.approx(
        (boot.difference - half, boot.difference + half)
    )
    raw = fastfair.permutation_test(
        y, pred, group, metric=mse, studentize=False, n_permutations=99, random_state=1
    )
    lo, hi = raw.confidence_interval  # bootstrap SD when the statistic is not studentized
    assert lo < raw.difference < hi
    assert (hi - lo) / 2 == pytest.approx(1.96 * se, rel=0.35)


@pytest.mark.parametrize("bad", [0, 1, 1.5, -0.1])
def test_confidence_level_is_checked(bad):
    with pytest.raises(ValueError, match="confidence_level"):
        fastfair.permutation_test_from_counts([[5, 5, 5, 5], [5, 5, 5, 5]], confidence_level=bad)
    with pytest.raises(TypeError, match="confidence_level"):
        fastfair.permutation_test_from_counts([[5, 5, 5, 5], [5, 5, 5, 5]], confidence_level="x")


def test_scalar_and_array_paths_agree():
    """Up to 64 comparisons are bisected on floats, more on arrays: the same interval."""
    rng = np.random.default_rng(7)
    n1, n2 = rng.integers(1, 400, 80).astype(float), rng.integers(1, 400, 80).astype(float)
    x1, x2 = np.floor(rng.random(80) * (n1 + 1)), np.floor(rng.random(80) * (n2 + 1))
    lo, hi = score_interval(x1, n1, x2, n2)  # 80 > 64: array path
    for k in range(80):
        lo_k, hi_k = score_interval(x1[k], n1[k], x2[k], n2[k])  # scalar path
        assert lo_k == pytest.approx(lo[k], abs=1e-12) and hi_k == pytest.approx(hi[k], abs=1e-12)
        z = score_statistic(x1[k], n1[k], x2[k], n2[k], 0.1)
        assert _z_scalar(x1[k], n1[k], x2[k], n2[k], 0.1, True) == pytest.approx(z, rel=1e-12)


@pytest.mark.parametrize("n", [120, 1000])
def test_rate_limits_switch_to_wilson_at_exactly_exact_limits_below(n):
    """Clopper-Pearson limits below EXACT_LIMITS_BELOW (50) events or non-events, Wilson's
    at exactly 50 and above (statsmodels' 'beta' and 'wilson' as references)."""
    from fastfair._score import EXACT_LIMITS_BELOW, rate_limits

    assert EXACT_LIMITS_BELOW == 50
    for x, kind in ((49, "beta"), (50, "wilson"), (n - 49, "beta"), (n - 50, "wilson")):
        lo, hi = rate_limits(x, n)
        want = sm_proportion.proportion_confint(x, n, alpha=0.05, method=kind)
        np.testing.assert_allclose([float(lo), float(hi)], want, rtol=1e-9, err_msg=f"x={x}")


@pytest.mark.parametrize(
    "case", [(2, 40, 180, 200), (180, 200, 2, 40), (70, 100, 12, 300), (3, 15, 9, 12)]
)
def test_hybrid_interval_is_newcombes_square_and_add_united_with_the_score_interval(case):
    """Newcombe's lower end adds the first rate's lower and the second's upper distance
    (upper end: the other two), each group's limits Clopper-Pearson or Wilson by
    statsmodels; rates near 0 against rates near 1 make the two distances differ."""
    from fastfair._score import hybrid_interval

    x1, n1, x2, n2 = case
    lims = []
    for x, n in ((x1, n1), (x2, n2)):
        kind = "beta" if min(x, n - x) < 50 else "wilson"
        lims.append(sm_proportion.proportion_confint(x, n, alpha=0.05, method=kind))
    (l1, u1), (l2, u2) = lims
    p1, p2 = x1 / n1, x2 / n2
    newcombe = (
        p1 - p2 - math.hypot(p1 - l1, u2 - p2),
        p1 - p2 + math.hypot(u1 - p1, p2 - l2),
    )
    score_lo, score_hi = score_interval(x1, n1, x2, n2)
    lo, hi = hybrid_interval(x1, n1, x2, n2)
    assert float(lo) == pytest.approx(min(newcombe[0], score_lo), abs=1e-9)
    assert float(hi) == pytest.approx(max(newcombe[1], score_hi), abs=1e-9)
