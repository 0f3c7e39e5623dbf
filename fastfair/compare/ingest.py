"""Ingest: the options and the two models' columns, checked and coerced once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from fastfair._comparisons import COMPARISONS
from fastfair._metrics import ConfusionMetric, get_metric
from fastfair._parallel import effective_n_threads
from fastfair._validation import (
    as_binary,
    as_finite_float,
    as_groups,
    check_choice,
    check_int,
    check_level,
    check_same_length,
    resolve_columns,
    show_value,
)

RATE_METHODS = ("auto", "exact", "permutation", "asymptotic")
AUC_METHODS = ("auto", "permutation", "delong")
ADJUSTMENTS = ("holm", "bonferroni", "bh", "none")
#: method="auto" enumerates the swap distribution exactly when every comparison has at most
#: this many tables (the product over its strata of discordant rows + 1).
EXACT_MAX_TABLES = 100_000
#: compare_auc(method="auto") uses the paired DeLong z-test when every compared group has at
#: least this many positives and as many negatives (auc_test's rule), else permutations.
AUC_ASYMPTOTIC_MIN_CLASS = 1000
#: Rate metrics compare_models accepts: the confusion-matrix rates of permutation_test.
RATE_METRICS = ("tpr", "fnr", "fpr", "tnr", "ppv", "fdr", "npv", "for", "selection_rate",
                "accuracy", "error_rate", "equalized_odds")  # fmt: skip


@dataclass(frozen=True)
class _Options:
    """The options of a paired comparison, checked once (`_check_options`)."""

    method: str
    delta: float | None
    reference: object
    comparisons: str
    adjust: str
    confidence_level: float
    n_permutations: int
    return_null: bool
    random_state: object
    n_threads: int


def _check_delta(delta) -> float | None:
    if delta is None:
        return None
    if isinstance(delta, bool) or not isinstance(delta, (int, float, np.floating, np.integer)):
        raise TypeError(f"delta must be a number or None, got {type(delta).__name__}")
    if not np.isfinite(delta) or delta < 0:
        raise ValueError(f"delta must be a finite number >= 0, got {show_value(delta)}")
    return float(delta)


def _check_options(arguments: Mapping[str, Any], methods) -> _Options:
    """The options of compare_models / compare_auc (their ``locals()`` on entry)."""
    check_choice(arguments["method"], "method", methods)
    check_choice(arguments["comparisons"], "comparisons", COMPARISONS)
    check_choice(arguments["adjust"], "adjust", ADJUSTMENTS)
    if not isinstance(arguments["return_null"], (bool, np.bool_)):
        raise TypeError("return_null must be True or False")
    return _Options(
        method=arguments["method"],
        delta=_check_delta(arguments["delta"]),
        reference=arguments["reference"],
        comparisons=arguments["comparisons"],
        adjust=arguments["adjust"],
        confidence_level=check_level(arguments["confidence_level"], "confidence_level"),
        n_permutations=check_int(arguments["n_permutations"], "n_permutations", 1, 10**7),
        return_null=bool(arguments["return_null"]),
        random_state=arguments["random_state"],
        n_threads=effective_n_threads(arguments["n_jobs"]),
    )


def _rate_metric(metric) -> ConfusionMetric:
    spec = get_metric(metric)
    if spec.name not in RATE_METRICS:
        raise ValueError(f"metric {metric!r} is not supported; known metrics: {RATE_METRICS}")
    return spec


def _binary_columns(data, y_true, y_pred_a, y_pred_b, group, pos_label):
    """y_true, y_pred_a, y_pred_b as uint8 and the group codes, rows paired by index."""
    cols = resolve_columns(data, y_true=y_true, y_pred_a=y_pred_a, y_pred_b=y_pred_b,
                           group=group)  # fmt: skip
    y = as_binary(cols["y_true"], "y_true", pos_label, require_pos=False)
    out = [y]
    for name in ("y_pred_a", "y_pred_b"):
        try:
            out.append(as_binary(cols[name], name, pos_label, require_pos=False))
        except ValueError as exc:
            raise ValueError(f"{exc} (scores? compare their AUCs with compare_auc)") from exc
    check_same_length(y_true=y, y_pred_a=out[1], y_pred_b=out[2], group=cols["group"])
    codes, labels = as_groups(cols["group"], "group")
    return (*out, codes, labels)


def _score_columns(data, y_true, y_score_a, y_score_b, group, pos_label, min_groups=2):
    """y_true as uint8, both models' finite scores and the group codes."""
    cols = resolve_columns(data, y_true=y_true, y_score_a=y_score_a, y_score_b=y_score_b,
                           group=group)  # fmt: skip
    y = as_binary(cols["y_true"], "y_true", pos_label)
    a = as_finite_float(cols["y_score_a"], "y_score_a")
    b = as_finite_float(cols["y_score_b"], "y_score_b")
    if cols["group"] is None:
        check_same_length(y_true=y, y_score_a=a, y_score_b=b)
        codes, labels = np.zeros(len(y), dtype=np.intp), np.array([None], dtype=object)
    else:
        check_same_length(y_true=y, y_score_a=a, y_score_b=b, group=cols["group"])
        codes, labels = as_groups(cols["group"], "group", min_groups=min_groups)
    return y, a, b, codes, labels


def _check_counts(counts, groups, min_groups=2):
    """Paired count tables (n_groups, 8) as int64 and their labels."""
    arr = np.asarray(counts)
    if arr.ndim != 2 or arr.shape[1] != 8:
        raise ValueError(f"counts must have shape (n_groups, 8), got {arr.shape}")
    if arr.dtype.kind not in "iuf" or not np.isfinite(arr).all() or (arr < 0).any():
        raise ValueError("counts must be finite non-negative numbers")
    if (arr != np.round(arr)).any():
        raise ValueError("counts must be whole numbers (rows of each paired cell)")
    if arr.shape[0] < min_groups:
        raise ValueError(f"counts must hold at least {min_groups} groups, got {arr.shape[0]}")
    labels = np.arange(arr.shape[0]) if groups is None else np.asarray(groups)
    if labels.shape != (arr.shape[0],):
        raise ValueError(f"groups has {labels.size} labels for {arr.shape[0]} rows of counts")
    return arr.astype(np.int64), labels
