"""Sufficient statistics: what the test reads from the data (predictive parity under dependent
data)."""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass

import numpy as np

from fastfair import _kernel_sums
from fastfair._clustered import KERNELS, ROWS_PER_THREAD, choose_bandwidth, label_text, make_grid
from fastfair._deprecation import user_stacklevel
from fastfair._format import format_value
from fastfair._parallel import threads_for
from fastfair._scipy import special
from fastfair._validation import check_choice, show_value
from fastfair.parity.ingest import _check_small_sample
from fastfair.parity.results import CalibrationCurve, SparseGridWarning

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


@dataclass
class _Fit:
    curve: CalibrationCurve
    sums: dict
    cov: np.ndarray | None  # pass-2 sums of ut_mj ut_mk (CR2), or None: use sums' cov_*


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
    # scipy.special's stdtrit is what scipy.stats.t.ppf computes (but at prob = 0, where
    # stdtrit gives +inf), without importing scipy.stats (0.5 s of CPU)
    with np.errstate(invalid="ignore"):
        t = special.stdtrit(np.where(finite, df, 1.0), prob)
    return np.where(finite, np.where(prob == 0, -np.inf, t), normal)


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
    variance=None,
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
    # The CR2 pass's cross-grid sums serve only the bootstrap of the separate variances:
    # under variance="null" it draws scores centred at the pooled curve, from the first pass.
    cr2_covariance = covariance and variance != "null"
    var, df, share, cov = _variance(
        prep, sums, f, grid_arr, h, kernel, small_sample, cr2_covariance, n_threads
    )
    ok = (sb > 0) & (n_eff >= min_effective_clusters)
    se = np.where(ok, np.sqrt(var), np.nan)
    df = np.where(ok, df, np.nan)
    zq = _quantile(0.5 + confidence_level / 2.0, df)
    notes = _sparse_notes(prep, grid_arr, sb, n_eff, min_effective_clusters, h, kernel)
    notes += _share_notes(prep, grid_arr, share, df, ok, small_sample, variance)
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
                f"group {label_text(g)} has no observations within the kernel's reach ({reach:g} "
                f"bandwidths = {format_value(reach * h)}) of {empty.size} grid point(s) "
                f"{_points(grid[empty])}: estimate NaN"
            )
        if thin.size:
            notes.append(
                f"group {label_text(g)} has fewer than {min_eff:g} effective clusters at "
                f"{thin.size} grid point(s) {_points(grid[thin])}: standard error NaN"
            )
    return notes


def _share_notes(prep, grid, share, df, tested, small_sample, variance=None) -> list[str]:
    """Tested points where the clustered inference is unreliable (see SHARE_WARNING and
    DF_WARNING). variance="null" (predictive_parity_test's default): the df is only the
    intervals'; the tests use the variance under the null and a normal reference."""
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
            if variance == "null":
                why = why.replace("the t reference", "the t reference of the intervals") + (
                    " (the tests use the variance under the null and a normal reference)"
                )
        if bad.size:
            where = f"at {bad.size} grid point(s) {_points(grid[bad])}"
            notes.append(f"group {label_text(g)}: {where} {why}")
    return notes


def _points(values) -> str:
    shown = ", ".join(format_value(v) for v in values[:4])
    return f"(s = {shown}{', ...' if values.size > 4 else ''})"


def _group_covariance(fit, est, g, points, center=None):
    """Cluster-robust covariance of group g's estimates at `points` (cross-grid sandwich).

    CR2 (second pass): sum_m ut_mj ut_mk / (B_j B_k); CR0: from the one-pass cross-grid sums.
    `center` (K, G): scores centred there (the pooled curve: the null variance, always from
    the one-pass sums) instead of at the group's estimate.
    """
    sums = fit.sums
    b = sums["sum_b"][g, points]
    ix = np.ix_(points, points)
    if fit.cov is not None and center is None:
        cov = fit.cov[g][ix] / np.outer(b, b)
        return 0.5 * (cov + cov.T)
    f = (est if center is None else center)[g, points]
    aa, ab, bb = sums["cov_aa"][g][ix], sums["cov_ab"][g][ix], sums["cov_bb"][g][ix]
    cov = aa - ab * f[None, :] - ab.T * f[:, None] + np.outer(f, f) * bb
    cov = cov / np.outer(b, b)
    return 0.5 * (cov + cov.T)
