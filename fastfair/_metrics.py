"""Confusion-matrix metrics as ratios of cell counts (docs/permutation.md, "Metrics").

The one cell order of fastfair: cells are indexed ``2 * y_true + y_pred``, so per-group
counts are ``(TN, FP, FN, TP)`` (columns 0-3) everywhere, in the compiled kernels, the
planning functions and every ``counts`` argument. A metric is a bit mask of numerator cells
over a bit mask of denominator cells (bit ``i`` is cell ``i``); the compiled kernels take
the masks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

CELL_NAMES = ("TN", "FP", "FN", "TP")  # cell i = 2 * y_true + y_pred
CELL_Y_TRUE = np.array([0, 0, 1, 1], dtype=np.uint8)  # y_true of each cell
CELL_Y_PRED = np.array([0, 1, 0, 1], dtype=np.uint8)  # y_pred of each cell
TN, FP, FN, TP = 1, 2, 4, 8  # cell bit masks: 1 << cell index
ALL = TN | FP | FN | TP
NEGATIVES, POSITIVES = TN | FP, FN | TP


def cell_index(y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
    """Cell of each row, ``2 * y_true + y_pred`` (0 TN, 1 FP, 2 FN, 3 TP), as uint8."""
    return (2 * y_true + y_pred).astype(np.uint8)


@dataclass(frozen=True)
class ConfusionMetric:
    """A rate num/den of cell counts, or several of them tested jointly."""

    name: str
    num_masks: tuple[int, ...]
    den_masks: tuple[int, ...]
    part_names: tuple[str, ...]
    den_description: tuple[str, ...]

    @property
    def n_parts(self) -> int:
        return len(self.num_masks)

    def spec(self, studentize: bool, pooled: bool) -> tuple:
        """The tuple the compiled kernels read (see csrc/_core.pxd)."""
        return (self.num_masks, self.den_masks, bool(studentize), bool(pooled))

    def strata(self, scheme: str) -> tuple[int, ...]:
        """Cell masks whose rows are permuted among themselves under `scheme`."""
        if scheme == "full":
            return (ALL,)
        if scheme == "within_outcome":
            return (NEGATIVES, POSITIVES)
        return tuple(dict.fromkeys(self.den_masks))  # conditional: the denominators

    def rates(self, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Numerators and denominators, shape (..., n_parts), from cell sums (..., 4)."""
        num = np.stack([cell_count(cells, m) for m in self.num_masks], axis=-1)
        den = np.stack([cell_count(cells, m) for m in self.den_masks], axis=-1)
        return num, den


def cell_count(cells: np.ndarray, mask: int) -> np.ndarray:
    """Sum of the cells in ``mask`` from counts of shape (..., 4) in the order above."""
    cols = [c for c in range(4) if mask & (1 << c)]
    return np.asarray(cells)[..., cols].sum(axis=-1)


_PRED_POS, _PRED_NEG = TP | FP, TN | FN
_DEN_TEXT = {
    POSITIVES: "positives (y_true = 1)",
    NEGATIVES: "negatives (y_true = 0)",
    _PRED_POS: "predicted positives (y_pred = 1)",
    _PRED_NEG: "predicted negatives (y_pred = 0)",
    ALL: "rows",
}


def _rate(name, num, den):
    return ConfusionMetric(name, (num,), (den,), (name,), (_DEN_TEXT[den],))


CONFUSION_METRICS = {
    "tpr": _rate("tpr", TP, POSITIVES),
    "fnr": _rate("fnr", FN, POSITIVES),
    "fpr": _rate("fpr", FP, NEGATIVES),
    "tnr": _rate("tnr", TN, NEGATIVES),
    "ppv": _rate("ppv", TP, _PRED_POS),
    "fdr": _rate("fdr", FP, _PRED_POS),
    "npv": _rate("npv", TN, _PRED_NEG),
    "for": _rate("for", FN, _PRED_NEG),
    "selection_rate": _rate("selection_rate", TP | FP, ALL),
    "accuracy": _rate("accuracy", TP | TN, ALL),
    "error_rate": _rate("error_rate", FP | FN, ALL),
    "equalized_odds": ConfusionMetric(
        "equalized_odds",
        (TP, FP),
        (POSITIVES, NEGATIVES),
        ("tpr", "fpr"),
        (_DEN_TEXT[POSITIVES], _DEN_TEXT[NEGATIVES]),
    ),
}
METRIC_ALIASES = {
    "recall": "tpr",
    "sensitivity": "tpr",
    "specificity": "tnr",
    "precision": "ppv",
    "demographic_parity": "selection_rate",
    "dp": "selection_rate",
}


def get_metric(name) -> ConfusionMetric:
    """Look up a confusion-matrix metric by name or alias."""
    if not isinstance(name, str):
        raise TypeError(f"metric must be a string, got {type(name).__name__}")
    key = METRIC_ALIASES.get(name.lower(), name.lower())
    if key not in CONFUSION_METRICS:
        known = sorted(CONFUSION_METRICS) + sorted(METRIC_ALIASES)
        raise ValueError(f"unknown metric {name!r}; known metrics: {known}")
    return CONFUSION_METRICS[key]
