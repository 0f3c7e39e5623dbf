"""Inference: the test on the statistics (p-values, intervals), then packing (predictive parity
under dependent data)."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from fastfair import _kernel_sums
from fastfair._deprecation import user_stacklevel
from fastfair._parallel import effective_n_threads
from fastfair._pvalues import adjust_pvalues, asymptotic_pvalue, max_exceedance_pvalues
from fastfair._random import stream_key
from fastfair._scipy import special
from fastfair._sequential import Sampler, keep_samplers
from fastfair.parity.ingest import _ZERO_VARIANCE, DEFAULT_GRID_POINTS, MIN_EFFECTIVE_CLUSTERS
from fastfair.parity.results import (
    MarginalOutcomeResult,
    PredictiveParityResult,
    SparseGridWarning,
)
from fastfair.parity.statistics import _fit, _group_covariance, _quantile

if TYPE_CHECKING:
    from numpy.typing import ArrayLike


def _two_sided(stat, df):
    """Two-sided p-value of t with df (inf: normal, exactly as asymptotic_pvalue)."""
    stat = np.asarray(stat, dtype=np.float64)
    df = np.asarray(df, dtype=np.float64)
    normal = asymptotic_pvalue(stat)
    finite = np.isfinite(df) & (df > 0)
    if not finite.any():
        return normal
    # special.stdtr(df, -|t|) is scipy.stats.t.sf(|t|, df), without importing scipy.stats
    return np.where(finite, 2.0 * special.stdtr(np.where(finite, df, 1.0), -np.abs(stat)), normal)


def _studentizing_variance(est, se, n_eff, scale=1.0):
    """Variances that studentize the tests: se**2, except where a group's outcomes are
    constant near the point (zero variance up to rounding: var * n_eff <= 1e-12 scale**2,
    `scale` the largest |outcome|, 1 for binary outcomes). There the estimate is shrunk by
    half a pseudo-observation in units of `scale`, f~ = (f n_eff / scale + 1/2) /
    (n_eff + 1), and the variance is scale**2 f~ (1 - f~) / n_eff, as in
    :func:`fastfair.permutation_test`. A perfectly calibrated score then gives z ~ 0, not
    z = inf from a rounding difference (1.0 vs 0.99999999), and all-positive against
    all-negative outcomes a large finite z; outcomes in other units (1e-6, 1e6) give the
    same z. Returns (variance, degenerate mask).
    """
    var = se * se
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        zero = _ZERO_VARIANCE * scale * scale
        degenerate = np.isfinite(var) & (var * n_eff <= zero) & (n_eff > 0)
        shrunk = (est / scale * n_eff + 0.5) / (n_eff + 1.0)
        floor = scale * scale * (shrunk * (1.0 - shrunk) / n_eff)
    return np.where(degenerate, floor, var), degenerate


def outcome_scale(prep) -> float:
    """The largest |outcome| of prepared rows (1 when unknown or all zero): the unit in
    which the studentizing variance tells a constant outcome from a varying one."""
    y = getattr(prep, "y", None)
    top = float(np.max(np.abs(y))) if y is not None and len(y) else 0.0
    return top if 0.0 < top < np.inf else 1.0


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
    p = special.chdtrc(K - 1, sq)  # = scipy.stats.chi2.sf(sq, K - 1), as below
    if finite.any():
        p = np.where(finite, special.fdtrc(K - 1, np.where(finite, dfw, 1.0), sq / (K - 1)), p)
    return p, dfw


def _normal_scale(pvalues, K):
    """The statistic with the same p-value under the normal (K = 2: z^2) or chi2(K-1)."""
    if K == 2:
        return special.ndtri(0.5 * pvalues) ** 2
    return special.chdtri(K - 1, pvalues)


def _multiplier_bootstrap(fit, est, points, n_threads, floor=None, center=None):
    """Draws of max_j W_j under the null: Gaussian multipliers over clusters, in closed form.

    With xi_m ~ N(0, 1) independent over clusters, the multiplier-bootstrap estimate error
    D_g(s_j) = sum_m xi_m u_m(s_j) / sum_m v_m(s_j) is, given the data, exactly
    N(0, C_g) with C_g[j, k] = sum_m u_mj u_mk / (V_j V_k): drawing from it with a square
    root of C_g is the same bootstrap at O(grid^2) instead of O(clusters x grid) per draw.
    The root is the symmetric one (`_symmetric_root`), so that engines whose sums differ
    by rounding draw the same values. `center` (K, G): the scores' centre (the pooled
    curve of variance="null"), else each group's own estimate. Returns
    draw(start, count), the maxima of draws start .. start + count - 1 (draw b from the
    stream (key, 0, b): any block sizes and n_jobs give the same draws).
    """
    K = est.shape[0]
    P = points.size
    roots = np.empty((K, P, P))
    variance = np.empty((K, P))
    for g in range(K):
        cov = _group_covariance(fit, est, g, points, center=center)
        roots[g] = _symmetric_root(cov)
        variance[g] = np.diag(cov)
    if floor is not None:  # studentize degenerate points as the observed statistic does
        degenerate, var = floor
        variance = np.where(degenerate[:, points], var[:, points], variance)
    roots = np.ascontiguousarray(roots)

    def draw(key, start, count):
        return _kernel_sums.max_wald_draws(roots, variance, count, key, 0, n_threads, start)

    return draw


def _null_variance(fit) -> tuple[np.ndarray, np.ndarray]:
    """Each group's variance under the null of one common curve: (variance, pooled curve).

    The scores are centred at the pooled estimate f0 = sum_g A_g / sum_g B_g (every group's
    users, the same weights), not at the group's own estimate: V_g = sum_m (a_m - f0 b_m)^2
    / B_g^2, floored at the pooled residual variance per unit of sum b^2,
    sigma^2 sum_{m in g} b_m^2 / B_g^2 with sigma^2 = sum_all (a_m - f0 b_m)^2 / sum_all b_m^2
    (the two-proportion score test's pooled variance), all from the first pass's sums.
    A group's own residuals shrink with its estimate where outcomes are rare and users few
    (few positives near a point: a low estimate and a small variance at once), which made
    the maximum over the grid reject a true null up to 27% of the time at 5% (issue 33);
    centred at f0 they still give f0^2 / n_eff instead of f0 (1 - f0) / n_eff to a group
    with no positive near the point (z = -9 on the demo data where 1.6 positives were
    expected), which the pooled floor prevents.
    """
    sums = fit.sums
    sa, sb, sbb = sums["sum_a"], sums["sum_b"], sums["sum_bb"]
    total = sb.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        f0 = np.where(total > 0, sa.sum(axis=0) / total, 0.0)
        num = np.maximum(sums["sum_aa"] - 2.0 * f0 * sums["sum_ab"] + f0 * f0 * sbb, 0.0)
        sigma2 = num.sum(axis=0) / sbb.sum(axis=0)
        var = np.where(sb > 0, np.maximum(num, sigma2 * sbb) / (sb * sb), np.nan)
    ok = np.isfinite(fit.curve.standard_error)
    return np.where(ok, var, np.nan), np.broadcast_to(f0, sb.shape)


def _symmetric_root(cov):
    """The symmetric square root R = V diag(sqrt(lambda+)) V^T of cov = V diag(lambda) V^T.

    Any R with R R^T = cov draws the same N(0, cov), but the draws of a given random stream
    differ between roots. The symmetric one is unique and continuous in cov, so covariances
    that differ only by rounding (sums taken in another order: engines, partitions) give the
    same draws up to rounding. V diag(sqrt(lambda)) does not: LAPACK picks each
    eigenvector's sign (and the basis of a repeated eigenvalue) by a rule that a 1e-16
    change of cov can flip, and one flipped column changes every draw. lambda+ is lambda
    where it exceeds the eigensolver's rounding, P eps max(lambda) (numpy.linalg.matrix_rank's
    tolerance), else 0: below it an eigenvalue is rounding, not data, and its square root
    (1e-8 of the largest) would only carry that rounding into the draws.
    """
    vals, vecs = np.linalg.eigh(cov)
    tol = cov.shape[0] * np.finfo(np.float64).eps * max(vals[-1], 0.0)
    root = (vecs * np.sqrt(np.where(vals > tol, vals, 0.0))[None, :]) @ vecs.T
    return 0.5 * (root + root.T)


# --------------------------------------------------------------------------------------
# The predictive parity test of prepared rows


def prepared_parity_test(
    prep,
    *,
    grid: int | ArrayLike = DEFAULT_GRID_POINTS,
    bandwidth: float | str = "rule_of_thumb",
    kernel: str = "gaussian",
    adjust: str = "holm",
    n_bootstrap: int = 9999,
    confidence_level: float = 0.95,
    min_effective_clusters: float = MIN_EFFECTIVE_CLUSTERS,
    small_sample: str = "cr2",
    variance: str = "null",
    return_null: bool = False,
    random_state=None,
    n_jobs: int | None = None,
) -> PredictiveParityResult:
    """:func:`fastfair.predictive_parity_test` of prepared rows (options already checked).

    `prep` is a ``fastfair._clustered.Prepared`` or any object with its attributes and its
    row_sample / kernel_sums / leverage_sums passes (``fastfair.engines.clusters.
    SortedClusters``: the batched engines of the audit). The result keeps a sampler of its
    bootstrap p-value that :func:`fastfair.multiple_monte_carlo` continues (the audit's
    sequential decision).
    """
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
        variance=variance,
    )
    curve = fit.curve
    scale = outcome_scale(prep)
    own, _ = _studentizing_variance(curve.estimate, curve.standard_error, curve.n_effective, scale)
    band = _grid_tests(curve, own, curve.df, small_sample)  # the separate variances' df
    center = None
    if variance == "null":
        null_var, center = _null_variance(fit)
        var, degenerate = _studentizing_variance(
            curve.estimate, np.sqrt(null_var), curve.n_effective, scale
        )
        degenerate = np.ones_like(degenerate)  # the bootstrap studentizes by `var` everywhere
        tests = _grid_tests(curve, var, np.full(var.shape, np.inf), "none")
    else:
        var, degenerate = _studentizing_variance(
            curve.estimate, curve.standard_error, curve.n_effective, scale
        )
        tests = band
    null = boot_p = critical = critical_values = sampler = None
    if n_bootstrap > 0:
        boot = _simultaneous(
            fit, tests, var, degenerate, n_bootstrap, confidence_level, random_state, n_threads,
            center=center, band_df=band.df,
        )  # fmt: skip
        null, boot_p, critical, critical_values, sampler = boot
    adjusted = _adjusted(tests, adjust, null)
    if n_bootstrap > 0:
        pvalue, method = float(boot_p), "multiplier_bootstrap"
    else:
        pvalue = float(np.nanmin(adjusted)) if tests.tested.any() else np.nan
        method = adjust
    if not tests.tested.any():
        warnings.warn(
            "no grid point has a standard error in every group: nothing tested",
            SparseGridWarning,
            stacklevel=user_stacklevel(),
        )
    K = curve.estimate.shape[0]
    diff = diff_se = None
    if K == 2:
        diff = curve.estimate[0] - curve.estimate[1]
        diff_se = np.sqrt(own[0] + own[1])
    observed_max = float(np.max(tests.sq[tests.tested])) if tests.tested.any() else np.nan
    statistic = np.sqrt(observed_max) if K == 2 and tests.tested.any() else observed_max
    result = PredictiveParityResult(
        statistic=float(statistic),
        pvalue=pvalue,
        method=method,
        curve=curve,
        grid=curve.grid,
        groups=curve.groups,
        difference=diff,
        difference_standard_error=diff_se,
        grid_statistic=tests.statistic,
        grid_pvalue=tests.pvalue,
        grid_pvalue_adjusted=adjusted,
        adjust=adjust,
        critical_value=critical,
        n_bootstrap=n_bootstrap,
        tested=tests.tested,
        grid_df=tests.df,
        critical_values=critical_values,
        small_sample=small_sample,
        statistic_name="z" if K == 2 else f"chi2({K - 1})",
        null_distribution=null if return_null else None,
        variance=variance,
    )
    return keep_samplers(result, None if sampler is None else [sampler])


@dataclass(frozen=True)
class _GridTests:
    """The pointwise tests over the grid (NaN where not every group has a standard error)."""

    tested: np.ndarray  # points where every group has a standard error
    statistic: np.ndarray  # z (two groups) or Wald chi-square
    sq: np.ndarray  # its square (z^2), or the chi-square itself
    pvalue: np.ndarray  # pointwise p-values
    df: np.ndarray  # reference degrees of freedom
    matched: np.ndarray  # the statistic mapped to the normal (chi-square) scale


def _grid_tests(curve, var, df, small_sample) -> _GridTests:
    """Pointwise statistics and p-values at the points where every group has an SE.

    The simultaneous test refers max_j of the pointwise statistics, each first mapped to the
    normal (chi-square) scale through its own t (F) reference, to the multiplier bootstrap:
    with small_sample="none" (or the null variance's normal reference) the mapped statistic
    is the statistic itself.
    """
    est = curve.estimate
    K, G = est.shape
    tested = np.isfinite(curve.standard_error).all(axis=0) & np.isfinite(var).all(axis=0)
    stat, sq, pvals, grid_df = (np.full(G, np.nan) for _ in range(4))
    if tested.any():
        stat[tested], sq[tested] = _wald(est[:, tested], var[:, tested])
        pvals[tested], grid_df[tested] = _pointwise(
            stat[tested], sq[tested], var[:, tested], df[:, tested]
        )
    matched = sq.copy()
    if small_sample != "none" and tested.any():
        matched[tested] = _normal_scale(pvals[tested], K)
    return _GridTests(tested, stat, sq, pvals, grid_df, matched)


def _simultaneous(
    fit, tests, var, degenerate, n_bootstrap, confidence_level, random_state, n_threads,
    center=None, band_df=None,
):  # fmt: skip
    """The multiplier-bootstrap test of max_j W_j: (null draws, p-value, critical value of
    the simultaneous band's z, and per point on the t scale (df `band_df`), a Sampler that
    continues the draws), all None / NaN where no point can be tested (critical values only
    for two groups)."""
    est = fit.curve.estimate
    K, G = est.shape
    tested = tests.tested
    points = np.flatnonzero(tested & (var > 0).all(axis=0))
    if not points.size:
        return None, np.nan, None, None, None
    draw = _multiplier_bootstrap(
        fit,
        est,
        points,
        n_threads,
        floor=(degenerate, var) if degenerate.any() else None,
        center=center,
    )
    key = stream_key(random_state)
    null = draw(key, 0, n_bootstrap)
    threshold = float(np.max(tests.matched[tested])) * (1 - 1e-12)
    boot_p = max_exceedance_pvalues(null, threshold)[0]
    sampler = Sampler(lambda start, count: draw(key, start, count), threshold, "greater", False)
    critical = critical_values = None
    if K == 2:
        critical = float(np.sqrt(np.quantile(null, confidence_level)))
        critical_values = np.full(G, np.nan)
        level = special.ndtr(critical)
        df = tests.df if band_df is None else band_df
        critical_values[tested] = _quantile(level, df[tested])
    return null, boot_p, critical, critical_values, sampler


def _adjusted(tests, adjust, null) -> np.ndarray:
    """The pointwise p-values adjusted over the tested points (maxT: from the bootstrap's
    null draws, never below the pointwise p-value)."""
    tested = tests.tested
    adjusted = np.full(tested.size, np.nan)
    if not tested.any():
        return adjusted
    if adjust == "maxT":
        if null is None:
            adjusted[tested] = 1.0
        else:
            thr = tests.matched[tested] * (1 - 1e-12)
            adjusted[tested] = max_exceedance_pvalues(null, thr)
            adjusted[tested] = np.maximum(adjusted[tested], tests.pvalue[tested])
    else:
        adjusted[tested] = adjust_pvalues(tests.pvalue[tested], adjust)
    return adjusted


def _marginal_result(
    prep, fit, threshold: float, confidence_level: float, small_sample: str
) -> MarginalOutcomeResult:
    """:func:`fastfair.marginal_outcome_test` from the one-point fit at the threshold: z
    (two groups) or Wald chi-square, its p-value and the difference's interval."""
    c = fit.curve
    est, se = c.estimate[:, 0], c.standard_error[:, 0]
    var = _studentizing_variance(est, se, c.n_effective[:, 0], outcome_scale(prep))[0]
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
        threshold=threshold,
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
        kernel=c.kernel,
        weighting=c.weighting,
        n_observations=prep.n_rows,
        n_clusters=prep.n_clusters,
        statistic_name="z" if K == 2 else f"chi2({K - 1})",
        notes=c.notes,
        df=df,
        max_share=c.max_share[:, 0],
        small_sample=small_sample,
    )
