"""Result classes (dataclasses with a readable repr), warnings and errors (calibration and
impact)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from fastfair._export import ResultExport
from fastfair._format import format_pvalue, format_table


def _key(v):
    return v.item() if isinstance(v, np.generic) else v


@dataclass(frozen=True, repr=False)
class CompositeParityCheck(ResultExport):
    """Result of :func:`check_composite_parity`.

    Attributes
    ----------
    weights : ndarray of shape (J, K)
        Composite weight vectors checked.
    pvalue : ndarray of shape (J,)
        Predictive parity test p-value of each composite.
    results : list of PredictiveParityResult
    alpha : float
    passed : bool
        No composite rejects at level alpha (Bonferroni over the J composites).
    """

    weights: np.ndarray
    pvalue: np.ndarray
    results: list
    alpha: float
    passed: bool

    def __repr__(self) -> str:
        rows = [
            (str(np.round(w, 3).tolist()), format_pvalue(p))
            for w, p in zip(self.weights, self.pvalue)
        ]
        verdict = "no composite rejects" if self.passed else "some composite rejects"
        return (
            f"CompositeParityCheck: {verdict} (alpha {self.alpha:g}, Bonferroni over "
            f"{len(self.pvalue)} composites)\n" + format_table(["weights", "p-value"], rows)
        )


@dataclass(frozen=True, repr=False)
class FairThresholds(ResultExport):
    """Result of :func:`fair_thresholds`.

    Attributes
    ----------
    groups : ndarray
    thresholds : ndarray
        Group threshold :math:`t^*_g` (positive decision when :math:`s \\ge t^*_g`).
    marginal_outcome : float
        Common marginal outcome :math:`\\hat f_g(t^*_g)` of every group.
    threshold : float
        Original common threshold t.
    marginal_outcome_before : ndarray
        :math:`\\hat f_g(t)` per group at the common threshold.
    positive_rate_before, positive_rate_after : ndarray
        Share of each group's rows at or above its threshold.
    overall_rate_before, overall_rate_after : float
    curve : CalibrationCurve
        The Nadaraya-Watson curves used.
    """

    groups: np.ndarray
    thresholds: np.ndarray
    marginal_outcome: float
    threshold: float
    marginal_outcome_before: np.ndarray
    positive_rate_before: np.ndarray
    positive_rate_after: np.ndarray
    overall_rate_before: float
    overall_rate_after: float
    curve: object = field(repr=False)

    def __repr__(self) -> str:
        rows = [
            (str(_key(g)), t, m, a, b)
            for g, t, m, a, b in zip(
                self.groups,
                self.thresholds,
                self.marginal_outcome_before,
                self.positive_rate_before,
                self.positive_rate_after,
            )
        ]
        return (
            f"FairThresholds: common marginal outcome {self.marginal_outcome:.4f} "
            f"(threshold {self.threshold:g}); overall positive rate "
            f"{self.overall_rate_before:.4f} -> {self.overall_rate_after:.4f}\n"
            + format_table(
                ["group", "threshold", "f_g(t) before", "rate before", "rate after"], rows
            )
        )


@dataclass(frozen=True, repr=False)
class _PerGroupValues(ResultExport):
    """One value per group: the calibration error or an impact of miscalibration."""

    groups: np.ndarray
    value: np.ndarray
    n_observations: np.ndarray

    def to_dict(self) -> dict:
        """The values by group label.

        Returns
        -------
        dict
            ``{group label: value}``, labels as Python scalars.
        """
        return {_key(g): float(v) for g, v in zip(self.groups, self.value)}

    def _table(self, value_name: str) -> str:
        rows = [
            (str(_key(g)), v, n) for g, v, n in zip(self.groups, self.value, self.n_observations)
        ]
        return format_table(["group", value_name, "rows"], rows)


@dataclass(frozen=True, repr=False)
class CalibrationErrorResult(_PerGroupValues):
    """Result of :func:`calibration_error`: one value per group.

    Attributes
    ----------
    groups, value, n_observations : ndarray
    estimator : str
    """

    estimator: str

    def __repr__(self) -> str:
        return f"CalibrationErrorResult ({self.estimator})\n" + self._table("error")


@dataclass(frozen=True, repr=False)
class ImpactResult(_PerGroupValues):
    """Result of :func:`delta_pcc` / :func:`delta_rc`: one value per group.

    Attributes
    ----------
    groups, value, n_observations : ndarray
    metric : str
        "delta_pcc" or "delta_rc".
    calibrator : GroupCalibrator
        The fitted calibrator that produced :math:`S^* = \\hat f_G(S)`.
    """

    metric: str
    calibrator: object = field(repr=False)

    def __repr__(self) -> str:
        return (
            f"ImpactResult ({self.metric}; positive: the group gains from calibration)\n"
            + self._table(self.metric)
        )
