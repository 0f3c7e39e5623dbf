r"""The public functions: ingest -> statistics -> inference (calibration and impact)."""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any

import numpy as np

from fastfair import parity as _parity
from fastfair._clustered import KERNELS, WEIGHTINGS, prepare, weighted_quantiles
from fastfair._deprecation import renamed_arguments
from fastfair._scipy import special
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
from fastfair.calibration.inference import _binned_error, _fair_thresholds
from fastfair.calibration.ingest import (
    CALIBRATION_METHODS,
    DEFAULT_CALIBRATION_BINS,
    ERROR_ESTIMATORS,
    _check_binary,
    _fitted_codes,
    _numeric_array,
    _Params,
    _prep_xy,
    _score_matrix,
)
from fastfair.calibration.results import (
    CalibrationErrorResult,
    CompositeParityCheck,
    FairThresholds,
    ImpactResult,
)
from fastfair.calibration.statistics import (
    _binned_sums,
    _isotonic_maps,
    _kernel_regression,
    _monotone_sweep_sums,
    _multi_objective_fits,
    _nadaraya_watson_maps,
    _platt_maps,
    _ranks_within,
)

if TYPE_CHECKING:
    from collections.abc import Hashable

    from numpy.typing import ArrayLike

# --------------------------------------------------------------------------------------
# Group calibration (Sec. 4.1, Appendix C)


class GroupCalibrator(_Params):
    r"""Per-group calibration of scores to E[Y | S, G] (Sec. 4.1; Appendix C).

    ``method="nadaraya_watson"`` (default): for each group g the clustered
    Nadaraya-Watson estimate

    .. math:: \hat f_g(s) = \frac{\sum_{m\in g} w_m \sum_i y_{mi} K((s_{mi}-s)/h)}
                                 {\sum_{m\in g} w_m \sum_i K((s_{mi}-s)/h)}

    (:math:`w_m = 1/n_m` per user, or 1 per observation) is evaluated at the
    ``n_bins + 1`` equally spaced edges :math:`e_0 < \dots < e_B` spanning the group's
    fitted scores, and a score s in bin :math:`[l_k, u_k)` is mapped to

    .. math:: t(s, g) = \hat f_g(l_k) + \frac{\hat f_g(u_k) - \hat f_g(l_k)}{u_k - l_k}
                        (s - l_k),

    asymptotically unbiased at the edges (Sec. 4.1). The kernel sums come from the
    compiled one-pass core shared with :func:`fastfair.parity.calibration_curve`; an edge
    with no fitted score within the kernel's reach takes the value interpolated from its
    neighbours. ``"platt"``: per-group logistic regression of y on s,
    :math:`\sigma(\beta_0 + \beta_1 s)` (binary y; Appendix C.3). ``"isotonic"``:
    per-group weighted isotonic regression (pool adjacent violators, ties in s pooled
    first), linearly interpolated between the fitted scores, as scikit-learn's
    ``IsotonicRegression`` (Appendix C.2). Platt and isotonic use the same row weights
    as the Nadaraya-Watson fit (1/n_m per user).

    Out of range: scores of group g outside the range of g's fitted scores are clipped to
    it, i.e. mapped to the value at the first or last bin edge (for every method).

    Parameters
    ----------
    method : {"nadaraya_watson", "platt", "isotonic"}
    n_bins : int
        Bins B of the Nadaraya-Watson interpolation (default 100).
    bandwidth : float, "rule_of_thumb" or "cv"
        As in :func:`fastfair.parity.calibration_curve`.
    kernel : {"gaussian", "epanechnikov"}
    weighting : {"per_user", "per_observation"}
        :math:`w_m = 1/n_m` or 1; identical without `cluster`.
    n_jobs : int, optional
        Threads for the kernel pass (None: all cores); results do not depend on it.

    Attributes
    ----------
    groups_ : ndarray
        Group labels seen in fit (["all"] when fitted without groups).
    knots_, values_ : list of ndarray
        Per group, the scores (bin edges for Nadaraya-Watson) and calibrated values
        between which transform interpolates.
    bandwidth_ : float or None
        Bandwidth used (Nadaraya-Watson).
    coef_ : ndarray or None
        Platt: (n_groups, 2) intercept and slope.

    Examples
    --------
    >>> import numpy as np
    >>> from fastfair.calibration import GroupCalibrator
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 20000)
    >>> score = rng.beta(2, 2, 20000)
    >>> y = (rng.random(20000) < np.clip(score + 0.15 * group, 0, 1)).astype(float)
    >>> cal = GroupCalibrator(n_bins=20).fit(score, y, group)
    >>> out = cal.transform([0.5, 0.5], [0, 1])
    >>> bool(abs(out[0] - 0.5) < 0.04), bool(abs(out[1] - 0.65) < 0.04)
    (True, True)
    >>> cal.transform([2.0], [0])[0] == cal.values_[0][-1]  # clipped to the last edge
    np.True_
    """

    _param_names = ("method", "n_bins", "bandwidth", "kernel", "weighting", "n_jobs")

    def __init__(
        self,
        method: str = "nadaraya_watson",
        *,
        n_bins: int = DEFAULT_CALIBRATION_BINS,
        bandwidth: float | str = "rule_of_thumb",
        kernel: str = "gaussian",
        weighting: str = "per_user",
        n_jobs: int | None = None,
    ):
        self.method = method
        self.n_bins = n_bins
        self.bandwidth = bandwidth
        self.kernel = kernel
        self.weighting = weighting
        self.n_jobs = n_jobs

    @renamed_arguments(y="y_true", score="y_score")
    def fit(
        self,
        y_score: ArrayLike | str,
        y_true: ArrayLike | str,
        group: ArrayLike | str | None = None,
        cluster: ArrayLike | str | None = None,
    ) -> GroupCalibrator:
        """Fit the per-group calibration maps.

        Parameters
        ----------
        y_score, y_true : array-like of shape (n,)
            Scores and outcomes (any real y for Nadaraya-Watson and isotonic; binary for
            Platt). NaN or infinite values raise.
        group : array-like of shape (n,), optional
            Group of each row; None fits one map for all rows.
        cluster : array-like of shape (n,), optional
            User of each row (a user belongs to one group); None: rows independent.

        Returns
        -------
        GroupCalibrator
            self, fitted.

        Examples
        --------
        >>> import numpy as np
        >>> from fastfair.calibration import GroupCalibrator
        >>> rng = np.random.default_rng(0)
        >>> g = rng.integers(0, 2, 2000); s = rng.random(2000)
        >>> y = (rng.random(2000) < s).astype(float)
        >>> GroupCalibrator(n_bins=20).fit(s, y, g).groups_.tolist()
        [0, 1]
        """
        y_score, y_true, group, cluster = align_index(
            y_score=y_score, y_true=y_true, group=group, cluster=cluster
        ).values()
        check_choice(self.method, "method", CALIBRATION_METHODS)
        check_choice(self.kernel, "kernel", KERNELS)
        n_bins = check_int(self.n_bins, "n_bins", 1, MAX_POINTS)
        s = as_finite_float(y_score, "y_score")
        yv = as_finite_float(y_true, "y_true")
        prep = prepare(yv, s, group, cluster, self.weighting, "raise", None, min_groups=1)
        bandwidth = coef = n_empty = None
        if self.method == "nadaraya_watson":
            knots, values, bandwidth, n_empty = _nadaraya_watson_maps(
                prep, n_bins, self.bandwidth, self.kernel, self.n_jobs
            )
        elif self.method == "platt":
            knots, values, coef = _platt_maps(prep)
        else:
            knots, values = _isotonic_maps(prep)
        self._fitted_with_group = group is not None
        self.groups_ = prep.labels
        self.bandwidth_, self.coef_, self.n_empty_edges_ = bandwidth, coef, n_empty
        self.knots_, self.values_ = knots, values
        return self

    @renamed_arguments(score="y_score")
    def transform(
        self, y_score: ArrayLike | str, group: ArrayLike | str | None = None
    ) -> np.ndarray:
        """Calibrated scores t(s, g); scores outside g's fitted range are clipped to it.

        Raises ValueError for a group not seen in fit.

        Parameters
        ----------
        y_score : array-like of shape (n,)
            Scores to calibrate.
        group : array-like of shape (n,), optional
            Group of each row (required when fitted with groups).

        Returns
        -------
        ndarray of shape (n,)
            The calibrated scores.

        Examples
        --------
        >>> import numpy as np
        >>> from fastfair.calibration import GroupCalibrator
        >>> rng = np.random.default_rng(0)
        >>> g = rng.integers(0, 2, 2000); s = rng.random(2000)
        >>> y = (rng.random(2000) < s).astype(float)
        >>> cal = GroupCalibrator(n_bins=20).fit(s, y, g)
        >>> out = cal.transform([0.5, 0.5], [0, 1])  # calibrated data: close to the score
        >>> bool(np.allclose(out, 0.5, atol=0.1))
        True
        """
        y_score, group = align_index(y_score=y_score, group=group).values()
        s = as_finite_float(y_score, "y_score")
        if group is not None:
            check_same_length(score=s, group=as_1d(group, "group"))
        codes = _fitted_codes(self, group, s.size)
        out = np.empty_like(s)
        K = len(self.groups_)
        if K == 1:
            return self._map(0, s)
        order = np.argsort(codes, kind="stable")
        bounds = np.searchsorted(codes[order], np.arange(K + 1))
        for k in range(K):
            idx = order[bounds[k] : bounds[k + 1]]
            if idx.size:
                out[idx] = self._map(k, s[idx])
        return out

    def _map(self, k, s):
        x, v = self.knots_[k], self.values_[k]
        if self.method == "platt":
            sc = np.clip(s, x[0], x[-1])
            return special.expit(self.coef_[k, 0] + self.coef_[k, 1] * sc)
        return np.interp(s, x, v)  # constant beyond the end knots: clipping

    predict = transform

    @renamed_arguments(y="y_true", score="y_score")
    def fit_transform(
        self,
        y_score: ArrayLike | str,
        y_true: ArrayLike | str,
        group: ArrayLike | str | None = None,
        cluster: ArrayLike | str | None = None,
    ) -> np.ndarray:
        """Fit, then transform the same scores.

        Parameters
        ----------
        y_score, y_true, group, cluster
            As in :meth:`fit`.

        Returns
        -------
        ndarray of shape (n,)
            The calibrated scores of the fitted rows.

        Examples
        --------
        >>> import numpy as np
        >>> from fastfair.calibration import GroupCalibrator
        >>> rng = np.random.default_rng(0)
        >>> g = rng.integers(0, 2, 2000); s = rng.random(2000)
        >>> y = (rng.random(2000) < s).astype(float)
        >>> GroupCalibrator(n_bins=20).fit_transform(s, y, g).shape
        (2000,)
        """
        return self.fit(y_score, y_true, group, cluster).transform(y_score, group)


# --------------------------------------------------------------------------------------
# Multi-objective calibration (Sec. 5)


class MultiObjectiveCalibrator(_Params):
    r"""Multi-objective calibration, :math:`\tilde S^{(k)} = E[Y^{(k)} \mid S^{(1..K)}, G]`.

    By the theorem of Sec. 5.1, after this transformation every weighted composite
    :math:`\tilde S = \sum_k w_k \tilde S^{(k)}` is calibrated for
    :math:`Y = \sum_k w_k Y^{(k)}` within each group, hence satisfies predictive parity
    for any weights; it also cannot increase the mean squared error of any
    :math:`\tilde S^{(k)}`.

    ``method="nadaraya_watson"``: multivariate Nadaraya-Watson with a product Gaussian
    kernel, :math:`\hat E[Y^{(k)} \mid s, g] = \sum_{j\in g} w_j y^{(k)}_j
    \prod_l \phi((s_l - s_{jl})/h_l) / \sum_{j\in g} w_j \prod_l \phi(\cdot)`, row
    weights :math:`w_j = 1/n_m` per user; bandwidth per score
    :math:`h_l = c\,\hat\sigma_l M_g^{-1/(K+4)}` (Scott's rate, robust scale,
    :math:`c` = `bandwidth_scale`). The fit stores the group's rows; transform costs
    O(rows fitted x rows transformed x K) (dense, chunked), so it suits up to ~10^5 fitted
    rows per group: the curse of dimensionality (Remark 3). ``"logistic"``: for binary
    outcomes, per group and objective a logistic regression of :math:`Y^{(k)}` on all K
    scores (Remark 3: small-data alternative).

    Parameters
    ----------
    method : {"nadaraya_watson", "logistic"}
    bandwidth_scale : float
        Multiplier c of the per-score bandwidth (default 1).
    weighting : {"per_user", "per_observation"}

    Examples
    --------
    >>> import numpy as np
    >>> from fastfair.calibration import MultiObjectiveCalibrator
    >>> rng = np.random.default_rng(1)
    >>> s = rng.random((3000, 2))
    >>> y = (rng.random((3000, 2)) < s[:, ::-1]).astype(float)  # Y1 depends on S2
    >>> cal = MultiObjectiveCalibrator("logistic").fit(s, y)
    >>> out = cal.transform(np.array([[0.1, 0.9]]))
    >>> bool(out[0, 0] > 0.8), bool(out[0, 1] < 0.2)
    (True, True)
    """

    _param_names = ("method", "bandwidth_scale", "weighting")

    def __init__(
        self,
        method: str = "nadaraya_watson",
        *,
        bandwidth_scale: float = 1.0,
        weighting: str = "per_user",
    ):
        self.method = method
        self.bandwidth_scale = bandwidth_scale
        self.weighting = weighting

    @renamed_arguments(scores="y_score", outcomes="y_true")
    def fit(
        self,
        y_score: ArrayLike | str,
        y_true: ArrayLike | str,
        group: ArrayLike | str | None = None,
        cluster: ArrayLike | str | None = None,
    ) -> MultiObjectiveCalibrator:
        """Fit on scores (n, K) and outcomes (n, K); group and cluster as in GroupCalibrator.

        Parameters
        ----------
        y_score, y_true : array-like of shape (n, K)
            The K scores and the K outcomes of each row.
        group : array-like of shape (n,), optional
            Group of each row; None fits one model for all rows.
        cluster : array-like of shape (n,), optional
            User of each row; None: rows independent.

        Returns
        -------
        MultiObjectiveCalibrator
            self, fitted.

        Examples
        --------
        >>> import numpy as np
        >>> from fastfair.calibration import MultiObjectiveCalibrator
        >>> rng = np.random.default_rng(0)
        >>> s = rng.random((2000, 2)); y = (rng.random((2000, 2)) < s).astype(float)
        >>> MultiObjectiveCalibrator().fit(s, y).n_scores_
        2
        """
        check_choice(self.method, "method", ("nadaraya_watson", "logistic"))
        check_choice(self.weighting, "weighting", WEIGHTINGS)
        y_score, y_true, group, cluster = align_index(
            y_score=y_score, y_true=y_true, group=group, cluster=cluster
        ).values()
        S = _score_matrix(y_score, "y_score")
        Y = _score_matrix(y_true, "y_true", S.shape[1])
        if Y.shape[0] != S.shape[0]:
            raise ValueError("y_score and y_true must have the same number of rows")
        n, K = S.shape
        if group is None:
            codes, labels = np.zeros(n, dtype=np.intp), np.array(["all"], dtype=object)
        else:
            codes, labels = as_groups(group, "group", min_groups=1)
            check_same_length(scores=S, group=codes)
        if cluster is not None and self.weighting == "per_user":
            ccodes, _ = as_groups(cluster, "cluster", min_groups=1)
            check_same_length(scores=S, cluster=ccodes)
            w = 1.0 / np.bincount(ccodes)[ccodes]
        else:
            w = np.ones(n)
        if self.method == "logistic":
            _check_binary(Y, "method='logistic'")
        fits = _multi_objective_fits(
            S, Y, w, codes, len(labels), self.method, self.bandwidth_scale
        )
        self._fitted_with_group = group is not None
        self.groups_ = labels
        self.n_scores_ = K
        self._fits = fits
        return self

    @renamed_arguments(scores="y_score")
    def transform(
        self, y_score: ArrayLike | str, group: ArrayLike | str | None = None
    ) -> np.ndarray:
        """Transformed scores (n, K): estimates of E[Y^(k) | S^(1..K), G].

        Parameters
        ----------
        y_score : array-like of shape (n, K)
            Scores to transform.
        group : array-like of shape (n,), optional
            Group of each row (required when fitted with groups).

        Returns
        -------
        ndarray of shape (n, K)
            The transformed scores.

        Examples
        --------
        >>> import numpy as np
        >>> from fastfair.calibration import MultiObjectiveCalibrator
        >>> rng = np.random.default_rng(0)
        >>> s = rng.random((2000, 2)); y = (rng.random((2000, 2)) < s).astype(float)
        >>> MultiObjectiveCalibrator().fit(s, y).transform([[0.5, 0.5]]).shape
        (1, 2)
        """
        if not hasattr(self, "groups_"):
            raise RuntimeError("this MultiObjectiveCalibrator is not fitted yet: call fit first")
        y_score, group = align_index(y_score=y_score, group=group).values()
        S = _score_matrix(y_score, "y_score", self.n_scores_)
        codes = _fitted_codes(self, group, S.shape[0])
        out = np.empty_like(S)
        for g in range(len(self.groups_)):
            sel = np.flatnonzero(codes == g)
            if not sel.size:
                continue
            if self.method == "logistic":
                coef = self._fits[g]
                out[sel] = special.expit(coef[:, 0] + S[sel] @ coef[:, 1:].T)
            else:
                out[sel] = _kernel_regression(self._fits[g], S[sel])
        return out

    @renamed_arguments(scores="y_score", outcomes="y_true")
    def fit_transform(
        self,
        y_score: ArrayLike | str,
        y_true: ArrayLike | str,
        group: ArrayLike | str | None = None,
        cluster: ArrayLike | str | None = None,
    ) -> np.ndarray:
        """Fit, then transform the same scores.

        Parameters
        ----------
        y_score, y_true, group, cluster
            As in :meth:`fit`.

        Returns
        -------
        ndarray of shape (n, K)
            The transformed scores of the fitted rows.

        Examples
        --------
        >>> import numpy as np
        >>> from fastfair.calibration import MultiObjectiveCalibrator
        >>> rng = np.random.default_rng(0)
        >>> s = rng.random((2000, 2)); y = (rng.random((2000, 2)) < s).astype(float)
        >>> MultiObjectiveCalibrator().fit_transform(s, y).shape
        (2000, 2)
        """
        return self.fit(y_score, y_true, group, cluster).transform(y_score, group)


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
    if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real):
        raise TypeError(f"threshold must be a number, got {show_value(threshold)}")
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
    :math:`\min(B-1, \lfloor rB/n \rfloor)`. Equal width: B bins of equal width on [0, 1]
    when the scores lie in it, else on [min s, max s]; empty bins are skipped. p = 1 is
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
    if not (isinstance(p, numbers.Real) and p >= 1):
        raise ValueError(f"p must be a number >= 1, got {show_value(p)}")
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
    if not (isinstance(p, numbers.Real) and p >= 1):
        raise ValueError(f"p must be a number >= 1, got {show_value(p)}")
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
    if cluster is not None and weighting == "per_user":
        codes, _ = as_groups(cluster, "cluster", min_groups=1)
        w = 1.0 / np.bincount(codes)[codes]
    else:
        w = np.ones(s.size)
    if at == "quantiles":
        q = weighted_quantiles(s, w, (np.arange(100) + 0.5) / 100)
        return float(np.sqrt(np.mean((q - cal.transform(q)) ** 2)))
    f = cal.transform(s)
    return float(np.sqrt(np.sum(w * (s - f) ** 2) / w.sum()))


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
    if group is None:
        codes, labels = np.zeros(s.size, dtype=np.intp), np.array(["all"], dtype=object)
    else:
        codes, labels = as_groups(group, "group", min_groups=1)
        check_same_length(score=s, group=codes)
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
    if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real):
        raise TypeError(f"threshold must be a number, got {show_value(threshold)}")
    if not 0.0 <= threshold <= 1.0:  # NaN too: the calibrated probabilities share it
        raise ValueError(f"threshold must be a probability in [0, 1], got {show_value(threshold)}")
    as_probabilities(y_score, "y_score", "predicted probabilities (compared with threshold)")
    s, f, codes, labels, cal = _calibrated(y_true, y_score, group, cluster, calibrator)
    diff = (f >= threshold).astype(np.float64) - (s >= threshold)
    n = np.bincount(codes, minlength=len(labels))
    return ImpactResult(labels, np.bincount(codes, weights=diff) / n, n, "delta_pcc", cal)


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
    y_true : array-like of shape (n,) or None
        Outcomes; None only with a fitted `calibrator`.
    y_score : array-like of shape (n,)
        Scores.
    group : array-like of shape (n,)
        Group of each row.
    query : array-like of shape (n,)
        Query of each row; ranks are taken within a query.
    cluster : array-like of shape (n,), optional
        User of each row (a user belongs to one group); None: rows are independent.
    calibrator : GroupCalibrator, optional
        Fitted calibrator giving :math:`S^*`; unfitted: fitted on these rows; None: a default
        :class:`GroupCalibrator` fitted on these rows.

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
    n = np.bincount(codes, minlength=len(labels))
    return ImpactResult(labels, np.bincount(codes, weights=diff) / n, n, "delta_rc", cal)
