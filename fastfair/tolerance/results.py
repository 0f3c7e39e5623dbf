"""Result classes of the tolerance and equivalence tests, and their tables."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fastfair._export import ResultExport
from fastfair._format import format_interval, format_table


class ApproximateLevelWarning(UserWarning):
    """An AUC margin test on a group with few positives or negatives: its level may exceed
    alpha (below 5 per class for the default "hybrid", outside its validated range; below
    100 for "logit-t", "logit" and "delong", which exceeded it in simulation)."""


@dataclass(frozen=True, repr=False, kw_only=True)
class _MarginTestResult(ResultExport):
    """Fields both results share (keyword-only): the metric, the method that ran, the
    groups with their metric values and denominators, the comparisons, the family-wise
    adjusted p-values (several comparisons) and whether the rates were weighted."""

    metric: str
    method: str
    groups: np.ndarray
    group_values: np.ndarray
    group_denominators: np.ndarray
    comparisons: list
    pvalue_adjusted: np.ndarray | None = None
    adjust: str | None = None
    weighted: bool = False


@dataclass(frozen=True, repr=False)
class ToleranceTestResult(_MarginTestResult):
    """Result of :func:`tolerance_test`.

    With two groups the per-comparison fields are floats; with more, arrays with one entry
    per comparison in `comparisons`.

    Attributes
    ----------
    statistic : float or ndarray
        :math:`Z = (\\hat U - d)/\\text{SE}(d)` at the boundary ``d = u_tol`` (``"greater"``)
        or ``d = -u_tol`` (``"less"``); for ``"two-sided"``, of the side with the smaller
        p-value (the upper side's, at ``d = u_tol``, when both p-values are equal).
    pvalue : float or ndarray
        p-value of :math:`H_0` (not adjusted for multiplicity).
    pvalue_adjusted : ndarray or None
        Family-wise adjusted p-values (`adjust`) with more than one comparison.
    difference : float or ndarray
        Estimated gap :math:`\\hat U`: metric of the group minus that of the reference.
    confidence_interval : tuple
        Two-sided interval of :math:`U` at `confidence_level`, from the same statistic.
    u_tol : float
        Tolerated gap.
    alternative : str
        ``"two-sided"``: :math:`H_1: |U| > u_{tol}`; ``"greater"``: :math:`U > u_{tol}`;
        ``"less"``: :math:`U < -u_{tol}`.
    method : str
        ``"score"`` (Miettinen-Nurminen), ``"exact"`` (Chan 1998), ``"score/exact"`` (both,
        by comparison), ``"farrington-manning"``, ``"wald"``, ``"hybrid"``, ``"logit-t"``,
        ``"logit"`` or ``"delong"`` (AUC), ``"bootstrap"`` or ``"welch"`` (generic metrics).
    """

    statistic: float | np.ndarray
    pvalue: float | np.ndarray
    difference: float | np.ndarray
    confidence_interval: tuple
    u_tol: float
    alternative: str
    confidence_level: float = 0.95

    def __repr__(self) -> str:
        h1 = {
            "two-sided": f"|U| > {self.u_tol:g}",
            "greater": f"U > {self.u_tol:g}",
            "less": f"U < {-self.u_tol:g}",
        }[self.alternative]
        head = (
            f"ToleranceTestResult(metric={self.metric!r}, method={self.method!r}, "
            f"H1: {h1}, U = group - reference)"
        )
        return "\n".join(
            [
                head,
                _group_table(self),
                _comparison_table(
                    self,
                    self.confidence_interval,
                    f"{100 * self.confidence_level:g}% CI",
                    ["statistic", "pvalue"],
                    lambda c: [_pick(self.statistic, c), _pick(self.pvalue, c)],
                ),
            ]
        )


@dataclass(frozen=True, repr=False)
class EquivalenceTestResult(_MarginTestResult):
    """Result of :func:`equivalence_test`.

    Attributes
    ----------
    equivalent : bool or ndarray
        Whether :math:`|U| < \\delta` is shown at level `alpha` (with the adjusted p-value
        when there are several comparisons).
    pvalue : float or ndarray
        TOST p-value, the larger of the two one-sided p-values (not adjusted).
    pvalue_adjusted : ndarray or None
        Family-wise adjusted p-values with more than one comparison.
    statistic : tuple
        (Z at :math:`-\\delta`, Z at :math:`+\\delta`): the first must exceed
        :math:`z_{1-\\alpha}` and the second be below :math:`-z_{1-\\alpha}`.
    difference : float or ndarray
        Estimated gap :math:`\\hat U` (group minus reference).
    equivalence_interval : tuple
        The :math:`1 - 2\\alpha` interval of :math:`U`; equivalence is shown (before
        multiplicity adjustment) exactly when it lies inside :math:`(-\\delta, \\delta)`.
    delta, alpha : float
        Equivalence margin and level.
    """

    equivalent: bool | np.ndarray
    pvalue: float | np.ndarray
    statistic: tuple
    difference: float | np.ndarray
    equivalence_interval: tuple
    delta: float
    alpha: float

    def __repr__(self) -> str:
        head = (
            f"EquivalenceTestResult(metric={self.metric!r}, method={self.method!r}, "
            f"H1: |U| < {self.delta:g}, alpha={self.alpha:g}, U = group - reference)"
        )
        level = f"{100 * (1 - 2 * self.alpha):g}% CI"

        def extra(c):
            verdict = "yes" if bool(np.atleast_1d(self.equivalent)[c]) else "no"
            return [_pick(self.pvalue, c), verdict]

        return "\n".join(
            [
                head,
                _group_table(self),
                _comparison_table(
                    self, self.equivalence_interval, level, ["pvalue", "equivalent"], extra
                ),
            ]
        )


def _pick(value, c):
    return np.atleast_1d(value)[c]


def _group_table(res) -> str:
    dens = (
        res.group_denominators
        if res.weighted
        else np.asarray(res.group_denominators).astype(np.int64)
    )
    rows = [(str(g), res.group_values[k], dens[k]) for k, g in enumerate(res.groups)]
    return format_table(["group", res.metric, "denominator"], rows)


def _comparison_table(res, interval, level, names, extra) -> str:
    headers = ["comparison", "difference", level, *names]
    if res.pvalue_adjusted is not None:
        headers.append(f"adjusted ({res.adjust})")
    rows = []
    n_c = len(res.comparisons)
    for c, (a, b) in enumerate(res.comparisons):
        row = [f"{a} - {b}", _pick(res.difference, c), format_interval(interval, c, 0, n_c)]
        row += extra(c)
        if res.pvalue_adjusted is not None:
            row.append(res.pvalue_adjusted[c])
        rows.append(row)
    return format_table(headers, rows)
