"""The estimators: :class:`GroupCalibrator` and :class:`MultiObjectiveCalibrator`
(fit -> transform, scikit-learn's conventions: get_params / set_params, fitted attributes
ending in an underscore)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from fastfair._clustered import KERNELS, WEIGHTINGS, prepare
from fastfair._deprecation import renamed_arguments
from fastfair._scipy import special
from fastfair._validation import (
    MAX_POINTS,
    align_index,
    as_1d,
    as_finite_float,
    check_choice,
    check_int,
    check_same_length,
)
from fastfair.calibration.ingest import (
    CALIBRATION_METHODS,
    DEFAULT_CALIBRATION_BINS,
    _check_binary,
    _check_fitted,
    _cluster_weights,
    _fitted_codes,
    _group_codes,
    _score_matrix,
)
from fastfair.calibration.statistics import (
    _isotonic_maps,
    _kernel_regression,
    _multi_objective_fits,
    _nadaraya_watson_maps,
    _platt_maps,
)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike


class _Calibrator:
    """get_params / set_params / repr of an estimator from its `_param_names` (scikit-learn
    conventions), and fit_transform from its fit and transform."""

    _param_names: tuple = ()

    def get_params(self, deep: bool = True) -> dict:
        """Parameters of the estimator (scikit-learn convention).

        Parameters
        ----------
        deep : bool
            Accepted for scikit-learn compatibility (no nested estimators).

        Returns
        -------
        dict
            Constructor parameter name -> value.

        Examples
        --------
        >>> from fastfair.calibration import GroupCalibrator, MultiObjectiveCalibrator
        >>> GroupCalibrator().get_params()["weighting"]
        'per_user'
        >>> sorted(MultiObjectiveCalibrator().get_params())
        ['bandwidth_scale', 'method', 'weighting']
        """
        return {k: getattr(self, k) for k in self._param_names}

    def set_params(self, **params):
        """Set parameters (scikit-learn convention).

        Parameters
        ----------
        **params
            Constructor parameters to change.

        Returns
        -------
        estimator
            self.

        Examples
        --------
        >>> from fastfair.calibration import GroupCalibrator
        >>> GroupCalibrator().set_params(weighting="per_observation").weighting
        'per_observation'
        """
        for k, v in params.items():
            if k not in self._param_names:
                raise ValueError(f"invalid parameter {k!r} for {type(self).__name__}")
            setattr(self, k, v)
        return self

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={getattr(self, k)!r}" for k in self._param_names)
        return f"{type(self).__name__}({args})"

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
            As in the estimator's ``fit``.

        Returns
        -------
        ndarray of shape (n,) or (n, K)
            The calibrated scores of the fitted rows (shape (n, K) for
            :class:`MultiObjectiveCalibrator`).

        Examples
        --------
        >>> import numpy as np
        >>> from fastfair.calibration import GroupCalibrator, MultiObjectiveCalibrator
        >>> rng = np.random.default_rng(0)
        >>> g = rng.integers(0, 2, 2000); s = rng.random(2000)
        >>> y = (rng.random(2000) < s).astype(float)
        >>> GroupCalibrator(n_bins=20).fit_transform(s, y, g).shape
        (2000,)
        >>> MultiObjectiveCalibrator().fit_transform(np.c_[s, s], np.c_[y, y]).shape
        (2000, 2)
        """
        return self.fit(y_score, y_true, group, cluster).transform(y_score, group)


# --------------------------------------------------------------------------------------
# Group calibration (Sec. 4.1, Appendix C)


class GroupCalibrator(_Calibrator):
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

    fit_transform = renamed_arguments(y="y_true", score="y_score")(_Calibrator.fit_transform)


# --------------------------------------------------------------------------------------
# Multi-objective calibration (Sec. 5)


class MultiObjectiveCalibrator(_Calibrator):
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
        codes, labels = _group_codes(group, scores=S)
        w = _cluster_weights(cluster, self.weighting, scores=S)
        if self.method == "logistic":
            _check_binary(Y, "method='logistic'")
        fits = _multi_objective_fits(
            S, Y, w, codes, len(labels), self.method, self.bandwidth_scale
        )
        self._fitted_with_group = group is not None
        self.groups_ = labels
        self.n_scores_ = S.shape[1]
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
        _check_fitted(self)
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

    fit_transform = renamed_arguments(scores="y_score", outcomes="y_true")(
        _Calibrator.fit_transform
    )
