"""Options and data of a threshold sweep, checked and coerced once."""

from __future__ import annotations

import numpy as np

from fastfair._metrics import ALL, NEGATIVES, POSITIVES, get_metric
from fastfair._validation import as_finite_float, check_int

SWEEP_METHODS = ("exact", "monte_carlo")
#: Label strata whose rows exchange group labels, by denominator of the rate (bit y set).
_STRATUM = {POSITIVES: 2, NEGATIVES: 1, ALL: 3}


def _check_metrics(metrics):
    if isinstance(metrics, str):
        metrics = (metrics,)
    specs = [get_metric(name) for name in metrics]
    if not specs:
        raise ValueError("metrics must name at least one rate")
    for sm in specs:
        if sm.n_parts != 1 or sm.den_masks[0] not in _STRATUM:
            raise ValueError(
                f"metric {sm.name!r} cannot be swept: its denominator changes with the threshold "
                "or it has two parts; use 'tpr', 'fnr', 'fpr', 'tnr', 'selection_rate', "
                "'accuracy' or 'error_rate' (equalized odds: metrics=('tpr', 'fpr'))"
            )
    if len({sm.name for sm in specs}) != len(specs):
        raise ValueError(f"metrics must be distinct, got {list(metrics)}")
    return specs


def _thresholds(thresholds, s) -> np.ndarray:
    if isinstance(thresholds, (int, np.integer)) and not isinstance(thresholds, bool):
        k = check_int(int(thresholds), "thresholds", 1)
        return np.unique(np.quantile(s, np.linspace(0.0, 1.0, k), method="inverted_cdf"))
    thr = np.sort(as_finite_float(thresholds, "thresholds"))
    if (np.diff(thr) == 0).any():
        raise ValueError("thresholds must be distinct")
    return thr
