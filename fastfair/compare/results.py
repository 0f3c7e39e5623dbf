"""Result classes (frozen dataclasses with a readable repr) of the paired comparisons."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from fastfair._export import ResultExport
from fastfair._format import format_pvalue, format_table

if TYPE_CHECKING:
    import pandas


def _rows(x, n_c: int, n_parts: int) -> np.ndarray:
    """A per-comparison field as an (n_c, n_parts) array, whatever its stored shape."""
    return np.reshape(np.asarray(x, dtype=np.float64), (n_c, n_parts))


@dataclass(frozen=True, repr=False)
class ModelComparisonResult(ResultExport):
    """Result of :func:`compare_models` and :func:`compare_auc`: did model B change the gap?

    For each comparison (group, reference) and each part of the metric (one; two for
    equalized odds: tpr and fpr), the gap of a model is its metric in the group minus in the
    reference (as every fastfair `difference`), and the change is
    ``difference = gap_b - gap_a``. With one comparison the per-comparison fields are
    floats (arrays of the parts for equalized odds); with several, arrays with one entry
    (row) per comparison.

    Attributes
    ----------
    metric : str
        The metric compared (``"auc"`` for :func:`compare_auc`).
    parts : tuple of str
        The rates the metric is made of (``("tpr", "fpr")`` for equalized odds).
    statistic : float or ndarray
        Studentized change, difference / standard_error (equalized odds: the sum of the
        two parts' squares, one per comparison).
    pvalue : float or ndarray
        Two-sided p-value of H0: the two models have the same gap (equalized odds: in both
        parts), by `method`.
    pvalue_reduced : float or ndarray
        p-value of "model B's gap is smaller in size": H1 |gap_b| < |gap_a|, an
        intersection-union test of "B moves the gap towards 0" (by `method`) and "not
        beyond -gap_a" (asymptotic; equalized odds: in both parts), the larger p-value.
    pvalue_noninferior : float, ndarray or None
        With `delta`: p-value of non-inferiority, H1 |gap_b| < |gap_a| + delta (the same
        intersection-union test, asymptotic). None without `delta`.
    pvalue_adjusted : ndarray or None
        `pvalue` adjusted over the comparisons (`adjust`), with several comparisons.
    difference, standard_error : float or ndarray
        gap_b - gap_a and its paired (delta-method) standard error.
    confidence_interval : tuple
        MOVER interval of the difference at `confidence_level`: each model's metric with its
        limits (rates: Clopper-Pearson below 50 events or non-events, Wilson elsewhere; AUC:
        the hybrid logit-t/Newcombe limits), correlated within a group by the paired
        covariance, groups added in squares.
    gap_a, gap_b : float or ndarray
        Each model's gap.
    groups : ndarray
        The group labels, in the order of every per-group array.
    comparisons : list of tuple
        (group, reference) of each comparison.
    group_metric_a, group_metric_b : ndarray
        Each group's metric under each model, shape (n_groups,) or (n_groups, n_parts).
    group_change, group_change_standard_error : ndarray
        Each group's paired change, metric under B minus under A, and its standard error.
    group_change_interval : tuple of ndarray
        MOVER interval of each group's change at `confidence_level` (as above).
    group_discordant : ndarray
        Rows of each group on which the two models disagree (for AUC: rows whose two scores
        differ).
    method : str
        ``"exact"``, ``"permutation"`` or ``"asymptotic"``; ``"exact, asymptotic"`` or
        ``"permutation, asymptotic"`` for ``method="auto"``, whose p-values are the larger of
        the swap test's and the asymptotic test's (AUC: ``"permutation"`` or
        ``"delong"``).
    delta : float or None
        The non-inferiority margin.
    confidence_level : float
    n_permutations : int or None
        Random swap permutations drawn (``method="permutation"``).
    adjust : str or None
        Adjustment of `pvalue_adjusted`.
    null_distribution : ndarray or None
        With ``return_null=True`` and ``method="permutation"``: the permuted statistics,
        shape (n_permutations, n_comparisons, n_parts).
    """

    metric: str
    parts: tuple
    statistic: float | np.ndarray
    pvalue: float | np.ndarray
    pvalue_reduced: float | np.ndarray
    pvalue_noninferior: float | np.ndarray | None
    pvalue_adjusted: np.ndarray | None
    difference: float | np.ndarray
    standard_error: float | np.ndarray
    confidence_interval: tuple
    gap_a: float | np.ndarray
    gap_b: float | np.ndarray
    groups: np.ndarray
    comparisons: list
    group_metric_a: np.ndarray
    group_metric_b: np.ndarray
    group_change: np.ndarray
    group_change_standard_error: np.ndarray
    group_change_interval: tuple
    group_discordant: np.ndarray
    method: str
    delta: float | None
    confidence_level: float = 0.95
    n_permutations: int | None = None
    adjust: str | None = None
    null_distribution: np.ndarray | None = field(default=None)

    def _p(self, p) -> str:
        return format_pvalue(p, self.method, self.n_permutations)

    def to_frame(self) -> pandas.DataFrame:
        """One row per comparison and part: gaps, change, interval and p-values.

        Returns
        -------
        pandas.DataFrame
            Columns group, reference, part, gap_a, gap_b, difference, standard_error,
            ci_low, ci_high, statistic, pvalue, pvalue_reduced, pvalue_noninferior and
            pvalue_adjusted (the comparison's `pvalue` adjusted over the comparisons; None
            with one comparison). The statistic and p-values are per comparison (repeated
            over the parts of equalized odds).
        """
        import pandas as pd

        n_c, n_p = len(self.comparisons), len(self.parts)
        per_c = [np.broadcast_to(np.reshape(x, (n_c, -1))[:, :1], (n_c, n_p)) for x in (
            self.statistic, self.pvalue, self.pvalue_reduced)]  # fmt: skip
        lo, hi = (_rows(x, n_c, n_p) for x in self.confidence_interval)
        adjusted = None if self.pvalue_adjusted is None else np.asarray(
            self.pvalue_adjusted, dtype=np.float64).reshape(n_c)  # fmt: skip
        noninf = None if self.pvalue_noninferior is None else _rows(
            np.broadcast_to(np.reshape(self.pvalue_noninferior, (n_c, -1))[:, :1], (n_c, n_p)),
            n_c, n_p)  # fmt: skip
        records = []
        for c, (g, r) in enumerate(self.comparisons):
            for j, part in enumerate(self.parts):
                records.append({
                    "group": g, "reference": r, "part": part,
                    "gap_a": _rows(self.gap_a, n_c, n_p)[c, j],
                    "gap_b": _rows(self.gap_b, n_c, n_p)[c, j],
                    "difference": _rows(self.difference, n_c, n_p)[c, j],
                    "standard_error": _rows(self.standard_error, n_c, n_p)[c, j],
                    "ci_low": lo[c, j], "ci_high": hi[c, j],
                    "statistic": per_c[0][c, j], "pvalue": per_c[1][c, j],
                    "pvalue_reduced": per_c[2][c, j],
                    "pvalue_noninferior": None if noninf is None else noninf[c, j],
                    "pvalue_adjusted": None if adjusted is None else adjusted[c],
                })  # fmt: skip
        return pd.DataFrame.from_records(records)

    def to_dict(self) -> dict:
        """The fields as plain Python values (lists for arrays), e.g. for JSON.

        Returns
        -------
        dict
        """
        out = {}
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if isinstance(value, np.ndarray):
                value = value.tolist()
            elif isinstance(value, tuple):
                value = [v.tolist() if isinstance(v, np.ndarray) else v for v in value]
            elif isinstance(value, np.generic):
                value = value.item()
            out[name] = value
        return out

    def __repr__(self) -> str:
        head = (
            f"ModelComparisonResult(metric={self.metric!r}, method={self.method!r}"
            + (f", n_permutations={self.n_permutations}" if self.n_permutations else "")
            + (f", delta={self.delta:g}" if self.delta is not None else "")
            + ")"
        )
        level = f"{100 * self.confidence_level:g}%"
        n_g, n_p = len(self.groups), len(self.parts)
        ga, gb = (np.reshape(x, (n_g, n_p)) for x in (self.group_metric_a, self.group_metric_b))
        ch = np.reshape(self.group_change, (n_g, n_p))
        se = np.reshape(self.group_change_standard_error, (n_g, n_p))
        group_rows = [
            (f"{g}" + (f" {part}" if n_p > 1 else ""), ga[k, j], gb[k, j], ch[k, j], se[k, j])
            for k, g in enumerate(self.groups)
            for j, part in enumerate(self.parts)
        ]
        groups = format_table(["group", "model A", "model B", "change", "std_error"], group_rows)
        frame = self.to_frame()
        headers = ["comparison", "gap A", "gap B", "change", f"{level} low", "high"]
        headers += ["p (equal)", "p (reduced)"]
        headers += [] if self.delta is None else ["p (non-inferior)"]
        rows = []
        for _, r in frame.iterrows():
            name = f"{r['group']} vs {r['reference']}" + (f" {r['part']}" if n_p > 1 else "")
            row = [name, r.gap_a, r.gap_b, r.difference, r.ci_low, r.ci_high]
            row += [self._p(r.pvalue), self._p(r.pvalue_reduced)]
            row += [] if self.delta is None else [format_pvalue(r.pvalue_noninferior)]
            rows.append(row)
        return "\n".join([head, groups, format_table(headers, rows)])


@dataclass(frozen=True, repr=False)
class PairedDeLongResult(ResultExport):
    """Result of :func:`paired_delong`: each group's two AUCs on the same rows.

    Attributes
    ----------
    groups : ndarray
        Group labels (a single ``None`` group when `group` was not given).
    auc_a, auc_b : ndarray
        Mann-Whitney AUC of each model in each group (ties count one half).
    variance_a, variance_b : ndarray
        DeLong variance of each AUC (:func:`fastfair.delong`).
    covariance : ndarray
        DeLong covariance of the two AUCs of a group, from the placements of the same rows.
    statistic : ndarray
        ``(auc_b - auc_a) / sqrt(variance_a + variance_b - 2 covariance)``: pROC's
        ``roc.test(roc_b, roc_a, paired=TRUE, method="delong")`` statistic.
    pvalue : ndarray
        Two-sided normal p-value of each statistic.
    n_pos, n_neg : ndarray
        Positives and negatives of each group.
    """

    groups: np.ndarray
    auc_a: np.ndarray
    auc_b: np.ndarray
    variance_a: np.ndarray
    variance_b: np.ndarray
    covariance: np.ndarray
    statistic: np.ndarray
    pvalue: np.ndarray
    n_pos: np.ndarray
    n_neg: np.ndarray

    def __repr__(self) -> str:
        rows = [
            (str(g), self.auc_a[k], self.auc_b[k], self.covariance[k], self.statistic[k],
             format_pvalue(self.pvalue[k]), self.n_pos[k], self.n_neg[k])
            for k, g in enumerate(self.groups)
        ]  # fmt: skip
        headers = ["group", "auc A", "auc B", "covariance", "statistic", "pvalue", "n_pos"]
        return "PairedDeLongResult(\n" + format_table([*headers, "n_neg"], rows) + "\n)"
