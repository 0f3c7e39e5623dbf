"""Sufficient statistics: what the test reads from the data (sample size and power)."""

from __future__ import annotations

import numpy as np

from fastfair.planning.ingest import _RATE_METRICS


def _rates_from_counts(counts: np.ndarray) -> dict[str, np.ndarray]:
    """Rates from cell counts of shape (..., k, 4) in the order (TP, FP, FN, TN)."""
    tp, fp, fn, tn = (counts[..., i].astype(float) for i in range(4))
    n = tp + fp + fn + tn
    with np.errstate(divide="ignore", invalid="ignore"):
        return {
            "prevalence": (tp + fn) / n,
            "selection_rate": (tp + fp) / n,
            "tpr": tp / (tp + fn),
            "tnr": tn / (tn + fp),
            "ppv": tp / (tp + fp),
            "npv": tn / (tn + fn),
            "accuracy": (tp + tn) / n,
        }


def _cell_probabilities(metric: str, rates: dict[str, np.ndarray]) -> np.ndarray:
    """Per-group probabilities of (TP, FP, FN, TN) consistent with ``rates``.

    Quantities the metric does not depend on and the rates leave open are filled with 0.5
    (they do not affect the metric's estimator or its studentized test)."""
    k = next(iter(rates.values())).size
    half = np.full(k, 0.5)

    def get(key: str) -> np.ndarray | None:
        if key in rates:
            return rates[key]
        comp = _RATE_METRICS.get(key, (None, None))[0]
        if comp is not None and comp in rates:
            return 1.0 - rates[comp]
        return None

    def from_prev(prev: np.ndarray, tpr: np.ndarray, tnr: np.ndarray) -> np.ndarray:
        return np.stack(
            [prev * tpr, (1 - prev) * (1 - tnr), prev * (1 - tpr), (1 - prev) * tnr], -1
        )

    def from_pp(pp: np.ndarray, ppv: np.ndarray, npv: np.ndarray) -> np.ndarray:
        return np.stack([pp * ppv, pp * (1 - ppv), (1 - pp) * (1 - npv), (1 - pp) * npv], -1)

    prev = get("prevalence")
    if metric in ("tpr", "fnr", "tnr", "fpr"):
        t1, t0 = get("tpr"), get("tnr")
        return from_prev(prev, half if t1 is None else t1, half if t0 is None else t0)
    if metric in ("ppv", "fdr", "npv", "for"):
        v1, v0 = get("ppv"), get("npv")
        return from_pp(
            get("selection_rate"), half if v1 is None else v1, half if v0 is None else v0
        )
    if metric == "selection_rate":
        pp = get("selection_rate")
        p = half if prev is None else prev
        # y independent of yhat
        return np.stack([pp * p, pp * (1 - p), (1 - pp) * p, (1 - pp) * (1 - p)], -1)
    acc = get("accuracy")
    p = half if prev is None else prev
    return from_prev(p, acc, acc)
