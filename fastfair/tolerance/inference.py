"""Inference: the tolerance and equivalence tests on the statistic, intervals and result
packing."""

from __future__ import annotations

import numpy as np

from fastfair._pvalues import adjust_pvalues
from fastfair._scipy import special
from fastfair.tolerance.ingest import _check_common, _check_margin
from fastfair.tolerance.results import EquivalenceTestResult, ToleranceTestResult
from fastfair.tolerance.statistics import _Gap, _gap_from_counts


def _tolerance_pvalues(gap: _Gap, u_tol, alternative):
    """(statistic, p-value) per comparison of the tolerance test."""
    z_up = np.atleast_1d(gap.z(u_tol))  # H0: U <= u_tol
    z_low = np.atleast_1d(gap.z(-u_tol))  # H0: U >= -u_tol
    if alternative == "greater":
        return z_up, gap.pvalue(u_tol, "greater")
    if alternative == "less":
        return z_low, gap.pvalue(-u_tol, "less")
    p_up, p_low = gap.pvalue(u_tol, "greater"), gap.pvalue(-u_tol, "less")
    stat = np.where(p_up <= p_low, z_up, z_low)
    return stat, np.minimum(1.0, 2.0 * np.minimum(p_up, p_low))


def _equivalence_pvalues(gap: _Gap, delta):
    """((Z at -delta, Z at +delta), TOST p-value) per comparison."""
    z_low = np.atleast_1d(gap.z(-delta))  # H0: U <= -delta, rejected when large
    z_up = np.atleast_1d(gap.z(delta))  # H0: U >= delta, rejected when small
    p = np.maximum(gap.pvalue(-delta, "greater"), gap.pvalue(delta, "less"))
    return (z_low, z_up), p


def margin_pvalue_from_counts(counts, metric: str, *, u_tol=None, delta=None) -> float:
    """p-value of the two-sided tolerance test (`u_tol`) or of TOST (`delta`) of group 0
    against the reference group 1 of two rows of counts, without the interval (the audit's
    per-comparison p-values; method "auto")."""
    gap = _gap_from_counts(counts, [0, 1], metric, "auto", 1, "reference")
    if delta is None:
        return float(_tolerance_pvalues(gap, u_tol, "two-sided")[1][0])
    return float(_equivalence_pvalues(gap, delta)[1][0])


def _tolerance(gap: _Gap, u_tol, alternative, adjust, confidence_level) -> ToleranceTestResult:
    """Check the options, test and pack the result (rows and counts alike)."""
    confidence_level = _check_common(alternative, adjust, confidence_level, "confidence_level")
    u_tol = _check_margin(u_tol, "u_tol", False, gap)
    stat, p = _tolerance_pvalues(gap, u_tol, alternative)
    zc = special.ndtri(0.5 + confidence_level / 2)
    lo, hi = gap.bound(zc, "lower"), gap.bound(zc, "upper")
    single = len(gap.comparisons) == 1
    adjusted = None if single else adjust_pvalues(p, adjust)
    return ToleranceTestResult(
        statistic=float(stat[0]) if single else stat,
        pvalue=float(p[0]) if single else p,
        difference=float(gap.difference[0]) if single else gap.difference,
        confidence_interval=(float(lo[0]), float(hi[0])) if single else (lo, hi),
        u_tol=float(u_tol),
        alternative=alternative,
        metric=gap.metric,
        method=gap.method,
        groups=gap.groups,
        group_values=gap.group_values,
        group_denominators=gap.group_denominators,
        comparisons=gap.comparisons,
        confidence_level=float(confidence_level),
        pvalue_adjusted=adjusted,
        adjust=None if single else adjust,
        weighted=gap.weighted,
    )


def _equivalence(gap: _Gap, delta, alpha, adjust) -> EquivalenceTestResult:
    """Check the options, test and pack the result (rows and counts alike)."""
    alpha = _check_common(None, adjust, alpha, "alpha")
    if alpha >= 0.5:
        raise ValueError(f"alpha must be below 0.5 for a 1 - 2 alpha interval, got {alpha!r}")
    delta = _check_margin(delta, "delta", True, gap)
    (z_low, z_up), p = _equivalence_pvalues(gap, delta)
    zc = special.ndtri(1 - alpha)
    lo, hi = gap.bound(zc, "lower"), gap.bound(zc, "upper")
    single = len(gap.comparisons) == 1
    adjusted = None if single else adjust_pvalues(p, adjust)
    equivalent = (p if single else adjusted) <= alpha
    return EquivalenceTestResult(
        equivalent=bool(equivalent[0]) if single else equivalent,
        pvalue=float(p[0]) if single else p,
        statistic=(float(z_low[0]), float(z_up[0])) if single else (z_low, z_up),
        difference=float(gap.difference[0]) if single else gap.difference,
        equivalence_interval=(float(lo[0]), float(hi[0])) if single else (lo, hi),
        delta=float(delta),
        alpha=float(alpha),
        metric=gap.metric,
        method=gap.method,
        groups=gap.groups,
        group_values=gap.group_values,
        group_denominators=gap.group_denominators,
        comparisons=gap.comparisons,
        pvalue_adjusted=adjusted,
        adjust=None if single else adjust,
        weighted=gap.weighted,
    )
