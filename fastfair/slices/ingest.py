"""Ingest: the slice search's options checked once, the features coded as levels.

Every feature becomes integer codes 0..L-1 with a label per level:

* a numeric feature (float with more distinct values than ``bins``, or integer with more
  than ``max_levels``) is cut at its quantiles into at most ``bins`` intervals
  ``[low, high)`` (the last one closed), and the edges are reported;
* any other feature keeps its values as levels (the project's group coder), refused when
  it has more than ``max_levels`` of them (bin it, or group rare levels, first);
* a missing value (None, NaN, pandas NA, an empty string) is a level of its own, labelled
  ``"missing"``: rows whose feature is unknown form a slice like any other.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fastfair._metrics import get_metric
from fastfair._validation import (
    as_1d,
    as_binary,
    as_finite_float,
    as_groups,
    check_choice,
    check_int,
    check_level,
    check_resamples,
    check_same_length,
    resolve_columns,
    score_threshold,
    show_value,
)

__all__ = [
    "MISSING", "CodedFeatures", "SliceOptions", "check_options", "check_slice_count",
    "code_features", "permutations_to_reach", "plain_level", "rows", "slice_count_bound",
]  # fmt: skip

MISSING = "missing"
ADJUSTMENTS = ("maxT", "by", "bonferroni")
ALTERNATIVES = ("two-sided", "greater", "less")


@dataclass(frozen=True)
class SliceOptions:
    """The search's options, checked once."""

    metric: str
    max_depth: int
    min_size: int
    n_permutations: int
    adjust: str
    alpha: float
    alternative: str
    bins: int
    max_levels: int
    max_slices: int


@dataclass(frozen=True)
class CodedFeatures:
    """Features as level codes: ``codes[k]`` is feature k's level of each row."""

    names: tuple
    codes: tuple
    levels: tuple
    bins: dict


def check_options(metric, max_depth, min_size, n_permutations, adjust, alpha, alternative,
                  bins, max_levels, max_slices) -> SliceOptions:  # fmt: skip
    """The options as a :class:`SliceOptions`; ValueError/TypeError naming the argument."""
    chosen = get_metric(metric)
    if chosen.n_parts != 1:
        raise ValueError(
            f"metric={metric!r} tests several rates jointly; find_slices tests one rate "
            "(e.g. 'tpr' and 'fpr' in two searches)"
        )
    options = SliceOptions(
        metric=chosen.name,
        max_depth=check_int(max_depth, "max_depth", 1, 6),
        min_size=check_int(min_size, "min_size", 1),
        n_permutations=check_resamples(n_permutations, "n_permutations", 19),
        adjust=_check_adjust(adjust),
        alpha=check_level(alpha, "alpha"),
        alternative=check_choice(alternative, "alternative", ALTERNATIVES),
        bins=check_int(bins, "bins", 2, 100),
        max_levels=check_int(max_levels, "max_levels", 2),
        max_slices=check_int(max_slices, "max_slices", 1),
    )
    need = permutations_to_reach(options.alpha)
    if options.adjust == "maxT" and options.n_permutations < need:
        raise ValueError(
            f"n_permutations={options.n_permutations} cannot reach alpha={options.alpha} "
            f"with adjust='maxT' (its smallest p-value is 1/(n_permutations + 1)); give "
            f"n_permutations >= {need}"
        )
    return options


def permutations_to_reach(alpha: float) -> int:
    """The fewest joint permutations B (at least 19) whose smallest max-T p-value,
    1 / (B + 1), is at most `alpha`.

    Examples
    --------
    >>> permutations_to_reach(0.05), permutations_to_reach(0.01), permutations_to_reach(0.5)
    (19, 99, 19)
    """
    b = max(math.ceil(1.0 / alpha) - 1, 19)
    while 1.0 / (b + 1) > alpha:
        b += 1
    while b > 19 and 1.0 / b <= alpha:
        b -= 1
    return b


def _check_adjust(adjust) -> str:
    if isinstance(adjust, str) and adjust.lower() in ("maxt", "by", "bonferroni"):
        return {"maxt": "maxT"}.get(adjust.lower(), adjust.lower())
    raise ValueError(f"adjust must be one of {list(ADJUSTMENTS)}, got {show_value(adjust)}")


def rows(data, y_true, y_pred, y_score, threshold, features):
    """(y_true, y_pred, {name: column}) with pandas inputs paired by index."""
    if (y_pred is None) == (y_score is None):
        raise ValueError("give exactly one of y_pred and y_score")
    names, columns = _feature_columns(data, features)
    resolved = resolve_columns(
        data, y_true=y_true, y_pred=y_pred, y_score=y_score,
        **{f"feature {k}": v for k, v in zip(names, columns)},
    )  # fmt: skip
    truth = as_binary(resolved["y_true"], "y_true")
    if y_score is not None:
        score = as_finite_float(resolved["y_score"], "y_score")
        cut = score_threshold(score, threshold, "y_score", "threshold")
        pred = (score >= cut).astype(np.uint8)
    else:
        pred = as_binary(resolved["y_pred"], "y_pred")
    columns = {k: resolved[f"feature {k}"] for k in names}
    check_same_length(
        y_true=truth, y_pred=pred, **{f"feature {k!r}": v for k, v in columns.items()}
    )
    return truth, pred, columns


def _feature_columns(data, features):
    if isinstance(features, str) or features is None:
        raise TypeError("features must be a list of column names of data, or a dict name -> array")
    if isinstance(features, dict):
        items = list(features.items())
    else:
        if data is None:
            raise ValueError("features given as names need data (a DataFrame or mapping)")
        items = [(name, name) for name in features]
    if not items:
        raise ValueError("features is empty: give at least one feature to slice by")
    names = [str(k) for k, _ in items]
    if len(set(names)) != len(names):
        raise ValueError(f"features must be distinct, got {names}")
    return names, [v for _, v in items]


def code_features(columns: dict, options: SliceOptions) -> CodedFeatures:
    """Each feature's level codes and labels (numeric ones binned, missing a level)."""
    codes, levels, bins = [], [], {}
    for name, column in columns.items():
        code, labels, edges = _code_feature(column, name, options)
        codes.append(code)
        levels.append(tuple(labels))
        if edges is not None:
            bins[name] = edges
    return CodedFeatures(tuple(columns), tuple(codes), tuple(levels), bins)


def _code_feature(column, name: str, options: SliceOptions):
    arr = as_1d(column, f"feature {name!r}")
    missing = _missing(column, arr)
    present = arr[~missing] if missing.any() else arr
    if present.size == 0:
        raise ValueError(f"feature {name!r} has only missing values")
    edges = None
    if present.dtype.kind == "f" and _many_values(present, options.bins):
        code, labels, edges = _bin(present, name, options.bins)
    else:
        code, labels = as_groups(present, f"feature {name!r}", min_groups=1)
        labels = [plain_level(v) for v in labels]
        if present.dtype.kind in "iu" and len(labels) > options.max_levels:
            code, labels, edges = _bin(present.astype(np.float64), name, options.bins)
        elif len(labels) + bool(missing.any()) > options.max_levels:
            raise ValueError(
                f"feature {name!r} has {len(labels) + bool(missing.any())} levels, more than "
                f"max_levels={options.max_levels}: group its rare levels or bin it (e.g. "
                "pandas.cut / pandas.qcut) first, or raise max_levels"
            )
    if missing.any():
        full = np.full(arr.shape[0], len(labels), dtype=np.intp)
        full[~missing] = code
        return full, [*labels, MISSING], edges
    return np.asarray(code, dtype=np.intp), list(labels), edges


def _missing(column, arr: np.ndarray) -> np.ndarray:
    if arr.dtype.kind in "fc":
        return np.isnan(arr)
    if arr.dtype.kind in "iub":
        return np.zeros(arr.shape[0], dtype=bool)
    import pandas as pd

    missing = np.asarray(pd.isna(arr))
    if arr.dtype.kind in "OUS":
        text = np.array([isinstance(v, str) and not v.strip() for v in arr], dtype=bool)
        missing = missing | text
    return missing


def _many_values(values: np.ndarray, bins: int) -> bool:
    """More than `bins` distinct values (a head of the column usually decides it)."""
    return len(np.unique(values[:100_000])) > bins or len(np.unique(values)) > bins


def _bin(values: np.ndarray, name: str, bins: int):
    if not np.isfinite(values).all():
        raise ValueError(f"feature {name!r} has infinite values; bin it yourself or drop them")
    edges = np.unique(np.quantile(values, np.linspace(0.0, 1.0, bins + 1)))
    inner = edges[1:-1]
    code = np.searchsorted(inner, values, side="right")
    labels = [
        f"[{_short(edges[k])}, {_short(edges[k + 1])}{']' if k == len(edges) - 2 else ')'}"
        for k in range(len(edges) - 1)
    ]
    return code, labels, edges


def _short(x: float) -> str:
    return f"{x:.4g}"


def plain_level(value):
    """A level label as a plain Python value (numpy scalars unwrapped, 2.0 as 2)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def slice_count_bound(n_levels, max_depth: int) -> int:
    """Upper bound on the number of slices: sum over attribute sets of at most max_depth
    features of the product of their level counts (elementary symmetric polynomials)."""
    e = [1] + [0] * max_depth
    for n in n_levels:
        for k in range(max_depth, 0, -1):
            e[k] += e[k - 1] * n
    return int(sum(e[1:]))


def check_slice_count(levels, options: SliceOptions, n_cells: int) -> None:
    """Refuse, before enumerating, a search whose slices would not fit (say how many)."""
    bound = slice_count_bound([len(x) for x in levels], options.max_depth)
    n_sets = sum(math.comb(len(levels), k) for k in range(1, options.max_depth + 1))
    if bound > options.max_slices:
        memory = (bound * 80 + n_sets * n_cells * 4) / 2**30
        raise ValueError(
            f"max_depth={options.max_depth} over {len(levels)} features may give up to "
            f"{bound:,} slices (about {memory:.1f} GiB), more than max_slices="
            f"{options.max_slices:,}: lower max_depth, use fewer features or fewer levels "
            "(bins=), or raise max_slices"
        )
