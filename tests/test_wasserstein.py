"""Tests of the Wasserstein projection test (fastfair.wasserstein, METHODS.md 4)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from scipy import integrate, optimize, special, stats

from fastfair import _wasserstein
from fastfair.wasserstein import wasserstein_test
from fastfair.wasserstein.inference import _chi2_mixture_tail, _critical_points, _weighted_chi2_sf


def _toy(n, rng, shift=0.0, d=3):
    a = np.r_[0, 0, 1, 1, rng.integers(0, 2, n - 4)]
    y = np.r_[0, 1, 0, 1, rng.integers(0, 2, n - 4)]
    X = rng.normal(size=(n, d))
    X[:, 0] += shift * a * y
    return X, y, a


def _authors_mixture(n, rng):
    """The authors' null (METHODS.md 4): beta = (0, 1) is fair, theta = 3.70."""
    while True:
        counts = rng.multinomial(n, [0.4, 0.1, 0.3, 0.2])  # (a, y) = 00, 01, 10, 11
        if counts[1] and counts[3]:
            break
    means = [(-6.0, 0.0), (-2.0, 0.0), (2.0, 0.0), (6.0, 0.0)]
    sds = [math.sqrt(5.0)] * 2 + [math.sqrt(3.5)] * 2
    X = np.vstack([rng.normal(size=(m, 2)) * s + mu for m, s, mu in zip(counts, sds, means)])
    a = np.repeat([0, 0, 1, 1], counts)
    y = np.repeat([0, 1, 0, 1], counts)
    return X, y, a


# ------------------------------------------------------------------ independent solutions


def _scipy_dual(X, y, a, beta, b0, label):
    """sup_gamma (1/N) sum_{y_i = label} min_x ||x - x_i||^2 + gamma lambda_i h(x), solved
    with a generic d-dimensional optimizer for the inner problem (several starts) and a
    bounded scalar search for gamma: no use of the one-dimensional reduction."""
    n = len(y)
    sel = np.flatnonzero(y == label)
    n1 = np.sum(a[sel] == 1)
    n0 = len(sel) - n1
    lam = np.where(a == 1, n / n1, -n / n0)

    def phi(g, i):
        def f(x):
            return np.sum((x - X[i]) ** 2) + g * lam[i] * special.expit(x @ beta + b0)

        def jac(x):
            s = special.expit(x @ beta + b0)
            return 2 * (x - X[i]) + g * lam[i] * s * (1 - s) * beta

        starts = [X[i] - k * g * lam[i] * beta for k in (0.0, 0.04, 0.08, 0.125)]
        return min(
            optimize.minimize(f, x0, jac=jac, method="BFGS", options={"gtol": 1e-12}).fun
            for x0 in starts
        )

    def neg_dual(g):
        return -sum(phi(g, i) for i in sel) / n

    res = optimize.minimize_scalar(
        neg_dual, bounds=(-40, 40), method="bounded", options={"xatol": 1e-9}
    )
    return -res.fun, res.x


def _scipy_primal(X, y, a, beta, b0, label):
    """min (1/N) sum ||x'_i - x_i||^2 s.t. the moved data are fair (SLSQP from x' = x)."""
    sel = np.flatnonzero(y == label)
    n = len(y)
    Xs, As = X[sel], a[sel]

    def gap(v):
        h = special.expit(v.reshape(Xs.shape) @ beta + b0)
        return h[As == 1].mean() - h[As == 0].mean()

    res = optimize.minimize(
        lambda v: np.sum((v - Xs.ravel()) ** 2) / n,
        Xs.ravel(),
        jac=lambda v: 2 * (v - Xs.ravel()) / n,
        method="SLSQP",
        constraints=[{"type": "eq", "fun": gap}],
        options={"ftol": 1e-15, "maxiter": 500},
    )
    return res.fun, gap(res.x)


@pytest.mark.parametrize("criterion", ["equal_opportunity", "equalized_odds"])
def test_statistic_matches_scipy_dual_and_primal(criterion):
    rng = np.random.default_rng(3)
    X, y, a = _toy(26, rng, shift=0.8)
    beta, b0 = np.array([0.9, -0.4, 0.3]), 0.3
    res = wasserstein_test(X, y, a, beta, intercept=b0, criterion=criterion)
    labels = [1] if criterion == "equal_opportunity" else [0, 1]
    parts = np.atleast_1d(res.distance_parts)
    gammas = np.atleast_1d(res.gamma)
    for k, lab in enumerate(labels):
        r_dual, g_dual = _scipy_dual(X, y, a, beta, b0, lab)
        r_primal, gap = _scipy_primal(X, y, a, beta, b0, lab)
        assert parts[k] == pytest.approx(r_dual, rel=1e-9)
        assert parts[k] == pytest.approx(r_primal, rel=1e-7)
        assert abs(gap) < 1e-9
        assert gammas[k] == pytest.approx(g_dual, rel=1e-5, abs=1e-7)
    assert res.statistic == pytest.approx(len(y) * parts.sum(), rel=1e-12)


def test_nonconvex_inner_problem_matches_scipy_dual():
    # a large coefficient and a strong disparity: |gamma lambda| ||beta||^2 / 2 > 6 sqrt(3)
    rng = np.random.default_rng(5)
    X, y, a = _toy(24, rng, d=2)
    X[:, 0] += 3.0 * a
    beta = np.array([3.0, 0.5])
    res = wasserstein_test(X, y, a, beta, return_favorable=True)
    assert abs(res.gamma * len(y) / res.cell_counts[1, 1]) * (beta @ beta) / 2 > 6 * math.sqrt(3)
    r_dual, _ = _scipy_dual(X, y, a, beta, 0.0, 1)
    assert res.distance == pytest.approx(r_dual, rel=1e-8)
    fav = res.favorable
    assert abs(fav.constraint) < 1e-12
    assert fav.transport_cost == pytest.approx(res.distance, rel=1e-8)
    moves = fav.X - X[fav.source]
    assert np.dot(fav.weight, np.sum(moves**2, axis=1)) == pytest.approx(res.distance, rel=1e-8)
    h = special.expit(fav.X @ beta)
    pos1, pos0 = (fav.y_true == 1) & (fav.group == 1), (fav.y_true == 1) & (fav.group == 0)
    gap = np.average(h[pos1], weights=fav.weight[pos1]) - np.average(
        h[pos0], weights=fav.weight[pos0]
    )
    assert abs(gap) < 1e-12


def _kink_data(n=4000):
    """Strongly unfair rows and a steep classifier: the dual optimum sits at a kink of F'."""
    rng = np.random.default_rng(0)
    a, y = rng.integers(0, 2, n), rng.integers(0, 2, n)
    X = rng.normal(size=(n, 3))
    X[:, 0] += 3.0 * a
    return X, y, a, np.array([8.0, -0.5, 0.2])


def test_kink_splits_mass_and_keeps_constraint_exact():
    # strongly unfair with a steep classifier: the dual optimum sits at a kink of F', and
    # tied samples are split between their two minimizers
    n = 4000
    X, y, a, beta = _kink_data(n)
    res = wasserstein_test(X, y, a, beta, criterion="equalized_odds", return_favorable=True)
    fav = res.favorable
    assert len(fav.weight) > n  # some rows were split
    assert fav.weight.min() >= 0 and fav.weight.sum() == pytest.approx(1.0)
    np.testing.assert_array_less(np.abs(fav.constraint), 1e-14)
    moves = fav.X - X[fav.source]
    assert np.dot(fav.weight, np.sum(moves**2, axis=1)) == pytest.approx(res.distance, rel=1e-8)
    # the reported cost weighs each moved copy by its mass, split rows included
    assert fav.transport_cost == pytest.approx(res.distance, rel=1e-8)


def test_favorable_repr_reads_back_its_points_cost_and_constraints():
    """FavorableDistribution's repr: the number of support points (more than the rows where
    a kink splits mass), the features, the weighted squared moves (by hand) and the two
    constraints of equalized odds (y = 0, y = 1), each E_Q[h | a=1, y] - E_Q[h | a=0, y]
    recomputed from the points."""
    n = 4000
    X, y, a, beta = _kink_data(n)
    fav = wasserstein_test(X, y, a, beta, criterion="equalized_odds",
                           return_favorable=True).favorable  # fmt: skip
    cost = np.dot(fav.weight, np.sum((fav.X - X[fav.source]) ** 2, axis=1))
    text = repr(fav)
    assert text.startswith(f"FavorableDistribution(points={len(fav.weight)}, features=3, ")
    assert len(fav.weight) > n
    shown = re.search(r"transport_cost=(\S+), constraint=\[(.*)\]\)$", text)
    assert float(shown.group(1)) == pytest.approx(cost, rel=1e-3)
    h = special.expit(fav.X @ beta)
    gaps = []
    for label in (0, 1):
        one, zero = (
            (fav.y_true == label) & (fav.group == 1),
            (fav.y_true == label) & (fav.group == 0),
        )
        gaps.append(np.average(h[one], weights=fav.weight[one])
                    - np.average(h[zero], weights=fav.weight[zero]))  # fmt: skip
    constraints = [float(v) for v in shown.group(2).split(", ")]
    assert len(constraints) == 2
    np.testing.assert_allclose(constraints, gaps, atol=1e-12)


def test_inner_problem_is_global_minimum():
    """cell_sums' minimizer is never beaten by a dense grid, for convex and non-convex c."""
    rng = np.random.default_rng(0)
    for _ in range(60):
        b2 = rng.uniform(0.1, 5)
        t = rng.choice([-1, 1]) * 10 ** rng.uniform(-3, 2.5)
        c = t * b2 / 2
        u = rng.normal(0, 4, size=20)
        z = np.empty(20)
        alt = np.empty(20)
        gap = np.empty(20)
        z1, z2 = _critical_points(c)
        cost, ssig, _ = _wasserstein.cell_sums(u, t, b2, z1, z2, 1, z, alt, gap)
        obj = (z - u) ** 2 / b2 + t * special.expit(z)
        grid = u[:, None] + np.linspace(-abs(c) / 4, abs(c) / 4, 4001)[None, :]
        brute = ((grid - u[:, None]) ** 2 / b2 + t * special.expit(grid)).min(axis=1)
        assert np.all(obj <= brute + 1e-12 * np.maximum(1, abs(brute)))
        assert cost == pytest.approx(np.sum((z - u) ** 2) / b2, rel=1e-12, abs=1e-300)
        assert ssig == pytest.approx(special.expit(z).sum(), rel=1e-12)
        # stationarity: z = u - c sigmoid'(z)
        s = special.expit(z)
        np.testing.assert_allclose(z, u - c * s * (1 - s), rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------ favorable distribution


@pytest.mark.parametrize("criterion", ["equal_opportunity", "equalized_odds"])
def test_favorable_distribution_is_fair_and_costs_r(criterion):
    rng = np.random.default_rng(1)
    X, y, a = _toy(3000, rng, shift=0.5)
    beta = np.array([1.0, -0.5, 0.2])
    res = wasserstein_test(
        X, y, a, beta, intercept=-0.2, criterion=criterion, return_favorable=True
    )
    fav = res.favorable
    assert fav.weight.sum() == pytest.approx(1.0)
    assert fav.transport_cost == pytest.approx(res.distance, rel=1e-10)
    np.testing.assert_array_less(np.abs(np.atleast_1d(fav.constraint)), 1e-12)
    # recompute the constraint from the moved points
    h = special.expit(fav.X @ beta - 0.2)
    labels = [1] if criterion == "equal_opportunity" else [0, 1]
    for lab in labels:
        m1 = (fav.y_true == lab) & (fav.group == 1)
        m0 = (fav.y_true == lab) & (fav.group == 0)
        gap = np.average(h[m1], weights=fav.weight[m1]) - np.average(h[m0], weights=fav.weight[m0])
        assert abs(gap) < 1e-12
    moves = fav.X - X[fav.source]
    assert np.dot(fav.weight, np.sum(moves**2, axis=1)) == pytest.approx(res.distance, rel=1e-9)
    if criterion == "equal_opportunity":
        assert np.all(moves[fav.y_true == 0] == 0)
    # every move is along beta
    cross = moves - np.outer(moves @ beta / (beta @ beta), beta)
    assert np.abs(cross).max() < 1e-12


def test_large_n_statistic_close_to_quadratic_approximation():
    rng = np.random.default_rng(2)
    n = 200_000
    X, y, a = _toy(n, rng, shift=0.01)
    beta = np.array([1.0, -0.5, 0.2])
    res = wasserstein_test(X, y, a, beta)
    h = special.expit(X @ beta)
    pos = y == 1
    lam = np.where(a == 1, n / np.sum(pos & (a == 1)), -n / np.sum(pos & (a == 0)))
    c = np.sum(lam[pos] * h[pos]) / n
    m = np.sum(lam[pos] ** 2 * (h[pos] * (1 - h[pos])) ** 2) * (beta @ beta) / n
    assert res.difference == pytest.approx(c, rel=1e-10)
    assert res.statistic == pytest.approx(n * c * c / m, rel=0.01)
    assert res.gamma == pytest.approx(2 * c / m, rel=0.01)


# ------------------------------------------------------------------ null distribution


def test_null_rejection_rate_authors_mixture():
    """Quick version of validation/wasserstein_null.py (N = 500, 400 replications)."""
    rng = np.random.default_rng(20210303)
    reps, alpha = 400, 0.05
    pvals = np.empty(reps)
    thetas = np.empty(reps)
    for r in range(reps):
        X, y, a = _authors_mixture(500, rng)
        res = wasserstein_test(X, y, a, [0.0, 1.0], alpha=alpha, n_jobs=1)
        pvals[r], thetas[r] = res.pvalue, res.theta
        assert res.reject == (res.pvalue < alpha)
    tol = 3.5 * math.sqrt(alpha * (1 - alpha) / reps)
    assert abs(np.mean(pvals < alpha) - alpha) < tol
    assert np.mean(thetas) == pytest.approx(3.70, rel=0.05)
    # p-values roughly uniform
    assert stats.kstest(pvals, "uniform").pvalue > 1e-3


def test_weighted_chi2_sum():
    # equal weights: w chi2_2
    assert _weighted_chi2_sf(3.0, [1.5, 1.5]) == pytest.approx(stats.chi2.sf(2.0, 2), rel=1e-10)
    # against numerical convolution of the two densities
    w0, w1, s = 0.7, 2.9, 5.0
    inner = integrate.quad(
        lambda x: stats.chi2.pdf(x, 1) * stats.chi2.sf((s - w0 * x) / w1, 1),
        0,
        s / w0,
        limit=200,
    )[0]
    tail = stats.chi2.sf(s / w0, 1)
    assert _weighted_chi2_sf(s, [w0, w1]) == pytest.approx(inner + tail, rel=1e-7)
    p, thr = _chi2_mixture_tail(4.2, [w0, w1], 0.05)
    assert _weighted_chi2_sf(thr, [w0, w1]) == pytest.approx(0.05, rel=1e-9)
    assert p == pytest.approx(_weighted_chi2_sf(4.2, [w0, w1]))
    # a zero weight reduces to one chi-square
    assert _chi2_mixture_tail(3.0, [0.0, 2.0], 0.1)[1] == pytest.approx(
        2.0 * stats.chi2.isf(0.1, 1)
    )


def test_equalized_odds_combines_both_labels():
    rng = np.random.default_rng(4)
    X, y, a = _toy(4000, rng, shift=0.3)
    beta = np.array([1.0, -0.5, 0.2])
    eo = wasserstein_test(X, y, a, beta)
    eodds = wasserstein_test(X, y, a, beta, criterion="equalized_odds")
    assert eodds.distance_parts[1] == pytest.approx(eo.distance, rel=1e-12)
    assert eodds.theta[1] == pytest.approx(eo.theta, rel=1e-12)
    assert eodds.statistic == pytest.approx(len(y) * eodds.distance_parts.sum(), rel=1e-12)
    p = _weighted_chi2_sf(eodds.statistic, eodds.theta)
    assert eodds.pvalue == pytest.approx(p)
    assert "y = 0" in repr(eodds) and "threshold" in repr(eodds)


# ------------------------------------------------------------------ options and invariances


def test_threads_give_identical_results():
    rng = np.random.default_rng(6)
    X, y, a = _toy(50_000, rng, shift=0.2)
    beta = np.array([0.5, 1.0, -1.0])
    r1 = wasserstein_test(X, y, a, beta, criterion="equalized_odds", n_jobs=1)
    r2 = wasserstein_test(X, y, a, beta, criterion="equalized_odds", n_jobs=2)
    assert r1.statistic == r2.statistic
    np.testing.assert_array_equal(r1.gamma, r2.gamma)


def test_group_coding_and_intercept_invariances():
    rng = np.random.default_rng(7)
    X, y, a = _toy(2000, rng, shift=0.4)
    beta = np.array([0.8, 0.3, -0.2])
    base = wasserstein_test(X, y, a, beta, intercept=0.5)
    swapped = wasserstein_test(X, y, np.where(a == 1, "x", "b"), beta, intercept=0.5)
    assert swapped.statistic == pytest.approx(base.statistic, rel=1e-10)
    assert list(swapped.groups) == ["b", "x"]
    flipped = wasserstein_test(X, y, 1 - a, beta, intercept=0.5)
    assert flipped.statistic == pytest.approx(base.statistic, rel=1e-10)
    assert flipped.gamma == pytest.approx(-base.gamma, rel=1e-8)
    # the intercept is a shift of the score, not a transportable feature
    X_shift = X.copy()
    X_shift[:, 0] += 0.5 / beta[0]
    assert wasserstein_test(X_shift, y, a, beta).statistic == pytest.approx(
        base.statistic, rel=1e-9
    )


def test_metric_matrix_equals_rescaled_features():
    rng = np.random.default_rng(8)
    X, y, a = _toy(3000, rng, shift=0.4)
    beta = np.array([0.8, 0.3, -0.2])
    scales = np.array([2.0, 0.5, 1.5])
    res = wasserstein_test(X, y, a, beta, metric_matrix=np.diag(scales**2), return_favorable=True)
    # cost sum s_j^2 dx_j^2 = Euclidean cost in x * s; the classifier has beta / s there
    ref = wasserstein_test(X * scales, y, a, beta / scales, return_favorable=True)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-10)
    np.testing.assert_allclose(res.favorable.X * scales, ref.favorable.X, atol=1e-12)
    ident = wasserstein_test(X, y, a, beta, metric_matrix=np.eye(3))
    assert ident.statistic == pytest.approx(wasserstein_test(X, y, a, beta).statistic, rel=1e-12)


def test_fitted_model_and_pandas_input():
    sklearn = pytest.importorskip("sklearn.linear_model")
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(9)
    X, y, a = _toy(1500, rng, shift=0.4)
    model = sklearn.LogisticRegression().fit(X, y)
    res = wasserstein_test(pd.DataFrame(X), pd.Series(y), pd.Series(a), model)
    ref = wasserstein_test(X, y, a, model.coef_[0], intercept=model.intercept_[0])
    assert res.statistic == ref.statistic


def test_constant_classifier_is_fair():
    rng = np.random.default_rng(10)
    X, y, a = _toy(200, rng)
    res = wasserstein_test(X, y, a, np.zeros(3), intercept=1.0, return_favorable=True)
    assert res.statistic == 0.0 and res.pvalue == 1.0 and not res.reject
    np.testing.assert_array_equal(res.favorable.X, X)


def test_scores_equal_on_every_row_are_fair_with_pvalue_one():
    """A classifier whose score is 0.5 on every row (X's first column is 0 and the only one
    it reads): both groups' mean scores are equal, the distance is 0 and so is every theta,
    the limiting law is a point mass at 0, so P(T >= 0) = 1 and the test does not reject."""
    rng = np.random.default_rng(1)
    n = 200
    a, y = rng.integers(0, 2, n), rng.integers(0, 2, n)
    X = np.column_stack([np.zeros(n), rng.normal(size=n)])
    for criterion in ("equal_opportunity", "equalized_odds"):
        res = wasserstein_test(X, y, a, [1.0, 0.0], criterion=criterion)
        assert res.statistic == 0.0 and np.all(res.theta == 0.0)
        assert res.pvalue == 1.0 and not res.reject


# ------------------------------------------------------------------ bad input


def test_bad_input():
    rng = np.random.default_rng(11)
    X, y, a = _toy(100, rng)
    beta = np.ones(3)
    with pytest.raises(ValueError, match="no samples with a = 0 and y = 1"):
        wasserstein_test(X, y, np.where(y == 1, 1, a), beta)
    # an empty y = 0 cell matters for equalized odds only
    a_eo = np.where(y == 0, 1, a)
    wasserstein_test(X, y, a_eo, beta)
    with pytest.raises(ValueError, match="y = 0"):
        wasserstein_test(X, y, a_eo, beta, criterion="equalized_odds")
    with pytest.raises(ValueError, match="coef has 2 entries but X has 3 columns"):
        wasserstein_test(X, y, a, [1.0, 2.0])
    with pytest.raises(ValueError, match="group must have exactly two values"):
        wasserstein_test(X, y, a + (np.arange(100) % 3 == 0), beta)
    with pytest.raises(ValueError, match="y_true must be binary"):
        wasserstein_test(X, y + (np.arange(100) % 3 == 0), a, beta)
    with pytest.raises(ValueError, match="at least 2 groups"):
        wasserstein_test(X, y, np.zeros(100), beta)
    X_nan = X.copy()
    X_nan[7, 1] = np.nan
    with pytest.raises(ValueError, match="X contains NaN"):
        wasserstein_test(X_nan, y, a, beta)
    with pytest.raises(ValueError, match="same length"):
        wasserstein_test(X, y[:-1], a, beta)
    with pytest.raises(ValueError, match="criterion"):
        wasserstein_test(X, y, a, beta, criterion="demographic_parity")
    for alpha in (1.5, 0.0, 1.0):  # (0, 1): both ends refused
        with pytest.raises(ValueError, match=r"alpha must be in \(0, 1\)"):
            wasserstein_test(X, y, a, beta, alpha=alpha)
    with pytest.raises(ValueError, match="X must be 2-D"):
        wasserstein_test(X[:, 0], y, a, beta)
    with pytest.raises(ValueError, match="positive definite"):
        wasserstein_test(X, y, a, beta, metric_matrix=-np.eye(3))
    with pytest.raises(ValueError, match="metric_matrix must have shape"):
        wasserstein_test(X, y, a, beta, metric_matrix=np.eye(2))

    class Model:
        coef_ = np.ones((2, 3))
        intercept_ = np.zeros(2)

    with pytest.raises(ValueError, match="binary logistic"):
        wasserstein_test(X, y, a, Model())
    Model.coef_ = np.ones((1, 3))
    with pytest.raises(ValueError, match="intercept"):
        wasserstein_test(X, y, a, Model(), intercept=1.0)
    with pytest.raises(TypeError, match="X must be numeric"):
        wasserstein_test(X.astype(str), y, a, beta)


def test_more_bad_input_names_its_problem():
    """The refusals test_bad_input leaves unexercised, each with its message."""
    rng = np.random.default_rng(12)
    X, y, a = _toy(100, rng)
    beta = np.ones(3)
    sym = np.eye(3)
    sym[0, 1] = 0.5  # not symmetric
    cases = [
        (lambda: wasserstein_test(None, y, a, beta), TypeError, "X is required, got None"),
        (lambda: wasserstein_test(X, y, a, None), TypeError, "coef is required, got None"),
        (lambda: wasserstein_test(X, y, a, "ones"), TypeError,
         "coef must be an array of coefficients or a fitted model"),
        (lambda: wasserstein_test(X, y, a, beta, intercept="b"), TypeError,
         "intercept must be a number, got 'b'"),
        (lambda: wasserstein_test(X, y, a, np.ones((3, 1))), ValueError,
         r"coef must be 1-D with 3 entries, got shape \(3, 1\)"),
        (lambda: wasserstein_test(X, y, a, [1.0, np.inf, 0.0]), ValueError,
         "coef and intercept must be finite"),
        (lambda: wasserstein_test(X, y, a, beta, intercept=np.nan), ValueError,
         "coef and intercept must be finite"),
        (lambda: wasserstein_test(X, y, a, beta, alpha="0.05"), TypeError,
         "alpha must be a number, got '0.05'"),
        (lambda: wasserstein_test(X, y, a, beta, alpha=True), TypeError, "alpha must be a number"),
        (lambda: wasserstein_test(X, y, a, beta, metric_matrix=sym), ValueError,
         "metric_matrix must be finite and symmetric"),
        (lambda: wasserstein_test(X, y, a, beta, return_favorable=1), TypeError,
         "return_favorable must be True or False, got 1"),
    ]  # fmt: skip
    for call, error, message in cases:
        with pytest.raises(error, match=message):
            call()


def test_weighted_chi2_tail_at_zero_and_without_weights():
    """P(sum w chi2 > s) is 1 for s <= 0 (any weights) and 0 for s > 0 with every weight 0
    (the sum is 0); the mixture's tail gives p 1 at statistic 0 and critical value 0."""
    assert _weighted_chi2_sf(0.0, [1.0, 2.0]) == 1.0
    assert _weighted_chi2_sf(-1.0, [3.0]) == 1.0
    assert _weighted_chi2_sf(0.5, [0.0, 0.0]) == 0.0
    assert _weighted_chi2_sf(0.5, []) == 0.0
    assert _chi2_mixture_tail(0.0, [0.0], 0.05) == (1.0, 0.0)
    assert _chi2_mixture_tail(0.3, [0.0, 0.0], 0.05) == (0.0, 0.0)


def test_critical_points_are_where_sigmoid_curvature_is_minus_one_over_c():
    """The fold of z -> z + c sigmoid'(z): 0 < z1 < z2 with sigmoid''(z) = -1/|c|."""
    for c in (10.5, 12.0, 30.0, -50.0, 1e3, 1e6):
        z1, z2 = _critical_points(c)
        assert 0 < z1 < z2
        for z in (z1, z2):
            s = special.expit(z)
            assert s * (1 - s) * (1 - 2 * s) == pytest.approx(-1 / abs(c), rel=1e-9)
    assert _critical_points(6 * math.sqrt(3)) == (0.0, 0.0)  # convex: no fold


@pytest.mark.parametrize("gamma", [-3.0, -0.7, 0.4, 2.5])
def test_dual_curvature_is_the_derivative_of_the_dual_slope(gamma):
    """F''(gamma), which steers the Newton steps of the dual, is the derivative of F'(gamma)
    (central differences), here where the inner problem is convex (|c| up to about 7) and
    1 + c sigmoid'' is far from 1, so a wrong curvature term moves F'' by much more than the
    differencing error."""
    from fastfair.wasserstein.inference import _evaluate

    rng = np.random.default_rng(21)
    cells = [(rng.normal(0.3, 2.0, 400), 1.6), (rng.normal(-0.5, 1.5, 300), -1.1)]
    n, b2, h = 700, 4.0, 1e-5
    f2 = _evaluate(cells, gamma, n, b2, 1)[2]
    slope = [_evaluate(cells, gamma + d, n, b2, 1)[1] for d in (h, -h)]
    assert f2 < 0 and f2 == pytest.approx((slope[0] - slope[1]) / (2 * h), rel=1e-5)
    u, lam = cells[0]
    z, alt, gap = np.empty(len(u)), np.empty(len(u)), np.empty(len(u))
    t = gamma * lam
    _, _, curv = _wasserstein.cell_sums(u, t, b2, *_critical_points(t * b2 / 2), 1, z, alt, gap)
    s = special.expit(z)
    d1, d2 = s * (1 - s), s * (1 - s) * (1 - 2 * s)
    assert curv == pytest.approx((d1 * d1 / (1 + 0.5 * t * b2 * d2)).sum(), rel=1e-12)


def _close(got, want, rtol=1e-3, atol=0.0):
    np.testing.assert_allclose(np.atleast_1d(got), np.atleast_1d(want), rtol=rtol, atol=atol)


def test_tiny_features_keep_the_p_value_of_the_linear_limit():
    """X on a scale like 1e-300 (already 1e-20) gave p = 1: sigmoid(u) rounded to 1/2 for
    every sample and every difference vanished. The test is invariant to magnifying a
    spread within the sigmoid's linear range, so the p-value must be that of the same data
    at a small scale computed directly (X * 1e-4, linear to about 1e-4), and the statistic,
    theta, gamma, the difference and the transport cost must scale as c^2, c^2, c, c, c^2."""
    rng = np.random.default_rng(0)
    n = 400
    X = rng.normal(size=(n, 2))
    a = rng.integers(0, 2, n)
    y = rng.integers(0, 2, n)
    X[:, 0] += 0.3 * a
    beta = np.array([1.0, -0.5])
    for b0, criterion in ((0.0, "equal_opportunity"), (2.0, "equalized_odds")):
        kw = dict(intercept=b0, criterion=criterion, return_favorable=True)
        ref = wasserstein_test(X * 1e-4, y, a, beta, **kw)
        assert 0.05 < ref.pvalue < 0.5
        for c in (1e-12, 1e-100, 1e-300):
            res = wasserstein_test(X * c, y, a, beta, **kw)
            assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-3)
            assert res.reject == ref.reject
            r = c / 1e-4
            _close(res.gamma, np.atleast_1d(ref.gamma) * r)
            _close(res.difference, np.atleast_1d(ref.difference) * r)
            if c > 1e-150:  # c^2 underflows below
                _close(res.statistic, ref.statistic * r * r)
                _close(res.theta, np.atleast_1d(ref.theta) * r * r)
                _close(res.favorable.transport_cost, ref.favorable.transport_cost * r * r)
            moved = (res.favorable.X - X[res.favorable.source] * c) / r
            ref_moved = ref.favorable.X - X[ref.favorable.source] * 1e-4
            _close(moved, ref_moved, atol=1e-3 * np.abs(ref_moved).max())


def test_theta_is_the_documented_ratio_with_h_centred_at_its_mean_over_the_label():
    """theta_y = sum lambda^2 (h - mean_y h)^2 / (||beta||^2 sum lambda^2 sigma'(u)^2) over
    the rows with label y, mean_y h the mean over all those rows (not the mean of the two
    groups' means: the cells of the authors' mixture have 4:3 and 1:2 sizes, and the
    groups' mean scores differ along beta's first coordinate)."""
    X, y, a = _authors_mixture(600, np.random.default_rng(4))
    beta, b0 = np.array([0.3, 1.0]), 0.2
    res = wasserstein_test(X, y, a, beta, intercept=b0, criterion="equalized_odds")
    u = X @ beta + b0
    h = special.expit(u)
    for label in (0, 1):
        rows = y == label
        n1, n0 = np.sum(rows & (a == 1)), np.sum(rows & (a == 0))
        lam = np.where(a == 1, 1 / n1, -1 / n0)[rows]
        centred = h[rows] - h[rows].mean()
        slope = h[rows] * (1 - h[rows])
        theta = np.sum(lam**2 * centred**2) / (beta @ beta * np.sum(lam**2 * slope**2))
        assert res.theta[label] == pytest.approx(theta, rel=1e-10)


def _mixture_sf(s, w0, w1):
    """P(w0 X + w1 Y > s), X, Y independent chi2(1), by quadrature over X."""
    inner, _ = integrate.quad(lambda x: stats.chi2.sf((s - w0 * x) / w1, 1) * stats.chi2.pdf(x, 1),
                              0.0, s / w0, limit=200)  # fmt: skip
    return inner + stats.chi2.sf(s / w0, 1)


def test_equalized_odds_fields_and_repr_read_back_from_the_cells():
    """cell_counts and cell_means (of h = sigmoid(X beta + b) in each cell [a, y]) counted
    with numpy, each label's difference E[h | a=1, y] - E[h | a=0, y], the threshold where
    P(theta_0 chi2 + theta_1 chi2 > s) = alpha (quadrature), the statistic N * sum R_y and
    the repr's rows y = 0, y = 1 and its summary row."""
    rng = np.random.default_rng(9)
    X, y, a = _toy(1500, rng, shift=0.25)
    a = np.where(rng.random(len(y)) < 0.3, a, 0)  # unequal cells
    a[:4] = [0, 0, 1, 1]
    beta, b0 = np.array([0.8, -0.4, 0.3]), 0.2
    res = wasserstein_test(X, y, a, beta, intercept=b0, criterion="equalized_odds", alpha=0.1)
    h = special.expit(X @ beta + b0)
    counts = np.array([[np.sum((a == i) & (y == j)) for j in (0, 1)] for i in (0, 1)])
    means = np.array([[h[(a == i) & (y == j)].mean() for j in (0, 1)] for i in (0, 1)])
    np.testing.assert_array_equal(res.cell_counts, counts)
    np.testing.assert_allclose(res.cell_means, means, rtol=1e-12)
    np.testing.assert_allclose(res.difference, means[1] - means[0], rtol=1e-9, atol=1e-15)
    assert res.statistic == pytest.approx(len(y) * res.distance_parts.sum(), rel=1e-12)
    assert res.distance == pytest.approx(res.distance_parts.sum(), rel=1e-12)
    assert _mixture_sf(res.threshold, *res.theta) == pytest.approx(0.1, rel=1e-6)
    assert res.pvalue == pytest.approx(_mixture_sf(res.statistic, *res.theta), rel=1e-6)
    assert res.reject == (res.statistic > res.threshold)
    lines = repr(res).splitlines()
    for k in (0, 1):
        row = lines[2 + k].split()
        assert row[:3] == ["y", "=", str(k)]
        shown = [res.difference[k], res.distance_parts[k], res.theta[k], res.gamma[k]]
        np.testing.assert_allclose([float(v) for v in row[3:]], shown, rtol=5e-4, atol=5e-5)
    summary = lines[-1].split()
    assert float(summary[1]) == pytest.approx(res.threshold, rel=5e-4)
    assert summary[-1] == ("yes" if res.reject else "no")


def test_the_saturation_check_accepts_a_null_move_of_exactly_4_and_refuses_beyond():
    """The refusal is for a null-size difference that moves some score by MORE than 4 on the
    logit scale: move = sqrt(spread / N) * b2 * max |lambda| sigma' / M, here sqrt(16 / 1)
    * 1 * (1 * 0.25) / 0.25 = 4 exactly (every factor a power of two), accepted; a spread
    of 16.5 (move about 4.06) is refused."""
    from fastfair.wasserstein.ingest import _check_not_saturated

    dsig, cells = [np.array([0.125, 0.25])], [(None, -1.0)]
    _check_not_saturated(dsig, cells, 16.0, 0.25, 1, 1.0)  # move == 4: no error
    with pytest.raises(ValueError, match=r"moves scores by 4\.06 on the logit scale"):
        _check_not_saturated(dsig, cells, 16.5, 0.25, 1, 1.0)
    with pytest.raises(ValueError, match="the classifier is saturated"):
        _check_not_saturated(dsig, cells, 1.0, 0.0, 1, 1.0)  # M = 0: an infinite move


def test_inner_problem_other_minimizer_and_its_gap_read_back_from_the_objective():
    """Non-convex c (beyond 6 sqrt(3)): where the two increasing pieces of G both hold a
    root, alt is the other stationary point (alt = u - c sigmoid'(alt)), its objective
    (z - u)^2 + 2 c sigmoid(z) exceeds z's by gap >= 0, computed here with scipy's expit;
    where one piece holds no root, alt is NaN and gap inf; convex c (at the limit) never
    has an alternative."""
    for t in (12.0, -15.0, 30.0):
        b2 = 2.0
        c = t * b2 / 2
        z1, z2 = _critical_points(c)
        # both pieces hold a root for |c|-reflected u in [G(z2), G(z1)], G(z) = z + |c| s'(z)
        g1, g2 = (v + abs(c) * special.expit(v) * special.expit(-v) for v in (z1, z2))
        assert g2 < g1
        ur = np.linspace(2 * g2 - g1, 2 * g1 - g2, 161)  # a third of them in [g2, g1]
        u = np.sign(c) * ur
        z, alt, gap = np.empty(len(u)), np.empty(len(u)), np.empty(len(u))
        _wasserstein.cell_sums(u, t, b2, z1, z2, 1, z, alt, gap)

        def obj(v, u=u, c=c):
            return (v - u) ** 2 + 2 * c * special.expit(v)

        two = np.isfinite(alt)
        assert two.sum() > 40
        assert two[(ur > g2 + 1e-9) & (ur < g1 - 1e-9)].all()
        assert not two[(ur < g2 - 1e-9) | (ur > g1 + 1e-9)].any()
        s = special.expit(alt[two])
        np.testing.assert_allclose(alt[two], u[two] - c * s * (1 - s), rtol=1e-10, atol=1e-10)
        assert np.all(np.abs(alt[two] - z[two]) > 1e-6)
        np.testing.assert_allclose(gap[two], obj(alt)[two] - obj(z)[two], rtol=1e-9, atol=1e-12)
        assert np.all(gap[two] >= 0)
        assert np.all(np.isinf(gap[~two]))
    c = 6 * np.sqrt(3)  # exactly the convex limit: one minimizer
    u = np.linspace(-5, 5, 41)
    z, alt, gap = np.empty(41), np.empty(41), np.empty(41)
    _wasserstein.cell_sums(u, c, 2.0, *_critical_points(c), 1, z, alt, gap)
    assert np.isnan(alt).all() and np.isinf(gap).all()
    s = special.expit(z)
    np.testing.assert_allclose(z, u - c * s * (1 - s), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n", [8191, 8192, 8193, 16385])
def test_cell_sums_over_chunks_are_the_per_sample_sums_for_any_thread_count(n):
    """Samples around the 8192-sample chunk (one short, one chunk, one over, two and one),
    one thread and more threads than chunks: the three sums are those of numpy over the
    per-sample minimizers the kernel writes (cost (z - u)^2 / b2, sigmoid(z), and the
    curvature term sigmoid'(z)^2 / (1 + c sigmoid''(z))), identical for any thread count."""
    rng = np.random.default_rng(n)
    u = rng.normal(0, 3, n)
    t, b2 = 25.0, 1.3  # c = 16.25: non-convex
    c = t * b2 / 2
    z1, z2 = _critical_points(c)
    z, alt, gap = np.empty(n), np.empty(n), np.empty(n)
    one = _wasserstein.cell_sums(u, t, b2, z1, z2, 1, z, alt, gap)
    s = special.expit(z)
    d1, d2 = s * (1 - s), s * (1 - s) * (1 - 2 * s)
    want = (np.sum((z - u) ** 2) / b2, s.sum(), np.sum(d1 * d1 / (1 + c * d2)))
    np.testing.assert_allclose(one, want, rtol=1e-10)
    assert _wasserstein.cell_sums(u, t, b2, z1, z2, 4) == one


def test_weighted_chi2_sum_keeps_its_far_tail():
    """P(sum_k w_k chi2_1 > s) far in the tail, where only a relative tolerance sees it:
    one weight, chi2_1.sf(s / w) (3.3e-67 at s = 300); two equal weights w, w chi2_2,
    whose tail exp(-s / (2 w)) is exact (exp(-100) = 3.7e-44); two unequal ones (0.7, 2.9)
    at s = 150, the convolution of the two densities (7.4e-13). Relative 1e-12 / 1e-10,
    absolute 0: 1 - cdf would return 0 there."""
    assert _weighted_chi2_sf(300.0, [1.0]) == pytest.approx(
        stats.chi2.sf(300.0, 1), rel=1e-12, abs=0
    )
    assert _weighted_chi2_sf(300.0, [1.5, 1.5]) == pytest.approx(
        math.exp(-100.0), rel=1e-12, abs=0
    )
    w0, w1, s = 0.7, 2.9, 150.0
    inner = integrate.quad(
        lambda x: stats.chi2.pdf(x, 1) * stats.chi2.sf((s - w0 * x) / w1, 1),
        0, s / w0, limit=400, epsabs=0, epsrel=1e-13,
    )[0]  # fmt: skip
    want = inner + stats.chi2.sf(s / w0, 1)
    assert 0 < want < 1e-12
    assert _weighted_chi2_sf(s, [w0, w1]) == pytest.approx(want, rel=1e-10, abs=0)


def test_repr_head_names_criterion_rows_groups_and_the_alpha_given():
    """The repr's head: the criterion, the number of rows and the two groups as given
    (the second coded a = 1), and the alpha given (0.1, not the default)."""
    rng = np.random.default_rng(9)
    X, y, a = _toy(600, rng, shift=0.25)
    labels = np.where(a == 1, "women", "men")
    res = wasserstein_test(X, y, labels, np.array([0.8, -0.4, 0.3]), intercept=0.2, alpha=0.1)
    assert repr(res).splitlines()[0] == (
        f"WassersteinTestResult(criterion='equal_opportunity', n={len(y)}, "
        f"groups={res.groups.tolist()!r}, alpha=0.1)"
    )
    assert sorted(res.groups.tolist()) == ["men", "women"]
