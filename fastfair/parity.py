r"""Predictive parity under dependent data: clustered Nadaraya-Watson curves and tests.

DiCiccio, Hsu, Yu, Nandy & Basu (FAccT 2023), "Detection and Mitigation of Algorithmic
Bias via Predictive Parity" (docs/parity.md). Users m = 1..M contribute n_m observations
(y_mi, s_mi); user m belongs to one group G_m. Users are independent, observations of a
user are not. Per group, the conditional outcome E[Y | S = s, G = g] is estimated by

.. math:: \hat f_g(s) = \frac{\sum_{m \in g} w_m \sum_i y_{mi} K((s_{mi} - s)/h)}
                             {\sum_{m \in g} w_m \sum_i K((s_{mi} - s)/h)},

with :math:`w_m = 1/n_m` ("per_user": every user counts once, the paper's recommended
estimand, Sec. 3) or :math:`w_m = 1` ("per_observation", Appendix D). Its cluster-robust
(sandwich) variance is

.. math:: \widehat{\mathrm{Var}}\,\hat f_g(s) = \frac{\sum_{m\in g} u_m(s)^2}
                                                     {(\sum_{m\in g} v_m(s))^2},\quad
          u_m = w_m \sum_i (y_{mi} - \hat f_g(s)) K_{mi}(s),\quad v_m = w_m \sum_i K_{mi}(s).

Everything is computed from per-user kernel sums on the grid, accumulated in one pass over
the observations grouped by user by the compiled core (``fastfair._kernel_sums``).
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass, field

import numpy as np

from fastfair import _kernel_sums
from fastfair._clustered import (
    BANDWIDTH_METHODS,
    KERNELS,
    ROWS_PER_THREAD,
    UNDERSMOOTH,
    _cv_bandwidth,
    _label,
    _rule_of_thumb,
    choose_bandwidth,
    make_grid,
    prepare,
)
from fastfair._clustered import NAN_POLICIES as NAN_POLICIES
from fastfair._clustered import WEIGHTINGS as WEIGHTINGS
from fastfair._deprecation import renamed_arguments, renamed_attributes, user_stacklevel
from fastfair._parallel import effective_n_threads, threads_for
from fastfair._pvalues import adjust_pvalues, asymptotic_pvalue, max_exceedance_pvalues
from fastfair._random import stream_key
from fastfair._results import format_pvalue, format_table, format_value, pvalue_field
from fastfair._scipy import special, stats
from fastfair._validation import (
    check_choice,
    check_resamples,
    show_value,
)

__all__ = [
    "CalibrationCurve",
    "MarginalOutcomeResult",
    "PredictiveParityResult",
    "SparseGridWarning",
    "calibration_curve",
    "marginal_outcome_test",
    "predictive_parity_test",
    "select_bandwidth",
]

ADJUSTMENTS = ("holm", "bonferroni", "bh", "maxT", "none")
SMALL_SAMPLE = ("cr2", "none")
#: Default number of grid points.
DEFAULT_GRID_POINTS = 50
#: Grid points where a group's effective number of clusters is below this get no SE.
MIN_EFFECTIVE_CLUSTERS = 5.0
#: Small-sample correction: where the largest user's share of the kernel weight is at most
#: this at every grid point, the leverage terms of CR2 change the variance by at most 0.1%
#: and the second pass over the data is skipped (fast path; see `_fit`).
FAST_SHARE = 1e-3
#: small_sample="none": warn where one user holds more than this share of a group's kernel
#: weight at a tested point (in validation/results/parity_small_clusters.txt the CR0 test
#: rejects a true null up to 2-3 times too often where the largest share is 0.1-0.25).
SHARE_WARNING = 0.1
#: small_sample="cr2": warn where the Satterthwaite df of a group's variance is below this.
DF_WARNING = 3.0


class SparseGridWarning(UserWarning):
    """Some grid points have too few observations or clusters nearby for inference."""


# --------------------------------------------------------------------------------------
# Input preparation


# --------------------------------------------------------------------------------------
# Grid and bandwidth


@renamed_arguments(y="y_true", score="y_score")
def select_bandwidth(
    y_true,
    y_score,
    group=None,
    *,
    cluster=None,
    weighting: str = "per_user",
    method: str = "rule_of_thumb",
    kernel: str = "gaussian",
    undersmooth: float = UNDERSMOOTH,
    nan_policy: str = "raise",
    data=None,
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
        return _cv_bandwidth(prep, kernel, float(undersmooth), effective_n_threads(n_jobs))[0]
    return _rule_of_thumb(prep, kernel, float(undersmooth))


# --------------------------------------------------------------------------------------
# Curves


@renamed_attributes(std_error="standard_error")
@dataclass(repr=False)
class CalibrationCurve:
    """Result of :func:`calibration_curve`: per-group estimates of E[Y | S = s, G = g].

    Arrays indexed [group, grid point] have shape (n_groups, n_grid).

    Attributes
    ----------
    grid : ndarray
        Scores s at which the curves are estimated.
    groups : ndarray
        Group labels.
    estimate, standard_error, lower, upper : ndarray
        Nadaraya-Watson estimate, cluster-robust standard error and pointwise confidence
        band at `confidence_level`. NaN where a group has no observation within the
        kernel's reach (estimate) or fewer than `min_effective_clusters` effective clusters
        (standard error and band); `notes` says which and why.
    n_effective : ndarray
        Effective number of clusters at each point, :math:`(\\sum_m v_m)^2 / \\sum_m v_m^2`
        (Kish): how many users the estimate really rests on.
    max_share : ndarray
        Largest user's share of the kernel weight, :math:`\\max_m v_m / \\sum_m v_m`
        (its leverage): near 1, the estimate is essentially that user's.
    df : ndarray
        Satterthwaite degrees of freedom of the variance (``small_sample="cr2"``; inf with
        ``"none"``); the bands use t quantiles with these df. NaN where SE is NaN.
    small_sample : str
        Correction used ("cr2" or "none").
    n_clusters_near : ndarray
        Clusters with a positive kernel weight at each point.
    bandwidth, bandwidth_method, kernel, weighting, confidence_level
        Settings used (``bandwidth_method``: "fixed", "rule_of_thumb" or "cv").
    n_observations, n_clusters : ndarray
        Rows and clusters (users) per group; without `cluster` every row is a cluster.
    n_out_of_reach : ndarray
        Rows per group farther than the kernel's reach from every grid point (they do not
        enter any estimate).
    notes : list of str
        Why some points are NaN.
    """

    grid: np.ndarray
    groups: np.ndarray
    estimate: np.ndarray
    standard_error: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    n_effective: np.ndarray
    n_clusters_near: np.ndarray
    bandwidth: float
    bandwidth_method: str
    kernel: str
    weighting: str
    confidence_level: float
    n_observations: np.ndarray
    n_clusters: np.ndarray
    n_out_of_reach: np.ndarray
    clustered: bool
    df: np.ndarray = None
    max_share: np.ndarray = None
    small_sample: str = "cr2"
    notes: list = field(default_factory=list)

    def to_frame(self):
        """Long-format pandas DataFrame: one row per (group, score). Needs pandas."""
        pd = _import_pandas()
        K, G = self.estimate.shape
        return pd.DataFrame(
            {
                "group": np.repeat(self.groups, G),
                "score": np.tile(self.grid, K),
                "estimate": self.estimate.ravel(),
                "std_error": self.standard_error.ravel(),
                "lower": self.lower.ravel(),
                "upper": self.upper.ravel(),
                "n_effective": self.n_effective.ravel(),
                "max_share": self.max_share.ravel(),
                "df": self.df.ravel(),
            }
        )

    def plot(self, ax=None, *, diagonal: bool = True):
        """Plot each group's curve with its pointwise band (needs matplotlib); returns ax."""
        if ax is None:
            plt = _import_pyplot()
            _, ax = plt.subplots()
        for k, g in enumerate(self.groups):
            (line,) = ax.plot(self.grid, self.estimate[k], label=str(g))
            ax.fill_between(
                self.grid,
                self.lower[k],
                self.upper[k],
                alpha=0.25,
                color=line.get_color(),
                linewidth=0,
            )
        if diagonal:
            lo, hi = float(self.grid[0]), float(self.grid[-1])
            ax.plot([lo, hi], [lo, hi], color="grey", linestyle=":", linewidth=1)
        ax.set_xlabel("score")
        ax.set_ylabel("E[Y | score, group]")
        ax.legend(title="group")
        return ax

    def _header(self) -> str:
        per = ", ".join(
            f"{g}: {n} rows / {c} {'users' if self.clustered else 'rows'}"
            for g, n, c in zip(self.groups, self.n_observations, self.n_clusters)
        )
        return (
            f"weighting={self.weighting!r}, kernel={self.kernel!r}, "
            f"bandwidth={format_value(self.bandwidth)} ({self.bandwidth_method}), "
            f"{len(self.grid)} grid points; {per}"
        )

    def __repr__(self) -> str:
        level = f"{100 * self.confidence_level:g}%"
        headers = ["score"]
        for g in self.groups:
            headers += [f"{g}", f"{level} band"]
        rows = []
        for j in _shown_rows(len(self.grid)):
            if j is None:
                rows.append(["..."] + [""] * (len(headers) - 1))
                continue
            row = [format_value(self.grid[j])]
            for k in range(len(self.groups)):
                row += [self.estimate[k, j], _band(self.lower[k, j], self.upper[k, j])]
            rows.append(row)
        lines = [f"CalibrationCurve({self._header()})", format_table(headers, rows)]
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


def _band(lo, hi) -> str:
    if np.isnan(lo):
        return "-"
    return f"[{format_value(lo)}, {format_value(hi)}]"


def _shown_rows(n: int, limit: int = 16):
    if n <= limit:
        return list(range(n))
    half = limit // 2
    return [*range(half), None, *range(n - half, n)]


def _import_pandas():
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("to_frame() needs pandas: pip install pandas") from exc
    return pd


def _import_pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("plot() needs matplotlib: pip install matplotlib") from exc
    return plt


@dataclass
class _Fit:
    curve: CalibrationCurve
    sums: dict
    cov: np.ndarray | None  # pass-2 sums of ut_mj ut_mk (CR2), or None: use sums' cov_*


def _check_small_sample(small_sample) -> str:
    check_choice(small_sample, "small_sample", SMALL_SAMPLE)
    return small_sample


def _variance(prep, sums, f, grid, h, kernel, small_sample, covariance, n_threads):
    """Variance of each estimate, its Satterthwaite df and the CR2 cross-grid sums.

    "none": CR0 sandwich sum_m u_m^2 / B^2 and df = inf (normal reference).
    "cr2": CR2 sum_m u_m^2 / (1 - p_m) / B^2 with p_m = b_m / B the user's share of the
    kernel weight (its leverage), and the Bell-McCaffrey/Satterthwaite df of that variance
    under a random-intercept working model (see docs/parity.md), from a second pass. Fast
    path: where no user holds more than FAST_SHARE of the weight at any point, the leverage
    terms are dropped (CR0 variance, df = (sum b^2)^2 / sum b^4) and there is one pass.
    """
    sb = sums["sum_b"]
    pos = sb > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        num = sums["sum_aa"] - 2.0 * f * sums["sum_ab"] + f * f * sums["sum_bb"]
        cr0 = np.maximum(num, 0.0) / (sb * sb)
        share = np.where(pos, sums["max_b"] / sb, 0.0)
    if small_sample == "none":
        return cr0, np.full(sb.shape, np.inf), share, None
    if not np.any(share > FAST_SHARE):
        with np.errstate(invalid="ignore", divide="ignore"):
            df = np.where(pos, sums["sum_bb"] ** 2 / sums["sum_b4"], np.nan)
        return cr0, df, share, None
    lev = prep.leverage_sums(grid, h, sb, f, kernel, covariance, n_threads)
    with np.errstate(invalid="ignore", divide="ignore"):
        var = lev["cr2"] / (sb * sb)
        S = sums["sum_bb"] / (sb * sb)
        s1, s2, s3, s4, s5 = lev["op2"], lev["op3"], lev["op4"], lev["o2p4"], lev["o2p5"]
        tr = s1 - 2.0 * s2 + S * s1
        Q = (1.0 + 2.0 * S) * s4 - 4.0 * s5 + 2.0 * s1 * s3 + 2.0 * s2 * s2
        Q = Q + S * S * s1 * s1 - 4.0 * S * s2 * s1
        df = np.where(pos & (Q > 0), tr * tr / Q, np.nan)
    return var, df, share, lev.get("cov")


def _quantile(prob, df):
    """Quantile of Student t with df (array; inf: the normal quantile, exactly)."""
    df = np.asarray(df, dtype=np.float64)
    normal = special.ndtri(prob)
    finite = np.isfinite(df) & (df > 0)
    if not finite.any():
        return np.full(df.shape, normal)
    return np.where(finite, stats.t.ppf(prob, np.where(finite, df, 1.0)), normal)


def _two_sided(stat, df):
    """Two-sided p-value of t with df (inf: normal, exactly as asymptotic_pvalue)."""
    stat = np.asarray(stat, dtype=np.float64)
    df = np.asarray(df, dtype=np.float64)
    normal = asymptotic_pvalue(stat)
    finite = np.isfinite(df) & (df > 0)
    if not finite.any():
        return normal
    return np.where(finite, 2.0 * stats.t.sf(np.abs(stat), np.where(finite, df, 1.0)), normal)


def _fit(
    prep,
    grid,
    bandwidth,
    kernel,
    confidence_level,
    min_effective_clusters,
    n_threads,
    covariance,
    small_sample="cr2",
) -> _Fit:
    check_choice(kernel, "kernel", KERNELS)
    _check_small_sample(small_sample)
    if isinstance(confidence_level, bool) or not isinstance(confidence_level, numbers.Real):
        raise TypeError(f"confidence_level must be a number, got {show_value(confidence_level)}")
    if not 0 < confidence_level < 1:
        raise ValueError(f"confidence_level must be in (0, 1), got {confidence_level}")
    if isinstance(min_effective_clusters, bool) or not isinstance(
        min_effective_clusters, numbers.Real
    ):
        raise TypeError(
            f"min_effective_clusters must be a number, got {show_value(min_effective_clusters)}"
        )
    if not min_effective_clusters >= 1:
        raise ValueError(
            f"min_effective_clusters must be >= 1 (a single cluster has no variance "
            f"estimate), got {min_effective_clusters}"
        )
    n_threads = threads_for(n_threads, prep.size, ROWS_PER_THREAD)
    h, how = choose_bandwidth(prep, bandwidth, kernel, n_threads)
    grid_arr = make_grid(grid, prep)
    sums = prep.kernel_sums(grid_arr, h, kernel, covariance, n_threads)
    sa, sb = sums["sum_a"], sums["sum_b"]
    with np.errstate(invalid="ignore", divide="ignore"):
        est = np.where(sb > 0, sa / sb, np.nan)
        f = np.where(sb > 0, est, 0.0)
        n_eff = np.where(sb > 0, sb * sb / sums["sum_bb"], 0.0)
    var, df, share, cov = _variance(
        prep, sums, f, grid_arr, h, kernel, small_sample, covariance, n_threads
    )
    ok = (sb > 0) & (n_eff >= min_effective_clusters)
    se = np.where(ok, np.sqrt(var), np.nan)
    df = np.where(ok, df, np.nan)
    zq = _quantile(0.5 + confidence_level / 2.0, df)
    notes = _sparse_notes(prep, grid_arr, sb, n_eff, min_effective_clusters, h, kernel)
    notes += _share_notes(prep, grid_arr, share, df, ok, small_sample)
    if notes:
        warnings.warn("; ".join(notes), SparseGridWarning, stacklevel=user_stacklevel())
    curve = CalibrationCurve(
        grid=grid_arr,
        groups=prep.labels,
        estimate=est,
        standard_error=se,
        lower=est - zq * se,
        upper=est + zq * se,
        n_effective=n_eff,
        n_clusters_near=sums["n_clusters"],
        bandwidth=h,
        bandwidth_method=how,
        kernel=kernel,
        weighting=prep.weighting,
        confidence_level=float(confidence_level),
        n_observations=prep.n_rows,
        n_clusters=prep.n_clusters,
        n_out_of_reach=prep.n_rows - sums["n_in_reach"],
        clustered=prep.clustered,
        df=df,
        max_share=share,
        small_sample=small_sample,
        notes=notes,
    )
    return _Fit(curve, sums, cov)


def _sparse_notes(prep, grid, sb, n_eff, min_eff, h, kernel) -> list[str]:
    notes = []
    reach = _kernel_sums.kernel_reach(kernel)
    for k, g in enumerate(prep.labels):
        empty = np.flatnonzero(sb[k] <= 0)
        thin = np.flatnonzero((sb[k] > 0) & (n_eff[k] < min_eff))
        if empty.size:
            notes.append(
                f"group {_label(g)} has no observations within the kernel's reach ({reach:g} "
                f"bandwidths = {format_value(reach * h)}) of {empty.size} grid point(s) "
                f"{_points(grid[empty])}: estimate NaN"
            )
        if thin.size:
            notes.append(
                f"group {_label(g)} has fewer than {min_eff:g} effective clusters at {thin.size} "
                f"grid point(s) {_points(grid[thin])}: standard error NaN"
            )
    return notes


def _share_notes(prep, grid, share, df, tested, small_sample) -> list[str]:
    """Tested points where the clustered inference is unreliable (see SHARE_WARNING)."""
    notes = []
    for k, g in enumerate(prep.labels):
        if small_sample == "none":
            bad = np.flatnonzero(tested[k] & (share[k] > SHARE_WARNING))
            why = (
                f"one user holds more than {SHARE_WARNING:.0%} of the kernel weight, where "
                "the uncorrected sandwich is optimistic (use small_sample='cr2')"
            )
        else:
            bad = np.flatnonzero(tested[k] & (df[k] < DF_WARNING))
            why = (
                f"the Satterthwaite df is below {DF_WARNING:g} (a few users hold most of the "
                "kernel weight): the t reference is a rough approximation"
            )
        if bad.size:
            where = f"at {bad.size} grid point(s) {_points(grid[bad])}"
            notes.append(f"group {_label(g)}: {where} {why}")
    return notes


def _points(values) -> str:
    shown = ", ".join(format_value(v) for v in values[:4])
    return f"(s = {shown}{', ...' if values.size > 4 else ''})"


@renamed_arguments(y="y_true", score="y_score")
def calibration_curve(
    y_true,
    y_score,
    group=None,
    *,
    cluster=None,
    weighting: str = "per_user",
    grid=DEFAULT_GRID_POINTS,
    bandwidth="rule_of_thumb",
    kernel: str = "gaussian",
    confidence_level: float = 0.95,
    min_effective_clusters: float = MIN_EFFECTIVE_CLUSTERS,
    small_sample: str = "cr2",
    nan_policy: str = "raise",
    data=None,
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


_ZERO_VARIANCE = 1e-12  # var * n_effective at or below this: outcomes constant near s


def _studentizing_variance(est, se, n_eff):
    """Variances that studentize the tests: se**2, except where a group's outcomes are
    constant near the point (zero variance up to rounding: var * n_eff <= 1e-12). There the
    estimate is shrunk by half a pseudo-observation, f~ = (f n_eff + 1/2) / (n_eff + 1), and
    the variance is f~ (1 - f~) / n_eff, as in :func:`fastfair.permutation_test`. A
    perfectly calibrated score then gives z ~ 0, not z = inf from a rounding difference
    (1.0 vs 0.99999999), and all-positive against all-negative outcomes a large finite z.
    Returns (variance, degenerate mask).
    """
    var = se * se
    with np.errstate(invalid="ignore", divide="ignore"):
        degenerate = np.isfinite(var) & (var * n_eff <= _ZERO_VARIANCE) & (n_eff > 0)
        shrunk = (est * n_eff + 0.5) / (n_eff + 1.0)
        floor = shrunk * (1.0 - shrunk) / n_eff
    return np.where(degenerate, floor, var), degenerate


def _wald(est, var):
    """Per-point statistic: z (two groups, first minus second) or Wald chi-square (K-1 df)."""
    if est.shape[0] == 2:
        diff = est[0] - est[1]
        se = np.sqrt(var[0] + var[1])
        with np.errstate(invalid="ignore", divide="ignore"):
            z = np.where(se > 0, diff / se, np.where(diff == 0, 0.0, np.sign(diff) * np.inf))
        return z, z * z
    prec = 1.0 / var
    mean = (est * prec).sum(axis=0) / prec.sum(axis=0)
    w = ((est - mean) ** 2 * prec).sum(axis=0)
    return w, w


def _pointwise(stat, sq, var, df):
    """Pointwise p-values and reference df at tested points.

    Two groups: t = z with the Welch-Satterthwaite df
    (V_1 + V_2)^2 / (V_1^2/df_1 + V_2^2/df_2) of the difference's variance. More groups:
    W / (K - 1) referred to F(K - 1, min_g df_g). Infinite df (small_sample="none"): the
    normal and chi-square references, as in the paper.
    """
    K = var.shape[0]
    with np.errstate(invalid="ignore", divide="ignore"):
        if K == 2:
            dfw = (var[0] + var[1]) ** 2 / (var[0] ** 2 / df[0] + var[1] ** 2 / df[1])
        else:
            dfw = df.min(axis=0)
    dfw = np.where(np.isnan(dfw), np.inf, dfw)
    if K == 2:
        return _two_sided(stat, dfw), dfw
    finite = np.isfinite(dfw)
    p = stats.chi2.sf(sq, K - 1)
    if finite.any():
        p = np.where(finite, stats.f.sf(sq / (K - 1), K - 1, np.where(finite, dfw, 1.0)), p)
    return p, dfw


def _normal_scale(pvalues, K):
    """The statistic with the same p-value under the normal (K = 2: z^2) or chi2(K-1)."""
    if K == 2:
        return special.ndtri(0.5 * pvalues) ** 2
    return stats.chi2.isf(pvalues, K - 1)


def _group_covariance(fit, est, g, points):
    """Cluster-robust covariance of group g's estimates at `points` (cross-grid sandwich).

    CR2 (second pass): sum_m ut_mj ut_mk / (B_j B_k); CR0: from the one-pass cross-grid sums.
    """
    sums = fit.sums
    b = sums["sum_b"][g, points]
    ix = np.ix_(points, points)
    if fit.cov is not None:
        cov = fit.cov[g][ix] / np.outer(b, b)
        return 0.5 * (cov + cov.T)
    f = est[g, points]
    aa, ab, bb = sums["cov_aa"][g][ix], sums["cov_ab"][g][ix], sums["cov_bb"][g][ix]
    cov = aa - ab * f[None, :] - ab.T * f[:, None] + np.outer(f, f) * bb
    cov = cov / np.outer(b, b)
    return 0.5 * (cov + cov.T)


def _multiplier_bootstrap(fit, est, points, n_bootstrap, key, n_threads, floor=None):
    """Null draws of max_j W_j: Gaussian multipliers over clusters, in closed form.

    With xi_m ~ N(0, 1) independent over clusters, the multiplier-bootstrap estimate error
    D_g(s_j) = sum_m xi_m u_m(s_j) / sum_m v_m(s_j) is, given the data, exactly
    N(0, C_g) with C_g[j, k] = sum_m u_mj u_mk / (V_j V_k): drawing from it with a square
    root of C_g is the same bootstrap at O(grid^2) instead of O(clusters x grid) per draw.
    """
    K = est.shape[0]
    P = points.size
    roots = np.empty((K, P, P))
    variance = np.empty((K, P))
    for g in range(K):
        cov = _group_covariance(fit, est, g, points)
        vals, vecs = np.linalg.eigh(cov)
        roots[g] = vecs * np.sqrt(np.clip(vals, 0.0, None))[None, :]
        variance[g] = np.diag(cov)
    if floor is not None:  # studentize degenerate points as the observed statistic does
        degenerate, var = floor
        variance = np.where(degenerate[:, points], var[:, points], variance)
    return _kernel_sums.max_wald_draws(
        np.ascontiguousarray(roots), variance, n_bootstrap, key, 0, n_threads
    ), variance


@renamed_attributes(difference_se="difference_standard_error")
@dataclass(repr=False)
class PredictiveParityResult:
    """Result of :func:`predictive_parity_test`.

    Attributes
    ----------
    statistic : float
        Largest per-point statistic over the tested grid points: max |z| (two groups) or
        max Wald chi-square (more groups).
    pvalue : float
        p-value of the simultaneous test of predictive parity over the whole grid: the
        multiplier bootstrap over clusters when ``n_bootstrap > 0``, else the smallest
        adjusted per-point p-value (`adjust`).
    method : str
        "multiplier_bootstrap" or the adjustment behind `pvalue`.
    curve : CalibrationCurve
        Per-group estimates, standard errors and pointwise bands.
    grid : ndarray
        Grid scores (same as ``curve.grid``).
    difference, difference_standard_error : ndarray or None
        Two groups: first group minus second (sorted labels) and its standard error.
    grid_statistic : ndarray
        z (two groups) or Wald chi-square with K-1 df at each grid point (NaN where a
        group lacks a standard error).
    grid_pvalue, grid_pvalue_adjusted : ndarray
        Two-sided pointwise p-values and their adjustment over the tested points.
    adjust : str
        "holm", "bonferroni", "bh" (Benjamini-Hochberg: false discovery rate), "maxT"
        (single-step max-T from the multiplier bootstrap) or "none".
    critical_value : float or None
        Two groups with bootstrap: the `confidence_level` quantile of max |z*| (normal
        scale).
    n_bootstrap : int
    tested : ndarray of bool
        Grid points entering the tests.
    grid_df : ndarray
        Degrees of freedom of each point's t (two groups: Welch-Satterthwaite) or F
        reference; inf with ``small_sample="none"`` (normal / chi-square).
    critical_values : ndarray or None
        Two groups with bootstrap: per point, the t quantile (df `grid_df`) at the level of
        `critical_value`, so difference ± critical_values × difference_standard_error is a
        simultaneous band (all equal to `critical_value` with ``small_sample="none"``).
    small_sample : str
        "cr2" or "none" (see :func:`predictive_parity_test`).
    """

    statistic: float
    pvalue: float
    method: str
    curve: CalibrationCurve
    grid: np.ndarray
    groups: np.ndarray
    difference: np.ndarray | None
    difference_standard_error: np.ndarray | None
    grid_statistic: np.ndarray
    grid_pvalue: np.ndarray
    grid_pvalue_adjusted: np.ndarray
    adjust: str
    critical_value: float | None
    n_bootstrap: int
    tested: np.ndarray
    statistic_name: str = "z"
    null_distribution: np.ndarray | None = field(default=None)
    grid_df: np.ndarray | None = None
    critical_values: np.ndarray | None = None
    small_sample: str = "cr2"

    @property
    def table(self) -> dict:
        """Per-grid table as a dict of arrays (columns of :meth:`to_frame`)."""
        out = {"score": self.grid}
        for k, g in enumerate(self.groups):
            out[f"estimate_{g}"] = self.curve.estimate[k]
            out[f"se_{g}"] = self.curve.standard_error[k]
        if self.difference is not None:
            out["difference"] = self.difference
            out["se_difference"] = self.difference_standard_error
        out[self.statistic_name] = self.grid_statistic
        out["df"] = self.grid_df
        out["pvalue"] = self.grid_pvalue
        out[f"pvalue_{self.adjust}"] = self.grid_pvalue_adjusted
        return out

    def to_frame(self):
        """Per-grid table as a pandas DataFrame (needs pandas)."""
        return _import_pandas().DataFrame(self.table)

    def plot(self, ax=None, *, alpha: float = 0.05):
        """Curves with pointwise bands; grid points with adjusted p < alpha marked."""
        ax = self.curve.plot(ax)
        flagged = np.flatnonzero(self.grid_pvalue_adjusted < alpha)
        if flagged.size:
            top = np.nanmax(self.curve.estimate[:, flagged], axis=0)
            ax.plot(self.grid[flagged], top, "k*", label=f"adjusted p < {alpha:g}")
            ax.legend(title="group")
        return ax

    def __repr__(self) -> str:
        head = (
            f"PredictiveParityResult(statistic=max {self.statistic_name} = "
            f"{format_value(self.statistic)}, "
            f"{pvalue_field(self.pvalue, self.method, self.n_bootstrap)}, "
            f"method={self.method!r}, adjust={self.adjust!r})\n  {self.curve._header()}"
        )
        table = self.table
        headers = list(table)
        rows = []
        for j in _shown_rows(len(self.grid)):
            if j is None:
                rows.append(["..."] + [""] * (len(headers) - 1))
            else:
                rows.append(
                    [format_value(table["score"][j])]
                    + [
                        format_pvalue(table[c][j]) if c.startswith("pvalue") else table[c][j]
                        for c in headers[1:]
                    ]
                )
        lines = [head, format_table(headers, rows)]
        if self.critical_value is not None:
            if self.small_sample == "none":
                width = format_value(self.critical_value)
            else:
                width = f"{format_value(np.nanmin(self.critical_values))} to " + format_value(
                    np.nanmax(self.critical_values)
                )
            lines.append(
                f"  simultaneous {100 * self.curve.confidence_level:g}% band for the "
                f"difference: ± {width} SE"
            )
        lines += [f"  note: {n}" for n in self.curve.notes]
        return "\n".join(lines)


@renamed_arguments(y="y_true", score="y_score")
def predictive_parity_test(
    y_true,
    y_score,
    group,
    *,
    cluster=None,
    weighting: str = "per_user",
    grid=DEFAULT_GRID_POINTS,
    bandwidth="rule_of_thumb",
    kernel: str = "gaussian",
    adjust: str = "holm",
    n_bootstrap: int = 9999,
    confidence_level: float = 0.95,
    min_effective_clusters: float = MIN_EFFECTIVE_CLUSTERS,
    small_sample: str = "cr2",
    nan_policy: str = "raise",
    data=None,
    return_null: bool = False,
    random_state=None,
    n_jobs: int | None = None,
) -> PredictiveParityResult:
    r"""Test predictive parity, E[Y | S = s, G = g] equal across groups, on a grid of scores.

    At each grid point (paper Sec. 3, Theorem 2), with the estimates and cluster-robust
    variances of :func:`calibration_curve`,

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
    prep = prepare(y_true, y_score, group, cluster, weighting, nan_policy, data, min_groups=2)
    return run_prepared(
        prep,
        grid=grid,
        bandwidth=bandwidth,
        kernel=kernel,
        adjust=adjust,
        n_bootstrap=n_bootstrap,
        confidence_level=confidence_level,
        min_effective_clusters=min_effective_clusters,
        small_sample=small_sample,
        return_null=return_null,
        random_state=random_state,
        n_jobs=n_jobs,
    )


def run_prepared(
    prep,
    *,
    grid=DEFAULT_GRID_POINTS,
    bandwidth="rule_of_thumb",
    kernel: str = "gaussian",
    adjust: str = "holm",
    n_bootstrap: int = 9999,
    confidence_level: float = 0.95,
    min_effective_clusters: float = MIN_EFFECTIVE_CLUSTERS,
    small_sample: str = "cr2",
    return_null: bool = False,
    random_state=None,
    n_jobs: int | None = None,
) -> PredictiveParityResult:
    """:func:`predictive_parity_test` of prepared rows: a ``fastfair._clustered.Prepared``
    or any object with its attributes and its row_sample / kernel_sums / leverage_sums
    passes (``fastfair._sorted_clusters.SortedClusters``: the batched engines)."""
    n_threads = effective_n_threads(n_jobs)
    fit = _fit(
        prep,
        grid,
        bandwidth,
        kernel,
        confidence_level,
        min_effective_clusters,
        n_threads,
        covariance=n_bootstrap > 0,
        small_sample=small_sample,
    )
    curve = fit.curve
    est, se = curve.estimate, curve.standard_error
    var, degenerate = _studentizing_variance(est, se, curve.n_effective)
    K, G = est.shape
    tested = np.isfinite(se).all(axis=0)
    stat = np.full(G, np.nan)
    sq = np.full(G, np.nan)
    if tested.any():
        stat[tested], sq[tested] = _wald(est[:, tested], var[:, tested])
    pvals = np.full(G, np.nan)
    grid_df = np.full(G, np.nan)
    if tested.any():
        pvals[tested], grid_df[tested] = _pointwise(
            stat[tested], sq[tested], var[:, tested], curve.df[:, tested]
        )
    # The simultaneous test refers max_j of the pointwise statistics, each first mapped to
    # the normal (chi-square) scale through its own t (F) reference, to the multiplier
    # bootstrap: with small_sample="none" the mapped statistic is the statistic itself.
    matched = sq.copy()
    if small_sample != "none" and tested.any():
        matched[tested] = _normal_scale(pvals[tested], K)

    null = None
    critical = critical_values = None
    points = np.flatnonzero(tested & (var > 0).all(axis=0))
    observed_max = float(np.max(sq[tested])) if tested.any() else np.nan
    matched_max = float(np.max(matched[tested])) if tested.any() else np.nan
    if n_bootstrap > 0 and points.size:
        null, _ = _multiplier_bootstrap(
            fit,
            est,
            points,
            n_bootstrap,
            stream_key(random_state),
            n_threads,
            floor=(degenerate, var) if degenerate.any() else None,
        )
        boot_p = max_exceedance_pvalues(null, matched_max * (1 - 1e-12))[0]
        if K == 2:
            critical = float(np.sqrt(np.quantile(null, confidence_level)))
            critical_values = np.full(G, np.nan)
            level = special.ndtr(critical)
            critical_values[tested] = _quantile(level, grid_df[tested])
    elif n_bootstrap > 0:
        boot_p = np.nan

    adjusted = np.full(G, np.nan)
    if tested.any():
        if adjust == "bh":
            adjusted[tested] = adjust_pvalues(pvals[tested], "bh")
        elif adjust == "maxT":
            if null is None:
                adjusted[tested] = 1.0
            else:
                thr = matched[tested] * (1 - 1e-12)
                adjusted[tested] = max_exceedance_pvalues(null, thr)
                adjusted[tested] = np.maximum(adjusted[tested], pvals[tested])
        else:
            adjusted[tested] = adjust_pvalues(pvals[tested], adjust)
    if n_bootstrap > 0:
        pvalue, method = float(boot_p), "multiplier_bootstrap"
    else:
        pvalue = float(np.nanmin(adjusted)) if tested.any() else np.nan
        method = adjust
    if not tested.any():
        warnings.warn(
            "no grid point has a standard error in every group: nothing tested",
            SparseGridWarning,
            stacklevel=user_stacklevel(),
        )
    diff = diff_se = None
    if K == 2:
        diff = est[0] - est[1]
        diff_se = np.sqrt(var[0] + var[1])
    statistic = float(np.sqrt(observed_max)) if K == 2 and tested.any() else float(observed_max)
    return PredictiveParityResult(
        statistic=statistic,
        pvalue=pvalue,
        method=method,
        curve=curve,
        grid=curve.grid,
        groups=curve.groups,
        difference=diff,
        difference_standard_error=diff_se,
        grid_statistic=stat,
        grid_pvalue=pvals,
        grid_pvalue_adjusted=adjusted,
        adjust=adjust,
        critical_value=critical,
        n_bootstrap=n_bootstrap,
        tested=tested,
        grid_df=grid_df,
        critical_values=critical_values,
        small_sample=small_sample,
        statistic_name="z" if K == 2 else f"chi2({K - 1})",
        null_distribution=null if return_null else None,
    )


@renamed_attributes(std_error="standard_error", difference_se="difference_standard_error")
@dataclass(repr=False)
class MarginalOutcomeResult:
    """Result of :func:`marginal_outcome_test`.

    Attributes
    ----------
    threshold : float
    groups : ndarray
    estimate, standard_error, n_effective : ndarray
        Per group: marginal outcome E[Y | S = t, G = g] estimated from rows with S >= t,
        its cluster-robust standard error and effective number of clusters.
    statistic, pvalue : float
        z (two groups, first minus second) or Wald chi-square with K-1 df; two-sided.
    difference, difference_standard_error : float or None
        Two groups: first group minus second.
    confidence_interval : tuple or None
        Two groups: interval for the difference at `confidence_level`.
    bandwidth, bandwidth_method, kernel, weighting : settings used
    n_observations, n_clusters : ndarray
        Rows at or above the threshold and their clusters, per group.
    df : float
        Degrees of freedom of the t (two groups) or F reference; inf with
        ``small_sample="none"``.
    max_share : ndarray
        Per group: the largest user's share of the kernel weight at the threshold.
    small_sample : str
    """

    threshold: float
    groups: np.ndarray
    estimate: np.ndarray
    standard_error: np.ndarray
    n_effective: np.ndarray
    statistic: float
    pvalue: float
    difference: float | None
    difference_standard_error: float | None
    confidence_interval: tuple | None
    confidence_level: float
    bandwidth: float
    bandwidth_method: str
    kernel: str
    weighting: str
    n_observations: np.ndarray
    n_clusters: np.ndarray
    statistic_name: str = "z"
    notes: list = field(default_factory=list)
    df: float = float("inf")
    max_share: np.ndarray | None = None
    small_sample: str = "cr2"

    def __repr__(self) -> str:
        head = (
            f"MarginalOutcomeResult(threshold={format_value(self.threshold)}, "
            f"{self.statistic_name}={format_value(self.statistic)}, "
            f"{pvalue_field(self.pvalue)}, "
            + (f"df={format_value(self.df)}, " if np.isfinite(self.df) else "")
            + f"weighting={self.weighting!r}, "
            f"bandwidth={format_value(self.bandwidth)} ({self.bandwidth_method}))"
        )
        rows = [
            (
                str(g),
                self.estimate[k],
                self.standard_error[k],
                self.n_effective[k],
                int(self.n_observations[k]),
                int(self.n_clusters[k]),
            )
            for k, g in enumerate(self.groups)
        ]
        lines = [
            head,
            format_table(
                ["group", "marginal outcome", "SE", "eff. clusters", "rows", "clusters"], rows
            ),
        ]
        if self.difference is not None:
            lo, hi = self.confidence_interval
            lines.append(
                f"  difference {format_value(self.difference)}, "
                f"{100 * self.confidence_level:g}% CI [{format_value(lo)}, {format_value(hi)}]"
            )
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


@renamed_arguments(y="y_true", score="y_score")
def marginal_outcome_test(
    y_true,
    y_score,
    group,
    threshold: float,
    *,
    cluster=None,
    weighting: str = "per_user",
    bandwidth="rule_of_thumb",
    kernel: str = "gaussian",
    confidence_level: float = 0.95,
    min_effective_clusters: float = MIN_EFFECTIVE_CLUSTERS,
    small_sample: str = "cr2",
    nan_policy: str = "raise",
    data=None,
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
    c = fit.curve
    est, se = c.estimate[:, 0], c.standard_error[:, 0]
    var = _studentizing_variance(est, se, c.n_effective[:, 0])[0]
    K = len(prep.labels)
    diff = diff_se = ci = None
    df = float("nan")
    if np.isfinite(se).all():
        stat, sq = _wald(est[:, None], var[:, None])
        p, dfw = _pointwise(stat, sq, var[:, None], c.df)
        stat, pvalue, df = float(stat[0]), float(p[0]), float(dfw[0])
    else:
        stat = pvalue = float("nan")
    if K == 2:
        diff = float(est[0] - est[1])
        diff_se = float(np.sqrt(var[0] + var[1]))
        zq = float(_quantile(0.5 + confidence_level / 2.0, np.inf if np.isnan(df) else df))
        ci = (diff - zq * diff_se, diff + zq * diff_se)
    return MarginalOutcomeResult(
        threshold=float(threshold),
        groups=prep.labels,
        estimate=est,
        standard_error=se,
        n_effective=c.n_effective[:, 0],
        statistic=stat,
        pvalue=pvalue,
        difference=diff,
        difference_standard_error=diff_se,
        confidence_interval=ci,
        confidence_level=float(confidence_level),
        bandwidth=c.bandwidth,
        bandwidth_method=c.bandwidth_method,
        kernel=kernel,
        weighting=weighting,
        n_observations=prep.n_rows,
        n_clusters=prep.n_clusters,
        statistic_name="z" if K == 2 else f"chi2({K - 1})",
        notes=c.notes,
        df=df,
        max_share=c.max_share[:, 0],
        small_sample=small_sample,
    )
