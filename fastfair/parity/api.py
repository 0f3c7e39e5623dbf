r"""The public functions: ingest -> statistics -> inference (predictive parity under dependent
data)."""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any

import numpy as np

from fastfair._clustered import (
    BANDWIDTH_METHODS,
    KERNELS,
    UNDERSMOOTH,
    cv_bandwidth,
    prepare,
    rule_of_thumb,
)
from fastfair._clustered import NAN_POLICIES as NAN_POLICIES
from fastfair._clustered import WEIGHTINGS as WEIGHTINGS
from fastfair._deprecation import renamed_arguments
from fastfair._parallel import effective_n_threads
from fastfair._validation import (
    check_choice,
    check_resamples,
    show_value,
)
from fastfair.parity.inference import (
    _marginal_result,
    prepared_parity_test,
)
from fastfair.parity.ingest import (
    ADJUSTMENTS,
    DEFAULT_GRID_POINTS,
    MIN_EFFECTIVE_CLUSTERS,
    VARIANCES,
    _check_small_sample,
)
from fastfair.parity.results import (
    CalibrationCurve,
    MarginalOutcomeResult,
    PredictiveParityResult,
)
from fastfair.parity.statistics import _fit

if TYPE_CHECKING:
    from collections.abc import Mapping

    import pandas
    from numpy.typing import ArrayLike

# --------------------------------------------------------------------------------------
# Bandwidth


@renamed_arguments(y="y_true", score="y_score")
def select_bandwidth(
    y_true: ArrayLike | str,
    y_score: ArrayLike | str,
    group: ArrayLike | str | None = None,
    *,
    cluster: ArrayLike | str | None = None,
    weighting: str = "per_user",
    method: str = "rule_of_thumb",
    kernel: str = "gaussian",
    undersmooth: float = UNDERSMOOTH,
    nan_policy: str = "raise",
    data: Mapping[str, Any] | pandas.DataFrame | None = None,
    n_jobs: int | None = None,
) -> float:
    r"""Bandwidth for the clustered Nadaraya-Watson estimator, undersmoothed for inference.

    Theorem 2 of the paper needs :math:`h \to 0` with :math:`M h \to \infty` (M users), and
    a bias negligible against the standard error, :math:`\sqrt{M h}\, h^2 \to 0`. A
    bandwidth of the MSE-optimal rate :math:`M^{-1/5}` leaves a bias of the order of the
    standard error; multiplying it by :math:`M^{-\text{undersmooth}}` (default 0.05, so
    :math:`h \propto M^{-1/4}`) meets both conditions: :math:`M h \propto M^{3/4}` and
    :math:`\sqrt{Mh}\,h^2 \propto M^{-1/8}`. At M = 10^4 users the factor is 0.63, at
    10^6 0.50.

    ``"rule_of_thumb"``: Silverman's :math:`0.9 \min(\hat\sigma, \mathrm{IQR}/1.349)
    M^{-1/5}` of the scores (weighted like the estimator: per user, each user's scores
    carry total weight one), times the undersmoothing factor; for the Epanechnikov kernel
    times 2.214 (equal smoothing in canonical units). M counts users, not rows: the
    independent units.

    ``"cv"``: leave-one-cluster-out cross-validation. For each of 16 candidates between
    1/8 and 2.8 times the rule of thumb (without undersmoothing),
    :math:`CV(h) = \sum_m w_m \sum_i (y_{mi} - \hat f^{(-m)}_{G_m}(s_{mi}))^2`, where
    :math:`\hat f^{(-m)}` leaves out all rows of user m (so a heavy user cannot predict its
    own rows). Beyond 20,000 users, CV runs on a random subsample of 20,000 users (fixed
    seed) and the chosen h is rescaled by :math:`(M_{sub}/M)^{1/5}`. The minimizer is
    then undersmoothed like the rule of thumb.

    Parameters
    ----------
    y_true, y_score, group, cluster, weighting, kernel, nan_policy, data, n_jobs
        As in :func:`calibration_curve`.
    method : {"rule_of_thumb", "cv"}
    undersmooth : float
        Exponent of the undersmoothing factor :math:`M^{-\text{undersmooth}}`; 0 gives
        the MSE-rate bandwidth (for display, not for tests).

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from fastfair.parity import select_bandwidth
    >>> rng = np.random.default_rng(0)
    >>> score = rng.beta(2, 2, 4000)
    >>> y = rng.random(4000) < score
    >>> user = rng.integers(0, 1000, 4000)
    >>> round(select_bandwidth(y, score, cluster=user), 4)
    0.0356
    """
    check_choice(method, "method", BANDWIDTH_METHODS)
    check_choice(kernel, "kernel", KERNELS)
    if isinstance(undersmooth, bool) or not isinstance(undersmooth, numbers.Real):
        raise TypeError(f"undersmooth must be a number, got {show_value(undersmooth)}")
    if not 0 <= undersmooth < 0.8:
        raise ValueError(f"undersmooth must be in [0, 0.8) so that M h -> inf, got {undersmooth}")
    prep = prepare(y_true, y_score, group, cluster, weighting, nan_policy, data, min_groups=1)
    if method == "cv":
        return cv_bandwidth(prep, kernel, float(undersmooth), effective_n_threads(n_jobs))[0]
    return rule_of_thumb(prep, kernel, float(undersmooth))


# --------------------------------------------------------------------------------------
# Curves


@renamed_arguments(y="y_true", score="y_score")
def calibration_curve(
    y_true: ArrayLike | str,
    y_score: ArrayLike | str,
    group: ArrayLike | str | None = None,
    *,
    cluster: ArrayLike | str | None = None,
    weighting: str = "per_user",
    grid: int | ArrayLike = DEFAULT_GRID_POINTS,
    bandwidth: float | str = "rule_of_thumb",
    kernel: str = "gaussian",
    confidence_level: float = 0.95,
    min_effective_clusters: float = MIN_EFFECTIVE_CLUSTERS,
    small_sample: str = "cr2",
    nan_policy: str = "raise",
    data: Mapping[str, Any] | pandas.DataFrame | None = None,
    n_jobs: int | None = None,
) -> CalibrationCurve:
    r"""Nadaraya-Watson estimate of E[Y | S = s, G = g] with cluster-robust bands.

    For each group g and grid score s (paper Sec. 3; Appendix D for per-observation),

    .. math:: \hat f_g(s) = \frac{\sum_{m\in g} w_m \sum_i y_{mi} K((s_{mi}-s)/h)}
                                 {\sum_{m\in g} w_m \sum_i K((s_{mi}-s)/h)},\qquad
              \widehat{\mathrm{SE}}^2 = \frac{\sum_{m\in g} w_m^2
                    \left(\sum_i (y_{mi}-\hat f_g(s)) K_{mi}\right)^2}
                    {\left(\sum_{m\in g} w_m \sum_i K_{mi}\right)^2}

    (docs/parity.md), with pointwise bands :math:`\hat f \pm z_{(1+c)/2}\,\widehat{SE}`.
    By Theorem 2, :math:`\sqrt{Mh}(\hat f_g(s) - f_g(s))` is asymptotically normal when
    :math:`h \to 0`, :math:`Mh \to \infty` and the bandwidth undersmooths (see
    :func:`select_bandwidth`); the band is for f_g(s), not for a smoothed version of it.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Outcomes (binary or any real values), or a column name of `data`.
    y_score : array-like of shape (n,)
        Model scores.
    group : array-like of shape (n,), optional
        Group of each row; None estimates one curve for all rows.
    cluster : array-like of shape (n,), optional
        User (cluster) of each row: integers or strings, in any order. Users are
        independent, rows of a user may be dependent; a user must belong to one group.
        None: every row is its own cluster (independent rows).
    weighting : {"per_user", "per_observation"}
        :math:`w_m = 1/n_m` (every user counts once: the paper's recommended estimand of
        E[Y_m1 | S_m1 = s, G_m = g]) or :math:`w_m = 1` (every row counts once, Appendix
        D: heavy users dominate). Both are identical without `cluster`.
    grid : int or array-like
        Number of equally spaced points from the largest group's 2.5% quantile of the
        scores to the smallest group's 97.5% quantile (weighted like the estimator), or
        the increasing scores themselves. Default 50.
    bandwidth : float, "rule_of_thumb" or "cv"
        h > 0, or a rule chosen by :func:`select_bandwidth` (both undersmoothed,
        :math:`h \propto M^{-1/4}`).
    kernel : {"gaussian", "epanechnikov"}
        :math:`K(u) = e^{-u^2/2}` (cut at |u| = 8, where K < 1.3e-14) or
        :math:`1 - u^2` on |u| < 1; constants cancel in every ratio.
    confidence_level : float
        Level of the pointwise bands.
    min_effective_clusters : float
        Standard errors (and bands, tests) are NaN where a group's effective number of
        clusters :math:`(\sum v_m)^2/\sum v_m^2` is below this (default 5): the sandwich
        variance rests on the number of users near the point, and is zero with one.
    small_sample : {"cr2", "none"}
        ``"cr2"`` (default): CR2 (Bell-McCaffrey) variance
        :math:`\sum_m u_m^2/(1 - p_m) / (\sum_m v_m)^2` with :math:`p_m = v_m/\sum_l v_l`
        the user's share of the kernel weight, and bands from Student t with the
        Satterthwaite df of that variance (random-intercept working model); a second pass
        over the data unless no user holds more than 0.1% of the weight at any point.
        ``"none"``: the paper's sandwich and normal quantiles. See docs/parity.md.
    nan_policy : {"raise", "omit"}
        NaN in `y` or `score`: raise (default), or drop those rows (a user's weight
        :math:`1/n_m` counts their rows with a score).
    data : pandas.DataFrame or mapping, optional
        When given, `y`, `score`, `group` and `cluster` may be column names.
    n_jobs : int, optional
        Threads (None: all cores). Results do not depend on it.

    Returns
    -------
    CalibrationCurve
        With ``to_frame()`` (pandas) and ``plot()`` (matplotlib).

    Warns
    -----
    SparseGridWarning
        When a group has no observations within the kernel's reach of some grid point
        (estimate NaN) or too few effective clusters there (standard error NaN).

    Examples
    --------
    >>> import numpy as np
    >>> from fastfair.parity import calibration_curve
    >>> rng = np.random.default_rng(0)
    >>> user = rng.integers(0, 2000, 10000)
    >>> group = user % 2
    >>> score = rng.beta(2, 2, 10000)
    >>> y = rng.random(10000) < score
    >>> curve = calibration_curve(y, score, group, cluster=user, grid=5)
    >>> curve.grid.round(3)
    array([0.094, 0.297, 0.5  , 0.703, 0.906])
    >>> curve.estimate.shape  # (groups, grid points)
    (2, 5)
    >>> bool(np.all(np.abs(curve.estimate - curve.grid) < 0.1))  # calibrated: E[Y|S=s] = s
    True
    >>> bool(np.all(curve.lower < curve.upper))
    True
    """
    prep = prepare(y_true, y_score, group, cluster, weighting, nan_policy, data, min_groups=1)
    return _fit(
        prep,
        grid,
        bandwidth,
        kernel,
        confidence_level,
        min_effective_clusters,
        effective_n_threads(n_jobs),
        covariance=False,
        small_sample=small_sample,
    ).curve


# --------------------------------------------------------------------------------------
# Tests


@renamed_arguments(y="y_true", score="y_score")
def predictive_parity_test(
    y_true: ArrayLike | str,
    y_score: ArrayLike | str,
    group: ArrayLike | str,
    *,
    cluster: ArrayLike | str | None = None,
    weighting: str = "per_user",
    grid: int | ArrayLike = DEFAULT_GRID_POINTS,
    bandwidth: float | str = "rule_of_thumb",
    kernel: str = "gaussian",
    adjust: str = "holm",
    n_bootstrap: int = 9999,
    confidence_level: float = 0.95,
    min_effective_clusters: float = MIN_EFFECTIVE_CLUSTERS,
    small_sample: str = "cr2",
    variance: str = "null",
    nan_policy: str = "raise",
    data: Mapping[str, Any] | pandas.DataFrame | None = None,
    return_null: bool = False,
    random_state: int | np.random.Generator | np.random.SeedSequence | None = None,
    n_jobs: int | None = None,
) -> PredictiveParityResult:
    r"""Test predictive parity, E[Y | S = s, G = g] equal across groups, on a grid of scores.

    At each grid point (paper Sec. 3, Theorem 2), with the estimates of
    :func:`calibration_curve` and cluster-robust variances :math:`\hat V_g` under the null
    (below),

    .. math:: z(s) = \frac{\hat f_1(s) - \hat f_2(s)}{\sqrt{\hat V_1(s) + \hat V_2(s)}}

    for two groups, or for K groups the Wald statistic
    :math:`W(s) = \sum_g (\hat f_g - \bar f)^2/\hat V_g` with the precision-weighted mean
    :math:`\bar f`, chi-square with K-1 df (groups are independent: disjoint users). The
    pointwise p-values are adjusted over the grid by Holm, Bonferroni or
    Benjamini-Hochberg, as in the paper.

    Simultaneous test over the whole grid (beyond the paper): the statistic
    :math:`\max_s W(s)` (= max z^2) is referred to its multiplier-bootstrap distribution
    over clusters: :math:`D^*_g(s) = \sum_{m\in g}\xi_m u_m(s) / \sum_{m\in g} v_m(s)` with
    :math:`\xi_m \sim N(0,1)`, which keeps the correlation of neighbouring grid points and
    of a user's rows, so it is less conservative than Bonferroni. Given the data,
    :math:`D^*_g` is exactly Gaussian with the cross-grid sandwich covariance
    :math:`\sum_m u_m(s_j) u_m(s_k) / (V_j V_k)`, accumulated in the single kernel pass;
    draw b uses the random stream (random_state, b), so the result does not depend on
    `n_jobs`. p-value :math:`(1 + \#\{b: \max W^*_b \ge \max W\}) / (1 + B)`.

    Parameters
    ----------
    y_true, y_score, group, cluster, weighting, grid, bandwidth, kernel, confidence_level
        As in :func:`calibration_curve`; at least two groups.
    adjust : {"holm", "bonferroni", "bh", "maxT", "none"}
        Adjustment of the pointwise p-values over the tested grid points. ``"maxT"``:
        :math:`(1 + \#\{b: \max W^*_b \ge W(s)\})/(1 + B)`, the single-step max-T
        adjustment from the bootstrap (needs ``n_bootstrap >= 1``).
    n_bootstrap : int
        Multiplier-bootstrap draws for the simultaneous test; 0 skips it (`pvalue` is then
        the smallest adjusted pointwise p-value).
    min_effective_clusters, small_sample, nan_policy, data, n_jobs
        As in :func:`calibration_curve`. Grid points where a group has no standard error
        are not tested (NaN in the table, with a `SparseGridWarning`). With
        ``small_sample="cr2"`` (default) each point's statistic is a t with the
        Welch-Satterthwaite df of the difference (F(K-1, min df) for K > 2 groups), and the
        simultaneous test maps each statistic to the normal (chi-square) scale with the same
        p-value before taking the maximum; the bootstrap draws the CR2 scores.
    variance : {"null", "separate"}
        The tests' variance. ``"null"`` (default): each group's users' scores centred at
        the pooled curve :math:`\hat f_0` of all groups,
        :math:`\hat V_g = \sum_{m\in g} (a_m - \hat f_0 b_m)^2 / B_g^2`, normal
        (chi-square) reference, and the bootstrap draws the same scores: the variance
        does not shrink with the group's own estimate (few positives near a point), which
        made ``"separate"`` (each group's own residuals, the CR2/t reference of
        `small_sample`; the default up to issue 33) reject a true null up to 33% of the
        time at 5% with a few dominant users (docs/parity.md). The curve, the difference's
        standard error and the simultaneous band use each group's own variance either way.
    return_null : bool
        Keep the bootstrap draws of max W in ``null_distribution``.
    random_state : None, int, numpy.random.Generator or SeedSequence
        Seed of the bootstrap.

    Returns
    -------
    PredictiveParityResult

    Notes
    -----
    Zero variance: where a group's outcomes are constant near a grid point (variance times
    effective clusters at most 1e-12) the group is studentized with its estimate shrunk by
    half a pseudo-observation, :math:`\tilde f = (f n + 1/2)/(n + 1)`, variance
    :math:`\tilde f(1 - \tilde f)/n` (n effective clusters), here and in the bootstrap. A
    perfectly calibrated score gets z near 0 (not inf from a rounding difference); constant
    but different outcomes get a large finite z.

    Examples
    --------
    >>> import numpy as np
    >>> from fastfair.parity import predictive_parity_test
    >>> rng = np.random.default_rng(1)
    >>> user = rng.integers(0, 4000, 20000)
    >>> group = np.where(user % 2 == 0, "a", "b")
    >>> score = rng.beta(2, 2, 20000)
    >>> shift = np.where(group == "b", 0.08, 0.0)  # group b's outcomes are higher
    >>> y = rng.random(20000) < np.clip(score + shift, 0, 1)
    >>> res = predictive_parity_test(y, score, group, cluster=user, grid=10, random_state=0)
    >>> res.pvalue < 0.001, res.method
    (True, 'multiplier_bootstrap')
    >>> round(float(np.mean(res.difference)), 2)
    -0.09
    """
    check_choice(adjust, "adjust", ADJUSTMENTS)
    n_bootstrap = check_resamples(n_bootstrap, "n_bootstrap", 0)
    if adjust == "maxT" and n_bootstrap == 0:
        raise ValueError("adjust='maxT' needs the bootstrap: n_bootstrap >= 1")
    _check_small_sample(small_sample)
    check_choice(variance, "variance", VARIANCES)
    prep = prepare(y_true, y_score, group, cluster, weighting, nan_policy, data, min_groups=2)
    return prepared_parity_test(
        prep,
        grid=grid,
        bandwidth=bandwidth,
        kernel=kernel,
        adjust=adjust,
        n_bootstrap=n_bootstrap,
        confidence_level=confidence_level,
        min_effective_clusters=min_effective_clusters,
        small_sample=small_sample,
        variance=variance,
        return_null=return_null,
        random_state=random_state,
        n_jobs=n_jobs,
    )


@renamed_arguments(y="y_true", score="y_score")
def marginal_outcome_test(
    y_true: ArrayLike | str,
    y_score: ArrayLike | str,
    group: ArrayLike | str,
    threshold: float,
    *,
    cluster: ArrayLike | str | None = None,
    weighting: str = "per_user",
    bandwidth: float | str = "rule_of_thumb",
    kernel: str = "gaussian",
    confidence_level: float = 0.95,
    min_effective_clusters: float = MIN_EFFECTIVE_CLUSTERS,
    small_sample: str = "cr2",
    nan_policy: str = "raise",
    data: Mapping[str, Any] | pandas.DataFrame | None = None,
    n_jobs: int | None = None,
) -> MarginalOutcomeResult:
    r"""Test marginal outcome fairness: equal E[Y | S = t, G = g] at the threshold t.

    A classifier that accepts when S >= t is marginal outcome fair when the outcomes of
    the marginal candidates agree across groups (paper Sec. 6). Outcomes are typically
    observed only above the threshold, so the estimator uses rows with :math:`s \ge t`:

    .. math:: \hat f_g(t) = \frac{\sum_{m\in g} w_m \sum_{i: s_{mi}\ge t} y_{mi}
                                  K((s_{mi}-t)/h)}
                                 {\sum_{m\in g} w_m \sum_{i: s_{mi}\ge t} K((s_{mi}-t)/h)},

    with the cluster-robust variance of :func:`calibration_curve`, and the z statistic of
    the difference (two groups) or a Wald chi-square (more groups); asymptotically normal
    by the Theorem of Sec. 6. :math:`w_m = 1/n_m` counts all of user m's rows with a
    score, so `y_true` may be NaN below the threshold (unobserved). The one-sided kernel has a
    boundary bias of order h, the same in every group when the curves agree (it cancels in
    the difference to first order); the per-group estimates carry it.

    Parameters
    ----------
    y_true, y_score, group : array-like
        As in :func:`predictive_parity_test`; `y` below the threshold is ignored.
    threshold : float
        Decision threshold t (accept when score >= t).
    cluster, weighting, bandwidth, kernel, confidence_level, min_effective_clusters,
    small_sample, nan_policy, data, n_jobs
        As in :func:`calibration_curve`; the bandwidth rule uses the rows above t. With
        ``small_sample="cr2"`` the statistic is referred to Student t with the
        Welch-Satterthwaite df (`df`), and the interval uses its quantile.

    Returns
    -------
    MarginalOutcomeResult

    Raises
    ------
    ValueError
        When the threshold is below every score of a group: all its rows are accepted,
        none is at the margin, and the estimate at t would extrapolate from higher scores.

    Examples
    --------
    >>> import numpy as np
    >>> from fastfair.parity import marginal_outcome_test
    >>> rng = np.random.default_rng(2)
    >>> user = rng.integers(0, 6000, 30000)
    >>> group = user % 2
    >>> score = rng.beta(2, 2, 30000)
    >>> y = np.where(score >= 0.6, rng.random(30000) < score - 0.15 * group, np.nan)
    >>> res = marginal_outcome_test(y, score, group, 0.6, cluster=user)
    >>> res.estimate.round(2), round(res.difference, 2), res.pvalue < 0.01
    (array([0.6 , 0.46]), 0.14, True)
    """
    if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real):
        raise TypeError(f"threshold must be a number, got {show_value(threshold)}")
    if not np.isfinite(threshold):
        raise ValueError(f"threshold must be finite, got {show_value(threshold)}")
    prep = prepare(
        y_true,
        y_score,
        group,
        cluster,
        weighting,
        nan_policy,
        data,
        min_groups=2,
        threshold=float(threshold),
    )
    missing = [str(g) for g, n in zip(prep.labels, prep.n_rows) if n == 0]
    if missing:
        raise ValueError(f"group(s) {missing} have no observations at or above the threshold")
    above = [str(g) for g, n in zip(prep.labels, prep.n_at_or_below) if n == 0]
    if above:
        raise ValueError(
            f"threshold {show_value(threshold)} is below every score of group(s) {above}: all "
            "of their rows are accepted and none is at the margin, so E[Y | S = t] would be "
            "extrapolated from higher scores; use a threshold within each group's scores"
        )
    fit = _fit(
        prep,
        np.array([float(threshold)]),
        bandwidth,
        kernel,
        confidence_level,
        min_effective_clusters,
        effective_n_threads(n_jobs),
        covariance=False,
        small_sample=small_sample,
    )
    return _marginal_result(prep, fit, float(threshold), confidence_level, small_sample)
