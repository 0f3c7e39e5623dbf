"""Ingest: the monitor's options, checked once, and each batch's columns coerced."""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from fastfair._metrics import get_metric
from fastfair._validation import (
    as_binary_values,
    as_finite_float,
    as_groups,
    check_level,
    check_same_length,
    resolve_columns,
    show_value,
)

__all__ = ["FORMAT", "VERSION", "MonitorOptions", "batch_rows", "check_options", "plain_label"]

#: The saved state's format name and version (``to_json``); a state of another version is
#: refused rather than read wrongly.
FORMAT = "fastfair.FairnessMonitor"
VERSION = 1
DEFAULT_METRICS = ("tpr", "fpr", "selection_rate")


@dataclass(frozen=True)
class MonitorOptions:
    """The configuration a monitor's state belongs to (stored in its JSON, checked on load)."""

    metrics: tuple
    reference: object
    groups: tuple | None
    max_groups: int
    alpha: float
    tolerance: float | None
    threshold: float
    resolution: float

    def to_dict(self) -> dict:
        out = dict(self.__dict__)
        out["metrics"] = list(self.metrics)
        out["groups"] = None if self.groups is None else list(self.groups)
        out["max_groups"] = self.max_groups or None  # 0: fixed by the first batch
        return out


def plain_label(value, name: str = "group label"):
    """A group label as a JSON-ready Python value (str, int, float or bool)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool) or isinstance(value, (str, int)):
        return value
    if isinstance(value, float) and np.isfinite(value):
        return int(value) if value.is_integer() else value
    raise TypeError(f"{name} must be a string, number or boolean, got {show_value(value)}")


def _check_metrics(metrics) -> tuple:
    if isinstance(metrics, str):
        metrics = (metrics,)
    names = []
    for m in metrics:
        metric = get_metric(m)
        if metric.n_parts != 1:
            raise ValueError(
                f"metric {m!r} joins several rates; monitor its parts (e.g. 'tpr' and 'fpr')"
            )
        names.append(metric.name)
    if not names or len(set(names)) != len(names):
        raise ValueError(f"metrics must be distinct rate metrics, got {list(metrics)}")
    return tuple(names)


def _check_number(value, name: str, low: float, high: float) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {show_value(value)}")
    if not low < float(value) < high:
        raise ValueError(f"{name} must be in ({low:g}, {high:g}), got {show_value(value)}")
    return float(value)


def check_options(
    metrics, reference, groups, max_groups, alpha, tolerance, threshold, resolution
) -> MonitorOptions:
    """Every option of :class:`fastfair.FairnessMonitor`, checked before any data."""
    if reference is None:
        raise TypeError("reference is required: the group every other group is compared with")
    reference = plain_label(reference, "reference")
    if groups is not None:
        groups = tuple(plain_label(g) for g in groups)
        if len(set(groups)) != len(groups):
            raise ValueError(f"groups has duplicates: {list(groups)}")
        if reference not in groups:
            raise ValueError(f"reference {reference!r} is not in groups {list(groups)}")
        groups = (reference, *[g for g in groups if g != reference])
    if max_groups is None:
        max_groups = 0 if groups is None else len(groups)
    elif isinstance(max_groups, bool) or not isinstance(max_groups, numbers.Integral):
        raise TypeError(f"max_groups must be an integer, got {show_value(max_groups)}")
    elif max_groups < 2 or (groups is not None and max_groups < len(groups)):
        raise ValueError(f"max_groups must be >= 2 and >= len(groups), got {max_groups}")
    resolution = _check_number(resolution, "resolution", 0.0, 0.1)
    if abs(1.0 / resolution - round(1.0 / resolution)) > 1e-9:
        raise ValueError(f"resolution must divide 1 (e.g. 0.001), got {resolution!r}")
    if tolerance is not None:
        tolerance = _check_number(tolerance, "tolerance", 0.0, 1.0)
    return MonitorOptions(
        metrics=_check_metrics(metrics),
        reference=reference,
        groups=groups,
        max_groups=int(max_groups),
        alpha=check_level(alpha, "alpha"),
        tolerance=tolerance,
        threshold=_check_number(threshold, "threshold", -np.inf, np.inf),
        resolution=resolution,
    )


def _from_arrow(values):
    """An Arrow array or chunked array as numpy (booleans and nulls copied); else as is."""
    if type(values).__module__.split(".")[0] != "pyarrow":
        return values
    return values.to_numpy(zero_copy_only=False)


def batch_rows(y_true, y_pred, y_score, group, data, threshold, pos_label):
    """(y_true, y_pred as uint8, group codes, group labels, {column: its distinct values})
    of one batch of rows; the values of y_pred only when predictions are given."""
    if (y_pred is None) == (y_score is None):
        raise TypeError("give either y_pred or y_score (predictions = score >= threshold)")
    cols = resolve_columns(data, y_true=y_true, y_pred=y_pred, y_score=y_score, group=group)
    cols = {k: _from_arrow(v) for k, v in cols.items()}
    y, seen = as_binary_values(cols["y_true"], "y_true", pos_label, require_pos=False)
    values = {"y_true": seen}
    if y_score is not None:
        yhat = (as_finite_float(cols["y_score"], "y_score") >= threshold).view(np.uint8)
    else:
        yhat, values["y_pred"] = as_binary_values(cols["y_pred"], "y_pred", pos_label,
                                                  require_pos=False)  # fmt: skip
    check_same_length(y_true=y, y_pred=yhat, group=cols["group"])
    codes, labels = as_groups(cols["group"], "group", min_groups=1)
    return y, yhat, codes, labels, values
