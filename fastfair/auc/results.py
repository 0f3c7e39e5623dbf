"""Result classes (dataclasses with a readable repr), warnings and errors (AUC tests)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from fastfair._deprecation import renamed_attributes
from fastfair._export import ResultExport
from fastfair._format import format_table
from fastfair._permutation_result import PairwiseResultMixin
from fastfair._sequential import Sequential


@dataclass(frozen=True, repr=False)
class DeLongResult(ResultExport):
    """Result of :func:`delong`: per-group AUC and DeLong variance components.

    Attributes
    ----------
    groups : ndarray
        Group labels (a single ``None`` group when `group` was not given).
    auc : ndarray
        Mann-Whitney AUC of each group (ties count one half).
    variance : ndarray
        DeLong variance of each AUC, ``s10 / n_pos + s01 / n_neg``.
    s10, s01 : ndarray
        Sample variances (ddof=1) of the positives' and negatives' placements
        (0 when a group has a single positive, resp. negative).
    n_pos, n_neg : ndarray
        Positives and negatives of each group.
    placements : ndarray or None
        With ``return_placements=True``: each row's placement in its group, in input order;
        for a positive, V10 = the fraction of its group's negatives it outranks, for a
        negative, V01 = the fraction of its group's positives that outrank it (ties 1/2).
    """

    groups: np.ndarray
    auc: np.ndarray
    variance: np.ndarray
    s10: np.ndarray
    s01: np.ndarray
    n_pos: np.ndarray
    n_neg: np.ndarray
    placements: np.ndarray | None = None

    def __repr__(self) -> str:
        rows = [
            (str(g), self.auc[k], np.sqrt(self.variance[k]), self.n_pos[k], self.n_neg[k])
            for k, g in enumerate(self.groups)
        ]
        table = format_table(["group", "auc", "std_error", "n_pos", "n_neg"], rows)
        return "DeLongResult(\n" + table + "\n)"


@renamed_attributes(difference_interval="confidence_interval")
@dataclass(frozen=True, repr=False)
class AUCTestResult(PairwiseResultMixin):
    """Result of :func:`auc_test`, laid out as :class:`~fastfair.PermutationTestResult`:
    per-comparison fields are floats with two groups, arrays (one entry per comparison in
    `comparisons`) with more.

    Attributes
    ----------
    statistic : float or ndarray
        Observed statistic: AUC difference divided by its DeLong standard error
        (``studentize=True``) or the raw difference.
    pvalue : float or ndarray
        p-value of each comparison (not adjusted for multiplicity).
    pvalue_adjusted : ndarray or None
        Family-wise adjusted p-values (`adjust`), when there is more than one comparison.
    difference : float or ndarray
        AUC of the first group minus AUC of the second.
    confidence_interval : tuple
        DeLong (Wald) confidence interval of each difference, at `confidence_level`.
    groups, group_auc, group_variance, group_n_pos, group_n_neg : ndarray
        Group labels, AUCs, DeLong variances and label counts.
    group_interval : tuple of ndarray
        DeLong (Wald) confidence interval of each group's AUC, clipped to [0, 1].
    comparisons : list of tuple
        (group, other group) for each comparison; the difference is group minus other.
    n_permutations : int, ndarray or None
        Permutations drawn (per comparison, when sequential with several comparisons).
    pvalue_interval : tuple or None
        Interval of a Monte-Carlo p-value: Wilson 95% for a fixed number of permutations;
        sequential: Robbins' confidence sequence at level 1 - epsilon (1 - epsilon / C over
        C comparisons with an adjustment), valid at the data-dependent stopping time.
    decision : str, ndarray or None
        Sequential tests: "reject", "retain" or "undecided" (the cap was reached with the
        p-value's interval still straddling the level) at `sequential.alpha`, under `adjust`
        with several comparisons. None with a fixed number of permutations.
    sequential : Sequential or None
        The options of a sequential test.
    null_distribution : ndarray or None
        With ``return_null=True``: the permuted statistics, shape (B,) or (B, C) (sequential
        with several comparisons: NaN-padded columns).
    """

    statistic: float | np.ndarray
    pvalue: float | np.ndarray
    difference: float | np.ndarray
    confidence_interval: tuple
    groups: np.ndarray
    group_auc: np.ndarray
    group_variance: np.ndarray
    group_interval: tuple
    group_n_pos: np.ndarray
    group_n_neg: np.ndarray
    comparisons: list
    method: str
    scheme: str | None
    studentize: bool
    alternative: str
    confidence_level: float = 0.95
    n_permutations: int | None = None
    pvalue_adjusted: np.ndarray | None = None
    adjust: str | None = None
    pvalue_interval: tuple | None = None
    null_distribution: np.ndarray | None = field(default=None)
    decision: str | np.ndarray | None = None
    sequential: Sequential | None = None

    def __repr__(self) -> str:
        stat = "studentized (DeLong)" if self.studentize else "raw difference"
        head = (
            f"AUCTestResult(method={self.method!r}"
            + (f", scheme={self.scheme!r}" if self.scheme else "")
            + f", statistic={stat}, alternative={self.alternative!r}"
            + self._permutations_shown()
            + ")"
        )
        level = f"{100 * self.confidence_level:g}%"
        lo, hi = self.group_interval
        group_rows = [
            (
                str(g),
                self.group_auc[k],
                np.sqrt(self.group_variance[k]),
                lo[k],
                hi[k],
                self.group_n_pos[k],
                self.group_n_neg[k],
            )
            for k, g in enumerate(self.groups)
        ]
        group_table = format_table(
            ["group", "auc", "std_error", f"{level} low", "high", "n_pos", "n_neg"], group_rows
        )
        stat_v = np.atleast_1d(self.statistic)
        diff_v = np.atleast_1d(self.difference)
        dlo, dhi = (np.atleast_1d(x) for x in self.confidence_interval)
        headers = ["comparison", "difference", f"{level} low", "high", "statistic"]
        headers += self._pvalue_headers()
        rows = [
            [f"{a} - {b}", diff_v[c], dlo[c], dhi[c], stat_v[c], *self._pvalue_cells(c)]
            for c, (a, b) in enumerate(self.comparisons)
        ]
        return "\n".join([head, group_table, format_table(headers, rows), *self._notes()])
