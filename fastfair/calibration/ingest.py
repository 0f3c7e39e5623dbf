"""Ingest: the options and the data checked and coerced once (calibration and impact)."""

from __future__ import annotations

import numbers

import numpy as np

from fastfair._validation import (
    as_finite_float,
    as_groups,
    as_probabilities,
    check_same_length,
    show_value,
)
from fastfair.calibration.results import _key

CALIBRATION_METHODS = ("nadaraya_watson", "platt", "isotonic")
ERROR_ESTIMATORS = ("nadaraya_watson", "ece_equal_mass", "ece_equal_width", "msce")
#: Default number of bins of the Nadaraya-Watson calibrator (bin edges = n_bins + 1 points).
DEFAULT_CALIBRATION_BINS = 100


def _numeric_array(values, name: str) -> np.ndarray:
    """`values` as a float64 array of any shape; TypeError naming `name` when not numeric."""
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be numeric") from None


def _check_binary(y, what: str):
    if not np.isin(y, (0.0, 1.0)).all():
        raise ValueError(f"{what} needs binary outcomes y (0/1 or bool)")


def _score_matrix(values, name, k=None) -> np.ndarray:
    """`values` as a finite (n, K) float array (a 1-D array is one column)."""
    arr = _numeric_array(values, name)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array (n, K)")
    if k is not None and arr.shape[1] != k:
        raise ValueError(f"{name} must have {k} columns, got {arr.shape[1]}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def _prep_xy(y_true, y_score):
    """Outcomes and predicted probabilities (the calibration errors compare the two)."""
    s = as_probabilities(y_score, "y_score", "predicted probabilities")
    yv = as_finite_float(y_true, "y_true")
    check_same_length(y_true=yv, y_score=s)
    if s.size == 0:
        raise ValueError("y_score is empty")
    return yv, s


def _check_fitted(calibrator) -> None:
    """RuntimeError unless `calibrator` has been fitted."""
    if not hasattr(calibrator, "groups_"):
        name = type(calibrator).__name__
        raise RuntimeError(f"this {name} is not fitted yet: call fit first")


def _fitted_codes(calibrator, group, n) -> np.ndarray:
    """Codes of `group` in the fitted groups of `calibrator` (groups_ and whether it was
    fitted with groups); all zero when it was fitted without."""
    _check_fitted(calibrator)
    if group is None:
        if calibrator._fitted_with_group:
            raise TypeError("group is required: the calibrator was fitted with groups")
        return np.zeros(n, dtype=np.intp)
    codes, labels = as_groups(group, "group", min_groups=1)
    index = {_key(g): k for k, g in enumerate(calibrator.groups_)}
    unseen = [_key(g) for g in labels if _key(g) not in index]
    if unseen:
        raise ValueError(
            f"group contains label(s) {unseen[:5]} not seen in fit; fitted groups are "
            f"{[_key(g) for g in calibrator.groups_]}"
        )
    lookup = np.array([index[_key(g)] for g in labels], dtype=np.intp)
    return lookup[codes]


def _group_codes(group, **rows) -> tuple[np.ndarray, np.ndarray]:
    """Codes and labels of `group`, as long as the one array in `rows` (which the length
    error names); one group labelled "all" when group is None."""
    ((_, values),) = rows.items()
    if group is None:
        return np.zeros(len(values), dtype=np.intp), np.array(["all"], dtype=object)
    codes, labels = as_groups(group, "group", min_groups=1)
    check_same_length(**rows, group=codes)
    return codes, labels


def _cluster_weights(cluster, weighting: str, **rows) -> np.ndarray:
    """Row weights 1/n_m per user (cluster given, weighting "per_user"), else 1; the cluster
    as long as the one array in `rows`."""
    ((_, values),) = rows.items()
    if cluster is None or weighting != "per_user":
        return np.ones(len(values))
    codes, _ = as_groups(cluster, "cluster", min_groups=1)
    check_same_length(**rows, cluster=codes)
    return 1.0 / np.bincount(codes)[codes]


def _check_threshold(threshold) -> None:
    """TypeError unless `threshold` is a real number (not a bool)."""
    if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real):
        raise TypeError(f"threshold must be a number, got {show_value(threshold)}")


def _check_norm_order(p) -> None:
    """ValueError unless `p` is a real number >= 1 (the order of the calibration errors)."""
    if not (isinstance(p, numbers.Real) and p >= 1):
        raise ValueError(f"p must be a number >= 1, got {show_value(p)}")
