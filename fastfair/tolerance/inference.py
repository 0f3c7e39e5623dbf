"""Inference: the tolerance and equivalence tests on the statistic, intervals and result
packing."""

from __future__ import annotations

import numpy as np

from fastfair._pvalues import adjust_pvalues
from fastfair._scipy import special
from fastfair.tolerance.ingest import AUC_DEFAULT, _check_common, _check_margin
from fastfair.tolerance.results import EquivalenceTestResult, ToleranceTestResult
from fastfair.tolerance.statistics import _Gap, _gap_from_counts, auc_parts


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
    return _margin_pvalue(gap, u_tol, delta)


def auc_margin_pvalue(auc, variance, n_pos, n_neg, *, u_tol=None, delta=None) -> float:
    """p-value of the two-sided tolerance test (`u_tol`) or of TOST (`delta`) of the AUC of
    group 0 against the reference group 1, from each group's AUC, DeLong variance and class
    counts (as in an AUCTestResult): the method tolerance_test uses by default for
    metric="auc" (AUC_DEFAULT), for the audit."""
    parts, df, classes = auc_parts(auc, variance, n_pos, n_neg, [0], [1], AUC_DEFAULT)
    gap = _Gap(
        difference=np.atleast_1d(float(auc[0] - auc[1])),
        groups=np.array([0, 1]),
        group_values=np.asarray(auc, dtype=np.float64),
        group_denominators=np.asarray(n_pos) + np.asarray(n_neg),
        comparisons=[(0, 1)],
        metric="auc",
        method=AUC_DEFAULT,
        weighted=False,
        auc_parts=parts,
        auc_df=df,
        auc_classes=classes,
    )
    return _margin_pvalue(gap, u_tol, delta)


def _margin_pvalue(gap: _Gap, u_tol, delta) -> float:
    if delta is None:
        return float(_tolerance_pvalues(gap, u_tol, "two-sided")[1][0])
    return float(_equivalence_pvalues(gap, delta)[1][0])


def _tolerance(gap: _Gap, u_tol, alternative, adjust, confidence_level) -> ToleranceTestResult:
    """Check the options, test and pack the result (rows and counts alike)."""
    confidence_level = _check_common(alternative, adjust, confidence_level, "confidence_level")
    u_tol = _check_margin(u_tol, "u_tol", False, gap)
    stat, p = _tolerance_pvalues(gap, u_tol, alternative)
    fields, interval, one = _shared_fields(gap, p, adjust, 0.5 + confidence_level / 2)
    return ToleranceTestResult(
        statistic=one(stat),
        confidence_interval=interval,
        u_tol=float(u_tol),
        alternative=alternative,
        confidence_level=float(confidence_level),
        **fields,
    )


def _equivalence(gap: _Gap, delta, alpha, adjust) -> EquivalenceTestResult:
    """Check the options, test and pack the result (rows and counts alike)."""
    alpha = _check_common(None, adjust, alpha, "alpha")
    if alpha >= 0.5:
        raise ValueError(f"alpha must be below 0.5 for a 1 - 2 alpha interval, got {alpha!r}")
    delta = _check_margin(delta, "delta", True, gap)
    (z_low, z_up), p = _equivalence_pvalues(gap, delta)
    fields, interval, one = _shared_fields(gap, p, adjust, 1 - alpha)
    adjusted = fields["pvalue_adjusted"]
    equivalent = (p if adjusted is None else adjusted) <= alpha
    return EquivalenceTestResult(
        equivalent=bool(equivalent[0]) if adjusted is None else equivalent,
        statistic=(one(z_low), one(z_up)),
        equivalence_interval=interval,
        delta=float(delta),
        alpha=float(alpha),
        **fields,
    )


def _shared_fields(gap: _Gap, p, adjust, level: float):
    """(fields both results share, the interval at the normal quantile of `level`, `one`).

    `one` turns a per-comparison array into a float when there is a single comparison
    (results then hold floats); the adjusted p-values exist only with several comparisons.
    """
    single = len(gap.comparisons) == 1

    def one(values):
        return float(values[0]) if single else values

    z = special.ndtri(level)
    interval = (one(gap.bound(z, "lower")), one(gap.bound(z, "upper")))
    fields = dict(
        pvalue=one(p),
        difference=one(gap.difference),
        metric=gap.metric,
        method=gap.method,
        groups=gap.groups,
        group_values=gap.group_values,
        group_denominators=gap.group_denominators,
        comparisons=gap.comparisons,
        pvalue_adjusted=None if single else adjust_pvalues(p, adjust),
        adjust=None if single else adjust,
        weighted=gap.weighted,
    )
    return fields, interval, one
