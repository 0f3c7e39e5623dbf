"""Ingest: the options and the data checked and coerced once (resampling tests of any metric,
means and correlations)."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from fastfair._comparisons import ComparisonOptions, check_comparison_options, comparison_fields
from fastfair._metrics import CONFUSION_METRICS, METRIC_ALIASES, get_metric
from fastfair._parallel import effective_n_threads
from fastfair._validation import (
    check_choice,
    check_flag,
    check_resamples,
    show_value,
)

#: Built-in row-level metrics: the mean of a per-row value (y = y_true, p = y_pred).
ROW_METRICS = {
    "mse": "mean of (y - p)^2",
    "mae": "mean of |y - p|",
    "mean_residual": "mean of y - p",
    "mean_score": "mean of p (score parity)",
    "mean_outcome": "mean of y (outcome parity)",
}
STUDENTIZE = ("welch", "bootstrap", "bootstrap-fast")


def is_row_metric(metric) -> bool:
    """True when `metric` names a built-in row-level metric (see `ROW_METRICS`)."""
    return isinstance(metric, str) and metric.lower() in ROW_METRICS


METHODS = ("auto", "exact", "monte_carlo", "asymptotic")
ADJUSTMENTS = ("holm", "bonferroni", "none")
#: Largest number of subsets that method="exact" enumerates for a difference of means.
MAX_EXACT_SUBSETS = 200_000
_CHUNK_ELEMENTS = 1 << 20  # gathered values per call of a vectorized metric (per array)
SCALE_BLOCK = 999  # "bootstrap-fast", sequential: permutations that fix the scale
_PROGRESS_GUESS = 1000  # progress-bar length of a sequential test (it has no fixed count)
_OBSERVED = 1 << 62  # bootstrap stream index of the observed data (permutation b uses b)


def _resolve_progress(progress, total: int):
    """A tqdm bar or None: None = auto (installed, stderr is a terminal, long run)."""
    if progress is False or (progress is None and total < 20_000):
        return None
    if progress is None and not (hasattr(sys.stderr, "isatty") and sys.stderr.isatty()):
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        if progress:
            warnings.warn(
                "progress=True needs tqdm (pip install tqdm); running without a progress bar",
                stacklevel=3,
            )
        return None
    return tqdm(total=total, unit="eval", leave=False)


@dataclass(frozen=True)
class _Options(ComparisonOptions):
    """The options of a permutation test over pairs of groups (permutation_test_rows,
    mean_difference_test), checked once (_check_options)."""

    mode: str  # the statistic: "none", "welch", "bootstrap" or "bootstrap-fast"
    method: str
    n_threads: int
    n_bootstrap: int  # bootstrap resamples per variance estimate


def _check_options(arguments: Mapping[str, Any], mode: str) -> _Options:
    """The options shared by permutation_test_rows and mean_difference_test, checked once.

    `arguments`: the public function's arguments by name (its ``locals()`` on entry);
    `mode`: the statistic, read from `studentize`. `scheme`, `n_bootstrap` and
    `confidence_level` take their defaults when the function has no such argument.
    """
    if arguments["adjust"] == "maxT":
        raise ValueError(
            "adjust='maxT' is available for confusion-matrix metrics only; "
            "use 'holm' or 'bonferroni' here"
        )
    fields = comparison_fields(arguments, ADJUSTMENTS)
    method = arguments["method"]
    check_choice(method, "method", METHODS)
    check_choice(arguments.get("scheme", "full"), "scheme", ("full", "conditional"))
    n_bootstrap = check_resamples(arguments.get("n_bootstrap", 200), "n_bootstrap", 2)
    if method == "asymptotic" and mode == "none":
        raise ValueError("method='asymptotic' needs a studentized statistic")
    return _Options(
        **fields,
        mode=mode,
        method=method,
        n_threads=effective_n_threads(arguments["n_jobs"]),
        n_bootstrap=n_bootstrap,
    )


def _check_row_options(arguments: Mapping[str, Any]) -> _Options:
    """permutation_test_rows: the metric (a row metric's name or a callable), the
    studentization it allows, then the options (_check_options)."""
    metric, studentize = arguments["metric"], arguments["studentize"]
    row_metric = isinstance(metric, str)
    if row_metric:
        name = metric.lower()
        if name not in ROW_METRICS:
            if name in CONFUSION_METRICS or name in METRIC_ALIASES:
                raise ValueError(
                    f"studentize={studentize!r} does not apply to the confusion-matrix metric "
                    f"{metric!r}, whose variance has a closed form: use studentize=True or "
                    "False (or pass the metric as a callable to bootstrap it)"
                )
            get_metric(metric)  # raises the unknown-metric error
    elif not callable(metric):
        raise TypeError(f"metric must be a string or a callable, got {type(metric).__name__}")
    mode = _studentize_mode(studentize, row_metric)
    options = _check_options(arguments, mode)
    if options.method == "exact" and (
        not row_metric or arguments["sample_weight"] is not None or mode not in ("welch", "none")
    ):
        raise ValueError(
            "method='exact' is available for unweighted row metrics with studentize "
            "True/'welch' or False"
        )
    return options


def _check_mean_options(arguments: Mapping[str, Any]) -> _Options:
    """mean_difference_test: `studentize` True (Welch) or False, then the options."""
    studentize = check_flag(arguments["studentize"], "studentize")
    if arguments["method"] == "asymptotic" and not studentize:
        raise ValueError("method='asymptotic' needs studentize=True (Welch's t-test)")
    return _check_options(arguments, "welch" if studentize else "none")


def _studentize_mode(studentize, row_metric: bool) -> str:
    """'none', 'welch', 'bootstrap' or 'bootstrap-fast'."""
    if isinstance(studentize, (bool, np.bool_)):
        if not studentize:
            return "none"
        return "welch" if row_metric else "bootstrap"
    if isinstance(studentize, str):
        check_choice(studentize, "studentize", (*STUDENTIZE, True, False))
        if studentize == "welch" and not row_metric:
            raise ValueError(
                "studentize='welch' applies to row-level metrics (means of per-row values); "
                "use 'bootstrap' or 'bootstrap-fast' for a callable metric"
            )
        return studentize
    raise TypeError(
        "studentize must be True, False, 'welch', 'bootstrap' or 'bootstrap-fast', "
        f"got {show_value(studentize)}"
    )


@dataclass(frozen=True)
class _BootstrapOptions:
    """The options of basic_bootstrap_test, checked once (_check_bootstrap_options)."""

    alternative: str
    reference: object
    comparisons: str
    adjust: str
    n_bootstrap: int
    confidence_level: float
    return_null: bool
    random_state: object


def _check_bootstrap_options(arguments: Mapping[str, Any]) -> _BootstrapOptions:
    """basic_bootstrap_test's options (its arguments by name, ``locals()`` on entry)."""
    check_comparison_options(
        arguments["alternative"], arguments["comparisons"], arguments["adjust"], ADJUSTMENTS
    )
    n_bootstrap = check_resamples(arguments["n_bootstrap"], "n_bootstrap", 2)
    level = arguments["confidence_level"]
    if not 0 < level < 1:
        raise ValueError(f"confidence_level must be in (0, 1), got {show_value(level)}")
    fields = {name: arguments[name] for name in _BootstrapOptions.__dataclass_fields__}
    return _BootstrapOptions(**{**fields, "n_bootstrap": n_bootstrap})
