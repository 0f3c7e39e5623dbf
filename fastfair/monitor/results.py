"""The monitor's result: per metric and comparison, the confidence sequence and its state."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from fastfair._format import format_interval, format_table

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["STATES", "MonitorResult", "MonitorStateError"]

#: The states a comparison reads; "DIFFERENCE, within" is both claims at once.
STATES = ("watching", "DIFFERENCE", "FAIR within", "DIFFERENCE, FAIR within", "CHANGED")


class MonitorStateError(ValueError):
    """A saved monitor state that cannot be used: another format, version or configuration."""


@dataclass(frozen=True, repr=False)
class MonitorResult:
    """The state of a :class:`fastfair.FairnessMonitor` after its latest update.

    Per-comparison arrays have shape (n_metrics, n_comparisons): row i is ``metrics[i]``,
    column c is ``comparisons[c]`` (group, reference).

    Attributes
    ----------
    metrics : tuple of str
    comparisons : list of tuple
        (group, reference) label pairs.
    difference : ndarray
        Estimated gap, metric of the group minus that of the reference (NaN before both
        groups have rows in the metric's denominator).
    confidence_interval : tuple of ndarray
        (lower, upper) of the anytime-valid confidence sequence at this update: together the
        sequences cover every gap at every update with probability >= 1 - alpha.
    state : ndarray of str
        "DIFFERENCE" (the sequence excludes 0), "FAIR within ±δ" (it lies inside
        (-tolerance, tolerance)), both, "watching", or "CHANGED" (every constant gap is
        rejected: the gap has moved since the monitor started; the interval is then NaN).
    pvalue : ndarray
        Anytime-valid p-value of a zero gap (1 / the largest e-value reached by the
        sequence's strips at 0), not adjusted; ``pvalue_adjusted`` multiplies it by the
        number of sequences (Bonferroni). DIFFERENCE is read when ``pvalue_adjusted <= alpha``
        to grid precision.
    denominators : ndarray
        Rows in each metric's denominator so far, shape (n_metrics, n_groups).
    group_values : ndarray
        Each group's rate so far, shape (n_metrics, n_groups).
    groups : ndarray
        Group labels (the reference first).
    decided_at : ndarray
        The update (1-based) at which the current state was first read; 0 while watching.
    """

    metrics: tuple
    groups: np.ndarray
    comparisons: list
    difference: np.ndarray
    confidence_interval: tuple
    state: np.ndarray
    pvalue: np.ndarray
    pvalue_adjusted: np.ndarray
    denominators: np.ndarray
    group_values: np.ndarray
    decided_at: np.ndarray
    alpha: float
    tolerance: float | None
    n_updates: int
    n_rows: int

    def to_frame(self) -> pd.DataFrame:
        """One row per metric and comparison.

        Returns
        -------
        pandas.DataFrame
            Columns metric, group, reference, rates and denominators, difference, lower,
            upper, state, pvalue, pvalue_adjusted, decided_at.
        """
        import pandas as pd

        return pd.DataFrame(self._rows())

    def to_dict(self) -> dict:
        """Plain Python values (JSON-ready).

        Returns
        -------
        dict
            alpha, tolerance, n_updates, n_rows and one dict per metric and comparison.
        """
        return {
            "alpha": self.alpha,
            "tolerance": self.tolerance,
            "n_updates": self.n_updates,
            "n_rows": self.n_rows,
            "comparisons": self._rows(),
        }

    def _rows(self) -> list[dict]:
        rows = []
        lower, upper = self.confidence_interval
        for i, metric in enumerate(self.metrics):
            for c, (group, reference) in enumerate(self.comparisons):
                g = 1 + c
                rows.append(
                    {
                        "metric": metric,
                        "group": group,
                        "reference": reference,
                        "group_value": float(self.group_values[i, g]),
                        "reference_value": float(self.group_values[i, 0]),
                        "group_denominator": int(self.denominators[i, g]),
                        "reference_denominator": int(self.denominators[i, 0]),
                        "difference": float(self.difference[i, c]),
                        "lower": float(lower[i, c]),
                        "upper": float(upper[i, c]),
                        "state": str(self.state[i, c]),
                        "pvalue": float(self.pvalue[i, c]),
                        "pvalue_adjusted": float(self.pvalue_adjusted[i, c]),
                        "decided_at": int(self.decided_at[i, c]),
                    }
                )
        return rows

    def __repr__(self) -> str:
        tol = "" if self.tolerance is None else f", tolerance={self.tolerance:g}"
        head = (
            f"MonitorResult(alpha={self.alpha:g}{tol}, updates={self.n_updates}, "
            f"rows={self.n_rows}; anytime-valid, Bonferroni over {self.state.size} sequences, "
            "difference = group - reference)"
        )
        rows = []
        n_c = self.state.size
        lower, upper = self.confidence_interval
        for k, r in enumerate(self._rows()):
            since = f" (update {r['decided_at']})" if r["decided_at"] else ""
            rows.append(
                [
                    f"{r['metric']}: {r['group']} - {r['reference']}",
                    r["difference"],
                    format_interval((lower.ravel(), upper.ravel()), k, 0, n_c),
                    r["pvalue_adjusted"],
                    r["group_denominator"],
                    r["reference_denominator"],
                    r["state"] + since,
                ]
            )
        headers = ["comparison", "difference", "confidence sequence", "p (adjusted)",
                   "n group", "n reference", "state"]  # fmt: skip
        return head + "\n" + format_table(headers, rows)
