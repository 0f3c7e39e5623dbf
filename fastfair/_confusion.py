"""Ingest of confusion-matrix data: rows (labels, predictions, groups, weights) or
per-group cell counts, validated once."""

from __future__ import annotations

import math
import numbers

import numpy as np

from fastfair._validation import (
    as_binary_pair,
    as_groups,
    as_weights,
    check_same_length,
    resolve_columns,
    show_value,
)

_MAX_TOTAL_COUNT = 2**62  # all count sums of the exact and permutation kernels fit in int64


def check_counts(counts, groups) -> tuple[np.ndarray, np.ndarray]:
    """Validated (n_groups, 4) counts as float64 and the group labels."""
    table = np.asarray(counts)
    if table.ndim != 2 or table.shape[1] != 4 or table.shape[0] < 2:
        raise ValueError(f"counts must have shape (n_groups >= 2, 4), got {table.shape}")
    if table.dtype.kind == "O":
        table = _object_counts(table)
    if table.dtype.kind not in "iu" and not (
        table.dtype.kind == "f" and np.all(np.isfinite(table)) and np.all(table == np.round(table))
    ):
        raise ValueError("counts must be non-negative integers")
    if (table < 0).any():
        raise ValueError("counts must be non-negative integers")
    if sum(int(v) for v in table.ravel()) > _MAX_TOTAL_COUNT:
        raise ValueError(
            "counts sum to more than 2**62, beyond 64-bit integer arithmetic "
            "(the permutation sums would overflow)"
        )
    labels = np.arange(len(table)) if groups is None else np.asarray(groups)
    if labels.shape != (len(table),):
        raise ValueError(f"groups must have {len(table)} labels, got shape {labels.shape}")
    if len(np.unique(labels)) != len(labels):
        raise ValueError("groups must be distinct labels")
    empty = np.flatnonzero(table.sum(axis=1) == 0)
    if empty.size:
        raise ValueError(f"group {labels.tolist()[empty[0]]!r} is empty (all counts are zero)")
    return table.astype(np.float64), labels


def _object_counts(table: np.ndarray) -> np.ndarray:
    """An object array of counts (Python integers, e.g. exact sums, or integral floats) as
    int64, its sum checked exactly first: an entry beyond 64 bits is named as such instead
    of failing in the conversion."""
    values = table.ravel().tolist()
    for v in values:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
            whole = False
        elif isinstance(v, numbers.Integral):
            whole = True  # exact, of any size (math.isfinite(2**2000) overflows)
        else:
            whole = math.isfinite(v) and v == int(v)
        if not (whole and v >= 0):
            raise ValueError(f"counts must be non-negative integers, got {show_value(v)}")
    if sum(int(v) for v in values) > _MAX_TOTAL_COUNT:
        raise ValueError(
            "counts sum to more than 2**62, beyond 64-bit integer arithmetic "
            "(the permutation sums would overflow)"
        )
    return np.array([int(v) for v in values], dtype=np.int64).reshape(table.shape)


def coerce_rows(y_true, y_pred, group, sample_weight, pos_label, data, min_groups=2):
    cols = resolve_columns(
        data, y_true=y_true, y_pred=y_pred, group=group, sample_weight=sample_weight
    )
    y, yhat = as_binary_pair(cols["y_true"], cols["y_pred"], pos_label)
    weights, exponent = cols["sample_weight"], 0
    if weights is not None:
        weights, exponent = as_weights(weights, "sample_weight", return_exponent=True)
    raw_group = cols["group"]
    check_same_length(y_true=y, y_pred=yhat, group=raw_group, sample_weight=weights)
    codes, labels = as_groups(raw_group, "group", min_groups=min_groups)
    return y, yhat, weights, codes, labels, exponent
