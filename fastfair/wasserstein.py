r"""Wasserstein projection test of probabilistic fairness for a logistic classifier.

Taskesen, Blanchet, Kuhn & Nguyen (FAccT 2021), "A statistical test for probabilistic
fairness", with the formulas of docs/wasserstein.md. The statistic is N times the squared
Wasserstein distance from the empirical distribution to the set of distributions under which
the classifier :math:`h(x) = \sigma(\beta^\top x + b)` is fair, with transport allowed in the
features only. The per-sample inner problem is solved exactly (to rounding) in the compiled
core, the concave outer problem by safeguarded Newton on its derivative inside a bracket that
always holds the optimum.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fastfair import _wasserstein
from fastfair._deprecation import renamed_arguments, renamed_attributes
from fastfair._parallel import effective_n_threads
from fastfair._results import format_pvalue, format_table, format_value
from fastfair._scipy import integrate, optimize, special, stats
from fastfair._validation import (
    align_index,
    as_binary,
    as_groups,
    check_choice,
    check_same_length,
    show_value,
)

__all__ = ["FavorableDistribution", "WassersteinTestResult", "wasserstein_test"]

CRITERIA = ("equal_opportunity", "equalized_odds")
_CONVEX_LIMIT = 6.0 * math.sqrt(3.0)  # |c| above which the inner problem is non-convex
_MAX_ITER = 300
_MAX_NULL_MOVE = 4.0  # largest logit move of a null-size difference (level holds to ~4)


@renamed_attributes(a="group", y="y_true")
@dataclass(repr=False)
class FavorableDistribution:
    r"""The most favorable distribution: the projection of the data onto the fair set.

    A discrete distribution on the moved samples (rows of `X` with probabilities `weight`).
    Usually each input row is moved once with weight 1/N. When the dual optimum sits at a kink
    (possible only when the inner problem is non-convex) a few rows are split between their
    two optimal destinations so that the fairness constraint holds exactly.

    Attributes
    ----------
    X : ndarray of shape (m, d)
        Support points (moved features); rows of the input that do not move are copied.
    group, y_true : ndarray of shape (m,)
        Group label (as given) and 0/1 label of each point (never changed).
    weight : ndarray of shape (m,)
        Probability of each point (sums to 1).
    source : ndarray of shape (m,)
        Index of the input row each point comes from.
    transport_cost : float
        :math:`\sum_j w_j \|x'_j - x_{source(j)}\|^2` (in the metric): equals the distance R.
    constraint : float or ndarray
        :math:`E_Q[h \mid a=1, y] - E_Q[h \mid a=0, y]` under this distribution for the
        constrained label(s) (y = 1; or y = 0 and y = 1 for equalized odds): zero up to
        rounding.
    """

    X: np.ndarray
    group: np.ndarray
    y_true: np.ndarray
    weight: np.ndarray
    source: np.ndarray
    transport_cost: float
    constraint: float | np.ndarray

    def __repr__(self) -> str:
        cons = np.atleast_1d(self.constraint)
        return (
            f"FavorableDistribution(points={len(self.weight)}, features={self.X.shape[1]}, "
            f"transport_cost={format_value(self.transport_cost)}, "
            f"constraint=[{', '.join(format_value(c) for c in cons)}])"
        )


@dataclass(repr=False)
class WassersteinTestResult:
    r"""Result of :func:`wasserstein_test`.

    For ``criterion="equal_opportunity"`` the per-label attributes (`theta`, `gamma`,
    `difference`, `distance_parts`) are floats for label y = 1; for ``"equalized_odds"`` they
    are arrays of length 2 for labels y = 0 and y = 1.

    Attributes
    ----------
    statistic : float
        :math:`N R`, N times the squared Wasserstein distance to the fair set.
    pvalue : float
        Asymptotic p-value, :math:`P(\theta\chi^2_1 > NR)` (equal opportunity) or
        :math:`P(\theta_0\chi^2_1 + \theta_1\chi^2_1 > NR)` (equalized odds).
    threshold : float
        Critical value at `alpha`: reject when `statistic` > `threshold`.
    reject : bool
        Whether the test rejects fairness at level `alpha`.
    distance : float
        R, the squared projection distance (the optimal transport cost).
    distance_parts : float or ndarray
        :math:`R_y` for each constrained label (R is their sum).
    theta : float or ndarray
        Plug-in scale(s) of the limiting distribution.
    gamma : float or ndarray
        Dual optimum :math:`\gamma^*` for each constrained label.
    difference : float or ndarray
        :math:`\hat E[h \mid a=1, y] - \hat E[h \mid a=0, y]` on the data (the quantity that
        is zero under the null).
    groups : ndarray
        The two labels of `a`; the second is coded a = 1.
    cell_counts, cell_means : ndarray of shape (2, 2)
        Number of samples and mean of h in each cell [a, y].
    favorable : FavorableDistribution or None
        With ``return_favorable=True``.
    """

    statistic: float
    pvalue: float
    threshold: float
    reject: bool
    alpha: float
    criterion: str
    distance: float
    distance_parts: float | np.ndarray
    theta: float | np.ndarray
    gamma: float | np.ndarray
    difference: float | np.ndarray
    n: int
    groups: np.ndarray
    cell_counts: np.ndarray
    cell_means: np.ndarray
    favorable: FavorableDistribution | None = None

    def __repr__(self) -> str:
        head = (
            f"WassersteinTestResult(criterion={self.criterion!r}, n={self.n}, "
            f"groups={self.groups.tolist()!r}, alpha={self.alpha})"
        )
        labels = [1] if self.criterion == "equal_opportunity" else [0, 1]
        cols = [
            np.atleast_1d(v)
            for v in (self.difference, self.distance_parts, self.theta, self.gamma)
        ]
        rows = [(f"y = {lab}", *(c[k] for c in cols)) for k, lab in enumerate(labels)]
        table = format_table(["label", "difference", "R_y", "theta", "gamma"], rows)
        summary = format_table(
            ["statistic N*R", "threshold", "pvalue", "reject"],
            [
                (
                    format_value(self.statistic),
                    self.threshold,
                    format_pvalue(self.pvalue),
                    "yes" if self.reject else "no",
                )
            ],
        )
        return "\n".join([head, table, summary])


@renamed_arguments(y="y_true", a="group")
def wasserstein_test(
    X,
    y_true,
    group,
    coef,
    *,
    intercept: float = 0.0,
    criterion: str = "equal_opportunity",
    alpha: float = 0.05,
    metric_matrix=None,
    pos_label=None,
    return_favorable: bool = False,
    n_jobs: int | None = None,
) -> WassersteinTestResult:
    r"""Test probabilistic equal opportunity or equalized odds of a logistic classifier.

    The classifier is :math:`h(x) = \sigma(\beta^\top x + b)`. Probabilistic equal
    opportunity holds for a distribution Q when
    :math:`E_Q[h(X) \mid A=1, Y=1] = E_Q[h(X) \mid A=0, Y=1]`; equalized odds asks the same
    for Y = 0 too. The statistic is :math:`NR`, with R the squared type-2 Wasserstein
    distance (ground cost :math:`\|x - x'\|^2`, infinite for changing a or y) from the
    empirical distribution to the set of such Q. By duality (docs/wasserstein.md), with
    :math:`\lambda_i = 1/\hat p_{1y}` for a = 1 and :math:`-1/\hat p_{0y}` for a = 0,

    .. math:: R_y = \sup_\gamma \frac1N \sum_{i: y_i = y} \min_{x}
              \bigl\{\|x - x_i\|^2 + \gamma\lambda_i h(x)\bigr\}
              = \sup_\gamma \frac1N \sum_{i: y_i = y} \min_{z}
              \Bigl\{\frac{(z - u_i)^2}{\|\beta\|^2} + \gamma\lambda_i\sigma(z)\Bigr\},

    :math:`u_i = \beta^\top x_i + b`; the minimizer moves :math:`x_i` along
    :math:`\beta` to :math:`x_i + (z_i - u_i)\beta/\|\beta\|^2`, i.e.
    :math:`x_i - k\gamma\lambda_i\beta` with :math:`k = \sigma'(z_i)/2 \in [0, 1/8]`.
    Equal opportunity uses :math:`R = R_1`, equalized odds :math:`R = R_0 + R_1`.
    Under the null, :math:`NR_y \to \theta_y\chi^2_1` with

    .. math:: \theta_y = \frac{\sum_{i: y_i = y}\lambda_i^2 (h_i - \bar h_y)^2}
              {\|\beta\|^2 \sum_{i: y_i = y}\lambda_i^2 \sigma'(u_i)^2},

    (:math:`\bar h_y` the mean of h over the samples with label y, the common mean under
    the null), and the two parts of equalized odds are independent. Reject when
    :math:`NR` exceeds the :math:`1-\alpha` quantile of :math:`\theta\chi^2_1` (equal
    opportunity) or of :math:`\theta_0\chi^2_1 + \theta_1\chi^2_1` (equalized odds,
    computed exactly).

    Parameters
    ----------
    X : array-like of shape (n, d)
        Features (numeric, finite); a pandas DataFrame is accepted.
    y_true : array-like of shape (n,)
        True labels: bool, 0/1, or two values with `pos_label`.
    group : array-like of shape (n,)
        Sensitive attribute with exactly two values (any labels; the larger is coded 1).
        The statistic does not depend on which group is coded 1.
    coef : array-like of shape (d,) or fitted binary classifier
        :math:`\beta`, or an object with ``coef_`` (shape (d,) or (1, d)) and
        ``intercept_``, such as a fitted scikit-learn ``LogisticRegression``.
    intercept : float
        :math:`b` when `coef` is an array (the intercept is never transported).
    criterion : {"equal_opportunity", "equalized_odds"}
        Fairness notion tested.
    alpha : float
        Level of the test, in (0, 1).
    metric_matrix : array-like of shape (d, d), optional
        Symmetric positive definite :math:`\Omega`: the ground cost becomes
        :math:`(x - x')^\top\Omega(x - x')`. Everything above holds with
        :math:`\|\beta\|^2` replaced by :math:`\beta^\top\Omega^{-1}\beta` and the moving
        direction :math:`\beta` by :math:`\Omega^{-1}\beta`. A diagonal matrix with a large
        entry makes a feature expensive to move.
    pos_label : optional
        Positive label of `y` when it is not bool or 0/1.
    return_favorable : bool
        Also return the most favorable distribution (the moved samples).
    n_jobs : int, optional
        Threads for the inner problems (None: all cores). Results do not depend on it.

    Returns
    -------
    WassersteinTestResult

    Raises
    ------
    ValueError
        Also for a classifier saturated on the data: when undoing a difference of null
        size would move some score by more than 4 on the logit scale, the linearization
        behind the chi-square limit fails (theta explodes; a maximally unfair classifier got
        p near 1). Test its thresholded predictions with :func:`fastfair.permutation_test`.

    Notes
    -----
    The inner minimum over z is found exactly: for :math:`|c| = |\gamma\lambda_i|
    \|\beta\|^2/2 \le 6\sqrt3` it is a convex problem with its root bracketed in
    :math:`[u - |c|/4, u]` (or the mirror interval); beyond that, the two possible local
    minima are bracketed on either side of the inflection points of the stationarity map
    and compared. The outer objective is concave with derivative
    :math:`\frac1N\sum\lambda_i\sigma(z_i)`, positive at 0 on the side of the observed
    difference and tending to -1 (or +1) far away, so a bracket found by expanding from
    the Newton step :math:`2c/M` always holds the optimum (the authors' fixed
    :math:`[-5, 5]` need not). The plug-in :math:`\theta` centers h at the common mean of
    the label's samples (null-restricted, like a score test). In the authors'
    Gaussian-mixture null this holds the level from N = 100 on, whereas centering at each
    group's own mean over-rejects at N = 100 (0.14 at alpha = 0.10) and the authors' code,
    which centers each group at the other group's mean, is conservative there (0.045).

    Examples
    --------
    >>> import numpy as np
    >>> from fastfair.wasserstein import wasserstein_test
    >>> rng = np.random.default_rng(0)
    >>> n = 4000
    >>> a = rng.integers(0, 2, n)
    >>> y = rng.integers(0, 2, n)
    >>> X = rng.normal(size=(n, 3))
    >>> fair = wasserstein_test(X, y, a, [1.0, -0.5, 0.2])
    >>> bool(fair.reject), round(fair.theta, 2)
    (False, 0.97)
    >>> X[:, 0] += 0.4 * a * y  # the classifier now favors group 1 among positives
    >>> unfair = wasserstein_test(X, y, a, [1.0, -0.5, 0.2], return_favorable=True)
    >>> bool(unfair.reject), unfair.pvalue < 1e-6
    (True, True)
    >>> mfd = unfair.favorable
    >>> abs(mfd.constraint) < 1e-12, bool(np.isclose(mfd.transport_cost, unfair.distance))
    (True, True)
    """
    X, y_true, group = align_index(X=X, y_true=y_true, group=group).values()
    X_arr = _as_features(X)
    n, d = X_arr.shape
    y01 = as_binary(y_true, "y_true", pos_label)
    codes, groups = as_groups(group, "group")
    if len(groups) != 2:
        raise ValueError(f"group must have exactly two values, got {len(groups)}")
    check_same_length(X=X_arr, y_true=y01, group=codes)
    check_choice(criterion, "criterion", CRITERIA)
    alpha = _check_alpha(alpha)
    beta, b0 = _coefficients(coef, intercept, d)
    if not isinstance(return_favorable, (bool, np.bool_)):
        raise TypeError(
            f"return_favorable must be True or False, got {show_value(return_favorable)}"
        )
    direction, b2 = _direction(beta, metric_matrix, d)
    n_threads = effective_n_threads(n_jobs)

    a01 = codes.astype(np.uint8)
    cell = 2 * a01 + y01  # a * 2 + y
    counts = np.bincount(cell, minlength=4).reshape(2, 2)
    labels = [1] if criterion == "equal_opportunity" else [0, 1]
    for lab in labels:
        for g in (0, 1):
            if counts[g, lab] == 0:
                raise ValueError(
                    f"no samples with a = {groups.tolist()[g]!r} and y = {lab}: {criterion} "
                    f"compares E[h | a, y = {lab}] between the groups, so both cells must be "
                    "non-empty"
                )

    u = X_arr @ beta
    if b0 != 0.0:
        u += b0
    h = special.expit(u)
    means = np.full(4, np.nan)
    sums = np.bincount(cell, weights=h, minlength=4)
    means[counts.ravel() > 0] = sums[counts.ravel() > 0] / counts.ravel()[counts.ravel() > 0]

    parts = []
    for lab in labels:
        idx = [np.flatnonzero(cell == 2 * g + lab) for g in (1, 0)]
        lam = [n / counts[1, lab], -n / counts[0, lab]]
        parts.append(_solve_part(u, idx, lam, n, b2, n_threads))

    stat_parts = np.array([n * p["R"] for p in parts])
    statistic = float(stat_parts.sum())
    thetas = np.array([p["theta"] for p in parts])
    if criterion == "equal_opportunity":
        pvalue, threshold = _chi2_mixture_tail(statistic, thetas[:1], alpha)
    else:
        pvalue, threshold = _chi2_mixture_tail(statistic, thetas, alpha)

    favorable = None
    if return_favorable:
        favorable = _favorable(
            X_arr, u, cell, groups, codes, y01, parts, direction, b2, n, n_threads
        )

    def per_label(values):
        values = np.asarray(values, dtype=np.float64)
        return float(values[0]) if criterion == "equal_opportunity" else values

    return WassersteinTestResult(
        statistic=statistic,
        pvalue=pvalue,
        threshold=threshold,
        reject=bool(statistic > threshold),
        alpha=alpha,
        criterion=criterion,
        distance=float(sum(p["R"] for p in parts)),
        distance_parts=per_label([p["R"] for p in parts]),
        theta=per_label(thetas),
        gamma=per_label([p["gamma"] for p in parts]),
        difference=per_label([p["c"] for p in parts]),
        n=n,
        groups=groups,
        cell_counts=counts,
        cell_means=means.reshape(2, 2),
        favorable=favorable,
    )


# --------------------------------------------------------------------------- input checks


def _as_features(X) -> np.ndarray:
    if X is None:
        raise TypeError("X is required, got None")
    if hasattr(X, "to_numpy") and not isinstance(X, np.ndarray):
        X = X.to_numpy()
    arr = np.asarray(X)
    if arr.ndim != 2:
        raise ValueError(f"X must be 2-D (n samples, d features), got shape {arr.shape}")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"X is empty (shape {arr.shape})")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"X must be numeric, got dtype {arr.dtype}")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if not np.isfinite(arr).all():
        bad = "NaN" if np.isnan(arr).any() else "infinite values"
        rows = np.flatnonzero(~np.isfinite(arr).all(axis=1))
        raise ValueError(f"X contains {bad} (first in row {rows[0]})")
    return arr


def _check_alpha(alpha) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.floating)):
        raise TypeError(f"alpha must be a number, got {show_value(alpha)}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    return float(alpha)


def _coefficients(coef, intercept, d):
    """(beta, b) from an array or from a fitted model with coef_ and intercept_."""
    if coef is None:
        raise TypeError("coef is required, got None")
    if hasattr(coef, "coef_"):
        if intercept != 0.0:
            raise ValueError(
                "intercept is taken from the fitted model's intercept_; do not pass it too"
            )
        model = coef
        beta = np.asarray(model.coef_, dtype=np.float64)
        if beta.ndim == 2:
            if beta.shape[0] != 1:
                raise ValueError(
                    f"coef: the model has {beta.shape[0]} rows of coefficients; "
                    "only a binary logistic classifier (one row) can be tested"
                )
            beta = beta[0]
        b0 = np.asarray(getattr(model, "intercept_", 0.0), dtype=np.float64).ravel()
        b0 = float(b0[0]) if b0.size else 0.0
    else:
        if isinstance(coef, str):
            raise TypeError("coef must be an array of coefficients or a fitted model")
        beta = np.asarray(coef, dtype=np.float64)
        try:
            b0 = float(intercept)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"intercept must be a number, got {show_value(intercept)}") from exc
    if beta.ndim != 1:
        raise ValueError(f"coef must be 1-D with {d} entries, got shape {beta.shape}")
    if beta.shape[0] != d:
        raise ValueError(f"coef has {beta.shape[0]} entries but X has {d} columns")
    if not np.isfinite(beta).all() or not math.isfinite(b0):
        raise ValueError("coef and intercept must be finite")
    return np.ascontiguousarray(beta), b0


def _direction(beta, metric_matrix, d):
    """Moving direction Omega^{-1} beta and b2 = beta' Omega^{-1} beta."""
    if metric_matrix is None:
        return beta, float(beta @ beta)
    omega = np.asarray(metric_matrix, dtype=np.float64)
    if omega.shape != (d, d):
        raise ValueError(f"metric_matrix must have shape ({d}, {d}), got {omega.shape}")
    if not np.isfinite(omega).all() or not np.allclose(omega, omega.T, rtol=1e-10, atol=0):
        raise ValueError("metric_matrix must be finite and symmetric")
    try:
        chol = np.linalg.cholesky(omega)
    except np.linalg.LinAlgError as exc:
        raise ValueError("metric_matrix must be positive definite") from exc
    direction = np.linalg.solve(chol.T, np.linalg.solve(chol, beta))
    return direction, float(beta @ direction)


# --------------------------------------------------------------------------- dual problem


def _critical_points(c: float) -> tuple[float, float]:
    """0 < z1 < z2 with sigmoid''(z) = -1/|c| (the fold of the stationarity map), if any.

    With v = 2 sigmoid(z) - 1, sigmoid'' = -v (1 - v^2) / 4, so v solves v^3 - v + 4/|c| = 0
    (trigonometric roots); z = 2 atanh(v).
    """
    ca = abs(c)
    if ca <= _CONVEX_LIMIT:
        return 0.0, 0.0
    q = 4.0 / ca
    phi = math.acos(-min(1.0, 1.5 * math.sqrt(3.0) * q)) / 3.0
    r = 2.0 / math.sqrt(3.0)
    v = r * math.cos(phi - 2.0 * math.pi / 3.0)  # smaller root in (0, 1)
    w = 1.0 - r * math.cos(phi)  # 1 - larger root, solves w (1 - w) (2 - w) = q
    for _ in range(3):  # polish (the trigonometric form loses digits for large |c|)
        dv = 3.0 * v * v - 1.0
        if abs(dv) > 1e-6:
            v -= (v * v * v - v + q) / dv
        dw = 2.0 - 6.0 * w + 3.0 * w * w
        if abs(dw) > 1e-6:
            w -= (w * (1.0 - w) * (2.0 - w) - q) / dw
    w = min(max(w, 1e-300), 1.0)
    return math.log((1.0 + v) / (1.0 - v)), math.log((2.0 - w) / w)


def _evaluate(cells, gamma, n, b2, n_threads, store=None):
    """Dual objective F(gamma), F'(gamma), F''(gamma) summed over the cells of one label."""
    f = f1 = f2 = 0.0
    for k, (uc, lam) in enumerate(cells):
        t = gamma * lam
        z1, z2 = _critical_points(0.5 * t * b2)
        out = () if store is None else store[k]
        cost, ssig, curv = _wasserstein.cell_sums(uc, t, b2, z1, z2, n_threads, *out)
        f += cost + t * ssig
        f1 += lam * ssig
        f2 -= 0.5 * lam * lam * b2 * curv
    return f / n, f1 / n, f2 / n


def _solve_part(u, idx, lam, n, b2, n_threads):
    """Solve sup_gamma F(gamma) for the two cells of one label; plug-in theta."""
    cells = [(np.ascontiguousarray(u[i]), l_) for i, l_ in zip(idx, lam)]
    h = [special.expit(uc) for uc, _ in cells]
    c = sum(l_ * hc.sum() for hc, (_, l_) in zip(h, cells)) / n
    dsig = [hc * (1.0 - hc) for hc in h]
    m_scale = b2 * sum(l_ * l_ * (ds * ds).sum() for ds, (_, l_) in zip(dsig, cells)) / n
    common = sum(hc.sum() for hc in h) / sum(len(hc) for hc in h)  # mean of h given y
    spread = sum(l_ * l_ * ((hc - common) ** 2).sum() for hc, (_, l_) in zip(h, cells)) / n
    theta = spread / m_scale if m_scale > 0 else math.nan
    result = {"cells": cells, "idx": idx, "lam": lam, "c": c, "M": m_scale, "theta": theta}
    if b2 == 0.0:  # constant classifier: always fair, nothing moves
        result.update(gamma=0.0, R=0.0, residual=0.0, iterations=0)
        return result
    _check_not_saturated(dsig, cells, spread, m_scale, n, b2)
    gamma, value, residual, iterations = _maximize_dual(cells, c, m_scale, n, b2, n_threads)
    result.update(gamma=gamma, R=max(value, 0.0), residual=residual, iterations=iterations)
    return result


def _check_not_saturated(dsig, cells, spread, m_scale, n, b2):
    r"""Refuse a classifier too steep on these data for the chi-square limit law.

    The limit law linearizes h around each sample. A difference of null size,
    :math:`\mathrm{sd}(c) = \sqrt{\text{spread}/N}`, is undone by moving sample i's score
    by about :math:`\Delta u_i = \mathrm{sd}(c)\, b_2 |\lambda_i| \sigma'(u_i) / M` (the
    first Newton step of the dual). When the largest such move exceeds 1, the sigmoid's
    curvature scale, the linearization (hence theta and the p-value) is meaningless: with
    saturated scores (every :math:`\sigma'(u_i)` tiny or zero) theta explodes or becomes
    NaN and a maximally unfair classifier would get p close to 1.
    """
    slope = max(abs(l_) * float(ds.max()) for ds, (_, l_) in zip(dsig, cells))
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        move = math.sqrt(spread / n) * b2 * slope / m_scale if m_scale > 0 else math.inf
    if not move <= _MAX_NULL_MOVE:
        raise ValueError(
            "the classifier is saturated on these data (|beta'x + b| is large for almost "
            f"every sample: a difference of null size moves scores by {move:.3g} on the "
            "logit scale, beyond the sigmoid's linear range), so the test's chi-square limit "
            "does not apply; test a less steep (e.g. regularized or calibrated) model, or "
            "its thresholded predictions with permutation_test"
        )


def _maximize_dual(cells, c, m_scale, n, b2, n_threads):
    """Safeguarded Newton on F'(gamma) = 0 (F concave), from the bracket [0, inf).

    Works with tau = sign(c) * gamma >= 0, where g(tau) = sign(c) F'(gamma) decreases from
    |c| to -1. Returns (gamma*, F(gamma*), F'(gamma*), evaluations).
    """
    if c == 0.0:
        return 0.0, 0.0, 0.0, 0
    sign = 1.0 if c > 0 else -1.0
    scale = sum(abs(l_) * len(uc) for uc, l_ in cells) / n  # sum |lambda| / N (= 2)
    ftol = 1e-13 * scale
    lo, hi = 0.0, math.inf
    tau = 2.0 * abs(c) / m_scale if m_scale > 0 and math.isfinite(2 * abs(c) / m_scale) else 1.0
    best = (0.0, 0.0, c)
    for it in range(1, _MAX_ITER + 1):
        f, f1, f2 = _evaluate(cells, sign * tau, n, b2, n_threads)
        g, dg = sign * f1, f2  # dg = d g / d tau = F'' <= 0
        if abs(g) < abs(best[2]) or it == 1:
            best = (sign * tau, f, f1)
        if abs(g) <= ftol:
            return sign * tau, f, f1, it
        if g > 0:
            lo = tau
        else:
            hi = tau
        if math.isfinite(hi) and hi - lo <= 1e-15 * hi:
            break
        step = tau - g / dg if dg < 0 else math.nan
        if math.isfinite(hi):
            if not (lo < step < hi):
                step = 0.5 * (lo + hi)
        elif not (step > lo):
            step = 2.0 * max(tau, lo)
        else:
            step = min(step, 64.0 * max(tau, lo) + 1.0)
        tau = step
    else:
        raise RuntimeError("the dual problem did not converge; please report this data")
    # kink: F' jumps across zero at tau*; the value is continuous, take the better end
    f_lo = _evaluate(cells, sign * lo, n, b2, n_threads)
    f_hi = _evaluate(cells, sign * hi, n, b2, n_threads)
    if f_lo[0] >= f_hi[0]:
        return sign * lo, f_lo[0], f_lo[1], it + 2
    return sign * hi, f_hi[0], f_hi[1], it + 2


# --------------------------------------------------------------------------- favorable


def _favorable(X, u, cell, groups, codes, y01, parts, direction, b2, n, n_threads):
    """Moved samples of every constrained label; rows split at a kink of the dual."""
    steps = np.zeros(n)  # each row moves by steps[i] * direction, costing b2 * steps[i]^2
    extra_src, extra_steps, extra_w = [], [], []
    weight = np.full(n, 1.0 / n)
    constraint = []
    for part in parts:
        if part["R"] == 0.0 and part["gamma"] == 0.0:
            constraint.append(part["c"])
            continue
        store = [tuple(np.empty(len(uc)) for _ in range(3)) for uc, _ in part["cells"]]
        _, residual, _ = _evaluate(part["cells"], part["gamma"], n, b2, n_threads, store)
        for (uc, _), (z, _, _), rows in zip(part["cells"], store, part["idx"]):
            steps[rows] = (z - uc) / b2
        if abs(residual) > 1e-12:
            residual = _split_at_kink(
                part, store, residual, n, b2, extra_src, extra_steps, extra_w, weight
            )
        constraint.append(residual)
    X_out = X + np.outer(steps, direction) if b2 > 0 else X.copy()
    source = np.arange(n)
    cost = float(np.dot(weight, steps * steps) * b2)
    if extra_src:
        extra_src = np.array(extra_src, dtype=np.intp)
        extra_steps = np.array(extra_steps)
        X_out = np.vstack([X_out, X[extra_src] + np.outer(extra_steps, direction)])
        source = np.concatenate([source, extra_src])
        weight = np.concatenate([weight, np.array(extra_w)])
        cost += float(np.dot(extra_w, extra_steps * extra_steps) * b2)
    cons = float(constraint[0]) if len(constraint) == 1 else np.array(constraint)
    return FavorableDistribution(
        X=X_out,
        group=groups[codes[source]],
        y_true=y01[source].astype(np.int64),
        weight=weight,
        source=source,
        transport_cost=cost,
        constraint=cons,
    )


def _split_at_kink(part, store, residual, n, b2, extra_src, extra_steps, extra_w, weight):
    """Send part of the mass of tied samples to their other minimizer to zero the residual."""
    candidates = []
    for (uc, lam), (z, alt, gap), rows in zip(part["cells"], store, part["idx"]):
        for j in np.flatnonzero(np.isfinite(alt)):
            delta = lam * (special.expit(alt[j]) - special.expit(z[j])) / n  # full move
            if delta * residual < 0:
                candidates.append((gap[j], rows[j], (alt[j] - uc[j]) / b2, delta))
    candidates.sort(key=lambda item: item[0])
    for _gap, row, step, delta in candidates:
        if abs(residual) <= 1e-15:
            break
        frac = min(1.0, -residual / delta)
        residual += frac * delta
        weight[row] -= frac / n
        extra_src.append(row)
        extra_steps.append(step)
        extra_w.append(frac / n)
    return residual


# --------------------------------------------------------------------------- limit law


def _weighted_chi2_sf(s: float, weights) -> float:
    """P(sum_k w_k chi2_1 > s) for one or two non-negative weights.

    Two weights: with (Z0, Z1) = R (cos phi, sin phi), R^2 ~ chi2_2,
    P = (2/pi) int_0^{pi/2} exp(-s / (2 (w0 cos^2 phi + w1 sin^2 phi))) dphi.
    """
    w = [float(x) for x in weights if x > 0]
    if s <= 0:
        return 1.0
    if not w:
        return 0.0
    if len(w) == 1:
        return float(special.chdtrc(1, s / w[0]))
    w0, w1 = w

    def integrand(phi):
        return math.exp(-s / (2.0 * (w0 * math.cos(phi) ** 2 + w1 * math.sin(phi) ** 2)))

    val, _ = integrate.quad(integrand, 0.0, 0.5 * math.pi, epsabs=0.0, epsrel=1e-12, limit=200)
    return float(min(1.0, 2.0 / math.pi * val))


def _chi2_mixture_tail(statistic: float, thetas, alpha: float):
    """(p-value, critical value at alpha) of sum_k theta_k chi2_1."""
    thetas = np.asarray(thetas, dtype=np.float64)
    if np.isnan(thetas).any():  # constant classifier
        return 1.0, math.inf
    w = [float(x) for x in thetas if x > 0]
    if not w:
        return (1.0 if statistic <= 0 else 0.0), 0.0
    pvalue = _weighted_chi2_sf(statistic, w)
    if len(w) == 1:
        return pvalue, float(w[0] * special.chdtri(1, alpha))
    lo = max(w) * stats.chi2.isf(alpha, 1)
    hi = max(w) * stats.chi2.isf(alpha, 2) * (1.0 + 1e-9)
    threshold = optimize.brentq(
        lambda s: _weighted_chi2_sf(s, w) - alpha, lo, hi, xtol=1e-12, rtol=1e-12
    )
    return pvalue, float(threshold)
