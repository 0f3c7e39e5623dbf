"""Ingest: the options and the data checked and coerced once (sample size and power)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from fastfair._metrics import METRIC_ALIASES
from fastfair._validation import (
    align_index,
    as_binary,
    as_binary_pair,
    as_groups,
    check_resamples,
    check_same_length,
    show_value,
)

#: rate metrics: name -> (complement, denominator fraction) where the denominator fraction is
#: the share of the group in the metric's denominator: "prevalence" (P(y=1)), "negatives"
#: (1 - prevalence), "selection_rate" (P(yhat=1)), "non_selected" (1 - selection rate), or None
#: (the whole group).
_RATE_METRICS: dict[str, tuple[str | None, str | None]] = {
    "selection_rate": (None, None),
    "tpr": ("fnr", "prevalence"),
    "fnr": ("tpr", "prevalence"),
    "tnr": ("fpr", "negatives"),
    "fpr": ("tnr", "negatives"),
    "ppv": ("fdr", "selection_rate"),
    "fdr": ("ppv", "selection_rate"),
    "npv": ("for", "non_selected"),
    "for": ("npv", "non_selected"),
    "accuracy": ("error_rate", None),
    "error_rate": ("accuracy", None),
}
_METRICS = (*_RATE_METRICS, "auc")
_RATE_KEYS = frozenset((*_METRICS, "prevalence"))
_ALTERNATIVES = ("two-sided", "greater")


def _check_metric(metric: Any, *, allow_none: bool = False) -> str | None:
    if metric is None and allow_none:
        return None
    if not isinstance(metric, str):
        raise TypeError(f"metric must be a string, one of {_METRICS}; got {show_value(metric)}")
    name = METRIC_ALIASES.get(metric.lower(), metric.lower())
    if name not in _METRICS:
        raise ValueError(f"unknown metric {metric!r}; expected one of {_METRICS}")
    return name


def _first_outside_01(rates: np.ndarray) -> int | None:
    """Index of the first rate not strictly inside (0, 1) (NaN included), or None."""
    bad = np.flatnonzero(~((rates > 0) & (rates < 1)))
    return int(bad[0]) if bad.size else None


def _as_rate_dict(rates: Any) -> dict[str, np.ndarray]:
    if not isinstance(rates, Mapping):
        raise TypeError(
            "rates must be a mapping from rate name to per-group values, e.g. "
            "{'tpr': [0.68, 0.79], 'prevalence': [0.35, 0.44]}; got " + type(rates).__name__
        )
    out: dict[str, np.ndarray] = {}
    k = None
    for key, val in rates.items():
        if key not in _RATE_KEYS:
            raise ValueError(f"unknown rate {key!r} in rates; allowed names: {sorted(_RATE_KEYS)}")
        arr = np.asarray(val, dtype=float)
        if arr.ndim != 1 or arr.size < 2:
            raise ValueError(
                f"rates[{key!r}] must be a 1-d sequence with one value per group (at least "
                f"two groups); got shape {arr.shape}"
            )
        if k is None:
            k = arr.size
        elif arr.size != k:
            raise ValueError(
                f"all rates must have one value per group; rates[{key!r}] has {arr.size} "
                f"values, others have {k}"
            )
        i = _first_outside_01(arr)
        if i is not None:
            raise ValueError(
                f"rates[{key!r}][{i}] = {show_value(arr[i])} is outside the open interval (0, 1); "
                "planning needs every rate strictly between 0 and 1"
            )
        out[key] = arr
    if not out:
        raise ValueError("rates is empty")
    return out


def _check_open01(x: Any, name: str) -> float:
    try:
        v = float(x)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number in (0, 1); got {show_value(x)}") from None
    if not (0.0 < v < 1.0):
        raise ValueError(f"{name} must be strictly between 0 and 1; got {show_value(v)}")
    return v


def _check_alternative(alternative: Any) -> str:
    if alternative not in _ALTERNATIVES:
        raise ValueError(
            f"alternative must be one of {_ALTERNATIVES} ('two-sided' uses z_(1-alpha/2) as the "
            f"paper does, 'greater' uses z_(1-alpha)); got {show_value(alternative)}"
        )
    return alternative


def _check_u_tol(u_tol: Any, metric: str | None = None) -> float:
    try:
        v = float(u_tol)
    except (TypeError, ValueError):
        raise TypeError(f"u_tol must be a number; got {show_value(u_tol)}") from None
    if not np.isfinite(v) or v < 0:
        raise ValueError(
            f"u_tol (the tolerated unfairness) must be finite and >= 0; got {show_value(v)}"
        )
    if metric is not None and v >= 1:
        raise ValueError(
            f"u_tol (={v!r}) must be below 1: {metric} is a rate, so differences are below 1"
        )
    return v


def _check_tau(
    tau: Any, u_tol: float, *, strict: bool = True, metric: str | None = None
) -> np.ndarray:
    """tau as an array; finite, > u_tol when strict, and < 1 for a named metric (every
    metric of the planner is a rate or an AUC, whose differences are below 1)."""
    try:
        t = np.asarray(tau, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(
            f"tau must be a number or an array of numbers; got {show_value(tau)}"
        ) from None
    if not np.all(np.isfinite(t)):
        raise ValueError("tau must be finite")
    if metric is not None and np.any(np.abs(t) >= 1):
        bad = float(t.flat[int(np.flatnonzero(np.abs(t).ravel() >= 1)[0])])
        raise ValueError(
            f"tau (={bad!r}) must be below 1: {metric} is a rate, so differences are below 1"
        )
    if strict and np.any(t <= u_tol):
        bad = float(t.flat[int(np.flatnonzero(t.ravel() <= u_tol)[0])])
        raise ValueError(
            f"tau (the presumed unfairness, here {bad!r}) must exceed u_tol (={u_tol!r}); use the "
            "absolute difference of the metric between the groups"
        )
    return t


def _check_reference(reference_index: Any, k: int) -> int:
    if isinstance(reference_index, bool) or not isinstance(reference_index, int | np.integer):
        raise TypeError(
            f"reference_index must be a group position (int); got {show_value(reference_index)}"
        )
    r = int(reference_index)
    if not -k <= r < k:
        raise ValueError(f"reference_index={r} is out of range for {k} groups")
    return r % k


def _check_population(population_sizes: Any, k: int) -> np.ndarray | None:
    if population_sizes is None:
        return None
    n = np.broadcast_to(np.asarray(population_sizes, dtype=float), (k,)).copy()
    if not np.all(np.isfinite(n) & (n > 0)):
        raise ValueError(
            f"population_sizes must be finite and > 0; got {show_value(population_sizes)}"
        )
    return n


def _check_feasible(n_per_group: np.ndarray, population: np.ndarray | None) -> None:
    if population is None:
        return
    over = n_per_group > population * (1 + 1e-12)
    if np.any(over):
        g = int(np.flatnonzero(np.any(over.reshape(-1, over.shape[-1]), axis=0))[0])
        raise ValueError(
            f"the design needs more units from group {g} than its population size "
            f"({population[g]:g}); the target cannot be reached with this allocation"
        )


_MAX_UNITS = 2.0**62  # sample sizes are int64: refuse, rather than wrap, beyond this


def _check_delta(delta: Any, u_tol: float) -> float | None:
    if delta is None:
        return None
    try:
        v = float(delta)
    except (TypeError, ValueError):
        raise TypeError(f"delta must be a number; got {show_value(delta)}") from None
    if not np.isfinite(v) or v <= 0:
        raise ValueError(
            f"delta (the equivalence margin) must be finite and > 0; got {show_value(delta)}"
        )
    if u_tol != 0:
        raise ValueError("give u_tol (a tolerance test) or delta (an equivalence test), not both")
    return v


def _needed_rates(metric: str) -> list[str]:
    """The rates a metric's unit variance needs: its own, then its denominator's share."""
    if metric == "auc":
        return ["auc", "prevalence"]
    _, den = _RATE_METRICS[metric]
    need = [metric]
    if den in ("prevalence", "negatives"):
        need.append("prevalence")
    elif den in ("selection_rate", "non_selected"):
        need.append("selection_rate")
    return need


def _metric_rate_names(metric: str) -> list[str]:
    """Rates to estimate for a metric (own rate expressed by the stored primary name)."""
    primary = {"fnr": "tpr", "fpr": "tnr", "fdr": "ppv", "for": "npv", "error_rate": "accuracy"}
    return [primary.get(r, r) for r in _needed_rates(metric)]


@dataclass(frozen=True)
class _Pilot:
    """Pilot rows of :func:`plan_from_data`, checked once: 0/1 labels (all 0 when a
    selection-rate pilot has none), 0/1 predictions or finite scores (AUC), dense group
    codes, and the position of the reference group."""

    y_true: np.ndarray
    y_pred: np.ndarray
    codes: np.ndarray
    labels: np.ndarray
    reference_index: int


def _check_pilot(
    y_true: Any, y_pred: Any, group: Any, metric: str, reference: Any, pos_label: Any
) -> _Pilot:
    y_true, y_pred, group = align_index(y_true=y_true, y_pred=y_pred, group=group).values()
    check_same_length(y_true=y_true, y_pred=y_pred, group=group)
    codes, labels = as_groups(group, "group")
    codes = np.asarray(codes, dtype=np.intp)
    if metric == "auc":
        yp = np.asarray(y_pred, dtype=float)
        if yp.ndim != 1 or not np.all(np.isfinite(yp)):
            raise ValueError("y_pred must be 1-d finite scores for metric='auc'")
    elif y_true is None:
        yp = np.asarray(as_binary(y_pred, "y_pred", pos_label), dtype=np.uint8)
    if y_true is None:
        if metric != "selection_rate":
            raise ValueError(f"y_true is required for metric {metric!r}")
        yt = np.zeros(yp.size, dtype=np.uint8)
    elif metric == "auc":
        yt = np.asarray(as_binary(y_true, "y_true", pos_label), dtype=np.uint8)
    else:
        yt, yp = as_binary_pair(y_true, y_pred, pos_label)
    if reference is None:  # as in permutation_test: the group with the most rows
        ref = int(np.argmax(np.bincount(codes, minlength=len(labels))))
    else:
        hits = np.flatnonzero(labels == reference)
        if hits.size == 0:
            raise ValueError(
                f"reference {show_value(reference)} is not a group label; "
                f"labels: {labels.tolist()}"
            )
        ref = int(hits[0])
    return _Pilot(yt, yp, codes, labels, ref)


def _check_pilot_rates(point: dict[str, np.ndarray], labels: np.ndarray) -> None:
    """Planning needs every pilot rate strictly inside (0, 1)."""
    for r, v in point.items():
        g = _first_outside_01(v)
        if g is not None:
            raise ValueError(
                f"the pilot estimate of {r!r} in group {labels.tolist()[g]!r} is {float(v[g])!r}: "
                "planning needs rates strictly inside (0, 1); collect a larger pilot or give "
                "rates directly"
            )


@dataclass(frozen=True)
class _Simulation:
    """The checked design of :func:`simulate_power`: two groups' rates and sizes, the true
    difference ``M_0 - M_1`` (and its sign), the test and its hypothesis."""

    metric: str
    rates: dict[str, np.ndarray]
    sigma2: np.ndarray
    values: np.ndarray
    n_per_group: np.ndarray
    n_sim: int
    test: str
    alpha: float
    alternative: str
    u_tol: float
    delta: float | None
    difference: float
    sign: float


def _check_simulation(
    metric: str,
    rates: dict[str, np.ndarray],
    sigma2: np.ndarray,
    values: np.ndarray,
    n_per_group: Any,
    tau: Any,
    alpha: Any,
    alternative: Any,
    n_sim: Any,
    test: Any,
    u_tol: Any,
    delta: Any,
) -> _Simulation:
    """Check the options of :func:`simulate_power` against each other and the rates."""
    if sigma2.size != 2:
        raise ValueError(f"simulate_power supports two groups; got {sigma2.size}")
    alpha = _check_open01(alpha, "alpha")
    alternative = _check_alternative(alternative)
    npg = np.asarray(n_per_group)
    if npg.shape != (2,) or not np.all(npg == np.round(npg)) or np.any(npg < 2):
        raise ValueError(f"n_per_group must be two integers >= 2; got {show_value(n_per_group)}")
    n_sim = check_resamples(n_sim, "n_sim")
    if test not in ("permutation", "wald", "score"):
        raise ValueError(f"test must be 'permutation', 'wald' or 'score'; got {show_value(test)}")
    u_tol = _check_u_tol(u_tol, metric)
    delta = _check_delta(delta, u_tol)
    if test == "permutation" and (u_tol != 0 or delta is not None):
        raise ValueError(
            "permutation tests test equality: use test='score' or 'wald' with u_tol or delta"
        )
    if test == "score" and metric == "auc":
        raise ValueError("test='score' is for rate metrics; use test='wald' (DeLong) for AUC")
    diff = float(values[0] - values[1])
    if diff == 0 and delta is None:
        raise ValueError("the rates give no difference between the groups (power = size)")
    if tau is not None and not abs(abs(diff) - float(tau)) <= 1e-3:  # NaN does not match
        raise ValueError(
            f"tau (={tau!r}) does not match the difference implied by rates ({abs(diff):.6g})"
        )
    if test == "permutation" and metric == "auc":
        raise ValueError(
            "fastfair.permutation_test has no AUC metric; use test='wald' for metric='auc'"
        )
    sign = 1.0 if diff == 0 else float(np.sign(diff))
    return _Simulation(
        metric, rates, sigma2, values, npg.astype(np.int64), n_sim, test, alpha, alternative,
        u_tol, delta, diff, sign,
    )  # fmt: skip
