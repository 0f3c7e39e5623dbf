"""Input coercion and validation shared by every fastfair function.

Arrays may come as numpy arrays, pandas Series/Categoricals, lists or anything array-like;
errors name the argument and say what is wrong.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping

import numpy as np

__all__ = [
    "as_1d",
    "as_binary",
    "as_finite_float",
    "as_groups",
    "check_int",
    "check_resamples",
    "check_same_length",
    "resolve_columns",
]

_MAX_DIRECT_RANGE = 1 << 22  # integer group labels spanning at most this are coded by lookup


def resolve_columns(data, **columns):
    """Replace column names by columns of `data` (a pandas DataFrame or a mapping).

    Arguments that are not strings (already arrays) pass through unchanged; None stays None.
    """
    if data is None:
        return columns
    if not (isinstance(data, Mapping) or hasattr(data, "columns")):
        raise TypeError(f"data must be a pandas DataFrame or a mapping, got {type(data).__name__}")
    available = list(data.columns) if hasattr(data, "columns") else list(data.keys())
    resolved = {}
    for arg, value in columns.items():
        if isinstance(value, str):
            if value not in available:
                raise ValueError(
                    f"{arg}={value!r} is not a column of data; available: {available}"
                )
            resolved[arg] = data[value]
        else:
            resolved[arg] = value
    return resolved


def as_1d(values, name: str) -> np.ndarray:
    """Return `values` as a 1-D numpy array (pandas objects keep their values, not index)."""
    if values is None:
        raise TypeError(f"{name} is required, got None")
    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        values = values.to_numpy()
    arr = np.asarray(values)
    if arr.ndim == 0:
        raise ValueError(f"{name} must be 1-D array-like, got a scalar")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got an array of shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    return arr


def _has_missing(arr: np.ndarray) -> bool:
    if arr.dtype.kind == "f" or arr.dtype.kind == "c":
        return bool(np.isnan(arr).any())
    if arr.dtype.kind == "O":
        return any(v is None or (isinstance(v, float) and v != v) for v in arr)
    return False


def as_finite_float(values, name: str) -> np.ndarray:
    """Return `values` as a contiguous float64 array with no NaN or infinity."""
    arr = as_1d(values, name)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be numeric, got dtype {arr.dtype}")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if not np.isfinite(arr).all():
        bad = "NaN" if np.isnan(arr).any() else "infinite values"
        raise ValueError(f"{name} contains {bad}")
    return arr


def as_binary(values, name: str, pos_label=None) -> np.ndarray:
    """Return a binary label array as uint8 (1 = positive).

    Accepts bool, {0, 1}, and any two-valued labels with `pos_label` naming the positive one
    ({-1, 1} is understood without it). A column with a single value is accepted.
    """
    arr = as_1d(values, name)
    if arr.dtype == np.bool_:
        if pos_label is not None and pos_label not in (True, 1):
            return (~arr).view(np.uint8) if pos_label in (False, 0) else _bad_pos(name, pos_label)
        return np.ascontiguousarray(arr).view(np.uint8)
    if _has_missing(arr):
        raise ValueError(f"{name} contains missing values (NaN/None)")
    if arr.dtype.kind in "iuf" and pos_label in (None, 1):
        is_one = arr == 1
        if (is_one | (arr == 0)).all():
            return is_one.view(np.uint8)
    values_seen = np.unique(arr)
    if len(values_seen) > 2:
        shown = ", ".join(repr(v) for v in values_seen[:5].tolist())
        more = ", ..." if len(values_seen) > 5 else ""
        raise ValueError(
            f"{name} must be binary, got {len(values_seen)} distinct values ({shown}{more})"
        )
    if pos_label is None:
        if set(values_seen.tolist()) <= {-1, 1}:
            pos_label = 1
        else:
            raise ValueError(
                f"{name} has values {values_seen.tolist()}; "
                "pass pos_label to say which is positive"
            )
    if pos_label not in values_seen.tolist():
        if len(values_seen) == 2:
            _bad_pos(name, pos_label, values_seen)
    return (arr == pos_label).view(np.uint8)


def _bad_pos(name, pos_label, values_seen=None):
    seen = "" if values_seen is None else f"; its values are {values_seen.tolist()}"
    raise ValueError(f"pos_label={pos_label!r} does not occur in {name}{seen}")


def as_groups(values, name: str = "group", min_groups: int = 2):
    """Code group labels as 0..K-1 in sorted label order.

    Returns (codes, labels): codes is an intp array, labels[k] the label of code k. Integer
    labels are coded in O(n) by table lookup; other labels by sorting. Categorical inputs
    keep only the categories that occur.
    """
    if hasattr(values, "cat") and hasattr(values.cat, "codes"):
        codes = np.asarray(values.cat.codes, dtype=np.intp)
        if (codes < 0).any():
            raise ValueError(f"{name} contains missing values")
        labels = np.asarray(values.cat.categories)
        used = np.bincount(codes, minlength=len(labels)) > 0
        if not used.all():
            remap = np.cumsum(used) - 1
            codes, labels = remap[codes].astype(np.intp), labels[used]
    else:
        arr = as_1d(values, name)
        if _has_missing(arr):
            raise ValueError(f"{name} contains missing values (NaN/None)")
        codes = labels = None
        if arr.dtype.kind in "iub":
            lo, hi = int(arr.min()), int(arr.max())
            if hi - lo < _MAX_DIRECT_RANGE:
                shifted = arr.astype(np.intp, copy=False)
                if lo != 0:
                    shifted = shifted - lo
                present = np.bincount(shifted, minlength=hi - lo + 1) > 0
                if present.all():  # labels lo..hi all occur: the shifted values are the codes
                    codes = shifted
                else:  # np.take: several times faster than fancy indexing here
                    codes = np.take(np.cumsum(present) - 1, shifted)
                labels = (np.flatnonzero(present) + lo).astype(arr.dtype)
        if codes is None:
            try:
                labels, codes = np.unique(arr, return_inverse=True)
            except TypeError as exc:
                raise TypeError(f"{name} mixes label types that cannot be ordered") from exc
            codes = codes.astype(np.intp, copy=False).ravel()
    if len(labels) < min_groups:
        raise ValueError(
            f"{name} must contain at least {min_groups} groups, got {len(labels)}"
            + (f" ({labels.tolist()[0]!r})" if len(labels) == 1 else "")
        )
    return np.ascontiguousarray(codes), labels


def check_same_length(**arrays) -> int:
    """Raise ValueError unless every given array (None skipped) has the same length."""
    lengths = {k: len(v) for k, v in arrays.items() if v is not None}
    if len(set(lengths.values())) > 1:
        detail = ", ".join(f"{k} has {n}" for k, n in lengths.items())
        raise ValueError(f"inputs must have the same length: {detail}")
    return next(iter(lengths.values()))


def check_int(value, name: str, minimum: int, maximum: int | None = None) -> int:
    """Return `value` as int, raising TypeError/ValueError unless an integer in range.

    numpy integers are accepted like Python ints.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {_show(value)}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {int(value)}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be <= {maximum:,}, got {int(value):,}")
    return int(value)


MAX_RESAMPLES = 10**8
"""Largest number of permutations or bootstrap samples: p-values to 1e-8, and at most
800 MB for one comparison's null distribution."""


def check_resamples(value, name: str, minimum: int = 1) -> int:
    """`check_int` for a number of permutations or bootstrap samples (at most MAX_RESAMPLES),
    checked before anything is allocated."""
    return check_int(value, name, minimum, MAX_RESAMPLES)


def _show(value) -> str:
    """repr of a value as the user wrote it: numpy scalars shown as Python scalars."""
    if isinstance(value, np.generic):
        value = value.item()
    return repr(value)


def check_choice(value, name: str, choices) -> str:
    """Raise ValueError unless value is one of `choices`."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}, got {value!r}")
    return value
