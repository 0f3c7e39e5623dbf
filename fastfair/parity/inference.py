"""Inference: the test on the statistics (p-values, intervals), then packing (predictive parity
under dependent data)."""

from __future__ import annotations

import numpy as np

from fastfair import _kernel_sums
from fastfair._pvalues import asymptotic_pvalue
from fastfair._scipy import special, stats
from fastfair.parity.ingest import _ZERO_VARIANCE
from fastfair.parity.statistics import _group_covariance


def _two_sided(stat, df):
    """Two-sided p-value of t with df (inf: normal, exactly as asymptotic_pvalue)."""
    stat = np.asarray(stat, dtype=np.float64)
    df = np.asarray(df, dtype=np.float64)
    normal = asymptotic_pvalue(stat)
    finite = np.isfinite(df) & (df > 0)
    if not finite.any():
        return normal
    return np.where(finite, 2.0 * stats.t.sf(np.abs(stat), np.where(finite, df, 1.0)), normal)


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
    p = stats.chi2.sf(sq, K - 1)
    if finite.any():
        p = np.where(finite, stats.f.sf(sq / (K - 1), K - 1, np.where(finite, dfw, 1.0)), p)
    return p, dfw


def _normal_scale(pvalues, K):
    """The statistic with the same p-value under the normal (K = 2: z^2) or chi2(K-1)."""
    if K == 2:
        return special.ndtri(0.5 * pvalues) ** 2
    return stats.chi2.isf(pvalues, K - 1)


def _multiplier_bootstrap(fit, est, points, n_bootstrap, key, n_threads, floor=None):
    """Null draws of max_j W_j: Gaussian multipliers over clusters, in closed form.

    With xi_m ~ N(0, 1) independent over clusters, the multiplier-bootstrap estimate error
    D_g(s_j) = sum_m xi_m u_m(s_j) / sum_m v_m(s_j) is, given the data, exactly
    N(0, C_g) with C_g[j, k] = sum_m u_mj u_mk / (V_j V_k): drawing from it with a square
    root of C_g is the same bootstrap at O(grid^2) instead of O(clusters x grid) per draw.
    The root is the symmetric one (`_symmetric_root`), so that engines whose sums differ
    by rounding draw the same values.
    """
    K = est.shape[0]
    P = points.size
    roots = np.empty((K, P, P))
    variance = np.empty((K, P))
    for g in range(K):
        cov = _group_covariance(fit, est, g, points)
        roots[g] = _symmetric_root(cov)
        variance[g] = np.diag(cov)
    if floor is not None:  # studentize degenerate points as the observed statistic does
        degenerate, var = floor
        variance = np.where(degenerate[:, points], var[:, points], variance)
    return _kernel_sums.max_wald_draws(
        np.ascontiguousarray(roots), variance, n_bootstrap, key, 0, n_threads
    ), variance


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
