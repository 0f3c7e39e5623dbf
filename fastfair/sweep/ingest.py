"""Options and data of a threshold sweep, checked and coerced once."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fastfair._comparisons import comparison_pairs
from fastfair._metrics import ALL, NEGATIVES, POSITIVES, get_metric
from fastfair._pvalues import ALTERNATIVES
from fastfair._validation import (
    as_binary,
    as_finite_float,
    as_groups,
    check_choice,
    check_int,
    check_same_length,
    resolve_columns,
)

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


@dataclass(frozen=True)
class _Sweep:
    """A threshold sweep's data and options, checked once.

    `second` is 0 for the group's rows and 1 for the reference's; `pair` holds their codes
    and `pair_labels` their labels (group, reference).
    """

    y: np.ndarray
    s: np.ndarray
    second: np.ndarray
    pair_labels: np.ndarray
    specs: list
    thresholds: np.ndarray
    method: str
    n_permutations: int
    alpha: float
    alternative: str


def _check_sweep(
    y_true, y_score, group, *, metrics, thresholds, method, n_permutations, alpha,
    alternative, reference, pos_label, data,
) -> _Sweep:  # fmt: skip
    """Coerce the columns and check every option of :func:`threshold_sweep` (in its order)."""
    cols = resolve_columns(data, y_true=y_true, y_score=y_score, group=group)
    y = as_binary(cols["y_true"], "y_true", pos_label)
    s = as_finite_float(cols["y_score"], "y_score")
    codes, labels = as_groups(cols["group"], "group")
    check_same_length(y_true=y, score=s, group=codes)
    if len(labels) != 2:
        raise ValueError(
            f"threshold_sweep compares two groups; group has {len(labels)} "
            f"({labels.tolist()[:5]}): select the rows of two groups"
        )
    specs = _check_metrics(metrics)
    check_choice(method, "method", SWEEP_METHODS)
    check_choice(alternative, "alternative", ALTERNATIVES)
    n_permutations = check_int(n_permutations, "n_permutations", 1)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise ValueError(f"alpha must be a number in (0, 1), got {alpha!r}")
    thr = _thresholds(thresholds, s)
    sizes = np.bincount(codes, minlength=2)
    pair = comparison_pairs(sizes, labels, reference, "reference")[0]
    return _Sweep(
        y=y,
        s=s,
        second=(codes == pair[1]).astype(np.uint8),
        pair_labels=labels[pair],
        specs=specs,
        thresholds=thr,
        method=method,
        n_permutations=n_permutations,
        alpha=alpha,
        alternative=alternative,
    )
