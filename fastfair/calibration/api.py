r"""The public functions: ingest -> statistics -> inference (calibration errors, impact,
fair thresholds, composite parity); the estimators are in estimators.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from fastfair import parity as _parity
from fastfair._clustered import WEIGHTINGS
from fastfair._deprecation import renamed_arguments
from fastfair._validation import (
    MAX_POINTS,
    align_index,
    as_1d,
    as_finite_float,
    as_groups,
    as_probabilities,
    check_choice,
    check_int,
    check_level,
    check_same_length,
    show_value,
)
from fastfair.calibration.estimators import GroupCalibrator
from fastfair.calibration.inference import (
    _binned_error,
    _fair_thresholds,
    _per_group_mean,
    _root_mean_square_gap,
)
from fastfair.calibration.ingest import (
    DEFAULT_CALIBRATION_BINS,
    ERROR_ESTIMATORS,
    _check_norm_order,
    _check_threshold,
    _cluster_weights,
    _group_codes,
    _numeric_array,
    _prep_xy,
    _score_matrix,
)
from fastfair.calibration.results import (
    CalibrationErrorResult,
    CompositeParityCheck,
    FairThresholds,
    ImpactResult,
)
from fastfair.calibration.statistics import _binned_sums, _monotone_sweep_sums, _ranks_within

if TYPE_CHECKING:
    from collections.abc import Hashable

    from numpy.typing import ArrayLike


@renamed_arguments(scores="y_score", outcomes="y_true")
def check_composite_parity(
    y_score: ArrayLike | str,
    y_true: ArrayLike | str,
    group: ArrayLike | str,
    weights: ArrayLike,
    *,
    cluster: ArrayLike | str | None = None,
    alpha: float = 0.05,
    **test_kwargs: Any,
) -> CompositeParityCheck:
    r"""Test predictive parity of weighted composites :math:`\sum_k w_k S^{(k)}` (Sec. 5).

    For each weight vector w, runs :func:`fastfair.parity.predictive_parity_test` on the
    composite outcome :math:`\sum_k w_k Y^{(k)}` and composite score
    :math:`\sum_k w_k S^{(k)}`; `passed` when no p-value is below alpha / J.

    Parameters
    ----------
    y_score, y_true : array-like of shape (n, K)
    group, cluster : array-like of shape (n,)
    weights : array-like of shape (J, K) or (K,)
    alpha : float
    **test_kwargs
        Passed to :func:`~fastfair.parity.predictive_parity_test` (e.g. ``grid``,
        ``n_bootstrap``, ``random_state``).

    Returns
    -------
    CompositeParityCheck
        The p-value of each composite and whether all pass.

    Examples
    --------
    >>> import numpy as np
    >>> from fastfair.calibration import check_composite_parity
    >>> rng = np.random.default_rng(0)
    >>> s = rng.random((4000, 2)); g = rng.integers(0, 2, 4000)
    >>> y = (rng.random((4000, 2)) < s).astype(float)
    >>> check_composite_parity(s, y, g, [[1, 1], [1, 3]], grid=10, random_state=0).passed
    True
    """
    y_score, y_true, group, cluster = align_index(
        y_score=y_score, y_true=y_true, group=group, cluster=cluster
    ).values()
    alpha = check_level(alpha, "alpha")
    S = _score_matrix(y_score, "y_score")
    Y = _score_matrix(y_true, "y_true", S.shape[1])
    W = np.atleast_2d(_numeric_array(weights, "weights"))
    if W.shape[1] != S.shape[1]:
        raise ValueError(f"weights must have {S.shape[1]} columns (one per score)")
    results = [
        _parity.predictive_parity_test(Y @ w, S @ w, group, cluster=cluster, **test_kwargs)
        for w in W
    ]
    p = np.array([r.pvalue for r in results])
    return CompositeParityCheck(W, p, results, float(alpha), bool(np.all(p >= alpha / len(p))))


# --------------------------------------------------------------------------------------
# Fair thresholds (Sec. 6.1)


@renamed_arguments(y="y_true", score="y_score")
def fair_thresholds(
    y_true: ArrayLike | str,
    y_score: ArrayLike | str,
    group: ArrayLike | str,
    threshold: float,
    *,
    keep_positive_rate: bool = False,
    reference: Hashable | None = None,
    cluster: ArrayLike | str | None = None,
    weighting: str = "per_user",
    bandwidth: float | str = "rule_of_thumb",
    kernel: str = "gaussian",
    grid: int = 200,
    n_jobs: int | None = None,
) -> FairThresholds:
    r"""Group thresholds with equal marginal outcomes (Sec. 6.1, eqs. 3-4).

    With per-group Nadaraya-Watson curves :math:`\hat f_g` (as in
    :func:`~fastfair.parity.calibration_curve`, on `grid` equally spaced points over the
    0.5%-99.5% range of all scores), the thresholds solve eq. (3),
    :math:`\hat f_{g}(t^*_{g}) = v` for every g. To invert a curve that the estimate makes
    slightly non-monotone, :math:`t^*_g(v)` is the smallest score at which the running
    maximum of :math:`\hat f_g` reaches v (linear interpolation between grid points).

    The common marginal outcome v is, by default, the group-size weighted mean of
    :math:`\hat f_g(t)`; with ``reference=g`` it is :math:`\hat f_g(t)`, so group g keeps
    threshold t. With ``keep_positive_rate=True``, v is instead chosen so that the overall
    share of rows with :math:`s \ge t^*_{G}` equals the share with :math:`s \ge t`: the
    intent of eq. (4) (the paper's display integrates :math:`\hat f \hat F`; we keep the
    positive rate it describes). A score at or above a threshold is a positive decision
    (fastfair's one convention; the paper writes >). The rate is non-increasing in v, so
    v is found by bisection; Theorem 3 guarantees a solution for continuous curves and
    score distributions, and here one exists whenever the target rate lies between the
    rates at the ends of the range of v for which every group has a threshold inside the
    grid.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Outcomes (any real values).
    y_score : array-like of shape (n,)
        Scores.
    group : array-like of shape (n,)
        Group of each row.
    threshold : float
        The common threshold t to replace.
    keep_positive_rate : bool, default False
        Choose v so that the overall positive rate stays that of t (eq. 4).
    reference : label, optional
        Group whose threshold stays t (v is its marginal outcome); None: the weighted mean.
    cluster : array-like of shape (n,), optional
        User of each row; None: rows are independent.
    weighting, bandwidth, kernel, n_jobs
        As in :func:`~fastfair.parity.calibration_curve`.
    grid : int, default 200
        Number of grid points of the curves.

    Returns
    -------
    FairThresholds
        The group thresholds, the common marginal outcome and the rates before and after.

    Raises
    ------
    ValueError
        When no group thresholds in the scored range attain a common marginal outcome
        (e.g. a group's curve never reaches the target), or the positive rate cannot be
        kept.

    Examples
    --------
    >>> import numpy as np
    >>> from fastfair.calibration import fair_thresholds
    >>> rng = np.random.default_rng(0)
    >>> g = rng.integers(0, 2, 40000); s = rng.random(40000)
    >>> y = (rng.random(40000) < np.clip(s - 0.1 * g, 0, 1)).astype(float)
    >>> res = fair_thresholds(y, s, g, 0.5, reference=0)
    >>> res.thresholds.round(1)  # group 1 needs a higher score for the same outcome
    array([0.5, 0.6])
    """
    y_true, y_score, group, cluster = align_index(
        y_true=y_true, y_score=y_score, group=group, cluster=cluster
    ).values()
    check_choice(weighting, "weighting", WEIGHTINGS)
    grid_n = check_int(grid, "grid", 3, MAX_POINTS)
    if keep_positive_rate and reference is not None:
        raise ValueError("pass either reference or keep_positive_rate=True, not both")
    _check_threshold(threshold)
    s = as_finite_float(y_score, "y_score")
    lo, hi = np.quantile(s, [0.005, 0.995])
    if not lo < threshold < hi:
        raise ValueError(
            f"threshold {threshold} is outside the central range of the scores "
            f"[{lo:.4g}, {hi:.4g}]: no marginal outcome can be estimated there"
        )
    pts = np.linspace(lo, hi, grid_n)
    curve = _parity.calibration_curve(
        y_true,
        s,
        group,
        cluster=cluster,
        weighting=weighting,
        grid=pts,
        bandwidth=bandwidth,
        kernel=kernel,
        n_jobs=n_jobs,
        min_effective_clusters=1,
    )
    codes, labels = as_groups(group, "group", min_groups=2)
    return _fair_thresholds(pts, curve, s, codes, labels, threshold, keep_positive_rate, reference)


# --------------------------------------------------------------------------------------
# Calibration error (Sec. 7.1, Appendix A, Sec. 8)


@renamed_arguments(y="y_true", score="y_score")
def ece(
    y_true: ArrayLike | str,
    y_score: ArrayLike | str,
    *,
    n_bins: int = 15,
    binning: str = "equal_mass",
    p: float = 2,
) -> float:
    r"""Expected calibration error with equal-mass or equal-width bins.

    .. math:: \mathrm{ECE}_p = \Big(\sum_b \frac{|B_b|}{n}\,|\bar y_b - \bar s_b|^p\Big)^{1/p}

    Equal mass: rows sorted by score (stable), rank r (0-based) in bin
    :math:`\min(B-1, \lfloor rB/n \rfloor)`. Equal width: score s in bin
    :math:`\min(B-1, \lfloor sB \rfloor)` of B bins of equal width on [0, 1] (the scores
    are probabilities); empty bins are skipped. p = 1 is
    the classical ECE (Guo et al. 2017), p = 2 the L2 version compared in Sec. 8.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Outcomes (binary or in [0, 1]).
    y_score : array-like of shape (n,)
        Scores.
    n_bins : int, default 15
        Number of bins B.
    binning : {"equal_mass", "equal_width"}
        How the bins are formed.
    p : float, default 2
        Order of the norm (>= 1).

    Returns
    -------
    float
        :math:`\mathrm{ECE}_p`.

    Examples
    --------
    >>> from fastfair.calibration import ece
    >>> round(ece([0, 1, 0, 1], [0.2, 0.4, 0.6, 0.8], n_bins=2), 6)  # gaps 0.2, 0.2
    0.2
    >>> round(ece([0, 1, 0, 1], [0.2, 0.4, 0.6, 0.8], n_bins=2, binning="equal_width", p=1), 6)
    0.2
    """
    y_true, y_score = align_index(y_true=y_true, y_score=y_score).values()
    yv, s = _prep_xy(y_true, y_score)
    B = check_int(n_bins, "n_bins", 1, MAX_POINTS)
    check_choice(binning, "binning", ("equal_mass", "equal_width"))
    _check_norm_order(p)
    return _binned_error(*_binned_sums(yv, s, B, binning), s.size, p)


@renamed_arguments(y="y_true", score="y_score")
def msce(
    y_true: ArrayLike | str, y_score: ArrayLike | str, *, p: float = 2, return_bins: bool = False
) -> float | tuple[float, int]:
    r"""Monotonic-sweep calibration error (Roelofs et al. 2022), equal-mass bins.

    For b = 2, 3, ..., n - 1 build b equal-mass bins (rank r in bin
    :math:`\lfloor r b / n \rfloor`); stop at the first b whose bin means of y are not
    non-decreasing and use :math:`b^* = b - 1` (1 if b = 2 fails, n - 1 if none fails);
    return :math:`\mathrm{ECE}_p` with :math:`b^*` equal-mass bins. With prefix sums of
    the score-sorted y and s each b costs O(b): O(n log n + b^{*2}) in total instead of
    the naive O(n b^*).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Outcomes (binary or in [0, 1]).
    y_score : array-like of shape (n,)
        Scores.
    p : float, default 2
        Order of the norm (>= 1).
    return_bins : bool, default False
        Also return :math:`b^*`.

    Returns
    -------
    float or (float, int)
        :math:`\mathrm{ECE}_p` with :math:`b^*` bins, and :math:`b^*` with `return_bins`.

    Examples
    --------
    >>> from fastfair.calibration import msce
    >>> val, b = msce([0, 0, 1, 0, 1, 1], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6], return_bins=True)
    >>> b  # 4 bins have means 0, 1, 0.5, 1: not monotone
    3
    >>> round(val, 4)  # gaps 0.15, 0.15, 0.45
    0.2872
    """
    y_true, y_score = align_index(y_true=y_true, y_score=y_score).values()
    yv, s = _prep_xy(y_true, y_score)
    _check_norm_order(p)
    ysum, ssum, count, best = _monotone_sweep_sums(yv, s)
    val = _binned_error(ysum, ssum, count, s.size, p)
    return (val, best) if return_bins else val


@renamed_arguments(y="y_true", score="y_score")
def tce_nadaraya_watson(
    y_true: ArrayLike | str,
    y_score: ArrayLike | str,
    *,
    cluster: ArrayLike | str | None = None,
    weighting: str = "per_user",
    bandwidth: float | str = "rule_of_thumb",
    kernel: str = "gaussian",
    at: str = "observations",
    n_bins: int = DEFAULT_CALIBRATION_BINS,
    n_jobs: int | None = None,
) -> float:
    r"""True calibration error estimated with the clustered Nadaraya-Watson curve (Sec. 7.1).

    .. math:: \widehat{\mathrm{TCE}} = \Big(\frac{\sum_m w_m \sum_i (s_{mi} -
              \hat f(s_{mi}))^2}{\sum_m w_m n_m}\Big)^{1/2}

    with :math:`\hat f` the Nadaraya-Watson fit of :class:`GroupCalibrator` (one group),
    :math:`w_m = 1/n_m` per user (each user counts once: the per-user TCE, consistent by
    Appendix A.1) or 1 per observation. ``at="quantiles"``: the paper's Sec. 8 variant,
    root mean square of :math:`\hat f(S_{(q)}) - S_{(q)}` over the 100 percentiles
    q = 0.5%, 1.5%, ..., 99.5% of the (weighted) scores.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Outcomes (any real values).
    y_score : array-like of shape (n,)
        Scores.
    cluster : array-like of shape (n,), optional
        User of each row; None: rows are independent.
    weighting : {"per_user", "per_observation"}
        Weight :math:`w_m`.
    bandwidth, kernel, n_jobs
        As in :func:`~fastfair.parity.calibration_curve`.
    at : {"observations", "quantiles"}
        Average over the rows, or over the 100 score percentiles (Sec. 8).
    n_bins : int, default 100
        Bins of the fitted calibration map (:class:`GroupCalibrator`).

    Returns
    -------
    float
        :math:`\widehat{\mathrm{TCE}}`.

    Examples
    --------
    >>> import numpy as np
    >>> from fastfair.calibration import tce_nadaraya_watson
    >>> from fastfair.simulate import bbc_sample, bbc_true_tce
    >>> s, y = bbc_sample(20000, 2, 2, 0.5, 1.0, random_state=0)
    >>> round(bbc_true_tce(2, 2, 0.5, 1.0), 3), round(tce_nadaraya_watson(y, s), 3)
    (0.102, 0.104)
    """
    y_true, y_score, cluster = align_index(
        y_true=y_true, y_score=y_score, cluster=cluster
    ).values()
    check_choice(at, "at", ("observations", "quantiles"))
    yv, s = _prep_xy(y_true, y_score)
    cal = GroupCalibrator(
        n_bins=n_bins, bandwidth=bandwidth, kernel=kernel, weighting=weighting, n_jobs=n_jobs
    ).fit(s, yv, None, cluster)
    w = _cluster_weights(cluster, weighting, score=s)
    return _root_mean_square_gap(cal.transform, s, w, at)


@renamed_arguments(y="y_true", score="y_score")
def calibration_error(
    y_true: ArrayLike | str,
    y_score: ArrayLike | str,
    group: ArrayLike | str | None = None,
    *,
    estimator: str = "nadaraya_watson",
    cluster: ArrayLike | str | None = None,
    n_bins: int = 15,
    p: float = 2,
    **nw_kwargs: Any,
) -> CalibrationErrorResult:
    r"""Calibration error per group: Nadaraya-Watson TCE, ECE (equal mass/width) or MSCE.

    ``estimator``: "nadaraya_watson" (:func:`tce_nadaraya_watson`, cluster-aware; extra
    keyword arguments go to it), "ece_equal_mass" / "ece_equal_width" (:func:`ece` with
    `n_bins`, default 15, and `p`) or "msce" (:func:`msce`). ECE and MSCE treat rows as
    independent (they ignore `cluster`): the bias Sec. 8 shows under dependence.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Outcomes.
    y_score : array-like of shape (n,)
        Scores.
    group : array-like of shape (n,), optional
        Group of each row; None: one value for all rows.
    estimator : {"nadaraya_watson", "ece_equal_mass", "ece_equal_width", "msce"}
        The estimator.
    cluster : array-like of shape (n,), optional
        User of each row (Nadaraya-Watson only).
    n_bins : int, default 15
        Bins of the ECE.
    p : float, default 2
        Order of the norm (ECE and MSCE).
    **nw_kwargs
        Passed to :func:`tce_nadaraya_watson`.

    Returns
    -------
    CalibrationErrorResult
        One value per group.

    Examples
    --------
    >>> import numpy as np
    >>> from fastfair.calibration import calibration_error
    >>> rng = np.random.default_rng(0)
    >>> g = rng.integers(0, 2, 20000); s = rng.random(20000)
    >>> y = (rng.random(20000) < np.clip(s + 0.2 * g, 0, 1)).astype(float)
    >>> res = calibration_error(y, s, g, estimator="ece_equal_mass")
    >>> res.value.round(2)
    array([0.01, 0.18])
    """
    y_true, y_score, group, cluster = align_index(
        y_true=y_true, y_score=y_score, group=group, cluster=cluster
    ).values()
    check_choice(estimator, "estimator", ERROR_ESTIMATORS)
    yv, s = _prep_xy(y_true, y_score)
    codes, labels = _group_codes(group, score=s)
    cl = None
    if cluster is not None:
        cl = as_1d(cluster, "cluster")
        check_same_length(score=s, cluster=cl)
    vals = np.empty(len(labels))
    counts = np.bincount(codes, minlength=len(labels))
    for k in range(len(labels)):
        sel = codes == k
        if estimator == "nadaraya_watson":
            vals[k] = tce_nadaraya_watson(
                yv[sel], s[sel], cluster=None if cl is None else cl[sel], **nw_kwargs
            )
        elif estimator == "msce":
            vals[k] = msce(yv[sel], s[sel], p=p)
        else:
            binning = estimator.removeprefix("ece_")
            vals[k] = ece(yv[sel], s[sel], n_bins=n_bins, binning=binning, p=p)
    return CalibrationErrorResult(labels, vals, counts, estimator)


# --------------------------------------------------------------------------------------
# Impact (Sec. 7.2)


def _calibrated(y_true, y_score, group, cluster, calibrator):
    s = as_finite_float(y_score, "y_score")
    if calibrator is None:
        if y_true is None:
            raise TypeError("y_true is required when no fitted calibrator is given")
        calibrator = GroupCalibrator().fit(s, y_true, group, cluster)
    elif not hasattr(calibrator, "groups_"):
        if y_true is None:
            raise TypeError("y_true is required to fit the calibrator")
        calibrator.fit(s, y_true, group, cluster)
    codes, labels = as_groups(group, "group", min_groups=1)
    return s, calibrator.transform(s, group), codes, labels, calibrator


@renamed_arguments(y="y_true", score="y_score")
def delta_pcc(
    y_true: ArrayLike | str,
    y_score: ArrayLike | str,
    group: ArrayLike | str,
    threshold: float,
    *,
    cluster: ArrayLike | str | None = None,
    calibrator: Any = None,
) -> ImpactResult:
    r"""Change in positive classification rate due to miscalibration, per group (Sec. 7.2).

    .. math:: \widehat{\Delta PCC}_g = \frac1{n_g}\sum_{i: G_i = g}
              \big(I\{\hat f_g(s_i) \ge t\} - I\{s_i \ge t\}\big),

    the sign of the paper's definition :math:`E(I\{S^* > t\} - I\{S > t\} \mid G = g)`
    (its estimator display writes the opposite order), with fastfair's one threshold
    convention (a score at or above t is a positive decision, as in the audit,
    :func:`~fastfair.marginal_outcome_test` and :func:`~fastfair.threshold_sweep`; the
    paper writes >, which differs only for scores equal to t): positive when the
    group would gain positive decisions from calibration, i.e. miscalibration
    disadvantages it. :math:`S^* = \hat f_G(S)` comes from `calibrator` (a
    :class:`GroupCalibrator`, fitted on (score, y, group, cluster) when not fitted yet;
    default Nadaraya-Watson).

    Parameters
    ----------
    y_true : array-like of shape (n,) or None
        Outcomes; None only with a fitted `calibrator`.
    y_score : array-like of shape (n,)
        Scores.
    group : array-like of shape (n,)
        Group of each row.
    threshold : float
        Decision threshold t.
    cluster : array-like of shape (n,), optional
        User of each row (a user belongs to one group); None: rows are independent.
    calibrator : GroupCalibrator, optional
        Fitted calibrator giving :math:`S^*`; unfitted: fitted on these rows; None: a default
        :class:`GroupCalibrator` fitted on these rows.

    Returns
    -------
    ImpactResult
        :math:`\widehat{\Delta PCC}_g` per group.

    Examples
    --------
    >>> import numpy as np
    >>> from fastfair.calibration import delta_pcc
    >>> rng = np.random.default_rng(0)
    >>> g = rng.integers(0, 2, 20000); s = rng.random(20000)
    >>> y = (rng.random(20000) < np.clip(s + 0.1 * g, 0, 1)).astype(float)
    >>> delta_pcc(y, s, g, 0.5).value.round(1)  # group 1 under-scored by 0.1
    array([0. , 0.1])
    """
    y_true, y_score, group, cluster = align_index(
        y_true=y_true, y_score=y_score, group=group, cluster=cluster
    ).values()
    _check_threshold(threshold)
    if not 0.0 <= threshold <= 1.0:  # NaN too: the calibrated probabilities share it
        raise ValueError(f"threshold must be a probability in [0, 1], got {show_value(threshold)}")
    as_probabilities(y_score, "y_score", "predicted probabilities (compared with threshold)")
    s, f, codes, labels, cal = _calibrated(y_true, y_score, group, cluster, calibrator)
    diff = (f >= threshold).astype(np.float64) - (s >= threshold)
    return ImpactResult(labels, *_per_group_mean(diff, codes, len(labels)), "delta_pcc", cal)


@renamed_arguments(y="y_true", score="y_score")
def delta_rc(
    y_true: ArrayLike | str,
    y_score: ArrayLike | str,
    group: ArrayLike | str,
    query: ArrayLike | str,
    *,
    cluster: ArrayLike | str | None = None,
    calibrator: Any = None,
) -> ImpactResult:
    r"""Change in rank within queries due to miscalibration, per group (Sec. 7.2).

    .. math:: \widehat{\Delta RC}_g = \frac1{n_g}\sum_{(i,q): G_i = g}
              \big(R(s_{iq}, q) - R(\hat f_{G_i}(s_{iq}), q)\big),

    R the rank within query q (1 = highest score; ties get the average rank). Positive
    when the group's items move up after calibration (miscalibration cost them exposure).
    The paper sums over queries with a 1/m factor; we report the mean over the group's
    (item, query) rows, the definition :math:`E(R(S) - R(S^*) \mid G = g)`.

    Parameters
    ----------
    y_true, y_score, group, cluster, calibrator
        As in :func:`delta_pcc`.
    query : array-like of shape (n,)
        Query of each row; ranks are taken within a query.

    Returns
    -------
    ImpactResult
        :math:`\widehat{\Delta RC}_g` per group.

    Examples
    --------
    >>> import numpy as np
    >>> from fastfair.calibration import delta_rc
    >>> rng = np.random.default_rng(0)
    >>> n = 20000; q = np.repeat(np.arange(2000), 10)
    >>> g = rng.integers(0, 2, n); s = rng.random(n)
    >>> y = (rng.random(n) < np.clip(s + 0.1 * g, 0, 1)).astype(float)
    >>> res = delta_rc(y, s, g, q)
    >>> bool(res.value[1] > 0.3 > -0.3 > res.value[0])
    True
    """
    y_true, y_score, group, query, cluster = align_index(
        y_true=y_true, y_score=y_score, group=group, query=query, cluster=cluster
    ).values()
    s, f, codes, labels, cal = _calibrated(y_true, y_score, group, cluster, calibrator)
    qcodes, _ = as_groups(query, "query", min_groups=1)
    check_same_length(score=s, query=qcodes)
    diff = _ranks_within(qcodes, s) - _ranks_within(qcodes, f)
    return ImpactResult(labels, *_per_group_mean(diff, codes, len(labels)), "delta_rc", cal)
